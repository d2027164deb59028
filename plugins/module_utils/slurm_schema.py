# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed validation of every value that lands in a Slurm configuration file.

The schema (slurm_schema_data.py) is generated from the installed Slurm
packages' own man pages by tools/gen_slurm_schema.py: every parameter of
slurm.conf (with its NodeName and PartitionName sub-grammars), cgroup.conf,
gres.conf, slurmdbd.conf and oci.conf, with its type. Checks here never raise: they
return findings ``{id, severity, variable, value, message, fix}``, where the
message names the variable, the value and the fix.

Two classes of problem are refused whatever the key:
  * syntax: a value is one line with nothing Slurm's parser reads as syntax
    (line breaks, ``#``, quotes, whitespace that would start another
    ``Key=value``, control characters); commands and regular expressions
    (oci.conf) may hold spaces and are written quoted;
  * names: cluster, node, partition and feature names follow Slurm's rules.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding as shared_finding
from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import expand
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_conf import MULTI_LINE_KEYS, format_value
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_schema_data import SCHEMAS

DEFAULT_SERIES = "24.11"
# Slurm's 32-bit "no value" markers sit at the top of the range.
INT_MAX = 4294967293
# Ranges the man pages state in prose. Keys: (part, lower-cased name).
RANGES = {
    ("slurm.conf", "slurmctldtimeout"): (1, 65533),
    ("slurm.conf", "slurmdtimeout"): (0, 65533),
    ("slurm.conf", "messagetimeout"): (1, 65533),
    ("slurm.conf", "tcptimeout"): (1, 65533),
    ("slurm.conf", "killwait"): (0, 65533),
    ("slurm.conf", "jobrequeue"): (0, 1),
    ("slurm.conf", "usepam"): (0, 1),
    ("slurm.conf", "killonbadexit"): (0, 1),
    ("slurm.conf", "treewidth"): (1, 65533),
    ("slurm.conf", "maxarraysize"): (0, 4000001),
    ("slurm.conf", "vsizefactor"): (0, 65533),
    ("partition", "prioritytier"): (0, 65533),
    ("partition", "priorityjobfactor"): (0, 65533),
    ("cgroup.conf", "memoryswappiness"): (0, 100),
    ("cgroup.conf", "maxrampercent"): (0, 100),
    ("cgroup.conf", "maxswappercent"): (0, 100),
    ("cgroup.conf", "allowedramspace"): (0, 100000),
}
PART_VARIABLE = {
    "slurm.conf": "slurm_config",
    "partition": "slurm_partitions[].config",
    "node": "slurm_node_config",
    "cgroup.conf": "cgroups_config",
    "gres.conf": "gres.conf",
    "slurmdbd.conf": "slurmdbd_config",
    "oci.conf": "containers_config",
}
# Kinds whose values may hold spaces: slurm_conf.parameter_lines writes them quoted.
SPACED_KINDS = ("command", "regex")
_DURATION = re.compile(r"^(?:\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+)$")
_PLUGIN = re.compile(r"^([a-z_]+)/([a-z0-9_]+)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Slurm's names: a cluster name is a database table prefix, node and partition
# names are hostlist words.
_CLUSTER_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_PARTITION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_FEATURE = re.compile(r"^[A-Za-z0-9_.:=+-]{1,64}$")
RESERVED_NAMES = ("default",)


def finding(check_id, variable, value, problem, fix, severity="error", about_key=False):
    """One finding in the shared shape; ``message`` is what the reporter prints:
    ``variable=value problem; fix`` (``variable: problem; fix`` when the key is wrong)."""
    shown = "%s: %s" % (variable, problem) if about_key else "%s=%s %s" % (variable, _shown(value), problem)
    return shared_finding(check_id, "%s; %s" % (shown, fix), variable, value, fix, severity)


def _shown(value):
    """A value as one printable line (a line break shows as \\n)."""
    text = value if isinstance(value, str) else format_value(value)
    return text.encode("unicode_escape").decode("ascii") if _CONTROL.search(text) else text


# What took the place of a parameter or a plugin that a later series dropped
# (slurm.conf(5) and the plugins of that series' packages).
SUCCESSORS = {
    ("slurm.conf", "jobcontainertype"): "NamespaceType=namespace/tmpfs",
    "job_container_tmpfs": "NamespaceType=namespace/tmpfs",
    "topology_default": "topology/flat",
    "topology_3d_torus": "topology/torus3d",
}


def series_key(series=None):
    key = ".".join(str(series or DEFAULT_SERIES).split(".")[:2])
    return key if key in SCHEMAS else DEFAULT_SERIES


def series_schema(series=None):
    return SCHEMAS[series_key(series)]


def _elsewhere(series, present):
    """`` (Slurm 24.11 has it)``: the other series for which ``present(schema)`` holds, or ''."""
    others = [other for other in sorted(SCHEMAS) if other != series_key(series) and present(SCHEMAS[other])]
    return " (Slurm %s has it)" % " and ".join(others) if others else ""


OPENMETRICS = "metrics/openmetrics"
# slurm_openmetrics as YAML or the command line (-e) spells it.
OPENMETRICS_SETTINGS = {"auto": "auto", "true": True, "yes": True, "false": False, "no": False}


def has_openmetrics(series=None):
    """Whether slurmctld of ``series`` serves OpenMetrics endpoints (its slurm.conf(5) has MetricsType: 25.11 and later)."""
    return "metricstype" in series_schema(series)["files"]["slurm.conf"]


def _private_data_blocks_metrics(config):
    """PrivateData limits the endpoints to SlurmUser and root (JWT) unless MetricsParameters=ignore_private_data or MetricsAuthUsers."""
    folded = {str(key).lower(): str(value) for key, value in (config or {}).items()} if isinstance(config, dict) else {}
    return bool(folded.get("privatedata")) and not folded.get("metricsauthusers") and "ignore_private_data" not in folded.get("metricsparameters", "")


def _openmetrics_setting(setting):
    """``auto``, True or False; None for anything else."""
    if isinstance(setting, bool):
        return setting
    return OPENMETRICS_SETTINGS.get(setting.strip().lower()) if isinstance(setting, str) else None


def openmetrics_problem(setting, series, config):
    """(problem, fix) for slurm_openmetrics against the series and slurm_config, or None."""
    setting = _openmetrics_setting(setting)
    if setting is None:
        return "is not auto, true or false", "set slurm_openmetrics to auto (on where Slurm has them and Prometheus runs), true or false"
    if setting is True and not has_openmetrics(series):
        since = " and ".join(other for other in sorted(SCHEMAS) if has_openmetrics(other))
        return (
            "but Slurm %s has no OpenMetrics endpoints (Slurm %s has them)" % (series_key(series), since),
            "set slurm_openmetrics to auto or false; the Slurm metrics collector serves this series",
        )
    if setting is True and _private_data_blocks_metrics(config):
        return (
            "but slurm_config.PrivateData limits the endpoints to SlurmUser and root (Prometheus cannot scrape them)",
            "drop PrivateData, add MetricsParameters: ignore_private_data to slurm_config, or set slurm_openmetrics to auto",
        )
    return None


def openmetrics_enabled(setting, series, config, monitored):
    """Whether slurm.conf gets MetricsType=metrics/openmetrics.

    ``auto``: where the series has the endpoints, a Prometheus of this
    inventory scrapes them (``monitored``) and PrivateData does not hide them;
    ``true``/``false`` as set. A bad setting is off (preflight reports it).
    """
    if openmetrics_problem(setting, series, config):
        return False
    setting = _openmetrics_setting(setting)
    if setting == "auto":
        return bool(monitored) and has_openmetrics(series) and not _private_data_blocks_metrics(config)
    return setting is True


def syntax_problem(value, spaced=False):
    """Why a value cannot be one ``Key=value`` word of a Slurm file, or None.

    ``spaced``: the value is written quoted (SPACED_KINDS), so spaces are allowed.
    """
    if value is None:
        return "has no value"
    if isinstance(value, dict):
        return "is a mapping; give one value"
    text = format_value(value)
    if text == "":
        return "is empty"
    if "\n" in text or "\r" in text:
        return "contains a line break, which would start a new line of the file"
    if _CONTROL.search(text):
        return "contains a control character"
    if "#" in text:
        return "contains #, which starts a comment in Slurm's files"
    if any(quote in text for quote in "\"'`"):
        return "contains a quote, which Slurm's parser reads as syntax"
    if not spaced and any(char.isspace() for char in text):
        return "contains whitespace, which would start another Key=value on the line"
    if "\\" in text:
        return "contains a backslash, which Slurm's parser reads as a line continuation or escape"
    return None


def closest(name, candidates):
    match = difflib.get_close_matches(name.lower(), list(candidates), n=1, cutoff=0.6)
    return match[0] if match else None


def key_problem(part, key, series=None):
    """(problem, fix) for a key the file does not have, or None."""
    keys = series_schema(series)["files"][part]
    if not isinstance(key, str) or not key:
        return "is not a parameter name", "use a name from %s(5)" % _page(part)
    if key.lower() in keys:
        return None
    near = closest(key, keys)
    fix = "did you mean %s? (%s(5))" % (keys[near][0], _page(part)) if near else "use a parameter from %s(5)" % _page(part)
    if (part, key.lower()) in SUCCESSORS:
        fix = "use %s (%s(5))" % (SUCCESSORS[(part, key.lower())], _page(part))
    where = {"node": "NodeName lines of slurm.conf", "partition": "PartitionName lines of slurm.conf"}.get(part, part)
    elsewhere = _elsewhere(series, lambda schema: key.lower() in schema["files"].get(part, {}))
    return "no such parameter in Slurm %s's %s%s" % (series_key(series), where, elsewhere), fix


def _page(part):
    return "slurm.conf" if part in ("node", "partition", "nodeset", "downnodes") else part


def _int_problem(text, low, high, unlimited=False):
    if unlimited and text.upper() in ("UNLIMITED", "INFINITE"):
        return None
    if not re.match(r"^\d+$", text):
        return "is not a whole number%s" % (" or UNLIMITED" if unlimited else "")
    if not low <= int(text) <= high:
        return "is out of range (%d to %d)" % (low, high)
    return None


def _plugin_problem(text, choices, plugins, series=None):
    match = _PLUGIN.match(text)
    if not match:
        return "is not a plugin name (type/name, e.g. %s)" % (choices[0] if choices else "sched/backfill")
    prefix, name = match.groups()
    kinds = {c.split("/")[0] for c in choices or []}
    if kinds and prefix not in kinds:
        return "is a %s plugin; this parameter takes %s plugins" % (prefix, "/".join(sorted(kinds)))
    if name == "none":
        return None
    if plugins is not None and "%s_%s" % (prefix, name) not in plugins:
        stem = "%s_%s" % (prefix, name)
        have = sorted("%s/%s" % (prefix, p[len(prefix) + 1 :]) for p in plugins if p.startswith(prefix + "_"))
        elsewhere = _elsewhere(series, lambda schema: stem in schema["plugins"])
        successor = "; use %s" % SUCCESSORS[stem] if elsewhere and stem in SUCCESSORS else ""
        return "is not installed (no %s.so among the Slurm %s plugins%s; installed: %s)%s" % (
            stem,
            series_key(series),
            elsewhere,
            ", ".join(have) or "none",
            successor,
        )
    return None


def value_problem(part, key, value, series=None, plugins=None):
    """Why ``value`` is not a valid value of ``key`` (a known key of ``part``), or None.

    ``plugins``: the plugin file stems the host has (``sched_backfill``); None
    uses the list recorded from the packages when the schema was generated.
    """
    schema = series_schema(series)
    entry = schema["files"][part].get(key.lower())
    problem = syntax_problem(value, spaced=entry is not None and entry[1] in SPACED_KINDS)
    if problem:
        return problem
    if entry is None:
        return None
    kind, choices = entry[1], (entry[2] if len(entry) > 2 else None)
    if kind in SPACED_KINDS and text_has_edge_space(value):
        return "starts or ends with whitespace"
    text = format_value(value)
    if plugins is None:
        plugins = schema["plugins"]
    low, high = RANGES.get((part, key.lower()), (0, INT_MAX))
    if kind in ("integer", "integer+unlimited"):
        return _int_problem(text, low, high, unlimited=kind.endswith("unlimited"))
    if kind == "number":
        if not re.match(r"^\d+(\.\d+)?$", text) or not low <= float(text) <= high:
            return "is not a number from %d to %d" % (low, high)
        return None
    if kind == "port":
        return _int_problem(text, 1, 65535)
    if kind == "port-range":
        ports = text.split("-")
        if len(ports) > 2 or any(_int_problem(p, 1, 65535) for p in ports):
            return "is not a port or port range (6817 or 6817-6818)"
        return None
    if kind == "duration":
        if text.upper() in ("INFINITE", "UNLIMITED") or _DURATION.match(text):
            return None
        return "is not a Slurm time (minutes, [days-]hours:minutes:seconds or INFINITE)"
    if kind == "yesno":
        if text.lower() in ("yes", "no", "true", "false", "1", "0", "y", "n"):
            return None
        return "is not YES or NO"
    if kind == "clustername":
        return None if _CLUSTER_NAME.match(text) else "is not a cluster name (lowercase letter first, then lowercase letters, digits, - or _; at most 40)"
    if kind == "oversubscribe":
        return None if re.match(r"^(EXCLUSIVE|FORCE|YES|NO)(:\d+)?$", text, re.I) else "is not EXCLUSIVE, FORCE[:n], YES[:n] or NO"
    if kind == "enum":
        if text.lower() in {c.lower() for c in choices or []}:
            return None
        return "is not one of %s" % ", ".join(choices or [])
    if kind in ("plugin", "plugins"):
        items = text.split(",") if kind == "plugins" else [text]
        for item in items:
            problem = _plugin_problem(item, choices, plugins, series)
            if problem:
                return "%s %s" % (item, problem) if kind == "plugins" else problem
        return None
    if kind in ("options", "list"):
        items = text.split(",")
        if any(not item for item in items):
            return "has an empty item in its comma-separated list"
        if kind == "options" and choices:
            names = {c.lower() for c in choices}
            for item in items:
                name = re.split(r"[=:]", item, maxsplit=1)[0]
                if name.lower() not in names:
                    near = closest(name, names)
                    return "%s is not an option of %s%s" % (name, entry[0], " (did you mean %s?)" % near if near else "")
        return None
    return None


def check_parameters(part, params, variable=None, series=None, plugins=None, owned=()):
    """Findings for a parameter dict destined for ``part`` (a file or a sub-grammar).

    ``owned``: keys the collection writes itself; setting them here is refused.
    """
    variable = variable or PART_VARIABLE.get(part, part)
    findings = []
    if params is None:
        return findings
    if not isinstance(params, dict):
        return [finding("config_type", variable, params, "is not a mapping", "give Key: value pairs as in %s(5)" % _page(part))]
    keys = series_schema(series)["files"][part]
    for key, value in params.items():
        name = "%s.%s" % (variable, key)
        if not isinstance(key, str) or syntax_problem(key) or "=" in key:
            problem = "the key %r is not a parameter name" % (key,)
            findings.append(finding("config_key", variable, value, problem, "use a name from %s(5)" % _page(part), about_key=True))
            continue
        if key.lower() in owned:
            findings.append(finding("config_key", name, value, "is set by the collection itself", "remove it from %s" % variable, about_key=True))
            continue
        unknown = key_problem(part, key, series)
        if unknown:
            findings.append(finding("config_key", name, value, unknown[0], unknown[1], about_key=True))
            continue
        if value is None:
            # null removes a default (slurm_conf.merge_config).
            continue
        problem = value_problem(part, key, value, series, plugins)
        if problem:
            findings.append(finding("config_value", name, value, problem, "see %s in %s(5)" % (keys[key.lower()][0], _page(part))))
    return findings


def name_problem(kind, value):
    """Why ``value`` cannot be a Slurm ``kind`` name (cluster, node, partition, feature), or None."""
    if not isinstance(value, str) or not value:
        return "is not a name"
    if syntax_problem(value):
        return syntax_problem(value)
    if value.lower() in RESERVED_NAMES and kind in ("node", "partition"):
        return "is reserved by Slurm (DEFAULT sets defaults for the lines after it)"
    rule = {"cluster": _CLUSTER_NAME, "node": _NODE_NAME, "partition": _PARTITION_NAME, "feature": _FEATURE}[kind]
    if not rule.match(value):
        return {
            "cluster": "is not a cluster name: a lowercase letter first, then lowercase letters, digits, - or _, at most 40 characters",
            "node": "is not a node name: letters, digits, ., - and _, at most 64 characters",
            "partition": "is not a partition name: letters, digits, ., - and _, at most 64 characters",
            "feature": "is not a feature name: letters, digits and _ . : = + -, at most 64 characters",
        }[kind]
    return None


_PAIR = re.compile(r'([^\s=]+)=(?:"([^"]*)"|(\S*))(?:\s+|$)')


def text_has_edge_space(value):
    text = format_value(value)
    return text != text.strip()


def parse_line(line):
    """``Key=value`` words of one configuration line; a value the collection quoted (SPACED_KINDS) is read whole."""
    pairs, at = [], 0
    while at < len(line):
        match = _PAIR.match(line, at)
        if not match:
            return None
        pairs.append((match.group(1), match.group(2) if match.group(2) is not None else match.group(3)))
        at = match.end()
    return pairs


def _line_name_problem(part, value):
    """A NodeName (a hostlist) or PartitionName on a written line; DEFAULT lines are Slurm's own."""
    if part not in ("node", "partition") or value.lower() == "default":
        return None
    try:
        names = expand(value) if part == "node" else [value]
    except ValueError:
        return "is not a hostlist expression"
    for name in names:
        problem = name_problem(part, name)
        if problem:
            return "%s %s" % (name, problem) if name != value else problem
    return None


_LINE_PARTS = {"nodename": "node", "partitionname": "partition", "nodeset": "nodeset", "downnodes": "downnodes"}


def check_text(page, text, series=None, plugins=None):
    """Findings for a whole file as it will be written (comments and blank lines skipped).

    For slurm.conf, NodeName and PartitionName lines are checked against
    their sub-grammars; a parameter set twice is refused.
    """
    findings = []
    seen = {}
    for number, raw in enumerate((text or "").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = "%s line %d" % (page, number)
        pairs = parse_line(line)
        if not pairs:
            findings.append(finding("config_syntax", where, line, "is not Key=value words", "fix the variable that produced it"))
            continue
        part = _LINE_PARTS.get(pairs[0][0].lower(), page) if page == "slurm.conf" else page
        if part == page and len(pairs) > 1 and page != "gres.conf":
            findings.append(finding("config_syntax", where, line, "holds more than one parameter", "one Key=value per line"))
        if part == page and page != "gres.conf":
            key = pairs[0][0].lower()
            if key in seen and key not in MULTI_LINE_KEYS:
                findings.append(finding("config_duplicate", where, line, "sets %s again (first on line %d)" % (pairs[0][0], seen[key]), "set it once"))
            seen.setdefault(key, number)
        for key, value in pairs:
            if part != page and key.lower() == pairs[0][0].lower():
                problem = _line_name_problem(part, value)
                if problem:
                    findings.append(finding("config_name", "%s %s" % (where, key), value, problem, "rename it"))
                continue
            unknown = key_problem(part, key, series)
            if unknown:
                findings.append(finding("config_key", "%s %s" % (where, key), value, unknown[0], unknown[1], about_key=True))
                continue
            problem = value_problem(part, key, value, series, plugins)
            if problem:
                findings.append(finding("config_value", "%s %s" % (where, key), value, problem, "fix the variable that sets it"))
    return findings


def plugins_of_files(paths):
    """The installed plugins (``sched_backfill``) named by the paths of a host's Slurm plugin files (``.../sched_backfill.so``)."""
    return [path.rsplit("/", 1)[-1][: -len(".so")] for path in paths if path.endswith(".so")]
