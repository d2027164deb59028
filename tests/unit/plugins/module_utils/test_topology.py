"""Unit tests for module_utils/topology.py: the switch/block model, slurmctld's checks and the renderers."""

import random

import pytest
import yaml

from ansible_collections.aicluster.slurm.plugins.module_utils import topology
from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import TopologyError

# --- builders ----------------------------------------------------------------


def hosts(first, last, prefix="gpu"):
    return ["%s%03d" % (prefix, number) for number in range(first, last + 1)]


def fat_tree_items(leaves=4, per_leaf=8, spines=2, cores=0):
    """The module's ``switches`` option for a fat tree: every spine sees every leaf, every core every spine."""
    items = [{"name": "leaf%d" % i, "nodes": hosts((i - 1) * per_leaf + 1, i * per_leaf)} for i in range(1, leaves + 1)]
    items += [{"name": "spine%d" % i, "switches": ["leaf%d" % leaf for leaf in range(1, leaves + 1)]} for i in range(1, spines + 1)]
    items += [{"name": "core%d" % i, "switches": ["spine%d" % spine for spine in range(1, spines + 1)]} for i in range(1, cores + 1)]
    return items


def tree_of(items):
    tree, duplicates = topology.switches_from_list(items)
    assert duplicates == []
    return tree


def shuffled(items, seed):
    """The same switches, with the entries and every child/node list in another order."""
    rng = random.Random(seed)
    result = []
    for item in items:
        item = dict(item)
        for key in ("switches", "nodes"):
            if key in item:
                item[key] = rng.sample(item[key], len(item[key]))
        result.append(item)
    rng.shuffle(result)
    return result


def leaf(*nodes):
    return {"switches": [], "nodes": list(nodes)}


def parent(*children):
    return {"switches": list(children), "nodes": []}


TWO_LEVEL = """\
SwitchName=leaf1 Nodes=gpu[001-008]
SwitchName=leaf2 Nodes=gpu[009-016]
SwitchName=leaf3 Nodes=gpu[017-024]
SwitchName=leaf4 Nodes=gpu[025-032]
SwitchName=spine1 Switches=leaf[1-4]
SwitchName=spine2 Switches=leaf[1-4]
"""

THREE_LEVEL = TWO_LEVEL + "SwitchName=core1 Switches=spine[1-2]\n"


def text(lines):
    return "\n".join(lines) + "\n"


# --- versions and formats ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [("24.11", (24, 11)), ("25.05", (25, 5)), ("23.02.7", (23, 2)), (" 25.05.1", (25, 5)), (25.11, (25, 11))],
    ids=["24.11", "25.05-zero-padded", "patch-release", "leading-space", "float"],
)
def test_parse_version(value, expected):
    assert topology.parse_version(value) == expected


@pytest.mark.parametrize("value", ["garbage", "", "25", "v25.05", None], ids=["word", "empty", "major-only", "v-prefix", "none"])
def test_parse_version_rejects(value):
    with pytest.raises(TopologyError, match="is not a Slurm version such as 24.11 or 25.05"):
        topology.parse_version(value)


@pytest.mark.parametrize(
    ("fmt", "version", "message"),
    [
        ("block", "23.11", "format block needs Slurm 24.05 or later, slurm_version is 23.11; use format tree or upgrade Slurm"),
        ("yaml", "24.11", "format yaml needs Slurm 25.05 or later, slurm_version is 24.11; use format tree"),
        ("tree", "garbage", "slurm_version 'garbage' is not a Slurm version such as 24.11 or 25.05"),
        ("json", "25.05", "format 'json' is not one of block, tree, yaml"),
    ],
    ids=["block-on-23.11", "yaml-on-24.11", "garbage-version", "unknown-format"],
)
def test_check_format_fails(fmt, version, message):
    with pytest.raises(TopologyError) as raised:
        topology.check_format(fmt, version)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("fmt", "version"),
    [("tree", "20.11"), ("block", "24.05"), ("block", "24.11"), ("yaml", "25.05"), ("yaml", "26.05")],
    ids=["tree-on-20.11", "block-on-24.05", "block-on-24.11", "yaml-on-25.05", "yaml-on-26.05"],
)
def test_check_format_accepts(fmt, version):
    assert topology.check_format(fmt, version) == topology.parse_version(version)


# --- input normalisation -------------------------------------------------------


def test_switches_from_list_expands_hostlists_and_keeps_duplicates_apart():
    tree, duplicates = topology.switches_from_list(
        [
            {"name": "spine1", "switches": "leaf[1-2]"},
            {"name": "leaf1", "nodes": ["gpu[001-002]", "gpu004"]},
            {"name": "leaf2", "nodes": "gpu[005-006]", "switches": None},
            {"name": "leaf2", "nodes": "gpu[007-008]"},
        ]
    )
    assert tree == {
        "spine1": parent("leaf1", "leaf2"),
        "leaf1": leaf("gpu001", "gpu002", "gpu004"),
        "leaf2": leaf("gpu007", "gpu008"),
    }
    assert duplicates == ["leaf2"]


@pytest.mark.parametrize("entry", [{"nodes": "gpu001"}, {"name": "  ", "nodes": "gpu001"}, {"name": None}], ids=["missing", "blank", "none"])
def test_switch_without_name_is_rejected(entry):
    with pytest.raises(TopologyError, match="switches: an entry has no name"):
        topology.switches_from_list([entry])


def test_blocks_from_list_keeps_order_and_placeholders():
    blocks = topology.blocks_from_list([{"name": "rack02", "nodes": "gb[019-020]"}, {"name": "rack01"}, {"name": "rack03", "nodes": ["gb021"]}])
    assert blocks == [
        {"name": "rack02", "nodes": ["gb019", "gb020"]},
        {"name": "rack01", "nodes": []},
        {"name": "rack03", "nodes": ["gb021"]},
    ]


def test_block_without_name_is_rejected():
    with pytest.raises(TopologyError, match="blocks: an entry has no name"):
        topology.blocks_from_list([{"nodes": "gb001"}])


# --- switch trees: rendering ---------------------------------------------------------


@pytest.mark.parametrize(
    ("items", "expected"),
    [(fat_tree_items(), TWO_LEVEL), (fat_tree_items(cores=1), THREE_LEVEL)],
    ids=["2-level-4x8-2-spines", "3-level-4x8-2-spines-1-core"],
)
def test_fat_tree_renders_leaves_first_then_each_level(items, expected):
    assert text(topology.render_tree(tree_of(items))) == expected


def test_leaves_of_one_level_sort_naturally():
    tree = {"leaf10": leaf("n10"), "leaf2": leaf("n2"), "spine": parent("leaf10", "leaf2")}
    assert topology.render_tree(tree) == ["SwitchName=leaf2 Nodes=n2", "SwitchName=leaf10 Nodes=n10", "SwitchName=spine Switches=leaf2,leaf10"]


def test_empty_leaf_renders_without_nodes():
    tree = {"spine": parent("leaf1", "leaf2"), "leaf1": leaf("n1"), "leaf2": leaf()}
    assert topology.render_tree(tree) == ["SwitchName=leaf1 Nodes=n1", "SwitchName=leaf2", "SwitchName=spine Switches=leaf[1-2]"]


def test_levels_resolve_bottom_up():
    level, unresolved = topology.levels(tree_of(fat_tree_items(cores=1)))
    assert level == {"leaf1": 0, "leaf2": 0, "leaf3": 0, "leaf4": 0, "spine1": 1, "spine2": 1, "core1": 2}
    assert unresolved == []


def test_parent_sits_above_its_highest_child():
    # core1 has a leaf and a spine as children: its level is one above the spine.
    tree = {"leaf1": leaf("n1"), "leaf2": leaf("n2"), "spine1": parent("leaf1"), "core1": parent("spine1", "leaf2")}
    assert topology.levels(tree) == ({"leaf1": 0, "leaf2": 0, "spine1": 1, "core1": 2}, [])
    assert topology.render_tree(tree)[-1] == "SwitchName=core1 Switches=leaf2,spine1"


def test_render_tree_refuses_a_cycle():
    with pytest.raises(TopologyError, match="cannot render a tree with a cycle: a, b"):
        topology.render_tree({"a": parent("b"), "b": parent("a")})


@pytest.mark.parametrize("seed", [1, 2, 3, 42], ids=["seed1", "seed2", "seed3", "seed42"])
def test_output_does_not_depend_on_input_order(seed):
    items = fat_tree_items(cores=1)
    canonical = tree_of(items)
    other = tree_of(shuffled(items, seed))
    assert list(other) != list(canonical), "the shuffle should change the switch order"
    assert text(topology.render_tree(other)) == THREE_LEVEL
    assert topology.render_dot(other) == topology.render_dot(canonical)
    entry = {"name": "ib", "cluster_default": True}
    assert topology.render_yaml([dict(entry, tree=other)]) == topology.render_yaml([dict(entry, tree=canonical)])
    assert topology.validate_tree(other, known_nodes=hosts(1, 32)) == ([], [])
    assert topology.summary_tree(other) == topology.summary_tree(canonical)


def test_deep_chain_validates_the_same_in_any_order():
    names = ["sw%d" % i for i in range(25)]
    children_first = {name: (parent(names[i - 1]) if i else leaf("n1")) for i, name in enumerate(names)}
    parents_first = dict(reversed(list(children_first.items())))
    assert topology.validate_tree(parents_first) == topology.validate_tree(children_first)
    assert topology.validate_tree(children_first)[0] == ["the tree is 25 levels deep; slurmctld resolves at most 20"]


def test_summary_tree():
    assert topology.summary_tree(tree_of(fat_tree_items(cores=1))) == {"levels": 3, "switches": 7, "leaf_switches": 4, "nodes": 32}


def test_render_dot_lists_every_edge_top_down():
    tree = tree_of([{"name": "spine1", "switches": "leaf[1-2]"}, {"name": "leaf1", "nodes": "gpu[001-004]"}, {"name": "leaf2", "nodes": "gpu[005-008]"}])
    assert text(topology.render_dot(tree)) == (
        "digraph topology {\n"
        "  rankdir=TB;\n"
        '  node [shape=box, fontname="monospace"];\n'
        '  "spine1";\n'
        '  "spine1" -> "leaf1";\n'
        '  "spine1" -> "leaf2";\n'
        '  "leaf1";\n'
        '  "leaf1:nodes" [shape=note, label="gpu[001-004]\\n(4 nodes)"];\n'
        '  "leaf1" -> "leaf1:nodes";\n'
        '  "leaf2";\n'
        '  "leaf2:nodes" [shape=note, label="gpu[005-008]\\n(4 nodes)"];\n'
        '  "leaf2" -> "leaf2:nodes";\n'
        "}\n"
    )


# --- switch trees: validation --------------------------------------------------------

NAME_63 = "s" * 63
NAME_64 = "s" * 64


@pytest.mark.parametrize(
    ("tree", "duplicates", "errors"),
    [
        (
            {"spine": parent("leaf1"), "leaf1": leaf("n1")},
            ["leaf1"],
            ["switch leaf1 is defined twice (slurmctld: 'Switch (leaf1) has already been defined')"],
        ),
        ({NAME_64: leaf("n1")}, [], ["switch name %s is 64 characters; slurmctld needs fewer than 64" % NAME_64]),
        (
            {"leaf 1": leaf("n1")},
            [],
            ["switch name 'leaf 1' contains whitespace or one of [],=#\"' which slurm.conf syntax cannot carry"],
        ),
        (
            {"leaf=1": leaf("n1")},
            [],
            ["switch name 'leaf=1' contains whitespace or one of [],=#\"' which slurm.conf syntax cannot carry"],
        ),
        (
            {"leaf#1": leaf("n1")},
            [],
            ["switch name 'leaf#1' contains whitespace or one of [],=#\"' which slurm.conf syntax cannot carry"],
        ),
        (
            {"spine": {"switches": ["leaf1"], "nodes": ["n9"]}, "leaf1": leaf("n1")},
            [],
            ["switch spine has both child switches and nodes; a switch lists one or the other"],
        ),
        (
            {"spine": parent("leaf1", "leaf9"), "leaf1": leaf("n1")},
            [],
            ["switch spine has child switch leaf9, which is not defined"],
        ),
        ({"spine": parent("spine", "leaf1"), "leaf1": leaf("n1")}, [], ["switch spine lists itself as a child"]),
        (
            {"a": parent("b", "leaf1"), "b": parent("a"), "leaf1": leaf("n1")},
            [],
            ["switches a, b form a cycle: slurmctld stops with 'Switch configuration is not a tree'"],
        ),
        (
            {"a": parent("b"), "b": parent("c"), "c": parent("a", "leaf1"), "leaf1": leaf("n1"), "top": parent("a")},
            [],
            ["switches a, b, c, top form a cycle: slurmctld stops with 'Switch configuration is not a tree'"],
        ),
        ({}, [], ["no switches: slurmctld stops with 'No switches configured'"]),
        (
            {"spine": parent("leaf1", "leaf2"), "leaf1": leaf("n1"), "leaf2": leaf()},
            [],
            ["switch leaf2 has neither nodes nor switches; Slurm before 25.05 rejects empty leaf switches"],
        ),
    ],
    ids=[
        "duplicate-switch",
        "name-64-chars",
        "name-with-space",
        "name-with-equals",
        "name-with-hash",
        "nodes-and-switches",
        "unknown-child",
        "self-child",
        "2-cycle",
        "3-cycle-and-switch-above-it",
        "no-switches",
        "empty-leaf-on-24.11",
    ],
)
def test_validate_tree_errors(tree, duplicates, errors):
    assert topology.validate_tree(tree, duplicates, slurm_version="24.11") == (errors, [])


def test_switch_name_of_63_chars_is_fine():
    assert topology.validate_tree({NAME_63: leaf("n1")}) == ([], [])


def test_every_error_is_reported_at_once():
    tree = {"spine": parent("leaf1", "leaf9"), "leaf1": {"switches": ["leaf1"], "nodes": ["n1"]}}
    errors, warnings = topology.validate_tree(tree)
    assert errors == [
        "switch leaf1 has both child switches and nodes; a switch lists one or the other",
        "switch leaf1 lists itself as a child",
        "switch spine has child switch leaf9, which is not defined",
    ]
    assert warnings == []


@pytest.mark.parametrize("version", ["25.05", "25.11", "26.05"], ids=["25.05", "25.11", "26.05"])
def test_empty_leaf_is_allowed_from_25_05(version):
    tree = {"spine": parent("leaf1", "leaf2"), "leaf1": leaf("n1"), "leaf2": leaf()}
    assert topology.validate_tree(tree, slurm_version=version) == ([], [])


@pytest.mark.parametrize(
    ("tree", "known", "expected"),
    [
        (
            {"spine": parent("leaf1", "leaf2"), "leaf1": leaf("n1", "n2"), "leaf2": leaf("n2", "n3")},
            None,
            [["1 nodes are under several leaf switches", "n2 under leaf1, leaf2", "'Multiple leaf switches contain nodes'"]],
        ),
        (
            {"spine1": parent("leaf1"), "spine2": parent("leaf2"), "leaf1": leaf("n1"), "leaf2": leaf("n2")},
            ["n1", "n2"],
            [["no switch reaches every node", "spine[1-2]", "TopologyParam=TopoOptional"]],
        ),
        (
            {"spine": parent("leaf1", "leaf2"), "leaf1": leaf("gpu001", "gpu002"), "leaf2": leaf("gpu003", "cpu9")},
            ["gpu001", "gpu002"],
            [["2 nodes in the topology are not in slurm.conf", "(cpu9,gpu003)", "'Invalid hostnames in switch configuration'"]],
        ),
        (
            {"spine": parent("leaf1"), "leaf1": leaf("gpu001")},
            hosts(1, 4),
            [["3 slurm.conf nodes are under no switch", "(gpu[002-004])", "'switches lack access'"]],
        ),
    ],
    ids=["node-under-several-leaves", "several-roots", "nodes-unknown-to-slurm.conf", "slurm.conf-nodes-under-no-switch"],
)
def test_validate_tree_warnings(tree, known, expected):
    errors, warnings = topology.validate_tree(tree, known_nodes=known)
    assert errors == []
    assert len(warnings) == len(expected), warnings
    for warning, fragments in zip(warnings, expected, strict=True):
        for fragment in fragments:
            assert fragment in warning


@pytest.mark.parametrize(
    "tree",
    [
        {"core": parent("spine1", "spine2"), "spine1": parent("leaf1", "leaf2"), "spine2": parent("leaf1", "leaf2"), "leaf1": leaf("n1"), "leaf2": leaf("n2")},
        {"spine1": parent("leaf1", "leaf2"), "spine2": parent("leaf2"), "leaf1": leaf("n1"), "leaf2": leaf("n2")},
    ],
    ids=["shared-children-one-root", "two-roots-one-reaches-all"],
)
def test_no_warning_when_one_switch_reaches_every_node(tree):
    # slurmctld warns only when no switch's descendants cover every node; the Slurm guide itself lists s[0-3] under several parents.
    assert topology.validate_tree(tree, known_nodes=["n1", "n2"]) == ([], [])


def test_node_listed_twice_on_one_leaf_is_not_multi_homed():
    tree = tree_of([{"name": "leaf1", "nodes": ["gpu[001-002]", "gpu001"]}])
    assert topology.validate_tree(tree) == ([], [])


# --- blocks ---------------------------------------------------------------------------

NVL72 = [
    {"name": "rack01", "nodes": "gb[001-018]"},
    {"name": "rack02", "nodes": "gb[019-036]"},
    {"name": "rack03"},
    {"name": "rack04", "nodes": "gb[055-072]"},
]

NVL72_CONF = """\
BlockName=rack01 Nodes=gb[001-018]
BlockName=rack02 Nodes=gb[019-036]
BlockName=rack03
BlockName=rack04 Nodes=gb[055-072]
BlockSizes=18,36,72
"""


EMPTY = (
    "blocks %s have no nodes; Slurm before 25.05 stops on an empty block. To keep the positions of the blocks after it, "
    "list the missing rack's node names (declared State=FUTURE in slurm.conf), or target slurm_version 25.05+"
)


def blocks_of(*sizes):
    """Blocks b1, b2, ... of the given node counts; 0 is a placeholder."""
    blocks, first = [], 1
    for index, size in enumerate(sizes, 1):
        blocks.append({"name": "b%d" % index, "nodes": ["n%03d" % n for n in range(first, first + size)]})
        first += size
    return blocks


def test_nvl72_blocks_render_in_order_with_placeholder():
    blocks = topology.blocks_from_list(NVL72)
    assert text(topology.render_blocks(blocks, [18, 36, 72])) == NVL72_CONF
    assert topology.validate_blocks(blocks, [18, 36, 72], slurm_version="25.05") == ([], [])


def test_empty_block_is_refused_before_25_05():
    """slurmctld 24.11.5 logs "block rack03 hasn't got nodes" and stops (seen in make topology-it)."""
    blocks = topology.blocks_from_list(NVL72)
    assert topology.validate_blocks(blocks, [18, 36, 72], slurm_version="24.11") == ([EMPTY % "rack03"], [])
    assert topology.summary_blocks(blocks) == {"levels": 1, "blocks": 4, "placeholders": 1, "nodes": 54}


def test_blocks_without_sizes_render_no_blocksizes_line():
    assert topology.render_blocks(blocks_of(2, 2)) == ["BlockName=b1 Nodes=n[001-002]", "BlockName=b2 Nodes=n[003-004]"]


def test_block_node_order_does_not_matter_but_block_order_does():
    forward = topology.blocks_from_list(NVL72)
    scrambled = [dict(block, nodes=random.Random(7).sample(block["nodes"], len(block["nodes"]))) for block in forward]
    assert topology.render_blocks(scrambled, [18, 36, 72]) == topology.render_blocks(forward, [18, 36, 72])
    assert topology.render_blocks(forward[::-1], [18, 36, 72])[0] == "BlockName=rack04 Nodes=gb[055-072]"


@pytest.mark.parametrize(
    ("sizes", "errors"),
    [
        ([18, 36, 72], []),
        ([18], []),
        ([1, 2, 4, 32768], []),
        ([18, 54], ["block_sizes: 54 is not the base size 18 times a power of two (slurmctld: 'Invalid BlockSizes value')"]),
        ([18, 27], ["block_sizes: 27 is not the base size 18 times a power of two (slurmctld: 'Invalid BlockSizes value')"]),
        ([4, 24], ["block_sizes: 24 is not the base size 4 times a power of two (slurmctld: 'Invalid BlockSizes value')"]),
        ([18, 72, 36], ["block_sizes must be strictly increasing, got 18,72,36"]),
        (
            [36, 18],
            [
                "block_sizes: 18 is not the base size 36 times a power of two (slurmctld: 'Invalid BlockSizes value')",
                "block_sizes must be strictly increasing, got 36,18",
            ],
        ),
        ([18, 18], ["block_sizes must be strictly increasing, got 18,18"]),
        (
            [2**i for i in range(17)],
            [
                "block_sizes: 17 levels; Slurm allows at most 16",
                "block_sizes: 65536 is not the base size 1 times a power of two (slurmctld: 'Invalid BlockSizes value')",
            ],
        ),
        ([1, 65536], ["block_sizes: 65536 is not the base size 1 times a power of two (slurmctld: 'Invalid BlockSizes value')"]),
        ([0, 18], ["block_sizes: the base size must be at least 1, got 0"]),
        ([-18, 36], ["block_sizes: the base size must be at least 1, got -18"]),
    ],
    ids=[
        "18-36-72",
        "base-only",
        "ratio-2^15",
        "non-power-of-two-ratio-3",
        "non-multiple",
        "ratio-6",
        "decreasing",
        "below-base",
        "repeated",
        "17-levels",
        "ratio-2^16",
        "zero-base",
        "negative-base",
    ],
)
def test_validate_block_sizes(sizes, errors):
    assert topology.validate_block_sizes(sizes) == errors


@pytest.mark.parametrize(
    ("blocks", "sizes", "version", "errors", "warnings"),
    [
        (
            blocks_of(2, 2) + [{"name": "b1", "nodes": []}],
            [2],
            "25.05",
            ["block b1 is defined twice (slurmctld stops on a duplicate BlockName)"],
            [],
        ),
        (
            [{"name": "b1", "nodes": ["n1", "n2"]}, {"name": "b2", "nodes": ["n2", "n3"]}],
            [2],
            "24.11",
            ["nodes n2 are in more than one block (e.g. n2 in b1, b2)"],
            [],
        ),
        (blocks_of(2, 3, 2), [2, 4], "25.05", ["blocks b2 hold more nodes than the base block size 2"], []),
        (
            blocks_of(4, 2, 0, 4),
            [4, 8],
            "24.11",
            [EMPTY % "b3", "blocks b2 hold fewer nodes than the base block size 4; Slurm before 25.05 rejects them"],
            [],
        ),
        (blocks_of(4, 2, 0, 4), [4, 8], "25.05", [], ["blocks b2 hold fewer nodes than the base block size 4"]),
        (blocks_of(4, 4, 2), None, "24.11", ["blocks b3 hold fewer nodes than the base block size 4; Slurm before 25.05 rejects them"], []),
        (blocks_of(0, 0), None, "25.05", ["no block has nodes and block_sizes is empty: slurmctld cannot size the base block"], []),
        (blocks_of(0, 0), [18], "25.05", [], []),
        ([{"name": "x" * 64, "nodes": ["n1"]}], None, "24.11", ["block name %s is 64 characters; slurmctld needs fewer than 64" % ("x" * 64)], []),
        ([{"name": "rack 1", "nodes": ["n1"]}], None, "24.11", ["block name 'rack 1' contains whitespace or one of [],=#\"'"], []),
        (blocks_of(2, 2), [2, 3], "24.11", ["block_sizes: 3 is not the base size 2 times a power of two (slurmctld: 'Invalid BlockSizes value')"], []),
    ],
    ids=[
        "duplicate-block",
        "node-in-two-blocks",
        "bigger-than-base",
        "smaller-than-base-24.11",
        "smaller-than-base-25.05",
        "base-from-first-block",
        "no-nodes-no-sizes",
        "no-nodes-with-sizes",
        "name-64-chars",
        "name-with-space",
        "bad-block-sizes",
    ],
)
def test_validate_blocks(blocks, sizes, version, errors, warnings):
    assert topology.validate_blocks(blocks, sizes, slurm_version=version) == (errors, warnings)


def test_validate_blocks_against_slurm_conf_nodes():
    blocks = topology.blocks_from_list([{"name": "rack01", "nodes": "gb[001-002]"}, {"name": "rack02", "nodes": "gb003,cpu1"}])
    assert topology.validate_blocks(blocks, [2], known_nodes=["gb%03d" % n for n in range(1, 6)]) == (
        [],
        [
            "1 nodes in blocks are not in slurm.conf (cpu1); slurmctld drops them",
            "2 slurm.conf nodes are in no block (gb[004-005]); slurmctld warns 'Blocks lack access'",
        ],
    )


def test_node_listed_twice_in_one_block_is_fine():
    blocks = topology.blocks_from_list([{"name": "b1", "nodes": ["n[1-2]", "n1"]}])
    assert topology.validate_blocks(blocks, [2]) == ([], [])


# --- topology.yaml ----------------------------------------------------------------------

SEVERAL_YAML = """\
- topology: ib
  cluster_default: true
  tree:
    switches:
      - switch: leaf1
        nodes: gpu[001-008]
      - switch: leaf2
        nodes: gpu[009-016]
      - switch: spine1
        children: leaf[1-2]
- topology: nvl
  cluster_default: false
  block:
    block_sizes: [18, 36, 72]
    blocks:
      - block: rack01
        nodes: gb[001-018]
      - block: rack02
        nodes: gb[019-036]
      - block: rack03
      - block: rack04
        nodes: gb[055-072]
- topology: cpu
  cluster_default: false
  flat: true
"""


def several_topologies():
    tree = tree_of([{"name": "spine1", "switches": "leaf[1-2]"}, {"name": "leaf1", "nodes": "gpu[001-008]"}, {"name": "leaf2", "nodes": "gpu[009-016]"}])
    return [
        {"name": "ib", "cluster_default": True, "tree": tree},
        {"name": "nvl", "blocks": topology.blocks_from_list(NVL72), "block_sizes": [18, 36, 72]},
        {"name": "cpu", "flat": True},
    ]


def test_yaml_renders_tree_block_and_flat():
    assert text(topology.render_yaml(several_topologies())) == SEVERAL_YAML


def test_yaml_parses_into_the_documented_structure():
    data = yaml.safe_load(text(topology.render_yaml(several_topologies())))
    assert [list(entry)[0] for entry in data] == ["topology", "topology", "topology"]
    assert data == [
        {
            "topology": "ib",
            "cluster_default": True,
            "tree": {
                "switches": [
                    {"switch": "leaf1", "nodes": "gpu[001-008]"},
                    {"switch": "leaf2", "nodes": "gpu[009-016]"},
                    {"switch": "spine1", "children": "leaf[1-2]"},
                ]
            },
        },
        {
            "topology": "nvl",
            "cluster_default": False,
            "block": {
                "block_sizes": [18, 36, 72],
                "blocks": [
                    {"block": "rack01", "nodes": "gb[001-018]"},
                    {"block": "rack02", "nodes": "gb[019-036]"},
                    {"block": "rack03"},
                    {"block": "rack04", "nodes": "gb[055-072]"},
                ],
            },
        },
        {"topology": "cpu", "cluster_default": False, "flat": True},
    ]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["true"], '"true"'),
        (["No"], '"No"'),
        (["null"], '"null"'),
        (["0"], '"0"'),
        (["1.5"], '"1.5"'),
        (["gpu001", "cpu1"], '"cpu1,gpu001"'),
        (["a:b"], '"a:b"'),
        (["gpu001", "gpu002"], "gpu[001-002]"),
    ],
    ids=["true", "no", "null", "integer", "float", "comma", "colon", "plain-hostlist"],
)
def test_yaml_quotes_what_yaml_would_not_read_as_a_string(names, expected):
    tree = {"s1": leaf(*names)}
    lines = topology.render_yaml([{"name": "t", "cluster_default": True, "tree": tree}])
    assert lines[-1] == "        nodes: %s" % expected
    assert yaml.safe_load(text(lines))[0]["tree"]["switches"][0]["nodes"] == compress(names)


def test_yaml_numeric_host_names_stay_a_hostlist_string():
    lines = topology.render_yaml([{"name": "t", "cluster_default": True, "tree": {"s1": leaf("1", "2", "3")}}])
    assert yaml.safe_load(text(lines))[0]["tree"]["switches"][0]["nodes"] == "[1-3]"


@pytest.mark.parametrize(
    ("defaults", "message"),
    [
        ([False, False], "topology.yaml needs exactly one cluster_default topology, got none"),
        ([True, True], "topology.yaml needs exactly one cluster_default topology, got a, b"),
    ],
    ids=["none", "two"],
)
def test_yaml_needs_exactly_one_cluster_default(defaults, message):
    entries = [{"name": name, "cluster_default": default, "flat": True} for name, default in zip("ab", defaults, strict=True)]
    with pytest.raises(TopologyError) as raised:
        topology.render_yaml(entries)
    assert str(raised.value) == message


def test_yaml_topology_names_must_be_unique():
    with pytest.raises(TopologyError, match="topology names must be unique, got a, a"):
        topology.render_yaml([{"name": "a", "cluster_default": True, "flat": True}, {"name": "a", "flat": True}])
