# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``firewall_ruleset``: a host's nftables ruleset from its groups and the ports the roles use
(plugins/module_utils/firewall.py); ``firewall_findings``: the firewall variables' problems, as preflight findings;
``firewall_control_node_findings``: whether the firewall admits the control node to a service it uses."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.aicluster.slurm.plugins.module_utils import firewall
from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors

_wrap = filter_errors(firewall.FirewallError)


class FilterModule:
    def filters(self):
        return {
            "firewall_ruleset": _wrap(firewall.ruleset),
            "firewall_findings": firewall.findings,
            "firewall_control_node_findings": _wrap(firewall.control_node_findings),
        }
