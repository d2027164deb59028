# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Draining compute nodes for maintenance and returning them (module_utils/node_drain)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import node_drain
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


class FilterModule(object):
    def filters(self):
        return filters_of((node_drain.drain_plan, node_drain.drained_for))
