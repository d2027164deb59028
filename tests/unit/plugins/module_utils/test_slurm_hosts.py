"""Unit tests for plugins/module_utils/slurm_hosts.py: inventory hosts (plain {host: {variable: value}}) as Slurm nodes."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import preflight, slurm_hosts
from ansible_collections.aicluster.slurm.plugins.module_utils.gres import GresError
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_conf import SlurmConfError, conf_lines
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import TopologyError

FACTS = {"processor_count": 1, "processor_cores": 4, "processor_threads_per_core": 1, "processor_vcpus": 4, "memtotal_mb": 8000}
GPU_FACTS = dict(FACTS, processor_cores=8, processor_vcpus=8)

HOSTS = {
    "node01": {"ansible_facts": FACTS},
    "node02": {"ansible_facts": FACTS},
    "gpu1.cluster.example": {"ansible_facts": GPU_FACTS, "slurm_node_config": {"Gres": "gpu:2"}},
    "nofacts": {},
}


# --- NodeName attributes -------------------------------------------------------


def test_nodes_keys_by_short_name():
    nodes = slurm_hosts.nodes(HOSTS, ["node01", "gpu1.cluster.example"], 1000)
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


def test_nodes_only_named_hosts():
    assert list(slurm_hosts.nodes(HOSTS, ["node02"])) == ["node02"]


@pytest.mark.parametrize(
    ("names", "hosts", "memory_reserve_mb", "message"),
    [
        (["nofacts"], HOSTS, 0, "host nofacts: hardware facts are missing"),
        (["node01"], {"node01": {"ansible_facts": {}}}, 0, "host node01: hardware facts are missing"),
        (["node01"], HOSTS, 8000, "host node01: slurm_node_memory_reserve_mb=8000 leaves no memory"),
        (["node01"], {"node01": {"ansible_facts": FACTS, "slurm_node_config": {"NodeName": "x"}}}, 0, "must not set NodeName"),
        (["ghost"], HOSTS, 0, "^slurm_nodes: host ghost is not in the inventory$"),
    ],
    ids=["no-facts-key", "empty-facts", "reserve-too-big", "node-config-sets-nodename", "unknown-host"],
)
def test_nodes_errors(names, hosts, memory_reserve_mb, message):
    with pytest.raises(SlurmConfError, match=message):
        slurm_hosts.nodes(hosts, names, memory_reserve_mb)


# --- GPUs: Gres=, gres.conf ----------------------------------------------------

GPU_HOSTS = {
    "g1": {"ansible_facts": GPU_FACTS, "slurm_node_gpus": {"type": "h200", "count": 4}},
    "g2": {"ansible_facts": GPU_FACTS, "slurm_node_gpus": {"type": "h200", "count": 4}},
    "l1": {"ansible_facts": GPU_FACTS, "slurm_node_gpus": {"type": "l40s", "count": 2, "file": "/dev/nvidia[4-5]"}},
    "c1": {"ansible_facts": FACTS},
}
GPU_GROUPS = {"slurmctld": ["ctl1"], "slurm_compute": ["g1", "g2", "l1", "c1"], "h200": ["g1", "g2"], "l40s": ["l1"]}


def test_nodes_gres_from_gpus():
    nodes = slurm_hosts.nodes(GPU_HOSTS, ["g1", "l1", "c1"])
    assert nodes["g1"]["Gres"] == "gpu:h200:4"
    assert nodes["l1"]["Gres"] == "gpu:l40s:2"
    assert "Gres" not in nodes["c1"]


def test_gres_lines():
    assert slurm_hosts.gres_lines(GPU_HOSTS, ["g1", "g2", "l1", "c1"]) == [
        "NodeName=g[1-2] Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=l1 Name=gpu Type=l40s File=/dev/nvidia[4-5]",
    ]
    assert slurm_hosts.gres_lines(GPU_HOSTS, ["c1"]) == []


def test_gres_lines_bad_declaration_names_host():
    with pytest.raises(GresError, match="host g1: slurm_node_gpus.type='H 200'"):
        slurm_hosts.gres_lines({"g1": {"slurm_node_gpus": {"type": "H 200", "count": 1}}}, ["g1"])


def test_exclusive_partition_only_over_exclusive_gpu_classes():
    nodes = slurm_hosts.nodes(GPU_HOSTS, ["g1", "g2", "l1", "c1"])
    partitions = [
        {"name": "batch", "groups": ["slurm_compute"], "default": True},
        {"name": "h200", "groups": ["h200"]},
        {"name": "l40s", "groups": ["l40s"]},
        {"name": "shared-h200", "groups": ["h200"], "exclusive": False},
        {"name": "forced", "groups": ["l40s"], "exclusive": True},
        {"name": "own", "groups": ["h200"], "config": {"OverSubscribe": "FORCE:2"}},
    ]
    lines = conf_lines({}, nodes, partitions, GPU_GROUPS, ["a100", "h200"])
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
    nodes = slurm_hosts.nodes(GPU_HOSTS, ["g1", "g2"])
    partitions = [{"name": "p", "groups": ["h200"], "exclusive": True, "config": {"OverSubscribe": "NO"}}]
    with pytest.raises(SlurmConfError, match="partition p sets both exclusive: True and OverSubscribe"):
        conf_lines({}, nodes, partitions, GPU_GROUPS, ["h200"])


# --- emulated nodes (slurm_emulated_nodes) -------------------------------------

EMULATING = {
    "node01": {"ansible_facts": FACTS},
    "emu": {
        "ansible_facts": GPU_FACTS,
        "slurm_emulated_nodes": {"names": "gpu[001-004]", "port": 17001},
        "slurm_node_gpus": {"type": "h200", "count": 8},
    },
}


def test_emulated_nodes_share_one_line_with_one_port_each():
    nodes = slurm_hosts.nodes(EMULATING, ["node01", "emu"])
    assert sorted(nodes) == ["gpu001", "gpu002", "gpu003", "gpu004", "node01"]
    assert nodes["gpu003"]["Port"] == 17003
    groups = slurm_hosts.node_groups(EMULATING, {"slurm_compute": ["node01", "emu"]})
    assert groups == {"slurm_compute": ["node01", "gpu001", "gpu002", "gpu003", "gpu004"]}
    lines = conf_lines({}, nodes, [{"name": "all", "groups": ["slurm_compute"], "default": True}], groups)
    assert lines[2] == (
        "NodeName=gpu[001-004] CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=8000 Gres=gpu:h200:8"
        " NodeHostname=emu NodeAddr=emu Port=[17001-17004] State=UNKNOWN"
    )
    assert lines[3].startswith("NodeName=node01 ")
    assert lines[-1] == "PartitionName=all Nodes=gpu[001-004],node01 Default=YES MaxTime=INFINITE State=UP"


def test_emulated_node_names_and_gres():
    assert slurm_hosts.all_node_names(EMULATING, ["node01", "emu"]) == ["node01", "gpu001", "gpu002", "gpu003", "gpu004"]
    assert slurm_hosts.node_names(EMULATING, "gpu9.example") == ["gpu9"]
    assert slurm_hosts.emulating_hosts(EMULATING, ["node01", "emu", "ghost"]) == ["emu"]
    assert slurm_hosts.gres_lines(EMULATING, ["emu"]) == ["NodeName=gpu[001-004] Name=gpu Type=h200 File=/dev/nvidia[0-7]"]


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
    with pytest.raises(SlurmConfError, match=message):
        slurm_hosts.nodes({"emu": dict(EMULATING["emu"], slurm_emulated_nodes=spec)}, ["emu"])


def test_emulated_node_names_must_not_clash():
    hosts = dict(EMULATING, gpu002={"ansible_facts": FACTS})
    with pytest.raises(SlurmConfError, match="host gpu002: Slurm node gpu002 is already another host's node"):
        slurm_hosts.nodes(hosts, ["emu", "gpu002"])


def test_hosts_of_nodes_maps_emulated_nodes_to_their_host():
    hosts = dict(HOSTS, emu1={"slurm_emulated_nodes": {"names": "gpu[001-004]", "port": 17001}})
    names = ["node01", "node02", "emu1"]
    assert slurm_hosts.hosts_of_nodes(hosts, names, ["gpu003", "node02"]) == ["node02", "emu1"]
    assert slurm_hosts.hosts_of_nodes(hosts, names, iter(["gpu003", "node02"])) == ["node02", "emu1"]
    assert slurm_hosts.hosts_of_nodes(hosts, names, []) == []


# --- day 2: removed nodes out of the model, missing facts named ---------------

DAY2_GROUPS = {"all": ["ctl", "n1", "n2", "n3"], "slurmctld": ["ctl"], "slurm_compute": ["n1", "n2", "n3"], "gpu": ["n3"], "ungrouped": []}


def test_groups_without_takes_the_hosts_out_of_every_group_and_keeps_order():
    assert slurm_hosts.groups_without(DAY2_GROUPS, ["n3"]) == {
        "all": ["ctl", "n1", "n2"],
        "slurmctld": ["ctl"],
        "slurm_compute": ["n1", "n2"],
        "gpu": [],
        "ungrouped": [],
    }


def test_groups_without_nothing_is_the_inventory():
    assert slurm_hosts.groups_without(DAY2_GROUPS, []) == DAY2_GROUPS
    assert slurm_hosts.groups_without(DAY2_GROUPS, None) == DAY2_GROUPS


def test_removed_node_leaves_node_and_partition_lines():
    hosts = {name: {"ansible_facts": FACTS} for name in ("n1", "n2", "n3")}
    groups = slurm_hosts.groups_without(DAY2_GROUPS, ["n2"])
    nodes = slurm_hosts.nodes(hosts, groups["slurm_compute"])
    text = "\n".join(conf_lines({"ClusterName": "c"}, nodes, [{"name": "batch", "groups": ["slurm_compute"], "default": True}], groups))
    assert "NodeName=n[1,3] " in text
    assert "PartitionName=batch Nodes=n[1,3] " in text
    assert "n2" not in text


def test_hosts_without_facts_names_each_host_missing_cpu_or_memory():
    hosts = {
        "n1": {"ansible_facts": FACTS},
        "n2": {"ansible_facts": {}},
        "n3": {"ansible_facts": {"memtotal_mb": 8000}},
        "n4": {},
    }
    assert slurm_hosts.hosts_without_facts(hosts, ["n1", "n2", "n3", "n4", "n5"]) == ["n2", "n3", "n4", "n5"]
    assert slurm_hosts.hosts_without_facts(hosts, ["n1"]) == []


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
DISCOVER_HOSTS = {
    "d1.cluster.example": {"ansible_facts": GPU_FACTS, "slurm_gres_discover": True},
    "d2": {"ansible_facts": GPU_FACTS, "slurm_gres_discover": True},
    "n1": {"ansible_facts": GPU_FACTS, "slurm_gres_discover": True},
    "g1": GPU_HOSTS["g1"],
    "c1": {"ansible_facts": FACTS},
}


def test_gres_discover_hosts():
    assert slurm_hosts.gres_discover_hosts(DISCOVER_HOSTS, ["d1.cluster.example", "g1", "c1", "n1", "ghost"]) == ["d1.cluster.example", "n1"]


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"slurm_node_gpus": {"type": "h200", "count": 8}}, r"^host h: slurm_gres_discover=true and slurm_node_gpus=\{'type': 'h200', 'count': 8\} both"),
        ({"slurm_emulated_nodes": {"names": "n[1-2]", "port": 7000}}, "^host h: slurm_gres_discover=true on a host that emulates nodes"),
    ],
    ids=["declared-gpus", "emulating-host"],
)
def test_gres_discover_conflicts(variables, message):
    with pytest.raises(GresError, match=message):
        slurm_hosts.gres_discover_hosts({"h": dict(variables, slurm_gres_discover=True)}, ["h"])


def test_nodes_gres_from_discovered_devices():
    discovered = {"d1.cluster.example": _two_gpus(), "n1": NPUS, "d2": {"gpus": [], "npus": []}}
    nodes = slurm_hosts.nodes(DISCOVER_HOSTS, ["d1.cluster.example", "d2", "n1", "g1"], 0, discovered)
    assert nodes["d1"]["Gres"] == "gpu:h200:2"
    assert nodes["n1"]["Gres"] == "npu:910b:1"
    assert "Gres" not in nodes["d2"]
    assert nodes["g1"]["Gres"] == "gpu:h200:4"


def test_gres_lines_mix_declared_and_discovered():
    discovered = {"d1.cluster.example": _two_gpus(), "d2": _two_gpus(), "n1": NPUS}
    assert slurm_hosts.gres_lines(DISCOVER_HOSTS, ["g1", "d1.cluster.example", "d2", "n1", "c1"], discovered) == [
        "NodeName=g1 Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=d[1-2] Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-7",
        "NodeName=d[1-2] Name=gpu Type=h200 File=/dev/nvidia1 Cores=8-15",
        "NodeName=n1 Name=npu Type=910b File=/dev/davinci0 Cores=0-23",
    ]


def test_gres_lines_nvml_hosts_ask_for_nvml_detection():
    # slurmd reads GPU usage (gres/gpumem, gres/gpuutil) only through its NVML plugin, which AutoDetect=nvml loads.
    hosts = dict(DISCOVER_HOSTS, d2=dict(DISCOVER_HOSTS["d2"], slurm_gres_nvml=True), g1=dict(GPU_HOSTS["g1"], slurm_gres_nvml=True))
    hosts["c1"] = dict(hosts["c1"], slurm_gres_nvml=True)
    discovered = {"d1.cluster.example": _two_gpus(), "d2": _two_gpus(), "n1": NPUS}
    assert slurm_hosts.gres_lines(hosts, ["g1", "d1.cluster.example", "d2", "n1", "c1"], discovered) == [
        "NodeName=g1 AutoDetect=nvml",
        "NodeName=g1 Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=d1 Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-7",
        "NodeName=d1 Name=gpu Type=h200 File=/dev/nvidia1 Cores=8-15",
        "NodeName=n1 Name=npu Type=910b File=/dev/davinci0 Cores=0-23",
        "NodeName=d2 AutoDetect=nvml",
        "NodeName=d2 Name=gpu Type=h200 File=/dev/nvidia0",
        "NodeName=d2 Name=gpu Type=h200 File=/dev/nvidia1",
    ]


def test_gres_lines_different_cores_split_hostlists():
    discovered = {"d1.cluster.example": _two_gpus(), "d2": _two_gpus("16-23")}
    lines = slurm_hosts.gres_lines(DISCOVER_HOSTS, ["d1.cluster.example", "d2"], discovered)
    assert "NodeName=d1 Name=gpu Type=h200 File=/dev/nvidia1 Cores=8-15" in lines
    assert "NodeName=d2 Name=gpu Type=h200 File=/dev/nvidia1 Cores=16-23" in lines


def test_gres_lines_host_types_name_unknown_devices():
    unknown = {"gpus": [{"device_id": "0x9999", "gres_type": None, "device_file": "/dev/nvidia0", "cores": None, "model": "x", "pci_bus_id": "b"}], "npus": []}
    hosts = {"u": {"slurm_gres_discover": True, "slurm_gres_discover_types": {"0x9999": "B300"}}}
    assert slurm_hosts.gres_lines(hosts, ["u"], {"u": unknown}) == ["NodeName=u Name=gpu Type=b300 File=/dev/nvidia0"]
    with pytest.raises(GresError, match="has no GRES type"):
        slurm_hosts.gres_lines({"u": {"slurm_gres_discover": True}}, ["u"], {"u": unknown})


def test_nodes_discovered_cores_must_be_whole_sockets():
    # 2 sockets x 4 cores: a GPU local to cores 0-1 is half of socket 0.
    half = {"gpus": [{"device_id": "0x2335", "gres_type": "h200", "device_file": "/dev/nvidia0", "cores": "0-1"}], "npus": []}
    hosts = {"d": {"ansible_facts": dict(GPU_FACTS, processor_count=2, processor_cores=4, processor_threads_per_core=1, processor_vcpus=8)}}
    with pytest.raises(SlurmConfError, match=r"host d: /dev/nvidia0 is local to cores 0-1, part of socket 0 \(cores 0-3\) .*numa_node_as_socket"):
        slurm_hosts.nodes(hosts, ["d"], 0, {"d": half})
    whole = {"gpus": [dict(half["gpus"][0], cores="4-7")], "npus": []}
    assert slurm_hosts.nodes(hosts, ["d"], 0, {"d": whole})["d"]["Gres"] == "gpu:h200:1"
    # Declared as 4 sockets of 2 cores (NUMA nodes as sockets), 0-1 is a whole socket.
    hosts["d"]["slurm_node_config"] = {"Sockets": 4, "CoresPerSocket": 2}
    assert slurm_hosts.nodes(hosts, ["d"], 0, {"d": half})["d"]["Gres"] == "gpu:h200:1"


# --- topology switches from each host's slurm_topology_leaf --------------------


def test_topology_switches_from_host_variables():
    hosts = {
        "gpu1.example": {"slurm_topology_leaf": "leaf1"},
        "gpu2": {"slurm_topology_leaf": "leaf2"},
        "gpu3": {"slurm_topology_leaf": "leaf1"},
        "cpu1": {},
    }
    assert slurm_hosts.topology_switches(hosts, ["gpu3", "gpu1.example", "gpu2", "cpu1"], {"spine": ["leaf1", "leaf2"], "core": "spine"}) == [
        {"name": "leaf1", "nodes": ["gpu1", "gpu3"]},
        {"name": "leaf2", "nodes": ["gpu2"]},
        {"name": "core", "switches": ["spine"]},
        {"name": "spine", "switches": ["leaf1", "leaf2"]},
    ]


def test_topology_switches_unknown_host():
    with pytest.raises(TopologyError, match="^slurm_topology_switches: host ghost is not in the inventory$"):
        slurm_hosts.topology_switches({}, ["ghost"])


TOPOLOGY_GROUPS = {"slurmctld": ["ctl"], "slurm_compute": ["n1", "n2"]}
LEAVES = {"n1": {"slurm_topology_leaf": "leaf1"}, "n2": {"slurm_topology_leaf": "leaf2"}}


def test_preflight_topology_builds_the_switches_only_from_the_inventory():
    topology = {"source": "inventory", "spines": {"spine": ["leaf1", "leaf2"]}}
    assert slurm_hosts.preflight_topology(topology, TOPOLOGY_GROUPS, LEAVES) == dict(
        topology, switches=[{"name": "leaf1", "nodes": ["n1"]}, {"name": "leaf2", "nodes": ["n2"]}, {"name": "spine", "switches": ["leaf1", "leaf2"]}]
    )
    assert slurm_hosts.preflight_topology(topology, TOPOLOGY_GROUPS) == topology
    assert slurm_hosts.preflight_topology({"source": "blocks"}, TOPOLOGY_GROUPS, LEAVES) == {"source": "blocks"}
    assert slurm_hosts.preflight_topology(None, TOPOLOGY_GROUPS, LEAVES) == {}


def _inventory_findings(topology):
    inputs = slurm_hosts.preflight_topology(topology, TOPOLOGY_GROUPS, LEAVES)
    return preflight.inventory_findings(TOPOLOGY_GROUPS, {}, [], "", topology_inputs=inputs)


def test_preflight_topology_passes_the_checks():
    assert _inventory_findings({"source": "inventory", "spines": {"spine": ["leaf1", "leaf2"]}}) == []


def test_preflight_topology_cycle_through_the_spines():
    findings = _inventory_findings({"source": "inventory", "spines": {"a": ["b", "leaf1", "leaf2"], "b": ["a"]}})
    assert [f["id"] for f in findings] == ["topology"]
    assert "switches a, b form a cycle" in findings[0]["message"]


def test_preflight_topology_bad_spine_expression_is_a_finding_not_an_error():
    topology = {"source": "inventory", "spines": {"spine": "leaf[2-1]"}}
    assert slurm_hosts.preflight_topology(topology, TOPOLOGY_GROUPS, LEAVES)["switches"] == []
    assert [f["id"] for f in _inventory_findings(topology)] == ["hostlist"]
