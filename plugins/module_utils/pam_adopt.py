# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""pam_slurm_adopt on the compute nodes (slurm_pam_adopt; roles/slurmd/tasks/pam_adopt.yml).

Debian's PAM profile ``slurm-adopt`` puts the module in common-account; the
profile ``systemd`` (pam_systemd in common-session) must be off while it is
on, since systemd-logind would move an adopted session into a user slice.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_ADOPTED = re.compile(r"^account\s.*\bpam_slurm_adopt\.so", re.MULTILINE)
_SYSTEMD = re.compile(r"^session\s.*\bpam_systemd\.so", re.MULTILINE)


def adopt_on(setting, groups):
    """slurm_pam_adopt as the roles read it: auto is on when the inventory has login nodes."""
    if str(setting).lower() == "auto":
        return bool(groups.get("slurm_login"))
    return setting is True or str(setting).lower() in ("true", "yes")


def profile_changes(adopt, stacks, profiles=()):
    """The ``pam-auth-update`` actions, as ``[action, profile]`` pairs, that
    bring a host to ``adopt``; ``stacks``: common-account and common-session
    as they are; ``profiles``: the PAM profiles the host has
    (/usr/share/pam-configs). Nothing when the host is already there."""
    adopted = bool(_ADOPTED.search(stacks))
    if adopt:
        return ([["enable", "slurm-adopt"]] if not adopted else []) + ([["disable", "systemd"]] if _SYSTEMD.search(stacks) else [])
    if not adopted:
        return []
    return [["disable", "slurm-adopt"]] + ([["enable", "systemd"]] if "systemd" in profiles else [])
