import json

import pytest
from ansible.module_utils import basic
from repo_scripts import load

from ansible_collections.aicluster.slurm.plugins.modules import accelerator_info

replay = load("tests/unit/fixtures/accelerators/replay.py")


def replay_commands(monkeypatch, commands):
    """get_bin_path finds only the recorded commands; run_command returns their recorded output."""
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: "/usr/bin/" + name if name in commands else None)

    def run_command(self, args, **kwargs):
        name = args[0].rsplit("/", 1)[-1]
        return 0, commands[name], ""

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)


def test_h200_host(run_module, monkeypatch, tmp_path):
    manifest, commands = replay.materialize("h200_hgx", str(tmp_path))
    replay_commands(monkeypatch, commands)
    result = run_module(accelerator_info.main, {"root": str(tmp_path)}, check_mode=True)
    facts = result["accelerators"]
    assert result["changed"] is False
    assert len(facts["gpus"]) == 8
    assert len(facts["nvswitches"]) == 4
    assert facts["gcc_version"] == "14.2.0"
    assert facts["secure_boot_source"] == "mokutil"
    assert [g["smi_index"] for g in facts["gpus"]] == list(range(8))


def test_910b_host(run_module, monkeypatch, tmp_path):
    manifest, commands = replay.materialize("ascend_910b", str(tmp_path))
    replay_commands(monkeypatch, commands)
    facts = run_module(accelerator_info.main, {"root": str(tmp_path)})["accelerators"]
    assert [n["device_file"] for n in facts["npus"]] == ["/dev/davinci%d" % i for i in range(8)]
    assert facts["npu_smi"]["version"] == "24.1.rc1.b030"


def test_cpu_only_host_returns_empty_lists(run_module, monkeypatch, tmp_path):
    manifest, commands = replay.materialize("cpu_only", str(tmp_path))
    replay_commands(monkeypatch, commands)
    facts = run_module(accelerator_info.main, {"root": str(tmp_path)})["accelerators"]
    assert (facts["gpus"], facts["nvswitches"], facts["npus"]) == ([], [], [])
    assert facts["secure_boot"] == "unsupported"


def test_run_commands_off_and_failed_nvidia_smi(run_module, monkeypatch, tmp_path):
    replay.materialize("h200_hgx", str(tmp_path))
    called = []
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: called.append(name))
    facts = run_module(accelerator_info.main, {"root": str(tmp_path), "run_commands": False})["accelerators"]
    assert called == []
    assert facts["gcc_version"] is None
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: "/usr/bin/" + name)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", lambda self, args, **k: (9, "", "NVIDIA-SMI has failed"))
    facts = run_module(accelerator_info.main, {"root": str(tmp_path)})["accelerators"]
    assert facts["nvidia_smi"] == {"present": False, "gpus": []}


def test_recorded_commands_replay_npu_smi_order(run_module, monkeypatch, tmp_path):
    """A recorded tree with its commands' output (recorded_commands) numbers NPUs as npu-smi did, not by PCI order."""
    root = tmp_path / "tree"
    _manifest, commands = replay.materialize("ascend_910b", str(root))
    recorded = tmp_path / "commands.json"
    recorded.write_text(json.dumps(commands))
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, *a, **k: pytest.fail("ran " + name))
    args = {"root": str(root), "run_commands": False}
    by_pci = run_module(accelerator_info.main, args)["accelerators"]
    by_smi = run_module(accelerator_info.main, dict(args, recorded_commands=str(recorded)))["accelerators"]
    assert by_smi["npu_smi"]["version"] == "24.1.rc1.b030"
    assert [n["cores"] for n in by_smi["npus"]][:2] == ["144-167", "144-167"]
    assert [n["cores"] for n in by_pci["npus"]][:2] == ["0-23", "0-23"]


def test_recorded_commands_bad_file_names_the_option(run_module, tmp_path):
    bad = tmp_path / "commands.json"
    bad.write_text("[1, 2]")
    result = run_module(accelerator_info.main, {"root": str(tmp_path), "run_commands": False, "recorded_commands": str(bad)})
    assert result["failed"]
    assert "recorded_commands=%s: must be a JSON object" % bad in result["msg"]
    result = run_module(accelerator_info.main, {"root": str(tmp_path), "run_commands": False, "recorded_commands": str(tmp_path / "none")})
    assert result["failed"]
    assert "cannot read it as JSON" in result["msg"]
