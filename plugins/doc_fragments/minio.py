# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connection options of modules minio_bucket and minio_access (module_utils/minio_sdk.CONNECTION_OPTIONS)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  endpoint:
    description: URL of the S3 API, C(http://HOST:PORT) or C(https://HOST:PORT), without a path.
    type: str
    required: true
  access_key:
    description: Access key of a MinIO admin account (usually the root user).
    type: str
    required: true
  secret_key:
    description: Secret key of O(access_key).
    type: str
    required: true
  ca_file:
    description:
      - PEM file of the CA that signed the server's certificate, for C(https) with a private CA.
      - Without it the system's CA store is used (or E(SSL_CERT_FILE) when set).
    type: path
  ca_content:
    description:
      - The CA's certificate as PEM text, verified instead of O(ca_file) (the cluster CA read from a host with
        M(ansible.builtin.slurp)).
    type: str
  validate_certs:
    description: Whether to verify the server's TLS certificate. Only turn this off in a lab.
    type: bool
    default: true
"""
