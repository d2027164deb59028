import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import driver_compat, exporters, minio, preflight, slurm_schema
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding, from_messages, line, prefixed

SHAPE = {"id", "severity", "variable", "value", "message", "fix"}


def test_finding_has_every_key():
    assert finding("x", "m") == {"id": "x", "severity": "error", "variable": None, "value": None, "message": "m", "fix": None}
    assert finding("x", "m", "v", 1, "f", "warning", source="s")["source"] == "s"


def test_finding_refuses_an_unknown_severity():
    with pytest.raises(ValueError, match="severity 'fatal'"):
        finding("x", "m", severity="fatal")


@pytest.mark.parametrize(
    "findings",
    [
        preflight.inventory_findings({}, {"SelectType": "select/cgroup"}, [], "!!"),
        slurm_schema.check_parameters("slurm.conf", {"FooBar": 1, "SlurmctldTimeout": "x"}, "slurm_config"),
        minio.credential_findings("root", "short", "root", "short"),
        exporters.findings({"slurm_compute": {"nvidia": "nope"}}, {"slurm_compute": ["n1"]}),
        exporters.findings("nope", {}),
        [driver_compat._finding("kernel", "error", "m")],
    ],
    ids=["preflight", "schema", "minio", "exporters", "exporters-type", "driver_compat"],
)
def test_every_check_returns_the_shared_shape(findings):
    assert findings
    for item in findings:
        assert set(item) >= SHAPE, item
        assert item["severity"] in ("error", "warning", "info")


def test_filters_return_the_shared_shape():
    from ansible_collections.aicluster.slurm.plugins.filter import monitoring
    from ansible_collections.aicluster.slurm.plugins.module_utils import cann

    cann_findings = cann.cann_input_findings({"artifact_dir": "", "packages": "x"})
    threshold_findings = monitoring.monitoring_findings({}, {}, [], {}, {"prometheus_alert_gpu_temp_max_celsius": "hot"})
    assert cann_findings
    assert [f["variable"] for f in threshold_findings][:1] == ["prometheus_alert_gpu_temp_max_celsius"]
    for item in cann_findings + threshold_findings:
        assert set(item) >= SHAPE, item
        assert item["variable"]


def test_findings_name_their_variable():
    assert {f["variable"] for f in minio.credential_findings("root", "short", "root", "short")} >= {"minio_root_password"}
    assert preflight.check_munge_key("!!")[0]["variable"] == "slurm_munge_key"
    assert preflight.check_groups({})[0]["variable"] == "groups.slurmctld"


def test_from_messages_of_plain_messages():
    assert from_messages(["x=1: too big; lower it"], "nvidia_driver", "x") == [
        {"id": "nvidia_driver", "severity": "error", "variable": "x", "value": None, "message": "x=1: too big; lower it", "fix": None}
    ]
    assert from_messages([], "nvidia_driver", "x") == []


def test_line_and_prefixed_name_the_variable_first():
    item = {"id": "NV-CUDA", "severity": "error", "message": "nvidia_driver=570.172.08 cannot run CUDA 13.0"}
    assert line(prefixed(item, "accelerator_versions")) == "[NV-CUDA] accelerator_versions: nvidia_driver=570.172.08 cannot run CUDA 13.0"
    assert prefixed(item, "v") == dict(item, message="v: nvidia_driver=570.172.08 cannot run CUDA 13.0")
    assert item["message"].startswith("nvidia_driver")  # the input is not modified
    assert line({"id": "secrets", "severity": "error", "message": "bad key"}) == "[secrets] bad key"
