# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus exporters from pinned, checksummed binaries (roles/exporters).

The filters are plugins/module_utils/exporters.py's functions: ``findings``
(every bad entry of exporters_install, empty: all good) and ``plan`` (every
exporter with its binary, service and build); neither raises for bad input.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import exporters


class FilterModule:
    def filters(self):
        return {
            "exporters_findings": exporters.findings,
            "exporters_plan": exporters.plan,
        }
