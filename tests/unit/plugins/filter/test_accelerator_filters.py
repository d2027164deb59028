import importlib.util
import pathlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter import accelerators as filters
from ansible_collections.aicluster.slurm.plugins.module_utils.accelerators import gather

_spec = importlib.util.spec_from_file_location("replay", pathlib.Path(__file__).parents[2] / "fixtures" / "accelerators" / "replay.py")
replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay)


@pytest.fixture
def facts(tmp_path):
    def load(name):
        root = tmp_path / name
        manifest, commands = replay.materialize(name, str(root))
        return gather(str(root), commands)

    return load


def test_h200_lines(facts):
    lines = filters.accelerator_gres_conf(facts("h200_hgx"))
    assert lines == ["Name=gpu Type=h200 File=/dev/nvidia%d Cores=%s" % (i, "0-55" if i < 4 else "56-111") for i in range(8)]
    assert filters.accelerator_node_gres(facts("h200_hgx")) == "gpu:h200:8"


def test_910b_lines(facts):
    lines = filters.accelerator_gres_conf(facts("ascend_910b"))
    cores = ["144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71"]
    assert lines == ["Name=npu Type=910b File=/dev/davinci%d Cores=%s" % (i, core) for i, core in enumerate(cores)]
    assert filters.accelerator_node_gres(facts("ascend_910b")) == "npu:910b:8"


def test_cpu_only_host_has_nothing(facts):
    info = facts("cpu_only")
    assert filters.accelerator_gres_conf(info) == []
    assert filters.accelerator_node_gres(info) == ""
    assert filters.accelerator_gres_lines({"cpu01": info}) == []
    assert filters.accelerator_gres_types({"cpu01": info}) == []


def test_nodes_of_one_shape_share_lines(facts):
    gpu, npu = facts("h200_hgx"), facts("ascend_910b")
    lines = filters.accelerator_gres_lines({"gpu01": gpu, "gpu02": gpu, "npu01": npu})
    assert lines[0] == "NodeName=gpu[01-02] Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-55"
    assert lines[8] == "NodeName=npu01 Name=npu Type=910b File=/dev/davinci0 Cores=144-167"
    assert len(lines) == 16
    assert filters.accelerator_gres_types({"gpu01": gpu, "npu01": npu}) == ["gpu", "npu"]


def test_missing_cores_and_type_override():
    info = {"gpus": [{"device_id": "0x9999", "model": "unknown 10de:9999", "gres_type": None, "device_file": "/dev/nvidia0", "cores": None}]}
    with pytest.raises(AnsibleFilterError, match="types="):
        filters.accelerator_gres_conf(info)
    assert filters.accelerator_gres_conf(info, {"0x9999": "RTX6000"}) == ["Name=gpu Type=rtx6000 File=/dev/nvidia0"]
    assert filters.accelerator_node_gres(info, {"0x9999": "rtx6000"}) == "gpu:rtx6000:1"


def test_mixed_types_gres_string():
    info = {
        "gpus": [
            {"device_id": "0x20b2", "gres_type": "a100", "device_file": "/dev/nvidia0", "cores": "0-7"},
            {"device_id": "0x26b9", "gres_type": "l40s", "device_file": "/dev/nvidia1", "cores": "8-15"},
            {"device_id": "0x20b2", "gres_type": "a100", "device_file": "/dev/nvidia2", "cores": "0-7"},
        ]
    }
    assert filters.accelerator_node_gres(info) == "gpu:a100:2,gpu:l40s:1"


def test_rejects_non_dict():
    with pytest.raises(AnsibleFilterError, match="accelerators"):
        filters.accelerator_gres_conf(["gpu"])


def test_filters_are_registered():
    assert set(filters.FilterModule().filters()) == {"accelerator_gres_conf", "accelerator_node_gres", "accelerator_gres_types", "accelerator_gres_lines"}
