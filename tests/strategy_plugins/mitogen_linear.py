# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ansible's linear strategy over Mitogen's persistent connections, for the tests.

The molecule scenarios (all but startup, which keeps Ansible's own docker
connection) run with ANSIBLE_STRATEGY=mitogen_linear from this directory
(.config/molecule/config.yml): the mitogen package of requirements-dev.txt
then runs every task of a host through one `docker exec` Python process
instead of a new `docker exec` per task. Measured in tests/README.md. Not
part of the collection.
"""

import ansible_mitogen.loaders
import ansible_mitogen.strategy

Linear = ansible_mitogen.loaders.strategy_loader.get("linear", class_only=True)


class StrategyModule(ansible_mitogen.strategy.StrategyMixin, Linear):
    """linear, with Mitogen's connections (mitogen_docker for `docker` hosts)."""
