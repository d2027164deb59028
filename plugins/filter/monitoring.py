# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus and Alertmanager configuration from the inventory (roles/prometheus).

The filters are plugins/module_utils/monitoring.py's functions; its input errors become filter errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import monitoring
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_wrap = filter_errors(monitoring.MonitoringError)

# Every input problem as preflight findings; never raises for bad input.
monitoring_findings = monitoring.input_findings


class FilterModule:
    def filters(self):
        return {
            "monitoring_prometheus_config": _wrap(monitoring.prometheus_config),
            "monitoring_alertmanager_config": _wrap(monitoring.alertmanager_config),
            "monitoring_findings": monitoring_findings,
            "monitoring_input_errors": _wrap(monitoring.threshold_errors),
            "monitoring_major_version": _wrap(monitoring.major_version),
            "monitoring_regex": _wrap(monitoring.regex_alternatives),
            "monitoring_slurm_openmetrics": monitoring.slurm_openmetrics,
        }
