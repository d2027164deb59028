#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: minio_bucket
short_description: Create a MinIO bucket with versioning and a lifecycle rule for old object versions
version_added: 0.1.0
description:
  - Creates the bucket O(name) on a MinIO (or other S3-compatible) server when it is missing, sets its versioning,
    and, when O(noncurrent_version_expiration_days) is given, makes its lifecycle one rule
    (ID C(expire-old-checkpoint-versions), whole bucket) that expires non-current object versions after that many days.
  - Reads the bucket's state first and changes only what differs, so a second run changes nothing. The lifecycle is
    compared in a normalised form and, when it differs, replaced as a whole; rules added by hand are removed.
  - After a change the state is read back; a lifecycle the server stored differently from what was sent fails the task.
  - Talks to the S3 API over HTTP(S) with the C(minio) Python SDK; run it where the endpoint is reachable, usually the
    control node (a task delegated to localhost).
extends_documentation_fragment:
  - aicluster.slurm.minio
options:
  name:
    description: Bucket name (3 to 63 lowercase letters, digits, dots and hyphens).
    type: str
    required: true
  versioning:
    description:
      - V(true) enables versioning. V(false) suspends it on a bucket where it was enabled and leaves an unversioned
        bucket as it is (S3 cannot turn versioning off once it was on).
    type: bool
    default: true
  noncurrent_version_expiration_days:
    description:
      - Days after which a non-current object version (one overwritten or deleted) expires.
      - When not given, the bucket's lifecycle is not managed.
    type: int
  abort_incomplete_multipart_days:
    description:
      - Days after which incomplete multipart uploads are aborted, in the same lifecycle rule.
      - B(MinIO does not implement this lifecycle action); it drops it from the rule, and the task fails after
        writing because the stored rule differs. MinIO removes stale multipart uploads itself after
        E(MINIO_API_STALE_UPLOADS_EXPIRY) (default 24h); leave this option unset with MinIO.
    type: int
  state:
    description: Only V(present) is supported; the module never removes a bucket.
    type: str
    choices: [present]
    default: present
requirements:
  - minio (Python SDK, tested with 7.2.20)
attributes:
  check_mode:
    support: full
    description: Reads the bucket's state and reports what would change; writes nothing.
  diff_mode:
    support: full
    description: Returns the bucket's state (exists, versioning, lifecycle) before and after.
  platform:
    support: full
    platforms: posix
    description: Any host with the C(minio) SDK that reaches the endpoint.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Checkpoint bucket, versioned, old versions expire after 7 days
  aicluster.slurm.minio_bucket:
    endpoint: "https://{{ hostvars[groups['minio'][0]].ansible_host }}:9000"
    access_key: "{{ minio_root_user }}"
    secret_key: "{{ minio_root_password }}"
    ca_file: /etc/aicluster/pki/ca.pem
    name: checkpoints
    versioning: true
    noncurrent_version_expiration_days: 7
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
bucket:
  description: The bucket's name.
  returned: always
  type: str
  sample: checkpoints
versioning:
  description: The bucket's versioning status afterwards (in check mode, what it would be).
  returned: always
  type: str
  sample: Enabled
lifecycle:
  description:
    - The bucket's lifecycle rules afterwards (in check mode, what they would be), normalised; an empty list when it has
      none. Keys are the C(minio) SDK's field names.
  returned: always
  type: list
  elements: dict
  sample:
    - id: expire-old-checkpoint-versions
      status: Enabled
      filter: {prefix: ""}
      noncurrent_version_expiration: {noncurrent_days: 7}
actions:
  description: What was (in check mode, would be) done, in order, from C(create), C(versioning) and C(lifecycle).
  returned: always
  type: list
  elements: str
  sample: [create, versioning, lifecycle]
diff:
  description: The bucket's state before and after.
  returned: always
  type: dict
  sample:
    before: {exists: false, versioning: "Off", lifecycle: []}
    after: {exists: true, versioning: Enabled, lifecycle: [{id: expire-old-checkpoint-versions}]}
"""

import dataclasses
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.aicluster.slurm.plugins.module_utils import minio as minio_utils
from ansible_collections.aicluster.slurm.plugins.module_utils import minio_sdk

MINIO_IMPORT_ERROR = None
try:
    import urllib3
    from minio import Minio
    from minio.commonconfig import ENABLED, Filter
    from minio.error import MinioException, S3Error
    from minio.lifecycleconfig import AbortIncompleteMultipartUpload, LifecycleConfig, NoncurrentVersionExpiration, Rule
    from minio.versioningconfig import OFF, SUSPENDED, VersioningConfig
except ImportError:
    MINIO_IMPORT_ERROR = traceback.format_exc()


class BucketStateError(Exception):
    """The server accepted a change but stores something else."""


def _plain(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def read_lifecycle(client, name):
    config = client.get_bucket_lifecycle(name)
    return minio_utils.normalise_lifecycle([_plain(rule) for rule in (config.rules if config else [])])


def lifecycle_config(rules):
    """The SDK's LifecycleConfig for rules in the form minio_utils.lifecycle_rules returns."""
    sdk_rules = []
    for rule in rules:
        abort = rule.get("abort_incomplete_multipart_upload")
        sdk_rules.append(
            Rule(
                rule["status"],
                rule_filter=Filter(prefix=rule["filter"]["prefix"]),
                rule_id=rule["id"],
                noncurrent_version_expiration=NoncurrentVersionExpiration(noncurrent_days=rule["noncurrent_version_expiration"]["noncurrent_days"]),
                abort_incomplete_multipart_upload=AbortIncompleteMultipartUpload(days_after_initiation=abort["days_after_initiation"]) if abort else None,
            )
        )
    return LifecycleConfig(sdk_rules)


def _read(client, name):
    if not client.bucket_exists(name):
        return {"exists": False, "versioning": OFF, "lifecycle": []}
    return {
        "exists": True,
        "versioning": client.get_bucket_versioning(name).status_string,
        "lifecycle": read_lifecycle(client, name),
    }


def _stored_differently(wanted, stored):
    dropped = sorted({key for rule in wanted for key in rule} - {key for rule in stored for key in rule})
    message = "the server stored the bucket's lifecycle as %s instead of %s" % (stored, wanted)
    if "abort_incomplete_multipart_upload" in dropped:
        message += (
            "; it dropped abort_incomplete_multipart_upload: MinIO does not implement that lifecycle action and removes "
            "stale multipart uploads itself after MINIO_API_STALE_UPLOADS_EXPIRY (default 24h), so leave "
            "abort_incomplete_multipart_days unset"
        )
    return message


def ensure_bucket(client, name, versioning=True, noncurrent_days=None, abort_days=None, check_mode=False):
    """Bring bucket ``name`` to the state given through ``client`` (a minio.Minio or a test double); the result dict.

    Raises MinioInputError for bad options, BucketStateError when the
    server stores a lifecycle other than the one written, and what the
    client raises.
    """
    minio_utils.check_bucket_name(name, "name")
    wanted_rules = None
    if noncurrent_days is not None:
        wanted_rules = minio_utils.lifecycle_rules(noncurrent_days, abort_days)
    elif abort_days is not None:
        raise minio_utils.MinioInputError("abort_incomplete_multipart_days needs noncurrent_version_expiration_days: both go in one lifecycle rule")

    before = _read(client, name)
    wanted_status = ENABLED if versioning else OFF if before["versioning"] == OFF else SUSPENDED
    actions = []
    if not before["exists"]:
        actions.append("create")
    if wanted_status != before["versioning"]:
        actions.append("versioning")
    if wanted_rules is not None and wanted_rules != before["lifecycle"]:
        actions.append("lifecycle")
    after = {
        "exists": True,
        "versioning": wanted_status,
        "lifecycle": wanted_rules if wanted_rules is not None else before["lifecycle"],
    }

    if actions and not check_mode:
        if "create" in actions:
            client.make_bucket(name)
        if "versioning" in actions:
            client.set_bucket_versioning(name, VersioningConfig(wanted_status))
        if "lifecycle" in actions:
            client.set_bucket_lifecycle(name, lifecycle_config(wanted_rules))
        after = _read(client, name)
        if wanted_rules is not None and after["lifecycle"] != wanted_rules:
            raise BucketStateError(_stored_differently(wanted_rules, after["lifecycle"]))
        if after["versioning"] != wanted_status:
            raise BucketStateError("the server reports versioning %s after it was set to %s" % (after["versioning"], wanted_status))

    return {
        "changed": bool(actions),
        "bucket": name,
        "versioning": after["versioning"],
        "lifecycle": after["lifecycle"],
        "actions": actions,
        "diff": {"before": before, "after": after},
    }


def main():
    module = AnsibleModule(
        argument_spec={
            **minio_sdk.CONNECTION_OPTIONS,
            "name": {"type": "str", "required": True},
            "versioning": {"type": "bool", "default": True},
            "noncurrent_version_expiration_days": {"type": "int"},
            "abort_incomplete_multipart_days": {"type": "int"},
            "state": {"type": "str", "choices": ["present"], "default": "present"},
        },
        required_by={"abort_incomplete_multipart_days": "noncurrent_version_expiration_days"},
        supports_check_mode=True,
    )
    if MINIO_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib("minio"), exception=MINIO_IMPORT_ERROR)
    params = module.params
    endpoint = params["endpoint"]
    try:
        target = minio_utils.parse_endpoint(endpoint)
        client = Minio(
            target["host"],
            access_key=params["access_key"],
            secret_key=params["secret_key"],
            secure=target["secure"],
            http_client=minio_sdk.http_client(params["validate_certs"], params["ca_file"], params["ca_content"]),
        )
        result = ensure_bucket(
            client,
            params["name"],
            versioning=params["versioning"],
            noncurrent_days=params["noncurrent_version_expiration_days"],
            abort_days=params["abort_incomplete_multipart_days"],
            check_mode=module.check_mode,
        )
    except minio_utils.MinioInputError as exc:
        module.fail_json(msg=str(exc))
    except BucketStateError as exc:
        module.fail_json(msg="MinIO at %s: %s" % (endpoint, exc))
    except S3Error as exc:
        module.fail_json(msg=minio_utils.error_message(endpoint, "manage bucket %s" % params["name"], exc.code, exc.message))
    except MinioException as exc:
        module.fail_json(msg="MinIO at %s gave an unexpected answer while managing bucket %s: %s" % (endpoint, params["name"], exc))
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        module.fail_json(msg="cannot reach MinIO at %s: %s" % (endpoint, exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
