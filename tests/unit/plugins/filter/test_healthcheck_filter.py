"""Unit tests for plugins/filter/healthcheck.py: the filters wrap module_utils/healthcheck and raise filter errors."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.healthcheck import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import healthcheck

FILTERS = FilterModule().filters()
NODE = {"name": "gpu01", "real_memory_mb": 515000, "gpu_files": []}


def test_filter_module():
    assert sorted(FILTERS) == ["healthcheck_config", "healthcheck_findings", "healthcheck_settings"]
    for name, function in FILTERS.items():
        assert function.__wrapped__ is getattr(healthcheck, name)


def test_bad_settings_are_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="healthcheck_skip: clok not a check; the checks are gres_devices"):
        FILTERS["healthcheck_config"](NODE, {"skip": ["clok"]})
    with pytest.raises(AnsibleFilterError, match="healthcheck_disk_free_mb: /scratch: 'lots' is not a whole number of MiB"):
        FILTERS["healthcheck_settings"]({"disk_free_mb": {"/scratch": "lots"}})
    assert FILTERS["healthcheck_findings"]({"skip": ["clock"]}) == []
