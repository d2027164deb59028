# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the steps of `make test` in lanes, and print where the time went.

Each step is a make target (a molecule scenario is `make scenario S=name`).
Up to --jobs steps run at once (AICLUSTER_TEST_JOBS, default 2): a scenario
spends most of its time waiting on systemd, Slurm and its own sleeps, so two
share the 2 cores well. Steps that use the same containers hold the same
lock (badinput and secrets both use the lab's lab-* containers). Longest
steps start first, in the order of STEPS.

Each step writes its output to build/logs/<step>.log; a failed step's last
lines are printed, the other steps go on, and the run exits non-zero.

The timing table: each step's wall time, and within a molecule scenario each
stage's (create, prepare, converge, idempotence, verify, destroy), as
Ansible's ansible.posix.timer callback reported it for that stage's playbook
run (enabled in .config/molecule/config.yml). Printed at the end and written
to build/figures/timings.json.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "build" / "logs"
FIGURES = ROOT / "build" / "figures"


@dataclass
class Step:
    name: str
    target: list
    locks: tuple = ()
    needs: tuple = ()
    result: dict = field(default_factory=dict)


def scenario(name):
    return Step(name, ["scenario", "S=" + name])


# Longest first (tests/README.md has the measured costs); badinput and
# secrets, which share the lab-* containers, run one after the other and
# count as one chain. figures reads what badinput, secrets and the scenarios
# wrote. upgrade and gpu never run side by side (lock "cores"): a job that
# ran through the release upgrade once never ended while the gpu scenario's
# DKMS build held both cores.
STEPS = (
    Step("badinput", ["badinput"], locks=("lab",)),
    Step("secrets", ["secrets"], locks=("lab",), needs=("badinput",)),
    scenario("midsize"),
    Step("upgrade", ["scenario", "S=upgrade"], locks=("cores",)),
    # startup (also the monitoring scenario, day 2 on trixie, the rollback on
    # forky) runs on both releases, Debian trixie / Slurm 24.11 and forky /
    # Slurm 26.05; every other scenario on trixie / 24.11. One after the
    # other: the same containers, network and molecule directory.
    Step("startup-trixie", ["scenario", "S=startup", "LAB_RELEASE=trixie"], locks=("startup",)),
    Step("gpu", ["scenario", "S=gpu"], locks=("cores",)),
    Step("startup-forky", ["scenario", "S=startup", "LAB_RELEASE=forky"], locks=("startup",)),
    scenario("large"),
    scenario("storage"),
    Step("lint", ["lint"]),
    Step("sanity", ["sanity"]),
    Step("topology-it", ["topology-it"]),
    Step("unit", ["unit"]),
    Step("promtool", ["promtool"]),
    Step("build", ["build"]),
)
FINAL = Step("figures", ["figures"], needs=tuple(s.name for s in STEPS))

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STAGE = re.compile(r"INFO\s+\S+ \u279c (\w+): Executing")
TOOK = re.compile(r"Playbook run took (\d+) days, (\d+) hours, (\d+) minutes, (\d+) seconds")
ASSERTIONS = re.compile(r"ASSERTIONS: passed=(\d+) tasks=(\d+)")


def stages(log_text):
    """({stage: seconds}, {passed, tasks}) from a molecule log: each
    ansible.posix.timer line belongs to the stage announced before it (a
    stage run twice adds up); the assertions are the verify stage's."""
    found, verified, current = {}, {"passed": 0, "tasks": 0}, None
    for line in ANSI.sub("", log_text).splitlines():
        match = STAGE.search(line)
        if match:
            current = match.group(1)
            continue
        match = TOOK.search(line)
        if match and current:
            d, h, m, s = (int(g) for g in match.groups())
            found[current] = found.get(current, 0) + ((d * 24 + h) * 60 + m) * 60 + s
        match = ASSERTIONS.search(line)
        if match and current == "verify":
            verified["passed"] += int(match.group(1))
            verified["tasks"] += int(match.group(2))
    return found, verified


# A failure line in a step's log: ansible's (not the retries of an until
# loop), pytest's and the harness's own scripts' verdicts.
FAILURE = re.compile(r"^(fatal|failed): \[|FAILED(?! - RETRYING)|^Traceback|\bFAIL\b")


def why_failed(log_text, lines=14, width=160):
    """The last failure in a step's log that was not ignored, after the name
    of its task: short enough to be read at the end of a CI run's output
    (which may show only its tail)."""
    text = [line.replace("\u2502", "").strip() for line in ANSI.sub("", log_text).splitlines()]
    text = [line for line in text if line]
    found = None
    for i, line in enumerate(text):
        if not FAILURE.search(line):
            continue
        after = text[i + 1 : i + 80]
        end = next((j for j, a in enumerate(after) if a.startswith("TASK [")), len(after))
        if not any(a.startswith("...ignoring") for a in after[:end]):
            found = i
    if found is None:
        return [line[:width] for line in text[-lines:]]
    task = next((text[j] for j in range(found, -1, -1) if text[j].startswith("TASK [")), None)
    return [line[:width] for line in ([task] if task else []) + text[found : found + lines]]


def run_step(step, env):
    log = LOGS / (step.name + ".log")
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        rc = subprocess.call(["make", "--no-print-directory"] + step.target, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    step.result = {"rc": rc, "seconds": round(time.monotonic() - start), "log": str(log.relative_to(ROOT))}
    if step.target[0] == "scenario":
        step.result["stages"], step.result["assertions"] = stages(log.read_text(encoding="utf-8", errors="replace"))


def schedule(steps, jobs, env, t0, runner=run_step):
    """Run steps in lanes; each waits for its needs and its locks."""
    pending, running, done = list(steps), {}, set()
    selected = names(steps)
    cond = threading.Condition()

    def worker(step):
        try:
            runner(step, env)
        finally:
            with cond:
                running.pop(step.name)
                done.add(step.name)
                rc = step.result.get("rc", 1)
                mark = "ok" if rc == 0 else "FAILED rc=%d" % rc
                print("[%5.1f min] %-12s %s in %s s" % ((time.monotonic() - t0) / 60, step.name, mark, step.result.get("seconds", "?")), flush=True)
                if rc:
                    print(tail(LOGS / (step.name + ".log")), flush=True)
                cond.notify_all()

    with cond:
        while pending or running:
            held = {lock for s in running.values() for lock in s.locks}
            ready = [s for s in pending if all(n in done or n not in selected for n in s.needs) and not held & set(s.locks)]
            if not ready and not running:
                raise RuntimeError("steps that can never start: %s" % ", ".join(s.name for s in pending))
            if ready and len(running) < jobs:
                step = ready[0]
                pending.remove(step)
                running[step.name] = step
                print("[%5.1f min] %-12s started" % ((time.monotonic() - t0) / 60, step.name), flush=True)
                threading.Thread(target=worker, args=(step,), daemon=True).start()
                continue
            cond.wait()


def names(steps):
    return {s.name for s in steps}


def tail(path, lines=60):
    if not path.exists():
        return "    | (no log at %s)" % path
    text = ANSI.sub("", path.read_text(encoding="utf-8", errors="replace")).splitlines()
    return "\n".join("    | " + line for line in text[-lines:])


def table(steps, wall, jobs):
    order = ("create", "prepare", "converge", "idempotence", "verify", "destroy")
    head = ["step", "wall s"] + list(order) + ["asserts"]
    rows = [head]
    for step in steps:
        result = step.result
        row = [step.name, str(result.get("seconds", "-"))]
        if "stages" in result:
            row += [str(result["stages"].get(o, "-")) for o in order]
            row.append("%(passed)d/%(tasks)d" % result["assertions"])
        rows.append(row)
    busy = sum(s.result.get("seconds", 0) for s in steps)
    rows.append(["total wall", str(wall)])
    width = [max(len(r[i]) for r in rows if len(r) > i) for i in range(len(head))]
    lines = ["  ".join(cell.rjust(width[i]) if i else cell.ljust(width[i]) for i, cell in enumerate(r)) for r in rows]
    lines.append(
        "(s: steps by the harness's clock; stages by ansible.posix.timer; asserts: assert results passed/assert tasks"
        " in verify; %d lanes; the steps add up to %d s)" % (jobs, busy)
    )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("AICLUSTER_TEST_JOBS", "2")))
    parser.add_argument("--only", help="comma-separated step names (figures is then skipped)")
    args = parser.parse_args()

    steps = [s for s in STEPS if not args.only or s.name in args.only.split(",")]
    unknown = set(args.only.split(",")) - names(STEPS) if args.only else set()
    if unknown:
        parser.error("unknown steps %s; known: %s" % (", ".join(sorted(unknown)), ", ".join(s.name for s in STEPS)))
    LOGS.mkdir(parents=True, exist_ok=True)
    FIGURES.mkdir(parents=True, exist_ok=True)
    if not args.only:
        # The figures judge this run's layouts only: no report left by an earlier run counts.
        for stale in FIGURES.glob("outsider-*.json"):
            stale.unlink()
    env = dict(os.environ, MAKEFLAGS="")
    t0 = time.monotonic()
    schedule(steps, max(1, args.jobs), env, t0)
    final = [] if args.only else [FINAL]
    for step in final:
        run_step(step, env)
        print(ANSI.sub("", (LOGS / (step.name + ".log")).read_text(encoding="utf-8", errors="replace")), end="", flush=True)
    wall = round(time.monotonic() - t0)
    everything = steps + final
    print("\n" + table(everything, wall, args.jobs))
    document = {
        "jobs": args.jobs,
        "wall_seconds": wall,
        "steps": {s.name: s.result for s in everything},
    }
    (FIGURES / "timings.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    failed = [s.name for s in everything if s.result.get("rc", 1)]
    print("steps: %d passed, %d failed" % (len(everything) - len(failed), len(failed)))
    if failed:
        for name in failed:
            log = LOGS / (name + ".log")
            if log.exists():
                print("why %s failed (%s):" % (name, log.relative_to(ROOT)))
                print("\n".join("  " + line for line in why_failed(log.read_text(encoding="utf-8", errors="replace"))))
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
