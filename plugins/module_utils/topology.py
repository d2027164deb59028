# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm network topology: the switch/block model, slurmctld's checks, and renderers.

A tree is ``{switch: {"switches": [child switches], "nodes": [hosts]}}`` with
children only. Validation mirrors slurmctld (src/plugins/topology/tree/
switch_record.c and block/block_record.c, Slurm 24.11): what would stop
slurmctld is an error, what it only logs is a warning. Renderers are
deterministic: the same model always gives the same bytes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import gc
import re

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress, expand

# slurmctld rejects names of HOST_NAME_MAX (64) characters or more.
NAME_MAX = 63
# topology/tree resolves levels in at most this many passes.
MAX_LEVELS = 20
# topology/block: at most 16 block levels (MAX_BLOCK_LEVELS).
MAX_BLOCK_LEVELS = 16
_BAD_NAME = re.compile(r"[\s\[\],=#\"']")

FORMAT_MIN_VERSION = {
    "tree": (0, 0),
    # 24.05 replaced 23.11's BlockLevels with BlockSizes, which is what we write.
    "block": (24, 5),
    # topology.yaml with several named topologies arrived in 25.05.
    "yaml": (25, 5),
}
# Leaf switches without nodes are accepted from 25.05 on.
EMPTY_LEAF_MIN_VERSION = (25, 5)


class TopologyError(ValueError):
    """Input that cannot become a valid topology; the message names what and why."""


def parse_version(text):
    match = re.match(r"^\s*(\d+)\.(\d+)", str(text))
    if not match:
        raise TopologyError("slurm_version %r is not a Slurm version such as 24.11 or 25.05" % (text,))
    return int(match.group(1)), int(match.group(2))


def check_format(fmt, slurm_version):
    """Fail when the Slurm version cannot read the format."""
    if fmt not in FORMAT_MIN_VERSION:
        raise TopologyError("format %r is not one of %s" % (fmt, ", ".join(sorted(FORMAT_MIN_VERSION))))
    version = parse_version(slurm_version)
    need = FORMAT_MIN_VERSION[fmt]
    if version < need:
        raise TopologyError(
            "format %s needs Slurm %d.%02d or later, slurm_version is %s; use format tree%s"
            % (fmt, need[0], need[1], slurm_version, "" if fmt == "yaml" else " or upgrade Slurm")
        )
    return version


def names_of(value):
    """A list of names from a list or a hostlist expression, duplicates dropped, order kept."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else [str(item) for item in value]
    names = []
    for item in items:
        if item.strip():
            names.extend(expand(item))
    return list(dict.fromkeys(names))


def switches_from_list(items):
    """Normalise the module's ``switches`` option (a list of {name, switches, nodes}).

    Duplicates are kept apart so validate_tree can report them.
    """
    tree = {}
    duplicates = []
    for item in items or []:
        name = str(item.get("name") or "").strip()
        if not name:
            raise TopologyError("switches: an entry has no name: %r" % (item,))
        if name in tree:
            duplicates.append(name)
        tree[name] = {"switches": names_of(item.get("switches")), "nodes": names_of(item.get("nodes"))}
    return tree, duplicates


def gc_paused(function):
    """``function`` run with the cyclic garbage collector paused (and restored after).

    Parsing a capture (ibnetdiscover.parse, to_tree), checking or rendering a
    large tree makes many small containers and no reference cycles; beside a large fabric still in memory (the module
    holds it), each collector pass walks all of it and finds nothing: at 64k
    nodes that was 60 % of validate_tree.
    """

    @functools.wraps(function)
    def paused(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused


def _natural(name):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def levels(tree):
    """Level of each switch: leaves are 0, a parent is one above its highest child.

    Returns (levels, unresolved); unresolved switches sit on a cycle or above one.
    Independent of input order: passes repeat until nothing changes.
    """
    level = {}
    progressed = True
    while progressed:
        progressed = False
        for name, switch in tree.items():
            if name in level:
                continue
            children = switch["switches"]
            if all(child in level for child in children):
                level[name] = 1 + max(level[child] for child in children) if children else 0
                progressed = True
    unresolved = sorted((name for name in tree if name not in level), key=_natural)
    return level, unresolved


@gc_paused
def validate_tree(tree, duplicates=(), known_nodes=None, slurm_version="24.11"):
    """slurmctld's checks on a switch tree -> (errors, warnings), each a list of str."""
    errors, warnings = [], []
    if not tree:
        return ["no switches: slurmctld stops with 'No switches configured'"], warnings
    for name in sorted(set(duplicates), key=_natural):
        errors.append("switch %s is defined twice (slurmctld: 'Switch (%s) has already been defined')" % (name, name))
    for name in sorted(tree, key=_natural):
        switch = tree[name]
        if len(name) > NAME_MAX:
            errors.append("switch name %s is %d characters; slurmctld needs fewer than 64" % (name, len(name)))
        if _BAD_NAME.search(name):
            errors.append("switch name %r contains whitespace or one of [],=#\"' which slurm.conf syntax cannot carry" % name)
        if switch["switches"] and switch["nodes"]:
            errors.append("switch %s has both child switches and nodes; a switch lists one or the other" % name)
        for child in switch["switches"]:
            if child == name:
                errors.append("switch %s lists itself as a child" % name)
            elif child not in tree:
                errors.append("switch %s has child switch %s, which is not defined" % (name, child))
        if not switch["switches"] and not switch["nodes"] and parse_version(slurm_version) < EMPTY_LEAF_MIN_VERSION:
            errors.append("switch %s has neither nodes nor switches; Slurm before 25.05 rejects empty leaf switches" % name)
    if errors:
        return errors, warnings
    level, unresolved = levels(tree)
    if unresolved:
        return ["switches %s form a cycle: slurmctld stops with 'Switch configuration is not a tree'" % ", ".join(unresolved)], warnings
    if max(level.values()) >= MAX_LEVELS:
        return ["the tree is %d levels deep; slurmctld resolves at most %d" % (max(level.values()) + 1, MAX_LEVELS)], warnings

    leaves_of = {}
    for name, switch in tree.items():
        for node in switch["nodes"]:
            leaves_of.setdefault(node, []).append(name)
    multi = sorted((n for n, leaves in leaves_of.items() if len(leaves) > 1), key=_natural)
    if multi:
        warnings.append(
            "%d nodes are under several leaf switches (%s, e.g. %s under %s); slurmctld warns 'Multiple leaf switches "
            "contain nodes' - choose one rail (hca_names) for scheduling" % (len(multi), compress(multi), multi[0], ", ".join(sorted(leaves_of[multi[0]])))
        )
    roots = top_switches(tree)
    if leaves_of and not any(reaches_all(tree, root, len(leaves_of)) for root in roots):
        warnings.append(
            "no switch reaches every node (top-level switches: %s); slurmctld warns 'no switch can reach all nodes' and jobs "
            "cannot span switches without a common ancestor unless TopologyParam=TopoOptional" % compress(roots)
        )
    if known_nodes is not None:
        known = set(known_nodes)
        unknown = sorted(set(leaves_of) - known, key=_natural)
        if unknown:
            warnings.append(
                "%d nodes in the topology are not in slurm.conf (%s); slurmctld drops them ('Invalid hostnames in switch configuration')"
                % (len(unknown), compress(unknown))
            )
        uncovered = sorted(known - set(leaves_of), key=_natural)
        if uncovered:
            warnings.append(
                "%d slurm.conf nodes are under no switch (%s); slurmctld warns 'switches lack access' and cannot place them by topology"
                % (len(uncovered), compress(uncovered))
            )
    return errors, warnings


def top_switches(tree):
    """The switches that are no switch's child, in natural order."""
    children = {child for switch in tree.values() for child in switch["switches"]}
    return sorted((name for name in tree if name not in children), key=_natural)


def reaches_all(tree, top, count):
    """Whether ``top`` reaches ``count`` distinct nodes through its descendants.

    A switch that reaches every node has a top switch above it that does too,
    so only the tops need asking; one walk each, linear in switches + nodes.
    """
    seen, nodes, stack = {top}, set(), [top]
    while stack:
        switch = tree[stack.pop()]
        nodes.update(switch["nodes"])
        for child in switch["switches"]:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return len(nodes) >= count


@gc_paused
def render_tree(tree):
    """topology.conf lines for topology/tree: leaves first, then each level up."""
    level, unresolved = levels(tree)
    if unresolved:
        raise TopologyError("cannot render a tree with a cycle: %s" % ", ".join(unresolved))
    lines = []
    for name in sorted(tree, key=lambda n: (level[n], _natural(n))):
        switch = tree[name]
        if switch["switches"]:
            lines.append("SwitchName=%s Switches=%s" % (name, compress(switch["switches"])))
        elif switch["nodes"]:
            lines.append("SwitchName=%s Nodes=%s" % (name, compress(switch["nodes"])))
        else:
            lines.append("SwitchName=%s" % name)
    return lines


def summary_tree(tree):
    level, dummy = levels(tree)
    nodes = set()
    for switch in tree.values():
        nodes.update(switch["nodes"])
    return {
        "levels": (max(level.values()) + 1) if level else 0,
        "switches": len(tree),
        "leaf_switches": sum(1 for s in tree.values() if not s["switches"]),
        "nodes": len(nodes),
    }


# --- topology/block -------------------------------------------------------


def blocks_from_list(items):
    """Normalise ``blocks`` (an ordered list of {name, nodes}); an entry without nodes is a placeholder."""
    blocks = []
    for item in items or []:
        name = str(item.get("name") or "").strip()
        if not name:
            raise TopologyError("blocks: an entry has no name: %r" % (item,))
        blocks.append({"name": name, "nodes": names_of(item.get("nodes"))})
    return blocks


def validate_block_sizes(sizes):
    """BlockSizes rules of block_record.c: base first, then power-of-two multiples."""
    errors = []
    if not sizes:
        return errors
    base = sizes[0]
    if base < 1:
        return ["block_sizes: the base size must be at least 1, got %s" % base]
    if len(sizes) > MAX_BLOCK_LEVELS:
        errors.append("block_sizes: %d levels; Slurm allows at most %d" % (len(sizes), MAX_BLOCK_LEVELS))
    for size in sizes[1:]:
        ratio = size // base
        if size % base or ratio < 1 or ratio & (ratio - 1) or ratio > 2**15:
            errors.append("block_sizes: %d is not the base size %d times a power of two (slurmctld: 'Invalid BlockSizes value')" % (size, base))
    if list(sizes) != sorted(set(sizes)):
        errors.append("block_sizes must be strictly increasing, got %s" % ",".join(map(str, sizes)))
    return errors


def validate_blocks(blocks, sizes=None, known_nodes=None, slurm_version="24.11"):
    errors, warnings = [], []
    names = [b["name"] for b in blocks]
    for name in sorted({n for n in names if names.count(n) > 1}, key=_natural):
        errors.append("block %s is defined twice (slurmctld stops on a duplicate BlockName)" % name)
    for name in names:
        if len(name) > NAME_MAX:
            errors.append("block name %s is %d characters; slurmctld needs fewer than 64" % (name, len(name)))
        if _BAD_NAME.search(name):
            errors.append("block name %r contains whitespace or one of [],=#\"'" % name)
    if not any(b["nodes"] for b in blocks) and not sizes:
        errors.append("no block has nodes and block_sizes is empty: slurmctld cannot size the base block")
    empty = [b["name"] for b in blocks if not b["nodes"]]
    if empty and parse_version(slurm_version) < EMPTY_LEAF_MIN_VERSION:
        # Seen on 24.11.5: "error: block rack03 hasn't got nodes", then fatal.
        errors.append(
            "blocks %s have no nodes; Slurm before 25.05 stops on an empty block. To keep the positions of the blocks after "
            "it, list the missing rack's node names (declared State=FUTURE in slurm.conf), or target slurm_version 25.05+" % ", ".join(empty)
        )
    errors.extend(validate_block_sizes(sizes or []))
    owners = {}
    for block in blocks:
        for node in block["nodes"]:
            owners.setdefault(node, []).append(block["name"])
    twice = sorted((n for n, owner in owners.items() if len(owner) > 1), key=_natural)
    if twice:
        errors.append("nodes %s are in more than one block (e.g. %s in %s)" % (compress(twice), twice[0], ", ".join(owners[twice[0]])))
    base = sizes[0] if sizes else next((len(b["nodes"]) for b in blocks if b["nodes"]), 0)
    small = [b["name"] for b in blocks if b["nodes"] and len(b["nodes"]) < base]
    big = [b["name"] for b in blocks if len(b["nodes"]) > base]
    if big:
        errors.append("blocks %s hold more nodes than the base block size %d" % (", ".join(big), base))
    if small:
        message = "blocks %s hold fewer nodes than the base block size %d" % (", ".join(small), base)
        if parse_version(slurm_version) < EMPTY_LEAF_MIN_VERSION:
            errors.append(message + "; Slurm before 25.05 rejects them")
        else:
            warnings.append(message)
    if known_nodes is not None:
        known = set(known_nodes)
        unknown = sorted(set(owners) - known, key=_natural)
        if unknown:
            warnings.append("%d nodes in blocks are not in slurm.conf (%s); slurmctld drops them" % (len(unknown), compress(unknown)))
        uncovered = sorted(known - set(owners), key=_natural)
        if uncovered:
            warnings.append("%d slurm.conf nodes are in no block (%s); slurmctld warns 'Blocks lack access'" % (len(uncovered), compress(uncovered)))
    return errors, warnings


def render_blocks(blocks, sizes=None):
    """topology.conf lines for topology/block; order is physical proximity and placeholders keep positions."""
    lines = []
    for block in blocks:
        if block["nodes"]:
            lines.append("BlockName=%s Nodes=%s" % (block["name"], compress(block["nodes"])))
        else:
            lines.append("BlockName=%s" % block["name"])
    if sizes:
        lines.append("BlockSizes=%s" % ",".join(str(s) for s in sizes))
    return lines


def summary_blocks(blocks):
    return {
        "levels": 1,
        "blocks": len(blocks),
        "placeholders": sum(1 for b in blocks if not b["nodes"]),
        "nodes": len({n for b in blocks for n in b["nodes"]}),
    }


# --- topology.yaml --------------------------------------------------------


def _yaml_str(value):
    """A YAML scalar: plain when it starts with a letter, digit or _ and cannot read as a bool, null or number."""
    text = str(value)
    plain = re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.\-\[\]]*$", text)
    special = re.match(r"^(true|false|null|yes|no|on|off|y|n|~|[-+]?[0-9][0-9_.:eE+-]*)$", text, re.I)
    if plain and not special:
        return text
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def render_yaml(topologies):
    """topology.yaml lines. ``topologies`` is an ordered list of
    ``{name, cluster_default, tree | blocks (+ block_sizes) | flat}``; exactly one is the cluster default.
    """
    defaults = [t["name"] for t in topologies if t.get("cluster_default")]
    if len(defaults) != 1:
        raise TopologyError("topology.yaml needs exactly one cluster_default topology, got %s" % (", ".join(defaults) or "none"))
    names = [t["name"] for t in topologies]
    if len(set(names)) != len(names):
        raise TopologyError("topology names must be unique, got %s" % ", ".join(names))
    lines = []
    for topo in topologies:
        lines.append("- topology: %s" % _yaml_str(topo["name"]))
        lines.append("  cluster_default: %s" % ("true" if topo.get("cluster_default") else "false"))
        if topo.get("tree") is not None:
            tree = topo["tree"]
            level, dummy = levels(tree)
            lines.append("  tree:")
            lines.append("    switches:")
            for name in sorted(tree, key=lambda n: (level.get(n, 0), _natural(n))):
                lines.append("      - switch: %s" % _yaml_str(name))
                if tree[name]["switches"]:
                    lines.append("        children: %s" % _yaml_str(compress(tree[name]["switches"])))
                elif tree[name]["nodes"]:
                    lines.append("        nodes: %s" % _yaml_str(compress(tree[name]["nodes"])))
        elif topo.get("blocks") is not None:
            lines.append("  block:")
            if topo.get("block_sizes"):
                lines.append("    block_sizes: [%s]" % ", ".join(str(s) for s in topo["block_sizes"]))
            lines.append("    blocks:")
            for block in topo["blocks"]:
                lines.append("      - block: %s" % _yaml_str(block["name"]))
                if block["nodes"]:
                    lines.append("        nodes: %s" % _yaml_str(compress(block["nodes"])))
        else:
            lines.append("  flat: true")
    return lines


# --- diagram ---------------------------------------------------------------


def render_dot(tree):
    """Graphviz DOT of a switch tree; each leaf shows its nodes as one compressed hostlist."""
    level, dummy = levels(tree)
    lines = ["digraph topology {", "  rankdir=TB;", '  node [shape=box, fontname="monospace"];']
    for name in sorted(tree, key=lambda n: (-level.get(n, 0), _natural(n))):
        lines.append('  "%s";' % name)
        for child in sorted(tree[name]["switches"], key=_natural):
            lines.append('  "%s" -> "%s";' % (name, child))
        if tree[name]["nodes"]:
            label = compress(tree[name]["nodes"])
            lines.append('  "%s:nodes" [shape=note, label="%s\\n(%d nodes)"];' % (name, label, len(tree[name]["nodes"])))
            lines.append('  "%s" -> "%s:nodes";' % (name, name))
    lines.append("}")
    return lines
