"""The shared filesystem (plugins/module_utils/shared_fs.py): exports, mounts and the checks of shared_fs_*."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import firewall, shared_fs

EXPORTS = [{"name": "home", "path": "/home"}, {"name": "data", "path": "/data", "options": "ro"}]


def settings(**overrides):
    base = {
        "type": "nfs",
        "server": "",
        "servers": ["fs01"],
        "root": "/srv/shared",
        "exports": EXPORTS,
        "nfs_clients": ["10.0.0.0/16"],
        "options": "",
        "brick_ports": "49152-49251",
    }
    base.update(overrides)
    return base


def test_nfs_server_exports_each_directory_to_the_cluster_root_squashed():
    assert shared_fs.exports_lines(settings(nfs_clients=["10.0.0.0/16", "10.1.0.0/24"])) == [
        "/srv/shared/home 10.0.0.0/16(rw,sync,no_subtree_check,root_squash) 10.1.0.0/24(rw,sync,no_subtree_check,root_squash)",
        "/srv/shared/data 10.0.0.0/16(rw,sync,no_subtree_check,root_squash) 10.1.0.0/24(rw,sync,no_subtree_check,root_squash)",
    ]


def test_nfs_clients_mount_hard_over_tcp_at_boot():
    assert shared_fs.mounts(settings()) == [
        {"name": "home", "path": "/home", "src": "fs01:/srv/shared/home", "fstype": "nfs4", "opts": "rw,hard,proto=tcp,vers=4.2,noatime,_netdev"},
        {"name": "data", "path": "/data", "src": "fs01:/srv/shared/data", "fstype": "nfs4", "opts": "rw,hard,proto=tcp,vers=4.2,noatime,_netdev,ro"},
    ]


def test_client_only_mode_mounts_the_sites_server_and_its_paths():
    site = settings(servers=[], server="nas.example.internal", exports=[{"name": "home", "path": "/home", "source": "/export/home"}], options="rw,hard,vers=3")
    assert shared_fs.findings(site) == []
    assert shared_fs.mounts(site) == [{"name": "home", "path": "/home", "src": "nas.example.internal:/export/home", "fstype": "nfs4", "opts": "rw,hard,vers=3"}]
    # Nothing to export: the site serves it.
    assert shared_fs.exports_lines(site) == []


def test_glusterfs_clients_mount_the_volume_and_know_every_server():
    gluster = settings(type="glusterfs", servers=["fs01", "fs02", "fs03"], exports=EXPORTS[:1])
    assert shared_fs.mounts(gluster) == [
        {"name": "home", "path": "/home", "src": "fs01:/home", "fstype": "glusterfs", "opts": "defaults,_netdev,backup-volfile-servers=fs02:fs03"}
    ]


def test_none_mounts_nothing_and_checks_nothing():
    assert shared_fs.mounts(settings(type="none", exports="junk")) == []
    assert shared_fs.findings(settings(type="none", exports="junk")) == []


@pytest.mark.parametrize(
    ("overrides", "variable", "says"),
    [
        ({"type": "cephfs"}, "shared_fs_type", "is not one of none, glusterfs, nfs"),
        ({"servers": [], "server": ""}, "shared_fs_server", "group shared_fs has no host"),
        ({"type": "glusterfs", "servers": [], "server": "fs01"}, "groups.shared_fs", "is empty"),
        ({"root": "srv"}, "shared_fs_root", "absolute path"),
        ({"root": "/etc"}, "shared_fs_root", "system directory"),
        ({"options": "rw,hard vers=4"}, "shared_fs_mount_options", "mount options"),
        ({"exports": []}, "shared_fs_exports", "is not a list"),
        ({"exports": [{"name": "Home", "path": "/home"}]}, "shared_fs_exports[0].name", "is not a name"),
        ({"exports": [{"name": "home", "path": "/home/../etc"}]}, "shared_fs_exports[0].path", "absolute path"),
        ({"exports": [{"name": "home", "path": "/home\n/x"}]}, "shared_fs_exports[0].path", "absolute path"),
        ({"exports": [{"name": "home", "path": "/"}]}, "shared_fs_exports[0].path", "system directory"),
        ({"exports": [{"name": "home", "path": "/home"}, {"name": "home", "path": "/h2"}]}, "shared_fs_exports[1].name", "twice"),
        ({"exports": [{"name": "a", "path": "/home"}, {"name": "b", "path": "/home"}]}, "shared_fs_exports[1].path", "twice"),
        ({"exports": [{"name": "a", "path": "/a", "mode": "0755"}]}, "shared_fs_exports[0]", "is not a mapping"),
        ({"exports": [{"name": "a", "path": "/a", "options": "ro;reboot"}]}, "shared_fs_exports[0].options", "mount options"),
        ({"type": "glusterfs", "exports": [{"name": "a", "path": "/a", "source": "/x"}]}, "shared_fs_exports[0].source", "only for nfs"),
        ({"nfs_clients": []}, "shared_fs_nfs_clients", "is empty"),
        ({"type": "glusterfs", "brick_ports": "49152"}, "shared_fs_glusterfs_brick_ports", "is not a port range"),
        ({"type": "glusterfs", "brick_ports": "600-700"}, "shared_fs_glusterfs_brick_ports", "from 1024 to 65535"),
        ({"type": "glusterfs", "brick_ports": "49300-49200"}, "shared_fs_glusterfs_brick_ports", "is not a port range"),
        ({"type": "glusterfs", "brick_ports": "49152-49152"}, "shared_fs_glusterfs_brick_ports", "is not a port range"),
        ({"type": "glusterfs", "brick_ports": "49152-49153\n"}, "shared_fs_glusterfs_brick_ports", "is not a port range"),
        ({"type": "glusterfs", "brick_ports": 49152}, "shared_fs_glusterfs_brick_ports", "is not a port range"),
        ({"nfs_clients": ["10.0.0.0/33"]}, "shared_fs_nfs_clients", "is not a network"),
    ],
)
def test_bad_settings_name_the_variable_the_value_and_the_fix(overrides, variable, says):
    found = shared_fs.findings(settings(**overrides))
    assert [f["variable"] for f in found] == [variable]
    assert says in found[0]["message"]
    assert found[0]["fix"]


def test_the_firewall_opens_the_servers_ports_for_the_type_in_use():
    def opened(kind):
        return [opened[0] for opened in firewall.plan(["shared_fs"], {"shared_fs_type": kind})]

    assert opened("glusterfs") == ["glusterfs", "glusterfs_bricks"]
    # The bricks' range is the one the shared_fs role gives glusterd.
    assert firewall.plan(["shared_fs"], {"shared_fs_type": "glusterfs", "shared_fs_glusterfs_brick_ports": "50000-50099"})[1] == (
        "glusterfs_bricks",
        "50000-50099",
        "cluster",
    )
    assert opened("nfs") == ["nfs"]
    assert opened("none") == []
    assert [opened[0] for opened in firewall.plan(["slurm_compute"], {"shared_fs_type": "nfs"})] == ["slurmd", "srun", "node_exporter"]


def test_each_export_mounts_only_on_its_client_groups():
    exports = [{"name": "home", "path": "/home"}, {"name": "slurm-state", "path": "/srv/slurm-state", "clients": ["slurmctld"]}]
    gluster = settings(type="glusterfs", exports=exports)
    assert [m["path"] for m in shared_fs.mounts(gluster, ["slurm_compute", "gpu_h200"])] == ["/home"]
    assert [m["path"] for m in shared_fs.mounts(gluster, ["slurmctld"])] == ["/srv/slurm-state"]
    assert shared_fs.mounts(gluster, ["slurmdbd", "shared_fs"]) == []
    # The controllers' state is exported without root squashing: root makes its directory for SlurmUser.
    assert shared_fs.exports_lines(settings(exports=exports)) == [
        "/srv/shared/home 10.0.0.0/16(rw,sync,no_subtree_check,root_squash)",
        "/srv/shared/slurm-state 10.0.0.0/16(rw,sync,no_subtree_check,no_root_squash)",
    ]


@pytest.mark.parametrize(
    ("kind", "path", "group", "name"),
    [
        ("glusterfs", "/srv/slurm-state/slurmctld", "slurmctld", "slurm-state"),
        ("glusterfs", "/srv/slurm-state", "slurmctld", "slurm-state"),
        ("glusterfs", "/srv/slurm-statefile", "slurmctld", ""),
        ("glusterfs", "/home/slurm", "slurmctld", ""),
        ("none", "/srv/slurm-state/slurmctld", "slurmctld", ""),
    ],
)
def test_the_export_over_state_save_location_is_found_for_the_controllers(kind, path, group, name):
    exports = [{"name": "home", "path": "/home"}, {"name": "slurm-state", "path": "/srv/slurm-state", "clients": ["slurmctld"]}]
    assert shared_fs.covers(exports, kind, path, group) == name


def test_clients_must_be_group_names():
    found = shared_fs.findings(settings(exports=[{"name": "a", "path": "/a", "clients": "slurmctld"}]))
    assert [f["variable"] for f in found] == ["shared_fs_exports[0].clients"]


def test_gluster_volumes_have_a_brick_per_server_and_a_replica_on_each():
    assert shared_fs.gluster_create(settings(servers=["fs01"]), "home") == ["volume", "create", "home", "fs01:/srv/shared/home", "force"]
    assert shared_fs.gluster_create(settings(servers=["fs01", "fs02", "fs03"]), "home") == [
        "volume",
        "create",
        "home",
        "replica",
        "3",
        "fs01:/srv/shared/home",
        "fs02:/srv/shared/home",
        "fs03:/srv/shared/home",
        "force",
    ]


def test_a_line_break_in_a_value_is_shown_escaped():
    found = shared_fs.findings(settings(exports=[{"name": "home", "path": "/home\nx"}]))
    assert "\n" not in found[0]["message"]


def test_an_export_marked_absent_is_unmounted_by_its_clients_and_mounted_by_none():
    exports = [
        {"name": "home", "path": "/home"},
        {"name": "data", "path": "/data", "state": "absent"},
        {"name": "slurm-state", "path": "/srv/slurm-state", "clients": ["slurmctld"], "state": "absent"},
    ]
    gluster = settings(type="glusterfs", exports=exports)
    assert shared_fs.findings(gluster) == []
    assert [m["path"] for m in shared_fs.mounts(gluster, ["slurm_compute"])] == ["/home"]
    assert shared_fs.unmounts(gluster, ["slurm_compute"]) == [{"name": "data", "path": "/data"}]
    assert shared_fs.unmounts(gluster, ["slurmctld"]) == [{"name": "slurm-state", "path": "/srv/slurm-state"}]
    assert shared_fs.unmounts(gluster, ["slurmdbd"]) == []
    # An absent export no longer holds the controllers' state; nothing is unmounted without a type.
    assert shared_fs.covers(exports, "glusterfs", "/srv/slurm-state/slurmctld", "slurmctld") == ""
    assert shared_fs.unmounts(settings(type="none", exports=exports)) == []
    # The server keeps serving it (its clients may still be unmounting): the export line stays.
    assert len(shared_fs.exports_lines(settings(exports=exports))) == 3


@pytest.mark.parametrize("state", ["gone", "", None, ["absent"], "Absent"])
def test_an_export_state_is_present_or_absent(state):
    found = shared_fs.findings(settings(exports=[{"name": "a", "path": "/a", "state": state}]))
    assert [f["variable"] for f in found] == ["shared_fs_exports[0].state"]
    assert "is not present or absent" in found[0]["message"]


def test_the_brick_range_holds_a_port_for_each_export():
    found = shared_fs.findings(settings(type="glusterfs", brick_ports="49152-49153", exports=EXPORTS + [{"name": "x", "path": "/x"}]))
    assert [f["variable"] for f in found] == ["shared_fs_glusterfs_brick_ports"]
    assert "fewer ports than the 3 exports" in found[0]["message"]
    assert shared_fs.findings(settings(type="glusterfs", brick_ports="49152-49154", exports=EXPORTS + [{"name": "x", "path": "/x"}])) == []


def test_the_brick_range_gives_glusterd_its_base_and_max_port():
    assert shared_fs.brick_port_range("49152-49251") == [49152, 49251]
    assert shared_fs.brick_port_range("49152-49251\n") == [0, 0]
    assert shared_fs.brick_port_range(49152) == [0, 0]
