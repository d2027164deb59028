"""Unit tests for plugins/module_utils/nvidia_driver.py: the packages of a driver version, apt and DKMS checks."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.nvidia_driver import (
    NvidiaDriverError,
    nvidia_apt_problems,
    nvidia_change_problems,
    nvidia_dkms_missing,
    nvidia_driver_change,
    nvidia_driver_packages,
    nvidia_pinned_packages,
    nvidia_plan_problems,
    nvidia_removal_extra,
)


def test_debian_tesla_535():
    plan = nvidia_driver_packages("535.274.02", "debian", "proprietary")
    assert plan["install"] == [
        "nvidia-tesla-535-kernel-dkms=535.274.02-*",
        "nvidia-tesla-535-smi=535.274.02-*",
        "libnvidia-tesla-535-cuda1=535.274.02-*",
        "libnvidia-tesla-535-ml1=535.274.02-*",
        "firmware-nvidia-tesla-535-gsp=535.274.02-*",
        "nvidia-persistenced",
    ]
    assert plan["hold"][0] == "nvidia-tesla-535-kernel-dkms"
    assert "nvidia-persistenced" not in plan["hold"]
    assert plan["fabricmanager"] is None


@pytest.mark.parametrize(("flavour", "kernel"), [("open", "nvidia-open-kernel-dkms"), ("proprietary", "nvidia-kernel-dkms")])
def test_debian_550_flavours(flavour, kernel):
    plan = nvidia_driver_packages("550.163.01", "debian", flavour)
    assert plan["install"][0] == kernel + "=550.163.01-*"
    assert "libcuda1=550.163.01-*" in plan["install"]


@pytest.mark.parametrize(
    ("branch", "fm", "expected"),
    [("570.172.08", True, "nvidia-fabricmanager-570"), ("580.95.05", True, "nvidia-fabricmanager"), ("580.95.05", False, None)],
)
def test_nvidia_repo_fabric_manager_renamed_at_r580(branch, fm, expected):
    plan = nvidia_driver_packages(branch, "nvidia_repo", "open", fm)
    assert plan["fabricmanager"] == expected
    assert plan["install"][:3] == ["nvidia-kernel-open-dkms=%s-*" % branch, "nvidia-driver-cuda=%s-*" % branch, "nvidia-persistenced=%s-*" % branch]
    # NVIDIA's repository versions nvidia-persistenced with the driver: pinned and held with it.
    assert "nvidia-persistenced" in plan["hold"]
    assert "nvidia-persistenced" not in plan["install"]
    if expected:
        assert "%s=%s-*" % (expected, branch) in plan["install"]
        assert expected in plan["hold"]


def test_nvidia_repo_proprietary():
    assert nvidia_driver_packages("570.172.08", "nvidia_repo", "proprietary")["install"][0] == "nvidia-kernel-dkms=570.172.08-*"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", "debian", "open"), r"nvidia_driver_version='': give the full driver version"),
        (("550", "debian", "open"), r"nvidia_driver_version='550'"),
        (("580.95.05", "debian", "open"), r"nvidia_driver_version='580.95.05': Debian 13 packages the 535 .* nvidia_repo"),
        (("535.274.02", "debian", "open"), r"nvidia_driver_flavour='open': Debian 13 has no open kernel module for the 535 series; use proprietary"),
        (("550.163.01", "debian", "closed"), r"nvidia_driver_flavour='closed': use open or proprietary"),
        (("550.163.01", "ubuntu", "open"), r"nvidia_driver_source='ubuntu': use debian or nvidia_repo"),
    ],
)
def test_bad_plans_name_the_variable(args, message):
    with pytest.raises(NvidiaDriverError, match=message):
        nvidia_driver_packages(*args)


def test_debian_cannot_give_a_fabric_manager():
    with pytest.raises(NvidiaDriverError, match="nvidia_driver_source='debian': this host has NVSwitches"):
        nvidia_driver_packages("550.163.01", "debian", "open", True)


MADISON = """nvidia-tesla-535-kernel-dkms | 535.274.02-1~deb13u1 | http://mirror/debian trixie/non-free amd64 Packages
nvidia-persistenced | 550.163.01-1 | http://mirror/debian trixie/contrib amd64 Packages
linux-headers-amd64 | 6.12.117-1 | http://mirror/debian trixie/main amd64 Packages
"""


def test_apt_problems_none_when_everything_is_there():
    wanted = ["linux-headers-amd64", "nvidia-tesla-535-kernel-dkms=535.274.02-*", "nvidia-persistenced"]
    assert nvidia_apt_problems(MADISON, wanted, "535.274.02") == []


def test_apt_problems_name_missing_packages_and_versions():
    wanted = ["linux-headers-6.18.44-fc", "nvidia-tesla-535-kernel-dkms=535.216.03-*"]
    assert nvidia_apt_problems(MADISON, wanted, "535.216.03") == [
        "linux-headers-6.18.44-fc is not in this host's apt sources",
        "nvidia-tesla-535-kernel-dkms 535.216.03 is not available (apt has 535.274.02-1~deb13u1)",
    ]


def test_apt_problems_version_prefix_is_exact():
    # 535.274.0 must not match 535.274.02.
    assert nvidia_apt_problems(MADISON, ["nvidia-tesla-535-kernel-dkms=535.274.0-*"], "535.274.0") != []


DKMS = """nvidia-tesla-535/535.274.02, 6.12.117+deb13-amd64, x86_64: installed
nvidia-tesla-535/535.274.02, 6.12.99+deb13-amd64, x86_64: built
nvidia-current/550.163.01, 6.12.117+deb13-amd64, x86_64: installed (WARNING! Diff between built and installed module!)
"""


def test_dkms_missing():
    assert nvidia_dkms_missing(DKMS, "535.274.02", ["6.12.117+deb13-amd64"]) == []
    # built but not installed does not count
    assert nvidia_dkms_missing(DKMS, "535.274.02", ["6.12.117+deb13-amd64", "6.12.99+deb13-amd64"]) == ["6.12.99+deb13-amd64"]
    assert nvidia_dkms_missing(DKMS, "550.163.01", ["6.12.117+deb13-amd64"]) == []
    assert nvidia_dkms_missing("", "535.274.02", ["6.12.117+deb13-amd64"]) == ["6.12.117+deb13-amd64"]


def test_plan_problems_are_the_messages():
    assert nvidia_plan_problems("550.163.01", "debian", "open") == []
    problems = nvidia_plan_problems("580.95.05", "debian", "open")
    assert len(problems) == 1
    assert problems[0].startswith("nvidia_driver_version='580.95.05': Debian 13 packages the 535")


# dpkg-query -W -f '${Package}|${Version}|${db:Status-Abbrev}\n' of the gpu scenario's node after Debian's 535 install.
DPKG_535 = "".join(
    "%s|%s|%s \n" % row
    for row in [
        ("firmware-nvidia-tesla-535-gsp", "535.274.02-1~deb13u1", "hi"),
        ("glx-alternative-nvidia", "1.2.2", "ii"),
        ("libnvidia-cfg1", "550.163.01-2", "ii"),
        ("libnvidia-tesla-535-cuda1", "535.274.02-1~deb13u1", "hi"),
        ("libnvidia-tesla-535-ml1", "535.274.02-1~deb13u1", "hi"),
        ("libnvidia-tesla-535-ptxjitcompiler1", "535.274.02-1~deb13u1", "ii"),
        ("nvidia-persistenced", "550.163.01-1", "ii"),
        ("nvidia-tesla-535-alternative", "535.274.02-1~deb13u1", "ii"),
        ("nvidia-tesla-535-kernel-dkms", "535.274.02-1~deb13u1", "hi"),
        ("nvidia-tesla-535-smi", "535.274.02-1~deb13u1", "hi"),
        ("nvidia-tesla-470-kernel-dkms", "470.256.02-1", "rc"),
        ("slurmd", "24.11.5-2", "ii"),
    ]
)


def test_change_from_debian_535_to_550_removes_exactly_the_535_packages():
    change = nvidia_driver_change(DPKG_535, "550.163.01")
    assert (change["from"], change["to"], change["needed"], change["problems"]) == ("535.274.02", "550.163.01", True, [])
    assert change["remove"] == [
        "firmware-nvidia-tesla-535-gsp",
        "libnvidia-tesla-535-cuda1",
        "libnvidia-tesla-535-ml1",
        "libnvidia-tesla-535-ptxjitcompiler1",
        "nvidia-tesla-535-alternative",
        "nvidia-tesla-535-kernel-dkms",
        "nvidia-tesla-535-smi",
    ]
    assert change["unhold"] == [
        "firmware-nvidia-tesla-535-gsp",
        "libnvidia-tesla-535-cuda1",
        "libnvidia-tesla-535-ml1",
        "nvidia-tesla-535-kernel-dkms",
        "nvidia-tesla-535-smi",
    ]


def test_no_change_on_the_installed_version_or_a_first_install():
    assert nvidia_driver_change(DPKG_535, "535.274.02")["needed"] is False
    first = nvidia_driver_change("slurmd|24.11.5-2|ii\n", "550.163.01")
    assert (first["from"], first["needed"], first["remove"]) == ("", False, [])


def test_two_installed_kernel_modules_are_a_problem():
    dpkg = DPKG_535 + "nvidia-kernel-open-dkms|1:570.172.08-1|ii \n"
    change = nvidia_driver_change(dpkg, "570.172.08")
    assert change["needed"] is False
    assert change["problems"] == [
        "this host has NVIDIA kernel modules of 535.274.02 and 570.172.08 installed at once "
        "(nvidia-kernel-open-dkms 570.172.08, nvidia-tesla-535-kernel-dkms 535.274.02); remove all but one with apt before changing the driver"
    ]


def test_removal_extra_names_the_dependents_apt_would_take():
    simulation = "Purg nvidia-tesla-535-smi [535.274.02-1~deb13u1]\nRemv dcgm-exporter [3.3.5]\nInst foo\n"
    assert nvidia_removal_extra(simulation, ["nvidia-tesla-535-smi"]) == ["dcgm-exporter"]
    assert nvidia_removal_extra("Purg nvidia-tesla-535-smi [x]\n", ["nvidia-tesla-535-smi"]) == []


def test_change_problems_after_the_change():
    hold = nvidia_driver_packages("550.163.01", "debian", "proprietary")["hold"]
    done = "".join("%s|550.163.01-2|hi \n" % name for name in hold)
    assert nvidia_change_problems(done, "550.163.01", hold, ["nvidia-tesla-535-smi"]) == []
    half = done.replace("nvidia-smi|550.163.01-2|hi", "nvidia-smi|550.163.01-2|ii") + "nvidia-tesla-535-smi|535.274.02-1|ii \n"
    half = half.replace("libcuda1|550.163.01-2|hi \n", "")
    assert nvidia_change_problems(half, "550.163.01", hold, ["nvidia-tesla-535-smi"]) == [
        "nvidia-smi 550.163.01-2 is not held",
        "libcuda1 is not installed, not 550.163.01",
        "the old driver's nvidia-tesla-535-smi still installed",
    ]


def test_pinned_packages_with_fabric_manager_and_nscq_from_nvidia():
    assert nvidia_pinned_packages("570.172.08", "nvidia_repo", "open") == [
        "nvidia-kernel-open-dkms",
        "nvidia-driver-cuda",
        "nvidia-persistenced",
        "nvidia-fabricmanager-570",
        "libnvidia-nscq-570",
    ]
    assert nvidia_pinned_packages("580.95.05", "nvidia_repo", "open")[-2:] == ["nvidia-fabricmanager", "libnvidia-nscq"]
    assert nvidia_pinned_packages("535.274.02", "debian", "proprietary")[0] == "nvidia-tesla-535-kernel-dkms"
    assert nvidia_pinned_packages("bad", "debian", "open") == []
