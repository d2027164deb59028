"""The filters the day-2 playbooks use: removed nodes out of the model, missing facts named."""

from ansible_collections.aicluster.slurm.plugins.filter.slurm import (
    slurm_conf_lines,
    slurm_groups_without,
    slurm_hosts_without_facts,
    slurm_nodes,
)

FACTS = {"processor_count": 1, "processor_cores": 4, "processor_threads_per_core": 1, "processor_vcpus": 4, "memtotal_mb": 8000}
GROUPS = {"all": ["ctl", "n1", "n2", "n3"], "slurmctld": ["ctl"], "slurm_compute": ["n1", "n2", "n3"], "gpu": ["n3"], "ungrouped": []}


def test_groups_without_takes_the_hosts_out_of_every_group_and_keeps_order():
    assert slurm_groups_without(GROUPS, ["n3"]) == {
        "all": ["ctl", "n1", "n2"],
        "slurmctld": ["ctl"],
        "slurm_compute": ["n1", "n2"],
        "gpu": [],
        "ungrouped": [],
    }


def test_groups_without_nothing_is_the_inventory():
    assert slurm_groups_without(GROUPS, []) == GROUPS
    assert slurm_groups_without(GROUPS, None) == GROUPS


def test_removed_node_leaves_node_and_partition_lines():
    hostvars = {name: {"ansible_facts": FACTS} for name in ("n1", "n2", "n3")}
    groups = slurm_groups_without(GROUPS, ["n2"])
    lines = slurm_conf_lines(
        {"ClusterName": "c"}, slurm_nodes(groups["slurm_compute"], hostvars), [{"name": "batch", "groups": ["slurm_compute"], "default": True}], groups
    )
    text = "\n".join(lines)
    assert "NodeName=n[1,3] " in text
    assert "PartitionName=batch Nodes=n[1,3] " in text
    assert "n2" not in text


def test_hosts_without_facts_names_each_host_missing_cpu_or_memory():
    hostvars = {
        "n1": {"ansible_facts": FACTS},
        "n2": {"ansible_facts": {}},
        "n3": {"ansible_facts": {"memtotal_mb": 8000}},
        "n4": {},
    }
    assert slurm_hosts_without_facts(["n1", "n2", "n3", "n4", "n5"], hostvars) == ["n2", "n3", "n4", "n5"]
    assert slurm_hosts_without_facts(["n1"], hostvars) == []
