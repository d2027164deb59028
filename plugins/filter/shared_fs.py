# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared filesystem (plugins/module_utils/shared_fs.py): ``shared_fs_findings`` (the shared_fs_* variables'
problems, as preflight findings), ``shared_fs_mounts`` (what each client mounts), ``shared_fs_unmounts`` (the
exports marked absent that it unmounts), ``shared_fs_exports`` (an nfs server's /etc/exports lines),
``shared_fs_covers`` (the export a group mounts over a path), ``shared_fs_gluster_create`` (the gluster volume
create arguments of one export) and ``shared_fs_brick_port_range`` (glusterd's base-port and max-port)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import shared_fs


class FilterModule:
    def filters(self):
        return {
            "shared_fs_findings": shared_fs.findings,
            "shared_fs_mounts": shared_fs.mounts,
            "shared_fs_unmounts": shared_fs.unmounts,
            "shared_fs_exports": shared_fs.exports_lines,
            "shared_fs_covers": shared_fs.covers,
            "shared_fs_gluster_create": shared_fs.gluster_create,
            "shared_fs_brick_port_range": shared_fs.brick_port_range,
        }
