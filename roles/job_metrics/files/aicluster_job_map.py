# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Slurm job holds which GPU of this node.

Slurm runs this as the Prolog (before a job's first step on the node) and the
Epilog (after the job), as root, with the job's allocation in the environment.
It keeps one file per GPU, named by its index and holding the ids of the
jobs using it, one per line:

    <state dir>/gpu/<index>   dcgm-exporter's --hpc-job-mapping-dir format: its
                              GPU series then carry the job id (label hpc_job)
    <state dir>/jobs/<id>     the job's user

and rewrites, atomically, a .prom file for node exporter's textfile collector:

    aicluster_slurm_job_gpu_info{gpu="0",jobid="12",user="alice"} 1

Only GPUs: for other GRES (Ascend NPUs) Slurm gives the Prolog no device
indices, and asking slurmctld from every node at every job start is the load
Slurm's documentation warns Prologs against.

With --usage-textfile, what each job does with its GPUs (Slurm without NVML
gathers no gres/gpumem or gres/gpuutil): the "sample" mode, a service, asks
nvidia-smi every --interval seconds while a job holds a GPU here and keeps
per job and GPU the last utilisation and memory, the peak memory and the
mean and highest utilisation (<state dir>/usage/<id>), written as

    aicluster_slurm_job_gpu_utilization_percent{gpu,jobid,user}
    aicluster_slurm_job_gpu_memory_used_bytes{gpu,jobid,user}
    aicluster_slurm_job_gpu_memory_peak_bytes{gpu,jobid,user}
    aicluster_slurm_job_gpu_utilization_mean_percent{gpu,jobid,user}
    aicluster_slurm_job_gpu_usage_success   0 when nvidia-smi last failed

A GPU held by one job counts all its memory to that job; on a GPU that jobs
share, each job gets its own processes' memory (nvidia-smi's compute apps,
the process's job from its cgroup) and the GPU's utilisation. The Epilog
logs the job's figures (syslog) and, with --report, appends them as the
job's user to slurm-<id>.gpu in the job's working directory, one line per
GPU of each node, for the user to read after the job.

Monitoring must never cost a job its start: a failure is printed (slurmd logs
it) and the program still exits 0, because a failing Prolog drains the node.
"""

import argparse
import contextlib
import csv
import fcntl
import json
import os
import re
import subprocess
import sys
import syslog
import tempfile
import time

# The environment variables, in order of preference, that list the job's GPUs
# on this node as comma-separated indices: Slurm sets all three in the Prolog
# and Epilog (CUDA_VISIBLE_DEVICES there is the node's index, not the task's).
GPU_VARIABLES = ("SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
METRIC = "aicluster_slurm_job_gpu_info"
METRIC_HELP = "A GPU of this node that Slurm has given to a running job (from the Prolog and Epilog)."
USAGE_METRICS = (
    ("aicluster_slurm_job_gpu_utilization_percent", "util", 1, "The GPU's utilisation at the last sample (nvidia-smi)."),
    ("aicluster_slurm_job_gpu_memory_used_bytes", "mem", 2**20, "The job's GPU memory at the last sample (nvidia-smi)."),
    ("aicluster_slurm_job_gpu_memory_peak_bytes", "peak", 2**20, "The job's highest GPU memory sampled since it started here."),
    ("aicluster_slurm_job_gpu_utilization_mean_percent", "mean", 1, "The GPU's mean utilisation over the job's samples."),
)
SUCCESS_METRIC = "aicluster_slurm_job_gpu_usage_success"
SMI_GPUS = ("--query-gpu=index,uuid,utilization.gpu,memory.used", "--format=csv,noheader,nounits")
SMI_APPS = ("--query-compute-apps=gpu_uuid,pid,used_memory", "--format=csv,noheader,nounits")
REPORT_HEADER = "# node gpu memory_peak_MiB utilization_mean_percent utilization_max_percent samples\n"


def gpu_indices(environ):
    """The job's GPU indices on this node, from its environment."""
    for name in GPU_VARIABLES:
        value = environ.get(name, "").strip()
        if value:
            return sorted({item.strip() for item in value.split(",") if item.strip().isdigit()}, key=int)
    return []


def _read_lines(path):
    try:
        with open(path) as handle:
            return [line.strip() for line in handle if line.strip()]
    except FileNotFoundError:
        return []


def _write(path, text):
    """Replace path with text atomically (readers never see half a file)."""
    directory = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def start(state_dir, job_id, user, indices):
    """Record job_id on each of its GPUs."""
    for index in indices:
        path = os.path.join(state_dir, "gpu", index)
        jobs = _read_lines(path)
        if job_id not in jobs:
            _write(path, "".join(line + "\n" for line in jobs + [job_id]))
    if indices:
        _write(os.path.join(state_dir, "jobs", job_id), user + "\n")


def finish(state_dir, job_id):
    """Remove job_id from every GPU (not only those the environment names)."""
    directory = os.path.join(state_dir, "gpu")
    for index in os.listdir(directory):
        if index.startswith("."):
            continue
        path = os.path.join(directory, index)
        jobs = _read_lines(path)
        if job_id not in jobs:
            continue
        rest = [job for job in jobs if job != job_id]
        if rest:
            _write(path, "".join(line + "\n" for line in rest))
        else:
            os.unlink(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(state_dir, "jobs", job_id))


def _escape(value):
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render(state_dir):
    """The textfile collector's view of the state directory."""
    lines = ["# HELP %s %s" % (METRIC, METRIC_HELP), "# TYPE %s gauge" % METRIC]
    directory = os.path.join(state_dir, "gpu")
    for index in sorted((entry for entry in os.listdir(directory) if entry.isdigit()), key=int):
        for job_id in _read_lines(os.path.join(directory, index)):
            user = (_read_lines(os.path.join(state_dir, "jobs", job_id)) or [""])[0]
            lines.append('%s{gpu="%s",jobid="%s",user="%s"} 1' % (METRIC, index, _escape(job_id), _escape(user)))
    return "\n".join(lines) + "\n"


def _number(text):
    """nvidia-smi's csv field -> a number, or None for [N/A] and [Not Supported]."""
    try:
        return float(text.strip())
    except ValueError:
        return None


def parse_gpus(text):
    """nvidia-smi --query-gpu=index,uuid,utilization.gpu,memory.used -> {index: {"uuid", "util", "mem"}}."""
    gpus = {}
    for row in csv.reader(text.splitlines()):
        if len(row) == 4 and row[0].strip().isdigit():
            gpus[row[0].strip()] = {"uuid": row[1].strip(), "util": _number(row[2]), "mem": _number(row[3])}
    return gpus


def parse_apps(text):
    """nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory -> [(uuid, pid, MiB)]."""
    apps = []
    for row in csv.reader(text.splitlines()):
        if len(row) == 3 and row[1].strip().isdigit() and _number(row[2]) is not None:
            apps.append((row[0].strip(), int(row[1]), _number(row[2])))
    return apps


def job_of_pid(pid, proc="/proc"):
    """The Slurm job a process belongs to, from its cgroup path (.../job_<id>/...), or None."""
    try:
        with open(os.path.join(proc, str(pid), "cgroup")) as handle:
            found = re.search(r"/job_(\d+)(/|$)", handle.read(), re.MULTILINE)
    except OSError:
        return None
    return found.group(1) if found else None


def gpu_jobs(state_dir):
    """The map: {GPU index: [job ids]}."""
    directory = os.path.join(state_dir, "gpu")
    return {index: _read_lines(os.path.join(directory, index)) for index in os.listdir(directory) if index.isdigit()}


def job_usage(holders, gpus, apps, job_of=job_of_pid):
    """{(job, index): {"util", "mem"}} for the mapped GPUs nvidia-smi reported.

    A GPU one job holds: all its memory is that job's. A shared GPU: each job's own processes' memory.
    """
    by_uuid = {gpu["uuid"]: index for index, gpu in gpus.items()}
    own = {}
    for uuid, pid, mib in apps:
        job = job_of(pid)
        if uuid in by_uuid and job:
            own[(job, by_uuid[uuid])] = own.get((job, by_uuid[uuid]), 0) + mib
    usage = {}
    for index, jobs in holders.items():
        if index not in gpus:
            continue
        for job in jobs:
            mem = gpus[index]["mem"] if len(jobs) == 1 else own.get((job, index), 0)
            usage[(job, index)] = {"util": gpus[index]["util"], "mem": mem}
    return usage


def _usage_path(state_dir, job_id):
    return os.path.join(state_dir, "usage", job_id)


def read_usage(state_dir, job_id):
    try:
        with open(_usage_path(state_dir, job_id)) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def record(state_dir, usage):
    """Add one sample to each job's figures: last, peak memory, mean and highest utilisation."""
    jobs = {}
    for (job, index), sample in usage.items():
        jobs.setdefault(job, {})[index] = sample
    for job, samples in jobs.items():
        figures = read_usage(state_dir, job)
        for index, sample in samples.items():
            gpu = figures.setdefault(index, {"peak": 0, "util_sum": 0, "util_max": 0, "util_samples": 0})
            gpu["mem"], gpu["util"] = sample["mem"], sample["util"]
            if sample["mem"] is not None:
                gpu["peak"] = max(gpu["peak"], sample["mem"])
            if sample["util"] is not None:
                gpu["util_sum"] += sample["util"]
                gpu["util_max"] = max(gpu["util_max"], sample["util"])
                gpu["util_samples"] += 1
        _write(_usage_path(state_dir, job), json.dumps(figures, sort_keys=True) + "\n")


def _mean(gpu):
    return gpu["util_sum"] / gpu["util_samples"] if gpu["util_samples"] else None


def render_usage(state_dir):
    """The usage textfile: every mapped job's figures, and whether nvidia-smi answered last time."""
    success = (_read_lines(os.path.join(state_dir, "usage", ".success")) or ["1"])[0] == "1"
    values = {name: [] for name, _key, _scale, _help in USAGE_METRICS}
    for job in sorted(os.listdir(os.path.join(state_dir, "usage")), key=lambda name: (len(name), name)):
        if not job.isdigit():
            continue
        user = (_read_lines(os.path.join(state_dir, "jobs", job)) or [""])[0]
        for index, gpu in sorted(read_usage(state_dir, job).items(), key=lambda item: int(item[0])):
            labels = 'gpu="%s",jobid="%s",user="%s"' % (index, job, _escape(user))
            figures = {"util": gpu.get("util"), "mem": gpu.get("mem"), "peak": gpu.get("peak"), "mean": _mean(gpu)}
            for name, key, scale, _help in USAGE_METRICS:
                if figures[key] is not None:
                    values[name].append("%s{%s} %s" % (name, labels, format(figures[key] * scale, ".15g")))
    lines = []
    for name, _key, _scale, text in USAGE_METRICS:
        lines += ["# HELP %s %s" % (name, text), "# TYPE %s gauge" % name] + values[name]
    lines += [
        "# HELP %s Whether nvidia-smi answered the last sample (1) or failed (0)." % SUCCESS_METRIC,
        "# TYPE %s gauge" % SUCCESS_METRIC,
        "%s %d" % (SUCCESS_METRIC, 1 if success else 0),
    ]
    return "\n".join(lines) + "\n"


def report_lines(node, figures):
    """The Epilog's lines for the job's report: one per GPU of this node."""
    lines = []
    for index, gpu in sorted(figures.items(), key=lambda item: int(item[0])):
        mean = _mean(gpu)
        lines.append("%s %s %d %s %d %d\n" % (node, index, gpu["peak"], "-" if mean is None else "%.1f" % mean, gpu["util_max"], gpu["util_samples"]))
    return lines


def write_report(path, lines, uid, gid):
    """Append lines to path as the job's user (never root in a user's directory), a header first if it is new."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child of a fork
        code = 1
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW
            try:
                handle = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
                lines = [REPORT_HEADER] + lines
            except FileExistsError:
                handle = os.open(path, flags)
            os.write(handle, "".join(lines).encode())
            os.close(handle)
            code = 0
        finally:
            os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError("could not append to %s as uid %d" % (path, uid))


def sample(state_dir, textfile, smi):
    """One round: nvidia-smi (only while a job holds a GPU here), then the figures and the textfile."""
    with open(os.path.join(state_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
        busy = any(gpu_jobs(state_dir).values())
    success = True
    gpus, apps = {}, []
    if busy:
        try:
            gpus = parse_gpus(subprocess.run([smi, *SMI_GPUS], capture_output=True, text=True, timeout=30, check=True).stdout)
            apps = parse_apps(subprocess.run([smi, *SMI_APPS], capture_output=True, text=True, timeout=30, check=True).stdout)
        except (OSError, subprocess.SubprocessError) as error:
            success = False
            print("aicluster job map (sample): %s: %s" % (smi, error), file=sys.stderr)
    with open(os.path.join(state_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # The map again under the lock: a job whose Epilog ran meanwhile is not recorded again.
        record(state_dir, job_usage(gpu_jobs(state_dir), gpus, apps))
        jobs = set(os.listdir(os.path.join(state_dir, "jobs")))
        for job in os.listdir(os.path.join(state_dir, "usage")):
            if job.isdigit() and job not in jobs:
                os.unlink(_usage_path(state_dir, job))
        _write(os.path.join(state_dir, "usage", ".success"), "%d\n" % int(success))
        _write(textfile, render_usage(state_dir))
    return success


def _prepare(state_dir, textfiles, usage):
    # usage/ only with the sampler: the role removes it when job_metrics_gpu_usage is off.
    for directory in ("gpu", "jobs") + (("usage",) if usage else ()):
        os.makedirs(os.path.join(state_dir, directory), mode=0o755, exist_ok=True)
    for textfile in textfiles:
        os.makedirs(os.path.dirname(textfile), mode=0o755, exist_ok=True)


def end_of_job(state_dir, job_id, node):
    """The job's figures on this node as report lines, taken out of the state (under the lock)."""
    figures = read_usage(state_dir, job_id)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_usage_path(state_dir, job_id))
    return report_lines(node, figures) if figures else []


def record_job(job_id, lines, environ, report):
    """The Epilog's record of the job's figures: syslog, and the user's report if asked (outside the node's lock:
    a slow shared filesystem must not hold up the Prologs and the sampler)."""
    syslog.syslog("job %s GPU usage: %s" % (job_id, "; ".join(line.strip() for line in lines)))
    work_dir = environ.get("SLURM_JOB_WORK_DIR", "")
    if report and work_dir.startswith("/") and environ.get("SLURM_JOB_UID", "").isdigit():
        uid, gid = int(environ["SLURM_JOB_UID"]), int(environ.get("SLURM_JOB_GID", environ["SLURM_JOB_UID"]))
        write_report(os.path.join(work_dir, "slurm-%s.gpu" % job_id), lines, uid, gid)


def run(mode, state_dir, textfile, environ, usage_textfile=None, report=False):
    job_id = environ.get("SLURM_JOB_ID", "").strip()
    if not job_id.isdigit():
        raise ValueError("SLURM_JOB_ID is %r, not a job id: run this as Slurm's Prolog or Epilog" % job_id)
    _prepare(state_dir, [textfile] + ([usage_textfile] if usage_textfile else []), usage=bool(usage_textfile))
    lines = []
    # Jobs start and end concurrently on one node: one at a time here.
    with open(os.path.join(state_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if mode == "prolog":
            start(state_dir, job_id, environ.get("SLURM_JOB_USER", ""), gpu_indices(environ))
        else:
            finish(state_dir, job_id)
        _write(textfile, render(state_dir))
        if mode == "epilog" and usage_textfile:
            lines = end_of_job(state_dir, job_id, environ.get("SLURMD_NODENAME", os.uname().nodename))
            # The ended job's series go now, not at the next sample.
            _write(usage_textfile, render_usage(state_dir))
    if lines:
        record_job(job_id, lines, environ, report)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["prolog", "epilog", "sample"])
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--textfile", help="the .prom file node exporter reads (prolog, epilog)")
    parser.add_argument("--usage-textfile", help="the .prom file of the jobs' GPU usage")
    parser.add_argument("--report", action="store_true", help="epilog: append the job's figures to slurm-<id>.gpu in its working directory")
    parser.add_argument("--nvidia-smi", default="nvidia-smi", help="sample: the nvidia-smi to ask")
    parser.add_argument("--interval", type=float, default=15.0, help="sample: seconds between samples")
    parser.add_argument("--once", action="store_true", help="sample: one round, then exit")
    args = parser.parse_args(argv)
    if args.mode == "sample":
        if not args.usage_textfile:
            parser.error("sample needs --usage-textfile")
        while True:
            started = time.monotonic()
            try:
                _prepare(args.state_dir, [args.usage_textfile], usage=True)
                sample(args.state_dir, args.usage_textfile, args.nvidia_smi)
            except Exception as error:  # noqa: BLE001 - a service that keeps sampling
                print("aicluster job map (sample): %s" % error, file=sys.stderr)
            if args.once:
                return 0
            time.sleep(max(1.0, args.interval - (time.monotonic() - started)))
    if not args.textfile:
        parser.error("%s needs --textfile" % args.mode)
    try:
        run(args.mode, args.state_dir, args.textfile, os.environ, args.usage_textfile, args.report)
    except Exception as error:  # noqa: BLE001 - never fail the job (see above)
        print("aicluster job map (%s): %s" % (args.mode, error), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
