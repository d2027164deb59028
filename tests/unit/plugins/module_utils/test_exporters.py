"""Exporters from pinned, checksummed binaries: input findings and the install plan."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import exporters, pinned_binary

GROUPS = {"all": ["ctl", "gpu1", "gpu2"], "slurm_exporter": ["ctl"], "dcgm_exporter": ["gpu1", "gpu2"], "empty": []}
GO = {
    "source": "go",
    "module": "github.com/sckyzo/slurm_exporter",
    "package": "github.com/sckyzo/slurm_exporter/cmd/slurm_exporter",
    "version": "v1.8.4",
    "go_sum": "h1:" + "A" * 43 + "=",
    "args": ["--web.listen-address=:9341"],
}
FILE = {"source": "file", "file": "/srv/mirror/dcgm-exporter", "version": "4.4.0-4.5.0", "sha256": "a" * 64}


def _messages(install):
    return [finding["message"] for finding in exporters.findings(install, GROUPS)]


def test_good_entries_have_no_findings():
    assert exporters.findings({"slurm_exporter": GO, "dcgm_exporter": FILE, "empty": dict(FILE, source="url", url="https://mirror.example/x")}, GROUPS) == []
    assert exporters.findings({}, GROUPS) == []


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            dict(FILE, sha256=""),
            "exporters_install.dcgm_exporter.sha256: '' is not a sha256; with source=file the binary's checksum is mandatory",
        ),
        (
            dict(FILE, source="url", url="https://mirror.example/dcgm-exporter", sha256="A" * 64),
            "exporters_install.dcgm_exporter.sha256: '" + "A" * 64 + "' is not a sha256; with source=url",
        ),
        (dict(FILE, version=""), "exporters_install.dcgm_exporter.version: is missing; give the version of the binary you pinned"),
        (dict(FILE, file="dcgm-exporter"), "exporters_install.dcgm_exporter.file: 'dcgm-exporter' is not an absolute path"),
        (dict(FILE, source="url"), "exporters_install.dcgm_exporter.url: '' is not a URL"),
        (dict(FILE, source="apt"), "exporters_install.dcgm_exporter.source: 'apt' is not a source; use go, url or file"),
        (dict(FILE, checksum="x"), "exporters_install.dcgm_exporter.checksum: is not a setting; use source, module"),
        (dict(FILE, args="--port 9400"), "exporters_install.dcgm_exporter.args: '--port 9400' is not a list of one-line arguments"),
        (dict(FILE, user="Root User"), "exporters_install.dcgm_exporter.user: 'Root User' is not a user name"),
        ("v1", "exporters_install.dcgm_exporter: 'v1' is not a mapping"),
    ],
)
def test_bad_binary_entries_name_the_variable_the_value_and_the_fix(spec, message):
    (found,) = _messages({"dcgm_exporter": spec})
    assert found.startswith(message), found


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"go_sum": ""},
            "exporters_install.slurm_exporter.go_sum: '' is not a Go module checksum;"
            " with source=go the h1: hash of github.com/sckyzo/slurm_exporter@v1.8.4 is mandatory",
        ),
        ({"version": "latest"}, "exporters_install.slurm_exporter.version: 'latest' is not a pinned module version; give a release tag"),
        ({"version": "main"}, "exporters_install.slurm_exporter.version: 'main' is not a pinned module version"),
        ({"module": "slurm_exporter"}, "exporters_install.slurm_exporter.module: 'slurm_exporter' is not a Go module path"),
        (
            {"package": "github.com/other/x"},
            "exporters_install.slurm_exporter.package: 'github.com/other/x' is not a package of module github.com/sckyzo/slurm_exporter",
        ),
    ],
)
def test_a_go_build_must_be_pinned_with_its_checksum(change, message):
    (found,) = _messages({"slurm_exporter": dict(GO, **change)})
    assert found.startswith(message), found


def test_pseudo_versions_are_pinned_too():
    assert _messages({"slurm_exporter": dict(GO, version="v0.0.0-20260212201848-7aac2a2c5b7c")}) == []


def test_an_exporter_names_an_inventory_group():
    (found,) = _messages({"slurm_exporters": GO})
    assert found.startswith("exporters_install.slurm_exporters: no inventory group slurm_exporters; name the group")
    assert exporters.findings([GO], GROUPS)[0]["id"] == "EXP-TYPE"


def test_the_plan_builds_go_on_the_control_node_and_installs_by_group():
    (dcgm, slurm) = exporters.plan({"slurm_exporter": GO, "dcgm_exporter": FILE}, GROUPS, "/cache/")
    assert slurm["hosts"] == ["ctl"]
    assert slurm["service"] == "aicluster-slurm-exporter"
    assert slurm["binary"] == "/usr/local/bin/slurm-exporter"
    assert slurm["exec_start"] == "/usr/local/bin/slurm-exporter --web.listen-address=:9341"
    assert slurm["build_dir"] == "/cache/slurm_exporter/v1.8.4"
    assert slurm["variable"] == "exporters_install.slurm_exporter."
    assert slurm["user"] == "prometheus"
    assert dcgm["hosts"] == ["gpu1", "gpu2"]
    assert "build_dir" not in dcgm
    assert dcgm["sha256"] == "a" * 64


def test_the_plan_is_a_pinned_binary_spec_with_its_build():
    (dcgm, slurm) = pinned_binary.plan(exporters.plan({"slurm_exporter": GO, "dcgm_exporter": FILE}, GROUPS, "/cache/"))
    assert slurm["build"] == "/cache/slurm_exporter/v1.8.4/slurm_exporter"
    assert slurm["module_line"] == "mod\tgithub.com/sckyzo/slurm_exporter\tv1.8.4\th1:" + "A" * 43 + "="
    assert slurm["binary"] == "/usr/local/bin/slurm-exporter"
    assert slurm["hosts"] == ["ctl"]
    assert "build" not in dcgm


def test_a_major_version_suffix_is_not_the_binary_name():
    (entry,) = pinned_binary.plan(exporters.plan({"slurm_exporter": dict(GO, module="example.org/x/v2", package="example.org/x/v2")}, GROUPS, "/c"))
    assert entry["build"] == "/c/slurm_exporter/v1.8.4/x"


def test_exec_start_quotes_what_systemd_would_split_or_expand():
    line = exporters.exec_start("/usr/local/bin/e", ["--collector.textfile", "--a=b c", "100%", "$HOME", 'say "hi"', 9400])
    assert line == '/usr/local/bin/e --collector.textfile "--a=b c" "100%%" "$$HOME" "say \\"hi\\"" 9400'
