# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus and Alertmanager configuration computed from the inventory.

Scrape targets come from inventory groups, so a node added to a group (day 2)
gets its targets on the next run. Every target carries a ``host`` label (the
short host name, which is also the Slurm NodeName in this collection): alert
rules join exporters with Slurm's view of a node through it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils import preflight
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

# Keys that exist in only one Prometheus major version (checked with Debian's
# promtool 2.53.3 and 3.5.3). 2.x rejects fallback_scrape_protocol; without it
# 3.x refuses a target that answers with a missing or odd Content-Type.
PROMETHEUS_MAJORS = (2, 3)
FALLBACK_SCRAPE_PROTOCOL = "PrometheusText0.0.4"

_DURATION = re.compile(r"^([0-9]+(ms|s|m|h|d|w|y))+$")

# slurmctld's OpenMetrics endpoints (Slurm 25.11 and later, GET /metrics/<name>
# on SlurmctldPort; https://slurm.schedmd.com/metrics.html). jobs-users-accts
# has a series per user and account: not scraped unless asked for.
SLURM_ENDPOINTS = ("jobs", "nodes", "partitions", "scheduler", "jobs-users-accts")
SLURMCTLD_PORT = 6817  # Slurm's default SlurmctldPort


class MonitoringError(ValueError):
    """Bad monitoring input; the message names the variable, the value and the fix."""


def _short(host):
    return str(host).split(".", maxsplit=1)[0]


def _duration(name, value):
    if not isinstance(value, str) or not _DURATION.match(value):
        raise MonitoringError("%s: %r is not a Prometheus duration; write it like 15s, 1m or 1h30m" % (name, value))
    return value


def major_version(package_version, default=2):
    """The major version of an installed Debian package version such as ``2.53.3+ds1-2``.

    ``package_version`` is empty when the package is not installed yet (first
    run in check mode): the release's version (``default``) is assumed.
    """
    text = str(package_version or "").strip()
    if not text:
        return int(default)
    match = re.match(r"^(?:\d+:)?(\d+)\.", text)
    if not match:
        raise MonitoringError("prometheus: cannot read a major version from the package version %r" % text)
    return int(match.group(1))


def threshold_errors(thresholds):
    """Messages for alert thresholds that are not numbers from 0 to 100.

    ``thresholds``: ``{variable name: value}``; the messages name the variable,
    the value seen and the fix.
    """
    errors = []
    for name, value in sorted(thresholds.items()):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            try:
                number = float(str(value))
            except ValueError:
                errors.append("%s: %r is not a number; set a value from 0 to 100, e.g. 70" % (name, value))
                continue
        else:
            number = float(value)
        if not 0 <= number <= 100:
            errors.append("%s: %s is outside 0-100; set a value from 0 to 100, e.g. 70" % (name, value))
    return errors


def _job_hosts(job, groups):
    """Hosts of a scrape job in inventory order: its groups, then its hosts."""
    known = set(groups.get("all") or [])
    for group in job.get("groups") or []:
        yield from groups.get(group) or []
    for host in job.get("hosts") or []:
        if host not in known:
            raise MonitoringError(
                "prometheus_scrape_jobs: job %s: host %r is not in the inventory; add it to the inventory or remove it from the job's hosts"
                % (job.get("name"), host)
            )
        yield host


def _client(tls, auth=True):
    """What a scrape or an alert push needs for an endpoint with the cluster's web configuration (``tls``: see prometheus_config);
    ``auth`` false: the cluster CA's TLS only (MinIO, which refuses basic auth)."""
    client = {"scheme": "https", "tls_config": {"ca_file": tls["ca_file"]}}
    if auth:
        client["basic_auth"] = {"username": tls["username"], "password_file": tls["password_file"]}
    return client


def scrape_configs(jobs, groups, addresses=None, major=2, scrape_interval=None, tls=None, tokens=None):
    """Prometheus ``scrape_configs`` for ``jobs`` with targets from ``groups``.

    ``jobs``: ``[{name, port, groups: [...], hosts: [...], metrics_path, scheme,
    scrape_interval, tls}]``; a job whose groups are absent or empty is left out.
    ``tls: true`` marks an exporter that serves the cluster's web configuration
    (roles/tls): with ``tls`` given (the CA file and the scrape user), it is
    scraped over HTTPS with basic auth; ``tls: ca``, over HTTPS verified with
    the cluster CA, without basic auth (MinIO with the cluster's certificate).
    ``bearer_token: <name>`` scrapes with the token the role writes for that
    name (``tokens``: ``{name: file}``; minio: MinIO's metrics token).
    ``addresses``: ``{host: address}``
    where a host is not reached by its inventory name.
    """
    addresses = addresses or {}
    names = set()
    configs = []
    for job in jobs:
        name = job.get("name")
        if not name or name in names:
            raise MonitoringError("prometheus_scrape_jobs: job name %r is empty or used twice; give every job its own name" % name)
        names.add(name)
        port = job.get("port")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise MonitoringError("prometheus_scrape_jobs: job %s: port %r is not a TCP port; set port to the exporter's port, e.g. 9100" % (name, port))
        hosts = list(dict.fromkeys(_job_hosts(job, groups)))
        if not hosts:
            continue
        config = {"job_name": name}
        if job.get("scrape_interval") or scrape_interval:
            config["scrape_interval"] = _duration("prometheus_scrape_jobs: job %s: scrape_interval" % name, job.get("scrape_interval") or scrape_interval)
        if job.get("metrics_path"):
            config["metrics_path"] = job["metrics_path"]
        if job.get("tls", False) not in (True, False, "ca"):
            raise MonitoringError(
                "prometheus_scrape_jobs: job %s: tls %r is not true, false or ca; set it to true for an exporter that serves roles/tls' web"
                " configuration, ca for HTTPS with the cluster CA only" % (name, job["tls"])
            )
        if job.get("scheme"):
            config["scheme"] = job["scheme"]
        if job.get("tls") and tls:
            if job.get("scheme") == "http":
                raise MonitoringError("prometheus_scrape_jobs: job %s: scheme http with tls %s; drop one of them" % (name, job["tls"]))
            config.update(_client(tls, auth=job["tls"] is True))
        if job.get("bearer_token") is not None:
            tokens = tokens or {}
            if job["bearer_token"] not in tokens:
                raise MonitoringError(
                    "prometheus_scrape_jobs: job %s: bearer_token %r is not a token this role provides (%s); name one of them or drop it"
                    % (name, job["bearer_token"], ", ".join(sorted(tokens)) or "none")
                )
            config["authorization"] = {"type": "Bearer", "credentials_file": tokens[job["bearer_token"]]}
        if major >= 3:
            config["fallback_scrape_protocol"] = FALLBACK_SCRAPE_PROTOCOL
        config["static_configs"] = [{"targets": ["%s:%d" % (addresses.get(host, host), port)], "labels": {"host": _short(host)}} for host in hosts]
        configs.append(config)
    return configs


def slurm_openmetrics(config):
    """Whether slurm.conf as written (slurm_effective_config) has slurmctld serve its OpenMetrics endpoints."""
    return bool(str((config or {}).get("MetricsType") or "").strip())


def slurmctld_port(config):
    """The first port of SlurmctldPort (a number or a range such as 6817-6818)."""
    match = re.match(r"^\s*(\d+)", str((config or {}).get("SlurmctldPort") or SLURMCTLD_PORT))
    if not match:
        raise MonitoringError("slurm_config: SlurmctldPort=%r is not a port; set a number such as 6817" % (config.get("SlurmctldPort"),))
    return int(match.group(1))


def slurmctld_scrape_config(config, hosts, endpoints, addresses=None, major=2):
    """The scrape job of slurmctld's OpenMetrics endpoints, or None where slurm.conf has none.

    One target per controller and endpoint, labelled ``endpoint``; every
    controller is scraped (the one in control answers; the SlurmExporterDown
    alert fires only when no controller does).
    """
    if not slurm_openmetrics(config) or not hosts:
        return None
    endpoints = list(endpoints or [])
    unknown = [e for e in endpoints if e not in SLURM_ENDPOINTS]
    if unknown or not endpoints:
        raise MonitoringError(
            "prometheus_slurm_endpoints: %r; name one or more of %s (slurmctld's /metrics/...)" % (unknown or endpoints, ", ".join(SLURM_ENDPOINTS))
        )
    addresses = addresses or {}
    port = slurmctld_port(config)
    job = {"job_name": "slurmctld"}
    if major >= 3:
        job["fallback_scrape_protocol"] = FALLBACK_SCRAPE_PROTOCOL
    job["static_configs"] = [
        {
            "targets": ["%s:%d" % (addresses.get(host, host), port)],
            "labels": {"host": _short(host), "endpoint": endpoint, "__metrics_path__": "/metrics/" + endpoint},
        }
        for host in hosts
        for endpoint in endpoints
    ]
    return job


def prometheus_config(settings, groups):
    """The whole prometheus.yml as a dict.

    ``settings``: ``major`` (2 or 3), ``cluster``, ``scrape_interval``,
    ``evaluation_interval``, ``rule_files`` (absolute globs), ``alertmanagers``
    (host:port), ``jobs`` and ``addresses`` (see :func:`scrape_configs`),
    ``self`` (this Prometheus' host:port), ``slurm_config`` (slurm.conf as
    written), ``slurm_endpoints`` (see :func:`slurmctld_scrape_config`) and
    ``tokens``: ``{name: file}`` of the bearer tokens jobs may name (see :func:`scrape_configs`);
    ``tls``: ``{ca_file, username, password_file}`` where Prometheus,
    Alertmanager and the exporters serve TLS with basic auth (roles/tls), or
    empty.
    """
    tls = settings.get("tls") or None
    major = int(settings.get("major") or 2)
    if major not in PROMETHEUS_MAJORS:
        raise MonitoringError("prometheus: major version %r is not supported; this role knows %s" % (major, ", ".join(map(str, PROMETHEUS_MAJORS))))
    global_config = {
        "scrape_interval": _duration("prometheus_scrape_interval", settings.get("scrape_interval")),
        "evaluation_interval": _duration("prometheus_evaluation_interval", settings.get("evaluation_interval")),
        "external_labels": {"cluster": str(settings.get("cluster") or "cluster")},
    }
    own = [{"job_name": "prometheus", "static_configs": [{"targets": [settings["self"]]}]}]
    if settings.get("alertmanagers"):
        own.append({"job_name": "alertmanager", "static_configs": [{"targets": list(settings["alertmanagers"])}]})
    for job in own:
        if major >= 3:
            job["fallback_scrape_protocol"] = FALLBACK_SCRAPE_PROTOCOL
        if tls:
            job.update(_client(tls))
    config = {"global": global_config}
    if settings.get("alertmanagers"):
        # v2 is the only API both 2.x and 3.x accept (3.x rejects v1).
        alertmanager = {"api_version": "v2"}
        if tls:
            alertmanager.update(_client(tls))
        alertmanager["static_configs"] = [{"targets": list(settings["alertmanagers"])}]
        config["alerting"] = {"alertmanagers": [alertmanager]}
    config["rule_files"] = list(settings.get("rule_files") or [])
    config["scrape_configs"] = own + scrape_configs(
        settings.get("jobs") or [], groups, settings.get("addresses"), major, tls=tls, tokens=settings.get("tokens")
    )
    slurmctld = slurmctld_scrape_config(
        settings.get("slurm_config"), groups.get("slurmctld") or [], settings.get("slurm_endpoints"), settings.get("addresses"), major
    )
    if slurmctld:
        if "slurmctld" in [job["job_name"] for job in config["scrape_configs"]]:
            raise MonitoringError("prometheus_scrape_jobs: job name slurmctld is taken by slurmctld's own endpoints; rename your job")
        config["scrape_configs"].append(slurmctld)
    return config


def alertmanager_config(receivers, route):
    """alertmanager.yml as a dict; the route's receiver defaults to the first receiver."""
    if not receivers or not all(isinstance(r, dict) and r.get("name") for r in receivers):
        raise MonitoringError(
            "prometheus_alertmanager_receivers: %r; give at least one receiver with a name, e.g. [{name: default}] (no notification)" % (receivers,)
        )
    names = [r["name"] for r in receivers]
    route = dict(route or {})
    route.setdefault("receiver", names[0])
    if route["receiver"] not in names:
        raise MonitoringError(
            "prometheus_alertmanager_route: receiver %r is not one of prometheus_alertmanager_receivers (%s); name one of them"
            % (route["receiver"], ", ".join(names))
        )
    return {"route": route, "receivers": list(receivers)}


def regex_alternatives(values):
    """A Prometheus (RE2) regex that matches exactly one of ``values``."""
    return "|".join(re.escape(str(value)) for value in values) or "$^"


def input_findings(settings, groups, receivers, route, thresholds):
    """Every monitoring input problem as preflight findings: thresholds, scrape jobs, the Alertmanager route; never raises for bad input."""
    findings = [finding("monitoring", message, message.split(":", 1)[0]) for message in threshold_errors(thresholds)]
    findings += preflight.findings_of("monitoring", "prometheus_scrape_jobs", prometheus_config, settings, groups)
    findings += preflight.findings_of("monitoring", "prometheus_alertmanager_receivers", alertmanager_config, receivers, route)
    return findings
