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


def render(script, directory, device_dir):
    env = jinja2.Environment(trim_blocks=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["comment"] = lambda text: "# " + text
    return env.from_string(TEMPLATE.read_text()).render(
        ansible_managed="Ansible managed", __job_env_script=script, __job_env_dir=str(directory), __job_env_device_dir=str(device_dir)
    )


@pytest.fixture
def taskprolog(tmp_path):
    """``taskprolog(script, env)`` -> the lines the rendered TaskProlog prints with exactly ``env`` (plus PATH)."""
    dropins = tmp_path / "job-env.d"
    dropins.mkdir()
    devices = tmp_path / "dev"
    devices.mkdir()
    tools = tmp_path / "bin"  # stand-ins for Slurm's commands
    tools.mkdir()
    path = tmp_path / "taskprolog"

    def run(script, env=None):
        path.write_text(render(script, dropins, devices))
        env = dict(env or {}, PATH="%s:%s" % (tools, os.environ["PATH"]))
        done = subprocess.run(["sh", str(path)], env=env, capture_output=True, text=True, timeout=30, check=False)
        assert done.returncode == 0
        assert done.stderr == ""
        return done.stdout.splitlines()

    run.dropins = dropins
    run.devices = devices
    run.tools = tools
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
    assert taskprolog({"npus": False, "default": [], "partitions": []}) == []
    assert taskprolog({"npus": False, "default": [], "partitions": [["debug", []]]}, {"SLURM_JOB_PARTITION": "debug"}) == []


def test_a_multiline_variable_in_the_task_does_not_leak_into_the_output(taskprolog):
    (taskprolog.dropins / "cann.sh").write_text("export ASCEND_HOME=/usr/local/Ascend\n")
    lines = taskprolog({"npus": False, "default": [], "partitions": []}, {"MULTI": "one\nFAKE=two", "BASH_FUNC_x%%": "() { :\n}"})
    assert lines == ["export ASCEND_HOME=/usr/local/Ascend"]


# ASCEND_RT_VISIBLE_DEVICES from the job's GRES indices on this node (scontrol -d show job).

NPU_SCRIPT = {"npus": True, "default": [], "partitions": []}
JOB = """JobId=42 JobName=train
   UserId=alice(1000) GroupId=alice(1000) MCS_label=N/A
   JobState=RUNNING Reason=None Dependency=(null)
   NodeList=npu-[a-b]
     Nodes=npu-a CPU_IDs=0-47 Mem=0 GRES=npu:910b:2(IDX:3-4)
     Nodes=npu-[b-c] CPU_IDs=0-23 Mem=0 GRES=gpu:h200:1(IDX:0),npu:910b:3(IDX:0,6-7)
   TresPerNode=gres/npu:2
"""


@pytest.fixture
def npu_node(taskprolog):
    """A node with davinci0-3 and davinci8-11 (a gap: index 4 is davinci8), and a stand-in scontrol."""
    for number in (0, 1, 2, 3, 8, 9, 10, 11):
        (taskprolog.devices / ("davinci%d" % number)).write_text("")
    (taskprolog.devices / "davinci_manager").write_text("")
    (taskprolog.tools / "job.txt").write_text(JOB)
    scontrol = taskprolog.tools / "scontrol"
    scontrol.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        '"-d show job 42") cat "%s" ;;\n'
        '"show hostnames npu-[b-c]") printf "npu-b\\nnpu-c\\n" ;;\n'
        '*) echo "scontrol: $*: not found" >&2; exit 1 ;;\n'
        "esac\n" % (taskprolog.tools / "job.txt")
    )
    scontrol.chmod(0o755)
    return taskprolog


def test_a_job_gets_its_npus_on_this_node_by_device_number(npu_node):
    assert npu_node(NPU_SCRIPT, {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "npu-a"}) == exported(("ASCEND_RT_VISIBLE_DEVICES", "3,8"))
    # A node in a hostlist, with a GPU beside its NPUs: only the NPUs' indices count.
    assert npu_node(NPU_SCRIPT, {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "npu-c"}) == exported(("ASCEND_RT_VISIBLE_DEVICES", "0,10,11"))


def test_no_npus_no_variable(npu_node):
    assert npu_node(NPU_SCRIPT, {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "npu-z"}) == []
    (npu_node.tools / "job.txt").write_text(JOB.replace("npu:910b:2(IDX:3-4)", "gpu:h200:2(IDX:3-4)"))
    assert npu_node(NPU_SCRIPT, {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "npu-a"}) == []
    # scontrol failing (controller unreachable, job gone) prints nothing on stderr and fails no task.
    assert npu_node(NPU_SCRIPT, {"SLURM_JOB_ID": "7", "SLURMD_NODENAME": "npu-a"}) == []
    # A node without NPUs renders none of this.
    assert npu_node(dict(NPU_SCRIPT, npus=False), {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "npu-a"}) == []


def test_the_users_own_npu_choice_wins(npu_node):
    assert npu_node(NPU_SCRIPT, {"SLURM_JOB_ID": "42", "SLURMD_NODENAME": "npu-a", "ASCEND_RT_VISIBLE_DEVICES": "0"}) == []
    # The batch step's value is replaced by this node's in a step on another node.
    batch = {"ASCEND_RT_VISIBLE_DEVICES": "3,8", "AICLUSTER_JOB_ENV_ASCEND_RT_VISIBLE_DEVICES": "3,8"}
    assert npu_node(NPU_SCRIPT, dict(batch, SLURM_JOB_ID="42", SLURMD_NODENAME="npu-b")) == exported(("ASCEND_RT_VISIBLE_DEVICES", "0,10,11"))
