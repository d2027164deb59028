# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OCI bundles for Slurm's --container, and the step's GPUs inside them.

aicluster-oci bundle SOURCE BUNDLE [--mount SRC[:DST[:ro]]]...
    SOURCE: a root filesystem as a directory (used in place) or a tar
    archive (docker/podman export, enroot export; .tar, .tar.gz, .tar.xz,
    .tar.zst), unpacked into BUNDLE/rootfs. Writes BUNDLE/config.json for
    rootless crun, HPC style: only a user and a mount namespace, so the
    job keeps the node's network, process and IPC namespaces (torchrun,
    NCCL and MPI across the tasks of a step, /dev/shm shared between them).
    Makes the mount points in the root filesystem now, Slurm's spool mount
    (oci.conf MountSpoolDir, from AICLUSTER_OCI_SPOOL_MOUNT) among them: a
    root on shared storage that the runtimes of several nodes change at
    once fails (crun: "creating /var/run/slurm/: openat2 var").

aicluster-oci run BUNDLE RUNTIME...   (oci.conf's RunTimeRun, as the job's user)
    Adds the step's NVIDIA GPUs (SLURM_STEP_GPUS or SLURM_JOB_GPUS in the
    step's environment), the driver's control devices and its user-space
    libraries and tools (under /usr/local/nvidia, as CUDA images expect) to
    the bundle Slurm generated for the task, then runs RUNTIME. The step's
    device cgroup still decides which devices open. A container of the same
    name left by a killed run is deleted first: a requeued job's steps get
    the same names again.

aicluster-oci query RUNTIME...   (oci.conf's RunTimeQuery)
    The runtime's state of the container, or a stopped state for one it
    already deleted when its run ended.
"""

import glob
import json
import os
import subprocess
import sys

NVIDIA_PREFIX = "/usr/local/nvidia"
CONTROL_DEVICES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset")
# The driver's user-space parts a CUDA program loads, as nvidia-container-toolkit lists them (compute and utility).
DRIVER_LIBRARIES = (
    "libcuda.so",
    "libcudadebugger.so",
    "libnvidia-ml.so",
    "libnvidia-ptxjitcompiler.so",
    "libnvidia-nvvm.so",
    "libnvidia-gpucomp.so",
    "libnvidia-allocator.so",
    "libnvidia-cfg.so",
    "libnvidia-opencl.so",
)
DRIVER_TOOLS = ("nvidia-smi", "nvidia-debugdump", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server")
LIBRARY_DIRS = (
    "/usr/lib/x86_64-linux-gnu/nvidia/current",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu/nvidia/current",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
)
TOOL_DIRS = ("/usr/bin", "/usr/sbin", "/usr/lib/nvidia/current")
TAR_TYPES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.zst", ".tar.bz2")


class OciError(Exception):
    pass


def bind(source, destination=None, read_only=False, device=False):
    options = ["rbind", "nosuid"] + ([] if device else ["nodev"]) + (["ro"] if read_only else [])
    return {"destination": destination or source, "type": "bind", "source": source, "options": options}


def parse_mount(text):
    """SRC[:DST[:ro]] -> a bind mount; SRC must be absolute."""
    parts = text.split(":")
    if len(parts) > 3 or not parts[0].startswith("/") or (len(parts) > 1 and not parts[1].startswith("/")):
        raise OciError("--mount %s: give SRC[:DST[:ro]] with absolute paths" % text)
    if len(parts) == 3 and parts[2] != "ro":
        raise OciError("--mount %s: the third field may only be ro" % text)
    return bind(parts[0], parts[1] if len(parts) > 1 else parts[0], read_only=len(parts) == 3)


def bundle_config(rootfs, mounts=()):
    """config.json for rootless crun sharing the node's network, PIDs and IPC (no namespaces but user and mount)."""
    return {
        "ociVersion": "1.0.0",
        "process": {
            "terminal": False,
            "user": {"uid": 0, "gid": 0},
            "args": ["/bin/sh"],
            "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
            "cwd": "/",
            "capabilities": {kind: ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"] for kind in ("bounding", "effective", "permitted", "ambient")},
            "noNewPrivileges": True,
        },
        "root": {"path": rootfs, "readonly": True},
        "mounts": [
            # The node's /proc and /sys (no PID or network namespace of our own to mount new ones for).
            bind("/proc"),
            bind("/sys", read_only=True),
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
            {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
            # Shared with the step's other tasks (NCCL's shared-memory transport).
            bind("/dev/shm"),
            bind("/etc/hosts", read_only=True),
            bind("/etc/resolv.conf", read_only=True),
        ]
        + list(mounts),
        "linux": {
            "namespaces": [{"type": "user"}, {"type": "mount"}],
            "maskedPaths": ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
        },
    }


def inside(rootfs, path):
    """PATH in the container -> its place under ROOTFS, following the root's own symlinks inside it (/var/run -> /run)."""
    current, parts, hops = rootfs, [p for p in path.split("/") if p not in ("", ".")], 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            current = current if current == rootfs else os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        if os.path.islink(candidate):
            hops += 1
            if hops > 40:
                raise OciError("%s in %s: too many symbolic links" % (path, rootfs))
            target = os.readlink(candidate)
            current = rootfs if target.startswith("/") else current
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            continue
        current = candidate
    return current


def make_mount_points(rootfs, mounts):
    """Each mount's destination in ROOTFS (a directory, or an empty file for a file's bind) unless it lies under another mount."""
    destinations = [m["destination"].rstrip("/") or "/" for m in mounts]
    for mount, destination in zip(mounts, destinations, strict=True):
        if any(destination.startswith(other + "/") for other in destinations if other not in ("/", destination)):
            continue
        place = inside(rootfs, destination)
        if os.path.lexists(place):
            continue
        try:
            if mount.get("type") == "bind" and os.path.isfile(mount.get("source", "")):
                os.makedirs(os.path.dirname(place), exist_ok=True)
                open(place, "a").close()
            else:
                os.makedirs(place)
        except OSError as error:
            raise OciError("cannot make the mount point %s in %s (%s): make it in the root filesystem" % (destination, rootfs, error.strerror)) from error


def unpack(source, rootfs):
    """A tar archive into rootfs as the calling user: device nodes are skipped (the runtime makes /dev)."""
    os.makedirs(rootfs)
    result = subprocess.run(
        ["tar", "-x", "-f", source, "-C", rootfs, "--no-same-owner", "--no-same-permissions", "--exclude=dev/*", "--exclude=./dev/*"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise OciError("tar could not unpack %s: %s" % (source, result.stderr.strip()))


def make_bundle(source, bundle, mounts=(), spool_mount=""):
    source = os.path.abspath(source)
    bundle = os.path.abspath(bundle)
    if os.path.exists(os.path.join(bundle, "config.json")):
        raise OciError("%s already holds a bundle (config.json); remove it or choose another directory" % bundle)
    if os.path.isdir(source):
        rootfs = source
    elif os.path.isfile(source) and source.endswith(TAR_TYPES):
        rootfs = os.path.join(bundle, "rootfs")
        unpack(source, rootfs)
    else:
        raise OciError("%s is neither a directory nor a tar archive (%s)" % (source, ", ".join(TAR_TYPES)))
    if not os.path.isfile(os.path.join(rootfs, "bin", "sh")) and not os.path.islink(os.path.join(rootfs, "bin")):
        raise OciError("%s has no /bin/sh: not a root filesystem" % source)
    config = bundle_config(rootfs, mounts)
    # Slurm binds the step's spool directory there; a pattern (%j...) differs per step and is left to the runtime.
    spool = [{"destination": spool_mount}] if spool_mount.startswith("/") and "%" not in spool_mount else []
    make_mount_points(rootfs, config["mounts"] + spool)
    os.makedirs(bundle, exist_ok=True)
    with open(os.path.join(bundle, "config.json"), "w") as handle:
        json.dump(config, handle, indent=2)
        handle.write("\n")
    return rootfs


def ids(text):
    """Slurm's GPU index list (0,2 or 0-3) -> [0, 2]."""
    found = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        first, _dash, last = item.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise OciError("cannot read the GPU indices %r" % text)
        found.extend(range(int(first), int(last or first) + 1))
    return found


def step_gpus(env):
    """The node's GPU indices of this step (SLURM_STEP_GPUS in an srun step, SLURM_JOB_GPUS in a batch step)."""
    values = dict(item.split("=", 1) for item in env if "=" in item)
    return ids(values.get("SLURM_STEP_GPUS") or values.get("SLURM_JOB_GPUS"))


def driver_files(root="/"):
    """(host path, path in the container) of the NVIDIA driver's libraries and tools on this node."""
    found, seen = [], set()
    for directory in LIBRARY_DIRS:
        for library in DRIVER_LIBRARIES:
            for path in sorted(glob.glob(os.path.join(root + directory.lstrip("/"), library + "*"))):
                name = os.path.basename(path)
                if name not in seen and os.path.exists(path):
                    seen.add(name)
                    found.append((os.path.realpath(path), "%s/lib64/%s" % (NVIDIA_PREFIX, name)))
    for directory in TOOL_DIRS:
        for tool in DRIVER_TOOLS:
            path = os.path.join(root + directory.lstrip("/"), tool)
            if tool not in seen and os.path.exists(path):
                seen.add(tool)
                found.append((os.path.realpath(path), "%s/bin/%s" % (NVIDIA_PREFIX, tool)))
    return found


def prepend(env, name, value):
    for index, item in enumerate(env):
        if item.startswith(name + "="):
            old = item.split("=", 1)[1]
            env[index] = "%s=%s%s" % (name, value, ":" + old if old else "")
            return
    env.append("%s=%s" % (name, value))


def add_gpus(config, root="/"):
    """The step's GPU devices, the control devices and the driver's files as bind mounts; returns the GPU indices."""
    env = config.setdefault("process", {}).setdefault("env", [])
    gpus = step_gpus(env)
    if not gpus:
        return gpus
    mounts = config.setdefault("mounts", [])
    devices = ["/dev/nvidia%d" % index for index in gpus] + list(CONTROL_DEVICES)
    for device in devices:
        if os.path.exists(root + device.lstrip("/")):
            mounts.append(bind(device, device=True))
    files = driver_files(root)
    for source, destination in files:
        mounts.append(bind(source, destination, read_only=True))
    if files:
        prepend(env, "LD_LIBRARY_PATH", NVIDIA_PREFIX + "/lib64")
        prepend(env, "PATH", NVIDIA_PREFIX + "/bin")
    return gpus


def stale_delete(runtime):
    """RUNTIME's delete command for its run's container (RUNTIME... run [options] NAME), or None."""
    if "run" not in runtime[1:-1]:
        return None
    return runtime[: runtime.index("run", 1)] + ["delete", "--force", runtime[-1]]


def run(bundle, runtime):
    path = os.path.join(bundle, "config.json")
    with open(path) as handle:
        config = json.load(handle)
    add_gpus(config)
    with open(path + ".new", "w") as handle:
        json.dump(config, handle)
    os.replace(path + ".new", path)
    delete = stale_delete(runtime)
    if delete:
        # Nothing to delete is the usual case: the runtime's complaint is not the job's business.
        subprocess.run(delete, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    os.execvp(runtime[0], runtime)


def query(runtime):
    """oci.conf's RunTimeQuery: the runtime's state of the container, or "stopped" for one it no longer has.

    crun deletes a container when RunTimeRun's run ends, and slurmstepd asks for its state afterwards: crun's
    error would land in the job's output.
    """
    result = subprocess.run(runtime, capture_output=True, text=True, check=False)
    if result.returncode == 0:
        sys.stdout.write(result.stdout)
        return 0
    if "No such file or directory" in result.stderr or "does not exist" in result.stderr:
        json.dump({"ociVersion": "1.0.0", "id": runtime[-1], "status": "stopped", "pid": 0, "bundle": ""}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    sys.stderr.write(result.stderr)
    return result.returncode


def main(argv):
    if len(argv) >= 3 and argv[0] == "run":
        return run(argv[1], argv[2:])
    if len(argv) >= 2 and argv[0] == "query":
        return query(argv[1:])
    if len(argv) >= 3 and argv[0] == "bundle":
        mounts, rest = [], argv[1:]
        positional = []
        while rest:
            if rest[0] == "--mount" and len(rest) > 1:
                mounts.append(parse_mount(rest[1]))
                rest = rest[2:]
            else:
                positional.append(rest.pop(0))
        if len(positional) == 2:
            rootfs = make_bundle(positional[0], positional[1], mounts, os.environ.get("AICLUSTER_OCI_SPOOL_MOUNT", ""))
            print("%s: bundle over %s; run it with srun --container=%s" % (os.path.abspath(positional[1]), rootfs, os.path.abspath(positional[1])))
            return 0
    sys.stderr.write(__doc__.split("\n\n", 1)[1])
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OciError, OSError, ValueError) as error:
        sys.stderr.write("aicluster-oci: %s\n" % error)
        sys.exit(1)
