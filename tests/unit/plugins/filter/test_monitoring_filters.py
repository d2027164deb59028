"""Unit tests for plugins/filter/monitoring.py: each filter is its module_utils function; errors reach Ansible as filter errors."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.monitoring import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import monitoring

FILTERS = FilterModule().filters()


def test_each_filter_is_its_module_utils_function():
    assert {name: getattr(function, "__wrapped__", function) for name, function in FILTERS.items()} == {
        "monitoring_prometheus_config": monitoring.prometheus_config,
        "monitoring_alertmanager_config": monitoring.alertmanager_config,
        "monitoring_findings": monitoring.input_findings,
        "monitoring_input_errors": monitoring.threshold_errors,
        "monitoring_major_version": monitoring.major_version,
        "monitoring_regex": monitoring.regex_alternatives,
        "monitoring_slurm_openmetrics": monitoring.slurm_openmetrics,
    }


def test_input_errors_lists_each_bad_threshold():
    errors = FILTERS["monitoring_input_errors"]({"prometheus_alert_disk_used_max_percent": 101, "prometheus_alert_gpu_util_min_percent": 70})
    assert errors == ["prometheus_alert_disk_used_max_percent: 101 is outside 0-100; set a value from 0 to 100, e.g. 70"]


def test_a_bad_scrape_job_is_a_filter_error():
    settings = {"scrape_interval": "30s", "evaluation_interval": "30s", "self": "localhost:9090", "jobs": [{"name": "x", "port": 1, "hosts": ["ghost"]}]}
    with pytest.raises(AnsibleFilterError, match="not in the inventory"):
        FILTERS["monitoring_prometheus_config"](settings, {"all": []})


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("monitoring_alertmanager_config", ([], {}), "give at least one receiver"),
        ("monitoring_major_version", ("x",), "cannot read a major version"),
    ],
)
def test_module_errors_are_filter_errors(name, args, message):
    with pytest.raises(AnsibleFilterError, match=message):
        FILTERS[name](*args)


def test_regex_filter():
    assert FILTERS["monitoring_regex"](["/a", "/b"]) == "/a|/b"
