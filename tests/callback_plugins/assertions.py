# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Count the assertions a playbook run proved, for the test harness's table.

Ansible has no callback that counts assert results, so this one does: each
ansible.builtin.assert task that passed on a host counts once (a loop counts
once per item), and a skipped one not at all. At the end of the run it prints

    ASSERTIONS: passed=N tasks=M

where M is the number of distinct assert tasks that passed somewhere.
tests/harness.py reads it from each molecule stage's output. Enabled for the
molecule scenarios in .config/molecule/config.yml; not part of the collection.
"""

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: assertions
type: aggregate
short_description: count the assert results of a run
description: Prints ASSERTIONS passed=N tasks=M at the end of the run.
"""

ASSERT_ACTIONS = frozenset(("assert", "ansible.builtin.assert", "ansible.legacy.assert"))


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "assertions"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.passed = 0
        self.tasks = set()

    def _count(self, result):
        task = result._task  # pylint: disable=protected-access
        if task.action in ASSERT_ACTIONS:
            self.passed += 1
            self.tasks.add(task._uuid)  # pylint: disable=protected-access

    def v2_runner_on_ok(self, result):
        # A loop's items were counted one by one.
        if not result._result.get("results"):  # pylint: disable=protected-access
            self._count(result)

    def v2_runner_item_on_ok(self, result):
        self._count(result)

    def v2_playbook_on_stats(self, stats):
        self._display.display("ASSERTIONS: passed=%d tasks=%d" % (self.passed, len(self.tasks)))
