# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The slurm.conf model: parameters, NodeName and PartitionName lines.

Everything structural is computed here and unit-tested; the template only
prints the lines this module returns.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils import gres
from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress, expand

# Parameters that `scontrol reconfigure` cannot change, so a change needs a
# daemon restart. Sources (Slurm 24.11):
#  * scontrol(1), "reconfigure": it "will not be able to change the daemons'
#    listening TCP port settings or authentication mechanism";
#  * slurm.conf(5), DESCRIPTION: "Changes to TCP listening settings will
#    require a daemon restart."
# Everything else, node and partition lines included, is applied with
# `scontrol reconfigure` (since 23.11 it re-executes the daemons in place and
# keeps running jobs).
RESTART_REQUIRED = (
    "AuthAltParameters",
    "AuthAltTypes",
    "AuthInfo",
    "AuthType",
    "CommunicationParameters",
    "SlurmctldAddr",
    "SlurmctldHost",
    "SlurmctldPort",
    "SlurmdPort",
)
# Per Slurm series. 26.05 adds TLS on the RPC sockets: with a TLS plugin
# "RPC listening sockets reject connections that are not TLS wrapped"
# (slurm.conf(5), TLSType, 26.05.5), a listening setting that reconfigure
# cannot change (scontrol(1) says the same of 26.05's reconfigure).
RESTART_REQUIRED_BY_SERIES = {
    "24.11": RESTART_REQUIRED,
    "26.05": RESTART_REQUIRED + ("TLSParameters", "TLSType"),
}

# Keys written once per value, one line each, in the order given (lower-cased).
MULTI_LINE_KEYS = ("slurmctldhost", "include", "srunargs")

# Keys that are structure, not parameters: they come from the node and
# partition model, never from the parameter dict.
STRUCTURE_KEYS = ("NodeName", "PartitionName", "NodeSet", "DownNodes", "FrontendName")
_STRUCTURE_FOLDED = tuple(key.lower() for key in STRUCTURE_KEYS)
# PartitionName parameters the model sets itself.
_PARTITION_OWNED = ("partitionname", "nodes", "default")


class SlurmConfError(ValueError):
    """Bad input for the slurm.conf model; the message names the fix."""


def format_value(value):
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, (list, tuple)):
        return ",".join(format_value(item) for item in value)
    return str(value)


def merge_config(*layers):
    """Merge parameter dicts left to right; a ``None`` value removes the key.

    Keys are matched case-insensitively, as slurm.conf does, and keep the
    spelling of the last layer that set them.
    """
    merged = {}
    spelled = {}
    for layer in layers:
        for key, value in (layer or {}).items():
            if key.lower() in _STRUCTURE_FOLDED:
                raise SlurmConfError(
                    "slurm_config: %s is structure, not a parameter; declare nodes through inventory groups and slurm_partitions instead" % key
                )
            folded = key.lower()
            if folded in spelled:
                del merged[spelled[folded]]
            if value is None:
                spelled.pop(folded, None)
                continue
            spelled[folded] = key
            merged[key] = value
    return merged


def _line(key, value):
    """``Key=value``; a value with spaces (an oci.conf command, which the schema allows) is quoted."""
    text = format_value(value)
    return '%s="%s"' % (key, text) if any(char.isspace() for char in text) else "%s=%s" % (key, text)


def parameter_lines(config):
    """``Key=value`` lines, sorted by key; multi-line keys keep their order."""
    lines = []
    for key in sorted(config, key=str.lower):
        value = config[key]
        if key.lower() in MULTI_LINE_KEYS and isinstance(value, (list, tuple)):
            lines.extend(_line(key, item) for item in value)
        else:
            lines.append(_line(key, value))
    return lines


def short_name(name):
    """Slurm names a node by its short host name (``hostname -s``)."""
    return name.split(".", 1)[0]


def features(value):
    """Node Features from a dict ({gpu_type: h200} -> gpu_type=h200) or a list, sorted, comma-joined."""
    if not value:
        return None
    if isinstance(value, dict):
        items = ["%s=%s" % (key, val) for key, val in value.items()]
    elif isinstance(value, str):
        items = [item.strip() for item in value.split(",")]
    else:
        items = [str(item) for item in value]
    bad = [item for item in items if not item or any(c in item for c in " &|[]*,!")]
    if bad:
        raise SlurmConfError("slurm_node_features: %r cannot be a Slurm feature (no spaces or any of & | [ ] * , !)" % bad[0])
    return ",".join(sorted(items))


def has_node_facts(facts):
    """Whether ``facts`` hold what a NodeName line is computed from."""
    return bool(facts) and "processor_vcpus" in facts and "memtotal_mb" in facts


def node_from_facts(name, facts, memory_reserve_mb=0, extra=None, node_features=None, node_gpus=None):
    """The NodeName attributes of one host, from that host's own facts.

    An inventory name with a domain becomes the node's NodeAddr, so the
    NodeName stays the short host name that slurmd looks itself up by.
    """
    if not has_node_facts(facts):
        raise SlurmConfError(
            "host %s: hardware facts are missing (processor_*, memtotal_mb); gather facts on every compute node in the same run or enable a fact cache" % name
        )
    sockets = int(facts.get("processor_count") or 1)
    cores = int(facts.get("processor_cores") or 1)
    threads = int(facts.get("processor_threads_per_core") or 1)
    cpus = int(facts["processor_vcpus"])
    if sockets * cores * threads != cpus:
        # Facts disagree (hypervisors often report odd topologies): declare the
        # flat CPU count, which slurmd accepts whatever the layout.
        sockets, cores, threads = cpus, 1, 1
    memory = int(facts["memtotal_mb"]) - int(memory_reserve_mb)
    if memory < 1:
        raise SlurmConfError(
            "host %s: slurm_node_memory_reserve_mb=%s leaves no memory (MemTotal is %s MB); lower it" % (name, memory_reserve_mb, facts["memtotal_mb"])
        )
    node = {
        "CPUs": cpus,
        "Sockets": sockets,
        "CoresPerSocket": cores,
        "ThreadsPerCore": threads,
        "RealMemory": memory,
    }
    if short_name(name) != name:
        node["NodeAddr"] = name
    if features(node_features):
        node["Features"] = features(node_features)
    try:
        gpus = gres.normalize_gpus(name, node_gpus)
    except gres.GresError as exc:
        raise SlurmConfError(str(exc)) from exc
    if gpus:
        node["Gres"] = gres.node_gres(gpus)
    for key, value in (extra or {}).items():
        if key.lower() in ("nodename",):
            raise SlurmConfError("host %s: slurm_node_config must not set NodeName" % name)
        node[key] = value
    return node


def emulated_names(name, spec):
    """The Slurm node names one host emulates (``slurm_emulated_nodes``), checked.

    ``spec`` is ``{names: <hostlist>, port: <first slurmd port>}``: one
    ``slurmd -N <node>`` per name on that host, on consecutive ports.
    """
    if not isinstance(spec, dict) or not spec.get("names"):
        raise SlurmConfError(
            "host %s: slurm_emulated_nodes=%r needs names (a hostlist such as gpu[001-128]) and port (the first slurmd port, e.g. 17001)" % (name, spec)
        )
    try:
        names = expand(str(spec["names"]))
    except ValueError:
        names = ["["]
    if any(c in node for node in names for c in "[]{}, "):
        raise SlurmConfError("host %s: slurm_emulated_nodes.names=%r is not a hostlist expression such as gpu[001-128]" % (name, spec["names"]))
    port = spec.get("port")
    if isinstance(port, bool) or not str(port).isdigit() or not 1024 <= int(port) <= 65535 - len(names):
        raise SlurmConfError(
            "host %s: slurm_emulated_nodes.port=%r must be a port from 1024 to %d, the first of %d consecutive slurmd ports"
            % (name, port, 65535 - len(names), len(names))
        )
    if len(set(names)) != len(names):
        raise SlurmConfError("host %s: slurm_emulated_nodes.names=%r names a node twice" % (name, spec["names"]))
    return names


def emulated_nodes(name, node, spec):
    """``{node name: attributes}`` for the nodes one host emulates, each a copy of ``node``
    reached at that host on its own port."""
    names = emulated_names(name, spec)
    host = short_name(name)
    first = int(spec["port"])
    return {emulated: dict(node, NodeHostname=host, NodeAddr=name, Port=first + index) for index, emulated in enumerate(names)}


def _ports(ports):
    """A Port= value for the nodes of one line, in their hostlist order: ``[17001-17128]``."""
    if len(ports) == 1:
        return str(ports[0])
    ranges = []
    for port in ports:
        if ranges and port == ranges[-1][1] + 1:
            ranges[-1][1] = port
        else:
            ranges.append([port, port])
    return "[%s]" % ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in ranges)


def node_lines(nodes):
    """NodeName lines; hosts with identical attributes share one hostlist line.

    ``nodes`` maps node name to its attribute dict (see node_from_facts).
    Emulated nodes differ only in ``Port``: they share a line whose Port
    lists one port per node in the hostlist's order, as slurmctld reads it.
    """
    shapes = {}
    for name, attributes in nodes.items():
        key = tuple((k, format_value(v)) for k, v in attributes.items() if k != "Port")
        shapes.setdefault(key, []).append(name)
    lines = []
    for key, names in sorted(shapes.items(), key=lambda item: compress(item[1])):
        names = expand(compress(names))
        words = ["NodeName=%s" % compress(names)] + ["%s=%s" % pair for pair in key]
        ports = [nodes[name]["Port"] for name in names if "Port" in nodes[name]]
        if ports:
            if len(ports) != len(names):
                raise SlurmConfError("nodes %s: Port is set on some of them only; set slurm_node_config Port on all or none" % compress(names))
            words.append("Port=%s" % _ports(ports))
        if not any(k.lower() == "state" for k, dummy in key):
            words.append("State=UNKNOWN")
        lines.append(" ".join(words))
    return lines


def partition_lines(partitions, groups, exclusive=(), common=None):
    """PartitionName lines from ``slurm_partitions`` and the inventory groups.

    Each partition is ``{name, groups, default, exclusive, config}``; its nodes
    are the members of its groups. Exactly one partition may be the default.
    ``exclusive``: the nodes of whole-node GPU classes (gres.exclusive_nodes).
    A partition whose nodes are all such nodes gets OverSubscribe=EXCLUSIVE
    unless it says ``exclusive: false`` or sets OverSubscribe itself.
    ``common``: parameters every partition gets unless its config sets them
    (the collection's GraceTime when preemption is on).
    """
    if not partitions:
        raise SlurmConfError("slurm_partitions is empty; declare at least one partition")
    defaults = [p["name"] for p in partitions if p.get("default")]
    if len(defaults) > 1:
        raise SlurmConfError("slurm_partitions: %s are all marked default: true; only one partition can be the default" % ", ".join(defaults))
    lines = []
    seen = set()
    for partition in partitions:
        name = partition.get("name")
        if not name:
            raise SlurmConfError("slurm_partitions: every partition needs a name (got %r)" % (partition,))
        if name in seen:
            raise SlurmConfError("slurm_partitions: partition %s is declared twice" % name)
        seen.add(name)
        members = []
        for group in partition.get("groups") or []:
            if group not in groups:
                raise SlurmConfError(
                    "slurm_partitions: partition %s refers to inventory group %s, which does not exist; "
                    "add the group to the inventory or fix the name" % (name, group)
                )
            members.extend(short_name(member) for member in groups[group])
        if not members:
            raise SlurmConfError(
                "slurm_partitions: partition %s has no nodes (groups: %s); add hosts to its groups" % (name, ", ".join(partition.get("groups") or []) or "none")
            )
        words = ["PartitionName=%s" % name, "Nodes=%s" % compress(members)]
        words.append("Default=%s" % format_value(bool(partition.get("default"))))
        config = dict(partition.get("config") or {})
        owned = [key for key in config if key.lower() in _PARTITION_OWNED]
        if owned:
            raise SlurmConfError(
                "slurm_partitions: partition %s sets %s in config; the collection sets them from name, groups and default" % (name, ", ".join(owned))
            )
        folded = {key.lower() for key in config}
        wanted = partition.get("exclusive")
        if wanted is not None and "oversubscribe" in folded:
            raise SlurmConfError("slurm_partitions: partition %s sets both exclusive: %s and OverSubscribe in config; keep one" % (name, wanted))
        if wanted is None and "oversubscribe" not in folded:
            wanted = set(members) <= set(exclusive)
        if wanted:
            config["OverSubscribe"] = "EXCLUSIVE"
        for key, value in [("State", "UP"), ("MaxTime", "INFINITE")] + sorted((common or {}).items()):
            if key.lower() not in folded:
                config[key] = value
        words.extend("%s=%s" % (key, format_value(config[key])) for key in sorted(config))
        lines.append(" ".join(words))
    return lines


def conf_lines(config, nodes, partitions, groups, exclusive_gpu_types=(), partition_defaults=None):
    """Every line of slurm.conf: parameters, then nodes, then partitions.

    Partitions over nodes whose every GPU type is in ``exclusive_gpu_types`` are exclusive by default.
    """
    return (
        parameter_lines(config)
        + ["", "# Nodes: one line per hardware shape, from each host's facts"]
        + node_lines(nodes)
        + ["", "# Partitions"]
        + partition_lines(partitions, groups, gres.exclusive_nodes(nodes, exclusive_gpu_types), partition_defaults)
    )


def parse_parameters(text):
    """Parameters of a slurm.conf text, keys lower-cased, node/partition lines skipped."""
    params = {}
    for raw in (text or "").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip()
        if key.lower() in _STRUCTURE_FOLDED:
            continue
        params.setdefault(key.lower(), []).append(value.strip())
    return params


def restart_keys(old_text, new_text, series=None):
    """Keys that only a restart applies (RESTART_REQUIRED_BY_SERIES, of ``series``: 24.11 when
    unknown) whose value differs between two slurm.conf texts.

    A missing old file means a first install, where nothing needs a restart.
    """
    if not old_text:
        return []
    keys = RESTART_REQUIRED_BY_SERIES.get(".".join(str(series or "").split(".")[:2]), RESTART_REQUIRED)
    old, new = parse_parameters(old_text), parse_parameters(new_text)
    return [key for key in keys if old.get(key.lower()) != new.get(key.lower())]


def changed_keys(old_text, new_text):
    """Parameters (spelled as in the new file) whose value differs between two slurm.conf texts."""
    old, new = parse_parameters(old_text), parse_parameters(new_text)
    spelled = {}
    for raw in (new_text or "").splitlines():
        key = raw.split("=", 1)[0].strip()
        spelled.setdefault(key.lower(), key)
    return sorted((spelled.get(key, key) for key in set(old) | set(new) if old.get(key) != new.get(key)), key=str.lower)


# Node states in which slurmctld does not expect a node's slurmd to answer,
# so a reconfigure is not awaited from it.
_SILENT_STATES = frozenset(("DOWN", "NOT_RESPONDING", "FUTURE", "POWERED_DOWN", "POWERING_DOWN", "POWERING_UP", "UNKNOWN"))


def _node_field(line, key):
    match = re.search(r"(?:^|\s)%s=(\S*)" % key, line)
    return match.group(1) if match else ""


def slurmd_start_times(text):
    """``{node: SlurmdStartTime}`` of the nodes whose slurmd answers, from ``scontrol show node -o``."""
    times = {}
    for line in (text or "").splitlines():
        name, started = _node_field(line, "NodeName"), _node_field(line, "SlurmdStartTime")
        if name and started not in ("", "None") and not _SILENT_STATES & set(_node_field(line, "State").split("+")):
            times[name] = started
    return times


def slurmd_pending(before_text, after_text):
    """The nodes whose slurmd answered before a reconfigure and has not re-executed since.

    Since 23.11 a slurmd applies ``scontrol reconfigure`` by re-executing
    itself, and the new process registers with a new SlurmdStartTime; when it
    cannot run with the new files the old process resumes ("reconfigure
    failed") and keeps the old start time.

    Nodes no longer configured (removed by this change) are not awaited; a
    node that stopped answering is.
    """
    before, after = slurmd_start_times(before_text), slurmd_start_times(after_text)
    configured = {_node_field(line, "NodeName") for line in (after_text or "").splitlines()}
    return sorted(node for node, started in before.items() if node in configured and after.get(node, started) == started)
