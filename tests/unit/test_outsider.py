"""tests/outsider/probe.py: the sockets a host reports, and how the report classifies what the probes saw."""

import hashlib
import http.server
import re
import threading

import yaml
from repo_scripts import ROOT, load

probe = load("tests/outsider/probe.py", "aicluster_outsider_probe")

# ss -lntupH as Debian's iproute2 prints it (trimmed): wildcard, IPv6, loopback, a scoped resolver and UDP.
SS = """\
tcp   LISTEN 0      4096         0.0.0.0:6817       0.0.0.0:*    users:(("slurmctld",pid=812,fd=7))
tcp   LISTEN 0      4096            [::]:6817          [::]:*    users:(("slurmctld",pid=812,fd=8))
tcp   LISTEN 0      80         127.0.0.1:3306       0.0.0.0:*    users:(("mariadbd",pid=90,fd=21))
tcp   LISTEN 0      4096               *:9100             *:*    users:(("node_exporter",pid=77,fd=3))
tcp   LISTEN 0      4096      127.0.0.11:41017      0.0.0.0:*
udp   UNCONN 0      0      127.0.0.53%lo:53         0.0.0.0:*    users:(("systemd-resolve",pid=5,fd=12))
udp   UNCONN 0      0            0.0.0.0:111        0.0.0.0:*    users:(("rpcbind",pid=6,fd=5))
tcp   LISTEN 0      128   [::ffff:127.0.0.1]:8080      [::]:*    users:(("x",pid=1,fd=1))
"""


def test_ss_lists_each_socket_outside_loopback_once():
    assert probe.parse_ss(SS) == [
        {"proto": "tcp", "port": 6817, "process": "slurmctld"},
        {"proto": "tcp", "port": 9100, "process": "node_exporter"},
        {"proto": "udp", "port": 111, "process": "rpcbind"},
    ]


def _report(inside=None, outside=None, hosts=None):
    hosts = hosts or {"ctl": [{"proto": "tcp", "port": 6817, "process": "slurmctld"}, {"proto": "tcp", "port": 9090, "process": "prometheus"}]}
    dropped = {"reachable": False, "open_paths": []}
    return probe.report(
        {
            "layout": "x-trixie",
            "hosts": hosts,
            "outside": outside or [dict(dropped, host="ctl", port=6817), dict(dropped, host="ctl", port=9090)],
            "inside": inside
            or [
                {"host": "ctl", "port": 6817, "reachable": True, "tls": "none", "http": {"/livez": 200}, "open_paths": ["/livez"]},
                {"host": "ctl", "port": 9090, "reachable": True, "tls": "ca", "http": {"/": 401}, "open_paths": []},
            ],
            "allowed": [{"process": "slurmctld", "reason": "Slurm's own HTTP"}],
        }
    )


def test_a_clean_layout_passes_with_its_allowed_socket_named():
    report = _report()
    assert report["problems"] == []
    assert (report["sockets"], report["hosts"], report["dropped"]) == (2, 1, 2)
    assert report["auth"] == {"allowed": 1, "credentials": 1}
    assert report["allowed"] == {"ctl:6817": "Slurm's own HTTP"}
    assert report["unauthenticated"] == []


def test_an_open_endpoint_a_reached_one_plain_http_udp_and_an_unprobed_socket_fail():
    inside = [
        {"host": "ctl", "port": 6817, "reachable": True, "tls": "none", "http": {"/livez": 200}, "open_paths": ["/livez"]},
        {"host": "ctl", "port": 9090, "reachable": True, "tls": "none", "http": {"/metrics": 200}, "open_paths": ["/metrics"]},
    ]
    outside = [{"host": "ctl", "port": 6817, "reachable": True, "open_paths": []}, {"host": "ctl", "port": 9090, "reachable": False}]
    hosts = {
        "ctl": [
            {"proto": "tcp", "port": 6817, "process": "slurmctld"},
            {"proto": "tcp", "port": 9090, "process": "prometheus"},
            {"proto": "tcp", "port": 9999, "process": "new"},
            {"proto": "udp", "port": 111, "process": "rpcbind"},
        ]
    }
    report = _report(inside=inside, outside=outside, hosts=hosts)
    assert report["unauthenticated"] == ["ctl:9090"]
    assert report["problems"] == [
        "the outsider reached ctl:6817 (slurmctld)",
        "ctl:9090 (prometheus) serves /metrics without credentials",
        "ctl:9090 (prometheus) speaks HTTP without the cluster CA's TLS",
        "ctl:9999 (new) was not probed",
        "ctl:111 (rpcbind)/udp listens outside loopback",
    ]


def test_the_allow_list_is_documented_with_its_reasons():
    """Each allowed process is named in docs/security.md's allow-list, and the doc names no other."""
    allowed = yaml.safe_load((ROOT / "tests" / "outsider" / "allowed.yml").read_text())
    assert allowed
    assert all(entry["reason"].strip() for entry in allowed)
    doc = (ROOT / "docs" / "security.md").read_text()
    section = doc[doc.index("### Allowed without credentials") :]
    section = section[: section.index("\n#", 1)] if "\n#" in section[1:] else section
    documented = re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE)
    assert documented == [entry["process"] for entry in allowed]


def test_an_allowed_process_with_paths_is_allowed_those_paths_only():
    allowed = {"minio": {"process": "minio", "reason": "the console's login page", "paths": ["/"]}}
    assert probe.classify({"http": {"/": 200}, "open_paths": ["/"]}, "minio", allowed) == "allowed"
    assert probe.classify({"http": {"/": 200, "/metrics": 200}, "open_paths": ["/", "/metrics"]}, "minio", allowed) == "open"
    assert probe.classify({"http": {"/": 403}, "open_paths": []}, "minio", allowed) == "credentials"
    assert probe.classify({"http": {}, "open_paths": []}, "mariadbd", allowed) == "other"


def test_a_static_allowed_process_must_serve_one_page_for_every_path():
    allowed = {"minio": {"process": "minio", "reason": "the console's app", "static": True}}
    page = {"open_paths": ["/", "/metrics"], "http": {"/": 200, "/metrics": 200}}
    assert probe.classify(dict(page, bodies={"/": "a", "/metrics": "a"}), "minio", allowed) == "allowed"
    assert probe.classify(dict(page, bodies={"/": "a", "/metrics": "b"}), "minio", allowed) == "open"
    assert probe.classify({"open_paths": ["/"], "http": {"/": 200}, "bodies": {"/": "a"}}, "minio", allowed) == "open"


def test_status_reads_the_code_and_a_digest_of_the_body_from_a_real_server():
    """probe.status against a server on loopback: one page for every path, and a 404."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = b"<html>app</html>" if self.path != "/missing" else b"no"
            self.send_response(200 if self.path != "/missing" else 404)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        assert probe.status("127.0.0.1", port, None, "/") == (200, hashlib.sha256(b"<html>app</html>").hexdigest())
        assert probe.status("127.0.0.1", port, None, "/metrics") == probe.status("127.0.0.1", port, None, "/")
        assert probe.status("127.0.0.1", port, None, "/missing")[0] == 404
    finally:
        server.shutdown()
