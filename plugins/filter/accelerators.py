# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed GRES from what accelerator_info found on each host.

The filters are plugins/module_utils/gres.py's ``accelerator_*`` functions
(one gres.conf line per GPU and NPU, with the Slurm cores of its NUMA node);
their input errors become filter errors; ``slurm_nvml_problem`` is gres.py's
``nvml_problem`` (the slurm_gres_nvml check of roles/slurmd/tasks/nvml.yml).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import gres
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_wrap = filter_errors(gres.GresError)


class FilterModule(object):
    def filters(self):
        return {
            "accelerator_gres_conf": _wrap(gres.accelerator_gres_conf),
            "accelerator_node_gres": _wrap(gres.accelerator_node_gres),
            "accelerator_gres_types": _wrap(gres.accelerator_gres_types),
            "accelerator_gres_lines": _wrap(gres.accelerator_gres_lines),
            "slurm_nvml_problem": _wrap(gres.nvml_problem),
        }
