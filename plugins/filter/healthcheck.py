# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node health checker's configuration (module_utils/healthcheck)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import healthcheck
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


class FilterModule:
    def filters(self):
        return filters_of((healthcheck.healthcheck_config, healthcheck.healthcheck_findings, healthcheck.healthcheck_settings), healthcheck.HealthcheckError)
