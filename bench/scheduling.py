#!/usr/bin/env python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Scheduling on the emulated large tier: the collection's configuration against a flat baseline.

Runs on the cluster of the molecule `large` scenario (bench/scheduling.sh
brings it up): one job trace replayed twice, side by side in one run,

* ``collection``: slurm.conf as site.yml wrote it (topology/tree from the
  fat tree, inventories/large's SchedulerParameters);
* ``flat``: the same file without TopologyPlugin and SchedulerParameters
  (no topology, Slurm's default scheduler settings).

A third configuration, ``tuned``, tries a change before it goes into the
collection: ``--tuned KEY=VALUE`` puts slurm.conf lines in place of the
collection's, ``--switches-wait S`` makes each multi-node job ask for its
fewest leaf switches (``sbatch --switches=N@S``, what a job_submit policy
would add); with ``--switches-one-leaf`` only the jobs that fit under one
leaf ask (for that one leaf), the larger ones go as they are.

``--spread-penalty P`` models what spreading costs a training job that talks
across its leaves on every step: a multi-node job runs ``seconds × (1 + P ×
(leaves used ÷ fewest − 1))``, the job counting its leaves at its start
(default 0: every job runs its trace seconds, whatever its placement). Then
``useful_utilisation`` (the trace's GPU-seconds ÷ GPUs × makespan) is the
utilisation to read: the allocated figure counts the slowdown as work.

Every configuration keeps the protection window slurm.conf has
(``PreemptExemptTime``, 4 h in the large inventory: no running job is
preempted within a trace, the fine-tunes wait like the rest);
``--exempt-time 0`` lets the fine-tunes preempt training jobs at once (the
condition of every table measured before 20d2e7f). Preempted runs and the GPU-hours
they lost (their allocation from start to preemption, as a ``sleep`` restarts
from nothing) are reported beside the other figures.
The trace (seeded, so both runs get the same one): training jobs of 1-64
nodes in llm-pretrain and short 1-4-node fine-tunes in llm-finetune, whose
PriorityTier preempts (REQUEUE) training work; jobs are ``sleep``s, so the
figures are about placement and scheduling, not compute. Its size follows
the cluster: jobs are drawn until they offer ``--load`` times the GPU-seconds
the cluster has over the submission window (``--jobs`` fixes a count
instead). Each seed of ``--seeds`` is one trace, run with both
configurations; the summary gives each figure's median and range over them.

For each run: topology locality (leaf switches used ÷ the fewest that could
hold the job, ``ceil(nodes / leaf size)``, per multi-node job), GPU
utilisation over the makespan (allocated GPU-seconds of every run of every
job, preempted runs included, ÷ GPUs × makespan), scheduler cycle times and
jobs started per second (``sdiag``), submit-to-start latency p50/p99
(``sacct``), and fragmentation: sampled every few seconds while the trace
runs, the GPUs idle while a job that would fit in them waits for resources
(its reason Resources or Priority), as a share of the cluster's GPUs
(mean over the samples), and the share of samples with any. Prints a table
and writes JSON. Bounded: a run stops waiting after ``--timeout`` seconds,
cancels what is left and says so.
"""

import argparse
import json
import math
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import locality  # noqa: E402  pylint: disable=wrong-import-position

CONF = "/etc/slurm/slurm.conf"
SAVED = "/etc/slurm/slurm.conf.bench-saved"
GPUS_PER_NODE = 8
# Training job sizes (nodes) and their weights: mostly small, some large.
TRAINING_SIZES = ((1, 6), (2, 5), (4, 5), (8, 4), (16, 3), (32, 2), (64, 1))


def sh(host, command, check=True):
    """Run ``command`` with bash on a container; its stdout."""
    proc = subprocess.run(["docker", "exec", host, "bash", "-c", command], capture_output=True, text=True, check=False)
    if check and proc.returncode:
        raise RuntimeError("%s: %s: rc %d: %s" % (host, command, proc.returncode, proc.stderr.strip()))
    return proc.stdout


def trace(seed, jobs, window, max_nodes):
    """``[{at, partition, account, nodes, seconds}]``, sorted by submission offset (seconds)."""
    rng = random.Random(seed)
    sizes = [size for size, weight in TRAINING_SIZES if size <= max_nodes for size in [size] * weight]
    result = []
    while len(result) < jobs:
        at = round(rng.uniform(0, window), 1)
        if rng.random() < 0.25:
            result.append({"at": at, "partition": "llm-finetune", "account": "llm-finetune", "nodes": rng.choice((1, 2, 4)), "seconds": rng.randint(10, 30)})
        else:
            result.append({"at": at, "partition": "llm-pretrain", "account": "llm-pretrain", "nodes": rng.choice(sizes), "seconds": rng.randint(30, 120)})
    return sorted(result, key=lambda job: job["at"])


def gpu_seconds(jobs):
    """The GPU-seconds a trace offers."""
    return sum(job["nodes"] * GPUS_PER_NODE * job["seconds"] for job in jobs)


def load_trace(seed, load, window, nodes):
    """A trace offering ``load`` times the cluster's GPU-seconds over ``window`` (the job count follows the cluster)."""
    capacity = load * nodes * GPUS_PER_NODE * window
    count = 1
    while gpu_seconds(trace(seed, count, window, nodes // 2)) < capacity:
        count += 1
    return trace(seed, count, window, nodes // 2)


def _key(line):
    """The lower-cased key of a slurm.conf line (``Key=value``); the whole stripped line where it has no ``=``."""
    return line.partition("=")[0].strip().lower()


def flat(text):
    """slurm.conf without topology and scheduler tuning."""
    dropped = ("topologyplugin", "schedulerparameters")
    return "".join(line for line in text.splitlines(True) if _key(line) not in dropped)


def tuned(text, settings):
    """slurm.conf with each ``Key=value`` of ``settings`` in place of that key's line (appended when missing)."""
    keys = set(map(_key, settings))
    lines = [line for line in text.splitlines(True) if _key(line) not in keys]
    return "".join(lines).rstrip("\n") + "\n" + "".join(setting + "\n" for setting in settings)


def exempt(text, protection):
    """slurm.conf with ``PreemptExemptTime=protection`` in place of its own; ``None`` keeps the file's."""
    return text if protection is None else tuned(text, ["PreemptExemptTime=" + protection])


def exempt_time(text):
    """The value of slurm.conf's last PreemptExemptTime line, or None (for the report only)."""
    values = [line.partition("=")[2].strip() for line in text.splitlines() if _key(line) == "preemptexempttime"]
    return values[-1] if values else None


def variant_text(original, variant, settings):
    if variant == "flat":
        return flat(original)
    if variant == "tuned":
        return tuned(original, settings)
    return original


def apply(controllers, variant, settings=(), protection=None):
    """Write the variant's slurm.conf on every controller and restart slurmctld, primary first.

    ``protection``: PreemptExemptTime for every configuration, None to keep the file's.
    """
    for host in controllers:
        sh(host, "test -e %s || cp -p %s %s" % (SAVED, CONF, SAVED))
        original = sh(host, "cat %s" % SAVED)
        text = exempt(variant_text(original, variant, settings), protection)
        subprocess.run(["docker", "exec", "-i", host, "bash", "-c", "cat > %s" % CONF], input=text, text=True, check=True)
    for host in controllers:
        sh(host, "systemctl restart slurmctld")
    wait_for(lambda: sh(controllers[0], "scontrol ping", check=False).count("is UP") >= 1, 60, "slurmctld to answer")
    sh(controllers[0], "scontrol reconfigure")
    nodes = int(sh(controllers[0], "sinfo -h -o %D").split()[0])
    wait_for(lambda: sh(controllers[0], "sinfo -h -o '%D|%t'").strip() == "%d|idle" % nodes, 120, "every node idle")


def restore(controllers):
    for host in controllers:
        sh(host, f"test -e {SAVED} && cp -p {SAVED} {CONF} && rm -f {SAVED}; systemctl restart slurmctld", check=False)


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(2)
    raise RuntimeError("gave up waiting for %s after %d s" % (what, seconds))


def leaf_size(by_leaf):
    """Nodes under the largest leaf switch: the divisor of the fewest leaves a job needs."""
    return max(len(nodes) for nodes in by_leaf.values())


def switches_option(nodes, per_leaf, wait, one_leaf=False):
    """``--switches=<fewest leaves>@<wait>`` for a multi-node job (what a job_submit policy would add), else ''.

    ``one_leaf``: only for a job that fits under one leaf. sbatch reads a bare number after ``@`` as minutes:
    the wait goes as minutes:seconds.
    """
    if wait is None or nodes < 2 or (one_leaf and nodes > per_leaf):
        return ""
    return " --switches=%d@%d:%02d" % (math.ceil(nodes / per_leaf), wait // 60, wait % 60)


def job_script(job, by_leaf=None, penalty=0.0):
    """The batch script of one trace job (POSIX sh): a ``sleep`` of its seconds, or with ``penalty`` (a multi-node
    job) of ``seconds × (1 + penalty × (leaves used ÷ fewest − 1))``, its leaves counted from its node list at start."""
    if not penalty or job["nodes"] < 2:
        return "sleep %d" % job["seconds"]
    fewest = math.ceil(job["nodes"] / leaf_size(by_leaf))
    ranges = " ".join(shlex.quote(locality.hostlist.compress(nodes)) for _leaf, nodes in sorted(by_leaf.items()))
    return (
        'mine=$(scontrol show hostnames "$SLURM_JOB_NODELIST"); used=0; '
        'for leaf in %s; do scontrol show hostnames "$leaf" | grep -qxF -- "$mine" && used=$((used + 1)); done; '
        "sleep $(awk -v s=%d -v p=%g -v u=$used -v f=%d 'BEGIN { printf \"%%.1f\", s * (1 + p * (u / f - 1)) }')"
    ) % (ranges, job["seconds"], penalty, fewest)


def replay(controller, jobs, timeout, per_leaf=None, switches_wait=None, one_leaf=False, by_leaf=None, penalty=0.0):
    """Submit the trace in real time; wait for every job (at most ``timeout`` s); the job ids.

    ``switches_wait``: multi-node jobs (``one_leaf``: those that fit under one leaf) ask for their fewest leaves,
    waiting at most that many seconds for them. ``penalty``: see :func:`job_script`.
    """
    ids = []
    start = time.monotonic()
    for job in jobs:
        delay = job["at"] - (time.monotonic() - start)
        if delay > 0:
            time.sleep(delay)
        switches = switches_option(job["nodes"], per_leaf, switches_wait, one_leaf)
        script = shlex.quote(job_script(job, by_leaf, penalty))
        command = f"sbatch --parsable -p {job['partition']} -A {job['account']} -N {job['nodes']}{switches} -t 10 --requeue --wrap {script}"
        ids.append(sh(controller, command).strip().split(";")[0])
    deadline = start + timeout
    while time.monotonic() < deadline:
        if not sh(controller, "squeue -h -o %i").strip():
            return ids, False
        time.sleep(3)
    sh(controller, "scancel %s" % " ".join(ids), check=False)
    return ids, True


# A job pending for these reasons waits for nodes; the others wait by policy (limits, dependencies, holds).
WAITING_FOR_NODES = ("Resources", "Priority")


def stranded(sinfo_text, squeue_text):
    """(idle GPUs, GPUs idle while a job that would fit in them waits for nodes) from one sample.

    ``sinfo -h -o '%T|%D'`` and ``squeue -h -t PD -o '%D|%r'``. Whole-node jobs (the H200 partitions are
    OverSubscribe=EXCLUSIVE): a node's GPUs are idle when the node is.
    """
    idle = 0
    for line in sinfo_text.splitlines():
        state, _sep, count = line.partition("|")
        if state.strip().rstrip("*~#!%$@^-").lower() == "idle" and count.strip().isdigit():
            idle += int(count)
    fits = any(
        nodes.strip().isdigit() and int(nodes) <= idle and reason.strip() in WAITING_FOR_NODES
        for nodes, _sep, reason in (line.partition("|") for line in squeue_text.splitlines())
    )
    return idle * GPUS_PER_NODE, idle * GPUS_PER_NODE if fits else 0


class Fragmentation(threading.Thread):
    """Samples stranded GPUs on the controller every ``every`` seconds until stopped."""

    def __init__(self, controller, every=5.0):
        super().__init__(daemon=True)
        self.controller, self.every, self.samples = controller, every, []
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(self.every):
            nodes = sh(self.controller, "sinfo -h -o '%T|%D'", check=False)
            pending = sh(self.controller, "squeue -h -t PD -o '%D|%r'", check=False)
            self.samples.append(stranded(nodes, pending))

    def figures(self, total_gpus):
        if not self.samples:
            return {"fragmentation_mean": None, "fragmentation_share": None}
        lost = [gpus for _idle, gpus in self.samples]
        return {
            "fragmentation_mean": round(sum(lost) / len(lost) / total_gpus, 4),
            "fragmentation_share": round(sum(gpus > 0 for gpus in lost) / len(lost), 3),
        }


def summary(runs):
    """``{figure: {median, min, max}}`` over the seeds' runs of one configuration (numbers only)."""
    result = {}
    for figure in runs[0]:
        values = [run[figure] for run in runs if isinstance(run.get(figure), (int, float)) and not isinstance(run.get(figure), bool)]
        if values:
            result[figure] = {"median": round(statistics.median(values), 4), "min": min(values), "max": max(values)}
    return result


def stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").timestamp()


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def sdiag(text):
    """Counters of ``sdiag``: jobs started, and the main and backfill mean/max cycle (µs)."""
    result = {}
    section = "main"
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Backfilling stats"):
            section = "backfill"
        elif stripped.startswith(("Latency for", "Remote Procedure Call")):
            section = "other"
        key, sep, value = stripped.partition(":")
        value = value.strip().split(" ")[0]
        if not sep or not value.isdigit():
            continue
        if key == "Jobs started" and section == "main":
            result["jobs_started"] = int(value)
        elif key in ("Mean cycle", "Max cycle") and section in ("main", "backfill"):
            result["%s_%s_us" % (section, key.split()[0].lower())] = int(value)
        elif key.startswith("Total backfilled jobs (since last slurm start)"):
            result["backfilled_jobs"] = int(value)
    return result


SACCT_FIELDS = "JobID,Partition,NNodes,Submit,Start,End,NodeList,State"


def measure(controller, ids, by_leaf, total_gpus, work=None):
    """The figures of one run from sacct (every record, requeued runs included)."""
    rows = sh(controller, "sacct -X -D -n -P -j %s -o %s" % (",".join(ids), SACCT_FIELDS)).splitlines()
    return run_figures(rows, ids, by_leaf, total_gpus, work)


def run_figures(rows, ids, by_leaf, total_gpus, work=None):
    """The figures of one run from its ``sacct -X -D -P -o SACCT_FIELDS`` rows; ``work``: the trace's GPU-seconds."""
    size = leaf_size(by_leaf)
    busy = 0.0
    first_submit, last_end = None, None
    final = {}
    preempted = 0
    lost = 0.0
    for row in rows:
        job, partition, nodes, submit, start, end, nodelist, state = row.split("|")
        ran = start not in ("Unknown", "None") and end not in ("Unknown", "None")
        gpu_s = int(nodes) * GPUS_PER_NODE * (stamp(end) - stamp(start)) if ran else 0.0
        if "PREEMPTED" in state or "REQUEUED" in state:
            preempted += 1
            lost += gpu_s
        if not ran:
            continue
        busy += gpu_s
        first_submit = min(first_submit or stamp(submit), stamp(submit))
        last_end = max(last_end or stamp(end), stamp(end))
        final[job] = {"partition": partition, "nodes": int(nodes), "submit": stamp(submit), "start": stamp(start), "nodelist": nodelist, "state": state}
    waits = [job["start"] - job["submit"] for job in final.values() if job["state"] == "COMPLETED"]
    ratios = []
    for job in final.values():
        if job["nodes"] > 1 and job["state"] == "COMPLETED":
            used = len(locality.leaves_used(locality.hostlist.expand(job["nodelist"]), by_leaf))
            ratios.append(used / math.ceil(job["nodes"] / size))
    makespan = (last_end - first_submit) if final else 0
    return {
        "jobs": len(ids),
        "completed": sum(job["state"] == "COMPLETED" for job in final.values()),
        "preempted_runs": preempted,
        "lost_gpu_hours": round(lost / 3600, 2),
        "makespan_s": makespan,
        "gpu_utilisation": round(busy / (total_gpus * makespan), 3) if makespan else None,
        "useful_utilisation": round(work / (total_gpus * makespan), 3) if makespan and work else None,
        "locality_mean": round(sum(ratios) / len(ratios), 3) if ratios else None,
        "locality_worst": round(max(ratios), 3) if ratios else None,
        "multi_node_jobs": len(ratios),
        "wait_p50_s": percentile(waits, 0.5),
        "wait_p99_s": percentile(waits, 0.99),
    }


COLUMNS = (
    "completed",
    "preempted_runs",
    "lost_gpu_hours",
    "makespan_s",
    "gpu_utilisation",
    "useful_utilisation",
    "locality_mean",
    "locality_worst",
    "fragmentation_mean",
    "fragmentation_share",
    "wait_p50_s",
    "wait_p99_s",
    "main_mean_us",
    "backfill_mean_us",
    "jobs_started_per_s",
)


# What slurm.conf reads as a duration: minutes, or [days-]hours:minutes[:seconds] (a bench option, not user input).
_DURATION_RE = re.compile(r"\d+|(\d+-)?\d{1,2}:\d{2}(:\d{2})?")


def exempt_value(text):
    """``--exempt-time``'s value, checked before any slurm.conf changes."""
    if not _DURATION_RE.fullmatch(text):
        raise argparse.ArgumentTypeError("%r is not a PreemptExemptTime: minutes or [days-]HH:MM[:SS], e.g. 0 or 04:00:00" % text)
    return text


def penalty_value(text):
    """``--spread-penalty``'s value: a number from 0 to 10."""
    value = float(text) if re.fullmatch(r"\d+(\.\d+)?", text) else -1.0
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError("%r is not a spread penalty: a number from 0 to 10, e.g. 0.1 (10 %% per extra leaf share)" % text)
    return value


def one_run(controllers, variant, jobs, by_leaf, total_gpus, timeout, settings=(), switches_wait=None, one_leaf=False, protection=None, penalty=0.0):
    """One configuration on one trace: its figures."""
    primary = controllers[0]
    apply(controllers, variant, settings, protection)
    sh(primary, "sdiag -r")
    sampler = Fragmentation(primary)
    sampler.start()
    try:
        ids, timed_out = replay(primary, jobs, timeout, leaf_size(by_leaf), switches_wait if variant == "tuned" else None, one_leaf, by_leaf, penalty)
    finally:
        sampler.stopped.set()
        sampler.join()
    figures = measure(primary, ids, by_leaf, total_gpus, gpu_seconds(jobs))
    figures.update(sdiag(sh(primary, "sdiag")), timed_out=timed_out)
    figures.update(sampler.figures(total_gpus))
    figures["jobs_started_per_s"] = round(figures.get("jobs_started", 0) / figures["makespan_s"], 3) if figures["makespan_s"] else None
    return figures


def _cell(figures):
    if not figures:
        return "-"
    if figures["min"] == figures["max"]:
        return "%g" % figures["median"]
    return "%g (%g-%g)" % (figures["median"], figures["min"], figures["max"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--controllers", default="large-ctl,large-ctl2", help="controller containers, primary first")
    parser.add_argument("--load", type=float, default=1.0, help="GPU-seconds offered over the window, as a share of the cluster's")
    parser.add_argument("--jobs", type=int, help="a fixed number of jobs instead of --load")
    parser.add_argument("--window", type=float, default=180, help="seconds over which the jobs are submitted")
    parser.add_argument("--seeds", default="1,2,3,4,5", help="one trace per seed, each run with every configuration")
    parser.add_argument("--timeout", type=int, default=900, help="seconds to wait for one run's jobs")
    parser.add_argument(
        "--tuned",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a third configuration: the collection's slurm.conf with this line in place of the key's (repeatable)",
    )
    parser.add_argument(
        "--switches-wait",
        type=int,
        metavar="SECONDS",
        help="in the third configuration, multi-node jobs ask for their fewest leaf switches (sbatch --switches=N@SECONDS)",
    )
    parser.add_argument("--switches-one-leaf", action="store_true", help="with --switches-wait: only the jobs that fit under one leaf ask")
    parser.add_argument(
        "--exempt-time",
        type=exempt_value,
        metavar="TIME",
        help="PreemptExemptTime for every configuration (0: fine-tunes preempt at once); default: slurm.conf's own",
    )
    parser.add_argument(
        "--spread-penalty",
        type=penalty_value,
        default=0.0,
        metavar="P",
        help="a multi-node job runs seconds x (1 + P x (leaves used / fewest - 1)); default 0 (placement costs no time)",
    )
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "scheduling.json"))
    args = parser.parse_args(argv)
    if args.switches_one_leaf and args.switches_wait is None:
        parser.error("--switches-one-leaf needs --switches-wait SECONDS (how long those jobs wait for one leaf)")
    controllers = args.controllers.split(",")
    primary = controllers[0]
    by_leaf = locality.leaves(sh(primary, "scontrol show topology"))
    if not by_leaf:
        parser.error("%s has no topology: run it on the large scenario (bench/scheduling.sh)" % primary)
    nodes = int(sh(primary, "sinfo -h -o %D").split()[0])
    total_gpus = nodes * GPUS_PER_NODE
    seeds = [int(seed) for seed in args.seeds.split(",")]
    third = args.tuned or args.switches_wait is not None
    variants = ("collection", "flat") + (("tuned",) if third else ())
    protection = args.exempt_time or exempt_time(sh(primary, "cat %s 2>/dev/null || cat %s" % (SAVED, CONF)))
    report = {"nodes": nodes, "gpus": total_gpus, "leaves": len(by_leaf), "load": None if args.jobs else args.load, "window_s": args.window}
    report.update(preempt_exempt_time=protection, spread_penalty=args.spread_penalty, seeds={})
    if third:
        report["tuned"] = args.tuned
        report["switches_wait_s"] = args.switches_wait
        report["switches_one_leaf"] = args.switches_one_leaf
    try:
        for seed in seeds:
            jobs = trace(seed, args.jobs, args.window, nodes // 2) if args.jobs else load_trace(seed, args.load, args.window, nodes)
            offered = round(gpu_seconds(jobs) / (total_gpus * args.window), 3)
            report["seeds"][seed] = {"jobs": len(jobs), "offered_load": offered, "runs": {}}
            for variant in variants:
                report["seeds"][seed]["runs"][variant] = one_run(
                    controllers,
                    variant,
                    jobs,
                    by_leaf,
                    total_gpus,
                    args.timeout,
                    args.tuned,
                    args.switches_wait,
                    args.switches_one_leaf,
                    args.exempt_time,
                    args.spread_penalty,
                )
            print("seed %d: %d jobs, offered load %.2f" % (seed, len(jobs), offered), flush=True)
    finally:
        restore(controllers)
    report["summary"] = {variant: summary([report["seeds"][seed]["runs"][variant] for seed in seeds]) for variant in variants}
    print(
        "%d nodes, %d GPUs, %d leaves; seeds %s; PreemptExemptTime %s; spread penalty %g; median (min-max)"
        % (nodes, total_gpus, len(by_leaf), args.seeds, protection, args.spread_penalty)
    )
    if third:
        asking = "one-leaf" if args.switches_one_leaf else "multi-node"
        switches = "; %s jobs --switches=N@%d" % (asking, args.switches_wait) if args.switches_wait is not None else ""
        print("tuned: the collection's slurm.conf with %s%s" % (", ".join(args.tuned) or "no change", switches))
    print("%-20s" % "figure" + "".join(" %26s" % variant for variant in variants))
    for column in COLUMNS:
        print("%-20s" % column + "".join(" %26s" % _cell(report["summary"][variant].get(column)) for variant in variants))
    timed_out = [seed for seed in seeds if any(run["timed_out"] for run in report["seeds"][seed]["runs"].values())]
    if timed_out:
        print("timed out (figures cover what ran): seeds %s" % timed_out)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=2)
    print("written: %s" % args.out)
    return 1 if timed_out else 0


if __name__ == "__main__":
    sys.exit(main())
