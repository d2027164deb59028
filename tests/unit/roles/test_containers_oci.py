"""aicluster-oci (roles/containers/files/aicluster_oci.py): bundles from a root filesystem, and the step's GPUs in them."""

import importlib.util
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "roles" / "containers" / "files" / "aicluster_oci.py"
_spec = importlib.util.spec_from_file_location("aicluster_oci", SCRIPT)
oci = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oci)


def _rootfs(path):
    """A usrmerged root filesystem: /bin -> usr/bin, with a shell."""
    (path / "usr" / "bin").mkdir(parents=True)
    (path / "usr" / "bin" / "sh").write_text("#!/bin/false\n")
    (path / "bin").symlink_to("usr/bin")
    return path


def _cli(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=False)


def test_bundle_from_a_directory_uses_it_in_place(tmp_path):
    rootfs = _rootfs(tmp_path / "rootfs")
    result = _cli("bundle", rootfs, tmp_path / "bundle", "--mount", "/srv/data:/data:ro")
    assert result.returncode == 0, result.stderr
    config = json.loads((tmp_path / "bundle" / "config.json").read_text())
    assert config["root"] == {"path": str(rootfs), "readonly": True}
    assert not (tmp_path / "bundle" / "rootfs").exists()
    # Only a user and a mount namespace: the node's network, PIDs and IPC are the job's.
    assert config["linux"]["namespaces"] == [{"type": "user"}, {"type": "mount"}]
    assert "hostname" not in config
    assert config["process"]["terminal"] is False
    mounts = {m["destination"]: m for m in config["mounts"]}
    assert mounts["/proc"]["type"] == "bind"
    assert mounts["/proc"]["source"] == "/proc"
    assert mounts["/dev/shm"]["source"] == "/dev/shm"
    assert mounts["/data"] == {"destination": "/data", "type": "bind", "source": "/srv/data", "options": ["rbind", "nosuid", "nodev", "ro"]}
    assert "srun --container=%s" % (tmp_path / "bundle") in result.stdout


def test_bundle_from_an_archive_unpacks_it_without_devices(tmp_path):
    rootfs = _rootfs(tmp_path / "src")
    (rootfs / "dev").mkdir()
    (rootfs / "dev" / "stray").write_text("x")
    archive = tmp_path / "image.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(rootfs, arcname=".")
    result = _cli("bundle", archive, tmp_path / "bundle")
    assert result.returncode == 0, result.stderr
    unpacked = tmp_path / "bundle" / "rootfs"
    assert (unpacked / "bin" / "sh").is_file()
    assert os.readlink(unpacked / "bin") == "usr/bin"
    assert not (unpacked / "dev" / "stray").exists()
    assert json.loads((tmp_path / "bundle" / "config.json").read_text())["root"]["path"] == str(unpacked)


def test_bundle_makes_the_mount_points_ahead_of_the_steps(tmp_path):
    # A root on shared storage that the runtimes of two nodes change at once fails (crun: openat2 var), so none is
    # left to them: the spool mount through the root's own absolute symlink (/var/run -> /run, as Debian has it), the
    # bundle's binds (a file for a file), nothing under another mount (/dev/pts: the runtime's tmpfs) or outside.
    rootfs = _rootfs(tmp_path / "rootfs")
    (rootfs / "var").mkdir()
    (rootfs / "var" / "run").symlink_to("/run")
    env = dict(os.environ, AICLUSTER_OCI_SPOOL_MOUNT="/var/run/slurm")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "bundle", rootfs, tmp_path / "bundle", "--mount", "/usr:/usr:ro", "--mount", "/srv:/data/sets"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert (rootfs / "run" / "slurm").is_dir()
    assert os.path.islink(rootfs / "var" / "run")
    assert (rootfs / "data" / "sets").is_dir()
    assert (rootfs / "etc" / "hosts").is_file()
    assert (rootfs / "proc").is_dir()
    assert (rootfs / "dev").is_dir()
    assert not (rootfs / "dev" / "pts").exists()
    assert not (rootfs / "dev" / "shm").exists()


@pytest.mark.parametrize(
    ("path", "place"),
    [("/var/run/slurm", "run/slurm"), ("/lib/x", "usr/lib/x"), ("/../../etc", "etc"), ("/usr/../opt", "opt"), ("/up/x", "x")],
)
def test_paths_in_the_container_stay_in_its_root(tmp_path, path, place):
    rootfs = tmp_path / "rootfs"
    (rootfs / "var").mkdir(parents=True)
    (rootfs / "var" / "run").symlink_to("/run")
    (rootfs / "lib").symlink_to("usr/lib")
    (rootfs / "up").symlink_to("../../..")
    assert oci.inside(str(rootfs), path) == str(rootfs / place)


def test_a_symlink_loop_in_the_root_is_refused(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(oci.OciError, match="too many symbolic links"):
        oci.inside(str(tmp_path), "/a/x")


def test_a_spool_mount_pattern_is_left_to_the_runtime(tmp_path):
    rootfs = _rootfs(tmp_path / "rootfs")
    oci.make_bundle(str(rootfs), str(tmp_path / "bundle"), spool_mount="/var/spool/oci-job%j")
    assert not (rootfs / "var" / "spool").exists()


def test_a_mount_point_the_bundle_cannot_make_is_named(tmp_path):
    rootfs = _rootfs(tmp_path / "rootfs")
    (rootfs / "etc").write_text("not a directory\n")
    with pytest.raises(oci.OciError, match="mount point /etc/hosts in %s" % rootfs):
        oci.make_bundle(str(rootfs), str(tmp_path / "bundle"))
    assert not (tmp_path / "bundle" / "config.json").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["bundle", "/nonexistent.img", "B"], "neither a directory nor a tar archive"),
        (["bundle", "EMPTY", "B"], "no /bin/sh"),
        (["bundle", "ROOTFS", "B", "--mount", "data:/data"], "absolute paths"),
        (["bundle", "ROOTFS", "B", "--mount", "/a:/b:rw"], "may only be ro"),
        (["bundle", "ROOTFS", "EXISTING"], "already holds a bundle"),
        (["nothing"], "aicluster-oci bundle SOURCE BUNDLE"),
    ],
)
def test_bad_bundle_requests_say_why(tmp_path, args, says):
    (tmp_path / "EMPTY").mkdir()
    _rootfs(tmp_path / "ROOTFS")
    (tmp_path / "EXISTING").mkdir()
    (tmp_path / "EXISTING" / "config.json").write_text("{}")
    result = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert result.returncode != 0
    assert says in result.stderr


@pytest.mark.parametrize(("text", "ids"), [("0", [0]), ("1,3", [1, 3]), ("0-2,5", [0, 1, 2, 5]), ("", [])])
def test_gpu_index_lists_as_slurm_writes_them(text, ids):
    assert oci.ids(text) == ids


def _node(tmp_path, gpus=4, driver=True):
    """A node root: /dev/nvidia0..N-1, the control devices, and the driver's files as Debian installs them."""
    (tmp_path / "dev").mkdir()
    for name in ["nvidia%d" % i for i in range(gpus)] + ["nvidiactl", "nvidia-uvm"]:
        (tmp_path / "dev" / name).write_text("")
    if driver:
        libs = tmp_path / "usr/lib/x86_64-linux-gnu/nvidia/current"
        libs.mkdir(parents=True)
        (libs / "libcuda.so.550.163.01").write_text("")
        (libs / "libcuda.so.1").symlink_to("libcuda.so.550.163.01")
        (libs / "libnvidia-ml.so.1").write_text("")
        (tmp_path / "usr/bin").mkdir(parents=True)
        (tmp_path / "usr/bin/nvidia-smi").write_text("")
    return str(tmp_path) + "/"


def test_the_steps_gpus_and_the_driver_go_into_the_bundle(tmp_path):
    root = _node(tmp_path)
    config = {"process": {"env": ["SLURM_STEP_GPUS=1,3", "PATH=/usr/bin:/bin", "CUDA_VISIBLE_DEVICES=0,1"]}, "mounts": []}
    assert oci.add_gpus(config, root) == [1, 3]
    mounts = {m["destination"]: m for m in config["mounts"]}
    # Only the step's GPUs (and the control devices): no other GPU exists in the container.
    assert sorted(d for d in mounts if d.startswith("/dev/")) == ["/dev/nvidia-uvm", "/dev/nvidia1", "/dev/nvidia3", "/dev/nvidiactl"]
    assert "nodev" not in mounts["/dev/nvidia1"]["options"]
    assert mounts["/usr/local/nvidia/lib64/libcuda.so.1"]["source"] == str(tmp_path / "usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.550.163.01")
    assert "ro" in mounts["/usr/local/nvidia/lib64/libcuda.so.1"]["options"]
    assert "/usr/local/nvidia/lib64/libnvidia-ml.so.1" in mounts
    assert "/usr/local/nvidia/bin/nvidia-smi" in mounts
    env = config["process"]["env"]
    assert "LD_LIBRARY_PATH=/usr/local/nvidia/lib64" in env
    assert "PATH=/usr/local/nvidia/bin:/usr/bin:/bin" in env


def test_a_batch_step_uses_the_jobs_gpus(tmp_path):
    root = _node(tmp_path, driver=False)
    config = {"process": {"env": ["SLURM_JOB_GPUS=0", "PATH=/bin"]}}
    assert oci.add_gpus(config, root) == [0]
    assert [m["destination"] for m in config["mounts"]] == ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"]
    # No driver installed (stand-in devices): nothing to add to the paths.
    assert config["process"]["env"] == ["SLURM_JOB_GPUS=0", "PATH=/bin"]


def test_a_step_without_gpus_is_left_alone(tmp_path):
    root = _node(tmp_path)
    config = {"process": {"env": ["PATH=/bin"]}, "mounts": [{"destination": "/proc"}]}
    assert oci.add_gpus(config, root) == []
    assert config == {"process": {"env": ["PATH=/bin"]}, "mounts": [{"destination": "/proc"}]}


def test_run_rewrites_the_generated_bundle_and_executes_the_runtime(tmp_path):
    bundle = tmp_path / "task-0"
    bundle.mkdir()
    (bundle / "config.json").write_text(json.dumps({"process": {"env": ["A=1"]}, "mounts": []}))
    result = _cli("run", bundle, "sh", "-c", "echo ran $0", "crun")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ran crun\n"
    assert json.loads((bundle / "config.json").read_text()) == {"process": {"env": ["A=1"]}, "mounts": []}


def test_run_deletes_a_container_of_the_same_name_left_by_a_killed_run_first(tmp_path):
    """A requeued job's steps get the same container names; crun refuses a name whose state a killed run left."""
    bundle = tmp_path / "task-0"
    bundle.mkdir()
    (bundle / "config.json").write_text(json.dumps({"process": {"env": []}}))
    runtime = tmp_path / "crun"
    runtime.write_text('#!/bin/sh\necho "$*" >> %s/calls\n' % tmp_path)
    runtime.chmod(0o755)
    result = _cli("run", bundle, runtime, "--rootless=true", "--root=/run/x", "run", "--bundle", bundle, "node1.alice.12.0.0")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "calls").read_text().splitlines() == [
        "--rootless=true --root=/run/x delete --force node1.alice.12.0.0",
        "--rootless=true --root=/run/x run --bundle %s node1.alice.12.0.0" % bundle,
    ]
    assert oci.stale_delete(["crun", "state", "x"]) is None


def test_unreadable_gpu_lists_stop_the_step(tmp_path):
    bundle = tmp_path / "task-0"
    bundle.mkdir()
    (bundle / "config.json").write_text(json.dumps({"process": {"env": ["SLURM_STEP_GPUS=(null)"]}}))
    result = _cli("run", bundle, "true")
    assert result.returncode == 1
    assert "cannot read the GPU indices" in result.stderr


def test_query_passes_the_runtimes_state_through():
    result = _cli("query", "sh", "-c", 'echo \'{"status": "running"}\'', "node1.alice.12.0.0")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"status": "running"}


def test_query_answers_stopped_for_a_container_the_runtime_already_deleted():
    """crun deletes the container when its run ends; slurmstepd asks afterwards and would print crun's error."""
    missing = "echo \"error opening file '/run/aicluster/oci/2701/$0/status': No such file or directory\" >&2; exit 1"
    result = _cli("query", "sh", "-c", missing, "node1.alice.12.0.0")
    assert result.returncode == 0
    assert result.stderr == ""
    assert json.loads(result.stdout) == {"ociVersion": "1.0.0", "id": "node1.alice.12.0.0", "status": "stopped", "pid": 0, "bundle": ""}


def test_query_reports_other_runtime_failures():
    result = _cli("query", "sh", "-c", "echo 'permission denied' >&2; exit 3", "node1.alice.12.0.0")
    assert result.returncode == 3
    assert "permission denied" in result.stderr
