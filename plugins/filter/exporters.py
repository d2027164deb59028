# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prometheus exporters from pinned, checksummed binaries (roles/exporters)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import exporters


def exporters_findings(install, groups):
    """Every bad entry of exporters_install as ``{id, message}`` (empty: all good)."""
    return exporters.findings(install, groups)


def exporters_plan(install, groups, build_cache):
    """Every exporter with its binary, service and build (see module_utils/exporters.plan)."""
    return exporters.plan(install, groups, build_cache)


class FilterModule:
    def filters(self):
        return {
            "exporters_findings": exporters_findings,
            "exporters_plan": exporters_plan,
        }
