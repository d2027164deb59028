# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate plugins/module_utils/slurm_schema_data.py from Slurm's own man pages.

    python tools/gen_slurm_schema.py --version 24.11 --man-dir DIR [--plugin-dir DIR]

DIR holds slurm.conf.5, cgroup.conf.5, gres.conf.5, slurmdbd.conf.5 and oci.conf.5 (gzip or
not) from the Slurm packages the collection installs; `make schema`
(tools/slurm_schema.sh) extracts them from Debian's packages of each supported
release, checked against the archive's signature, and runs this per series.

Every parameter a man page documents at the top level of its section becomes
an entry ``lower-cased name -> [Name, type, choices]``. The type is read from
the page: ``<yes|no>`` headers are booleans; nested option lists whose items
are ``prefix/name`` are plugins; other nested option lists are enumerations,
or lists when the text says the value is comma-separated; "seconds",
"minutes", "number" or a numeric default make an integer. What the text does
not say plainly is in TYPE_OVERRIDES below, with the man page's words as the
reason. Everything else is a string: any single-line value without syntax.
"""

import argparse
import gzip
import json
import re
from pathlib import Path

FILES = ("slurm.conf", "cgroup.conf", "gres.conf", "slurmdbd.conf", "oci.conf")
# slurm.conf sections -> the schema part they feed.
SECTIONS = {
    "PARAMETERS": "slurm.conf",
    "NODE CONFIGURATION": "node",
    "PARTITION CONFIGURATION": "partition",
    "NODESET CONFIGURATION": "nodeset",
    "DOWN NODE CONFIGURATION": "downnodes",
}
# Types the prose states in ways a rule cannot read reliably. Keys: (part, name).
#   duration: Slurm's time format (minutes, [days-]hours:minutes:seconds,
#             INFINITE/UNLIMITED), as the pages describe for these.
#   integer:  a plain count; "+unlimited" also accepts UNLIMITED/INFINITE.
#   list:     a comma-separated list of free words (names, hosts, paths).
#   string:   free text (paths, host names, options with their own syntax).
#   command:  a command line (oci.conf's RunTime* patterns), written quoted.
#   regex:    an extended regular expression, written quoted.
TYPE_OVERRIDES = {
    ("slurm.conf", "PriorityMaxAge"): "duration",
    ("slurm.conf", "PriorityDecayHalfLife"): "duration",
    ("slurm.conf", "PriorityUsageResetPeriod"): "enum",
    ("slurm.conf", "PreemptExemptTime"): "duration",
    ("slurm.conf", "OverTimeLimit"): "integer+unlimited",
    ("slurm.conf", "SlurmctldPort"): "port-range",
    ("slurm.conf", "SlurmdPort"): "port",
    ("slurm.conf", "AccountingStoragePort"): "port",
    ("slurm.conf", "SrunPortRange"): "string",
    ("slurm.conf", "SlurmctldHost"): "string",
    ("slurm.conf", "ClusterName"): "clustername",
    ("slurm.conf", "SchedulerParameters"): "options",
    ("slurm.conf", "SlurmctldParameters"): "options",
    ("slurm.conf", "SlurmdParameters"): "options",
    ("slurm.conf", "LaunchParameters"): "options",
    ("slurm.conf", "PrologFlags"): "options",
    ("slurm.conf", "CommunicationParameters"): "options",
    ("slurm.conf", "SelectTypeParameters"): "options",
    ("slurm.conf", "AccountingStorageEnforce"): "options",
    ("slurm.conf", "TopologyParam"): "options",
    ("slurm.conf", "PreemptMode"): "options",
    ("slurm.conf", "PriorityFlags"): "options",
    ("slurm.conf", "TaskPluginParam"): "options",
    ("slurm.conf", "PrivateData"): "options",
    ("slurm.conf", "DebugFlags"): "options",
    ("slurm.conf", "HealthCheckNodeState"): "options",
    ("slurm.conf", "ReconfigFlags"): "options",
    ("slurm.conf", "AccountingStorageTRES"): "list",
    ("slurm.conf", "GresTypes"): "list",
    ("slurm.conf", "Prolog"): "string",
    ("slurm.conf", "Epilog"): "string",
    ("slurm.conf", "MpiDefault"): "string",
    ("slurm.conf", "SlurmctldDebug"): "enum",
    ("slurm.conf", "SlurmdDebug"): "enum",
    ("slurm.conf", "SlurmctldSyslogDebug"): "enum",
    ("slurm.conf", "SlurmdSyslogDebug"): "enum",
    ("partition", "MaxTime"): "duration",
    ("partition", "DefaultTime"): "duration",
    ("partition", "GraceTime"): "integer",
    ("partition", "OverTimeLimit"): "integer+unlimited",
    ("partition", "MaxNodes"): "integer+unlimited",
    ("partition", "MinNodes"): "integer",
    ("partition", "MaxCPUsPerNode"): "integer+unlimited",
    ("partition", "PriorityTier"): "integer",
    ("partition", "PriorityJobFactor"): "integer",
    ("partition", "OverSubscribe"): "oversubscribe",
    ("partition", "State"): "enum",
    ("partition", "AllowGroups"): "list",
    ("partition", "AllowAccounts"): "list",
    ("partition", "AllowQos"): "list",
    ("partition", "DenyAccounts"): "list",
    ("partition", "DenyQos"): "list",
    ("partition", "AllocNodes"): "list",
    ("partition", "Nodes"): "list",
    ("partition", "QOS"): "string",
    ("partition", "TRESBillingWeights"): "string",
    ("partition", "SelectTypeParameters"): "options",
    ("partition", "PreemptMode"): "options",
    ("node", "Features"): "list",
    ("node", "Gres"): "list",
    ("node", "State"): "string",
    ("node", "Port"): "string",
    ("node", "Weight"): "integer",
    ("node", "CpuSpecList"): "string",
    ("slurm.conf", "MailProg"): "string",
    ("slurm.conf", "GpuFreqDef"): "string",
    ("slurm.conf", "JobAcctGatherFrequency"): "string",
    ("slurm.conf", "AuthInfo"): "options",
    ("slurm.conf", "SwitchParameters"): "options",
    ("slurm.conf", "JobAcctGatherParams"): "options",
    ("slurm.conf", "JobSubmitPlugins"): "options",
    ("slurm.conf", "CpuFreqGovernors"): "options",
    ("slurm.conf", "CliFilterPlugins"): "plugins",
    ("slurm.conf", "NodeFeaturesPlugins"): "plugins",
    ("slurm.conf", "TCPTimeout"): "integer",
    ("slurm.conf", "KillOnBadExit"): "integer",
    ("slurm.conf", "MaxTasksPerNode"): "integer",
    ("slurm.conf", "MaxNodeCount"): "integer",
    ("slurm.conf", "DefCpuPerGPU"): "integer",
    ("slurm.conf", "JobFileAppend"): "integer",
    ("slurm.conf", "TrackWCKey"): "yesno",
    ("slurm.conf", "PriorityFavorSmall"): "yesno",
    ("partition", "ExclusiveUser"): "yesno",
    ("partition", "ExclusiveTopo"): "yesno",
    ("partition", "Hidden"): "yesno",
    ("partition", "LLN"): "yesno",
    ("partition", "RootOnly"): "yesno",
    ("partition", "ReqResv"): "yesno",
    ("partition", "Default"): "yesno",
    ("partition", "DefMemPerCPU"): "integer",
    ("partition", "DefMemPerNode"): "integer",
    ("partition", "DefMemPerGPU"): "integer",
    ("partition", "DefCpuPerGPU"): "integer",
    ("partition", "MaxMemPerCPU"): "integer",
    ("partition", "MaxMemPerNode"): "integer",
    ("partition", "MaxCPUsPerSocket"): "integer+unlimited",
    ("node", "CPUs"): "integer",
    ("node", "CoreSpecCount"): "integer",
    ("node", "MemSpecLimit"): "integer",
    ("slurmdbd.conf", "ArchiveScript"): "string",
    ("slurmdbd.conf", "StorageParameters"): "options",
    ("slurmdbd.conf", "AuthInfo"): "options",
    ("cgroup.conf", "CgroupPlugin"): "enum",
    ("cgroup.conf", "AllowedRAMSpace"): "number",
    ("cgroup.conf", "AllowedSwapSpace"): "number",
    ("cgroup.conf", "MaxRAMPercent"): "number",
    ("cgroup.conf", "MaxSwapPercent"): "number",
    ("cgroup.conf", "MinRAMSpace"): "integer",
    ("cgroup.conf", "MemorySwappiness"): "integer",
    ("cgroup.conf", "SystemdTimeout"): "integer",
    ("cgroup.conf", "CgroupMountpoint"): "string",
    ("slurmdbd.conf", "DbdPort"): "port",
    ("slurmdbd.conf", "StoragePort"): "port",
    ("slurmdbd.conf", "DebugLevel"): "enum",
    ("slurmdbd.conf", "DebugLevelSyslog"): "enum",
    ("slurmdbd.conf", "DebugFlags"): "options",
    ("slurmdbd.conf", "PrivateData"): "options",
    ("slurmdbd.conf", "Parameters"): "options",
    ("slurmdbd.conf", "CommunicationParameters"): "options",
    ("gres.conf", "Flags"): "options",
    ("gres.conf", "File"): "string",
    ("gres.conf", "Cores"): "string",
    ("gres.conf", "Links"): "string",
    ("gres.conf", "MultipleFiles"): "string",
    ("gres.conf", "Count"): "string",
    ("gres.conf", "Type"): "string",
    # Any name GresTypes declares (npu for Ascend), not only the page's examples.
    ("gres.conf", "Name"): "string",
    ("oci.conf", "RunTimeCreate"): "command",
    ("oci.conf", "RunTimeDelete"): "command",
    ("oci.conf", "RunTimeKill"): "command",
    ("oci.conf", "RunTimeQuery"): "command",
    ("oci.conf", "RunTimeRun"): "command",
    ("oci.conf", "RunTimeStart"): "command",
    ("oci.conf", "EnvExclude"): "regex",
    ("oci.conf", "RunTimeEnvExclude"): "regex",
    ("oci.conf", "ContainerPath"): "string",
    ("oci.conf", "MountSpoolDir"): "string",
    ("oci.conf", "SrunPath"): "string",
    # One argument per SrunArgs line (a list writes several lines).
    ("oci.conf", "SrunArgs"): "string",
    ("oci.conf", "CreateEnvFile"): "enum",
    ("oci.conf", "IgnoreFileConfigJson"): "enum",
    ("oci.conf", "DisableCleanup"): "yesno",
    ("oci.conf", "DisableHooks"): "list",
    ("oci.conf", "DebugFlags"): "options",
    ("oci.conf", "FileDebug"): "enum",
    ("oci.conf", "StdIODebug"): "enum",
    ("oci.conf", "SyslogDebug"): "enum",
}
# Choices the pages give in prose rather than as an option list.
CHOICE_OVERRIDES = {
    ("slurm.conf", "SlurmctldDebug"): ["quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4", "debug5"],
    ("slurm.conf", "PriorityUsageResetPeriod"): ["NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"],
    ("partition", "State"): ["UP", "DOWN", "DRAIN", "INACTIVE"],
    ("cgroup.conf", "CgroupPlugin"): ["autodetect", "cgroup/v1", "cgroup/v2", "disabled"],
}
for _key in ("SlurmdDebug", "SlurmctldSyslogDebug", "SlurmdSyslogDebug"):
    CHOICE_OVERRIDES[("slurm.conf", _key)] = CHOICE_OVERRIDES[("slurm.conf", "SlurmctldDebug")]
for _key in ("DebugLevel", "DebugLevelSyslog"):
    CHOICE_OVERRIDES[("slurmdbd.conf", _key)] = CHOICE_OVERRIDES[("slurm.conf", "SlurmctldDebug")]
for _key in ("FileDebug", "StdIODebug", "SyslogDebug"):
    CHOICE_OVERRIDES[("oci.conf", _key)] = CHOICE_OVERRIDES[("slurm.conf", "SlurmctldDebug")]
CHOICE_OVERRIDES[("oci.conf", "CreateEnvFile")] = ["null", "newline", "disabled", "true", "false"]
CHOICE_OVERRIDES[("oci.conf", "IgnoreFileConfigJson")] = ["true", "false"]
# Parameters whose choices are another page's (oci.conf's DebugFlags are slurm.conf's).
SHARED_CHOICES = {("oci.conf", "debugflags"): ("slurm.conf", "debugflags")}

# oci.conf spells some headers with their values inside the bold: \\fBName=(a|b)\\fR.
_HEADER = re.compile(r"^\\fB([A-Za-z][A-Za-z0-9]*)(?:=[^\\]*)?\\fR(.*)$")
_OPTION = re.compile(r"^\\fB([A-Za-z0-9_/.+\-\\]+?)\\fR(?:\s*=\s*|\\fR=|=)?(.*)$")
_PLUGIN = re.compile(r"^[a-z_]+/[a-z0-9_]+$")


def read_page(path):
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace").splitlines()


def clean(text):
    """roff to plain words."""
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\-", "-").replace("\\(em", "-").replace("\\e", "\\")


def entries(lines, default_part):
    """(part, Name, header rest, description, [nested option names]) per top-level parameter."""
    part, depth, current, found = default_part, 0, None, []
    for index, line in enumerate(lines):
        if line.startswith(".SH"):
            title = line[3:].strip().strip('"').replace("\\-", "-")
            # Only slurm.conf's sections name parts (oci.conf has a PARAMETERS section too).
            part = SECTIONS.get(title) if default_part == "slurm.conf" else default_part
            if default_part != "slurm.conf" and title in ("EXAMPLE", "EXAMPLES", "COPYING", "SEE ALSO", "FILES", "NAME"):
                part = None
            depth, current = 0, None
            continue
        if line.startswith(".RS"):
            depth += 1
        elif line.startswith(".RE"):
            depth = max(0, depth - 1)
        elif line.startswith(".TP") and index + 1 < len(lines) and part:
            header = _HEADER.match(lines[index + 1])
            if depth == 0 and header:
                current = [part, header.group(1), clean(header.group(2)), [], []]
                found.append(current)
            elif depth == 1 and current is not None:
                option = _OPTION.match(lines[index + 1])
                if option:
                    current[4].append(clean(option.group(1)))
        elif current is not None and not line.startswith("."):
            current[3].append(clean(line))
    return found


def infer(part, name, header, description, options):
    """(type, choices) for one parameter."""
    text = " ".join(description)
    override = TYPE_OVERRIDES.get((part, name))
    choices = CHOICE_OVERRIDES.get((part, name))
    plugins = [o for o in options if _PLUGIN.match(o)]
    if override:
        if override in ("enum", "options") and choices is None:
            choices = sorted(set(options), key=str.lower)
        if override in ("plugin", "plugins") and choices is None:
            choices = sorted(set(plugins))
        return override, choices
    if re.search(r"<yes\|no>|YES\|NO", header) or re.search(r"\bset to \"?(YES|yes)\"?\b.*\b(NO|no)\b", text[:300]):
        return "yesno", None
    if plugins and len(plugins) >= max(1, len(options) // 2):
        kind = "plugins" if re.search(r"comma[ -]separated", text) else "plugin"
        return kind, sorted(set(plugins))
    if options and re.search(r"comma[ -]separated|comma delimited", text):
        return "options", sorted(set(options), key=str.lower)
    if options and len(options) >= 2:
        return "enum", sorted(set(options), key=str.lower)
    if re.search(
        r"\b(in|of) seconds\b|\bnumber of (seconds|minutes)\b|\bin minutes\b|\b[Tt]he default value is \d+\b|\bdefault is \d+\b|\bmaximum value is\b", text
    ):
        return ("integer+unlimited" if re.search(r"\b(UNLIMITED|INFINITE)\b", text) else "integer"), None
    return "string", None


def generate(man_dir, plugin_dir=None):
    schema = {}
    for name in FILES:
        path = next((p for p in (Path(man_dir) / (name + ".5"), Path(man_dir) / (name + ".5.gz")) if p.exists()), None)
        if path is None:
            raise SystemExit("%s.5 is not in %s" % (name, man_dir))
        for part, key, header, description, options in entries(read_page(path), name):
            kind, choices = infer(part, key, header, description, options)
            schema.setdefault(part, {})[key.lower()] = [key, kind, choices] if choices else [key, kind]
    for (part, key), (other, other_key) in SHARED_CHOICES.items():
        if key in schema.get(part, {}) and len(schema.get(other, {}).get(other_key, [])) > 2:
            schema[part][key] = schema[part][key][:2] + [schema[other][other_key][2]]
    plugins = sorted(p.stem for p in Path(plugin_dir).glob("*.so")) if plugin_dir else []
    return schema, plugins


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True, help="Slurm release series, e.g. 24.11")
    parser.add_argument("--package-version", default="", help="the Debian package version the pages came from")
    parser.add_argument("--man-dir", required=True)
    parser.add_argument("--plugin-dir", help="the packages' plugin directory (the .so files)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "plugins" / "module_utils" / "slurm_schema_data.py"))
    args = parser.parse_args()
    schema, plugins = generate(args.man_dir, args.plugin_dir)
    out = Path(args.out)
    versions = {}
    if out.exists():
        scope = {}
        exec(compile(out.read_text(), str(out), "exec"), scope)  # noqa: S102 - our own generated file
        versions = scope.get("SCHEMAS", {})
    versions[args.version] = {"package": args.package_version, "files": schema, "plugins": plugins}
    body = json.dumps(versions, indent=4, sort_keys=True)
    out.write_text(
        "# Copyright: (c) 2026, aicluster.slurm contributors\n"
        "# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)\n"
        '"""Generated by tools/gen_slurm_schema.py from the Slurm packages\' man pages; do not edit.\n\n'
        "SCHEMAS[series] = {package, files: {part: {lower name: [Name, type, choices]}}, plugins}.\n"
        '"""\n\n'
        "from __future__ import absolute_import, division, print_function\n\n"
        "__metaclass__ = type\n\n"
        "# fmt: off\n"
        "SCHEMAS = " + body + "\n"
        "# fmt: on\n"
    )
    counts = ", ".join("%s %d" % (part, len(keys)) for part, keys in sorted(schema.items()))
    print("%s: Slurm %s: %s; %d plugins" % (out, args.version, counts, len(plugins)))


if __name__ == "__main__":
    main()
