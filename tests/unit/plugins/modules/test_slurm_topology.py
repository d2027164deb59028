"""Unit tests for the slurm_topology module, run in-process through the run_module fixture."""

import os
import re
import stat

import pytest

from ansible_collections.aicluster.slurm.plugins.modules import slurm_topology

HEADER = "# Managed by aicluster.slurm.slurm_topology; changes here are overwritten.\n"

SWITCHES = [
    {"name": "spine1", "switches": "leaf[1-2]"},
    {"name": "leaf1", "nodes": "gpu[001-004]"},
    {"name": "leaf2", "nodes": ["gpu005", "gpu006", "gpu007", "gpu008"]},
]
TREE_CONF = HEADER + "SwitchName=leaf1 Nodes=gpu[001-004]\nSwitchName=leaf2 Nodes=gpu[005-008]\nSwitchName=spine1 Switches=leaf[1-2]\n"

BLOCKS = [
    {"name": "rack01", "nodes": "gb[001-018]"},
    {"name": "rack02", "nodes": "gb[019-036]"},
    {"name": "rack03"},
    {"name": "rack04", "nodes": "gb[055-072]"},
]
BLOCK_CONF = (
    HEADER
    + """\
BlockName=rack01 Nodes=gb[001-018]
BlockName=rack02 Nodes=gb[019-036]
BlockName=rack03
BlockName=rack04 Nodes=gb[055-072]
BlockSizes=18,36,72
"""
)

# Two leaves under a spine, one storage host to leave out; every host also has a CA record of its own in real captures,
# one is enough to show that both sides of a link are read.
FABRIC = """\
vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8cef60300000001
switchguid=0xb8cef60300000001(b8cef60300000001)
Switch\t41 "S-b8cef60300000001"\t\t# "MF0;spine1:MQM9700/U1" enhanced port 0 lid 1 lmc 0
[1]\t"S-b8cef60300000002"[41]\t\t# "MF0;leaf1:MQM9700/U1" lid 2 4xNDR
[2]\t"S-b8cef60300000003"[41]\t\t# "MF0;leaf2:MQM9700/U1" lid 3 4xNDR

vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8cef60300000002
switchguid=0xb8cef60300000002(b8cef60300000002)
Switch\t41 "S-b8cef60300000002"\t\t# "MF0;leaf1:MQM9700/U1" enhanced port 0 lid 2 lmc 0
[1]\t"H-a088c20300000011"[1](a088c20300000011) \t\t# "gpu001 mlx5_0" lid 11 4xNDR
[2]\t"H-a088c20300000012"[1](a088c20300000012) \t\t# "gpu002 mlx5_0" lid 12 4xNDR
[3]\t"H-a088c20300000019"[1](a088c20300000019) \t\t# "storage01 mlx5_0" lid 19 4xNDR
[41]\t"S-b8cef60300000001"[1]\t\t# "MF0;spine1:MQM9700/U1" lid 1 4xNDR

vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8cef60300000003
switchguid=0xb8cef60300000003(b8cef60300000003)
Switch\t41 "S-b8cef60300000003"\t\t# "MF0;leaf2:MQM9700/U1" enhanced port 0 lid 3 lmc 0
[1]\t"H-a088c20300000013"[1](a088c20300000013) \t\t# "gpu003 mlx5_0" lid 13 4xNDR
[2]\t"H-a088c20300000014"[1](a088c20300000014) \t\t# "gpu004 mlx5_0" lid 14 4xNDR
[41]\t"S-b8cef60300000001"[2]\t\t# "MF0;spine1:MQM9700/U1" lid 1 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0xa088c20300000011
caguid=0xa088c20300000011
Ca\t1 "H-a088c20300000011"\t\t# "gpu001 mlx5_0"
[1](a088c20300000011) \t"S-b8cef60300000002"[1]\t\t# lid 11 lmc 0 "MF0;leaf1:MQM9700/U1" lid 2 4xNDR
"""
FABRIC_CONF = HEADER + "SwitchName=leaf1 Nodes=gpu[001-002]\nSwitchName=leaf2 Nodes=gpu[003-004]\nSwitchName=spine1 Switches=leaf[1-2]\n"


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def dest(tmp_path):
    directory = tmp_path / "slurm"
    directory.mkdir()
    return directory / "topology.conf"


@pytest.fixture
def run(run_module):
    """``run(check_mode=False, diff=False, **args)`` -> slurm_topology's result."""

    def run_topology(check_mode=False, diff=False, **args):
        if diff:
            args["_ansible_diff"] = True
        return run_module(slurm_topology.main, args, check_mode=check_mode)

    return run_topology


@pytest.fixture
def fabric_file(tmp_path):
    pytest.importorskip("ansible_collections.aicluster.slurm.plugins.module_utils.ibnetdiscover")
    path = tmp_path / "fabric.ibnetdiscover"
    path.write_text(FABRIC)
    return path


# --- writing the file --------------------------------------------------------------------


def test_creates_file_with_exact_content(run, dest):
    result = run(dest=str(dest), switches=SWITCHES, nodes=["gpu[001-008]"])
    assert result["changed"] is True
    assert dest.read_text() == TREE_CONF
    assert result["content"] == TREE_CONF
    assert result["dest"] == str(dest)
    assert result["summary"] == {"levels": 2, "switches": 3, "leaf_switches": 2, "nodes": 8}
    assert result["warnings"] == []
    assert result["excluded"] == []
    assert mode_of(dest) == 0o644, "a new file follows the umask like any file Ansible creates"


def test_second_run_is_unchanged(run, dest):
    assert run(dest=str(dest), switches=SWITCHES)["changed"] is True
    inode = os.stat(dest).st_ino
    result = run(dest=str(dest), switches=SWITCHES)
    assert result["changed"] is False
    assert os.stat(dest).st_ino == inode, "an unchanged file must not be rewritten"
    assert dest.read_text() == TREE_CONF


def test_switch_order_does_not_change_the_file(run, dest):
    run(dest=str(dest), switches=SWITCHES)
    assert run(dest=str(dest), switches=SWITCHES[::-1])["changed"] is False


def test_new_content_replaces_file_atomically(run, dest):
    dest.write_text("SwitchName=old Nodes=x1\n")
    inode = os.stat(dest).st_ino
    result = run(dest=str(dest), switches=SWITCHES)
    assert result["changed"] is True
    assert dest.read_text() == TREE_CONF
    assert os.stat(dest).st_ino != inode, "the new file is moved into place, not written over the old one"
    assert [p.name for p in dest.parent.iterdir()] == ["topology.conf"], "no temporary file is left behind"


@pytest.mark.parametrize("existing", [None, "SwitchName=old Nodes=x1\n"], ids=["missing-file", "other-content"])
def test_check_mode_reports_change_and_writes_nothing(run, dest, existing):
    if existing is not None:
        dest.write_text(existing)
    result = run(check_mode=True, dest=str(dest), switches=SWITCHES)
    assert result["changed"] is True
    assert result["content"] == TREE_CONF
    if existing is None:
        assert not dest.exists()
    else:
        assert dest.read_text() == existing
    assert [p.name for p in dest.parent.iterdir()] == ([] if existing is None else ["topology.conf"])


def test_check_mode_on_current_file_is_unchanged(run, dest):
    dest.write_text(TREE_CONF)
    assert run(check_mode=True, dest=str(dest), switches=SWITCHES)["changed"] is False


@pytest.mark.parametrize("existing", ["", "SwitchName=old Nodes=x1\n"], ids=["missing-file", "other-content"])
def test_diff_has_before_and_after(run, dest, existing):
    if existing:
        dest.write_text(existing)
    result = run(diff=True, dest=str(dest), switches=SWITCHES)
    assert result["diff"] == {"before": existing, "after": TREE_CONF, "before_header": str(dest), "after_header": str(dest)}


def test_no_diff_unless_asked(run, dest):
    assert "diff" not in run(dest=str(dest), switches=SWITCHES)


@pytest.mark.parametrize(("mode", "expected"), [("0640", 0o640), ("u=rw,g=r,o=", 0o640), ("0600", 0o600)], ids=["octal-0640", "symbolic", "octal-0600"])
def test_mode_from_file_common_args(run, dest, mode, expected):
    result = run(dest=str(dest), switches=SWITCHES, mode=mode)
    assert result["changed"] is True
    assert mode_of(dest) == expected


def test_mode_change_alone_is_a_change(run, dest):
    run(dest=str(dest), switches=SWITCHES, mode="0644")
    result = run(dest=str(dest), switches=SWITCHES, mode="0600")
    assert result["changed"] is True
    assert mode_of(dest) == 0o600
    assert run(dest=str(dest), switches=SWITCHES, mode="0600")["changed"] is False


def test_backup_keeps_the_old_file(run, dest):
    dest.write_text("SwitchName=old Nodes=x1\n")
    result = run(dest=str(dest), switches=SWITCHES, backup=True)
    assert dest.read_text() == TREE_CONF
    with open(result["backup_file"]) as handle:
        assert handle.read() == "SwitchName=old Nodes=x1\n"


# --- validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("switches", "msg"),
    [
        (
            [{"name": "spine1", "switches": "leaf[1-3]"}, {"name": "leaf1", "nodes": "gpu001"}, {"name": "leaf2", "nodes": "gpu002"}],
            "invalid topology: switch spine1 has child switch leaf3, which is not defined",
        ),
        (
            [{"name": "leaf1", "nodes": "gpu001"}, {"name": "leaf1", "nodes": "gpu002"}],
            "invalid topology: switch leaf1 is defined twice (slurmctld: 'Switch (leaf1) has already been defined')",
        ),
        (
            [{"name": "spine1", "switches": "spine2"}, {"name": "spine2", "switches": "spine1,leaf1"}, {"name": "leaf1", "nodes": "gpu001"}],
            "invalid topology: switches spine1, spine2 form a cycle: slurmctld stops with 'Switch configuration is not a tree'",
        ),
        (
            [{"name": "spine1", "switches": "leaf1", "nodes": "gpu009"}, {"name": "leaf1", "nodes": "gpu001"}],
            "invalid topology: switch spine1 has both child switches and nodes; a switch lists one or the other",
        ),
    ],
    ids=["unknown-child", "duplicate-switch", "cycle", "nodes-and-switches"],
)
def test_invalid_tree_fails_and_writes_nothing(run, dest, switches, msg):
    dest.write_text("SwitchName=old Nodes=x1\n")
    result = run(dest=str(dest), switches=switches)
    assert result["failed"] is True
    assert result["msg"] == msg
    assert result["errors"] == [msg[len("invalid topology: ") :]]
    assert dest.read_text() == "SwitchName=old Nodes=x1\n"
    assert [p.name for p in dest.parent.iterdir()] == ["topology.conf"]


def test_every_error_is_in_the_message(run, dest):
    switches = [{"name": "spine1", "switches": "leaf[1-2]"}, {"name": "leaf1", "nodes": "gpu001"}, {"name": "leaf2"}, {"name": "spine1", "switches": "leaf1"}]
    result = run(dest=str(dest), switches=switches)
    assert result["failed"] is True
    assert result["errors"] == [
        "switch spine1 is defined twice (slurmctld: 'Switch (spine1) has already been defined')",
        "switch leaf2 has neither nodes nor switches; Slurm before 25.05 rejects empty leaf switches",
    ]
    assert result["msg"] == "invalid topology: " + "; ".join(result["errors"])
    assert not dest.exists()


def test_empty_leaf_is_written_for_25_05(run, dest):
    switches = [{"name": "spine1", "switches": "leaf[1-2]"}, {"name": "leaf1", "nodes": "gpu001"}, {"name": "leaf2"}]
    result = run(dest=str(dest), switches=switches, slurm_version="25.05")
    assert result["changed"] is True
    assert dest.read_text() == HEADER + "SwitchName=leaf1 Nodes=gpu001\nSwitchName=leaf2\nSwitchName=spine1 Switches=leaf[1-2]\n"


WARNED = {"switches": SWITCHES, "nodes": ["gpu[001-010]"]}


def test_warning_is_returned_and_the_file_written(run, dest):
    result = run(dest=str(dest), **WARNED)
    assert result["changed"] is True
    assert len(result["warnings"]) == 1
    assert "2 slurm.conf nodes are under no switch (gpu[009-010])" in result["warnings"][0]
    assert dest.read_text() == TREE_CONF


def test_strict_turns_a_warning_into_failure(run, dest):
    result = run(dest=str(dest), strict=True, **WARNED)
    assert result["failed"] is True
    assert result["msg"].startswith("strict: 2 slurm.conf nodes are under no switch (gpu[009-010])")
    assert result["warnings"] == [result["msg"][len("strict: ") :]]
    assert not dest.exists()


def test_strict_without_warnings_writes(run, dest):
    result = run(dest=str(dest), strict=True, switches=SWITCHES, nodes=["gpu[001-008]"])
    assert result["changed"] is True
    assert dest.read_text() == TREE_CONF


# --- formats and versions -------------------------------------------------------------------


def test_blocks_render_as_topology_block(run, dest):
    result = run(dest=str(dest), format="block", blocks=BLOCKS, block_sizes=[18, 36, 72], slurm_version="25.05")
    assert result["changed"] is True
    assert dest.read_text() == BLOCK_CONF
    assert result["summary"] == {"levels": 1, "blocks": 4, "placeholders": 1, "nodes": 54}


def test_invalid_blocks_fail_and_write_nothing(run, dest):
    blocks = [{"name": "rack01", "nodes": "gb[001-018]"}, {"name": "rack02", "nodes": "gb[018-036]"}]
    result = run(dest=str(dest), format="block", blocks=blocks, block_sizes=[18, 36])
    assert result["failed"] is True
    assert "nodes gb018 are in more than one block (e.g. gb018 in rack01, rack02)" in result["errors"]
    assert "blocks rack02 hold more nodes than the base block size 18" in result["errors"]
    assert not dest.exists()


@pytest.mark.parametrize(
    ("args", "msg"),
    [
        (
            {"format": "block", "switches": SWITCHES},
            "format block needs blocks (NVLink domains or racks); a switch tree renders as tree or yaml",
        ),
        ({"format": "tree", "blocks": BLOCKS, "block_sizes": [18]}, "blocks render as format block or yaml, not tree"),
        (
            {"format": "yaml", "slurm_version": "24.11", "switches": SWITCHES},
            "format yaml needs Slurm 25.05 or later, slurm_version is 24.11; use format tree",
        ),
        (
            {"format": "block", "slurm_version": "23.11", "blocks": BLOCKS, "block_sizes": [18]},
            "format block needs Slurm 24.05 or later, slurm_version is 23.11; use format tree or upgrade Slurm",
        ),
        ({"slurm_version": "latest", "switches": SWITCHES}, "slurm_version 'latest' is not a Slurm version such as 24.11 or 25.05"),
    ],
    ids=["block-from-switches", "tree-from-blocks", "yaml-on-24.11", "block-on-23.11", "garbage-version"],
)
def test_format_and_source_mismatch_fails(run, dest, args, msg):
    result = run(dest=str(dest), **args)
    assert result["failed"] is True
    assert result["msg"] == msg
    assert not dest.exists()


def test_yaml_with_tree_and_flat_topologies(run, tmp_path):
    dest = tmp_path / "topology.yaml"
    result = run(dest=str(dest), format="yaml", slurm_version="25.05", switches=SWITCHES, topology_name="ib", extra_flat_topologies=["cpu"])
    assert result["changed"] is True
    assert dest.read_text() == HEADER + (
        "- topology: ib\n"
        "  cluster_default: true\n"
        "  tree:\n"
        "    switches:\n"
        "      - switch: leaf1\n"
        "        nodes: gpu[001-004]\n"
        "      - switch: leaf2\n"
        "        nodes: gpu[005-008]\n"
        "      - switch: spine1\n"
        "        children: leaf[1-2]\n"
        "- topology: cpu\n"
        "  cluster_default: false\n"
        "  flat: true\n"
    )


def test_yaml_with_blocks(run, tmp_path):
    dest = tmp_path / "topology.yaml"
    run(dest=str(dest), format="yaml", slurm_version="25.05", blocks=BLOCKS[:2], block_sizes=[18, 36])
    assert dest.read_text() == HEADER + (
        "- topology: default\n"
        "  cluster_default: true\n"
        "  block:\n"
        "    block_sizes: [18, 36]\n"
        "    blocks:\n"
        "      - block: rack01\n"
        "        nodes: gb[001-018]\n"
        "      - block: rack02\n"
        "        nodes: gb[019-036]\n"
    )


def test_yaml_flat_name_clash_fails(run, tmp_path):
    dest = tmp_path / "topology.yaml"
    result = run(dest=str(dest), format="yaml", slurm_version="25.05", switches=SWITCHES, extra_flat_topologies=["default"])
    assert result["failed"] is True
    assert result["msg"] == "topology names must be unique, got default, default"
    assert not dest.exists()


# --- diagram ------------------------------------------------------------------------------


def test_diagram_writes_dot_with_the_edges(run, dest, tmp_path):
    diagram = tmp_path / "topology.dot"
    result = run(dest=str(dest), switches=SWITCHES, diagram=str(diagram))
    assert result["changed"] is True
    dot = diagram.read_text()
    assert dot.startswith("digraph topology {\n")
    assert dot.endswith("}\n")
    for edge in ['"spine1" -> "leaf1";', '"spine1" -> "leaf2";', '"leaf1" -> "leaf1:nodes";', '"leaf2" -> "leaf2:nodes";']:
        assert "  %s\n" % edge in dot
    assert 'label="gpu[001-004]\\n(4 nodes)"' in dot
    assert run(dest=str(dest), switches=SWITCHES, diagram=str(diagram))["changed"] is False


def test_diagram_alone_is_a_change(run, dest, tmp_path):
    run(dest=str(dest), switches=SWITCHES)
    diagram = tmp_path / "topology.dot"
    assert run(dest=str(dest), switches=SWITCHES, diagram=str(diagram))["changed"] is True
    assert diagram.exists()


def test_check_mode_writes_no_diagram(run, dest, tmp_path):
    diagram = tmp_path / "topology.dot"
    result = run(check_mode=True, dest=str(dest), switches=SWITCHES, diagram=str(diagram))
    assert result["changed"] is True
    assert not diagram.exists()
    assert not dest.exists()


def test_check_mode_reports_a_diagram_change(run, dest, tmp_path):
    dest.write_text(TREE_CONF)
    diagram = tmp_path / "topology.dot"
    assert run(check_mode=True, dest=str(dest), switches=SWITCHES, diagram=str(diagram))["changed"] is True


def test_missing_directory_fails_cleanly(run, tmp_path):
    result = run(dest=str(tmp_path / "missing" / "topology.conf"), switches=SWITCHES)
    assert result["failed"] is True


# --- ibnetdiscover source (needs module_utils/ibnetdiscover.py) --------------------------


def test_ibnetdiscover_file_becomes_a_tree(run, dest, fabric_file):
    result = run(dest=str(dest), ibnetdiscover=str(fabric_file), exclude=["^storage"])
    assert result["changed"] is True
    assert dest.read_text() == FABRIC_CONF
    assert [entry["endpoint"] for entry in result["excluded"]] == ['"storage01 mlx5_0" (0xa088c20300000019)']
    assert result["summary"] == {"levels": 2, "switches": 3, "leaf_switches": 2, "nodes": 4}


def test_ibnetdiscover_run_reads_the_command_output(run, dest, monkeypatch, fabric_file):
    calls = []

    def run_command(self, args, **kwargs):
        calls.append(args)
        return 0, FABRIC, ""

    monkeypatch.setattr(slurm_topology.AnsibleModule, "get_bin_path", lambda self, name, required=False, opt_dirs=None: "/usr/sbin/" + name)
    monkeypatch.setattr(slurm_topology.AnsibleModule, "run_command", run_command)
    result = run(dest=str(dest), ibnetdiscover_run=True, exclude=["^storage"])
    assert calls == [["/usr/sbin/ibnetdiscover"]]
    assert dest.read_text() == FABRIC_CONF
    assert result["changed"] is True


def test_ibnetdiscover_run_failure_is_reported(run, dest, monkeypatch, fabric_file):
    monkeypatch.setattr(slurm_topology.AnsibleModule, "get_bin_path", lambda self, name, required=False, opt_dirs=None: "/usr/sbin/" + name)
    monkeypatch.setattr(slurm_topology.AnsibleModule, "run_command", lambda self, args, **kwargs: (1, "", "ibwarn: mad_rpc_open_port failed\n"))
    result = run(dest=str(dest), ibnetdiscover_run=True)
    assert result["failed"] is True
    assert result["msg"] == "ibnetdiscover failed (rc=1): ibwarn: mad_rpc_open_port failed"
    assert not dest.exists()


def test_unreadable_ibnetdiscover_file_fails(run, dest, tmp_path, fabric_file):
    result = run(dest=str(dest), ibnetdiscover=str(tmp_path / "nope"))
    assert result["failed"] is True
    assert result["msg"].startswith("ibnetdiscover: cannot read %s:" % (tmp_path / "nope"))
    assert not dest.exists()


def test_ibnetdiscover_tree_with_strict_fails_on_unknown_nodes(run, dest, fabric_file):
    result = run(dest=str(dest), ibnetdiscover=str(fabric_file), exclude=["^storage"], nodes=["gpu[001-003]"], strict=True)
    assert result["failed"] is True
    assert "gpu004" in result["msg"]
    assert not dest.exists()


def test_ibnetdiscover_returns_and_prints_dropped_counts(run, dest, fabric_file):
    result = run(dest=str(dest), ibnetdiscover=str(fabric_file))
    # storage01 is an appliance by the default patterns: counted, never a node.
    assert result["dropped"]["appliance"] == 1
    assert sum(result["dropped"].values()) == 1
    assert "storage01" not in dest.read_text()
    assert "not rendered as nodes: 1 adapters (1 appliance); `excluded` lists each with its reason" in result["warnings"]
    assert result["rails"] == {"mlx5_0": 4}
    assert result["dropped_switches"] == {"empty_leaf": 0, "no_host_below": 0, "unreached": 0}


def test_strict_with_hca_names_passes_on_a_multi_rail_fabric(run, dest, tmp_path):
    """The module's EXAMPLES: one rail per host by preference, fabric findings never fail strict."""
    second = FABRIC.replace('"gpu001 mlx5_0" lid 11', '"gpu001 mlx5_0" lid 11').replace(
        '[3]\t"H-a088c20300000019"[1](a088c20300000019) \t\t# "storage01 mlx5_0" lid 19 4xNDR',
        '[3]\t"H-a088c20300000021"[1](a088c20300000021) \t\t# "gpu003 mlx5_1" lid 21 4xNDR',
    )
    path = tmp_path / "rails.ibnetdiscover"
    path.write_text(second)
    result = run(dest=str(dest), ibnetdiscover=str(path), hca_names=["mlx5_0", "HCA-1"], strict=True, nodes=["gpu[001-004]"])
    assert result.get("failed") is not True, result
    assert result["dropped"]["other_rail"] == 1
    assert result["summary"]["nodes"] == 4
    assert "SwitchName=leaf2 Nodes=gpu[003-004]\n" in dest.read_text()
    assert not any("several leaf switches" in text for text in result["warnings"])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x1f\x8b\x08\x00", r"^ibnetdiscover: .*capture is gzip-compressed, not ibnetdiscover text: gunzip it first$"),
        (FABRIC.encode().replace(b"\nvendid", b"\n\x00vendid", 1), r"^ibnetdiscover: .*capture line \d+: NUL byte, this is a binary file"),
        (FABRIC.encode() + FABRIC.encode()[: FABRIC.index("Switch") + 40], r"^ibnetdiscover: .*capture line \d+: duplicate GUID 0xb8cef60300000001"),
    ],
    ids=["gzip", "binary", "duplicate-guid"],
)
def test_damaged_capture_fails_naming_the_file(run, dest, tmp_path, data, message, fabric_file):
    path = tmp_path / "capture"
    path.write_bytes(data)
    result = run(dest=str(dest), ibnetdiscover=str(path))
    assert result["failed"] is True
    assert str(path) in result["msg"]
    assert re.match(message, result["msg"]), result["msg"]
    assert not dest.exists()


def test_non_utf8_capture_is_read_with_a_warning(run, dest, tmp_path, fabric_file):
    path = tmp_path / "latin1"
    path.write_bytes(FABRIC.encode().replace(b"MF0;spine1:MQM9700/U1", b"MF0;spine1:MQM9700/U1 caf\xe9", 1))
    result = run(dest=str(dest), ibnetdiscover=str(path))
    assert result.get("failed") is not True, result
    assert result["warnings"][0].startswith("%s line 5: byte 0xe9 is not UTF-8" % path)


def test_malformed_guid_map_fails_naming_file_and_line(run, dest, tmp_path, fabric_file):
    path = tmp_path / "map"
    path.write_text('0xa088c20300000011 "gpu001"\n0xzz nonsense\n')
    result = run(dest=str(dest), ibnetdiscover=str(fabric_file), guid_map=str(path))
    assert result["failed"] is True
    assert result["msg"].startswith('ibnetdiscover: %s line 2 is not `0x<guid> "<name>"`' % path)
