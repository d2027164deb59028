"""Unit tests for roles/node_exporter/files/aicluster_slurm_metrics.py, Slurm metrics for node exporter."""

import sys
from pathlib import Path

import pytest
from repo_scripts import load

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "roles" / "node_exporter" / "files" / "aicluster_slurm_metrics.py"


metrics = load("roles/node_exporter/files/aicluster_slurm_metrics.py")

# sinfo --Node --noheader --format=%N|%T on a cluster with a node in two
# partitions, one whose slurmd stopped, one drained.
SINFO_NODES = """node1|allocated
node1|allocated
node2|down*
node3|drained
node4|idle*
node5|mixed
node6|planned
"""
SDIAG = """*******************************************************
sdiag output at Thu Dec 03 11:40:00 2026 (1764762000)
Data since      Thu Dec 03 11:00:00 2026 (1764759600)
*******************************************************
Server thread count:  1
RPC queue enabled:    0
Agent queue size:     0
Agent count:          0
Agent thread count:   0
DBD Agent queue size: 17
"""


def test_node_states_strip_flags_and_note_not_responding():
    assert metrics.node_states(SINFO_NODES) == {
        "node1": ("allocated", False),
        "node2": ("down", True),
        "node3": ("drained", False),
        "node4": ("idle", True),
        "node5": ("mixed", False),
        "node6": ("planned", False),
    }


def test_cpu_counts():
    assert metrics.cpu_counts("4/12/0/16\n") == {"alloc": 4, "idle": 12, "other": 0, "total": 16}
    with pytest.raises(ValueError, match="unexpected sinfo"):
        metrics.cpu_counts("garbage")


def test_job_counts_keep_every_state():
    counts = metrics.job_counts("RUNNING\nRUNNING\nPENDING\nCOMPLETING\n")
    assert counts["running"] == 2
    assert counts["pending"] == 1
    assert counts["completing"] == 1
    assert counts["failed"] == 0


def test_dbd_queue_size():
    assert metrics.dbd_queue_size(SDIAG) == 17
    assert metrics.dbd_queue_size("Server thread count: 1\n") is None


def _values(text):
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line and not line.startswith("#")}


def test_render_everything():
    outputs = {"sinfo_nodes": SINFO_NODES, "sinfo_cpus": "4/12/0/16\n", "squeue": "RUNNING\nPENDING\n", "sdiag": SDIAG}
    text = metrics.render(outputs, 1764762000.5)
    values = _values(text)
    assert values['slurm_node_state{node="node2",state="down"}'] == 1
    assert values['slurm_node_not_responding{node="node4"}'] == 1
    assert values['slurm_node_not_responding{node="node5"}'] == 0
    assert values["slurm_nodes_alloc"] == 1
    assert values["slurm_nodes_down"] == 1
    assert values["slurm_nodes_drain"] == 1
    assert values["slurm_nodes_idle"] == 1
    assert values["slurm_nodes_mix"] == 1
    assert values["slurm_nodes_other"] == 1
    assert values["slurm_nodes_total"] == 6
    assert values["slurm_cpus_alloc"] == 4
    assert values["slurm_queue_running"] == 1
    assert values["slurm_queue_pending"] == 1
    assert values["slurm_scheduler_dbd_queue_size"] == 17
    assert values['aicluster_slurm_collector_success{command="sdiag"}'] == 1
    assert values["aicluster_slurm_collector_last_run_timestamp_seconds"] == 1764762000.5
    assert "# TYPE slurm_nodes_down gauge" in text


def test_a_failed_command_reports_failure_and_leaves_its_metrics_out():
    text = metrics.render({"sinfo_nodes": None, "sinfo_cpus": None, "squeue": None, "sdiag": None}, 1.0)
    values = _values(text)
    assert values['aicluster_slurm_collector_success{command="sinfo_nodes"}'] == 0
    assert not [name for name in values if name.startswith("slurm_")]


def test_main_writes_the_file_atomically(tmp_path, monkeypatch):
    monkeypatch.setattr(metrics, "collect", lambda timeout, commands: {"sinfo_nodes": "node1|idle\n", "sinfo_cpus": None, "squeue": "", "sdiag": None})
    output = tmp_path / "slurm.prom"
    assert metrics.main(["--output", str(output), "--once"]) == 0
    assert 'slurm_node_state{node="node1",state="idle"} 1' in output.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["slurm.prom"]
    assert output.stat().st_mode & 0o777 == 0o644


def test_collect_runs_the_real_commands_and_survives_their_absence(monkeypatch):
    monkeypatch.setattr(metrics, "COMMANDS", {"missing": ["/nonexistent/sinfo"], "ok": [sys.executable, "-c", "print('x')"]})
    assert metrics.collect(5) == {"missing": None, "ok": "x\n"}


def test_nodes_only_runs_the_node_and_gpu_commands_and_leaves_the_counts_to_slurmctld(tmp_path, monkeypatch):
    asked = []

    def collect(timeout, commands):
        asked.extend(commands)
        return {key: SINFO_NODES for key in commands}

    monkeypatch.setattr(metrics, "collect", collect)
    output = tmp_path / "slurm.prom"
    assert metrics.main(["--output", str(output), "--once", "--nodes-only"]) == 0
    values = _values(output.read_text())
    assert asked == ["sinfo_nodes", "scontrol_nodes", "squeue_gpu_pending"]
    assert values['slurm_node_state{node="node2",state="down"}'] == 1
    assert values['slurm_node_not_responding{node="node4"}'] == 1
    # slurmctld's /metrics/nodes serves slurm_nodes_down and the rest: not twice.
    assert not [name for name in values if name.startswith(("slurm_nodes_", "slurm_cpus_", "slurm_queue_", "slurm_scheduler_"))]


# scontrol --details --oneliner show node (Slurm 24.11): an 8-GPU node in two partitions with 3 GPUs allocated, an
# idle one, a drained one with a job still on one GPU, a node that is not responding, a node without GPUs, and a node
# of two GPU types (commas inside the socket list).
SCONTROL_NODES = "\n".join(
    [
        "NodeName=g1 Arch=x86_64 CoresPerSocket=56 CPUAlloc=16 CPUTot=224 Gres=gpu:h200:8(S:0-1) NodeAddr=g1 Version=24.11.5"
        " OS=Linux 6.12.117+deb13-amd64 #1 SMP PREEMPT_DYNAMIC Debian State=MIXED ThreadsPerCore=2 Partitions=batch,debug"
        " CfgTRES=cpu=224,gres/gpu=8 AllocTRES=cpu=16,gres/gpu=3 GresUsed=gpu:h200:3(IDX:0-2)",
        "NodeName=g2 Gres=gpu:h200:8(S:0-1) State=IDLE Partitions=batch AllocTRES= GresUsed=gpu:h200:0(IDX:N/A)",
        "NodeName=g3 Gres=gpu:h200:8(S:0-1) State=MIXED+DRAIN Partitions=batch GresUsed=gpu:h200:1(IDX:5)"
        " Reason=bad Gres=gpu:h200:99 [root@2026-12-06T03:00:00]",
        "NodeName=g4 Gres=gpu:h200:8(S:0-1) State=IDLE+NOT_RESPONDING Partitions=batch GresUsed=gpu:h200:0(IDX:N/A)",
        "NodeName=c1 Gres=(null) State=IDLE Partitions=batch,debug",
        "NodeName=m1 Gres=gpu:l4:2(S:0,1),gpu:a100:4(S:1),nic:1 State=MIXED Partitions=debug GresUsed=gpu:l4:0(IDX:N/A),gpu:a100:4(IDX:0-3),nic:0",
    ]
)
# squeue --states=PENDING --Format=Partition:512|,tres-per-node:512|,tres-per-job:512|,SubmitTime:32| (padded).
SQUEUE_PENDING = "\n".join(
    [
        "batch" + " " * 20 + "|gres/gpu:8" + " " * 10 + "|N/A   |2026-12-06T02:50:00   |",
        "batch,debug|N/A|gres/gpu:2|2026-12-06T02:58:00|",
        "batch|N/A|N/A|2026-12-06T02:00:00|",
    ]
)


def test_gres_count_reads_types_counts_and_socket_lists():
    assert metrics.gres_count("gpu:h200:8(S:0-1)") == {"h200": 8}
    assert metrics.gres_count("gpu:8") == {"": 8}
    assert metrics.gres_count("gpu:l4:2(S:0,1),gpu:a100:4(S:1),nic:1") == {"l4": 2, "a100": 4}
    assert metrics.gres_count("gpu:h200:0(IDX:N/A)") == {"h200": 0}
    assert metrics.gres_count("(null)") == {}
    assert metrics.gres_count("npu:8", "gpu") == {}


def test_gpu_counts_per_partition_and_type():
    counts = metrics.gpu_counts(SCONTROL_NODES)
    # g1 (3 of 8 allocated), g2 idle, g3 drained with one GPU in use, g4 not responding.
    assert counts[("batch", "h200")] == {"alloc": 4, "idle": 5 + 8, "down": 7 + 8, "fragmented": 5}
    # g1 is in debug too; m1's a100s are all allocated, its l4s idle on a partially allocated node.
    assert counts[("debug", "h200")] == {"alloc": 3, "idle": 5, "down": 0, "fragmented": 5}
    assert counts[("debug", "a100")] == {"alloc": 4, "idle": 0, "down": 0, "fragmented": 0}
    assert counts[("debug", "l4")] == {"alloc": 0, "idle": 2, "down": 0, "fragmented": 2}
    assert set(counts) == {("batch", "h200"), ("debug", "h200"), ("debug", "a100"), ("debug", "l4")}


def test_gpu_jobs_pending_counts_gpu_jobs_per_partition_with_the_oldest_wait():
    now = metrics.time.mktime(metrics.time.strptime("2026-12-06T03:00:00", "%Y-%m-%dT%H:%M:%S"))
    assert metrics.gpu_jobs_pending(SQUEUE_PENDING, now) == {"batch": (2, 600.0), "debug": (1, 120.0)}


def test_render_gpus_and_pending_gpu_jobs():
    now = metrics.time.mktime(metrics.time.strptime("2026-12-06T03:00:00", "%Y-%m-%dT%H:%M:%S"))
    values = _values(metrics.render({"scontrol_nodes": SCONTROL_NODES, "squeue_gpu_pending": SQUEUE_PENDING}, now))
    assert values['aicluster_slurm_gpus{partition="batch",state="alloc",type="h200"}'] == 4
    assert values['aicluster_slurm_gpus{partition="batch",state="down",type="h200"}'] == 15
    assert values['aicluster_slurm_gpus_fragmented{partition="debug",type="l4"}'] == 2
    assert values['aicluster_slurm_gpu_jobs_pending{partition="batch"}'] == 2
    assert values['aicluster_slurm_gpu_jobs_pending_oldest_seconds{partition="batch"}'] == 600
    assert values['aicluster_slurm_gpu_jobs_pending{partition="debug"}'] == 1


def test_no_gpu_jobs_pending_is_zero_not_absent():
    values = _values(metrics.render({"scontrol_nodes": SCONTROL_NODES, "squeue_gpu_pending": ""}, 1.0))
    assert values['aicluster_slurm_gpu_jobs_pending{partition="batch"}'] == 0
    assert values['aicluster_slurm_gpu_jobs_pending_oldest_seconds{partition="debug"}'] == 0
