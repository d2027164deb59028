# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory's hosts as Slurm nodes: NodeName attributes, node names, gres.conf lines, topology switches.

Every function takes ``hosts``: ``{inventory host: {variable: value}}``, the
host variables it reads (the filters in plugins/filter/slurm.py build it
from ``hostvars``; ``*_VARIABLES`` name what each reads). A host missing
from ``hosts`` is not in the inventory. Bad input raises
slurm_conf.SlurmConfError, gres.GresError or topology.TopologyError, with a
message that names the host, the variable and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import gres, preflight, slurm_conf
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import TopologyError

# The host variables each function reads.
NAME_VARIABLES = ("slurm_emulated_nodes",)
FACT_VARIABLES = ("ansible_facts",)
NODE_VARIABLES = (
    "ansible_facts",
    "slurm_node_config",
    "slurm_node_features",
    "slurm_node_gpus",
    "slurm_emulated_nodes",
    "slurm_gres_discover_types",
    "slurm_gres_nvml",
)
GRES_VARIABLES = ("slurm_node_gpus", "slurm_emulated_nodes", "slurm_gres_discover", "slurm_gres_discover_types", "slurm_gres_nvml")
TOPOLOGY_VARIABLES = ("slurm_topology_leaf",)
HARDWARE_VARIABLES = ("accelerator_info_root", "preflight_hardware")


def _vars(hosts, name):
    return hosts.get(name) or {}


def node_names(hosts, name):
    """The Slurm node names of one host: its short name, or the nodes it emulates (``slurm_emulated_nodes``)."""
    spec = _vars(hosts, name).get("slurm_emulated_nodes")
    return slurm_conf.emulated_names(name, spec) if spec else [slurm_conf.short_name(name)]


def all_node_names(hosts, names):
    """The Slurm node names of the hosts ``names``, in order."""
    return [node for name in names for node in node_names(hosts, name)]


def hosts_of_nodes(hosts, names, nodes):
    """The hosts among ``names`` that run any of the Slurm ``nodes``."""
    wanted = set(nodes)
    return [name for name in names if set(node_names(hosts, name)) & wanted]


def node_groups(hosts, groups):
    """The inventory groups with each emulating host replaced by the nodes it emulates."""
    return {group: all_node_names(hosts, members) for group, members in groups.items()}


def emulating_hosts(hosts, names):
    """The hosts among ``names`` that emulate Slurm nodes (``slurm_emulated_nodes`` set)."""
    return [name for name in names if _vars(hosts, name).get("slurm_emulated_nodes")]


def hosts_without_facts(hosts, names):
    """The hosts among ``names`` whose hardware facts (what a NodeName line needs) are unknown."""
    return [name for name in names if not slurm_conf.has_node_facts(_vars(hosts, name).get("ansible_facts"))]


def groups_without(groups, leaving):
    """The inventory groups with the hosts ``leaving`` taken out of each (nodes being removed)."""
    leaving = set(leaving or ())
    return {name: [member for member in members if member not in leaving] for name, members in groups.items()}


def nodes(hosts, names, memory_reserve_mb=0, discovered=None):
    """NodeName attributes of each host in ``names``, from that host's own facts, by node name.

    ``discovered``: {host: accelerator_info result} of the hosts that discover
    their GRES (``slurm_gres_discover``); their ``Gres=`` comes from it.
    """
    result = {}
    discovered = discovered or {}
    for name in names:
        if name not in hosts:
            raise slurm_conf.SlurmConfError("slurm_nodes: host %s is not in the inventory" % name)
        host = hosts[name]
        node = slurm_conf.node_from_facts(
            name,
            host.get("ansible_facts"),
            memory_reserve_mb,
            host.get("slurm_node_config"),
            host.get("slurm_node_features"),
            host.get("slurm_node_gpus"),
        )
        if name in discovered:
            node.pop("Gres", None)
            try:
                found = gres.accelerator_node_gres(discovered[name], host.get("slurm_gres_discover_types"), bool(host.get("slurm_gres_nvml")))
            except gres.GresError as error:
                raise gres.GresError("host %s: %s" % (name, error)) from None
            if found:
                node["Gres"] = found
            # A node whose accelerators split a socket is refused.
            for finding in preflight.check_gres_sockets(name, node, discovered[name]):
                raise slurm_conf.SlurmConfError(finding["message"])
        own = slurm_conf.emulated_nodes(name, node, host["slurm_emulated_nodes"]) if host.get("slurm_emulated_nodes") else {slurm_conf.short_name(name): node}
        twice = sorted(set(own) & set(result))
        if twice:
            raise slurm_conf.SlurmConfError(
                "host %s: Slurm node %s is already another host's node (slurm_emulated_nodes or the host's own name); "
                "give every node one name" % (name, twice[0])
            )
        result.update(own)
    return result


def gres_lines(hosts, names, discovered=None):
    """gres.conf lines from each host's ``slurm_node_gpus``, or from its
    accelerators where it discovers them (``discovered``: {host: accelerator_info
    result}, with per-device Cores=); empty when no host has GPUs or NPUs."""
    discovered = discovered or {}
    declared = {}
    nvml = []
    for name in names:
        if name in discovered:
            continue
        gpus = gres.normalize_gpus(name, hosts[name].get("slurm_node_gpus"))
        for node in node_names(hosts, name):
            declared[node] = gpus
            if hosts[name].get("slurm_gres_nvml"):
                nvml.append(node)
    lines = gres.gres_lines(declared, nvml)
    by_types = {}
    for name, info in discovered.items():
        types = hosts[name].get("slurm_gres_discover_types") or {}
        nvml = bool(hosts[name].get("slurm_gres_nvml"))
        by_types.setdefault((tuple(sorted(types.items())), nvml), {})[slurm_conf.short_name(name)] = info
    for (types, nvml), infos in by_types.items():
        lines.extend(gres.accelerator_gres_lines(infos, dict(types), nvml))
    return lines


def gres_discover_hosts(hosts, names):
    """The hosts among ``names`` whose GRES come from their accelerators
    (``slurm_gres_discover: true``) rather than from ``slurm_node_gpus``."""
    chosen = []
    for name in names:
        host = _vars(hosts, name)
        if not host.get("slurm_gres_discover"):
            continue
        if host.get("slurm_node_gpus"):
            raise gres.GresError(
                "host %s: slurm_gres_discover=true and slurm_node_gpus=%r both describe its GPUs; "
                "remove slurm_node_gpus to use what the host has, or set slurm_gres_discover: false" % (name, host.get("slurm_node_gpus"))
            )
        if host.get("slurm_emulated_nodes"):
            raise gres.GresError(
                "host %s: slurm_gres_discover=true on a host that emulates nodes (slurm_emulated_nodes); "
                "its emulated nodes have no devices of their own: declare slurm_node_gpus instead" % name
            )
        chosen.append(name)
    return chosen


def hardware_tree(hosts, name):
    """The tree accelerator_info reads for a host: ``accelerator_info_root`` (a recorded tree) or the host's own /."""
    return _vars(hosts, name).get("accelerator_info_root") or "/"


def hardware_unread(hosts, names):
    """The hosts among ``names`` whose accelerators this run has not read yet from their tree.

    ``preflight_hardware`` (roles/preflight/tasks/hardware.yml) is ``{tree: accelerators}``, set once a run.
    """
    return [name for name in names if hardware_tree(hosts, name) not in (_vars(hosts, name).get("preflight_hardware") or {})]


def discovered(hosts, names, results=()):
    """``{host: accelerators}`` for the hosts ``names``: read earlier in this run, or in ``results``
    (a registered loop of accelerator_info delegated to each host in ``hardware_unread``)."""
    found = {item["item"]: item["accelerators"] for item in results or () if "accelerators" in item}
    for name in names:
        known = _vars(hosts, name).get("preflight_hardware") or {}
        if name not in found and hardware_tree(hosts, name) in known:
            found[name] = known[hardware_tree(hosts, name)]
    return found


def topology_switches(hosts, names, spines=None):
    """Switches for aicluster.slurm.slurm_topology from inventory: each host's
    ``slurm_topology_leaf`` variable names its leaf; ``spines`` maps an upper
    switch to its child switches. Hosts without a leaf are left out (the module
    then reports them as under no switch)."""
    leaves = {}
    for name in names:
        if name not in hosts:
            raise TopologyError("slurm_topology_switches: host %s is not in the inventory" % name)
        leaf = hosts[name].get("slurm_topology_leaf")
        if leaf:
            leaves.setdefault(str(leaf), []).append(slurm_conf.short_name(name))
    switches = [{"name": leaf, "nodes": sorted(members)} for leaf, members in sorted(leaves.items())]
    for spine, children in sorted((spines or {}).items()):
        if isinstance(children, str):
            children = [children]
        switches.append({"name": spine, "switches": list(children)})
    return switches


def preflight_topology(topology, groups, hosts=None):
    """The ``topology`` input of preflight.inventory_findings: ``{source, spines, blocks, block_sizes, strict}``
    (slurm_topology_*) and, for source ``inventory`` with ``hosts`` (the compute hosts' variables), the
    switches built from each compute host's ``slurm_topology_leaf`` exactly as the slurmctld role builds them."""
    inputs = dict(topology or {})
    if inputs.get("source") == "inventory" and hosts is not None:
        # A malformed spine expression is the hostlist check's finding, not an exception here.
        malformed = preflight.check_hostlists(inputs.get("spines"))
        inputs["switches"] = [] if malformed else topology_switches(hosts, groups.get("slurm_compute") or [], inputs.get("spines"))
    return inputs
