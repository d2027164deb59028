import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import slurm_conf
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_conf import (
    SlurmConfError,
    conf_lines,
    format_value,
    merge_config,
    node_from_facts,
    node_lines,
    parameter_lines,
    parse_parameters,
    partition_lines,
    restart_keys,
    short_name,
)

FACTS = {
    "processor_count": 2,
    "processor_cores": 8,
    "processor_threads_per_core": 2,
    "processor_vcpus": 32,
    "memtotal_mb": 64000,
}

NODE = {"CPUs": 4, "Sockets": 1, "CoresPerSocket": 4, "ThreadsPerCore": 1, "RealMemory": 7000}
GPU_NODE = dict(NODE, CPUs=8, CoresPerSocket=8, Gres="gpu:2")


# --- format_value / merge_config / parameter_lines ---------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, "YES"), (False, "NO"), (3, "3"), ("cgroup", "cgroup"), (["a", 1, True], "a,1,YES"), (("x", "y"), "x,y")],
    ids=["true", "false", "int", "str", "list-mixed", "tuple"],
)
def test_format_value(value, expected):
    assert format_value(value) == expected


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        (({"A": 1}, {"B": 2}), {"A": 1, "B": 2}),
        (({"A": 1}, {"A": 2}), {"A": 2}),
        (({"A": 1, "B": 2}, {"A": None}), {"B": 2}),
        (({"SelectType": "select/linear"}, {"selecttype": "select/cons_tres"}), {"selecttype": "select/cons_tres"}),
        (({"SelectType": 1}, {"SELECTTYPE": None}), {}),
        (({"A": None},), {}),
        (({"A": 1}, None, {}), {"A": 1}),
        (({"A": 1}, {"a": 2}, {"A": 3}), {"A": 3}),
    ],
    ids=[
        "disjoint",
        "later-wins",
        "null-removes",
        "case-insensitive-keeps-last-spelling",
        "null-removes-any-spelling",
        "null-for-unknown-key",
        "none-and-empty-layers",
        "spelling-flips-back",
    ],
)
def test_merge_config(layers, expected):
    merged = merge_config(*layers)
    assert merged == expected
    assert list(merged) == list(expected)


@pytest.mark.parametrize("key", slurm_conf.STRUCTURE_KEYS, ids=slurm_conf.STRUCTURE_KEYS)
def test_merge_config_rejects_structure_keys(key):
    with pytest.raises(SlurmConfError, match="%s is structure" % key):
        merge_config({"ClusterName": "c"}, {key: "node1"})


@pytest.mark.parametrize("key", ["nodename", "PARTITIONNAME"], ids=["lower", "upper"])
def test_merge_config_rejects_structure_keys_in_any_case(key):
    # slurm.conf keys are case-insensitive: `nodename=...` is a node line too.
    with pytest.raises(SlurmConfError, match="is structure"):
        merge_config({key: "node1"})


def test_merge_config_does_not_mutate_layers():
    base, override = {"A": 1, "B": 2}, {"a": None}
    merge_config(base, override)
    assert base == {"A": 1, "B": 2}
    assert override == {"a": None}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, []),
        ({"b": 1, "A": 2, "C": True}, ["A=2", "b=1", "C=YES"]),
        ({"SlurmctldHost": ["ctl1", "ctl2(10.0.0.2)"]}, ["SlurmctldHost=ctl1", "SlurmctldHost=ctl2(10.0.0.2)"]),
        ({"SlurmctldHost": "ctl1"}, ["SlurmctldHost=ctl1"]),
        ({"Include": ["/etc/slurm/b.conf", "/etc/slurm/a.conf"]}, ["Include=/etc/slurm/b.conf", "Include=/etc/slurm/a.conf"]),
        ({"TaskPlugin": ["task/affinity", "task/cgroup"]}, ["TaskPlugin=task/affinity,task/cgroup"]),
    ],
    ids=["empty", "sorted-case-insensitively", "multi-line-key", "multi-line-key-scalar", "include-keeps-order", "list-joined"],
)
def test_parameter_lines(config, expected):
    assert parameter_lines(config) == expected


# --- nodes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [("node01", "node01"), ("node01.cluster.example", "node01"), ("", "")],
    ids=["short", "fqdn", "empty"],
)
def test_short_name(name, expected):
    assert short_name(name) == expected


def test_node_from_facts_topology():
    assert node_from_facts("node01", FACTS) == {
        "CPUs": 32,
        "Sockets": 2,
        "CoresPerSocket": 8,
        "ThreadsPerCore": 2,
        "RealMemory": 64000,
    }


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        (dict(FACTS, processor_vcpus=30), (30, 30, 1, 1)),
        ({"processor_vcpus": 1, "memtotal_mb": 100}, (1, 1, 1, 1)),
        (dict(FACTS, processor_count=None, processor_cores=0, processor_threads_per_core=None, processor_vcpus=1), (1, 1, 1, 1)),
        ({"processor_vcpus": 6, "memtotal_mb": 100}, (6, 6, 1, 1)),
    ],
    ids=["facts-disagree-flat", "minimal-facts", "falsy-topology-defaults-to-one", "no-topology-flat"],
)
def test_node_from_facts_cpu_layout(facts, expected):
    node = node_from_facts("n1", facts)
    assert (node["CPUs"], node["Sockets"], node["CoresPerSocket"], node["ThreadsPerCore"]) == expected


def test_node_from_facts_memory_reserve():
    assert node_from_facts("n1", FACTS, memory_reserve_mb=2048)["RealMemory"] == 64000 - 2048


@pytest.mark.parametrize("reserve", [64000, 70000], ids=["equal", "above"])
def test_node_from_facts_reserve_leaves_no_memory(reserve):
    with pytest.raises(SlurmConfError, match=r"host n1: slurm_node_memory_reserve_mb=%d leaves no memory \(MemTotal is 64000 MB\)" % reserve):
        node_from_facts("n1", FACTS, memory_reserve_mb=reserve)


@pytest.mark.parametrize(
    "facts",
    [None, {}, {"memtotal_mb": 1000}, {"processor_vcpus": 4}],
    ids=["none", "empty", "no-vcpus", "no-memtotal"],
)
def test_node_from_facts_missing_facts(facts):
    with pytest.raises(SlurmConfError, match="host gpu7: hardware facts are missing"):
        node_from_facts("gpu7", facts)


def test_node_from_facts_fqdn_sets_node_addr():
    node = node_from_facts("node01.cluster.example", FACTS)
    assert node["NodeAddr"] == "node01.cluster.example"


def test_node_from_facts_short_name_has_no_node_addr():
    assert "NodeAddr" not in node_from_facts("node01", FACTS)


def test_node_from_facts_extra_adds_and_overrides():
    node = node_from_facts("n1", FACTS, extra={"Gres": "gpu:8", "RealMemory": 1000, "Weight": 10})
    assert node["Gres"] == "gpu:8"
    assert node["RealMemory"] == 1000
    assert node["Weight"] == 10


@pytest.mark.parametrize("key", ["NodeName", "nodename"], ids=["canonical", "lower"])
def test_node_from_facts_extra_cannot_set_node_name(key):
    with pytest.raises(SlurmConfError, match="host n1: slurm_node_config must not set NodeName"):
        node_from_facts("n1", FACTS, extra={key: "other"})


def test_node_lines_groups_identical_shapes():
    nodes = {"node02": dict(NODE), "node01": dict(NODE), "node03": dict(NODE), "gpu1": dict(GPU_NODE), "gpu2": dict(GPU_NODE)}
    assert node_lines(nodes) == [
        "NodeName=gpu[1-2] CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=7000 Gres=gpu:2 State=UNKNOWN",
        "NodeName=node[01-03] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=7000 State=UNKNOWN",
    ]


def test_node_lines_different_memory_splits_lines():
    nodes = {"node01": dict(NODE), "node02": dict(NODE, RealMemory=8000)}
    assert [line.split()[0] for line in node_lines(nodes)] == ["NodeName=node01", "NodeName=node02"]


def test_node_lines_keep_node_addr_hosts_separate():
    nodes = {
        "node01": dict(NODE, NodeAddr="node01.example"),
        "node02": dict(NODE, NodeAddr="node02.example"),
        "node03": dict(NODE),
        "node04": dict(NODE),
    }
    lines = node_lines(nodes)
    assert len(lines) == 3
    assert "NodeName=node01 CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=7000 NodeAddr=node01.example State=UNKNOWN" in lines
    assert "NodeName=node02 CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=7000 NodeAddr=node02.example State=UNKNOWN" in lines
    assert "NodeName=node[03-04] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=7000 State=UNKNOWN" in lines


@pytest.mark.parametrize("key", ["State", "state"], ids=["canonical", "lower"])
def test_node_lines_explicit_state_wins(key):
    line = node_lines({"n1": dict(NODE, **{key: "FUTURE"})})[0]
    assert line.endswith("%s=FUTURE" % key)
    assert "UNKNOWN" not in line


def test_node_lines_from_facts_end_to_end():
    nodes = {short_name(name): node_from_facts(name, FACTS, 1000) for name in ("c1", "c2", "c3.example")}
    # Lines are sorted by their hostlist text, and "c3" sorts before "c[1-2]".
    assert node_lines(nodes) == [
        "NodeName=c3 CPUs=32 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=63000 NodeAddr=c3.example State=UNKNOWN",
        "NodeName=c[1-2] CPUs=32 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=63000 State=UNKNOWN",
    ]


# --- partitions --------------------------------------------------------------

GROUPS = {
    "slurm_compute": ["node01", "node02", "node03.example"],
    "gpu": ["gpu1", "gpu2"],
    "empty": [],
}


def test_partition_lines():
    partitions = [
        {"name": "batch", "groups": ["slurm_compute"], "default": True},
        {"name": "gpu", "groups": ["gpu"], "config": {"MaxTime": "2-00:00:00", "OverSubscribe": "NO", "PriorityTier": 2}},
    ]
    assert partition_lines(partitions, GROUPS) == [
        "PartitionName=batch Nodes=node[01-03] Default=YES MaxTime=INFINITE State=UP",
        "PartitionName=gpu Nodes=gpu[1-2] Default=NO MaxTime=2-00:00:00 OverSubscribe=NO PriorityTier=2 State=UP",
    ]


CONF_NODES = {
    "node01": NODE,
    "node02": NODE,
    "gpu1": {"CPUs": 8, "Sockets": 1, "CoresPerSocket": 8, "ThreadsPerCore": 1, "RealMemory": 7000, "NodeAddr": "gpu1.cluster.example", "Gres": "gpu:2"},
}
CONF_GROUPS = {"slurmctld": ["ctl1"], "slurm_compute": ["node01", "node02"], "gpu": ["gpu1"]}


def test_conf_lines_parameters_then_nodes_then_partitions():
    partitions = [{"name": "batch", "groups": ["slurm_compute"], "default": True}, {"name": "gpu", "groups": ["gpu"]}]
    assert conf_lines({"SlurmctldHost": ["ctl1"], "ClusterName": "ai"}, CONF_NODES, partitions, CONF_GROUPS) == [
        "ClusterName=ai",
        "SlurmctldHost=ctl1",
        "",
        "# Nodes: one line per hardware shape, from each host's facts",
        "NodeName=gpu1 CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=7000 NodeAddr=gpu1.cluster.example Gres=gpu:2 State=UNKNOWN",
        "NodeName=node[01-02] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=7000 State=UNKNOWN",
        "",
        "# Partitions",
        "PartitionName=batch Nodes=node[01-02] Default=YES MaxTime=INFINITE State=UP",
        "PartitionName=gpu Nodes=gpu1 Default=NO MaxTime=INFINITE State=UP",
    ]


def test_conf_lines_exclusive_gpu_types_and_partition_defaults():
    nodes = {"g1": dict(NODE, Gres="gpu:h200:4"), "l1": dict(NODE, Gres="gpu:l40s:2")}
    groups = {"h200": ["g1"], "l40s": ["l1"]}
    partitions = [{"name": "h200", "groups": ["h200"], "default": True}, {"name": "l40s", "groups": ["l40s"]}]
    lines = conf_lines({}, nodes, partitions, groups, ["H200"], {"MaxTime": "1-00:00:00"})
    assert lines[-2:] == [
        "PartitionName=h200 Nodes=g1 Default=YES MaxTime=1-00:00:00 OverSubscribe=EXCLUSIVE State=UP",
        "PartitionName=l40s Nodes=l1 Default=NO MaxTime=1-00:00:00 State=UP",
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
def test_conf_lines_errors(partitions, message):
    with pytest.raises(SlurmConfError, match=message):
        conf_lines({}, {}, partitions, CONF_GROUPS)


def test_partition_lines_merges_groups():
    partitions = [{"name": "all", "groups": ["gpu", "slurm_compute"]}]
    assert partition_lines(partitions, GROUPS)[0].startswith("PartitionName=all Nodes=gpu[1-2],node[01-03] ")


@pytest.mark.parametrize(
    ("partitions", "message"),
    [
        ([], "slurm_partitions is empty"),
        (None, "slurm_partitions is empty"),
        ([{"name": "batch", "groups": ["nosuch"]}], "partition batch refers to inventory group nosuch, which does not exist"),
        ([{"name": "idle", "groups": ["empty"]}], r"partition idle has no nodes \(groups: empty\)"),
        ([{"name": "bare"}], r"partition bare has no nodes \(groups: none\)"),
        (
            [{"name": "a", "groups": ["gpu"], "default": True}, {"name": "b", "groups": ["gpu"], "default": True}],
            "a, b are all marked default: true",
        ),
        ([{"name": "gpu", "groups": ["gpu"]}, {"name": "gpu", "groups": ["slurm_compute"]}], "partition gpu is declared twice"),
        ([{"groups": ["gpu"]}], "every partition needs a name"),
    ],
    ids=["empty", "none", "missing-group", "empty-group", "no-groups", "two-defaults", "duplicate-name", "no-name"],
)
def test_partition_lines_errors(partitions, message):
    with pytest.raises(SlurmConfError, match=message):
        partition_lines(partitions, GROUPS)


# --- parse_parameters / restart_keys -----------------------------------------

CONF = """\
# slurm.conf written by aicluster.slurm
ClusterName=ai
SlurmctldHost=ctl1
SlurmctldHost=ctl2
SlurmctldPort=6817   # trailing comment
AuthType = auth/munge

NodeName=node[01-02] CPUs=4 RealMemory=7000 State=UNKNOWN
PartitionName=batch Nodes=node[01-02] Default=YES
"""


def test_parse_parameters():
    assert parse_parameters(CONF) == {
        "clustername": ["ai"],
        "slurmctldhost": ["ctl1", "ctl2"],
        "slurmctldport": ["6817"],
        "authtype": ["auth/munge"],
    }


@pytest.mark.parametrize("text", [None, "", "# only a comment\n\n"], ids=["none", "empty", "comment-only"])
def test_parse_parameters_empty(text):
    assert parse_parameters(text) == {}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (None, CONF, []),
        ("", CONF, []),
        (CONF, CONF, []),
        (CONF, CONF.replace("SlurmctldPort=6817", "SlurmctldPort=6900"), ["SlurmctldPort"]),
        (CONF, CONF.replace("CPUs=4 RealMemory=7000", "CPUs=8 RealMemory=15000"), []),
        (CONF, CONF.replace("PartitionName=batch", "PartitionName=main"), []),
        (CONF, CONF.replace("ClusterName=ai", "ClusterName=other"), []),
        (CONF, CONF.replace("SlurmctldHost=ctl2\n", ""), ["SlurmctldHost"]),
        (CONF, CONF.replace("AuthType = auth/munge", "AuthType=auth/slurm").replace("6817", "6900"), ["AuthType", "SlurmctldPort"]),
        (CONF, CONF + "SlurmdPort=6818\n", ["SlurmdPort"]),
        (CONF, CONF.replace("SlurmctldPort=6817   # trailing comment", "slurmctldport=6817"), []),
    ],
    ids=[
        "first-install-none",
        "first-install-empty",
        "unchanged",
        "slurmctld-port",
        "node-line",
        "partition-line",
        "reconfigurable-parameter",
        "controller-removed",
        "several-in-declared-order",
        "key-added",
        "case-and-comment-only",
    ],
)
def test_restart_keys(old, new, expected):
    assert restart_keys(old, new) == expected


def test_restart_keys_per_series():
    old, new = "AuthType=auth/munge\nTLSType=tls/none\n", "AuthType=auth/munge\nTLSType=tls/s2n\n"
    # 26.05's TLS on the RPC sockets is a listening setting: only a restart applies it.
    assert restart_keys(old, new, "26.05") == ["TLSType"]
    assert restart_keys(old, new, "26.05.5") == ["TLSType"]
    # 24.11 has no TLSType (its schema refuses the key); its own list is unchanged.
    assert restart_keys(old, new, "24.11") == []
    assert restart_keys(old, new) == []
    assert slurm_conf.RESTART_REQUIRED_BY_SERIES["26.05"][: len(slurm_conf.RESTART_REQUIRED)] == slurm_conf.RESTART_REQUIRED


def test_restart_keys_of_generated_lines():
    config = {"SlurmctldPort": 6817, "ClusterName": "ai"}
    nodes = {"node01": dict(NODE)}
    partitions = [{"name": "batch", "groups": ["slurm_compute"], "default": True}]

    def render(cfg):
        return "\n".join(parameter_lines(cfg) + node_lines(nodes) + partition_lines(partitions, {"slurm_compute": ["node01"]}))

    assert restart_keys(render(config), render(dict(config, SlurmctldPort=6900))) == ["SlurmctldPort"]
    assert restart_keys(render(config), render(dict(config, ClusterName="b"))) == []


def test_partition_config_keys_fold_case():
    [line] = slurm_conf.partition_lines([{"name": "p", "groups": ["g"], "config": {"state": "DOWN", "maxtime": "1:00:00"}}], {"g": ["n1"]})
    assert line == "PartitionName=p Nodes=n1 Default=NO maxtime=1:00:00 state=DOWN"


@pytest.mark.parametrize("key", ["Nodes", "default", "PartitionName"], ids=["nodes", "default", "name"])
def test_partition_config_cannot_set_what_the_model_owns(key):
    with pytest.raises(slurm_conf.SlurmConfError, match="partition p sets %s in config" % key):
        slurm_conf.partition_lines([{"name": "p", "groups": ["g"], "config": {key: "x"}}], {"g": ["n1"]})


def test_multi_line_keys_fold_case():
    assert slurm_conf.parameter_lines({"slurmctldhost": ["a", "b"]}) == ["slurmctldhost=a", "slurmctldhost=b"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"rack_id": "r01", "gpu_type": "h200"}, "gpu_type=h200,rack_id=r01"),
        (["nvlink", "ib"], "ib,nvlink"),
        ("b,a", "a,b"),
        ({}, None),
        (None, None),
    ],
    ids=["dict", "list", "string", "empty", "none"],
)
def test_features(value, expected):
    assert slurm_conf.features(value) == expected


@pytest.mark.parametrize("value", [["gpu h200"], ["a&b"], {"x": "y|z"}], ids=["space", "and", "or"])
def test_features_rejects_constraint_syntax(value):
    with pytest.raises(slurm_conf.SlurmConfError, match="cannot be a Slurm feature"):
        slurm_conf.features(value)


def test_node_from_facts_features():
    facts = {"processor_count": 1, "processor_cores": 2, "processor_threads_per_core": 1, "processor_vcpus": 2, "memtotal_mb": 4096}
    node = slurm_conf.node_from_facts("gpu1", facts, 0, None, {"gpu_type": "h200"})
    assert node["Features"] == "gpu_type=h200"


def test_partition_defaults_fill_only_what_a_partition_leaves_unset():
    partitions = [
        {"name": "batch", "groups": ["g"], "default": True},
        {"name": "urgent", "groups": ["g"], "config": {"gracetime": 0}},
    ]
    batch, urgent = slurm_conf.partition_lines(partitions, {"g": ["n1"]}, common={"GraceTime": 300})
    assert batch == "PartitionName=batch Nodes=n1 Default=YES GraceTime=300 MaxTime=INFINITE State=UP"
    assert urgent == "PartitionName=urgent Nodes=n1 Default=NO MaxTime=INFINITE State=UP gracetime=0"


# `scontrol show node -o` as Slurm 24.11 prints it (lab-node1, trimmed; Reason and OS hold spaces).
SHOW_NODE = (
    "NodeName={name} Arch=x86_64 CoresPerSocket=2 CPUAlloc=0 OS=Linux 6.18.44 #1 SMP PREEMPT_DYNAMIC @0 "
    "RealMemory=23081 State={state} ThreadsPerCore=1 Partitions=batch BootTime=2026-12-04T14:28:58 "
    "SlurmdStartTime={started} LastBusyTime=2026-12-04T20:13:05 Reason=disk full [root@2026-12-04T20:00:00]"
)


def show_node(*nodes):
    return "\n".join(SHOW_NODE.format(name=name, state=state, started=started) for name, state, started in nodes)


def test_slurmd_start_times_skip_nodes_whose_slurmd_is_not_expected_to_answer():
    text = show_node(
        ("n1", "IDLE", "2026-12-04T20:00:00"),
        ("n2", "MIXED+DRAIN", "2026-12-04T20:00:01"),
        ("n3", "IDLE+NOT_RESPONDING", "2026-12-04T20:00:00"),
        ("n4", "DOWN+DRAIN", "2026-12-04T20:00:00"),
        ("n5", "FUTURE", "None"),
        ("n6", "UNKNOWN", "None"),
    )
    assert slurm_conf.slurmd_start_times(text) == {"n1": "2026-12-04T20:00:00", "n2": "2026-12-04T20:00:01"}
    assert slurm_conf.slurmd_start_times("") == {}


@pytest.mark.parametrize(
    ("after", "pending"),
    [
        ((("n1", "IDLE", "2026-12-04T20:05:00"), ("n2", "ALLOCATED", "2026-12-04T20:05:01")), []),
        ((("n1", "IDLE", "2026-12-04T20:05:00"), ("n2", "ALLOCATED", "2026-12-04T20:00:00")), ["n2"]),
        ((("n1", "IDLE+NOT_RESPONDING", "2026-12-04T20:00:00"), ("n2", "IDLE", "2026-12-04T20:05:00")), ["n1"]),
        ((("n2", "IDLE", "2026-12-04T20:05:00"),), []),
    ],
    ids=["all-re-executed", "one-resumed-its-old-process", "one-stopped-answering", "one-removed-by-the-change"],
)
def test_slurmd_pending(after, pending):
    before = show_node(("n1", "IDLE", "2026-12-04T20:00:00"), ("n2", "ALLOCATED", "2026-12-04T20:00:00"), ("n3", "DOWN", "2026-12-04T19:00:00"))
    assert slurm_conf.slurmd_pending(before, show_node(*after)) == pending
