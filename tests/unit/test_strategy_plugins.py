# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""warm_linear (tests/strategy_plugins) gives the results Ansible's linear strategy gives.

The same playbook (tests/unit/fixtures/strategy/skips.yml: conditions on play,
host, registered and connection variables, no_log, an undefined variable, a
loop, delegation, a block, an include, a failed host) runs on three local
hosts under both strategies with the json callback; every task's result on
every host and the stats must be the same, timestamps aside. At -vvvv,
warm_linear names the tasks it settled without a worker.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLAYBOOK = ROOT / "tests" / "unit" / "fixtures" / "strategy" / "skips.yml"
INVENTORY = {
    "all": {
        "hosts": {"h1": {"run_here": True}, "h2": {}, "h3": {}},
        "vars": {"ansible_connection": "local"},
    }
}
TIMES = ("start", "end", "delta", "duration")


def _play(tmp_path, strategy, *extra):
    inventory = tmp_path / "inventory.json"
    inventory.write_text(json.dumps(INVENTORY))
    env = dict(
        os.environ,
        ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
        ANSIBLE_CACHE_PLUGIN="memory",
        ANSIBLE_STRATEGY_PLUGINS=str(ROOT / "tests" / "strategy_plugins"),
        ANSIBLE_STRATEGY=strategy,
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        ANSIBLE_DEPRECATION_WARNINGS="false",
    )
    playbook = pathlib.Path(sys.executable).parent / "ansible-playbook"
    result = subprocess.run(
        [str(playbook), "-i", str(inventory), str(PLAYBOOK), *extra],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    # h3 fails on purpose: rc 2.
    assert result.returncode == 2, result.stderr
    return result


def _results(output):
    document = json.loads(output)
    tasks = [
        (task["task"]["name"], host, {key: value for key, value in result.items() if key not in TIMES})
        for play in document["plays"]
        for task in play["tasks"]
        for host, result in sorted(task["hosts"].items())
    ]
    return tasks, document["stats"]


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    return _results(_play(tmp_path_factory.mktemp("linear"), "linear").stdout)


def test_same_results_as_linear(tmp_path, linear):
    warm_tasks, warm_stats = _results(_play(tmp_path, "warm_linear").stdout)
    linear_tasks, linear_stats = linear
    assert [task[:2] for task in warm_tasks] == [task[:2] for task in linear_tasks]
    for warm, plain in zip(warm_tasks, linear_tasks, strict=True):
        assert warm == plain
    assert warm_stats == linear_stats
    skipped = [task for task in linear_tasks if task[2].get("skipped")]
    assert len(skipped) >= 10
    assert any(task[2].get("false_condition") for task in skipped)


def test_skips_without_a_worker(tmp_path):
    output = _play(tmp_path, "warm_linear", "-vvvv").stdout
    settled = {line.split("warm_linear: ", 1)[1] for line in output.splitlines() if "skipped without a worker" in line}
    # Conditions false on a host, no loop, no delegation, no include.
    assert "[h2] Runs where the host variable allows: skipped without a worker" in settled
    assert "[h1] Skipped by a play variable: skipped without a worker" in settled
    assert "[h1] Skipped under no_log: skipped without a worker" in settled
    assert not any("Delegated" in line or "include" in line or "loop" in line for line in settled)
    # A condition that holds, or cannot be evaluated, goes to a worker.
    assert not any("[h1] Runs where" in line or "undefined" in line for line in settled)
