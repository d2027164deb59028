# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MinIO server layout, credential checks and the checkpoint bucket's policy, computed from the inventory.

Pure Python (no MinIO SDK): the filters in plugins/filter/minio.py and the
minio_bucket and minio_access modules use it.

Ellipsis notation is expanded the way MinIO (github.com/minio/pkg/v3
ellipses) does it, so the checks here see the drives MinIO will see:

* ``{1...4}`` is an inclusive decimal range; ``{01...04}`` pads to the width
  of the end (MinIO pads when the start has a leading zero and more than one
  digit, or when the end has a leading zero, always to the end's width);
* with several ellipses the LEFTMOST varies fastest:
  ``http://h{1...2}/d{1...2}`` -> h1/d1, h2/d1, h1/d2, h2/d2. MinIO cuts
  erasure sets from this list in order, so consecutive drives sit on
  different hosts.

MinIO also reads hexadecimal ranges (``{a...f}``); they are refused here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import hashlib
import hmac
import json
import posixpath
import re
from urllib.parse import urlsplit

from ansible_collections.aicluster.slurm.plugins.module_utils import quoting
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

# Erasure set sizes MinIO accepts (cmd/endpoint-ellipses.go setSizes); this
# collection asks a distributed pool for sets of 4 or more drives.
SINGLE_SET_SIZES = tuple(range(2, 17))
DISTRIBUTED_SET_SIZES = tuple(range(4, 17))
MIN_SECRET_LENGTH = 12
MIN_ACCESS_KEY_LENGTH = 3  # MinIO's minimum (internal/auth accessKeyMinLen)
DEFAULT_USER = "minioadmin"
LIFECYCLE_RULE_ID = "expire-old-checkpoint-versions"
POLICY_VERSION = "2012-10-17"
SECRET_FIX = "generate one with `openssl rand -base64 24` and keep it in a vault (ansible-vault encrypt_string)"
EXAMPLE_POOL = "http://minio{1...4}.example.org:9000/mnt/disk{1...4}"

_RANGE = re.compile(r"^([0-9]+)\.\.\.([0-9]+)$")
_GROUP = re.compile(r"\{([^{}]*)\}")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
# A Slurm account (its prefix in the bucket and its directory on the nodes) and a Unix group name.
_SLURM_ACCOUNT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_UNIX_GROUP = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_IPV4 = re.compile(r"^([0-9]{1,3}\.){3}[0-9]{1,3}$")
_WHITESPACE = re.compile(r"[\s\x00-\x1f\x7f]")


class MinioInputError(ValueError):
    """Bad MinIO input; the message names the variable, the value and the fix."""


# Ellipsis notation


def _has_ellipsis(text):
    return "{" in text or "}" in text or "..." in text


def _sequence(body, pattern):
    match = _RANGE.match(body)
    if not match:
        raise MinioInputError(
            "%r: {%s} is not a MinIO ellipsis range; write an inclusive decimal range with three dots, e.g. {1...4} or {01...16}" % (pattern, body)
        )
    start_text, end_text = match.groups()
    start, end = int(start_text), int(end_text)
    if start > end:
        raise MinioInputError("%r: {%s} counts down; write the smaller number first, e.g. {%d...%d}" % (pattern, body, end, start))
    if (start_text.startswith("0") and len(start_text) > 1) or end_text.startswith("0"):
        width = len(end_text)
        return ["%0*d" % (width, number) for number in range(start, end + 1)]
    return [str(number) for number in range(start, end + 1)]


def _parse(pattern):
    """``(literal parts, sequences)``: ``parts`` has one more element than ``sequences``."""
    if not isinstance(pattern, str):
        raise MinioInputError("%r is not a string; write a path or URL such as %s" % (pattern, EXAMPLE_POOL))
    parts, sequences, position = [], [], 0
    for match in _GROUP.finditer(pattern):
        parts.append(pattern[position : match.start()])
        sequences.append(_sequence(match.group(1), pattern))
        position = match.end()
    parts.append(pattern[position:])
    for part in parts:
        if "{" in part or "}" in part:
            raise MinioInputError("%r has unbalanced or nested braces; write each range as {N...M}, e.g. %s" % (pattern, EXAMPLE_POOL))
        if "..." in part:
            raise MinioInputError("%r has '...' outside braces; write each range as {N...M}, e.g. /mnt/disk{1...4}" % pattern)
    return parts, sequences


def _expand_parsed(parts, sequences):
    # MinIO's order: the leftmost range varies fastest, the rightmost slowest.
    combos = [[]]
    for sequence in sequences:
        combos = [combo + [label] for label in sequence for combo in combos]
    out = []
    for combo in combos:
        text = parts[0]
        for label, part in zip(combo, parts[1:], strict=True):
            text += label + part
        out.append(text)
    return out


def expand(pattern):
    """Every string a MinIO ellipsis pattern stands for, in MinIO's order.

    ``/mnt/disk{1...4}`` -> ``/mnt/disk1`` .. ``/mnt/disk4``; a string without
    ellipsis -> ``[string]``. Malformed ranges raise MinioInputError.
    """
    parts, sequences = _parse(pattern)
    return _expand_parsed(parts, sequences)


# Server layout


def _count(number, noun):
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def _bracket(address):
    return "[%s]" % address if ":" in address else address


def _hosts_error(hosts):
    if not hosts:
        return "inventory group minio is empty; add the hosts that run MinIO to it (one for a single server, 4 or more for erasure coding)"
    return None


def _data_dir_errors(data_dirs):
    if not isinstance(data_dirs, list) or not data_dirs:
        return ["minio_data_dirs: %r is not a non-empty list; list the absolute paths of the drives, e.g. [/mnt/disk1, /mnt/disk2]" % (data_dirs,)]
    errors = []
    for path in data_dirs:
        if not isinstance(path, str) or not path.startswith("/") or posixpath.normpath(path) == "/":
            errors.append("minio_data_dirs: %r is not an absolute path below /; write each drive's mount point, e.g. /mnt/disk1" % (path,))
        elif _WHITESPACE.search(path) or _has_ellipsis(path):
            errors.append(
                "minio_data_dirs: %r holds whitespace, braces or '...', which MinIO would read as a list or a range; "
                "rename the directory or list the drives in minio_volumes" % path
            )
    if errors:
        return errors
    normal = [posixpath.normpath(path) for path in data_dirs]
    for index, path in enumerate(normal):
        if path in normal[:index]:
            errors.append("minio_data_dirs: %s is listed twice; list each drive once" % path)
            continue
        for other in normal[:index]:
            if path.startswith(other + "/") or other.startswith(path + "/"):
                errors.append("minio_data_dirs: %s and %s are nested; give MinIO separate drives, neither inside the other" % (other, path))
    return errors


def _set_size_ok(count, sizes, first_range):
    for size in sizes:
        if count % size:
            continue
        if first_range is None:
            return True
        # MinIO's symmetry rule (possibleSetCountsWithSymmetry): the set size is
        # a multiple or a divisor of the length of the pattern's first range.
        if (first_range % size == 0) if first_range > size else (size % first_range == 0):
            return True
    return False


def _pool_size_error(number, count, detail, distributed, first_range):
    if distributed:
        if count >= DISTRIBUTED_SET_SIZES[0] and _set_size_ok(count, DISTRIBUTED_SET_SIZES, first_range):
            return None
        why = ""
        if count >= DISTRIBUTED_SET_SIZES[0] and first_range is not None and _set_size_ok(count, DISTRIBUTED_SET_SIZES, None):
            why = "; MinIO also needs the set size to be a multiple or divisor of the first range's %d entries" % first_range
        return (
            "minio_volumes/minio_data_dirs: pool %d has %d drives (%s); distributed MinIO erasure-codes over sets of 4 to 16 "
            "drives, so a pool needs 4 or more drives and a count divisible by a set size from 4 to 16%s: use 4 or more MinIO "
            "hosts, or more data dirs per host" % (number, count, detail, why)
        )
    if count == 1 or _set_size_ok(count, SINGLE_SET_SIZES, first_range):
        return None
    return (
        "minio_volumes/minio_data_dirs: pool %d has %d drives (%s); MinIO needs one drive or a count divisible by an erasure "
        "set size from 2 to 16: add or remove a drive" % (number, count, detail)
    )


def _endpoint_host(endpoint, settings, lookup):
    """``((inventory host, path), None)``, ``(unknown host name, None)`` or ``(None, error message)``."""
    number, raw, hint = settings["number"], settings["raw"], settings["hint"]
    try:
        url = urlsplit(endpoint)
        port = url.port
    except ValueError:
        return None, "minio_volumes: pool %d (%r): %r is not a valid URL; write endpoints like %s" % (number, raw, endpoint, hint)
    if url.scheme != settings["scheme"] or not url.hostname:
        return None, (
            "minio_volumes: pool %d (%r): %r is not a %s:// URL; with several MinIO hosts every endpoint is "
            "%s://HOST:%d/ABSOLUTE/PATH, e.g. %s" % (number, raw, endpoint, settings["scheme"], settings["scheme"], settings["port"], hint)
        )
    if port != settings["port"]:
        return None, (
            "minio_volumes: pool %d (%r): %r does not name port %d, the port MinIO listens on; write it as "
            "%s://HOST:%d/PATH" % (number, raw, endpoint, settings["port"], settings["scheme"], settings["port"])
        )
    if url.username or url.password or url.query or url.fragment or not url.path.startswith("/") or posixpath.normpath(url.path) == "/":
        return None, "minio_volumes: pool %d (%r): %r needs an absolute drive path after the port, e.g. %s" % (number, raw, endpoint, hint)
    host = lookup.get(url.hostname.lower())
    if host is None:
        return url.hostname, None
    return (host, posixpath.normpath(url.path)), None


def _default_pools(hosts, addresses, settings):
    data_dirs = settings["data_dirs"]
    if len(hosts) == 1:
        return [{"volumes": " ".join(data_dirs), "endpoints": list(data_dirs), "first_range": None}]
    scheme, port = settings["scheme"], settings["port"]
    # Hosts vary fastest, like MinIO's own ellipsis order, so each erasure set
    # MinIO cuts from this list in order spreads over the hosts.
    endpoints = ["%s://%s:%d%s" % (scheme, _bracket(addresses[host]), port, path) for path in data_dirs for host in hosts]
    return [{"volumes": " ".join(endpoints), "endpoints": endpoints, "first_range": None}]


def _given_pools(volumes, errors):
    pools = []
    for number, raw in enumerate(volumes, 1):
        if not isinstance(raw, str) or not raw.strip():
            errors.append("minio_volumes: pool %d is %r; write each server pool as one string, e.g. %s" % (number, raw, EXAMPLE_POOL))
            continue
        tokens = raw.split()
        if len(tokens) > 1 and any(_has_ellipsis(token) for token in tokens):
            errors.append(
                "minio_volumes: pool %d (%r) mixes a list with ellipses; write the pool as one pattern, e.g. %s, "
                "or list every endpoint without ellipses" % (number, raw, EXAMPLE_POOL)
            )
            continue
        if len(volumes) > 1 and not _has_ellipsis(raw):
            errors.append(
                "minio_volumes: pool %d (%r) has no ellipsis; MinIO reads several pools only when each is one ellipsis "
                "pattern: write it like %s" % (number, raw, EXAMPLE_POOL)
            )
            continue
        try:
            if len(tokens) > 1:
                endpoints, first_range = tokens, None
            else:
                parts, sequences = _parse(tokens[0])
                endpoints = _expand_parsed(parts, sequences)
                first_range = len(sequences[0]) if sequences else None
        except MinioInputError as error:
            errors.append("minio_volumes: pool %d: %s" % (number, error))
            continue
        pools.append({"number": number, "raw": raw, "volumes": " ".join(tokens), "endpoints": endpoints, "first_range": first_range})
    return pools


def _check_settings(settings, errors):
    port, scheme = settings.get("port", 9000), settings.get("scheme", "http")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        try:
            port = int(str(port))
        except ValueError:
            port = None
        if port is None or not 0 < port < 65536:
            errors.append("MinIO port: %r is not a port number from 1 to 65535; set e.g. 9000" % (settings.get("port"),))
    if scheme not in ("http", "https"):
        errors.append("MinIO scheme: %r is neither http nor https; set one of them" % (scheme,))
    volumes = settings.get("volumes") or []
    if not isinstance(volumes, list):
        errors.append("minio_volumes: %r is not a list; list one string per server pool, e.g. [%s]" % (volumes, EXAMPLE_POOL))
        volumes = []
    return port, scheme, volumes


def _layout(settings):
    """``(layout, errors)``; layout is None when there are errors."""
    errors = []
    hosts = list(settings.get("hosts") or [])
    host_error = _hosts_error(hosts)
    if host_error:
        errors.append(host_error)
    data_dirs = settings.get("data_dirs")
    errors.extend(_data_dir_errors(data_dirs))
    port, scheme, volumes = _check_settings(settings, errors)
    if errors:
        return None, errors

    overrides = settings.get("addresses") or {}
    addresses = {host: str(overrides.get(host) or host).strip("[]") for host in hosts}
    distributed = len(hosts) > 1
    lookup = {}
    for host in hosts:
        lookup.setdefault(host.lower(), host)
        lookup.setdefault(addresses[host].lower(), host)
    common = {"scheme": scheme, "port": port, "data_dirs": data_dirs}

    if volumes:
        pools = _given_pools(volumes, errors)
    else:
        pools = _default_pools(hosts, addresses, common)
        for pool in pools:
            pool.update(number=1, raw=pool["volumes"])

    seen, used = {}, set()
    for pool in pools:
        endpoint_settings = dict(common, number=pool["number"], raw=pool["raw"], hint=EXAMPLE_POOL)
        pool_hosts, unknown, format_errors = [], [], []
        for endpoint in pool["endpoints"]:
            if distributed:
                key, error = _endpoint_host(endpoint, endpoint_settings, lookup)
                if error or not isinstance(key, tuple):
                    if error:
                        format_errors.append(error)
                    elif key not in unknown:
                        unknown.append(key)
                    continue
                pool_hosts.append(key[0])
                used.add(key[0])
            elif not endpoint.startswith("/") or posixpath.normpath(endpoint) == "/":
                format_errors.append(
                    "minio_volumes: pool %d (%r): %r is not an absolute local path; with one MinIO host write the drives "
                    "as paths, e.g. /mnt/disk{1...4}" % (pool["number"], pool["raw"], endpoint)
                )
                continue
            else:
                key = (hosts[0], posixpath.normpath(endpoint))
                used.add(hosts[0])
            if key in seen:
                errors.append(
                    "minio_volumes: %s is listed twice (pools %d and %d); each drive belongs to exactly one pool, once" % (endpoint, seen[key], pool["number"])
                )
            seen.setdefault(key, pool["number"])
        if format_errors:
            # One message per pool: the same mistake repeats in every endpoint of a pattern.
            errors.append(format_errors[0])
        if unknown:
            errors.append(
                "minio_volumes: pool %d (%r) names %s, not hosts of inventory group minio (nor their addresses); name only "
                "MinIO hosts, by inventory name or address, or add the hosts to the group" % (pool["number"], pool["raw"], ", ".join(unknown))
            )
        count = len(pool["endpoints"])
        if volumes:
            detail = "%s from minio_volumes %r" % (_count(len(set(pool_hosts)) or 1, "host"), pool["raw"])
        else:
            detail = "%s x %s" % (_count(len(hosts), "host"), _count(len(data_dirs), "data dir"))
        size_error = _pool_size_error(pool["number"], count, detail, distributed, pool["first_range"])
        if size_error:
            errors.append(size_error)
    if volumes and not errors:
        missing = [host for host in hosts if host not in used]
        if missing:
            errors.append(
                "minio_volumes: MinIO hosts %s are in no pool; every host of inventory group minio runs MinIO and must "
                "serve drives: add them to a pool or remove them from the group" % ", ".join(missing)
            )
    if errors:
        return None, errors
    return {
        "volumes": " ".join(pool["volumes"] for pool in pools),
        "mode": "distributed" if distributed else "single",
        "drives": sum(len(pool["endpoints"]) for pool in pools),
        "endpoints": [endpoint for pool in pools for endpoint in pool["endpoints"]],
        "hosts": hosts,
    }, []


def server_volumes(settings):
    """MINIO_VOLUMES and the layout behind it.

    ``settings``: ``hosts`` (inventory group minio, in order), ``addresses``
    ({host: address}, default the host name), ``data_dirs`` (absolute paths),
    ``port``, ``scheme`` (http or https), ``volumes`` (server pools given by
    the user; empty: derived from hosts and data_dirs).

    Returns ``{"volumes", "mode", "drives", "endpoints", "hosts"}``; bad input
    raises MinioInputError with every problem found.
    """
    layout, errors = _layout(settings)
    if errors:
        raise MinioInputError("; ".join(errors))
    return layout


# Credentials


def _text(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _finding(check_id, message):
    """Each MinIO message starts with the variable it is about."""
    first = message.split(" ", 1)[0].split("=", 1)[0].rstrip(":;,")
    return finding(check_id, message, first if first.startswith("minio_") else None)


def _account_errors(variable, value):
    if not value:
        return ["%s is not set; set an account name of %d or more characters (not minioadmin), kept in a vault" % (variable, MIN_ACCESS_KEY_LENGTH)]
    errors = []
    if value.lower() == DEFAULT_USER:
        errors.append("%s is MinIO's well-known default minioadmin; choose another account name" % variable)
    elif len(value) < MIN_ACCESS_KEY_LENGTH:
        errors.append("%s is shorter than %d characters, MinIO's minimum; choose a longer account name" % (variable, MIN_ACCESS_KEY_LENGTH))
    if "=" in value or "," in value:
        errors.append("%s contains '=' or ',', which MinIO reserves in access keys; use letters, digits, '-', '_' or '.'" % variable)
    if _WHITESPACE.search(value):
        errors.append("%s contains whitespace or a control character; use letters, digits, '-', '_' or '.'" % variable)
    return errors


def _secret_errors(variable, value):
    if not value:
        return ["%s is not set; %s" % (variable, SECRET_FIX)]
    errors = []
    if value.lower() == DEFAULT_USER:
        errors.append("%s is MinIO's well-known default minioadmin; %s" % (variable, SECRET_FIX))
    elif len(value) < MIN_SECRET_LENGTH:
        errors.append("%s is shorter than %d characters; %s" % (variable, MIN_SECRET_LENGTH, SECRET_FIX))
    if variable == "minio_root_password" and value != value.strip():
        # Measured: MinIO trims the environment value it reads, so such a root password never works.
        errors.append("%s starts or ends with whitespace, which MinIO trims from its environment; %s" % (variable, SECRET_FIX))
    # Written to /etc/default/minio (the root password) and rclone.conf (the job key), each quoted for its parser.
    for file_format in ("systemd_env", "rclone"):
        unwritable = quoting.problem(value, file_format, variable)
        if unwritable:
            errors.append(unwritable)
            break
    return errors


def credential_findings(root_user, root_password, job_access_key, job_secret_key):
    """Findings (id ``minio_secrets``) for missing, default, short or shared credentials.

    Messages name the variable and the fix, never a value.
    """
    root_user, root_password = _text(root_user), _text(root_password)
    job_access_key, job_secret_key = _text(job_access_key), _text(job_secret_key)
    errors = _account_errors("minio_root_user", root_user)
    errors += _secret_errors("minio_root_password", root_password)
    errors += _account_errors("minio_checkpoint_access_key", job_access_key)
    errors += _secret_errors("minio_checkpoint_secret_key", job_secret_key)
    if job_access_key and job_access_key == root_user:
        errors.append("minio_checkpoint_access_key equals minio_root_user; jobs must not use the root account: choose a separate access key")
    if job_secret_key and job_secret_key == root_password:
        errors.append("minio_checkpoint_secret_key equals minio_root_password; %s, separate from the root password" % SECRET_FIX)
    return [_finding("minio_secrets", message) for message in errors]


def account_findings(accounts, credentials=None):
    """Findings (id ``minio_accounts``) for minio_checkpoint_accounts: ``[{name, group, gid, access_key, secret_key}]``,
    each Slurm account with its own key pair (messages never show a secret)."""
    credentials = credentials or {}
    if accounts in (None, []):
        return []
    if not isinstance(accounts, list):
        return [_finding("minio_accounts", "minio_checkpoint_accounts is not a list; give [{name, group, access_key, secret_key}, ...]")]
    errors, names, keys = [], set(), {_text(credentials.get("root_user")), _text(credentials.get("job_access_key"))}
    for index, entry in enumerate(accounts):
        where = "minio_checkpoint_accounts[%d]" % index
        if not isinstance(entry, dict) or sorted(set(entry) - {"gid"}) != ["access_key", "group", "name", "secret_key"]:
            errors.append(
                "%s has keys %s; give name, group, access_key, secret_key and optionally gid" % (where, sorted(entry) if isinstance(entry, dict) else entry)
            )
            continue
        name = entry["name"]
        if not isinstance(name, str) or not _SLURM_ACCOUNT.match(name):
            errors.append("%s.name %r is not a Slurm account name (lowercase letters, digits, _ and -); set the account jobs run under" % (where, name))
        elif name in names:
            errors.append("%s.name %r is listed twice; give each account once" % (where, name))
        names.add(name)
        if not isinstance(entry["group"], str) or not _UNIX_GROUP.match(entry["group"]):
            errors.append("%s.group %r is not a Unix group name; set the group whose members train under that account" % (where, entry["group"]))
        gid = entry.get("gid")
        if gid is not None and (isinstance(gid, bool) or not isinstance(gid, int) or not 1000 <= gid <= 60000):
            errors.append("%s.gid %r is not a GID from 1000 to 60000; set the group's GID, the same on every host, or leave it out" % (where, gid))
        access = _text(entry["access_key"])
        errors += _account_errors(where + ".access_key", access)
        if access in keys:
            errors.append("%s.access_key is the root key, the shared job key or another account's; give each account its own" % where)
        keys.add(access)
        errors += _secret_errors(where + ".secret_key", _text(entry["secret_key"]))
    return [_finding("minio_accounts", message) for message in errors]


def input_findings(settings, credentials):
    """Every problem with the MinIO inputs, as findings (empty: all good); never raises for bad input.

    ``credentials``: ``root_user``, ``root_password``, ``job_access_key``,
    ``job_secret_key``. ``settings`` as for server_volumes; with a ``bucket``
    key the checkpoint bucket name is checked too (id
    ``minio_checkpoint_bucket``).
    """
    credentials = credentials or {}
    findings = credential_findings(
        credentials.get("root_user"),
        credentials.get("root_password"),
        credentials.get("job_access_key"),
        credentials.get("job_secret_key"),
    )
    settings = settings or {}
    errors = _layout(settings)[1]
    findings += [_finding("minio_volumes", message) for message in errors]
    if "bucket" in settings:
        error = bucket_name_error(settings["bucket"])
        if error:
            findings.append(_finding("minio_checkpoint_bucket", error))
    findings += [_finding("minio_client_endpoint", message) for message in client_endpoint_errors(settings)]
    findings += account_findings(settings.get("accounts"), credentials)
    return findings


_ENDPOINT = re.compile(r"^https?://(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?/?$")


def client_endpoint_errors(settings):
    """minio_client_endpoint (a URL or empty) and minio_client_endpoints (a list of URLs), as written into rclone.conf and
    the endpoints file jobs read: each an http(s)://host[:port] URL on one line."""
    errors = []
    values = [("minio_client_endpoint", settings.get("client_endpoint", ""))]
    listed = settings.get("client_endpoints", [])
    if not isinstance(listed, list):
        errors.append("minio_client_endpoints %r is not a list; give a list of URLs such as https://minio1.example.net:9000" % (listed,))
        listed = []
    values += [("minio_client_endpoints[%d]" % index, value) for index, value in enumerate(listed)]
    for variable, value in values:
        if variable == "minio_client_endpoint" and value == "":
            continue
        if not isinstance(value, str) or not _ENDPOINT.match(value):
            errors.append("%s %r is not an http(s)://host[:port] URL on one line; set e.g. https://minio1.example.net:9000" % (variable, value))
    return errors


def client_endpoints(hosts, addresses=None, scheme="https", port=9000, first=None):
    """The endpoints a checkpoint client tries in order: ``first`` (the client endpoint), then every MinIO host's URL
    (``scheme://address:port``, ``addresses`` mapping a host to the name clients reach it by), each once."""
    addresses = addresses or {}
    urls = [first] if first else []
    for host in hosts or []:
        url = "%s://%s:%s" % (scheme, _bracket(str(addresses.get(host, host))), port)
        if url not in urls:
            urls.append(url)
    return urls


# MinIO's metrics token: what `mc admin prometheus generate` makes, a JWT
# (HS512) whose subject is an access key, signed with its secret key. A fixed
# expiry keeps the token the same from run to run (idempotent), and a new
# secret gives a new token.
TOKEN_EXPIRES = 4102444800  # 2100-01-01T00:00:00Z


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def prometheus_token(access_key, secret_key, expires=TOKEN_EXPIRES):
    """The bearer token Prometheus scrapes MinIO's metrics with (MINIO_PROMETHEUS_AUTH_TYPE=jwt): it grants the metrics
    endpoints only, never S3, which wants signed requests."""
    if not access_key or not secret_key:
        raise MinioInputError("a MinIO metrics token needs minio_root_user and minio_root_password; set both")
    header = _b64url(json.dumps({"alg": "HS512", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = _b64url(json.dumps({"exp": int(expires), "iss": "prometheus", "sub": str(access_key)}, separators=(",", ":")).encode())
    signed = header + b"." + claims
    signature = _b64url(hmac.new(str(secret_key).encode("utf-8"), signed, hashlib.sha512).digest())
    return (signed + b"." + signature).decode("ascii")


# Bucket, policy, lifecycle


def bucket_name_error(bucket, variable="minio_checkpoint_bucket"):
    """Why ``bucket`` is not a valid S3 bucket name, or None."""
    fix = "use 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit, e.g. checkpoints"
    if not isinstance(bucket, str) or not _BUCKET.match(bucket):
        return "%s: %r is not a valid S3 bucket name; %s" % (variable, bucket, fix)
    if _IPV4.match(bucket) or ".." in bucket or ".-" in bucket or "-." in bucket:
        return "%s: %r looks like an IP address or has '..', '.-' or '-.'; %s" % (variable, bucket, fix)
    return None


def check_bucket_name(bucket, variable="minio_checkpoint_bucket"):
    error = bucket_name_error(bucket, variable)
    if error:
        raise MinioInputError(error)
    return bucket


def job_policy(bucket):
    """The IAM policy for job credentials: read, write and list one bucket; no delete, no other bucket."""
    check_bucket_name(bucket)
    return {
        "Version": POLICY_VERSION,
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
                "Resource": ["arn:aws:s3:::%s" % bucket],
            },
            {
                "Effect": "Allow",
                "Action": ["s3:AbortMultipartUpload", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:PutObject"],
                "Resource": ["arn:aws:s3:::%s/*" % bucket],
            },
        ],
    }


_POLICY_LISTS = ("Action", "NotAction", "Resource", "NotResource")


def account_policy(bucket, account):
    """The IAM policy for one Slurm account's job key: read and write ``<bucket>/<account>/`` only, and list only there."""
    check_bucket_name(bucket)
    if not isinstance(account, str) or not _SLURM_ACCOUNT.match(account):
        raise MinioInputError("minio_checkpoint_accounts: %r is not a Slurm account name (lowercase letters, digits, _ and -)" % (account,))
    return {
        "Version": POLICY_VERSION,
        "Statement": [
            {"Effect": "Allow", "Action": ["s3:GetBucketLocation"], "Resource": ["arn:aws:s3:::%s" % bucket]},
            {
                "Effect": "Allow",
                # MinIO takes s3:prefix for ListBucket only (not ListBucketMultipartUploads).
                "Action": ["s3:ListBucket"],
                "Resource": ["arn:aws:s3:::%s" % bucket],
                "Condition": {"StringLike": {"s3:prefix": ["%s/*" % account]}},
            },
            {
                "Effect": "Allow",
                "Action": ["s3:AbortMultipartUpload", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:PutObject"],
                "Resource": ["arn:aws:s3:::%s/%s/*" % (bucket, account)],
            },
        ],
    }


def normalise_policy(document):
    """A canonical form of an IAM policy document (dict or JSON text), for comparison.

    Single strings in Action/Resource become sorted lists, empty Sids go,
    statements are sorted.
    """
    if document is None:
        return None
    if isinstance(document, (str, bytes)):
        document = json.loads(document)
    if not isinstance(document, dict):
        raise MinioInputError("policy: %r is not a JSON object; write an IAM policy document with Version and Statement" % (document,))
    statements = document.get("Statement") or []
    if isinstance(statements, dict):
        statements = [statements]
    out = []
    for statement in statements:
        clean = {}
        for key, value in statement.items():
            if key in _POLICY_LISTS:
                value = sorted(set([value] if isinstance(value, str) else value or []))
            if key == "Sid" and not value:
                continue
            clean[key] = value
        out.append(clean)
    out.sort(key=lambda item: json.dumps(item, sort_keys=True))
    return {"Version": document.get("Version", POLICY_VERSION), "Statement": out}


def _positive_days(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MinioInputError("%s: %r is not a whole number of days of 1 or more; set e.g. 7" % (name, value))
    return value


def lifecycle_rules(noncurrent_days, abort_incomplete_days=None):
    """The checkpoint bucket's lifecycle, in the normalised form normalise_lifecycle returns.

    One rule for the whole bucket: non-current object versions expire after
    ``noncurrent_days``; incomplete multipart uploads are aborted after
    ``abort_incomplete_days`` when given. (MinIO itself does not keep
    AbortIncompleteMultipartUpload; see the minio_bucket module.)
    """
    rule = {
        "id": LIFECYCLE_RULE_ID,
        "status": "Enabled",
        "filter": {"prefix": ""},
        "noncurrent_version_expiration": {"noncurrent_days": _positive_days("noncurrent_version_expiration_days", noncurrent_days)},
    }
    if abort_incomplete_days is not None:
        rule["abort_incomplete_multipart_upload"] = {"days_after_initiation": _positive_days("abort_incomplete_multipart_days", abort_incomplete_days)}
    return [rule]


def _drop_empty(value):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = _drop_empty(item)
            if item is not None and item != {} and item != []:
                out[key] = item
        return out
    if isinstance(value, (list, tuple)):
        return [_drop_empty(item) for item in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def normalise_lifecycle(rules):
    """Rules as plain dicts (the minio SDK's field names; ``rule_id``/``rule_filter`` renamed ``id``/``filter``).

    None values and empty parts go, a missing filter means the whole bucket
    (``{"prefix": ""}``), rules are sorted by id.
    """
    out = []
    for rule in rules or []:
        rule = dict(rule)
        if "rule_id" in rule:
            rule["id"] = rule.pop("rule_id")
        if "rule_filter" in rule:
            rule["filter"] = rule.pop("rule_filter")
        rule = _drop_empty(rule)
        if not rule.get("filter"):
            rule["filter"] = {"prefix": ""}
        out.append(rule)
    out.sort(key=lambda item: (str(item.get("id", "")), json.dumps(item, sort_keys=True)))
    return out


# Endpoint of the S3 API, for the modules


def parse_endpoint(endpoint):
    """``{"host": "HOST:PORT", "secure": bool}`` from a URL such as ``https://10.0.0.5:9000``."""
    text = str(endpoint or "")
    try:
        url = urlsplit(text)
        port = url.port
    except ValueError:
        url, port = None, None
    if (
        url is None
        or url.scheme not in ("http", "https")
        or not url.hostname
        or url.username
        or url.password
        or url.query
        or url.fragment
        or url.path not in ("", "/")
    ):
        raise MinioInputError("endpoint: %r is not an S3 API URL; write it as http://HOST:PORT or https://HOST:PORT, e.g. http://10.0.0.5:9000" % text)
    host = _bracket(url.hostname)
    return {"host": "%s:%d" % (host, port) if port else host, "secure": url.scheme == "https"}


AUTH_ERROR_CODES = ("InvalidAccessKeyId", "SignatureDoesNotMatch")


def error_message(endpoint, action, code, message):
    """A failure message for an error MinIO answered while doing ``action``; it never holds a credential."""
    if code in AUTH_ERROR_CODES:
        return "MinIO at %s rejected access_key/secret_key while trying to %s (%s): check the credentials the task passes" % (
            endpoint,
            action,
            code,
        )
    if code == "RequestTimeTooSkewed":
        return "MinIO at %s refused to %s: this host's clock and the server's differ by more than 15 minutes; synchronise time (e.g. chrony)" % (
            endpoint,
            action,
        )
    if code == "AccessDenied":
        return "MinIO at %s denied the request to %s: the account in access_key lacks the right; use the root or an admin account" % (
            endpoint,
            action,
        )
    return "MinIO at %s could not %s: %s: %s" % (endpoint, action, code, message)
