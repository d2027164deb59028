"""Unit tests for plugins/module_utils/tls.py: subject alternative names and the tls_* checks."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import tls

GOOD = {
    "tls_enabled": True,
    "tls_ca_cert": "",
    "tls_ca_key": "",
    "tls_cert_days": 825,
    "tls_renew_days": 30,
    "tls_monitoring_admin_password": "",
    "tls_monitoring_scrape_password": "",
    "tls_extra_sans": [],
}


@pytest.mark.parametrize(
    ("value", "san"),
    [
        ("10.0.0.5", "IP:10.0.0.5"),
        ("fd00::1", "IP:fd00::1"),
        ("Login.Example.NET", "DNS:login.example.net"),
        ("*.example.net", "DNS:*.example.net"),
        ("node-01", "DNS:node-01"),
    ],
)
def test_san(value, san):
    assert tls.san(value) == san


@pytest.mark.parametrize("value", ["", "a b", "-bad.example", "x" * 64, "10.0.0.300.1", None, 5, "under_score.example", "a\nb"])
def test_a_bad_san_names_the_variable_and_the_fix(value):
    with pytest.raises(tls.TlsError, match=r"tls_extra_sans: .* is neither an IP address nor a DNS name"):
        tls.san(value)


def test_good_settings_have_no_problem():
    assert tls.input_problems(GOOD) == []
    assert tls.input_problems(dict(GOOD, tls_monitoring_admin_password='s3cret "$# ü', tls_extra_sans=["10.1.1.1", "mon.example"])) == []


@pytest.mark.parametrize(
    ("change", "variable", "message"),
    [
        ({"tls_enabled": "yes"}, "tls_enabled", "is not true or false"),
        ({"tls_ca_cert": "-----BEGIN CERTIFICATE-----\n"}, "tls_ca_cert", "give both"),
        ({"tls_ca_cert": "junk", "tls_ca_key": "-----BEGIN PRIVATE KEY-----"}, "tls_ca_cert", "not a PEM certificate"),
        ({"tls_ca_cert": "-----BEGIN CERTIFICATE-----", "tls_ca_key": "junk"}, "tls_ca_key", "not a PEM private key"),
        ({"tls_cert_days": 1}, "tls_cert_days", "from 2 to 3650"),
        ({"tls_cert_days": "825"}, "tls_cert_days", "from 2 to 3650"),
        ({"tls_cert_days": True}, "tls_cert_days", "from 2 to 3650"),
        ({"tls_renew_days": 825}, "tls_renew_days", "to tls_cert_days - 1 (824)"),
        ({"tls_renew_days": 0}, "tls_renew_days", "from 1"),
        ({"tls_monitoring_admin_password": "x" * 73}, "tls_monitoring_admin_password", "longer than 72 bytes"),
        ({"tls_monitoring_scrape_password": "ü" * 37}, "tls_monitoring_scrape_password", "longer than 72 bytes"),
        ({"tls_monitoring_admin_password": "a\nb"}, "tls_monitoring_admin_password", "line break"),
        ({"tls_monitoring_admin_password": " padded"}, "tls_monitoring_admin_password", "whitespace"),
        ({"tls_monitoring_admin_password": 1234}, "tls_monitoring_admin_password", "not a string"),
        ({"tls_extra_sans": "mon.example"}, "tls_extra_sans", "is not a list"),
        ({"tls_extra_sans": ["ok.example", "no way"]}, "tls_extra_sans", "'no way' is neither"),
    ],
)
def test_each_bad_setting_is_named_with_its_fix(change, variable, message):
    problems = tls.input_problems(dict(GOOD, **change))
    assert [p[0] for p in problems] == [variable]
    assert message in problems[0][1]


def test_a_password_is_never_in_a_message():
    secret = "hunter2-" + "x" * 70
    (finding,) = tls.findings(dict(GOOD, tls_monitoring_admin_password=secret))
    assert secret not in str(finding)
    assert finding["variable"] == "tls_monitoring_admin_password"


@pytest.mark.parametrize(("value", "ok"), [("10.0.0.2", True), ("0.0.0.0", True), ("127.0.0.1", True), ("10.9.9.9", False), ("", False)])
def test_listen_address_must_be_the_hosts(value, ok):
    found = tls.listen_findings({"node_exporter_listen_address": value}, ["10.0.0.2", "172.17.0.3"])
    assert (found == []) == ok
    if not ok:
        assert found[0]["variable"] == "node_exporter_listen_address"
        assert "node_exporter_listen_address" in found[0]["message"]
