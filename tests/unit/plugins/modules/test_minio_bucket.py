"""Unit tests for the minio_bucket module.

FakeS3 stands in for minio.Minio: it keeps buckets in memory and stores
versioning and lifecycle configurations the way the SDK reads them back
(through the SDK's own XML marshalling). With ``drop_abort`` it behaves like
MinIO, which accepts AbortIncompleteMultipartUpload in a lifecycle rule and
silently drops it (checked against a MinIO server built 2026-02).
"""

import pytest
import urllib3
from minio.error import S3Error
from minio.lifecycleconfig import LifecycleConfig
from minio.versioningconfig import VersioningConfig
from minio.xml import marshal, unmarshal

from ansible_collections.aicluster.slurm.plugins.module_utils import minio as minio_utils
from ansible_collections.aicluster.slurm.plugins.modules import minio_bucket

ENDPOINT = "http://127.0.0.1:9000"
SECRET = "Sup3r-s3cret-r00t-pw"
WRITES = ("make_bucket", "set_bucket_versioning", "set_bucket_lifecycle")


def _s3_error(code, message="refused"):
    return S3Error(None, code, message, "/", "req", "host")


class FakeS3:
    def __init__(self, drop_abort=False, fail_with=None):
        self.buckets = {}
        self.calls = []
        self.drop_abort = drop_abort
        self.fail_with = fail_with

    def _call(self, name, *args):
        self.calls.append((name,) + args)
        if self.fail_with is not None:
            raise self.fail_with

    def writes(self):
        return [call[0] for call in self.calls if call[0] in WRITES]

    def bucket_exists(self, name):
        self._call("bucket_exists", name)
        return name in self.buckets

    def make_bucket(self, name):
        self._call("make_bucket", name)
        self.buckets[name] = {"versioning": b"<VersioningConfiguration/>", "lifecycle": None}

    def get_bucket_versioning(self, name):
        self._call("get_bucket_versioning", name)
        return unmarshal(VersioningConfig, self.buckets[name]["versioning"].decode())

    def set_bucket_versioning(self, name, config):
        self._call("set_bucket_versioning", name, config.status)
        self.buckets[name]["versioning"] = marshal(config)

    def get_bucket_lifecycle(self, name):
        self._call("get_bucket_lifecycle", name)
        stored = self.buckets[name]["lifecycle"]
        return unmarshal(LifecycleConfig, stored.decode()) if stored else None

    def set_bucket_lifecycle(self, name, config):
        self._call("set_bucket_lifecycle", name)
        xml = marshal(config)
        if self.drop_abort:
            xml = xml.replace(b"<AbortIncompleteMultipartUpload><DaysAfterInitiation>2</DaysAfterInitiation></AbortIncompleteMultipartUpload>", b"")
        self.buckets[name]["lifecycle"] = xml


@pytest.fixture
def s3():
    return FakeS3()


# ensure_bucket, with the fake passed in


def test_creates_bucket_with_versioning_and_lifecycle(s3):
    result = minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7)
    assert result["changed"] is True
    assert result["actions"] == ["create", "versioning", "lifecycle"]
    assert result["bucket"] == "checkpoints"
    assert result["versioning"] == "Enabled"
    assert result["lifecycle"] == minio_utils.lifecycle_rules(7)
    assert result["diff"] == {
        "before": {"exists": False, "versioning": "Off", "lifecycle": []},
        "after": {"exists": True, "versioning": "Enabled", "lifecycle": minio_utils.lifecycle_rules(7)},
    }
    assert s3.writes() == ["make_bucket", "set_bucket_versioning", "set_bucket_lifecycle"]


def test_second_run_changes_nothing(s3):
    minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7, abort_days=None)
    s3.calls = []
    result = minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7)
    assert result["changed"] is False
    assert result["actions"] == []
    assert result["diff"]["before"] == result["diff"]["after"]
    assert s3.writes() == []


def test_lifecycle_with_abort_is_idempotent_on_a_server_that_keeps_it(s3):
    minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7, abort_days=2)
    result = minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7, abort_days=2)
    assert result["changed"] is False
    assert result["lifecycle"][0]["abort_incomplete_multipart_upload"] == {"days_after_initiation": 2}


def test_minio_dropping_abort_fails_with_the_reason():
    s3 = FakeS3(drop_abort=True)
    with pytest.raises(minio_bucket.BucketStateError) as error:
        minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7, abort_days=2)
    assert "MINIO_API_STALE_UPLOADS_EXPIRY" in str(error.value)
    assert "leave abort_incomplete_multipart_days unset" in str(error.value)


def test_changed_days_replace_the_lifecycle(s3):
    minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7)
    s3.calls = []
    result = minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=14)
    assert result["actions"] == ["lifecycle"]
    assert result["diff"]["before"]["lifecycle"][0]["noncurrent_version_expiration"] == {"noncurrent_days": 7}
    assert result["lifecycle"][0]["noncurrent_version_expiration"] == {"noncurrent_days": 14}
    assert s3.writes() == ["set_bucket_lifecycle"]


def test_lifecycle_not_managed_without_days(s3):
    minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7)
    s3.calls = []
    result = minio_bucket.ensure_bucket(s3, "checkpoints")
    assert result["changed"] is False
    assert result["lifecycle"] == minio_utils.lifecycle_rules(7)


def test_existing_bucket_gets_versioning_only(s3):
    s3.make_bucket("checkpoints")
    s3.calls = []
    result = minio_bucket.ensure_bucket(s3, "checkpoints")
    assert result["actions"] == ["versioning"]
    assert s3.writes() == ["set_bucket_versioning"]
    reads = [("bucket_exists", "checkpoints"), ("get_bucket_versioning", "checkpoints"), ("get_bucket_lifecycle", "checkpoints")]
    # read, write, read back
    assert s3.calls == reads + [("set_bucket_versioning", "checkpoints", "Enabled")] + reads


def test_versioning_false_suspends_an_enabled_bucket(s3):
    minio_bucket.ensure_bucket(s3, "checkpoints")
    result = minio_bucket.ensure_bucket(s3, "checkpoints", versioning=False)
    assert result["actions"] == ["versioning"]
    assert result["versioning"] == "Suspended"
    assert minio_bucket.ensure_bucket(s3, "checkpoints", versioning=False)["changed"] is False


def test_versioning_false_leaves_an_unversioned_bucket(s3):
    result = minio_bucket.ensure_bucket(s3, "scratch", versioning=False)
    assert result["actions"] == ["create"]
    assert result["versioning"] == "Off"


def test_check_mode_reports_and_writes_nothing(s3):
    result = minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7, check_mode=True)
    assert result["changed"] is True
    assert result["actions"] == ["create", "versioning", "lifecycle"]
    assert result["versioning"] == "Enabled"
    assert result["lifecycle"] == minio_utils.lifecycle_rules(7)
    assert s3.writes() == []
    assert s3.buckets == {}


def test_check_mode_on_converged_bucket_is_unchanged(s3):
    minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7)
    assert minio_bucket.ensure_bucket(s3, "checkpoints", noncurrent_days=7, check_mode=True)["changed"] is False


def test_bad_bucket_name_is_refused_before_any_call(s3):
    with pytest.raises(minio_utils.MinioInputError, match="name: 'Bad_Name' is not a valid S3 bucket name"):
        minio_bucket.ensure_bucket(s3, "Bad_Name")
    assert s3.calls == []


def test_abort_without_noncurrent_days(s3):
    with pytest.raises(minio_utils.MinioInputError, match="needs noncurrent_version_expiration_days"):
        minio_bucket.ensure_bucket(s3, "checkpoints", abort_days=2)


# main(), with minio.Minio replaced by the fake


@pytest.fixture
def run(run_module, monkeypatch):
    """``run(server, check_mode=False, **args)`` -> the module's result; ``run.clients`` the Minio() calls."""
    clients = []

    def call(server, check_mode=False, **args):
        def fake_minio(host, **kwargs):
            clients.append(dict(kwargs, host=host))
            return server

        monkeypatch.setattr(minio_bucket, "Minio", fake_minio)
        base = {"endpoint": ENDPOINT, "access_key": "rootuser", "secret_key": SECRET, "name": "checkpoints"}
        return run_module(minio_bucket.main, dict(base, **args), check_mode=check_mode)

    call.clients = clients
    return call


def test_main_creates_then_is_idempotent(run, s3):
    first = run(s3, noncurrent_version_expiration_days=7)
    assert first["changed"] is True
    assert first["actions"] == ["create", "versioning", "lifecycle"]
    second = run(s3, noncurrent_version_expiration_days=7)
    assert second["changed"] is False
    assert run.clients[0]["host"] == "127.0.0.1:9000"
    assert run.clients[0]["secure"] is False
    assert run.clients[0]["secret_key"] == SECRET
    assert isinstance(run.clients[0]["http_client"], urllib3.PoolManager)


def test_main_https_with_ca_file(run, s3, tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("not read by the fake")
    run(s3, endpoint="https://minio.example.org:9000", ca_file=str(ca))
    client = run.clients[0]
    assert client["host"] == "minio.example.org:9000"
    assert client["secure"] is True
    assert client["http_client"].connection_pool_kw["ca_certs"] == str(ca)
    assert client["http_client"].connection_pool_kw["cert_reqs"] == "CERT_REQUIRED"


def test_main_check_mode(run, s3):
    result = run(s3, check_mode=True, noncurrent_version_expiration_days=7)
    assert result["changed"] is True
    assert s3.writes() == []


def test_main_bad_endpoint(run, s3):
    result = run(s3, endpoint="127.0.0.1:9000")
    assert result["failed"] is True
    assert "http://HOST:PORT" in result["msg"]


def test_main_abort_needs_noncurrent_days(run, s3):
    result = run(s3, abort_incomplete_multipart_days=2)
    assert result["failed"] is True
    assert "noncurrent_version_expiration_days" in result["msg"]


@pytest.mark.parametrize("code", ["InvalidAccessKeyId", "SignatureDoesNotMatch"])
def test_main_auth_failure_names_endpoint_not_secret(run, code):
    result = run(FakeS3(fail_with=_s3_error(code)))
    assert result["failed"] is True
    assert result["msg"] == (
        "MinIO at http://127.0.0.1:9000 rejected access_key/secret_key while trying to manage bucket checkpoints (%s): "
        "check the credentials the task passes" % code
    )
    assert SECRET not in str(result)


def test_main_unreachable(run):
    error = urllib3.exceptions.MaxRetryError(None, "/checkpoints", reason=ConnectionRefusedError("Connection refused"))
    result = run(FakeS3(fail_with=error))
    assert result["failed"] is True
    assert result["msg"].startswith("cannot reach MinIO at http://127.0.0.1:9000: ")
    assert SECRET not in str(result)


def test_main_state_error(run):
    result = run(FakeS3(drop_abort=True), noncurrent_version_expiration_days=7, abort_incomplete_multipart_days=2)
    assert result["failed"] is True
    assert result["msg"].startswith("MinIO at http://127.0.0.1:9000: the server stored the bucket's lifecycle")


def test_main_without_sdk(run, s3, monkeypatch):
    monkeypatch.setattr(minio_bucket, "MINIO_IMPORT_ERROR", "Traceback: no module named minio")
    result = run(s3)
    assert result["failed"] is True
    assert "minio" in result["msg"]
