import pathlib
import random
import re

import pytest
from repo_scripts import load

from ansible_collections.aicluster.slurm.plugins.module_utils import ibnetdiscover
from ansible_collections.aicluster.slurm.plugins.module_utils.ibnetdiscover import (
    MAX_NAME_LEN,
    FabricError,
    _any_of,
    _compile,
    _farness,
    _line_at,
    _one_break,
    natural_sorted,
    normalize_guid,
    parse,
    parse_guid_map,
    read_file,
    sanitize_name,
    switch_names,
    to_tree,
)
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import validate_tree

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "ibnetdiscover"
# Real captures: evaluation data kept outside the collection (../shared/fabrics), read only when present.
CAPTURES = pathlib.Path(__file__).resolve().parents[4].parent / "shared" / "fabrics"
needs_captures = pytest.mark.skipif(not CAPTURES.is_dir(), reason="real fabric captures (../shared/fabrics) not present")

SLURM_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def fixture(name):
    return (FIXTURES / name).read_text()


def capture(name):
    path = CAPTURES / name
    if not path.is_file():
        pytest.skip("capture %s not present" % name)
    return path.read_text()


# ---------------------------------------------------------------- helpers


def records(text):
    """Split ibnetdiscover text into (preamble lines, record blocks); a record starts at ``vendid=``."""
    preamble, blocks = [], []
    for line in text.splitlines():
        if line.strip().startswith("vendid="):
            blocks.append([])
        if not line.strip():
            continue
        (blocks[-1] if blocks else preamble).append(line)
    return preamble, blocks


def shuffled(text, seed):
    preamble, blocks = records(text)
    random.Random(seed).shuffle(blocks)
    return "\n".join(preamble) + "\n\n" + "\n\n".join("\n".join(block) for block in blocks) + "\n"


def single_spaces(line):
    """Tabs and runs of blanks outside double quotes become one space, as in some captures."""
    parts = line.split('"')
    return '"'.join(re.sub(r"[ \t]+", " ", part) if index % 2 == 0 else part for index, part in enumerate(parts))


def variants(text):
    """The same fabric written the ways ibnetdiscover output reaches us."""
    preamble, blocks = records(text)
    body = ["\n".join(block) for block in blocks]
    return {
        "shuffled": shuffled(text, 1),
        "reversed": "\n".join(preamble) + "\n\n" + "\n\n".join(reversed(body)) + "\n",
        "no-blank-lines": "\n".join(line for line in text.splitlines() if line.strip()),
        "whitespace-separators": "\n \t\n".join(["\n".join(preamble)] + body),
        "single-spaces": "\n".join(single_spaces(line) for line in text.splitlines()),
        "crlf": text.replace("\n", "\r\n"),
        "stderr-noise": "ibwarn: [1234] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1)\n" + text,
    }


def signature(fabric):
    nodes = sorted((node.guid, node.kind, node.desc, node.nports, node.has_record) for node in fabric.nodes.values())
    links = [(link.a_guid, link.a_port, link.b_guid, link.b_port, link.width, link.speed) for link in fabric.links]
    return nodes, links


def check_tree(tree):
    """What slurmctld checks in topology.conf (switch_record.c), plus our own promises."""
    switches = tree["switches"]
    assert switches, "no switches"
    for name, entry in switches.items():
        assert len(name) < 64, name
        assert len(name) <= MAX_NAME_LEN
        assert SLURM_NAME.match(name), name
        assert set(entry) == {"switches", "nodes"}
        assert not (entry["switches"] and entry["nodes"]), "%s has both child switches and nodes" % name
        assert entry["switches"] or entry["nodes"], "%s has no children" % name
        assert name not in entry["switches"], "%s lists itself" % name
        for child in entry["switches"]:
            assert child in switches, "%s has invalid child %s" % (name, child)
        for listed in (entry["switches"], entry["nodes"]):
            assert listed == natural_sorted(listed), "%s: children not sorted or duplicated" % name
        for host in entry["nodes"]:
            assert SLURM_NAME.match(host), host
    # Acyclic, and levels is the longest leaf-to-top chain.
    state = {}
    height = {}

    def visit(name, path):
        if state.get(name) == "active":
            raise AssertionError("cycle: %s" % " -> ".join(path + [name]))
        if state.get(name) == "done":
            return height[name]
        state[name] = "active"
        below = [visit(child, path + [name]) for child in switches[name]["switches"]]
        state[name] = "done"
        height[name] = 1 + max(below, default=0)
        return height[name]

    assert max(visit(name, []) for name in switches) == tree["levels"]
    return switches


def hosts_of(tree):
    return {host for entry in tree["switches"].values() for host in entry["nodes"]}


def leaves_per_host(tree):
    count = {}
    for entry in tree["switches"].values():
        for host in entry["nodes"]:
            count[host] = count.get(host, 0) + 1
    return count


def roots(tree):
    children = {child for entry in tree["switches"].values() for child in entry["switches"]}
    return sorted(set(tree["switches"]) - children)


def warning(tree, pattern):
    found = [text for text in tree["warnings"] if re.search(pattern, text)]
    assert found, "no warning matching %r in %r" % (pattern, tree["warnings"])
    return found[0]


# ---------------------------------------------------------------- parser


@pytest.mark.parametrize(
    ("name", "switches", "cas", "links"),
    [
        ("fat_tree_2level.txt", 5, 9, 21),
        ("fat_tree_3level.txt", 10, 8, 24),
        ("spine_mesh.txt", 5, 6, 14),
        ("rail_optimized.txt", 3, 6, 10),
        ("ndr_sharp_unnamed.txt", 4, 12, 18),
        ("quirks_stderr_spaces.txt", 2, 3, 6),
        ("no_blank_lines.txt", 3, 4, 6),
        ("two_port_hca.txt", 1, 3, 4),
        ("chassis_grouped.txt", 5, 4, 12),
    ],
    ids=["2level-parallel", "3level", "spine-mesh", "rail", "sharp-unnamed", "stderr-spaces-loopback", "no-blank-lines", "two-port-hca", "grouped-g"],
)
def test_parse_counts(name, switches, cas, links):
    fabric = parse(fixture(name))
    kinds = [node.kind for node in fabric.nodes.values()]
    assert (kinds.count("switch"), kinds.count("ca"), len(fabric.links)) == (switches, cas, links)
    assert all(node.has_record for node in fabric.nodes.values())
    assert fabric.records == switches + cas


@pytest.mark.parametrize(
    "name",
    ["fat_tree_2level.txt", "spine_mesh.txt", "ndr_sharp_unnamed.txt", "quirks_stderr_spaces.txt", "chassis_grouped.txt", "two_port_hca.txt"],
    ids=["2level", "spine-mesh", "sharp", "quirks", "grouped-g", "two-port"],
)
def test_parse_ignores_layout(name):
    text = fixture(name)
    expected = signature(parse(text))
    for label, variant in variants(text).items():
        assert signature(parse(variant)) == expected, label


def test_parse_node_fields():
    fabric = parse(fixture("fat_tree_2level.txt"))
    spine = fabric.nodes["0x0002c90300f00101"]
    assert (spine.kind, spine.desc, spine.nports, spine.sysimgguid) == ("switch", "MF0;spine1:MQM9790/U1", 65, "0x0002c90300f00101")
    host = fabric.nodes["0x0002c90300a00010"]
    assert (host.kind, host.desc, host.nports, host.port_guids) == ("ca", "node01 mlx5_0", 1, {1: "0x0002c90300a00011"})
    assert all(re.match(r"^0x[0-9a-f]{16}$", guid) for guid in fabric.nodes)


def test_parse_parallel_links_kept_apart():
    fabric = parse(fixture("fat_tree_2level.txt"))
    between = [(link.a_port, link.b_port) for link in fabric.links if {link.a_guid, link.b_guid} == {"0x0002c90300f00101", "0x0002c90300f00201"}]
    assert sorted(between) == [(1, 33), (2, 34)]


def test_parse_rates():
    fabric = parse(fixture("quirks_stderr_spaces.txt"))
    rates = {(link.a_guid[-3:], link.a_port, link.b_guid[-3:], link.b_port): (link.width, link.speed) for link in fabric.links}
    assert rates[("701", 3, "702", 1)] == ("4x", "FDR")
    assert rates[("730", 1, "702", 3)] == ("4x", "SDR")
    assert rates[("701", 1, "701", 2)] == ("4x", "EDR")


def test_parse_description_with_hash():
    fabric = parse(fixture("spine_mesh.txt"))
    assert fabric.nodes["0x0002c90300f00401"].desc == "Voltaire 4036 # spine-a"


def test_parse_grouped_ext_ports():
    fabric = parse(fixture("chassis_grouped.txt"))
    ends = {((link.a_guid, link.a_port), (link.b_guid, link.b_port)) for link in fabric.links}
    assert (("0x0008f10400b10101", 1), ("0x0008f10400c20001", 9)) in ends
    assert (("0x0008f10400b10102", 2), ("0x0008f10400c20002", 10)) in ends
    assert fabric.nodes["0x0008f10400b10001"].desc == "ISR9288 Voltaire sFB-12D"


def test_parse_loopback_once():
    fabric = parse(fixture("quirks_stderr_spaces.txt"))
    loops = sorted((link.a_port, link.b_port) for link in fabric.links if link.loopback)
    assert loops == [(1, 2), (19, 21)]


def test_parse_peer_without_record():
    text = "\n".join(
        [
            'Switch\t36 "S-0002c90300f0aa01"\t\t# "MF0;lonely:QM8700/U1" enhanced port 0 lid 1 lmc 0',
            '[1]\t"H-0002c90300a0aa10"[1](2c90300a0aa11) \t\t# "n1 mlx5_0" lid 2 4xHDR',
            '[2]\t"S-0002c90300f0aa02"[7]\t\t# "MF0;hidden:QM8700/U1" lid 3 4xHDR',
        ]
    )
    fabric = parse(text)
    host = fabric.nodes["0x0002c90300a0aa10"]
    other = fabric.nodes["0x0002c90300f0aa02"]
    assert (host.kind, host.desc, host.has_record, host.port_guids) == ("ca", "n1 mlx5_0", False, {1: "0x0002c90300a0aa11"})
    assert (other.kind, other.desc, other.has_record) == ("switch", "MF0;hidden:QM8700/U1", False)
    assert len(fabric.links) == 2


def test_parse_keeps_slower_report():
    text = "\n".join(
        [
            'Switch\t36 "S-0000000000000001"\t\t# "a" enhanced port 0 lid 1 lmc 0',
            '[1]\t"S-0000000000000002"[1]\t\t# "b" lid 2 4xEDR',
            'Switch\t36 "S-0000000000000002"\t\t# "b" enhanced port 0 lid 2 lmc 0',
            '[1]\t"S-0000000000000001"[1]\t\t# "a" lid 1 1xEDR',
        ]
    )
    lines = text.splitlines()
    for order in (text, "\n".join(lines[2:] + lines[:2])):
        (link,) = parse(order).links
        assert (link.width, link.speed) == ("1x", "EDR")


def test_parse_one_sided_links():
    """Links reported only by the switch (CA records cut off) are still there."""
    text = fixture("no_blank_lines.txt")
    cut = [line for line in text.splitlines() if not line.startswith(("Ca", "[1](", "caguid"))]
    fabric = parse("\n".join(cut))
    assert len(fabric.links) == 6
    assert sum(1 for node in fabric.nodes.values() if node.kind == "ca" and not node.has_record) == 4


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n \n",
        "ibwarn: [123] main: discover failed\nsrc/ibnetdisc.c:811; Failed to resolve self\n",
        "CA    12  1 0x0002c90300a00011 4x NDR - SW     3   1 0x0002c90300f00201 ( 'node01 mlx5_0' - 'MF0;leaf1:MQM9790/U1' )\n",
    ],
    ids=["empty", "blank", "errors-only", "ports-report-p"],
)
def test_parse_rejects_non_topology(text):
    with pytest.raises(FabricError, match="no Switch, Ca or Rt record"):
        parse(text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("S-0002c90300f00101", "0x0002c90300f00101"), ("0x2C90300F00101", "0x0002c90300f00101"), ("e41d2d030003e470", "0xe41d2d030003e470")],
    ids=["prefixed", "upper-unpadded", "bare"],
)
def test_normalize_guid(value, expected):
    assert normalize_guid(value) == expected


# ---------------------------------------------------------------- guid map


def test_parse_guid_map_formats():
    text = "\n".join(
        [
            "# node-name-map",
            '0x0002c90300a00620 "hgx02 mlx5_0"',
            '0x2C90300A00630   "hgx04"   # trailing comment',
            "H-003048c74e4a0000 x5570comp1",
            "78e7d10300227744 sl390lin1  # unquoted with comment",
            "",
            "   # indented comment",
        ]
    )
    assert parse_guid_map(text) == {
        "0x0002c90300a00620": "hgx02 mlx5_0",
        "0x0002c90300a00630": "hgx04",
        "0x003048c74e4a0000": "x5570comp1",
        "0x78e7d10300227744": "sl390lin1",
    }


@pytest.mark.parametrize("line", ["0x0002c90300a00620", "not a guid line", '0xzz "x"'], ids=["no-name", "words", "bad-hex"])
def test_parse_guid_map_rejects(line):
    with pytest.raises(FabricError, match="line 2"):
        parse_guid_map('0x1 "ok"\n' + line)


# ---------------------------------------------------------------- switch names


def _switch_text(descs):
    lines = []
    for index, desc in enumerate(descs, 1):
        lines.append('Switch\t36 "S-%016x"\t\t# "%s" enhanced port 0 lid %d lmc 0' % (0xABC000 + index, desc, index))
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("desc", "expected"),
    [
        ("MF0;A09-P1-IBLEAF-04-04:MQM9701/U1", "A09-P1-IBLEAF-04-04"),
        ("Voltaire 4036 # 4036-8C5C", "Voltaire-4036-4036-8C5C"),
        ("Voltaire 4036 - 36 QDR ports switch", "Voltaire-4036-36-QDR-ports-switch"),
        ('sw[1],a=b;c:d "q"', "sw-1-a-b-c-d-q"),
        ("", "sw-0000000000abc001"),
        ("  ;;  ", "sw-0000000000abc001"),
    ],
    ids=["mf0", "hash", "dashes-collapse", "specials", "empty", "only-specials"],
)
def test_switch_name_from_description(desc, expected):
    fabric = parse(_switch_text([desc]))
    assert switch_names(fabric) == {"0x0000000000abc001": expected}


def test_switch_names_duplicates_fall_back_to_guid():
    fabric = parse(_switch_text(["Infiniscale-IV Mellanox Technologies", "Infiniscale-IV Mellanox Technologies", "MF0;core:QM9700/U1"]))
    assert switch_names(fabric) == {
        "0x0000000000abc001": "sw-0000000000abc001",
        "0x0000000000abc002": "sw-0000000000abc002",
        "0x0000000000abc003": "core",
    }


def test_switch_names_long_are_cut_and_unique():
    long_a = "MF0;" + "x" * 70 + "-a:QM9700/U1"
    long_b = "MF0;" + "x" * 70 + "-b:QM9700/U1"
    names = switch_names(parse(_switch_text([long_a, long_b, "y" * 64])))
    assert len(set(names.values())) == 3
    assert all(len(name) < 64 for name in names.values())
    assert names["0x0000000000abc001"].endswith("0abc001")


def test_switch_names_from_guid_map():
    fabric = parse(_switch_text(["Infiniscale-IV Mellanox Technologies", "MF0;core:QM9700/U1"]))
    names = switch_names(fabric, {"S-0000000000abc001": "rack 12 / leaf"})
    assert names["0x0000000000abc001"] == "rack-12-leaf"


def test_switch_names_stable_across_record_order():
    text = fixture("spine_mesh.txt")
    expected = switch_names(parse(text))
    for seed in range(5):
        assert switch_names(parse(shuffled(text, seed))) == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("a b", "a-b"), ("--a--b--", "a-b"), ("é/ü", ""), ("leaf.1", "leaf.1")], ids=["space", "dashes", "non-ascii", "dot"]
)
def test_sanitize_name(text, expected):
    assert sanitize_name(text) == expected


# ---------------------------------------------------------------- to_tree on synthetic fabrics


def tree_of(name, **kwargs):
    tree = to_tree(parse(fixture(name)), **kwargs)
    check_tree(tree)
    return tree


def test_two_level_fat_tree():
    tree = tree_of("fat_tree_2level.txt")
    assert tree["switches"] == {
        "leaf1": {"switches": [], "nodes": ["node01", "node02", "node03"]},
        "leaf2": {"switches": [], "nodes": ["node04", "node05", "node06"]},
        "leaf3": {"switches": [], "nodes": ["node07", "node08", "node09"]},
        "spine1": {"switches": ["leaf1", "leaf2", "leaf3"], "nodes": []},
        "spine2": {"switches": ["leaf1", "leaf2", "leaf3"], "nodes": []},
    }
    assert list(tree["switches"]) == ["leaf1", "leaf2", "leaf3", "spine1", "spine2"]
    assert (tree["levels"], tree["excluded"], tree["warnings"]) == (2, [], [])


def test_three_level_fat_tree():
    tree = tree_of("fat_tree_3level.txt")
    assert tree["levels"] == 3
    assert roots(tree) == ["core1", "core2"]
    assert tree["switches"]["core1"]["switches"] == ["pod1-spine1", "pod1-spine2", "pod2-spine1", "pod2-spine2"]
    assert tree["switches"]["pod2-spine1"]["switches"] == ["pod2-leaf1", "pod2-leaf2"]
    assert tree["switches"]["pod1-leaf2"]["nodes"] == ["gpu003", "gpu004"]
    assert tree["warnings"] == []


def test_spine_mesh_is_not_a_cycle():
    tree = tree_of("spine_mesh.txt")
    spines = ("Voltaire-4036-spine-a", "Voltaire-4036-spine-b")
    leaves = ["sw-0002c90300f00410", "sw-0002c90300f00411", "sw-0002c90300f00412"]
    for spine in spines:
        assert tree["switches"][spine] == {"switches": leaves, "nodes": []}
    assert warning(tree, "within one tier").endswith("Voltaire-4036-spine-a <-> Voltaire-4036-spine-b")
    assert tree["levels"] == 2


def test_rail_optimized_all_rails():
    tree = tree_of("rail_optimized.txt")
    # One rail per host, the naturally first HCA: never a host under several leaves.
    assert leaves_per_host(tree) == {"dgx01": 1, "dgx02": 1, "dgx03": 1}
    assert tree["switches"]["su1-rail1"]["nodes"] == ["dgx01", "dgx02", "dgx03"]
    assert "placed 3 hosts with several adapters by one rail each (mlx5_0: 3)" in warning(tree, "one rail each")
    assert tree["dropped"]["other_rail"] == 3
    assert tree["rails"] == {"mlx5_0": 3}


def test_empty_hca_names_filters_nothing():
    # The role's default (slurm_topology_hca_names: []) must not exclude every HCA.
    assert tree_of("rail_optimized.txt", hca_names=[]) == tree_of("rail_optimized.txt")


@pytest.mark.parametrize(("hca", "leaf", "dropped"), [("mlx5_0", "su1-rail1", "su1-rail2"), ("mlx5_1", "su1-rail2", "su1-rail1")], ids=["rail0", "rail1"])
def test_rail_optimized_one_rail(hca, leaf, dropped):
    tree = tree_of("rail_optimized.txt", hca_names=[hca])
    assert tree["switches"] == {leaf: {"switches": [], "nodes": ["dgx01", "dgx02", "dgx03"]}, "su1-spine": {"switches": [leaf], "nodes": []}}
    assert not any("more than one leaf" in text for text in tree["warnings"])
    assert dropped in warning(tree, "stay leaves, never parents")
    assert sum(item["reason"].startswith("other rail: its host is placed by") for item in tree["excluded"]) == 3


def test_hca_names_is_a_preference_not_a_filter():
    """A host without the preferred HCA is placed by its first one, with a warning; nothing vanishes."""
    tree = tree_of("rail_optimized.txt", hca_names=["mlx5_7", "mlx5_1"])
    assert tree["switches"]["su1-rail2"]["nodes"] == ["dgx01", "dgx02", "dgx03"]
    tree = tree_of("rail_optimized.txt", hca_names=["mlx5_7"])
    assert hosts_of(tree) == {"dgx01", "dgx02", "dgx03"}
    assert "placed 3 hosts by their first HCA, as they have none of hca_names (mlx5_7)" in warning(tree, "first HCA")


def _reasons(tree):
    return {item["endpoint"]: item["reason"] for item in tree["excluded"]}


def test_sharp_unnamed_generic():
    tree = tree_of("ndr_sharp_unnamed.txt")
    assert hosts_of(tree) == {"hgx01", "hgx03"}
    assert tree["dropped"]["appliance"] == 1
    assert tree["dropped"]["sharp"] == 4
    assert tree["dropped"]["junk_name"] == 2
    assert hosts_of(tree_of("ndr_sharp_unnamed.txt", appliance_patterns=())) == {"hgx01", "hgx03", "ufm-01"}
    reasons = _reasons(tree)
    assert sum("SHARP aggregation node" in reason for reason in reasons.values()) == 4
    assert reasons['"MT4129 ConnectX7 Mellanox Technologies" (0x0002c90300a00620)'].startswith("unnamed")
    assert "not a unique host name" in reasons['"localhost mlx5_0" (0x0002c90300a00630)']
    assert "not a unique host name" in reasons['"ubuntu mlx5_0" (0x0002c90300a00670)']
    assert len(tree["excluded"]) == 10


def test_leaf_with_only_excluded_hosts_is_not_a_parent():
    """The topograph quirk: a storage leaf above the spine would make the tree upside down."""
    tree = tree_of("ndr_sharp_unnamed.txt")
    assert "storage-leaf-01" not in tree["switches"]
    assert roots(tree) == ["ib-spine-01"]
    assert tree["switches"]["ib-spine-01"]["switches"] == ["ib-leaf-01", "ib-leaf-02"]
    assert "storage-leaf-01" in warning(tree, "stay leaves, never parents")


def test_guid_map_and_exclude():
    guid_map = parse_guid_map(fixture("ndr_sharp_unnamed_guid_map.txt"))
    tree = tree_of("ndr_sharp_unnamed.txt", guid_map=guid_map, exclude=["^ufm", "storage"])
    assert tree["switches"]["ib-leaf-01"]["nodes"] == ["hgx01", "hgx02"]
    assert tree["switches"]["ib-leaf-02"]["nodes"] == ["hgx03"]
    reasons = _reasons(tree)
    assert reasons['"ufm-01 mlx5_0" (0x0002c90300a00660)'] == "matches exclude pattern '^ufm'"
    assert reasons['"storage-01" (0x0002c90300a00680)'] == "matches exclude pattern 'storage'"


@pytest.mark.parametrize(
    "desc",
    ["MT4129 ConnectX7 Mellanox Technologies", "MT25408 ConnectX Mellanox Technologies", "Mellanox Technologies ConnectX-6", "ConnectX-7 HCA", ""],
    ids=["mt4129", "mt25408", "vendor-first", "connectx", "empty"],
)
def test_model_only_descriptions_are_unnamed(desc):
    text = fixture("two_port_hca.txt").replace('"io03 HCA-1"', '"%s"' % desc)
    tree = to_tree(parse(text))
    assert hosts_of(tree) == {"io01", "io02"}
    (item,) = tree["excluded"]
    assert item["endpoint"].endswith("(0x0002c90300a00920)")
    assert item["reason"].startswith("unnamed")


def test_string_arguments_act_as_one_item_lists():
    fabric = parse(fixture("ndr_sharp_unnamed.txt"))
    assert to_tree(fabric, hca_names="mlx5_0", exclude="^ufm") == to_tree(fabric, hca_names=["mlx5_0"], exclude=["^ufm"])
    assert "ufm-01" not in hosts_of(to_tree(fabric, exclude="^ufm"))


def test_guid_map_by_port_guid():
    fabric = parse(fixture("ndr_sharp_unnamed.txt"))
    tree = to_tree(fabric, guid_map={"0x0002c90300a00651": "hgx05"})  # port 1 GUID of an unnamed CA
    assert "hgx05" in tree["switches"]["ib-leaf-02"]["nodes"]


def test_domain_is_stripped():
    tree = tree_of("ndr_sharp_unnamed.txt")
    assert "hgx03" in tree["switches"]["ib-leaf-02"]["nodes"]


def test_loopbacks_and_leaf_to_leaf():
    tree = tree_of("quirks_stderr_spaces.txt")
    assert tree["switches"] == {
        "edge-7a": {"switches": [], "nodes": ["lab02", "lab03"]},
        "SwitchIB-Mellanox-Technologies": {"switches": [], "nodes": ["lab01"]},
        "fabric-root": {"switches": ["edge-7a", "SwitchIB-Mellanox-Technologies"], "nodes": []},
    }
    assert tree["levels"] == 2
    warning(tree, "added the logical root fabric-root over SwitchIB-Mellanox-Technologies,edge-7a")


def test_leaf_to_leaf_without_a_logical_root_warns_as_slurmctld_would():
    tree = tree_of("quirks_stderr_spaces.txt", root_name=None)
    assert sorted(tree["switches"]) == ["SwitchIB-Mellanox-Technologies", "edge-7a"]
    loops = [item["endpoint"] for item in tree["excluded"] if item["reason"].startswith("loopback")]
    assert loops == ["SwitchIB-Mellanox-Technologies port 1 <-> port 2", "SwitchIB-Mellanox-Technologies port 19 <-> port 21"]
    warning(tree, "ignored 2 loopback cables")
    warning(tree, "no switch reaches all compute leaves")
    warning(tree, "within one tier")


def test_two_port_hca_on_one_switch():
    tree = tree_of("two_port_hca.txt")
    assert tree["switches"] == {"ISR9024-Voltaire": {"switches": [], "nodes": ["io01", "io02", "io03"]}}
    assert not any("more than one leaf" in text for text in tree["warnings"])
    assert "io02 HCA-1[1] <-> ISR9024-Voltaire[5] 1xSDR" in warning(tree, "below the fabric norm")


def test_grouped_chassis():
    tree = tree_of("chassis_grouped.txt")
    boards = ["sw-0008f10400b10101", "sw-0008f10400b10102"]
    assert tree["switches"] == {
        "ISR9024-Voltaire-edge-1": {"switches": [], "nodes": ["vc01", "vc02"]},
        "ISR9024-Voltaire-edge-2": {"switches": [], "nodes": ["vc03", "vc04"]},
        boards[0]: {"switches": ["ISR9024-Voltaire-edge-1", "ISR9024-Voltaire-edge-2"], "nodes": []},
        boards[1]: {"switches": ["ISR9024-Voltaire-edge-1", "ISR9024-Voltaire-edge-2"], "nodes": []},
    }
    # The chassis above two boards that each reach every leaf is a redundant top: dropped, the boards stay two roots.
    assert "ISR9288-Voltaire-sFB-12D" in warning(tree, "redundant top switch")
    assert tree["levels"] == 2


def test_no_blank_lines():
    tree = tree_of("no_blank_lines.txt")
    assert tree["switches"]["nb-spine"]["switches"] == ["nb-leaf1", "nb-leaf2"]
    assert hosts_of(tree) == {"c1", "c2", "c3", "c4"}


def test_disconnected_fabrics():
    text = fixture("fat_tree_2level.txt") + "\n" + fixture("no_blank_lines.txt")
    tree = to_tree(parse(text))
    check_tree(tree)
    assert "2 disconnected fabrics (9/4 hosts)" in warning(tree, "disconnected fabrics")


def test_unreachable_switches_dropped():
    island = "\n".join(
        [
            "",
            'Switch\t36 "S-0000000000fee001"\t\t# "MF0;island-a:QM8700/U1" enhanced port 0 lid 90 lmc 0',
            '[1]\t"S-0000000000fee002"[1]\t\t# "MF0;island-b:QM8700/U1" lid 91 4xHDR',
            "",
            'Switch\t36 "S-0000000000fee002"\t\t# "MF0;island-b:QM8700/U1" enhanced port 0 lid 91 lmc 0',
            '[1]\t"S-0000000000fee001"[1]\t\t# "MF0;island-a:QM8700/U1" lid 90 4xHDR',
        ]
    )
    tree = to_tree(parse(fixture("fat_tree_2level.txt") + island))
    check_tree(tree)
    assert not {"island-a", "island-b"} & set(tree["switches"])
    assert warning(tree, "not connected to any host-facing switch").endswith(": island-a,island-b")


def test_name_pattern_filters_and_extracts():
    tree = tree_of("fat_tree_2level.txt", name_pattern=r"^node0[1-4] ")
    assert hosts_of(tree) == {"node01", "node02", "node03", "node04"}
    assert "leaf3" not in tree["switches"]
    text = fixture("fat_tree_2level.txt").replace('"node0', '"mlx5_0 gpu-node0').replace(' mlx5_0"', '"')
    tree = to_tree(parse(text), name_pattern=r"^(?P<hca>mlx5_\d+)\s+(?P<host>\S+)")
    assert tree["switches"]["leaf1"]["nodes"] == ["gpu-node01", "gpu-node02", "gpu-node03"]


@pytest.mark.parametrize(
    "name",
    ["fat_tree_3level.txt", "spine_mesh.txt", "ndr_sharp_unnamed.txt", "chassis_grouped.txt", "quirks_stderr_spaces.txt"],
    ids=["3level", "spine-mesh", "sharp", "grouped-g", "quirks"],
)
def test_tree_independent_of_record_order(name):
    text = fixture(name)
    expected = to_tree(parse(text))
    for label, variant in variants(text).items():
        assert to_tree(parse(variant)) == expected, label


def _fabric_gen():
    return load("bench/fabric_gen.py")


@pytest.mark.parametrize(
    ("nodes", "radix", "leaves", "spines", "cores"),
    [(100, 8, 25, 28, 16), (128, 8, 32, 32, 16), (5, 4, 3, 4, 2)],
    ids=["partial-pods", "full-radix-8", "tiny"],
)
def test_generated_fat_tree(nodes, radix, leaves, spines, cores):
    fabric_gen = _fabric_gen()
    text = fabric_gen.generate(nodes, radix)
    assert text == fabric_gen.generate(nodes, radix)
    tree = to_tree(parse(text))
    check_tree(tree)
    names = list(tree["switches"])
    assert [sum(name.startswith(kind) for name in names) for kind in ("leaf", "spine", "core")] == [leaves, spines, cores]
    assert tree["levels"] == 3
    assert hosts_of(tree) == {"gpu%05d" % number for number in range(1, nodes + 1)}
    assert max(len(entry["nodes"]) for entry in tree["switches"].values()) == radix // 2
    assert tree["warnings"] == []


def full_signature(fabric):
    """Everything parse returns, to compare two readers of one text."""
    nodes = sorted(
        (node.guid, node.kind, node.desc, node.nports, node.sysimgguid, sorted(node.port_guids.items()), node.has_record) for node in fabric.nodes.values()
    )
    return nodes, signature(fabric)[1], fabric.records, fabric.warnings


def line_reader(monkeypatch, text):
    """parse with its whole-capture fast path turned off: the line-by-line reader alone."""
    with monkeypatch.context() as patched:
        patched.setattr(ibnetdiscover, "_parse_canonical", lambda _text: None)
        return parse(text)


def fast_path_texts():
    fabric_gen = _fabric_gen()
    texts = {"generated-%d" % nodes: fabric_gen.generate(nodes, radix) for nodes, radix in ((5, 4), (100, 8), (700, 16))}
    texts.update({path.name: path.read_text() for path in sorted(FIXTURES.glob("*.txt"))})
    if CAPTURES.is_dir():
        texts.update({path.name: path.read_text(errors="replace") for path in sorted(CAPTURES.glob("*.ibnetdiscover"))})
    for name, text in list(texts.items()):
        for label, variant in variants(text).items():
            texts["%s/%s" % (name, label)] = variant
        texts[name + "/cut"] = text[: len(text) * 9 // 10]
    return texts


def test_fast_path_reads_as_the_line_reader(monkeypatch):
    """parse's fast path (_parse_canonical) must give exactly what the line reader gives, or step aside."""

    def outcome(read, text):
        try:
            return full_signature(read(text))
        except FabricError as error:
            return "FabricError: %s" % error

    taken = 0
    for name, text in fast_path_texts().items():
        if ibnetdiscover._parse_canonical(ibnetdiscover._chunks(_one_break(text))) is not None:
            taken += 1
        assert outcome(parse, text) == outcome(lambda text: line_reader(monkeypatch, text), text), name
    # The generated fabrics in ibnetdiscover's own layout take the fast path.
    assert taken >= 3


@pytest.mark.parametrize("chunk", [ibnetdiscover._CHUNK, 700])
def test_parse_file_reads_as_parse(tmp_path, monkeypatch, chunk):
    """parse_file streams captures in ibnetdiscover's own layout and reads anything else whole: either way what parse gives the bytes."""
    monkeypatch.setattr(ibnetdiscover, "_CHUNK", chunk)
    inputs = {name: text.encode() for name, text in fast_path_texts().items()}
    for seed in range(8):
        inputs["damaged-%d" % seed] = DAMAGED.fabric(random.Random(seed), dead_leaves=seed % 2)[0].encode()
    plain = inputs["generated-100"]
    inputs.update(
        {
            "non-utf8": plain.replace(b"gpu00007", b"gpu\xe900007"),
            "crlf": plain.replace(b"\n", b"\r\n"),
            "nul": plain[:5000] + b"\x00" + plain[5000:],
            "gzip": b"\x1f\x8b\x08\x00" + plain,
            "bzip2": b"BZh91AY" + plain,
            "zip": b"PK\x03\x04" + plain,
            "cut": plain[: len(plain) // 2],
            "empty": b"",
            "no-final-newline": plain.rstrip(b"\n"),
        }
    )

    def outcome(read, argument):
        try:
            return full_signature(read(argument))
        except FabricError as error:
            return "FabricError: %s" % error

    whole = []
    real_parse = ibnetdiscover.parse
    for index, (name, data) in enumerate(inputs.items()):
        path = tmp_path / ("capture-%d.txt" % index)
        path.write_bytes(data)
        expected = outcome(lambda data, path=path: real_parse(data, source=str(path)), data)
        with monkeypatch.context() as patched:
            patched.setattr(ibnetdiscover, "parse", lambda *args, _name=name, **kwargs: whole.append(_name) or real_parse(*args, **kwargs))
            assert outcome(ibnetdiscover.parse_file, str(path)) == expected, name
    streamed = set(inputs) - set(whole)
    assert {"generated-5", "generated-100", "generated-700", "damaged-0"} <= streamed
    assert not streamed & {"non-utf8", "crlf", "nul", "gzip", "bzip2", "zip", "empty"}
    with pytest.raises(FabricError, match="cannot read .*missing.txt"):
        ibnetdiscover.parse_file(str(tmp_path / "missing.txt"))


# ---------------------------------------------------------------- errors


def test_error_no_switches():
    text = "\n".join(
        [
            "vendid=0x2c9",
            "devid=0x1023",
            "caguid=0x0002c90300a0bb10",
            'Ca\t1 "H-0002c90300a0bb10"\t\t# "gb200-n01 HCA-1"',
        ]
    )
    with pytest.raises(FabricError, match="no switches in the fabric"):
        to_tree(parse(text))


def test_error_no_hosts_left():
    with pytest.raises(FabricError, match=r"no compute hosts left after filtering: 6 endpoints excluded \(6 matched exclude patterns\)"):
        to_tree(parse(fixture("rail_optimized.txt")), exclude=["^dgx"])


def test_error_only_unnamed():
    text = re.sub(r'"(node\d+) mlx5_0"', '"MT4129 ConnectX7 Mellanox Technologies"', fixture("fat_tree_2level.txt"))
    with pytest.raises(FabricError, match=r"9 endpoints excluded \(9 unnamed adapters"):
        to_tree(parse(text))


@pytest.mark.parametrize(
    ("kwargs", "message"), [({"exclude": ["ufm("]}, "exclude pattern"), ({"name_pattern": "[a-"}, "name_pattern")], ids=["exclude", "name-pattern"]
)
def test_error_bad_regex(kwargs, message):
    with pytest.raises(FabricError, match=message):
        to_tree(parse(fixture("fat_tree_2level.txt")), **kwargs)


# ---------------------------------------------------------------- real captures


def _guid_map_for_unnamed(fabric):
    """A map naming every CA of a fabric whose CAs carry only model descriptions (ibtopotool-1)."""
    return {guid: "node%02d" % index for index, guid in enumerate(sorted(g for g, n in fabric.nodes.items() if n.kind == "ca"), 1)}


CAPTURE_CASES = [
    # file, guid map file, to_tree kwargs, switches, levels, hosts
    ("topograph-ndr-example.ibnetdiscover", None, {}, 17, 2, 119),
    ("topograph-ndr-example.ibnetdiscover", None, {"hca_names": ["mlx5_0"]}, 17, 2, 119),
    ("topograph-ndr-example.ibnetdiscover", None, {"hca_names": ["mlx5_0", "HCA-1"], "exclude": ["ufm"]}, 17, 2, 119),
    ("hpc_toolset-qdr-x5.ibnetdiscover", "hpc_toolset-qdr-x5.guid-map", {}, 10, 2, 86),
    ("ibtopotool-1.ibnetdiscover", "generated", {}, 3, 2, 4),
    ("ibtopotool-2.ibnetdiscover", None, {}, 1, 1, 2),
    ("ibtopotool-3.ibnetdiscover", None, {}, 3, 2, 5),
    ("ibtopotool-4.ibnetdiscover", None, {}, 1, 1, 1),
]
CAPTURE_IDS = ["ndr", "ndr-mlx5_0", "ndr-one-rail-no-ufm", "x5-mapped", "topotool1-mapped", "topotool2", "topotool3", "topotool4"]


def _capture_tree(name, map_name, kwargs, text=None):
    fabric = parse(text if text is not None else capture(name))
    guid_map = None
    if map_name == "generated":
        guid_map = _guid_map_for_unnamed(fabric)
    elif map_name:
        guid_map = parse_guid_map(capture(map_name))
    return fabric, to_tree(fabric, guid_map=guid_map, **kwargs)


@needs_captures
@pytest.mark.parametrize(("name", "map_name", "kwargs", "switches", "levels", "hosts"), CAPTURE_CASES, ids=CAPTURE_IDS)
def test_capture_tree(name, map_name, kwargs, switches, levels, hosts):
    fabric, tree = _capture_tree(name, map_name, kwargs)
    check_tree(tree)
    assert (len(tree["switches"]), tree["levels"], len(hosts_of(tree))) == (switches, levels, hosts)
    for host in hosts_of(tree):
        assert not re.match(r"^MT\d+", host), host
        assert host not in ("Mellanox", "localhost", "ubuntu"), host
    excluded = {item["endpoint"] for item in tree["excluded"]}
    for node in fabric.nodes.values():
        if node.kind == "ca" and "Aggregation Node" in node.desc:
            assert any(node.guid in endpoint for endpoint in excluded), node.guid


@needs_captures
@pytest.mark.parametrize(("name", "map_name", "kwargs", "switches", "levels", "hosts"), CAPTURE_CASES, ids=CAPTURE_IDS)
def test_capture_order_independent(name, map_name, kwargs, switches, levels, hosts):
    text = capture(name)
    expected = _capture_tree(name, map_name, kwargs)[1]
    for seed in (1, 2):
        assert _capture_tree(name, map_name, kwargs, shuffled(text, seed))[1] == expected
    assert _capture_tree(name, map_name, kwargs, "\n".join(line for line in text.splitlines() if line.strip()))[1] == expected


@needs_captures
def test_capture_ndr_excluded_reasons():
    fabric, tree = _capture_tree("topograph-ndr-example.ibnetdiscover", None, {})
    reasons = [item["reason"] for item in tree["excluded"]]
    assert sum(reason.startswith("SHARP aggregation node") for reason in reasons) == 40
    assert sum(reason.startswith("unnamed") for reason in reasons) == 69
    assert sum("not a unique host name" in reason for reason in reasons) == 5
    assert tree["dropped"] == dict.fromkeys(tree["dropped"], 0) | {"sharp": 40, "unnamed": 69, "junk_name": 5, "appliance": 2, "other_rail": 347}
    # Every CA is either placed or counted.
    assert len(hosts_of(tree)) + sum(tree["dropped"].values()) == sum(node.kind == "ca" for node in fabric.nodes.values())
    spines = [name for name in tree["switches"] if "SPINE" in name]
    assert len(spines) == 9
    assert roots(tree) == spines


@needs_captures
@pytest.mark.parametrize("hca_names", [["mlx5_0"], ["mlx5_0", "HCA-1"]], ids=["mlx5_0", "mlx5_0+HCA-1"])
def test_capture_ndr_one_rail_one_leaf(hca_names):
    tree = _capture_tree("topograph-ndr-example.ibnetdiscover", None, {"hca_names": hca_names})[1]
    counts = leaves_per_host(tree)
    assert counts
    assert set(counts.values()) == {1}


@needs_captures
def test_capture_x5_named_hosts():
    guid_map = parse_guid_map(capture("hpc_toolset-qdr-x5.guid-map"))
    assert len(guid_map) == 86
    tree = _capture_tree("hpc_toolset-qdr-x5.ibnetdiscover", "hpc_toolset-qdr-x5.guid-map", {})[1]
    assert hosts_of(tree) == set(guid_map.values())
    assert [item["reason"].split(":")[0] for item in tree["excluded"]] == ["unmapped"] * 3
    assert tree["dropped"]["unmapped_guid"] == 3


@needs_captures
def test_capture_x5_without_map_fails():
    with pytest.raises(FabricError, match=r"89 endpoints excluded \(89 unnamed adapters"):
        to_tree(parse(capture("hpc_toolset-qdr-x5.ibnetdiscover")))


@needs_captures
def test_capture_topotool1_quirks():
    fabric, tree = _capture_tree("ibtopotool-1.ibnetdiscover", "generated", {})
    # The two-port CA 0x0008f10403960558 has both ports on one switch: one leaf.
    assert set(leaves_per_host(tree).values()) == {1}
    assert "1xSDR" in warning(tree, "below the fabric norm")
    with pytest.raises(FabricError, match="unnamed"):
        to_tree(fabric)


@needs_captures
def test_capture_topotool3_loopbacks():
    tree = _capture_tree("ibtopotool-3.ibnetdiscover", None, {})[1]
    assert sum(item["reason"].startswith("loopback") for item in tree["excluded"]) == 3
    assert tree["switches"]["switch-de779e"]["nodes"] == ["r-ufm96", "r-ufm100", "r-ufm101"]


@needs_captures
def test_capture_degenerate_ca_only():
    """topograph's example-bad.out shape: a host that sees only itself (a CA record without port lines)."""
    preamble, blocks = records(capture("topograph-ndr-example.ibnetdiscover"))
    lone = next(block for block in blocks if any(line.startswith("Ca") and "mlx5_0" in line for line in block))
    fabric = parse("\n".join(preamble + [line for line in lone if not line.startswith("[")]))
    assert [node.kind for node in fabric.nodes.values()] == ["ca"]
    with pytest.raises(FabricError, match="no switches"):
        to_tree(fabric)


# ---------------------------------------------------------------- generated fabrics, healthy and damaged


def _damaged_fabrics():
    return load("tests/unit/plugins/module_utils/damaged_fabrics.py")


DAMAGED = _damaged_fabrics()


def _parents(tree):
    return [(name, child) for name, entry in tree["switches"].items() for child in entry["switches"]]


def check_generated(fabric, result, truth, complete=True):
    """The issue's properties: one leaf per host, no switch above one nearer the hosts, no junk, every CA placed or counted."""
    switches = result["switches"]
    check_tree(result)
    assert set(leaves_per_host(result).values()) == {1}
    level = truth["level"]
    for parent, child in _parents(result):
        if parent in level and child in level:
            assert level[parent] > level[child], (parent, child, truth["shape"])
    for name, entry in switches.items():
        if entry["nodes"]:
            assert level.get(name) == 0, (name, truth["shape"])
    rendered = hosts_of(result)
    assert not rendered & truth["junk"]
    assert rendered <= truth["hosts"]
    cas = sum(node.kind == "ca" for node in fabric.nodes.values())
    assert len(rendered) + sum(result["dropped"].values()) == cas
    if complete:
        assert rendered == truth["hosts"], truth["shape"]
        errors, found = validate_tree(switches, known_nodes=sorted(truth["hosts"]))
        assert (errors, found) == ([], []), truth["shape"]
    elif rendered != truth["hosts"]:
        # Hosts lost to a damaged capture are reported, never silent.
        assert any("no record of their own" in text for text in result["warnings"]), truth["shape"]


@pytest.mark.parametrize("seed", range(60))
def test_generated_fabrics_properties(seed):
    rng = random.Random(seed)
    text, truth = DAMAGED.fabric(rng)
    fabric = parse(text)
    if not truth["hosts"]:
        with pytest.raises(FabricError, match="no compute hosts left"):
            to_tree(fabric)
        return
    result = to_tree(fabric, hca_names=["mlx5_0"])
    check_generated(fabric, result, truth)
    if truth["shape"]["rails"] == 2:
        assert result["dropped"]["other_rail"] == len(truth["hosts"])
        assert set(result["rails"]) == {"mlx5_0"}


@pytest.mark.parametrize("seed", range(20))
def test_dead_leaf_never_above_spines(seed):
    """A leaf whose hosts are all powered off keeps only its uplinks; it must not become a parent of the spines."""
    rng = random.Random(1000 + seed)
    text, truth = DAMAGED.fabric(rng, dead_leaves=1)
    fabric = parse(text)
    result = to_tree(fabric)
    check_generated(fabric, result, truth)
    for dead in truth["dead"]:
        assert dead not in result["switches"]


@pytest.mark.parametrize("seed", range(30))
def test_truncated_capture_reports_lost_hosts(seed):
    rng = random.Random(2000 + seed)
    text, truth = DAMAGED.fabric(rng, levels=2)
    lines = text.splitlines()
    cut = "\n".join(lines[: int(len(lines) * rng.uniform(0.3, 0.95))]) + "\n"
    failure = None
    try:
        fabric = parse(cut, source="cut.txt")
        result = to_tree(fabric)
    except FabricError as error:
        failure = str(error)
    if failure is not None:
        # Only clear errors may come out of a cut: nothing left, or a cut record.
        assert re.search(r"no compute hosts left|no Switch, Ca or Rt record|cut.txt line \d+: truncated record", failure), failure
        return
    check_generated(fabric, result, truth, complete=False)


def test_truncated_capture_mid_line_is_an_error():
    text, _truth = DAMAGED.fabric(random.Random(7), levels=2)
    head = text[: text.index("\n[2]\t", text.index("Switch")) + 9]
    number = head.count("\n") + 1
    with pytest.raises(FabricError, match=r"^fab.txt line %d: truncated record %s: the capture ends" % (number, re.escape(repr(head.splitlines()[-1])))):
        parse(head, source="fab.txt")


def test_generated_shapes_are_varied():
    """The generator really draws the damaged shapes the properties are checked on."""
    shapes = [DAMAGED.fabric(random.Random(seed))[1]["shape"] for seed in range(60)]
    for key in ("sharp", "ufm", "storage", "down", "dead", "missing"):
        assert any(shape[key] for shape in shapes), key
    assert {shape["levels"] for shape in shapes} == {2, 3}
    assert {shape["rails"] for shape in shapes} == {1, 2}


# ---------------------------------------------------------------- damaged input: each class with its message


def _two_leaves():
    return fixture("fat_tree_2level.txt")


def test_damaged_duplicate_switch_guid_names_both_records():
    text = _two_leaves()
    guids = re.findall(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"', text, re.M)
    damaged = text.replace("S-" + guids[1], "S-" + guids[0]).replace("0x" + guids[1], "0x" + guids[0])
    lines = damaged.splitlines()
    first, second = [n for n, line in enumerate(lines, 1) if line.startswith("Switch") and guids[0] in line][:2]
    with pytest.raises(FabricError, match=r"^f.txt line %d: duplicate GUID 0x%s: this record .* and the one on line %d" % (second, guids[0], first)):
        parse(damaged, source="f.txt")


def test_damaged_duplicate_ca_guid():
    text = _two_leaves()
    guids = re.findall(r'^Ca\s+\d+\s+"H-([0-9a-f]+)"', text, re.M)
    damaged = text.replace(guids[1], guids[0])
    with pytest.raises(FabricError, match=r"f.txt line \d+: (duplicate GUID 0x%s|port 1 of 0x%s is cabled to)" % (guids[0], guids[0])):
        parse(damaged, source="f.txt")


def test_damaged_non_utf8_is_read_with_a_warning():
    data = _two_leaves().encode().replace(b"node01 mlx5_0", b"node01 mlx5_0 caf\xe9")
    number = data[: data.index(b"\xe9")].count(b"\n") + 1
    fabric = parse(data, source="latin1.txt")
    assert fabric.warnings[0].startswith("latin1.txt line %d: byte 0xe9 is not UTF-8" % number)
    assert "node01" in hosts_of(to_tree(fabric))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x1f\x8b\x08\x00rest", r"^cap.gz is gzip-compressed, not ibnetdiscover text: gunzip it first$"),
        (b"BZh91AY", r"^cap.gz is bzip2-compressed"),
        (b"\xfd7zXZ\x00\x00", r"^cap.gz is xz-compressed"),
        (b"vendid=0x2c9\n\x00\x01\x02", r"^cap.gz line 2: NUL byte, this is a binary file"),
    ],
    ids=["gzip", "bzip2", "xz", "binary"],
)
def test_damaged_binary_or_compressed(data, message):
    with pytest.raises(FabricError, match=message):
        parse(data, source="cap.gz")


def test_damaged_garbled_record_line():
    lines = _two_leaves().splitlines()
    number = next(n for n, line in enumerate(lines, 1) if line.startswith("Switch"))
    lines[number - 1] = lines[number - 1][:20]
    with pytest.raises(FabricError, match=r"^g.txt line %d: malformed record line %s" % (number, re.escape(repr(lines[number - 1])))):
        parse("\n".join(lines) + "\n", source="g.txt")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('0x0002c90300a00001 "node01"\nnot a mapping\n', r'^map.txt line 2 is not `0x<guid> "<name>"`: \'not a mapping\'; fix or remove the line$'),
        ('0x0002c90300a00001 "node01"\n0x1234567890abcdef12 "x"\n', r"^map.txt line 2: '1234567890abcdef12' is longer than a 64-bit GUID"),
        ('0x1 "node01"\n0x01 "node02"\n', r"^map.txt line 2 maps 0x0000000000000001 to 'node02', line 1 to 'node01': keep one of them$"),
        (b'0x1 "node01"\n\x1f\x8b', r"^map.txt line 2: NUL byte|^map.txt is gzip"),
    ],
    ids=["not-a-mapping", "long-guid", "conflict", "binary"],
)
def test_damaged_guid_map(text, message):
    if isinstance(text, bytes):
        text = b"\x1f\x8b" + text
    with pytest.raises(FabricError, match=message):
        parse_guid_map(text, source="map.txt")


def test_read_file_names_the_file(tmp_path):
    path = tmp_path / "capture.txt"
    path.write_bytes(b"\x1f\x8b\x08\x00")
    with pytest.raises(FabricError, match="capture.txt is gzip-compressed"):
        read_file(str(path))
    with pytest.raises(FabricError, match="cannot read .*missing.txt"):
        read_file(str(tmp_path / "missing.txt"))


@pytest.mark.parametrize("seed", range(20))
def test_one_break_keeps_the_lines_of_splitlines(seed):
    rng = random.Random(seed)
    pieces = ['Switch 36 "S-0002"', '[1] "H-0001"[1]', "", " ", "\t", "ca", "é", "a\x0bb", "c\x1cd", "e\u2028f", "\x85"]
    text = "".join(rng.choice(pieces) + rng.choice(["\n", "\r\n", "\r", "\n\n", "\x0c"]) for _record in range(rng.randint(0, 60)))
    one = _one_break(text)
    lines = text.splitlines()
    assert one.split("\n")[: len(lines)] == lines
    assert not one[len("\n".join(lines)) :].strip("\n")
    for number, line in enumerate(lines, 1):
        position = sum(len(earlier) + 1 for earlier in lines[: number - 1])
        assert _line_at(one, position) == (number, line.strip())


def _farness_by_leaf_classes(targets, adjacency):
    """The plain definition of ``_farness``: one breadth-first walk over the switches per class of targets."""
    classes = {}
    for guid in targets:
        classes.setdefault(frozenset(adjacency[guid]), []).append(guid)
    total = {}
    for neighbours, members in classes.items():
        seen = set(members)
        ring = set(members)
        hops = 0
        while ring:
            for guid in ring:
                total[guid] = total.get(guid, 0) + (hops if hops else 2 if len(members) > 1 and neighbours else 0)
            ring = {peer for guid in ring for peer in adjacency[guid]} - seen
            seen |= ring
            hops += 1
    return total


@pytest.mark.parametrize("seed", range(60))
def test_farness_over_groups_is_the_plain_walk(seed):
    rng = random.Random(seed)
    switches = ["s%02d" % number for number in range(rng.randint(1, 30))]
    adjacency = {guid: set() for guid in switches}
    # A fat tree of twins (pods of leaves sharing spines, cores sharing spines), then random damage and extra cables.
    spines = switches[: len(switches) // 3]
    for guid in switches[len(switches) // 3 :]:
        for spine in rng.sample(spines, min(len(spines), rng.choice((1, 2, 2)))) if spines else ():
            adjacency[guid].add(spine)
            adjacency[spine].add(guid)
    for _cable in range(rng.randint(0, 6)):
        a, b = rng.sample(switches, 2) if len(switches) > 1 else (switches[0], switches[0])
        if a != b:
            adjacency[a].add(b)
            adjacency[b].add(a)
    targets = set(rng.sample(switches, rng.randint(1, len(switches))))
    got = _farness(targets, adjacency)
    want = _farness_by_leaf_classes(targets, adjacency)
    assert {guid: got.get(guid, 0) for guid in switches} == {guid: want.get(guid, 0) for guid in switches}


@pytest.mark.parametrize("seed", range(20))
def test_any_of_searches_like_each_pattern(seed):
    rng = random.Random(seed)
    pool = ["ufm", "storage", "^lus", "fs$", "a|b", "x.z", "[0-9]{3}", "", "(a)", "(?i)q", "we\\w+", "DDN", "\\.", "[(?]"]
    compiled = _compile(rng.sample(pool, rng.randint(1, 5)))
    combined = _any_of(compiled)
    plain = all("(" not in pattern for pattern, _regex in compiled)
    assert (combined is not None) == plain
    for host in ["ufm01", "Storage-1", "lustre", "gpfs", "x-z", "node123", "qq", "weka", "ddn", "a.b", "gpu00001", "(", "?"]:
        if combined is not None:
            assert bool(combined.search(host)) == any(regex.search(host) for _pattern, regex in compiled)


_SW = 'Switch 4 "S-00000000000000a1" # "leaf" enhanced port 0 lid 1\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # A loopback claims only its local end; a cable then claims the other end, and a third cable conflicts with that one.
        (
            _SW + '[1] "S-a1"[2] # "leaf"\n[3] "H-b1"[1] # "h1 m"\n' + _SW.replace("a1", "a2") + '[4] "S-a1"[2]\n[5] "S-a1"[2]\n',
            "line 6: port 2 of 0x00000000000000a1 is cabled to 0x00000000000000a2[5] here and to 0x00000000000000a2[4] on line 5",
        ),
        (
            _SW + '[1] "S-a1"[2] # "leaf"\n' + _SW.replace("a1", "a2") + '[4] "S-a1"[2]\n' + _SW.replace("a1", "a3") + '[4] "S-a1"[1]\n[7] "S-a1"[2]\n',
            "line 6: port 1 of 0x00000000000000a1 is cabled to 0x00000000000000a3[4] here and to 0x00000000000000a1[2] on line 2",
        ),
        # The loopback's repeat from its other end claims that end: line 3, not line 2.
        (
            _SW + '[2] "S-a1"[1] # "leaf"\n[1] "S-a1"[2]\n[1] "S-a1"[3] # "leaf" lid 1 4xNDR\n',
            "line 4: port 1 of 0x00000000000000a1 is cabled to 0x00000000000000a1[3] here and to 0x00000000000000a1[2] on line 3",
        ),
        # Port numbers past any real switch, and CRLF with a form feed (both line breaks for the numbers).
        (
            _SW + '[99999] "H-b1"[1] # "h1 m"\n[3] "H-b2"[123456789] # "h2 m"\n' + _SW.replace("a1", "a2") + '[7] "H-b2"[123456789]\n',
            "line 5: port 123456789 of 0x00000000000000b2 is cabled to 0x00000000000000a2[7] here and to 0x00000000000000a1[3] on line 3",
        ),
        (
            ("junk\n" + _SW + '[1] "H-b1"[1] # "h1"\n[2]\t"H-00000000000000b2"[1]\n\x0c' + _SW.replace("a1", "a2") + '[1] "H-b1"[1]\n').replace("\n", "\r\n"),
            "line 7: port 1 of 0x00000000000000b1 is cabled to 0x00000000000000a2[1] here and to 0x00000000000000a1[1] on line 3",
        ),
    ],
)
def test_port_cabled_twice_names_both_lines(text, message):
    with pytest.raises(FabricError) as error:
        parse(text, source="f.txt")
    assert str(error.value).startswith("f.txt " + message + ": two nodes share the GUID")


def test_natural_sorted_orders_numbers_as_numbers():
    assert natural_sorted(["leaf10", "leaf2", "Leaf3", "leaf2"]) == ["leaf2", "Leaf3", "leaf10"]
    assert natural_sorted(["gpu010", "gpu009", "gpu100"]) == ["gpu009", "gpu010", "gpu100"]  # one prefix, one width
    assert natural_sorted(["gpu10", "gpu9"]) == ["gpu9", "gpu10"]  # two widths: not plain order
    assert natural_sorted([]) == []


def test_natural_sorted_is_the_order_of_natural_key():
    """Lists of one prefix and width take a shortcut (plain sort); it must give natural_key's order, ties included."""
    rng = random.Random(11)
    prefixes = ("gpu", "GPU", "n1-", "a\u0661", "x\0", "", "rack0", "node-0")
    for _trial in range(3000):
        if rng.random() < 0.7:
            prefix, width = rng.choice(prefixes), rng.choice((1, 2, 3))
            names = ["%s%0*d" % (prefix, width, rng.randrange(10**width)) for _name in range(rng.randrange(1, 20))]
        else:
            names = ["".join(rng.choice("aB-_.09\u0661\0") for _char in range(rng.randrange(6))) for _name in range(rng.randrange(20))]
        assert natural_sorted(names) == sorted(set(names), key=ibnetdiscover.natural_key), names
