import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.latency import (
    ENDED,
    STARTED,
    WAITING,
    LatencyError,
    check_options,
    job_phase,
    measure,
    parse_job_id,
    parse_squeue,
    percentile,
    sbatch_argv,
    squeue_argv,
    summary,
)


class FakeSlurm:
    """sbatch, squeue and scancel over an in-memory job table, on a fake clock.

    ``plans`` maps a job's submission index to the states squeue reports for it at successive polls (the last one
    repeats; None: not listed); jobs without a plan are RUNNING from the first poll. sbatch takes ``submit_cost``
    seconds and squeue ``squeue_cost``.
    """

    def __init__(self, plans=None, submit_cost=0.25, squeue_cost=0.125, cluster=None):
        self.plans = plans or {}
        self.submit_cost = submit_cost
        self.squeue_cost = squeue_cost
        self.cluster = cluster
        self.now = 100.0
        self.ids = []
        self.calls = []
        self.sleeps = []
        self.polls = 0
        self.fail = {}

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def run(self, argv):
        self.calls.append(list(argv))
        if argv[0] in self.fail:
            return self.fail[argv[0]]
        return getattr(self, argv[0])(argv[1:])

    def sbatch(self, args):
        self.now += self.submit_cost
        job_id = str(4000 + len(self.ids))
        self.ids.append(job_id)
        return 0, job_id + (";" + self.cluster if self.cluster else "") + "\n", ""

    def state(self, job_id, poll):
        plan = self.plans.get(self.ids.index(job_id), ["RUNNING"])
        return plan[min(poll, len(plan) - 1)]

    def squeue(self, args):
        self.now += self.squeue_cost
        (jobs,) = [arg for arg in args if arg.startswith("--jobs=")]
        lines = []
        for job_id in jobs[len("--jobs=") :].split(","):
            state = self.state(job_id, self.polls)
            if state is not None:
                lines.append("%s|%s\n" % (job_id, state))
        self.polls += 1
        return 0, "".join(lines), ""

    def scancel(self, args):
        return 0, "", ""

    def calls_of(self, name):
        return [call for call in self.calls if call[0] == name]

    def measure(self, **kwargs):
        return measure(self.run, self.clock, self.sleep, **kwargs)


# --- parsing and rules ---------------------------------------------------------


@pytest.mark.parametrize(
    ("stdout", "expected"),
    [
        ("4127\n", "4127"),
        ("4127;aicluster\n", "4127"),
        ("4127", "4127"),
        ("  4127;aicluster  \n", "4127"),
        ("sbatch: warning: something\n4127\n", "4127"),
        ("", None),
        ("\n", None),
        ("Submitted batch job 4127\n", None),
        (";aicluster\n", None),
    ],
    ids=["plain", "with-cluster", "no-newline", "spaces", "after-other-line", "empty", "blank", "not-parsable", "no-id"],
)
def test_parse_job_id(stdout, expected):
    assert parse_job_id(stdout) == expected


def test_parse_squeue():
    assert parse_squeue("4000|RUNNING\n4001|PENDING\n\n 4002 | COMPLETED \nnoise\n") == {"4000": "RUNNING", "4001": "PENDING", "4002": "COMPLETED"}
    assert parse_squeue("") == {}


@pytest.mark.parametrize(
    ("state", "phase"),
    [
        ("PENDING", WAITING),
        ("REQUEUED", WAITING),
        ("REQUEUE_FED", WAITING),
        ("REQUEUE_HOLD", WAITING),
        ("RESV_DEL_HOLD", WAITING),
        ("SPECIAL_EXIT", WAITING),
        ("CONFIGURING", STARTED),
        ("RUNNING", STARTED),
        ("COMPLETING", STARTED),
        ("COMPLETED", STARTED),
        ("FAILED", STARTED),
        ("TIMEOUT", STARTED),
        ("NODE_FAIL", STARTED),
        ("BOOT_FAIL", STARTED),
        ("OUT_OF_MEMORY", STARTED),
        ("PREEMPTED", STARTED),
        ("SUSPENDED", STARTED),
        ("CANCELLED", ENDED),
        ("DEADLINE", ENDED),
        (" pending ", WAITING),
    ],
)
def test_job_phase(state, phase):
    assert job_phase(state) == phase


def test_sbatch_argv():
    assert sbatch_argv("lat", "true") == ["sbatch", "--parsable", "--job-name=lat", "--output=/dev/null", "--time=1", "--wrap", "true"]
    assert sbatch_argv("lat", "hostname -s", partition="gpu", extra_args=["--gres=gpu:1", "--account=ops"]) == [
        "sbatch",
        "--parsable",
        "--job-name=lat",
        "--output=/dev/null",
        "--time=1",
        "--partition=gpu",
        "--gres=gpu:1",
        "--account=ops",
        "--wrap",
        "hostname -s",
    ]


def test_squeue_argv():
    assert squeue_argv(["4000", "4002"]) == ["squeue", "--noheader", "--jobs=4000,4002", "--states=all", "--format=%i|%T"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((0, 300, 0.2), "count must be between 1 and 10000, got 0"),
        ((10001, 300, 0.2), "count must be between 1 and 10000, got 10001"),
        ((50, 0, 0.2), "timeout must be at least 1 second, got 0"),
        ((50, 300, 0), "poll_interval must be greater than 0, got 0"),
        ((50, 300, -0.5), "poll_interval must be greater than 0, got -0.5"),
    ],
)
def test_check_options_rejects(args, fragment):
    with pytest.raises(LatencyError, match=fragment):
        check_options(*args)


@pytest.mark.parametrize("args", [(1, 1, 0.001), (10000, 300, 0.2)])
def test_check_options_accepts(args):
    check_options(*args)


# --- percentiles -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        (list(range(1, 101)), 99, 99),
        (list(range(1, 101)), 50, 50),
        (list(range(1, 101)), 7, 7),
        (list(range(1, 101)), 100, 100),
        (list(range(1, 101)), 0, 1),
        ([1, 2, 3, 4], 50, 2),
        ([1, 2, 3, 4], 51, 3),
        ([4, 1, 3, 2], 75, 3),
        (list(range(1, 11)), 90, 9),
        (list(range(1, 11)), 99, 10),
        (list(range(1, 1001)), 99.9, 999),
        ([0.5], 99, 0.5),
    ],
)
def test_percentile_nearest_rank(values, p, expected):
    assert percentile(values, p) == expected


def test_percentile_rejects():
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="between 0 and 100"):
        percentile([1], 101)


def test_summary():
    assert summary([0.4, 0.1, 0.2, 0.3]) == {"p50": 0.2, "p90": 0.4, "p99": 0.4, "max": 0.4, "mean": 0.25}
    assert summary([x / 1000.0 for x in range(101)]) == {"p50": 0.05, "p90": 0.09, "p99": 0.099, "max": 0.1, "mean": 0.05}
    assert summary([1.23456]) == dict.fromkeys(["p50", "p90", "p99", "max", "mean"], 1.235)
    assert summary([]) == {"p50": None, "p90": None, "p99": None, "max": None, "mean": None}


# --- the measuring loop ------------------------------------------------------------


def test_all_start_at_first_poll():
    slurm = FakeSlurm()
    result = slurm.measure(count=3, poll_interval=0.5)
    # Submitted at 100.25, 100.5, 100.75; the poll returns at 100.875.
    assert slurm.calls == [
        ["sbatch", "--parsable", "--job-name=aicluster-latency", "--output=/dev/null", "--time=1", "--wrap", "true"],
    ] * 3 + [["squeue", "--noheader", "--jobs=4000,4001,4002", "--states=all", "--format=%i|%T"]]
    assert result == {
        "submitted": 3,
        "started": 3,
        "not_started": [],
        "cancelled": [],
        "latency": {"p50": 0.375, "p90": 0.625, "p99": 0.625, "max": 0.625, "mean": 0.375},
        "jobs_per_second": round(3 / 0.625, 2),
        "submit_seconds": 0.75,
        "wall_seconds": 0.875,
        "poll_interval": 0.5,
        "job_ids": ["4000", "4001", "4002"],
        "warnings": [],
    }
    assert slurm.sleeps == []


def test_job_ids_with_cluster_suffix():
    slurm = FakeSlurm(cluster="aicluster")
    result = slurm.measure(count=2)
    assert result["job_ids"] == ["4000", "4001"]
    assert slurm.calls_of("squeue")[0][2] == "--jobs=4000,4001"
    assert result["started"] == 2


def test_options_reach_sbatch():
    slurm = FakeSlurm()
    slurm.measure(count=1, partition="gpu", command="nvidia-smi -L", extra_args=["--gres=gpu:1"], job_name="accept")
    assert slurm.calls_of("sbatch") == [
        ["sbatch", "--parsable", "--job-name=accept", "--output=/dev/null", "--time=1", "--partition=gpu", "--gres=gpu:1", "--wrap", "nvidia-smi -L"]
    ]


def test_jobs_start_after_some_polls_and_squeue_asks_only_for_waiting_ones():
    slurm = FakeSlurm(plans={0: ["PENDING", "RUNNING"], 1: ["PENDING", "PENDING", "CONFIGURING"], 2: ["COMPLETED"]}, squeue_cost=0.0)
    result = slurm.measure(count=3, poll_interval=0.5)
    assert [call[2] for call in slurm.calls_of("squeue")] == ["--jobs=4000,4001,4002", "--jobs=4000,4001", "--jobs=4001"]
    assert slurm.sleeps == [0.5, 0.5]
    # Submitted at 100.25, 100.5, 100.75; polls at 100.75, 101.25, 101.75.
    assert result["started"] == 3
    assert result["latency"] == {"p50": 1.0, "p90": 1.25, "p99": 1.25, "max": 1.25, "mean": 0.75}
    assert result["jobs_per_second"] == round(3 / 1.5, 2)
    assert slurm.calls_of("scancel") == []


def test_never_started_jobs_are_cancelled_in_one_call():
    slurm = FakeSlurm(plans={1: ["PENDING"], 3: ["PENDING", "PENDING", "RUNNING"], 4: ["REQUEUE_HOLD"]}, submit_cost=0.0, squeue_cost=0.0)
    result = slurm.measure(count=5, timeout=2, poll_interval=0.5)
    assert slurm.calls_of("scancel") == [["scancel", "4001", "4004"]]
    assert slurm.calls[-1] == ["scancel", "4001", "4004"]
    assert result["not_started"] == ["4001", "4004"]
    assert result["cancelled"] == ["4001", "4004"]
    assert (result["submitted"], result["started"]) == (5, 3)
    assert [call[2] for call in slurm.calls_of("squeue")] == ["--jobs=4000,4001,4002,4003,4004"] + ["--jobs=4001,4003,4004"] * 2 + ["--jobs=4001,4004"] * 2
    assert result["wall_seconds"] == 2.0
    assert result["latency"]["max"] == 1.0


def test_timeout_is_honoured_on_the_fake_clock():
    slurm = FakeSlurm(plans={0: ["PENDING"]}, submit_cost=0.0, squeue_cost=0.0)
    result = slurm.measure(count=1, timeout=1, poll_interval=0.4)
    # The last sleep is cut to end at the deadline, then one last poll.
    assert slurm.sleeps == pytest.approx([0.4, 0.4, 0.2])
    assert len(slurm.calls_of("squeue")) == 4
    assert slurm.now == pytest.approx(101.0)
    assert result["not_started"] == ["4000"]
    assert result["started"] == 0
    assert result["latency"] == dict.fromkeys(["p50", "p90", "p99", "max", "mean"])
    assert result["jobs_per_second"] == 0.0


def test_slow_squeue_still_stops_at_the_timeout():
    slurm = FakeSlurm(plans={0: ["PENDING"]}, submit_cost=0.0, squeue_cost=3.0)
    result = slurm.measure(count=1, timeout=5, poll_interval=0.2)
    assert len(slurm.calls_of("squeue")) == 2
    assert slurm.sleeps == [0.2]
    assert result["cancelled"] == ["4000"]


def test_vanished_job_counts_as_started_at_that_poll():
    slurm = FakeSlurm(plans={0: ["PENDING", None], 1: [None]}, submit_cost=0.5, squeue_cost=0.25)
    result = slurm.measure(count=2, poll_interval=1)
    # Submitted at 100.5 and 101; the polls return at 101.25 and 102.5.
    assert result["started"] == 2
    assert result["not_started"] == []
    assert result["latency"]["max"] == 2.0
    assert result["latency"]["p50"] == 0.25
    assert slurm.calls_of("scancel") == []


def test_invalid_job_id_for_a_single_job_means_it_vanished():
    slurm = FakeSlurm(plans={0: ["PENDING", "RUNNING"], 1: ["PENDING"]}, squeue_cost=0.0)
    squeue = slurm.squeue

    def forgetting_squeue(args):
        if slurm.polls == 2:
            return 1, "", "slurm_load_jobs error: Invalid job id specified\n"
        return squeue(args)

    slurm.squeue = forgetting_squeue
    result = slurm.measure(count=2, poll_interval=0.5)
    assert [call[2] for call in slurm.calls_of("squeue")] == ["--jobs=4000,4001", "--jobs=4000,4001", "--jobs=4001"]
    assert result["started"] == 2
    assert result["latency"]["max"] == 1.0
    assert slurm.calls_of("scancel") == []


def test_invalid_job_id_for_several_jobs_is_an_error():
    slurm = FakeSlurm(plans={0: ["PENDING"], 1: ["PENDING"]})
    slurm.fail["squeue"] = (1, "", "slurm_load_jobs error: Invalid job id specified\n")
    with pytest.raises(LatencyError, match="^squeue failed .*Invalid job id specified\\); cancelled 2 jobs$"):
        slurm.measure(count=2)
    assert slurm.calls_of("scancel") == [["scancel", "4000", "4001"]]


def test_cancelled_while_pending_is_not_started_and_not_cancelled_again():
    slurm = FakeSlurm(plans={0: ["PENDING", "CANCELLED"], 2: ["PENDING"]}, squeue_cost=0.0, submit_cost=0.0)
    result = slurm.measure(count=3, timeout=1, poll_interval=0.5)
    assert result["not_started"] == ["4000", "4002"]
    assert result["cancelled"] == ["4002"]
    assert slurm.calls_of("scancel") == [["scancel", "4002"]]
    assert result["started"] == 1


def test_sbatch_failure_cancels_the_jobs_already_submitted():
    slurm = FakeSlurm()
    sbatch = slurm.sbatch

    def third_fails(args):
        if len(slurm.ids) == 2:
            return 1, "", "sbatch: error: Batch job submission failed: Invalid partition name specified\n"
        return sbatch(args)

    slurm.sbatch = third_fails
    with pytest.raises(LatencyError) as raised:
        slurm.measure(count=5, partition="nope")
    message = str(raised.value)
    assert message.startswith("sbatch failed (rc=1: sbatch: error: Batch job submission failed: Invalid partition name specified)")
    assert message.endswith("; cancelled 2 jobs")
    assert slurm.calls_of("scancel") == [["scancel", "4000", "4001"]]
    assert len(slurm.calls_of("sbatch")) == 3
    assert slurm.calls_of("squeue") == []
    details = raised.value.details
    assert details["job_ids"] == ["4000", "4001"]
    assert details["cancelled"] == ["4000", "4001"]
    assert (details["rc"], details["cmd"][0]) == (1, "sbatch")


def test_first_sbatch_failure_cancels_nothing():
    slurm = FakeSlurm()
    slurm.fail["sbatch"] = (1, "", "sbatch: error: slurm_persist_conn_open_without_init: failed to open persistent connection\n")
    with pytest.raises(LatencyError, match=r"^sbatch failed .*persistent connection\)$"):
        slurm.measure(count=3)
    assert slurm.calls_of("scancel") == []


def test_sbatch_without_a_job_id_fails():
    slurm = FakeSlurm()
    slurm.fail["sbatch"] = (0, "Submitted batch job 4000\n", "")
    with pytest.raises(LatencyError, match="sbatch printed no job id: 'Submitted batch job 4000\\\\n'"):
        slurm.measure(count=1)


def test_squeue_failure_cancels_the_waiting_jobs():
    slurm = FakeSlurm(plans={1: ["PENDING"]}, squeue_cost=0.0)
    squeue = slurm.squeue

    def second_poll_fails(args):
        if slurm.polls == 1:
            return 1, "", "squeue: error: Socket timed out on send/recv operation\n"
        return squeue(args)

    slurm.squeue = second_poll_fails
    with pytest.raises(LatencyError, match=r"^squeue failed \(rc=1: squeue: error: Socket timed out on send/recv operation\); cancelled 1 jobs$") as raised:
        slurm.measure(count=2, poll_interval=0.5)
    assert slurm.calls_of("scancel") == [["scancel", "4001"]]
    assert raised.value.details["job_ids"] == ["4000", "4001"]


def test_scancel_failure_after_an_sbatch_failure_is_in_the_message():
    slurm = FakeSlurm()
    sbatch = slurm.sbatch
    slurm.sbatch = lambda args: (1, "", "sbatch: error: QOSMaxSubmitJobPerUserLimit\n") if slurm.ids else sbatch(args)
    slurm.fail["scancel"] = (1, "", "scancel: error: Kill job error on job id 4000: Access/permission denied\n")
    with pytest.raises(LatencyError) as raised:
        slurm.measure(count=2)
    assert str(raised.value) == (
        "sbatch failed (rc=1: sbatch: error: QOSMaxSubmitJobPerUserLimit); "
        "scancel of 1 jobs failed (rc=1: scancel: error: Kill job error on job id 4000: Access/permission denied)"
    )


def test_scancel_failure_after_measuring_is_a_warning():
    slurm = FakeSlurm(plans={0: ["PENDING"]})
    slurm.fail["scancel"] = (1, "", "scancel: error: Kill job error on job id 4000: Job/step already completing or completed\n")
    result = slurm.measure(count=2, timeout=1)
    assert result["warnings"] == ["scancel of 1 jobs failed (rc=1: scancel: error: Kill job error on job id 4000: Job/step already completing or completed)"]
    assert result["started"] == 1


def test_timeout_during_submission_stops_submitting():
    slurm = FakeSlurm(submit_cost=0.4, squeue_cost=0.0)
    result = slurm.measure(count=10, timeout=1)
    # Submitted at 100.4, 100.8, 101.2: the third one passes the deadline; one poll still counts them.
    assert result["submitted"] == 3
    assert result["started"] == 3
    assert len(slurm.calls_of("squeue")) == 1
    assert slurm.sleeps == []


def test_jobs_per_second_guards_a_zero_span():
    slurm = FakeSlurm(submit_cost=0.0, squeue_cost=0.0)
    result = slurm.measure(count=2)
    assert result["started"] == 2
    assert result["jobs_per_second"] is None
    assert result["latency"]["max"] == 0.0
