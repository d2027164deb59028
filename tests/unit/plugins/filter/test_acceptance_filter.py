"""Unit tests for plugins/filter/acceptance.py: the filters are module_utils/acceptance's functions under their own names."""

from ansible_collections.aicluster.slurm.plugins.filter.acceptance import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import acceptance


def test_filter_module():
    filters = FilterModule().filters()
    assert sorted(filters) == ["acceptance_hardware", "acceptance_partitions", "acceptance_report", "acceptance_table"]
    for name, function in filters.items():
        assert function is getattr(acceptance, name)
