# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench/scheduling.py: the trace, the flat baseline's slurm.conf, sdiag and percentiles."""

import importlib.util
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
SPEC = importlib.util.spec_from_file_location("scheduling", BENCH / "scheduling.py")
scheduling = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(scheduling)

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


def test_exempt_none_replaces_the_protection_window():
    text = scheduling.exempt_none(CONF)
    assert text.count("PreemptExemptTime") == 1
    assert text.endswith("PreemptExemptTime=00:00:00\n")


def test_percentile():
    assert scheduling.percentile([], 0.5) is None
    assert scheduling.percentile([5, 1, 3], 0.5) == 3
    assert scheduling.percentile(list(range(1, 101)), 0.99) == 99
