"""tests/harness.py: the lanes of make test and its timing table."""

import threading
import time
from pathlib import Path

import pytest
from repo_scripts import load

harness = load("tests/harness.py", "aicluster_harness")

MOLECULE_LOG = """\
\x1b[36mINFO    \x1b[0m \x1b[32mgpu\x1b[0m \u279c \x1b[33mcreate\x1b[0m: \x1b[36mExecuting\x1b[0m
  | Playbook run took 0 days, 0 hours, 0 minutes, 13 seconds
INFO     gpu \u279c converge: Executing
  | ASSERTIONS: passed=14 tasks=8
  | Playbook run took 0 days, 1 hours, 2 minutes, 3 seconds
INFO     gpu \u279c verify: Executing
  | ASSERTIONS: passed=40 tasks=31
  | Playbook run took 0 days, 0 hours, 3 minutes, 0 seconds
INFO     gpu \u279c verify: Executing
  | ASSERTIONS: passed=2 tasks=1
  | Playbook run took 0 days, 0 hours, 0 minutes, 5 seconds
"""


def test_stages_reads_the_timer_and_the_verify_assertions():
    stages, assertions = harness.stages(MOLECULE_LOG)
    assert stages == {"create": 13, "converge": 3723, "verify": 185}
    # Preflight's asserts in converge are not the scenario's proof.
    assert assertions == {"passed": 42, "tasks": 32}


def test_stages_of_a_log_without_molecule_is_empty():
    assert harness.stages("Playbook run took 0 days, 0 hours, 0 minutes, 5 seconds\n") == ({}, {"passed": 0, "tasks": 0})


def _fake_runner(log, seconds=0.05, fail=()):
    lock = threading.Lock()
    running = set()

    def run(step, env):
        with lock:
            running.add(step.name)
            log.append(("start", step.name, frozenset(running)))
        time.sleep(seconds)
        with lock:
            running.discard(step.name)
            log.append(("end", step.name))
        step.result = {"rc": 1 if step.name in fail else 0, "seconds": 0}

    return run


def test_schedule_keeps_lanes_locks_and_needs(capsys):
    steps = [
        harness.Step("a", ["a"], locks=("lab",)),
        harness.Step("b", ["b"], locks=("lab",), needs=("a",)),
        harness.Step("c", ["c"]),
        harness.Step("d", ["d"]),
    ]
    log = []
    harness.schedule(steps, 2, {}, time.monotonic(), runner=_fake_runner(log))
    starts = [entry for entry in log if entry[0] == "start"]
    assert {entry[1] for entry in starts} == {"a", "b", "c", "d"}
    assert max(len(entry[2]) for entry in starts) == 2
    assert all(not {"a", "b"} <= entry[2] for entry in starts)
    assert log.index(("end", "a")) < [entry[1] for entry in log].index("b")
    assert "started" in capsys.readouterr().out


def test_a_failed_step_does_not_stop_the_others(capsys):
    steps = [harness.Step("a", ["a"]), harness.Step("b", ["b"], needs=("a",))]
    log = []
    harness.schedule(steps, 1, {}, time.monotonic(), runner=_fake_runner(log, fail=("a",)))
    assert [entry[1] for entry in log if entry[0] == "end"] == ["a", "b"]
    assert steps[0].result["rc"] == 1


def test_a_step_that_can_never_start_is_an_error():
    steps = [harness.Step("a", ["a"], needs=("b",)), harness.Step("b", ["b"], needs=("a",))]
    with pytest.raises(RuntimeError, match="never start"):
        harness.schedule(steps, 2, {}, time.monotonic(), runner=_fake_runner([]))


def test_table_has_a_row_per_step_and_the_stage_columns():
    scenario = harness.scenario("large")
    scenario.result = {"seconds": 600, "stages": {"converge": 200, "verify": 300}, "assertions": {"passed": 20, "tasks": 15}}
    lint = harness.Step("lint", ["lint"])
    lint.result = {"seconds": 60}
    text = harness.table([scenario, lint], 610, 2)
    lines = text.splitlines()
    assert lines[0].split() == ["step", "wall", "s", "create", "prepare", "converge", "idempotence", "verify", "destroy", "asserts"]
    assert lines[1].split() == ["large", "600", "-", "-", "200", "-", "300", "-", "20/15"]
    assert lines[2].split() == ["lint", "60"]
    assert lines[3].split() == ["total", "wall", "610"]
    assert "the steps add up to 660 s" in text


def test_every_step_is_a_make_target():
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    targets = {line.split(":", 1)[0] for line in makefile.splitlines() if line and not line[0].isspace() and ":" in line}
    for step in harness.STEPS + (harness.FINAL,):
        assert step.target[0] in targets, step.name


def test_why_failed_names_the_task_that_failed_not_an_ignored_or_retried_one():
    log = "\n".join(
        [
            "  \u2502 TASK [Expected refusal]",
            "  \u2502 fatal: [ctl]: FAILED! =>",
            "  \u2502     msg: refused as it should be",
            "  \u2502 ...ignoring",
            "  \u2502 TASK [Wait for the job]",
            "  \u2502 FAILED - RETRYING: [ctl]: Wait for the job (3 retries left).",
            "  \u2502 fatal: [ctl]: FAILED! =>",
            "  \u2502     msg: the job never ended",
            "  \u2502 PLAY RECAP",
        ]
    )
    why = harness.why_failed(log, lines=2)
    assert why == ["TASK [Wait for the job]", "fatal: [ctl]: FAILED! =>", "msg: the job never ended"]


def test_why_failed_without_a_failure_line_is_the_tail():
    assert harness.why_failed("a\nb\nc\n", lines=2) == ["b", "c"]
