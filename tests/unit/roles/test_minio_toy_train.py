"""The example job's stand-in trainer (roles/minio/files/toy_train.py): resume gives the same weights."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[3] / "roles" / "minio" / "files" / "toy_train.py"


def _train(save_dir, *args):
    command = [sys.executable, str(TRAINER), "--save-dir", str(save_dir), "--step-seconds", "0", "--size-kib", "4"]
    return subprocess.run(command + list(args), capture_output=True, text=True, check=True).stdout


def _final_sha(output):
    return output.strip().splitlines()[-1].rsplit(" ", 1)[-1]


def test_checkpoints_are_complete_and_resume_ends_like_an_uninterrupted_run(tmp_path):
    whole = _train(tmp_path / "whole", "--steps", "30", "--save-every", "10")
    part = _train(tmp_path / "part", "--steps", "20", "--save-every", "10")
    assert "saved step-00000010" in part
    step20 = tmp_path / "part" / "step-00000020"
    assert (step20 / "COMPLETE").exists()
    assert json.loads((step20 / "state.json").read_text())["step"] == 20
    resumed = _train(tmp_path / "part", "--steps", "30", "--save-every", "10", "--resume", str(step20))
    assert "resumed from step-00000020 at step 20" in resumed
    assert "finished at step 30" in resumed
    assert _final_sha(resumed) == _final_sha(whole)


def test_a_corrupt_checkpoint_is_refused(tmp_path):
    _train(tmp_path, "--steps", "10", "--save-every", "10")
    weights = tmp_path / "step-00000010" / "weights.bin"
    weights.write_bytes(b"x" + weights.read_bytes()[1:])
    command = [sys.executable, str(TRAINER), "--save-dir", str(tmp_path), "--resume", str(weights.parent)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "is corrupt" in result.stderr


def test_usr1_saves_and_stops(tmp_path):
    command = [sys.executable, str(TRAINER), "--save-dir", str(tmp_path), "--steps", "100000", "--save-every", "1000", "--step-seconds", "0.01"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as trainer:
        time.sleep(1)
        trainer.send_signal(signal.SIGUSR1)
        output = trainer.communicate(timeout=30)[0]
    assert trainer.returncode == 0
    stopped = [line for line in output.splitlines() if "and stopped" in line]
    assert stopped, output
    name = stopped[0].split("saved ")[1].split(" ")[0]
    assert (tmp_path / name / "COMPLETE").exists()


def test_the_data_seeds_the_weights_and_a_resume_keeps_them(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"one dataset")
    (tmp_path / "b.bin").write_bytes(b"another dataset")
    plain = _train(tmp_path / "plain", "--steps", "20", "--save-every", "10")
    with_a = _train(tmp_path / "a", "--steps", "20", "--save-every", "10", "--data", str(tmp_path / "a.bin"))
    with_b = _train(tmp_path / "b", "--steps", "20", "--save-every", "10", "--data", str(tmp_path / "b.bin"))
    assert "starting from step 0 with data %s" % (tmp_path / "a.bin") in with_a
    assert len({_final_sha(plain), _final_sha(with_a), _final_sha(with_b)}) == 3
    # A resumed run takes its weights from the checkpoint: it ends where the uninterrupted run on that data does.
    _train(tmp_path / "part", "--steps", "10", "--save-every", "10", "--data", str(tmp_path / "a.bin"))
    resumed = _train(tmp_path / "part", "--steps", "20", "--save-every", "10", "--resume", str(tmp_path / "part" / "step-00000010"))
    assert _final_sha(resumed) == _final_sha(with_a)
