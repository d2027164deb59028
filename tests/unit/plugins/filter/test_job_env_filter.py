"""Unit tests for plugins/filter/job_env.py: the filters wrap module_utils/job_env and raise filter errors."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.job_env import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import job_env

FILTERS = FilterModule().filters()
PLAIN_NODE = {"hcas": [], "default_interface": "eth0", "npu": False, "npu_devices": []}


def test_the_filters_are_registered():
    assert sorted(FILTERS) == ["job_env_defaults", "job_env_findings", "job_env_script", "job_env_settings"]
    for name, function in FILTERS.items():
        assert function.__wrapped__ is getattr(job_env, name)


def test_bad_input_is_a_filter_error():
    message = r"job_env_vars: 'NCCL-DEBUG' is not a variable name; use letters, digits and _"
    with pytest.raises(AnsibleFilterError, match=message):
        FILTERS["job_env_settings"]({"NCCL-DEBUG": "WARN"}, {})
    with pytest.raises(AnsibleFilterError, match=message):
        FILTERS["job_env_script"](PLAIN_NODE, {"NCCL-DEBUG": "WARN"}, {})
    assert FILTERS["job_env_findings"]({"NCCL-DEBUG": "WARN"})[0]["message"].startswith("job_env_vars: 'NCCL-DEBUG' is not a variable name")
