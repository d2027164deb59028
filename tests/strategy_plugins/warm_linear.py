# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ansible's linear strategy, with this collection's filter plugins imported once.

Ansible forks a worker per task and host. A worker that templates
`aicluster.slurm.<filter>` imports the collection's filter files in name order
until one has it, each with its module_utils, compiled from source (the
collection loader keeps no bytecode): measured on the lab's converged site.yml
run, a third of the control node's user CPU. Imported here in the parent,
before the first fork, every worker inherits them. Not part of the
collection; the tests set ANSIBLE_STRATEGY=warm_linear (tests/README.md).
"""

import importlib
import pkgutil

from ansible.plugins.strategy.linear import StrategyModule as Linear

PACKAGE = "ansible_collections.aicluster.slurm.plugins.filter"


def import_filters():
    package = importlib.import_module(PACKAGE)
    for module in pkgutil.iter_modules(package.__path__, prefix=PACKAGE + "."):
        importlib.import_module(module.name)


class StrategyModule(Linear):
    def run(self, *args, **kwargs):
        import_filters()
        return super().run(*args, **kwargs)
