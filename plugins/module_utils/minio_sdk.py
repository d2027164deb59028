# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What modules minio_bucket and minio_access share to reach MinIO: their connection options and HTTP pool."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import ssl

try:
    import urllib3
except ImportError:  # reported by the modules with missing_required_lib("minio"), which brings urllib3
    urllib3 = None

# The endpoint and the key pair the module acts as (the root credentials).
CONNECTION_OPTIONS = {
    "endpoint": {"type": "str", "required": True},
    "access_key": {"type": "str", "required": True, "no_log": True},
    "secret_key": {"type": "str", "required": True, "no_log": True},
    "ca_file": {"type": "path"},
    "ca_content": {"type": "str"},
    "validate_certs": {"type": "bool", "default": True},
}


def http_client(validate_certs, ca_file, ca_content=None):
    """A urllib3 pool with short timeouts and few retries (the SDK's default waits 5 minutes and retries 5 times).
    ``ca_content``: the CA's PEM text (the cluster CA read from a host), verified instead of ``ca_file``."""
    if not validate_certs:
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    tls = {"cert_reqs": "CERT_REQUIRED" if validate_certs else "CERT_NONE"}
    if validate_certs and ca_content:
        tls["ssl_context"] = ssl.create_default_context(cadata=ca_content)
    else:
        tls["ca_certs"] = ca_file or os.environ.get("SSL_CERT_FILE") or None
    return urllib3.PoolManager(
        timeout=urllib3.Timeout(connect=10, read=60),
        maxsize=4,
        retries=urllib3.Retry(total=3, backoff_factor=0.5, status_forcelist=[500, 502, 503, 504]),
        **tls,
    )
