"""Unit tests for plugins/module_utils/accounting_backup.py: the slurmdbd_backup_* variables as a class."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import accounting_backup

GOOD = {"enabled": True, "dir": "/var/backups/slurm-accounting", "calendar": "*-*-* 03:17:00", "keep": 14, "database": "slurm_acct_db"}


@pytest.mark.parametrize("change", [{}, {"calendar": "daily"}, {"calendar": "Mon..Fri *-*-* 02:00"}, {"keep": 1}, {"keep": 3650}])
def test_good_settings_have_no_findings(change):
    assert accounting_backup.findings(dict(GOOD, **change)) == []


def test_off_checks_nothing_else():
    assert accounting_backup.findings(dict(GOOD, enabled=False, keep="many", dir="relative")) == []


@pytest.mark.parametrize(
    ("change", "variable"),
    [
        ({"enabled": "yes"}, "slurmdbd_backup_enabled"),
        ({"dir": "relative/path"}, "slurmdbd_backup_dir"),
        ({"dir": "/"}, "slurmdbd_backup_dir"),
        ({"dir": "/var/backups/../etc"}, "slurmdbd_backup_dir"),
        ({"dir": "/var/back ups"}, "slurmdbd_backup_dir"),
        ({"dir": "/var/backups\nExecStart=/bin/sh"}, "slurmdbd_backup_dir"),
        ({"dir": 42}, "slurmdbd_backup_dir"),
        ({"calendar": ""}, "slurmdbd_backup_calendar"),
        ({"calendar": "daily\nOnBootSec=1"}, "slurmdbd_backup_calendar"),
        ({"calendar": "daily; rm -rf /"}, "slurmdbd_backup_calendar"),
        ({"calendar": ["daily"]}, "slurmdbd_backup_calendar"),
        ({"keep": 0}, "slurmdbd_backup_keep"),
        ({"keep": 3651}, "slurmdbd_backup_keep"),
        ({"keep": "14"}, "slurmdbd_backup_keep"),
        ({"keep": True}, "slurmdbd_backup_keep"),
        ({"keep": 2.5}, "slurmdbd_backup_keep"),
        ({"database": "slurm acct"}, "slurmdbd_storage_loc"),
        ({"database": "x" * 65}, "slurmdbd_storage_loc"),
        ({"database": "db`; DROP"}, "slurmdbd_storage_loc"),
    ],
)
def test_each_bad_value_is_one_finding_naming_the_variable_the_value_and_a_fix(change, variable):
    (found,) = accounting_backup.findings(dict(GOOD, **change))
    assert found["id"] == "accounting_backup"
    assert found["severity"] == "error"
    assert found["variable"] == variable
    assert found["message"].startswith(variable + " ")
    assert repr(list(change.values())[0]) in found["message"]
    assert "set " in found["message"]
