import pytest
from repo_scripts import load

from ansible_collections.aicluster.slurm.plugins.module_utils import accelerators as acc

replay = load("tests/unit/fixtures/accelerators/replay.py")


def gathered(tmp_path, name):
    manifest, commands = replay.materialize(name, str(tmp_path))
    return acc.gather(str(tmp_path), commands)


@pytest.mark.parametrize(
    ("text", "release", "compiler", "version"),
    [
        (
            "Linux version 6.12.57+deb13-amd64 (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-14 (Debian 14.2.0-19) 14.2.0, GNU ld 2.44) #1",
            "6.12.57+deb13-amd64",
            "gcc",
            "14.2.0",
        ),
        (
            "Linux version 5.15.0-122-generic (buildd@lcy02) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld 2.38) #132",
            "5.15.0-122-generic",
            "gcc",
            "11.4.0",
        ),
        ("Linux version 5.4.0 (root@h) (gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.2)) #1", "5.4.0", "gcc", "9.4.0"),
        (
            "Linux version 5.14.0-427.el9.x86_64 (mockbuild@x) (gcc (GCC) 11.4.1 20231218 (Red Hat 11.4.1-3), GNU ld 2.35.2) #1",
            "5.14.0-427.el9.x86_64",
            "gcc",
            "11.4.1",
        ),
        (
            "Linux version 5.10.0-60.18.0.50.oe2203.aarch64 (abuild@w) (gcc_old (GCC) 10.3.1, GNU ld (GNU Binutils) 2.37) #1",
            "5.10.0-60.18.0.50.oe2203.aarch64",
            "gcc",
            "10.3.1",
        ),
        ("Linux version 6.6.0 (u@h) (clang version 17.0.6, LLD 17.0.6) #1", "6.6.0", "clang", "17.0.6"),
        ("", None, None, None),
    ],
)
def test_parse_proc_version(text, release, compiler, version):
    assert acc.parse_proc_version(text) == {"release": release, "compiler": compiler, "compiler_version": version}


def test_parse_gcc_version():
    assert acc.parse_gcc_version("14.2.0\n") == "14.2.0"
    assert acc.parse_gcc_version("gcc (Debian 14.2.0-19) 14.2.0\nCopyright") == "14.2.0"
    assert acc.parse_gcc_version(None) is None


def test_cpulists_round_trip():
    assert acc.parse_cpulist("0-2,5, 7-8\n") == [0, 1, 2, 5, 7, 8]
    assert acc.format_cpulist([8, 7, 5, 0, 1, 2]) == "0-2,5,7-8"
    assert acc.parse_cpulist("") == []


def test_normalize_bdf():
    assert acc.normalize_bdf("00000000:BA:00.0") == "0000:ba:00.0"
    assert acc.normalize_bdf("0000:C1:00.0") == "0000:c1:00.0"
    assert acc.normalize_bdf("18:00.0") == "0000:18:00.0"


def test_nvidia_version_flavours():
    open_text = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16)  Fri Mar 14"
    closed_text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.216.03  Wed Oct 30 2024"
    assert acc.parse_nvidia_version(open_text) == {"version": "570.133.20", "flavour": "open"}
    assert acc.parse_nvidia_version(closed_text) == {"version": "535.216.03", "flavour": "proprietary"}
    assert acc.parse_nvidia_version(None, "550.163.01\n") == {"version": "550.163.01", "flavour": None}


def test_secure_boot_sources():
    assert acc.parse_mokutil("SecureBoot enabled\n") == "enabled"
    assert acc.parse_mokutil("SecureBoot disabled\nPlatform is in Setup Mode") == "disabled"
    assert acc.parse_mokutil("EFI variables are not supported on this system") == "unsupported"
    assert acc.parse_mokutil("") is None
    assert acc.parse_efivar_secure_boot(bytes([6, 0, 0, 0, 1])) == "enabled"
    assert acc.parse_efivar_secure_boot(bytes([6, 0, 0, 0, 0])) == "disabled"
    assert acc.parse_efivar_secure_boot(b"\x06") is None


def test_nouveau_blacklist_forms():
    assert acc.nouveau_blacklisted(["# none\n", "blacklist nouveau\n"])
    assert not acc.nouveau_blacklisted(["#blacklist nouveau\n", "blacklist nouveau_fb\n"])
    assert acc.nouveau_blacklisted([], "ro quiet modprobe.blacklist=nouveau")


def test_ascend_version_info():
    text = "Version=24.1.rc3\nInnerversion=V100R001C19\ncompatible_version_fw=[7.0.0,7.7.99]\n"
    assert acc.parse_ascend_version_info(text) == {"version": "24.1.rc3", "firmware_range": ["7.0.0", "7.7.99"]}
    assert acc.parse_ascend_version_info(None) == {"version": None, "firmware_range": None}


def test_slurm_core_index_linear_smt():
    cpus = replay.topology_cpus(2, 4, 2)  # cpu 0-3 s0, 4-7 s1, 8-11 s0 siblings, 12-15 s1 siblings
    index = acc.slurm_core_index(cpus)
    assert [index[c] for c in range(16)] == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]
    assert acc.cores_of([0, 1, 2, 3, 8, 9, 10, 11], index) == "0-3"


def test_slurm_core_index_round_robin_numbering():
    # Firmware that numbers CPUs round-robin across sockets: even ids socket 0, odd ids socket 1.
    cpus = {cpu: (cpu % 2, cpu // 2) for cpu in range(8)}
    index = acc.slurm_core_index(cpus)
    assert acc.cores_of([0, 2, 4, 6], index) == "0-3"
    assert acc.cores_of([1, 3, 5, 7], index) == "4-7"


def test_cores_unknown_without_topology():
    assert acc.cores_of([0, 1], {}) is None
    assert acc.cores_of([0, 99], {0: 0}) is None


def test_parse_nvidia_smi_skips_noise():
    rows = acc.parse_nvidia_smi("0, 00000000:18:00.0, NVIDIA H200, 570.133.20\nNo devices were found\n")
    assert rows == [{"index": 0, "pci_bus_id": "0000:18:00.0", "name": "NVIDIA H200", "driver_version": "570.133.20"}]


def test_parse_npu_smi_fixture():
    parsed = acc.parse_npu_smi_info(replay.load("ascend_910b")["commands"]["npu-smi"])
    assert parsed["version"] == "24.1.rc1.b030"
    assert [(n["npu_id"], n["pci_bus_id"]) for n in parsed["npus"]] == [
        (0, "0000:c1:00.0"),
        (1, "0000:c2:00.0"),
        (2, "0000:81:00.0"),
        (3, "0000:82:00.0"),
        (4, "0000:01:00.0"),
        (5, "0000:02:00.0"),
        (6, "0000:41:00.0"),
        (7, "0000:42:00.0"),
    ]
    assert {n["name"] for n in parsed["npus"]} == {"910B3"}
    assert {n["health"] for n in parsed["npus"]} == {"OK"}


def test_h200_host(tmp_path):
    facts = gathered(tmp_path, "h200_hgx")
    assert facts["kernel"] == {
        "release": "6.12.57+deb13-amd64",
        "compiler": "gcc",
        "compiler_version": "14.2.0",
        "headers": True,
        "headers_path": "/lib/modules/6.12.57+deb13-amd64/build",
    }
    assert facts["gcc_version"] == "14.2.0"
    assert (facts["secure_boot"], facts["secure_boot_source"]) == ("disabled", "mokutil")
    assert facts["nouveau"] == {"loaded": False, "blacklisted": True}
    assert facts["nvidia_driver"] == {"version": "570.133.20", "flavour": "open", "loaded": True}
    gpus = facts["gpus"]
    assert [g["pci_bus_id"][5:7] for g in gpus] == ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
    assert [g["device_file"] for g in gpus] == ["/dev/nvidia%d" % i for i in range(8)]
    assert {g["minor_source"] for g in gpus} == {"driver"}
    assert [g["numa_node"] for g in gpus] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [g["cores"] for g in gpus] == ["0-55"] * 4 + ["56-111"] * 4
    assert gpus[4]["local_cpulist"] == "56-111,168-223"
    assert {(g["model"], g["gres_type"], g["arch"], g["compute_capability"]) for g in gpus} == {("H200", "h200", "hopper", "9.0")}
    assert [g["smi_index"] for g in gpus] == list(range(8))
    assert all(g["device_present"] for g in gpus)
    assert [s["pci_bus_id"] for s in facts["nvswitches"]] == ["0000:0%d:00.0" % b for b in (5, 6, 7, 8)]
    assert facts["npus"] == []
    assert facts["warnings"] == []
    assert facts["nvidia_smi"]["present"]
    assert len(facts["nvidia_smi"]["gpus"]) == 8


def test_h200_without_driver_falls_back_to_pci_order(tmp_path):
    replay.materialize("h200_hgx", str(tmp_path))
    for gpu_dir in (tmp_path / "proc/driver/nvidia/gpus").iterdir():
        (gpu_dir / "information").unlink()
    facts = acc.gather(str(tmp_path), {})
    assert [g["device_file"] for g in facts["gpus"]] == ["/dev/nvidia%d" % i for i in range(8)]
    assert {g["minor_source"] for g in facts["gpus"]} == {"pci_order"}
    assert facts["nvidia_smi"] == {"present": False, "gpus": []}


def test_efivar_secure_boot_when_no_mokutil(tmp_path):
    replay.materialize("h200_hgx", str(tmp_path))
    facts = acc.gather(str(tmp_path), {})
    assert (facts["secure_boot"], facts["secure_boot_source"]) == ("disabled", "efivars")


def test_910b_host(tmp_path):
    facts = gathered(tmp_path, "ascend_910b")
    npus = facts["npus"]
    assert [n["device_file"] for n in npus] == ["/dev/davinci%d" % i for i in range(8)]
    assert [n["pci_bus_id"][5:7] for n in npus] == ["c1", "c2", "81", "82", "01", "02", "41", "42"]
    assert [n["cores"] for n in npus] == ["144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71"]
    assert [n["numa_node"] for n in npus] == [6, 6, 4, 4, 0, 0, 2, 2]
    assert {(n["gres_type"], n["index_source"], n["health"]) for n in npus} == {("910b", "npu-smi", "OK")}
    assert facts["gpus"] == []
    assert facts["nvswitches"] == []
    assert facts["ascend_driver"] == {"version": "24.1.rc1.b030", "firmware_range": ["7.0.0", "7.3.99"]}
    assert facts["kernel"]["compiler_version"] == "10.3.1"
    assert facts["secure_boot"] is None


def test_910b_without_npu_smi_uses_pci_order(tmp_path):
    replay.materialize("ascend_910b", str(tmp_path))
    npus = acc.gather(str(tmp_path), {})["npus"]
    assert [n["pci_bus_id"][5:7] for n in npus] == ["01", "02", "41", "42", "81", "82", "c1", "c2"]
    assert {n["index_source"] for n in npus} == {"pci_order"}


def test_cpu_only_host(tmp_path):
    facts = gathered(tmp_path, "cpu_only")
    assert (facts["gpus"], facts["nvswitches"], facts["npus"]) == ([], [], [])
    assert facts["kernel"]["headers"] is False
    assert facts["secure_boot"] == "unsupported"
    assert facts["nvidia_driver"] == {"version": None, "flavour": None, "loaded": False}


def test_empty_root(tmp_path):
    facts = acc.gather(str(tmp_path), None)
    assert facts["gpus"] == []
    assert facts["kernel"]["release"] is None
    assert facts["secure_boot"] == "unsupported"


def test_unknown_devices_and_missing_topology_warn(tmp_path):
    base = tmp_path / "sys/bus/pci/devices/0000:65:00.0"
    base.mkdir(parents=True)
    for name, value in (("vendor", "0x10de"), ("device", "0x9999"), ("class", "0x030200"), ("numa_node", "0"), ("local_cpulist", "0-3")):
        (base / name).write_text(value + "\n")
    facts = acc.gather(str(tmp_path), {"nvidia-smi": "0, 00000000:B3:00.0, NVIDIA X, 1.0\n"})
    assert facts["gpus"][0]["model"] == "unknown 10de:9999"
    assert facts["gpus"][0]["cores"] is None
    assert len(facts["warnings"]) == 3


def test_pci_tables_are_well_formed():
    for table in (acc.NVIDIA_GPUS, acc.NVSWITCHES, acc.ASCEND_NPUS):
        for device_id, row in table.items():
            assert device_id.startswith("0x")
            assert len(device_id) == 6
            assert row["source"]
            assert row["model"]
    for row in list(acc.NVIDIA_GPUS.values()) + list(acc.ASCEND_NPUS.values()):
        assert row["gres_type"] == row["gres_type"].lower()
        assert " " not in row["gres_type"]
    assert {row["arch"] for row in acc.NVIDIA_GPUS.values()} <= {"blackwell", "hopper", "ada", "ampere", "turing", "volta", "pascal"}


@pytest.mark.parametrize("device_id", sorted(acc.NVIDIA_GPUS))
def test_every_gpu_row_is_found_on_pci(tmp_path, device_id):
    base = tmp_path / "sys/bus/pci/devices/0000:18:00.0"
    base.mkdir(parents=True)
    for name, value in (("vendor", "0x10de"), ("device", device_id), ("class", "0x030200")):
        (base / name).write_text(value + "\n")
    gpu = acc.gather(str(tmp_path))["gpus"][0]
    assert gpu["gres_type"] == acc.NVIDIA_GPUS[device_id]["gres_type"]


@pytest.mark.parametrize(
    ("table", "vendor", "klass", "key"), [(acc.NVSWITCHES, "0x10de", "0x068000", "nvswitches"), (acc.ASCEND_NPUS, "0x19e5", "0x120000", "npus")]
)
def test_every_switch_and_npu_row_is_found_on_pci(tmp_path, table, vendor, klass, key):
    for number, device_id in enumerate(sorted(table)):
        base = tmp_path / ("sys/bus/pci/devices/0000:%02x:00.0" % (number + 1))
        base.mkdir(parents=True)
        for name, value in (("vendor", vendor), ("device", device_id), ("class", klass)):
            (base / name).write_text(value + "\n")
    found = acc.gather(str(tmp_path))[key]
    assert sorted(d["model"] for d in found) == sorted(row["model"] for row in table.values())
