"""roles/job_env: the variables computed from a node, the user's overrides, their checks, and the TaskProlog run by sh."""

import os
import subprocess
from pathlib import Path

import jinja2
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.filter.job_env import FilterModule, job_env_defaults, job_env_script, job_env_settings

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "roles" / "job_env" / "templates" / "taskprolog.j2"

IB = {"name": "mlx5_0", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]}
IB1 = {"name": "mlx5_1", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]}
ROCE = {"name": "mlx5_2", "ports": {"1": "Ethernet"}, "link_layers": ["Ethernet"]}
IB_NODE = {"hcas": [IB1, IB, ROCE], "default_interface": "bond0", "npu": False, "npu_devices": []}
PLAIN_NODE = {"hcas": [], "default_interface": "eth0", "npu": False, "npu_devices": []}
NPU_NODE = {"hcas": [], "default_interface": "enp189s0f0", "npu": True, "npu_devices": ["/dev/davinci0"]}


def test_the_filters_are_registered():
    assert sorted(FilterModule().filters()) == ["job_env_defaults", "job_env_findings", "job_env_script", "job_env_settings"]


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


def test_a_node_without_default_route_sets_no_interface():
    assert job_env_defaults(dict(NPU_NODE, default_interface=None)) == {"NCCL_IB_DISABLE": "1"}


def test_user_variables_merge_over_the_defaults_and_null_removes_one():
    script = job_env_script(IB_NODE, {"NCCL_IB_HCA": "=mlx5_0", "NCCL_SOCKET_IFNAME": None, "NCCL_IB_GID_INDEX": 3, "NCCL_IB_TIMEOUT": 22.5}, {})
    assert script == {
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
    with pytest.raises(AnsibleFilterError, match=message):
        job_env_settings(variables, partitions)
    with pytest.raises(AnsibleFilterError, match=message):
        job_env_script(PLAIN_NODE, variables, partitions)


def test_an_unknown_partition_names_the_known_ones():
    with pytest.raises(AnsibleFilterError, match=r"job_env_partitions: gpu is not a partition of slurm_partitions \(batch, debug\); fix the name"):
        job_env_script(PLAIN_NODE, {}, {"gpu": {}}, known_partitions=["debug", "batch"])


# The TaskProlog, rendered as the template module does (trim_blocks) and run by sh.


def render(script, directory):
    env = jinja2.Environment(trim_blocks=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["comment"] = lambda text: "# " + text
    return env.from_string(TEMPLATE.read_text()).render(ansible_managed="Ansible managed", __job_env_script=script, __job_env_dir=str(directory))


@pytest.fixture
def taskprolog(tmp_path):
    """``taskprolog(script, env)`` -> the lines the rendered TaskProlog prints with exactly ``env`` (plus PATH)."""
    dropins = tmp_path / "job-env.d"
    dropins.mkdir()
    path = tmp_path / "taskprolog"

    def run(script, env=None):
        path.write_text(render(script, dropins))
        done = subprocess.run(["sh", str(path)], env=dict(env or {}, PATH=os.environ["PATH"]), capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0
        assert done.stderr == ""
        return done.stdout.splitlines()

    run.dropins = dropins
    return run


SCRIPT = job_env_script(
    IB_NODE,
    {"NCCL_DEBUG": "WARN", "ODD": "a 'b' $c \\n"},
    {"debug": {"NCCL_DEBUG": "INFO", "NCCL_IB_HCA": None}, "odd*": {"NCCL_DEBUG": "TRACE"}},
)


def exported(*pairs):
    """The lines put prints: each variable, then the record of the value it gave."""
    return [line for name, value in pairs for line in ("export %s=%s" % (name, value), "export AICLUSTER_JOB_ENV_%s=%s" % (name, value))]


NODE_LINES = exported(
    ("NCCL_DEBUG", "WARN"),
    ("NCCL_IB_DISABLE", "0"),
    ("NCCL_IB_HCA", "=mlx5_0,mlx5_1"),
    ("NCCL_SOCKET_IFNAME", "=bond0"),
    ("ODD", "a 'b' $c \\n"),
)


def test_the_taskprolog_prints_the_node_settings_without_a_partition(taskprolog):
    assert taskprolog(SCRIPT) == NODE_LINES


def test_the_taskprolog_prints_the_node_settings_in_another_partition(taskprolog):
    assert taskprolog(SCRIPT, {"SLURM_JOB_PARTITION": "batch"}) == NODE_LINES


def test_the_taskprolog_applies_the_partitions_settings(taskprolog):
    assert taskprolog(SCRIPT, {"SLURM_JOB_PARTITION": "debug"}) == exported(
        ("NCCL_DEBUG", "INFO"), ("NCCL_IB_DISABLE", "0"), ("NCCL_SOCKET_IFNAME", "=bond0"), ("ODD", "a 'b' $c \\n")
    )


def test_a_partition_name_is_not_a_pattern(taskprolog):
    assert taskprolog(SCRIPT, {"SLURM_JOB_PARTITION": "oddity"}) == NODE_LINES
    assert "export NCCL_DEBUG=TRACE" in taskprolog(SCRIPT, {"SLURM_JOB_PARTITION": "odd*"})


def test_a_variable_the_task_has_is_left_alone(taskprolog):
    lines = taskprolog(SCRIPT, {"SLURM_JOB_PARTITION": "debug", "NCCL_SOCKET_IFNAME": "foo", "NCCL_DEBUG": ""})
    assert lines == exported(("NCCL_IB_DISABLE", "0"), ("ODD", "a 'b' $c \\n"))


def test_a_value_from_an_earlier_step_is_replaced_unless_the_user_changed_it(taskprolog):
    """srun in a batch script passes on what the batch step's TaskProlog (on another node) exported."""
    batch_step = {
        "NCCL_IB_HCA": "=mlx5_0",
        "AICLUSTER_JOB_ENV_NCCL_IB_HCA": "=mlx5_0",
        "NCCL_DEBUG": "INFO",  # the batch script exported its own
        "AICLUSTER_JOB_ENV_NCCL_DEBUG": "WARN",
        "NCCL_IB_DISABLE": "0",
        "AICLUSTER_JOB_ENV_NCCL_IB_DISABLE": "0",
    }
    lines = taskprolog(SCRIPT, batch_step)
    assert lines == exported(("NCCL_IB_DISABLE", "0"), ("NCCL_IB_HCA", "=mlx5_0,mlx5_1"), ("NCCL_SOCKET_IFNAME", "=bond0"), ("ODD", "a 'b' $c \\n"))


def test_dropins_are_sourced_and_what_they_change_is_exported_first(taskprolog):
    (taskprolog.dropins / "cann.sh").write_text(
        "ASCEND_HOME=/usr/local/Ascend\n"  # not exported: not in the environment
        "export LD_LIBRARY_PATH=$ASCEND_HOME/lib64:$LD_LIBRARY_PATH\n"
        "export ASCEND_TOOLKIT_HOME=$ASCEND_HOME/latest\n"
        "export UNCHANGED=same\n"
        "cd /\n"
        "echo 'print this would reach the user' \n"
    )
    (taskprolog.dropins / "broken.sh").write_text("export BEFORE_EXIT=1\nexit 3\n")
    (taskprolog.dropins / "noise.sh").write_text("syntax error (\n")
    (taskprolog.dropins / "ignored.conf").write_text("export IGNORED=1\n")
    (taskprolog.dropins / "unreadable.sh").write_text("export UNREADABLE=1\n")
    (taskprolog.dropins / "unreadable.sh").chmod(0)
    lines = taskprolog(SCRIPT, {"LD_LIBRARY_PATH": "/opt/user/lib", "UNCHANGED": "same", "SLURM_JOB_PARTITION": "batch"})
    unreadable = [] if os.access(taskprolog.dropins / "unreadable.sh", os.R_OK) is False else ["export UNREADABLE=1"]
    # Drop-ins first, in env's order; then the node's settings, which win over them.
    dropin_lines = ["export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/latest", "export LD_LIBRARY_PATH=/usr/local/Ascend/lib64:/opt/user/lib", *unreadable]
    assert sorted(lines[: len(dropin_lines)]) == dropin_lines
    assert lines[len(dropin_lines) :] == NODE_LINES


def test_an_empty_dropin_directory_and_empty_settings_print_nothing(taskprolog):
    assert taskprolog({"default": [], "partitions": []}) == []
    assert taskprolog({"default": [], "partitions": [["debug", []]]}, {"SLURM_JOB_PARTITION": "debug"}) == []


def test_a_multiline_variable_in_the_task_does_not_leak_into_the_output(taskprolog):
    (taskprolog.dropins / "cann.sh").write_text("export ASCEND_HOME=/usr/local/Ascend\n")
    lines = taskprolog({"default": [], "partitions": []}, {"MULTI": "one\nFAKE=two", "BASH_FUNC_x%%": "() { :\n}"})
    assert lines == ["export ASCEND_HOME=/usr/local/Ascend"]
