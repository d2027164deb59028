"""Pinned, checksummed binaries: the rules for source and checksum, the control node's checks, the build plan."""

import pytest

from ansible_collections.aicluster.slurm.plugins.filter.pinned_binary import pinned_binary_findings
from ansible_collections.aicluster.slurm.plugins.module_utils import pinned_binary

GO_SUM = "h1:" + "A" * 43 + "="
# As roles/minio/vars/main.yml gives it (flat variables minio_*).
MINIO = {
    "name": "minio",
    "hosts": ["s1", "s2"],
    "binary": "/usr/local/bin/minio",
    "source": "go",
    "module": "github.com/minio/minio",
    "version": "v0.0.0-20260212201848-7aac2a2c5b7c",
    "go_sum": GO_SUM,
    "go_min": "1.24",
    "build_dir": "/cache/minio/v0.0.0-20260212201848-7aac2a2c5b7c",
    "url": "",
    "file": "",
    "sha256": "",
    "variable": "minio_",
    "check_id": "minio_binary",
}
# As module_utils/exporters.plan gives it (keys of exporters_install.<group>).
EXPORTER = {
    "name": "dcgm_exporter",
    "hosts": ["gpu1"],
    "binary": "/usr/local/bin/dcgm-exporter",
    "source": "file",
    "file": "/srv/mirror/dcgm-exporter",
    "version": "4.4.0-4.5.0",
    "sha256": "a" * 64,
    "variable": "exporters_install.dcgm_exporter.",
    "check_id": "EXP-{kind}",
}


def _messages(spec):
    return [found["message"] for found in pinned_binary.findings(spec)]


def test_good_binaries_have_no_findings():
    assert pinned_binary.findings(MINIO) == []
    assert pinned_binary.findings(EXPORTER) == []
    assert pinned_binary.findings(dict(EXPORTER, source="url", url="https://mirror.example/x")) == []
    assert pinned_binary.all_findings([MINIO, EXPORTER]) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"source": "url", "url": "http://mirror.example/minio"},
            "minio_sha256: '' is not a sha256; with minio_source=url the binary's checksum is mandatory: 64 lower-case hex digits",
        ),
        ({"source": "url", "sha256": "b" * 64}, "minio_url: '' is not a URL; with minio_source=url give the binary's address"),
        ({"source": "file", "file": "minio", "sha256": "b" * 64}, "minio_file: 'minio' is not an absolute path; with minio_source=file"),
        ({"source": "apt"}, "minio_source: 'apt' is not a source; use go, url or file"),
        ({"go_sum": "h1:short"}, "minio_go_sum: 'h1:short' is not a Go module checksum; with minio_source=go the h1: hash of github.com/minio/minio@"),
        ({"version": "RELEASE.2025-10-15T17-29-55Z"}, "minio_version: 'RELEASE.2025-10-15T17-29-55Z' is not a pinned module version"),
    ],
)
def test_flat_variables_are_named_whole_in_the_message_and_the_fix(change, message):
    (found,) = pinned_binary.findings(dict(MINIO, **change))
    assert found["message"].startswith(message), found["message"]
    assert found["id"] == "minio_binary"
    assert found["variable"] == message.split(":")[0]


@pytest.mark.parametrize(
    ("change", "check_id", "message"),
    [
        ({"sha256": "A" * 64}, "EXP-CHECKSUM", "exporters_install.dcgm_exporter.sha256: '" + "A" * 64 + "' is not a sha256; with source=file"),
        ({"version": " "}, "EXP-VERSION", "exporters_install.dcgm_exporter.version: is missing; give the version of the binary you pinned"),
        ({"source": "go", "module": "dcgm"}, "EXP-MODULE", "exporters_install.dcgm_exporter.module: 'dcgm' is not a Go module path"),
    ],
)
def test_keys_of_a_dict_are_named_beside_each_other(change, check_id, message):
    (found,) = pinned_binary.findings(dict(EXPORTER, **change))
    assert found["id"] == check_id
    assert found["message"].startswith(message), found["message"]


def test_the_default_check_id():
    spec = {key: value for key, value in MINIO.items() if key != "check_id"}
    assert [found["id"] for found in pinned_binary.findings(dict(spec, go_sum=""))] == ["PIN-CHECKSUM"]


@pytest.mark.parametrize(
    ("go_version", "message"),
    [
        ("", "minio_source: go builds github.com/minio/minio with `go install` on the control node, which has no go command; install Go 1.24 or newer"),
        ("go1.22.2", "minio_source: go builds github.com/minio/minio with `go install` on the control node, which has go1.22.2; install Go 1.24"),
        ("devel go1.25", "which has devel go1.25; install Go 1.24 or newer (Debian: golang-go), or use minio_source=url or file with minio_sha256"),
    ],
)
def test_a_go_build_needs_go_on_the_control_node(go_version, message):
    (found,) = pinned_binary.control_node_findings(MINIO, go_version, {})
    assert message in found["message"], found["message"]
    assert found["id"] == "minio_binary"


def test_go_new_enough_or_not_read():
    assert pinned_binary.control_node_findings(MINIO, "go1.24.4", None) == []
    assert pinned_binary.control_node_findings(MINIO, "go1.25", None) == []
    assert pinned_binary.control_node_findings(MINIO, None, None) == []
    exporter = dict(EXPORTER, source="go", module="github.com/prometheus/node_exporter", go_min=None)
    assert pinned_binary.control_node_findings(exporter, "go1.19", None) == []
    (found,) = pinned_binary.control_node_findings(exporter, "", None)
    assert "which has no go command; install Go (Debian: golang-go), or use source=url or file with sha256" in found["message"]


def test_a_file_must_exist_with_its_sha256():
    (missing,) = pinned_binary.control_node_findings(EXPORTER, None, {"/srv/mirror/dcgm-exporter": None})
    assert missing["message"] == (
        "exporters_install.dcgm_exporter.file: /srv/mirror/dcgm-exporter does not exist on the control node; give the path of the binary"
    )
    (wrong,) = pinned_binary.control_node_findings(EXPORTER, None, {"/srv/mirror/dcgm-exporter": "b" * 64})
    assert wrong["id"] == "EXP-CHECKSUM"
    assert wrong["message"].startswith("exporters_install.dcgm_exporter.file: /srv/mirror/dcgm-exporter has sha256 " + "b" * 64 + ", not sha256=")
    assert pinned_binary.control_node_findings(EXPORTER, None, {"/srv/mirror/dcgm-exporter": "a" * 64}) == []
    minio = dict(MINIO, source="file", file="/srv/minio", sha256="a" * 64)
    (wrong,) = pinned_binary.control_node_findings(minio, None, {"/srv/minio": "c" * 64})
    assert "not minio_sha256=" + "a" * 64 + "; check the file, or set minio_sha256" in wrong["message"]


def test_the_control_node_is_checked_only_for_good_input():
    bad = dict(EXPORTER, sha256="")
    assert [found["id"] for found in pinned_binary.all_findings([bad], None, {})] == ["EXP-CHECKSUM"]
    assert [found["id"] for found in pinned_binary.all_findings([EXPORTER], None, {})] == ["EXP-FILE"]


def test_the_filter_reads_the_registered_results():
    stats = {
        "results": [
            {"item": {"file": "/srv/mirror/dcgm-exporter"}, "stat": {"exists": True, "checksum": "a" * 64}},
        ]
    }
    assert pinned_binary_findings([EXPORTER, MINIO], {"rc": 0, "stdout": "go1.24.1"}, stats) == []
    assert pinned_binary_findings([MINIO], {"skipped": True}, {"results": []}) == []
    (no_go,) = pinned_binary_findings([MINIO], {"rc": 2, "stdout": ""}, {"results": []})
    assert "no go command" in no_go["message"]
    gone = {"results": [{"item": {"file": "/srv/mirror/dcgm-exporter"}, "stat": {"exists": False}}]}
    (missing,) = pinned_binary_findings([EXPORTER], None, gone)
    assert "does not exist" in missing["message"]


def test_the_plan_builds_go_once_per_version_and_names_the_module_line():
    (entry,) = pinned_binary.plan([MINIO])
    assert entry["build"] == "/cache/minio/v0.0.0-20260212201848-7aac2a2c5b7c/minio"
    assert entry["module_line"] == "mod\tgithub.com/minio/minio\tv0.0.0-20260212201848-7aac2a2c5b7c\t" + GO_SUM
    assert entry["package"] == "github.com/minio/minio"
    assert entry["hosts"] == ["s1", "s2"]
    (other,) = pinned_binary.plan([EXPORTER])
    assert "build" not in other
    assert other["file"] == "/srv/mirror/dcgm-exporter"


def test_the_plan_never_raises_on_bad_input():
    (entry,) = pinned_binary.plan([{"source": "go"}])
    assert entry["build"] == "/"
    assert pinned_binary.plan(None) == []


@pytest.mark.parametrize(
    ("package", "name"),
    [("github.com/minio/minio", "minio"), ("example.org/x/v2", "x"), ("github.com/a/b/cmd/b_exporter", "b_exporter")],
)
def test_binary_name_is_the_file_go_install_writes(package, name):
    assert pinned_binary.binary_name(package) == name
