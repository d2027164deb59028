#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: key_file
short_description: Write a binary secret, given base64-encoded, to a file
version_added: 0.1.0
description:
  - Writes the decoded bytes of O(content) to O(dest) atomically, only when the file's bytes differ.
  - Made for keys such as the munge key, which are binary and must never reach a log or a diff.
    O(content) is marked C(no_log) and no diff is ever returned.
options:
  dest:
    description: Path of the file to write.
    type: path
    required: true
  content:
    description: The secret, base64-encoded.
    type: str
    required: true
extends_documentation_fragment:
  - ansible.builtin.files
attributes:
  check_mode:
    support: full
    description: Reports whether the file would change, writes nothing.
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
- name: Install the cluster's munge key
  aicluster.slurm.key_file:
    dest: /etc/munge/munge.key
    content: "{{ munge_key_b64 }}"
    owner: munge
    group: munge
    mode: "0400"
  no_log: true
"""

RETURN = r"""
dest:
  description: The file written.
  returned: always
  type: str
  sample: /etc/munge/munge.key
size:
  description: Length of the secret in bytes.
  returned: always
  type: int
  sample: 1024
"""

import base64
import binascii
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule


def _current(dest):
    try:
        with open(dest, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def main():
    module = AnsibleModule(
        argument_spec={
            "dest": {"type": "path", "required": True},
            "content": {"type": "str", "required": True, "no_log": True},
        },
        supports_check_mode=True,
        add_file_common_args=True,
    )
    dest = module.params["dest"]
    try:
        secret = base64.b64decode(module.params["content"], validate=True)
    except (binascii.Error, ValueError):
        module.fail_json(msg="content for %s is not valid base64" % dest)
    if not secret:
        module.fail_json(msg="content for %s decodes to nothing" % dest)

    directory = os.path.dirname(dest) or "."
    if not os.path.isdir(directory):
        module.fail_json(msg="directory %s for %s does not exist; install the package that owns it first" % (directory, dest))
    changed = _current(dest) != secret
    if changed and not module.check_mode:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".key_file.")
        with os.fdopen(fd, "wb") as handle:
            handle.write(secret)
        os.chmod(tmp, 0o600)
        if os.path.exists(dest):
            module.atomic_move(tmp, dest)
        else:
            # atomic_move gives a new file 0666 & ~umask; a rename in the same
            # directory is as atomic and keeps the secret 0600 until mode applies.
            os.rename(tmp, dest)
    file_args = module.load_file_common_arguments(module.params)
    if os.path.exists(dest):
        changed = module.set_fs_attributes_if_different(file_args, changed)
    module.exit_json(changed=changed, dest=dest, size=len(secret))


if __name__ == "__main__":
    main()
