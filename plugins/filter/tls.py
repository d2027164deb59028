# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster's TLS (plugins/module_utils/tls.py): ``tls_san`` (a tls_extra_sans entry as a subject alternative
name), ``tls_findings`` (the tls_* variables' problems) and ``tls_listen_findings`` (listen addresses not on the host),
the last two as preflight findings."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import tls
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_wrap = filter_errors(tls.TlsError)


class FilterModule:
    def filters(self):
        return {"tls_san": _wrap(tls.san), "tls_findings": tls.findings, "tls_listen_findings": tls.listen_findings}
