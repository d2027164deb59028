"""Unit tests for plugins/filter/monitoring.py: errors reach Ansible as filter errors."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.monitoring import FilterModule

FILTERS = FilterModule().filters()


def test_input_errors_lists_each_bad_threshold():
    errors = FILTERS["monitoring_input_errors"]({"prometheus_alert_disk_used_max_percent": 101, "prometheus_alert_gpu_util_min_percent": 70})
    assert errors == ["prometheus_alert_disk_used_max_percent: 101 is outside 0-100; set a value from 0 to 100, e.g. 70"]


def test_a_bad_scrape_job_is_a_filter_error():
    settings = {"scrape_interval": "30s", "evaluation_interval": "30s", "self": "localhost:9090", "jobs": [{"name": "x", "port": 1, "hosts": ["ghost"]}]}
    with pytest.raises(AnsibleFilterError, match="not in the inventory"):
        FILTERS["monitoring_prometheus_config"](settings, {"all": []})


def test_regex_filter():
    assert FILTERS["monitoring_regex"](["/a", "/b"]) == "/a|/b"
