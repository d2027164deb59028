import base64

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.slurm import (
    FilterModule,
    hostlist_compress,
    hostlist_expand,
    preflight_findings,
    preflight_line,
    preflight_prefixed,
    slurm_changed_keys,
    slurm_conf_lines,
    slurm_discovered,
    slurm_emulating_hosts,
    slurm_gpu_files,
    slurm_gres_discover_hosts,
    slurm_gres_lines,
    slurm_gres_types,
    slurm_groups_without,
    slurm_hosts_of_nodes,
    slurm_hosts_without_facts,
    slurm_merge_config,
    slurm_node_groups,
    slurm_node_names,
    slurm_nodes,
    slurm_parameter_lines,
    slurm_preflight_host,
    slurm_preflight_inventory,
    slurm_qos_names,
    slurm_restart_keys,
    slurm_schema_findings,
    slurm_slurmd_pending,
    slurm_text_findings,
    slurm_topology_switches,
)

FACTS = {"processor_count": 1, "processor_cores": 4, "processor_threads_per_core": 1, "processor_vcpus": 4, "memtotal_mb": 8000}
GPU_FACTS = dict(FACTS, processor_cores=8, processor_vcpus=8)

HOSTVARS = {
    "node01": {"ansible_facts": FACTS},
    "node02": {"ansible_facts": FACTS},
    "gpu1.cluster.example": {"ansible_facts": GPU_FACTS, "slurm_node_config": {"Gres": "gpu:2"}},
    "nofacts": {},
}

GROUPS = {"slurmctld": ["ctl1"], "slurm_compute": ["node01", "node02"], "gpu": ["gpu1.cluster.example"]}
PARTITIONS = [{"name": "batch", "groups": ["slurm_compute"], "default": True}, {"name": "gpu", "groups": ["gpu"]}]


def test_filter_module_exposes_every_filter():
    filters = FilterModule().filters()
    assert filters == {
        "hostlist_compress": hostlist_compress,
        "hostlist_expand": hostlist_expand,
        "preflight_findings": preflight_findings,
        "preflight_line": preflight_line,
        "preflight_prefixed": preflight_prefixed,
        "slurm_changed_keys": slurm_changed_keys,
        "slurm_conf_lines": slurm_conf_lines,
        "slurm_emulating_hosts": slurm_emulating_hosts,
        "slurm_gpu_files": slurm_gpu_files,
        "slurm_discovered": slurm_discovered,
        "slurm_gres_discover_hosts": slurm_gres_discover_hosts,
        "slurm_gres_lines": slurm_gres_lines,
        "slurm_gres_types": slurm_gres_types,
        "slurm_groups_without": slurm_groups_without,
        "slurm_hosts_of_nodes": slurm_hosts_of_nodes,
        "slurm_hosts_without_facts": slurm_hosts_without_facts,
        "slurm_merge_config": slurm_merge_config,
        "slurm_node_groups": slurm_node_groups,
        "slurm_node_names": slurm_node_names,
        "slurm_nodes": slurm_nodes,
        "slurm_parameter_lines": slurm_parameter_lines,
        "slurm_preflight_host": slurm_preflight_host,
        "slurm_preflight_inventory": slurm_preflight_inventory,
        "slurm_qos_names": slurm_qos_names,
        "slurm_restart_keys": slurm_restart_keys,
        "slurm_schema_findings": slurm_schema_findings,
        "slurm_slurmd_pending": slurm_slurmd_pending,
        "slurm_text_findings": slurm_text_findings,
        "slurm_topology_switches": slurm_topology_switches,
    }


@pytest.mark.parametrize(
    ("names", "expected"),
    [(["node02", "node01"], "node[01-02]"), (("a", "b"), "a,b"), (iter(["n1", "n2"]), "n[1-2]")],
    ids=["list", "tuple", "iterator"],
)
def test_hostlist_compress(names, expected):
    assert hostlist_compress(names) == expected


def test_hostlist_expand():
    assert hostlist_expand("node[09-11],login") == ["node09", "node10", "node11", "login"]


def test_slurm_nodes_keys_by_short_name():
    nodes = slurm_nodes(["node01", "gpu1.cluster.example"], HOSTVARS, 1000)
    assert nodes == {
        "node01": {"CPUs": 4, "Sockets": 1, "CoresPerSocket": 4, "ThreadsPerCore": 1, "RealMemory": 7000},
        "gpu1": {
            "CPUs": 8,
            "Sockets": 1,
            "CoresPerSocket": 8,
            "ThreadsPerCore": 1,
            "RealMemory": 7000,
            "NodeAddr": "gpu1.cluster.example",
            "Gres": "gpu:2",
        },
    }


def test_slurm_nodes_only_named_hosts():
    assert list(slurm_nodes(["node02"], HOSTVARS)) == ["node02"]


@pytest.mark.parametrize(
    ("names", "hostvars", "memory_reserve_mb", "message"),
    [
        (["nofacts"], HOSTVARS, 0, "host nofacts: hardware facts are missing"),
        (["node01"], {"node01": {"ansible_facts": {}}}, 0, "host node01: hardware facts are missing"),
        (["node01"], HOSTVARS, 8000, "host node01: slurm_node_memory_reserve_mb=8000 leaves no memory"),
        (["node01"], {"node01": {"ansible_facts": FACTS, "slurm_node_config": {"NodeName": "x"}}}, 0, "must not set NodeName"),
        (["ghost"], HOSTVARS, 0, "host ghost is not in the inventory"),
    ],
    ids=["no-facts-key", "empty-facts", "reserve-too-big", "node-config-sets-nodename", "unknown-host"],
)
def test_slurm_nodes_errors_are_filter_errors(names, hostvars, memory_reserve_mb, message):
    with pytest.raises(AnsibleFilterError, match=message):
        slurm_nodes(names, hostvars, memory_reserve_mb)


def test_slurm_conf_lines():
    nodes = slurm_nodes(["node01", "node02", "gpu1.cluster.example"], HOSTVARS)
    assert slurm_conf_lines({"SlurmctldHost": ["ctl1"], "ClusterName": "ai"}, nodes, PARTITIONS, GROUPS) == [
        "ClusterName=ai",
        "SlurmctldHost=ctl1",
        "",
        "# Nodes: one line per hardware shape, from each host's facts",
        "NodeName=gpu1 CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=8000 NodeAddr=gpu1.cluster.example Gres=gpu:2 State=UNKNOWN",
        "NodeName=node[01-02] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000 State=UNKNOWN",
        "",
        "# Partitions",
        "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=INFINITE State=UP",
        "PartitionName=gpu Nodes=gpu1 Default=NO MaxTime=INFINITE State=UP",
    ]


@pytest.mark.parametrize(
    ("partitions", "message"),
    [
        ([{"name": "batch", "groups": ["nosuch"]}], "partition batch refers to inventory group nosuch"),
        ([{"name": "a", "groups": ["gpu"], "default": True}, {"name": "b", "groups": ["gpu"], "default": True}], "a, b are all marked default"),
        ([], "slurm_partitions is empty"),
    ],
    ids=["missing-group", "two-defaults", "no-partitions"],
)
def test_slurm_conf_lines_errors_are_filter_errors(partitions, message):
    with pytest.raises(AnsibleFilterError, match=message):
        slurm_conf_lines({}, {}, partitions, GROUPS)


def test_slurm_merge_config():
    assert slurm_merge_config({"A": 1, "B": 2}, {"a": 3}, {"B": None}) == {"a": 3}


def test_slurm_merge_config_structure_key_is_filter_error():
    with pytest.raises(AnsibleFilterError, match="NodeName is structure"):
        slurm_merge_config({}, {"NodeName": "x"})


def test_slurm_parameter_lines():
    assert slurm_parameter_lines({"ConstrainRAMSpace": True, "AllowedRAMSpace": 100}) == ["AllowedRAMSpace=100", "ConstrainRAMSpace=YES"]


OLD_CONF = "ClusterName=ai\nSlurmctldPort=6817\nNodeName=n1 CPUs=4\n"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (OLD_CONF, ["ClusterName=ai", "SlurmctldPort=6900", "NodeName=n1 CPUs=4"], ["SlurmctldPort"]),
        (OLD_CONF, ("ClusterName=ai", "SlurmctldPort=6817", "NodeName=n1 CPUs=8"), []),
        (OLD_CONF, "ClusterName=ai\nSlurmctldPort=6900\n", ["SlurmctldPort"]),
        ("", ["SlurmctldPort=6900"], []),
        (None, ["SlurmctldPort=6900"], []),
    ],
    ids=["list-port-change", "tuple-node-change", "text", "first-install-empty", "first-install-none"],
)
def test_slurm_restart_keys(old, new, expected):
    assert slurm_restart_keys(old, new) == expected


def test_slurm_preflight_inventory():
    findings = slurm_preflight_inventory(
        {"slurmctld": ["c1", "c2", "c3"], "slurm_compute": ["n1"]},
        {"SelectType": "select/cgroup", "ProctrackType": "proctrack/linuxproc"},
        [],
        munge_key=base64.b64encode(b"short").decode(),
        skip=["controller_count"],
    )
    assert [f["id"] for f in findings] == ["secrets", "slurm_config_value", "proctrack_cgroup"]


def test_slurm_preflight_inventory_defaults():
    assert slurm_preflight_inventory({"slurmctld": ["c1"], "slurm_compute": ["n1"]}, {}, []) == []


def test_slurm_preflight_host():
    facts = {"distribution": "Debian", "distribution_major_version": "13", "hostname": "wrong", "memtotal_mb": 1000}
    assert [f["id"] for f in slurm_preflight_host("n1", facts, 1000)] == ["hostname_match", "memory_reserve"]
    assert slurm_preflight_host("n1", facts, 1000, is_compute=False) == []
    assert [f["id"] for f in slurm_preflight_host("n1", facts, 1000, skip=("hostname_match",))] == ["memory_reserve"]


def test_preflight_line():
    assert preflight_line({"id": "secrets", "severity": "error", "message": "bad key"}) == "[secrets] bad key"


def test_wrapped_filters_keep_their_names_and_docs():
    for func, name in ((slurm_nodes, "slurm_nodes"), (slurm_conf_lines, "slurm_conf_lines"), (slurm_merge_config, "slurm_merge_config")):
        assert func.__name__ == name
        assert func.__doc__


def test_slurm_topology_switches_from_host_variables():
    hostvars = {
        "gpu1.example": {"slurm_topology_leaf": "leaf1"},
        "gpu2": {"slurm_topology_leaf": "leaf2"},
        "gpu3": {"slurm_topology_leaf": "leaf1"},
        "cpu1": {},
    }
    assert slurm_topology_switches(["gpu3", "gpu1.example", "gpu2", "cpu1"], hostvars, {"spine": ["leaf1", "leaf2"], "core": "spine"}) == [
        {"name": "leaf1", "nodes": ["gpu1", "gpu3"]},
        {"name": "leaf2", "nodes": ["gpu2"]},
        {"name": "core", "switches": ["spine"]},
        {"name": "spine", "switches": ["leaf1", "leaf2"]},
    ]


def test_slurm_topology_switches_unknown_host():
    with pytest.raises(AnsibleFilterError, match="host ghost is not in the inventory"):
        slurm_topology_switches(["ghost"], {})


# --- GPUs: Gres=, gres.conf, exclusive partitions -----------------------------

GPU_HOSTVARS = {
    "g1": {"ansible_facts": GPU_FACTS, "slurm_node_gpus": {"type": "h200", "count": 4}},
    "g2": {"ansible_facts": GPU_FACTS, "slurm_node_gpus": {"type": "h200", "count": 4}},
    "l1": {"ansible_facts": GPU_FACTS, "slurm_node_gpus": {"type": "l40s", "count": 2, "file": "/dev/nvidia[4-5]"}},
    "c1": {"ansible_facts": FACTS},
}
GPU_GROUPS = {"slurmctld": ["ctl1"], "slurm_compute": ["g1", "g2", "l1", "c1"], "h200": ["g1", "g2"], "l40s": ["l1"]}


def test_slurm_nodes_gres_from_gpus():
    nodes = slurm_nodes(["g1", "l1", "c1"], GPU_HOSTVARS)
    assert nodes["g1"]["Gres"] == "gpu:h200:4"
    assert nodes["l1"]["Gres"] == "gpu:l40s:2"
    assert "Gres" not in nodes["c1"]


def test_slurm_gres_lines():
    assert slurm_gres_lines(["g1", "g2", "l1", "c1"], GPU_HOSTVARS) == [
        "NodeName=g[1-2] Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=l1 Name=gpu Type=l40s File=/dev/nvidia[4-5]",
    ]
    assert slurm_gres_lines(["c1"], GPU_HOSTVARS) == []


def test_slurm_gres_lines_bad_declaration_names_host():
    hostvars = {"g1": {"slurm_node_gpus": {"type": "H 200", "count": 1}}}
    with pytest.raises(AnsibleFilterError, match="host g1: slurm_node_gpus.type='H 200'"):
        slurm_gres_lines(["g1"], hostvars)


@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        ({}, []),
        ({"type": "h200", "count": 2}, ["/dev/nvidia0", "/dev/nvidia1"]),
        ({"type": "h200", "file": "/dev/nvidia[6-7]"}, ["/dev/nvidia6", "/dev/nvidia7"]),
        ({"type": "h200", "count": 0}, []),
    ],
    ids=["none", "count", "file", "malformed-gives-none"],
)
def test_slurm_gpu_files(gpus, expected):
    assert slurm_gpu_files(gpus) == expected


def test_exclusive_partition_only_over_exclusive_gpu_classes():
    nodes = slurm_nodes(["g1", "g2", "l1", "c1"], GPU_HOSTVARS)
    partitions = [
        {"name": "batch", "groups": ["slurm_compute"], "default": True},
        {"name": "h200", "groups": ["h200"]},
        {"name": "l40s", "groups": ["l40s"]},
        {"name": "shared-h200", "groups": ["h200"], "exclusive": False},
        {"name": "forced", "groups": ["l40s"], "exclusive": True},
        {"name": "own", "groups": ["h200"], "config": {"OverSubscribe": "FORCE:2"}},
    ]
    lines = slurm_conf_lines({}, nodes, partitions, GPU_GROUPS, ["a100", "h200"])
    by_name = {line.split()[0]: line for line in lines if line.startswith("PartitionName=")}
    assert "OverSubscribe" not in by_name["PartitionName=batch"]
    assert "OverSubscribe=EXCLUSIVE" in by_name["PartitionName=h200"]
    assert "OverSubscribe" not in by_name["PartitionName=l40s"]
    assert "OverSubscribe" not in by_name["PartitionName=shared-h200"]
    assert "OverSubscribe=EXCLUSIVE" in by_name["PartitionName=forced"]
    assert "OverSubscribe=FORCE:2" in by_name["PartitionName=own"]
    assert "NodeName=g[1-2] CPUs=8" in "\n".join(lines)
    assert any(line.startswith("NodeName=g[1-2]") and "Gres=gpu:h200:4" in line for line in lines)


def test_exclusive_and_oversubscribe_together_is_an_error():
    nodes = slurm_nodes(["g1", "g2"], GPU_HOSTVARS)
    partitions = [{"name": "p", "groups": ["h200"], "exclusive": True, "config": {"OverSubscribe": "NO"}}]
    with pytest.raises(AnsibleFilterError, match="partition p sets both exclusive: True and OverSubscribe"):
        slurm_conf_lines({}, nodes, partitions, GPU_GROUPS, ["h200"])


def test_slurm_preflight_host_counts_only_character_devices():
    facts = {"distribution": "Debian", "distribution_major_version": "13", "hostname": "g1", "memtotal_mb": 64000}
    stats = [
        {"item": "/dev/nvidia0", "stat": {"exists": True, "ischr": True}},
        {"item": "/dev/nvidia1", "stat": {"exists": True, "ischr": False}},
        {"item": "/dev/nvidia2", "stat": {"exists": False}},
    ]
    findings = slurm_preflight_host("g1", facts, gpus={"type": "h200", "count": 3}, gpu_stats=stats)
    assert [f["id"] for f in findings] == ["gpus"]
    assert "/dev/nvidia1, /dev/nvidia2 are not a character device" in findings[0]["message"]


def test_slurm_qos_names_keeps_the_present_ones_bare():
    qos = [{"name": "high", "priority": 100, "max_tres_per_user": "gres/gpu=16"}, {"name": "old", "state": "absent"}, {"name": "low", "state": "present"}]
    assert slurm_qos_names(qos) == [{"name": "high"}, {"name": "low"}]
    assert slurm_qos_names(None) == []


EMULATING = {
    "node01": {"ansible_facts": FACTS},
    "emu": {
        "ansible_facts": GPU_FACTS,
        "slurm_emulated_nodes": {"names": "gpu[001-004]", "port": 17001},
        "slurm_node_gpus": {"type": "h200", "count": 8},
    },
}


def test_emulated_nodes_share_one_line_with_one_port_each():
    nodes = slurm_nodes(["node01", "emu"], EMULATING)
    assert sorted(nodes) == ["gpu001", "gpu002", "gpu003", "gpu004", "node01"]
    assert nodes["gpu003"]["Port"] == 17003
    groups = slurm_node_groups({"slurm_compute": ["node01", "emu"]}, EMULATING)
    lines = slurm_conf_lines({}, nodes, [{"name": "all", "groups": ["slurm_compute"], "default": True}], groups)
    assert lines[2] == (
        "NodeName=gpu[001-004] CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=8000 Gres=gpu:h200:8"
        " NodeHostname=emu NodeAddr=emu Port=[17001-17004] State=UNKNOWN"
    )
    assert lines[3].startswith("NodeName=node01 ")
    assert lines[-1] == "PartitionName=all Nodes=gpu[001-004],node01 Default=YES MaxTime=INFINITE State=UP"


def test_emulated_node_names_and_gres():
    assert slurm_node_names(["node01", "emu"], EMULATING) == ["node01", "gpu001", "gpu002", "gpu003", "gpu004"]
    assert slurm_emulating_hosts(["node01", "emu", "ghost"], EMULATING) == ["emu"]
    assert slurm_gres_lines(["emu"], EMULATING) == ["NodeName=gpu[001-004] Name=gpu Type=h200 File=/dev/nvidia[0-7]"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"port": 17001}, r"slurm_emulated_nodes=.* needs names"),
        ({"names": "gpu[001-004", "port": 17001}, r"slurm_emulated_nodes.names='gpu\[001-004' is not a hostlist"),
        ({"names": "gpu[1-4]"}, r"slurm_emulated_nodes.port=None must be a port from 1024 to 65531"),
        ({"names": "gpu[1-4]", "port": 65534}, r"port=65534 must be a port"),
        ({"names": "gpu1,gpu1", "port": 17001}, "names a node twice"),
    ],
    ids=["no-names", "bad-hostlist", "no-port", "ports-run-out", "duplicate"],
)
def test_emulated_nodes_bad_input_names_the_variable(spec, message):
    hostvars = {"emu": dict(EMULATING["emu"], slurm_emulated_nodes=spec)}
    with pytest.raises(AnsibleFilterError, match=message):
        slurm_nodes(["emu"], hostvars)


def test_emulated_node_names_must_not_clash():
    hostvars = dict(EMULATING, gpu002={"ansible_facts": FACTS})
    with pytest.raises(AnsibleFilterError, match="host gpu002: Slurm node gpu002 is already another host's node"):
        slurm_nodes(["emu", "gpu002"], hostvars)


# --- GRES discovered from the hosts' accelerators (slurm_gres_discover) ------


def _two_gpus(numa1_cores="8-15"):
    return {
        "gpus": [
            {"device_id": "0x2335", "gres_type": "h200", "device_file": "/dev/nvidia0", "cores": "0-7"},
            {"device_id": "0x2335", "gres_type": "h200", "device_file": "/dev/nvidia1", "cores": numa1_cores},
        ],
        "npus": [],
    }


NPUS = {"gpus": [], "npus": [{"device_id": "0xd802", "gres_type": "910b", "device_file": "/dev/davinci0", "cores": "0-23"}]}
DISCOVER_HOSTVARS = {
    "d1.cluster.example": {"ansible_facts": GPU_FACTS, "slurm_gres_discover": True},
    "d2": {"ansible_facts": GPU_FACTS, "slurm_gres_discover": True},
    "n1": {"ansible_facts": GPU_FACTS, "slurm_gres_discover": True},
    "g1": GPU_HOSTVARS["g1"],
    "c1": {"ansible_facts": FACTS},
}


def test_slurm_gres_discover_hosts():
    assert slurm_gres_discover_hosts(["d1.cluster.example", "g1", "c1", "n1"], DISCOVER_HOSTVARS) == ["d1.cluster.example", "n1"]


def test_slurm_gres_discover_and_declared_gpus_conflict():
    hostvars = {"h": {"slurm_gres_discover": True, "slurm_node_gpus": {"type": "h200", "count": 8}}}
    with pytest.raises(AnsibleFilterError, match="host h: slurm_gres_discover=true and slurm_node_gpus="):
        slurm_gres_discover_hosts(["h"], hostvars)


def test_slurm_gres_discover_not_on_emulating_hosts():
    hostvars = {"h": {"slurm_gres_discover": True, "slurm_emulated_nodes": {"names": "n[1-2]", "port": 7000}}}
    with pytest.raises(AnsibleFilterError, match="host h: slurm_gres_discover=true on a host that emulates nodes"):
        slurm_gres_discover_hosts(["h"], hostvars)


def test_slurm_discovered_from_registered_loop():
    results = [{"item": "d2", "accelerators": NPUS}, {"item": "x", "skipped": True}]
    assert slurm_discovered(results) == {"d2": NPUS}
    assert slurm_discovered(None) == {}


def test_slurm_nodes_gres_from_discovered_devices():
    discovered = {"d1.cluster.example": _two_gpus(), "n1": NPUS, "d2": {"gpus": [], "npus": []}}
    nodes = slurm_nodes(["d1.cluster.example", "d2", "n1", "g1"], DISCOVER_HOSTVARS, 0, discovered)
    assert nodes["d1"]["Gres"] == "gpu:h200:2"
    assert nodes["n1"]["Gres"] == "npu:910b:1"
    assert "Gres" not in nodes["d2"]
    assert nodes["g1"]["Gres"] == "gpu:h200:4"


def test_slurm_gres_lines_mix_declared_and_discovered():
    discovered = {"d1.cluster.example": _two_gpus(), "d2": _two_gpus(), "n1": NPUS}
    assert slurm_gres_lines(["g1", "d1.cluster.example", "d2", "n1", "c1"], DISCOVER_HOSTVARS, discovered) == [
        "NodeName=g1 Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=d[1-2] Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-7",
        "NodeName=d[1-2] Name=gpu Type=h200 File=/dev/nvidia1 Cores=8-15",
        "NodeName=n1 Name=npu Type=910b File=/dev/davinci0 Cores=0-23",
    ]


def test_slurm_gres_lines_different_cores_split_hostlists():
    discovered = {"d1.cluster.example": _two_gpus(), "d2": _two_gpus("16-23")}
    lines = slurm_gres_lines(["d1.cluster.example", "d2"], DISCOVER_HOSTVARS, discovered)
    assert "NodeName=d1 Name=gpu Type=h200 File=/dev/nvidia1 Cores=8-15" in lines
    assert "NodeName=d2 Name=gpu Type=h200 File=/dev/nvidia1 Cores=16-23" in lines


def test_slurm_gres_lines_host_types_name_unknown_devices():
    unknown = {"gpus": [{"device_id": "0x9999", "gres_type": None, "device_file": "/dev/nvidia0", "cores": None, "model": "x", "pci_bus_id": "b"}], "npus": []}
    hostvars = {"u": {"slurm_gres_discover": True, "slurm_gres_discover_types": {"0x9999": "B300"}}}
    assert slurm_gres_lines(["u"], hostvars, {"u": unknown}) == ["NodeName=u Name=gpu Type=b300 File=/dev/nvidia0"]
    with pytest.raises(AnsibleFilterError, match="has no GRES type"):
        slurm_gres_lines(["u"], {"u": {"slurm_gres_discover": True}}, {"u": unknown})


@pytest.mark.parametrize(
    ("configured", "discovered", "expected"),
    [
        ("gpu", {}, "gpu"),
        ("gpu", {"n1": NPUS}, "gpu,npu"),
        ("", {"n1": NPUS}, "npu"),
        ("gpu,npu", {"n1": NPUS}, "gpu,npu"),
        ("", {}, None),
    ],
)
def test_slurm_gres_types(configured, discovered, expected):
    assert slurm_gres_types(configured, discovered) == expected


def test_slurm_nodes_discovered_cores_must_be_whole_sockets():
    # 2 sockets x 4 cores: a GPU local to cores 0-1 is half of socket 0.
    half = {"gpus": [{"device_id": "0x2335", "gres_type": "h200", "device_file": "/dev/nvidia0", "cores": "0-1"}], "npus": []}
    hostvars = {"d": {"ansible_facts": dict(GPU_FACTS, processor_count=2, processor_cores=4, processor_threads_per_core=1, processor_vcpus=8)}}
    with pytest.raises(AnsibleFilterError, match=r"host d: /dev/nvidia0 is local to cores 0-1, part of socket 0 \(cores 0-3\) .*numa_node_as_socket"):
        slurm_nodes(["d"], hostvars, 0, {"d": half})
    whole = {"gpus": [dict(half["gpus"][0], cores="4-7")], "npus": []}
    assert slurm_nodes(["d"], hostvars, 0, {"d": whole})["d"]["Gres"] == "gpu:h200:1"
    # Declared as 4 sockets of 2 cores (NUMA nodes as sockets), 0-1 is a whole socket.
    hostvars["d"]["slurm_node_config"] = {"Sockets": 4, "CoresPerSocket": 2}
    assert slurm_nodes(["d"], hostvars, 0, {"d": half})["d"]["Gres"] == "gpu:h200:1"


def test_slurm_changed_keys_names_what_differs():
    old = "ClusterName=a\nSlurmctldPort=6817\nNodeName=n1 CPUs=2\n"
    assert slurm_changed_keys(old, ["ClusterName=a", "SlurmctldPort=9100", "NodeName=n1 CPUs=4"]) == ["SlurmctldPort"]
    assert slurm_changed_keys("", ["ClusterName=a"]) == ["ClusterName"]


def test_slurm_text_findings_reads_the_host_plugin_files():
    lines = ["ClusterName=a", "SchedulerType=sched/backfill"]
    assert slurm_text_findings(lines, "slurm.conf", ["/usr/lib/x/slurm-wlm/sched_backfill.so"]) == []
    (finding,) = slurm_text_findings(lines, "slurm.conf", ["/usr/lib/x/slurm-wlm/sched_builtin.so"])
    assert "sched/backfill is not installed" in finding["message"]


def test_slurm_hosts_of_nodes_maps_emulated_nodes_to_their_host():
    hostvars = dict(HOSTVARS, emu1={"slurm_emulated_nodes": {"names": "gpu[001-004]", "port": 17001}})
    hosts = ["node01", "node02", "emu1"]
    assert slurm_hosts_of_nodes(hosts, hostvars, ["gpu003", "node02"]) == ["node02", "emu1"]
    assert slurm_hosts_of_nodes(hosts, hostvars, []) == []


def test_slurm_slurmd_pending():
    before = "NodeName=a State=IDLE SlurmdStartTime=2026-12-04T20:00:00\nNodeName=b State=IDLE SlurmdStartTime=2026-12-04T20:00:00"
    after = "NodeName=a State=IDLE SlurmdStartTime=2026-12-04T20:05:00\nNodeName=b State=IDLE SlurmdStartTime=2026-12-04T20:00:00"
    assert slurm_slurmd_pending(before, after) == ["b"]


def test_preflight_findings_of_plain_messages():
    assert preflight_findings(["x=1: too big; lower it"], "nvidia_driver", "x") == [
        {"id": "nvidia_driver", "severity": "error", "variable": "x", "value": None, "message": "x=1: too big; lower it", "fix": None}
    ]
    assert preflight_findings([], "nvidia_driver", "x") == []
