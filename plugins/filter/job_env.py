# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The environment every Slurm task gets: NCCL/HCCL settings printed by the TaskProlog (module_utils/job_env)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import job_env
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


class FilterModule:
    def filters(self):
        return filters_of((job_env.job_env_findings, job_env.job_env_settings, job_env.job_env_defaults, job_env.job_env_script), job_env.JobEnvError)
