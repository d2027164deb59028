# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus exporters installed from pinned, checksummed binaries (roles/exporters).

``exporters_install`` maps an inventory group to the exporter its hosts run;
Prometheus scrapes the same group (prometheus_scrape_jobs). Each binary is
pinned (source go, url or file); module_utils/pinned_binary holds the rules
for its source and checksum, roles/pinned_binary installs it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils import pinned_binary
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

VARIABLE = "exporters_install"
KEYS = ("source", "module", "package", "version", "go_sum", "url", "file", "sha256", "args", "user", "packages")
BINARY_DIR = "/usr/local/bin"

_GROUP = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_USER = re.compile(r"^[a-z_][a-z0-9_-]*$")
# Characters an ExecStart argument may hold unquoted.
_PLAIN_ARG = re.compile(r"^[A-Za-z0-9_@+=:,./-]+$")


def _finding(identifier, name, key, message):
    variable = "%s.%s.%s" % (VARIABLE, name, key)
    return finding(identifier, "%s: %s" % (variable, message), variable)


def _binary(name, spec):
    """How pinned_binary names this entry's settings in its findings."""
    return dict(spec, variable="%s.%s." % (VARIABLE, name), check_id="EXP-{kind}")


def findings(install, groups):
    """Every bad entry of exporters_install as ``{id, message}`` (empty: all good).

    ``groups``: Ansible's magic variable; each key must be an inventory group.
    """
    if not isinstance(install, dict):
        return [finding("EXP-TYPE", "%s: %r is not a mapping; give {inventory group: exporter}" % (VARIABLE, install), VARIABLE, install)]
    problems = []
    for name, spec in sorted(install.items()):
        if not _GROUP.match(str(name)) or name not in groups:
            problems.append(
                {
                    "id": "EXP-GROUP",
                    "message": "%s.%s: no inventory group %s; name the group whose hosts run this exporter (and that prometheus_scrape_jobs scrapes)"
                    % (VARIABLE, name, name),
                }
            )
            continue
        if not isinstance(spec, dict):
            where = "%s.%s" % (VARIABLE, name)
            problems.append(finding("EXP-TYPE", "%s: %r is not a mapping; give source, version and the checksum" % (where, spec), where, spec))
            continue
        unknown = sorted(set(spec) - set(KEYS))
        if unknown:
            problems.append(_finding("EXP-KEY", name, unknown[0], "is not a setting; use %s" % ", ".join(KEYS)))
        problems.extend(pinned_binary.findings(_binary(name, spec)))
        if spec.get("source", "go") not in pinned_binary.SOURCES:
            continue
        args = spec.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, (str, int)) and "\n" not in str(arg) for arg in args):
            problems.append(_finding("EXP-ARGS", name, "args", "%r is not a list of one-line arguments" % (args,)))
        if not _USER.match(str(spec.get("user", "prometheus"))):
            problems.append(_finding("EXP-USER", name, "user", "%r is not a user name" % (spec.get("user"),)))
    return problems


def exec_start(binary, args):
    """A systemd ExecStart line: each argument quoted where needed, % and $ escaped."""
    words = []
    for word in [binary] + [str(arg) for arg in args]:
        word = word.replace("%", "%%").replace("$", "$$")
        if not _PLAIN_ARG.match(word):
            word = '"%s"' % word.replace("\\", "\\\\").replace('"', '\\"')
        words.append(word)
    return " ".join(words)


def plan(install, groups, build_cache):
    """Every exporter, with where its binary is built and installed, in name order.

    Each: ``{name, group, hosts, source, version, service, binary, exec_start,
    user, packages, url, file, sha256, variable, check_id}``, and for go
    ``{package, module, go_sum, build_dir}``: a spec for roles/pinned_binary
    (module_utils/pinned_binary.plan adds the build and its module line).
    """
    exporters = []
    for name, spec in sorted((install or {}).items()):
        command = name.replace("_", "-")
        binary = "%s/%s" % (BINARY_DIR, command)
        entry = _binary(
            name,
            {
                "name": name,
                "group": name,
                "hosts": list(groups.get(name) or []),
                "source": spec.get("source", "go"),
                "version": str(spec.get("version")),
                "service": "aicluster-%s" % command,
                "binary": binary,
                "exec_start": exec_start(binary, spec.get("args", [])),
                "user": spec.get("user", "prometheus"),
                "packages": list(spec.get("packages") or []),
                "url": spec.get("url", ""),
                "file": spec.get("file", ""),
                "sha256": spec.get("sha256", ""),
            },
        )
        if entry["source"] == "go":
            package = spec.get("package") or spec.get("module")
            entry.update(
                package=package,
                module=spec.get("module"),
                go_sum=spec.get("go_sum", ""),
                build_dir="%s/%s/%s" % (build_cache.rstrip("/"), name, entry["version"]),
            )
        exporters.append(entry)
    return exporters
