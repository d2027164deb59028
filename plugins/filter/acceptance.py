# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and the report table of playbooks/acceptance.yml (module_utils/acceptance)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import acceptance
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


class FilterModule:
    def filters(self):
        return filters_of((acceptance.acceptance_hardware, acceptance.acceptance_partitions, acceptance.acceptance_report, acceptance.acceptance_table))
