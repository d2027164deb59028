# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node health checker's configuration (roles/healthcheck/files/aicluster_nhc.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import preflight

CHECKS = ("gres_devices", "smi", "xid", "ib_ports", "disk_free", "memory", "munge", "clock", "driver", "npu_links")


class HealthcheckError(ValueError):
    """A bad healthcheck_skip or healthcheck_disk_free_mb; the message names the variable, the value and the fix."""


def _mib(path, value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0 or isinstance(value, bool):
        raise HealthcheckError(
            "healthcheck_disk_free_mb: %s: %r is not a whole number of MiB; give the free space the path must keep, e.g. 1024" % (path, value)
        )
    return number


def healthcheck_settings(settings):
    """The role's variables, checked: preflight calls it before any host is changed."""
    skip = list(settings.get("skip") or [])
    unknown = sorted(set(skip) - set(CHECKS))
    if unknown:
        raise HealthcheckError("healthcheck_skip: %s not a check; the checks are %s" % (", ".join(unknown), ", ".join(CHECKS)))
    disk_free = {str(path): _mib(path, mib) for path, mib in sorted((settings.get("disk_free_mb") or {}).items())}
    return dict(settings, skip=skip, disk_free_mb=disk_free)


def healthcheck_config(node, settings):
    """The checks one node runs, as the checker reads them (JSON).

    ``node``: ``{name, real_memory_mb, gpu_files, driver, npu_links}`` from the slurm.conf model (``driver``:
    ``{version, packages}`` where the nvidia_driver role installs a driver, the packages pinned to its version;
    ``npu_links``: ``{command, devices}`` where cann_driver sets the NPUs' RoCE addresses);
    ``settings``: the role's variables (timeout, state_dir, disk_free_mb,
    ib_rate_gbps, ib_hcas, skip). A node with GPUs also checks nvidia-smi
    and new XID errors; every node checks its disks, memory, munge, clock and
    InfiniBand ports (none found: nothing to check).
    """
    settings = healthcheck_settings(settings)
    skip = settings["skip"]
    gpu_files = list(node.get("gpu_files") or [])
    # Commands are the checker's own defaults (aicluster_nhc.CHECK_OPTIONS).
    checks = {
        "disk_free": {"paths": settings["disk_free_mb"]},
        "memory": {"real_memory_mb": int(node["real_memory_mb"])},
        "munge": {},
        "clock": {},
        "ib_ports": {"sysfs": "/sys/class/infiniband"},
    }
    if settings.get("ib_rate_gbps"):
        checks["ib_ports"]["rate_gbps"] = int(settings["ib_rate_gbps"])
    if settings.get("ib_hcas"):
        checks["ib_ports"]["hcas"] = list(settings["ib_hcas"])
    if gpu_files:
        checks["gres_devices"] = {"files": gpu_files}
        checks["smi"] = {"expect_count": len(gpu_files)}
        checks["xid"] = {}
    driver = node.get("driver") or {}
    if driver.get("version"):
        checks["driver"] = {"version": str(driver["version"]), "packages": list(driver.get("packages") or []), "gdr": bool(driver.get("gdr"))}
    links = node.get("npu_links") or {}
    if links.get("devices"):
        checks["npu_links"] = {"command": [str(links["command"])], "devices": [int(device) for device in links["devices"]]}
    return {
        "node": node["name"],
        "timeout": int(settings.get("timeout") or 10),
        "state_dir": settings.get("state_dir") or "/var/lib/aicluster-nhc",
        "scontrol": "scontrol",
        "checks": {name: check for name, check in sorted(checks.items()) if name not in skip},
    }


def healthcheck_findings(settings):
    """healthcheck_settings' errors as preflight findings."""
    return preflight.findings_of("healthcheck", "healthcheck_skip/healthcheck_disk_free_mb", healthcheck_settings, settings)
