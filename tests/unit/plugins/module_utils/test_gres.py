import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.gres import (
    GresError,
    exclusive_nodes,
    gpu_types,
    gres_lines,
    node_gres,
    normalize_gpus,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"type": "h200", "count": 8}, {"type": "h200", "count": 8, "file": "/dev/nvidia[0-7]", "files": ["/dev/nvidia%d" % i for i in range(8)]}),
        ({"type": "a100", "count": 1}, {"type": "a100", "count": 1, "file": "/dev/nvidia0", "files": ["/dev/nvidia0"]}),
        ({"type": "h200", "count": "2"}, {"type": "h200", "count": 2, "file": "/dev/nvidia[0-1]", "files": ["/dev/nvidia0", "/dev/nvidia1"]}),
        ({"type": "l40s", "file": "/dev/nvidia[2-3]"}, {"type": "l40s", "count": 2, "file": "/dev/nvidia[2-3]", "files": ["/dev/nvidia2", "/dev/nvidia3"]}),
        (
            {"type": "b200", "count": 2, "file": "/dev/nvidia[0,4]"},
            {"type": "b200", "count": 2, "file": "/dev/nvidia[0,4]", "files": ["/dev/nvidia0", "/dev/nvidia4"]},
        ),
    ],
    ids=["count", "one", "count-as-text", "file-gives-count", "file-list"],
)
def test_normalize_gpus(value, expected):
    assert normalize_gpus("n1", value) == expected


@pytest.mark.parametrize("value", [None, {}], ids=["none", "empty"])
def test_normalize_gpus_none(value):
    assert normalize_gpus("n1", value) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("h200:8", r"slurm_node_gpus='h200:8' must be a dict"),
        ({"type": "h200", "count": 8, "cores": "0-7"}, "unknown keys cores"),
        ({"count": 8}, r"slurm_node_gpus.type=None is not a GRES type"),
        ({"type": "H200", "count": 8}, r"slurm_node_gpus.type='H200' is not a GRES type; use a lower-case"),
        ({"type": "h200:sxm", "count": 8}, "is not a GRES type"),
        ({"type": "h200"}, r"slurm_node_gpus.count=None must be a whole number"),
        ({"type": "h200", "count": 0}, r"count=0 must be a whole number of GPUs, 1 or more"),
        ({"type": "h200", "count": True}, r"count=True must be"),
        ({"type": "h200", "count": "eight"}, r"count='eight' must be"),
        ({"type": "h200", "count": 8, "file": "/dev/nvidia[0-3]"}, r"count=8 but file=/dev/nvidia\[0-3\] names 4 devices"),
        ({"type": "h200", "file": "nvidia0"}, r"file='nvidia0' is not a device path"),
        ({"type": "h200", "file": "/dev/nvidia[a-b]"}, r"is not a valid range"),
    ],
    ids=["not-dict", "unknown-key", "no-type", "upper-case", "colon", "no-count", "zero", "bool", "word", "count-vs-file", "relative", "bad-range"],
)
def test_normalize_gpus_errors_name_host_variable_and_value(value, message):
    with pytest.raises(GresError, match=message) as err:
        normalize_gpus("gpu07", value)
    assert str(err.value).startswith("host gpu07: ")


def test_node_gres():
    assert node_gres(normalize_gpus("n", {"type": "h200", "count": 8})) == "gpu:h200:8"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("gpu:h200:8", ["h200"]), ("gpu:8", []), ("gpu:H100:4,nic:1", ["h100"]), ("", []), (None, []), ("gpu:a100:2,gpu:l4:1", ["a100", "l4"])],
    ids=["typed", "untyped", "with-other-gres", "empty", "none", "two-types"],
)
def test_gpu_types(value, expected):
    assert gpu_types(value) == expected


def test_gres_lines_group_identical_declarations():
    h200 = normalize_gpus("a", {"type": "h200", "count": 8})
    l40s = normalize_gpus("c", {"type": "l40s", "count": 2})
    assert gres_lines({"gpu2": h200, "gpu1": h200, "inf1": l40s, "cpu1": None}) == [
        "NodeName=gpu[1-2] Name=gpu Type=h200 File=/dev/nvidia[0-7]",
        "NodeName=inf1 Name=gpu Type=l40s File=/dev/nvidia[0-1]",
    ]


def test_gres_lines_same_type_other_devices_split():
    four = normalize_gpus("a", {"type": "h200", "count": 4})
    eight = normalize_gpus("b", {"type": "h200", "count": 8})
    assert gres_lines({"n1": four, "n2": eight}) == [
        "NodeName=n1 Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=n2 Name=gpu Type=h200 File=/dev/nvidia[0-7]",
    ]


def test_exclusive_nodes():
    nodes = {
        "h": {"Gres": "gpu:h200:8"},
        "mixed": {"Gres": "gpu:h200:4,gpu:l4:1"},
        "l": {"Gres": "gpu:l40s:2"},
        "untyped": {"Gres": "gpu:2"},
        "cpu": {},
    }
    assert exclusive_nodes(nodes, ["H200", "a100"]) == {"h"}
    assert exclusive_nodes(nodes, []) == set()
