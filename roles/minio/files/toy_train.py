"""A stand-in for a training program, for the example job (train.sbatch).

It does what the job script expects of a real trainer (torchrun, DeepSpeed,
Megatron): resume from a checkpoint directory, save a complete checkpoint to
local disk every N steps (a directory step-NNNNNNNN with a COMPLETE marker
written last), and on SIGUSR1 or SIGTERM save once more and exit. Its
"weights" are a byte string that every step changes, with their sha256 in
state.json, so a restored checkpoint can be checked.

--data FILE stands for the training data: its sha256 seeds the starting
weights, so where the run ends depends on what it read (rank 0 reads it; a
resumed run takes its weights from the checkpoint).

Several nodes (the job script starts one copy per node with srun, as it
would start torchrun): rank 0 (RANK, else SLURM_PROCID) listens on
MASTER_PORT, the other WORLD_SIZE - 1 ranks (else SLURM_NTASKS) connect to
MASTER_ADDR. Rank 0 sends them the state it started or resumed from, as data
parallel training broadcasts the restored weights; before every step it says
go or stop, and after it each rank sends the sha256 of its replica, which
rank 0 compares with its own, so a rank that diverged or left ends the run.
Only rank 0 saves (on the batch host, where the job script uploads) and acts
on SIGUSR1/SIGTERM: it stops everyone at a step boundary and saves. The
weights do not depend on the number of ranks: a resumed run on more nodes
ends where an uninterrupted one on one node does.
"""

import argparse
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import time

STOP = []


def _stop(signum, _frame):
    STOP.append(signum)


def _initial(size, data):
    """Step 0's weights: zeros, or seeded by the data file's sha256."""
    if not data:
        return b"\0" * size
    with open(data, "rb") as data_file:
        block = hashlib.sha256(data_file.read()).digest()
    return block * (size // len(block))


def _update(weights, step):
    """The next step's weights: deterministic, so a resumed run ends where an uninterrupted one would."""
    block = hashlib.sha256(weights[:64] + step.to_bytes(8, "big")).digest()
    return block * (len(weights) // len(block))


def _save(save_dir, step, weights):
    name = "step-%08d" % step
    final = os.path.join(save_dir, name)
    if os.path.exists(os.path.join(final, "COMPLETE")):
        return name
    partial = final + ".partial"
    os.makedirs(partial, exist_ok=True)
    with open(os.path.join(partial, "weights.bin"), "wb") as out:
        out.write(weights)
    with open(os.path.join(partial, "state.json"), "w", encoding="utf-8") as out:
        json.dump({"step": step, "sha256": hashlib.sha256(weights).hexdigest()}, out)
    os.replace(partial, final)
    # Written last: the uploader takes only complete checkpoints.
    open(os.path.join(final, "COMPLETE"), "w", encoding="utf-8").close()
    return name


def _resume(path):
    with open(os.path.join(path, "state.json"), encoding="utf-8") as state_file:
        state = json.load(state_file)
    with open(os.path.join(path, "weights.bin"), "rb") as weights_file:
        weights = weights_file.read()
    if hashlib.sha256(weights).hexdigest() != state["sha256"]:
        sys.exit("toy_train: checkpoint %s is corrupt (sha256 differs from state.json)" % path)
    return state["step"], weights


GO, STOP_WORD = b"g", b"s"
JOIN_SECONDS = 120  # how long rank 0 waits for the others, and they for rank 0


def _rank_and_world():
    """(rank, world size) as torchrun sets them, else one rank per node as train.sbatch starts it (NODE_RANK, NNODES)."""
    rank = int(os.environ.get("RANK", os.environ.get("NODE_RANK", "0")))
    world = int(os.environ.get("WORLD_SIZE", os.environ.get("NNODES", "1")))
    return rank, world


def _recv(conn, size):
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the other side closed the connection")
        data += chunk
    return data


def _say(workers, word, step):
    for rank, conn in sorted(workers.items()):
        try:
            conn.sendall(word)
        except OSError as error:
            if not STOP:
                sys.exit("toy_train: rank 0: rank %d left at step %d (%s)" % (rank, step, error))


def _gather(world, step, weights):
    """Rank 0: accept the other ranks and send them the starting state; {rank: connection}."""
    workers = {}
    if world < 2:
        return workers
    server = socket.create_server(("", int(os.environ["MASTER_PORT"])), reuse_port=False)
    server.settimeout(JOIN_SECONDS)
    while len(workers) < world - 1:
        try:
            conn, _address = server.accept()
        except TimeoutError:
            sys.exit("toy_train: rank 0: only %d of %d ranks joined within %d s" % (len(workers) + 1, world, JOIN_SECONDS))
        conn.settimeout(JOIN_SECONDS)
        workers[struct.unpack("!I", _recv(conn, 4))[0]] = conn
    server.close()
    for conn in workers.values():
        conn.sendall(struct.pack("!QQ", step, len(weights)) + weights)
    print("toy_train: rank 0 of %d: every rank joined at step %d" % (world, step), flush=True)
    return workers


def _agree(workers, step, weights):
    """Rank 0: every rank's replica after ``step`` must be rank 0's.

    False when a rank was gone while rank 0 was told to stop (the job was
    cancelled or requeued and Slurm ended the other nodes first): that step
    never completed everywhere, so rank 0 saves the one before.
    """
    digest = hashlib.sha256(weights).digest()
    for rank, conn in sorted(workers.items()):
        try:
            theirs = _recv(conn, 32)
        except OSError as error:
            if STOP:
                return False
            sys.exit("toy_train: rank 0: rank %d left at step %d (%s)" % (rank, step, error))
        if theirs != digest:
            sys.exit("toy_train: rank 0: rank %d diverged at step %d" % (rank, step))
    return True


def _worker(rank, world, args):
    """A rank other than 0: train in step with rank 0 until it says stop; signals are rank 0's to act on."""
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    deadline = time.monotonic() + JOIN_SECONDS
    while True:
        try:
            conn = socket.create_connection((os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])), timeout=5)
            break
        except OSError as error:
            if time.monotonic() > deadline:
                return "toy_train: rank %d: cannot reach rank 0 at %s:%s (%s)" % (rank, os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"], error)
            time.sleep(1)
    conn.settimeout(None)
    conn.sendall(struct.pack("!I", rank))
    step, size = struct.unpack("!QQ", _recv(conn, 16))
    weights = _recv(conn, size)
    print("toy_train: rank %d of %d on %s: joined at step %d" % (rank, world, socket.gethostname(), step), flush=True)
    try:
        while _recv(conn, 1) == GO:
            time.sleep(args.step_seconds)
            step += 1
            weights = _update(weights, step)
            conn.sendall(hashlib.sha256(weights).digest())
    except OSError as error:
        return "toy_train: rank %d: rank 0 went away after step %d (%s)" % (rank, step, error)
    print("toy_train: rank %d of %d: stopped at step %d with rank 0's weights" % (rank, world, step), flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save-dir", required=True)
    parser.add_argument("--resume", default="")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--step-seconds", type=float, default=0.1)
    parser.add_argument("--size-kib", type=int, default=1024)
    parser.add_argument("--data", default="", help="a file whose sha256 seeds the starting weights")
    args = parser.parse_args()
    signal.signal(signal.SIGUSR1, _stop)
    signal.signal(signal.SIGTERM, _stop)

    rank, world = _rank_and_world()
    if rank > 0:
        sys.exit(_worker(rank, world, args))
    if args.resume:
        step, weights = _resume(args.resume)
        print("toy_train: resumed from %s at step %d" % (os.path.basename(args.resume.rstrip("/")), step), flush=True)
    else:
        step, weights = 0, _initial(args.size_kib * 1024, args.data)
        print("toy_train: starting from step 0%s" % (" with data %s" % args.data if args.data else ""), flush=True)
    workers = _gather(world, step, weights)
    while step < args.steps and not STOP:
        _say(workers, GO, step)
        time.sleep(args.step_seconds)
        updated = _update(weights, step + 1)
        if not _agree(workers, step + 1, updated):
            break
        step, weights = step + 1, updated
        if step % args.save_every == 0:
            print("toy_train: saved %s" % _save(args.save_dir, step, weights), flush=True)
    _say(workers, STOP_WORD, step)
    name = _save(args.save_dir, step, weights)
    if STOP:
        print("toy_train: signal %d, saved %s and stopped" % (STOP[0], name), flush=True)
    else:
        print("toy_train: finished at step %d (%s), weights sha256 %s" % (step, name, hashlib.sha256(weights).hexdigest()), flush=True)
    # Saved: a second SIGTERM (Slurm signals every process of the job and the job script passes it on too) must not
    # kill the interpreter on its way out, which puts the default handlers back.
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


if __name__ == "__main__":
    main()
