"""A stand-in for a training program, for the example job (train.sbatch).

It does what the job script expects of a real trainer (torchrun, DeepSpeed,
Megatron): resume from a checkpoint directory, save a complete checkpoint to
local disk every N steps (a directory step-NNNNNNNN with a COMPLETE marker
written last), and on SIGUSR1 or SIGTERM save once more and exit. Its
"weights" are a byte string that every step changes, with their sha256 in
state.json, so a restored checkpoint can be checked.
"""

import argparse
import hashlib
import json
import os
import signal
import sys
import time

STOP = []


def _stop(signum, _frame):
    STOP.append(signum)


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save-dir", required=True)
    parser.add_argument("--resume", default="")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--step-seconds", type=float, default=0.1)
    parser.add_argument("--size-kib", type=int, default=1024)
    args = parser.parse_args()
    signal.signal(signal.SIGUSR1, _stop)
    signal.signal(signal.SIGTERM, _stop)

    if args.resume:
        step, weights = _resume(args.resume)
        print("toy_train: resumed from %s at step %d" % (os.path.basename(args.resume.rstrip("/")), step), flush=True)
    else:
        step, weights = 0, b"\0" * (args.size_kib * 1024)
        print("toy_train: starting from step 0", flush=True)
    while step < args.steps and not STOP:
        time.sleep(args.step_seconds)
        step += 1
        weights = _update(weights, step)
        if step % args.save_every == 0:
            print("toy_train: saved %s" % _save(args.save_dir, step, weights), flush=True)
    name = _save(args.save_dir, step, weights)
    if STOP:
        print("toy_train: signal %d, saved %s and stopped" % (STOP[0], name), flush=True)
    else:
        print("toy_train: finished at step %d (%s), weights sha256 %s" % (step, name, hashlib.sha256(weights).hexdigest()), flush=True)


if __name__ == "__main__":
    main()
