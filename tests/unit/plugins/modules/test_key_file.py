import base64
import grp
import json
import os
import pwd
import stat

import pytest

from ansible_collections.aicluster.slurm.plugins.modules import key_file

# Binary, like a real munge key: every byte value, not valid UTF-8.
SECRET = bytes(range(256)) * 4
CONTENT = base64.b64encode(SECRET).decode()
# A printable secret, so its text can be looked for in results.
WORDS = b"correct-horse-battery-staple-0123456789"


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def dest(tmp_path):
    directory = tmp_path / "munge"
    directory.mkdir()
    return directory / "munge.key"


@pytest.fixture
def run(run_module):
    """``run(check_mode=False, **args)`` -> key_file's result."""

    def run_key_file(check_mode=False, **args):
        return run_module(key_file.main, args, check_mode=check_mode)

    return run_key_file


def test_creates_file_with_decoded_bytes(run, dest):
    result = run(dest=str(dest), content=CONTENT, mode="0400")
    assert result == {"changed": True, "dest": str(dest), "size": 1024}
    assert dest.read_bytes() == SECRET
    assert mode_of(dest) == 0o400


def test_second_run_is_unchanged(run, dest):
    assert run(dest=str(dest), content=CONTENT, mode="0400")["changed"] is True
    inode = os.stat(dest).st_ino
    result = run(dest=str(dest), content=CONTENT, mode="0400")
    assert result["changed"] is False
    assert os.stat(dest).st_ino == inode
    assert dest.read_bytes() == SECRET


def test_new_content_replaces_file(run, dest):
    dest.write_bytes(b"old key")
    dest.chmod(0o400)
    result = run(dest=str(dest), content=CONTENT)
    assert result["changed"] is True
    assert dest.read_bytes() == SECRET
    assert mode_of(dest) == 0o400, "an existing file keeps its mode when the content changes"


def test_new_file_without_mode_is_private(run, dest):
    run(dest=str(dest), content=CONTENT)
    assert mode_of(dest) & 0o077 == 0, "a new key file must not be readable by group or others (mode %o)" % mode_of(dest)


def test_check_mode_on_missing_file_writes_nothing(run, dest):
    result = run(check_mode=True, dest=str(dest), content=CONTENT, mode="0400")
    assert result["changed"] is True
    assert not dest.exists()
    assert os.listdir(dest.parent) == []


def test_check_mode_on_different_file_writes_nothing(run, dest):
    dest.write_bytes(b"old key")
    dest.chmod(0o600)
    result = run(check_mode=True, dest=str(dest), content=CONTENT, mode="0400")
    assert result["changed"] is True
    assert dest.read_bytes() == b"old key"
    assert mode_of(dest) == 0o600


def test_check_mode_on_identical_file_is_unchanged(run, dest):
    dest.write_bytes(SECRET)
    dest.chmod(0o400)
    assert run(check_mode=True, dest=str(dest), content=CONTENT, mode="0400")["changed"] is False


def test_mode_change_alone_reports_changed(run, dest):
    dest.write_bytes(SECRET)
    dest.chmod(0o644)
    inode = os.stat(dest).st_ino
    result = run(dest=str(dest), content=CONTENT, mode="0400")
    assert result["changed"] is True
    assert mode_of(dest) == 0o400
    assert os.stat(dest).st_ino == inode, "only the mode changed, so the file is not rewritten"
    assert run(dest=str(dest), content=CONTENT, mode="0400")["changed"] is False


def test_mode_change_in_check_mode_changes_nothing(run, dest):
    dest.write_bytes(SECRET)
    dest.chmod(0o644)
    assert run(check_mode=True, dest=str(dest), content=CONTENT, mode="0400")["changed"] is True
    assert mode_of(dest) == 0o644


def test_owner_and_group_of_current_user(run, dest):
    owner = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    assert run(dest=str(dest), content=CONTENT, owner=owner, group=group, mode="0400")["changed"] is True
    assert (os.stat(dest).st_uid, os.stat(dest).st_gid) == (os.getuid(), os.getgid())
    assert run(dest=str(dest), content=CONTENT, owner=owner, group=group, mode="0400")["changed"] is False


def test_leaves_no_temporary_files(run, dest):
    dest.write_bytes(b"old key")
    run(dest=str(dest), content=CONTENT, mode="0400")
    assert os.listdir(dest.parent) == ["munge.key"]


@pytest.mark.parametrize(
    "content",
    ["not base64!", CONTENT[:-1], CONTENT[:64] + "\n" + CONTENT[64:], "é"],
    ids=["garbage", "bad-padding", "line-wrapped", "non-ascii"],
)
def test_invalid_base64_fails_naming_dest(run, dest, content):
    result = run(dest=str(dest), content=content)
    assert result["failed"] is True
    assert result["msg"] == "content for %s is not valid base64" % dest
    assert not dest.exists()


def test_empty_content_fails(run, dest):
    result = run(dest=str(dest), content="")
    assert result["failed"] is True
    assert result["msg"] == "content for %s decodes to nothing" % dest
    assert not dest.exists()


def test_invalid_base64_keeps_existing_file(run, dest):
    dest.write_bytes(SECRET)
    assert run(dest=str(dest), content="???")["failed"] is True
    assert dest.read_bytes() == SECRET


@pytest.mark.parametrize(
    ("check_mode", "existing"),
    [(False, None), (True, None), (False, WORDS), (False, b"other")],
    ids=["create", "check-mode", "unchanged", "replace"],
)
def test_secret_never_in_result(run, dest, check_mode, existing):
    if existing is not None:
        dest.write_bytes(existing)
    content = base64.b64encode(WORDS).decode()
    text = json.dumps(run(check_mode=check_mode, dest=str(dest), content=content))
    assert content not in text
    assert WORDS.decode() not in text
    assert "content" not in json.loads(text)


def test_secret_never_in_failure(run, dest):
    content = WORDS.decode() + "!"
    text = json.dumps(run(dest=str(dest), content=content))
    assert WORDS.decode() not in text


def test_content_is_masked(run_module, dest):
    # AnsibleModule masks no_log values in everything it returns or logs.
    content = base64.b64encode(WORDS).decode()
    run_module(key_file.main, {"dest": str(dest), "content": content})
    assert content in run_module.module.no_log_values
