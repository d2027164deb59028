# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared filesystem: what the server exports and what the clients mount, and the checks of the settings.

settings (the shared_fs_* variables without the prefix):
  type:       none, glusterfs (server and FUSE client from Debian) or nfs (Debian's nfs-kernel-server, or the site's)
  server:     the address clients mount from; default the first host of group shared_fs
  servers:    the hosts of group shared_fs (empty: client-only, the site's server)
  root:       where the exports live on the server (glusterfs bricks, nfs directories)
  exports:    [{name, path, source?, options?, clients?, state?}]: a volume or directory name, where clients mount
              it, the server's path where it is not root/name (a site's NFS server), extra mount options,
              the inventory groups that mount it (default: login and compute nodes; [slurmctld] for the
              controllers' StateSaveLocation), and state: present (default) or absent (its clients unmount it
              and drop it from fstab; servers keep serving it and its data, see docs/shared-storage.md)
  nfs_clients: networks the nfs exports allow (CIDR)
  options:    mount options over the type's defaults
  brick_ports: glusterfs: the port range glusterd gives its bricks, "low-high" (the host firewall opens it)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

# Findings in the schema's shape: ``variable=value problem; fix`` (a line break in the value shows as \\n).
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_schema import finding as _error

TYPES = ("none", "glusterfs", "nfs")
MOUNT_OPTIONS = {
    # hard: I/O waits for a server that went away instead of failing a job's writes.
    "nfs": "rw,hard,proto=tcp,vers=4.2,noatime,_netdev",
    "glusterfs": "defaults,_netdev",
}
FSTYPES = {"nfs": "nfs4", "glusterfs": "glusterfs"}
# root_squash: root on a client is nobody on the server; except for the
# controllers' state, whose directory root makes and gives to SlurmUser.
EXPORT_OPTIONS = "rw,sync,no_subtree_check,root_squash"
STATE_EXPORT_OPTIONS = "rw,sync,no_subtree_check,no_root_squash"
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_PATH = re.compile(r"^/[A-Za-z0-9._/-]*$")
_OPTION = re.compile(r"^[A-Za-z0-9_.=:/+-]+$")
_GROUP = re.compile(r"^[A-Za-z0-9_]+$")
_PORTS = re.compile(r"([0-9]{4,5})-([0-9]{4,5})")
DEFAULT_CLIENTS = ("slurm_login", "slurm_compute")
STATES = ("present", "absent")
_SYSTEM = ("/", "/etc", "/usr", "/var", "/bin", "/sbin", "/lib", "/boot", "/proc", "/sys", "/dev", "/run", "/tmp")


def _path_problem(path):
    if not isinstance(path, str) or not _PATH.match(path) or "//" in path or "/../" in path + "/" or (len(path) > 1 and path.endswith("/")):
        return "is not an absolute path of letters, digits, . _ - and /"
    if path in _SYSTEM:
        return "is a system directory"
    return None


def _options_problem(text):
    if not isinstance(text, str) or not text or not all(_OPTION.match(item) for item in text.split(",")):
        return "is not a comma-separated list of mount options (letters, digits and _ . = : / + -)"
    return None


def findings(settings):
    """Errors for shared_fs_* settings, each naming the variable, the value and the fix."""
    kind = settings.get("type", "none")
    if kind not in TYPES:
        return [_error("shared_fs", "shared_fs_type", kind, "is not one of %s" % ", ".join(TYPES), "set none, glusterfs or nfs")]
    if kind == "none":
        return []
    found = []
    servers = settings.get("servers") or []
    if not settings.get("server") and not servers:
        fix = "put the file server in group shared_fs, or name the site's server"
        found.append(_error("shared_fs", "shared_fs_server", "", "is empty and group shared_fs has no host", fix))
    if kind == "glusterfs" and not servers:
        found.append(_error("shared_fs", "groups.shared_fs", "[]", "is empty", "glusterfs needs its servers in group shared_fs (the collection sets them up)"))
    problem = _path_problem(settings.get("root"))
    if problem:
        found.append(_error("shared_fs", "shared_fs_root", settings.get("root"), problem, "e.g. /srv/shared"))
    problem = _options_problem(settings["options"]) if settings.get("options") else None
    if problem:
        found.append(_error("shared_fs", "shared_fs_mount_options", settings["options"], problem, "e.g. %s" % MOUNT_OPTIONS[kind]))
    exports = settings.get("exports")
    if not isinstance(exports, list) or not exports:
        return found + [_error("shared_fs", "shared_fs_exports", exports, "is not a list of {name, path}", "e.g. [{name: home, path: /home}]")]
    names, paths = set(), set()
    for index, item in enumerate(exports):
        where = "shared_fs_exports[%d]" % index
        if not isinstance(item, dict) or set(item) - {"name", "path", "source", "options", "clients", "state"}:
            problem = "is not a mapping of name, path and optionally source, options, clients and state"
            found.append(_error("shared_fs", where, item, problem, "e.g. {name: home, path: /home}"))
            continue
        clients = item.get("clients", list(DEFAULT_CLIENTS))
        if not isinstance(clients, list) or not clients or not all(isinstance(group, str) and _GROUP.match(group) for group in clients):
            found.append(_error("shared_fs", where + ".clients", clients, "is not a list of inventory group names", "e.g. [slurmctld]"))
        name, path = item.get("name"), item.get("path")
        if not isinstance(name, str) or not _NAME.match(name):
            found.append(_error("shared_fs", where + ".name", name, "is not a name (lowercase letter, then lowercase letters, digits, - or _)", "e.g. home"))
        elif name in names:
            found.append(_error("shared_fs", where + ".name", name, "is given twice", "one export per name"))
        names.add(name)
        problem = _path_problem(path)
        if problem:
            found.append(_error("shared_fs", where + ".path", path, problem, "where clients mount it, e.g. /home"))
        elif path in paths:
            found.append(_error("shared_fs", where + ".path", path, "is given twice", "one export per mount point"))
        paths.add(path)
        if "source" in item:
            problem = _path_problem(item["source"]) if kind == "nfs" else "is only for nfs (a glusterfs volume is its name)"
            if problem:
                found.append(_error("shared_fs", where + ".source", item["source"], problem, "the server's exported path"))
        if item.get("state", "present") not in STATES:
            fix = "set present, or absent to unmount it from its clients"
            found.append(_error("shared_fs", where + ".state", item["state"], "is not present or absent", fix))
        if "options" in item and _options_problem(item["options"]):
            found.append(_error("shared_fs", where + ".options", item["options"], _options_problem(item["options"]), "e.g. ro"))
    if kind == "glusterfs" and servers:
        found.extend(_brick_ports_problems(settings.get("brick_ports"), len(names)))
    if kind == "nfs" and servers:
        clients = settings.get("nfs_clients")
        if not isinstance(clients, list) or not clients:
            found.append(_error("shared_fs", "shared_fs_nfs_clients", clients, "is empty", "list the cluster's networks, e.g. [10.0.0.0/16]"))
        else:
            for client in clients:
                try:
                    ipaddress.ip_network(str(client), strict=False)
                except ValueError:
                    found.append(_error("shared_fs", "shared_fs_nfs_clients", client, "is not a network", "e.g. 10.0.0.0/16"))
    return found


def brick_port_range(value):
    """``[low, high]`` of shared_fs_glusterfs_brick_ports ("49152-49251"), glusterd's base-port and max-port;
    ``[0, 0]`` when it is not such a range (the findings say so)."""
    match = _PORTS.fullmatch(value) if isinstance(value, str) else None
    return [int(match.group(1)), int(match.group(2))] if match else [0, 0]


def _brick_ports_problems(value, volumes):
    """A port range glusterd can give one brick per volume from, above the privileged ports."""
    low, high = brick_port_range(value)
    if not 1024 <= low < high <= 65535:
        return [_error("shared_fs", "shared_fs_glusterfs_brick_ports", value, "is not a port range low-high from 1024 to 65535", "e.g. 49152-49251")]
    if high - low + 1 < volumes:
        fix = "widen it to at least %d ports (one brick per export on each server)" % volumes
        return [_error("shared_fs", "shared_fs_glusterfs_brick_ports", value, "holds fewer ports than the %d exports" % volumes, fix)]
    return []


def server(settings):
    return settings.get("server") or (settings.get("servers") or [None])[0]


def source(settings, item):
    """What a client mounts for one export: server:/volume (glusterfs) or server:/path (nfs)."""
    if settings["type"] == "glusterfs":
        return "%s:/%s" % (server(settings), item["name"])
    return "%s:%s" % (server(settings), item.get("source") or "%s/%s" % (settings["root"], item["name"]))


def _clients_of(item, groups):
    return groups is None or bool(set(groups) & set(item.get("clients", DEFAULT_CLIENTS)))


def mounts(settings, groups=None):
    """[{name, path, src, fstype, opts}] for the clients, in the order given, exports marked absent left out;
    ``groups``: only what a host of these groups mounts."""
    if settings.get("type", "none") == "none":
        return []
    base = settings.get("options") or MOUNT_OPTIONS[settings["type"]]
    if settings["type"] == "glusterfs" and len(settings.get("servers") or []) > 1:
        # A client fetches the volume layout from any server that answers.
        base += ",backup-volfile-servers=" + ":".join(s for s in settings["servers"] if s != server(settings))
    return [
        {
            "name": item["name"],
            "path": item["path"],
            "src": source(settings, item),
            "fstype": FSTYPES[settings["type"]],
            "opts": base + ("," + item["options"] if item.get("options") else ""),
        }
        for item in settings["exports"]
        if item.get("state", "present") == "present" and _clients_of(item, groups)
    ]


def unmounts(settings, groups=None):
    """[{name, path}] of the exports marked absent that a host of ``groups`` (None: any) mounted: to unmount and drop
    from fstab. With type none nothing is touched, as nothing says what was mounted."""
    if settings.get("type", "none") == "none":
        return []
    return [{"name": item["name"], "path": item["path"]} for item in settings["exports"] if item.get("state") == "absent" and _clients_of(item, groups)]


def covers(exports, kind, path, group):
    """The name of the export that hosts of ``group`` mount at or above ``path`` (shared by construction), or ''."""
    if kind == "none" or not isinstance(exports, list) or not isinstance(path, str):
        return ""
    for item in exports:
        mounted = (
            isinstance(item, dict)
            and item.get("state", "present") == "present"
            and group in (item.get("clients") or DEFAULT_CLIENTS)
            and isinstance(item.get("path"), str)
        )
        if mounted and (path == item["path"] or path.startswith(item["path"].rstrip("/") + "/")):
            return item.get("name") or ""
    return ""


def gluster_create(settings, name):
    """``gluster volume create`` arguments for one export: a brick per server under root, a replica on each when several;
    force, as the bricks may sit on the root filesystem."""
    servers = settings.get("servers") or []
    replica = ["replica", str(len(servers))] if len(servers) > 1 else []
    return ["volume", "create", name] + replica + ["%s:%s/%s" % (server, settings["root"], name) for server in servers] + ["force"]


def exports_lines(settings):
    """/etc/exports lines for an nfs server of group shared_fs: each export to each client network
    (root squashed, but for an export the controllers mount: their StateSaveLocation)."""
    lines = []
    for item in settings["exports"]:
        if "source" in item:
            continue
        options = STATE_EXPORT_OPTIONS if "slurmctld" in item.get("clients", DEFAULT_CLIENTS) else EXPORT_OPTIONS
        lines.append("%s/%s %s" % (settings["root"], item["name"], " ".join("%s(%s)" % (network, options) for network in settings.get("nfs_clients") or [])))
    return lines
