"""Unit tests for plugins/module_utils/minio.py: MinIO layout, credential checks, job policy, lifecycle.

The expected ellipsis expansions were checked against MinIO's own parser
(github.com/minio/pkg/v3 ellipses, v3.1.3, the version MinIO 2026-02 builds
with): the leftmost range varies fastest, and padding follows the end's width.
"""

import base64
import hashlib
import hmac
import json

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import minio

HOSTS = ["minio1", "minio2", "minio3", "minio4"]


def _settings(**overrides):
    settings = {"hosts": HOSTS, "addresses": {}, "data_dirs": ["/mnt/disk1"], "port": 9000, "scheme": "http", "volumes": []}
    settings.update(overrides)
    return settings


def _errors(settings):
    return [finding["message"] for finding in minio.input_findings(settings, GOOD_CREDENTIALS)]


# expand


def test_expand_plain_string_is_itself():
    assert minio.expand("/mnt/disk1") == ["/mnt/disk1"]


def test_expand_inclusive_range():
    assert minio.expand("/mnt/disk{1...4}") == ["/mnt/disk1", "/mnt/disk2", "/mnt/disk3", "/mnt/disk4"]


def test_expand_zero_padded_range():
    assert minio.expand("/data{01...04}") == ["/data01", "/data02", "/data03", "/data04"]
    assert minio.expand("/data{08...10}") == ["/data08", "/data09", "/data10"]


def test_expand_pads_to_the_end_width_like_minio():
    # MinIO pads to len(end) when the start has a leading zero or the end does.
    assert minio.expand("/d{01...100}")[:2] == ["/d001", "/d002"]
    assert minio.expand("/d{1...010}")[0] == "/d001"
    assert minio.expand("/d{0...2}") == ["/d0", "/d1", "/d2"]


def test_expand_several_ranges_leftmost_varies_fastest():
    assert minio.expand("http://h{1...2}:9000/d{1...3}") == [
        "http://h1:9000/d1",
        "http://h2:9000/d1",
        "http://h1:9000/d2",
        "http://h2:9000/d2",
        "http://h1:9000/d3",
        "http://h2:9000/d3",
    ]


def test_expand_three_ranges():
    out = minio.expand("r{1...2}h{1...2}d{1...2}")
    assert out == ["r1h1d1", "r2h1d1", "r1h2d1", "r2h2d1", "r1h1d2", "r2h1d2", "r1h2d2", "r2h2d2"]


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("/d{1..4}", ["{1..4}", "three dots"]),
        ("/d{4...1}", ["counts down", "{1...4}"]),
        ("/d{a...c}", ["{a...c}", "decimal"]),
        ("/d{1...4", ["unbalanced", "{N...M}"]),
        ("/d1...4}", ["unbalanced"]),
        ("/d{{1...4}}", ["nested"]),
        ("/d1...4", ["outside braces"]),
        ("/d{1,2}", ["{1,2}"]),
        ("/d{}", ["{}"]),
    ],
)
def test_expand_malformed(pattern, words):
    with pytest.raises(minio.MinioInputError) as error:
        minio.expand(pattern)
    assert repr(pattern) in str(error.value)
    for word in words:
        assert word in str(error.value)


# server_volumes: defaults


def test_single_host_uses_local_paths():
    layout = minio.server_volumes(_settings(hosts=["minio1"], data_dirs=["/mnt/disk1", "/mnt/disk2"]))
    assert layout == {
        "volumes": "/mnt/disk1 /mnt/disk2",
        "mode": "single",
        "drives": 2,
        "endpoints": ["/mnt/disk1", "/mnt/disk2"],
        "hosts": ["minio1"],
    }


def test_single_host_one_drive():
    assert minio.server_volumes(_settings(hosts=["minio1"]))["volumes"] == "/mnt/disk1"


def test_single_host_drive_count_must_suit_an_erasure_set():
    dirs = ["/mnt/disk%d" % n for n in range(1, 18)]
    with pytest.raises(minio.MinioInputError, match="pool 1 has 17 drives"):
        minio.server_volumes(_settings(hosts=["minio1"], data_dirs=dirs))
    assert minio.server_volumes(_settings(hosts=["minio1"], data_dirs=dirs[:3]))["drives"] == 3


def test_distributed_four_hosts_one_pool_hosts_vary_fastest():
    layout = minio.server_volumes(_settings(data_dirs=["/mnt/disk1", "/mnt/disk2"], addresses={"minio1": "10.0.0.1"}))
    assert layout["mode"] == "distributed"
    assert layout["drives"] == 8
    assert layout["hosts"] == HOSTS
    assert layout["endpoints"] == [
        "http://10.0.0.1:9000/mnt/disk1",
        "http://minio2:9000/mnt/disk1",
        "http://minio3:9000/mnt/disk1",
        "http://minio4:9000/mnt/disk1",
        "http://10.0.0.1:9000/mnt/disk2",
        "http://minio2:9000/mnt/disk2",
        "http://minio3:9000/mnt/disk2",
        "http://minio4:9000/mnt/disk2",
    ]
    assert layout["volumes"] == " ".join(layout["endpoints"])


def test_distributed_https_port_and_ipv6_address():
    layout = minio.server_volumes(_settings(scheme="https", port=9443, addresses={"minio2": "fd00::2"}))
    assert layout["endpoints"][1] == "https://[fd00::2]:9443/mnt/disk1"


def test_two_hosts_two_dirs_make_a_set_of_four():
    layout = minio.server_volumes(_settings(hosts=["a", "b"], data_dirs=["/d1", "/d2"]))
    assert layout["drives"] == 4


@pytest.mark.parametrize(("hosts", "dirs"), [(2, 1), (3, 1), (17, 2), (19, 1)])
def test_distributed_pool_needs_sets_of_4_to_16(hosts, dirs):
    settings = _settings(hosts=["h%d" % n for n in range(hosts)], data_dirs=["/d%d" % n for n in range(dirs)])
    with pytest.raises(minio.MinioInputError) as error:
        minio.server_volumes(settings)
    message = str(error.value)
    assert message.startswith("minio_volumes/minio_data_dirs: pool 1 has %d drives" % (hosts * dirs))
    assert "sets of 4 to 16" in message
    assert "use 4 or more MinIO hosts, or more data dirs per host" in message


@pytest.mark.parametrize(("hosts", "dirs"), [(4, 1), (5, 1), (3, 2), (3, 4), (6, 4), (8, 4), (16, 1)])
def test_distributed_good_counts(hosts, dirs):
    settings = _settings(hosts=["h%d" % n for n in range(hosts)], data_dirs=["/d%d" % n for n in range(dirs)])
    assert minio.server_volumes(settings)["drives"] == hosts * dirs


def test_empty_group_is_an_error():
    with pytest.raises(minio.MinioInputError, match="inventory group minio is empty"):
        minio.server_volumes(_settings(hosts=[]))


@pytest.mark.parametrize(
    ("data_dirs", "words"),
    [
        ([], ["minio_data_dirs", "non-empty list"]),
        (None, ["minio_data_dirs"]),
        ("/mnt/disk1", ["minio_data_dirs", "non-empty list"]),
        (["mnt/disk1"], ["minio_data_dirs", "'mnt/disk1'", "absolute path"]),
        (["/"], ["minio_data_dirs", "absolute path below /"]),
        (["/mnt/my disk"], ["minio_data_dirs", "whitespace"]),
        (["/mnt/disk{1...4}"], ["minio_data_dirs", "braces"]),
        (["/mnt/disk1", "/mnt/disk1/"], ["listed twice"]),
        (["/mnt", "/mnt/disk1"], ["nested"]),
    ],
)
def test_bad_data_dirs(data_dirs, words):
    with pytest.raises(minio.MinioInputError) as error:
        minio.server_volumes(_settings(hosts=["minio1"], data_dirs=data_dirs))
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize("port", [0, 70000, "x", None])
def test_bad_port(port):
    with pytest.raises(minio.MinioInputError, match="port"):
        minio.server_volumes(_settings(port=port))


def test_bad_scheme():
    with pytest.raises(minio.MinioInputError, match="neither http nor https"):
        minio.server_volumes(_settings(scheme="ftp"))


# server_volumes: pools given in minio_volumes


def test_given_pool_with_ellipses_is_kept_as_written():
    pool = "http://minio{1...4}:9000/mnt/disk{1...4}"
    layout = minio.server_volumes(_settings(volumes=[pool]))
    assert layout["volumes"] == pool
    assert layout["drives"] == 16
    assert layout["endpoints"][:5] == [
        "http://minio1:9000/mnt/disk1",
        "http://minio2:9000/mnt/disk1",
        "http://minio3:9000/mnt/disk1",
        "http://minio4:9000/mnt/disk1",
        "http://minio1:9000/mnt/disk2",
    ]


def test_given_pools_two_of_them():
    hosts = ["minio%d" % n for n in range(1, 9)]
    pools = ["http://minio{1...4}:9000/mnt/disk{1...4}", "http://minio{5...8}:9000/mnt/disk{1...4}"]
    layout = minio.server_volumes(_settings(hosts=hosts, volumes=pools))
    assert layout["volumes"] == " ".join(pools)
    assert layout["drives"] == 32


def test_given_pool_as_a_list_of_endpoints():
    pool = "http://minio1:9000/d http://minio2:9000/d  http://minio3:9000/d http://minio4:9000/d"
    layout = minio.server_volumes(_settings(volumes=[pool]))
    assert layout["volumes"] == "http://minio1:9000/d http://minio2:9000/d http://minio3:9000/d http://minio4:9000/d"
    assert layout["drives"] == 4


def test_given_pool_endpoints_by_address():
    addresses = {"minio%d" % n: "10.0.0.%d" % n for n in range(1, 5)}
    layout = minio.server_volumes(_settings(addresses=addresses, volumes=["http://10.0.0.{1...4}:9000/d"]))
    assert layout["endpoints"][0] == "http://10.0.0.1:9000/d"


def test_given_pool_single_host_paths():
    layout = minio.server_volumes(_settings(hosts=["minio1"], volumes=["/mnt/disk{1...4}"]))
    assert layout == {
        "volumes": "/mnt/disk{1...4}",
        "mode": "single",
        "drives": 4,
        "endpoints": ["/mnt/disk1", "/mnt/disk2", "/mnt/disk3", "/mnt/disk4"],
        "hosts": ["minio1"],
    }


def test_given_pool_single_host_needs_paths():
    with pytest.raises(minio.MinioInputError, match="with one MinIO host write the drives as paths"):
        minio.server_volumes(_settings(hosts=["minio1"], volumes=["http://minio1:9000/d{1...4}"]))


@pytest.mark.parametrize(
    ("pool", "words"),
    [
        ("/mnt/disk{1...4}", ["is not a http:// URL", "http://HOST:9000/ABSOLUTE/PATH"]),
        ("https://minio{1...4}:9000/d", ["is not a http:// URL"]),
        ("http://minio{1...4}:9001/d", ["does not name port 9000"]),
        ("http://minio{1...4}/d", ["does not name port 9000"]),
        ("http://minio{1...4}:9000", ["absolute drive path"]),
        ("http://minio{1...4}:9000/", ["absolute drive path"]),
        ("http://minio{1...4}:99999/d", ["not a valid URL"]),
        ("http://minio{1...5}:9000/d", ["names minio5", "not hosts of inventory group minio"]),
        ("http://minio{1...4}:9000/d{1..2}", ["pool 1", "{1..2}"]),
    ],
)
def test_given_pool_bad_endpoint(pool, words):
    messages = _errors(_settings(volumes=[pool]))
    assert messages, pool
    text = " | ".join(messages)
    assert "minio_volumes" in text
    for word in words:
        assert word in text
    # one message per pool, not one per endpoint
    assert len([m for m in messages if "pool 1 (" in m and words[0] in m]) <= 1


def test_every_minio_host_must_serve_drives():
    with pytest.raises(minio.MinioInputError, match="MinIO hosts minio4 are in no pool"):
        minio.server_volumes(_settings(volumes=["http://minio{1...3}:9000/d{1...4}"]))


def test_several_pools_each_need_ellipses():
    pools = ["http://minio{1...4}:9000/d", "http://minio1:9000/e http://minio2:9000/e http://minio3:9000/e http://minio4:9000/e"]
    with pytest.raises(minio.MinioInputError, match="pool 2 .* mixes a list|pool 2 .* has no ellipsis"):
        minio.server_volumes(_settings(volumes=pools))
    with pytest.raises(minio.MinioInputError, match="pool 2 .* has no ellipsis"):
        minio.server_volumes(_settings(volumes=["http://minio{1...4}:9000/d", "http://minio1:9000/e"]))


def test_pool_mixing_list_and_ellipses():
    with pytest.raises(minio.MinioInputError, match="mixes a list with ellipses"):
        minio.server_volumes(_settings(volumes=["http://minio{1...2}:9000/d http://minio{3...4}:9000/d"]))


@pytest.mark.parametrize("pool", ["", None, 5])
def test_pool_not_a_string(pool):
    with pytest.raises(minio.MinioInputError, match="write each server pool as one string"):
        minio.server_volumes(_settings(volumes=[pool]))


def test_volumes_not_a_list():
    with pytest.raises(minio.MinioInputError, match="minio_volumes: .* is not a list"):
        minio.server_volumes(_settings(volumes="http://minio{1...4}:9000/d"))


def test_given_pool_drive_count():
    with pytest.raises(minio.MinioInputError, match="pool 1 has 3 drives"):
        minio.server_volumes(_settings(hosts=HOSTS[:3], volumes=["http://minio{1...3}:9000/d"]))


def test_given_pool_symmetry_like_minio():
    # 5 hosts x 4 drives = 20: divisible by 4, 5 and 10, but MinIO wants the set
    # size to be a multiple or divisor of the first range (5 hosts): 5 or 10 work.
    hosts = ["minio%d" % n for n in range(1, 6)]
    assert minio.server_volumes(_settings(hosts=hosts, volumes=["http://minio{1...5}:9000/d{1...4}"]))["drives"] == 20
    # 6 hosts x 2 drives = 12 -> sets of 4, 6 or 12; 6 and 12 suit 6 hosts.
    hosts = ["minio%d" % n for n in range(1, 7)]
    assert minio.server_volumes(_settings(hosts=hosts, volumes=["http://minio{1...6}:9000/d{1...2}"]))["drives"] == 12


def test_given_pool_asymmetric():
    # 17 hosts x 4 drives = 68: only sets of 4 divide it, and 4 neither divides
    # nor is a multiple of 17 (the first range), so MinIO refuses to start.
    hosts = ["minio%d" % n for n in range(1, 18)]
    with pytest.raises(minio.MinioInputError) as error:
        minio.server_volumes(_settings(hosts=hosts, volumes=["http://minio{1...17}:9000/d{1...4}"]))
    assert "pool 1 has 68 drives" in str(error.value)
    assert "multiple or divisor of the first range's 17 entries" in str(error.value)


def test_duplicate_endpoints():
    addresses = {"minio1": "10.0.0.1"}
    pool = "http://minio1:9000/d http://10.0.0.1:9000/d/ http://minio2:9000/d http://minio3:9000/d http://minio4:9000/d"
    messages = _errors(_settings(addresses=addresses, volumes=[pool]))
    assert any("http://10.0.0.1:9000/d/ is listed twice" in message for message in messages)


def test_duplicate_endpoints_across_pools():
    pools = ["http://minio{1...4}:9000/d{1...4}", "http://minio{1...4}:9000/d{4...7}"]
    with pytest.raises(minio.MinioInputError, match="listed twice .pools 1 and 2."):
        minio.server_volumes(_settings(volumes=pools))


# credentials

GOOD_CREDENTIALS = {
    "root_user": "aicluster-root",
    "root_password": "Xq3v9ZrT0pLm2Wc8",
    "job_access_key": "checkpoint-jobs",
    "job_secret_key": "Jb7kR2nQ9sV4tY6u",
}


def _credential_messages(**overrides):
    values = dict(GOOD_CREDENTIALS, **overrides)
    findings = minio.credential_findings(values["root_user"], values["root_password"], values["job_access_key"], values["job_secret_key"])
    for finding in findings:
        assert finding["id"] == "minio_secrets"
        assert finding["severity"] == "error"
        for value in values.values():
            if value and str(value).lower() != "minioadmin":
                assert str(value) not in finding["message"]
    return [finding["message"] for finding in findings]


def test_good_credentials():
    assert _credential_messages() == []


@pytest.mark.parametrize(
    ("key", "variable"),
    [
        ("root_user", "minio_root_user"),
        ("root_password", "minio_root_password"),
        ("job_access_key", "minio_checkpoint_access_key"),
        ("job_secret_key", "minio_checkpoint_secret_key"),
    ],
)
@pytest.mark.parametrize("empty", [None, ""])
def test_missing_credential(key, variable, empty):
    messages = _credential_messages(**{key: empty})
    assert len(messages) == 1
    assert messages[0].startswith("%s is not set" % variable)
    assert "vault" in messages[0]


def test_missing_password_names_the_fix():
    assert _credential_messages(root_password="") == [
        "minio_root_password is not set; generate one with `openssl rand -base64 24` and keep it in a vault (ansible-vault encrypt_string)"
    ]


@pytest.mark.parametrize("value", ["minioadmin", "MinioAdmin", "MINIOADMIN"])
def test_default_root_user_and_password_rejected(value):
    messages = _credential_messages(root_user=value, root_password=value)
    assert any(message.startswith("minio_root_user is MinIO's well-known default minioadmin") for message in messages)
    assert any(message.startswith("minio_root_password is MinIO's well-known default minioadmin") for message in messages)


def test_short_secrets_rejected_without_showing_them():
    messages = _credential_messages(root_password="short-pw-1", job_secret_key="elevenchars")
    assert messages == [
        "minio_root_password is shorter than 12 characters; generate one with `openssl rand -base64 24` and keep it in a vault (ansible-vault encrypt_string)",
        "minio_checkpoint_secret_key is shorter than 12 characters; generate one with `openssl rand -base64 24` and keep it in a "
        "vault (ansible-vault encrypt_string)",
    ]


def test_twelve_character_secret_accepted():
    assert _credential_messages(root_password="twelve-chars") == []


def test_short_access_keys_rejected():
    messages = _credential_messages(root_user="ab", job_access_key="cd")
    assert messages == [
        "minio_root_user is shorter than 3 characters, MinIO's minimum; choose a longer account name",
        "minio_checkpoint_access_key is shorter than 3 characters, MinIO's minimum; choose a longer account name",
    ]


def test_reserved_characters_in_access_key():
    messages = _credential_messages(job_access_key="jobs=1,x")
    assert messages == ["minio_checkpoint_access_key contains '=' or ',', which MinIO reserves in access keys; use letters, digits, '-', '_' or '.'"]


def test_secrets_may_hold_anything_printable_but_not_a_line_break():
    """Quoted for /etc/default/minio and rclone.conf, a secret may hold spaces, quotes, #, $ and backslashes."""
    assert _credential_messages(root_password='has a "space" # $HOME \\ \u00e9', job_secret_key=" `back` 'quotes' ;x ") == []
    # MinIO trims its environment: a root password with whitespace at an end would never log in.
    [trimmed] = _credential_messages(root_password=" leading space-0123456")
    assert trimmed.startswith("minio_root_password starts or ends with whitespace, which MinIO trims")
    messages = _credential_messages(root_password="two\nlines of secret")
    assert messages == ["minio_root_password contains a line break or another control character; give one line of printable text"]
    both = _credential_messages(job_secret_key='a`b""" and more')
    assert len(both) == 1
    assert both[0].startswith("minio_checkpoint_secret_key contains both a backquote and")


def test_job_access_key_equal_to_root_user():
    messages = _credential_messages(job_access_key=GOOD_CREDENTIALS["root_user"])
    assert messages == ["minio_checkpoint_access_key equals minio_root_user; jobs must not use the root account: choose a separate access key"]


def test_job_secret_equal_to_root_password():
    messages = _credential_messages(job_secret_key=GOOD_CREDENTIALS["root_password"])
    assert len(messages) == 1
    assert messages[0].startswith("minio_checkpoint_secret_key equals minio_root_password")


def test_non_string_values_are_checked_as_text():
    assert _credential_messages(root_password=123456789012345) == []
    assert len(_credential_messages(root_password=12345)) == 1


def test_no_secret_value_in_any_message():
    secrets = ["s3cr3t!", "hunter2", "p@ss"]
    findings = minio.input_findings(
        _settings(hosts=[]),
        {"root_user": "ab", "root_password": secrets[0], "job_access_key": "ab", "job_secret_key": secrets[1] + secrets[2]},
    )
    assert findings
    dumped = json.dumps(findings)
    for secret in secrets + [secrets[1] + secrets[2]]:
        assert secret not in dumped


# input_findings


def test_input_findings_all_good():
    assert minio.input_findings(_settings(bucket="checkpoints"), GOOD_CREDENTIALS) == []


def test_input_findings_collects_volume_and_credential_errors_without_raising():
    findings = minio.input_findings(_settings(hosts=HOSTS[:2], data_dirs=["relative"]), dict(GOOD_CREDENTIALS, root_user=""))
    assert [finding["id"] for finding in findings] == ["minio_secrets", "minio_volumes"]
    assert all(finding["severity"] == "error" for finding in findings)
    assert "minio_data_dirs" in findings[1]["message"]


def test_input_findings_reports_every_volume_problem():
    findings = minio.input_findings(_settings(volumes=["http://minio{1...3}:9001/d", "/x{1..2}"]), GOOD_CREDENTIALS)
    messages = [finding["message"] for finding in findings]
    assert any("pool 1" in message and "port 9000" in message for message in messages)
    assert any("pool 2" in message and "{1..2}" in message for message in messages)


def test_input_findings_bad_bucket():
    findings = minio.input_findings(_settings(bucket="Checkpoints"), GOOD_CREDENTIALS)
    assert findings == [
        {
            "id": "minio_checkpoint_bucket",
            "severity": "error",
            "variable": "minio_checkpoint_bucket",
            "value": None,
            "fix": None,
            "message": "minio_checkpoint_bucket: 'Checkpoints' is not a valid S3 bucket name; use 3 to 63 lowercase letters, digits, "
            "dots and hyphens, starting and ending with a letter or digit, e.g. checkpoints",
        }
    ]


def test_input_findings_tolerates_missing_inputs():
    findings = minio.input_findings(None, None)
    assert {finding["id"] for finding in findings} == {"minio_secrets", "minio_volumes"}


# job policy


def test_job_policy():
    assert minio.job_policy("checkpoints") == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
                "Resource": ["arn:aws:s3:::checkpoints"],
            },
            {
                "Effect": "Allow",
                "Action": ["s3:AbortMultipartUpload", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:PutObject"],
                "Resource": ["arn:aws:s3:::checkpoints/*"],
            },
        ],
    }


def test_job_policy_grants_no_delete_and_no_other_bucket():
    policy = minio.job_policy("ckpt.lab-1")
    actions = [action for statement in policy["Statement"] for action in statement["Action"]]
    resources = [resource for statement in policy["Statement"] for resource in statement["Resource"]]
    assert not [action for action in actions if "Delete" in action or "*" in action]
    assert resources == ["arn:aws:s3:::ckpt.lab-1", "arn:aws:s3:::ckpt.lab-1/*"]
    assert all(statement["Effect"] == "Allow" for statement in policy["Statement"])


@pytest.mark.parametrize(
    "bucket",
    ["ab", "a" * 64, "Checkpoints", "-ckpt", "ckpt-", "ckpt_1", "192.168.1.1", "ck..pt", "ck.-pt", "ck pt", None, 42],
)
def test_job_policy_bad_bucket(bucket):
    with pytest.raises(minio.MinioInputError, match="minio_checkpoint_bucket"):
        minio.job_policy(bucket)


@pytest.mark.parametrize("bucket", ["abc", "a" * 63, "ckpt.lab-1", "0ckpt9"])
def test_good_bucket_names(bucket):
    assert minio.bucket_name_error(bucket) is None


def test_normalise_policy_ignores_order_and_single_strings():
    stored = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*", "Sid": ""},
            {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": ["arn:aws:s3:::b"]},
        ],
    }
    given = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Resource": ["arn:aws:s3:::b"], "Action": ["s3:ListBucket"]},
            {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::b/*"]},
        ],
    }
    assert minio.normalise_policy(json.dumps(stored)) == minio.normalise_policy(given)
    assert minio.normalise_policy(given) != minio.normalise_policy(minio.job_policy("bbb"))


def test_normalise_policy_rejects_non_objects():
    with pytest.raises(minio.MinioInputError, match="not a JSON object"):
        minio.normalise_policy("[1]")
    assert minio.normalise_policy(None) is None


# lifecycle


def test_lifecycle_rules():
    assert minio.lifecycle_rules(7) == [
        {
            "id": "expire-old-checkpoint-versions",
            "status": "Enabled",
            "filter": {"prefix": ""},
            "noncurrent_version_expiration": {"noncurrent_days": 7},
        }
    ]


def test_lifecycle_rules_with_abort():
    rule = minio.lifecycle_rules(7, 2)[0]
    assert rule["abort_incomplete_multipart_upload"] == {"days_after_initiation": 2}


@pytest.mark.parametrize("days", [0, -1, "7", 1.5, True, None])
def test_lifecycle_rules_bad_days(days):
    with pytest.raises(minio.MinioInputError, match="noncurrent_version_expiration_days: .* 1 or more"):
        minio.lifecycle_rules(days)


def test_lifecycle_rules_bad_abort_days():
    with pytest.raises(minio.MinioInputError, match="abort_incomplete_multipart_days"):
        minio.lifecycle_rules(7, 0)


def test_normalise_lifecycle_matches_wanted_rules():
    # The shape the minio_bucket module builds from the SDK's Rule dataclass.
    stored = [
        {
            "status": "Enabled",
            "rule_filter": {"and_operator": None, "prefix": "", "tag": None},
            "rule_id": "expire-old-checkpoint-versions",
            "abort_incomplete_multipart_upload": None,
            "expiration": None,
            "noncurrent_version_expiration": {"noncurrent_days": 7, "newer_noncurrent_versions": None},
            "noncurrent_version_transition": None,
            "transition": None,
        }
    ]
    assert minio.normalise_lifecycle(stored) == minio.lifecycle_rules(7)
    assert minio.normalise_lifecycle(stored) != minio.lifecycle_rules(8)
    assert minio.normalise_lifecycle(stored) != minio.lifecycle_rules(7, 1)


def test_normalise_lifecycle_sorts_and_fills_filter():
    rules = [{"rule_id": "b", "status": "Enabled"}, {"rule_id": "a", "status": "Disabled", "rule_filter": None}]
    assert minio.normalise_lifecycle(rules) == [
        {"id": "a", "status": "Disabled", "filter": {"prefix": ""}},
        {"id": "b", "status": "Enabled", "filter": {"prefix": ""}},
    ]
    assert minio.normalise_lifecycle(None) == []


# endpoint and error messages


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("http://10.0.0.5:9000", {"host": "10.0.0.5:9000", "secure": False}),
        ("https://minio.example.org:9000/", {"host": "minio.example.org:9000", "secure": True}),
        ("https://minio.example.org", {"host": "minio.example.org", "secure": True}),
        ("http://[fd00::5]:9000", {"host": "[fd00::5]:9000", "secure": False}),
    ],
)
def test_parse_endpoint(endpoint, expected):
    assert minio.parse_endpoint(endpoint) == expected


@pytest.mark.parametrize("endpoint", ["10.0.0.5:9000", "ftp://h:21", "http://h:9000/bucket", "http://user:pw@h:9000", "http://h:99999", "", None])
def test_parse_endpoint_bad(endpoint):
    with pytest.raises(minio.MinioInputError, match="endpoint: .* http://HOST:PORT"):
        minio.parse_endpoint(endpoint)


def test_error_messages():
    assert "rejected access_key/secret_key" in minio.error_message("http://h:9000", "read", "SignatureDoesNotMatch", "x")
    assert "clock" in minio.error_message("http://h:9000", "read", "RequestTimeTooSkewed", "x")
    assert "lacks the right" in minio.error_message("http://h:9000", "read", "AccessDenied", "x")
    assert minio.error_message("http://h:9000", "read", "NoSuchKey", "gone") == "MinIO at http://h:9000 could not read: NoSuchKey: gone"


def test_client_endpoints_start_with_the_client_endpoint_then_every_host_once():
    hosts = ["m1", "m2", "m3"]
    assert minio.client_endpoints(hosts, {"m2": "10.0.0.2"}, "https", 9000, "https://m1:9000") == [
        "https://m1:9000",
        "https://10.0.0.2:9000",
        "https://m3:9000",
    ]
    assert minio.client_endpoints(hosts, {}, "http", 9100, "https://lb.example.net") == [
        "https://lb.example.net",
        "http://m1:9100",
        "http://m2:9100",
        "http://m3:9100",
    ]
    assert minio.client_endpoints(["m1"], {"m1": "fd00::1"}, "https", 9000) == ["https://[fd00::1]:9000"]


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"client_endpoint": "minio1:9000"}, "minio_client_endpoint 'minio1:9000' is not an http(s)://host[:port] URL"),
        ({"client_endpoint": "https://m1:9000\nendpoint = evil"}, "minio_client_endpoint 'https://m1:9000\\nendpoint = evil' is not"),
        ({"client_endpoints": "https://m1:9000"}, "minio_client_endpoints 'https://m1:9000' is not a list"),
        ({"client_endpoints": ["https://m1:9000", "ftp://m2"]}, "minio_client_endpoints[1] 'ftp://m2' is not"),
        ({"client_endpoints": [9000]}, "minio_client_endpoints[0] 9000 is not"),
    ],
)
def test_bad_client_endpoints_are_named_with_their_value_and_a_fix(settings, says):
    errors = minio.client_endpoint_errors(settings)
    assert len(errors) == 1
    assert says in errors[0]
    assert "set e.g." in errors[0] or "give a list" in errors[0]


@pytest.mark.parametrize(
    "settings", [{}, {"client_endpoint": ""}, {"client_endpoint": "https://lb.example.net:9000/"}, {"client_endpoints": ["http://[fd00::1]:9000"]}]
)
def test_good_client_endpoints_pass(settings):
    assert minio.client_endpoint_errors(settings) == []


def _unpad(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def test_the_prometheus_token_is_an_hs512_jwt_of_the_access_key_signed_with_its_secret():
    token = minio.prometheus_token("aicluster-root", 's3cr3t-"#$ \\é')
    header, claims, signature = token.split(".")
    assert json.loads(_unpad(header)) == {"alg": "HS512", "typ": "JWT"}
    assert json.loads(_unpad(claims)) == {"exp": minio.TOKEN_EXPIRES, "iss": "prometheus", "sub": "aicluster-root"}
    expected = hmac.new('s3cr3t-"#$ \\é'.encode(), (header + "." + claims).encode(), hashlib.sha512).digest()
    assert _unpad(signature) == expected
    # The same inputs give the same token (idempotent runs); a new secret a new one.
    assert minio.prometheus_token("aicluster-root", 's3cr3t-"#$ \\é') == token
    assert minio.prometheus_token("aicluster-root", "another-secret") != token
    assert "=" not in token


@pytest.mark.parametrize(("access", "secret"), [("", "x"), ("root", ""), (None, "x")])
def test_a_token_without_the_key_pair_says_what_to_set(access, secret):
    with pytest.raises(minio.MinioInputError, match="minio_root_user and minio_root_password"):
        minio.prometheus_token(access, secret)


ACCOUNT = {"name": "nlp", "group": "nlp", "gid": 2601, "access_key": "nlp-jobs", "secret_key": "Nl7kR2nQ9sV4tY6uWq"}


def test_an_account_key_reaches_its_prefix_only():
    policy = minio.account_policy("checkpoints", "nlp")
    objects = [s for s in policy["Statement"] if "s3:PutObject" in s["Action"]]
    assert [s["Resource"] for s in objects] == [["arn:aws:s3:::checkpoints/nlp/*"]]
    (listing,) = [s for s in policy["Statement"] if "s3:ListBucket" in s["Action"]]
    assert listing["Condition"] == {"StringLike": {"s3:prefix": ["nlp/*"]}}
    assert listing["Action"] == ["s3:ListBucket"]  # MinIO refuses s3:prefix on ListBucketMultipartUploads
    assert not [s for s in policy["Statement"] if any("Delete" in a or "Create" in a for a in s["Action"])]
    with pytest.raises(minio.MinioInputError, match="is not a Slurm account name"):
        minio.account_policy("checkpoints", "../other")


def test_good_accounts_have_no_findings():
    assert minio.account_findings([ACCOUNT, dict(ACCOUNT, name="vision", group="vision", gid=None, access_key="vision-jobs")]) == []
    assert minio.account_findings([]) == []


@pytest.mark.parametrize(
    ("accounts", "says"),
    [
        ("nlp", "minio_checkpoint_accounts is not a list"),
        ([{"name": "nlp"}], "minio_checkpoint_accounts[0] has keys ['name']; give name, group, access_key, secret_key"),
        ([dict(ACCOUNT, name="NLP team")], "minio_checkpoint_accounts[0].name 'NLP team' is not a Slurm account name"),
        ([ACCOUNT, dict(ACCOUNT, access_key="other-jobs")], "minio_checkpoint_accounts[1].name 'nlp' is listed twice"),
        ([dict(ACCOUNT, group="nlp\nroot")], "minio_checkpoint_accounts[0].group 'nlp\\nroot' is not a Unix group name"),
        ([dict(ACCOUNT, gid=0)], "minio_checkpoint_accounts[0].gid 0 is not a GID from 1000 to 60000"),
        ([dict(ACCOUNT, access_key="training")], "minio_checkpoint_accounts[0].access_key is the root key, the shared job key"),
        ([dict(ACCOUNT, secret_key="short")], "minio_checkpoint_accounts[0].secret_key is shorter than"),
        ([dict(ACCOUNT, access_key="")], "minio_checkpoint_accounts[0].access_key is not set"),
    ],
)
def test_each_bad_account_is_named_with_the_fix(accounts, says):
    found = minio.account_findings(accounts, {"root_user": "aicluster-root", "job_access_key": "training"})
    assert [f["id"] for f in found] == ["minio_accounts"]
    assert says in found[0]["message"]
    assert "Nl7kR2nQ9sV4tY6uWq" not in found[0]["message"]
