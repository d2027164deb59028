import importlib.util
import pathlib

from ansible.module_utils import basic

from ansible_collections.aicluster.slurm.plugins.modules import accelerator_info

_spec = importlib.util.spec_from_file_location("replay", pathlib.Path(__file__).parents[2] / "fixtures" / "accelerators" / "replay.py")
replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay)


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
