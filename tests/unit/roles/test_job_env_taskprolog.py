"""roles/job_env: the TaskProlog, rendered from job_env_script and run by sh."""

import os
import subprocess
from pathlib import Path

import jinja2
import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.job_env import job_env_script

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "roles" / "job_env" / "templates" / "taskprolog.j2"

IB = {"name": "mlx5_0", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]}
IB1 = {"name": "mlx5_1", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]}
ROCE = {"name": "mlx5_2", "ports": {"1": "Ethernet"}, "link_layers": ["Ethernet"]}
IB_NODE = {"hcas": [IB1, IB, ROCE], "default_interface": "bond0", "npu": False, "npu_devices": []}


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
