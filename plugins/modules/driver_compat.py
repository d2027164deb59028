#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: driver_compat
short_description: Check NVIDIA and Ascend driver versions against the host before anything is installed
version_added: 0.1.0
description:
  - Evaluates the versions to install (NVIDIA driver and module flavour, CUDA, fabric manager; Ascend driver, firmware,
    CANN) against the host facts from M(aicluster.slurm.accelerator_info) and a compatibility table kept as data,
    every row with its source.
  - Returns findings with a stable id (C(HOST-KHDR), C(HOST-CC), C(HOST-SB), C(HOST-KREL), C(NV-CUDA),
    C(NV-CUDA13-ARCH), C(NV-EOL), C(NV-MINBR), C(NV-FLAVOR), C(NV-KBAD), C(NV-FM), C(NV-NOUVEAU), C(NV-INV),
    C(ASC-CANN), C(ASC-OSK), C(ASC-FWRANGE), C(ASC-INV), C(DATA-AGE), C(INPUT)), a severity and a message that names the option,
    the value and the fix.
  - Fails when any finding is an error; it never changes the host. Rows whose facts are unconfirmed only warn.
options:
  facts:
    description: The C(accelerators) result of M(aicluster.slurm.accelerator_info) on this host.
    type: dict
    required: true
  nvidia_driver:
    description: NVIDIA driver version to install, for example C(550.163.01).
    type: str
  nvidia_flavour:
    description: Kernel module flavour to install.
    type: str
    choices: [open, proprietary]
    default: open
  cuda:
    description: CUDA versions the cluster's jobs run (C(12.4) or C(12.4.1)); the driver must support each.
    type: list
    elements: str
    default: []
  fabricmanager:
    description: Fabric manager version to install; must equal O(nvidia_driver) on NVSwitch hosts.
    type: str
  module_build:
    description: C(dkms) builds the kernel module on the host (headers, compiler and Secure Boot are checked); C(precompiled) does not.
    type: str
    choices: [dkms, precompiled]
    default: dkms
  secure_boot_signing:
    description: A Machine Owner Key is enrolled and DKMS signs the modules it builds.
    type: bool
    default: false
  ascend_driver:
    description: Ascend HDK driver version to install, for example C(24.1.RC3).
    type: str
  ascend_firmware:
    description: Ascend firmware version to install, for example C(7.5.0.1.129).
    type: str
  ascend_firmware_range:
    description: The C([min, max]) firmware range of O(ascend_driver) (C(compatible_version_fw) in its version.info).
    type: list
    elements: str
  cann:
    description: CANN toolkit version to install, for example C(8.0.RC1).
    type: str
  os_id:
    description: Distribution of the host (C(ansible_distribution)), for the Ascend OS table.
    type: str
  os_version:
    description: Distribution version (C(ansible_distribution_version)).
    type: str
  os_release:
    description:
      - Distribution release (C(ansible_distribution_release)). Kylin V10 names its service pack only there
        (C(Tercel) SP1, C(Sword) SP2, C(Lance) SP3); UOS Server 20's update is read from the kernel release.
    type: str
  allow_unlisted_os:
    description: Report an OS missing from the Ascend OS table as a warning instead of an error.
    type: bool
    default: false
  skip:
    description: Check ids to skip; their findings are returned in RV(skipped_findings) instead.
    type: list
    elements: str
    default: []
  versions:
    description:
      - The options above except O(facts), O(os_id), O(os_version), O(os_release) and O(today), as one dict (the shape of the
        inventory's C(accelerator_versions)); a key given here takes precedence over the option of the same name.
      - An unknown key or a value of the wrong type fails the module with the key named.
    type: dict
  today:
    description:
      - Date (C(YYYY-MM-DD)) to judge branch end of life and the age of the data against; default today.
      - C(DATA-AGE) warns once the data (RV(data_as_of)) is more than a year older than this date.
    type: str
attributes:
  check_mode:
    support: full
    description: The module only evaluates, so check mode runs it fully.
  diff_mode:
    support: none
    description: Reports only; there is nothing to diff.
  platform:
    support: full
    platforms: posix
    description: Runs anywhere; it reads only its options.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Detect accelerators
  aicluster.slurm.accelerator_info:
  register: accel

- name: Stop before installing a driver this host cannot run
  aicluster.slurm.driver_compat:
    facts: "{{ accel.accelerators }}"
    nvidia_driver: 550.163.01
    nvidia_flavour: open
    cuda: ["12.4"]
    fabricmanager: 550.163.01

- name: Check an Ascend stack
  aicluster.slurm.driver_compat:
    facts: "{{ accel.accelerators }}"
    ascend_driver: 24.1.RC3
    ascend_firmware: 7.5.0.1.129
    cann: 8.0.0
    os_id: "{{ ansible_facts['distribution'] }}"
    os_version: "{{ ansible_facts['distribution_version'] }}"
"""

RETURN = r"""
findings:
  description: Every finding, each with C(id), C(severity) (error, warning or info), C(message) and C(source).
  returned: always
  type: list
  elements: dict
  sample:
    - id: NV-FM
      severity: error
      message: fabricmanager=550.90.07 differs from nvidia_driver=550.163.01; ... set fabricmanager=550.163.01
      source: github.com/NVIDIA/gpu-operator/issues/544
skipped_findings:
  description:
    - Findings of the checks named in O(skip).
    - Not called C(skipped), which Ansible reads as "the task was skipped" (and then ignores C(failed_when)).
  returned: always
  type: list
  elements: dict
errors:
  description: Number of error findings.
  returned: always
  type: int
  sample: 0
fabricmanager_package:
  description: Package name of the fabric manager for O(nvidia_driver) (renamed at R580); null without O(nvidia_driver).
  returned: always
  type: str
  sample: nvidia-fabricmanager-550
data_as_of:
  description: The day the compatibility data was last checked against its sources (C(YYYY-MM-DD)).
  returned: always
  type: str
  sample: "2026-12-05"
"""

import datetime

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError

from ansible_collections.aicluster.slurm.plugins.module_utils import driver_compat, driver_compat_data

OPTIONS = {
    "facts": {"type": "dict", "required": True},
    "nvidia_driver": {"type": "str"},
    "nvidia_flavour": {"type": "str", "choices": ["open", "proprietary"], "default": "open"},
    "cuda": {"type": "list", "elements": "str", "default": []},
    "fabricmanager": {"type": "str"},
    "module_build": {"type": "str", "choices": ["dkms", "precompiled"], "default": "dkms"},
    "secure_boot_signing": {"type": "bool", "default": False},
    "ascend_driver": {"type": "str"},
    "ascend_firmware": {"type": "str"},
    "ascend_firmware_range": {"type": "list", "elements": "str"},
    "cann": {"type": "str"},
    "os_id": {"type": "str"},
    "os_version": {"type": "str"},
    "os_release": {"type": "str"},
    "allow_unlisted_os": {"type": "bool", "default": False},
    "skip": {"type": "list", "elements": "str", "default": []},
    "today": {"type": "str"},
    "versions": {"type": "dict"},
}
# What ``versions`` may hold: the version options, typed as at the top level, without defaults (absent = not given).
VERSION_KEYS = (
    "nvidia_driver",
    "nvidia_flavour",
    "cuda",
    "fabricmanager",
    "module_build",
    "secure_boot_signing",
    "ascend_driver",
    "ascend_firmware",
    "ascend_firmware_range",
    "cann",
    "allow_unlisted_os",
    "skip",
)
VERSIONS_SPEC = {key: {name: value for name, value in OPTIONS[key].items() if name != "default"} for key in VERSION_KEYS}


def versions_of(versions):
    """``versions`` typed as the top-level options, and the problems with it (unknown keys, wrong types), each naming the key."""
    result = ArgumentSpecValidator(VERSIONS_SPEC).validate(versions or {})
    problems = ["versions.%s is not a version option (known: %s)" % (key, ", ".join(VERSION_KEYS)) for key in sorted(result.unsupported_parameters)]
    problems += ["versions: %s" % error.msg for error in result.errors if not isinstance(error, UnsupportedError)]
    return {key: value for key, value in result.validated_parameters.items() if value is not None}, problems


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)
    params = dict(module.params)
    versions, problems = versions_of(params.pop("versions"))
    if problems:
        module.fail_json(msg="; ".join(problems))
    params.update(versions)
    today = None
    if params["today"]:
        try:
            today = datetime.datetime.strptime(params["today"], "%Y-%m-%d").date()
        except ValueError:
            module.fail_json(msg="today=%r is not a date such as 2026-01-31" % params["today"])
    findings, skipped = driver_compat.split(driver_compat.evaluate(params, params["facts"], today), params["skip"])
    errors = [f for f in findings if f["severity"] == "error"]
    package = None
    if params["nvidia_driver"] and driver_compat.version_tuple(params["nvidia_driver"]):
        package = driver_compat.fabricmanager_package(params["nvidia_driver"])
    result = {"changed": False, "findings": findings, "skipped_findings": skipped, "errors": len(errors), "fabricmanager_package": package}
    result["data_as_of"] = driver_compat_data.AS_OF
    for finding in skipped:
        module.warn("skipped %s: %s" % (finding["id"], finding["message"]))
    for finding in findings:
        if finding["severity"] == "warning":
            module.warn("%s: %s" % (finding["id"], finding["message"]))
    if errors:
        module.fail_json(msg="; ".join("%s: %s" % (f["id"], f["message"]) for f in errors), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
