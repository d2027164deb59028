#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: web_credential
short_description: Keep a basic-auth credential of record and its bcrypt hash
version_added: 0.1.0
description:
  - Keeps the credential O(name) in O(path) as 0600 files, C(<name>.password) (only when generated) and
    C(<name>.bcrypt), and returns both for the Prometheus-style web configurations (C(basic_auth_users)).
  - O(password) empty uses the password generated earlier, or generates a random one (24 bytes, URL-safe).
  - The hash is rewritten only when it does not match the password, so a second run reports no change.
  - Needs Python's bcrypt module on the host (Debian's python3-bcrypt).
options:
  path:
    description: Directory of the credentials of record (created 0700).
    type: path
    required: true
  name:
    description: The user name (lower-case letters, digits, - and _).
    type: str
    required: true
  password:
    description: The operator's password; empty generates one, once.
    type: str
    default: ""
  rounds:
    description: bcrypt cost of a new hash.
    type: int
    default: 10
attributes:
  check_mode:
    support: full
    description: Reports whether a file would change, writes nothing.
  diff_mode:
    support: none
    description: Secrets are never shown in a diff.
  platform:
    support: full
    platforms: posix
    description: Linux hosts.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Keep the scrape user's credential on the first controller
  aicluster.slurm.web_credential:
    path: /etc/aicluster/secrets
    name: scrape
  register: scrape
  no_log: true
"""

RETURN = r"""
password:
  description: The password (register the task with no_log).
  returned: always
  type: str
hash:
  description: Its bcrypt hash.
  returned: always
  type: str
  sample: "$2b$10$..."
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aicluster.slurm.plugins.module_utils.web_credential import CredentialError, ensure


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "name": {"type": "str", "required": True},
            "password": {"type": "str", "default": "", "no_log": True},
            "rounds": {"type": "int", "default": 10},
        },
        supports_check_mode=True,
    )
    params = module.params
    if not 4 <= params["rounds"] <= 16:
        module.fail_json(msg="rounds %d: use 4 to 16 (10 costs about 60 ms a check)" % params["rounds"])
    try:
        changed, password, hashed = ensure(params["path"], params["name"], params["password"], params["rounds"], module.check_mode)
    except CredentialError as error:
        module.fail_json(msg=str(error))
    module.exit_json(changed=changed, password=password, hash=hashed)


if __name__ == "__main__":
    main()
