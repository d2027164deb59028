# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pinned, checksummed binaries (roles/pinned_binary): the install plan and the checks (module_utils/pinned_binary)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import pinned_binary


def pinned_binary_plan(specs):
    """Each binary with its build and module line (see module_utils/pinned_binary.plan)."""
    return pinned_binary.plan(specs)


def pinned_binary_findings(specs, go_version=None, file_stats=None):
    """Findings for the binaries' sources and checksums, and for what the control node lacks.

    ``go_version``: the registered result of ``go env GOVERSION`` (skipped or
    not read: nothing to build; failed: no go command); ``file_stats``: the registered loop of
    ansible.builtin.stat over the file binaries (``item.file``, sha256).
    Without either, only the input is checked.
    """
    version = None
    if go_version is not None and not go_version.get("skipped"):
        version = go_version.get("stdout", "") if go_version.get("rc") == 0 else ""
    checksums = None
    if file_stats is not None:
        checksums = {
            result["item"]["file"]: result["stat"].get("checksum") if result["stat"].get("exists") else None
            for result in file_stats.get("results", [])
            if "stat" in result
        }
    return pinned_binary.all_findings(specs, version, checksums)


class FilterModule:
    def filters(self):
        return {
            "pinned_binary_plan": pinned_binary_plan,
            "pinned_binary_findings": pinned_binary_findings,
        }
