"""Unit tests for plugins/module_utils/web_credential.py: credentials of record and their bcrypt hashes."""

import os
import stat

import bcrypt
import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import web_credential


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_generated_password_is_kept_and_hashed_once(tmp_path):
    directory = str(tmp_path / "secrets")
    changed, password, hashed = web_credential.ensure(directory, "scrape", rounds=4)
    assert changed
    assert len(password) >= 32
    assert bcrypt.checkpw(password.encode(), hashed.encode())
    assert _mode(directory) == 0o700
    for name in ("scrape.password", "scrape.bcrypt"):
        assert _mode(os.path.join(directory, name)) == 0o600
    assert web_credential.ensure(directory, "scrape", rounds=4) == (False, password, hashed)


def test_an_operator_password_replaces_the_hash_only_when_it_changes(tmp_path):
    directory = str(tmp_path)
    hostile = 'a "quoted" $HOME #not-a-comment \\ ü'
    changed, password, first = web_credential.ensure(directory, "admin", hostile, rounds=4)
    assert changed
    assert password == hostile
    assert not os.path.exists(os.path.join(directory, "admin.password"))
    assert web_credential.ensure(directory, "admin", hostile, rounds=4) == (False, hostile, first)
    changed, _password, second = web_credential.ensure(directory, "admin", "another-one", rounds=4)
    assert changed
    assert second != first
    assert bcrypt.checkpw(b"another-one", second.encode())


def test_check_mode_writes_nothing(tmp_path):
    directory = str(tmp_path / "absent")
    changed = web_credential.ensure(directory, "admin", check_mode=True)[0]
    assert changed
    assert not os.path.exists(directory)
    os.makedirs(directory)
    changed = web_credential.ensure(directory, "admin", "pw", rounds=4, check_mode=True)[0]
    assert changed
    assert os.listdir(directory) == []


@pytest.mark.parametrize(
    ("name", "password", "message"),
    [("Admin", "", "credential name"), ("admin", "x" * 73, "72 bytes"), ("admin", "a\tb", "control character")],
)
def test_bad_input_is_refused_without_the_value(tmp_path, name, password, message):
    with pytest.raises(web_credential.CredentialError, match=message) as error:
        web_credential.ensure(str(tmp_path), name, password)
    if password:
        assert password not in str(error.value)


def test_a_damaged_hash_file_is_replaced(tmp_path):
    (tmp_path / "admin.bcrypt").write_text("not a hash\n")
    changed, _password, hashed = web_credential.ensure(str(tmp_path), "admin", "pw", rounds=4)
    assert changed
    assert bcrypt.checkpw(b"pw", hashed.encode())
