# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Preflight checks: each returns findings with a stable id, never raises.

A finding has the shared shape of module_utils/findings.py; severity is
``error`` (the play stops before any host is changed) or ``warning``
(printed). The message names the variable, the value seen and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import re

from ansible_collections.aicluster.slurm.plugins.module_utils import apt_repository, gres, pam_adopt, quoting, slurm_conf, slurm_schema, topology
from ansible_collections.aicluster.slurm.plugins.module_utils.accelerators import parse_cpulist
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding
from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress

# slurm.conf values that do not exist in Slurm, with what to use instead.
# Several come from a widely copied article; Slurm 24.11 refuses to start
# with them (slurm.conf(5)).
UNKNOWN_VALUES = {
    ("selecttype", "select/cgroup"): "select/cons_tres",
    ("selecttype", "select/cons_res"): "select/cons_tres (select/cons_res was removed in Slurm 23.11)",
    ("topologyplugin", "topology/cluster"): "topology/tree or topology/block",
    ("topologyplugin", "topology/3d_torus"): "topology/tree or topology/block (topology/3d_torus was removed in Slurm 23.02)",
    ("proctracktype", "proctrack/cgroups"): "proctrack/cgroup",
    ("taskplugin", "task/cgroups"): "task/cgroup",
}

# slurm.conf parameters that do not exist (or no longer exist) in Slurm 24.11.
UNKNOWN_KEYS = {
    "accrueinterimstats": "remove it; there is no such plugin either (job accounting is AccountingStorageTRES and JobAcctGatherFrequency)",
    "controlmachine": "use SlurmctldHost (ControlMachine was removed in Slurm 23.02); the collection sets it from the slurmctld group",
    "backupcontroller": "use a second host in the slurmctld group (BackupController was removed in Slurm 23.02)",
    "fastschedule": "remove it: FastSchedule was removed in Slurm 20.02; node shapes come from each host's facts",
    "cryptotype": "remove it: CryptoType was removed in Slurm 23.11",
}

VALID_CHOICES = {
    "selecttype": ("select/cons_tres", "select/linear"),
    "topologyplugin": ("topology/default", "topology/tree", "topology/block"),
    "proctracktype": ("proctrack/cgroup", "proctrack/linuxproc", "proctrack/pgid"),
}

# Every check id a finding can carry; preflight_skip takes these
# (roles/preflight/meta/argument_specs.yml lists the same, tested).
CHECK_IDS = (
    "groups_present",
    "controller_count",
    "controller_not_compute",
    "secrets",
    "slurmdbd_count",
    "slurm_config_key",
    "slurm_config_value",
    "proctrack_cgroup",
    "partitions",
    "preemption",
    "qos_defined",
    "gpus",
    "os_supported",
    "hostname_match",
    "memory_reserve",
    "node_names_unique",
    "state_save_shared",
    "slurm_version",
    "hostlist",
    "topology",
    "topology_nodes",
    "node_config",
    "config_key",
    "config_value",
    "config_type",
    "cluster_name",
    "node_features",
    "apt_repository",
    "slurm_openmetrics",
    "login",
)

MUNGE_KEY_MIN_BYTES = 32
MUNGE_KEY_MAX_BYTES = 1024


def _finding(check_id, severity, message, variable=None, value=None):
    return finding(check_id, message, variable, value, severity=severity)


def findings_of(check_id, variable, function, *args):
    """Run a check that raises on bad input; its error becomes one finding.

    Filters that compute a role's settings raise with a message naming the
    variable; any other exception (a raw int() of "2G") is named after
    ``variable`` (names joined with /) so the user still learns what to fix.
    """
    try:
        function(*args)
    except Exception as exc:  # noqa: BLE001 - every error becomes a finding, never a traceback
        message = str(exc)
        if not any(name in message for name in variable.split("/")):
            message = "%s: %s (%s)" % (variable, message, type(exc).__name__)
        return [_finding(check_id, "error", message, variable=variable)]
    return []


def check_skip(skip):
    """preflight_skip is a list of known check ids (a string would match ids by substring)."""
    if isinstance(skip, (list, tuple)) and all(isinstance(item, str) for item in skip):
        unknown = [item for item in skip if item not in CHECK_IDS]
        if not unknown:
            return []
        problem = "names no check: %s" % ", ".join(unknown)
    else:
        kind = (
            "string"
            if isinstance(skip, str)
            else "list of non-strings"
            if isinstance(skip, (list, tuple))
            else "mapping"
            if isinstance(skip, dict)
            else "scalar"
        )
        problem = "is a %s, not a list of check ids" % kind
    return [slurm_schema.finding("preflight_skip", "preflight_skip", skip, problem, "give a list such as [os_supported]; the ids are in docs/preflight.md")]


def check_groups(groups, required=("slurmctld", "slurm_compute")):
    findings = []
    for group in required:
        if not groups.get(group):
            findings.append(
                _finding(
                    "groups_present",
                    "error",
                    "inventory group %s is missing or empty; add at least one host to it" % group,
                    variable="groups.%s" % group,
                )
            )
    controllers = groups.get("slurmctld") or []
    if controllers and len(controllers) > 2:
        findings.append(
            _finding(
                "controller_count",
                "error",
                "inventory group slurmctld has %d hosts (%s); Slurm runs one controller or a primary and a backup: "
                "keep one or two" % (len(controllers), ", ".join(controllers)),
                variable="groups.slurmctld",
                value=controllers,
            )
        )
    overlap = sorted(set(controllers) & set(groups.get("slurm_compute") or []))
    if overlap:
        findings.append(
            _finding(
                "controller_not_compute",
                "warning",
                "hosts %s are in both slurmctld and slurm_compute; a training job can then starve the controller" % ", ".join(overlap),
                variable="groups.slurm_compute",
                value=overlap,
            )
        )
    return findings


def check_munge_key(value):
    """slurm_munge_key is optional (generated on the controller); if given it must be sound."""
    if value in (None, ""):
        return []
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return [
            _finding(
                "secrets",
                "error",
                "slurm_munge_key is not valid base64; give the key file base64-encoded "
                "(base64 -w0 /etc/munge/munge.key) or leave it empty to generate one on the controller",
                variable="slurm_munge_key",
            )
        ]
    if not MUNGE_KEY_MIN_BYTES <= len(raw) <= MUNGE_KEY_MAX_BYTES:
        return [
            _finding(
                "secrets",
                "error",
                "slurm_munge_key decodes to %d bytes; munge needs %d to %d random bytes (mungekey --create makes one)"
                % (len(raw), MUNGE_KEY_MIN_BYTES, MUNGE_KEY_MAX_BYTES),
                variable="slurm_munge_key",
            )
        ]
    return []


# slurm.conf line kinds the collection writes from the inventory, never from slurm_config.
STRUCTURE_KEYS = ("nodename", "partitionname", "nodeset", "downnodes", "frontendname")


def check_slurm_config(config, cgroups_enforced=True, series=None):
    """Reject slurm.conf keys and values that Slurm does not have (the catalogue's
    known mistakes with their own fixes, then every key and value against the schema)."""
    if not isinstance(config, dict):
        return slurm_schema.check_parameters("slurm.conf", config, "slurm_config", series)
    findings = []
    # One finding per key: the catalogue's specific fix wins over the schema's.
    reported = set()
    for key, value in (config or {}).items():
        folded = key.lower()
        if folded in UNKNOWN_KEYS:
            reported.add(key)
            findings.append(
                _finding("slurm_config_key", "error", "slurm_config.%s: Slurm has no such parameter; %s" % (key, UNKNOWN_KEYS[folded]), variable="slurm_config")
            )
            continue
        if value is None or isinstance(value, (dict, list, bool)):
            continue
        text = str(value).strip().lower()
        fix = UNKNOWN_VALUES.get((folded, text))
        if fix is None and folded in VALID_CHOICES and text not in VALID_CHOICES[folded]:
            fix = " or ".join(VALID_CHOICES[folded])
        if fix is not None:
            reported.add(key)
            findings.append(
                _finding("slurm_config_value", "error", "slurm_config.%s=%s does not exist in Slurm; use %s" % (key, value, fix), variable="slurm_config")
            )
    for key in config or {}:
        if isinstance(key, str) and key.lower() in STRUCTURE_KEYS:
            findings.append(
                _finding(
                    "slurm_config_key",
                    "error",
                    "slurm_config.%s: %s lines are structure the collection writes, not a parameter; declare nodes through inventory "
                    "groups (with slurm_node_config per host) and partitions through slurm_partitions" % (key, key),
                    variable="slurm_config",
                )
            )
            reported.add(key)
    findings += slurm_schema.check_parameters("slurm.conf", {k: v for k, v in config.items() if k not in reported}, "slurm_config", series)
    proctrack = "".join(str(v).lower() for k, v in (config or {}).items() if k.lower() == "proctracktype")
    if cgroups_enforced and proctrack == "proctrack/linuxproc":
        findings.append(
            _finding(
                "proctrack_cgroup",
                "warning",
                "slurm_config.ProctrackType=proctrack/linuxproc while cgroups are enforced: processes that leave "
                "the job's process tree escape accounting and cleanup; use proctrack/cgroup",
                variable="slurm_config",
            )
        )
    return findings


def check_accounting(groups, storage_pass):
    """slurmdbd needs its database password (no default) and runs on one host."""
    dbd = groups.get("slurmdbd") or []
    findings = []
    if len(dbd) > 1:
        findings.append(
            _finding(
                "slurmdbd_count",
                "error",
                "inventory group slurmdbd has %d hosts (%s); this collection runs one slurmdbd: keep one" % (len(dbd), ", ".join(dbd)),
                variable="groups.slurmdbd",
                value=dbd,
            )
        )
    if dbd and len(storage_pass or "") < 12:
        findings.append(
            _finding(
                "secrets",
                "error",
                "slurmdbd_storage_pass is %s; the accounting database needs a long random password (12+ characters, "
                "e.g. openssl rand -base64 24), kept in a vault" % ("not set" if not storage_pass else "shorter than 12 characters"),
                variable="slurmdbd_storage_pass",
            )
        )
    unwritable = quoting.problem(storage_pass, "slurm", "slurmdbd_storage_pass") if dbd and storage_pass else None
    if unwritable:
        findings.append(_finding("secrets", "error", unwritable, variable="slurmdbd_storage_pass"))
    return findings


PREEMPT_MODES = ("OFF", "CANCEL", "REQUEUE", "SUSPEND", "GANG", "WITHIN", "PRIORITY")


def check_preemption(preempt_type, preempt_mode):
    """PreemptMode must be one the chosen PreemptType accepts (slurm.conf(5), PreemptMode)."""
    if not preempt_type or preempt_type == "preempt/none":
        return []
    modes = [m.strip().upper() for m in str(preempt_mode or "").split(",") if m.strip()]
    unknown = [m for m in modes if m not in PREEMPT_MODES]
    problem = None
    if unknown:
        problem = "%s is not a PreemptMode (%s)" % (", ".join(unknown), ", ".join(PREEMPT_MODES))
    elif not modes or modes == ["OFF"]:
        problem = "preemption is on (%s) but PreemptMode is OFF, so nothing is ever preempted; use REQUEUE" % preempt_type
    elif "SUSPEND" in modes and "GANG" not in modes and preempt_type == "preempt/partition_prio":
        problem = "SUSPEND with preempt/partition_prio needs GANG (PreemptMode=SUSPEND,GANG); for training jobs REQUEUE is the usual choice"
    if problem is None:
        return []
    return [_finding("preemption", "error", "slurm_preempt_mode=%s: %s" % (preempt_mode, problem), variable="slurm_preempt_mode")]


# PartitionName parameters the collection writes itself (slurm_conf.partition_lines).
PARTITION_OWNED_KEYS = ("partitionname", "nodes", "default")


def check_partitions(partitions, groups, series=None):
    findings = []
    defaults = [p.get("name") for p in partitions or [] if p.get("default")]
    if len(defaults) > 1:
        findings.append(
            _finding(
                "partitions",
                "error",
                "slurm_partitions: %s are all default: true; mark exactly one" % ", ".join(map(str, defaults)),
                variable="slurm_partitions",
            )
        )
    seen = set()
    for partition in partitions or []:
        name = partition.get("name")
        if not name:
            findings.append(
                _finding(
                    "partitions",
                    "error",
                    "slurm_partitions: an entry has no name (%r); give every partition a name" % (partition,),
                    variable="slurm_partitions",
                )
            )
        elif name in seen:
            findings.append(
                _finding(
                    "partitions",
                    "error",
                    "slurm_partitions: partition %s is declared twice; merge the two entries or rename one" % name,
                    variable="slurm_partitions",
                )
            )
        seen.add(name)
        if not partition.get("groups"):
            findings.append(
                _finding(
                    "partitions",
                    "error",
                    "slurm_partitions: partition %s has groups=%s; list the inventory groups whose hosts it holds, e.g. groups: [slurm_compute]"
                    % (name, partition.get("groups")),
                    variable="slurm_partitions",
                )
            )
        problem = slurm_schema.name_problem("partition", name) if name else None
        if problem:
            findings.append(
                _finding(
                    "partitions",
                    "error",
                    "slurm_partitions: name=%s %s; rename the partition" % (slurm_schema._shown(name), problem),
                    variable="slurm_partitions",
                )
            )
        config = partition.get("config") or {}
        findings += slurm_schema.check_parameters(
            "partition",
            {k: v for k, v in config.items() if str(k).lower() not in PARTITION_OWNED_KEYS} if isinstance(config, dict) else config,
            "slurm_partitions[%s].config" % name,
            series,
        )
        owned = ["%s=%s" % (k, v) for k, v in (config.items() if isinstance(config, dict) else ()) if k.lower() in PARTITION_OWNED_KEYS]
        if owned:
            findings.append(
                _finding(
                    "partitions",
                    "error",
                    "slurm_partitions: partition %s sets %s in config; the collection writes PartitionName, Nodes and Default "
                    "from name, groups and default: put the nodes in an inventory group and list it under groups" % (name, ", ".join(owned)),
                    variable="slurm_partitions",
                )
            )
        for group in partition.get("groups") or []:
            if not groups.get(group):
                findings.append(
                    _finding(
                        "partitions",
                        "error",
                        "slurm_partitions: partition %s uses inventory group %s, which is missing or empty; "
                        "add hosts to it or remove it from the partition" % (partition.get("name"), group),
                        variable="slurm_partitions",
                    )
                )
    return findings


# Slurm creates this QOS itself when the cluster is registered.
BUILTIN_QOS = ("normal",)
# PartitionName parameters that name QOS (slurm.conf(5)).
_PARTITION_QOS_KEYS = ("qos", "allowqos", "denyqos")


def _names(value):
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [item.strip().lower() for item in value.split(",") if item.strip()]
    return [str(item).strip().lower() for item in value]


def check_qos_references(groups, partitions, accounting):
    """Every QOS that partitions, accounts, users or QOS name must be declared (or be Slurm's ``normal``)."""
    qos = accounting.get("qos") or []
    declared = {str(q.get("name", "")).lower() for q in qos if q.get("state", "present") != "absent"} | set(BUILTIN_QOS)
    references = []
    for partition in partitions or []:
        for key, value in (partition.get("config") or {}).items():
            if key.lower() in _PARTITION_QOS_KEYS and str(value).upper() != "ALL":
                references.extend(("slurm_partitions[%s].config.%s" % (partition.get("name"), key), n) for n in _names(value))
    for what in ("accounts", "users"):
        for entry in accounting.get(what) or []:
            if entry.get("state", "present") == "absent":
                continue
            where = "slurm_accounting_%s[%s]" % (what, entry.get("name"))
            references.extend((where + ".qos", n) for n in _names(entry.get("qos")))
            references.extend((where + ".default_qos", n) for n in _names(entry.get("default_qos")))
    for entry in qos:
        if entry.get("state", "present") != "absent":
            references.extend(("slurm_accounting_qos[%s].preempt" % entry.get("name"), n) for n in _names(entry.get("preempt")))
    findings = []
    if references and not groups.get("slurmdbd"):
        where, name = references[0]
        return [
            _finding(
                "qos_defined",
                "error",
                "%s names QOS %s, but QOS need accounting and the inventory has no slurmdbd host; add one or remove the QOS" % (where, name),
                variable=where,
                value=name,
            )
        ]
    for where, name in references:
        if name not in declared:
            findings.append(
                _finding(
                    "qos_defined",
                    "error",
                    "%s names QOS %s, which is not declared; add {name: %s} to slurm_accounting_qos or fix the name (declared: %s)"
                    % (where, name, name, ", ".join(sorted(declared))),
                    variable=where,
                    value=name,
                )
            )
    return findings


def check_node_names(groups):
    """Slurm names a node by its short host name, so two inventory names with one short name are one NodeName."""
    by_short = {}
    for name in groups.get("slurm_compute") or []:
        by_short.setdefault(name.split(".", 1)[0], []).append(name)
    return [
        _finding(
            "node_names_unique",
            "error",
            "inventory group slurm_compute has hosts %s, which all become NodeName=%s (Slurm names a node by its short host name); "
            "give each node its own short name in the inventory and on the host" % (", ".join(names), short),
            variable="groups.slurm_compute",
            value=names,
        )
        for short, names in sorted(by_short.items())
        if len(names) > 1
    ]


# StateSaveLocation as the collection sets it (roles/slurm/vars/main.yml): a local directory.
LOCAL_STATE_SAVE = "/var/lib/slurm/slurmctld"


def check_state_save(groups, config):
    """A backup controller takes over from the state the primary saved, so with two the state must be shared."""
    location = LOCAL_STATE_SAVE
    for key, value in (config or {}).items():
        if key.lower() == "statesavelocation" and value not in (None, ""):
            location = str(value)
    if not location.startswith("/"):
        return [
            _finding(
                "state_save_shared",
                "error",
                "slurm_config.StateSaveLocation=%s is not an absolute path; give the directory slurmctld saves its state in, e.g. %s"
                % (location, LOCAL_STATE_SAVE),
                variable="slurm_config",
            )
        ]
    controllers = groups.get("slurmctld") or []
    # Three or more is controller_count's error already.
    if len(controllers) != 2 or location.rstrip("/") != LOCAL_STATE_SAVE:
        return []
    return [
        _finding(
            "state_save_shared",
            "error",
            "inventory group slurmctld has 2 hosts (%s) but slurm_config.StateSaveLocation=%s is the collection's local default: "
            "the backup controller cannot read the primary's saved state and would start with no jobs. Set "
            "slurm_config.StateSaveLocation to a directory on storage both controllers mount (NFS, Lustre, ...), or keep one controller"
            % (", ".join(controllers), location),
            variable="slurm_config",
        )
    ]


def check_state_save_marker(location, first, directory, other, seen, error=""):
    """Whether two controllers share StateSaveLocation, from a file written on one and looked for on the other.

    ``directory``: where the file was written on ``first`` (``location`` or,
    before the first converge creates it, its deepest existing parent); None
    when it could not be written (``error``: why). ``seen``: whether ``other``
    has the file at the same path.
    """
    if directory is None:
        reason = (error or "").strip().splitlines()[-1:] or ["no reason given"]
        return [
            _finding(
                "state_save_shared",
                "warning",
                "slurm_config.StateSaveLocation=%s: could not write a test file on %s (%s), so that both controllers share it is not "
                "proven; a backup controller that does not see the primary's state takes over with no jobs" % (location, first, reason[0]),
                variable="slurm_config",
            )
        ]
    if seen:
        return []
    return [
        _finding(
            "state_save_shared",
            "error",
            "slurm_config.StateSaveLocation=%s: a file written in %s on %s is not there on %s, so the controllers do not share it "
            "and the backup would take over with no jobs; mount one shared directory (NFS, Lustre, ...) at %s on both controllers, "
            "or keep one controller" % (location, directory, first, other, directory),
            variable="slurm_config",
        )
    ]


# The platforms this collection is tested on: (distribution, release) -> the
# Slurm series that release ships, which the collection installs and configures
# there (roles/slurm/vars/<distribution>_<release>.yml). Forky is Debian testing.
PLATFORMS = {("Debian", "trixie"): "24.11", ("Debian", "forky"): "26.05"}
PLATFORM_NAMES = {("Debian", "trixie"): "Debian 13 trixie", ("Debian", "forky"): "Debian forky (testing)"}
# The series when no host's release is known (inventory-only checks before facts).
SLURM_SERIES = PLATFORMS[("Debian", "trixie")]


def platforms_text():
    """``Debian 13 trixie with Slurm 24.11 and Debian forky (testing) with Slurm 26.05``: for messages."""
    return " and ".join("%s with Slurm %s" % (PLATFORM_NAMES[key], series) for key, series in sorted(PLATFORMS.items(), key=lambda item: item[1]))


def platform_series(facts):
    """The Slurm series of a host's platform (from its gathered facts), or None when it is not a tested one."""
    facts = facts or {}
    return PLATFORMS.get((facts.get("distribution"), facts.get("distribution_release")))


def configured_series(facts, package_version="", repository=None):
    """The Slurm series the collection installs and configures on a host: with a site's own repository
    (slurm_apt_repository) that of slurm_package_version when the collection has its schema, otherwise
    the one the host's Debian release ships; the default series on an untested platform (os_supported
    refuses it)."""
    if repository:
        match = _DEBIAN_SLURM_VERSION.match(str(package_version or "").strip())
        if match and "%s.%s" % match.groups() in slurm_schema.SCHEMAS:
            return "%s.%s" % match.groups()
    return platform_series(facts) or SLURM_SERIES


# [epoch:]major.minor then a point release, a revision or an apt wildcard.
_DEBIAN_SLURM_VERSION = re.compile(r"^(?:\d+:)?(\d+)\.(\d+)[.*-]")


def check_slurm_version(version, series=SLURM_SERIES):
    """A pinned slurm_package_version must be of the series the configuration is written for.

    ``series``: the Slurm series of the controllers' platform.
    The slurm role compares the installed version only after apt has run; this
    catches the pin before any host is changed.
    """
    if version in (None, ""):
        return []
    text = str(version).strip()
    match = _DEBIAN_SLURM_VERSION.match(text)
    if match and "%s.%s" % match.groups() == series:
        return []
    seen = ("is Slurm %s.%s" % match.groups()) if match else "is not a Debian package version of Slurm (such as %s.5-4)" % series
    platform = " or ".join(PLATFORM_NAMES[key] for key, value in sorted(PLATFORMS.items()) if value == series)
    return [
        _finding(
            "slurm_version",
            "error",
            "slurm_package_version=%s %s, but this collection configures Slurm %s on %s (it is tested with %s): pin a %s build "
            "(apt-cache policy slurm-client lists them, e.g. %s.5-4 or %s.*) or leave slurm_package_version empty for the release's own"
            % (text, seen, series, platform, platforms_text(), series, series, series),
            variable="slurm_package_version",
        )
    ]


_HOSTLIST_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
# Beyond this a typo (node[1-1000000]) is likelier than a cluster.
HOSTLIST_MAX_NAMES = 100000


def _range_problem(body):
    count = 0
    for item in body.split(","):
        match = _HOSTLIST_RANGE.match(item)
        if not match:
            return "[%s] holds %r, which is not a number or a range such as 1-8" % (body, item)
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if high < low:
            return "the range %s runs backwards" % item
        count += high - low + 1
    if count > HOSTLIST_MAX_NAMES:
        return "[%s] names %d hosts, more than %d" % (body, count, HOSTLIST_MAX_NAMES)
    return None


def hostlist_problem(expression):
    """Why ``expression`` is not a Slurm hostlist expression (``node[01-04,07]``), or None."""
    text = "" if expression is None else str(expression)
    if not text.strip():
        return "it is empty"
    if re.search(r"\s", text):
        return "it contains whitespace"
    depth, body, part = 0, "", ""
    for char in text + ",":
        if char == "[":
            if depth:
                return "brackets are nested"
            depth, body = 1, ""
        elif char == "]":
            if not depth:
                return "']' has no '['"
            depth = 0
            problem = _range_problem(body)
            if problem:
                return problem
        elif depth:
            body += char
        elif char == ",":
            if not part:
                return "it has an empty name between commas"
            part = ""
            continue
        part += char
    if depth:
        return "'[' has no ']'"
    return None


def _expressions(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def check_hostlists(spines=None, blocks=None):
    """The hostlist expressions users write: child switches in slurm_topology_spines, nodes in slurm_topology_blocks."""
    inputs = []
    for spine, children in sorted((spines or {}).items()):
        inputs.extend(("slurm_topology_spines.%s" % spine, e) for e in _expressions(children))
    for block in blocks or []:
        if isinstance(block, dict):
            inputs.extend(("slurm_topology_blocks[%s].nodes" % block.get("name"), e) for e in _expressions(block.get("nodes")))
    findings = []
    for where, expression in inputs:
        problem = hostlist_problem(expression)
        if problem:
            findings.append(
                _finding(
                    "hostlist",
                    "error",
                    "%s=%s is not a hostlist expression: %s; write names or ranges such as node[01-04,07]" % (where, expression, problem),
                    variable=where,
                    value=expression,
                )
            )
    return findings


TOPOLOGY_SOURCES = ("", "inventory", "ibnetdiscover", "blocks")
_TOPOLOGY_FIX = {
    "inventory": "fix the hosts' slurm_topology_leaf and slurm_topology_spines (spine: [child switches]) so the switches form one tree",
    "blocks": "fix slurm_topology_blocks (ordered {name, nodes}) and slurm_topology_block_sizes",
}


def check_topology(source, compute=(), switches=None, blocks=None, block_sizes=None, strict=False, series=SLURM_SERIES):
    """What slurmctld would refuse in a topology given in the inventory, before slurmctld sees it.

    ``switches``: the switch list the slurmctld role passes to slurm_topology
    (slurm_topology_switches); ``compute``: the slurm_compute hosts. The
    ibnetdiscover source is read on the controller, so it is checked there.
    """
    source = source or ""
    if source not in TOPOLOGY_SOURCES:
        return [
            _finding(
                "topology",
                "error",
                "slurm_topology_source=%s is not a topology source; use inventory, ibnetdiscover, blocks, or empty for none" % source,
                variable="slurm_topology_source",
            )
        ]
    if source not in _TOPOLOGY_FIX:
        return []
    fix = _TOPOLOGY_FIX[source]
    try:
        if source == "inventory":
            tree, duplicates = topology.switches_from_list(switches)
            errors, warnings = topology.validate_tree(tree, duplicates, None, series)
            placed = {node for switch in tree.values() for node in switch["nodes"]}
        else:
            parsed = topology.blocks_from_list(blocks)
            sizes = [int(size) for size in block_sizes or []]
            errors, warnings = topology.validate_blocks(parsed, sizes, None, series)
            placed = {node for block in parsed for node in block["nodes"]}
    except (topology.TopologyError, ValueError, TypeError, AttributeError) as exc:
        errors, warnings, placed = [str(exc)], [], set()
    severity = "error" if strict else "warning"
    findings = [_finding("topology", "error", "slurm_topology_source=%s: %s; %s" % (source, e, fix), variable="slurm_topology_source") for e in errors]
    findings.extend(_finding("topology", severity, "slurm_topology_source=%s: %s" % (source, w), variable="slurm_topology_source") for w in warnings)
    known = {name.split(".", 1)[0] for name in compute or ()}
    unknown = sorted(placed - known)
    if unknown and not errors:
        findings.append(
            _finding(
                "topology_nodes",
                "error",
                "slurm_topology_source=%s names nodes %s, which are not in slurm_compute; slurmctld would drop them. Fix the names, "
                "or add the hosts to slurm_compute" % (source, compress(unknown)),
                variable="slurm_topology_source",
            )
        )
    uncovered = sorted(known - placed)
    if uncovered and not errors:
        findings.append(
            _finding(
                "topology_nodes",
                severity,
                "slurm_topology_source=%s places no switch or block over slurm_compute nodes %s; the scheduler cannot place them by "
                "topology. %s" % (source, compress(uncovered), fix[0].upper() + fix[1:]),
                variable="slurm_topology_source",
            )
        )
    return findings


def check_settings(settings, series=None):
    """The cluster name, cgroups_config, slurmdbd_config and containers_config against Slurm's rules and schema; slurm_apt_repository."""
    findings = []
    if "cluster_name" in settings:
        problem = slurm_schema.name_problem("cluster", settings["cluster_name"])
        if problem:
            findings.append(slurm_schema.finding("cluster_name", "slurm_cluster_name", settings["cluster_name"], problem, "e.g. aicluster or ai-prod-1"))
    findings += slurm_schema.check_parameters("cgroup.conf", settings.get("cgroups_config"), "cgroups_config", series)
    findings += slurm_schema.check_parameters("slurmdbd.conf", settings.get("slurmdbd_config"), "slurmdbd_config", series, owned=("storagepass",))
    findings += slurm_schema.check_parameters("oci.conf", settings.get("containers_config"), "containers_config", series)
    findings += apt_repository.findings(settings.get("apt_repository"), settings.get("package_version") or "")
    return findings


def check_openmetrics(setting, config, series=None):
    """slurm_openmetrics against the series' endpoints and slurm_config's PrivateData."""
    problem = slurm_schema.openmetrics_problem(setting, series, config)
    shown = str(setting).lower() if isinstance(setting, bool) else setting
    return [slurm_schema.finding("slurm_openmetrics", "slurm_openmetrics", shown, *problem)] if problem else []


# A boolean as extra vars give it (-e slurm_pam_adopt=false): true, false, yes, no.
_BOOL_WORDS = ("true", "false", "yes", "no")


def check_login(groups, config, setting="auto"):
    """Login nodes (group slurm_login) apart from the daemons' hosts, and what
    pam_slurm_adopt (slurm_pam_adopt) needs in slurm.conf."""
    findings = []
    if not (isinstance(setting, bool) or (isinstance(setting, str) and setting.lower() in ("auto",) + _BOOL_WORDS)):
        fix = "set slurm_pam_adopt: auto (on with login nodes), true or false"
        return [slurm_schema.finding("login", "slurm_pam_adopt", setting, "is not auto, true or false", fix)]
    login = set(groups.get("slurm_login") or [])
    for group, why in (
        ("slurmctld", "users' sessions would compete with the controller"),
        ("slurm_compute", "pam_slurm_adopt on it would refuse users' ssh logins without a job"),
    ):
        both = sorted(login & set(groups.get(group) or []))
        if both:
            findings.append(
                _finding(
                    "login",
                    "error",
                    "hosts %s are in both slurm_login and %s: %s; give the login nodes hosts of their own" % (", ".join(both), group, why),
                    variable="groups.slurm_login",
                    value=both,
                )
            )
    flags = next((value for key, value in (config or {}).items() if str(key).lower() == "prologflags"), None)
    if pam_adopt.adopt_on(setting, groups) and flags is not None:
        names = [part.strip().lower() for part in str(flags).split(",")]
        if "contain" not in names:
            findings.append(
                slurm_schema.finding(
                    "login",
                    "slurm_config.PrologFlags",
                    flags,
                    "drops Contain, which pam_slurm_adopt (slurm_pam_adopt) needs to adopt ssh sessions into a job",
                    "add it (PrologFlags: %s,Contain) or set slurm_pam_adopt: false" % flags,
                )
            )
    return findings


def inventory_findings(
    groups,
    config,
    partitions,
    munge_key,
    cgroups_enforced=True,
    skip=(),
    dbd_storage_pass=None,
    preempt=("", ""),
    accounting=None,
    slurm_version="",
    topology_inputs=None,
    settings=None,
    series=None,
):
    """All inventory-only checks; findings whose id is in ``skip`` are dropped.

    ``settings``: the other values that land in Slurm's files,
    ``{cluster_name, cgroups_config, slurmdbd_config, apt_repository, package_version, openmetrics, pam_adopt, containers_config}``.

    ``series``: the Slurm series of the controllers' platform (platform_series), default SLURM_SERIES.
    ``accounting``: ``{qos, accounts, users}`` as declared in slurm_accounting_*.
    ``topology_inputs``: ``{source, spines, switches, blocks, block_sizes, strict}``
    (slurm_topology_*; switches as the slurmctld role builds them).
    """
    series = series or SLURM_SERIES
    topo = topology_inputs or {}
    hostlists = check_hostlists(topo.get("spines"), topo.get("blocks"))
    findings = (
        check_groups(groups)
        + check_preemption(*preempt)
        + check_munge_key(munge_key)
        + check_accounting(groups, dbd_storage_pass)
        + check_slurm_config(config, cgroups_enforced, series)
        + check_partitions(partitions, groups, series)
        + check_qos_references(groups, partitions, accounting or {})
        + check_node_names(groups)
        + check_state_save(groups, config)
        + check_slurm_version(slurm_version, series)
        + check_settings(settings or {}, series)
        + check_openmetrics((settings or {}).get("openmetrics", "auto"), config, series)
        + check_login(groups, config, (settings or {}).get("pam_adopt", "auto"))
        + hostlists
    )
    if not hostlists:
        # A malformed expression cannot be expanded: the topology is checked once it parses.
        findings += check_topology(
            topo.get("source"),
            groups.get("slurm_compute") or [],
            topo.get("switches"),
            topo.get("blocks"),
            topo.get("block_sizes"),
            topo.get("strict", False),
            series,
        )
    return check_skip(skip) or [f for f in findings if f["id"] not in skip]


def check_gpus(name, gpus, present_files):
    """The node's GPU declaration is sound and every device file it promises exists.

    ``present_files``: the declared device files that exist on the host as
    character devices (the role stats them).
    """
    pattern = gpus.get("file") if isinstance(gpus, dict) else None
    problem = hostlist_problem(pattern) if pattern else None
    if problem:
        return [
            _finding(
                "gpus",
                "error",
                "%s: slurm_node_gpus.file=%s is not a hostlist expression: %s; write the device files as /dev/nvidia[0-7]" % (name, pattern, problem),
                variable="slurm_node_gpus",
            )
        ]
    try:
        normalized = gres.normalize_gpus(name, gpus)
    except gres.GresError as exc:
        return [_finding("gpus", "error", str(exc), variable="slurm_node_gpus")]
    if not normalized:
        return []
    missing = [f for f in normalized["files"] if f not in set(present_files or ())]
    if not missing:
        return []
    return [
        _finding(
            "gpus",
            "error",
            "%s: slurm_node_gpus declares %d %s GPUs (%s) but %s %s not a character device there; "
            "fix slurm_node_gpus.count or .file for this host, or install the GPU driver first"
            % (name, normalized["count"], normalized["type"], normalized["file"], ", ".join(missing), "is" if len(missing) == 1 else "are"),
            variable="slurm_node_gpus",
        )
    ]


def check_node_config(name, facts, node_config):
    """slurm_node_config may not promise more than the host has: slurmctld drains a node that registers with less."""
    if not node_config:
        return []
    if not isinstance(node_config, dict):
        return [
            _finding(
                "node_config",
                "error",
                "%s: slurm_node_config=%r must be a dict of NodeName parameters, e.g. {Weight: 10}" % (name, node_config),
                variable="slurm_node_config",
            )
        ]
    findings = []
    for key, value in node_config.items():
        folded = key.lower()
        if folded == "nodename":
            findings.append(
                _finding(
                    "node_config",
                    "error",
                    "%s: slurm_node_config.%s=%s: the NodeName is the host's short inventory name; remove it" % (name, key, value),
                    variable="slurm_node_config",
                )
            )
            continue
        schema = slurm_schema.check_parameters("node", {key: value}, "%s: slurm_node_config" % name, platform_series(facts))
        if schema:
            findings += [dict(f, id="node_config") for f in schema]
            continue
        fact, what, unit = {"realmemory": ("memtotal_mb", "memory", " MB"), "cpus": ("processor_vcpus", "CPUs", "")}.get(folded, (None, None, None))
        if fact is None:
            continue
        try:
            wanted = int(value)
        except (TypeError, ValueError):
            findings.append(
                _finding(
                    "node_config",
                    "error",
                    "%s: slurm_node_config.%s=%s is not a whole number; fix or remove it" % (name, key, value),
                    variable="slurm_node_config",
                )
            )
            continue
        have = facts.get(fact)
        if have is not None and wanted > int(have):
            findings.append(
                _finding(
                    "node_config",
                    "error",
                    "%s: slurm_node_config.%s=%s is more than the host has (%s%s); slurmctld drains a node that registers with less "
                    "(Low %s). Lower it to at most %s%s or remove it to take the value from the host's facts" % (name, key, value, have, unit, key, have, unit),
                    variable="slurm_node_config",
                )
            )
    return findings


def check_gres_sockets(name, node, info):
    """Slurm takes a device's Cores= only as whole sockets of the NodeName line;
    slurmctld marks a node whose device is local to part of a socket INVALID
    ("doesn't match socket boundaries"), as on hosts with several NUMA nodes
    per socket (Kunpeng, EPYC NPS2/4). ``node``: the NodeName attributes,
    ``info``: the host's accelerator_info result."""
    per_socket = int(node.get("CoresPerSocket") or 1)
    for key in ("gpus", "npus"):
        for device in (info or {}).get(key) or []:
            if not device.get("cores"):
                continue
            cores = set(parse_cpulist(device["cores"]))
            sockets = {core // per_socket for core in cores}
            whole = set()
            for socket in sockets:
                whole.update(range(socket * per_socket, (socket + 1) * per_socket))
            if cores != whole:
                first = min(sockets)
                return [
                    _finding(
                        "gpus",
                        "error",
                        "host %s: %s is local to cores %s, part of socket %d (cores %d-%d) as the node is declared "
                        "(Sockets=%s CoresPerSocket=%d), and slurmctld refuses such a node (INVALID_REG: GRES core specification "
                        "doesn't match socket boundaries). Declare its NUMA nodes as sockets: slurm_node_config "
                        "{Sockets: <NUMA nodes>, CoresPerSocket: <cores per NUMA node>} and slurm_config "
                        "{SlurmdParameters: numa_node_as_socket}"
                        % (
                            name,
                            device["device_file"],
                            device["cores"],
                            first,
                            first * per_socket,
                            (first + 1) * per_socket - 1,
                            node.get("Sockets"),
                            per_socket,
                        ),
                        variable="slurm_node_config",
                    )
                ]
    return []


def check_discovered_gres(name, facts, memory_reserve_mb, node_config, accelerators, nvml=False):
    """A node that discovers its GRES: its MIG devices against Slurm's NVML (``nvml``: slurm_gres_nvml), its devices'
    cores against the node as slurm.conf will declare it."""
    if not accelerators:
        return []
    problem = gres.mig_problem(accelerators, nvml)
    if problem:
        return [_finding("gpus", "error", "host %s: %s" % (name, problem), variable="slurm_gres_nvml")]
    try:
        node = slurm_conf.node_from_facts(name, facts, memory_reserve_mb, node_config)
    except (slurm_conf.SlurmConfError, TypeError, ValueError):
        # The node's own checks (memory, node config) report what is wrong there.
        return []
    return check_gres_sockets(name, node, accelerators)


def check_features(name, features):
    """slurm_node_features: Slurm feature names (a dict becomes key=value features)."""
    if not features:
        return []
    if isinstance(features, dict):
        items = ["%s=%s" % pair for pair in features.items()]
    elif isinstance(features, (list, tuple)):
        items = [str(item) for item in features]
    else:
        items = str(features).split(",")
    findings = []
    for item in items:
        problem = slurm_schema.name_problem("feature", item)
        if problem:
            findings.append(slurm_schema.finding("node_features", "%s: slurm_node_features" % name, item, problem, "rename the feature"))
    return findings


def check_gres_source(name, gpus, discover):
    """A node's GRES come from slurm_node_gpus or from discovery, not both (the gres.conf lines would clash)."""
    if discover and gpus:
        return [
            _finding(
                "gpus",
                "error",
                "%s: slurm_gres_discover=true and slurm_node_gpus=%s are both set; a node's GPUs come from one of them: "
                "remove slurm_node_gpus to use what the node has, or set slurm_gres_discover: false" % (name, gpus),
                variable="slurm_gres_discover",
            )
        ]
    return []


def host_findings(
    name,
    facts,
    memory_reserve_mb=0,
    is_compute=True,
    skip=(),
    gpus=None,
    gpu_files=(),
    node_config=None,
    features=None,
    discover=False,
    accelerators=None,
    nvml=False,
):
    """Per-host checks from gathered facts (and, for GPUs, the device files found)."""
    facts = facts or {}
    findings = []
    if is_compute:
        findings = (
            check_gres_source(name, gpus, discover)
            + check_gpus(name, gpus, gpu_files)
            + check_node_config(name, facts, node_config)
            + check_features(name, features)
            + (check_discovered_gres(name, facts, memory_reserve_mb, node_config, accelerators, nvml) if discover else [])
        )
    if platform_series(facts) is None:
        seen = "%s %s (%s)" % (facts.get("distribution"), facts.get("distribution_version"), facts.get("distribution_release"))
        findings.append(
            _finding(
                "os_supported",
                "error",
                "%s runs %s; this collection is tested on %s only. Add os_supported to preflight_skip "
                "to try it anyway (untested)" % (name, seen, platforms_text()),
                variable="ansible_facts.distribution",
                value=seen,
            )
        )
    hostname = facts.get("hostname")
    if is_compute and hostname and hostname != name.split(".")[0]:
        findings.append(
            _finding(
                "hostname_match",
                "error",
                "%s: its hostname is %s, but slurmd finds its NodeName by hostname; rename the host or the inventory entry so they match" % (name, hostname),
                variable="ansible_facts.hostname",
                value=hostname,
            )
        )
    memtotal = facts.get("memtotal_mb")
    if is_compute and memtotal is not None and int(memtotal) <= int(memory_reserve_mb):
        findings.append(
            _finding(
                "memory_reserve",
                "error",
                "%s: slurm_node_memory_reserve_mb=%s is not below its memory (%s MB); lower it" % (name, memory_reserve_mb, memtotal),
                variable="slurm_node_memory_reserve_mb",
            )
        )
    return check_skip(skip) or [f for f in findings if f["id"] not in skip]
