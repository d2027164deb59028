import pytest

from ansible_collections.aicluster.slurm.plugins.modules import cgroup_info

PROC_CGROUPS_V1 = """\
#subsys_name\thierarchy\tnum_cgroups\tenabled
cpuset\t3\t6\t1
cpu\t1\t2\t1
cpuacct\t1\t2\t1
blkio\t7\t2\t1
memory\t4\t81\t1
devices\t5\t6\t1
freezer\t6\t6\t1
net_cls\t8\t2\t1
perf_event\t0\t2\t1
net_prio\t8\t2\t1
hugetlb\t0\t2\t1
pids\t9\t2\t1
"""

# On a unified host every controller sits in hierarchy 0.
PROC_CGROUPS_V2 = """\
#subsys_name\thierarchy\tnum_cgroups\tenabled
cpuset\t0\t91\t1
cpu\t0\t91\t1
cpuacct\t0\t91\t1
blkio\t0\t91\t1
memory\t0\t91\t1
devices\t0\t91\t1
freezer\t0\t91\t1
pids\t0\t91\t1
"""

# Directories under /sys/fs/cgroup on a v1 host.
V1_DIRS = ["blkio", "cpu,cpuacct", "cpuset", "devices", "freezer", "hugetlb", "memory", "net_cls,net_prio", "perf_event", "pids", "systemd", "unified"]
V1_AVAILABLE = ["blkio", "cpu", "cpuacct", "cpuset", "devices", "freezer", "hugetlb", "memory", "net_cls", "net_prio", "perf_event", "pids"]

MOUNTINFO = """\
22 27 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
26 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
31 22 0:28 / {root} ro,nosuid,nodev,noexec shared:9 - {fstype} {fstype} rw,nsdelegate,memory_recursiveprot
35 31 0:32 / {root}/memory rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,memory
"""


@pytest.fixture
def fake_proc(monkeypatch):
    """Serve /proc files from strings; everything else is read from disk by the real _read."""
    files = {}
    real_read = cgroup_info._read

    def read(path):
        if path.startswith("/proc/"):
            return files.get(path, "")
        return real_read(path)

    monkeypatch.setattr(cgroup_info, "_read", read)
    return files


@pytest.fixture
def v2_root(tmp_path):
    root = tmp_path / "cgroup"
    root.mkdir()
    for name in ("cgroup.procs", "cgroup.subtree_control", "memory.stat"):
        (root / name).write_text("")
    (root / "init.scope").mkdir()
    return root


@pytest.fixture
def v1_root(tmp_path):
    root = tmp_path / "cgroup"
    root.mkdir()
    for name in V1_DIRS:
        (root / name).mkdir()
    return root


@pytest.fixture
def run(run_module, monkeypatch):
    """``run(root, fstype)`` -> the module's ``cgroup`` result, with _fstype answering ``fstype``."""
    seen = []

    def run_cgroup_info(root, fstype):
        def fake_fstype(path):
            seen.append(path)
            return fstype

        monkeypatch.setattr(cgroup_info, "_fstype", fake_fstype)
        # In check mode too: the module only reads, and says so (supports_check_mode).
        result = run_module(cgroup_info.main, {"root": str(root)}, check_mode=True)
        assert result["changed"] is False
        assert set(result) == {"changed", "cgroup"}
        return result["cgroup"]

    run_cgroup_info.seen = seen
    return run_cgroup_info


def test_v2_all_controllers(run, fake_proc, v2_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V2
    (v2_root / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    assert run(v2_root, "cgroup2fs") == {
        "version": 2,
        "plugin": "cgroup/v2",
        "available": ["cpu", "cpuset", "hugetlb", "io", "memory", "misc", "pids", "rdma"],
        "missing": [],
        "message": "",
    }


def test_v2_missing_memory(run, fake_proc, v2_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V2
    (v2_root / "cgroup.controllers").write_text("cpuset cpu io pids\n")
    result = run(v2_root, "cgroup2fs")
    assert (result["version"], result["missing"]) == (2, ["memory"])
    assert "cgroup v2 controllers memory are not available" in result["message"]


def test_v2_without_controllers_file(run, fake_proc, v2_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V2
    result = run(v2_root, "cgroup2fs")
    assert (result["version"], result["available"], result["missing"]) == (2, [], ["cpuset", "memory"])


def test_v1_all_controllers(run, fake_proc, v1_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V1
    assert run(v1_root, "tmpfs") == {
        "version": 1,
        "plugin": "cgroup/v1",
        "available": V1_AVAILABLE,
        "missing": [],
        "message": "",
    }


def test_v1_disabled_controller(run, fake_proc, v1_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V1.replace("memory\t4\t81\t1", "memory\t0\t1\t0")
    result = run(v1_root, "tmpfs")
    assert (result["version"], result["missing"]) == (1, ["memory"])
    assert "memory" not in result["available"]
    assert "cgroup v1 controllers memory are not enabled or mounted" in result["message"]


def test_v1_controller_not_mounted(run, fake_proc, v1_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V1
    (v1_root / "freezer").rmdir()
    result = run(v1_root, "tmpfs")
    assert result["missing"] == ["freezer"]
    assert "freezer" not in result["available"]


def test_v1_comounted_controllers_count_as_mounted(run, fake_proc, v1_root):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V1
    (v1_root / "cpuset").rmdir()
    (v1_root / "cpu,cpuacct").rename(v1_root / "cpu,cpuacct,cpuset")
    result = run(v1_root, "tmpfs")
    assert result["missing"] == []
    assert {"cpu", "cpuacct", "cpuset"} <= set(result["available"])


@pytest.mark.parametrize("fstype", [None, "ext4"], ids=["not-mounted", "other-filesystem"])
def test_no_hierarchy(run, fake_proc, tmp_path, fstype):
    fake_proc["/proc/cgroups"] = PROC_CGROUPS_V1
    result = run(tmp_path / "absent", fstype)
    assert (result["version"], result["plugin"], result["available"]) == (0, None, [])
    assert result["message"].startswith("/sys/fs/cgroup is %s, not a cgroup hierarchy" % (fstype or "absent"))


def test_root_trailing_slash_is_stripped(run, fake_proc, v2_root):
    (v2_root / "cgroup.controllers").write_text("cpuset memory\n")
    assert run(str(v2_root) + "/", "cgroup2fs")["missing"] == []
    assert run.seen == [str(v2_root)]


# --- helpers -------------------------------------------------------------------


def test_read_returns_file_text(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset memory\n")
    assert cgroup_info._read(str(tmp_path / "cgroup.controllers")) == "cpuset memory\n"


@pytest.mark.parametrize("name", ["missing", "."], ids=["missing-file", "directory"])
def test_read_unreadable_is_empty(tmp_path, name):
    assert cgroup_info._read(str(tmp_path / name)) == ""


@pytest.mark.parametrize(
    ("mountinfo", "root", "expected"),
    [
        (MOUNTINFO.format(root="/sys/fs/cgroup", fstype="cgroup2"), "/sys/fs/cgroup", "cgroup2fs"),
        (MOUNTINFO.format(root="/sys/fs/cgroup", fstype="tmpfs"), "/sys/fs/cgroup", "tmpfs"),
        (MOUNTINFO.format(root="/sys/fs/cgroup", fstype="tmpfs"), "/sys/fs/cgroup/memory", "cgroup"),
        (MOUNTINFO.format(root="/srv/cgroup", fstype="cgroup2"), "/srv/cgroup", "cgroup2fs"),
        (MOUNTINFO.format(root="/srv/cgroup", fstype="cgroup2"), "/sys/fs/cgroup", None),
        (MOUNTINFO.format(root="/sys/fs/cgroup", fstype="tmpfs") + "99 31 0:40 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "/sys/fs/cgroup", "cgroup2fs"),
        ("", "/sys/fs/cgroup", None),
        ("garbage line\n31 22 0:28 / /sys/fs/cgroup rw\n", "/sys/fs/cgroup", None),
    ],
    ids=["unified", "legacy", "v1-controller", "other-root", "not-mounted", "last-mount-wins", "empty", "malformed"],
)
def test_fstype_from_mountinfo(fake_proc, mountinfo, root, expected):
    fake_proc["/proc/self/mountinfo"] = mountinfo
    assert cgroup_info._fstype(root) == expected
