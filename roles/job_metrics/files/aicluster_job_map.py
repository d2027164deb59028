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

Monitoring must never cost a job its start: a failure is printed (slurmd logs
it) and the program still exits 0, because a failing Prolog drains the node.
"""

import argparse
import contextlib
import fcntl
import os
import sys
import tempfile

# The environment variables, in order of preference, that list the job's GPUs
# on this node as comma-separated indices: Slurm sets all three in the Prolog
# and Epilog (CUDA_VISIBLE_DEVICES there is the node's index, not the task's).
GPU_VARIABLES = ("SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
METRIC = "aicluster_slurm_job_gpu_info"
METRIC_HELP = "A GPU of this node that Slurm has given to a running job (from the Prolog and Epilog)."


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


def run(mode, state_dir, textfile, environ):
    job_id = environ.get("SLURM_JOB_ID", "").strip()
    if not job_id.isdigit():
        raise ValueError("SLURM_JOB_ID is %r, not a job id: run this as Slurm's Prolog or Epilog" % job_id)
    for directory in (os.path.join(state_dir, "gpu"), os.path.join(state_dir, "jobs")):
        os.makedirs(directory, mode=0o755, exist_ok=True)
    os.makedirs(os.path.dirname(textfile), mode=0o755, exist_ok=True)
    # Jobs start and end concurrently on one node: one at a time here.
    with open(os.path.join(state_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if mode == "prolog":
            start(state_dir, job_id, environ.get("SLURM_JOB_USER", ""), gpu_indices(environ))
        else:
            finish(state_dir, job_id)
        _write(textfile, render(state_dir))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["prolog", "epilog"])
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--textfile", required=True, help="the .prom file node exporter reads")
    args = parser.parse_args(argv)
    try:
        run(args.mode, args.state_dir, args.textfile, os.environ)
    except Exception as error:  # noqa: BLE001 - never fail the job (see above)
        print("aicluster job map (%s): %s" % (args.mode, error), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
