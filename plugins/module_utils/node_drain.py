# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Draining compute nodes for maintenance and returning them (roles/slurmd/tasks/drain.yml and resume.yml).

A node is drained with a reason that names the work (``aicluster.slurm driver
change to 550.163.01``) and returned only while it still carries exactly that
reason: a node an operator or the health checker drained for something else
stays drained.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_NAME = re.compile(r"(?:^|\s)NodeName=(\S+)")
_STATE = re.compile(r"(?:^|\s)State=(\S+)")
_REASON = re.compile(r"(?:^|\s)Reason=(.*)")
# scontrol appends who set the reason and when: " [root@2026-12-03T08:10:01]".
_STAMP = re.compile(r" \[[^\s\[\]]+@[^\s\[\]]+\]")


def parse_nodes(text):
    """``{node: (state flags, reason)}`` from ``scontrol -o show node`` (one record per line)."""
    nodes = {}
    for line in (text or "").splitlines():
        name, state = _NAME.search(line), _STATE.search(line)
        if not (name and state):
            continue
        reason = _REASON.search(line)
        text = reason.group(1) if reason else ""
        stamp = _STAMP.search(text)
        nodes[name.group(1)] = (state.group(1).split("+"), (text[: stamp.start()] if stamp else text).strip())
    return nodes


def _drained(flags):
    return any(flag.rstrip("*~#!%$@^-").startswith("DRAIN") for flag in flags)


def drain_plan(text, names, reason):
    """What draining ``names`` for ``reason`` takes: ``{drain, ours, others, unknown}``.

    ``drain``: nodes to drain now; ``ours``: already drained for ``reason`` (a
    rerun); ``others``: ``{node: reason}`` drained for something else (left as
    they are, and not returned afterwards); ``unknown``: nodes slurmctld does not
    know yet (a first install: nothing to drain).
    """
    nodes = parse_nodes(text)
    plan = {"drain": [], "ours": [], "others": {}, "unknown": []}
    for name in names:
        if name not in nodes:
            plan["unknown"].append(name)
            continue
        flags, current = nodes[name]
        if not _drained(flags):
            plan["drain"].append(name)
        elif current == reason:
            plan["ours"].append(name)
        else:
            plan["others"][name] = current
    return plan


def drained_for(text, names, reason):
    """The nodes of ``names`` drained for exactly ``reason``: the ones to return to service."""
    return drain_plan(text, names, reason)["ours"]
