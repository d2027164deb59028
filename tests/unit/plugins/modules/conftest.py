"""Run an Ansible module's main() in-process and capture what it returns."""

import json
import os

import pytest
from ansible.module_utils import basic


class ModuleExit(Exception):
    """exit_json or fail_json was called; ``result`` holds its keyword arguments."""

    def __init__(self, result, module):
        super().__init__(result)
        self.result = result
        self.module = module


@pytest.fixture
def run_module(monkeypatch, tmp_path):
    """``run_module(main, args, check_mode=False)`` -> the module's result dict.

    A failed module's result has ``failed: True`` (as fail_json adds it);
    ``run_module.module`` is the AnsibleModule of the last run.
    """

    def exit_json(self, **kwargs):
        raise ModuleExit(kwargs, self)

    def fail_json(self, msg, **kwargs):
        raise ModuleExit(dict(kwargs, failed=True, msg=msg), self)

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    module_tmp = tmp_path / "ansible-module-tmp"
    module_tmp.mkdir()

    def run(main, args, check_mode=False):
        module_args = dict(args, _ansible_check_mode=check_mode, _ansible_tmpdir=str(module_tmp), _ansible_remote_tmp=str(module_tmp))
        # ansible-core 2.19 reads the arguments and their serialization profile (new in 2.19) from these globals.
        monkeypatch.setattr(basic, "_ANSIBLE_ARGS", json.dumps({"ANSIBLE_MODULE_ARGS": module_args}).encode())
        monkeypatch.setattr(basic, "_ANSIBLE_PROFILE", "legacy", raising=False)
        with pytest.raises(ModuleExit) as exited:
            main()
        run.module = exited.value.module
        return exited.value.result

    run.module = None
    return run


@pytest.fixture(autouse=True)
def umask():
    """A known umask, so modes of new files are predictable."""
    old = os.umask(0o022)
    yield
    os.umask(old)
