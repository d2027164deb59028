# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Driver / kernel / toolkit compatibility checks over accelerator_info facts.

``evaluate(request, facts, today)`` returns findings ``{id, severity,
message, source}``; severity is ``error`` (nothing may be installed),
``warning`` or ``info``. Ids are the research note's (HOST-*, NV-*, ASC-*).
A row tagged U (uncertain) in driver_compat_data never yields an error.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re

from ansible_collections.aicluster.slurm.plugins.module_utils import driver_compat_data as data
from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

PRE_TURING = ("volta", "pascal", "maxwell", "kepler")


def _finding(check_id, severity, message, row=None):
    if row is not None and row.get("tag") == "U" and severity == "error":
        severity = "warning"
        message += " (the data behind this check is unconfirmed, so it is a warning)"
    return finding(check_id, message, severity=severity, source=row.get("source") if row else None)


def version_tuple(value):
    """``535.216.03`` -> (535, 216, 3); None when it is not a dotted version."""
    text = str(value or "").strip()
    if not re.match(r"^\d+(\.\d+)*$", text):
        return None
    return tuple(int(part) for part in text.split("."))


def kernel_tuple(release):
    """``6.12.57+deb13-amd64`` -> (6, 12, 57)."""
    match = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?", str(release or ""))
    if not match:
        return None
    return tuple(int(part or 0) for part in match.groups())


def branch_of(driver):
    return version_tuple(driver)[0]


def fabricmanager_package(driver):
    """Debian/Ubuntu package name of the fabric manager for ``driver`` (renamed at R580)."""
    branch = branch_of(driver)
    if branch >= data.FABRICMANAGER_PACKAGE["renamed_at_branch"]:
        return "nvidia-fabricmanager"
    return "nvidia-fabricmanager-%d" % branch


# --------------------------------------------------------------------------- host


def check_kernel(facts):
    release = (facts.get("kernel") or {}).get("release") or ""
    if "-rc" in release:
        return [
            _finding(
                "HOST-KREL",
                "error",
                "kernel %s is a release candidate; NVIDIA does not support -rc kernels: boot a released kernel" % release,
                {"source": "github.com/NVIDIA/open-gpu-kernel-modules/issues/646", "tag": "V"},
            )
        ]
    return []


def check_build_host(facts, module_build, secure_boot_signing):
    """Headers, compiler and Secure Boot for a module built on the host (DKMS or Ascend's source install)."""
    findings = []
    kernel = facts.get("kernel") or {}
    release = kernel.get("release") or "unknown"
    build = module_build == "dkms"
    if build and not kernel.get("headers"):
        findings.append(
            _finding(
                "HOST-KHDR",
                "error",
                "no headers for the running kernel %s (/lib/modules/%s/build is missing): install linux-headers-%s, "
                "or set module_build=precompiled" % (release, release, release),
                {"source": "Canonical NVIDIA driver installation page (DKMS needs the running kernel's headers)", "tag": "V"},
            )
        )
    wanted, have = kernel.get("compiler_version"), facts.get("gcc_version")
    if build and kernel.get("compiler") == "gcc" and wanted:
        row = {"source": "NVIDIA open-gpu-kernel-modules README (toolchain that built the kernel); pop-os/pop#3117", "tag": "V"}
        if not have:
            findings.append(
                _finding(
                    "HOST-CC", "error", "gcc is not installed; kernel %s was built with gcc %s: install gcc-%s" % (release, wanted, wanted.split(".")[0]), row
                )
            )
        elif have.split(".")[0] != wanted.split(".")[0]:
            findings.append(
                _finding(
                    "HOST-CC",
                    "error",
                    "gcc is %s but kernel %s was built with gcc %s; modules built with another compiler fail "
                    "(-ftrivial-auto-var-init) or misbehave: install gcc-%s" % (have, release, wanted, wanted.split(".")[0]),
                    row,
                )
            )
        elif have != wanted:
            findings.append(_finding("HOST-CC", "warning", "gcc is %s, kernel %s was built with gcc %s (same major)" % (have, release, wanted), row))
    elif build and kernel.get("compiler") not in (None, "gcc"):
        findings.append(_finding("HOST-CC", "warning", "kernel %s was built with %s; check that DKMS uses it" % (release, kernel.get("compiler"))))
    state = facts.get("secure_boot")
    if build and state == "enabled" and not secure_boot_signing:
        findings.append(
            _finding(
                "HOST-SB",
                "error",
                "Secure Boot is enabled and module_build=dkms leaves the module unsigned, so the kernel refuses it: enroll a MOK "
                "and set secure_boot_signing=true, use signed precompiled modules (module_build=precompiled), or disable Secure Boot",
                {"source": "github.com/NVIDIA/open-gpu-kernel-modules/issues/587; Canonical NVIDIA drivers page", "tag": "V"},
            )
        )
    elif build and state is None:
        findings.append(_finding("HOST-SB", "warning", "Secure Boot state unknown (no mokutil, no SecureBoot efivar): a signed module may be required"))
    return findings


# --------------------------------------------------------------------------- NVIDIA


def _cuda_row(cuda):
    parts = cuda.split(".")
    if len(parts) >= 3:
        rows = [row for row in data.CUDA_DRIVER if row["cuda"] == cuda]
    else:
        # "12.4" means the newest 12.4 update: its driver is the strictest.
        rows = [row for row in data.CUDA_DRIVER if row["cuda"].split(".")[:2] == parts[:2]]
    return max(rows, key=lambda row: version_tuple(row["driver"])) if rows else None


def check_cuda(driver, cudas, gpus):
    findings = []
    have = version_tuple(driver)
    for cuda in cudas:
        wanted = version_tuple(cuda)
        if not wanted or len(wanted) < 2:
            findings.append(_finding("NV-CUDA", "error", "cuda=%r is not a CUDA version such as 12.4 or 12.4.1" % cuda))
            continue
        floor = next((row for row in data.CUDA_MVC_FLOOR if row["major"] == wanted[0]), None)
        if floor is None:
            findings.append(_finding("NV-CUDA", "warning", "CUDA %s: major %d is not in the compatibility table; check its driver floor" % (cuda, wanted[0])))
            continue
        if have < version_tuple(floor["driver"]):
            findings.append(
                _finding(
                    "NV-CUDA",
                    "error",
                    "nvidia_driver=%s cannot run CUDA %s: CUDA %d.x needs driver %s or newer; raise nvidia_driver" % (driver, cuda, wanted[0], floor["driver"]),
                    floor,
                )
            )
            continue
        row = _cuda_row(cuda)
        if row is None:
            findings.append(_finding("NV-CUDA", "warning", "CUDA %s is not in the toolkit table; only the CUDA %d.x floor was checked" % (cuda, wanted[0])))
        elif have < version_tuple(row["driver"]):
            findings.append(
                _finding(
                    "NV-CUDA",
                    "warning",
                    "nvidia_driver=%s runs CUDA %s with a limited feature set (minor-version compatibility); driver %s has all of it"
                    % (driver, cuda, row["driver"]),
                    row,
                )
            )
        if wanted[0] >= 13:
            old = sorted({gpu["model"] for gpu in gpus if gpu.get("compute_capability") and version_tuple(gpu["compute_capability"]) < (7, 5)})
            if old:
                findings.append(
                    _finding(
                        "NV-CUDA13-ARCH",
                        "error",
                        "cuda=%s does not support %s (compute capability below 7.5): keep CUDA 12.x for these GPUs" % (cuda, ", ".join(old)),
                        {"source": "github.com/pytorch/pytorch/issues/157517", "tag": "V"},
                    )
                )
    return findings


def check_branch(driver, today):
    branch = branch_of(driver)
    row = next((row for row in data.BRANCHES if row["branch"] == branch), None)
    if row is None:
        return [_finding("NV-EOL", "warning", "nvidia_driver=%s: branch R%d is not in the branch table; check its support status" % (driver, branch))]
    findings = []
    eol = row["eol"]
    if eol == "past" or (eol and eol < today.strftime("%Y-%m")):
        when = "" if eol == "past" else " since %s" % eol
        findings.append(
            _finding(
                "NV-EOL", "warning", "nvidia_driver=%s: branch R%d reached end of life%s; move to a supported LTSB/PB branch" % (driver, branch, when), row
            )
        )
    if row["type"] == "NFB":
        findings.append(
            _finding(
                "NV-EOL", "warning", "nvidia_driver=%s: R%d is a short-lived new feature branch; prefer an LTSB or PB for production" % (driver, branch), row
            )
        )
    return findings


def _gpu_needs(gpus):
    """Rules per GPU kind: [(label, arch_row, product_row)]."""
    needs = []
    seen = set()
    for gpu in gpus:
        key = (gpu.get("arch"), gpu.get("gres_type"))
        if key in seen:
            continue
        seen.add(key)
        arch = next((row for row in data.ARCHITECTURES if row["arch"] == gpu.get("arch")), None)
        product = next((row for row in data.PRODUCTS if row["gres_type"] == gpu.get("gres_type")), None)
        needs.append((gpu.get("model") or gpu.get("gres_type"), arch, product))
    return needs


def check_gpu_rules(driver, flavour, gpus):
    findings = []
    have = version_tuple(driver)
    branch = have[0]
    needs_open, needs_proprietary = [], []
    for label, arch, product in _gpu_needs(gpus):
        if arch and arch["min_branch"] and branch < arch["min_branch"]:
            findings.append(
                _finding(
                    "NV-MINBR",
                    "error",
                    "nvidia_driver=%s is too old for %s (%s needs R%d or newer): raise nvidia_driver" % (driver, label, arch["arch"], arch["min_branch"]),
                    arch,
                )
            )
        if arch and arch["max_branch"] and branch > arch["max_branch"]:
            findings.append(
                _finding(
                    "NV-MINBR",
                    "error",
                    "nvidia_driver=%s no longer supports %s (%s ends at R%d): use R%d" % (driver, label, arch["arch"], arch["max_branch"], arch["max_branch"]),
                    arch,
                )
            )
        if product and product["min_driver"] and have < version_tuple(product["min_driver"]):
            findings.append(
                _finding(
                    "NV-MINBR",
                    "error",
                    "nvidia_driver=%s is below the minimum %s for %s: raise nvidia_driver" % (driver, product["min_driver"], label),
                    product,
                )
            )
        rows = [row for row in (arch, product) if row]
        if any(row["flavour"] == "open_required" for row in rows):
            needs_open.append((label, next(row for row in rows if row["flavour"] == "open_required")))
        if any(row["flavour"] == "proprietary_required" for row in rows):
            needs_proprietary.append((label, next(row for row in rows if row["flavour"] == "proprietary_required")))
    if needs_open and needs_proprietary:
        findings.append(
            _finding(
                "NV-FLAVOR",
                "error",
                "this host mixes GPUs that need the open modules (%s) with GPUs that cannot use them (%s); no driver flavour drives both: "
                "split them across hosts" % (", ".join(label for label, dummy in needs_open), ", ".join(label for label, dummy in needs_proprietary)),
                needs_open[0][1],
            )
        )
    elif flavour == "proprietary" and needs_open:
        label, row = needs_open[0]
        findings.append(_finding("NV-FLAVOR", "error", "nvidia_flavour=proprietary: %s needs the open kernel modules: set nvidia_flavour=open" % label, row))
    elif flavour == "open" and needs_proprietary:
        label, row = needs_proprietary[0]
        findings.append(
            _finding("NV-FLAVOR", "error", "nvidia_flavour=open: %s predates Turing and has no GSP, so it needs nvidia_flavour=proprietary" % label, row)
        )
    if flavour == "proprietary" and branch > 580:
        findings.append(
            _finding(
                "NV-FLAVOR",
                "warning",
                "nvidia_flavour=proprietary with R%d: from R590 NVIDIA documents only the open modules; use nvidia_flavour=open" % branch,
                {"source": "driver-installation-guide/620/kernel-modules.html; NixOS legacy_580 (derived)", "tag": "U"},
            )
        )
    return findings


def known_bad_hit(row, driver):
    """Whether ``driver`` is one of the releases that ``row`` (a KNOWN_BAD row) says fail."""
    if "drivers" in row:
        return driver in row["drivers"]
    have = version_tuple(driver)
    if have[0] not in row["fixed_in"]:
        return False
    fixed = row["fixed_in"][have[0]]
    return fixed is None or have < version_tuple(fixed)


def check_known_bad(driver, flavour, facts):
    kernel = kernel_tuple((facts.get("kernel") or {}).get("release"))
    if kernel is None:
        return []
    findings = []
    for row in data.KNOWN_BAD:
        if not known_bad_hit(row, driver) or (row.get("flavour") and row["flavour"] != flavour) or kernel < kernel_tuple(row["kernel_min"]):
            continue
        fixed = (row.get("fixed_in") or {}).get(branch_of(driver))
        fix = "use %s or newer" % fixed if fixed else "choose another driver release"
        if row.get("severity") == "warning":
            findings.append(
                _finding(
                    "NV-KBAD",
                    "warning",
                    "nvidia_driver=%s on kernel %s: %s; %s" % (driver, facts["kernel"]["release"], row["symptom"], fix),
                    row,
                )
            )
            continue
        findings.append(
            _finding(
                "NV-KBAD",
                "error",
                "nvidia_driver=%s does not build on kernel %s (known breakage from %s: %s): %s"
                % (driver, facts["kernel"]["release"], row["kernel_min"], row["symptom"], fix),
                row,
            )
        )
    return findings


def check_fabricmanager(driver, fabricmanager, facts):
    switches = facts.get("nvswitches") or []
    row = {"source": "github.com/NVIDIA/gpu-operator/issues/544; nvidia/yum-packaging-fabric-manager README", "tag": "V"}
    if not switches:
        if fabricmanager:
            return [_finding("NV-FM", "warning", "fabricmanager=%s is set but this host has no NVSwitch; it needs no fabric manager" % fabricmanager)]
        return []
    package = fabricmanager_package(driver)
    if not fabricmanager:
        return [
            _finding(
                "NV-FM",
                "error",
                "this host has %d NVSwitches: without the fabric manager CUDA fails with error 802; set fabricmanager=%s (package %s)"
                % (len(switches), driver, package),
                row,
            )
        ]
    if fabricmanager != driver:
        return [
            _finding(
                "NV-FM",
                "error",
                "fabricmanager=%s differs from nvidia_driver=%s; the fabric manager refuses to start unless the versions match exactly: "
                "set fabricmanager=%s" % (fabricmanager, driver, driver),
                row,
            )
        ]
    return []


def check_nouveau(facts):
    nouveau = facts.get("nouveau") or {}
    row = {"source": "modprobe.d blacklist + initramfs rebuild (several gists); NVIDIA's own guide not read", "tag": "U"}
    if nouveau.get("loaded"):
        return [
            _finding(
                "NV-NOUVEAU",
                "warning",
                "nouveau is loaded, so the NVIDIA module cannot bind the GPUs: blacklist it (blacklist nouveau in /etc/modprobe.d), "
                "rebuild the initramfs and reboot before using the driver",
                row,
            )
        ]
    if not nouveau.get("blacklisted"):
        return [_finding("NV-NOUVEAU", "info", "nouveau is not blacklisted; the driver installation must blacklist it", row)]
    return []


# --------------------------------------------------------------------------- Ascend


def _hdk_matches(pattern, driver):
    pattern, driver = pattern.lower(), driver.lower()
    if pattern.endswith(".x"):
        return driver.startswith(pattern[:-1])
    return driver == pattern or driver.startswith(pattern + ".")


def check_cann(cann, driver):
    row = next((row for row in data.CANN_HDK if row["cann"].lower() == cann.lower()), None)
    if row is None:
        observed = next((r for r in data.ASCEND_OBSERVED if r["cann"].lower() == cann.lower() and r["driver"].lower() == driver.lower()), None)
        if observed:
            return [_finding("ASC-CANN", "info", "cann=%s with ascend_driver=%s is a pairing seen working (no official matrix row)" % (cann, driver), observed)]
        return [
            _finding("ASC-CANN", "warning", "cann=%s is not in the CANN/HDK table; check Huawei's compatibility list for ascend_driver=%s" % (cann, driver))
        ]
    if any(_hdk_matches(pattern, driver) for pattern in row["hdk"]):
        return []
    return [
        _finding(
            "ASC-CANN",
            "error",
            "cann=%s is not compatible with ascend_driver=%s; it supports HDK %s: change ascend_driver or cann" % (cann, driver, ", ".join(row["hdk"])),
            row,
        )
    ]


def _same_version(listed, actual):
    listed, actual = listed.lower(), actual.lower()
    return actual == listed or actual.startswith(listed + ".") or actual.startswith(listed + " ")


def ascend_os(os_id, os_version, os_release=None, kernel_release=None):
    """The Ascend OS table's ``(os, version)`` for Ansible's distribution facts (Kylin's service pack from its
    codename, UOS Server 20's update from the kernel's patch level); other systems pass through, lower-cased."""
    name = str(os_id or "").strip().lower()
    name = next((row["os"] for row in data.OS_NAMES if row["ansible"] == name), name)
    version = str(os_version or "").strip()
    if name == "kylin" and version.upper() == "V10":
        pack = next((row for row in data.KYLIN_SERVICE_PACKS if row["release"] == str(os_release or "").strip().lower()), None)
        version = pack["version"] if pack else version
    elif name == "uos" and version.upper() in ("20", "V20"):
        patch = re.match(r"^\d+\.\d+\.\d+-(\d+)\.", str(kernel_release or ""))
        update = next((row for row in data.UOS_UPDATES if patch and row["kernel_patch"] == patch.group(1)), None)
        version = update["version"] if update else version
    return name, version


def check_ascend_os(os_id, os_version, facts, allow_unlisted, os_release=None):
    npus = facts.get("npus") or []
    product = npus[0]["gres_type"] if npus and npus[0].get("gres_type") else "910b"
    release = (facts.get("kernel") or {}).get("release") or ""
    if not os_id:
        return [_finding("ASC-OSK", "warning", "os_id is not set, so the Ascend OS/kernel table was not checked: pass ansible_distribution")]
    name, version = ascend_os(os_id, os_version, os_release, release)
    rows = [row for row in data.ASCEND_OS if row["product"] == product and row["os"] == name and _same_version(row["version"], version)]
    if not rows:
        listed = sorted({"%s %s" % (row["os"], row["version"]) for row in data.ASCEND_OS if row["product"] == product})
        seen = "%s %s" % (os_id, os_version) + (" (%s)" % os_release if os_release else "")
        return [
            _finding(
                "ASC-OSK",
                "warning" if allow_unlisted else "error",
                "%s, read as %s %s, is not a listed OS for Ascend %s (listed: %s); use a listed OS, or set allow_unlisted_os=true to try anyway"
                % (seen, name, version, product, "; ".join(listed)),
                {"source": data.ASCEND_OS[0]["source"], "tag": "V"},
            )
        ]
    if any(row["kernel"] and row["kernel"] == release and row["install"] == "binary" for row in rows):
        return []
    return [_finding("ASC-OSK", "info", "Ascend %s on %s %s builds the driver from source against kernel %s" % (product, name, version, release), rows[0])]


def check_firmware(driver, firmware, firmware_range, facts):
    installed = facts.get("ascend_driver") or {}
    if not firmware_range and installed.get("version") and installed["version"].lower() == driver.lower():
        firmware_range = installed.get("firmware_range")
    if firmware_range:
        low, high = (version_tuple(bound) for bound in firmware_range)
        have = version_tuple(firmware)
        if None in (low, high, have):
            return [_finding("ASC-FWRANGE", "error", "ascend_firmware=%s or ascend_firmware_range=%s is not a dotted version" % (firmware, firmware_range))]
        if not (low <= have and have[: len(high)] <= high):
            return [
                _finding(
                    "ASC-FWRANGE",
                    "error",
                    "ascend_firmware=%s is outside the range %s-%s that ascend_driver=%s declares (compatible_version_fw): change ascend_firmware"
                    % (firmware, firmware_range[0], firmware_range[1], driver),
                    {"source": "gitcode.com/Ascend/memcache test/ut/mock/cann/version.info (format)", "tag": "U"},
                )
            ]
        return []
    observed = next((row for row in data.ASCEND_OBSERVED if row["driver"].lower() == driver.lower()), None)
    if observed and observed["firmware"] != firmware:
        return [
            _finding(
                "ASC-FWRANGE",
                "warning",
                "ascend_firmware=%s: ascend_driver=%s was seen working with firmware %s; give ascend_firmware_range from the driver's version.info"
                % (firmware, driver, observed["firmware"]),
                observed,
            )
        ]
    if not observed:
        return [_finding("ASC-FWRANGE", "warning", "no firmware range known for ascend_driver=%s: give ascend_firmware_range (compatible_version_fw)" % driver)]
    return []


# --------------------------------------------------------------------------- all


def check_data_age(today):
    """A warning once the data is more than a year older than ``today``: newer releases are unknown to it."""
    as_of = datetime.datetime.strptime(data.AS_OF, "%Y-%m-%d").date()
    if (today - as_of).days <= data.MAX_AGE_DAYS:
        return []
    return [
        _finding(
            "DATA-AGE",
            "warning",
            "the compatibility data is as of %s, more than %d days before %s: drivers, kernels and CANN releases since then are unknown "
            "to it; refresh plugins/module_utils/driver_compat_data.py (docs/accelerators.md, 'Refreshing the data')"
            % (data.AS_OF, data.MAX_AGE_DAYS, today.isoformat()),
        )
    ]


def _bad_versions(request):
    findings = []
    for key in ("nvidia_driver", "fabricmanager"):
        value = request.get(key)
        if value and (version_tuple(value) is None or len(version_tuple(value)) < 2):
            findings.append(_finding("INPUT", "error", "%s=%r is not a driver version such as 550.163.01" % (key, value)))
    return findings


def evaluate(request, facts, today=None):
    """All findings for ``request`` (the module's options) on a host with ``facts`` (accelerator_info's result)."""
    today = today or datetime.date.today()
    facts = facts or {}
    findings = _bad_versions(request)
    if findings:
        return findings
    driver = request.get("nvidia_driver")
    flavour = request.get("nvidia_flavour") or "open"
    ascend = request.get("ascend_driver")
    gpus = facts.get("gpus") or []
    if driver or ascend:
        findings += check_data_age(today)
        findings += check_kernel(facts)
        findings += check_build_host(facts, request.get("module_build") or "dkms", request.get("secure_boot_signing"))
    if driver:
        if not gpus:
            findings.append(_finding("NV-INV", "warning", "nvidia_driver=%s is requested but this host has no NVIDIA GPU on its PCI bus" % driver))
        findings += check_nouveau(facts) if gpus else []
        findings += check_cuda(driver, request.get("cuda") or [], gpus)
        findings += check_branch(driver, today)
        findings += check_gpu_rules(driver, flavour, gpus)
        findings += check_known_bad(driver, flavour, facts)
        findings += check_fabricmanager(driver, request.get("fabricmanager"), facts)
    elif request.get("cuda") or request.get("fabricmanager"):
        findings.append(_finding("INPUT", "error", "cuda and fabricmanager need nvidia_driver: set nvidia_driver to the driver to install"))
    if ascend:
        if not facts.get("npus"):
            findings.append(_finding("ASC-INV", "warning", "ascend_driver=%s is requested but this host has no Ascend NPU on its PCI bus" % ascend))
        if request.get("cann"):
            findings += check_cann(request["cann"], ascend)
        findings += check_ascend_os(request.get("os_id"), request.get("os_version"), facts, request.get("allow_unlisted_os"), request.get("os_release"))
        if request.get("ascend_firmware"):
            findings += check_firmware(ascend, request["ascend_firmware"], request.get("ascend_firmware_range"), facts)
    elif request.get("cann") or request.get("ascend_firmware"):
        findings.append(_finding("INPUT", "error", "cann and ascend_firmware need ascend_driver: set ascend_driver to the driver to install"))
    return findings


def split(findings, skip=()):
    """``(kept, skipped)``: findings whose id is in ``skip`` are set aside (and reported as skipped)."""
    skip = set(skip or ())
    return [f for f in findings if f["id"] not in skip], [f for f in findings if f["id"] in skip]
