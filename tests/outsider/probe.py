# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a network peer gets from the cluster's listening ports (standard library only; runs in the test containers).

``probe.py listening``: this host's listening TCP ports on non-loopback
addresses, from /proc/net/tcp and tcp6, as JSON ``[port, ...]``.

``probe.py probe [--ca FILE]``: reads ``[{"host", "port"}, ...]`` on stdin and
prints, per target, whether it accepts a connection, whether it speaks TLS
(``ca``: its certificate verifies against FILE; ``untrusted``; ``none``), and
the HTTP status of a few well-known paths without credentials. ``open_paths``
lists the paths that answered 2xx: data served without authentication.
"""

import concurrent.futures
import ipaddress
import json
import socket
import ssl
import sys

PATHS = ("/", "/metrics", "/metrics/jobs", "/api/v1/targets", "/api/v2/alerts", "/minio/v2/metrics/cluster")
TIMEOUT = 3


def _address(text):
    """An address from /proc/net/tcp{,6}: 32-bit words in the host's (little-endian) order."""
    raw = b"".join(bytes.fromhex(text[i : i + 8])[::-1] for i in range(0, len(text), 8))
    address = ipaddress.ip_address(raw)
    return getattr(address, "ipv4_mapped", None) or address


def listening():
    ports = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, port = fields[1].split(":")
            if fields[3] == "0A" and not _address(address).is_loopback:  # 0A: LISTEN
                ports.add(int(port, 16))
    return sorted(ports)


def _connect(host, port, context):
    sock = socket.create_connection((host, port), timeout=TIMEOUT)
    return context.wrap_socket(sock, server_hostname=host) if context else sock


def _status(host, port, context, path):
    try:
        with _connect(host, port, context) as sock:
            sock.sendall(("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path, host)).encode())
            head = sock.recv(64).decode("latin-1")
    except (OSError, ssl.SSLError):
        return None
    parts = head.split()
    return int(parts[1]) if len(parts) > 1 and parts[0].startswith("HTTP/") and parts[1].isdigit() else None


def probe_one(target, ca):
    host, port = target["host"], int(target["port"])
    result = {"host": host, "port": port, "reachable": False, "tls": None, "http": {}, "open_paths": []}
    try:
        socket.create_connection((host, port), timeout=TIMEOUT).close()
    except OSError:
        return result
    result["reachable"] = True
    verified = ssl.create_default_context(cafile=ca) if ca else None
    unverified = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    context = None
    for name, candidate in (("ca", verified), ("untrusted", unverified)):
        if candidate is None:
            continue
        try:
            _connect(host, port, candidate).close()
            result["tls"], context = name, candidate
            break
        except ssl.SSLCertVerificationError:
            continue
        except (OSError, ssl.SSLError):
            break
    result["tls"] = result["tls"] or "none"
    for path in PATHS:
        status = _status(host, port, context, path)
        if status is not None:
            result["http"][path] = status
            if 200 <= status < 300:
                result["open_paths"].append(path)
    return result


def main(argv):
    if argv[1:2] == ["listening"]:
        print(json.dumps(listening()))
        return 0
    ca = argv[argv.index("--ca") + 1] if "--ca" in argv else None
    targets = json.load(sys.stdin)
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(lambda target: probe_one(target, ca), targets))
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
