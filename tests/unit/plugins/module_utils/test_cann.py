"""Unit tests for plugins/module_utils/cann.py: input checks, checksums, installed versions and the install plan."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import cann

SHA = "a" * 64
PACKAGES = [
    {"component": "driver", "file": "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-x86-64.run", "sha256": SHA, "version": "24.1.RC3"},
    {"component": "firmware", "file": "Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run", "sha256": "b" * 64, "version": "7.5.0.1.129"},
    {"component": "toolkit", "file": "Ascend-cann-toolkit_8.0.0_linux-x86_64.run", "sha256": "c" * 64, "version": "8.0.0"},
    {"component": "kernels", "file": "Ascend-cann-kernels-910b_8.0.0_linux-x86_64.run", "sha256": "D" * 64, "version": "8.0.0"},
]
SETTINGS = {
    "artifact_dir": "/srv/ascend",
    "packages": PACKAGES,
    "install_path": "/usr/local/Ascend",
    "cache_dir": "/var/cache/aicluster/cann",
    "set_env": "/usr/local/Ascend/ascend-toolkit/set_env.sh",
    "user_uid": None,
    "user_gid": None,
}
NOTHING = {"driver": None, "firmware": None, "toolkit": None, "kernels": None}


def messages(findings):
    return [item["id"] + ": " + item["message"] for item in findings]


def with_entry(index, **changes):
    packages = [dict(entry) for entry in PACKAGES]
    packages[index].update(changes)
    return dict(SETTINGS, packages=packages)


def test_good_settings_have_no_findings():
    assert cann.cann_input_findings(SETTINGS) == []
    assert cann.cann_input_findings(dict(SETTINGS, packages=PACKAGES[2:3], user_uid=1000, user_gid=1000)) == []


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (dict(SETTINGS, packages=[]), "cann_driver_packages: cann_driver_packages=[] lists no package"),
        (dict(SETTINGS, artifact_dir=""), "cann_driver_artifact_dir: cann_driver_artifact_dir='' is not an absolute path"),
        (dict(SETTINGS, install_path="usr/local/Ascend"), "cann_driver_install_path='usr/local/Ascend' is not an absolute path"),
        (dict(SETTINGS, user_uid=0), "cann_driver_user_uid=0 is not a positive id"),
        (dict(SETTINGS, user_gid="1000"), "cann_driver_user_gid='1000' is not a positive id"),
        (with_entry(0, component="drivers"), "cann_driver_packages[0] (drivers): component='drivers' is not a component; use one of driver, firmware"),
        (with_entry(1, file="/srv/ascend/fw.run"), "cann_driver_packages[1] (firmware): file='/srv/ascend/fw.run' is not the name of a .run package"),
        (with_entry(1, file="firmware.tar.gz"), "file='firmware.tar.gz' is not the name of a .run package"),
        (with_entry(2, sha256="abc"), "cann_driver_packages[2] (toolkit): sha256='abc' is not a sha256 (64 hex digits)"),
        (with_entry(2, version=8.1), "cann_driver_packages[2] (toolkit): version=8.1 is a float, not a string; quote it"),
        (with_entry(2, version="8.0 RC1"), "version='8.0 RC1' is not a version such as 24.1.RC3"),
        (with_entry(3, version="8.1.RC1"), "kernels version=8.1.RC1 differs from toolkit version=8.0.0"),
        (with_entry(3, flavour="910b"), "cann_driver_packages[3] (kernels) has unknown keys flavour"),
        (with_entry(3, sha256=None), "cann_driver_packages[3] (kernels) has no sha256"),
        (dict(SETTINGS, packages=PACKAGES + PACKAGES[:1]), "lists component=driver 2 times"),
        (dict(SETTINGS, packages=PACKAGES[1:]), "has a firmware entry but no driver"),
        (dict(SETTINGS, packages=PACKAGES[:2] + PACKAGES[3:]), "has a kernels entry but no toolkit"),
        (dict(SETTINGS, packages=["driver.run"]), "cann_driver_packages[0]='driver.run' is not a mapping"),
    ],
)
def test_bad_settings_name_the_variable_and_the_value(settings, expected):
    found = messages(cann.cann_input_findings(settings))
    assert any(expected in line for line in found), found


def test_artifacts_and_checksums():
    artifacts = cann.cann_artifacts(PACKAGES, "/srv/ascend")
    assert [item["path"] for item in artifacts][0] == "/srv/ascend/Ascend-hdk-910b-npu-driver_24.1.rc3_linux-x86-64.run"
    assert artifacts[3]["sha256"] == "d" * 64
    stats = [
        {"item": artifacts[0]["path"], "stat": {"exists": True, "isreg": True, "checksum": SHA}},
        {"item": artifacts[1]["path"], "stat": {"exists": False}},
        {"item": artifacts[2]["path"], "stat": {"exists": True, "isreg": True, "checksum": "e" * 64}},
        {"item": artifacts[3]["path"], "stat": {"exists": True, "isreg": False}},
    ]
    found = messages(cann.cann_checksum_findings(artifacts, stats))
    assert len(found) == 3
    assert found[0].startswith("cann_driver_artifact_dir: cann_driver_packages[1] (firmware): file=Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run")
    assert "is not in cann_driver_artifact_dir=/srv/ascend on the control machine" in found[0]
    assert found[1].startswith("cann_driver_packages: cann_driver_packages[2] (toolkit): /srv/ascend/Ascend-cann-toolkit_8.0.0_linux-x86_64.run has sha256 eee")
    assert ("not sha256=" + "c" * 64) in found[1]
    assert "is not a regular file" in found[2]
    assert cann.cann_checksum_findings(artifacts[:1], stats[:1]) == []


def test_installed_versions_read_the_version_files():
    files = cann.cann_version_files("/usr/local/Ascend", "aarch64")
    assert files == {
        "driver": "/usr/local/Ascend/driver/version.info",
        "firmware": "/usr/local/Ascend/firmware/version.info",
        "toolkit": "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info",
        "kernels": "/usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info",
    }
    output = "\n".join(
        [
            "### /usr/local/Ascend/driver/version.info",
            "Version=24.1.rc3",
            "compatible_version_fw=[7.0.0,7.7.99]",
            "",
            "### /usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info",
            "package_name=Ascend-cann-toolkit",
            "version=8.3.RC1.alpha001",
            "### /usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info",
            "Version=8.3.T5.0.B028",
            "version_dir=8.3.RC1.alpha001",
        ]
    )
    assert cann.cann_installed_versions(output, files) == {
        "driver": "24.1.rc3",
        "firmware": None,
        "toolkit": "8.3.RC1.alpha001",
        "kernels": "8.3.RC1.alpha001",
    }
    assert cann.cann_installed_versions("", files) == NOTHING


@pytest.mark.parametrize(
    ("installed", "wanted", "same"),
    [
        ("24.1.rc3", "24.1.RC3", True),
        ("24.1.rc1.b030", "24.1.RC1", True),
        ("24.1.rc3", "24.1.RC2", False),
        (None, "8.0.0", False),
        ("8.0.0", "8.0", False),
        ("24.1.0.1", "24.1.0", False),
    ],
)
def test_same_version(installed, wanted, same):
    assert cann.cann_same_version(installed, wanted) is same


def test_first_install_is_driver_firmware_toolkit_kernels():
    plan = cann.cann_plan(PACKAGES, NOTHING)
    assert [(item["component"], item["mode"], item["installed"]) for item in plan] == [
        ("driver", "full", None),
        ("firmware", "full", None),
        ("toolkit", "install", None),
        ("kernels", "install", None),
    ]
    assert plan[3]["sha256"] == "d" * 64


def test_converged_host_has_nothing_to_do():
    installed = {"driver": "24.1.rc3", "firmware": "7.5.0.1.129", "toolkit": "8.0.0", "kernels": "8.0.0"}
    assert [item["mode"] for item in cann.cann_plan(PACKAGES, installed)] == [None, None, None, None]


def test_upgrade_puts_the_firmware_before_the_driver():
    installed = {"driver": "23.0.3", "firmware": "7.1.0.5.220", "toolkit": "8.0.0", "kernels": "8.0.0"}
    plan = cann.cann_plan(PACKAGES, installed)
    assert [(item["component"], item["mode"]) for item in plan] == [("firmware", "upgrade"), ("driver", "upgrade"), ("toolkit", None), ("kernels", None)]


def test_compat_request_takes_the_installed_driver_when_the_list_has_none():
    assert cann.cann_compat_request(PACKAGES, NOTHING) == {"ascend_driver": "24.1.RC3", "ascend_firmware": "7.5.0.1.129", "cann": "8.0.0"}
    assert cann.cann_compat_request(PACKAGES[2:], dict(NOTHING, driver="24.1.rc3")) == {"ascend_driver": "24.1.rc3", "cann": "8.0.0"}
    assert cann.cann_compat_request(PACKAGES[2:], NOTHING) == {}


def test_installed_findings_catch_a_wrong_declared_version():
    plan = cann.cann_plan(PACKAGES, NOTHING)
    good = {"driver": "24.1.rc3", "firmware": "7.5.0.1.129", "toolkit": "8.0.0", "kernels": "8.0.0"}
    assert cann.cann_installed_findings(plan, good) == []
    found = messages(cann.cann_installed_findings(plan, dict(good, toolkit="8.0.RC3")))
    assert found == [
        "cann_driver_packages: Ascend-cann-toolkit_8.0.0_linux-x86_64.run installed version 8.0.RC3, not version=8.0.0; "
        "set version in cann_driver_packages to the version the package installs"
    ]


def test_compat_lines_name_the_role_variables():
    findings = [
        {"id": "ASC-CANN", "message": "cann=8.5.0 is not compatible with ascend_driver=24.1.RC3: change ascend_driver or cann"},
        {"id": "HOST-KHDR", "message": "no headers for the running kernel 6.12: install linux-headers-6.12, or set module_build=precompiled"},
        {"id": "ASC-FWRANGE", "message": "ascend_firmware=7.9.0 is outside the range; give ascend_firmware_range"},
    ]
    assert cann.cann_compat_lines(findings) == [
        "[ASC-CANN] cann_driver_packages: toolkit.version=8.5.0 is not compatible with driver.version=24.1.RC3: change driver.version or toolkit.version",
        "[HOST-KHDR] cann_driver_packages: no headers for the running kernel 6.12: install linux-headers-6.12, or set cann_driver_module_build=precompiled",
        "[ASC-FWRANGE] cann_driver_packages: firmware.version=7.9.0 is outside the range; give cann_driver_firmware_range",
    ]


# ---------------------------------------------------------------- the NPUs' RoCE ports

NPU_PLAN = {
    "addresses": ["10.20.0.%d" % (11 + index) for index in range(8)],
    "netmask": "255.255.255.0",
    "gateway": "10.20.0.1",
    "netdetect": "10.20.0.1",
}


def npu_messages(found):
    return [item["message"] if isinstance(item, dict) else str(item) for item in found]


def test_a_sound_npu_plan_has_no_findings():
    assert cann.npu_network_findings(NPU_PLAN, {"npu002": ["10.20.0.21"]}, 8) == []
    assert cann.npu_network_findings(dict(NPU_PLAN, addresses=[])) == []


def test_npu_plan_findings_name_the_variable_the_value_and_the_fix():
    plan = dict(
        NPU_PLAN,
        addresses=["10.20.0.11", "10.20.0.11", "10.20.0.0", "10.20.0.255", "10.20.0.300", "10.20.0.21"],
        gateway="10.30.0.1",
        netdetect="detect-me",
    )
    found = npu_messages(cann.npu_network_findings(plan, {"npu002": ["10.20.0.21"], "npu003": None}, 8))
    assert any("cann_driver_npu_addresses[1]=10.20.0.11 is also NPU 0's address" in text for text in found)
    assert any("cann_driver_npu_addresses[2]=10.20.0.0 is the network address of 10.20.0.0/24" in text for text in found)
    assert any("cann_driver_npu_addresses[3]=10.20.0.255 is the broadcast address of 10.20.0.0/24" in text for text in found)
    assert any("cann_driver_npu_addresses[4]='10.20.0.300' is not an IPv4 address" in text for text in found)
    assert any("cann_driver_npu_addresses[5]=10.20.0.21 is also an NPU address of npu002" in text for text in found)
    assert any("gives 6 addresses for the 8 NPUs on the PCI bus" in text for text in found)
    assert any("cann_driver_npu_gateway=10.30.0.1 is outside the subnet of NPU 0's address" in text for text in found)
    assert any("cann_driver_npu_netdetect='detect-me' is not an IPv4 address" in text for text in found)


@pytest.mark.parametrize("netmask", ["", None, "255.0.255.0", "24", "255.255.255.256"])
def test_npu_plan_needs_a_netmask(netmask):
    found = npu_messages(cann.npu_network_findings(dict(NPU_PLAN, netmask=netmask)))
    assert len(found) == 1
    assert "cann_driver_npu_netmask=%r is not an IPv4 netmask" % (netmask,) in found[0]


def test_npu_addresses_not_a_list():
    (text,) = npu_messages(cann.npu_network_findings(dict(NPU_PLAN, addresses="10.20.0.11")))
    assert "cann_driver_npu_addresses='10.20.0.11' is not a list" in text


def test_hccn_commands_set_only_what_differs():
    commands = cann.hccn_commands("", NPU_PLAN)
    assert len(commands) == 24
    assert commands[:3] == [
        ["-i", "0", "-ip", "-s", "address", "10.20.0.11", "netmask", "255.255.255.0"],
        ["-i", "0", "-gateway", "-s", "gateway", "10.20.0.1"],
        ["-i", "0", "-netdetect", "-s", "address", "10.20.0.1"],
    ]
    conf = "".join("address_%d=10.20.0.%d\nnetmask_%d=255.255.255.0\ngateway_%d=10.20.0.1\nnetdetect_%d=10.20.0.1\n" % (i, 11 + i, i, i, i) for i in range(8))
    assert cann.hccn_commands(conf, NPU_PLAN) == []
    moved = conf.replace("address_5=10.20.0.16", "address_5=10.20.0.99").replace("netdetect_2=10.20.0.1", "netdetect_2=10.20.0.2")
    assert cann.hccn_commands(moved, NPU_PLAN) == [
        ["-i", "2", "-netdetect", "-s", "address", "10.20.0.1"],
        ["-i", "5", "-ip", "-s", "address", "10.20.0.16", "netmask", "255.255.255.0"],
    ]


def test_hccn_commands_without_gateway_or_netdetect():
    commands = cann.hccn_commands("", dict(NPU_PLAN, gateway="", netdetect="", addresses=["10.20.0.11"]))
    assert commands == [["-i", "0", "-ip", "-s", "address", "10.20.0.11", "netmask", "255.255.255.0"]]
