"""Render topology.conf from real fabric captures and start a real slurmctld on each.

For every capture in ../shared/fabrics (skipped when that folder is absent):
render topology.conf with the collection's code, write a slurm.conf that
declares exactly the rendered nodes, start slurmctld 24.11 in a lab container
and require that it starts, that `scontrol show topology` lists every switch,
and that it logs no topology warning. The captures are read in place, never
copied into the collection. Then the same for topology/block: four NVL72
racks, and a missing rack, which slurmctld 24.11 refuses as our validator does.

Run: python tests/integration/topology_slurmctld.py (make topology-it).
"""

import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / ".cache" / "collections"))

from ansible_collections.aicluster.slurm.plugins.module_utils import ibnetdiscover, topology  # noqa: E402
from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress  # noqa: E402

FABRICS = ROOT.parent / "shared" / "fabrics"
IMAGE = "aicluster-slurm/trixie-systemd:1"
CONTAINER = "aicluster-topology-it"
APT_CACHE = "/var/cache/aicluster-slurm/apt/" + CONTAINER
# Which HCAs count, per capture: one rail, whichever naming the hosts use.
OPTIONS = {
    "topograph-ndr-example": {"hca_names": ["mlx5_0", "HCA-1"]},
    "hpc_toolset-qdr-x5": {"guid_map": "hpc_toolset-qdr-x5.guid-map"},
    # Its HCAs carry only model names and it ships no map: name them node01.. as a site's map would.
    "ibtopotool-1": {"guid_map": None},
}
# slurmctld log lines that mean the topology is not what we meant.
BAD = ("topology", "switches lack access", "multiple leaf switches", "invalid hostnames", "not a tree", "invalid child", "fatal")


def sh(*args, check=True, **kwargs):
    return subprocess.run(args, check=check, capture_output=True, text=True, **kwargs)


def dexec(script, check=True):
    return sh("docker", "exec", CONTAINER, "bash", "-c", script, check=check)


def start_container():
    sh("docker", "rm", "-f", CONTAINER, check=False)
    pathlib.Path(APT_CACHE, "partial").mkdir(parents=True, exist_ok=True)
    sh("docker", "run", "-d", "--name", CONTAINER, "--hostname", "ctl", "-v", APT_CACHE + ":/var/cache/apt/archives", IMAGE, "sleep", "infinity")
    dexec(
        "export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq --no-install-recommends slurmctld munge >/dev/null 2>&1 "
        "|| (apt-get update -qq && apt-get install -y -qq --no-install-recommends slurmctld munge >/dev/null)"
    )
    dexec("mkdir -p /run/munge && chown munge: /run/munge && su -s /bin/sh munge -c /usr/sbin/munged")


def render(capture):
    opts = dict(OPTIONS.get(capture.stem, {}))
    fabric = ibnetdiscover.parse(capture.read_text())
    guid_map = None
    if "guid_map" in opts:
        map_file = opts.pop("guid_map")
        if map_file:
            guid_map = ibnetdiscover.parse_guid_map((FABRICS / map_file).read_text())
        else:
            cas = sorted(guid for guid, node in fabric.nodes.items() if node.kind == "ca")
            guid_map = {guid: "node%02d" % index for index, guid in enumerate(cas, 1)}
    result = ibnetdiscover.to_tree(fabric, guid_map=guid_map, **opts)
    tree = result["switches"]
    nodes = sorted({n for s in tree.values() for n in s["nodes"]})
    errors, warnings = topology.validate_tree(tree, known_nodes=nodes)
    if errors:
        raise AssertionError("%s: our validator rejects our own rendering: %s" % (capture.name, errors))
    return tree, nodes, warnings, result


def slurm_conf(nodes, plugin="topology/tree"):
    return "\n".join(
        [
            "ClusterName=topoit",
            "SlurmctldHost=ctl",
            "SlurmUser=slurm",
            "AuthType=auth/munge",
            "StateSaveLocation=/var/lib/slurm/slurmctld",
            "SelectType=select/cons_tres",
            "TopologyPlugin=%s" % plugin,
            "NodeName=%s CPUs=1 State=FUTURE" % compress(nodes),
            "",
        ]
    )


def start_slurmctld(topology_lines, nodes, plugin):
    """Start slurmctld on this topology; return (log, `scontrol show topology` lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        pathlib.Path(tmp, "topology.conf").write_text("\n".join(topology_lines) + "\n")
        pathlib.Path(tmp, "slurm.conf").write_text(slurm_conf(nodes, plugin))
        for name in ("topology.conf", "slurm.conf"):
            sh("docker", "cp", str(pathlib.Path(tmp, name)), "%s:/etc/slurm/%s" % (CONTAINER, name))
    dexec("pkill -x slurmctld; sleep 1; rm -rf /var/lib/slurm/slurmctld/* /tmp/ctld.log", check=False)
    dexec("su -s /bin/sh slurm -c 'slurmctld -i -L /tmp/ctld.log'")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "UP" not in dexec("scontrol ping", check=False).stdout:
        time.sleep(1)
    shown = dexec("scontrol show topology", check=False).stdout
    log = dexec("cat /tmp/ctld.log").stdout
    dexec("pkill -x slurmctld", check=False)
    return log, [line for line in shown.splitlines() if line.strip()]


def problems_of(log, listed, expected):
    bad = [line for line in log.splitlines() if any(word in line.lower() for word in BAD) and "topology/" not in line.lower()]
    problems = []
    if "Running as primary controller" not in log:
        problems.append("slurmctld did not start")
    if bad:
        problems.append("topology lines in the log: %s" % bad[:5])
    if len(listed) != expected:
        problems.append("scontrol show topology lists %d entries, we wrote %d" % (len(listed), expected))
    return problems


def check(capture):
    tree, nodes, warnings, result = render(capture)
    log, shown = start_slurmctld(topology.render_tree(tree), nodes, "topology/tree")
    problems = problems_of(log, [line for line in shown if line.startswith("SwitchName=")], len(tree))
    summary = topology.summary_tree(tree)
    print(
        "%-28s switches=%-4d levels=%d nodes=%-4d excluded=%-4d our_warnings=%d slurmctld: %s"
        % (capture.stem, summary["switches"], summary["levels"], summary["nodes"], len(result["excluded"]), len(warnings), "; ".join(problems) or "ok")
    )
    return not problems


def _racks(missing=None):
    """NVL72-style racks of 18 nodes; the missing rack, if any, has no nodes."""
    return topology.blocks_from_list(
        [{"name": "rack%02d" % i, "nodes": [] if i == missing else ["gb%03d" % n for n in range((i - 1) * 18 + 1, i * 18 + 1)]} for i in range(1, 5)]
    )


def check_blocks():
    """topology/block on 24.11: four NVL72 racks start cleanly; with a rack missing, our validator refuses the
    placeholder exactly where slurmctld 24.11 stops ("block ... hasn't got nodes")."""
    ok = True
    blocks = _racks()
    nodes = sorted(n for b in blocks for n in b["nodes"])
    errors, warnings = topology.validate_blocks(blocks, [18, 36, 72], nodes)
    log, shown = start_slurmctld(topology.render_blocks(blocks, [18, 36, 72]), nodes, "topology/block")
    problems = errors + problems_of(log, [line for line in shown if line.startswith("BlockName=")], len(blocks))
    print("%-28s blocks=%d nodes=%d our_warnings=%d slurmctld: %s" % ("nvl72-blocks", len(blocks), len(nodes), len(warnings), "; ".join(problems) or "ok"))
    ok = ok and not problems

    blocks = _racks(missing=3)
    nodes = sorted(n for b in blocks for n in b["nodes"])
    errors, warnings = topology.validate_blocks(blocks, [18, 36, 72], nodes, slurm_version="24.11")
    log, shown = start_slurmctld(topology.render_blocks(blocks, [18, 36, 72]), nodes, "topology/block")
    agree = bool(errors) and "Running as primary controller" not in log and "hasn't got nodes" in log
    print("%-28s our validator refuses it: %s; slurmctld 24.11 stops on it: %s" % ("nvl72-rack-missing", bool(errors), "hasn't got nodes" in log))
    return ok and agree


def main():
    captures = []
    if not FABRICS.is_dir():
        print("topology-it: %s is absent; only the block checks run" % FABRICS)
    for capture in sorted(FABRICS.glob("*.ibnetdiscover")) if FABRICS.is_dir() else []:
        try:
            render(capture)
            captures.append(capture)
        except ibnetdiscover.FabricError as exc:
            print("%-28s rejected as expected: %s" % (capture.stem, exc))
    start_container()
    try:
        results = [check(capture) for capture in captures] + [check_blocks()]
    finally:
        sh("docker", "rm", "-f", CONTAINER, check=False)
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
