"""S3 checks for the storage scenario (verify/storage.yml), run on the control node.

The endpoint and key pair come from the JSON file S3_CREDENTIALS names
({"endpoint", "access_key", "secret_key", "ca_pem"}, 0600; ca_pem: the CA
that verifies an https endpoint): never from the command
line or the environment, which -vvv and ps show. Every command prints one
JSON object.

  write BUCKET PREFIX COUNT   objects of random sizes, and a manifest of their sha256
  check BUCKET PREFIX         read every object of the manifest back, compare sha256
  latest BUCKET RUN           what RUN/latest names ("" when absent)
  versions BUCKET KEY         how many versions of KEY the bucket keeps
  denied BUCKET OTHER         what the key pair may and may not do (OTHER holds x/MANIFEST.json)
  prefix BUCKET ACCOUNT       what an account's key pair may do inside and outside ACCOUNT/
"""

import hashlib
import io
import json
import os
import ssl
import sys
from urllib.parse import urlparse

import urllib3
from minio import Minio
from minio.error import S3Error


def _client():
    with open(os.environ["S3_CREDENTIALS"], encoding="utf-8") as handle:
        credentials = json.load(handle)
    url = urlparse(credentials["endpoint"])
    http = None
    if credentials.get("ca_pem"):
        http = urllib3.PoolManager(cert_reqs="CERT_REQUIRED", ssl_context=ssl.create_default_context(cadata=credentials["ca_pem"]))
    return Minio(url.netloc, access_key=credentials["access_key"], secret_key=credentials["secret_key"], secure=url.scheme == "https", http_client=http)


def _put(client, bucket, key, data):
    client.put_object(bucket, key, io.BytesIO(data), len(data))


def _get(client, bucket, key):
    response = client.get_object(bucket, key)
    try:
        return response.read()
    finally:
        response.close()
        response.release_conn()


def write(bucket, prefix, count):
    client = _client()
    if not client.bucket_exists(bucket):
        client.make_bucket(bucket)
    manifest = {}
    for index in range(int(count)):
        # Sizes from 1 KiB to about 3 MiB: single and multipart-sized parts.
        data = os.urandom(1024 + (index * 397 * 1024) % (3 * 1024 * 1024))
        key = "%s/object-%03d" % (prefix, index)
        _put(client, bucket, key, data)
        manifest[key] = hashlib.sha256(data).hexdigest()
    _put(client, bucket, prefix + "/MANIFEST.json", json.dumps(manifest).encode())
    return {"written": len(manifest)}


def check(bucket, prefix):
    client = _client()
    manifest = json.loads(_get(client, bucket, prefix + "/MANIFEST.json"))
    bad = [key for key, digest in manifest.items() if hashlib.sha256(_get(client, bucket, key)).hexdigest() != digest]
    return {"checked": len(manifest), "bad": bad}


def latest(bucket, run):
    try:
        return {"latest": _get(_client(), bucket, run + "/latest").decode().strip()}
    except S3Error as error:
        if error.code == "NoSuchKey":
            return {"latest": ""}
        raise


def versions(bucket, key):
    found = _client().list_objects(bucket, prefix=key, include_version=True)
    return {"versions": sum(1 for item in found if item.object_name == key)}


def _outcome(action):
    try:
        action()
    except S3Error as error:
        return error.code
    return "allowed"


def denied(bucket, other):
    client = _client()
    key = "verify/denied-probe"
    return {
        "put_own": _outcome(lambda: _put(client, bucket, key, b"probe")),
        "get_own": _outcome(lambda: _get(client, bucket, key)),
        "get_other": _outcome(lambda: _get(client, other, "x/MANIFEST.json")),
        "list_other": _outcome(lambda: list(client.list_objects(other))),
        "put_other": _outcome(lambda: _put(client, other, "from-job", b"x")),
        "remove_own_bucket": _outcome(lambda: client.remove_bucket(bucket)),
        "make_bucket": _outcome(lambda: client.make_bucket("job-made-bucket")),
    }


def prefix(bucket, account):
    """What an account's key may do: its prefix, which holds the job's runs, and nothing else in the bucket."""
    client = _client()
    own = "%s/verify/prefix-probe" % account
    runs = [o.object_name for o in client.list_objects(bucket, prefix=account + "/", recursive=True) if o.object_name.endswith("/latest")]
    return {
        "put_own": _outcome(lambda: _put(client, bucket, own, b"probe")),
        "get_own": _outcome(lambda: _get(client, bucket, own)),
        "list_own": _outcome(lambda: list(client.list_objects(bucket, prefix=account + "/"))),
        "get_run": _outcome(lambda: _get(client, bucket, runs[0])) if runs else "no run under the prefix",
        "get_other": _outcome(lambda: _get(client, bucket, "verify/denied-probe")),
        "put_other": _outcome(lambda: _put(client, bucket, "other-account/x", b"x")),
        "list_bucket": _outcome(lambda: list(client.list_objects(bucket))),
        "list_other": _outcome(lambda: list(client.list_objects(bucket, prefix="other-account/"))),
    }


COMMANDS = {"write": write, "check": check, "latest": latest, "versions": versions, "denied": denied, "prefix": prefix}

if __name__ == "__main__":
    print(json.dumps(COMMANDS[sys.argv[1]](*sys.argv[2:])))
