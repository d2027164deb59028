# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus and Alertmanager configuration from the inventory (roles/prometheus)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.module_utils import monitoring, preflight
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding


def _wrap(function):
    def filter_function(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except monitoring.MonitoringError as error:
            raise AnsibleFilterError(str(error)) from error

    filter_function.__name__ = function.__name__
    filter_function.__doc__ = function.__doc__
    return filter_function


def monitoring_prometheus_config(settings, groups):
    """prometheus.yml for this inventory (``groups``: Ansible's magic variable)."""
    return monitoring.prometheus_config(settings, groups)


def monitoring_alertmanager_config(receivers, route):
    return monitoring.alertmanager_config(receivers, route)


def monitoring_input_errors(thresholds):
    """Every bad threshold, as messages (empty: all good)."""
    return monitoring.threshold_errors(thresholds)


def monitoring_findings(settings, groups, receivers, route, thresholds):
    """Every monitoring input problem as preflight findings: thresholds, scrape jobs, the Alertmanager route."""
    findings = [finding("monitoring", message, message.split(":", 1)[0]) for message in monitoring.threshold_errors(thresholds)]
    findings += preflight.findings_of("monitoring", "prometheus_scrape_jobs", monitoring.prometheus_config, settings, groups)
    findings += preflight.findings_of("monitoring", "prometheus_alertmanager_receivers", monitoring.alertmanager_config, receivers, route)
    return findings


class FilterModule:
    def filters(self):
        return {
            "monitoring_prometheus_config": _wrap(monitoring_prometheus_config),
            "monitoring_alertmanager_config": _wrap(monitoring_alertmanager_config),
            "monitoring_findings": monitoring_findings,
            "monitoring_input_errors": _wrap(monitoring_input_errors),
            "monitoring_major_version": _wrap(monitoring.major_version),
            "monitoring_regex": _wrap(monitoring.regex_alternatives),
        }
