#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: accelerator_info
short_description: Report a host's NVIDIA GPUs, NVSwitches and Ascend NPUs, and its kernel build environment
version_added: 0.1.0
description:
  - Reads C(/proc) and C(/sys) and reports the running kernel and the compiler that built it, the installed gcc,
    whether the kernel headers are present, the Secure Boot state, whether nouveau is loaded or blacklisted, and the
    installed NVIDIA and Ascend driver versions.
  - Lists NVIDIA GPUs (vendor 10de) and NVSwitches (PCI class 0x0680) and Ascend NPUs (vendor 19e5, class 0x1200) found
    on the PCI bus, each with its model, GRES type, NUMA node, local CPU list, the Slurm core indices of those CPUs and
    its device file (C(/dev/nvidiaN), C(/dev/davinciN)).
  - Parses C(nvidia-smi), C(nvidia-smi mig -lgi), C(nvidia-smi mig -lci) and C(npu-smi info) output when those commands
    exist. A host without accelerators gets empty lists.
  - Changes nothing.
options:
  root:
    description: Where the host's file system is mounted; a recorded sysfs/proc tree replays under another root.
    type: path
    default: /
  run_commands:
    description:
      - Run C(gcc), C(mokutil), C(nvidia-smi) (also C(mig -lgi) and C(mig -lci)) and C(npu-smi) on the managed host. Turn
        it off when O(root) points at a
        recorded tree, whose commands would describe another host.
    type: bool
    default: true
  recorded_commands:
    description:
      - With O(run_commands=false), a JSON file on the managed host that maps C(gcc), C(mokutil), C(nvidia-smi),
        C(nvidia-smi mig -lgi), C(nvidia-smi mig -lci) and C(npu-smi) to the output they gave on the recorded host
        (absent or null - not installed there, or no MIG).
    type: path
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
- name: Detect accelerators
  aicluster.slurm.accelerator_info:
  register: accel

- name: Show the GPUs and their NUMA-local cores
  ansible.builtin.debug:
    msg: "{{ accel.accelerators.gpus | map(attribute='device_file') | zip(accel.accelerators.gpus | map(attribute='cores')) | list }}"
"""

RETURN = r"""
accelerators:
  description: What the host has.
  returned: always
  type: dict
  contains:
    kernel:
      description: Running kernel C(release), the C(compiler) and C(compiler_version) that built it, C(headers) (bool) and C(headers_path).
      type: dict
      sample: {release: 6.12.57+deb13-amd64, compiler: gcc, compiler_version: 14.2.0, headers: true, headers_path: /lib/modules/6.12.57+deb13-amd64/build}
    gcc_version:
      description: Version of the installed C(gcc); null when gcc is not installed.
      type: str
      sample: 14.2.0
    secure_boot:
      description: C(enabled), C(disabled), C(unsupported) (no EFI) or null (unknown).
      type: str
      sample: disabled
    secure_boot_source:
      description: Where the Secure Boot state came from (mokutil, efivars).
      type: str
      sample: mokutil
    nouveau:
      description: C(loaded) and C(blacklisted) (modprobe.d or kernel command line).
      type: dict
      sample: {loaded: false, blacklisted: true}
    nvidia_driver:
      description: Loaded NVIDIA module C(version), C(flavour) (open or proprietary) and C(loaded).
      type: dict
      sample: {version: 570.133.20, flavour: open, loaded: true}
    ascend_driver:
      description: Installed Ascend driver C(version) and C(firmware_range) from C(/usr/local/Ascend/driver/version.info).
      type: dict
      sample: {version: 24.1.rc1.b030, firmware_range: [7.0.0, 7.3.99]}
    gpus:
      description:
        - NVIDIA GPUs by device minor, each with C(pci_bus_id), C(device_id), C(model), C(gres_type), C(arch),
          C(compute_capability), C(numa_node), C(local_cpulist) (OS CPU ids), C(cores) (Slurm core indices), C(minor),
          C(minor_source) (driver or pci_order), C(device_file), C(device_present), C(smi_index) and C(smi_name).
      type: list
      elements: dict
    nvswitches:
      description: NVSwitches with C(pci_bus_id), C(device_id), C(model) and C(numa_node).
      type: list
      elements: dict
    npus:
      description:
        - Ascend NPUs by NPU id, each with C(pci_bus_id), C(device_id), C(model), C(gres_type), C(numa_node),
          C(local_cpulist), C(cores), C(index), C(index_source) (npu-smi or pci_order), C(device_file),
          C(device_present), C(smi_name) and C(health).
      type: list
      elements: dict
    nvidia_smi:
      description: C(present) and the C(gpus) rows of C(nvidia-smi --query-gpu=index,pci.bus_id,name,driver_version).
      type: dict
    mig:
      description:
        - MIG, from C(nvidia-smi mig -lgi) and C(-lci); C(gpus) (indices of GPUs with GPU instances), C(devices) (one
          per compute instance, C(gpu), C(gi), C(ci), C(profile) such as C(1g.18gb)) and C(idle_instances) (GPU instances
          without a compute instance). Empty lists without MIG.
      type: dict
    npu_smi:
      description: C(present), C(version) and the C(npus) rows of C(npu-smi info).
      type: dict
    warnings:
      description: What could not be determined (a device without GRES type, CPUs without topology, an nvidia-smi GPU missing from PCI).
      type: list
      elements: str
"""

import json

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aicluster.slurm.plugins.module_utils.accelerators import gather

COMMANDS = {
    "gcc": ["-dumpfullversion", "-dumpversion"],
    "mokutil": ["--sb-state"],
    "nvidia-smi": ["--query-gpu=index,pci.bus_id,name,driver_version", "--format=csv,noheader"],
    # MIG: GPU and compute instances; nvidia-smi fails (None) where no GPU has MIG enabled.
    "nvidia-smi mig -lgi": ["mig", "-lgi"],
    "nvidia-smi mig -lci": ["mig", "-lci"],
    "npu-smi": ["info"],
}


def run_commands(module):
    """Output of each command, None when it is not installed or fails (nvidia-smi fails without a loaded driver)."""
    output = {}
    for name, args in COMMANDS.items():
        path = module.get_bin_path(name.split()[0])
        output[name] = None
        if path:
            rc, out, err = module.run_command([path] + args)
            # mokutil reports "EFI variables are not supported" with rc 255 on legacy boot
            output[name] = out + err if name == "mokutil" else (out if rc == 0 else None)
    return output


def read_recorded(module, path):
    """The recorded commands' output (``{name: text or None}``) from a JSON file; none without a file."""
    if not path:
        return {}
    try:
        with open(path) as handle:
            recorded = json.load(handle)
    except (OSError, ValueError) as exc:
        module.fail_json(msg='recorded_commands=%s: cannot read it as JSON (%s); write it as {"npu-smi": "..."}' % (path, exc))
    if not isinstance(recorded, dict):
        module.fail_json(msg="recorded_commands=%s: must be a JSON object of command name to output" % path)
    return {name: recorded.get(name) for name in COMMANDS}


def main():
    module = AnsibleModule(
        argument_spec={
            "root": {"type": "path", "default": "/"},
            "run_commands": {"type": "bool", "default": True},
            "recorded_commands": {"type": "path"},
        },
        supports_check_mode=True,
    )
    commands = run_commands(module) if module.params["run_commands"] else read_recorded(module, module.params["recorded_commands"])
    facts = gather(module.params["root"], commands)
    for warning in facts["warnings"]:
        module.warn(warning)
    module.exit_json(changed=False, accelerators=facts)


if __name__ == "__main__":
    main()
