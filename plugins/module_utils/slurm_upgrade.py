# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an in-place Slurm upgrade may do (playbooks/upgrade_slurm.yml).

Facts relied on (SchedMD, "Upgrades" in quickstart_admin): since 24.11 slurmdbd,
slurmctld and slurmd upgrade in place from any of the three previous major
releases; a downgrade is not supported (state files and the accounting
database are converted forward only); slurmdbd goes first, then the
controllers, then the compute nodes, and the daemons may run mixed versions in
that window (slurmdbd >= slurmctld >= slurmd).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding
from ansible_collections.aicluster.slurm.plugins.module_utils.preflight import PLATFORM_NAMES, PLATFORMS

# Slurm's major releases, oldest first.
RELEASES = ("23.02", "23.11", "24.05", "24.11", "25.05", "25.11", "26.05")
MAX_JUMP = 3
# A Debian package version or Slurm's own: [epoch:]major.minor[.patch][-revision].
_VERSION = re.compile(r"^(?:\d+:)?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+~.].*)?$")


def series(version):
    """``24.11`` from ``24.11.5``, ``24.11.5-4+deb13u1`` or ``1:24.11.5-4``; None when it is none of these."""
    match = _VERSION.match(str(version or "").strip())
    return "%s.%s" % match.group(1, 2) if match else None


def release_series(release):
    """The Slurm series of a Debian release this collection is tested on (trixie 24.11, forky 26.05), or None."""
    return PLATFORMS.get(("Debian", str(release or "")))


def _releases_text():
    return ", ".join("%s (Slurm %s)" % (key[1], value) for key, value in sorted(PLATFORMS.items(), key=lambda item: item[1]))


def target_findings(release, package_version, repository):
    """The target itself: a tested Debian release, or with a site repository a Slurm package version."""
    if repository:
        if series(package_version) not in RELEASES:
            return [
                finding(
                    "upgrade_target",
                    "slurm_package_version=%s is not a Slurm package version of a known release (%s): with slurm_apt_repository the "
                    "upgrade installs that version; set it, e.g. 26.05.5-1site1" % (package_version or "(empty)", ", ".join(RELEASES)),
                    "slurm_package_version",
                    package_version,
                )
            ]
        return []
    if release_series(release) is None:
        return [
            finding(
                "upgrade_target",
                "slurm_upgrade_release=%s is not a Debian release this collection is tested on; set one of %s" % (release or "(empty)", _releases_text()),
                "slurm_upgrade_release",
                release,
            )
        ]
    return []


def version_findings(installed, target):
    """Each host's installed Slurm against the target series.

    ``installed``: ``{host: installed version}`` ('' where no Slurm is
    installed); ``target``: the target series. Findings name the host, both
    versions and why.
    """
    findings = []
    for host in sorted(installed):
        version = installed[host]
        current = series(version)
        if current is None:
            findings.append(
                finding(
                    "upgrade_version",
                    "%s: no Slurm package is installed (slurm-client: %s); converge it with site.yml first, or leave it out of the upgrade"
                    % (host, version or "none"),
                    "slurm_upgrade",
                    version,
                )
            )
            continue
        if current == target:
            continue
        if current not in RELEASES or target not in RELEASES:
            unknown = current if current not in RELEASES else target
            findings.append(
                finding(
                    "upgrade_version",
                    "%s: Slurm %s to %s: %s is not a Slurm release this collection knows (%s)" % (host, version, target, unknown, ", ".join(RELEASES)),
                    "slurm_upgrade",
                    version,
                )
            )
            continue
        step = RELEASES.index(target) - RELEASES.index(current)
        if step < 0:
            findings.append(
                finding(
                    "upgrade_downgrade",
                    "%s runs Slurm %s; the target is Slurm %s, a downgrade, which Slurm does not support (slurmctld's state and "
                    "the accounting database are converted forward only): restore the backups taken before the upgrade instead "
                    "(docs/upgrade.md)" % (host, version, target),
                    "slurm_upgrade",
                    version,
                )
            )
        elif step > MAX_JUMP:
            findings.append(
                finding(
                    "upgrade_jump",
                    "%s runs Slurm %s; Slurm %s is %d releases ahead, and Slurm upgrades in place from at most %d releases back: "
                    "upgrade to %s first" % (host, version, target, step, MAX_JUMP, RELEASES[RELEASES.index(current) + MAX_JUMP]),
                    "slurm_upgrade",
                    version,
                )
            )
    return findings


def controllers_down(ping_text):
    """The controllers ``scontrol ping`` reports as not UP (``Slurmctld(primary) at ctl1 is DOWN``)."""
    found = re.findall(r"Slurmctld\((\w+)\) at (\S+) is (\w+)", ping_text or "")
    if not found:
        return ["(scontrol ping answered nothing)"]
    return ["%s (%s) is %s" % (host, role, state) for role, host, state in found if state != "UP"]


def health_findings(ping_text, dbd_rc, dbd_text=""):
    """The cluster must be serving before anything changes: every controller UP, slurmdbd answering
    (``dbd_rc``: sacctmgr's exit status, None or '' where there is no slurmdbd)."""
    findings = [
        finding(
            "upgrade_health",
            "slurmctld %s (scontrol ping): bring every controller up, or remove a dead backup from the slurmctld group, before upgrading" % down,
            "slurm_upgrade",
            down,
        )
        for down in controllers_down(ping_text)
    ]
    if dbd_rc not in (None, "") and int(dbd_rc) != 0:
        findings.append(
            finding(
                "upgrade_health",
                "slurmdbd does not answer (sacctmgr show cluster: %s): the upgrade converts its database first, so start it and "
                "let it drain its queue before upgrading" % ((dbd_text or "").strip().splitlines() or ["rc %s" % dbd_rc])[-1],
                "slurm_upgrade",
                dbd_rc,
            )
        )
    return findings


def platform_name(release):
    return PLATFORM_NAMES.get(("Debian", str(release or "")), str(release))
