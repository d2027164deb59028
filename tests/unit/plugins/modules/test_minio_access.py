"""Unit tests for the minio_access module.

FakeAdmin stands in for minio.MinioAdmin and answers like MinIO's admin API
(checked against a MinIO server built 2026-02): info-canned-policy returns
the stored document re-indented, user-info returns ``policyName`` (comma
separated, absent without policies) and ``status``, missing objects are
404 with ``XMinioAdminNoSuch...`` codes, attaching an attached policy is a
400 ``XMinioAdminPolicyChangeAlreadyApplied``, and user_add on an existing
user sets its secret, enables it and keeps its policies. FakeUserClient is
minio.Minio signed with the user's credentials.
"""

import json

import pytest
from minio.error import MinioAdminException, S3Error

from ansible_collections.aicluster.slurm.plugins.module_utils import minio as minio_utils
from ansible_collections.aicluster.slurm.plugins.modules import minio_access

ENDPOINT = "http://127.0.0.1:9000"
ADMIN_SECRET = "r00t-Secret-Pw-123"
USER = "checkpoint-jobs"
USER_SECRET = "J0b-Secret-Key-456"
POLICY = minio_utils.job_policy("checkpoints")
WRITES = ("policy_add", "user_add", "attach_policy")


def _admin_error(status, code, message="refused"):
    return MinioAdminException(str(status), json.dumps({"Code": code, "Message": message, "Resource": "/minio/admin/v3/x"}))


class FakeAdmin:
    def __init__(self):
        self.policies = {}
        self.users = {}
        self.calls = []
        self.fail_with = None

    def _call(self, *call):
        self.calls.append(call)
        if self.fail_with is not None:
            raise self.fail_with

    def writes(self):
        return [call[0] for call in self.calls if call[0] in WRITES]

    def policy_info(self, name):
        self._call("policy_info", name)
        if name not in self.policies:
            raise _admin_error(404, "XMinioAdminNoSuchPolicy", "The canned policy does not exist.")
        return json.dumps(self.policies[name], indent=1)

    def policy_add(self, name, policy_file=None, policy=None):
        self._call("policy_add", name)
        assert policy_file is None
        self.policies[name] = json.loads(json.dumps(policy))

    def user_info(self, access_key):
        self._call("user_info", access_key)
        if access_key not in self.users:
            raise _admin_error(404, "XMinioAdminNoSuchUser", "The specified user does not exist.")
        user = self.users[access_key]
        info = {"status": user["status"], "updatedAt": "2026-01-01T00:00:00Z"}
        if user["policies"]:
            info["policyName"] = ",".join(user["policies"])
        return json.dumps(info)

    def user_add(self, access_key, secret_key):
        self._call("user_add", access_key)
        user = self.users.setdefault(access_key, {"policies": []})
        user.update(secret=secret_key, status="enabled")
        return ""

    def attach_policy(self, policies, user=None, group=None):
        self._call("attach_policy", tuple(policies), user)
        assert group is None
        attached = self.users[user]["policies"]
        if all(policy in attached for policy in policies):
            raise _admin_error(400, "XMinioAdminPolicyChangeAlreadyApplied", "The specified policy change is already in effect.")
        attached.extend(policy for policy in policies if policy not in attached)
        return json.dumps({"policiesAttached": policies})


class FakeUserClient:
    def __init__(self, admin, access_key, secret_key):
        self.admin, self.access_key, self.secret_key = admin, access_key, secret_key
        self.calls = 0

    def list_buckets(self):
        self.calls += 1
        user = self.admin.users.get(self.access_key)
        if user is None or user["status"] != "enabled":
            raise S3Error(None, "InvalidAccessKeyId", "The Access Key Id you provided does not exist in our records.", "/", "r", "h")
        if user["secret"] != self.secret_key:
            raise S3Error(None, "SignatureDoesNotMatch", "The request signature we calculated does not match.", "/", "r", "h")
        return []


@pytest.fixture
def admin():
    return FakeAdmin()


def _ensure(admin, secret=USER_SECRET, check_mode=False, policy=None, user_client=None):
    client = user_client or FakeUserClient(admin, USER, secret)
    return minio_access.ensure_access(admin, client, "checkpoint-jobs", policy or POLICY, USER, secret, admin_access_key="rootuser", check_mode=check_mode)


def _flags(result):
    return (result["changed"], result["policy_changed"], result["user_changed"], result["attached_changed"])


def test_creates_policy_user_and_attachment(admin):
    result = _ensure(admin)
    assert _flags(result) == (True, True, True, True)
    assert result["policies"] == ["checkpoint-jobs"]
    assert admin.writes() == ["policy_add", "user_add", "attach_policy"]
    assert admin.users[USER] == {"policies": ["checkpoint-jobs"], "secret": USER_SECRET, "status": "enabled"}
    assert admin.policies["checkpoint-jobs"] == POLICY
    assert USER_SECRET not in json.dumps(result)


def test_second_run_changes_nothing(admin):
    _ensure(admin)
    admin.calls = []
    client = FakeUserClient(admin, USER, USER_SECRET)
    result = _ensure(admin, user_client=client)
    assert _flags(result) == (False, False, False, False)
    assert admin.writes() == []
    assert client.calls == 1
    assert result["diff"]["before"] == result["diff"]["after"]


def test_stored_policy_in_another_order_is_not_rewritten(admin):
    stored = json.loads(json.dumps(POLICY))
    stored["Statement"].reverse()
    stored["Statement"][0]["Action"].reverse()
    stored["Statement"][1]["Resource"] = stored["Statement"][1]["Resource"][0]
    admin.policies["checkpoint-jobs"] = stored
    assert _ensure(admin)["policy_changed"] is False


def test_changed_policy_is_replaced(admin):
    _ensure(admin)
    admin.calls = []
    other = minio_utils.job_policy("other-bucket")
    result = _ensure(admin, policy=other)
    assert _flags(result) == (True, True, False, False)
    assert admin.writes() == ["policy_add"]
    assert admin.policies["checkpoint-jobs"] == other
    assert result["diff"]["before"]["policy"] == minio_utils.normalise_policy(POLICY)


def test_wrong_secret_is_reset(admin):
    _ensure(admin)
    admin.users[USER]["secret"] = "somebody-changed-it"
    admin.calls = []
    result = _ensure(admin)
    assert _flags(result) == (True, False, True, False)
    assert admin.writes() == ["user_add"]
    assert admin.users[USER]["secret"] == USER_SECRET
    assert admin.users[USER]["policies"] == ["checkpoint-jobs"]


def test_disabled_user_is_enabled(admin):
    _ensure(admin)
    admin.users[USER]["status"] = "disabled"
    result = _ensure(admin)
    assert result["user_changed"] is True
    assert admin.users[USER]["status"] == "enabled"


def test_access_denied_means_the_secret_works(admin):
    _ensure(admin)

    class DeniedClient:
        def list_buckets(self):
            raise S3Error(None, "AccessDenied", "Access Denied.", "/", "r", "h")

    admin.calls = []
    assert _ensure(admin, user_client=DeniedClient())["user_changed"] is False
    assert admin.writes() == []


def test_other_user_errors_propagate(admin):
    _ensure(admin)

    class BrokenClient:
        def list_buckets(self):
            raise S3Error(None, "XMinioServerNotInitialized", "Server not initialized", "/", "r", "h")

    with pytest.raises(S3Error):
        _ensure(admin, user_client=BrokenClient())


def test_secret_still_rejected_after_reset_fails(admin):
    _ensure(admin)
    admin.users[USER]["secret"] = "changed-elsewhere-1"

    class AlwaysRejected:
        def list_buckets(self):
            raise S3Error(None, "SignatureDoesNotMatch", "no", "/", "r", "h")

    with pytest.raises(minio_access.AdminError, match="still rejects"):
        _ensure(admin, user_client=AlwaysRejected())


def test_policy_attached_to_existing_user_with_other_policies(admin):
    admin.policies["checkpoint-jobs"] = POLICY
    admin.users[USER] = {"secret": USER_SECRET, "status": "enabled", "policies": ["readonly"]}
    result = _ensure(admin)
    assert _flags(result) == (True, False, False, True)
    assert result["policies"] == ["readonly", "checkpoint-jobs"]
    assert admin.users[USER]["policies"] == ["readonly", "checkpoint-jobs"]


def test_check_mode_writes_nothing(admin):
    result = _ensure(admin, check_mode=True)
    assert _flags(result) == (True, True, True, True)
    assert admin.writes() == []
    assert admin.users == {}
    assert admin.policies == {}


def test_check_mode_tests_the_secret_but_does_not_reset_it(admin):
    _ensure(admin)
    admin.users[USER]["secret"] = "changed-elsewhere-1"
    admin.calls = []
    result = _ensure(admin, check_mode=True)
    assert _flags(result) == (True, False, True, False)
    assert admin.writes() == []
    assert admin.users[USER]["secret"] == "changed-elsewhere-1"


def test_check_mode_converged(admin):
    _ensure(admin)
    assert _ensure(admin, check_mode=True)["changed"] is False


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"policy_name": "a,b"}, "policy_name"),
        ({"policy": {"Version": "2012-10-17", "Statement": []}}, "no Statement"),
        ({"user_access_key": "ab"}, "user_access_key"),
        ({"user_secret_key": "short"}, "user_secret_key is shorter than 8"),
        ({"user_access_key": "rootuser"}, "the admin's access_key"),
    ],
)
def test_bad_options(admin, kwargs, match):
    args = {"policy_name": "checkpoint-jobs", "policy": POLICY, "user_access_key": USER, "user_secret_key": USER_SECRET}
    args.update(kwargs)
    with pytest.raises(minio_utils.MinioInputError, match=match):
        minio_access.ensure_access(admin, None, admin_access_key="rootuser", **args)
    assert admin.calls == []


# main(), with MinioAdmin and Minio replaced by the fakes


@pytest.fixture
def run(run_module, monkeypatch, admin):
    """``run(check_mode=False, **args)`` -> the module's result; ``run.made`` the clients the module built."""
    made = []

    def fake_admin(endpoint, credentials, secure, cert_check, http_client):
        made.append({"kind": "admin", "endpoint": endpoint, "secure": secure, "cert_check": cert_check, "credentials": credentials})
        return admin

    def fake_minio(host, access_key, secret_key, secure, http_client):
        made.append({"kind": "user", "host": host, "access_key": access_key, "secure": secure})
        return FakeUserClient(admin, access_key, secret_key)

    def call(check_mode=False, **args):
        monkeypatch.setattr(minio_access, "MinioAdmin", fake_admin)
        monkeypatch.setattr(minio_access, "Minio", fake_minio)
        base = {
            "endpoint": ENDPOINT,
            "access_key": "rootuser",
            "secret_key": ADMIN_SECRET,
            "policy_name": "checkpoint-jobs",
            "policy": POLICY,
            "user_access_key": USER,
            "user_secret_key": USER_SECRET,
        }
        return run_module(minio_access.main, dict(base, **args), check_mode=check_mode)

    call.made = made
    return call


def test_main_converges_then_is_idempotent(run, admin):
    first = run()
    assert _flags(first) == (True, True, True, True)
    second = run()
    assert _flags(second) == (False, False, False, False)
    assert run.made[0]["kind"] == "admin"
    assert run.made[0]["endpoint"] == "127.0.0.1:9000"
    assert run.made[0]["secure"] is False
    assert run.made[0]["credentials"].retrieve().access_key == "rootuser"
    assert run.made[1] == {"kind": "user", "host": "127.0.0.1:9000", "access_key": USER, "secure": False}
    for result in (first, second):
        assert USER_SECRET not in json.dumps(result)
        assert ADMIN_SECRET not in json.dumps(result)


def test_main_check_mode(run, admin):
    result = run(check_mode=True)
    assert result["changed"] is True
    assert admin.writes() == []


def test_main_rejected_admin_credentials(run, admin):
    admin.fail_with = _admin_error(403, "SignatureDoesNotMatch", "The request signature we calculated does not match.")
    result = run()
    assert result["failed"] is True
    assert result["msg"] == (
        "MinIO at http://127.0.0.1:9000 rejected access_key/secret_key while trying to read policy checkpoint-jobs "
        "(SignatureDoesNotMatch): check the credentials the task passes"
    )
    assert ADMIN_SECRET not in json.dumps(result)


def test_main_admin_error_without_json_body(run, admin):
    admin.fail_with = MinioAdminException("502", "<html>bad gateway</html>")
    result = run()
    assert result["failed"] is True
    assert result["msg"] == "MinIO at http://127.0.0.1:9000 could not read policy checkpoint-jobs: HTTP 502: <html>bad gateway</html>"


def test_main_bad_endpoint(run):
    result = run(endpoint="minio:9000")
    assert result["failed"] is True
    assert "http://HOST:PORT" in result["msg"]


def test_main_without_sdk(run, monkeypatch):
    monkeypatch.setattr(minio_access, "MINIO_IMPORT_ERROR", "Traceback: no module named minio")
    result = run()
    assert result["failed"] is True
    assert "minio" in result["msg"]
