"""Unit tests for plugins/module_utils/firewall.py: which ports each host opens, to whom, as nftables text."""

from pathlib import Path

import pytest
import yaml

from ansible_collections.aicluster.slurm.plugins.module_utils import firewall

ROOT = Path(__file__).resolve().parents[4]
CLUSTER = ["10.0.0.1", "10.0.0.2", "10.0.0.0/24", "fd00::5"]


def _opened(groups, settings=None):
    return {name: (ports, audience) for name, ports, audience in firewall.plan(groups, settings or {})}


def test_a_compute_node_opens_slurmd_srun_and_node_exporter_to_the_cluster_only():
    assert _opened(["slurm_compute"]) == {
        "slurmd": ("6818", "cluster"),
        "srun": ("60001-63000", "cluster"),
        "node_exporter": ("9100", "cluster"),
    }


def test_the_monitoring_and_storage_ports_are_open_to_clients_too():
    opened = _opened(["monitoring", "minio"])
    assert opened["prometheus"] == ("9090", "clients")
    assert opened["alertmanager"] == ("9093", "clients")
    assert opened["minio"] == ("9000", "clients")
    assert "slurmd" not in opened


def test_ports_follow_the_settings():
    opened = _opened(["slurmctld", "slurmdbd"], {"SlurmctldPort": "6820-6821", "DbdPort": 7000, "SrunPortRange": "50000-50100"})
    assert opened["slurmctld"] == ("6820-6821", "cluster")
    assert opened["slurmdbd"] == ("7000", "cluster")
    assert opened["srun"] == ("50000-50100", "cluster")


def test_the_services_defaults_are_the_roles_defaults():
    """SERVICES repeats the roles' default ports (the firewall runs where their defaults are not loaded): keep them equal."""
    defaults = {}
    for path in ROOT.glob("roles/*/defaults/main.yml"):
        defaults.update(yaml.safe_load(path.read_text()) or {})
    for path in ("roles/slurm/vars/main.yml", "roles/slurmdbd/vars/main.yml"):
        for value in (yaml.safe_load((ROOT / path).read_text()) or {}).values():
            if isinstance(value, dict):
                defaults.update({k: v for k, v in value.items() if k.endswith(("Port", "PortRange"))})
    for service in firewall.SERVICES:
        name, setting, default = service[0], service[2], service[3]
        if setting is None:  # a fixed port (the shared filesystem's servers)
            continue
        assert str(defaults[setting]) == default, "%s: %s is %r in the roles, %r in SERVICES" % (name, setting, defaults[setting], default)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"name": "x"}, "needs name and port"),
        ({"name": "x", "port": 70000}, r"firewall_allow\[0\].port: 70000 is not a TCP port"),
        ({"name": "x", "port": "10-5"}, "is not a TCP port"),
        ({"name": "x", "port": 80, "from": "world"}, "from 'world' is not cluster, clients or anywhere"),
        ({"name": "x", "port": 80, "proto": "udp"}, "unknown keys proto"),
    ],
)
def test_a_bad_extra_rule_names_the_entry_and_the_fix(rule, message):
    with pytest.raises(firewall.FirewallError, match=message):
        firewall.plan(["slurm_compute"], {"extra": [rule]})


def test_extra_rules_apply_to_their_groups_only():
    extra = [{"name": "jupyter", "port": "8888", "groups": ["slurm_login"], "from": "clients"}, {"name": "ntp-ui", "port": 8123}]
    assert "jupyter" not in _opened(["slurm_compute"], {"extra": extra})
    assert _opened(["slurm_login"], {"extra": extra})["jupyter"] == ("8888", "clients")
    assert _opened(["slurm_compute"], {"extra": extra})["ntp-ui"] == ("8123", "cluster")


@pytest.mark.parametrize("value", ["10.0.0.0/33", "example.net", "", 5])
def test_a_bad_network_is_named(value):
    with pytest.raises(firewall.FirewallError, match="firewall_client_networks: .* is not an IP address or network"):
        firewall.networks("firewall_client_networks", [value])


def test_the_ruleset_drops_by_default_and_opens_each_port_to_its_sources():
    text = firewall.ruleset(["slurm_compute"], {}, CLUSTER, ["192.168.0.0/16"], ["10.9.0.0/16"], peers=["10.0.0.2"])
    assert "table inet aicluster" in text
    assert "delete table inet aicluster" in text
    assert "flush ruleset" not in text
    assert "policy drop;" in text
    assert 'ip saddr @cluster4 tcp dport 6818 accept comment "slurmd"' in text
    assert 'ip6 saddr @cluster6 tcp dport 60001-63000 accept comment "srun"' in text
    assert "ip saddr @ssh4 tcp dport 22 accept" in text
    assert "ip saddr @peers4 accept" in text
    assert "elements = { 10.0.0.0/24, 10.0.0.1/32, 10.0.0.2/32 }" in text
    assert "elements = { fd00::5/128 }" in text
    assert "9090" not in text


def test_clients_get_only_the_client_ports():
    text = firewall.ruleset(["monitoring", "slurmctld"], {}, CLUSTER, ["192.168.0.0/16"], [])
    assert 'ip saddr @clients4 tcp dport 9090 accept comment "prometheus"' in text
    assert 'ip saddr @cluster4 tcp dport 6817 accept comment "slurmctld"' in text
    assert "192.168.0.0/16" in text.split("set clients4")[1].split("}")[0]


def test_findings_name_the_variable():
    found = firewall.findings({"firewall_enabled": True, "firewall_ssh_networks": [], "firewall_client_networks": ["nope"], "ports": {}})
    assert {f["variable"] for f in found} == {"firewall_client_networks", "firewall_ssh_networks"}


def test_exporters_ports_come_from_the_scrape_jobs():
    jobs = [{"name": "node", "port": 9100, "groups": ["slurm_compute"]}, {"name": "example", "port": 9101, "groups": ["example_exporter"]}]
    assert _opened(["slurm_compute", "example_exporter"], {"scrape_jobs": jobs})["scrape example"] == ("9101", "cluster")
    assert "scrape example" not in _opened(["slurm_compute"], {"scrape_jobs": jobs})
    assert _opened(["dcgm_exporter"], {})["scrape dcgm"] == ("9400", "cluster")
    assert _opened(["x"], {"scrape_jobs": [{"name": "one", "port": 9500, "hosts": ["n1"]}], "host": "n1"})["scrape one"] == ("9500", "cluster")


def test_the_default_scrape_jobs_are_the_prometheus_roles():
    defaults = yaml.safe_load((ROOT / "roles/prometheus/defaults/main.yml").read_text())["prometheus_scrape_jobs"]
    exporters = [{k: job[k] for k in ("name", "port", "groups")} for job in defaults if job["name"] not in ("node", "minio")]
    assert exporters == list(firewall.DEFAULT_SCRAPE_JOBS)


def test_a_firewall_that_is_off_leaves_the_ports_to_their_roles():
    ports = {"minio_port": "nine-thousand"}
    assert firewall.findings({"firewall_enabled": False, "ports": ports}, ["minio"]) == []
    (found,) = firewall.findings({"firewall_enabled": True, "firewall_ssh_networks": ["10.0.0.0/8"], "ports": ports}, ["minio"])
    assert "minio_port: 'nine-thousand' is not a TCP port" in found["message"]


@pytest.mark.parametrize(
    ("route", "clients", "finds"),
    [
        ("172.27.0.3 dev br-1a2b src 172.27.0.1 uid 0 \\    cache ", [], True),
        ("172.27.0.3 dev br-1a2b src 172.27.0.1 uid 0 \\    cache ", ["172.27.0.1"], False),
        ("172.27.0.3 dev br-1a2b src 172.27.0.1 uid 0 \\    cache ", ["172.27.0.0/16"], False),
        ("local 10.0.0.5 dev lo table local src 10.0.0.5 uid 0 \\    cache <local> ", [], False),
        ("", [], False),
    ],
)
def test_the_control_node_must_be_admitted_to_the_services_it_uses(route, clients, finds):
    """roles/minio makes the bucket from the control node: outside the cluster and the client networks, say so."""
    found = firewall.control_node_findings(route, ["10.0.0.0/24"], clients, "MinIO's S3 API")
    assert bool(found) == finds
    if finds:
        assert found[0]["variable"] == "firewall_client_networks"
        assert "add 172.27.0.1 (or its network) to firewall_client_networks" in found[0]["message"]
