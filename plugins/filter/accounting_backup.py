# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The accounting backups (plugins/module_utils/accounting_backup.py): ``slurmdbd_backup_findings``, the
slurmdbd_backup_* variables' problems as preflight findings."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import accounting_backup


class FilterModule:
    def filters(self):
        return {"slurmdbd_backup_findings": accounting_backup.findings}
