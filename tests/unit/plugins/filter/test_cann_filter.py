"""Unit tests for plugins/filter/cann.py: the filters are module_utils/cann's functions under their own names."""

from ansible_collections.aicluster.slurm.plugins.filter.cann import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import cann

FILTERS = FilterModule().filters()


def test_filter_names():
    assert sorted(FILTERS) == [
        "cann_artifacts",
        "cann_checksum_findings",
        "cann_compat_lines",
        "cann_compat_request",
        "cann_input_findings",
        "cann_installed_findings",
        "cann_installed_versions",
        "cann_plan",
        "cann_same_version",
        "cann_version_files",
        "hccn_commands",
        "npu_network_findings",
    ]
    for name, function in FILTERS.items():
        assert function is getattr(cann, name)
