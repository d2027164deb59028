"""tests/fixtures/cann/make_artifacts.py: the SYNTHETIC Ascend .run stand-ins behave as the role expects of Huawei's."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.aicluster.slurm.plugins.module_utils.cann import cann_input_findings, cann_installed_versions, cann_version_files

SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "cann" / "make_artifacts.py"
FIRST = {
    "driver": ["--nox11", "--full", "--install-for-all", "--quiet"],
    "firmware": ["--nox11", "--full", "--quiet"],
    "toolkit": ["--nox11", "--install", "--install-for-all", "--quiet"],
    "kernels": ["--nox11", "--install", "--install-for-all", "--quiet"],
}


@pytest.fixture
def artifacts(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "art"), "--arch", "x86_64"], capture_output=True, text=True, check=True).stdout
    variables = yaml.safe_load(out)
    assert variables == yaml.safe_load((tmp_path / "art" / "cann_driver_packages.yml").read_text())
    return variables


@pytest.fixture
def root(tmp_path):
    """A fake root with the HwHiAiUser user and group (the driver refuses to install without them)."""
    base = tmp_path / "root"
    (base / "etc").mkdir(parents=True)
    (base / "etc" / "passwd").write_text("HwHiAiUser:x:1000:1000::/home/HwHiAiUser:/bin/bash\n")
    (base / "etc" / "group").write_text("HwHiAiUser:x:1000:\n")
    return base


def run(variables, root, component, options=None):
    entry = next(item for item in variables["cann_driver_packages"] if item["component"] == component)
    path = os.path.join(variables["cann_driver_artifact_dir"], entry["file"])
    env = dict(os.environ, CANN_FAKE_ROOT=str(root))
    return subprocess.run([path] + (FIRST[component] if options is None else options), capture_output=True, text=True, env=env, check=False)


def log(root):
    path = root / "var" / "log" / "aicluster-cann-install.log"
    return path.read_text().splitlines() if path.exists() else []


def test_the_list_is_valid_input_with_real_checksums(artifacts):
    assert [entry["component"] for entry in artifacts["cann_driver_packages"]] == ["driver", "firmware", "toolkit", "kernels"]
    settings = {
        "artifact_dir": artifacts["cann_driver_artifact_dir"],
        "packages": artifacts["cann_driver_packages"],
        "install_path": "/usr/local/Ascend",
        "cache_dir": "/var/cache/aicluster/cann",
        "set_env": "/usr/local/Ascend/ascend-toolkit/set_env.sh",
    }
    assert cann_input_findings(settings) == []
    for entry in artifacts["cann_driver_packages"]:
        path = Path(artifacts["cann_driver_artifact_dir"]) / entry["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
        assert os.access(path, os.X_OK)
        assert "SYNTHETIC" in path.read_text()
    assert artifacts["cann_driver_packages"][0]["file"] == "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-x86-64.run"


def test_install_in_order_writes_the_version_files(artifacts, root):
    for component in ("driver", "firmware", "toolkit", "kernels"):
        result = run(artifacts, root, component)
        assert result.returncode == 0, result.stderr
    assert log(root) == ["driver 24.1.RC3 full", "firmware 7.5.0.1.129 full", "toolkit 8.0.0 install", "kernels 8.0.0 install"]
    files = cann_version_files("/usr/local/Ascend", "x86_64")
    output = "".join("### %s\n%s\n" % (path, (root / path.lstrip("/")).read_text()) for path in files.values())
    assert cann_installed_versions(output, files) == {"driver": "24.1.rc3", "firmware": "7.5.0.1.129", "toolkit": "8.0.0", "kernels": "8.0.0"}
    assert "compatible_version_fw=[7.0.0,7.7.99]" in (root / "usr/local/Ascend/driver/version.info").read_text()
    assert (root / "etc/Ascend/ascend_cann_install.info").read_text() == "Install_Path=/usr/local/Ascend\n"
    set_env = root / "usr/local/Ascend/ascend-toolkit/set_env.sh"
    shell = "unset LD_LIBRARY_PATH; . %s; echo $ASCEND_TOOLKIT_HOME; echo $LD_LIBRARY_PATH" % set_env
    lines = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines == [
        "/usr/local/Ascend/ascend-toolkit/latest",
        "/usr/local/Ascend/ascend-toolkit/latest/lib64:/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/driver/lib64/driver",
    ]


@pytest.mark.parametrize(
    ("component", "options", "error"),
    [
        ("driver", ["--full", "--bogus"], "unknown option --bogus"),
        ("firmware", ["--full", "--install-for-all"], "unknown option --install-for-all"),
        ("driver", ["--nox11"], "give one of --full, --upgrade or --install"),
        ("firmware", None, "the driver is not installed"),
        ("toolkit", None, "the driver and firmware are not installed"),
        ("kernels", None, "the CANN toolkit 8.0.0 is not installed"),
    ],
)
def test_refuses_unknown_options_and_a_missing_previous_component(artifacts, root, component, options, error):
    result = run(artifacts, root, component, options)
    assert result.returncode != 0
    assert error in result.stderr
    assert log(root) == []


def test_driver_needs_the_user_and_full_twice_fails(artifacts, root):
    (root / "etc" / "passwd").write_text("")
    result = run(artifacts, root, "driver")
    assert result.returncode == 1
    assert "user and group HwHiAiUser must exist" in result.stderr
    (root / "etc" / "passwd").write_text("HwHiAiUser:x:1000:1000::/home/HwHiAiUser:/bin/bash\n")
    assert run(artifacts, root, "driver").returncode == 0
    again = run(artifacts, root, "driver")
    assert again.returncode == 1
    assert "use --upgrade" in again.stderr
    assert run(artifacts, root, "driver", ["--nox11", "--upgrade", "--quiet"]).returncode == 0
    assert log(root) == ["driver 24.1.RC3 full", "driver 24.1.RC3 upgrade"]


def test_install_path_option(artifacts, root):
    assert run(artifacts, root, "driver", FIRST["driver"] + ["--install-path=/opt/Ascend"]).returncode == 0
    assert run(artifacts, root, "firmware").returncode == 0
    assert (root / "opt/Ascend/firmware/version.info").read_text() == "Version=7.5.0.1.129\n"
