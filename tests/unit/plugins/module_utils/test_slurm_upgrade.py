# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import slurm_upgrade


@pytest.mark.parametrize(
    ("version", "expected"),
    [("24.11.5", "24.11"), ("24.11.5-4+deb13u1", "24.11"), ("1:26.05.5-1", "26.05"), ("26.05.5-1site1", "26.05"), ("", None), ("latest", None), (None, None)],
)
def test_series(version, expected):
    assert slurm_upgrade.series(version) == expected


def ids(findings):
    return [f["id"] for f in findings]


def test_release_series_is_the_platform_table():
    assert slurm_upgrade.release_series("forky") == "26.05"
    assert slurm_upgrade.release_series("trixie") == "24.11"
    assert slurm_upgrade.release_series("bookworm") is None


def test_target_findings():
    assert slurm_upgrade.target_findings("forky", "", None) == []
    (found,) = slurm_upgrade.target_findings("sid", "", None)
    assert found["message"] == (
        "slurm_upgrade_release=sid is not a Debian release this collection is tested on; set one of trixie (Slurm 24.11), forky (Slurm 26.05)"
    )
    (found,) = slurm_upgrade.target_findings("", "", None)
    assert found["variable"] == "slurm_upgrade_release"
    assert "(empty)" in found["message"]
    # With a site repository the target is the package version.
    assert slurm_upgrade.target_findings("", "26.05.5-1site1", {"url": "file:///srv/repo"}) == []
    (found,) = slurm_upgrade.target_findings("forky", "", {"url": "file:///srv/repo"})
    assert found["variable"] == "slurm_package_version"


def test_version_findings_accepts_upgrades_up_to_three_releases_and_hosts_already_there():
    installed = {"ctl": "24.11.5-4", "node1": "26.05.5-1", "node2": "25.05.3-1"}
    assert slurm_upgrade.version_findings(installed, "26.05") == []


def test_version_findings_refuses_a_downgrade_naming_both_versions():
    (found,) = slurm_upgrade.version_findings({"ctl": "26.05.5-1", "node1": "24.11.5-4"}, "24.11")
    assert found["id"] == "upgrade_downgrade"
    assert found["message"].startswith("ctl runs Slurm 26.05.5-1; the target is Slurm 24.11, a downgrade, which Slurm does not support")


def test_version_findings_refuses_a_jump_beyond_three_releases():
    (found,) = slurm_upgrade.version_findings({"ctl": "24.05.8-1"}, "26.05")
    assert found["id"] == "upgrade_jump"
    assert "Slurm 26.05 is 4 releases ahead" in found["message"]
    assert "upgrade to 25.11 first" in found["message"]


def test_version_findings_unknown_and_missing():
    found = slurm_upgrade.version_findings({"a": "", "b": "22.05.8-1"}, "26.05")
    assert ids(found) == ["upgrade_version", "upgrade_version"]
    assert found[0]["message"].startswith("a: no Slurm package is installed")
    assert "22.05 is not a Slurm release this collection knows" in found[1]["message"]


PING_UP = "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is UP\n"


def test_health_findings():
    assert slurm_upgrade.health_findings(PING_UP, 0) == []
    assert slurm_upgrade.health_findings(PING_UP, None) == []
    (found,) = slurm_upgrade.health_findings(PING_UP.replace("ctl2 is UP", "ctl2 is DOWN"), 0)
    assert found["message"].startswith("slurmctld ctl2 (backup) is DOWN (scontrol ping)")
    (found,) = slurm_upgrade.health_findings(PING_UP, 1, "sacctmgr: error: Problem talking to the database: Connection refused\n")
    assert found["message"].startswith("slurmdbd does not answer (sacctmgr show cluster: sacctmgr: error: Problem talking to the database")
    assert ids(slurm_upgrade.health_findings("", 0)) == ["upgrade_health"]
