#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: job_env_facts
short_description: Report what a node's job environment depends on (RDMA HCAs, default-route interface, Ascend NPUs)
version_added: 0.1.0
description:
  - Lists the RDMA HCAs in C(/sys/class/infiniband) with the link layer of each port (C(InfiniBand), or C(Ethernet)
    for RoCE).
  - Reports the interface that carries the default IPv4 route (C(/proc/net/route), lowest metric first).
  - Reports whether the node has Ascend NPUs, from their device files (C(/dev/davinci<N>)) or from the PCI bus
    (vendor 19e5, class 0x1200) when the driver is not loaded yet.
  - Changes nothing; runs no command.
options:
  root:
    description: Where the host's file system is mounted; a recorded C(/sys), C(/proc) and C(/dev) tree replays under another root.
    type: path
    default: /
  npus_on_pci:
    description:
      - Whether the PCI bus has Ascend NPUs, as M(aicluster.slurm.accelerator_info) read it earlier in the run; the bus is
        not scanned again. Not given, the module scans it.
    type: bool
attributes:
  check_mode:
    support: full
    description: The module only reads, so check mode runs it fully.
  diff_mode:
    support: none
    description: Reports only; there is nothing to diff.
  platform:
    support: full
    platforms: posix
    description: Linux hosts.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Read the node's fabric
  aicluster.slurm.job_env_facts:
  register: fabric

- name: Show the InfiniBand HCAs
  ansible.builtin.debug:
    msg: "{{ fabric.job_env_facts.hcas | selectattr('link_layers', 'contains', 'InfiniBand') | map(attribute='name') }}"
"""

RETURN = r"""
job_env_facts:
  description: What the node has.
  returned: always
  type: dict
  contains:
    hcas:
      description: RDMA HCAs by name, each with C(ports) (port number to link layer) and C(link_layers) (sorted, unique).
      type: list
      elements: dict
      sample: [{name: mlx5_0, ports: {"1": InfiniBand}, link_layers: [InfiniBand]}]
    default_interface:
      description: The interface of the default IPv4 route; null when the node has none.
      type: str
      sample: eth0
    npu:
      description: Whether the node has Ascend NPUs.
      type: bool
      sample: false
    npu_devices:
      description: The C(/dev/davinci<N>) device files found.
      type: list
      elements: str
      sample: [/dev/davinci0, /dev/davinci1]
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule

HUAWEI_VENDOR = "0x19e5"
# PCI class 0x12xxxx: processing accelerator (Ascend NPUs); Huawei's NICs are 0x02xxxx.
ACCELERATOR_CLASS = "0x1200"


def _read(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def hcas(root):
    """The HCAs in /sys/class/infiniband with the link layer of each port."""
    base = os.path.join(root, "sys", "class", "infiniband")
    found = []
    for name in _listdir(base):
        ports = {}
        for port in _listdir(os.path.join(base, name, "ports")):
            ports[port] = _read(os.path.join(base, name, "ports", port, "link_layer")) or "unknown"
        found.append({"name": name, "ports": ports, "link_layers": sorted(set(ports.values()))})
    return found


def default_interface(root):
    """The interface of the default IPv4 route with the lowest metric, or None."""
    table = _read(os.path.join(root, "proc", "net", "route")) or ""
    routes = []
    for line in table.splitlines()[1:]:
        fields = line.split()
        # Iface Destination Gateway Flags RefCnt Use Metric Mask ...; flag 0x1 is RTF_UP.
        if len(fields) >= 8 and fields[1] == "00000000" and fields[7] == "00000000" and int(fields[3], 16) & 1:
            routes.append((int(fields[6]), fields[0]))
    return min(routes)[1] if routes else None


def npu_devices(root):
    return ["/dev/" + name for name in _listdir(os.path.join(root, "dev")) if re.match(r"^davinci\d+$", name)]


def npu_on_pci(root):
    base = os.path.join(root, "sys", "bus", "pci", "devices")
    for device in _listdir(base):
        if _read(os.path.join(base, device, "vendor")) == HUAWEI_VENDOR and (_read(os.path.join(base, device, "class")) or "").startswith(ACCELERATOR_CLASS):
            return True
    return False


def gather(root, npus_on_pci=None):
    """What the node at ``root`` has; ``npus_on_pci``: whether its PCI bus has NPUs (None: scan it)."""
    devices = npu_devices(root)
    return {
        "hcas": hcas(root),
        "default_interface": default_interface(root),
        "npu": bool(devices) or (npu_on_pci(root) if npus_on_pci is None else npus_on_pci),
        "npu_devices": devices,
    }


def main():
    module = AnsibleModule(argument_spec={"root": {"type": "path", "default": "/"}, "npus_on_pci": {"type": "bool"}}, supports_check_mode=True)
    facts = gather(module.params["root"], module.params["npus_on_pci"])
    if not facts["default_interface"]:
        module.warn("No default IPv4 route: NCCL_SOCKET_IFNAME and HCCL_SOCKET_IFNAME are not set; set them in job_env_vars")
    module.exit_json(changed=False, job_env_facts=facts)


if __name__ == "__main__":
    main()
