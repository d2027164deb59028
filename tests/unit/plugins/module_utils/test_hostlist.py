import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress, expand


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([], ""),
        (["node01"], "node01"),
        (["node%02d" % i for i in range(1, 11)], "node[01-10]"),
        (["node01", "node02", "node03", "node05", "node07", "node08"], "node[01-03,05,07-08]"),
        (["node1", "node3"], "node[1,3]"),
        (["node9", "node10"], "node9,node10"),
        (["node8", "node9", "node10", "node11"], "node[8-9],node[10-11]"),
        (["node1", "node01"], "node1,node01"),
        (["node03", "node01", "node02", "node01"], "node[01-03]"),
        (["login", "admin"], "admin,login"),
        (["gpu2", "login", "cpu1", "gpu1"], "login,cpu1,gpu[1-2]"),
        (["node001", "node002", "node099", "node100"], "node[001-002,099-100]"),
        (["rack1-node1", "rack1-node2", "rack2-node1"], "rack1-node[1-2],rack2-node1"),
        (["node2", "node1\n"], "node1\n,node2"),
        (["node2", "node\u0661"], "node\u0661,node2"),
        (["gpu%05d" % i for i in range(64, 0, -1)], "gpu[00001-00064]"),
    ],
    ids=[
        "empty",
        "single",
        "zero-padded-01-10",
        "runs-and-singles",
        "gaps-need-brackets",
        "mixed-widths-stay-apart",
        "mixed-width-runs",
        "padded-and-unpadded-same-number",
        "unsorted-with-duplicates",
        "no-digits",
        "plain-names-first-then-groups",
        "three-digit-padding",
        "digits-inside-prefix",
        "line-break-not-dropped",
        "only-ascii-digits-count",
        "one-group-one-run",
    ],
)
def test_compress(names, expected):
    assert compress(names) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("", []),
        ("login", ["login"]),
        ("node[01-03]", ["node01", "node02", "node03"]),
        ("node[08-10]", ["node08", "node09", "node10"]),
        ("node[9-10]", ["node9", "node10"]),
        ("node[1,3,5-6]", ["node1", "node3", "node5", "node6"]),
        ("login,node[1-2],gpu7", ["login", "node1", "node2", "gpu7"]),
        ("rack[1-2]-gpu", ["rack1-gpu", "rack2-gpu"]),
        ("node[7]", ["node7"]),
    ],
    ids=[
        "empty",
        "plain",
        "padded-range",
        "padding-kept-across-decade",
        "unpadded-across-decade",
        "list-and-range",
        "top-level-commas",
        "suffix-after-bracket",
        "single-in-brackets",
    ],
)
def test_expand(expression, expected):
    assert expand(expression) == expected


@pytest.mark.parametrize(
    "names",
    [
        ["node%02d" % i for i in (1, 2, 3, 5, 8, 9, 10, 11)],
        ["node%d" % i for i in range(1, 13)],
        ["gpu1", "gpu01", "gpu001", "login", "node10", "node9"],
        ["a", "b1", "b2", "b4", "c100", "c099"],
        ["node7", "node7", "node7"],
    ],
    ids=["padded-with-gaps", "unpadded-across-decade", "mixed-widths-and-plain", "assorted", "duplicates"],
)
def test_round_trip(names):
    expanded = expand(compress(names))
    assert sorted(expanded) == sorted(set(names))
    assert len(expanded) == len(set(names))


def test_compress_orders_numbers_naturally():
    assert expand(compress(["node10", "node2", "node1", "node11"])) == ["node1", "node2", "node10", "node11"]
