"""Unit tests for plugins/filter/slurm.py: each filter adapts its arguments to module_utils
(hostvars to plain {host: {variable: value}}, registered results, lines to text) and turns the
model's input errors into filter errors. The logic is tested in tests/unit/plugins/module_utils."""

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
    slurm_hardware_unread,
    slurm_hosts_of_nodes,
    slurm_hosts_without_facts,
    slurm_merge_config,
    slurm_node_groups,
    slurm_node_names,
    slurm_nodes,
    slurm_openmetrics,
    slurm_pam_adopt,
    slurm_pam_changes,
    slurm_parameter_lines,
    slurm_preflight_host,
    slurm_preflight_inventory,
    slurm_qos_names,
    slurm_restart_keys,
    slurm_schema_findings,
    slurm_series,
    slurm_slurmd_pending,
    slurm_state_save_findings,
    slurm_text_findings,
    slurm_topology_switches,
)
from ansible_collections.aicluster.slurm.plugins.module_utils import gres, preflight, slurm_conf, slurm_hosts
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import TopologyError

FACTS = {"processor_count": 1, "processor_cores": 4, "processor_threads_per_core": 1, "processor_vcpus": 4, "memtotal_mb": 8000}
HOSTS = {
    "node01": {"ansible_facts": FACTS, "slurm_topology_leaf": "leaf1", "unrelated": "x"},
    "gpu1.cluster.example": {"ansible_facts": FACTS, "slurm_node_gpus": {"type": "h200", "count": 2}, "slurm_topology_leaf": "leaf1"},
    "emu": {"ansible_facts": FACTS, "slurm_emulated_nodes": {"names": "e[1-2]", "port": 17001}},
    "d1": {"ansible_facts": FACTS, "slurm_gres_discover": True, "slurm_gres_discover_types": {"0x9999": "B300"}},
    "nofacts": {},
}
DISCOVERED = {"d1": {"gpus": [{"device_id": "0x9999", "gres_type": None, "device_file": "/dev/nvidia0", "cores": None}], "npus": []}}


class HostVars:
    """Like Ansible's HostVars: ``in`` for known hosts, a lazy per-host mapping with ``get``; records what is read."""

    def __init__(self, hosts):
        self.hosts = hosts
        self.read = set()

    def __contains__(self, name):
        return name in self.hosts

    def __getitem__(self, name):
        # Ansible answers an unknown host with an undefined value; the filters must ask ``in`` first.
        assert name in self.hosts, "filter indexed unknown host %s" % name
        return _HostVarsVars(self, name)


class _HostVarsVars:
    def __init__(self, owner, name):
        self.owner, self.name = owner, name

    def get(self, key, default=None):
        self.owner.read.add((self.name, key))
        return self.owner.hosts[self.name].get(key, default)


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
        "slurm_hardware_unread": slurm_hardware_unread,
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
        "slurm_openmetrics": slurm_openmetrics,
        "slurm_pam_adopt": slurm_pam_adopt,
        "slurm_pam_changes": slurm_pam_changes,
        "slurm_parameter_lines": slurm_parameter_lines,
        "slurm_preflight_host": slurm_preflight_host,
        "slurm_preflight_inventory": slurm_preflight_inventory,
        "slurm_qos_names": slurm_qos_names,
        "slurm_restart_keys": slurm_restart_keys,
        "slurm_schema_findings": slurm_schema_findings,
        "slurm_series": slurm_series,
        "slurm_state_save_findings": slurm_state_save_findings,
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


# --- hostvars filters: plain dicts of the variables each reads, names may be a generator ---

NAMES = ["node01", "gpu1.cluster.example", "emu", "d1"]


@pytest.mark.parametrize(
    ("call", "expected", "variables"),
    [
        (lambda hv: slurm_nodes(iter(NAMES), hv, 1000, DISCOVERED), slurm_hosts.nodes(HOSTS, NAMES, 1000, DISCOVERED), slurm_hosts.NODE_VARIABLES),
        (lambda hv: slurm_node_names(iter(NAMES), hv), slurm_hosts.all_node_names(HOSTS, NAMES), slurm_hosts.NAME_VARIABLES),
        (lambda hv: slurm_hosts_of_nodes(iter(NAMES), hv, ["e2", "node01"]), ["node01", "emu"], slurm_hosts.NAME_VARIABLES),
        (lambda hv: slurm_node_groups({"a": ["emu"], "b": ["node01", "ghost"]}, hv), {"a": ["e1", "e2"], "b": ["node01", "ghost"]}, slurm_hosts.NAME_VARIABLES),
        (lambda hv: slurm_emulating_hosts(iter(NAMES + ["ghost"]), hv), ["emu"], slurm_hosts.NAME_VARIABLES),
        (lambda hv: slurm_hosts_without_facts(iter(NAMES + ["nofacts", "ghost"]), hv), ["nofacts", "ghost"], slurm_hosts.FACT_VARIABLES),
        (lambda hv: slurm_gres_lines(iter(NAMES[:3]), hv, DISCOVERED), slurm_hosts.gres_lines(HOSTS, NAMES[:3], DISCOVERED), slurm_hosts.GRES_VARIABLES),
        (lambda hv: slurm_gres_discover_hosts(iter(NAMES + ["ghost"]), hv), ["d1"], slurm_hosts.GRES_VARIABLES),
        (
            lambda hv: slurm_topology_switches(iter(NAMES), hv, {"s": "leaf1"}),
            slurm_hosts.topology_switches(HOSTS, NAMES, {"s": "leaf1"}),
            ("slurm_topology_leaf",),
        ),
    ],
    ids=["nodes", "node_names", "hosts_of_nodes", "node_groups", "emulating_hosts", "hosts_without_facts", "gres_lines", "gres_discover_hosts", "switches"],
)
def test_hostvars_filters_read_only_their_variables(call, expected, variables):
    hostvars = HostVars(HOSTS)
    assert call(hostvars) == expected
    assert hostvars.read
    assert {key for _host, key in hostvars.read} <= set(variables)


def test_gres_lines_read_the_discovered_hosts_too():
    hostvars = HostVars(HOSTS)
    assert slurm_gres_lines(["node01"], hostvars, DISCOVERED) == ["NodeName=d1 Name=gpu Type=b300 File=/dev/nvidia0"]
    assert ("d1", "slurm_gres_discover_types") in hostvars.read


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: slurm_nodes(["ghost"], HostVars(HOSTS)), "^slurm_nodes: host ghost is not in the inventory$"),
        (lambda: slurm_nodes(["nofacts"], HostVars(HOSTS)), "host nofacts: hardware facts are missing"),
        (lambda: slurm_nodes(["node01"], HostVars({"node01": {"ansible_facts": FACTS, "slurm_node_gpus": {"type": "H 200"}}})), "slurm_node_gpus.type='H 200'"),
        (lambda: slurm_node_names(["emu"], HostVars({"emu": {"slurm_emulated_nodes": {"port": 1}}})), "needs names"),
        (lambda: slurm_hosts_of_nodes(["emu"], HostVars({"emu": {"slurm_emulated_nodes": {"port": 1}}}), []), "needs names"),
        (lambda: slurm_node_groups({"g": ["emu"]}, HostVars({"emu": {"slurm_emulated_nodes": {"port": 1}}})), "needs names"),
        (lambda: slurm_gres_lines(["d1"], HostVars({"d1": {}}), {"d1": ["gpu"]}), "accelerator facts must be"),
        (lambda: slurm_gres_discover_hosts(["h"], HostVars({"h": {"slurm_gres_discover": True, "slurm_node_gpus": {"count": 1}}})), "both describe"),
        (lambda: slurm_topology_switches(["ghost"], HostVars({})), "^slurm_topology_switches: host ghost is not in the inventory$"),
        (lambda: slurm_conf_lines({}, {}, [], {}), "slurm_partitions is empty"),
        (lambda: slurm_merge_config({}, {"NodeName": "x"}), "NodeName is structure"),
    ],
    ids=[
        "nodes-unknown-host",
        "nodes-no-facts",
        "nodes-bad-gpus",
        "node-names",
        "hosts-of-nodes",
        "node-groups",
        "gres-lines",
        "gres-discover",
        "switches",
        "conf-lines",
        "merge-config",
    ],
)
def test_model_errors_are_filter_errors(call, message):
    with pytest.raises(AnsibleFilterError, match=message) as caught:
        call()
    assert isinstance(caught.value.__cause__, (slurm_conf.SlurmConfError, gres.GresError, TopologyError))


def test_wrapped_filters_keep_their_names_and_docs():
    for name, func in FilterModule().filters().items():
        assert func.__name__ == name
        assert func.__doc__


# --- the other filters pass their arguments through ----------------------------


def test_slurm_conf_lines_passes_every_argument():
    nodes = {"g1": {"CPUs": 4, "RealMemory": 1000, "Gres": "gpu:h200:1"}}
    args = ({"ClusterName": "ai"}, nodes, [{"name": "p", "groups": ["h"], "default": True}], {"h": ["g1"]}, ["h200"], {"MaxTime": "1:00:00"})
    assert slurm_conf_lines(*args) == slurm_conf.conf_lines(*args)
    assert slurm_conf_lines(*args)[-1] == "PartitionName=p Nodes=g1 Default=YES MaxTime=1:00:00 OverSubscribe=EXCLUSIVE State=UP"


def test_slurm_merge_and_parameter_lines():
    assert slurm_merge_config({"A": 1, "B": 2}, {"a": 3}, {"B": None}) == {"a": 3}
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


def test_slurm_changed_keys_takes_lines_or_text():
    old = "ClusterName=a\nSlurmctldPort=6817\nNodeName=n1 CPUs=2\n"
    assert slurm_changed_keys(old, ["ClusterName=a", "SlurmctldPort=9100", "NodeName=n1 CPUs=4"]) == ["SlurmctldPort"]
    assert slurm_changed_keys(old, "ClusterName=b\nSlurmctldPort=6817") == ["ClusterName"]
    assert slurm_changed_keys("", ["ClusterName=a"]) == ["ClusterName"]


def test_slurm_text_findings_reads_the_host_plugin_files():
    lines = ["ClusterName=a", "SchedulerType=sched/backfill"]
    assert slurm_text_findings(lines, "slurm.conf", ["/usr/lib/x/slurm-wlm/sched_backfill.so"]) == []
    assert slurm_text_findings("\n".join(lines), "slurm.conf") == []
    (finding,) = slurm_text_findings(lines, "slurm.conf", ["/usr/lib/x/slurm-wlm/sched_builtin.so"])
    assert "sched/backfill is not installed" in finding["message"]


def test_slurm_schema_findings():
    (finding,) = slurm_schema_findings({"SchedulerType": "sched/nosuch"}, "slurm.conf", "slurm_config")
    assert finding["message"].startswith("slurm_config.SchedulerType=sched/nosuch")


def test_slurm_slurmd_pending():
    before = "NodeName=a State=IDLE SlurmdStartTime=2026-12-04T20:00:00\nNodeName=b State=IDLE SlurmdStartTime=2026-12-04T20:00:00"
    after = "NodeName=a State=IDLE SlurmdStartTime=2026-12-04T20:05:00\nNodeName=b State=IDLE SlurmdStartTime=2026-12-04T20:00:00"
    assert slurm_slurmd_pending(before, after) == ["b"]


def test_slurm_discovered_from_registered_loop_and_this_runs_reads():
    npus = {"gpus": [], "npus": [{"device_id": "0xd802", "gres_type": "910b", "device_file": "/dev/davinci0", "cores": "0-23"}]}
    gpus = {"gpus": [{"gres_type": "h200"}], "npus": []}
    hostvars = HostVars(
        {
            "d2": {},
            "g1": {"accelerator_info_root": "/replay/h200", "preflight_hardware": {"/": {"gpus": []}, "/replay/h200": gpus}},
            "g2": {"preflight_hardware": {"/replay/h200": gpus}},
        }
    )
    # g1 was read from its own tree this run; g2 only from another tree; d2 never.
    assert slurm_hardware_unread(["d2", "g1", "g2"], hostvars) == ["d2", "g2"]
    results = [{"item": "d2", "accelerators": npus}, {"item": "x", "skipped": True}]
    assert slurm_discovered(["d2", "g1"], hostvars, results) == {"d2": npus, "g1": gpus}
    assert slurm_discovered(["d2"], hostvars, None) == {}
    assert slurm_gres_types("gpu", slurm_discovered(["d2"], hostvars, results)) == "gpu,npu"
    assert hostvars.read <= {(name, key) for name in ("d2", "g1", "g2") for key in ("accelerator_info_root", "preflight_hardware")}


def test_slurm_groups_without():
    assert slurm_groups_without({"all": ["a", "b"], "x": ["b"]}, ["b"]) == {"all": ["a"], "x": []}
    assert slurm_groups_without({"all": ["a"]}, None) == {"all": ["a"]}


def test_slurm_gpu_files_and_qos_names():
    assert slurm_gpu_files({"type": "h200", "count": 2}) == ["/dev/nvidia0", "/dev/nvidia1"]
    assert slurm_gpu_files({"type": "h200", "count": 0}) == []
    assert slurm_qos_names([{"name": "high", "priority": 1}, {"name": "old", "state": "absent"}]) == [{"name": "high"}]


def test_preflight_finding_filters():
    finding = {"id": "NV-CUDA", "severity": "error", "message": "nvidia_driver=570.172.08 cannot run CUDA 13.0"}
    line = preflight_line(preflight_prefixed(finding, "accelerator_versions"))
    assert line == "[NV-CUDA] accelerator_versions: nvidia_driver=570.172.08 cannot run CUDA 13.0"
    assert finding["message"].startswith("nvidia_driver")  # the input is not modified
    assert preflight_findings(["x=1: too big; lower it"], "nvidia_driver", "x") == [
        {"id": "nvidia_driver", "severity": "error", "variable": "x", "value": None, "message": "x=1: too big; lower it", "fix": None}
    ]


# --- preflight: arguments reach the checks ------------------------------------


def test_slurm_preflight_inventory_passes_every_argument(monkeypatch):
    calls = []
    monkeypatch.setattr(preflight, "inventory_findings", lambda *args: calls.append(args) or ["found"])
    groups = {"slurmctld": ["c1"], "slurm_compute": ["node01", "gpu1.cluster.example"]}
    topology = {"source": "inventory", "spines": {"s": "leaf1"}}
    hostvars = HostVars(HOSTS)
    result = slurm_preflight_inventory(groups, {"A": 1}, ["p"], "key", False, ["x"], "pass", ["T", "M"], {"qos": []}, "24.11.5", topology, hostvars, {"s": 1})
    assert result == ["found"]
    switches = [{"name": "leaf1", "nodes": ["gpu1", "node01"]}, {"name": "s", "switches": ["leaf1"]}]
    assert calls == [
        (groups, {"A": 1}, ["p"], "key", False, ["x"], "pass", ("T", "M"), {"qos": []}, "24.11.5", dict(topology, switches=switches), {"s": 1}, None)
    ]
    assert {key for _host, key in hostvars.read} == {"slurm_topology_leaf"}


def test_slurm_preflight_inventory_defaults():
    assert slurm_preflight_inventory({"slurmctld": ["c1"], "slurm_compute": ["n1"]}, {}, []) == []
    findings = slurm_preflight_inventory(
        {"slurmctld": ["c1"], "slurm_compute": ["n1"]}, {}, [], topology={"source": "inventory", "spines": {"s": "l[2-1]"}}, hostvars=HostVars({"n1": {}})
    )
    assert [f["id"] for f in findings] == ["hostlist"]


def test_slurm_preflight_inventory_unknown_compute_host_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="host ghost is not in the inventory"):
        slurm_preflight_inventory({"slurm_compute": ["ghost"]}, {}, [], topology={"source": "inventory"}, hostvars=HostVars({}))


def test_slurm_preflight_host_counts_only_character_devices(monkeypatch):
    calls = []
    monkeypatch.setattr(preflight, "host_findings", lambda *args: calls.append(args) or [])
    stats = [
        {"item": "/dev/nvidia0", "stat": {"exists": True, "ischr": True}},
        {"item": "/dev/nvidia1", "stat": {"exists": True, "ischr": False}},
        {"item": "/dev/nvidia2", "stat": {"exists": False}},
        {"item": "/dev/nvidia3", "skipped": True},
    ]
    assert slurm_preflight_host("g1", {"f": 1}, 10, False, ["s"], {"count": 3}, stats, {"CPUs": 1}, ["feat"], True, {"gpus": []}) == []
    assert calls == [("g1", {"f": 1}, 10, False, ["s"], {"count": 3}, ["/dev/nvidia0"], {"CPUs": 1}, ["feat"], True, {"gpus": []}, False)]


def test_slurm_preflight_host():
    facts = {"distribution": "Debian", "distribution_major_version": "13", "distribution_release": "trixie", "hostname": "g1", "memtotal_mb": 64000}
    stats = [{"item": "/dev/nvidia0", "stat": {"exists": True, "ischr": True}}, {"item": "/dev/nvidia1", "stat": {"exists": True, "ischr": False}}]
    (finding,) = slurm_preflight_host("g1", facts, gpus={"type": "h200", "count": 2}, gpu_stats=stats)
    assert finding["id"] == "gpus"
    assert "(/dev/nvidia[0-1]) but /dev/nvidia1 is not a character device there" in finding["message"]


def test_slurm_series():
    assert slurm_series({"distribution": "Debian", "distribution_release": "forky"}) == "26.05"
    assert slurm_series({"distribution": "Debian", "distribution_release": "trixie"}) == "24.11"
    # preflight refuses an untested platform; until then the default series.
    assert slurm_series({"distribution": "Debian", "distribution_release": "bookworm"}) == "24.11"


def test_slurm_pam_adopt_is_on_with_login_nodes_unless_set():
    assert slurm_pam_adopt("auto", {"slurm_login": ["login1"]}) is True
    assert slurm_pam_adopt("auto", {"slurm_login": []}) is False
    assert slurm_pam_adopt(False, {"slurm_login": ["login1"]}) is False


def test_slurm_pam_changes_takes_the_read_stacks_first():
    assert slurm_pam_changes("session\toptional\tpam_systemd.so\n", True) == [["enable", "slurm-adopt"], ["disable", "systemd"]]
