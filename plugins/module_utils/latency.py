# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm scheduling latency: submit small jobs, poll squeue until they start, summarize the delays.

``measure`` takes the commands runner and the clock as arguments (``run(argv) -> (rc, stdout, stderr)``,
``clock() -> seconds``, ``sleep(seconds)``) so that it can be driven by a fake scheduler.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
from fractions import Fraction

MAX_COUNT = 10000

WAITING = "waiting"
STARTED = "started"
ENDED = "ended"

# Requeue states lead back to PENDING; a job seen only there has to be allocated again to count.
WAITING_STATES = frozenset(["PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESV_DEL_HOLD", "SPECIAL_EXIT"])
# A pending job can end in these without ever being allocated.
ENDED_STATES = frozenset(["CANCELLED", "DEADLINE"])


class LatencyError(Exception):
    """The test could not run; ``details`` holds what the module returns with the failure."""

    def __init__(self, msg, **details):
        super().__init__(msg)
        self.details = details


def check_options(count, timeout, poll_interval):
    """Raise LatencyError naming the first option out of range."""
    if not 1 <= count <= MAX_COUNT:
        raise LatencyError("count must be between 1 and %d, got %d; set count to the number of jobs to submit, for example 50" % (MAX_COUNT, count))
    if timeout < 1:
        raise LatencyError("timeout must be at least 1 second, got %d; set timeout to how long to wait for the jobs to start, for example 300" % timeout)
    if not poll_interval > 0:
        raise LatencyError(
            "poll_interval must be greater than 0, got %s; set poll_interval to the seconds between squeue polls, for example 0.2" % poll_interval
        )


def job_phase(state):
    """Where a job stands, from its squeue state (``%T``), for the latency test.

    ``started``: the scheduler has allocated nodes to the job: RUNNING, CONFIGURING (nodes booting), COMPLETING,
    COMPLETED, and end states only an allocated job reaches (FAILED, TIMEOUT, NODE_FAIL, BOOT_FAIL, OUT_OF_MEMORY,
    PREEMPTED, ...). Any state not named below counts as started.
    ``waiting``: PENDING and the requeue states, which lead back to PENDING.
    ``ended``: CANCELLED and DEADLINE, which a pending job can reach without being allocated; such a job is counted
    as not started (it may have run before it was cancelled, but squeue cannot tell).
    """
    state = state.strip().upper()
    if state in WAITING_STATES:
        return WAITING
    if state in ENDED_STATES:
        return ENDED
    return STARTED


def sbatch_argv(job_name, command, partition=None, extra_args=()):
    argv = ["sbatch", "--parsable", "--job-name=%s" % job_name, "--output=/dev/null", "--time=1"]
    if partition:
        argv.append("--partition=%s" % partition)
    return argv + list(extra_args) + ["--wrap", command]


def squeue_argv(job_ids):
    return ["squeue", "--noheader", "--jobs=%s" % ",".join(job_ids), "--states=all", "--format=%i|%T"]


def parse_job_id(stdout):
    """The job id from ``sbatch --parsable`` output (``jobid`` or ``jobid;cluster``), or None."""
    lines = stdout.strip().splitlines()
    if not lines:
        return None
    job_id = lines[-1].split(";", 1)[0].strip()
    return job_id if job_id.isdigit() else None


def parse_squeue(stdout):
    """``{job_id: state}`` from ``squeue --format=%i|%T`` output."""
    states = {}
    for line in stdout.splitlines():
        job_id, sep, state = line.partition("|")
        if sep:
            states[job_id.strip()] = state.strip()
    return states


def percentile(values, p):
    """The nearest-rank ``p``-th percentile (0 <= p <= 100) of ``values``: the smallest value with at least p% of
    the values at or below it."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError("percentile must be between 0 and 100, got %s" % p)
    ordered = sorted(values)
    # Exact arithmetic: with floats, 7 * 0.01 * 100 rounds up to the next rank.
    rank = math.ceil(Fraction(str(p)) * len(ordered) / 100)
    return ordered[max(rank, 1) - 1]


def summary(latencies):
    """p50, p90, p99, max and mean of ``latencies`` in seconds, rounded to milliseconds; None each when empty."""
    keys = ("p50", "p90", "p99", "max", "mean")
    if not latencies:
        return dict.fromkeys(keys)
    values = {
        "p50": percentile(latencies, 50),
        "p90": percentile(latencies, 90),
        "p99": percentile(latencies, 99),
        "max": max(latencies),
        "mean": sum(latencies) / len(latencies),
    }
    return {key: round(values[key], 3) for key in keys}


def _output(rc, stdout, stderr):
    return "rc=%d: %s" % (rc, (stderr or stdout).strip())


def _cancel(run, job_ids):
    """scancel ``job_ids`` in one call; the error text, or None."""
    if not job_ids:
        return None
    rc, out, err = run(["scancel"] + list(job_ids))
    if rc != 0:
        return "scancel of %d jobs failed (%s)" % (len(job_ids), _output(rc, out, err))
    return None


def _fail(run, msg, cancel, **details):
    """scancel the jobs ``cancel`` and raise LatencyError."""
    problem = _cancel(run, cancel)
    if problem:
        msg = "%s; %s" % (msg, problem)
    elif cancel:
        msg = "%s; cancelled %d jobs" % (msg, len(cancel))
    raise LatencyError(msg, cancelled=list(cancel), **details)


def measure(run, clock, sleep, count=50, partition=None, command="true", extra_args=(), timeout=300, poll_interval=0.2, job_name="aicluster-latency"):
    """Submit ``count`` jobs, poll until all have started or ``timeout`` seconds passed, cancel the rest.

    A job's submit time is the clock right after its sbatch returned; its start time is the clock right after the
    first squeue that shows it started (see job_phase) or no longer lists it (it ran and was purged between two
    polls), so latencies are upper bounds with a resolution of about ``poll_interval``. The timeout counts from
    the first submission: when it passes during the submissions, the remaining jobs are not submitted.
    """
    began = clock()
    deadline = began + timeout
    argv = sbatch_argv(job_name, command, partition, extra_args)
    submitted = {}
    while len(submitted) < count:
        rc, out, err = run(argv)
        job_id = parse_job_id(out) if rc == 0 else None
        if job_id is None:
            reason = "sbatch failed (%s)" % _output(rc, out, err) if rc != 0 else "sbatch printed no job id: %r" % out
            _fail(run, reason, list(submitted), cmd=argv, rc=rc, stdout=out, stderr=err, job_ids=list(submitted))
        submitted[job_id] = clock()
        if submitted[job_id] >= deadline:
            break
    submit_seconds = clock() - began

    waiting = list(submitted)
    started = {}
    while True:
        argv = squeue_argv(waiting)
        rc, out, err = run(argv)
        now = clock()
        # squeue asked for one job that Slurm no longer knows fails; that job is gone like an unlisted one.
        if rc != 0 and not (len(waiting) == 1 and "Invalid job id" in err):
            _fail(run, "squeue failed (%s)" % _output(rc, out, err), waiting, cmd=argv, rc=rc, stdout=out, stderr=err, job_ids=list(submitted))
        states = parse_squeue(out) if rc == 0 else {}
        still = []
        for job_id in waiting:
            phase = job_phase(states[job_id]) if job_id in states else STARTED
            if phase == STARTED:
                started[job_id] = now
            elif phase == WAITING:
                still.append(job_id)
        waiting = still
        if not waiting or now >= deadline:
            break
        sleep(min(poll_interval, deadline - now))

    warnings = []
    problem = _cancel(run, waiting)
    if problem:
        warnings.append(problem)
    first_submit = min(submitted.values())
    span = max(started.values()) - first_submit if started else 0
    if not started:
        rate = 0.0
    elif span > 0:
        rate = round(len(started) / span, 2)
    else:
        rate = None
    return {
        "submitted": len(submitted),
        "started": len(started),
        "not_started": [job_id for job_id in submitted if job_id not in started],
        "cancelled": waiting,
        "latency": summary([started[job_id] - submitted[job_id] for job_id in started]),
        "jobs_per_second": rate,
        "submit_seconds": round(submit_seconds, 3),
        "wall_seconds": round(clock() - began, 3),
        "poll_interval": poll_interval,
        "job_ids": list(submitted),
        "warnings": warnings,
    }
