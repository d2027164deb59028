# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus exporters installed from pinned, checksummed binaries (roles/exporters).

``exporters_install`` maps an inventory group to the exporter its hosts run;
Prometheus scrapes the same group (prometheus_scrape_jobs). An exporter comes
from one of three sources, each pinned:

* ``go``: ``go install <package>@<version>`` on the control node; the Go
  checksum database's hash of the module (``go_sum``) must match the build;
* ``url``: a site mirror, fetched by each host and checked against ``sha256``;
* ``file``: a binary on the control node, checked against ``sha256``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

VARIABLE = "exporters_install"
SOURCES = ("go", "url", "file")
KEYS = ("source", "module", "package", "version", "go_sum", "url", "file", "sha256", "args", "user", "packages")
BINARY_DIR = "/usr/local/bin"

_GROUP = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_GO_SUM = re.compile(r"^h1:[A-Za-z0-9+/]{43}=$")
# A release tag or a pseudo-version: never a branch, a commit or "latest".
_GO_VERSION = re.compile(r"^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+incompatible)?$")
_GO_PATH = re.compile(r"^[a-z0-9.-]+\.[a-z]{2,}(/[A-Za-z0-9._~-]+)+$")
_URL = re.compile(r"^(https?|file)://\S+$")
_USER = re.compile(r"^[a-z_][a-z0-9_-]*$")
# Characters an ExecStart argument may hold unquoted.
_PLAIN_ARG = re.compile(r"^[A-Za-z0-9_@+=:,./-]+$")


def _finding(identifier, name, key, message):
    variable = "%s.%s.%s" % (VARIABLE, name, key)
    return finding(identifier, "%s: %s" % (variable, message), variable)


def _source_findings(name, spec):
    source = spec.get("source", "go")
    if source == "go":
        module = str(spec.get("module") or "")
        if not _GO_PATH.match(module):
            yield _finding(
                "EXP-MODULE", name, "module", "%r is not a Go module path; give the exporter's module, e.g. github.com/sckyzo/slurm_exporter" % module
            )
            return
        package = str(spec.get("package") or module)
        if package != module and not package.startswith(module + "/"):
            yield _finding(
                "EXP-MODULE", name, "package", "%r is not a package of module %s; give the main package's path, e.g. %s/cmd/<name>" % (package, module, module)
            )
        version = str(spec.get("version") or "")
        if not _GO_VERSION.match(version):
            yield _finding(
                "EXP-VERSION",
                name,
                "version",
                "%r is not a pinned module version; give a release tag such as v1.8.4 (`go list -m -versions %s`)" % (version, module),
            )
        go_sum = str(spec.get("go_sum") or "")
        if not _GO_SUM.match(go_sum):
            yield _finding(
                "EXP-CHECKSUM",
                name,
                "go_sum",
                "%r is not a Go module checksum; with source=go the h1: hash of %s@%s is mandatory (`go mod download -json %s@%s`, field Sum)"
                % (go_sum, module, version, module, version),
            )
        return
    if source == "url" and not _URL.match(str(spec.get("url") or "")):
        yield _finding("EXP-URL", name, "url", "%r is not a URL; with source=url give the binary's address on your mirror" % (spec.get("url") or ""))
    if source == "file" and not str(spec.get("file") or "").startswith("/"):
        yield _finding(
            "EXP-FILE", name, "file", "%r is not an absolute path; with source=file give the binary's path on the control node" % (spec.get("file") or "")
        )
    if not str(spec.get("version") or "").strip():
        yield _finding(
            "EXP-VERSION", name, "version", "is missing; give the version of the binary you pinned (it names the service and shows in its description)"
        )
    sha256 = str(spec.get("sha256") or "")
    if not _SHA256.match(sha256):
        yield _finding(
            "EXP-CHECKSUM",
            name,
            "sha256",
            "%r is not a sha256; with source=%s the binary's checksum is mandatory: 64 lower-case hex digits (sha256sum <binary>)" % (sha256, source),
        )


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
        source = spec.get("source", "go")
        if source not in SOURCES:
            problems.append(_finding("EXP-SOURCE", name, "source", "%r is not a source; use go, url or file" % (source,)))
            continue
        problems.extend(_source_findings(name, spec))
        args = spec.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, (str, int)) and "\n" not in str(arg) for arg in args):
            problems.append(_finding("EXP-ARGS", name, "args", "%r is not a list of one-line arguments" % (args,)))
        if not _USER.match(str(spec.get("user", "prometheus"))):
            problems.append(_finding("EXP-USER", name, "user", "%r is not a user name" % (spec.get("user"),)))
    return problems


def _binary_name(package):
    """The file `go install` writes for ``package`` (a /vN suffix is not the name)."""
    parts = package.rstrip("/").split("/")
    if len(parts) > 1 and re.match(r"^v[0-9]+$", parts[-1]):
        return parts[-2]
    return parts[-1]


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
    user, packages, url, file, sha256}``, and for go ``{package, module,
    go_sum, build, module_line}``: ``build`` is the binary on the control node,
    ``module_line`` what ``go version -m`` prints for the pinned module.
    """
    exporters = []
    for name, spec in sorted((install or {}).items()):
        command = name.replace("_", "-")
        binary = "%s/%s" % (BINARY_DIR, command)
        entry = {
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
        }
        if entry["source"] == "go":
            package = spec.get("package") or spec["module"]
            directory = "%s/%s/%s" % (build_cache.rstrip("/"), name, entry["version"])
            entry.update(
                package=package,
                module=spec["module"],
                go_sum=spec.get("go_sum", ""),
                build_dir=directory,
                build="%s/%s" % (directory, _binary_name(package)),
                module_line="mod\t%s\t%s\t%s" % (spec["module"], entry["version"], spec.get("go_sum", "")),
            )
        exporters.append(entry)
    return exporters
