"""Unit tests for plugins/filter/minio.py: the filters wrap module_utils/minio and raise filter errors."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.minio import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import minio

FILTERS = FilterModule().filters()
SETTINGS = {"hosts": ["minio1"], "addresses": {}, "data_dirs": ["/mnt/disk1", "/mnt/disk2"], "port": 9000, "scheme": "http", "volumes": []}
CREDENTIALS = {"root_user": "aicluster-root", "root_password": "Xq3v9ZrT0pLm2Wc8", "job_access_key": "jobs", "job_secret_key": "Jb7kR2nQ9sV4tY6u"}


def test_each_filter_is_its_module_utils_function():
    assert {name: function.__wrapped__ for name, function in FILTERS.items()} == {
        "minio_client_endpoints": minio.client_endpoints,
        "minio_prometheus_token": minio.prometheus_token,
        "minio_expand": minio.expand,
        "minio_input_findings": minio.input_findings,
        "minio_job_policy": minio.job_policy,
        "minio_account_policy": minio.account_policy,
        "minio_server_volumes": minio.server_volumes,
    }


def test_server_volumes():
    assert FILTERS["minio_server_volumes"](SETTINGS)["volumes"] == "/mnt/disk1 /mnt/disk2"


def test_server_volumes_error_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="inventory group minio is empty"):
        FILTERS["minio_server_volumes"](dict(SETTINGS, hosts=[]))


def test_input_findings():
    assert FILTERS["minio_input_findings"](SETTINGS, CREDENTIALS) == []
    findings = FILTERS["minio_input_findings"](dict(SETTINGS, hosts=["a", "b"], data_dirs=["/d"]), dict(CREDENTIALS, root_password="minioadmin"))
    assert [finding["id"] for finding in findings] == ["minio_secrets", "minio_volumes"]


def test_job_policy():
    policy = FILTERS["minio_job_policy"]("checkpoints")
    assert policy["Statement"][1]["Resource"] == ["arn:aws:s3:::checkpoints/*"]
    with pytest.raises(AnsibleFilterError, match="minio_checkpoint_bucket"):
        FILTERS["minio_job_policy"]("Bad_Bucket")


def test_expand():
    assert FILTERS["minio_expand"]("/d{1...2}") == ["/d1", "/d2"]
    with pytest.raises(AnsibleFilterError, match="three dots"):
        FILTERS["minio_expand"]("/d{1..2}")
