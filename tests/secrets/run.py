# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A first converge of fresh lab containers at -vvv, grepped for every secret it used.

The lab is recreated bare, with accounting and a single-node MinIO on the
controller (tests/secrets/inventory.yml), and
site.yml runs once at -vvv with random secrets generated here and given in a
0600 vars file: the database password, the MinIO root password, the jobs'
secret key and the monitoring admin password. They are hostile on purpose: spaces, quotes, #, $, backslashes,
backquotes, ; and non-ASCII letters, every character of the set in every run (dealt over the secrets), so each file's quoting
(plugins/module_utils/quoting.py) is proved by the services that read them:
slurmdbd logs in to MariaDB with its StoragePass, MinIO takes its root
password from /etc/default/minio (the role then creates the bucket with it),
rclone lists the bucket with the job key from rclone.conf, and every node
exporter, Prometheus and Alertmanager answer the admin password over HTTPS
(verified against the cluster CA) and refuse a request without it. The
munge key, the CA key and the scrape password are the ones the run
generates on the controller, read back afterwards. The whole output (stdout and stderr) must hold none of them
(raw, base64 and hex, also with the output's whitespace removed, so a
wrapped line still counts); each secret must be in the file that uses it
(else the test would prove nothing); and the files holding them must have the
documented owner, group and mode on every host.

Prints a table, writes build/figures/secrets.json (secret names, never
values) and a copy of the output with each secret replaced by its name
(build/secrets/site-vvv.log), destroys the lab, and exits non-zero on any
hit, wrong mode or failed run. Secret values are never printed.

On the converged lab it then proves the slurmdbd rollback: a slurmdbd_config
that passes the schema but stops slurmdbd (DbdPort on the node exporter's
port) must fail with slurmdbd's own error, leave the last good
slurmdbd.conf in place and slurmdbd answering, and print no secret.
"""

import argparse
import base64
import json
import os
import re
import secrets
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / ".cache" / "collections"))

from ansible_collections.aicluster.slurm.plugins.module_utils import quoting  # noqa: E402

INVENTORIES = ["inventories/lab", "tests/secrets/inventory.yml"]
MUNGE_KEY = "/etc/munge/munge.key"
# Groups whose hosts hold the file, path, and the documented "owner group mode":
# the munge key 0400 munge (README, roles/slurm/tasks/munge.yml), slurmdbd.conf
# 0600 slurm (DESIGN.md section 6, roles/slurmdbd), /etc/default/minio 0600 root
# and rclone.conf 0640 root:training in a 0750 directory (docs/storage.md).
FILES = (
    (("slurmctld", "slurm_compute", "slurmdbd"), MUNGE_KEY, "munge munge 400"),
    (("slurmdbd",), "/etc/slurm/slurmdbd.conf", "slurm slurm 600"),
    (("minio",), "/etc/default/minio", "root root 600"),
    (("slurmctld", "slurm_compute"), "/etc/aicluster/checkpoint", "root training 750"),
    (("slurmctld", "slurm_compute"), "/etc/aicluster/checkpoint/rclone.conf", "root training 640"),
    # roles/tls (docs/security.md): the CA and the credentials of record on the first controller, each host's key.
    (("slurmctld",), "/etc/aicluster/pki", "root root 700"),
    (("slurmctld",), "/etc/aicluster/pki/ca.key", "root root 600"),
    (("slurmctld",), "/etc/aicluster/secrets/monitoring", "root root 700"),
    (("slurmctld",), "/etc/aicluster/secrets/monitoring/scrape.password", "root root 600"),
    (("slurmctld", "slurm_compute"), "/etc/aicluster/tls/host.key", "root root 600"),
    (("slurmctld", "slurm_compute"), "/etc/prometheus/tls/host.key", "root prometheus 640"),
    (("slurmctld", "slurm_compute"), "/etc/prometheus/web-config.yml", "root prometheus 640"),
    (("monitoring",), "/etc/prometheus/scrape.password", "root prometheus 640"),
    # MinIO serves the cluster CA's host certificate; the accounting dumps (docs/accounting.md).
    (("minio",), "/etc/minio/certs/private.key", "root minio-user 640"),
    (("slurmdbd",), "/var/backups/slurm-accounting", "root root 700"),
    # A Slurm account's own key pair (minio_checkpoint_accounts), readable by its group only.
    (("slurmctld", "slurm_compute"), "/etc/aicluster/checkpoint-accounts/lab/rclone.conf", "root lab-train 640"),
)
# Secrets the run generates on the first controller, read back afterwards and searched for like the given ones.
GENERATED_ON_CONTROLLER = {
    "monitoring scrape password": "/etc/aicluster/secrets/monitoring/scrape.password",
    "CA key": "/etc/aicluster/pki/ca.key",
}
# The secret key of Slurm account lab's own key pair: given inside minio_checkpoint_accounts (extra_vars).
ACCOUNT_SECRET = "minio_checkpoint_accounts[lab].secret_key"
# The file that must contain each generated secret, quoted for its format, on every host it is checked on.
USED_IN = {
    "slurmdbd_storage_pass": ("/etc/slurm/slurmdbd.conf", "slurm"),
    "minio_root_password": ("/etc/default/minio", "systemd_env"),
    "minio_checkpoint_secret_key": ("/etc/aicluster/checkpoint/rclone.conf", "rclone"),
    "tls_monitoring_admin_password": ("/etc/prometheus/web-config.yml", "bcrypt"),
    ACCOUNT_SECRET: ("/etc/aicluster/checkpoint-accounts/lab/rclone.conf", "rclone"),
}
# What the secrets are made of: letters and digits, and the characters each file format must quote. Slurm's
# parser cannot carry a double quote (preflight refuses one in slurmdbd_storage_pass). No { or }: Ansible
# templates variable values, so a secret holding "{{" must be tagged !unsafe (docs/security.md), which is not
# what this test is about. MinIO takes 8 to 40 bytes; 24 characters with a few 2-byte ones stay under that.
HOSTILE = " \"'#$\\`;=%!&*()<>|~^"
NON_ASCII = "éüßø"
FORBIDDEN = {"slurmdbd_storage_pass": '"'}
# The services trim these (MinIO's environment, password files); preflight refuses outer whitespace in them.
TRIMMED = ("minio_root_password", "tls_monitoring_admin_password")
# Given, but never written as such: endpoints keep only its bcrypt hash (check_services logs in with it).
HASHED = ("tls_monitoring_admin_password",)
WHITESPACE = re.compile(rb"\s+")


def deal(names):
    """{name: [characters]}: every character of HOSTILE once and NON_ASCII twice round, dealt over the secrets in
    turn (a secret that forbids a character passes it to the next), so that every run carries the whole set."""
    dealt = {name: [] for name in names}
    turn = 0
    for char in HOSTILE + NON_ASCII * 2:
        while char in FORBIDDEN.get(names[turn % len(names)], ""):
            turn += 1
        dealt[names[turn % len(names)]].append(char)
        turn += 1
    return dealt


def random_secret(name, dealt, length=24):
    """The dealt characters and random letters and digits, shuffled, starting with a space (but TRIMMED)."""
    inner = length - 1 if name not in TRIMMED else length - 2
    chars = list(dealt) + [secrets.choice(string.ascii_letters + string.digits) for position in range(inner - len(dealt))]
    secrets.SystemRandom().shuffle(chars)
    # A space at either end is the hardest case for the parsers that trim; keep one there, except where the
    # service itself trims (MinIO's root password from its environment; preflight refuses one): letters there.
    if name in TRIMMED:
        return secrets.choice(string.ascii_letters) + "".join(chars) + secrets.choice(string.ascii_letters)
    return " " + "".join(chars)


def random_secrets(names):
    """{name: secret} for the run: together they hold every hostile and non-ASCII character, whatever the draw."""
    return {name: random_secret(name, chars) for name, chars in deal(list(names)).items()}


def encodings(name, value):
    """{"name (form)": bytes} for the raw value, its base64 and its hex."""
    return {
        "%s (raw)" % name: value,
        "%s (base64)" % name: base64.b64encode(value),
        "%s (hex)" % name: value.hex().encode(),
        "%s (HEX)" % name: value.hex().upper().encode(),
    }


def count_hits(output, needles):
    """{form name: occurrences in output}, also counting occurrences split by whitespace (wrapped lines)."""
    folded = WHITESPACE.sub(b"", output)
    hits = {}
    for name, needle in needles.items():
        if len(needle) < 16:
            raise ValueError("%s is too short to search for without false hits" % name)
        hits[name] = max(output.count(needle), folded.count(WHITESPACE.sub(b"", needle)))
    return hits


def redact(output, needles):
    for name, needle in sorted(needles.items(), key=lambda item: -len(item[1])):
        output = output.replace(needle, b"<" + name.encode() + b">")
    return output


def run(command, check=False, **kwargs):
    return subprocess.run(command, cwd=ROOT, check=check, **kwargs)


def lab(playbook):
    """lab/create.yml or lab/destroy.yml on every container of both inventories."""
    command = ["ansible-playbook", playbook]
    for inventory in INVENTORIES:
        command += ["-i", inventory]
    proc = run(command, capture_output=True, text=True)
    if proc.returncode:
        sys.stdout.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise RuntimeError("%s failed (rc %d)" % (playbook, proc.returncode))


def inventory_groups():
    command = ["ansible-inventory", "--list"]
    for inventory in INVENTORIES:
        command += ["-i", inventory]
    listing = json.loads(run(command, capture_output=True, text=True, check=True).stdout)
    groups = {name: sorted(group.get("hosts", [])) for name, group in listing.items() if name != "_meta"}
    groups["all"] = sorted(listing["_meta"]["hostvars"])
    return groups


def docker_read(host, path):
    """A file's bytes from a container (through a pipe: nothing secret on a command line), or None."""
    proc = run(["docker", "exec", host, "cat", path], capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


def docker_stat(host, path):
    proc = run(["docker", "exec", host, "stat", "-c", "%U %G %a", path], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else "missing"


def converge(secrets_file, log_path, timeout):
    command = ["ansible-playbook", "-vvv", "site.yml", "-e", "@" + str(secrets_file)]
    for inventory in INVENTORIES:
        command[2:2] = ["-i", inventory]
    env = dict(os.environ, ANSIBLE_NOCOLOR="1")
    env.pop("ANSIBLE_FORCE_COLOR", None)
    started = time.monotonic()
    with os.fdopen(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as log:
        proc = run(command, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=timeout)
    return proc.returncode, round(time.monotonic() - started, 1)


def check_files(groups):
    """(rows, bad): one row per (host, path) with expected and found owner/group/mode."""
    rows, bad = [], []
    for holders, path, expected in FILES:
        for host in sorted({host for group in holders for host in groups.get(group, [])}):
            found = docker_stat(host, path)
            row = {"host": host, "path": path, "expected": expected, "found": found}
            rows.append(row)
            if found != expected:
                bad.append(row)
    return rows, bad


def extra_vars(generated):
    """The run's -e file: each generated secret as its variable, the account's inside minio_checkpoint_accounts."""
    given = {name: value for name, value in generated.items() if name != ACCOUNT_SECRET}
    given["minio_checkpoint_accounts"] = [{"name": "lab", "group": "lab-train", "gid": 2602, "access_key": "lab-jobs", "secret_key": generated[ACCOUNT_SECRET]}]
    return given


def fact_cache_mode():
    """The control node's fact cache directory's mode (ansible.cfg: .cache/facts); preflight makes it 0700."""
    path = ROOT / ".cache" / "facts"
    return "%o" % (path.stat().st_mode & 0o777) if path.is_dir() else "missing"


def check_used(groups, generated):
    """Secret name -> hosts whose file does not contain it (empty: used everywhere)."""
    missing = {}
    for name, (path, file_format) in USED_IN.items():
        if name in HASHED:
            continue
        holders = next(holders for holders, file_path, expected in FILES if file_path == path)
        hosts = sorted({host for group in holders for host in groups.get(group, [])})
        written = quoting.quote(generated[name], file_format, name).encode()
        missing[name] = [host for host in hosts if written not in (docker_read(host, path) or b"")]
    return missing


# Runs in a container, the password on stdin (never on a command line): the HTTP status of a GET with basic auth
# (an empty password: none), verifying the server against the cluster CA.
HTTPS_GET = """
import base64, ssl, sys, urllib.error, urllib.request
url, password = sys.argv[1], sys.stdin.read()
request = urllib.request.Request(url)
if password:
    request.add_header("Authorization", "Basic " + base64.b64encode(("admin:" + password).encode()).decode())
try:
    print(urllib.request.urlopen(request, context=ssl.create_default_context(cafile="/etc/aicluster/tls/ca.crt"), timeout=10).status)
except urllib.error.HTTPError as error:
    print(error.code)
except Exception as error:
    print("error: %s" % error)
"""


def https_status(host, url, password):
    proc = run(["docker", "exec", "-i", host, "python3", "-c", HTTPS_GET, url], input=password, capture_output=True, text=True)
    return (proc.stdout.strip() or proc.stderr.strip()[-200:]).splitlines()[-1]


def check_endpoints(groups, password):
    """Problems with the monitoring endpoints (roles/tls): each answers 200 to admin over HTTPS, 401 without."""
    problems = []
    endpoints = [(host, 9100, "/metrics") for host in sorted(set(groups.get("slurmctld", [])) | set(groups.get("slurm_compute", [])))]
    endpoints += [(host, port, "/-/ready") for host in groups.get("monitoring", []) for port in (9090, 9093)]
    client = groups["slurmctld"][0]
    for host, port, path in endpoints:
        url = "https://%s:%d%s" % (host, port, path)
        statuses = (https_status(client, url, password), https_status(client, url, ""))
        if statuses != ("200", "401"):
            problems.append("%s: admin got %s, no credentials got %s (expected 200, 401)" % (url, statuses[0], statuses[1]))
    return problems


def check_services(groups):
    """Problems with the services that read the secrets (empty: each one works with its secret)."""
    problems = []
    dbd = groups["slurmdbd"][0]
    if run(["docker", "exec", dbd, "sacctmgr", "-n", "show", "cluster"], capture_output=True).returncode != 0:
        problems.append("slurmdbd does not answer (its StoragePass did not log in to MariaDB?)")
    for host in sorted(set(groups.get("slurmctld", [])) | set(groups.get("slurm_compute", []))):
        listing = run(
            ["docker", "exec", host, "rclone", "--config", "/etc/aicluster/checkpoint/rclone.conf", "lsf", "checkpoints:checkpoints"],
            capture_output=True,
            text=True,
        )
        if listing.returncode != 0:
            problems.append("rclone on %s cannot list the bucket with the job key: %s" % (host, listing.stderr.strip()[-200:]))
        # Account lab's key writes and lists its own prefix (its secret is hostile too).
        for command in (["rcat", "checkpoints:checkpoints/lab/secrets-probe"], ["lsf", "checkpoints:checkpoints/lab/"]):
            account = run(
                ["docker", "exec", "-i", host, "rclone", "--config", "/etc/aicluster/checkpoint-accounts/lab/rclone.conf"] + command,
                input="probe\n",
                capture_output=True,
                text=True,
            )
            if account.returncode != 0:
                problems.append("rclone on %s cannot %s with account lab's key: %s" % (host, command[0], account.stderr.strip()[-200:]))
    return problems


# Passes the schema, but the node exporter holds that port on the slurmdbd
# host: slurmdbd cannot bind it and stops (roles/slurmdbd brings the last good
# file back).
DBD_ROLLBACK = {"slurmdbd_config": {"DbdPort": 9100}, "slurmdbd_start_timeout": 20}
DBD_CONF = "/etc/slurm/slurmdbd.conf"


def slurmdbd_rollback(groups, secrets_file, needles, work):
    """On the converged lab: a slurmdbd.conf slurmdbd cannot run with is rolled back, and no secret shows."""
    host = groups["slurmdbd"][0]
    before = docker_read(host, DBD_CONF)
    extra = Path(work) / "rollback.json"
    extra.write_text(json.dumps(DBD_ROLLBACK))
    command = ["ansible-playbook", "site.yml", "-e", "@" + str(secrets_file), "-e", "@" + str(extra)]
    # Over Mitogen: the first converge has proven Ansible's own transport (tests/README.md, Transport).
    for inventory in INVENTORIES + ["tests/lab_mitogen.yml"]:
        command[2:2] = ["-i", inventory]
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_STRATEGY_PLUGINS=str(ROOT / "tests" / "strategy_plugins"), ANSIBLE_STRATEGY="mitogen_linear")
    started = time.monotonic()
    proc = run(command, capture_output=True, text=True, env=env, timeout=900)
    output = proc.stdout + proc.stderr
    problems = []
    if proc.returncode == 0:
        problems.append("the run succeeded")
    message = next((line.strip() for line in output.splitlines() if "[config_apply] slurmdbd" in line), "")
    if not message or "Address already in use" not in message or "is back" not in message:
        problems.append("no [config_apply] failure with slurmdbd's error and the restore: %r" % (message or output[-400:]))
    if docker_read(host, DBD_CONF) != before:
        problems.append("%s is not the last good one after the run" % DBD_CONF)
    if run(["docker", "exec", host, "sacctmgr", "-n", "show", "cluster"], capture_output=True).returncode != 0:
        problems.append("slurmdbd does not answer after the rollback")
    hits = sum(count_hits(output.encode(), needles).values())
    if hits:
        problems.append("%d secret hits in the rollback run's output" % hits)
    return {"restored": not problems, "problems": problems, "message": message, "seconds": round(time.monotonic() - started, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=str(ROOT / "build" / "figures" / "secrets.json"))
    parser.add_argument("--log", default=str(ROOT / "build" / "secrets" / "site-vvv.log"), help="the redacted output")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds for the converge")
    parser.add_argument("--keep-lab", action="store_true", help="leave the converged lab running")
    args = parser.parse_args()

    started = time.monotonic()
    groups = inventory_groups()
    generated = random_secrets(USED_IN)
    report = {"inventories": INVENTORIES, "hosts": groups["all"]}
    with tempfile.TemporaryDirectory(prefix="aicluster-secrets-") as work:
        secrets_file = Path(work) / "secrets.json"
        with os.fdopen(os.open(secrets_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            json.dump(extra_vars(generated), handle)
        log_path = Path(work) / "site-vvv.log"
        try:
            print("recreating the lab containers (bare)")
            lab("lab/destroy.yml")
            lab("lab/create.yml")
            print("site.yml -vvv on %s (first converge)" % ", ".join(INVENTORIES))
            report["converge_rc"], report["converge_s"] = converge(secrets_file, log_path, args.timeout)
            output = log_path.read_bytes()
            report["log_bytes"] = len(output)

            munge_hosts = sorted({host for group in FILES[0][0] for host in groups.get(group, [])})
            keys = {host: docker_read(host, MUNGE_KEY) for host in munge_hosts}
            distinct = sorted({key for key in keys.values() if key})
            report["munge_key_hosts_without_key"] = [host for host, key in keys.items() if not key]
            report["munge_key_same_on_all_hosts"] = len(distinct) == 1 and not report["munge_key_hosts_without_key"]
            needles = {}
            for name, value in generated.items():
                needles.update(encodings(name, value.encode()))
            for name, path in GENERATED_ON_CONTROLLER.items():
                value = (docker_read(groups["slurmctld"][0], path) or b"").strip()
                report.setdefault("generated_missing", []).extend([] if value else [name])
                if value:
                    needles.update(encodings(name, value))
            for index, key in enumerate(distinct):
                needles.update(encodings("munge key" + (" #%d" % (index + 1) if index else ""), key))

            hits = count_hits(output, needles)
            report["secrets_checked"] = sorted(needles)
            report["hits"] = hits
            report["secret_hits"] = sum(hits.values())
            report["secrets_not_in_their_file"] = {name: hosts for name, hosts in check_used(groups, generated).items() if hosts}
            report["files"], report["bad_modes"] = check_files(groups)
            report["fact_cache_mode"] = fact_cache_mode()
            report["service_problems"] = (
                check_services(groups) + check_endpoints(groups, generated["tls_monitoring_admin_password"])
                if report["converge_rc"] == 0
                else ["not checked: the converge failed"]
            )
            report["files_checked"] = len(report["files"])
            if report["converge_rc"] == 0:
                print("slurmdbd_config that stops slurmdbd (DbdPort on a port in use): must be rolled back")
                report["slurmdbd_rollback"] = slurmdbd_rollback(groups, secrets_file, needles, work)

            redacted = redact(output, needles)
            Path(args.log).parent.mkdir(parents=True, exist_ok=True)
            if sum(count_hits(redacted, needles).values()) == 0:
                Path(args.log).write_bytes(redacted)
                report["log"] = args.log
            else:
                report["log"] = "not kept: a secret remains in it after redaction (wrapped over lines)"
        finally:
            if not args.keep_lab:
                print("removing the lab containers")
                lab("lab/destroy.yml")

    report["wall_s"] = round(time.monotonic() - started, 1)
    print()
    print("%-44s %5s" % ("secret (form) in the -vvv output", "hits"))
    for name in report["secrets_checked"]:
        print("%-44s %5d" % (name, report["hits"][name]))
    print()
    print("%-10s %-40s %-18s %-18s" % ("host", "file", "expected", "found"))
    for row in report["files"]:
        mark = "" if row["found"] == row["expected"] else "  WRONG"
        print("%-10s %-40s %-18s %-18s%s" % (row["host"], row["path"], row["expected"], row["found"], mark))
    print()
    problems = []
    if report["converge_rc"] != 0:
        problems.append("site.yml failed (rc %d); see %s" % (report["converge_rc"], report["log"]))
    rollback = report.get("slurmdbd_rollback") or {"restored": False, "problems": ["not run"], "message": "", "seconds": 0}
    print(
        "rollback of a slurmdbd.conf that stops slurmdbd: %s (%.0f s) %s"
        % ("restored" if rollback["restored"] else "FAIL", rollback["seconds"], rollback["message"][:300])
    )
    if not rollback["restored"]:
        problems.append("slurmdbd rollback: %s" % "; ".join(rollback["problems"]))
    if report["secret_hits"]:
        problems.append("secrets in the output: %s" % ", ".join(name for name, count in report["hits"].items() if count))
    if report.get("generated_missing"):
        problems.append("generated secrets missing on the first controller: %s" % ", ".join(report["generated_missing"]))
    if report["bad_modes"]:
        problems.append("%d files with the wrong owner, group or mode" % len(report["bad_modes"]))
    if report.get("fact_cache_mode") != "700":
        problems.append("the control node's fact cache .cache/facts has mode %s, not 700" % report.get("fact_cache_mode"))
    for problem in report["service_problems"]:
        problems.append("a service that reads a secret: %s" % problem)
    if report["secrets_not_in_their_file"]:
        problems.append("secrets not written where they are used: %s" % report["secrets_not_in_their_file"])
    if not report["munge_key_same_on_all_hosts"]:
        problems.append("the munge key is missing on %s or differs between hosts" % report["munge_key_hosts_without_key"])
    report["passed"] = not problems
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    for problem in problems:
        print("FAIL: " + problem)
    print(
        "secret hits in logs: %d (%d secret forms in %d bytes of -vvv output); files with the documented owner and mode: %d of %d;"
        " converge %.0f s, test %.0f s; %s"
        % (
            report["secret_hits"],
            len(report["secrets_checked"]),
            report["log_bytes"],
            report["files_checked"] - len(report["bad_modes"]),
            report["files_checked"],
            report["converge_s"],
            report["wall_s"],
            args.json,
        )
    )
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
