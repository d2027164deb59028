# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""warm_linear over Mitogen's persistent connections, for the tests.

The molecule scenarios run with ANSIBLE_STRATEGY=mitogen_linear from this
directory (.config/molecule/config.yml): the mitogen package of
requirements-dev.txt then runs every task of a host through one `docker exec`
Python process instead of a new `docker exec` per task, and the collection's
filters are imported once before the workers fork (warm_linear.py). Measured
in tests/README.md. Not part of the collection.
"""

import ansible.collections.list
import ansible_mitogen.loaders
import ansible_mitogen.planner
import ansible_mitogen.strategy

WarmLinear = ansible_mitogen.loaders.strategy_loader.get("warm_linear", class_only=True)


class StrategyModule(ansible_mitogen.strategy.StrategyMixin, WarmLinear):
    """warm_linear, with Mitogen's connections (mitogen_docker for `docker` hosts)."""

    def run(self, *args, **kwargs):
        # Mitogen's planner lists every installed collection (reading each
        # one's meta/runtime.yml) in each worker that runs a collection's
        # module: 8 % of the control node's CPU on the lab's site.yml run.
        # Listed once here; the directories do not change during a run.
        collections = [path.decode("utf-8") for path in ansible.collections.list.list_collection_dirs()]
        ansible_mitogen.planner._load_collections = lambda invocation: invocation._extra_sys_paths.update(collections)
        return super().run(*args, **kwargs)
