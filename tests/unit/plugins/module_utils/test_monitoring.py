"""Unit tests for plugins/module_utils/monitoring.py: Prometheus targets from the inventory."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import monitoring

GROUPS = {
    "all": ["ctl.example.org", "dbd", "node1", "node2", "mon"],
    "slurmctld": ["ctl.example.org"],
    "slurmdbd": ["dbd"],
    "slurm_compute": ["node1", "node2"],
    "monitoring": ["mon"],
    "ungrouped": [],
}
JOBS = [
    {"name": "node", "port": 9100, "groups": ["slurmctld", "slurmdbd", "slurm_compute", "monitoring"]},
    {"name": "dcgm", "port": 9400, "groups": ["dcgm_exporter"]},
]


def _settings(**overrides):
    settings = {
        "cluster": "lab",
        "scrape_interval": "30s",
        "evaluation_interval": "15s",
        "rule_files": ["/etc/prometheus/aicluster-rules/*.yml"],
        "alertmanagers": ["localhost:9093"],
        "self": "localhost:9090",
        "jobs": JOBS,
        "addresses": {},
    }
    settings.update(overrides)
    return settings


def _targets(config, job):
    (scrape,) = [s for s in config["scrape_configs"] if s["job_name"] == job]
    return [(c["targets"][0], c.get("labels", {}).get("host")) for c in scrape["static_configs"]]


def test_every_inventory_node_is_a_node_exporter_target_with_its_short_name():
    config = monitoring.prometheus_config(_settings(), GROUPS)
    assert _targets(config, "node") == [
        ("ctl.example.org:9100", "ctl"),
        ("dbd:9100", "dbd"),
        ("node1:9100", "node1"),
        ("node2:9100", "node2"),
        ("mon:9100", "mon"),
    ]


def test_a_node_added_to_the_inventory_gets_a_target():
    groups = dict(GROUPS, slurm_compute=["node1", "node2", "node3"], all=GROUPS["all"] + ["node3"])
    config = monitoring.prometheus_config(_settings(), groups)
    assert ("node3:9100", "node3") in _targets(config, "node")


def test_a_host_in_two_groups_is_scraped_once():
    groups = dict(GROUPS, monitoring=["ctl.example.org"])
    targets = _targets(monitoring.prometheus_config(_settings(), groups), "node")
    assert [target for target, _host in targets].count("ctl.example.org:9100") == 1


def test_a_job_whose_groups_are_absent_is_left_out():
    config = monitoring.prometheus_config(_settings(), GROUPS)
    assert [s["job_name"] for s in config["scrape_configs"]] == ["prometheus", "alertmanager", "node"]


def test_gpu_exporter_targets_come_from_their_group():
    config = monitoring.prometheus_config(_settings(), dict(GROUPS, dcgm_exporter=["node2"]))
    assert _targets(config, "dcgm") == [("node2:9400", "node2")]


def test_minio_job_keeps_its_metrics_path_and_scheme():
    jobs = [{"name": "minio", "port": 9000, "groups": ["minio"], "metrics_path": "/minio/v2/metrics/cluster", "scheme": "https"}]
    config = monitoring.prometheus_config(_settings(jobs=jobs), dict(GROUPS, minio=["node1", "node2"]))
    (scrape,) = [s for s in config["scrape_configs"] if s["job_name"] == "minio"]
    assert scrape["metrics_path"] == "/minio/v2/metrics/cluster"
    assert scrape["scheme"] == "https"
    assert _targets(config, "minio") == [("node1:9000", "node1"), ("node2:9000", "node2")]


def test_addresses_override_the_inventory_name():
    config = monitoring.prometheus_config(_settings(addresses={"node1": "10.0.0.11"}), GROUPS)
    assert ("10.0.0.11:9100", "node1") in _targets(config, "node")


def test_a_job_host_outside_the_inventory_is_refused():
    jobs = [{"name": "extra", "port": 9100, "hosts": ["ghost"]}]
    with pytest.raises(monitoring.MonitoringError, match=r"job extra: host 'ghost' is not in the inventory"):
        monitoring.prometheus_config(_settings(jobs=jobs), GROUPS)


@pytest.mark.parametrize("port", [0, 70000, "9100", True, None])
def test_a_bad_port_is_refused(port):
    with pytest.raises(monitoring.MonitoringError, match="is not a TCP port"):
        monitoring.scrape_configs([{"name": "node", "port": port, "groups": ["slurm_compute"]}], GROUPS)


def test_duplicate_job_names_are_refused():
    with pytest.raises(monitoring.MonitoringError, match="used twice"):
        monitoring.scrape_configs(JOBS + [JOBS[0]], GROUPS)


def test_prometheus_2_gets_no_3x_only_keys():
    config = monitoring.prometheus_config(_settings(major=2), GROUPS)
    assert all("fallback_scrape_protocol" not in s for s in config["scrape_configs"])
    assert config["alerting"]["alertmanagers"][0]["api_version"] == "v2"


def test_prometheus_3_gets_a_fallback_scrape_protocol_on_every_job():
    config = monitoring.prometheus_config(_settings(major=3), GROUPS)
    assert {s.get("fallback_scrape_protocol") for s in config["scrape_configs"]} == {"PrometheusText0.0.4"}


def test_an_unknown_major_version_is_refused():
    with pytest.raises(monitoring.MonitoringError, match="major version 4 is not supported"):
        monitoring.prometheus_config(_settings(major=4), GROUPS)


def test_a_bad_interval_names_the_variable():
    with pytest.raises(monitoring.MonitoringError, match="prometheus_scrape_interval: '30' is not a Prometheus duration"):
        monitoring.prometheus_config(_settings(scrape_interval="30"), GROUPS)


def test_the_global_section():
    config = monitoring.prometheus_config(_settings(), GROUPS)
    assert config["global"] == {"scrape_interval": "30s", "evaluation_interval": "15s", "external_labels": {"cluster": "lab"}}
    assert config["rule_files"] == ["/etc/prometheus/aicluster-rules/*.yml"]


@pytest.mark.parametrize(
    ("version", "major"),
    [("2.53.3+ds1-2", 2), ("3.5.3+ds1-6", 3), ("1:3.0.0-1", 3), ("", 2), (None, 2)],
)
def test_major_version(version, major):
    assert monitoring.major_version(version) == major


def test_major_version_of_garbage():
    with pytest.raises(monitoring.MonitoringError, match="cannot read a major version"):
        monitoring.major_version("unknown")


def test_thresholds_within_0_to_100_pass():
    assert monitoring.threshold_errors({"a": 0, "b": 100, "c": 70.5, "d": "85"}) == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (120, "prometheus_alert_gpu_util_min_percent: 120 is outside 0-100; set a value from 0 to 100, e.g. 70"),
        (-1, "prometheus_alert_gpu_util_min_percent: -1 is outside 0-100"),
        ("seventy", "prometheus_alert_gpu_util_min_percent: 'seventy' is not a number"),
        (True, "prometheus_alert_gpu_util_min_percent: True is not a number"),
        (None, "prometheus_alert_gpu_util_min_percent: None is not a number"),
    ],
)
def test_bad_thresholds_name_variable_value_and_fix(value, message):
    (error,) = monitoring.threshold_errors({"prometheus_alert_gpu_util_min_percent": value})
    assert error.startswith(message)


def test_alertmanager_route_defaults_to_the_first_receiver():
    config = monitoring.alertmanager_config([{"name": "ops"}, {"name": "pager"}], {"group_by": ["alertname"]})
    assert config == {"route": {"group_by": ["alertname"], "receiver": "ops"}, "receivers": [{"name": "ops"}, {"name": "pager"}]}


def test_alertmanager_route_to_an_unknown_receiver_is_refused():
    with pytest.raises(monitoring.MonitoringError, match="receiver 'pagr' is not one of"):
        monitoring.alertmanager_config([{"name": "ops"}], {"receiver": "pagr"})


def test_alertmanager_needs_a_receiver():
    with pytest.raises(monitoring.MonitoringError, match="give at least one receiver"):
        monitoring.alertmanager_config([], {})


def test_regex_alternatives_escape_each_value():
    assert monitoring.regex_alternatives(["/", "/var/lib/slurm", "/ckpt.d"]) == r"/|/var/lib/slurm|/ckpt\.d"
    assert monitoring.regex_alternatives([]) == "$^"


def test_input_findings_name_each_bad_input():
    findings = monitoring.input_findings(
        {"jobs": [{"name": "x", "port": 1, "hosts": ["ghost"]}]}, {"all": []}, [], {}, {"prometheus_alert_gpu_temp_max_celsius": "hot"}
    )
    assert [(f["id"], f["variable"]) for f in findings] == [
        ("monitoring", "prometheus_alert_gpu_temp_max_celsius"),
        ("monitoring", "prometheus_scrape_jobs"),
        ("monitoring", "prometheus_alertmanager_receivers"),
    ]
    assert "give at least one receiver" in findings[2]["message"]
    assert monitoring.input_findings(_settings(), GROUPS, [{"name": "ops"}], {}, {}) == []


OPENMETRICS = {"MetricsType": "metrics/openmetrics", "SlurmctldPort": 6817}
ENDPOINTS = ["jobs", "nodes", "partitions", "scheduler"]


def _slurmctld(config, **overrides):
    groups = overrides.pop("groups", dict(GROUPS, slurmctld=["ctl.example.org", "ctl2"]))
    settings = _settings(slurm_config=config, slurm_endpoints=overrides.pop("endpoints", ENDPOINTS), **overrides)
    jobs = [s for s in monitoring.prometheus_config(settings, groups)["scrape_configs"] if s["job_name"] == "slurmctld"]
    return jobs[0] if jobs else None


def test_without_metrics_type_slurmctld_is_not_scraped():
    assert _slurmctld({"SlurmctldPort": 6817}) is None
    assert _slurmctld({}) is None


def test_every_controller_and_endpoint_is_a_target_with_its_path():
    job = _slurmctld(OPENMETRICS)
    assert [(c["targets"][0], c["labels"]["host"], c["labels"]["endpoint"], c["labels"]["__metrics_path__"]) for c in job["static_configs"]] == [
        ("ctl.example.org:6817", "ctl", "jobs", "/metrics/jobs"),
        ("ctl.example.org:6817", "ctl", "nodes", "/metrics/nodes"),
        ("ctl.example.org:6817", "ctl", "partitions", "/metrics/partitions"),
        ("ctl.example.org:6817", "ctl", "scheduler", "/metrics/scheduler"),
        ("ctl2:6817", "ctl2", "jobs", "/metrics/jobs"),
        ("ctl2:6817", "ctl2", "nodes", "/metrics/nodes"),
        ("ctl2:6817", "ctl2", "partitions", "/metrics/partitions"),
        ("ctl2:6817", "ctl2", "scheduler", "/metrics/scheduler"),
    ]


def test_slurmctld_port_range_and_addresses():
    job = _slurmctld(dict(OPENMETRICS, SlurmctldPort="7817-7818"), endpoints=["nodes"], addresses={"ctl2": "10.0.0.2"})
    assert [c["targets"][0] for c in job["static_configs"]] == ["ctl.example.org:7817", "10.0.0.2:7817"]


def test_slurmctld_job_on_prometheus_3_has_the_fallback_protocol():
    # slurmctld answers Content-Type: text/plain without a version.
    assert _slurmctld(OPENMETRICS, major=3)["fallback_scrape_protocol"] == "PrometheusText0.0.4"
    assert "fallback_scrape_protocol" not in _slurmctld(OPENMETRICS, major=2)


@pytest.mark.parametrize("endpoints", [["nodes", "metrics"], []])
def test_unknown_or_no_endpoints_are_refused(endpoints):
    with pytest.raises(monitoring.MonitoringError, match="prometheus_slurm_endpoints: .*jobs-users-accts"):
        _slurmctld(OPENMETRICS, endpoints=endpoints)


def test_a_user_job_named_slurmctld_is_refused_when_the_endpoints_are_scraped():
    jobs = JOBS + [{"name": "slurmctld", "port": 9999, "groups": ["slurmctld"]}]
    with pytest.raises(monitoring.MonitoringError, match="job name slurmctld is taken"):
        _slurmctld(OPENMETRICS, jobs=jobs)


def test_slurm_openmetrics_reads_metrics_type():
    assert monitoring.slurm_openmetrics(OPENMETRICS)
    assert not monitoring.slurm_openmetrics({"MetricsType": " "})
    assert not monitoring.slurm_openmetrics(None)


TLS = {"ca_file": "/etc/prometheus/tls/ca.crt", "username": "scrape", "password_file": "/etc/prometheus/scrape.password"}
CLIENT = {
    "scheme": "https",
    "tls_config": {"ca_file": "/etc/prometheus/tls/ca.crt"},
    "basic_auth": {"username": "scrape", "password_file": "/etc/prometheus/scrape.password"},
}


def _jobs_by_name(config):
    return {s["job_name"]: s for s in config["scrape_configs"]}


def test_with_tls_prometheus_alertmanager_and_tls_jobs_are_scraped_over_https_with_the_scrape_user():
    jobs = [dict(JOBS[0], tls=True), {"name": "plain", "port": 9200, "groups": ["slurm_compute"]}]
    config = monitoring.prometheus_config(_settings(jobs=jobs, tls=TLS), GROUPS)
    scrapes = _jobs_by_name(config)
    for name in ("prometheus", "alertmanager", "node"):
        assert {key: scrapes[name][key] for key in CLIENT} == CLIENT, name
    assert not set(CLIENT) & set(scrapes["plain"])
    (alertmanager,) = config["alerting"]["alertmanagers"]
    assert {key: alertmanager[key] for key in CLIENT} == CLIENT


def test_a_ca_job_is_scraped_over_https_with_the_cluster_ca_and_no_basic_auth():
    config = monitoring.prometheus_config(_settings(jobs=[dict(JOBS[0], tls="ca")], tls=TLS), GROUPS)
    node = _jobs_by_name(config)["node"]
    assert node["scheme"] == "https"
    assert node["tls_config"] == {"ca_file": TLS["ca_file"]}
    assert "basic_auth" not in node


def test_a_bearer_token_job_is_scraped_with_the_token_file():
    settings = _settings(jobs=[dict(JOBS[0], tls="ca", bearer_token="minio")], tls=TLS)
    settings["tokens"] = {"minio": "/etc/prometheus/minio.token"}
    node = _jobs_by_name(monitoring.prometheus_config(settings, GROUPS))["node"]
    assert node["authorization"] == {"type": "Bearer", "credentials_file": "/etc/prometheus/minio.token"}


def test_an_unknown_bearer_token_names_the_job_and_the_tokens_there_are():
    settings = _settings(jobs=[dict(JOBS[0], bearer_token="vault")], tls=TLS)
    settings["tokens"] = {"minio": "/etc/prometheus/minio.token"}
    with pytest.raises(monitoring.MonitoringError, match="job node: bearer_token 'vault' is not a token this role provides [(]minio[)]"):
        monitoring.prometheus_config(settings, GROUPS)


def test_without_tls_a_tls_job_stays_plain():
    config = monitoring.prometheus_config(_settings(jobs=[dict(JOBS[0], tls=True)], tls={}), GROUPS)
    assert all(not set(CLIENT) & set(s) for s in config["scrape_configs"])
    assert not set(CLIENT) & set(config["alerting"]["alertmanagers"][0])


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ({"tls": "yes"}, "tls 'yes' is not true, false or ca"),
        ({"tls": True, "scheme": "http"}, "scheme http with tls True"),
        ({"tls": "ca", "scheme": "http"}, "scheme http with tls ca"),
    ],
)
def test_a_bad_tls_setting_names_the_job_and_the_fix(job, message):
    with pytest.raises(monitoring.MonitoringError, match="job node: " + message):
        monitoring.prometheus_config(_settings(jobs=[dict(JOBS[0], **job)], tls=TLS), GROUPS)
