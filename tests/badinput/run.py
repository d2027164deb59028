# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run every bad input of tests/badinput/cases.yml through site.yml against the lab.

A case passes ("rejected cleanly") when the run fails in the expected
preflight play, one finding line names the variable, the bad value and the
fix, no task reports a change, no lab container differs afterwards (package
list, and path, mode, owner and checksum of every file under the
configuration directories), and a secret given by the case appears nowhere in
the output. site.yml rather than preflight.yml: the snapshots then prove that
preflight stops the whole run, not only that preflight itself is read-only.

Prints a table and "bad inputs rejected cleanly: N of M", writes JSON, and
exits non-zero unless every case passed. Needs the lab containers
(lab/create.yml) and, for the unsupported-OS case, `lab/image.sh bookworm minimal`.

--live (make badinput): the lab is converged first and a batch job runs
across both compute nodes the whole time; the invalid configurations
generated from the schema (tests/badinput/generated.py) run after the
catalogue; `scontrol ping` is asked after every case and every 2 s in
between ("cluster down after bad input: N" counts the cases it failed
in). Last, a configuration that passes the schema and Slurm's parser but
stops slurmctld (SlurmctldPort on the node exporter's port) must be rolled
back: the run fails naming slurmctld's own error, slurm.conf is the last
good one again and slurmctld answers. The job must then end COMPLETED.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# generated.py reads the collection's schema (make collection links it here).
sys.path[:0] = [str(Path(__file__).resolve().parent), str(ROOT / ".cache" / "collections")]
import generated  # noqa: E402  (tests/badinput/generated.py)

LAB_NETWORK = "aicluster-lab"
# The lab's hosts as `docker` hosts, which Mitogen takes over (community.docker.docker is not).
MITOGEN_INVENTORY = ROOT / "tests" / "lab_mitogen.yml"
OLD_OS_CONTAINER = "lab-bookworm"
OLD_OS_IMAGE = os.environ.get("BADINPUT_OLD_OS_IMAGE", "aicluster-slurm/bookworm-minimal:1")
PLAYS = {
    "inventory": "Preflight - inventory",
    "hosts": "Preflight - hosts",
    "compute": "Preflight - compute node roles",
    "monitoring": "Monitoring preflight",
    "storage": "Storage preflight",
    "exporters": "Exporters preflight",
}
# What a run could change on a host: packages and the configuration the roles write.
SNAPSHOT = (
    "dpkg-query -W -f '${Package} ${Version} ${Status}\\n'; "
    "find /etc/slurm /etc/munge /etc/default /etc/systemd/system /etc/apt/sources.list.d /etc/mysql /usr/local/sbin "
    "-xdev -printf '%y %m %u:%g %p %l\\n' 2>/dev/null | sort; "
    "find /etc/slurm /etc/munge /etc/default /etc/systemd/system /etc/apt/sources.list.d /etc/mysql /usr/local/sbin "
    "-xdev -type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum; true"
)


def lab_containers():
    out = subprocess.run(["docker", "ps", "--filter", "name=^lab-", "--format", "{{.Names}}"], capture_output=True, text=True, check=True).stdout
    return sorted(out.split())


def _snapshot_one(name):
    return subprocess.run(["docker", "exec", name, "sh", "-c", SNAPSHOT], capture_output=True, text=True, check=True).stdout


def snapshot(names):
    with concurrent.futures.ThreadPoolExecutor(len(names) or 1) as pool:
        return dict(zip(names, pool.map(_snapshot_one, names), strict=True))


def changed_hosts(before, after):
    """Host -> the first few snapshot lines that differ."""
    diff = {}
    for name in sorted(set(before) | set(after)):
        old, new = set(before.get(name, "").splitlines()), set(after.get(name, "").splitlines())
        if old != new:
            diff[name] = sorted("- " + line for line in old - new) + sorted("+ " + line for line in new - old)
    return {name: lines[:10] for name, lines in diff.items()}


def start_old_os_host():
    """A real Debian 12 host on the lab network for the unsupported-OS case."""
    subprocess.run(["docker", "rm", "-f", OLD_OS_CONTAINER], capture_output=True, check=False)
    subprocess.run(
        ["docker", "run", "-d", "--name", OLD_OS_CONTAINER, "--hostname", OLD_OS_CONTAINER, "--network", LAB_NETWORK, OLD_OS_IMAGE],
        capture_output=True,
        check=True,
    )


def stop_old_os_host():
    subprocess.run(["docker", "rm", "-f", OLD_OS_CONTAINER], capture_output=True, check=False)


def failure_messages(result):
    """(play name, message) of every failed task result in a json-callback document."""
    found = []
    for play in result.get("plays", []):
        play_name = play["play"]["name"]
        for task in play.get("tasks", []):
            for host_result in task.get("hosts", {}).values():
                for item in [host_result] + list(host_result.get("results") or []):
                    if item.get("failed") or item.get("unreachable"):
                        msg = item.get("msg", "")
                        for line in msg if isinstance(msg, list) else str(msg).splitlines() or [""]:
                            found.append((play_name, " ".join(str(line).split())))
    return found


def ansible_playbook(playbook, inventories, extra_vars, mitogen=False):
    """Run a playbook with the json callback. ``mitogen``: over Mitogen (the lab's converge and the rollbacks, whole
    site.yml runs); the cases keep Ansible's own transport, as users run it (tests/README.md, Transport)."""
    env = dict(
        os.environ,
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
        # Facts of the cases' made-up host names stay out of the shared fact cache.
        ANSIBLE_CACHE_PLUGIN="ansible.builtin.memory",
    )
    if mitogen:
        env.update(ANSIBLE_STRATEGY_PLUGINS=str(ROOT / "tests" / "strategy_plugins"), ANSIBLE_STRATEGY="mitogen_linear")
        inventories = list(inventories) + [str(MITOGEN_INVENTORY)]
    command = ["ansible-playbook", playbook]
    for inventory in inventories:
        command += ["-i", inventory]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(extra_vars or {}, handle)
        vars_file = handle.name
    try:
        proc = subprocess.run(command + ["-e", "@" + vars_file], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    finally:
        os.unlink(vars_file)
    try:
        document = json.loads(proc.stdout)
    except ValueError:
        document = {}
    return proc, document


def judge(case, proc, document, diff):
    """The reasons a case was not rejected cleanly (empty: it was), and the finding line that matched."""
    problems = []
    if proc.returncode == 0:
        problems.append("the run succeeded")
    expect = case["expect"]
    prefix = "[%s] " % expect["check"] if expect.get("check") else ""
    failures = failure_messages(document)
    matched = [
        (play, line)
        for play, line in failures
        if line.startswith(prefix) and expect["says"] in line and expect["fix"] in line and play == PLAYS[case.get("play", "inventory")]
    ]
    if not matched:
        seen = "; ".join("%s: %s" % pair for pair in failures) or (proc.stderr.strip().splitlines() or ["no output"])[-1]
        problems.append("expected %s%s ... %s in play %s, got: %s" % (prefix, expect["says"], expect["fix"], PLAYS[case.get("play", "inventory")], seen))
    changed = {host: stats["changed"] for host, stats in document.get("stats", {}).items() if stats.get("changed")}
    if changed:
        problems.append("tasks reported changes: %s" % changed)
    if diff:
        problems.append("hosts changed: %s" % diff)
    secret = case.get("secret")
    if secret and (secret in proc.stdout or secret in proc.stderr):
        problems.append("the secret appears in the output")
    return problems, matched[0][1] if matched else ""


def run_case(case, playbook, containers):
    before = snapshot(containers)
    started = time.monotonic()
    proc, document = ansible_playbook(playbook, case.get("inventory") or ["inventories/lab"], case.get("vars"))
    seconds = time.monotonic() - started
    diff = changed_hosts(before, snapshot(containers))
    problems, message = judge(case, proc, document, diff)
    return {
        "id": case["id"],
        "broken": case["broken"],
        "play": case.get("play", "inventory"),
        "check": case["expect"].get("check") or "-",
        "rejected_cleanly": not problems,
        "problems": problems,
        "message": message,
        "rc": proc.returncode,
        "hosts_checked": containers,
        "seconds": round(seconds, 1),
    }


CONTROLLER = "lab-ctl"
# Passes the schema (a port) and Slurm's parser, but the node exporter holds
# that port on the controller: slurmctld cannot bind it and stops.
# Passes the schema (an installed plugin), the cgroups role's check of the
# hierarchy's controllers and slurmctld, which serves cgroup.conf to the nodes
# (configless) without loading it; each slurmd's cgroup/v2 plugin cannot start
# on the lab's cgroup v1 hierarchy, so the re-executed slurmd gives up and the
# old one resumes.
# Each: (name, variables, what the [config_apply] failure must say).
ROLLBACKS = (
    (
        "slurmctld",
        {"slurm_config": {"SlurmctldPort": 9100}, "slurm_apply_timeout": 30},
        ("slurmctld did not run", "Address already in use", "slurmctld answers again"),
    ),
    (
        "slurmd",
        {"cgroups_config": {"CgroupPlugin": "cgroup/v2"}, "slurm_apply_timeout": 30},
        ("slurmd on lab-node[1-2] did not run", "cgroup", "every slurmd runs it again"),
    ),
)


def on_controller(*command, timeout=60):
    return subprocess.run(["docker", "exec", CONTROLLER, *command], capture_output=True, text=True, timeout=timeout, check=False)


class PingWatch(threading.Thread):
    """``scontrol ping`` on the controller every 2 s; ``failures`` counts the ones that failed."""

    def __init__(self):
        super().__init__(daemon=True)
        self.failures = 0
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(2):
            if on_controller("scontrol", "ping", timeout=30).returncode != 0:
                self.failures += 1


def submit_job():
    """A batch job with a step across both compute nodes, running; it ends on USR1."""
    proc = on_controller("sbatch", "--parsable", "-N2", "--mem=64M", "-t", "60", "--output=/dev/null", "--wrap", "srun sleep 3000 & trap 'exit 0' USR1; wait")
    job = proc.stdout.strip().split(";")[0]
    for _attempt in range(60):
        if on_controller("squeue", "-h", "-j", job, "-o", "%T").stdout.strip() == "RUNNING":
            return job
        time.sleep(2)
    sys.exit("the job across both compute nodes did not start: %s %s" % (proc.stdout, proc.stderr))


def finish_job(job):
    on_controller("scancel", "--batch", "--signal=USR1", job)
    state = ""
    for _attempt in range(30):
        state = on_controller("sacct", "-n", "-X", "-P", "-j", job, "-o", "State").stdout.strip() or on_controller("scontrol", "show", "job", job).stdout
        if state in ("COMPLETED", "FAILED", "CANCELLED") or "JobState=COMPLETED" in state:
            return "COMPLETED" if "COMPLETED" in state else state
        time.sleep(2)
    return state.split()[0] if state else "unknown"


def rollback_case(containers, variables, expected):
    """A configuration that a daemon refuses: rolled back, with that daemon's own error in the failure."""
    before = snapshot(containers)
    started = time.monotonic()
    proc, document = ansible_playbook("site.yml", ["inventories/lab"], variables, mitogen=True)
    seconds = time.monotonic() - started
    diff = changed_hosts(before, snapshot(containers))
    messages = [line for _play, line in failure_messages(document) if line.startswith("[config_apply]")]
    answering = on_controller("scontrol", "ping").returncode == 0
    problems = []
    if proc.returncode == 0:
        problems.append("the run succeeded")
    if not messages:
        problems.append("no [config_apply] failure: %s" % (failure_messages(document) or proc.stderr[-300:]))
    elif not all(part in messages[0] for part in expected):
        problems.append("the failure does not say %s: %s" % (" / ".join(expected), messages[0]))
    if not answering:
        problems.append("slurmctld does not answer after the rollback")
    if diff:
        problems.append("configuration files differ from before: %s" % diff)
    return {"restored": not problems, "problems": problems, "message": messages[0] if messages else "", "seconds": round(seconds, 1)}


def baseline(containers):
    """The lab as it is passes preflight: the checks do not reject everything."""
    before = snapshot(containers)
    proc, document = ansible_playbook("playbooks/preflight.yml", ["inventories/lab"], {})
    diff = changed_hosts(before, snapshot(containers))
    return {"passed": proc.returncode == 0 and not diff, "rc": proc.returncode, "failures": failure_messages(document), "hosts_changed": diff}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=str(Path(__file__).with_name("cases.yml")))
    parser.add_argument("--json", default=str(ROOT / "build" / "figures" / "badinput.json"))
    parser.add_argument("--playbook", default="site.yml", help="site.yml (default) or playbooks/preflight.yml")
    parser.add_argument("--only", nargs="*", help="case ids to run")
    parser.add_argument("--live", action="store_true", help="converge the lab, keep a job running, add the generated cases and the rollback")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated cases")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("BADINPUT_WORKERS", "2")), help="cases run at once (default 2, BADINPUT_WORKERS)")
    args = parser.parse_args()

    cases = yaml.safe_load(Path(args.cases).read_text())
    if args.live:
        cases += generated.cases(args.seed)
    ids = [case["id"] for case in cases]
    if len(ids) != len(set(ids)):
        sys.exit("duplicate case ids in %s" % args.cases)
    if args.only:
        cases = [case for case in cases if case["id"] in args.only]
    if not lab_containers():
        sys.exit("no lab containers: run ansible-playbook -i inventories/lab lab/create.yml (make badinput does)")

    started = time.monotonic()
    report = {"playbook": args.playbook}
    try:
        if any(case.get("needs") == OLD_OS_CONTAINER for case in cases):
            start_old_os_host()
        containers = lab_containers()
        live = {}
        if args.live:
            proc, document = ansible_playbook("site.yml", ["inventories/lab"], {}, mitogen=True)
            if proc.returncode != 0:
                sys.exit("site.yml on the lab failed: %s" % (failure_messages(document) or proc.stderr[-500:]))
            live["job"] = submit_job()
            watch = PingWatch()
            watch.start()
        report["baseline"] = baseline([c for c in containers if c != OLD_OS_CONTAINER])
        results = []
        down = 0

        def one(case):
            seen = watch.failures if args.live else 0
            result = run_case(case, args.playbook, containers)
            if args.live:
                result["cluster_answered"] = on_controller("scontrol", "ping").returncode == 0 and watch.failures == seen
                if not result["cluster_answered"]:
                    result["rejected_cleanly"] = False
                    result["problems"].append("scontrol ping failed during or after the case")
            return result

        # Cases run --workers at a time: each is ansible-playbook start-up and preflight, mostly waiting. A case that
        # changed a host would show in its neighbours' snapshots too, so a failure is still a failure; the
        # per-case attribution is then the run's first FAIL lines.
        with concurrent.futures.ThreadPoolExecutor(max(1, args.workers)) as pool:
            finished = pool.map(one, cases)
            for result in finished:
                down += args.live and not result["cluster_answered"]
                results.append(result)
                verdict = "ok" if result["rejected_cleanly"] else "FAIL"
                print(
                    "%-30s %-9s %-18s %-5s %5.1fs  %s" % (result["id"], result["play"], result["check"], verdict, result["seconds"], result["message"][:110]),
                    flush=True,
                )
                for problem in result["problems"]:
                    print("    " + problem)
        if args.live:
            watch.stopped.set()
            live.update(cluster_down_after_bad_input=down, ping_failures=watch.failures)
            live["rollback"] = {
                daemon: rollback_case([c for c in containers if c != OLD_OS_CONTAINER], variables, expected) for daemon, variables, expected in ROLLBACKS
            }
            live["job_state"] = finish_job(live["job"])
            report["live"] = live
    finally:
        stop_old_os_host()
    clean = sum(1 for r in results if r["rejected_cleanly"])
    report.update(
        cases=results,
        rejected_cleanly=clean,
        total=len(results),
        hosts=containers,
        wall_seconds=round(time.monotonic() - started, 1),
    )
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if not report["baseline"]["passed"]:
        print("baseline: the unchanged lab inventory does not pass preflight: %s" % report["baseline"])
    print(
        "bad inputs rejected cleanly: %d of %d (%s; %d hosts snapshotted per case; %.0f s; %s)"
        % (clean, len(results), args.playbook, len(containers), report["wall_seconds"], args.json)
    )
    live_ok = True
    if args.live:
        for daemon, rollback in live["rollback"].items():
            print(
                "rollback of a configuration that %s refuses: %s (%.0f s) %s"
                % (daemon, "restored" if rollback["restored"] else "FAIL", rollback["seconds"], rollback["message"][:300])
            )
            for problem in rollback["problems"]:
                print("    " + problem)
        print("job %s across both compute nodes during every case: %s" % (live["job"], live["job_state"]))
        live_ok = (
            live["cluster_down_after_bad_input"] == 0
            and all(rollback["restored"] for rollback in live["rollback"].values())
            and live["job_state"] == "COMPLETED"
        )
    return 0 if clean == len(results) and results and report["baseline"]["passed"] and live_ok else 1


if __name__ == "__main__":
    sys.exit(main())
