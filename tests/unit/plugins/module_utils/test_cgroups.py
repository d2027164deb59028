import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.cgroups import REQUIRED_V1, REQUIRED_V2, layout, parse_proc_cgroups

# /proc/cgroups of a Debian host booted with the legacy (v1) hierarchy.
PROC_CGROUPS_V1 = """\
#subsys_name\thierarchy\tnum_cgroups\tenabled
cpuset\t3\t6\t1
cpu\t1\t2\t1
cpuacct\t2\t2\t1
blkio\t7\t2\t1
memory\t4\t81\t1
devices\t5\t6\t1
freezer\t6\t6\t1
net_cls\t0\t2\t1
perf_event\t0\t2\t1
net_prio\t0\t2\t1
hugetlb\t0\t2\t1
pids\t8\t2\t1
"""

V1_ENABLED = ["blkio", "cpu", "cpuacct", "cpuset", "devices", "freezer", "hugetlb", "memory", "net_cls", "net_prio", "perf_event", "pids"]

# The same host booted with cgroup_disable=memory.
PROC_CGROUPS_V1_NO_MEMORY = PROC_CGROUPS_V1.replace("memory\t4\t81\t1", "memory\t0\t1\t0")

# Names under /sys/fs/cgroup on that host (comounts appear as "cpu,cpuacct").
V1_MOUNTED = {"blkio", "cpu", "cpuacct", "cpuset", "devices", "freezer", "hugetlb", "memory", "net_cls", "net_prio", "perf_event", "pids", "systemd", "unified"}

# /sys/fs/cgroup/cgroup.controllers of a Debian 13 host (unified hierarchy).
V2_ALL = "cpuset cpu io memory hugetlb pids rdma misc\n"
V2_NO_MEMORY = "cpuset cpu io hugetlb pids rdma misc\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PROC_CGROUPS_V1, ["cpuset", "cpu", "cpuacct", "blkio", "memory", "devices", "freezer", "net_cls", "perf_event", "net_prio", "hugetlb", "pids"]),
        (PROC_CGROUPS_V1_NO_MEMORY, ["cpuset", "cpu", "cpuacct", "blkio", "devices", "freezer", "net_cls", "perf_event", "net_prio", "hugetlb", "pids"]),
        ("#subsys_name\thierarchy\tnum_cgroups\tenabled\n", []),
        ("", []),
        (None, []),
        ("\n   \ncpuset 1 1 1\nbroken 1\nmemory 2 3 0\n", ["cpuset"]),
    ],
    ids=["v1-all-enabled", "v1-memory-disabled", "header-only", "empty", "none", "blank-short-and-disabled-lines"],
)
def test_parse_proc_cgroups(text, expected):
    assert parse_proc_cgroups(text) == expected


# --- cgroup v2 ---------------------------------------------------------------


def test_layout_v2_all_controllers():
    assert layout("cgroup2fs", proc_cgroups=PROC_CGROUPS_V1, v2_controllers=V2_ALL) == {
        "version": 2,
        "plugin": "cgroup/v2",
        "available": ["cpu", "cpuset", "hugetlb", "io", "memory", "misc", "pids", "rdma"],
        "missing": [],
        "message": "",
    }


@pytest.mark.parametrize(
    ("controllers", "missing"),
    [
        (V2_NO_MEMORY, ["memory"]),
        ("cpu io memory pids\n", ["cpuset"]),
        ("", ["cpuset", "memory"]),
        (None, ["cpuset", "memory"]),
        ("cpusetx memoryy", ["cpuset", "memory"]),
    ],
    ids=["no-memory", "no-cpuset", "empty-file", "unreadable", "no-substring-match"],
)
def test_layout_v2_missing_controllers(controllers, missing):
    result = layout("cgroup2fs", v2_controllers=controllers)
    assert (result["version"], result["plugin"]) == (2, "cgroup/v2")
    assert result["missing"] == missing
    assert result["message"].startswith("cgroup v2 controllers %s are not available in /sys/fs/cgroup/cgroup.controllers" % ", ".join(missing))
    assert "delegate them to the slurmd unit" in result["message"]


def test_layout_v2_ignores_v1_sources():
    # On a unified host /proc/cgroups still lists every controller (hierarchy 0),
    # and /sys/fs/cgroup holds cgroup.* files, not controller directories.
    result = layout("cgroup2fs", proc_cgroups=PROC_CGROUPS_V1_NO_MEMORY, v2_controllers=V2_ALL, v1_mounted={"cgroup.controllers", "init.scope"})
    assert result["missing"] == []
    assert "memory" in result["available"]


def test_layout_v2_requires_no_devices_or_freezer():
    assert layout("cgroup2fs", v2_controllers="cpuset memory")["missing"] == []


# --- cgroup v1 ---------------------------------------------------------------


@pytest.mark.parametrize("mounted", [V1_MOUNTED, (), set()], ids=["mounted-listed", "mounted-unknown-tuple", "mounted-unknown-set"])
def test_layout_v1_all_controllers(mounted):
    assert layout("tmpfs", proc_cgroups=PROC_CGROUPS_V1, v2_controllers="cpu memory", v1_mounted=mounted) == {
        "version": 1,
        "plugin": "cgroup/v1",
        "available": V1_ENABLED,
        "missing": [],
        "message": "",
    }


def test_layout_v1_disabled_controller():
    result = layout("tmpfs", proc_cgroups=PROC_CGROUPS_V1_NO_MEMORY, v1_mounted=V1_MOUNTED)
    assert (result["version"], result["plugin"]) == (1, "cgroup/v1")
    assert "memory" not in result["available"]
    assert result["missing"] == ["memory"]
    assert result["message"].startswith("cgroup v1 controllers memory are not enabled or mounted under /sys/fs/cgroup")
    assert "switch the host to cgroup v2" in result["message"]


def test_layout_v1_enabled_but_not_mounted():
    result = layout("tmpfs", proc_cgroups=PROC_CGROUPS_V1, v1_mounted=V1_MOUNTED - {"freezer", "devices"})
    assert result["missing"] == ["devices", "freezer"]
    assert "freezer" not in result["available"]
    assert "cgroup v1 controllers devices, freezer" in result["message"]


def test_layout_v1_mounted_but_not_enabled_is_missing():
    result = layout("tmpfs", proc_cgroups=PROC_CGROUPS_V1_NO_MEMORY, v1_mounted=V1_MOUNTED | {"memory"})
    assert result["missing"] == ["memory"]


def test_layout_v1_empty_proc_cgroups():
    result = layout("tmpfs", proc_cgroups="", v1_mounted=V1_MOUNTED)
    assert result["available"] == []
    assert result["missing"] == list(REQUIRED_V1)


def test_layout_v1_ignores_v2_controllers():
    result = layout("tmpfs", proc_cgroups=PROC_CGROUPS_V1_NO_MEMORY, v2_controllers=V2_ALL)
    assert result["missing"] == ["memory"]


# --- neither -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fstype", "shown"),
    [("ext4", "ext4"), ("cgroup2", "cgroup2"), ("cgroup", "cgroup"), ("", "absent"), (None, "absent")],
    ids=["ext4", "raw-cgroup2-name", "raw-cgroup-name", "empty", "none"],
)
def test_layout_unknown_fstype(fstype, shown):
    assert layout(fstype, proc_cgroups=PROC_CGROUPS_V1, v2_controllers=V2_ALL, v1_mounted=V1_MOUNTED) == {
        "version": 0,
        "plugin": None,
        "available": [],
        "missing": list(REQUIRED_V2),
        "message": "/sys/fs/cgroup is %s, not a cgroup hierarchy; mount cgroup v2 (cgroup2) or v1 controllers" % shown,
    }
