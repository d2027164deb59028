"""The Slurm Prolog/Epilog job-to-GPU map (roles/job_metrics/files/aicluster_job_map.py), run as Slurm runs it."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "roles" / "job_metrics" / "files" / "aicluster_job_map.py"
_spec = importlib.util.spec_from_file_location("aicluster_job_map", SCRIPT)
JOB_MAP = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(JOB_MAP)


def _run(tmp_path, mode, **environ):
    state, textfile = tmp_path / "state", tmp_path / "textfile" / "jobs.prom"
    command = [sys.executable, str(SCRIPT), mode, "--state-dir", str(state), "--textfile", str(textfile)]
    result = subprocess.run(command, env={"PATH": "/usr/bin:/bin", **environ}, capture_output=True, text=True, check=False)
    return result, state, textfile


def _run_usage(tmp_path, mode, *options, **environ):
    state, textfile = tmp_path / "state", tmp_path / "textfile" / "jobs.prom"
    command = [sys.executable, str(SCRIPT), mode, "--state-dir", str(state), "--textfile", str(textfile), *options]
    return subprocess.run(command, env={"PATH": "/usr/bin:/bin", **environ}, capture_output=True, text=True, check=False)


def oci_job_of(pid, proc):
    return JOB_MAP.job_of_pid(pid, str(proc))


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
    # Without the sampler nothing of it appears (the role removes usage/ when it is off: check mode would differ).
    assert not (state / "usage").exists()


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


# The jobs' GPU usage: a stand-in nvidia-smi answers from files the test writes.
STAND_IN_SMI = """#!/bin/sh
echo "$@" >> "{calls}"
case "$1" in
  --query-gpu=*) cat "{gpus}" ;;
  --query-compute-apps=*) cat "{apps}" ;;
esac
"""


def _smi(tmp_path, gpus, apps=""):
    calls, gpus_file, apps_file = tmp_path / "smi-calls", tmp_path / "smi-gpus", tmp_path / "smi-apps"
    gpus_file.write_text(gpus)
    apps_file.write_text(apps)
    smi = tmp_path / "nvidia-smi"
    if not smi.exists():
        smi.write_text(STAND_IN_SMI.format(calls=calls, gpus=gpus_file, apps=apps_file))
        smi.chmod(0o755)
    return smi, calls


def _sample(tmp_path, smi):
    state, usage = tmp_path / "state", tmp_path / "textfile" / "usage.prom"
    command = [sys.executable, str(SCRIPT), "sample", "--once", "--state-dir", str(state), "--usage-textfile", str(usage), "--nvidia-smi", str(smi)]
    result = subprocess.run(command, env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=False)
    return result, usage


def _usage_series(usage):
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in usage.read_text().splitlines() if not line.startswith("#")}


GPUS = "0, GPU-a, 10, 100\n1, GPU-b, 35, 5000\n2, GPU-c, 80, 7000\n3, GPU-d, [N/A], [N/A]\n"


def test_sampling_gives_each_jobs_gpu_figures_and_keeps_the_peak_and_mean(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="1,3")
    smi, _calls = _smi(tmp_path, GPUS)
    result, usage = _sample(tmp_path, smi)
    assert result.returncode == 0, result.stderr
    _smi(tmp_path, GPUS.replace("35, 5000", "45, 9000"))
    _sample(tmp_path, smi)
    _smi(tmp_path, GPUS.replace("35, 5000", "70, 2000"))
    _sample(tmp_path, smi)
    labels = '{gpu="1",jobid="12",user="alice"}'
    assert _usage_series(usage) == {
        "aicluster_slurm_job_gpu_utilization_percent" + labels: 70,
        "aicluster_slurm_job_gpu_memory_used_bytes" + labels: 2000 * 2**20,
        "aicluster_slurm_job_gpu_memory_peak_bytes" + labels: 9000 * 2**20,
        "aicluster_slurm_job_gpu_utilization_mean_percent" + labels: 50,
        # GPU 3 answers [N/A]: no figures rather than made-up ones (its peak stays 0).
        'aicluster_slurm_job_gpu_memory_peak_bytes{gpu="3",jobid="12",user="alice"}': 0,
        "aicluster_slurm_job_gpu_usage_success": 1,
    }


def test_an_idle_node_never_asks_nvidia_smi(tmp_path):
    smi, calls = _smi(tmp_path, GPUS)
    result, usage = _sample(tmp_path, smi)
    assert result.returncode == 0, result.stderr
    assert not calls.exists()
    assert _usage_series(usage) == {"aicluster_slurm_job_gpu_usage_success": 1}


def test_a_failing_nvidia_smi_is_a_figure_not_a_crash(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="1")
    result, usage = _sample(tmp_path, tmp_path / "no-such-nvidia-smi")
    assert result.returncode == 0
    assert "no-such-nvidia-smi" in result.stderr
    assert _usage_series(usage) == {"aicluster_slurm_job_gpu_usage_success": 0}


def test_jobs_sharing_a_gpu_get_their_own_processes_memory(tmp_path):
    proc = tmp_path / "proc"
    for pid, cgroup in (
        (100, "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n"),
        (200, "0::/system.slice/slurmstepd.scope/job_8/step_batch/user/task_0\n"),
        (300, "0::/user.slice\n"),
    ):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / "cgroup").write_text(cgroup)

    def job_of(pid):
        return oci_job_of(pid, proc)

    gpus = JOB_MAP.parse_gpus(GPUS)
    apps = JOB_MAP.parse_apps("GPU-b, 100, 1200\nGPU-b, 200, 300\nGPU-b, 300, 99\nGPU-c, 100, 50\nGPU-b, 999, [N/A]\n")
    usage = JOB_MAP.job_usage({"1": ["7", "8"], "2": ["7"]}, gpus, apps, job_of)
    assert usage == {
        ("7", "1"): {"util": 35, "mem": 1200},
        ("8", "1"): {"util": 35, "mem": 300},
        # Held alone: the whole GPU's memory is the job's.
        ("7", "2"): {"util": 80, "mem": 7000},
    }
    assert oci_job_of(12345, proc) is None


def test_the_epilog_reports_the_figures_to_the_user_and_drops_the_series(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="1,2")
    smi, _calls = _smi(tmp_path, GPUS)
    _sample(tmp_path, smi)
    _smi(tmp_path, GPUS.replace("35, 5000", "45, 9000"))
    _sample(tmp_path, smi)
    work = tmp_path / "work"
    work.mkdir()
    usage = tmp_path / "textfile" / "usage.prom"
    environ = {"SLURM_JOB_ID": "12", "SLURM_JOB_WORK_DIR": str(work), "SLURM_JOB_UID": str(os.getuid()), "SLURM_JOB_GID": str(os.getgid())}
    for node in ("gpu-a", "gpu-b"):  # two nodes of one job, one working directory
        result = _run_usage(tmp_path, "epilog", "--usage-textfile", str(usage), "--report", SLURMD_NODENAME=node, **environ)
        assert result.returncode == 0
        assert result.stderr == ""
        _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="1,2")
        _sample(tmp_path, smi)
    assert (work / "slurm-12.gpu").read_text() == (
        "# node gpu memory_peak_MiB utilization_mean_percent utilization_max_percent samples\n"
        "gpu-a 1 9000 40.0 45 2\ngpu-a 2 7000 80.0 80 2\n"
        "gpu-b 1 9000 45.0 45 1\ngpu-b 2 7000 80.0 80 1\n"
    )
    _run_usage(tmp_path, "epilog", "--usage-textfile", str(usage), **environ)
    assert _usage_series(usage) == {"aicluster_slurm_job_gpu_usage_success": 1}
    assert list((tmp_path / "state" / "usage").glob("1*")) == []


def test_the_report_never_follows_a_link_the_user_planted(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="1")
    smi, _calls = _smi(tmp_path, GPUS)
    _sample(tmp_path, smi)
    work, target = tmp_path / "work", tmp_path / "etc-shadow"
    work.mkdir()
    target.write_text("root's\n")
    (work / "slurm-12.gpu").symlink_to(target)
    environ = {"SLURM_JOB_ID": "12", "SLURM_JOB_WORK_DIR": str(work), "SLURM_JOB_UID": str(os.getuid()), "SLURM_JOB_GID": str(os.getgid())}
    result = _run_usage(tmp_path, "epilog", "--usage-textfile", str(tmp_path / "textfile" / "usage.prom"), "--report", **environ)
    assert result.returncode == 0
    assert "could not append" in result.stderr
    assert target.read_text() == "root's\n"


def test_a_stale_jobs_figures_are_dropped(tmp_path):
    _run(tmp_path, "prolog", SLURM_JOB_ID="12", SLURM_JOB_USER="alice", SLURM_JOB_GPUS="1")
    smi, _calls = _smi(tmp_path, GPUS)
    _sample(tmp_path, smi)
    (tmp_path / "state" / "usage" / "99").write_text('{"1": {"peak": 1, "util_sum": 0, "util_max": 0, "util_samples": 0}}\n')
    _result, usage = _sample(tmp_path, smi)
    assert not (tmp_path / "state" / "usage" / "99").exists()
    assert 'jobid="99"' not in usage.read_text()
