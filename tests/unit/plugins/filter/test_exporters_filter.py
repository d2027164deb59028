"""Unit tests for plugins/filter/exporters.py: each filter is its module_utils function (tested in module_utils/test_exporters.py)."""

from ansible_collections.aicluster.slurm.plugins.filter.exporters import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import exporters


def test_each_filter_is_its_module_utils_function():
    assert FilterModule().filters() == {"exporters_findings": exporters.findings, "exporters_plan": exporters.plan}
