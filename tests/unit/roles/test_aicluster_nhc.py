"""Unit tests for roles/healthcheck/files/aicluster_nhc.py, the node health check."""

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from repo_scripts import load

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "roles" / "healthcheck" / "files" / "aicluster_nhc.py"


nhc = load("roles/healthcheck/files/aicluster_nhc.py")

XID_ISO = "2026-12-03T07:55:41,123456+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."
XID_MONO = "[ 1234.5678] NVRM: Xid (PCI:0000:86:00): 48, pid=2345, name=python3, An uncorrectable double bit error (DBE) has been detected."
KERNEL_NOISE = "2026-12-03T07:55:40,000001+00:00 nvidia-nvlink: Nvlink Core is being initialized"

NODE_LINE = (
    "NodeName=midsize-node1 Arch=x86_64 CoresPerSocket=2 CPUAlloc=0 CPUEfctv=4 CPUTot=4 CPULoad=0.01 AvailableFeatures=gpu "
    "ActiveFeatures=gpu Gres=gpu:h100:8(S:0-1) NodeAddr=midsize-node1 NodeHostName=midsize-node1 Version=23.11.4 "
    "OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01) RealMemory=23081 AllocMem=0 FreeMem=21000 "
    "Sockets=2 Boards=1 State={state} ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu "
    "BootTime=2026-12-01T10:00:00 SlurmdStartTime=2026-12-01T10:01:00 LastBusyTime=2026-12-03T07:00:00 ResumeAfterTime=None "
    "CfgTRES=cpu=4,mem=23081M,billing=4,gres/gpu=8 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 "
    "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s"
)


def node_line(state, reason=None, stamp="[root@2026-12-03T08:10:01]"):
    line = NODE_LINE.format(state=state)
    if reason is not None:
        line += f" Reason={reason} {stamp}" if stamp else f" Reason={reason}"
    return line


def write_config(tmp_path, checks, **top):
    config = {"node": "midsize-node1", "timeout": 5, "state_dir": str(tmp_path / "state"), "checks": checks, **top}
    path = tmp_path / "nhc.json"
    path.write_text(json.dumps(config))
    return path


def config_for(tmp_path, checks, **top):
    return nhc.load_config(write_config(tmp_path, checks, **top))


def run_one(tmp_path, name, spec, **top):
    return nhc.run_checks(config_for(tmp_path, {name: spec}, **top))[name]


def _alive(pid):
    """True while pid exists and is not a zombie (a container's init may never reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


# ---------------------------------------------------------------- checks


def test_gres_devices_ok_with_character_devices(tmp_path):
    files = ["/dev/null"]
    if os.geteuid() == 0:
        os.mknod(tmp_path / "nvidia0", 0o600 | stat.S_IFCHR, os.makedev(195, 0))
        files.append(str(tmp_path / "nvidia0"))
    assert run_one(tmp_path, "gres_devices", {"files": files}).ok


def test_gres_devices_names_missing_and_wrong_files(tmp_path):
    (tmp_path / "nvidia1").write_text("")
    files = ["/dev/null", str(tmp_path / "nvidia1"), str(tmp_path / "nvidia2"), str(tmp_path / "nvidia3")]
    result = run_one(tmp_path, "gres_devices", {"files": files})
    assert not result.ok
    assert result.detail == f"{tmp_path}/nvidia2, {tmp_path}/nvidia3 missing; {tmp_path}/nvidia1 not a character device"


def test_gres_devices_compresses_many_missing(tmp_path):
    result = run_one(tmp_path, "gres_devices", {"files": [f"/dev/nhc-test-nvidia{i}" for i in range(8)]})
    assert result.detail == "/dev/nhc-test-nvidia0, /dev/nhc-test-nvidia1, /dev/nhc-test-nvidia2 (+5 more) missing"


SMI_L = "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08x}-aaaa-bbbb-cccc-dddddddddddd)\n" for i in range(8))


def test_smi_counts_answering_gpus(tmp_path):
    out = tmp_path / "smi.txt"
    out.write_text(SMI_L)
    assert run_one(tmp_path, "smi", {"command": ["cat", str(out)], "expect_count": 8}).ok
    out.write_text("".join(SMI_L.splitlines(keepends=True)[:2]))
    result = run_one(tmp_path, "smi", {"command": ["cat", str(out)], "expect_count": 8})
    assert (result.ok, result.detail) == (False, "2 of 8 GPUs answer")


def test_smi_with_npu_regex(tmp_path):
    out = tmp_path / "npu.txt"
    out.write_text("Total Count : 2\n\nNPU ID : 0\nChip Count : 1\n\nNPU ID : 1\nChip Count : 1\n")
    assert run_one(tmp_path, "smi", {"command": ["cat", str(out)], "expect_count": 2, "count_regex": "^NPU ID"}).ok
    assert run_one(tmp_path, "smi", {"command": ["cat", str(out)], "expect_count": 8, "count_regex": "^NPU ID"}).detail == "2 of 8 GPUs answer"


DPKG = "nvidia-kernel-dkms|550.163.01-2|hi \nnvidia-smi|550.163.01-2|hi \nnvidia-fabricmanager-550|1:550.90.07-1|ii \nold|535.1-1|rc \n"


def test_driver_matches_module_and_packages(tmp_path):
    module = tmp_path / "version"
    module.write_text("550.163.01\n")
    out = tmp_path / "dpkg.txt"
    out.write_text(DPKG.replace("550.90.07", "550.163.01"))
    spec = {"version": "550.163.01", "packages": ["nvidia-kernel-dkms"], "module": str(module), "command": ["sh", "-c", f"cat {out}; exit 1"]}
    assert run_one(tmp_path, "driver", spec).ok


def test_driver_names_the_module_and_every_package_off_version(tmp_path):
    module = tmp_path / "version"
    module.write_text("535.274.02\n")
    out = tmp_path / "dpkg.txt"
    out.write_text(DPKG)
    spec = {"version": "550.163.01", "packages": ["nvidia-kernel-dkms"], "module": str(module), "command": ["cat", str(out)]}
    result = run_one(tmp_path, "driver", spec)
    assert (result.ok, result.detail) == (False, "module 535.274.02, nvidia-fabricmanager-550 550.90.07 not 550.163.01")


def test_driver_expects_nvidia_peermem_where_gpus_and_hcas_are(tmp_path):
    sysfs = tmp_path / "sys"
    (sysfs / "module" / "nvidia").mkdir(parents=True)
    (sysfs / "module" / "nvidia" / "version").write_text("550.163.01\n")
    spec = {"version": "550.163.01", "module": str(sysfs / "module" / "nvidia" / "version"), "gdr": True, "sysfs": str(sysfs)}
    assert run_one(tmp_path, "driver", spec).ok  # no InfiniBand HCA
    (sysfs / "class" / "infiniband" / "mlx5_0").mkdir(parents=True)
    result = run_one(tmp_path, "driver", spec)
    assert (result.ok, result.detail) == (False, "nvidia_peermem not loaded (no GPUDirect RDMA)")
    assert run_one(tmp_path, "driver", dict(spec, gdr=False)).ok
    (sysfs / "module" / "nvidia_peermem").mkdir()
    assert run_one(tmp_path, "driver", spec).ok


def test_driver_without_a_loaded_module_checks_the_packages_only(tmp_path):
    spec = {"version": "550.163.01", "module": str(tmp_path / "absent")}
    assert run_one(tmp_path, "driver", spec).ok


def test_npu_links_read_every_device(tmp_path):
    tool = tmp_path / "hccn_tool"
    tool.write_text('#!/bin/sh\n[ "$2" = 3 ] && echo "link status: DOWN" && exit 0\n[ "$2" = 5 ] && exit 0\necho "link status: UP"\n')
    tool.chmod(0o755)
    assert run_one(tmp_path, "npu_links", {"command": [str(tool)], "devices": [0, 1, 2]}).ok
    result = run_one(tmp_path, "npu_links", {"command": [str(tool)], "devices": list(range(8))})
    assert (result.ok, result.detail) == (False, "NPU 3 DOWN, NPU 5 unread")


def test_smi_fails_on_exit_code_with_first_error_line(tmp_path):
    command = ["sh", "-c", "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2; echo more >&2; exit 9"]
    result = run_one(tmp_path, "smi", {"command": command})
    assert result.detail == "exit 9: NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."


def test_smi_missing_binary(tmp_path):
    result = run_one(tmp_path, "smi", {"command": [str(tmp_path / "nvidia-smi"), "-L"]})
    assert (result.ok, result.detail) == (False, f"{tmp_path}/nvidia-smi: No such file or directory")


def make_port(root, hca, port, state="4: ACTIVE", rate="400 Gb/sec (4X NDR)"):
    port_dir = root / hca / "ports" / str(port)
    port_dir.mkdir(parents=True)
    (port_dir / "state").write_text(state + "\n")
    (port_dir / "rate").write_text(rate + "\n")


def test_ib_ports_ok(tmp_path):
    sysfs = tmp_path / "infiniband"
    make_port(sysfs, "mlx5_0", 1)
    make_port(sysfs, "mlx5_1", 1)
    assert run_one(tmp_path, "ib_ports", {"sysfs": str(sysfs), "rate_gbps": 400}).ok
    assert run_one(tmp_path, "ib_ports", {"sysfs": str(sysfs), "hcas": ["mlx5_1"], "rate_gbps": 400}).ok


def test_ib_ports_failures(tmp_path):
    sysfs = tmp_path / "infiniband"
    make_port(sysfs, "mlx5_0", 1, state="1: DOWN")
    make_port(sysfs, "mlx5_1", 1, rate="200 Gb/sec (4X HDR)")
    make_port(sysfs, "mlx5_2", 1)
    result = run_one(tmp_path, "ib_ports", {"sysfs": str(sysfs), "rate_gbps": 400})
    assert result.detail == "mlx5_0/1 DOWN, mlx5_1/1 200 Gb/sec < 400"
    assert run_one(tmp_path, "ib_ports", {"sysfs": str(sysfs)}).detail == "mlx5_0/1 DOWN"
    assert run_one(tmp_path, "ib_ports", {"sysfs": str(sysfs), "hcas": ["mlx5_2", "mlx5_9"]}).detail == "mlx5_9 missing"


def test_ib_ports_without_hcas(tmp_path):
    assert run_one(tmp_path, "ib_ports", {"sysfs": str(tmp_path / "absent")}).ok
    result = run_one(tmp_path, "ib_ports", {"sysfs": str(tmp_path / "absent"), "hcas": ["mlx5_0"]})
    assert result.detail == "mlx5_0 missing"


def test_disk_free(tmp_path):
    assert run_one(tmp_path, "disk_free", {"paths": {str(tmp_path): 0}}).ok
    result = run_one(tmp_path, "disk_free", {"paths": {str(tmp_path): 2**40, str(tmp_path / "gone"): 0}})
    assert not result.ok
    free, rest = result.detail.split(" MiB free < ")
    assert free.startswith(f"{tmp_path} ")
    assert int(free.rsplit(" ", 1)[1]) >= 0
    assert rest == f"{2**40}, {tmp_path}/gone missing"


def test_memory(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       20480000 kB\nMemFree:        10000000 kB\nMemAvailable:   15000000 kB\n")
    assert run_one(tmp_path, "memory", {"meminfo": str(meminfo), "real_memory_mb": 20000}).ok
    result = run_one(tmp_path, "memory", {"meminfo": str(meminfo), "real_memory_mb": 23081})
    assert result.detail == "MemTotal 20000 MiB < RealMemory 23081"
    assert run_one(tmp_path, "memory", {"meminfo": str(meminfo), "real_memory_mb": 2000001}).detail == "MemTotal 20000 MiB < RealMemory 2000001"


def test_munge(tmp_path):
    assert run_one(tmp_path, "munge", {"command": ["true"]}).ok
    result = run_one(tmp_path, "munge", {"command": ["sh", "-c", "echo 'unmunge: Error: Invalid credential' >&2; exit 1"]})
    assert result.detail == "exit 1: unmunge: Error: Invalid credential"


def test_clock(tmp_path):
    assert run_one(tmp_path, "clock", {"command": ["echo", "yes"]}).ok
    assert run_one(tmp_path, "clock", {"command": ["echo", "no"]}).detail == "got 'no', expected 'yes'"
    assert run_one(tmp_path, "clock", {"command": ["echo", "synchronized"], "expect": "synchronized"}).ok


# ---------------------------------------------------------------- xid


def test_parse_xids_both_formats():
    xids = nhc.parse_xids("\n".join([KERNEL_NOISE, XID_ISO, "random line mentioning Xid 13", XID_MONO]))
    assert [(code, device) for _digest, code, device in xids] == [(79, "PCI:0000:3b:00"), (48, "PCI:0000:86:00")]
    assert len({digest for digest, _code, _device in xids}) == 2


def _xid_run(tmp_path, log, spec=None):
    return run_one(tmp_path, "xid", {"command": ["cat", str(log)], **(spec or {})})


def test_xid_state_reports_only_new_lines(tmp_path):
    log = tmp_path / "dmesg"
    log.write_text(f"{KERNEL_NOISE}\n{XID_ISO}\n")
    config = config_for(tmp_path, {})

    first = _xid_run(tmp_path, log)  # no state yet: an XID since boot counts as new
    assert (first.ok, first.detail, first.sticky) == (False, "Xid 79 on PCI:0000:3b:00", True)
    assert _xid_run(tmp_path, log).detail == first.detail  # nothing saved until acted on

    nhc.save_xid_state(config, {"xid": first})
    assert _xid_run(tmp_path, log).ok

    log.write_text(f"{KERNEL_NOISE}\n{XID_ISO}\n{XID_MONO}\n")
    third = _xid_run(tmp_path, log)
    assert (third.ok, third.detail, third.sticky) == (False, "Xid 48 on PCI:0000:86:00", True)
    nhc.save_xid_state(config, {"xid": third})

    # The ring buffer rotated: the old line is gone, nothing is new.
    log.write_text(f"{XID_MONO}\n")
    rotated = _xid_run(tmp_path, log)
    assert rotated.ok
    assert len(rotated.state) == 1


def test_xid_same_event_later_is_new(tmp_path):
    log = tmp_path / "dmesg"
    log.write_text(XID_ISO + "\n")
    nhc.save_xid_state(config_for(tmp_path, {}), {"xid": _xid_run(tmp_path, log)})
    log.write_text(XID_ISO + "\n" + XID_ISO.replace("07:55:41", "09:12:03") + "\n")
    assert _xid_run(tmp_path, log).detail == "Xid 79 on PCI:0000:3b:00"


def test_xid_ignore_and_corrupt_state(tmp_path):
    log = tmp_path / "dmesg"
    log.write_text(XID_MONO + "\n")
    assert _xid_run(tmp_path, log, {"ignore": [48]}).ok
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "xid.json").write_text("{not json")
    assert _xid_run(tmp_path, log).detail == "Xid 48 on PCI:0000:86:00"


def test_xid_command_failure_is_not_sticky(tmp_path):
    result = run_one(tmp_path, "xid", {"command": ["sh", "-c", "echo 'dmesg: read kernel buffer failed: Operation not permitted' >&2; exit 1"]})
    assert (result.ok, result.sticky) == (False, False)
    assert result.detail == "exit 1: dmesg: read kernel buffer failed: Operation not permitted"
    assert result.state is None


# ---------------------------------------------------------------- timeouts


def test_hanging_command_times_out(tmp_path):
    start = time.monotonic()
    result = run_one(tmp_path, "smi", {"command": ["sleep", "60"], "timeout": 1})
    assert (result.ok, result.detail) == (False, "timed out after 1s")
    assert time.monotonic() - start < 5


def test_command_ignoring_sigterm_is_killed(tmp_path):
    pidfile = tmp_path / "pid"
    command = ["sh", "-c", f"trap '' TERM; echo $$ > {pidfile}; exec sleep 60"]
    start = time.monotonic()
    result = run_one(tmp_path, "munge", {"command": command}, timeout=1)
    assert result.detail == "timed out after 1s"
    assert time.monotonic() - start < 5
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 2
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_check_blocking_inside_python_times_out(tmp_path, monkeypatch):
    def blocked(spec, config):  # like os.statvfs on a hung NFS mount
        time.sleep(60)

    monkeypatch.setitem(nhc.CHECKS, "disk_free", blocked)
    start = time.monotonic()
    result = run_one(tmp_path, "disk_free", {"paths": {"/": 0}, "timeout": 0.5})
    assert result.detail == "timed out after 0.5s"
    assert time.monotonic() - start < 3


def test_checks_run_concurrently(tmp_path):
    hang = {"command": ["sleep", "60"]}
    config = config_for(tmp_path, {"smi": hang, "munge": hang, "clock": hang, "memory": {"real_memory_mb": 0}}, timeout=1)
    start = time.monotonic()
    results = nhc.run_checks(config)
    assert time.monotonic() - start < 2.5
    assert list(results) == ["smi", "memory", "munge", "clock"]
    assert [r.detail for r in results.values()] == ["timed out after 1s", "", "timed out after 1s", "timed out after 1s"]
    assert results["memory"].seconds < 1


def test_crashing_check_fails_cleanly(tmp_path, monkeypatch):
    def crash(spec, config):
        raise RuntimeError("boom")

    monkeypatch.setitem(nhc.CHECKS, "munge", crash)
    assert run_one(tmp_path, "munge", {}).detail == "RuntimeError: boom"


# ---------------------------------------------------------------- scontrol parsing and decisions


@pytest.mark.parametrize(
    ("line", "state", "reason"),
    [
        (node_line("IDLE"), "IDLE", ""),
        (node_line("IDLE+DRAIN", "nhc: gres_devices: /dev/nvidia2 missing"), "IDLE+DRAIN", "nhc: gres_devices: /dev/nvidia2 missing"),
        (node_line("MIXED+DRAIN", "swapping HCA [ticket 42]", "[alice@2026-12-03T08:10:01]"), "MIXED+DRAIN", "swapping HCA [ticket 42]"),
        (node_line("DOWN+DRAIN+NOT_RESPONDING", "Not responding", "[slurm@2026-12-03T09:00:00]"), "DOWN+DRAIN+NOT_RESPONDING", "Not responding"),
        (node_line("IDLE+DRAIN", "no stamp here", stamp=""), "IDLE+DRAIN", "no stamp here"),
        (node_line("IDLE+DRAIN", "two  spaces kept"), "IDLE+DRAIN", "two  spaces kept"),
        (node_line("IDLE+DRAIN", "nhc! xid: Xid 79 on PCI:0000:3b:00") + " Comment=rack 4", "IDLE+DRAIN", "nhc! xid: Xid 79 on PCI:0000:3b:00"),
        # without -o the reason is on a line of its own
        (node_line("IDLE+DRAIN").replace(" Sockets=", "\n   Sockets=") + "\n   Reason=bad gpu [root@2026-12-03T08:10:01]\n", "IDLE+DRAIN", "bad gpu"),
    ],
)
def test_parse_node(line, state, reason):
    assert nhc.parse_node(line) == (state, reason)


def test_parse_node_without_state():
    with pytest.raises(nhc.SlurmError, match="no State="):
        nhc.parse_node("Node midsize-node9 not found\n")


@pytest.mark.parametrize(
    ("state", "drained"),
    [("IDLE", False), ("MIXED", False), ("DOWN+NOT_RESPONDING", False), ("IDLE+DRAIN", True), ("MIXED+DRAIN", True), ("DOWN+DRAIN", True), ("DRAINED", True)],
)
def test_is_drained(state, drained):
    assert nhc.is_drained(state) is drained


def test_build_reason():
    R = nhc.Result
    assert nhc.build_reason({"smi": R(True)}) is None
    assert nhc.build_reason({"gres_devices": R(False, "/dev/nvidia2 missing"), "smi": R(True)}) == "nhc: gres_devices: /dev/nvidia2 missing"
    reason = nhc.build_reason(
        {"gres_devices": R(False, "/dev/nvidia2 missing"), "xid": R(False, "Xid 79 on PCI:0000:3b:00", sticky=True), "clock": R(False, "x")}
    )
    assert reason == "nhc! xid: Xid 79 on PCI:0000:3b:00; +2 more"
    long = nhc.build_reason({"smi": R(False, "x" * 300), "clock": R(False, "y")})
    assert len(long) == 120
    assert long.startswith("nhc: smi: xxx")
    assert long.endswith("...; +1 more")


FAKE_SCONTROL = """#!/bin/sh
dir=$(dirname "$0")
for arg in "$@"; do printf '%s\\t' "$arg"; done >> "$dir/scontrol.log"
printf '\\n' >> "$dir/scontrol.log"
if [ -e "$dir/fail" ]; then echo "slurm_load_node error: Unable to contact slurm controller (connect failure)" >&2; exit 1; fi
if [ "$2" = "show" ]; then cat "$dir/node.txt"; fi
"""


@pytest.fixture
def slurm(tmp_path):
    """A fake scontrol in tmp_path/bin: set .node(state, reason), read .calls()."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "scontrol"
    script.write_text(FAKE_SCONTROL)
    script.chmod(0o755)

    class Slurm:
        path = str(script)

        @staticmethod
        def node(state, reason=None):
            (bin_dir / "node.txt").write_text(node_line(state, reason) + "\n")

        @staticmethod
        def calls():
            log = bin_dir / "scontrol.log"
            return [line.split("\t")[:-1] for line in log.read_text().splitlines()] if log.exists() else []

        @staticmethod
        def updates():
            return [call for call in Slurm.calls() if call[0] == "update"]

    return Slurm


def health(tmp_path, slurm, checks, mode="health", **top):
    path = write_config(tmp_path, checks, scontrol=slurm.path, **top)
    return nhc.main(["--config", str(path), "--mode", mode])


MISSING = {"gres_devices": {"files": ["/dev/nhc-test-nvidia2"]}}
PASSING = {"gres_devices": {"files": ["/dev/null"]}}


def test_health_drains_healthy_node(tmp_path, slurm, capsys):
    slurm.node("IDLE")
    assert health(tmp_path, slurm, MISSING) == 0
    assert slurm.calls() == [
        ["-o", "show", "node", "midsize-node1"],
        ["update", "NodeName=midsize-node1", "State=DRAIN", "Reason=nhc: gres_devices: /dev/nhc-test-nvidia2 missing"],
    ]
    assert "FAIL gres_devices: /dev/nhc-test-nvidia2 missing\n" in capsys.readouterr().out


def test_health_updates_own_reason(tmp_path, slurm):
    slurm.node("MIXED+DRAIN", "nhc: smi: 7 of 8 GPUs answer")
    assert health(tmp_path, slurm, MISSING) == 0
    assert slurm.updates() == [["update", "NodeName=midsize-node1", "State=DRAIN", "Reason=nhc: gres_devices: /dev/nhc-test-nvidia2 missing"]]


def test_health_same_reason_is_left_alone(tmp_path, slurm):
    slurm.node("IDLE+DRAIN", "nhc: gres_devices: /dev/nhc-test-nvidia2 missing")
    assert health(tmp_path, slurm, MISSING) == 0
    assert slurm.updates() == []


def test_health_leaves_operator_drain_alone(tmp_path, slurm):
    slurm.node("IDLE+DRAIN", "swapping HCA [ticket 42]")
    assert health(tmp_path, slurm, MISSING) == 0
    assert health(tmp_path, slurm, PASSING) == 0
    assert slurm.updates() == []


def test_health_resumes_own_drain(tmp_path, slurm):
    slurm.node("IDLE+DRAIN", "nhc: gres_devices: /dev/nvidia2 missing")
    assert health(tmp_path, slurm, PASSING) == 0
    assert slurm.updates() == [["update", "NodeName=midsize-node1", "State=RESUME"]]


def test_health_healthy_node_untouched(tmp_path, slurm):
    slurm.node("ALLOCATED")
    assert health(tmp_path, slurm, PASSING) == 0
    assert slurm.calls() == [["-o", "show", "node", "midsize-node1"]]


def test_health_sticky_drain_never_resumed_or_softened(tmp_path, slurm):
    slurm.node("IDLE+DRAIN", "nhc! xid: Xid 79 on PCI:0000:3b:00")
    assert health(tmp_path, slurm, PASSING) == 0
    assert health(tmp_path, slurm, MISSING) == 0
    assert slurm.updates() == []


def test_health_xid_drains_sticky_and_remembers(tmp_path, slurm):
    log = tmp_path / "dmesg"
    log.write_text(f"{KERNEL_NOISE}\n{XID_ISO}\n")
    checks = {**MISSING, "xid": {"command": ["cat", str(log)]}}
    slurm.node("IDLE+DRAIN", "nhc: gres_devices: /dev/nhc-test-nvidia2 missing")
    assert health(tmp_path, slurm, checks) == 0
    assert slurm.updates() == [["update", "NodeName=midsize-node1", "State=DRAIN", "Reason=nhc! xid: Xid 79 on PCI:0000:3b:00; +1 more"]]

    # Slurm now shows the sticky reason; the XID is remembered, the node stays drained.
    slurm.node("IDLE+DRAIN", "nhc! xid: Xid 79 on PCI:0000:3b:00; +1 more")
    assert health(tmp_path, slurm, {"xid": checks["xid"]}) == 0
    assert len(slurm.updates()) == 1

    # A new XID replaces one sticky reason with another.
    log.write_text(f"{XID_ISO}\n{XID_MONO}\n")
    assert health(tmp_path, slurm, {"xid": checks["xid"]}) == 0
    assert slurm.updates()[-1] == ["update", "NodeName=midsize-node1", "State=DRAIN", "Reason=nhc! xid: Xid 48 on PCI:0000:86:00"]


def test_health_xid_not_forgotten_under_operator_drain(tmp_path, slurm):
    log = tmp_path / "dmesg"
    log.write_text(XID_ISO + "\n")
    checks = {"xid": {"command": ["cat", str(log)]}}
    slurm.node("IDLE+DRAIN", "swapping HCA")
    assert health(tmp_path, slurm, checks) == 0
    assert slurm.updates() == []
    slurm.node("IDLE")  # the operator resumed: the XID is still new and drains now
    assert health(tmp_path, slurm, checks) == 0
    assert slurm.updates() == [["update", "NodeName=midsize-node1", "State=DRAIN", "Reason=nhc! xid: Xid 79 on PCI:0000:3b:00"]]


def test_health_scontrol_failure(tmp_path, slurm, capsys):
    log = tmp_path / "dmesg"
    log.write_text(XID_ISO + "\n")
    slurm.node("IDLE")
    (tmp_path / "bin" / "fail").write_text("")
    assert health(tmp_path, slurm, {"xid": {"command": ["cat", str(log)]}}) == 1
    assert "Unable to contact slurm controller" in capsys.readouterr().err
    assert not (tmp_path / "state" / "xid.json").exists()  # not acted on, so not remembered


def test_health_scontrol_timeout(tmp_path, slurm, capsys):
    hang = tmp_path / "bin" / "scontrol"
    hang.write_text("#!/bin/sh\ntrap '' TERM\nsleep 60\n")
    start = time.monotonic()
    assert health(tmp_path, slurm, PASSING, timeout=1) == 1
    assert time.monotonic() - start < 5
    assert "timed out after 1s" in capsys.readouterr().err


# ---------------------------------------------------------------- prolog and report


def test_prolog(tmp_path, slurm, capsys):
    slurm.node("IDLE")
    assert health(tmp_path, slurm, PASSING, mode="prolog") == 0
    assert health(tmp_path, slurm, MISSING, mode="prolog") == 1
    assert capsys.readouterr().err == "nhc: gres_devices: /dev/nhc-test-nvidia2 missing\n"
    assert slurm.calls() == []


def test_prolog_remembers_xid(tmp_path, slurm):
    log = tmp_path / "dmesg"
    log.write_text(XID_ISO + "\n")
    checks = {"xid": {"command": ["cat", str(log)]}}
    assert health(tmp_path, slurm, checks, mode="prolog") == 1
    assert health(tmp_path, slurm, checks, mode="prolog") == 0


def test_report(tmp_path, slurm, capsys):
    log = tmp_path / "dmesg"
    log.write_text(XID_ISO + "\n")
    assert health(tmp_path, slurm, {**MISSING, "xid": {"command": ["cat", str(log)]}, "munge": {"command": ["true"]}}, mode="report") == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["FAIL gres_devices: /dev/nhc-test-nvidia2 missing", "FAIL xid: Xid 79 on PCI:0000:3b:00", "ok munge"]
    report = json.loads(lines[-1])
    assert report["node"] == "midsize-node1"
    assert report["checks"]["munge"]["ok"] is True
    assert report["checks"]["gres_devices"] == {"ok": False, "detail": "/dev/nhc-test-nvidia2 missing", "seconds": report["checks"]["gres_devices"]["seconds"]}
    assert 0 <= report["checks"]["xid"]["seconds"] < 5
    assert slurm.calls() == []
    assert health(tmp_path, slurm, {"xid": {"command": ["cat", str(log)]}}, mode="report") == 1  # report never saves XID state
    assert health(tmp_path, slurm, PASSING, mode="report") == 0


def test_script_runs_standalone(tmp_path):
    path = write_config(tmp_path, {"smi": {"command": ["sleep", "60"], "timeout": 1}, **PASSING})
    proc = subprocess.run([sys.executable, str(SCRIPT), "--config", str(path), "--mode", "report"], capture_output=True, text=True, timeout=20, check=False)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[:2] == ["ok gres_devices", "FAIL smi: timed out after 1s"]


# ---------------------------------------------------------------- config errors


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"checks": {"gpu_burn": {}}}, "checks.gpu_burn: unknown check"),
        ({"checks": {"smi": {"expect_count": "8"}}}, "checks.smi.expect_count: expected a non-negative integer, got '8'"),
        ({"checks": {"smi": {"command": "nvidia-smi -L"}}}, "checks.smi.command: expected a list of non-empty strings, got 'nvidia-smi -L'"),
        ({"checks": {"smi": {"count_regex": "(["}}}, "checks.smi.count_regex: invalid regular expression"),
        ({"checks": {"memory": {}}}, "checks.memory.real_memory_mb: required key missing"),
        ({"checks": {"memory": {"real_memory_mb": True}}}, "checks.memory.real_memory_mb: expected a non-negative number, got True"),
        ({"checks": {"disk_free": {"paths": {"/tmp": "1G"}}}}, "checks.disk_free.paths: expected an object of path: MiB"),
        ({"checks": {"munge": {"timeout": 0}}}, "checks.munge.timeout: expected a positive number, got 0"),
        ({"checks": {"clock": {"expected": "yes"}}}, "checks.clock.expected: unknown key"),
        ({"checks": {"xid": []}}, "checks.xid: expected a JSON object, got []"),
        ({"timeout": "10"}, "timeout: expected a positive number, got '10'"),
        ({"checks": [], "node": "n1"}, "checks: expected a JSON object, got []"),
        ({"nodes": "n1"}, "nodes: unknown key"),
    ],
)
def test_config_errors(tmp_path, capsys, config, message):
    path = tmp_path / "nhc.json"
    path.write_text(json.dumps(config))
    assert nhc.main(["--config", str(path)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_config_unreadable_or_invalid(tmp_path, capsys):
    assert nhc.main(["--config", str(tmp_path / "absent.json")]) == 2
    assert f"cannot read {tmp_path}/absent.json: No such file or directory" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"checks": {')
    assert nhc.main(["--config", str(tmp_path / "bad.json")]) == 2
    assert "bad.json: invalid JSON" in capsys.readouterr().err
    (tmp_path / "list.json").write_text("[]")
    assert nhc.main(["--config", str(tmp_path / "list.json")]) == 2
    assert "top level: expected a JSON object" in capsys.readouterr().err


def test_config_defaults(tmp_path):
    config = config_for(tmp_path, {"xid": {}, "smi": {"timeout": 3}}, timeout=7)
    assert list(config["checks"]) == ["smi", "xid"]
    assert config["checks"]["smi"] == {"command": ["nvidia-smi", "-L"], "expect_count": None, "count_regex": "^GPU [0-9]+:", "timeout": 3}
    assert config["checks"]["xid"]["timeout"] == 7
    assert config["scontrol"] == "scontrol"
