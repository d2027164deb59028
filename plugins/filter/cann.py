# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ascend driver, firmware and CANN packages for roles/cann_driver (module_utils/cann)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import cann
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


class FilterModule:
    def filters(self):
        return filters_of(
            (
                cann.cann_input_findings,
                cann.cann_artifacts,
                cann.cann_checksum_findings,
                cann.cann_version_files,
                cann.cann_installed_versions,
                cann.cann_same_version,
                cann.cann_compat_request,
                cann.cann_plan,
                cann.cann_installed_findings,
                cann.cann_compat_lines,
                cann.npu_network_findings,
                cann.hccn_commands,
            )
        )
