"""Side by side with NVIDIA topograph: the same generated fabric through both, in the same run.

Builds bench/topology_peers (a Go main of ours over github.com/NVIDIA/topograph
at the version go.mod pins) with the Go toolchain into bench/results/, then,
for each size (default 1,024 and 16,384 nodes, bench/fabric_gen.py, radix 64),
runs on the same capture file, each in its own process, ``--runs`` times:

* ours: ``ibnetdiscover.parse``, ``to_tree``, ``topology.validate_tree``,
  ``render_tree`` (``bench/topology.py --child``, no high-water reset);
* topograph: ``ib.GenerateTopologyConfig`` given the node list (parse, tree,
  merge), then ``translate.NewNetworkTopology`` + ``Generate`` (its
  topology/tree topology.conf).

Per side: the pipeline time each reports (reading the capture to the rendered
text), the process wall time (Python's start and imports included) and the
process's own peak RSS (its wait4 ru_maxrss, forked by a fresh launcher so
that this harness's size does not floor it: bench/topology.py run_measured);
medians with min-max; then our/their ratios. Without Go, or when the module
cannot be fetched or built, it says so and exits 0. JSON goes to
bench/results/topology_peers.json.

    python bench/topology_peers.py [--sizes 1024,16384] [--runs 3]   (make bench-topology)
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import topology as topology_bench  # noqa: E402  (bench/topology.py)

ROOT = topology_bench.ROOT
MODULE = ROOT / "bench" / "topology_peers"
BINARY = topology_bench.RESULTS / "topology_peers"
SIZES = (1024, 16384)
BUILD_TIMEOUT_S = 600
# Issue #25: our/their ratio at 16k nodes at most 1.0, for time and for memory.
TARGET_RATIO = 1.0


def go_binary():
    return shutil.which("go") or next((p for p in ("/usr/local/go/bin/go",) if os.access(p, os.X_OK)), None)


def pinned_version():
    for line in (MODULE / "go.mod").read_text().splitlines():
        words = line.split()
        if "github.com/NVIDIA/topograph" in words:
            return words[words.index("github.com/NVIDIA/topograph") + 1]
    return "unknown"


def build():
    """Build the Go main; None when built, else the reason to skip."""
    go = go_binary()
    if not go:
        return "no Go toolchain (go not on PATH, nor /usr/local/go/bin/go)"
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [go, "build", "-trimpath", "-o", str(BINARY), "."], cwd=MODULE, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return "go build did not finish in %d s" % BUILD_TIMEOUT_S
    if done.returncode:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        return "go build of bench/topology_peers (github.com/NVIDIA/topograph %s) failed, the module could not be fetched or built:\n%s" % (
            pinned_version(),
            tail,
        )
    return None


def sample(argv, pipeline):
    stdout, rc, wall, maxrss, expired = topology_bench.run_measured(argv)
    if rc or expired:
        raise RuntimeError("%s: %s" % (argv[0], "killed after %d s" % topology_bench.CHILD_TIMEOUT_S if expired else "exit status %d" % rc))
    report = json.loads(stdout.strip().splitlines()[-1])
    return {"pipeline_s": pipeline(report), "wall_s": wall, "maxrss_mib": maxrss, "report": report}


def summarise(samples):
    first = samples[0]["report"]
    return {
        "pipeline_s": topology_bench.spread([s["pipeline_s"] for s in samples]),
        "wall_s": topology_bench.spread([s["wall_s"] for s in samples]),
        "maxrss_mib": topology_bench.spread([s["maxrss_mib"] for s in samples], 1),
        "switches": first["switches"],
        "nodes": first["nodes"],
        "lines": first["lines"],
    }


def measure(nodes, runs, directory):
    capture, names, switches = topology_bench.write_capture(nodes, directory)
    ours_argv = [sys.executable, str(ROOT / "bench" / "topology.py"), "--child", str(capture), "--no-reset"]
    theirs_argv = [str(BINARY), "-nodes", str(names), str(capture)]
    ours, theirs = [], []
    for _run in range(runs):  # interleaved, so that a busy machine weighs on both alike
        ours.append(sample(ours_argv, lambda report: report["total_s"]))
        theirs.append(sample(theirs_argv, lambda report: report["total_s"]))
    row = {"nodes": nodes, "fabric_switches": switches, "runs": runs, "ours": summarise(ours), "topograph": summarise(theirs)}
    row["ratio"] = {key: round(row["ours"][key]["median"] / max(1e-9, row["topograph"][key]["median"]), 2) for key in ("pipeline_s", "wall_s", "maxrss_mib")}
    return row


def table(rows, version):
    fmt = topology_bench.fmt_spread
    lines = [
        "topograph %s: ib.GenerateTopologyConfig + translate.NewNetworkTopology/Generate (topology/tree)" % version,
        "%-7s %-10s %-26s %-26s %-26s %s"
        % ("nodes", "side", "pipeline s (min-max)", "process wall s (min-max)", "peak RSS MiB (min-max)", "switches/nodes/lines"),
    ]
    for row in rows:
        for side in ("ours", "topograph"):
            got = row[side]
            lines.append(
                "%-7s %-10s %-26s %-26s %-26s %s/%s/%s"
                % (row["nodes"], side, fmt(got["pipeline_s"]), fmt(got["wall_s"]), fmt(got["maxrss_mib"]), got["switches"], got["nodes"], got["lines"])
            )
        ratio = row["ratio"]
        verdict = ""
        if row["nodes"] == 16384:
            verdict = "  target <= %.1f: time %s, memory %s" % (
                TARGET_RATIO,
                "met" if ratio["pipeline_s"] <= TARGET_RATIO else "NOT met",
                "met" if ratio["maxrss_mib"] <= TARGET_RATIO else "NOT met",
            )
        lines.append(
            "%-7s ours/topograph: pipeline time x%s, process wall x%s, peak RSS x%s%s"
            % (row["nodes"], ratio["pipeline_s"], ratio["wall_s"], ratio["maxrss_mib"], verdict)
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES), help="node counts, comma-separated (default %(default)s)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size and side, each a fresh process (default %(default)s)")
    args = parser.parse_args(argv)
    version = pinned_version()
    reason = build()
    if reason:
        print("SKIP topology_peers: %s" % reason)
        return 0
    sizes = [int(n) for n in args.sizes.split(",") if n.strip()]
    with tempfile.TemporaryDirectory(prefix="bench-topology-peers-") as directory:
        rows = [measure(nodes, args.runs, directory) for nodes in sizes]
    print(table(rows, version))
    topology_bench.RESULTS.mkdir(parents=True, exist_ok=True)
    (topology_bench.RESULTS / "topology_peers.json").write_text(
        json.dumps({"topograph": version, "radix": topology_bench.RADIX, "target_ratio": TARGET_RATIO, "rows": rows}, indent=2) + "\n"
    )
    print("written: bench/results/topology_peers.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
