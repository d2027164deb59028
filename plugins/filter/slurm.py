# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters over the slurm.conf model.

The logic is in plugins/module_utils (slurm_conf, slurm_hosts, gres, preflight,
findings, slurm_schema, sacctmgr); a filter only adapts its arguments: it turns
``hostvars`` into the plain ``{host: {variable: value}}`` the model reads, and
the model's input errors into filter errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import (
    findings,
    gres,
    hostlist,
    pam_adopt,
    preflight,
    sacctmgr,
    slurm_conf,
    slurm_hosts,
    slurm_schema,
)
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import TopologyError
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_model = filter_errors(slurm_conf.SlurmConfError, gres.GresError, TopologyError)


def _hosts(names, hostvars, variables):
    """``{host: {variable: value}}`` of the hosts among ``names`` that are in the inventory.

    HostVars answers an unknown host with an undefined value, not a KeyError: ask ``in`` first.
    """
    return {name: {key: hostvars[name].get(key) for key in variables} for name in names if name in hostvars}


def _text(lines):
    return "\n".join(lines) if isinstance(lines, (list, tuple)) else lines


def hostlist_compress(names):
    """Compress host names into a Slurm hostlist expression."""
    return hostlist.compress(list(names))


def hostlist_expand(expression):
    """Expand a Slurm hostlist expression into host names."""
    return hostlist.expand(expression)


@_model
def slurm_nodes(names, hostvars, memory_reserve_mb=0, discovered=None):
    """NodeName attributes of each host in ``names``, from that host's own facts (slurm_hosts.nodes)."""
    names = list(names)
    return slurm_hosts.nodes(_hosts(names, hostvars, slurm_hosts.NODE_VARIABLES), names, memory_reserve_mb, discovered)


@_model
def slurm_node_names(hosts, hostvars):
    """The Slurm node names of inventory hosts: the short host name, or the
    nodes a host emulates (``slurm_emulated_nodes``)."""
    hosts = list(hosts)
    return slurm_hosts.all_node_names(_hosts(hosts, hostvars, slurm_hosts.NAME_VARIABLES), hosts)


@_model
def slurm_hosts_of_nodes(hosts, hostvars, nodes):
    """The inventory hosts among ``hosts`` that run any of the Slurm ``nodes``."""
    hosts = list(hosts)
    return slurm_hosts.hosts_of_nodes(_hosts(hosts, hostvars, slurm_hosts.NAME_VARIABLES), hosts, nodes)


@_model
def slurm_node_groups(groups, hostvars):
    """The inventory groups with each emulating host replaced by the nodes it emulates."""
    members = {member for group in groups.values() for member in group}
    return slurm_hosts.node_groups(_hosts(members, hostvars, slurm_hosts.NAME_VARIABLES), groups)


def slurm_emulating_hosts(hosts, hostvars):
    """The hosts among ``hosts`` that emulate Slurm nodes (``slurm_emulated_nodes`` set)."""
    hosts = list(hosts)
    return slurm_hosts.emulating_hosts(_hosts(hosts, hostvars, slurm_hosts.NAME_VARIABLES), hosts)


def slurm_hosts_without_facts(names, hostvars):
    """The hosts among ``names`` whose hardware facts (what a NodeName line needs) are unknown."""
    names = list(names)
    return slurm_hosts.hosts_without_facts(_hosts(names, hostvars, slurm_hosts.FACT_VARIABLES), names)


def slurm_groups_without(groups, hosts):
    """The inventory groups with ``hosts`` taken out of each (nodes being removed)."""
    return slurm_hosts.groups_without(groups, hosts)


@_model
def slurm_conf_lines(config, nodes, partitions, groups, exclusive_gpu_types=(), partition_defaults=None):
    """Every line of slurm.conf: parameters, then nodes, then partitions."""
    return slurm_conf.conf_lines(config, nodes, partitions, groups, exclusive_gpu_types, partition_defaults)


@_model
def slurm_gres_lines(names, hostvars, discovered=None):
    """gres.conf lines from each host's ``slurm_node_gpus``, or from its
    accelerators where it discovers them (slurm_hosts.gres_lines)."""
    names = list(names)
    hosts = _hosts(names + list(discovered or ()), hostvars, slurm_hosts.GRES_VARIABLES)
    return slurm_hosts.gres_lines(hosts, names, discovered)


@_model
def slurm_gres_discover_hosts(names, hostvars):
    """The hosts among ``names`` whose GRES come from their accelerators
    (``slurm_gres_discover: true``) rather than from ``slurm_node_gpus``."""
    names = list(names)
    return slurm_hosts.gres_discover_hosts(_hosts(names, hostvars, slurm_hosts.GRES_VARIABLES), names)


def slurm_hardware_unread(names, hostvars):
    """The hosts among ``names`` whose accelerators this run has not read yet (preflight_hardware)."""
    names = list(names)
    return slurm_hosts.hardware_unread(_hosts(names, hostvars, slurm_hosts.HARDWARE_VARIABLES), names)


def slurm_discovered(names, hostvars, results=()):
    """{host: accelerators} of the hosts ``names``: read earlier in this run, or in a registered loop of accelerator_info."""
    names = list(names)
    return slurm_hosts.discovered(_hosts(names, hostvars, slurm_hosts.HARDWARE_VARIABLES), names, results)


def slurm_gres_types(config_types, discovered):
    """GresTypes: the configured ones plus any GRES name a discovered node has (npu); None when there are none."""
    return gres.gres_types(config_types, discovered)


def slurm_gpu_files(gpus):
    """The device files a ``slurm_node_gpus`` declaration promises (/dev/nvidia0, ...); none when malformed."""
    return gres.gpu_files(gpus)


def slurm_qos_names(qos):
    """The QOS to be present, by name only: ``[{"name": ...}]``."""
    return sacctmgr.present_qos(qos)


@_model
def slurm_merge_config(base, *layers):
    """Merge slurm.conf parameter dicts; a null value removes the key."""
    return slurm_conf.merge_config(base, *layers)


@_model
def slurm_parameter_lines(config):
    """``Key=value`` lines of a parameter dict (slurm.conf, cgroup.conf, ...)."""
    return slurm_conf.parameter_lines(config)


def slurm_restart_keys(old_text, new_lines, series=None):
    """Parameters that changed and that only a daemon restart applies (in Slurm ``series``)."""
    return slurm_conf.restart_keys(old_text, _text(new_lines), series)


@_model
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
    series=None,
):
    """Inventory-only preflight findings; ``series``: the Slurm series of the controllers' platform (slurm_series).

    ``topology``: ``{source, spines, blocks, block_sizes, strict}`` (slurm_topology_*);
    with ``hostvars`` the switches are built from each compute host's
    ``slurm_topology_leaf`` exactly as the slurmctld role builds them.
    """
    hosts = None if hostvars is None else _hosts(groups.get("slurm_compute") or [], hostvars, slurm_hosts.TOPOLOGY_VARIABLES)
    inputs = slurm_hosts.preflight_topology(topology, groups, hosts)
    return preflight.inventory_findings(
        groups, config, partitions, munge_key, cgroups_enforced, skip, dbd_storage_pass, tuple(preempt), accounting, slurm_version, inputs, settings, series
    )


def slurm_preflight_host(
    name,
    facts,
    memory_reserve_mb=0,
    is_compute=True,
    skip=(),
    gpus=None,
    gpu_stats=(),
    node_config=None,
    features=None,
    discover=False,
    accelerators=None,
    nvml=False,
):
    """Per-host preflight findings from gathered facts, the ``stat`` results of the GPU device
    files and, for a node that discovers its GRES, its accelerator_info result."""
    present = [r["item"] for r in gpu_stats or () if (r.get("stat") or {}).get("ischr")]
    return preflight.host_findings(name, facts, memory_reserve_mb, is_compute, skip, gpus, present, node_config, features, discover, accelerators, nvml)


@_model
def slurm_topology_switches(names, hostvars, spines=None):
    """Switches for aicluster.slurm.slurm_topology from each host's ``slurm_topology_leaf`` (slurm_hosts.topology_switches)."""
    names = list(names)
    return slurm_hosts.topology_switches(_hosts(names, hostvars, slurm_hosts.TOPOLOGY_VARIABLES), names, spines)


def preflight_line(finding):
    """One finding as ``[id] message``."""
    return findings.line(finding)


def preflight_findings(messages, check_id, variable):
    """Plain messages (each naming the value and the fix) as errors of the shared shape, for the preflight reporter."""
    return findings.from_messages(messages, check_id, variable)


def preflight_prefixed(finding, variable):
    """A finding whose message names options of ``variable`` (a dict), with that variable named first."""
    return findings.prefixed(finding, variable)


def slurm_changed_keys(old_text, new_lines):
    """slurm.conf parameters whose value differs between the file in place and the new lines."""
    return slurm_conf.changed_keys(old_text, _text(new_lines))


def slurm_slurmd_pending(before_text, after_text):
    """Nodes whose slurmd answered before a reconfigure and has not re-executed since (slurm_conf.slurmd_pending)."""
    return slurm_conf.slurmd_pending(before_text, after_text)


def slurm_series(facts, package_version="", repository=None):
    """The Slurm series the collection configures on a host of these gathered facts (preflight.configured_series):
    its release's (preflight.PLATFORMS), or with slurm_apt_repository that of slurm_package_version."""
    return preflight.configured_series(facts, package_version, repository)


def slurm_openmetrics(setting, series, config, monitoring_hosts):
    """Whether slurm.conf gets MetricsType=metrics/openmetrics (slurm_schema.openmetrics_enabled);
    ``monitoring_hosts``: the inventory's monitoring group (its Prometheus scrapes the endpoints)."""
    return slurm_schema.openmetrics_enabled(setting, series, config, monitoring_hosts)


def slurm_state_save_findings(location, first, directory, other, seen, error=""):
    """Whether the controllers share StateSaveLocation (preflight.check_state_save_marker)."""
    return preflight.check_state_save_marker(location, first, directory, other, seen, error)


def slurm_schema_findings(params, part, variable, series=None):
    """Findings for a parameter dict against the schema of ``part`` (slurm_schema.check_parameters)."""
    return slurm_schema.check_parameters(part, params, variable, series)


def slurm_text_findings(lines, page, plugin_files=None, series=None):
    """Findings for a file's lines as they will be written; ``plugin_files``: paths of the
    host's Slurm plugin files (their stems are the installed plugins), None: the packaged list."""
    plugins = None if plugin_files is None else slurm_schema.plugins_of_files(plugin_files)
    return slurm_schema.check_text(page, _text(lines), series, plugins)


def slurm_pam_adopt(setting, groups):
    """slurm_pam_adopt on or off for this inventory (auto: on with login nodes)."""
    return pam_adopt.adopt_on(setting, groups)


def slurm_pam_changes(stacks, adopt, profiles=()):
    """The pam-auth-update actions ([action, profile]) that bring a host's PAM stacks to ``adopt``."""
    return pam_adopt.profile_changes(adopt, stacks, profiles)


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
