# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of playbooks/upgrade_slurm.yml (module_utils/slurm_upgrade)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import slurm_upgrade
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filters_of


def slurm_upgrade_target(release, package_version="", repository=None):
    """``{series, findings}``: the Slurm series the upgrade installs (from slurm_upgrade_release, or with
    slurm_apt_repository from slurm_package_version) and what is wrong with the target."""
    findings = slurm_upgrade.target_findings(release, package_version, repository)
    target = slurm_upgrade.series(package_version) if repository else slurm_upgrade.release_series(release)
    return {"series": None if findings else target, "findings": findings}


def slurm_upgrade_versions(installed, target):
    """Findings for each host's installed Slurm (``{host: version}``) against the target series."""
    return slurm_upgrade.version_findings(installed or {}, target)


def slurm_upgrade_health(ping_text, dbd_rc=None, dbd_text=""):
    """Findings unless every controller is UP and slurmdbd answers (``dbd_rc`` None: no slurmdbd)."""
    return slurm_upgrade.health_findings(ping_text, dbd_rc, dbd_text)


def slurm_version_series(version):
    """``24.11`` from a Slurm or Debian package version; None when it is not one."""
    return slurm_upgrade.series(version)


class FilterModule:
    def filters(self):
        return filters_of((slurm_upgrade_target, slurm_upgrade_versions, slurm_upgrade_health, slurm_version_series))
