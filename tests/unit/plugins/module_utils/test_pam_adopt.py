import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.pam_adopt import profile_changes

# Debian trixie's common-account and common-session, as pam-auth-update writes them.
ACCOUNT = "account\t[success=1 new_authtok_reqd=done default=ignore]\tpam_unix.so \naccount\trequisite\t\t\tpam_deny.so\naccount\trequired\t\t\tpam_permit.so\n"
ADOPT = "account\trequired pam_slurm_adopt.so action_adopt_failure=deny action_generic_failure=deny\n"
SESSION = "session\t[default=1]\t\t\tpam_permit.so\nsession\trequired\tpam_unix.so \n"
SYSTEMD = "session\toptional\tpam_systemd.so \n"


@pytest.mark.parametrize(
    ("adopt", "stacks", "profiles", "expected"),
    [
        # A fresh node with and without libpam-systemd.
        (True, ACCOUNT + SESSION + SYSTEMD, ["unix", "systemd", "slurm-adopt"], [["enable", "slurm-adopt"], ["disable", "systemd"]]),
        (True, ACCOUNT + SESSION, ["unix", "slurm-adopt"], [["enable", "slurm-adopt"]]),
        # Converged: nothing to do, either way.
        (True, ACCOUNT + ADOPT + SESSION, ["unix", "systemd", "slurm-adopt"], []),
        (False, ACCOUNT + SESSION + SYSTEMD, ["unix", "systemd"], []),
        # Turned off again: pam_systemd comes back where its profile exists.
        (False, ACCOUNT + ADOPT + SESSION, ["unix", "systemd", "slurm-adopt"], [["disable", "slurm-adopt"], ["enable", "systemd"]]),
        (False, ACCOUNT + ADOPT + SESSION, ["unix", "slurm-adopt"], [["disable", "slurm-adopt"]]),
    ],
)
def test_profile_changes(adopt, stacks, profiles, expected):
    assert profile_changes(adopt, stacks, profiles) == expected


def test_a_commented_line_is_not_the_module():
    assert profile_changes(True, ACCOUNT + "# account required pam_slurm_adopt.so\n" + SESSION, []) == [["enable", "slurm-adopt"]]
