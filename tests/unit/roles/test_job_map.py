"""The Slurm Prolog/Epilog job-to-GPU map (roles/job_metrics/files/aicluster_job_map.py), run as Slurm runs it."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "roles" / "job_metrics" / "files" / "aicluster_job_map.py"


def _run(tmp_path, mode, **environ):
    state, textfile = tmp_path / "state", tmp_path / "textfile" / "jobs.prom"
    command = [sys.executable, str(SCRIPT), mode, "--state-dir", str(state), "--textfile", str(textfile)]
    result = subprocess.run(command, env={"PATH": "/usr/bin:/bin", **environ}, capture_output=True, text=True, check=False)
    return result, state, textfile


def _series(textfile):
    return sorted(line for line in textfile.read_text().splitlines() if not line.startswith("#"))


def test_prolog_maps_the_jobs_gpus_for_dcgm_exporter_and_node_exporter(tmp_path):
    result, state, textfile = _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="2,3")
    assert result.returncode == 0
    assert result.stderr == ""
    assert (state / "gpu" / "2").read_text() == "12\n"
    assert (state / "gpu" / "3").read_text() == "12\n"
    assert not (state / "gpu" / "0").exists()
    assert _series(textfile) == [
        'aicluster_slurm_job_gpu_info{gpu="2",jobid="12",user="alice"} 1',
        'aicluster_slurm_job_gpu_info{gpu="3",jobid="12",user="alice"} 1',
    ]
    assert "# TYPE aicluster_slurm_job_gpu_info gauge" in textfile.read_text()


def test_shared_devices_list_every_job_and_the_epilog_removes_only_its_own(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="7", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="0,1")
    _run(tmp_path, "prolog", SLURM_JOB_ID="8", SLURM_JOB_USER="bob", SLURM_JOB_GPUS="1")
    # A Prolog run twice for one job (requeued onto the same node) records it once.
    _run(tmp_path, "prolog", SLURM_JOB_ID="8", SLURM_JOB_USER="bob", SLURM_JOB_GPUS="1")
    result, state, textfile = _run(tmp_path, "epilog", SLURM_JOB_ID="7")
    assert result.returncode == 0
    assert result.stderr == ""
    assert not (state / "gpu" / "0").exists()
    assert (state / "gpu" / "1").read_text() == "8\n"
    assert not (state / "jobs" / "7").exists()
    assert _series(textfile) == ['aicluster_slurm_job_gpu_info{gpu="1",jobid="8",user="bob"} 1']
    _run(tmp_path, "epilog", SLURM_JOB_ID="8")
    assert _series(textfile) == []
    assert list((state / "gpu").iterdir()) == []


def test_slurm_job_gpus_wins_and_the_plugins_variables_are_the_fallback(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="30", SLURM_JOB_USER="carol", CUDA_VISIBLE_DEVICES="9", SLURM_JOB_GPUS="1")
    textfile = _run(tmp_path, "prolog", SLURM_JOB_ID="31", SLURM_JOB_USER="dave", GPU_DEVICE_ORDINAL="5")[2]
    assert _series(textfile) == [
        'aicluster_slurm_job_gpu_info{gpu="1",jobid="30",user="carol"} 1',
        'aicluster_slurm_job_gpu_info{gpu="5",jobid="31",user="dave"} 1',
    ]


def test_a_job_without_devices_leaves_no_trace(tmp_path):
    _result, state, textfile = _run(tmp_path, "prolog", SLURM_JOB_ID="40", SLURM_JOB_USER="erin", SLURM_JOB_GPUS="")
    assert _series(textfile) == []
    assert not (state / "jobs" / "40").exists()


def test_labels_are_escaped(tmp_path):
    textfile = _run(tmp_path, "prolog", SLURM_JOB_ID="50", SLURM_JOB_USER='we"ird\\', SLURM_JOB_GPUS="0")[2]
    assert _series(textfile) == ['aicluster_slurm_job_gpu_info{gpu="0",jobid="50",user="we\\"ird\\\\"} 1']


def test_a_failure_is_reported_but_never_fails_the_job(tmp_path):
    """A failing Prolog would drain the node and requeue the job: monitoring is not worth that."""
    result = _run(tmp_path, "prolog", SLURM_JOB_GPUS="0")[0]
    assert result.returncode == 0
    assert "SLURM_JOB_ID is ''" in result.stderr
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the state directory should be")
    command = [sys.executable, str(SCRIPT), "prolog", "--state-dir", str(blocker), "--textfile", str(tmp_path / "t.prom")]
    result = subprocess.run(command, env={"SLURM_JOB_ID": "1", "SLURM_JOB_GPUS": "0"}, capture_output=True, text=True, check=False)
    assert result.returncode == 0
    assert "aicluster job map (prolog)" in result.stderr
