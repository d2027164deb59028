# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The environment every Slurm task gets: NCCL/HCCL settings printed by the TaskProlog (roles/job_env)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import shlex

from ansible_collections.aicluster.slurm.plugins.module_utils import preflight

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LINE_BREAKS = ("\n", "\r", "\0")


class JobEnvError(ValueError):
    """A bad job_env_vars or job_env_partitions; the message names the variable, the value and the fix."""


def _value(where, name, value):
    """A value as the job sees it: one line of text; None (remove the default) is kept."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise JobEnvError(
            "%s: %s: %r is a boolean (YAML reads yes/no/true/false as one); quote the text the job should see, e.g. %s: '1'" % (where, name, value, name)
        )
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        raise JobEnvError(
            "%s: %s: %r is a %s; give one string or number, the text the job should see (null removes the variable)"
            % (where, name, value, type(value).__name__)
        )
    if any(char in value for char in LINE_BREAKS):
        raise JobEnvError(
            "%s: %s: %r has a line break; TaskProlog takes the rest of the `export NAME=value` line as the value, give it on one line" % (where, name, value)
        )
    return value


def _variables(where, variables):
    if variables is None:
        return {}
    if not isinstance(variables, dict):
        raise JobEnvError("%s: %r is not a mapping; give NAME: value pairs, e.g. {NCCL_DEBUG: WARN}" % (where, variables))
    checked = {}
    for name, value in variables.items():
        if not isinstance(name, str) or not NAME.match(name):
            raise JobEnvError("%s: %r is not a variable name; use letters, digits and _, not starting with a digit, e.g. NCCL_IB_HCA" % (where, name))
        checked[name] = _value(where, name, value)
    return checked


def job_env_settings(variables, partitions, known_partitions=None):
    """The role's variables, checked; raises an error naming the variable, the value and the fix.

    ``variables``: job_env_vars ({NAME: value or None}); ``partitions``:
    job_env_partitions ({partition: {NAME: value or None}}); ``known_partitions``:
    the partition names of slurm_partitions, or None not to check them.
    Returns ``{"vars": {...}, "partitions": {...}}`` with values as strings.
    """
    checked = {"vars": _variables("job_env_vars", variables), "partitions": {}}
    if partitions is None:
        partitions = {}
    if not isinstance(partitions, dict):
        raise JobEnvError("job_env_partitions: %r is not a mapping; give {partition: {NAME: value}}, e.g. {batch: {NCCL_DEBUG: WARN}}" % (partitions,))
    known = None if known_partitions is None else sorted(known_partitions)
    for partition, variables in partitions.items():
        if not isinstance(partition, str) or not partition or re.search(r"[\s,]", partition):
            raise JobEnvError("job_env_partitions: %r is not a partition name; give the name of a Slurm partition, e.g. batch" % (partition,))
        if known is not None and partition not in known:
            raise JobEnvError(
                "job_env_partitions: %s is not a partition of slurm_partitions (%s); fix the name or add the partition" % (partition, ", ".join(known))
            )
        checked["partitions"][partition] = _variables("job_env_partitions: %s" % partition, variables)
    return checked


def _ib_hcas(hcas):
    """The HCAs NCCL should use: InfiniBand ones when there are any (other ports are RoCE storage/management NICs), else all (a RoCE fabric)."""
    infiniband = [hca["name"] for hca in hcas if "InfiniBand" in hca.get("link_layers", [])]
    return infiniband or [hca["name"] for hca in hcas]


def job_env_defaults(facts, npu=None):
    """The variables a node sets without any user input.

    ``facts``: job_env_facts (hcas, default_interface, npu); ``npu``: True or
    False overrides the detection. A leading ``=`` makes NCCL/HCCL match the
    names exactly, not as prefixes (mlx5_1 would also select mlx5_10).
    """
    hcas = _ib_hcas(facts.get("hcas") or [])
    interface = facts.get("default_interface")
    defaults = {"NCCL_IB_DISABLE": "0" if hcas else "1"}
    if hcas:
        defaults["NCCL_IB_HCA"] = "=" + ",".join(sorted(hcas))
    if interface:
        defaults["NCCL_SOCKET_IFNAME"] = "=" + interface
    if (facts.get("npu") if npu is None else npu) and interface:
        # HCCL_IF_IP would beat HCCL_SOCKET_IFNAME, so it is left to the user.
        defaults["HCCL_SOCKET_IFNAME"] = "=" + interface
    return defaults


def _merge(base, overrides):
    merged = dict(base)
    for name, value in overrides.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


def _quoted(variables):
    return [[name, shlex.quote(variables[name])] for name in sorted(variables)]


def job_env_script(facts, variables, partitions, npu=None, known_partitions=None):
    """What the TaskProlog prints, per partition: node defaults < job_env_vars < job_env_partitions[partition].

    Returns ``{"npus": bool, "default": [[NAME, quoted value], ...], "partitions": [[quoted
    partition, [[NAME, quoted value], ...]], ...]}``, sorted, quoted for sh.
    """
    settings = job_env_settings(variables, partitions, known_partitions)
    node = _merge(job_env_defaults(facts, npu), settings["vars"])
    return {
        # Whether the TaskProlog gives a job its NPUs on the node (ASCEND_RT_VISIBLE_DEVICES).
        "npus": bool(facts.get("npu") if npu is None else npu),
        "default": _quoted(node),
        "partitions": [[shlex.quote(name), _quoted(_merge(node, overrides))] for name, overrides in sorted(settings["partitions"].items())],
    }


def job_env_findings(variables, partitions=None, known_partitions=None):
    """job_env_settings' errors as preflight findings."""
    return preflight.findings_of("job_env", "job_env_vars/job_env_partitions", job_env_settings, variables, partitions, known_partitions)
