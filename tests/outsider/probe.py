# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a network peer gets from the cluster's listening ports (standard library only; runs in the test containers).

``probe.py listening``: this host's listening sockets on non-loopback
addresses, as the host itself reports them (``ss -lntupH``), as JSON
``[{"proto", "port", "process"}, ...]``.

``probe.py probe [--ca FILE]``: reads ``{host: listening}`` on stdin and
prints, per TCP socket ``{"host", "port", ...}``, whether it accepts a connection, whether it speaks TLS
(``ca``: its certificate verifies against FILE; ``untrusted``; ``none``), and
the HTTP status of a few well-known paths without credentials. ``open_paths``
lists the paths that answered 2xx: data served without authentication.

``probe.py report``: reads ``{"layout", "hosts": {host: listening}, "outside":
probe results from the outsider, "inside": probe results from a cluster host,
"allowed": [{"process", "reason", "paths", "static" (both optional)}]}`` on stdin and prints the layout's report:
each socket as the outsider sees it (``dropped`` by the firewall or
``reached``) and as a cluster host sees it without credentials (:func:`classify`),
and the problems.
"""

import concurrent.futures
import hashlib
import ipaddress
import json
import re
import socket
import ssl
import subprocess
import sys

PATHS = ("/", "/metrics", "/metrics/jobs", "/api/v1/targets", "/api/v2/alerts", "/minio/v2/metrics/cluster")
TIMEOUT = 3


def _address(text):
    """An address from /proc/net/tcp{,6}: 32-bit words in the host's (little-endian) order."""
    raw = b"".join(bytes.fromhex(text[i : i + 8])[::-1] for i in range(0, len(text), 8))
    address = ipaddress.ip_address(raw)
    return getattr(address, "ipv4_mapped", None) or address


def _local(text):
    """(address, port) from ss's local column: 0.0.0.0:6817, [::]:22, *:9100, 127.0.0.53%lo:53."""
    address, port = text.rsplit(":", 1)
    address = address.strip("[]").split("%")[0]
    return (None if address in ("*", "") else ipaddress.ip_address(address)), int(port)


def _loopback(address):
    return address is not None and (getattr(address, "ipv4_mapped", None) or address).is_loopback


def parse_ss(text):
    """[{"proto", "port", "process"}] from ``ss -lntupH``: one entry per protocol and port outside loopback."""
    found = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[0] not in ("tcp", "udp"):
            continue
        address, port = _local(fields[4])
        if _loopback(address):
            continue
        process = re.search(r'users:\(\("([^"]+)"', line)
        found.setdefault((fields[0], port), process.group(1) if process else "")
    return [{"proto": proto, "port": port, "process": process} for (proto, port), process in sorted(found.items())]


def listening():
    return parse_ss(subprocess.run(["ss", "-lntupH"], check=True, capture_output=True, text=True).stdout)


def _connect(host, port, context):
    sock = socket.create_connection((host, port), timeout=TIMEOUT)
    return context.wrap_socket(sock, server_hostname=host) if context else sock


def status(host, port, context, path):
    """(HTTP status, sha256 of the body's first 256 KiB) of a GET without credentials; (None, None) without an answer."""
    data = b""
    try:
        with _connect(host, port, context) as sock:
            sock.sendall(("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path, host)).encode())
            while len(data) < 262144:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    except (OSError, ssl.SSLError):
        if not data:
            return None, None
    head, body = (data.split(b"\r\n\r\n", 1) + [b""])[:2]
    parts = head.decode("latin-1").split()
    if len(parts) > 1 and parts[0].startswith("HTTP/") and parts[1].isdigit():
        return int(parts[1]), hashlib.sha256(body).hexdigest()
    return None, None


def probe_one(target, ca):
    host, port = target["host"], int(target["port"])
    result = {"host": host, "port": port, "reachable": False, "tls": None, "http": {}, "open_paths": [], "bodies": {}}
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
        code, body = status(host, port, context, path)
        if code is not None:
            result["http"][path] = code
            if 200 <= code < 300:
                result["open_paths"].append(path)
                result["bodies"][path] = body
    return result


def classify(inside, process, allowed):
    """What a cluster host gets from one TCP socket without credentials: ``credentials`` (HTTP that serves nothing
    without them), ``other`` (no HTTP answer: Slurm's munge-authenticated RPC, MariaDB's login, GlusterFS),
    ``allowed`` (served without credentials, in the allow-list: the process, the paths where the entry names them,
    and one and the same page on every path where it says static) or ``open`` (served, not allowed: a failure)."""
    served = inside.get("open_paths")
    if served:
        entry = allowed.get(process)
        if entry is None or not set(served) <= set(entry.get("paths") or served):
            return "open"
        # static: a web UI's single-page app, the one page for every path (data would differ from path to path).
        bodies = {inside.get("bodies", {}).get(path) for path in served}
        return "open" if entry.get("static") and (len(served) < 2 or len(bodies) != 1) else "allowed"
    return "credentials" if inside.get("http") else "other"


def report(document):
    """The layout's report: every socket as the outsider and a cluster host see it, the counts, and the problems."""
    allowed = {entry["process"]: entry for entry in document.get("allowed", [])}
    outside = {(r["host"], r["port"]): r for r in document["outside"]}
    inside = {(r["host"], r["port"]): r for r in document["inside"]}
    sockets, problems = [], []
    for host, found in sorted(document["hosts"].items()):
        for entry in found:
            key, name = (host, entry["port"]), "%s:%d (%s)" % (host, entry["port"], entry["process"])
            row = {"host": host, "proto": entry["proto"], "port": entry["port"], "process": entry["process"]}
            sockets.append(row)
            if entry["proto"] == "udp":
                # The collection serves nothing over UDP, and a dropped datagram and an ignored one look the same.
                row["outsider"] = row["auth"] = "udp"
                problems.append("%s/udp listens outside loopback" % name)
                continue
            if key not in outside or key not in inside:
                row["outsider"] = row["auth"] = "not probed"
                problems.append("%s was not probed" % name)
                continue
            row["outsider"] = "reached" if outside[key].get("reachable") else "dropped"
            row["auth"] = classify(inside[key], entry["process"], allowed)
            row["tls"] = inside[key].get("tls")
            row["open_paths"] = inside[key].get("open_paths", [])
            if row["outsider"] != "dropped" or outside[key].get("open_paths"):
                problems.append("the outsider reached %s" % name)
            if row["auth"] == "open":
                problems.append("%s serves %s without credentials" % (name, ", ".join(row["open_paths"])))
            if inside[key].get("http") and row["tls"] != "ca" and row["auth"] != "allowed":
                problems.append("%s speaks HTTP without the cluster CA's TLS" % name)
    if not sockets:
        problems.append("no listening socket was found")
    counts = {}
    for row in sockets:
        counts[row["auth"]] = counts.get(row["auth"], 0) + 1
    return {
        "layout": document["layout"],
        "hosts": len(document["hosts"]),
        "sockets": len(sockets),
        "auth": counts,
        "dropped": sum(row.get("outsider") == "dropped" for row in sockets),
        "unauthenticated": ["%s:%d" % (row["host"], row["port"]) for row in sockets if row["auth"] == "open"],
        "allowed": {"%s:%d" % (row["host"], row["port"]): allowed[row["process"]]["reason"] for row in sockets if row["auth"] == "allowed"},
        "problems": problems,
        "table": sockets,
    }


def main(argv):
    if argv[1:2] == ["listening"]:
        print(json.dumps(listening()))
        return 0
    if argv[1:2] == ["report"]:
        print(json.dumps(report(json.load(sys.stdin))))
        return 0
    ca = argv[argv.index("--ca") + 1] if "--ca" in argv else None
    targets = [{"host": host, "port": entry["port"]} for host, found in sorted(json.load(sys.stdin).items()) for entry in found if entry["proto"] == "tcp"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(lambda target: probe_one(target, ca), targets))
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
