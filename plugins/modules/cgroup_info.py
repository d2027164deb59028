#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cgroup_info
short_description: Report the host's cgroup hierarchy and the controllers Slurm needs
version_added: 0.1.0
description:
  - Reads C(/sys/fs/cgroup) and C(/proc/cgroups) and reports whether the host runs cgroup v1 or v2,
    which controllers are available, and which of those Slurm's cgroup plugins need are missing.
  - Changes nothing.
options:
  root:
    description: Where the cgroup hierarchy is mounted.
    type: path
    default: /sys/fs/cgroup
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
- name: Detect the cgroup hierarchy
  aicluster.slurm.cgroup_info:
  register: cgroups

- name: Stop when Slurm cannot constrain jobs here
  ansible.builtin.assert:
    that: cgroups.cgroup.missing | length == 0
    fail_msg: "{{ cgroups.cgroup.message }}"
"""

RETURN = r"""
cgroup:
  description: The hierarchy.
  returned: always
  type: dict
  contains:
    version:
      description: 2 (unified), 1 (legacy or hybrid) or 0 (no hierarchy found).
      type: int
      sample: 2
    plugin:
      description: The Slurm CgroupPlugin that autodetect will choose.
      type: str
      sample: cgroup/v2
    available:
      description: Controllers available to Slurm.
      type: list
      elements: str
      sample: [cpu, cpuset, memory, pids]
    missing:
      description: Controllers Slurm needs that are not available.
      type: list
      elements: str
      sample: []
    message:
      description: What is wrong and how to fix it; empty when nothing is missing.
      type: str
      sample: ""
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aicluster.slurm.plugins.module_utils.cgroups import layout

CGROUP2_SUPER_MAGIC = "cgroup2fs"


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return ""


def _fstype(root):
    """The filesystem type of ``root``, from /proc/self/mountinfo."""
    found = None
    for line in _read("/proc/self/mountinfo").splitlines():
        left, dummy, right = line.partition(" - ")
        fields = left.split()
        if len(fields) >= 5 and fields[4] == root and right:
            found = right.split()[0]
    if found == "cgroup2":
        return CGROUP2_SUPER_MAGIC
    return found


def main():
    module = AnsibleModule(argument_spec={"root": {"type": "path", "default": "/sys/fs/cgroup"}}, supports_check_mode=True)
    root = module.params["root"].rstrip("/") or "/"
    mounted = os.listdir(root) if os.path.isdir(root) else []
    v1_mounted = set()
    for name in mounted:
        v1_mounted.update(name.split(","))
    result = layout(
        _fstype(root),
        proc_cgroups=_read("/proc/cgroups"),
        v2_controllers=_read(os.path.join(root, "cgroup.controllers")),
        v1_mounted=v1_mounted,
    )
    module.exit_json(changed=False, cgroup=result)


if __name__ == "__main__":
    main()
