# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ascend driver, firmware and CANN packages for roles/cann_driver: input checks, checksums, installed versions, plan.

Every check returns findings ``{id, message}`` (``id`` is the variable at
fault) so the role can stop before anything is installed, with a message that
names the variable, the value seen and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import posixpath
import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding as shared_finding

# Huawei's first-install order (driver-compat reference, section 2.3).
COMPONENTS = ("driver", "firmware", "toolkit", "kernels")
# driver_compat option fed by each component's version.
COMPAT_OPTIONS = {"driver": "ascend_driver", "firmware": "ascend_firmware", "toolkit": "cann"}
# Key of the installed version in each component's version file. The kernels'
# ``Version=`` is an internal build number (8.3.T5.0.B028); ``version_dir`` is
# the CANN version the package carries.
VERSION_KEYS = {"driver": ("Version",), "firmware": ("Version",), "toolkit": ("version",), "kernels": ("version_dir",)}
PACKAGE_KEYS = ("component", "file", "sha256", "version")
SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")
VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._-]*$")


def finding(variable, message):
    return shared_finding(variable, message, variable)


def label(index, entry):
    component = entry.get("component") if isinstance(entry, dict) else None
    return "cann_driver_packages[%d]%s" % (index, " (%s)" % component if component else "")


def entry_findings(index, entry):
    """What is wrong with one ``cann_driver_packages`` entry."""
    name = label(index, entry)
    if not isinstance(entry, dict):
        return [finding("cann_driver_packages", "%s=%r is not a mapping; give {component, file, sha256, version}" % (name, entry))]
    found = []
    unknown = sorted(set(entry) - set(PACKAGE_KEYS))
    missing = [key for key in PACKAGE_KEYS if entry.get(key) in (None, "")]
    if unknown:
        found.append(finding("cann_driver_packages", "%s has unknown keys %s; the keys are %s" % (name, ", ".join(unknown), ", ".join(PACKAGE_KEYS))))
    if missing:
        found.append(finding("cann_driver_packages", "%s has no %s; give %s" % (name, ", ".join(missing), ", ".join(PACKAGE_KEYS))))
    component, file, sha256, version = (entry.get(key) for key in PACKAGE_KEYS)
    if component not in (None, "") and component not in COMPONENTS:
        found.append(finding("cann_driver_packages", "%s: component=%r is not a component; use one of %s" % (name, component, ", ".join(COMPONENTS))))
    if file not in (None, "") and (not isinstance(file, str) or "/" in file or not file.endswith(".run") or file.startswith(".")):
        found.append(
            finding(
                "cann_driver_packages",
                "%s: file=%r is not the name of a .run package; give the file name only (it is looked up in cann_driver_artifact_dir), "
                "e.g. Ascend-cann-toolkit_8.0.0_linux-x86_64.run" % (name, file),
            )
        )
    if sha256 not in (None, "") and not (isinstance(sha256, str) and SHA256.match(sha256)):
        found.append(finding("cann_driver_packages", "%s: sha256=%r is not a sha256 (64 hex digits); run sha256sum on the .run file" % (name, sha256)))
    if version not in (None, ""):
        if not isinstance(version, str):
            # YAML reads 8.10 as the number 8.1: the version would silently change.
            found.append(
                finding(
                    "cann_driver_packages", '%s: version=%r is a %s, not a string; quote it (version: "%s")' % (name, version, type(version).__name__, version)
                )
            )
        elif not VERSION.match(version):
            found.append(
                finding(
                    "cann_driver_packages", "%s: version=%r is not a version such as 24.1.RC3 or 8.0.0; give the version the package installs" % (name, version)
                )
            )
    return found


def cann_input_findings(settings):
    """Findings for the role's variables; pure: nothing is read from any host.

    ``settings``: ``artifact_dir``, ``packages``, ``install_path``,
    ``cache_dir``, ``user_uid``, ``user_gid``, ``set_env``.
    """
    found = []
    for variable in ("artifact_dir", "install_path", "cache_dir", "set_env"):
        value = settings.get(variable)
        if not isinstance(value, str) or not value.startswith("/"):
            hint = "the directory on the control machine that holds the .run packages" if variable == "artifact_dir" else "an absolute path"
            found.append(finding("cann_driver_" + variable, "cann_driver_%s=%r is not an absolute path; give %s" % (variable, value, hint)))
    for variable in ("user_uid", "user_gid"):
        value = settings.get(variable)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            found.append(
                finding("cann_driver_" + variable, "cann_driver_%s=%r is not a positive id; give a number free on every node, or null" % (variable, value))
            )
    packages = settings.get("packages")
    if not isinstance(packages, list) or not packages:
        found.append(
            finding(
                "cann_driver_packages",
                "cann_driver_packages=%r lists no package; list the driver, firmware, toolkit and kernels .run files "
                "as {component, file, sha256, version}" % (packages,),
            )
        )
        return found
    for index, entry in enumerate(packages):
        found += entry_findings(index, entry)
    components = [entry.get("component") for entry in packages if isinstance(entry, dict)]
    for component in COMPONENTS:
        if components.count(component) > 1:
            found.append(
                finding(
                    "cann_driver_packages",
                    "cann_driver_packages lists component=%s %d times; keep one entry per component" % (component, components.count(component)),
                )
            )
    by_component = {entry.get("component"): entry for entry in packages if isinstance(entry, dict)}
    if "firmware" in by_component and "driver" not in by_component:
        found.append(finding("cann_driver_packages", "cann_driver_packages has a firmware entry but no driver; add the driver entry of the same Ascend HDK"))
    if "kernels" in by_component:
        toolkit = by_component.get("toolkit")
        if not toolkit:
            found.append(
                finding("cann_driver_packages", "cann_driver_packages has a kernels entry but no toolkit; the kernels install into the toolkit: add it")
            )
        elif str(toolkit.get("version")) != str(by_component["kernels"].get("version")):
            found.append(
                finding(
                    "cann_driver_packages",
                    "cann_driver_packages: kernels version=%s differs from toolkit version=%s; use the kernels package of the same CANN release"
                    % (by_component["kernels"].get("version"), toolkit.get("version")),
                )
            )
    return found


def cann_artifacts(packages, artifact_dir):
    """``[{index, component, file, path, sha256}]``: where each package is on the control machine."""
    return [
        {
            "index": index,
            "component": entry["component"],
            "file": entry["file"],
            "path": posixpath.join(artifact_dir, entry["file"]),
            "sha256": entry["sha256"].lower(),
        }
        for index, entry in enumerate(packages)
    ]


def cann_checksum_findings(artifacts, stat_results):
    """Findings for files missing from the artifact directory or whose sha256 differs from the list.

    ``stat_results``: the ``results`` of a looped ``ansible.builtin.stat``
    (``checksum_algorithm: sha256``) over the artifacts' paths, in any order.
    """
    stats = {result["item"]: result.get("stat") or {} for result in stat_results}
    found = []
    for artifact in artifacts:
        name = label(artifact["index"], artifact)
        stat = stats.get(artifact["path"])
        if stat is None:
            found.append(finding("cann_driver_packages", "%s: %s was not checked on the control machine" % (name, artifact["path"])))
        elif not stat.get("exists"):
            found.append(
                finding(
                    "cann_driver_artifact_dir",
                    "%s: file=%s is not in cann_driver_artifact_dir=%s on the control machine; copy the package there or correct file"
                    % (name, artifact["file"], posixpath.dirname(artifact["path"])),
                )
            )
        elif not stat.get("isreg"):
            found.append(finding("cann_driver_artifact_dir", "%s: %s is not a regular file; give the .run package itself" % (name, artifact["path"])))
        elif stat.get("checksum") != artifact["sha256"]:
            found.append(
                finding(
                    "cann_driver_packages",
                    "%s: %s has sha256 %s, not sha256=%s; the file is damaged or the list is stale: download the package again, "
                    "or set sha256 to the checksum published with it" % (name, artifact["path"], stat.get("checksum"), artifact["sha256"]),
                )
            )
    return found


def cann_version_files(install_path, architecture):
    """Where each component records its installed version (paths from the driver-compat reference, section 3 ASC-CANN)."""
    toolkit = posixpath.join(install_path, "ascend-toolkit", "latest")
    return {
        "driver": posixpath.join(install_path, "driver", "version.info"),
        "firmware": posixpath.join(install_path, "firmware", "version.info"),
        "toolkit": posixpath.join(toolkit, "%s-linux" % architecture, "ascend_toolkit_install.info"),
        "kernels": posixpath.join(toolkit, "opp_kernel", "version.info"),
    }


def parse_key(text, keys):
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() in keys and value.strip():
            return value.strip().strip('"')
    return None


def cann_installed_versions(output, version_files):
    """``{component: version or None}`` from the reader's output: ``### <path>`` then the file's text, per readable file."""
    texts, current = {}, None
    for line in (output or "").splitlines():
        if line.startswith("### "):
            current = line[4:].strip()
            texts[current] = []
        elif current is not None:
            texts[current].append(line)
    return {component: parse_key("\n".join(texts.get(path, [])), VERSION_KEYS[component]) for component, path in version_files.items()}


def cann_same_version(installed, wanted):
    """The installed version is the one wanted: case aside (the driver writes 24.1.rc3), or with a build suffix (24.1.rc3.b030)."""
    if not installed or not wanted:
        return False
    installed, wanted = str(installed).lower(), str(wanted).lower()
    return installed == wanted or re.match(re.escape(wanted) + r"\.b\d+$", installed) is not None


def cann_compat_request(packages, installed):
    """The versions for aicluster.slurm.driver_compat: the list's, or the installed driver's when the list has none.

    Returns ``{ascend_driver, ascend_firmware, cann}`` without the unknown ones;
    empty when no driver version is known (driver_compat checks nothing then).
    """
    request = {COMPAT_OPTIONS[entry["component"]]: str(entry["version"]) for entry in packages if entry["component"] in COMPAT_OPTIONS}
    if "ascend_driver" not in request and (installed or {}).get("driver"):
        request["ascend_driver"] = installed["driver"]
    return request if "ascend_driver" in request else {}


def cann_plan(packages, installed):
    """The packages in install order, each with ``installed`` (version or None) and ``mode``.

    ``mode``: ``full`` (first driver/firmware install), ``upgrade`` (another
    driver/firmware version is installed), ``install`` (toolkit, kernels) or
    None (the version is installed: nothing to do). Order: driver, firmware,
    toolkit, kernels; when a driver is installed (an upgrade) Huawei upgrades
    the firmware first.
    """
    installed = installed or {}
    order = ("firmware", "driver", "toolkit", "kernels") if installed.get("driver") else COMPONENTS
    by_component = {entry["component"]: entry for entry in packages}
    plan = []
    for component in order:
        entry = by_component.get(component)
        if not entry:
            continue
        current = installed.get(component)
        if cann_same_version(current, entry["version"]):
            mode = None
        elif component in ("driver", "firmware"):
            mode = "upgrade" if current else "full"
        else:
            mode = "install"
        plan.append(dict(entry, version=str(entry["version"]), sha256=entry["sha256"].lower(), installed=current, mode=mode))
    return plan


def cann_installed_findings(plan, installed):
    """After the install: each package installed the version the list declares (else every run would reinstall it)."""
    found = []
    for entry in plan:
        if entry["mode"] and not cann_same_version(installed.get(entry["component"]), entry["version"]):
            found.append(
                finding(
                    "cann_driver_packages",
                    "%s installed version %s, not version=%s; set version in cann_driver_packages to the version the package installs"
                    % (entry["file"], installed.get(entry["component"]), entry["version"]),
                )
            )
    return found


# driver_compat's option names, as the role's variables name them.
ROLE_NAMES = {
    "ascend_driver": "driver.version",
    "ascend_firmware": "firmware.version",
    "cann": "toolkit.version",
    "ascend_firmware_range": "cann_driver_firmware_range",
    "module_build": "cann_driver_module_build",
    "secure_boot_signing": "cann_driver_secure_boot_signing",
    "allow_unlisted_os": "cann_driver_allow_unlisted_os",
}
OPTION_NAME = re.compile(r"\b(%s)\b" % "|".join(sorted(ROLE_NAMES, key=len, reverse=True)))


def cann_compat_lines(findings):
    """driver_compat's findings as ``[id] cann_driver_packages: message`` lines that name the role's variables."""
    return ["[%s] cann_driver_packages: %s" % (item["id"], OPTION_NAME.sub(lambda match: ROLE_NAMES[match.group(1)], item["message"])) for item in findings]


# ---------------------------------------------------------------- the NPUs' RoCE ports (hccn_tool)

# hccn_tool keeps each NPU's settings in /etc/hccn.conf as <key>_<device id>=<value>.
HCCN_KEYS = ("address", "netmask", "gateway", "netdetect")


def _ipv4(value):
    try:
        return ipaddress.IPv4Address(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _netmask(value):
    try:
        return ipaddress.IPv4Network("0.0.0.0/%s" % value).prefixlen if isinstance(value, str) and _ipv4(value) else None
    except ValueError:
        return None


def npu_network_findings(settings, others=None, npu_count=0):
    """What is wrong with one host's NPU network plan, checked before any port changes.

    ``settings``: ``{addresses, netmask, gateway, netdetect}`` (the
    cann_driver_npu_* variables; addresses[i] is NPU i's address);
    ``others``: ``{host: addresses}`` of the other hosts, for duplicates;
    ``npu_count``: the NPUs on the host's PCI bus (0: unknown).
    """
    addresses = settings.get("addresses") or []
    if not addresses:
        return []
    found = []
    if not isinstance(addresses, list):
        return [finding("cann_driver_npu_addresses", "cann_driver_npu_addresses=%r is not a list; give one IPv4 address per NPU, NPU 0 first" % (addresses,))]
    netmask = settings.get("netmask")
    prefix = _netmask(netmask)
    if prefix is None:
        found.append(
            finding(
                "cann_driver_npu_netmask", "cann_driver_npu_netmask=%r is not an IPv4 netmask; give the RoCE subnet's mask, e.g. 255.255.255.0" % (netmask,)
            )
        )
    parsed = []
    for index, value in enumerate(addresses):
        address = _ipv4(value)
        if address is None:
            found.append(
                finding(
                    "cann_driver_npu_addresses", "cann_driver_npu_addresses[%d]=%r is not an IPv4 address; give NPU %d's RoCE address" % (index, value, index)
                )
            )
            continue
        parsed.append((index, address))
        if prefix is not None and prefix < 31:
            network = ipaddress.IPv4Network("%s/%d" % (address, prefix), strict=False)
            if address in (network.network_address, network.broadcast_address):
                found.append(
                    finding(
                        "cann_driver_npu_addresses",
                        "cann_driver_npu_addresses[%d]=%s is the %s address of %s; give a host address"
                        % (index, address, "network" if address == network.network_address else "broadcast", network),
                    )
                )
    seen = {}
    for index, address in parsed:
        if address in seen:
            found.append(
                finding(
                    "cann_driver_npu_addresses",
                    "cann_driver_npu_addresses[%d]=%s is also NPU %d's address; every NPU needs its own" % (index, address, seen[address]),
                )
            )
        seen.setdefault(address, index)
    for host, theirs in sorted((others or {}).items()):
        taken = set(_ipv4(value) for value in (theirs or []) if isinstance(theirs, list)) & set(seen)
        for address in sorted(taken):
            found.append(
                finding(
                    "cann_driver_npu_addresses",
                    "cann_driver_npu_addresses[%d]=%s is also an NPU address of %s; every NPU in the cluster needs its own" % (seen[address], address, host),
                )
            )
    if npu_count and len(addresses) != npu_count:
        found.append(
            finding(
                "cann_driver_npu_addresses",
                "cann_driver_npu_addresses gives %d addresses for the %d NPUs on the PCI bus; give one per NPU, NPU 0 first" % (len(addresses), npu_count),
            )
        )
    for variable in ("gateway", "netdetect"):
        value = settings.get(variable)
        if value in (None, ""):
            continue
        address = _ipv4(value)
        if address is None:
            found.append(finding("cann_driver_npu_" + variable, "cann_driver_npu_%s=%r is not an IPv4 address" % (variable, value)))
        elif variable == "gateway" and prefix is not None:
            outside = [index for index, own in parsed if address not in ipaddress.IPv4Network("%s/%d" % (own, prefix), strict=False)]
            if outside or address in seen:
                found.append(
                    finding(
                        "cann_driver_npu_gateway",
                        "cann_driver_npu_gateway=%s is %s; give the RoCE subnet's gateway"
                        % (address, "an NPU's own address" if address in seen else "outside the subnet of NPU %s's address" % outside[0]),
                    )
                )
    return found


def hccn_conf(text):
    """``{key_device: value}`` of /etc/hccn.conf (``address_0=10.20.0.11`` lines)."""
    values = {}
    for line in (text or "").splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key and not key.startswith("#"):
            values[key.strip()] = value.strip()
    return values


def hccn_commands(conf_text, settings):
    """The ``hccn_tool`` arguments that bring each NPU's port to the plan; none when /etc/hccn.conf already says so."""
    current = hccn_conf(conf_text)
    netdetect = settings.get("netdetect") or settings.get("gateway") or ""
    commands = []
    for index, address in enumerate(settings.get("addresses") or []):
        device = str(index)
        if current.get("address_" + device) != address or current.get("netmask_" + device) != settings.get("netmask"):
            commands.append(["-i", device, "-ip", "-s", "address", address, "netmask", settings.get("netmask")])
        if settings.get("gateway") and current.get("gateway_" + device) != settings["gateway"]:
            commands.append(["-i", device, "-gateway", "-s", "gateway", settings["gateway"]])
        if netdetect and current.get("netdetect_" + device) != netdetect:
            commands.append(["-i", device, "-netdetect", "-s", "address", netdetect])
    return commands
