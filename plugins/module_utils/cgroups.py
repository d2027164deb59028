# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which cgroup hierarchy a host runs, and whether Slurm's plugins can use it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# Controllers Slurm's cgroup plugins need (cgroup.conf(5), "cgroup/v1" and
# "cgroup/v2"): v1 proctrack uses freezer, task/cgroup uses cpuset, memory and
# devices; v2 needs cpuset and memory delegated (devices are eBPF programs there).
REQUIRED_V1 = ("cpuset", "memory", "devices", "freezer")
REQUIRED_V2 = ("cpuset", "memory")


def parse_proc_cgroups(text):
    """Enabled v1 controllers from /proc/cgroups."""
    enabled = []
    for line in (text or "").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        if len(fields) >= 4 and fields[3] == "1":
            enabled.append(fields[0])
    return enabled


def layout(fstype, proc_cgroups="", v2_controllers="", v1_mounted=()):
    """Describe the hierarchy from the type of /sys/fs/cgroup.

    ``fstype`` is what ``stat -f`` reports for /sys/fs/cgroup: ``cgroup2fs``
    (unified, v2) or ``tmpfs`` (v1 or hybrid; Slurm then uses v1).
    """
    if fstype == "cgroup2fs":
        available = (v2_controllers or "").split()
        version, required = 2, REQUIRED_V2
    elif fstype == "tmpfs":
        enabled = set(parse_proc_cgroups(proc_cgroups))
        available = [c for c in sorted(enabled) if not v1_mounted or c in v1_mounted]
        version, required = 1, REQUIRED_V1
    else:
        return {
            "version": 0,
            "plugin": None,
            "available": [],
            "missing": list(REQUIRED_V2),
            "message": "/sys/fs/cgroup is %s, not a cgroup hierarchy; mount cgroup v2 (cgroup2) or v1 controllers" % (fstype or "absent"),
        }
    missing = [c for c in required if c not in available]
    message = ""
    if missing:
        if version == 2:
            message = (
                "cgroup v2 controllers %s are not available in /sys/fs/cgroup/cgroup.controllers; enable them "
                "in the kernel command line or delegate them to the slurmd unit" % ", ".join(missing)
            )
        else:
            message = (
                "cgroup v1 controllers %s are not enabled or mounted under /sys/fs/cgroup; enable them "
                "(cgroup_enable=...) or switch the host to cgroup v2" % ", ".join(missing)
            )
    return {
        "version": version,
        "plugin": "cgroup/v%d" % version,
        "available": sorted(available),
        "missing": missing,
        "message": message,
    }
