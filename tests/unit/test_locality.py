# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench/locality.py: leaf switches a job uses against the fewest possible."""

import json

from repo_scripts import load

locality = load("bench/locality.py")

# `scontrol show topology` lists every switch with all the nodes beneath it.
SCONTROL = """\
SwitchName=core Level=2 LinkSpeed=1 Nodes=n[01-16] Switches=spine[1-2]
SwitchName=spine1 Level=1 LinkSpeed=1 Nodes=n[01-08] Switches=leaf[1-2]
SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=n[01-04]
SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=n[05-08]
SwitchName=spine2 Level=1 LinkSpeed=1 Nodes=n[09-16] Switches=leaf[3-4]
SwitchName=leaf3 Level=0 LinkSpeed=1 Nodes=n[09-12]
SwitchName=leaf4 Level=0 LinkSpeed=1 Nodes=n[13-16]
"""
TOPOLOGY_CONF = """\
# topology.conf
SwitchName=leaf1 Nodes=n[01-04]
SwitchName=leaf2 Nodes=n[05-08]
SwitchName=spine1 Switches=leaf[1-2]
"""


def test_leaves_are_level_zero_switches_only():
    by_leaf = locality.leaves(SCONTROL)
    assert sorted(by_leaf) == ["leaf1", "leaf2", "leaf3", "leaf4"]
    assert by_leaf["leaf3"] == ["n09", "n10", "n11", "n12"]


def test_leaves_from_topology_conf():
    assert sorted(locality.leaves(TOPOLOGY_CONF)) == ["leaf1", "leaf2"]


def test_minimum_counts_the_fullest_leaves_first():
    by_leaf = locality.leaves(SCONTROL)
    free = ["n02", "n03", "n04", "n06", "n07", "n08"] + ["n%02d" % i for i in range(9, 17)]
    assert locality.minimum_leaves(8, free, by_leaf) == 2
    assert locality.minimum_leaves(9, free, by_leaf) == 3
    assert locality.minimum_leaves(15, free, by_leaf) is None


def test_blockers_keep_one_pod_partly_free():
    by_leaf = locality.leaves(SCONTROL)
    # Two leaves kept: leaf1 half occupied, leaf2 free; leaf3 and leaf4 occupied whole.
    assert locality.blockers(by_leaf, 2, 1, 2) == ["n01", "n02"] + ["n%02d" % i for i in range(9, 17)]
    assert locality.blockers(by_leaf, 1, 2, 4) == ["n01", "n05"]


def test_check_reports_used_and_minimum(tmp_path, capsys):
    topology = tmp_path / "topology"
    topology.write_text(SCONTROL)
    # The lowest-numbered free nodes: three leaves where two (leaf3, leaf4) would do.
    assert locality.main(["check", "--topology", str(topology), "--job", "n[02-04,06-08,09-10]", "--free", "n[02-04,06-16]"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {"used": 3, "leaves": ["leaf1", "leaf2", "leaf3"], "minimum": 2, "lowest_free": 3}
    assert locality.main(["check", "--topology", str(topology), "--job", "n[09-16]", "--free", "n[02-04,06-16]"]) == 0
    assert json.loads(capsys.readouterr().out)["used"] == 2
