"""tests/figures.py: the figures table of make test, and when it fails."""

import json

import pytest
from repo_scripts import load

figures = load("tests/figures.py", "aicluster_figures")

GOOD = {
    "badinput.json": {
        "rejected_cleanly": 56,
        "total": 56,
        "baseline": {"passed": True},
        "cases": [],
        "live": {
            "cluster_down_after_bad_input": 0,
            "rollback": {daemon: {"restored": True, "problems": []} for daemon in ("slurmctld", "slurmd")},
            "job_state": "COMPLETED",
        },
    },
    "secrets.json": {"secret_hits": 0, "secrets_checked": ["munge key (raw)"], "files_checked": 11, "bad_modes": [], "passed": True},
    "outage.json": {"jobs_submitted": 10, "jobs_recorded": 10, "jobs_lost": 0},
}
OUTSIDER = {"sockets": 9, "hosts": 3, "unauthenticated": [], "problems": [], "allowed": {}}
GOOD.update({"outsider-%s.json" % layout: dict(OUTSIDER, layout=layout) for layout in figures.LAYOUTS})


def _write(directory, documents):
    for name, document in documents.items():
        (directory / name).write_text(document if isinstance(document, str) else json.dumps(document))


def test_all_good_prints_one_line_and_writes_the_summary(tmp_path, capsys):
    _write(tmp_path, GOOD)
    assert figures.main(["--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "bad inputs rejected cleanly 56 of 56 | cluster down after bad input 0 | secret hits in logs 0 | jobs lost across the outage 0" in out
    assert (
        "| unauthenticated endpoints 0 of %d sockets on %d hosts in %d layouts" % (9 * len(figures.LAYOUTS), 3 * len(figures.LAYOUTS), len(figures.LAYOUTS))
        in out
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["passed"] is True
    assert summary["figures"] == {
        "bad_inputs_rejected_cleanly": {"rejected_cleanly": 56, "total": 56},
        "cluster_down_after_bad_input": 0,
        "secret_hits_in_logs": 0,
        "jobs_lost_across_the_outage": 0,
        "unauthenticated_endpoints": 0,
    }


@pytest.mark.parametrize(
    ("name", "document", "says"),
    [
        ("badinput.json", {"rejected_cleanly": 55, "total": 56, "baseline": {"passed": True}}, "1 of 56 cases were not rejected cleanly"),
        ("badinput.json", {"rejected_cleanly": 0, "total": 0, "baseline": {"passed": True}}, "no case was tried"),
        (
            "outsider-midsize-trixie.json",
            dict(OUTSIDER, problems=["the outsider reached ctl:9090 (prometheus)"]),
            "midsize-trixie: the outsider reached ctl:9090",
        ),
        (
            "outsider-large-trixie.json",
            dict(OUTSIDER, unauthenticated=["node1:9100"], problems=["node1:9100 (x) serves /metrics without credentials"]),
            "large-trixie: node1:9100 (x) serves /metrics",
        ),
        ("outsider-startup-forky.json", dict(OUTSIDER, sockets=0), "startup-forky: no listening socket was probed"),
        ("outsider-startup-trixie.json", dict(OUTSIDER, problems="none"), "has no lists unauthenticated and problems"),
        ("badinput.json", {"rejected_cleanly": 56, "total": 56, "baseline": {"passed": False}}, "did not pass preflight"),
        (
            "badinput.json",
            dict(GOOD["badinput.json"], live=dict(GOOD["badinput.json"]["live"], cluster_down_after_bad_input=2)),
            "stopped answering in 2 cases",
        ),
        (
            "badinput.json",
            dict(
                GOOD["badinput.json"],
                live=dict(GOOD["badinput.json"]["live"], rollback=dict(GOOD["badinput.json"]["live"]["rollback"], slurmd={"restored": False})),
            ),
            "was not rolled back",
        ),
        ("badinput.json", dict(GOOD["badinput.json"], live=dict(GOOD["badinput.json"]["live"], job_state="FAILED")), "ended FAILED, not COMPLETED"),
        ("badinput.json", {k: v for k, v in GOOD["badinput.json"].items() if k != "live"}, "has no live section"),
        ("secrets.json", dict(GOOD["secrets.json"], secret_hits=2, passed=False), "2 secret hits in the output"),
        ("secrets.json", dict(GOOD["secrets.json"], bad_modes=[{"host": "lab-ctl"}]), "1 files with the wrong owner"),
        ("secrets.json", dict(GOOD["secrets.json"], files_checked=0), "no file was checked"),
        ("secrets.json", dict(GOOD["secrets.json"], secret_hits="0"), "has no integer secret_hits"),
        ("outage.json", {"jobs_submitted": 10, "jobs_recorded": 9, "jobs_lost": 1}, "1 of 10 jobs lost"),
        ("outage.json", {"jobs_submitted": 0, "jobs_recorded": 0, "jobs_lost": 0}, "no job was submitted"),
        ("outage.json", {"jobs_submitted": 10, "jobs_recorded": 8, "jobs_lost": 0}, "10 submitted but 8 recorded"),
        ("outage.json", "{not json", "outage.json"),
        ("outage.json", "[]", "is not a JSON object"),
    ],
)
def test_a_bad_or_malformed_figure_fails(tmp_path, capsys, name, document, says):
    _write(tmp_path, dict(GOOD, **{name: document}))
    assert figures.main(["--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out
    assert says in out
    assert json.loads((tmp_path / "summary.json").read_text())["passed"] is False


def test_a_missing_figure_names_its_producer(tmp_path, capsys):
    _write(tmp_path, {name: document for name, document in GOOD.items() if name != "outage.json"})
    assert figures.main(["--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "outage.json is missing: run make scenario S=midsize" in out
    assert "jobs lost across the outage missing" in out
    rows = figures.collect(tmp_path)
    assert [row["problems"] == [] for row in rows] == [True, True, True, False, True]


def test_a_layout_not_probed_names_its_scenario(tmp_path, capsys):
    _write(tmp_path, {name: document for name, document in GOOD.items() if name != "outsider-storage-trixie.json"})
    assert figures.main(["--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "layout storage-trixie was not probed: run make scenario S=storage LAB_RELEASE=trixie" in out
    assert "in %d layouts" % (len(figures.LAYOUTS) - 1) in out
