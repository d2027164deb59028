"""Unit tests for plugins/module_utils/healthcheck.py: the checker's configuration and the checks of the role's variables."""

import pytest
from repo_scripts import load

from ansible_collections.aicluster.slurm.plugins.module_utils.healthcheck import (
    CHECKS,
    HealthcheckError,
    healthcheck_config,
    healthcheck_findings,
    healthcheck_settings,
)

NODE = {
    "name": "gpu01",
    "real_memory_mb": 515000,
    "gpu_files": ["/dev/nvidia0", "/dev/nvidia1"],
    "driver": {"version": "550.163.01", "packages": ["nvidia-kernel-dkms", "nvidia-smi"]},
    "npu_links": {"command": "/usr/local/Ascend/driver/tools/hccn_tool", "devices": [0, 1]},
}
SETTINGS = {"timeout": 5, "disk_free_mb": {"/tmp": 1024, "/var/lib/slurm/slurmd": 512}, "skip": []}


def test_a_gpu_node_checks_its_devices_the_driver_and_xids():
    config = healthcheck_config(NODE, SETTINGS)
    assert config["node"] == "gpu01"
    assert config["timeout"] == 5
    assert sorted(config["checks"]) == sorted(CHECKS)
    assert config["checks"]["gres_devices"] == {"files": ["/dev/nvidia0", "/dev/nvidia1"]}
    assert config["checks"]["smi"]["expect_count"] == 2
    assert config["checks"]["memory"] == {"real_memory_mb": 515000}
    assert config["checks"]["disk_free"] == {"paths": {"/tmp": 1024, "/var/lib/slurm/slurmd": 512}}
    assert config["checks"]["ib_ports"] == {"sysfs": "/sys/class/infiniband"}
    assert config["checks"]["driver"] == {"version": "550.163.01", "packages": ["nvidia-kernel-dkms", "nvidia-smi"], "gdr": False}
    assert config["checks"]["npu_links"] == {"command": ["/usr/local/Ascend/driver/tools/hccn_tool"], "devices": [0, 1]}


def test_a_node_without_gpus_skips_the_gpu_checks():
    config = healthcheck_config(dict(NODE, gpu_files=[], driver={}, npu_links={}), SETTINGS)
    assert not {"gres_devices", "smi", "xid", "driver", "npu_links"} & set(config["checks"])


def test_skip_and_infiniband_settings():
    config = healthcheck_config(NODE, dict(SETTINGS, skip=["clock", "smi"], ib_rate_gbps=400, ib_hcas=["mlx5_0"]))
    assert "clock" not in config["checks"]
    assert "smi" not in config["checks"]
    assert config["checks"]["ib_ports"] == {"sysfs": "/sys/class/infiniband", "rate_gbps": 400, "hcas": ["mlx5_0"]}


def test_unknown_skip_names_the_checks():
    with pytest.raises(HealthcheckError, match="healthcheck_skip: clok not a check; the checks are gres_devices"):
        healthcheck_config(NODE, dict(SETTINGS, skip=["clok"]))


@pytest.mark.parametrize("value", ["lots", -1, True, None])
def test_bad_free_space_names_the_path_and_value(value):
    with pytest.raises(HealthcheckError, match="healthcheck_disk_free_mb: /scratch: .* is not a whole number of MiB"):
        healthcheck_config(NODE, dict(SETTINGS, disk_free_mb={"/scratch": value}))


def test_settings_alone_are_checked_for_preflight():
    assert healthcheck_settings({"skip": ["clock"], "disk_free_mb": {"/tmp": "512"}})["disk_free_mb"] == {"/tmp": 512}
    with pytest.raises(HealthcheckError, match="healthcheck_skip: smi2 not a check"):
        healthcheck_settings({"skip": ["smi2"]})


def test_config_loads_in_the_checker():
    # The commands left out are the checker's defaults; the checker must accept the config as written.
    import json

    nhc = load("roles/healthcheck/files/aicluster_nhc.py", "aicluster_nhc_config_test")
    parsed = nhc.parse_config(json.loads(json.dumps(healthcheck_config(NODE, SETTINGS))))
    assert parsed["checks"]["smi"]["command"] == ["nvidia-smi", "-L"]
    assert parsed["checks"]["smi"]["expect_count"] == 2
    assert parsed["checks"]["driver"]["module"] == "/sys/module/nvidia/version"


def test_healthcheck_findings_name_the_variable():
    (finding,) = healthcheck_findings({"skip": ["gpu-temp"]})
    assert finding["id"] == "healthcheck"
    assert finding["message"].startswith("healthcheck_skip: gpu-temp not a check")
    assert healthcheck_findings({"skip": ["clock"]}) == []


def test_a_raw_exception_names_the_variable():
    (finding,) = healthcheck_findings({"disk_free_mb": {"/": "2G"}})
    assert finding["message"].startswith("healthcheck_")
