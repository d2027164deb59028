"""tests/secrets/run.py's search: a secret is found raw, base64 or hex, also when wrapped over lines."""

import base64

import pytest
from repo_scripts import load

secrets_run = load("tests/secrets/run.py", "aicluster_secrets_run")

KEY = bytes(range(256))[:128]
PASSWORD = "Zq8sN2vLx0PbT4kWm7RcY1dHf6GjA3uE"


def _needles():
    needles = secrets_run.encodings("munge key", KEY)
    needles.update(secrets_run.encodings("slurmdbd_storage_pass", PASSWORD.encode()))
    return needles


def test_random_secrets_are_long_hostile_and_differ():
    first, second = secrets_run.random_secrets(secrets_run.USED_IN), secrets_run.random_secrets(secrets_run.USED_IN)
    assert first != second
    for name, value in first.items():
        assert len(value) == 24, name
        assert value.startswith(" ") == (name not in secrets_run.TRIMMED), name
        assert not value.endswith(" ") or name not in secrets_run.TRIMMED
        assert sum(char in secrets_run.HOSTILE for char in value) >= 4, name
        assert sum(char in secrets_run.NON_ASCII for char in value) >= 1, name
        assert len(value.encode()) <= 40, name  # MinIO's limit
    # Slurm's files cannot carry a double quote: the database password never has one.
    assert all('"' not in secrets_run.random_secrets(secrets_run.USED_IN)["slurmdbd_storage_pass"] for attempt in range(200))


@pytest.mark.parametrize("attempt", range(20))
def test_every_hostile_character_is_in_every_run(attempt):
    """Not left to chance: each character of the set is in some secret of every run, the forbidden ones elsewhere."""
    run = secrets_run.random_secrets(secrets_run.USED_IN)
    for char in secrets_run.HOSTILE + secrets_run.NON_ASCII:
        holders = [name for name, value in run.items() if char in value[1:]]
        assert holders, repr(char)
        assert all(char not in secrets_run.FORBIDDEN.get(name, "") for name in holders), repr(char)


def test_clean_output_has_no_hits():
    hits = secrets_run.count_hits(b"TASK [Write slurmdbd.conf]\nok: [lab-dbd] => censored\n", _needles())
    assert set(hits.values()) == {0}
    assert "munge key (base64)" in hits


@pytest.mark.parametrize(
    ("output", "name"),
    [
        (b"content: " + base64.b64encode(KEY) + b"\n", "munge key (base64)"),
        (b"data: " + KEY.hex().encode(), "munge key (hex)"),
        (b"raw " + KEY + b" end", "munge key (raw)"),
        (b"StoragePass=" + PASSWORD.encode(), "slurmdbd_storage_pass (raw)"),
        # A YAML callback wraps a long value over indented lines.
        (b"content: " + base64.b64encode(KEY)[:60] + b"\n        " + base64.b64encode(KEY)[60:], "munge key (base64)"),
    ],
)
def test_a_leak_is_found_and_redacted(output, name):
    needles = _needles()
    hits = secrets_run.count_hits(output, needles)
    assert hits[name] == 1
    assert sum(hits.values()) == 1
    redacted = secrets_run.redact(output, needles)
    if b"\n        " not in output:
        assert sum(secrets_run.count_hits(redacted, needles).values()) == 0
        assert b"<" + name.encode() + b">" in redacted


def test_a_short_needle_is_refused():
    with pytest.raises(ValueError, match="too short"):
        secrets_run.count_hits(b"", {"x (raw)": b"short"})
