# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MinIO server layout, input checks and the checkpoint job policy (roles/minio, roles/checkpoint_client)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.module_utils import minio


def _wrap(function):
    def filter_function(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except minio.MinioInputError as error:
            raise AnsibleFilterError(str(error)) from error

    filter_function.__name__ = function.__name__
    filter_function.__doc__ = function.__doc__
    return filter_function


def minio_server_volumes(settings):
    """``{volumes, mode, drives, endpoints, hosts}`` for MINIO_VOLUMES (see module_utils/minio.server_volumes)."""
    return minio.server_volumes(settings)


def minio_input_findings(settings, credentials):
    """Preflight findings ``{id, severity, message}`` for the layout and the credentials (empty: all good).

    ``credentials``: ``root_user``, ``root_password``, ``job_access_key``,
    ``job_secret_key``; messages never hold their values.
    """
    return minio.input_findings(settings, credentials)


def minio_job_policy(bucket):
    """The IAM policy document for job credentials on the checkpoint bucket."""
    return minio.job_policy(bucket)


def minio_expand(pattern):
    """The strings a MinIO ellipsis pattern such as ``/mnt/disk{1...4}`` stands for, in MinIO's order."""
    return minio.expand(pattern)


class FilterModule:
    def filters(self):
        return {
            "minio_server_volumes": _wrap(minio_server_volumes),
            "minio_input_findings": _wrap(minio_input_findings),
            "minio_job_policy": _wrap(minio_job_policy),
            "minio_expand": _wrap(minio_expand),
        }
