"""Topology benchmark: parse an ibnetdiscover fabric and render topology.conf.

Generates 3-level fat trees (bench/fabric_gen.py) of 1,024 and 16,384 nodes,
and for each measures, in this one run: parse time, tree-building time
(classification, tiers), validation and rendering time, and peak Python
memory (tracemalloc). The table shows the 16k/1k ratios, which do not depend
on the machine's speed. JSON goes to bench/results/topology.json.

    python bench/topology.py            (make bench-topology)
"""

import json
import pathlib
import sys
import time
import tracemalloc

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".cache" / "collections"))
sys.path.insert(0, str(ROOT / "bench"))

import fabric_gen  # noqa: E402

from ansible_collections.aicluster.slurm.plugins.module_utils import ibnetdiscover, topology  # noqa: E402

SIZES = (1024, 16384)
RADIX = 64


def _run(text):
    t0 = time.perf_counter()
    fabric = ibnetdiscover.parse(text)
    t1 = time.perf_counter()
    result = ibnetdiscover.to_tree(fabric)
    t2 = time.perf_counter()
    tree = result["switches"]
    errors, warnings = topology.validate_tree(tree)
    content = "\n".join(topology.render_tree(tree)) + "\n"
    t3 = time.perf_counter()
    assert not errors, errors
    return tree, warnings, content, (t0, t1, t2, t3)


def measure(nodes):
    """Times from a plain run; peak memory from a second run under tracemalloc (which slows it)."""
    text = fabric_gen.generate(nodes, RADIX)
    tree, warnings, content, (t0, t1, t2, t3) = _run(text)
    tracemalloc.start()
    _run(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    summary = topology.summary_tree(tree)
    return {
        "nodes": nodes,
        "input_mib": round(len(text) / 2**20, 1),
        "switches": summary["switches"],
        "levels": summary["levels"],
        "rendered_nodes": summary["nodes"],
        "output_lines": content.count("\n"),
        "parse_s": round(t1 - t0, 3),
        "tree_s": round(t2 - t1, 3),
        "validate_render_s": round(t3 - t2, 3),
        "total_s": round(t3 - t0, 3),
        "peak_mib": round(peak / 2**20, 1),
        "warnings": len(warnings),
    }


def main():
    rows = [measure(n) for n in SIZES]
    keys = ["nodes", "input_mib", "switches", "levels", "parse_s", "tree_s", "validate_render_s", "total_s", "peak_mib"]
    print(" ".join("%17s" % k for k in keys))
    for row in rows:
        print(" ".join("%17s" % row[k] for k in keys))
    small, big = rows
    ratios = {
        "nodes": round(big["nodes"] / small["nodes"], 1),
        "total_s": round(big["total_s"] / small["total_s"], 1),
        "peak_mib": round(big["peak_mib"] / small["peak_mib"], 1),
    }
    print("ratio 16k/1k: nodes x%(nodes)s, time x%(total_s)s, peak memory x%(peak_mib)s" % ratios)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "topology.json").write_text(json.dumps({"rows": rows, "ratios": ratios}, indent=2) + "\n")
    print("written: bench/results/topology.json")


if __name__ == "__main__":
    main()
