# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the nvidia_driver role installs, and how it checks the result.

Two sources:

* ``debian``: Debian's own non-free/contrib packages. Trixie has two driver
  series: ``nvidia-graphics-drivers-tesla-535`` (binary packages
  ``nvidia-tesla-535-*``) and ``nvidia-graphics-drivers`` (550, binary packages
  without a branch in their names). Only the compute parts are installed (no X
  server): the DKMS kernel module, nvidia-smi, libcuda and NVML, the GSP
  firmware, and nvidia-persistenced. Debian has no fabric manager.
* ``nvidia_repo``: NVIDIA's CUDA apt repository (or a mirror of it), with the
  compute-only set of NVIDIA's installation guide: ``nvidia-driver-cuda`` and
  ``nvidia-kernel-open-dkms`` (open) or ``nvidia-kernel-dkms`` (proprietary);
  the fabric manager is ``nvidia-fabricmanager-<branch>`` before R580 and
  ``nvidia-fabricmanager`` from R580 (reference/driver-compat.md 1.5, 1.7).

Every package that carries the driver's version is pinned to it
(``name=<version>-*``) and held, so an upgrade cannot move the driver away from
the fabric manager, nvidia-persistenced (NVIDIA's repository) or the kernel
module away from the userland.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

VERSION = re.compile(r"^(\d{3})\.\d+(\.\d+)?$")

# Debian trixie: branch -> (flavour -> kernel module package, versioned userland, unversioned userland).
DEBIAN = {
    "535": {
        "kernel": {"proprietary": "nvidia-tesla-535-kernel-dkms"},
        "versioned": ["nvidia-tesla-535-smi", "libnvidia-tesla-535-cuda1", "libnvidia-tesla-535-ml1", "firmware-nvidia-tesla-535-gsp"],
    },
    "550": {
        "kernel": {"proprietary": "nvidia-kernel-dkms", "open": "nvidia-open-kernel-dkms"},
        "versioned": ["nvidia-smi", "libcuda1", "libnvidia-ml1", "firmware-nvidia-gsp"],
    },
}
# Debian's nvidia-persistenced is its own source package (550.x, serving both series), so it is not pinned there;
# NVIDIA's repository versions it with the driver, so there it is pinned and held like the driver.
UNVERSIONED = ["nvidia-persistenced"]


class NvidiaDriverError(ValueError):
    """No package plan exists for these settings; the message names the variable, the value and the fix."""


def _fail(variable, value, fix):
    raise NvidiaDriverError("%s=%r: %s" % (variable, value, fix))


def nvidia_driver_packages(version, source="debian", flavour="open", fabricmanager=False):
    """The packages to install for one driver version: ``{install, hold, fabricmanager}``.

    ``install`` entries are apt specs (``name=<version>-*`` where the package
    carries the driver's version); ``hold`` are the package names to hold.
    Bad input raises an error that names the variable and the fix.
    """
    version = str(version or "")
    match = VERSION.match(version)
    if not match:
        _fail("nvidia_driver_version", version, "give the full driver version, e.g. 550.163.01 (accelerator_versions.nvidia_driver)")
    branch = match.group(1)
    if flavour not in ("open", "proprietary"):
        _fail("nvidia_driver_flavour", flavour, "use open or proprietary")
    if source == "debian":
        series = DEBIAN.get(branch)
        if series is None:
            _fail(
                "nvidia_driver_version",
                version,
                "Debian 13 packages the 535 (nvidia-tesla-535) and 550 (nvidia-driver) series only; "
                "pick one of those, or set nvidia_driver_source: nvidia_repo with nvidia_driver_repo_url",
            )
        kernel = series["kernel"].get(flavour)
        if kernel is None:
            _fail(
                "nvidia_driver_flavour",
                flavour,
                "Debian 13 has no %s kernel module for the %s series; use %s" % (flavour, branch, " or ".join(sorted(series["kernel"]))),
            )
        if fabricmanager:
            _fail(
                "nvidia_driver_source",
                source,
                "this host has NVSwitches and needs the fabric manager, which Debian does not package; "
                "set nvidia_driver_source: nvidia_repo (NVIDIA's CUDA repository or a mirror)",
            )
        versioned = [kernel] + series["versioned"]
        unversioned = UNVERSIONED
        fm_package = None
    elif source == "nvidia_repo":
        kernel = "nvidia-kernel-open-dkms" if flavour == "open" else "nvidia-kernel-dkms"
        versioned = [kernel, "nvidia-driver-cuda", "nvidia-persistenced"]
        unversioned = []
        fm_package = None
        if fabricmanager:
            # NSCQ (NVSwitch configuration and query, read by DCGM) goes with the fabric manager, at the same version.
            suffix = "" if int(branch) >= 580 else "-%s" % branch
            fm_package = "nvidia-fabricmanager" + suffix
            versioned += [fm_package, "libnvidia-nscq" + suffix]
    else:
        _fail("nvidia_driver_source", source, "use debian or nvidia_repo")
    return {
        "install": ["%s=%s-*" % (name, version) for name in versioned] + unversioned,
        "hold": versioned,
        "fabricmanager": fm_package,
    }


def nvidia_plan_problems(version, source="debian", flavour="open", fabricmanager=False):
    """Why no package plan exists for these settings (the message names the variable and the fix); empty when one does."""
    try:
        nvidia_driver_packages(version, source, flavour, fabricmanager)
    except NvidiaDriverError as exc:
        return [str(exc)]
    return []


def nvidia_apt_problems(madison, packages, version):
    """Packages of ``packages`` (apt specs) that apt cannot install at ``version``.

    ``madison``: the output of ``apt-cache madison <names>`` (``name | version | source`` lines).
    Returns one message per missing package, naming the versions apt has.
    """
    available = {}
    for line in (madison or "").splitlines():
        parts = [part.strip() for part in line.split("|")]
        if len(parts) >= 2 and parts[0]:
            available.setdefault(parts[0], []).append(parts[1])
    problems = []
    for spec in packages:
        name, _sep, wanted = spec.partition("=")
        versions = available.get(name, [])
        if not versions:
            problems.append("%s is not in this host's apt sources" % name)
        elif wanted and not any(found.startswith(str(version) + "-") for found in versions):
            problems.append("%s %s is not available (apt has %s)" % (name, version, ", ".join(versions)))
    return problems


def nvidia_dkms_missing(dkms_status, version, kernels):
    """Kernels of ``kernels`` for which ``dkms status`` shows no installed build of ``version``.

    ``dkms status`` lines look like ``nvidia-tesla-535/535.274.02, 6.12.117+deb13-amd64, x86_64: installed``.
    """
    built = set()
    for line in (dkms_status or "").splitlines():
        head, _sep, state = line.rpartition(":")
        fields = [field.strip() for field in head.split(",")]
        if state.strip().startswith("installed") and len(fields) >= 2 and fields[0].endswith("/" + str(version)):
            built.add(fields[1])
    return [kernel for kernel in kernels if kernel not in built]


# Every kernel module package of either source: what says which driver a host has installed.
KERNEL_PACKAGES = frozenset([kernel for series in DEBIAN.values() for kernel in series["kernel"].values()] + ["nvidia-kernel-open-dkms", "nvidia-kernel-dkms"])
# Packages built from a driver release (both sources): a driver change removes those at the old version.
_DRIVER_PACKAGE = re.compile(r"^(lib)?nvidia|^firmware-nvidia|^xserver-xorg-video-nvidia")


def _upstream(version):
    """``535.274.02`` of a Debian version such as ``1:535.274.02-1~deb13u1``."""
    return str(version).split(":", 1)[-1].split("-", 1)[0]


def parse_dpkg(text):
    """``{name: (version, installed, held)}`` from ``dpkg-query -W -f '${Package}|${Version}|${db:Status-Abbrev}\\n'``."""
    packages = {}
    for line in (text or "").splitlines():
        fields = line.split("|")
        if len(fields) >= 3 and fields[0]:
            status = fields[2]
            packages[fields[0].split(":", 1)[0]] = (fields[1], status[1:2] == "i", status[:1] == "h")
    return packages


def nvidia_driver_change(dpkg, version):
    """What changing this host's driver to ``version`` takes: ``{from, to, needed, remove, unhold, problems}``.

    ``dpkg``: ``dpkg-query -W -f '${Package}|${Version}|${db:Status-Abbrev}\\n'`` of the host.
    ``from`` is the installed kernel module's version ('' when none is
    installed: a first install, which is no change). ``remove``: every
    installed driver package at ``from`` (the new plan installs its own);
    ``unhold``: the held driver packages. ``problems``: several drivers
    installed at once, which no plan untangles.
    """
    packages = parse_dpkg(dpkg)
    installed = dict((name, _upstream(found)) for name, (found, is_installed, _held) in packages.items() if is_installed)
    versions = sorted(set(installed[name] for name in KERNEL_PACKAGES if name in installed))
    problems = []
    if len(versions) > 1:
        problems.append(
            "this host has NVIDIA kernel modules of %s installed at once (%s); remove all but one with apt before changing the driver"
            % (" and ".join(versions), ", ".join(sorted("%s %s" % (name, installed[name]) for name in KERNEL_PACKAGES if name in installed)))
        )
    current = versions[0] if len(versions) == 1 else ""
    needed = bool(current) and current != str(version)
    return {
        "from": current,
        "to": str(version),
        "needed": needed,
        "remove": sorted(name for name, found in installed.items() if needed and found == current and _DRIVER_PACKAGE.match(name)),
        "unhold": sorted(name for name, (_v, _i, held) in packages.items() if needed and held and _DRIVER_PACKAGE.match(name)),
        "problems": problems,
    }


def nvidia_removal_extra(simulation, remove):
    """Packages ``apt-get -s remove`` would take away besides ``remove`` (the dependents of the old driver)."""
    taken = set(re.findall(r"^(?:Remv|Purg) (\S+)", simulation or "", re.M))
    return sorted(taken - set(remove))


def nvidia_pinned_packages(version, source="debian", flavour="open"):
    """The packages that must carry the driver's exact version (the health check compares them): the plan's held ones,
    with the fabric manager and NSCQ where the source has them (absent ones are not checked). Empty on bad settings."""
    try:
        return nvidia_driver_packages(version, source, flavour, source == "nvidia_repo")["hold"]
    except NvidiaDriverError:
        return []


def nvidia_change_problems(dpkg, version, hold, remove=()):
    """After a driver change: planned packages (``hold``) not installed at ``version`` or not held, and packages of
    the old driver (``remove``) still installed. ``dpkg`` as for nvidia_driver_change."""
    packages = parse_dpkg(dpkg)
    problems = []
    for name in hold:
        found, installed, held = packages.get(name, ("", False, False))
        if not installed or _upstream(found) != str(version):
            problems.append("%s is %s, not %s" % (name, ("at " + found) if installed else "not installed", version))
        elif not held:
            problems.append("%s %s is not held" % (name, found))
    left = [name for name in remove if packages.get(name, ("", False, False))[1] and name not in hold]
    if left:
        problems.append("the old driver's %s still installed" % ", ".join(left))
    return problems
