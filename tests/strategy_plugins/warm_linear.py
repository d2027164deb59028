# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ansible's linear strategy, with this collection's filter plugins imported once,
and skipped tasks settled without a fork.

Ansible forks a worker per task and host. A worker that templates
`aicluster.slurm.<filter>` imports the collection's filter files in name order
until one has it, each with its module_utils, compiled from source (the
collection loader keeps no bytecode): measured on the lab's converged site.yml
run, a third of the control node's user CPU. Imported here in the parent,
before the first fork, every worker inherits them.

A task whose `when` is false on a host is skipped here, in the parent, by
Ansible's own TaskExecutor on a copy of the task; its result goes through the
same queue and callbacks as a worker's, without the fork. More than half of
what a compute node meets in site.yml is skipped (roles and features it does
not have). Tasks with a loop or delegate_to, includes, and every task whose
condition holds or cannot be evaluated here still go to a worker.

Not part of the collection; the tests set ANSIBLE_STRATEGY=warm_linear
(tests/README.md, Transport).
"""

import importlib
import pkgutil

from ansible import constants as C
from ansible._internal import _task
from ansible._internal._templating._engine import TemplateEngine
from ansible.executor.task_executor import TaskExecutor
from ansible.executor.task_result import _RawTaskResult
from ansible.plugins.loader import get_plugin_loader_namespace
from ansible.plugins.strategy.linear import StrategyModule as Linear
from ansible.utils.display import Display

display = Display()

PACKAGE = "ansible_collections.aicluster.slurm.plugins.filter"


def import_filters():
    package = importlib.import_module(PACKAGE)
    for module in pkgutil.iter_modules(package.__path__, prefix=PACKAGE + "."):
        importlib.import_module(module.name)


class _WouldRun(BaseException):
    """Raised where TaskExecutor would connect: the task is not skipped."""


class _SkipOnly(TaskExecutor):
    def _get_connection(self, *args, **kwargs):
        raise _WouldRun


def _skipped_here(strategy, host, task, task_vars, play_context):
    """The skipped result of `task` on `host`, or None when a worker must run it."""
    if not task.when or task.loop is not None or task.loop_with or task.delegate_to:
        return None
    if task.action in C._ACTION_ALL_INCLUDE_IMPORT_TASKS + C._ACTION_ALL_INCLUDE_ROLE_TASKS:
        return None
    # The condition as TaskExecutor evaluates it (play context variables included).
    try:
        templar = TemplateEngine(loader=strategy._loader, variables=task_vars)
        context = play_context.set_task_and_variable_override(task=task, variables=task_vars, templar=templar)
        context.post_validate(templar=templar)
        if not context.remote_addr:
            context.remote_addr = host.address
        variables = dict(task_vars)
        context.update_vars(variables)
        if task._resolve_conditional(task.when, variables):
            return None
    except Exception:  # noqa: BLE001 - the worker reports it as Ansible would
        return None
    executor = _SkipOnly(
        host,
        task.copy(exclude_tasks=True),
        dict(task_vars),
        play_context,
        strategy._loader,
        get_plugin_loader_namespace(),
        strategy._final_q,
        strategy._variable_manager,
    )
    try:
        with _task.TaskContext(executor._task):
            result = executor.run()
    except _WouldRun:
        return None
    return result if result.get("skipped") else None


class StrategyModule(Linear):
    def run(self, *args, **kwargs):
        import_filters()
        return super().run(*args, **kwargs)

    def _queue_task(self, host, task, task_vars, play_context):
        result = _skipped_here(self, host, task, task_vars, play_context)
        if result is None:
            return super()._queue_task(host, task, task_vars, play_context)
        # What Linear._queue_task and a worker do, without the fork.
        display.vvvv(f"warm_linear: [{host.name}] {task.get_name()}: skipped without a worker")
        self._queued_task_cache[(host.name, task._uuid)] = {
            "host": host,
            "task": task,
            "task_vars": task_vars,
            "play_context": play_context,
        }
        self._tqm.send_callback("v2_runner_on_start", host, task)
        self._final_q.send_task_result(_RawTaskResult(host=host, task=task, return_data=result, task_fields=task.dump_attrs()))
        self._pending_results += 1
        return None
