# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A site's own Slurm packages (slurm_apt_repository): the files apt reads (module_utils/apt_repository)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import apt_repository


def slurm_apt_files(repo, codename, package_version=""):
    """The key, source and preferences files for ``slurm_apt_repository`` (content None: remove the file)."""
    return apt_repository.files(repo or {}, codename, package_version or "")


class FilterModule:
    def filters(self):
        return {"slurm_apt_files": slurm_apt_files}
