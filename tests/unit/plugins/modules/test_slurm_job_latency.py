"""slurm_job_latency with AnsibleModule.run_command answered by a small fake scheduler on a fake clock."""

import types

import pytest
import yaml
from ansible.module_utils import basic

from ansible_collections.aicluster.slurm.plugins.modules import slurm_job_latency

ARGUMENT_SPEC = {
    "count": {"type": "int", "default": 50},
    "partition": {"type": "str"},
    "command": {"type": "str", "default": "true"},
    "extra_args": {"type": "list", "elements": "str", "default": []},
    "timeout": {"type": "int", "default": 300},
    "poll_interval": {"type": "float", "default": 0.2},
    "job_name": {"type": "str", "default": "aicluster-latency"},
}


class Scheduler:
    """Jobs listed in ``pending`` stay PENDING; the others are RUNNING at the first poll."""

    def __init__(self):
        self.now = 0.0
        self.calls = []
        self.pending = set()
        self.sbatch_error = None
        self.next_id = 700

    def run_command(self, args):
        self.calls.append(list(args))
        name = args[0].rsplit("/", 1)[-1]
        self.now += 0.5
        if name == "sbatch":
            if self.sbatch_error and self.next_id == 702:
                return 1, "", self.sbatch_error
            self.next_id += 1
            return 0, "%d;aicluster\n" % (self.next_id - 1), ""
        if name == "squeue":
            (jobs,) = [arg for arg in args if arg.startswith("--jobs=")]
            ids = jobs[len("--jobs=") :].split(",")
            return 0, "".join("%s|%s\n" % (job_id, "PENDING" if job_id in self.pending else "RUNNING") for job_id in ids), ""
        return 0, "", ""

    def sleep(self, seconds):
        self.now += seconds


@pytest.fixture
def scheduler(monkeypatch):
    fake = Scheduler()
    monkeypatch.setattr(basic.AnsibleModule, "run_command", lambda self, args, **kwargs: fake.run_command(args))
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, required=False, opt_dirs=None: "/opt/slurm/bin/" + name)
    monkeypatch.setattr(slurm_job_latency, "time", types.SimpleNamespace(monotonic=lambda: fake.now, sleep=fake.sleep))
    return fake


def test_measures_and_reports(run_module, scheduler):
    result = run_module(slurm_job_latency.main, {"count": 2, "partition": "gpu", "extra_args": ["--gres=gpu:1"]})
    sbatch = ["/opt/slurm/bin/sbatch", "--parsable", "--job-name=aicluster-latency", "--output=/dev/null", "--time=1", "--partition=gpu", "--gres=gpu:1"]
    squeue = ["/opt/slurm/bin/squeue", "--noheader", "--jobs=700,701", "--states=all", "--format=%i|%T"]
    assert scheduler.calls == [sbatch + ["--wrap", "true"]] * 2 + [squeue]
    # Submitted at 0.5 and 1.0, the poll returns at 1.5.
    assert result == {
        "changed": True,
        "submitted": 2,
        "started": 2,
        "not_started": [],
        "cancelled": [],
        "latency": {"p50": 0.5, "p90": 1.0, "p99": 1.0, "max": 1.0, "mean": 0.75},
        "jobs_per_second": 2.0,
        "submit_seconds": 1.0,
        "wall_seconds": 1.5,
        "poll_interval": 0.2,
        "job_ids": ["700", "701"],
    }


def test_timeout_cancels_jobs_not_started(run_module, scheduler):
    scheduler.pending = {"701"}
    result = run_module(slurm_job_latency.main, {"count": 3, "timeout": 5, "poll_interval": 1, "job_name": "accept", "command": "hostname"})
    assert scheduler.calls[0] == ["/opt/slurm/bin/sbatch", "--parsable", "--job-name=accept", "--output=/dev/null", "--time=1", "--wrap", "hostname"]
    assert scheduler.calls[-1] == ["/opt/slurm/bin/scancel", "701"]
    assert [call[0] for call in scheduler.calls].count("/opt/slurm/bin/scancel") == 1
    assert (result["changed"], result["started"], result["not_started"], result["cancelled"]) == (True, 2, ["701"], ["701"])
    assert result["wall_seconds"] >= 5


def test_sbatch_failure_fails_the_task(run_module, scheduler):
    scheduler.sbatch_error = "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n"
    result = run_module(slurm_job_latency.main, {"count": 5})
    assert result["failed"] is True
    assert result["msg"] == (
        "sbatch failed (rc=1: sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified); cancelled 2 jobs"
    )
    assert scheduler.calls[-1] == ["/opt/slurm/bin/scancel", "700", "701"]
    assert (result["changed"], result["job_ids"], result["cancelled"], result["rc"]) == (True, ["700", "701"], ["700", "701"], 1)


def test_check_mode_submits_nothing(run_module, scheduler):
    result = run_module(slurm_job_latency.main, {"count": 10}, check_mode=True)
    assert result == {"changed": False, "skipped": True, "msg": "check mode: no jobs submitted, scheduling latency not measured"}
    assert scheduler.calls == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"count": 0}, "count must be between 1 and 10000, got 0; set count to the number of jobs to submit, for example 50"),
        ({"count": 10001}, "count must be between 1 and 10000, got 10001; set count to the number of jobs to submit, for example 50"),
        ({"timeout": 0}, "timeout must be at least 1 second, got 0; set timeout to how long to wait for the jobs to start, for example 300"),
        ({"poll_interval": 0}, "poll_interval must be greater than 0, got 0.0; set poll_interval to the seconds between squeue polls, for example 0.2"),
    ],
)
@pytest.mark.parametrize("check_mode", [False, True])
def test_bad_options_fail(run_module, scheduler, args, message, check_mode):
    result = run_module(slurm_job_latency.main, args, check_mode=check_mode)
    assert result == {"failed": True, "msg": message}
    assert scheduler.calls == []


def test_documentation_matches_the_argument_spec_and_results(run_module, scheduler):
    result = run_module(slurm_job_latency.main, {"count": 1})
    options = yaml.safe_load(slurm_job_latency.DOCUMENTATION)["options"]
    spec = run_module.module.argument_spec
    assert spec == ARGUMENT_SPEC
    for name, option in spec.items():
        documented = options[name]
        assert documented["type"] == option["type"], name
        assert documented.get("default") == option.get("default"), name
        assert documented.get("elements") == option.get("elements"), name
    assert set(options) == set(spec)
    returned = yaml.safe_load(slurm_job_latency.RETURN)
    assert set(result) - {"changed"} <= set(returned)
    assert set(returned["latency"]["contains"]) == set(result["latency"])
