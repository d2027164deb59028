"""Unit tests for plugins/module_utils/job_env.py: the variables computed from a node, the user's overrides and their checks."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.job_env import JobEnvError, job_env_defaults, job_env_findings, job_env_script, job_env_settings

IB = {"name": "mlx5_0", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]}
IB1 = {"name": "mlx5_1", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]}
ROCE = {"name": "mlx5_2", "ports": {"1": "Ethernet"}, "link_layers": ["Ethernet"]}
IB_NODE = {"hcas": [IB1, IB, ROCE], "default_interface": "bond0", "npu": False, "npu_devices": []}
PLAIN_NODE = {"hcas": [], "default_interface": "eth0", "npu": False, "npu_devices": []}
NPU_NODE = {"hcas": [], "default_interface": "enp189s0f0", "npu": True, "npu_devices": ["/dev/davinci0"]}


def test_a_node_with_infiniband_uses_its_infiniband_hcas_exactly():
    assert job_env_defaults(IB_NODE) == {"NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "=mlx5_0,mlx5_1", "NCCL_SOCKET_IFNAME": "=bond0"}


def test_a_roce_only_node_uses_all_its_hcas():
    node = dict(IB_NODE, hcas=[ROCE, dict(ROCE, name="mlx5_3")])
    assert job_env_defaults(node)["NCCL_IB_HCA"] == "=mlx5_2,mlx5_3"
    assert job_env_defaults(node)["NCCL_IB_DISABLE"] == "0"


def test_a_node_without_hcas_disables_the_ib_transport():
    assert job_env_defaults(PLAIN_NODE) == {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "=eth0"}


def test_an_npu_node_gets_the_hccl_interface():
    assert job_env_defaults(NPU_NODE) == {"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "=enp189s0f0", "HCCL_SOCKET_IFNAME": "=enp189s0f0"}


def test_the_npu_setting_beats_detection():
    assert "HCCL_SOCKET_IFNAME" not in job_env_defaults(NPU_NODE, npu=False)
    assert job_env_defaults(PLAIN_NODE, npu=True)["HCCL_SOCKET_IFNAME"] == "=eth0"
    # The TaskProlog gives jobs their NPUs (ASCEND_RT_VISIBLE_DEVICES) on NPU nodes only.
    assert job_env_script(NPU_NODE, {}, {})["npus"] is True
    assert job_env_script(NPU_NODE, {}, {}, npu=False)["npus"] is False
    assert job_env_script(PLAIN_NODE, {}, {}, npu=True)["npus"] is True


def test_a_node_without_default_route_sets_no_interface():
    assert job_env_defaults(dict(NPU_NODE, default_interface=None)) == {"NCCL_IB_DISABLE": "1"}


def test_user_variables_merge_over_the_defaults_and_null_removes_one():
    script = job_env_script(IB_NODE, {"NCCL_IB_HCA": "=mlx5_0", "NCCL_SOCKET_IFNAME": None, "NCCL_IB_GID_INDEX": 3, "NCCL_IB_TIMEOUT": 22.5}, {})
    assert script == {
        "npus": False,
        "default": [["NCCL_IB_DISABLE", "0"], ["NCCL_IB_GID_INDEX", "3"], ["NCCL_IB_HCA", "=mlx5_0"], ["NCCL_IB_TIMEOUT", "22.5"]],
        "partitions": [],
    }


def test_partition_overrides_merge_over_the_node_and_null_removes_one():
    script = job_env_script(PLAIN_NODE, {"NCCL_DEBUG": "WARN"}, {"debug": {"NCCL_DEBUG": "INFO"}, "cpu": {"NCCL_DEBUG": None, "NCCL_SOCKET_IFNAME": None}})
    assert script["default"] == [["NCCL_DEBUG", "WARN"], ["NCCL_IB_DISABLE", "1"], ["NCCL_SOCKET_IFNAME", "=eth0"]]
    assert script["partitions"] == [
        ["cpu", [["NCCL_IB_DISABLE", "1"]]],
        ["debug", [["NCCL_DEBUG", "INFO"], ["NCCL_IB_DISABLE", "1"], ["NCCL_SOCKET_IFNAME", "=eth0"]]],
    ]


def test_values_and_partition_names_are_quoted_for_sh():
    script = job_env_script(PLAIN_NODE, {"A": "x y", "B": "it's $HOME"}, {"odd*name": {}})
    assert ["A", "'x y'"] in script["default"]
    assert ["B", "'it'\"'\"'s $HOME'"] in script["default"]
    assert script["partitions"][0][0] == "'odd*name'"


def test_settings_accept_none_and_check_known_partitions():
    assert job_env_settings(None, None) == {"vars": {}, "partitions": {}}
    assert job_env_settings({"A": 1}, {"batch": {"B": None}}, ["batch"]) == {"vars": {"A": "1"}, "partitions": {"batch": {"B": None}}}


@pytest.mark.parametrize(
    ("variables", "partitions", "message"),
    [
        (["NCCL_DEBUG"], {}, r"job_env_vars: \['NCCL_DEBUG'\] is not a mapping; give NAME: value pairs"),
        ({"NCCL-DEBUG": "WARN"}, {}, r"job_env_vars: 'NCCL-DEBUG' is not a variable name; use letters, digits and _"),
        ({"1NCCL": "WARN"}, {}, r"job_env_vars: '1NCCL' is not a variable name"),
        ({"": "WARN"}, {}, r"job_env_vars: '' is not a variable name"),
        ({5: "WARN"}, {}, r"job_env_vars: 5 is not a variable name"),
        ({"NCCL_IB_DISABLE": False}, {}, r"job_env_vars: NCCL_IB_DISABLE: False is a boolean .*quote the text the job should see, e.g. NCCL_IB_DISABLE: '1'"),
        ({"NCCL_IB_HCA": ["mlx5_0"]}, {}, r"job_env_vars: NCCL_IB_HCA: \['mlx5_0'\] is a list; give one string or number"),
        ({"NCCL_IB_HCA": {"a": 1}}, {}, r"job_env_vars: NCCL_IB_HCA: \{'a': 1\} is a dict; give one string or number"),
        ({"NCCL_DEBUG": "WARN\nrm -rf /"}, {}, r"job_env_vars: NCCL_DEBUG: 'WARN\\nrm -rf /' has a line break; .*give it on one line"),
        ({"NCCL_DEBUG": "WARN\r"}, {}, r"job_env_vars: NCCL_DEBUG: 'WARN\\r' has a line break"),
        ({}, ["batch"], r"job_env_partitions: \['batch'\] is not a mapping; give \{partition: \{NAME: value\}\}"),
        ({}, {"batch": "NCCL_DEBUG=WARN"}, r"job_env_partitions: batch: 'NCCL_DEBUG=WARN' is not a mapping"),
        ({}, {"bat ch": {}}, r"job_env_partitions: 'bat ch' is not a partition name"),
        ({}, {"a,b": {}}, r"job_env_partitions: 'a,b' is not a partition name"),
        ({}, {"": {}}, r"job_env_partitions: '' is not a partition name"),
        ({}, {"batch": {"NCCL DEBUG": "WARN"}}, r"job_env_partitions: batch: 'NCCL DEBUG' is not a variable name"),
        ({}, {"batch": {"NCCL_DEBUG": "a\nb"}}, r"job_env_partitions: batch: NCCL_DEBUG: 'a\\nb' has a line break"),
        ({}, {"batch": {"NCCL_DEBUG": True}}, r"job_env_partitions: batch: NCCL_DEBUG: True is a boolean"),
    ],
)
def test_bad_input_names_the_variable_the_value_and_the_fix(variables, partitions, message):
    with pytest.raises(JobEnvError, match=message):
        job_env_settings(variables, partitions)
    with pytest.raises(JobEnvError, match=message):
        job_env_script(PLAIN_NODE, variables, partitions)


def test_an_unknown_partition_names_the_known_ones():
    with pytest.raises(JobEnvError, match=r"job_env_partitions: gpu is not a partition of slurm_partitions \(batch, debug\); fix the name"):
        job_env_script(PLAIN_NODE, {}, {"gpu": {}}, known_partitions=["debug", "batch"])


def test_findings_are_the_settings_errors():
    assert job_env_findings({"NCCL_DEBUG": "WARN"}, {"batch": {}}, ["batch"]) == []
    (finding,) = job_env_findings({"NCCL_DEBUG": True})
    assert finding["id"] == "job_env"
    assert finding["message"].startswith("job_env_vars: NCCL_DEBUG: True is a boolean")
