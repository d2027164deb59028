"""Topology benchmark: parse an ibnetdiscover fabric and render topology.conf, stage by stage.

Generates 3-level fat trees (bench/fabric_gen.py, radix 64) of 1,024, 16,384
and 65,536 nodes and runs the collection's pipeline on each, as the
slurm_topology module does: ``ibnetdiscover.parse_file`` (parse, the file's
reading included), ``to_tree`` (build), ``topology.validate_tree``
(validate), ``render_tree`` (render).

Every run of every size is a fresh Python process (``--child``), so peak RSS
belongs to that size alone. Inside it, the peak of each stage is VmHWM read
after the stage, the high-water mark having been reset to the current RSS
before it (``/proc/self/clear_refs`` 5); a capture in ibnetdiscover's own
layout is read in blocks, never whole, as in the module. Where the reset is refused the peaks are
cumulative (said in the table and the JSON). Figures are medians over
``--runs`` runs with their min-max; the table shows the issue #25 targets
beside them. It reports, it never fails on a target. JSON goes to
bench/results/topology.json.

    python bench/topology.py [--sizes 1024,16384,65536] [--runs 3]   (make bench-topology)
"""

import argparse
import json
import os
import pathlib
import sys
import time

# The parent's own tools (statistics, subprocess, tempfile, threading, signal, fabric_gen) are
# imported in the functions that use them: the measured child process holds the interpreter,
# argparse, json and the collection's modules, not the harness around it.

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / ".cache" / "collections"))
sys.path.insert(0, str(ROOT / "bench"))

SIZES = (1024, 16384, 65536)
RADIX = 64
STAGES = ("parse", "build", "validate", "render")
CHILD_TIMEOUT_S = 180
# Issue #25: at 64k nodes, parse to render under 2 s and 300 MiB (peak RSS of the whole process).
TARGETS = {65536: {"total_s": 2.0, "peak_mib": 300.0}}


def _status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _reset_hwm():
    """Reset VmHWM to the current RSS; False where the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def child(path, reset=True):
    """One run of the pipeline on the capture at ``path``; prints one JSON line.

    ``reset=False`` leaves the high-water mark alone, so that the process's
    own peak (wait4's ru_maxrss) covers the whole run: the peers bench.
    """
    from ansible_collections.aicluster.slurm.plugins.module_utils import ibnetdiscover, topology

    out = {"baseline_mib": round(_status_kib("VmRSS") / 1024, 1), "stages": {}}
    resets = reset and _reset_hwm()

    def stage(name, fn):
        if resets:
            _reset_hwm()
        t0 = time.perf_counter()
        value = fn()
        seconds = time.perf_counter() - t0
        out["stages"][name] = {"s": seconds, "peak_mib": _status_kib("VmHWM") / 1024}
        return value

    fabric = stage("parse", lambda: ibnetdiscover.parse_file(path))  # reads the file, as the module does
    result = stage("build", lambda: ibnetdiscover.to_tree(fabric))
    tree = result["switches"]
    errors, warnings = stage("validate", lambda: topology.validate_tree(tree))
    content = stage("render", lambda: "\n".join(topology.render_tree(tree)) + "\n")
    out.update(
        peak_kind="per stage" if resets else "cumulative",
        total_s=sum(s["s"] for s in out["stages"].values()),
        peak_mib=max(s["peak_mib"] for s in out["stages"].values()),
        switches=len(tree),
        nodes=len({n for s in tree.values() for n in s["nodes"]}),
        lines=content.count("\n"),
        errors=len(errors),
        warnings=len(warnings),
        input_mib=round(os.path.getsize(path) / 2**20, 1),
    )
    print(json.dumps(out))


# A process's peak RSS (wait4's ru_maxrss) is at least the RSS of the process that forked it, at
# the fork: measured straight from this harness (which holds the generated fabric), every command
# would show this harness's size when that is the larger. So a small launcher, started fresh, forks
# the command and reports the command's own peak and wall time on its last stderr line.
_LAUNCHER = """
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_pid, status, usage = os.wait4(pid, 0)
sys.stderr.write("\\nlauncher: %d %.6f\\n" % (usage.ru_maxrss, time.perf_counter() - t0))
sys.exit(min(255, abs(os.waitstatus_to_exitcode(status))))
"""


def run_measured(argv, timeout=CHILD_TIMEOUT_S):
    """Run ``argv``; (stdout, returncode, wall seconds, peak RSS MiB of that process alone, timed out)."""
    import signal
    import subprocess
    import tempfile
    import threading

    expired = []
    with tempfile.TemporaryFile(mode="w+") as errors:
        proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER, *argv], stdout=subprocess.PIPE, stderr=errors, text=True, start_new_session=True)

        def kill():
            expired.append(True)
            os.killpg(proc.pid, signal.SIGKILL)  # the launcher and the command

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            stdout = proc.stdout.read()
            proc.wait()
        finally:
            timer.cancel()
            proc.stdout.close()
        errors.seek(0)
        err = errors.read()
    last = err.rstrip("\n").rsplit("\n", 1)[-1].split()
    maxrss_kib, wall = (int(last[1]), float(last[2])) if last[:1] == ["launcher:"] else (0, 0.0)
    if proc.returncode and not expired:
        sys.stderr.write(err[-2000:])
    return stdout, proc.returncode, wall, maxrss_kib / 1024, bool(expired)


def write_capture(nodes, directory):
    """The generated fabric of ``nodes`` hosts and its node list, as files; (capture path, node list path, switches)."""
    import fabric_gen

    text = fabric_gen.generate(nodes, RADIX)
    capture = pathlib.Path(directory) / ("fabric-%d.txt" % nodes)
    capture.write_text(text)
    names = pathlib.Path(directory) / ("nodes-%d.txt" % nodes)
    names.write_text("".join("gpu%05d\n" % (n + 1) for n in range(nodes)))
    counts = fabric_gen.shape(nodes, RADIX)
    switches = counts["leaves"] + counts["pods"] * counts["spines_per_pod"] + counts["spines_per_pod"] * counts["cores_per_group"]
    return capture, names, switches


def spread(values, digits=3):
    """{'median', 'min', 'max'} of ``values``, rounded."""
    import statistics

    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits), "max": round(max(values), digits)}


def measure(nodes, runs, directory):
    capture, _names, switches = write_capture(nodes, directory)
    samples = []
    for _run in range(runs):
        stdout, rc, wall, _maxrss, expired = run_measured([sys.executable, __file__, "--child", str(capture)])
        if rc or expired:
            return {"nodes": nodes, "error": "run killed after %d s" % CHILD_TIMEOUT_S if expired else "exit status %d" % rc}
        sample = json.loads(stdout)
        sample["process_wall_s"] = wall  # wait4's maxrss is not the peak here: the high-water mark was reset
        samples.append(sample)
    first = samples[0]
    row = {
        "nodes": nodes,
        "fabric_switches": switches,
        "runs": runs,
        "input_mib": first["input_mib"],
        "rendered": {key: first[key] for key in ("switches", "nodes", "lines", "errors", "warnings")},
        "peak_kind": first["peak_kind"],
        "baseline_mib": spread([s["baseline_mib"] for s in samples], 1),
        "stages": {
            name: {
                "s": spread([s["stages"][name]["s"] for s in samples]),
                "peak_mib": spread([s["stages"][name]["peak_mib"] for s in samples], 1),
            }
            for name in STAGES
        },
        "total_s": spread([s["total_s"] for s in samples]),
        "peak_mib": spread([s["peak_mib"] for s in samples], 1),
        "process_wall_s": spread([s["process_wall_s"] for s in samples]),
    }
    target = TARGETS.get(nodes)
    if target:
        row["targets"] = {key: {"limit": limit, "met": row[key]["median"] < limit} for key, limit in target.items()}
    return row


def fmt_spread(stat, unit=""):
    return "%s%s (%s-%s)" % (stat["median"], unit, stat["min"], stat["max"])


def table(rows):
    lines = ["%-7s %-9s %-26s %-26s %s" % ("nodes", "stage", "time s, median (min-max)", "peak RSS MiB (min-max)", "target")]
    for row in rows:
        if "error" in row:
            lines.append("%-7s %s" % (row["nodes"], row["error"]))
            continue
        for name in STAGES:
            stage = row["stages"][name]
            lines.append("%-7s %-9s %-26s %-26s" % (row["nodes"], name, fmt_spread(stage["s"]), fmt_spread(stage["peak_mib"])))
        targets = row.get("targets", {})
        verdict = ", ".join("%s %s < %s: %s" % (key, row[key]["median"], t["limit"], "met" if t["met"] else "NOT met") for key, t in sorted(targets.items()))
        lines.append("%-7s %-9s %-26s %-26s %s" % (row["nodes"], "all", fmt_spread(row["total_s"]), fmt_spread(row["peak_mib"]), verdict or "-"))
        lines.append(
            "%-7s input %s MiB, %d switches in the fabric, rendered %d switches / %d nodes / %d lines, %d warnings; "
            "interpreter + modules before parse %s MiB; whole process %s s; peaks %s"
            % (
                row["nodes"],
                row["input_mib"],
                row["fabric_switches"],
                row["rendered"]["switches"],
                row["rendered"]["nodes"],
                row["rendered"]["lines"],
                row["rendered"]["warnings"],
                row["baseline_mib"]["median"],
                row["process_wall_s"]["median"],
                row["peak_kind"],
            )
        )
    good = [row for row in rows if "error" not in row]
    for small, big in zip(good, good[1:], strict=False):
        grow = (big["nodes"] + big["fabric_switches"]) / (small["nodes"] + small["fabric_switches"])
        mem = (big["peak_mib"]["median"] - big["baseline_mib"]["median"]) / max(0.1, small["peak_mib"]["median"] - small["baseline_mib"]["median"])
        lines.append(
            "%d -> %d: nodes + switches x%.1f, time x%.1f, peak memory above the baseline x%.1f (linear: the same factor)"
            % (small["nodes"], big["nodes"], grow, big["total_s"]["median"] / max(1e-6, small["total_s"]["median"]), mem)
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES), help="node counts, comma-separated (default %(default)s)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size, each a fresh process (default %(default)s)")
    parser.add_argument("--child", metavar="CAPTURE", help=argparse.SUPPRESS)
    parser.add_argument("--no-reset", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, reset=not args.no_reset)
        return 0
    import tempfile

    sizes = [int(n) for n in args.sizes.split(",") if n.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-topology-") as directory:
        rows = []
        for nodes in sizes:
            rows.append(measure(nodes, args.runs, directory))
            print("measured %d nodes" % nodes, file=sys.stderr)
    print(table(rows))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "topology.json").write_text(json.dumps({"radix": RADIX, "targets": TARGETS, "rows": rows}, indent=2) + "\n")
    print("written: bench/results/topology.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
