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


def test_nodes_only_runs_sinfo_alone_and_leaves_the_counts_to_slurmctld(tmp_path, monkeypatch):
    asked = []

    def collect(timeout, commands):
        asked.extend(commands)
        return {key: SINFO_NODES for key in commands}

    monkeypatch.setattr(metrics, "collect", collect)
    output = tmp_path / "slurm.prom"
    assert metrics.main(["--output", str(output), "--once", "--nodes-only"]) == 0
    values = _values(output.read_text())
    assert asked == ["sinfo_nodes"]
    assert values['slurm_node_state{node="node2",state="down"}'] == 1
    assert values['slurm_node_not_responding{node="node4"}'] == 1
    # slurmctld's /metrics/nodes serves slurm_nodes_down and the rest: not twice.
    assert not [name for name in values if name.startswith(("slurm_nodes_", "slurm_cpus_", "slurm_queue_", "slurm_scheduler_"))]
