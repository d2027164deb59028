# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``quote_for``: a value quoted for the file format it is written in (plugins/module_utils/quoting.py).

``{{ slurmdbd_storage_pass | aicluster.slurm.quote_for('slurm', 'slurmdbd_storage_pass') }}``; a value the format
cannot carry fails the task with the variable named (never the value).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import quoting
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_wrap = filter_errors(quoting.QuotingError)


class FilterModule:
    def filters(self):
        return {"quote_for": _wrap(quoting.quote)}
