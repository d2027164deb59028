"""Unit tests for plugins/filter/nvidia_driver.py: the filters wrap module_utils/nvidia_driver and raise filter errors."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.nvidia_driver import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import nvidia_driver

FILTERS = FilterModule().filters()


def test_filter_module_exposes_every_filter():
    assert sorted(FILTERS) == [
        "nvidia_apt_problems",
        "nvidia_change_problems",
        "nvidia_dkms_missing",
        "nvidia_driver_change",
        "nvidia_driver_packages",
        "nvidia_pinned_packages",
        "nvidia_plan_problems",
        "nvidia_removal_extra",
    ]
    for name, function in FILTERS.items():
        assert function.__wrapped__ is getattr(nvidia_driver, name)


def test_a_bad_plan_is_a_filter_error():
    assert FILTERS["nvidia_driver_packages"]("550.163.01", "debian", "open")["fabricmanager"] is None
    with pytest.raises(AnsibleFilterError, match=r"nvidia_driver_source='ubuntu': use debian or nvidia_repo"):
        FILTERS["nvidia_driver_packages"]("550.163.01", "ubuntu", "open")
    assert FILTERS["nvidia_plan_problems"]("550.163.01", "ubuntu", "open") == ["nvidia_driver_source='ubuntu': use debian or nvidia_repo"]
