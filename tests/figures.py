# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reliability and security figures of `make test` in one table.

Reads what the producers wrote under build/figures/: badinput.json (make
badinput: tests/badinput/run.py), secrets.json (make secrets:
tests/secrets/run.py), outage.json (the midsize scenario's verify,
molecule/shared/verify/outage.yml) and outsider-<layout>.json (the verify of
each scenario and release in LAYOUTS, molecule/shared/verify/outsider.yml). Prints

    bad inputs rejected cleanly N of N | cluster down after bad input 0 | secret hits in logs 0 | jobs lost across the outage 0
    | unauthenticated endpoints 0 of N sockets on M hosts in K layouts

writes build/figures/summary.json, and exits non-zero when a figure is
missing, malformed or bad.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _int(document, key):
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("has no integer %s" % key)
    return value


def badinput(document):
    """(value, text, problems) of the bad-input catalogue."""
    clean, total = _int(document, "rejected_cleanly"), _int(document, "total")
    problems = []
    if total == 0:
        problems.append("no case was tried")
    elif clean != total:
        problems.append("%d of %d cases were not rejected cleanly" % (total - clean, total))
    if not document.get("baseline", {}).get("passed", False):
        problems.append("the unchanged lab inventory did not pass preflight")
    return {"rejected_cleanly": clean, "total": total}, "%d of %d" % (clean, total), problems


def cluster_down(document):
    """(value, text, problems) of the live part of the bad-input run (run.py --live)."""
    live = document.get("live")
    if not isinstance(live, dict):
        raise ValueError("has no live section (make badinput runs run.py --live)")
    down = _int(live, "cluster_down_after_bad_input")
    problems = []
    if down:
        problems.append("slurmctld stopped answering in %d cases" % down)
    rollbacks = live.get("rollback") or {}
    for daemon in ("slurmctld", "slurmd"):
        if not (rollbacks.get(daemon) or {}).get("restored"):
            problems.append("the configuration that %s refuses was not rolled back: %s" % (daemon, (rollbacks.get(daemon) or {}).get("problems")))
    if live.get("job_state") != "COMPLETED":
        problems.append("the job that ran through every case ended %s, not COMPLETED" % live.get("job_state"))
    return down, str(down), problems


def secrets(document):
    """(value, text, problems) of the first converge at -vvv."""
    hits, files = _int(document, "secret_hits"), _int(document, "files_checked")
    bad_modes = document.get("bad_modes")
    if not isinstance(bad_modes, list):
        raise ValueError("has no list bad_modes")
    problems = []
    if hits:
        problems.append("%d secret hits in the output" % hits)
    if not document.get("secrets_checked"):
        problems.append("no secret was searched for")
    if files == 0:
        problems.append("no file was checked")
    if bad_modes:
        problems.append("%d files with the wrong owner, group or mode" % len(bad_modes))
    if document.get("passed") is False:
        problems.append("the secrets test failed")
    return hits, str(hits), problems


def outage(document):
    """(value, text, problems) of the accounting outage test."""
    submitted, recorded, lost = _int(document, "jobs_submitted"), _int(document, "jobs_recorded"), _int(document, "jobs_lost")
    problems = []
    if submitted == 0:
        problems.append("no job was submitted")
    if lost:
        problems.append("%d of %d jobs lost" % (lost, submitted))
    if recorded + lost != submitted:
        problems.append("%d submitted but %d recorded and %d lost" % (submitted, recorded, lost))
    return lost, str(lost), problems


# The layouts whose every socket the outsider probe must have classified (molecule/shared/verify/outsider.yml):
# scenario-release, as the file outsider-<layout>.json is named.
LAYOUTS = ("startup-trixie", "startup-forky", "midsize-trixie", "storage-trixie", "large-trixie")


def outsider(documents):
    """(value, text, problems) of the outsider probe over every layout: sockets that served data without credentials."""
    problems, sockets, hosts, count, probed = [], 0, 0, 0, 0
    for layout in LAYOUTS:
        document = documents.get("outsider-%s.json" % layout)
        probed += document is not None
        if document is None:
            scenario, release = layout.rsplit("-", 1)
            problems.append("layout %s was not probed: run make scenario S=%s LAB_RELEASE=%s" % (layout, scenario, release))
            continue
        unauthenticated, found = document.get("unauthenticated"), document.get("problems")
        if not isinstance(unauthenticated, list) or not isinstance(found, list):
            raise ValueError("outsider-%s.json has no lists unauthenticated and problems" % layout)
        sockets, hosts, count = sockets + _int(document, "sockets"), hosts + _int(document, "hosts"), count + len(unauthenticated)
        if document["sockets"] == 0:
            problems.append("%s: no listening socket was probed" % layout)
        problems.extend("%s: %s" % (layout, problem) for problem in found)
    return count, "%d of %d sockets on %d hosts in %d layouts" % (count, sockets, hosts, probed), problems


# (key, label, file, producer, judge)
FIGURES = (
    ("bad_inputs_rejected_cleanly", "bad inputs rejected cleanly", "badinput.json", "make badinput", badinput),
    ("cluster_down_after_bad_input", "cluster down after bad input", "badinput.json", "make badinput", cluster_down),
    ("secret_hits_in_logs", "secret hits in logs", "secrets.json", "make secrets", secrets),
    ("jobs_lost_across_the_outage", "jobs lost across the outage", "outage.json", "make scenario S=midsize", outage),
    ("unauthenticated_endpoints", "unauthenticated endpoints", "outsider-*.json", "the scenarios of LAYOUTS", outsider),
)


def collect(directory):
    """One row per figure: key, label, file, value, text, problems."""
    rows = []
    for key, label, name, producer, judge in FIGURES:
        path = Path(directory) / name
        row = {"key": key, "label": label, "file": str(path), "value": None, "text": "missing", "problems": []}
        try:
            if "*" in name:
                # One file per layout: the judge gets them all by file name.
                document = {found.name: json.loads(found.read_text()) for found in sorted(Path(directory).glob(name))}
                if not document:
                    raise FileNotFoundError(path)
                if not all(isinstance(value, dict) for value in document.values()):
                    raise ValueError("holds a file that is not a JSON object")
            else:
                document = json.loads(path.read_text())
                if not isinstance(document, dict):
                    raise ValueError("is not a JSON object")
            row["value"], row["text"], row["problems"] = judge(document)
        except FileNotFoundError:
            row["problems"] = ["%s is missing: run %s" % (path, producer)]
        except ValueError as error:
            row["text"] = "unreadable"
            row["problems"] = ["%s %s" % (path, error)]
        rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=str(ROOT / "build" / "figures"), help="where the producers wrote their JSON")
    parser.add_argument("--summary", help="summary JSON (default: DIR/summary.json)")
    args = parser.parse_args(argv)

    rows = collect(args.dir)
    passed = all(not row["problems"] for row in rows)
    print("%-30s %-12s %-6s %s" % ("figure", "value", "status", "from"))
    for row in rows:
        print("%-30s %-12s %-6s %s" % (row["label"], row["text"], "ok" if not row["problems"] else "FAIL", row["file"]))
        for problem in row["problems"]:
            print("    " + problem)
    print(" | ".join("%s %s" % (row["label"], row["text"]) for row in rows))
    summary = Path(args.summary or Path(args.dir) / "summary.json")
    summary.parent.mkdir(parents=True, exist_ok=True)
    summary.write_text(json.dumps({"passed": passed, "figures": {row["key"]: row["value"] for row in rows}, "rows": rows}, indent=2) + "\n")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
