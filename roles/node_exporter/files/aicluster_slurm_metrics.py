# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm metrics for node exporter's textfile collector.

No Slurm exporter for Slurm 24.11 can be had from Debian or built here, so the
controller's node exporter serves Slurm's own view: every few seconds this
program runs sinfo, squeue and sdiag and writes their counts to a .prom file,
atomically. Aggregate names follow the vpenso/SckyzO slurm_exporter
(slurm_nodes_down, slurm_queue_running, slurm_cpus_alloc, ...), so alert rules
work with either. A command that fails sets
aicluster_slurm_collector_success{command=...} to 0 and leaves its metrics out.

GPUs, from scontrol's view of the nodes (Gres and, with --details, GresUsed) and the pending
jobs that ask for GPUs, per partition and GPU type: allocated, idle (on nodes
that can take jobs) and down (on nodes that cannot: down, drained, failing,
not responding, powered down), the idle GPUs of partially allocated nodes
(fragmentation: a job that wants whole nodes cannot use them), and the GPU
jobs pending with the age of the oldest. A node in two partitions counts in
both.

With --nodes-only (Slurm 25.11 and later, where slurmctld serves its own
counts on /metrics/...) it writes only what those endpoints lack: each node's
state and whether it responds, and the GPU counts.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

NODE_STATES = {
    "allocated": "alloc",
    "completing": "comp",
    "down": "down",
    "drained": "drain",
    "draining": "drain",
    "fail": "fail",
    "failing": "fail",
    "idle": "idle",
    "maint": "maint",
    "mixed": "mix",
    "reserved": "resv",
}
AGGREGATES = sorted(set(NODE_STATES.values())) + ["other"]
JOB_STATES = (
    "pending",
    "running",
    "suspended",
    "completing",
    "completed",
    "configuring",
    "cancelled",
    "failed",
    "timeout",
    "preempted",
    "node_fail",
    "out_of_memory",
    "requeued",
)
# sinfo %T flags after the state: * not responding, ~ powered off, # powering
# up, ! powering down, % powered down, $ maintenance, @ reboot, ^ rebooting, - planned.
STATE_FLAGS = "*~#!%$@^-"


def node_states(sinfo_output):
    """``{node: (state, not_responding)}`` from ``sinfo --Node --noheader --format=%N|%T``.

    A node in several partitions is listed once per partition; its state is the same.
    """
    nodes = {}
    for line in sinfo_output.splitlines():
        if "|" not in line:
            continue
        name, state = line.strip().split("|", 1)
        base = state.rstrip(STATE_FLAGS).lower()
        nodes[name] = (base, state.endswith("*"))
    return nodes


# The scontrol --details --oneliner show node fields the GPU counts read (their values have no spaces; OS= and Reason= may).
_NODE_FIELD = re.compile(r"(?:^| )(NodeName|State|Partitions|Gres|GresUsed)=(\S*)")
# State flags (scontrol's State=BASE+FLAG+...) of a node that cannot take a job now.
UNUSABLE = frozenset(("DOWN", "DRAIN", "FAIL", "FAILING", "NOT_RESPONDING", "POWERED_DOWN", "POWERING_DOWN", "REBOOT_ISSUED", "FUTURE", "INVAL", "UNKNOWN"))
GPU_STATES = ("alloc", "idle", "down")


def _split_gres(text):
    """``gpu:h200:4(S:0,1),gpu:a100:4(S:1)`` into its entries (commas inside parentheses kept)."""
    entries, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            entries.append(text[start:index])
            start = index + 1
    entries.append(text[start:])
    return [entry for entry in entries if entry and entry != "(null)"]


def gres_count(text, name="gpu"):
    """``{type: count}`` of GRES ``name`` in a Gres= or GresUsed= value (type "" when untyped)."""
    counts = {}
    for entry in _split_gres(text):
        fields = entry.split("(", 1)[0].split(":")
        if fields[0] != name or len(fields) < 2 or not fields[-1].isdigit():
            continue
        kind = fields[1] if len(fields) > 2 and not fields[1].isdigit() else ""
        counts[kind] = counts.get(kind, 0) + int(fields[-1])
    return counts


def gpu_counts(scontrol_output):
    """``{(partition, type): {alloc, idle, down, fragmented}}`` from ``scontrol --details --oneliner show node``."""
    totals = {}
    for line in scontrol_output.splitlines():
        fields = {}
        for key, value in _NODE_FIELD.findall(line):
            fields.setdefault(key, value)
        configured = gres_count(fields.get("Gres", ""))
        if not configured or "NodeName" not in fields:
            continue
        used = gres_count(fields.get("GresUsed", ""))
        usable = not UNUSABLE & set(fields.get("State", "UNKNOWN").upper().split("+"))
        partial = usable and any(used.values())
        for partition in filter(None, fields.get("Partitions", "").split(",")):
            for kind, count in configured.items():
                alloc = min(used.get(kind, 0), count)
                entry = totals.setdefault((partition, kind), {"alloc": 0, "idle": 0, "down": 0, "fragmented": 0})
                entry["alloc"] += alloc
                entry["idle" if usable else "down"] += count - alloc
                if partial:
                    entry["fragmented"] += count - alloc
    return totals


def gpu_jobs_pending(squeue_output, now):
    """``{partition: (jobs, seconds the oldest has waited)}`` of pending jobs that ask for GPUs.

    From ``squeue --states=PENDING --Format=Partition,tres-per-node,tres-per-job,SubmitTime`` with ``|``
    after each field; a job submitted to several partitions counts in each.
    """
    pending = {}
    for line in squeue_output.splitlines():
        fields = [field.strip() for field in line.split("|")]
        if len(fields) < 4 or "gpu" not in fields[1] + fields[2]:
            continue
        try:
            waited = max(0.0, now - time.mktime(time.strptime(fields[3], "%Y-%m-%dT%H:%M:%S")))
        except ValueError:
            waited = 0.0
        for partition in filter(None, fields[0].split(",")):
            jobs, oldest = pending.get(partition, (0, 0.0))
            pending[partition] = (jobs + 1, max(oldest, waited))
    return pending


def cpu_counts(sinfo_output):
    """``{alloc, idle, other, total}`` from ``sinfo --noheader --format=%C``."""
    fields = sinfo_output.strip().split("/")
    if len(fields) != 4:
        raise ValueError("unexpected sinfo %%C output: %r" % sinfo_output)
    return dict(zip(("alloc", "idle", "other", "total"), (int(f) for f in fields), strict=True))


def job_counts(squeue_output):
    """Jobs by state from ``squeue --noheader --format=%T``; every known state is present."""
    counts = dict.fromkeys(JOB_STATES, 0)
    for line in squeue_output.split():
        state = line.strip().lower()
        counts[state] = counts.get(state, 0) + 1
    return counts


def dbd_queue_size(sdiag_output):
    """slurmctld's queue of messages for slurmdbd (``DBD Agent queue size``), or None."""
    for line in sdiag_output.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() == "DBD Agent queue size":
            return int(value.strip())
    return None


def _escape(value):
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _sample(name, value, **labels):
    label_text = ",".join('%s="%s"' % (key, _escape(val)) for key, val in sorted(labels.items()))
    return "%s{%s} %s" % (name, label_text, value) if label_text else "%s %s" % (name, value)


def render(outputs, now, counts=True):
    """The text exposition for ``outputs``: ``{command: stdout or None (failed)}``;
    without ``counts`` no node totals (slurmctld's endpoints serve slurm_nodes_*)."""
    lines = []

    def gauge(name, help_text, samples):
        lines.append("# HELP %s %s" % (name, help_text))
        lines.append("# TYPE %s gauge" % name)
        lines.extend(samples)

    gauge(
        "aicluster_slurm_collector_success",
        "1 if the Slurm command answered at the last run.",
        [_sample("aicluster_slurm_collector_success", int(outputs[c] is not None), command=c) for c in sorted(outputs)],
    )
    stamp = "aicluster_slurm_collector_last_run_timestamp_seconds"
    gauge(stamp, "When the collector last ran.", [_sample(stamp, "%.3f" % now)])
    if outputs.get("sinfo_nodes") is not None:
        nodes = node_states(outputs["sinfo_nodes"])
        gauge(
            "slurm_node_state",
            "1 for each node in its Slurm state (flags stripped).",
            [_sample("slurm_node_state", 1, node=n, state=s) for n, (s, _nr) in sorted(nodes.items())],
        )
        gauge(
            "slurm_node_not_responding",
            "1 if slurmctld cannot reach the node's slurmd.",
            [_sample("slurm_node_not_responding", int(nr), node=n) for n, (_s, nr) in sorted(nodes.items())],
        )
    if outputs.get("sinfo_nodes") is not None and counts:
        totals = dict.fromkeys(AGGREGATES, 0)
        for state, _nr in nodes.values():
            totals[NODE_STATES.get(state, "other")] += 1
        for key in AGGREGATES:
            gauge("slurm_nodes_%s" % key, "Nodes in Slurm state %s." % key, [_sample("slurm_nodes_%s" % key, totals[key])])
        gauge("slurm_nodes_total", "Nodes slurmctld knows.", [_sample("slurm_nodes_total", len(nodes))])
    if outputs.get("sinfo_cpus") is not None:
        for key, value in sorted(cpu_counts(outputs["sinfo_cpus"]).items()):
            gauge("slurm_cpus_%s" % key, "CPUs %s." % key, [_sample("slurm_cpus_%s" % key, value)])
    if outputs.get("squeue") is not None:
        for state, count in sorted(job_counts(outputs["squeue"]).items()):
            gauge("slurm_queue_%s" % state, "Jobs in state %s." % state, [_sample("slurm_queue_%s" % state, count)])
    if outputs.get("scontrol_nodes") is not None:
        gpus = gpu_counts(outputs["scontrol_nodes"])
        gauge(
            "aicluster_slurm_gpus",
            "GPUs per partition and type: allocated, idle on nodes that take jobs, down on nodes that do not.",
            [_sample("aicluster_slurm_gpus", gpus[key][state], partition=key[0], type=key[1], state=state) for key in sorted(gpus) for state in GPU_STATES],
        )
        gauge(
            "aicluster_slurm_gpus_fragmented",
            "Idle GPUs on partially allocated nodes, which a job that wants whole nodes cannot use.",
            [_sample("aicluster_slurm_gpus_fragmented", gpus[key]["fragmented"], partition=key[0], type=key[1]) for key in sorted(gpus)],
        )
        if outputs.get("squeue_gpu_pending") is not None:
            pending = gpu_jobs_pending(outputs["squeue_gpu_pending"], now)
            partitions = sorted({key[0] for key in gpus} | set(pending))
            gauge(
                "aicluster_slurm_gpu_jobs_pending",
                "Pending jobs that ask for GPUs.",
                [_sample("aicluster_slurm_gpu_jobs_pending", pending.get(p, (0, 0))[0], partition=p) for p in partitions],
            )
            gauge(
                "aicluster_slurm_gpu_jobs_pending_oldest_seconds",
                "How long the oldest pending GPU job has waited (0: none).",
                [_sample("aicluster_slurm_gpu_jobs_pending_oldest_seconds", "%.0f" % pending.get(p, (0, 0.0))[1], partition=p) for p in partitions],
            )
    if outputs.get("sdiag") is not None:
        size = dbd_queue_size(outputs["sdiag"])
        if size is not None:
            gauge("slurm_scheduler_dbd_queue_size", "Messages slurmctld holds for slurmdbd.", [_sample("slurm_scheduler_dbd_queue_size", size)])
    return "\n".join(lines) + "\n"


COMMANDS = {
    "sinfo_nodes": ["sinfo", "--Node", "--noheader", "--format=%N|%T"],
    "sinfo_cpus": ["sinfo", "--noheader", "--format=%C"],
    "squeue": ["squeue", "--all", "--noheader", "--format=%T"],
    "sdiag": ["sdiag"],
    # --details: GresUsed is shown only with it.
    "scontrol_nodes": ["scontrol", "--details", "--oneliner", "show", "node"],
    # Fixed widths wide enough not to cut a value; "|" after each field.
    "squeue_gpu_pending": [
        "squeue",
        "--all",
        "--states=PENDING",
        "--noheader",
        "--Format=Partition:512|,tres-per-node:512|,tres-per-job:512|,SubmitTime:32|",
    ],
}
# What slurmctld's OpenMetrics endpoints do not serve.
NODES_ONLY = ("sinfo_nodes", "scontrol_nodes", "squeue_gpu_pending")


def collect(timeout, commands=None):
    outputs = {}
    for key in commands or tuple(COMMANDS):
        argv = COMMANDS[key]
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired):
            outputs[key] = None
            continue
        outputs[key] = result.stdout if result.returncode == 0 else None
    return outputs


def write_atomically(path, text):
    directory = os.path.dirname(path) or "."
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".slurm.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, help="the .prom file in node exporter's textfile directory")
    parser.add_argument("--interval", type=float, default=15.0, help="seconds between runs")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds one Slurm command may take")
    parser.add_argument("--once", action="store_true", help="run once and exit")
    parser.add_argument("--nodes-only", action="store_true", help="only node states (slurmctld serves the counts itself)")
    args = parser.parse_args(argv)
    commands = NODES_ONLY if args.nodes_only else tuple(COMMANDS)
    while True:
        started = time.time()
        write_atomically(args.output, render(collect(args.timeout, commands), started, counts=not args.nodes_only))
        if args.once:
            return 0
        time.sleep(max(1.0, args.interval - (time.time() - started)))


if __name__ == "__main__":
    sys.exit(main())
