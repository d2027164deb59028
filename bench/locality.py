#!/usr/bin/env python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Topology locality of a job: leaf switches used against the fewest possible.

Reads ``scontrol show topology`` (the switches slurmctld uses). Used by the
large scenario's verify and by bench/scheduling.py.

    locality.py blockers --topology T --per-leaf 4 --free-leaves 2 --leaves 8
        a node list to occupy so that the lowest-numbered free nodes span many
        leaves (see blockers())
    locality.py check --topology T --job gpu[00001-00016] --free gpu[...]
        JSON {"used", "leaves", "minimum", "lowest_free"}: leaves under the
        job's nodes, the fewest leaves that could hold as many of the free
        nodes, and the leaves the lowest-numbered free nodes span
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugins", "module_utils"))
import hostlist  # noqa: E402  pylint: disable=wrong-import-position

_WORD = re.compile(r"(\w+)=(\S*)")


def leaves(topology_text):
    """``{leaf switch: [nodes]}`` from ``scontrol show topology`` or topology.conf text.

    scontrol lists every switch with the nodes beneath it; leaves are Level=0.
    topology.conf gives Nodes= to leaves only.
    """
    result = {}
    for line in topology_text.splitlines():
        words = dict(_WORD.findall(line))
        if "SwitchName" not in words or words.get("Nodes", "(null)") in ("", "(null)"):
            continue
        if words.get("Level", "0") == "0":
            result[words["SwitchName"]] = hostlist.expand(words["Nodes"])
    return result


def leaves_used(nodes, by_leaf):
    """The leaf switches that the ``nodes`` are under."""
    wanted = set(nodes)
    return sorted(leaf for leaf, members in by_leaf.items() if wanted & set(members))


def minimum_leaves(count, free, by_leaf):
    """The fewest leaves whose ``free`` nodes add up to ``count`` (fullest first); None if they cannot."""
    available = sorted((len(set(members) & set(free)) for members in by_leaf.values()), reverse=True)
    total = 0
    for used, size in enumerate(available, 1):
        total += size
        if total >= count:
            return used
    return None


def blockers(by_leaf, per_leaf, free_leaves, leaves_kept):
    """Nodes to occupy so that a topology-blind choice spreads over many leaves.

    Of the first ``leaves_kept`` leaves (in node order: one pod of the fat
    tree), the first ``per_leaf`` nodes of each but the last ``free_leaves``;
    every node of the later leaves. Slurm's tree plugin first picks the
    best-fitting switch above the leaves (the pod), then leaves within it,
    so the free nodes are all kept in one pod.
    """
    names = sorted(by_leaf, key=lambda leaf: sorted(by_leaf[leaf])[0])
    chosen = []
    for index, leaf in enumerate(names):
        if index >= leaves_kept:
            chosen.extend(by_leaf[leaf])
        elif index < leaves_kept - free_leaves:
            chosen.extend(sorted(by_leaf[leaf])[:per_leaf])
    return chosen


def lowest_free(count, free):
    """The ``count`` lowest-numbered free nodes: what a topology-blind scheduler takes."""
    return sorted(free)[:count]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    block = sub.add_parser("blockers")
    block.add_argument("--topology", required=True)
    block.add_argument("--per-leaf", type=int, required=True)
    block.add_argument("--free-leaves", type=int, required=True)
    block.add_argument("--leaves", type=int, required=True, help="leaves kept partly free (one pod); later ones are occupied whole")
    check = sub.add_parser("check")
    check.add_argument("--topology", required=True)
    check.add_argument("--job", required=True, help="the job's node list (hostlist)")
    check.add_argument("--free", required=True, help="nodes free when the job was submitted (hostlist)")
    args = parser.parse_args(argv)
    with open(args.topology, encoding="utf-8") as handle:
        by_leaf = leaves(handle.read())
    if not by_leaf:
        parser.error("%s names no leaf switch with nodes" % args.topology)
    if args.command == "blockers":
        print(hostlist.compress(blockers(by_leaf, args.per_leaf, args.free_leaves, args.leaves)))
        return 0
    job = hostlist.expand(args.job)
    free = hostlist.expand(args.free)
    used = leaves_used(job, by_leaf)
    result = {
        "used": len(used),
        "leaves": used,
        "minimum": minimum_leaves(len(job), free, by_leaf),
        "lowest_free": len(leaves_used(lowest_free(len(job), free), by_leaf)),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
