"""Unit tests for plugins/filter/slurm_upgrade.py: thin wrappers over module_utils/slurm_upgrade."""

from ansible_collections.aicluster.slurm.plugins.filter.slurm_upgrade import FilterModule

FILTERS = FilterModule().filters()


def test_filter_module():
    assert sorted(FILTERS) == ["slurm_upgrade_health", "slurm_upgrade_target", "slurm_upgrade_versions", "slurm_version_series"]


def test_target_from_the_release_or_with_a_site_repository_from_the_package_version():
    assert FILTERS["slurm_upgrade_target"]("forky") == {"series": "26.05", "findings": []}
    assert FILTERS["slurm_upgrade_target"]("", "26.05.5-1site1", "file:///srv/repo") == {"series": "26.05", "findings": []}
    wrong = FILTERS["slurm_upgrade_target"]("sid")
    assert wrong["series"] is None
    assert [f["id"] for f in wrong["findings"]] == ["upgrade_target"]


def test_versions_health_and_series():
    assert FILTERS["slurm_upgrade_versions"]({"ctl": "24.11.5-4"}, "26.05") == []
    assert [f["id"] for f in FILTERS["slurm_upgrade_versions"]({"ctl": "26.05.5-1"}, "24.11")] == ["upgrade_downgrade"]
    assert FILTERS["slurm_upgrade_health"]("Slurmctld(primary) at ctl is UP\n", "0") == []
    assert FILTERS["slurm_upgrade_health"]("Slurmctld(primary) at ctl is UP\n", "") == []
    assert FILTERS["slurm_version_series"]("24.11.5-4+deb13u1") == "24.11"
