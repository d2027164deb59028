# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed GRES from what accelerator_info found on each host.

Each GPU and NPU becomes one gres.conf line with its own device file and the
Slurm cores of its NUMA node::

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

from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress

KINDS = (("gpus", "gpu"), ("npus", "npu"))


def _devices(info, types):
    """``[(name, type, device_file, cores)]`` of one host, GPUs then NPUs, in device order."""
    if not isinstance(info, dict):
        raise AnsibleFilterError("accelerator facts must be the 'accelerators' dict that accelerator_info returns, not %r" % (info,))
    types = types or {}
    devices = []
    for key, name in KINDS:
        for device in info.get(key) or []:
            gres_type = types.get(device.get("device_id")) or device.get("gres_type")
            if not gres_type:
                raise AnsibleFilterError(
                    "%s at %s (PCI id %s) has no GRES type; pass types={'%s': '<type>'} to the filter"
                    % (device.get("model"), device.get("pci_bus_id"), device.get("device_id"), device.get("device_id"))
                )
            devices.append((name, str(gres_type).lower(), device["device_file"], device.get("cores")))
    return devices


def accelerator_gres_conf(info, types=None):
    """gres.conf lines of one host (without NodeName=), one per device."""
    lines = []
    for name, gres_type, device_file, cores in _devices(info, types):
        line = "Name=%s Type=%s File=%s" % (name, gres_type, device_file)
        lines.append(line + (" Cores=%s" % cores if cores else ""))
    return lines


def accelerator_node_gres(info, types=None):
    """The NodeName ``Gres=`` value of one host, e.g. ``gpu:h200:8`` or ``gpu:a100:2,gpu:l40s:2``; empty without devices."""
    counts = {}
    for name, gres_type, _file, _cores in _devices(info, types):
        counts[(name, gres_type)] = counts.get((name, gres_type), 0) + 1
    return ",".join("%s:%s:%d" % (name, gres_type, count) for (name, gres_type), count in counts.items())


def accelerator_gres_types(info_by_node, types=None):
    """GresTypes for slurm.conf: the GRES names any node has (gpu, npu)."""
    names = {name for info in (info_by_node or {}).values() for name, _t, _f, _c in _devices(info, types)}
    return [name for _key, name in KINDS if name in names]


def accelerator_gres_lines(info_by_node, types=None):
    """gres.conf lines of many nodes: ``NodeName=<hostlist> Name=... File=... Cores=...``.

    ``info_by_node``: {node name: accelerator_info result}. Nodes whose lines are
    identical share one NodeName hostlist, so a 1000-node cluster of one shape
    gets 8 lines, not 8000.
    """
    shapes = {}
    for node, info in (info_by_node or {}).items():
        lines = tuple(accelerator_gres_conf(info, types))
        if lines:
            shapes.setdefault(lines, []).append(node)
    result = []
    for lines, nodes in sorted(shapes.items(), key=lambda item: compress(item[1])):
        result.extend("NodeName=%s %s" % (compress(nodes), line) for line in lines)
    return result


class FilterModule(object):
    def filters(self):
        return {
            "accelerator_gres_conf": accelerator_gres_conf,
            "accelerator_node_gres": accelerator_node_gres,
            "accelerator_gres_types": accelerator_gres_types,
            "accelerator_gres_lines": accelerator_gres_lines,
        }
