"""Unit tests for plugins/module_utils/node_drain.py: which nodes a maintenance drains, and which it returns."""

from ansible_collections.aicluster.slurm.plugins.module_utils.node_drain import drain_plan, drained_for, parse_nodes

REASON = "aicluster.slurm driver change"


def line(name, state, reason=None):
    text = "NodeName=%s Arch=x86_64 CoresPerSocket=56 State=%s ThreadsPerCore=2 Partitions=batch" % (name, state)
    return text + (" Reason=%s [root@2026-12-05T19:20:01]" % reason if reason is not None else "")


SHOW = "\n".join(
    [
        line("gpu1", "IDLE"),
        line("gpu2", "MIXED+DRAIN", REASON),
        line("gpu3", "IDLE+DRAIN", "nhc! xid: Xid 79 on PCI:0000:3b:00"),
        line("gpu4", "ALLOCATED+DRAIN", "disk replaced next week"),
        line("gpu5", "DOWN*+DRAIN", REASON),
        line("gpu6", "MIXED"),
    ]
)


def test_parse_nodes_reads_state_flags_and_the_reason_without_its_stamp():
    nodes = parse_nodes(SHOW)
    assert nodes["gpu1"] == (["IDLE"], "")
    assert nodes["gpu3"] == (["IDLE", "DRAIN"], "nhc! xid: Xid 79 on PCI:0000:3b:00")
    assert nodes["gpu5"] == (["DOWN*", "DRAIN"], REASON)


def test_drain_plan_drains_the_rest_and_leaves_other_drains_alone():
    plan = drain_plan(SHOW, ["gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"], REASON)
    assert plan == {
        "drain": ["gpu1", "gpu6"],
        "ours": ["gpu2", "gpu5"],
        "others": {"gpu3": "nhc! xid: Xid 79 on PCI:0000:3b:00", "gpu4": "disk replaced next week"},
        "unknown": ["gpu7"],
    }


def test_only_nodes_drained_for_exactly_this_reason_are_returned():
    assert drained_for(SHOW, ["gpu1", "gpu2", "gpu3", "gpu4", "gpu5"], REASON) == ["gpu2", "gpu5"]
    assert drained_for(SHOW, ["gpu2"], REASON + " to 550.163.01") == []


def test_a_reason_with_spaces_and_no_stamp():
    text = "NodeName=n1 State=IDLE+DRAIN Reason=aicluster.slurm driver change"
    assert drained_for(text, ["n1"], REASON) == ["n1"]
    assert drain_plan("", ["n1"], REASON)["unknown"] == ["n1"]
