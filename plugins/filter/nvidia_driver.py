# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the nvidia_driver role installs, and how it checks the result (module_utils/nvidia_driver)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import nvidia_driver
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


class FilterModule(object):
    def filters(self):
        return filters_of(
            (
                nvidia_driver.nvidia_driver_packages,
                nvidia_driver.nvidia_plan_problems,
                nvidia_driver.nvidia_apt_problems,
                nvidia_driver.nvidia_dkms_missing,
                nvidia_driver.nvidia_driver_change,
                nvidia_driver.nvidia_removal_extra,
                nvidia_driver.nvidia_pinned_packages,
                nvidia_driver.nvidia_change_problems,
            ),
            nvidia_driver.NvidiaDriverError,
        )
