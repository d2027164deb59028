# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pinned, checksummed binaries (roles/pinned_binary): the rules for their sources and checksums, and the build plan.

One home for what roles/minio and roles/exporters both install. A binary
comes from one of three sources, each pinned:

* ``go``: ``go install <package>@<version>`` on the control node; the Go
  checksum database's hash of the module (``go_sum``) must be in the build
  (``go version -m`` prints it on the module line);
* ``url``: a site mirror, fetched by each host and checked against ``sha256``;
* ``file``: a binary on the control node, checked against ``sha256``.

A spec names the user's variables through ``variable``, the prefix of their
names: ``minio_`` (flat variables: ``minio_sha256``, and ``minio_source`` in
the fix) or ``exporters_install.slurm_exporter.`` (keys of a dict: the
message starts with ``exporters_install.slurm_exporter.sha256`` and the fix
says ``source``). ``check_id`` is the findings' id, ``{kind}`` replaced by
SOURCE, MODULE, VERSION, CHECKSUM, URL, FILE or GO.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

SOURCES = ("go", "url", "file")
DEFAULT_CHECK_ID = "PIN-{kind}"

SHA256 = re.compile(r"^[0-9a-f]{64}$")
GO_SUM = re.compile(r"^h1:[A-Za-z0-9+/]{43}=$")
# A release tag or a pseudo-version: never a branch, a commit or "latest".
GO_VERSION = re.compile(r"^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+incompatible)?$")
GO_PATH = re.compile(r"^[a-z0-9.-]+\.[a-z]{2,}(/[A-Za-z0-9._~-]+)+$")
URL = re.compile(r"^(https?|file)://\S+$")
_MAJOR = re.compile(r"^v[0-9]+$")
_GO_RELEASE = re.compile(r"^go([0-9]+(?:\.[0-9]+)*)")


def _variable(spec, key):
    """The user's name for ``key``: ``minio_sha256``, ``exporters_install.x.sha256``."""
    return "%s%s" % (spec.get("variable") or "", key)


def _setting(spec, key):
    """``key`` as the fix names it: the whole variable, or the key beside it in the same dict."""
    prefix = spec.get("variable") or ""
    return key if prefix.endswith(".") else prefix + key


def _finding(spec, kind, key, message):
    variable = _variable(spec, key)
    check_id = (spec.get("check_id") or DEFAULT_CHECK_ID).format(kind=kind)
    return finding(check_id, "%s: %s" % (variable, message), variable)


def _go_findings(spec):
    module = str(spec.get("module") or "")
    if not GO_PATH.match(module):
        yield _finding(spec, "MODULE", "module", "%r is not a Go module path; give the module, e.g. github.com/sckyzo/slurm_exporter" % module)
        return
    package = str(spec.get("package") or module)
    if package != module and not package.startswith(module + "/"):
        yield _finding(
            spec, "MODULE", "package", "%r is not a package of module %s; give the main package's path, e.g. %s/cmd/<name>" % (package, module, module)
        )
    version = str(spec.get("version") or "")
    if not GO_VERSION.match(version):
        yield _finding(
            spec, "VERSION", "version", "%r is not a pinned module version; give a release tag such as v1.8.4 (`go list -m -versions %s`)" % (version, module)
        )
    go_sum = str(spec.get("go_sum") or "")
    if not GO_SUM.match(go_sum):
        yield _finding(
            spec,
            "CHECKSUM",
            "go_sum",
            "%r is not a Go module checksum; with %s=go the h1: hash of %s@%s is mandatory (`go mod download -json %s@%s`, field Sum)"
            % (go_sum, _setting(spec, "source"), module, version, module, version),
        )


def findings(spec):
    """Every problem with one binary's source, version and checksum, as findings (empty: all good)."""
    source = spec.get("source", "go")
    if source not in SOURCES:
        return [_finding(spec, "SOURCE", "source", "%r is not a source; use go, url or file" % (source,))]
    if source == "go":
        return list(_go_findings(spec))
    problems = []
    if source == "url" and not URL.match(str(spec.get("url") or "")):
        problems.append(
            _finding(
                spec, "URL", "url", "%r is not a URL; with %s=url give the binary's address on your mirror" % (spec.get("url") or "", _setting(spec, "source"))
            )
        )
    if source == "file" and not str(spec.get("file") or "").startswith("/"):
        problems.append(
            _finding(
                spec,
                "FILE",
                "file",
                "%r is not an absolute path; with %s=file give the binary's path on the control node" % (spec.get("file") or "", _setting(spec, "source")),
            )
        )
    if not str(spec.get("version") or "").strip():
        problems.append(_finding(spec, "VERSION", "version", "is missing; give the version of the binary you pinned"))
    sha256 = str(spec.get("sha256") or "")
    if not SHA256.match(sha256):
        problems.append(
            _finding(
                spec,
                "CHECKSUM",
                "sha256",
                "%r is not a sha256; with %s=%s the binary's checksum is mandatory: 64 lower-case hex digits (sha256sum <binary>)"
                % (sha256, _setting(spec, "source"), source),
            )
        )
    return problems


def _release(go_version):
    """``(1, 24, 4)`` from ``go1.24.4``; None when it names no release."""
    match = _GO_RELEASE.match(str(go_version or "").strip())
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def control_node_findings(spec, go_version, checksums):
    """What the control node lacks for one (valid) binary: Go for a go build, the file and its sha256 for a file.

    ``go_version``: what ``go env GOVERSION`` printed (empty: no go command;
    None: not read, nothing to build); ``checksums``: ``{path: sha256}`` of the control node's files, None for a
    file that does not exist.
    """
    source = spec.get("source", "go")
    if source == "go" and go_version is not None:
        minimum = str(spec.get("go_min") or "")
        release = _release(go_version)
        wanted = _release("go" + minimum) if minimum else None
        if release is None or (wanted and release < wanted):
            return [
                _finding(
                    spec,
                    "GO",
                    "source",
                    "go builds %s with `go install` on the control node, which has %s; install Go%s (Debian: golang-go), or use %s=url or file with %s"
                    % (
                        spec.get("module"),
                        str(go_version or "").strip() or "no go command",
                        " %s or newer" % minimum if minimum else "",
                        _setting(spec, "source"),
                        _setting(spec, "sha256"),
                    ),
                )
            ]
    if source == "file":
        path = spec.get("file")
        checksum = (checksums or {}).get(path)
        if checksum is None:
            return [_finding(spec, "FILE", "file", "%s does not exist on the control node; give the path of the binary" % path)]
        if checksum != spec.get("sha256"):
            return [
                _finding(
                    spec,
                    "CHECKSUM",
                    "file",
                    "%s has sha256 %s, not %s=%s; check the file, or set %s to the checksum published with it"
                    % (path, checksum, _setting(spec, "sha256"), spec.get("sha256"), _setting(spec, "sha256")),
                )
            ]
    return []


def all_findings(specs, go_version=None, checksums=None):
    """Findings for every binary; the control node's (Go, files) for those with good input when ``go_version`` or ``checksums`` is given."""
    problems = []
    for spec in specs or []:
        found = findings(spec)
        if not found and (go_version is not None or checksums is not None):
            found = control_node_findings(spec, go_version, checksums)
        problems.extend(found)
    return problems


def binary_name(package):
    """The file `go install` writes for ``package`` (a /vN suffix is not the name)."""
    parts = str(package).rstrip("/").split("/")
    if len(parts) > 1 and _MAJOR.match(parts[-1]):
        return parts[-2]
    return parts[-1]


def plan(specs):
    """Each binary as the role installs it: ``{name, hosts, binary, source, version, url, file, sha256, variable}``.

    For go also ``{module, package, go_sum, build_dir, build, module_line}``:
    ``build`` is the binary on the control node, ``module_line`` what
    ``go version -m`` prints for the pinned module and its checksum. Never
    raises on bad input (preflight reports it).
    """
    entries = []
    for spec in specs or []:
        entry = {
            "name": str(spec.get("name") or binary_name(spec.get("binary") or "")),
            "hosts": list(spec.get("hosts") or []),
            "binary": spec.get("binary", ""),
            "source": spec.get("source", "go"),
            "version": str(spec.get("version") or ""),
            "url": spec.get("url") or "",
            "file": spec.get("file") or "",
            "sha256": spec.get("sha256") or "",
            "variable": spec.get("variable") or "",
        }
        if entry["source"] == "go":
            module = str(spec.get("module") or "")
            package = str(spec.get("package") or module)
            build_dir = str(spec.get("build_dir") or "").rstrip("/")
            go_sum = str(spec.get("go_sum") or "")
            entry.update(
                module=module,
                package=package,
                go_sum=go_sum,
                build_dir=build_dir,
                build="%s/%s" % (build_dir, binary_name(package)),
                module_line="mod\t%s\t%s\t%s" % (module, entry["version"], go_sum),
            )
        entries.append(entry)
    return entries
