# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MinIO server layout, input checks and the checkpoint job policy (roles/minio, roles/checkpoint_client).

The filters are plugins/module_utils/minio.py's functions; its input errors become filter errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import minio
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_wrap = filter_errors(minio.MinioInputError)


class FilterModule:
    def filters(self):
        return {
            "minio_server_volumes": _wrap(minio.server_volumes),
            "minio_input_findings": _wrap(minio.input_findings),
            "minio_job_policy": _wrap(minio.job_policy),
            "minio_account_policy": _wrap(minio.account_policy),
            "minio_expand": _wrap(minio.expand),
            "minio_client_endpoints": _wrap(minio.client_endpoints),
            "minio_prometheus_token": _wrap(minio.prometheus_token),
        }
