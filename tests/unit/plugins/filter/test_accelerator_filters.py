"""Unit tests for plugins/filter/accelerators.py: each filter is its module_utils/gres.py function
(tested in module_utils/test_gres.py); bad input reaches Ansible as a filter error."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.accelerators import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import gres

FILTERS = FilterModule().filters()
INFO = {"gpus": [{"device_id": "0x2335", "gres_type": "h200", "device_file": "/dev/nvidia0", "cores": "0-7"}], "npus": []}


def test_each_filter_is_its_module_utils_function():
    assert {name: function.__wrapped__ for name, function in FILTERS.items()} == {
        "accelerator_gres_conf": gres.accelerator_gres_conf,
        "accelerator_node_gres": gres.accelerator_node_gres,
        "accelerator_gres_types": gres.accelerator_gres_types,
        "accelerator_gres_lines": gres.accelerator_gres_lines,
        "slurm_nvml_problem": gres.nvml_problem,
    }


def test_filters_pass_their_arguments():
    assert FILTERS["accelerator_gres_conf"](INFO) == ["Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-7"]
    assert FILTERS["accelerator_node_gres"](INFO, {"0x2335": "H200NVL"}) == "gpu:h200nvl:1"
    assert FILTERS["accelerator_gres_types"]({"g1": INFO}) == ["gpu"]
    assert FILTERS["accelerator_gres_lines"]({"g1": INFO, "g2": INFO}) == ["NodeName=g[1-2] Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-7"]


@pytest.mark.parametrize("name", ["accelerator_gres_conf", "accelerator_node_gres"])
def test_bad_input_is_a_filter_error(name):
    with pytest.raises(AnsibleFilterError, match="accelerator facts must be the 'accelerators' dict"):
        FILTERS[name](["gpu"])
    unknown = {"gpus": [dict(INFO["gpus"][0], gres_type=None)]}
    with pytest.raises(AnsibleFilterError, match="has no GRES type"):
        FILTERS[name](unknown)
