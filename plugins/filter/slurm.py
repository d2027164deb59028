# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters over the slurm.conf model (plugins/module_utils/slurm_conf.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter import accelerators as accel
from ansible_collections.aicluster.slurm.plugins.module_utils import findings, gres, hostlist, preflight, slurm_conf, slurm_schema


def _model(func):
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (slurm_conf.SlurmConfError, gres.GresError) as exc:
            raise AnsibleFilterError(str(exc)) from exc

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


def hostlist_compress(names):
    """Compress host names into a Slurm hostlist expression."""
    return hostlist.compress(list(names))


def hostlist_expand(expression):
    """Expand a Slurm hostlist expression into host names."""
    return hostlist.expand(expression)


@_model
def slurm_nodes(names, hostvars, memory_reserve_mb=0, discovered=None):
    """NodeName attributes of each host in ``names``, from that host's own facts.

    ``discovered``: {host: accelerator_info result} of the hosts that discover
    their GRES (``slurm_gres_discover``); their ``Gres=`` comes from it.
    """
    nodes = {}
    discovered = discovered or {}
    for name in names:
        if name not in hostvars:
            raise AnsibleFilterError("slurm_nodes: host %s is not in the inventory" % name)
        host = hostvars[name]
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
            found = accel.accelerator_node_gres(discovered[name], host.get("slurm_gres_discover_types"))
            if found:
                node["Gres"] = found
            _check_gres_sockets(name, node, discovered[name])
        own = slurm_conf.emulated_nodes(name, node, host["slurm_emulated_nodes"]) if host.get("slurm_emulated_nodes") else {slurm_conf.short_name(name): node}
        twice = sorted(set(own) & set(nodes))
        if twice:
            raise AnsibleFilterError(
                "host %s: Slurm node %s is already another host's node (slurm_emulated_nodes or the host's own name); "
                "give every node one name" % (name, twice[0])
            )
        nodes.update(own)
    return nodes


def _check_gres_sockets(name, node, info):
    """Refuse a node whose accelerators split a socket (preflight.check_gres_sockets)."""
    for finding in preflight.check_gres_sockets(name, node, info):
        raise AnsibleFilterError(finding["message"])


def _node_names(name, hostvars):
    spec = hostvars[name].get("slurm_emulated_nodes") if name in hostvars else None
    return slurm_conf.emulated_names(name, spec) if spec else [slurm_conf.short_name(name)]


@_model
def slurm_node_names(hosts, hostvars):
    """The Slurm node names of inventory hosts: the short host name, or the
    nodes a host emulates (``slurm_emulated_nodes``)."""
    names = []
    for name in hosts:
        names.extend(_node_names(name, hostvars))
    return names


@_model
def slurm_hosts_of_nodes(hosts, hostvars, nodes):
    """The inventory hosts among ``hosts`` that run any of the Slurm ``nodes``."""
    return [name for name in hosts if set(_node_names(name, hostvars)) & set(nodes)]


@_model
def slurm_node_groups(groups, hostvars):
    """The inventory groups with each emulating host replaced by the nodes it emulates."""
    return {group: slurm_node_names(members, hostvars) for group, members in groups.items()}


def slurm_emulating_hosts(hosts, hostvars):
    """The hosts among ``hosts`` that emulate Slurm nodes (``slurm_emulated_nodes`` set)."""
    return [name for name in hosts if name in hostvars and hostvars[name].get("slurm_emulated_nodes")]


def slurm_hosts_without_facts(names, hostvars):
    """The hosts among ``names`` whose hardware facts (what a NodeName line needs) are unknown."""
    missing = []
    for name in names:
        # HostVars answers an unknown host with an undefined value, not a KeyError.
        facts = hostvars[name].get("ansible_facts") if name in hostvars else None
        if not slurm_conf.has_node_facts(facts):
            missing.append(name)
    return missing


def slurm_groups_without(groups, hosts):
    """The inventory groups with ``hosts`` taken out of each (nodes being removed)."""
    leaving = set(hosts or ())
    return {name: [member for member in members if member not in leaving] for name, members in groups.items()}


@_model
def slurm_conf_lines(config, nodes, partitions, groups, exclusive_gpu_types=(), partition_defaults=None):
    """Every line of slurm.conf: parameters, then nodes, then partitions."""
    return (
        slurm_conf.parameter_lines(config)
        + ["", "# Nodes: one line per hardware shape, from each host's facts"]
        + slurm_conf.node_lines(nodes)
        + ["", "# Partitions"]
        + slurm_conf.partition_lines(partitions, groups, gres.exclusive_nodes(nodes, exclusive_gpu_types), partition_defaults)
    )


@_model
def slurm_gres_lines(names, hostvars, discovered=None):
    """gres.conf lines from each host's ``slurm_node_gpus``, or from its
    accelerators where it discovers them (``discovered``: {host: accelerator_info
    result}, with per-device Cores=); empty when no host has GPUs or NPUs."""
    discovered = discovered or {}
    declared = {}
    for name in names:
        if name in discovered:
            continue
        gpus = gres.normalize_gpus(name, hostvars[name].get("slurm_node_gpus"))
        for node in _node_names(name, hostvars):
            declared[node] = gpus
    lines = gres.gres_lines(declared)
    by_types = {}
    for name, info in discovered.items():
        types = hostvars[name].get("slurm_gres_discover_types") or {}
        by_types.setdefault(tuple(sorted(types.items())), {})[slurm_conf.short_name(name)] = info
    for types, infos in by_types.items():
        lines.extend(accel.accelerator_gres_lines(infos, dict(types)))
    return lines


def slurm_gres_discover_hosts(names, hostvars):
    """The hosts among ``names`` whose GRES come from their accelerators
    (``slurm_gres_discover: true``) rather than from ``slurm_node_gpus``."""
    chosen = []
    for name in names:
        host = hostvars.get(name, {})
        if not host.get("slurm_gres_discover"):
            continue
        if host.get("slurm_node_gpus"):
            raise AnsibleFilterError(
                "host %s: slurm_gres_discover=true and slurm_node_gpus=%r both describe its GPUs; "
                "remove slurm_node_gpus to use what the host has, or set slurm_gres_discover: false" % (name, host.get("slurm_node_gpus"))
            )
        if host.get("slurm_emulated_nodes"):
            raise AnsibleFilterError(
                "host %s: slurm_gres_discover=true on a host that emulates nodes (slurm_emulated_nodes); "
                "its emulated nodes have no devices of their own: declare slurm_node_gpus instead" % name
            )
        chosen.append(name)
    return chosen


def slurm_discovered(results):
    """{host: accelerators} from a registered loop of accelerator_info delegated to each host."""
    return {item["item"]: item["accelerators"] for item in (results or []) if "accelerators" in item}


def slurm_gres_types(config_types, discovered):
    """GresTypes: the configured ones plus any GRES name a discovered node has (npu); None when there are none."""
    names = [name for name in str(config_types or "").split(",") if name]
    for name in accel.accelerator_gres_types(discovered):
        if name not in names:
            names.append(name)
    return ",".join(names) or None


def slurm_gpu_files(gpus):
    """The device files a ``slurm_node_gpus`` declaration promises (/dev/nvidia0, ...).

    A malformed declaration gives none: the preflight ``gpus`` check reports it.
    """
    try:
        normalized = gres.normalize_gpus("host", gpus)
    except gres.GresError:
        return []
    return normalized["files"] if normalized else []


def slurm_qos_names(qos):
    """The QOS to be present, by name only: ``[{"name": ...}]``."""
    return [{"name": item["name"]} for item in qos or () if (item.get("state") or "present") == "present"]


@_model
def slurm_merge_config(base, *layers):
    """Merge slurm.conf parameter dicts; a null value removes the key."""
    return slurm_conf.merge_config(base, *layers)


@_model
def slurm_parameter_lines(config):
    """``Key=value`` lines of a parameter dict (slurm.conf, cgroup.conf, ...)."""
    return slurm_conf.parameter_lines(config)


def slurm_restart_keys(old_text, new_lines):
    """Parameters that changed and that only a daemon restart applies."""
    new_text = "\n".join(new_lines) if isinstance(new_lines, (list, tuple)) else new_lines
    return slurm_conf.restart_keys(old_text, new_text)


def slurm_preflight_inventory(
    groups,
    config,
    partitions,
    munge_key="",
    cgroups_enforced=True,
    skip=(),
    dbd_storage_pass=None,
    preempt=("", ""),
    accounting=None,
    slurm_version="",
    topology=None,
    hostvars=None,
    settings=None,
):
    """Inventory-only preflight findings.

    ``topology``: ``{source, spines, blocks, block_sizes, strict}`` (slurm_topology_*);
    with ``hostvars`` the switches are built from each compute host's
    ``slurm_topology_leaf`` exactly as the slurmctld role builds them.
    """
    inputs = dict(topology or {})
    if inputs.get("source") == "inventory" and hostvars is not None:
        inputs["switches"] = _preflight_switches(groups.get("slurm_compute") or [], hostvars, inputs.get("spines"))
    return preflight.inventory_findings(
        groups, config, partitions, munge_key, cgroups_enforced, skip, dbd_storage_pass, tuple(preempt), accounting, slurm_version, inputs, settings
    )


def _preflight_switches(names, hostvars, spines):
    # A malformed spine expression is the hostlist check's finding, not an exception here.
    if preflight.check_hostlists(spines):
        return []
    return slurm_topology_switches(names, hostvars, spines)


def slurm_preflight_host(
    name, facts, memory_reserve_mb=0, is_compute=True, skip=(), gpus=None, gpu_stats=(), node_config=None, features=None, discover=False, accelerators=None
):
    """Per-host preflight findings from gathered facts, the ``stat`` results of the GPU device
    files and, for a node that discovers its GRES, its accelerator_info result."""
    present = [r["item"] for r in gpu_stats or () if (r.get("stat") or {}).get("ischr")]
    return preflight.host_findings(name, facts, memory_reserve_mb, is_compute, skip, gpus, present, node_config, features, discover, accelerators)


def slurm_topology_switches(names, hostvars, spines=None):
    """Switches for aicluster.slurm.slurm_topology from inventory: each host's
    ``slurm_topology_leaf`` variable names its leaf; ``spines`` maps an upper
    switch to its child switches. Hosts without a leaf are left out (the module
    then reports them as under no switch)."""
    leaves = {}
    for name in names:
        if name not in hostvars:
            raise AnsibleFilterError("slurm_topology_switches: host %s is not in the inventory" % name)
        leaf = hostvars[name].get("slurm_topology_leaf")
        if leaf:
            leaves.setdefault(str(leaf), []).append(slurm_conf.short_name(name))
    switches = [{"name": leaf, "nodes": sorted(nodes)} for leaf, nodes in sorted(leaves.items())]
    for spine, children in sorted((spines or {}).items()):
        if isinstance(children, str):
            children = [children]
        switches.append({"name": spine, "switches": list(children)})
    return switches


def preflight_line(finding):
    """One finding as ``[id] message``."""
    return "[%s] %s" % (finding["id"], finding["message"])


def preflight_findings(messages, check_id, variable):
    """Plain messages (each naming the value and the fix) as errors of the shared shape, for the preflight reporter."""
    return [findings.finding(check_id, message, variable) for message in messages]


def preflight_prefixed(finding, variable):
    """A finding whose message names options of ``variable`` (a dict), with that variable named first."""
    return dict(finding, message="%s: %s" % (variable, finding["message"]))


def slurm_changed_keys(old_text, new_lines):
    """slurm.conf parameters whose value differs between the file in place and the new lines."""
    return slurm_conf.changed_keys(old_text, "\n".join(new_lines) if isinstance(new_lines, (list, tuple)) else new_lines)


def slurm_slurmd_pending(before_text, after_text):
    """Nodes whose slurmd answered before a reconfigure and has not re-executed since (slurm_conf.slurmd_pending)."""
    return slurm_conf.slurmd_pending(before_text, after_text)


def slurm_schema_findings(params, part, variable, series=None):
    """Findings for a parameter dict against the schema of ``part`` (slurm_schema.check_parameters)."""
    return slurm_schema.check_parameters(part, params, variable, series)


def slurm_text_findings(lines, page, plugin_files=None, series=None):
    """Findings for a file's lines as they will be written; ``plugin_files``: paths of the
    host's Slurm plugin files (their stems are the installed plugins), None: the packaged list."""
    plugins = None if plugin_files is None else [path.rsplit("/", 1)[-1][: -len(".so")] for path in plugin_files if path.endswith(".so")]
    text = "\n".join(lines) if isinstance(lines, (list, tuple)) else lines
    return slurm_schema.check_text(page, text, series, plugins)


class FilterModule(object):
    def filters(self):
        return {
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
