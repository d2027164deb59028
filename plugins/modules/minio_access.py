#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: minio_access
short_description: Declare a MinIO IAM policy and a user with that policy attached
version_added: 0.1.0
description:
  - Through MinIO's admin API, makes the canned policy O(policy_name) hold O(policy), makes the built-in user
    O(user_access_key) exist, enabled, with the secret O(user_secret_key), and attaches the policy to the user.
  - Idempotent. The policy is written only when the stored document differs (compared as normalised JSON). A user that
    exists has its secret tested with a signed request made with the user's own credentials (C(ListBuckets)); the
    secret is reset only when MinIO rejects it (C(InvalidAccessKeyId), C(SignatureDoesNotMatch)), or when the user is
    disabled (resetting also enables it). The policy is attached only when it is not among the user's policies; other
    policies the user has are left attached.
  - Uses the C(minio) Python SDK's C(MinioAdmin), which encrypts the secrets it sends with the admin's secret key.
    Run it where the endpoint is reachable, usually the control node (a task delegated to localhost).
extends_documentation_fragment:
  - aicluster.slurm.minio
options:
  policy_name:
    description: Name of the canned policy (no commas or whitespace).
    type: str
    required: true
  policy:
    description:
      - The IAM policy document, for example the output of the P(aicluster.slurm.minio_job_policy#filter) filter.
    type: dict
    required: true
  user_access_key:
    description: Access key of the user (3 or more characters, not O(access_key)).
    type: str
    required: true
  user_secret_key:
    description: Secret key of the user (8 or more characters; MinIO's minimum).
    type: str
    required: true
  state:
    description: Only V(present) is supported; the module never removes a policy or a user.
    type: str
    choices: [present]
    default: present
requirements:
  - minio (Python SDK, tested with 7.2.20)
notes:
  - Only MinIO's built-in identity provider is handled, not LDAP or OpenID users.
  - The user's secret is never returned; a changed secret shows as RV(user_changed=true).
attributes:
  check_mode:
    support: full
    description: Reads the policy and the user, tests the user's secret, and reports what would change; writes nothing.
  diff_mode:
    support: full
    description: Returns the policy document, whether the user exists and is enabled, and its policies, before and after.
  platform:
    support: full
    platforms: posix
    description: Any host with the C(minio) SDK that reaches the endpoint.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Job account that may read, write and list the checkpoint bucket only
  aicluster.slurm.minio_access:
    endpoint: "https://{{ hostvars[groups['minio'][0]].ansible_host }}:9000"
    access_key: "{{ minio_root_user }}"
    secret_key: "{{ minio_root_password }}"
    ca_file: /etc/aicluster/pki/ca.pem
    policy_name: checkpoint-jobs
    policy: "{{ 'checkpoints' | aicluster.slurm.minio_job_policy }}"
    user_access_key: "{{ minio_checkpoint_access_key }}"
    user_secret_key: "{{ minio_checkpoint_secret_key }}"
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
policy_changed:
  description: Whether the policy was (in check mode, would be) created or rewritten.
  returned: always
  type: bool
user_changed:
  description: Whether the user was (would be) created, enabled, or given the secret O(user_secret_key).
  returned: always
  type: bool
attached_changed:
  description: Whether the policy was (would be) attached to the user.
  returned: always
  type: bool
policies:
  description: The policies attached to the user afterwards (in check mode, what they would be).
  returned: always
  type: list
  elements: str
  sample: [checkpoint-jobs]
diff:
  description: Policy document, user state (no secret) and attached policies, before and after.
  returned: always
  type: dict
"""

import json
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.aicluster.slurm.plugins.module_utils import minio as minio_utils
from ansible_collections.aicluster.slurm.plugins.module_utils import minio_sdk

MINIO_IMPORT_ERROR = None
try:
    import urllib3
    from minio import Minio
    from minio.credentials import StaticProvider
    from minio.error import MinioAdminException, MinioException, S3Error
    from minio.minioadmin import MinioAdmin
except ImportError:
    MINIO_IMPORT_ERROR = traceback.format_exc()

NO_SUCH_USER = "XMinioAdminNoSuchUser"
NO_SUCH_POLICY = "XMinioAdminNoSuchPolicy"
ALREADY_APPLIED = "XMinioAdminPolicyChangeAlreadyApplied"


class AdminError(Exception):
    """An admin API call failed; ``code`` is MinIO's error code, ``message`` its text."""

    def __init__(self, action, status, code, message):
        super().__init__("%s: %s %s: %s" % (action, status, code, message))
        self.action, self.status, self.code, self.message = action, status, code, message


def _admin_call(action, function, *args, **kwargs):
    """Call a MinioAdmin method; its MinioAdminException becomes an AdminError with MinIO's error code."""
    try:
        return function(*args, **kwargs)
    except MinioAdminException as exc:
        status = str(getattr(exc, "_code", ""))
        body = getattr(exc, "_body", "") or ""
        try:
            answer = json.loads(body)
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        raise AdminError(action, status, answer.get("Code", "HTTP %s" % status), answer.get("Message", body.strip()[:200])) from exc


def read_policy(admin, name):
    """The stored policy document of ``name``, normalised; None when there is none."""
    try:
        text = _admin_call("read policy %s" % name, admin.policy_info, name)
    except AdminError as exc:
        if exc.code == NO_SUCH_POLICY:
            return None
        raise
    document = json.loads(text)
    # Newer servers asked with v=2 wrap the document; the SDK does not ask, but accept both.
    if isinstance(document, dict) and "Policy" in document and "Statement" not in document:
        document = document["Policy"]
    return minio_utils.normalise_policy(document)


def read_user(admin, access_key):
    """``{"status": ..., "policies": [...]}`` of a built-in user; None when there is none."""
    try:
        text = _admin_call("read user %s" % access_key, admin.user_info, access_key)
    except AdminError as exc:
        if exc.code == NO_SUCH_USER:
            return None
        raise
    info = json.loads(text)
    policies = [name.strip() for name in (info.get("policyName") or "").split(",") if name.strip()]
    return {"status": info.get("status", ""), "policies": policies}


def secret_works(user_client):
    """Whether a request signed with the user's own credentials is authenticated."""
    try:
        user_client.list_buckets()
    except S3Error as exc:
        if exc.code in minio_utils.AUTH_ERROR_CODES:
            return False
        if exc.code == "AccessDenied":
            # Authenticated, only not allowed to list: the secret is right.
            return True
        raise
    return True


def _check_options(policy_name, policy, user_access_key, user_secret_key, admin_access_key):
    if not policy_name or any(char in policy_name for char in ", \t\n"):
        raise minio_utils.MinioInputError("policy_name: %r is empty or has a comma or whitespace; use e.g. checkpoint-jobs" % policy_name)
    wanted = minio_utils.normalise_policy(policy)
    if not wanted["Statement"]:
        raise minio_utils.MinioInputError("policy: the document has no Statement; give an IAM policy, e.g. from the minio_job_policy filter")
    if len(user_access_key) < minio_utils.MIN_ACCESS_KEY_LENGTH or "=" in user_access_key or "," in user_access_key:
        raise minio_utils.MinioInputError("user_access_key is shorter than 3 characters or has '=' or ','; MinIO refuses such access keys")
    if len(user_secret_key) < 8:
        raise minio_utils.MinioInputError("user_secret_key is shorter than 8 characters, MinIO's minimum; use e.g. openssl rand -base64 24")
    if user_access_key == admin_access_key:
        raise minio_utils.MinioInputError("user_access_key is the admin's access_key; give the jobs their own account")
    return wanted


def ensure_access(admin, user_client, policy_name, policy, user_access_key, user_secret_key, admin_access_key=None, check_mode=False):
    """Bring policy, user and attachment to the state given; the result dict.

    ``admin``: a minio.MinioAdmin (or test double) with admin credentials;
    ``user_client``: a minio.Minio signed with the user's credentials (only
    ``list_buckets`` is called). Raises MinioInputError, AdminError, and
    what the clients raise.
    """
    wanted = _check_options(policy_name, policy, user_access_key, user_secret_key, admin_access_key)
    result = {"changed": False, "policy_changed": False, "user_changed": False, "attached_changed": False}

    stored = read_policy(admin, policy_name)
    if stored != wanted:
        result["policy_changed"] = True
        if not check_mode:
            _admin_call("write policy %s" % policy_name, admin.policy_add, policy_name, policy=policy)

    user = read_user(admin, user_access_key)
    before_user = {"exists": user is not None, "status": user["status"] if user else "", "policies": user["policies"] if user else []}
    if user is None or user["status"] != "enabled" or not secret_works(user_client):
        result["user_changed"] = True
        if not check_mode:
            # Creates the user, or sets the secret and enables it; attached policies stay.
            _admin_call("write user %s" % user_access_key, admin.user_add, user_access_key, user_secret_key)
            if not secret_works(user_client):
                raise AdminError("test user %s" % user_access_key, "", "SecretRejected", "MinIO still rejects the user's secret after setting it")

    policies = list(before_user["policies"])
    if policy_name not in policies:
        result["attached_changed"] = True
        policies.append(policy_name)
        if not check_mode:
            try:
                _admin_call("attach policy %s to user %s" % (policy_name, user_access_key), admin.attach_policy, [policy_name], user=user_access_key)
            except AdminError as exc:
                if exc.code != ALREADY_APPLIED:
                    raise
                result["attached_changed"] = False

    result["changed"] = result["policy_changed"] or result["user_changed"] or result["attached_changed"]
    result["policies"] = policies
    result["diff"] = {
        "before": {"policy": stored, "user": before_user},
        "after": {"policy": wanted, "user": {"exists": True, "status": "enabled", "policies": policies}},
    }
    return result


def main():
    module = AnsibleModule(
        argument_spec={
            **minio_sdk.CONNECTION_OPTIONS,
            "policy_name": {"type": "str", "required": True},
            "policy": {"type": "dict", "required": True},
            "user_access_key": {"type": "str", "required": True, "no_log": False},
            "user_secret_key": {"type": "str", "required": True, "no_log": True},
            "state": {"type": "str", "choices": ["present"], "default": "present"},
        },
        supports_check_mode=True,
    )
    if MINIO_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib("minio"), exception=MINIO_IMPORT_ERROR)
    params = module.params
    endpoint = params["endpoint"]
    try:
        target = minio_utils.parse_endpoint(endpoint)
        admin = MinioAdmin(
            endpoint=target["host"],
            credentials=StaticProvider(params["access_key"], params["secret_key"]),
            secure=target["secure"],
            cert_check=params["validate_certs"],
            http_client=minio_sdk.http_client(params["validate_certs"], params["ca_file"], params["ca_content"]),
        )
        user_client = Minio(
            target["host"],
            access_key=params["user_access_key"],
            secret_key=params["user_secret_key"],
            secure=target["secure"],
            http_client=minio_sdk.http_client(params["validate_certs"], params["ca_file"], params["ca_content"]),
        )
        result = ensure_access(
            admin,
            user_client,
            params["policy_name"],
            params["policy"],
            params["user_access_key"],
            params["user_secret_key"],
            admin_access_key=params["access_key"],
            check_mode=module.check_mode,
        )
    except minio_utils.MinioInputError as exc:
        module.fail_json(msg=str(exc))
    except AdminError as exc:
        module.fail_json(msg=minio_utils.error_message(endpoint, exc.action, exc.code, exc.message))
    except S3Error as exc:
        module.fail_json(msg=minio_utils.error_message(endpoint, "test the user's secret", exc.code, exc.message))
    except MinioException as exc:
        module.fail_json(msg="MinIO at %s gave an unexpected answer: %s" % (endpoint, exc))
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        module.fail_json(msg="cannot reach MinIO at %s: %s" % (endpoint, exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
