"""The preflight filters pass the inventory's topology and each host's slurm_node_config to the checks."""

from ansible_collections.aicluster.slurm.plugins.filter.slurm import slurm_preflight_host, slurm_preflight_inventory

GROUPS = {"slurmctld": ["ctl"], "slurm_compute": ["n1", "n2"]}
HOSTVARS = {"n1": {"slurm_topology_leaf": "leaf1"}, "n2": {"slurm_topology_leaf": "leaf2"}}
FACTS = {"distribution": "Debian", "distribution_major_version": "13", "hostname": "n1", "memtotal_mb": 8000, "processor_vcpus": 4}


def ids(findings):
    return [f["id"] for f in findings]


def test_inventory_topology_from_each_hosts_leaf():
    topology = {"source": "inventory", "spines": {"spine": ["leaf1", "leaf2"]}}
    assert slurm_preflight_inventory(GROUPS, {}, [], topology=topology, hostvars=HOSTVARS) == []


def test_inventory_topology_cycle_through_the_spines():
    topology = {"source": "inventory", "spines": {"a": ["b", "leaf1", "leaf2"], "b": ["a"]}}
    findings = slurm_preflight_inventory(GROUPS, {}, [], topology=topology, hostvars=HOSTVARS)
    assert ids(findings) == ["topology"]
    assert "switches a, b form a cycle" in findings[0]["message"]


def test_inventory_topology_bad_spine_expression_is_a_finding():
    topology = {"source": "inventory", "spines": {"spine": "leaf[2-1]"}}
    assert ids(slurm_preflight_inventory(GROUPS, {}, [], topology=topology, hostvars=HOSTVARS)) == ["hostlist"]


def test_inventory_slurm_version():
    assert ids(slurm_preflight_inventory(GROUPS, {}, [], slurm_version="23.02.6-1")) == ["slurm_version"]
    assert slurm_preflight_inventory(GROUPS, {}, [], slurm_version="24.11.5-4") == []


def test_host_node_config():
    findings = slurm_preflight_host("n1", FACTS, node_config={"RealMemory": 9000})
    assert ids(findings) == ["node_config"]
    assert slurm_preflight_host("n1", FACTS, node_config={"RealMemory": 7000}) == []


def test_driver_findings_name_the_inventory_variable():
    from ansible_collections.aicluster.slurm.plugins.filter.slurm import preflight_line, preflight_prefixed

    finding = {"id": "NV-CUDA", "severity": "error", "message": "nvidia_driver=570.172.08 cannot run CUDA 13.0"}
    line = preflight_line(preflight_prefixed(finding, "accelerator_versions"))
    assert line == "[NV-CUDA] accelerator_versions: nvidia_driver=570.172.08 cannot run CUDA 13.0"
    assert finding["message"].startswith("nvidia_driver")  # the input is not modified
