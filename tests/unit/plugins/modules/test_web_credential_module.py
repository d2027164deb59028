"""Unit tests for the web_credential module: the credential of record and its hash, idempotent, check mode."""

import bcrypt

from ansible_collections.aicluster.slurm.plugins.modules import web_credential


def test_generates_once_then_reports_no_change(run_module, tmp_path):
    args = {"path": str(tmp_path / "monitoring"), "name": "admin", "rounds": 4}
    first = run_module(web_credential.main, args)
    assert first["changed"]
    assert bcrypt.checkpw(first["password"].encode(), first["hash"].encode())
    second = run_module(web_credential.main, args)
    assert not second["changed"]
    assert (second["password"], second["hash"]) == (first["password"], first["hash"])


def test_check_mode_on_a_new_host_writes_nothing(run_module, tmp_path):
    result = run_module(web_credential.main, {"path": str(tmp_path / "new"), "name": "scrape"}, check_mode=True)
    assert result["changed"]
    assert not (tmp_path / "new").exists()


def test_a_bad_password_fails_naming_the_credential_not_the_value(run_module, tmp_path):
    secret = "line\nbreak-secret"
    result = run_module(web_credential.main, {"path": str(tmp_path), "name": "admin", "password": secret})
    assert result["failed"]
    assert "password of admin" in result["msg"]
    assert secret not in result["msg"]


def test_rounds_out_of_range_is_refused(run_module, tmp_path):
    result = run_module(web_credential.main, {"path": str(tmp_path), "name": "admin", "rounds": 3})
    assert result["failed"]
    assert "use 4 to 16" in result["msg"]
