# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench/scheduling.py: the trace, the flat baseline's slurm.conf, sdiag and percentiles."""

import pathlib
import subprocess
import sys

import pytest
from repo_scripts import load

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
scheduling = load("bench/scheduling.py")

CONF = """\
ClusterName=large
SchedulerParameters=bf_continue,bf_window=10080
PreemptExemptTime=04:00:00
TopologyPlugin=topology/tree
NodeName=gpu[00001-00128] Port=[17001-17128] State=UNKNOWN
"""


def test_trace_is_seeded_sorted_and_bounded():
    first = scheduling.trace(1, 50, 100, 16)
    assert first == scheduling.trace(1, 50, 100, 16)
    assert first != scheduling.trace(2, 50, 100, 16)
    assert [job["at"] for job in first] == sorted(job["at"] for job in first)
    assert all(0 <= job["at"] <= 100 and job["nodes"] <= 16 for job in first)
    finetunes = [job for job in first if job["partition"] == "llm-finetune"]
    assert finetunes
    assert all(job["nodes"] <= 4 and job["seconds"] <= 30 for job in finetunes)


def test_flat_drops_topology_and_scheduler_tuning_only():
    text = scheduling.flat(CONF)
    assert "TopologyPlugin" not in text
    assert "SchedulerParameters" not in text
    assert "NodeName=gpu[00001-00128] Port=[17001-17128]" in text


def test_tuned_replaces_the_keys_it_names_and_keeps_the_rest():
    text = scheduling.tuned(CONF, ["SchedulerParameters=bf_continue", "TopologyParam=SwitchAsNodeRank"])
    assert text.count("SchedulerParameters") == 1
    assert "SchedulerParameters=bf_continue\n" in text
    assert text.endswith("TopologyParam=SwitchAsNodeRank\n")
    assert "NodeName=gpu[00001-00128] Port=[17001-17128]" in text
    assert scheduling.variant_text(CONF, "collection", ["SchedulerParameters=x"]) == CONF


def test_exempt_keeps_or_replaces_the_protection_window():
    assert scheduling.exempt(CONF, None) == CONF
    assert scheduling.exempt_time(CONF) == "04:00:00"
    text = scheduling.exempt(CONF, "0")
    assert text.count("PreemptExemptTime") == 1
    assert text.endswith("PreemptExemptTime=0\n")
    assert scheduling.exempt_time(text) == "0"
    assert scheduling.exempt_time("ClusterName=x\n") is None


@pytest.mark.parametrize("value", ["0", "240", "04:00:00", "1-00:00", "00:30"])
def test_exempt_value_takes_slurm_durations(value):
    assert scheduling.exempt_value(value) == value


@pytest.mark.parametrize("value", ["", "4h", "04:00:00\nPreemptMode=OFF", "-1", "1:2:3:4"])
def test_exempt_value_refuses_anything_else(value):
    with pytest.raises(scheduling.argparse.ArgumentTypeError, match="not a PreemptExemptTime"):
        scheduling.exempt_value(value)


def test_percentile():
    assert scheduling.percentile([], 0.5) is None
    assert scheduling.percentile([5, 1, 3], 0.5) == 3
    assert scheduling.percentile(list(range(1, 101)), 0.99) == 99


# Parts of a real `sdiag` from slurmctld 24.11.5 (the large scenario, during a run).
SDIAG = """\
Jobs submitted: 11
Jobs started:   8
Jobs completed: 2

Main schedule statistics (microseconds):
\tLast cycle:   2557
\tMax cycle:    6574
\tTotal cycles: 2
\tMean cycle:   4565
\tMean depth cycle:  4

Main scheduler exit:
\tEnd of job queue: 2

Backfilling stats
\tTotal backfilled jobs (since last slurm start): 3
\tTotal cycles: 4
\tLast cycle: 900
\tMax cycle:  1500
\tMean cycle: 1100

Latency for 1000 calls to gettimeofday(): 24 microseconds

Remote Procedure Call statistics by message type
\tREQUEST_PING ( 1008) count:10 ave_time:90 total_time:900
"""


def test_sdiag_main_and_backfill_cycles():
    assert scheduling.sdiag(SDIAG) == {
        "jobs_started": 8,
        "main_max_us": 6574,
        "main_mean_us": 4565,
        "backfilled_jobs": 3,
        "backfill_max_us": 1500,
        "backfill_mean_us": 1100,
    }


def test_the_trace_offers_the_load_asked_and_grows_with_the_cluster():
    small = scheduling.load_trace(3, 1.0, 180, 128)
    large = scheduling.load_trace(3, 1.0, 180, 512)
    for jobs, nodes in ((small, 128), (large, 512)):
        offered = scheduling.gpu_seconds(jobs) / (nodes * scheduling.GPUS_PER_NODE * 180)
        # Just over the load: one job fewer would offer less.
        assert offered >= 1.0
        assert scheduling.gpu_seconds(scheduling.trace(3, len(jobs) - 1, 180, nodes // 2)) < nodes * scheduling.GPUS_PER_NODE * 180
    assert len(large) > 3 * len(small)
    assert len(scheduling.load_trace(3, 0.7, 180, 128)) < len(small)


SINFO = "idle|5\nmixed|2\nallocated|100\nidle~|3\ndown*|1\n"


def test_stranded_gpus_are_idle_ones_while_a_job_that_fits_waits_for_nodes():
    # 5 + 3 idle nodes (the powered-down flag is still idle): 64 GPUs.
    assert scheduling.stranded(SINFO, "4|Resources\n") == (64, 64)
    assert scheduling.stranded(SINFO, "8|Priority\n64|Resources\n") == (64, 64)
    # A job bigger than what is idle, or one waiting for a limit or a dependency, strands nothing.
    assert scheduling.stranded(SINFO, "16|Resources\n2|QOSMaxNodePerUserLimit\n1|Dependency\n") == (64, 0)
    assert scheduling.stranded("allocated|128\n", "1|Resources\n") == (0, 0)


def test_fragmentation_figures_are_shares_of_the_cluster_over_the_samples():
    sampler = scheduling.Fragmentation("ctl")
    assert sampler.figures(1024) == {"fragmentation_mean": None, "fragmentation_share": None}
    sampler.samples = [(64, 64), (64, 0), (0, 0), (128, 128)]
    assert sampler.figures(1024) == {"fragmentation_mean": round(48 / 1024, 4), "fragmentation_share": 0.5}


def test_summary_gives_median_and_range_of_numbers_only():
    runs = [
        {"makespan_s": 400, "locality_mean": 1.1, "timed_out": False, "wait_p50_s": None},
        {"makespan_s": 500, "locality_mean": 1.0, "timed_out": True, "wait_p50_s": 3},
        {"makespan_s": 450, "locality_mean": 1.3, "timed_out": False, "wait_p50_s": 5},
    ]
    assert scheduling.summary(runs) == {
        "makespan_s": {"median": 450, "min": 400, "max": 500},
        "locality_mean": {"median": 1.1, "min": 1.0, "max": 1.3},
        "wait_p50_s": {"median": 4, "min": 3, "max": 5},
    }


def test_switches_option_asks_for_the_fewest_leaves_in_minutes_and_seconds():
    assert scheduling.switches_option(16, 8, 90) == " --switches=2@1:30"
    assert scheduling.switches_option(4, 8, 10) == " --switches=1@0:10"
    assert scheduling.switches_option(1, 8, 10) == ""  # one node: always one leaf
    assert scheduling.switches_option(16, 8, None) == ""
    # Only the jobs that fit under one leaf ask, with --switches-one-leaf.
    assert scheduling.switches_option(8, 8, 10, one_leaf=True) == " --switches=1@0:10"
    assert scheduling.switches_option(9, 8, 10, one_leaf=True) == ""


def test_switches_one_leaf_without_a_wait_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        scheduling.main(["--switches-one-leaf"])
    assert stop.value.code == 2
    assert "--switches-one-leaf needs --switches-wait" in capsys.readouterr().err


# `sacct -X -D -n -P -o JobID,Partition,NNodes,Submit,Start,End,NodeList,State` of one run: job 11
# ran 60 s on 2 nodes, was requeued (a fine-tune preempted it), then ran again to the end.
SACCT = """\
10|llm-finetune|1|2026-12-07T10:00:00|2026-12-07T10:00:00|2026-12-07T10:00:20|gpu001|COMPLETED
11|llm-pretrain|2|2026-12-07T10:00:00|2026-12-07T10:00:10|2026-12-07T10:01:10|gpu[003,010]|REQUEUED
11|llm-pretrain|2|2026-12-07T10:01:10|2026-12-07T10:01:40|2026-12-07T10:02:40|gpu[001-002]|COMPLETED
12|llm-pretrain|2|2026-12-07T10:00:30|Unknown|Unknown|None assigned|CANCELLED by 0
"""


def test_run_figures_count_the_work_preemption_lost():
    by_leaf = {"leaf1": ["gpu%03d" % n for n in range(1, 9)], "leaf2": ["gpu%03d" % n for n in range(9, 17)]}
    figures = scheduling.run_figures(SACCT.splitlines(), ["10", "11", "12"], by_leaf, 16 * scheduling.GPUS_PER_NODE)
    assert figures["preempted_runs"] == 1
    # The requeued run: 2 nodes x 8 GPUs x 60 s.
    assert figures["lost_gpu_hours"] == round(2 * 8 * 60 / 3600, 2)
    assert figures["completed"] == 2
    assert figures["makespan_s"] == 160
    # Both runs of job 11 count as allocated: 1x8x20 + 2x8x60 + 2x8x60 GPU-seconds over 128 GPUs x 160 s.
    assert figures["gpu_utilisation"] == round((160 + 960 + 960) / (128 * 160), 3)
    # Only the final run of job 11 is placed (on one leaf, the fewest).
    assert figures["locality_mean"] == 1.0
    assert figures["wait_p50_s"] == 0
    # Without the trace's GPU-seconds there is no useful utilisation; with them, they over GPUs x makespan.
    assert figures["useful_utilisation"] is None
    useful = scheduling.run_figures(SACCT.splitlines(), ["10", "11", "12"], by_leaf, 16 * scheduling.GPUS_PER_NODE, work=1280)
    assert useful["useful_utilisation"] == round(1280 / (128 * 160), 3)


LEAVES = {"leaf1": ["gpu%03d" % n for n in range(1, 5)], "leaf2": ["gpu%03d" % n for n in range(5, 9)], "leaf3": ["gpu%03d" % n for n in range(9, 13)]}


def test_job_script_is_a_plain_sleep_without_a_penalty_or_for_one_node():
    assert scheduling.job_script({"nodes": 4, "seconds": 60}) == "sleep 60"
    assert scheduling.job_script({"nodes": 1, "seconds": 60}, LEAVES, 0.5) == "sleep 60"


@pytest.mark.parametrize(
    ("nodelist", "nodes", "slept"),
    [
        # 4 nodes fit one leaf: on one, on two, on three leaves.
        ("gpu[001-004]", 4, "60.0"),
        ("gpu[003-006]", 4, "90.0"),
        ("gpu[004-005],gpu[009-010]", 4, "120.0"),
        # 8 nodes need two leaves: on two, on three.
        ("gpu[001-008]", 8, "60.0"),
        ("gpu[003-010]", 8, "75.0"),
    ],
)
def test_job_script_sleeps_longer_the_more_leaves_it_spans(tmp_path, nodelist, nodes, slept):
    """The script as slurmd runs it (sh), with a stand-in scontrol (the collection's hostlist) and sleep (echo)."""
    module_utils = pathlib.Path(__file__).resolve().parents[2] / "plugins" / "module_utils"
    scontrol = tmp_path / "scontrol"
    scontrol.write_text(
        "#!%s\nimport sys\nsys.path.insert(0, %r)\nimport hostlist\nprint('\\n'.join(hostlist.expand(sys.argv[3])))\n" % (sys.executable, str(module_utils))
    )
    (tmp_path / "sleep").write_text('#!/bin/sh\necho "$1"\n')
    for tool in ("scontrol", "sleep"):
        (tmp_path / tool).chmod(0o755)
    script = scheduling.job_script({"nodes": nodes, "seconds": 60}, LEAVES, 0.5)
    env = {"PATH": "%s:/usr/bin:/bin" % tmp_path, "SLURM_JOB_NODELIST": nodelist}
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env, check=True)
    assert proc.stdout.strip() == slept


@pytest.mark.parametrize("value", ["-0.1", "11", "nan", "0.1\n", "x"])
def test_penalty_value_refuses_anything_but_a_number_from_0_to_10(value):
    with pytest.raises(scheduling.argparse.ArgumentTypeError):
        scheduling.penalty_value(value)
