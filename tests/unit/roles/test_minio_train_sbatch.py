"""The example training job (roles/minio/templates/train.sbatch.j2), run by bash with stand-ins for Slurm and rclone.

The stand-in rclone keeps the bucket in a local directory and can be told to
fail uploads; the stand-in scontrol keeps the job's Comment in a file. The
real thing runs in the storage scenario (MinIO, Slurm, a requeue to another
node); here the cases a scenario cannot stage cheaply: a requeue onto the same
node with checkpoints that never reached MinIO, a job id used again, an upload
that does not match, and SIGTERM during training.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import jinja2
import pytest

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "roles" / "minio" / "templates" / "train.sbatch.j2"
TRAINER = ROOT / "roles" / "minio" / "files" / "toy_train.py"

RCLONE = r"""#!/bin/sh
# rclone stand-in: "checkpoints:checkpoints/PATH" is $FAKE_S3/PATH.
log() { echo "rclone $*" >> "$FAKE_S3.calls"; }
log "$@"
# The job's endpoint flags: an endpoint listed in $FAKE_S3.down refuses the connection.
while [ "${1#--}" != "$1" ]; do
  case "$1" in
  --s3-endpoint) grep -qxF "$2" "$FAKE_S3.down" 2>/dev/null && { echo "dial tcp: connection refused" >&2; exit 1; }; shift 2 ;;
  --contimeout | --low-level-retries | --retries) shift 2 ;;
  *) break ;;
  esac
done
path() { case "$1" in checkpoints:checkpoints/*) echo "$FAKE_S3/${1#checkpoints:checkpoints/}" ;; *) echo "$1" ;; esac; }
[ "$1" = check ] && shift && [ "$1" = --one-way ] && shift && [ "$1" = --quiet ] && shift && set -- check "$@"
case "$1" in
cat) cat "$(path "$2")" 2>/dev/null; exit 0 ;;
rcat) mkdir -p "$(dirname "$(path "$2")")" && cat > "$(path "$2")" ;;
copy)
  [ -e "$FAKE_S3.fail" ] && case "$2" in /*) exit 1 ;; esac
  mkdir -p "$(path "$3")" && cp -r "$(path "$2")/." "$(path "$3")/"
  # A corrupted upload: the copy differs from the local files.
  [ -e "$FAKE_S3.corrupt" ] && case "$2" in /*) echo x >> "$(path "$3")/weights.bin" ;; esac
  exit 0 ;;
check) diff -r "$(path "$2")" "$(path "$3")" > /dev/null ;;
*) echo "stand-in rclone: $*" >&2; exit 2 ;;
esac
"""

SCONTROL = r"""#!/bin/sh
# scontrol stand-in: the job's Comment lives in $FAKE_JOB.comment.
echo "scontrol $*" >> "$FAKE_JOB.calls"
case "$1 $2" in
"show job") echo "JobId=$3 JobName=train"; [ -s "$FAKE_JOB.comment" ] && echo "   Comment=$(cat "$FAKE_JOB.comment")"; exit 0 ;;
"update JobId="*) printf '%s' "${3#Comment=}" > "$FAKE_JOB.comment" ;;
"requeue "*) : ;;
"show hostnames") echo localhost ;;
*) exit 1 ;;
esac
"""

SRUN = r"""#!/bin/bash
# srun stand-in: the command once per task, all here (SLURM_PROCID 0..n-1); as
# srun does, a SIGTERM it receives becomes a SIGKILL of its tasks, and USR1 is
# passed on (--container is only recorded).
echo "srun $*" >> "$FAKE_JOB.calls"
n=1
while [ "${1#--}" != "$1" ]; do
  case "$1" in --ntasks=*) n="${1#--ntasks=}" ;; esac
  shift
done
pids=()
for i in $(seq 0 $((n - 1))); do
  SLURM_PROCID=$i "$@" &
  pids+=($!)
done
trap 'kill -KILL "${pids[@]}" 2>/dev/null' TERM
trap 'kill -USR1 "${pids[@]}" 2>/dev/null' USR1
rc=0
for pid in "${pids[@]}"; do
  while kill -0 "$pid" 2>/dev/null; do
    wait "$pid"
  done
  wait "$pid"
  status=$?
  [ "$status" = 0 ] || rc=$status
done
exit $rc
"""


def render(accounts_dir="/nonexistent/accounts"):
    env = jinja2.Environment(trim_blocks=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["comment"] = lambda text: "# " + text
    return env.from_string(TEMPLATE.read_text()).render(
        ansible_managed="Ansible managed",
        __minio_client_rclone_conf="/dev/null",
        __minio_client_remote="checkpoints:checkpoints",
        __minio_client_share=str(TRAINER.parent),
        __minio_client_endpoints_file="/nonexistent/endpoints",
        __minio_client_accounts_dir=str(accounts_dir),
    )


@pytest.fixture
def job(tmp_path):
    """``job(steps, job_id=7, wait=True)`` runs the job script; the bucket is tmp_path/s3, the node's disk tmp_path/node."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name, text in (("rclone", RCLONE), ("scontrol", SCONTROL), ("srun", SRUN)):
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    script = tmp_path / "train.sbatch"
    # Where the job looks for <account>/rclone.conf (minio_checkpoint_accounts).
    script.write_text(render(tmp_path / "accounts"))
    (tmp_path / "s3").mkdir()
    (tmp_path / "node").mkdir()

    def run(steps, job_id=7, wait=True, comment_file="job", endpoints=None, account=None, nodes=1, container=None):
        env = {
            "SLURM_JOB_NUM_NODES": str(nodes),
            "MASTER_PORT": str(free_port()),
            "PATH": "%s:%s" % (tools, os.environ["PATH"]),
            "FAKE_S3": str(tmp_path / "s3"),
            "FAKE_JOB": str(tmp_path / comment_file),
            "SLURM_JOB_ID": str(job_id),
            "SLURM_JOB_NAME": "train",
            "TMPDIR": str(tmp_path / "node"),
            "CHECKPOINT_UPLOAD_INTERVAL": "0.1",
            "TRAIN_CMD": "%s %s" % (sys.executable, TRAINER),
            "TRAIN_ARGS": "--steps %d --save-every 10 --step-seconds %s --size-kib 4" % (steps, "0" if wait else "0.02"),
        }
        if account:
            env["SLURM_JOB_ACCOUNT"] = account
        if container:
            env["TRAIN_CONTAINER"] = container
        if endpoints is not None:
            (tmp_path / "endpoints").write_text("# the endpoints, in order\n" + "".join(url + "\n" for url in endpoints))
            env["CHECKPOINT_ENDPOINTS"] = str(tmp_path / "endpoints")
        # Its own session: the job's processes, for the tests that signal them all as Slurm does.
        process = subprocess.Popen(["bash", str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        if wait:
            output = process.communicate(timeout=60)[0]
            return process.returncode, output
        return process

    run.tmp = tmp_path
    return run


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def runs(tmp_path):
    return sorted(path.name for path in (tmp_path / "s3").iterdir() if path.is_dir())


def test_a_run_keeps_its_id_across_requeues_and_a_reused_job_id_starts_afresh(job):
    rc, output = job(20)
    assert rc == 0, output
    [run] = runs(job.tmp)
    assert run.startswith("train-7-")
    assert len(run) == len("train-7-") + 16
    assert (job.tmp / "s3" / run / "latest").read_text().strip() == "step-00000020"
    assert "checkpoint-run=" + run.rsplit("-", 1)[1] == (job.tmp / "job.comment").read_text()
    # A requeue: same job, same Comment, same prefix; it resumes from step 20.
    rc, output = job(30)
    assert rc == 0, output
    assert runs(job.tmp) == [run]
    assert "toy_train: resumed from step-00000020" in output
    # Job id 7 again after the controller lost its state: no Comment yet, so a new run.
    rc, output = job(10, comment_file="other-job")
    assert rc == 0, output
    assert len(runs(job.tmp)) == 2
    assert "no checkpoint under" in output
    assert "resumed" not in output


def test_a_requeue_onto_the_same_node_uploads_what_the_last_run_left_and_deletes_nothing(job):
    (job.tmp / "s3.fail").touch()
    rc, output = job(20)
    assert rc != 0  # the checkpoints never reached MinIO
    assert "NOT uploaded" in output
    [local] = list((job.tmp / "node").iterdir())
    assert sorted(path.name for path in local.iterdir() if path.name.startswith("step-")) == ["step-00000010", "step-00000020"]
    # The requeued run on the same node: the network works again.
    (job.tmp / "s3.fail").unlink()
    rc, output = job(30)
    assert rc == 0, output
    assert "uploading what the last run left here: step-00000010 step-00000020" in output
    assert "resuming from step-00000020, uploaded to" in output
    [run] = runs(job.tmp)
    assert sorted(path.name for path in (job.tmp / "s3" / run).iterdir()) == ["latest", "step-00000010", "step-00000020", "step-00000030"]


def test_a_requeue_that_still_cannot_upload_does_not_start(job):
    (job.tmp / "s3.fail").touch()
    job(10)
    rc, output = job(20)
    assert rc == 1
    assert "not starting (they stay in" in output
    [local] = list((job.tmp / "node").iterdir())
    assert (local / "step-00000010" / "COMPLETE").exists()


def test_an_upload_that_does_not_match_is_never_deleted_locally(job):
    (job.tmp / "s3.corrupt").touch()
    rc, output = job(40)
    assert rc != 0
    assert "upload of step-00000010 failed" in output
    [local] = list((job.tmp / "node").iterdir())
    # With CHECKPOINT_KEEP_LOCAL=2 an unchecked pass would have deleted the two oldest.
    assert sorted(path.name for path in local.iterdir() if path.name.startswith("step-")) == [
        "step-00000010",
        "step-00000020",
        "step-00000030",
        "step-00000040",
    ]
    [run] = runs(job.tmp)
    assert not (job.tmp / "s3" / run / "latest").exists()


def _wait_for_an_upload(job):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list((job.tmp / "s3").glob("*/latest")):
        time.sleep(0.2)


def _ends_with_its_save_in_the_bucket(job, process, saved_line):
    """The signalled job ends (0), and the checkpoint its trainer saved on the way out is the run's latest in the bucket."""
    try:
        output = process.communicate(timeout=120)[0]
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("the job did not end within 120 s of SIGTERM: %s" % process.communicate()[0])
    saved = [line for line in output.splitlines() if saved_line in line]
    assert saved, output
    name = saved[0].split("saved ")[1].split(" ")[0]
    assert "every checkpoint is in" in output
    [run] = runs(job.tmp)
    assert (job.tmp / "s3" / run / "latest").read_text().strip() == name
    assert process.returncode == 0, output


def test_sigterm_saves_and_uploads_before_exit(job):
    process = job(100000, wait=False)
    _wait_for_an_upload(job)
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=60)[0]
    assert "terminated: save and upload before Slurm kills the job" in output
    saved = [line for line in output.splitlines() if "and stopped" in line]
    assert saved, output
    name = saved[0].split("saved ")[1].split(" ")[0]
    assert "every checkpoint is in" in output
    [run] = runs(job.tmp)
    assert (job.tmp / "s3" / run / "latest").read_text().strip() == name


def test_a_minio_host_that_is_down_costs_one_try_then_the_next_endpoint_serves(job):
    (job.tmp / "s3.down").write_text("https://m1:9000\n")
    rc, output = job(40, endpoints=["https://m1:9000", "https://m2:9000", "https://m3:9000"])
    assert rc == 0, output
    assert "MinIO at https://m1:9000 failed (rclone" in output
    assert "every checkpoint is in" in output
    [run] = runs(job.tmp)
    assert (job.tmp / "s3" / run / "latest").read_text().strip() == "step-00000040"
    calls = (job.tmp / "s3.calls").read_text().splitlines()
    first = [call for call in calls if "--s3-endpoint https://m1:9000" in call]
    served = [call for call in calls if "--s3-endpoint https://m2:9000" in call]
    # The restore's read (a subshell) and the uploader's first call try m1; the uploader then starts at m2.
    assert len(first) <= 2, calls
    assert len(served) >= 4 * 3, calls
    assert not [call for call in calls if "https://m3:9000" in call]


def test_with_every_minio_host_down_nothing_is_deleted_and_the_job_says_so(job):
    (job.tmp / "s3.down").write_text("https://m1:9000\nhttps://m2:9000\n")
    rc, output = job(20, endpoints=["https://m1:9000", "https://m2:9000"])
    assert rc != 0
    assert "cannot read" in output or "NOT uploaded" in output
    [local] = list((job.tmp / "node").iterdir())
    assert not [path for path in local.iterdir() if path.name.endswith(".uploaded")]


def test_a_job_under_an_account_with_its_own_key_uses_that_key_and_prefix(job):
    (job.tmp / "accounts" / "nlp").mkdir(parents=True)
    (job.tmp / "accounts" / "nlp" / "rclone.conf").write_text("[checkpoints]\n")
    rc, output = job(10, account="nlp")
    assert rc == 0, output
    assert runs(job.tmp) == ["nlp"]
    [run] = [path.name for path in (job.tmp / "s3" / "nlp").iterdir()]
    assert (job.tmp / "s3" / "nlp" / run / "latest").read_text().strip() == "step-00000010"
    assert "RCLONE_CONFIG" not in output
    # Another account, without a key of its own: the shared key and no prefix.
    rc, output = job(10, account="vision", comment_file="other-job")
    assert rc == 0, output
    assert len(runs(job.tmp)) == 2
    assert [name for name in runs(job.tmp) if name.startswith("train-7-")]


def reference(steps, tmp_path):
    """The weights' sha256 after ``steps`` steps of one uninterrupted rank."""
    command = [sys.executable, str(TRAINER), "--save-dir", str(tmp_path / "reference"), "--steps", str(steps), "--step-seconds", "0", "--size-kib", "4"]
    out = subprocess.run(command, capture_output=True, text=True, check=True, env={"PATH": os.environ["PATH"]}).stdout
    return out.split("weights sha256 ")[1].split()[0]


def test_two_nodes_train_in_step_and_end_where_one_node_does(job):
    rc, output = job(30, nodes=2)
    assert rc == 0, output
    assert "rank 0 of 2: every rank joined at step 0" in output
    assert "rank 1 of 2 on " in output
    assert "rank 1 of 2: stopped at step 30 with rank 0's weights" in output
    assert "finished at step 30 (step-00000030), weights sha256 %s" % reference(30, job.tmp) in output
    # The other node's rank ran as one srun step, not on this node's --resume.
    calls = (job.tmp / "job.calls").read_text()
    assert "srun --nodes=1 --ntasks=1 --ntasks-per-node=1 --exclude=" in calls
    assert "--resume" not in [line for line in calls.splitlines() if line.startswith("srun")][0]


def test_two_nodes_resume_from_minio_and_the_other_rank_gets_the_state(job):
    rc, output = job(20, nodes=2)
    assert rc == 0, output
    # The job's node lost its disk; the requeued job restores from the bucket on two nodes.
    for path in (job.tmp / "node").iterdir():
        subprocess.run(["rm", "-rf", str(path)], check=True)
    rc, output = job(40, nodes=2)
    assert rc == 0, output
    assert "restored step-00000020 from" in output
    assert "rank 1 of 2 on " in output
    assert "joined at step 20" in output
    assert "finished at step 40 (step-00000040), weights sha256 %s" % reference(40, job.tmp) in output


def test_two_nodes_sigterm_saves_the_last_step_every_rank_finished(job):
    """Slurm's SIGTERM reaches srun too, which kills the other rank: rank 0 saves the last whole step and uploads it."""
    process = job(100000, nodes=2, wait=False)
    _wait_for_an_upload(job)
    # As Slurm does: the batch shell and every process of the job get SIGTERM.
    for pid in subprocess.run(["pgrep", "-s", str(os.getsid(process.pid))], capture_output=True, text=True, check=False).stdout.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGTERM)
    _ends_with_its_save_in_the_bucket(job, process, "and stopped")


def test_in_a_container_every_rank_is_a_container_step_and_sigterm_saves_through_usr1(job):
    """TRAIN_CONTAINER: node rank 0 is a step in its own session; the job script's SIGTERM becomes USR1 to its srun."""
    process = job(100000, nodes=2, wait=False, container="/home/alice/bundle")
    _wait_for_an_upload(job)
    # Slurm signals the job script (scancel or a requeue); rank 0's srun is in a session of its own here.
    process.send_signal(signal.SIGTERM)
    _ends_with_its_save_in_the_bucket(job, process, "signal 10, saved")
    steps = [line for line in (job.tmp / "job.calls").read_text().splitlines() if line.startswith("srun")]
    assert len(steps) == 2, steps
    assert all("--container=/home/alice/bundle" in line for line in steps), steps
    # Rank 0 on this node, the other rank on the rest.
    assert len([line for line in steps if "--nodelist=" in line]) == 1, steps
    assert len([line for line in steps if "--exclude=" in line]) == 1, steps
