# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed GPU GRES: a node's GPU declaration, its gres.conf lines, its device files.

A node declares its GPUs with ``slurm_node_gpus``: ``{type: h200, count: 8}``
and optionally ``file`` (a Slurm device expression such as
``/dev/nvidia[0-7]``; default ``/dev/nvidia[0-<count-1>]``). The node then
gets ``Gres=gpu:h200:8`` in slurm.conf and one gres.conf line; nodes with the
same declaration share a line.

A node that discovers its GRES (``slurm_gres_discover``) gets them from what
accelerator_info found instead: each GPU and NPU becomes one gres.conf line
with its own device file and the Slurm cores of its NUMA node::

    Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-55
    Name=npu Type=910b File=/dev/davinci0 Cores=144-167

``Cores=`` are Slurm's logical core indices, not the OS CPU ids of sysfs'
``local_cpulist``: core 0 is the first core of the first socket, then the
second core of that socket, and so on (``Core L#`` of ``lstopo -l``), and the
hyper-threads of one core share its index. accelerator_info maps the CPU ids to
those indices from /sys/devices/system/cpu/cpuN/topology (package and core of
each CPU), so interleaved numberings come out right. The mapping assumes the
node's NodeName line describes the whole machine (all sockets and cores), as
the collection writes it from the host's facts. Where the topology was not
readable the device's ``cores`` is null and its line has no ``Cores=``
(Slurm then lets any core use it).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress, expand

# A GRES type is a word Slurm matches in --gres=gpu:<type>:N and that
# AccountingStorageTRES=gres/gpu:<type> can name: no ':', ',', '=' or spaces.
_TYPE = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_DEVICE = re.compile(r"^/dev/[A-Za-z0-9_./\[\]\-,]+$")
# accelerator_info keys and the GRES name of their devices.
KINDS = (("gpus", "gpu"), ("npus", "npu"))


class GresError(ValueError):
    """Bad GPU declaration; the message names the variable, the value and the fix."""


def normalize_gpus(host, value):
    """``{type, count, files}`` of one host's ``slurm_node_gpus``, or None when it has none."""
    if not value:
        return None
    if not isinstance(value, dict):
        raise GresError("host %s: slurm_node_gpus=%r must be a dict such as {type: h200, count: 8}" % (host, value))
    unknown = sorted(set(value) - {"type", "count", "file"})
    if unknown:
        raise GresError("host %s: slurm_node_gpus has unknown keys %s; use type, count and file" % (host, ", ".join(unknown)))
    gpu_type = str(value.get("type") or "").strip()
    if not _TYPE.match(gpu_type):
        raise GresError(
            "host %s: slurm_node_gpus.type=%r is not a GRES type; use a lower-case model name such as h200 or a100 "
            "(letters, digits, '.', '_', '-')" % (host, value.get("type"))
        )
    count = value.get("count")
    pattern = value.get("file")
    files = None
    if pattern:
        if not _DEVICE.match(str(pattern)):
            raise GresError("host %s: slurm_node_gpus.file=%r is not a device path such as /dev/nvidia[0-7]" % (host, pattern))
        try:
            files = expand(str(pattern))
        except ValueError as exc:
            raise GresError("host %s: slurm_node_gpus.file=%r is not a valid range (%s); write it as /dev/nvidia[0-7]" % (host, pattern, exc)) from exc
    if count is None and files is not None:
        count = len(files)
    whole = not isinstance(count, bool) and (isinstance(count, int) or str(count).isdigit())
    if not whole or int(count) < 1:
        raise GresError("host %s: slurm_node_gpus.count=%r must be a whole number of GPUs, 1 or more" % (host, count))
    count = int(count)
    if files is None:
        files = ["/dev/nvidia%d" % index for index in range(count)]
        pattern = "/dev/nvidia[0-%d]" % (count - 1) if count > 1 else "/dev/nvidia0"
    if len(files) != count:
        raise GresError("host %s: slurm_node_gpus.count=%d but file=%s names %d devices; make them agree" % (host, count, pattern, len(files)))
    return {"type": gpu_type, "count": count, "file": str(pattern), "files": files}


def node_gres(gpus):
    """The NodeName ``Gres=`` value of a normalized declaration."""
    return "gpu:%s:%d" % (gpus["type"], gpus["count"])


def gpu_types(gres_value):
    """GPU types named in a NodeName ``Gres=`` value (``gpu:h200:8,nic:1`` -> [h200])."""
    types = []
    for item in str(gres_value or "").split(","):
        parts = item.strip().split(":")
        if parts[0] == "gpu" and len(parts) == 3:
            types.append(parts[1].lower())
    return types


# slurmd loads its NVML GPU plugin (gpu/nvml) only where gres.conf asks for NVML's detection; without it
# (gpu/generic) it reads no GPU usage, so accounting's gres/gpumem and gres/gpuutil stay empty. NVML's
# detection adds what it finds; the explicit lines that follow are checked against it (gres.conf(5)).
NVML_AUTODETECT = "AutoDetect=nvml"


def gres_lines(gpus_by_node, nvml_nodes=()):
    """gres.conf lines: ``NodeName=<hostlist> Name=gpu Type=<t> File=<devices>``, one per declaration,
    after ``NodeName=<hostlist> AutoDetect=nvml`` for the ``nvml_nodes`` that have GPUs."""
    shapes = {}
    for node, gpus in gpus_by_node.items():
        if gpus:
            shapes.setdefault((gpus["type"], gpus["file"]), []).append(node)
    nvml = sorted(node for node in nvml_nodes if gpus_by_node.get(node))
    lines = ["NodeName=%s %s" % (compress(nvml), NVML_AUTODETECT)] if nvml else []
    for (gpu_type, pattern), nodes in sorted(shapes.items(), key=lambda item: compress(item[1])):
        lines.append("NodeName=%s Name=gpu Type=%s File=%s" % (compress(nodes), gpu_type, pattern))
    return lines


def exclusive_nodes(nodes, exclusive_types):
    """Nodes whose every GPU type is in ``exclusive_types`` (whole-node GPU classes such as h200)."""
    wanted = {str(t).lower() for t in exclusive_types or ()}
    chosen = set()
    for name, attributes in nodes.items():
        types = gpu_types(attributes.get("Gres"))
        if types and set(types) <= wanted:
            chosen.add(name)
    return chosen


def _mig_parts(info):
    """``{gpu index: [MIG profile, ...]}`` of a host's MIG devices (accelerator_info's ``mig``)."""
    parts = {}
    for device in (info.get("mig") or {}).get("devices") or []:
        parts.setdefault(device["gpu"], []).append(str(device["profile"]).lower())
    return parts


def mig_problem(info, nvml=False):
    """Why Slurm cannot schedule this host's MIG devices (``nvml``: the installed Slurm has NVML), or None."""
    parts = _mig_parts(info) if isinstance(info, dict) else {}
    if not parts:
        return None
    summary = "; ".join(
        "GPU %d: %s" % (gpu, ", ".join("%d x %s" % (profiles.count(profile), profile) for profile in sorted(set(profiles))))
        for gpu, profiles in sorted(parts.items())
    )
    if not nvml:
        return (
            "MIG is enabled (%s), and without NVML slurmd cannot see MIG devices. "
            "Disable MIG (nvidia-smi -i <gpu> -mig 0, then reset the GPU), or set slurm_gres_nvml: true (Debian's NVML "
            "plugin from contrib, or a Slurm built with NVML through slurm_apt_repository)" % summary
        )
    whole = [device.get("smi_index") for device in info.get("gpus") or [] if device.get("smi_index") not in parts]
    if whole:
        return (
            "MIG is enabled on some GPUs (%s) and not on GPUs %s: Slurm's NVML detection matches GRES types by substring, "
            "so whole GPUs and MIG devices on one node cannot be told apart; partition every GPU of the node, or none"
            % (summary, ", ".join(str(index) for index in whole))
        )
    return None


def nvml_problem(host, found, apt=None, packages=(), wanted="slurmd"):
    """Why ``host`` cannot use Slurm's NVML GPU plugin that ``slurm_gres_nvml: true`` asks for, or "".

    ``found``: the stdout lines of the search for it (the plugin's path, if any, then the installed slurmd's version);
    ``apt``: the registered ``apt-get install --simulate`` of ``wanted`` and ``packages``, where the role installs
    Debian's plugin (``packages`` not empty); an installed plugin passes whatever apt said.
    """
    lines = [str(line).strip() for line in found or () if str(line).strip()]
    if any(line.endswith("/gpu_nvml.so") for line in lines):
        return ""
    version = next((line for line in lines if not line.endswith("/gpu_nvml.so")), "")
    if packages:
        apt = apt if isinstance(apt, dict) else {}
        if not apt.get("rc"):
            return ""
        output = [str(line).strip() for line in list(apt.get("stdout_lines") or []) + list(apt.get("stderr_lines") or [])]
        said = [line for line in output if line.startswith("E:") or " : Depends: " in line]
        return (
            "slurm_gres_nvml=true on %s: apt cannot install Debian's NVML plugin for slurmd (%s): %s. Add the contrib "
            "component to the apt sources of %s, give slurm_apt_repository a Slurm built with NVML, or set slurm_gres_nvml: false"
            % (host, ", ".join(list(packages) + [wanted]), said[-1] if said else "apt-get install --simulate failed", host)
        )
    if version:
        return (
            "slurm_gres_nvml=true on %s, but the installed Slurm %s has no NVML plugin (gpu_nvml.so): install a Slurm built "
            "with NVML through slurm_apt_repository, or set slurm_gres_nvml: false" % (host, version)
        )
    return ""


def _devices(info, types, nvml=False):
    """``[(name, type, device_file, cores)]`` of one host's accelerator_info result, GPUs then NPUs, in device order.

    A GPU split by MIG gives one device per MIG device, typed by its profile
    (``1g.18gb``: the part of the "MIG Profile" NVML reports, e.g.
    ``nvidia_h200_1g.18gb``, that Slurm matches), without a device file: NVML
    (``AutoDetect=nvml``, ``nvml`` true) finds them.
    """
    if not isinstance(info, dict):
        raise GresError("accelerator facts must be the 'accelerators' dict that accelerator_info returns, not %r" % (info,))
    types = types or {}
    problem = mig_problem(info, nvml)
    if problem:
        raise GresError(problem)
    mig = _mig_parts(info)
    devices = []
    for key, name in KINDS:
        for device in info.get(key) or []:
            if key == "gpus" and device.get("smi_index") in mig:
                devices.extend((name, profile, None, device.get("cores")) for profile in mig[device["smi_index"]])
                continue
            gres_type = types.get(device.get("device_id")) or device.get("gres_type")
            if not gres_type:
                raise GresError(
                    "%s at %s (PCI id %s) has no GRES type; pass types={'%s': '<type>'} to the filter"
                    % (device.get("model"), device.get("pci_bus_id"), device.get("device_id"), device.get("device_id"))
                )
            devices.append((name, str(gres_type).lower(), device["device_file"], device.get("cores")))
    return devices


def accelerator_gres_conf(info, types=None, nvml=False):
    """gres.conf lines of one host (without NodeName=), one per device; ``types``: {PCI device id: GRES type} overrides.

    A host with MIG devices gets ``AutoDetect=nvml`` alone: NVML gives slurmd each MIG device's files and cores.
    With ``nvml``, a host with GPUs gets ``AutoDetect=nvml`` before its lines (NVML_AUTODETECT).
    """
    found = _devices(info, types, nvml)
    if any(device_file is None for _name, _type, device_file, _cores in found):
        return [NVML_AUTODETECT]
    nvml_gpus = nvml and any(name == "gpu" for name, _type, _file, _cores in found)
    lines = [NVML_AUTODETECT] if nvml_gpus else []
    for name, gres_type, device_file, cores in found:
        line = "Name=%s Type=%s File=%s" % (name, gres_type, device_file)
        # NVML's own CPU affinity gives an NVML GPU its cores: slurmd drops a GPU whose line disagrees with NVML.
        lines.append(line + (" Cores=%s" % cores if cores and not (nvml_gpus and name == "gpu") else ""))
    return lines


def accelerator_node_gres(info, types=None, nvml=False):
    """The NodeName ``Gres=`` value of one host, e.g. ``gpu:h200:8``, ``gpu:a100:2,gpu:l40s:2`` or (MIG)
    ``gpu:1g.18gb:14,gpu:3g.71gb:4``; empty without devices."""
    counts = {}
    for name, gres_type, _file, _cores in _devices(info, types, nvml):
        counts[(name, gres_type)] = counts.get((name, gres_type), 0) + 1
    return ",".join("%s:%s:%d" % (name, gres_type, count) for (name, gres_type), count in counts.items())


def accelerator_gres_types(info_by_node, types=None):
    """GresTypes for slurm.conf: the GRES names any node has (gpu, npu)."""
    names = {name for info in (info_by_node or {}).values() for name, _t, _f, _c in _devices(info, types)}
    return [name for _key, name in KINDS if name in names]


def accelerator_gres_lines(info_by_node, types=None, nvml=False):
    """gres.conf lines of many nodes: ``NodeName=<hostlist> Name=... File=... Cores=...``.

    ``info_by_node``: {node name: accelerator_info result}. Nodes whose lines are
    identical share one NodeName hostlist, so a 1000-node cluster of one shape
    gets 8 lines, not 8000.
    """
    shapes = {}
    for node, info in (info_by_node or {}).items():
        lines = tuple(accelerator_gres_conf(info, types, nvml))
        if lines:
            shapes.setdefault(lines, []).append(node)
    result = []
    for lines, nodes in sorted(shapes.items(), key=lambda item: compress(item[1])):
        result.extend("NodeName=%s %s" % (compress(nodes), line) for line in lines)
    return result


def gres_types(config_types, discovered):
    """GresTypes: the configured ones plus any GRES name a discovered node has (npu); None when there are none."""
    names = [name for name in str(config_types or "").split(",") if name]
    for name in accelerator_gres_types(discovered):
        if name not in names:
            names.append(name)
    return ",".join(names) or None


def gpu_files(gpus):
    """The device files a ``slurm_node_gpus`` declaration promises (/dev/nvidia0, ...).

    A malformed declaration gives none: the preflight ``gpus`` check reports it.
    """
    try:
        normalized = normalize_gpus("host", gpus)
    except GresError:
        return []
    return normalized["files"] if normalized else []
