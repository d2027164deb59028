# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What accelerators a host has, and what its kernel and toolchain look like.

Everything is read from files under ``root`` (default ``/``), so a recorded
sysfs/proc tree replays exactly; command output (gcc, mokutil, nvidia-smi,
npu-smi) is passed in as text by the caller, None when the command is absent.
Nothing here raises on a missing file: an absent fact is None or empty.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import re

# ---------------------------------------------------------------------------
# PCI id tables (data). Each row: device id -> model, GRES type, architecture,
# compute capability, source.
# ---------------------------------------------------------------------------
_OGKM_560 = "github.com/NVIDIA/open-gpu-kernel-modules README.md (560.31.02), table 'Compatible GPUs'"
_OGKM_58X = "github.com/NVIDIA/open-gpu-kernel-modules README.md (R580-era), table 'Compatible GPUs'"
_PCI_IDS = "pci.ids database (Debian package pci.ids 0.0~2023.04.11-1, vendor 10de)"
_FM_GUIDE = "docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide ('The NVIDIA HGX H100 GPU Baseboard', lspci example)"
_ASCEND_DEPLOYER = "github.com/Ascend/ascend-deployer packages/resources/npu_info.py (2023 snapshot, commit 0fbb89f)"

NVIDIA_VENDOR = "0x10de"
HUAWEI_VENDOR = "0x19e5"


def _gpu(model, gres_type, arch, cc, source):
    return {"model": model, "gres_type": gres_type, "arch": arch, "compute_capability": cc, "source": source}


NVIDIA_GPUS = {
    "0x2901": _gpu("B200", "b200", "blackwell", "10.0", _OGKM_58X),
    "0x2909": _gpu("B200", "b200", "blackwell", "10.0", _OGKM_58X),
    "0x2941": _gpu("GB200", "gb200", "blackwell", "10.0", _OGKM_58X),
    "0x3182": _gpu("B300 SXM6 AC", "b300", "blackwell", "10.3", _OGKM_58X),
    "0x31c2": _gpu("GB300", "gb300", "blackwell", "10.3", _OGKM_58X),
    "0x2335": _gpu("H200", "h200", "hopper", "9.0", _OGKM_560),
    "0x2342": _gpu("GH200", "gh200", "hopper", "9.0", _OGKM_560),
    "0x2330": _gpu("H100 80GB HBM3", "h100", "hopper", "9.0", _OGKM_560),
    "0x2331": _gpu("H100 PCIe", "h100", "hopper", "9.0", _OGKM_560),
    "0x2339": _gpu("H100", "h100", "hopper", "9.0", _OGKM_560),
    "0x2321": _gpu("H100 NVL", "h100", "hopper", "9.0", _OGKM_560),
    "0x2324": _gpu("H800", "h800", "hopper", "9.0", _OGKM_560),
    "0x2329": _gpu("H20", "h20", "hopper", "9.0", _OGKM_560),
    "0x26b9": _gpu("L40S", "l40s", "ada", "8.9", _OGKM_560),
    "0x26b5": _gpu("L40", "l40", "ada", "8.9", _OGKM_560),
    "0x27b8": _gpu("L4", "l4", "ada", "8.9", _PCI_IDS),
    "0x20b0": _gpu("A100 SXM4 40GB", "a100", "ampere", "8.0", _PCI_IDS),
    "0x20b2": _gpu("A100 SXM4 80GB", "a100", "ampere", "8.0", _PCI_IDS),
    "0x20b5": _gpu("A100 PCIe 80GB", "a100", "ampere", "8.0", _PCI_IDS),
    "0x20f1": _gpu("A100 PCIe 40GB", "a100", "ampere", "8.0", _PCI_IDS),
    "0x20f3": _gpu("A800 SXM4 80GB", "a800", "ampere", "8.0", _PCI_IDS),
    "0x20b7": _gpu("A30", "a30", "ampere", "8.0", _PCI_IDS),
    "0x2236": _gpu("A10", "a10", "ampere", "8.6", _PCI_IDS),
    "0x1eb8": _gpu("T4", "t4", "turing", "7.5", _PCI_IDS),
    "0x1db1": _gpu("V100 SXM2 16GB", "v100", "volta", "7.0", _PCI_IDS),
    "0x1db4": _gpu("V100 PCIe 16GB", "v100", "volta", "7.0", _PCI_IDS),
    "0x1db5": _gpu("V100 SXM2 32GB", "v100", "volta", "7.0", _PCI_IDS),
    "0x1db6": _gpu("V100 PCIe 32GB", "v100", "volta", "7.0", _PCI_IDS),
    "0x15f8": _gpu("P100 PCIe 16GB", "p100", "pascal", "6.0", _PCI_IDS),
    "0x15f9": _gpu("P100 SXM2 16GB", "p100", "pascal", "6.0", _PCI_IDS),
}

# NVSwitches show up as PCI bridges (class 0x0680) of vendor 10de.
NVSWITCHES = {
    "0x1af1": {"model": "NVSwitch (A100 generation)", "source": _PCI_IDS},
    "0x22a3": {"model": "NVSwitch (H100/H200 generation)", "source": _FM_GUIDE},
}

# Ascend NPUs: vendor 19e5, class 0x1200 (processing accelerator). 910C's id is unconfirmed and left out.
ASCEND_NPUS = {
    "0xd801": {"model": "Ascend 910", "gres_type": "910", "source": _ASCEND_DEPLOYER},
    "0xd802": {"model": "Ascend 910B", "gres_type": "910b", "source": _ASCEND_DEPLOYER},
    "0xd500": {"model": "Ascend 310P", "gres_type": "310p", "source": _ASCEND_DEPLOYER},
    "0xd100": {"model": "Ascend 310", "gres_type": "310", "source": _ASCEND_DEPLOYER},
}

GPU_CLASSES = ("0x0300", "0x0302")  # VGA compatible, 3D controller
BRIDGE_OTHER_CLASS = "0x0680"
ACCELERATOR_CLASS = "0x1200"

MODPROBE_DIRS = ("etc/modprobe.d", "usr/lib/modprobe.d", "lib/modprobe.d", "run/modprobe.d")
EFI_GLOBAL_GUID = "8be4df61-93ca-11d2-aa0d-00e098032b8c"

# ---------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------


def _path(root, relative):
    return os.path.join(root or "/", relative.lstrip("/"))


def read_text(root, relative):
    """The file's text, or None when it cannot be read."""
    try:
        with open(_path(root, relative), "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return None


def read_bytes(root, relative):
    try:
        with open(_path(root, relative), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _first_line(text):
    return text.strip().splitlines()[0].strip() if text and text.strip() else None


# ---------------------------------------------------------------------------
# Parsers (pure)
# ---------------------------------------------------------------------------

_KERNEL_RELEASE = re.compile(r"^Linux version (\S+)")
_GCC_VERSION_LINE = re.compile(r"gcc version (\d+(?:\.\d+)+)")
# "x86_64-linux-gnu-gcc-14 (Debian 14.2.0-19) 14.2.0" or "gcc (GCC) 11.4.1 20231218"
_GCC_TOKEN = re.compile(r"[\w.+-]*gcc[\w.+-]*\s+(?:\([^()]*\)\s+)?(\d+\.\d+(?:\.\d+)?)")
_CLANG = re.compile(r"clang version (\d+(?:\.\d+)+)")


def parse_proc_version(text):
    """``{release, compiler, compiler_version}`` from /proc/version."""
    result = {"release": None, "compiler": None, "compiler_version": None}
    if not text:
        return result
    match = _KERNEL_RELEASE.match(text.strip())
    if match:
        result["release"] = match.group(1)
    for pattern, name in ((_GCC_VERSION_LINE, "gcc"), (_GCC_TOKEN, "gcc"), (_CLANG, "clang")):
        match = pattern.search(text)
        if match:
            result["compiler"], result["compiler_version"] = name, match.group(1)
            break
    return result


def parse_gcc_version(text):
    """The version printed by ``gcc -dumpfullversion -dumpversion`` (or the first line of ``gcc --version``)."""
    line = _first_line(text)
    if not line:
        return None
    match = re.search(r"(\d+(?:\.\d+)*)\s*$", line) or re.search(r"(\d+\.\d+(?:\.\d+)?)", line)
    return match.group(1) if match else None


def parse_cpulist(text):
    """OS CPU ids of a sysfs cpulist such as ``0-55,112-167``."""
    cpus = []
    for part in (text or "").strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            low, high = part.split("-", 1)
            cpus.extend(range(int(low), int(high) + 1))
        else:
            cpus.append(int(part))
    return sorted(set(cpus))


def format_cpulist(ids):
    """``[0, 1, 2, 5]`` -> ``0-2,5`` (Slurm's and the kernel's range syntax)."""
    ranges = []
    for value in sorted(set(ids)):
        if ranges and value == ranges[-1][1] + 1:
            ranges[-1][1] = value
        else:
            ranges.append([value, value])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in ranges)


def normalize_bdf(value):
    """``00000000:18:00.0`` (nvidia-smi, npu-smi) and ``0000:18:00.0`` (sysfs) -> ``0000:18:00.0``."""
    text = str(value or "").strip().lower()
    parts = text.split(":")
    if len(parts) == 3:
        return "%04x:%s:%s" % (int(parts[0], 16), parts[1], parts[2])
    if len(parts) == 2:
        return "0000:" + text
    return text


_NVRM = re.compile(r"NVRM version:.*?\s(\d+\.\d+(?:\.\d+)?)\s")


def parse_nvidia_version(proc_text, sys_text=None):
    """``{version, flavour}`` of the loaded NVIDIA module; flavour is open, proprietary or None."""
    version, flavour = None, None
    if proc_text:
        match = _NVRM.search(proc_text + " ")
        if match:
            version = match.group(1)
            flavour = "open" if "Open Kernel Module" in proc_text else "proprietary"
    if not version and sys_text:
        version = _first_line(sys_text)
    return {"version": version, "flavour": flavour}


# nvidia-smi mig -lgi / -lci table rows: "|   0  MIG 1g.18gb   19   7   0:1   |" and "|   0   7   MIG 1g.18gb   0   0   0:1   |".
_MIG_GI = re.compile(r"^\|\s*(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+\d+:\d+\s*\|", re.M)
_MIG_CI = re.compile(r"^\|\s*(\d+)\s+(\d+)\s+MIG\s+(\S+)\s+(\d+)\s+(\d+)\s+\d+:\d+\s*\|", re.M)


def parse_mig(gi_text, ci_text):
    """The MIG devices of ``nvidia-smi mig -lgi`` and ``mig -lci`` output: ``{gpus, devices, idle_instances}``.

    ``gpus``: indices of the GPUs with GPU instances; ``devices``: one per
    compute instance (what a job gets, and Slurm counts), ``{gpu, gi, ci,
    profile}`` with the profile as nvidia-smi names it (``1g.18gb``,
    ``1c.3g.71gb``); ``idle_instances``: GPU instances without a compute
    instance, which no job can use. Both empty without MIG (nvidia-smi then
    fails, and the caller passes None).
    """
    instances = [{"gpu": int(gpu), "gi": int(gi), "profile": profile} for gpu, profile, _pid, gi in _MIG_GI.findall(gi_text or "")]
    devices = [{"gpu": int(gpu), "gi": int(gi), "ci": int(ci), "profile": profile} for gpu, gi, profile, _pid, ci in _MIG_CI.findall(ci_text or "")]
    used = {(device["gpu"], device["gi"]) for device in devices}
    return {
        "gpus": sorted({instance["gpu"] for instance in instances} | {device["gpu"] for device in devices}),
        "devices": sorted(devices, key=lambda device: (device["gpu"], device["gi"], device["ci"])),
        "idle_instances": [instance for instance in instances if (instance["gpu"], instance["gi"]) not in used],
    }


def parse_nvidia_smi(text):
    """Rows of ``nvidia-smi --query-gpu=index,pci.bus_id,name,driver_version --format=csv,noheader``."""
    rows = []
    for line in (text or "").splitlines():
        fields = [field.strip() for field in line.split(",")]
        if len(fields) < 4 or not fields[0].isdigit():
            continue
        rows.append({"index": int(fields[0]), "pci_bus_id": normalize_bdf(fields[1]), "name": fields[2], "driver_version": fields[3]})
    return rows


_NPU_SMI_VERSION = re.compile(r"npu-smi\s+(\S+)\s+Version:\s*(\S+)")
_NPU_ROW = re.compile(r"^\|\s*(\d+)\s+(\S.*?)\s*\|\s*(\S+)\s*\|")
_NPU_CHIP_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*\|")


def parse_npu_smi_info(text):
    """``{version, npus: [{npu_id, name, health, chip, pci_bus_id}]}`` from ``npu-smi info``.

    Each NPU takes two table rows: ``| <npu> <name> | <health> | ...`` and
    ``| <chip> | <bus id> | ...``; the process table that follows has no bus id.
    """
    result = {"version": None, "npus": []}
    if not text:
        return result
    match = _NPU_SMI_VERSION.search(text)
    if match:
        result["version"] = match.group(2)
    current = None
    for line in text.splitlines():
        chip = _NPU_CHIP_ROW.match(line)
        if chip and current is not None:
            current.update(chip=int(chip.group(1)), pci_bus_id=normalize_bdf(chip.group(2)))
            result["npus"].append(current)
            current = None
            continue
        row = _NPU_ROW.match(line)
        if row and not line.startswith("| NPU"):
            current = {"npu_id": int(row.group(1)), "name": row.group(2).strip(), "health": row.group(3)}
    return result


def parse_mokutil(text):
    """Secure Boot state from ``mokutil --sb-state``: enabled, disabled, unsupported or None."""
    lowered = (text or "").lower()
    if "secureboot enabled" in lowered:
        return "enabled"
    if "secureboot disabled" in lowered:
        return "disabled"
    if "not supported" in lowered:
        return "unsupported"
    return None


def parse_efivar_secure_boot(data):
    """Secure Boot state from the SecureBoot efivar: 4 attribute bytes, then the value byte."""
    if data is None or len(data) < 5:
        return None
    return "enabled" if data[4] == 1 else "disabled"


def nouveau_blacklisted(texts, cmdline=""):
    """Whether any modprobe.d text (or the kernel command line) blacklists nouveau."""
    for text in texts:
        for line in (text or "").splitlines():
            if re.match(r"^\s*blacklist\s+nouveau\s*(#.*)?$", line):
                return True
    return bool(re.search(r"(^|\s)modprobe\.blacklist=\S*\bnouveau\b", cmdline or ""))


def parse_ascend_version_info(text):
    """``{version, firmware_range}`` from the Ascend driver's version.info (``Version=``, ``compatible_version_fw=[min,max]``)."""
    result = {"version": None, "firmware_range": None}
    for line in (text or "").splitlines():
        key, dummy, value = line.partition("=")
        if key.strip() == "Version":
            result["version"] = value.strip()
        elif key.strip() == "compatible_version_fw":
            bounds = [part.strip() for part in value.strip().strip("[]").split(",")]
            if len(bounds) == 2 and all(bounds):
                result["firmware_range"] = bounds
    return result


def module_loaded(proc_modules, name):
    return any(line.split(" ", 1)[0] == name for line in (proc_modules or "").splitlines())


# ---------------------------------------------------------------------------
# CPU topology: OS CPU ids -> Slurm core indices
# ---------------------------------------------------------------------------


def cpu_topology(root):
    """``{os_cpu: (package_id, core_id)}`` from /sys/devices/system/cpu/cpu*/topology; {} when absent."""
    topology = {}
    for path in glob.glob(_path(root, "sys/devices/system/cpu/cpu[0-9]*")):
        name = os.path.basename(path)
        package = read_text(root, "sys/devices/system/cpu/%s/topology/physical_package_id" % name)
        core = read_text(root, "sys/devices/system/cpu/%s/topology/core_id" % name)
        if package is None or core is None:
            continue
        topology[int(name[3:])] = (int(package.strip()), int(core.strip()))
    return topology


def slurm_core_index(topology):
    """``{os_cpu: slurm_core_index}``.

    gres.conf(5) ``Cores=`` takes Slurm's *logical* core indices, not OS CPU
    ids: core 0 is the first core of the first socket, core 1 the second, and
    so on, the order hwloc gives as ``Core L#`` in ``lstopo -l``. hwloc sorts
    packages and the cores in them by their lowest OS CPU id, so we do the
    same: packages by their lowest CPU, cores within a package by their lowest
    CPU. Hyper-threads (same package and core_id) share a core index. This is
    right whether the firmware numbers CPUs socket by socket (0-55 socket 0)
    or round-robin (even CPUs socket 0, odd socket 1). It assumes slurmd sees
    the whole machine (the NodeName line lists every socket and core, as the
    collection's node model writes it from facts).
    """
    package_first = {}
    core_first = {}
    for cpu, (package, core) in topology.items():
        package_first[package] = min(cpu, package_first.get(package, cpu))
        core_first[(package, core)] = min(cpu, core_first.get((package, core), cpu))
    ordered = sorted(core_first, key=lambda key: (package_first[key[0]], core_first[key]))
    index = {key: position for position, key in enumerate(ordered)}
    return {cpu: index[key] for cpu, key in topology.items()}


def cores_of(cpus, core_index):
    """Slurm core indices (as a range string) of the OS CPUs ``cpus``; None when the topology is unknown."""
    if not cpus or not core_index or any(cpu not in core_index for cpu in cpus):
        return None
    return format_cpulist(core_index[cpu] for cpu in cpus)


# ---------------------------------------------------------------------------
# PCI scan
# ---------------------------------------------------------------------------


def _hex_id(text, width=4):
    value = _first_line(text)
    if not value:
        return None
    return "0x" + value.lower().replace("0x", "")[:width].rjust(width, "0")


def scan_pci(root):
    """Every PCI function under /sys/bus/pci/devices with vendor, device, class, NUMA node and local CPUs."""
    devices = []
    for path in sorted(glob.glob(_path(root, "sys/bus/pci/devices/*"))):
        bdf = os.path.basename(path)
        base = "sys/bus/pci/devices/%s/" % bdf
        numa = _first_line(read_text(root, base + "numa_node"))
        cpulist = _first_line(read_text(root, base + "local_cpulist"))
        devices.append(
            {
                "bdf": normalize_bdf(bdf),
                "vendor": _hex_id(read_text(root, base + "vendor")),
                "device": _hex_id(read_text(root, base + "device")),
                # the class file is 0xCCSSPP: keep class and subclass (0x0302 for a 3D controller)
                "class": _hex_id(read_text(root, base + "class")),
                "numa_node": int(numa) if numa and numa.lstrip("-").isdigit() and int(numa) >= 0 else None,
                "local_cpulist": cpulist,
            }
        )
    return devices


def _nvidia_minor(root, bdf):
    """The GPU's /dev/nvidiaN minor from /proc/driver/nvidia/gpus/<bdf>/information (driver loaded)."""
    text = read_text(root, "proc/driver/nvidia/gpus/%s/information" % bdf)
    match = re.search(r"Device Minor:\s*(\d+)", text or "")
    return int(match.group(1)) if match else None


def _device(entry, table_row, core_index):
    cpus = parse_cpulist(entry["local_cpulist"]) if entry["local_cpulist"] else []
    return {
        "pci_bus_id": entry["bdf"],
        "device_id": entry["device"],
        "model": table_row.get("model") if table_row else "unknown %s:%s" % (entry["vendor"][2:], entry["device"][2:]),
        "gres_type": table_row.get("gres_type") if table_row else None,
        "numa_node": entry["numa_node"],
        "local_cpulist": entry["local_cpulist"],
        "cores": cores_of(cpus, core_index),
    }


def find_gpus(pci, root, core_index, smi_rows):
    """NVIDIA GPUs with their device file.

    The device file is /dev/nvidia<minor>. The driver reports each GPU's minor
    in /proc/driver/nvidia/gpus/<bdf>/information; without a loaded driver we
    fall back to PCI bus order, which is how the driver numbers GPUs at probe
    time and how nvidia-smi enumerates them.
    """
    found = [entry for entry in pci if entry["vendor"] == NVIDIA_VENDOR and entry["class"] in GPU_CLASSES]
    by_bus = {row["pci_bus_id"]: row for row in smi_rows}
    gpus = []
    for position, entry in enumerate(sorted(found, key=lambda item: item["bdf"])):
        row = NVIDIA_GPUS.get(entry["device"])
        gpu = _device(entry, row, core_index)
        minor = _nvidia_minor(root, entry["bdf"])
        gpu.update(
            arch=row.get("arch") if row else None,
            compute_capability=row.get("compute_capability") if row else None,
            minor=minor if minor is not None else position,
            minor_source="driver" if minor is not None else "pci_order",
            smi_index=by_bus[entry["bdf"]]["index"] if entry["bdf"] in by_bus else None,
            smi_name=by_bus[entry["bdf"]]["name"] if entry["bdf"] in by_bus else None,
        )
        gpu["device_file"] = "/dev/nvidia%d" % gpu["minor"]
        gpu["device_present"] = os.path.exists(_path(root, gpu["device_file"]))
        gpus.append(gpu)
    return sorted(gpus, key=lambda item: item["minor"])


def find_nvswitches(pci):
    switches = []
    for entry in pci:
        if entry["vendor"] == NVIDIA_VENDOR and entry["class"] == BRIDGE_OTHER_CLASS:
            row = NVSWITCHES.get(entry["device"], {})
            switches.append(
                {
                    "pci_bus_id": entry["bdf"],
                    "device_id": entry["device"],
                    "model": row.get("model", "NVSwitch (unknown id %s)" % entry["device"]),
                    "numa_node": entry["numa_node"],
                }
            )
    return switches


def find_npus(pci, root, core_index, npu_smi):
    """Ascend NPUs with their device file.

    /dev/davinci<N> uses the NPU id npu-smi prints for the NPU's bus id (on an
    Atlas 800T A2 that order is not PCI order: NPU 0 is 0000:c1:00.0). Without
    npu-smi (driver not installed yet) we fall back to PCI bus order and say so.
    This assumes one chip per NPU (910B); multi-chip cards need ``npu-smi info -m``.
    """
    found = [entry for entry in pci if entry["vendor"] == HUAWEI_VENDOR and entry["class"] == ACCELERATOR_CLASS]
    by_bus = {row["pci_bus_id"]: row for row in npu_smi.get("npus", [])}
    npus = []
    for position, entry in enumerate(sorted(found, key=lambda item: item["bdf"])):
        row = ASCEND_NPUS.get(entry["device"])
        npu = _device(entry, row, core_index)
        smi = by_bus.get(entry["bdf"])
        npu.update(
            index=smi["npu_id"] if smi else position,
            index_source="npu-smi" if smi else "pci_order",
            smi_name=smi["name"] if smi else None,
            health=smi["health"] if smi else None,
        )
        npu["device_file"] = "/dev/davinci%d" % npu["index"]
        npu["device_present"] = os.path.exists(_path(root, npu["device_file"]))
        npus.append(npu)
    return sorted(npus, key=lambda item: item["index"])


# ---------------------------------------------------------------------------
# Everything together
# ---------------------------------------------------------------------------


def _secure_boot(root, mokutil_text):
    state = parse_mokutil(mokutil_text)
    if state:
        return state, "mokutil"
    for path in glob.glob(_path(root, "sys/firmware/efi/efivars/SecureBoot-%s" % EFI_GLOBAL_GUID)):
        with open(path, "rb") as handle:
            state = parse_efivar_secure_boot(handle.read())
        if state:
            return state, "efivars"
    if not os.path.isdir(_path(root, "sys/firmware/efi")):
        return "unsupported", "no EFI firmware"
    return None, None


def _modprobe_texts(root):
    texts = []
    for directory in MODPROBE_DIRS:
        for path in sorted(glob.glob(_path(root, directory + "/*.conf"))):
            with open(path, "rb") as handle:
                texts.append(handle.read().decode("utf-8", "replace"))
    return texts


def gather(root="/", commands=None):
    """The accelerator facts of the host mounted at ``root``.

    ``commands``: output of ``gcc``, ``mokutil``, ``nvidia-smi``, ``nvidia-smi mig
    -lgi``, ``nvidia-smi mig -lci`` and ``npu-smi`` (keys of those names), None
    where the command is not installed or fails.
    """
    commands = commands or {}
    warnings = []
    kernel = parse_proc_version(read_text(root, "proc/version"))
    release = _first_line(read_text(root, "proc/sys/kernel/osrelease")) or kernel["release"]
    kernel["release"] = release
    headers = None
    if release:
        for candidate in ("lib/modules/%s/build" % release, "usr/src/linux-headers-%s" % release):
            if os.path.isdir(_path(root, candidate)):
                headers = "/" + candidate
                break
    kernel["headers"] = headers is not None
    kernel["headers_path"] = headers

    proc_modules = read_text(root, "proc/modules") or ""
    secure_boot, secure_boot_source = _secure_boot(root, commands.get("mokutil"))
    nvidia = parse_nvidia_version(read_text(root, "proc/driver/nvidia/version"), read_text(root, "sys/module/nvidia/version"))
    nvidia["loaded"] = module_loaded(proc_modules, "nvidia")

    smi_rows = parse_nvidia_smi(commands.get("nvidia-smi"))
    mig = parse_mig(commands.get("nvidia-smi mig -lgi"), commands.get("nvidia-smi mig -lci"))
    for instance in mig["idle_instances"]:
        warnings.append(
            "MIG GPU instance %d (%s) on GPU %d has no compute instance: no job can use it" % (instance["gi"], instance["profile"], instance["gpu"])
        )
    npu_smi = parse_npu_smi_info(commands.get("npu-smi"))
    core_index = slurm_core_index(cpu_topology(root))
    pci = scan_pci(root)
    gpus = find_gpus(pci, root, core_index, smi_rows)
    npus = find_npus(pci, root, core_index, npu_smi)
    on_pci = {gpu["pci_bus_id"] for gpu in gpus}
    for row in smi_rows:
        if row["pci_bus_id"] not in on_pci:
            warnings.append("nvidia-smi lists GPU %d at %s, which is not on the PCI bus under %s" % (row["index"], row["pci_bus_id"], root))
    for device in gpus + npus:
        if device["gres_type"] is None:
            warnings.append("%s at %s has no GRES type in the PCI id table; set one with the filter option types" % (device["model"], device["pci_bus_id"]))
        if device["local_cpulist"] and device["cores"] is None:
            warnings.append("no CPU topology under %s/sys/devices/system/cpu: Cores= for %s is left out" % (root.rstrip("/"), device["pci_bus_id"]))
    return {
        "kernel": kernel,
        "gcc_version": parse_gcc_version(commands.get("gcc")),
        "secure_boot": secure_boot,
        "secure_boot_source": secure_boot_source,
        "nouveau": {
            "loaded": module_loaded(proc_modules, "nouveau"),
            "blacklisted": nouveau_blacklisted(_modprobe_texts(root), read_text(root, "proc/cmdline")),
        },
        "nvidia_driver": nvidia,
        "ascend_driver": parse_ascend_version_info(read_text(root, "usr/local/Ascend/driver/version.info")),
        "gpus": gpus,
        "nvswitches": find_nvswitches(pci),
        "npus": npus,
        "nvidia_smi": {"present": commands.get("nvidia-smi") is not None, "gpus": smi_rows},
        "mig": mig,
        "npu_smi": {"present": commands.get("npu-smi") is not None, "version": npu_smi["version"], "npus": npu_smi["npus"]},
        "warnings": warnings,
    }
