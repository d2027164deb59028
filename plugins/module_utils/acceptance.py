# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers and the report table of playbooks/acceptance.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# nccl-tests prints "# Avg bus bandwidth    : 182.371" (GB/s) after its table.
_NCCL_BUSBW = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.]+)", re.MULTILINE)
# perftest's ib_write_bw --report_gbits: a header line with "BW average[Gb/sec]",
# then "#bytes #iterations BW-peak BW-average MsgRate" rows.
_IB_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$", re.MULTILINE)


def nccl_busbw(text):
    """Average bus bandwidth (GB/s) from nccl-tests output; None when absent."""
    match = _NCCL_BUSBW.search(text or "")
    return float(match.group(1)) if match else None


def ib_write_bw_gbps(text):
    """Average bandwidth (Gb/s) of the largest message in ib_write_bw --report_gbits output; None when absent."""
    if "Gb/sec" not in (text or ""):
        return None
    rows = [row for row in _IB_ROW.findall(text) if int(row[1]) > 0]
    return float(max(rows, key=lambda row: int(row[0]))[3]) if rows else None


_TOOLS = {"nccl": "nccl-tests (all_reduce_perf)", "ib": "perftest (ib_write_bw)"}


def acceptance_hardware(names, hostvars):
    """Which hardware tests can run, from each compute node's probe.

    Each host has ``acceptance_node_tools`` (the probe's ``key=value`` lines:
    ``nccl``, ``ib_write_bw``, ``hcas``, ``gdr``) and maybe ``slurm_node_gpus``.
    Returns ``{"nccl": ..., "ib": ..., "gdr": ...}``: nccl and ib each
    ``{"nodes", "gpus", "hca"}`` or ``{"skipped": why}`` (a test needs two nodes
    with the hardware and the tool); gdr ``{"nodes", "without"}``, the nodes
    with GPUs and HCAs and those of them without nvidia_peermem, or skipped.
    """
    probes = {}
    for name in names:
        lines = ((hostvars[name].get("acceptance_node_tools") or {}).get("stdout") or "").splitlines()
        probe = dict(line.split("=", 1) for line in lines if "=" in line)
        probes[name.split(".")[0]] = {
            "gpus": int((hostvars[name].get("slurm_node_gpus") or {}).get("count") or 0),
            "hcas": probe.get("hcas", "").split(),
            "nccl": probe.get("nccl", "").strip(),
            "ib": probe.get("ib_write_bw", "").strip(),
            "gdr": probe.get("gdr", "").strip() == "peermem",
        }
    plan = {}
    for key, needs, what in (("nccl", "gpus", "GPUs"), ("ib", "hcas", "InfiniBand HCAs")):
        with_hardware = sorted(name for name, probe in probes.items() if probe[needs])
        ready = [name for name in with_hardware if probes[name][key]]
        if len(with_hardware) < 2:
            plan[key] = {"skipped": "fewer than two nodes with %s" % what}
        elif len(ready) < 2:
            plan[key] = {"skipped": "%s is not installed on two nodes with %s (found on: %s)" % (_TOOLS[key], what, ", ".join(ready) or "none")}
        else:
            first = probes[ready[0]]
            plan[key] = {"nodes": ready[:2], "gpus": first["gpus"], "hca": (first["hcas"] or [""])[0]}
    # GPUDirect RDMA on every node with GPUs and InfiniBand HCAs (nvidia_peermem loaded).
    both = sorted(name for name, probe in probes.items() if probe["gpus"] and probe["hcas"])
    if both:
        plan["gdr"] = {"nodes": both, "without": [name for name in both if not probes[name]["gdr"]]}
    else:
        plan["gdr"] = {"skipped": "no node with both GPUs and InfiniBand HCAs"}
    return plan


def acceptance_partitions(text):
    """The partitions to run a job in, from ``sinfo --format=%R|%D|%a|%s``.

    Each up partition gets ``nodes``: 2, or fewer when it has only one node or
    its MaxNodes is 1. Trailing ``*`` (the default) is dropped.
    """
    partitions = []
    for line in (text or "").splitlines():
        name, count, avail, max_nodes = line.split("|")
        if avail != "up":
            continue
        limits = [2, int(count)] + ([int(max_nodes)] if max_nodes.isdigit() else [])
        partitions.append({"name": name.rstrip("*"), "nodes": min(limits)})
    return partitions


def _check(name, result, limit, ok):
    return {"name": name, "result": result, "limit": limit, "verdict": "pass" if ok else "FAIL"}


def _skipped(name, why):
    return {"name": name, "result": why, "limit": "", "verdict": "skipped"}


def acceptance_report(results, limits):
    """Verdicts from what the acceptance playbook measured.

    ``results``: ``latency`` (slurm_job_latency's result), ``partitions``
    (the loop results of one ``srun hostname`` per partition: ``item`` from
    acceptance_partitions, ``rc``, ``stdout_lines``), ``oom_state`` (the state
    of a job that outgrew its --mem), ``cpuset`` (what a -c1 step may use),
    ``nccl`` and ``ib`` (``{"skipped": why}`` or ``{"stdout": ...}``), ``gdr``
    (acceptance_hardware's).
    ``limits``: ``latency_p99_max_s``, ``nccl_busbw_min_gbs`` (GB/s) and
    ``ib_bw_min_gbps`` (Gb/s); 0 means "report only".
    """
    checks = []
    latency = results["latency"]
    p99_max = float(limits.get("latency_p99_max_s") or 0)
    started = "%d of %d jobs started" % (latency["started"], latency["submitted"])
    checks.append(_check("jobs started", started, "all", latency["started"] == latency["submitted"]))
    checks.append(_check("submit-to-start p50", "%.2f s" % latency["latency"]["p50"], "", True))
    checks.append(
        _check(
            "submit-to-start p99",
            "%.2f s" % latency["latency"]["p99"],
            "<= %g s" % p99_max if p99_max else "",
            not p99_max or latency["latency"]["p99"] <= p99_max,
        )
    )
    rate = latency.get("jobs_per_second")
    checks.append(_check("jobs started per second", "n/a" if rate is None else "%.2f" % rate, "", True))
    for run in results["partitions"]:
        partition, hosts = run["item"], sorted(set(run.get("stdout_lines") or []))
        ok = run["rc"] == 0 and len(hosts) == partition["nodes"]
        shown = "rc %d on %s" % (run["rc"], ",".join(hosts) or "no node")
        checks.append(_check("partition %s job" % partition["name"], shown, "%d nodes" % partition["nodes"], ok))
    checks.append(_check("memory limit (cgroup)", results["oom_state"], "OUT_OF_MEMORY", results["oom_state"] == "OUT_OF_MEMORY"))
    checks.append(_check("cpuset of a -c1 step", results["cpuset"] or "none", "1 CPU", bool(re.fullmatch(r"\d+", results["cpuset"] or ""))))
    for name, key, unit, parse, limit in (
        ("NCCL all_reduce bus bandwidth", "nccl", "GB/s", nccl_busbw, float(limits.get("nccl_busbw_min_gbs") or 0)),
        ("ib_write_bw", "ib", "Gb/s", ib_write_bw_gbps, float(limits.get("ib_bw_min_gbps") or 0)),
    ):
        result = results[key]
        if "skipped" in result:
            checks.append(_skipped(name, result["skipped"]))
            continue
        value = parse(result.get("stdout"))
        shown = "no result in its output" if value is None else "%.1f %s" % (value, unit)
        checks.append(_check(name, shown, ">= %g %s" % (limit, unit) if limit else "", value is not None and value >= limit))
    gdr = results["gdr"]
    if "skipped" in gdr:
        checks.append(_skipped("GPUDirect RDMA (nvidia_peermem)", gdr["skipped"]))
    else:
        shown = "on %d of %d GPU+InfiniBand nodes%s" % (
            len(gdr["nodes"]) - len(gdr["without"]),
            len(gdr["nodes"]),
            "; not on " + ",".join(gdr["without"]) if gdr["without"] else "",
        )
        checks.append(_check("GPUDirect RDMA (nvidia_peermem)", shown, "all", not gdr["without"]))
    return {"checks": checks, "passed": all(item["verdict"] != "FAIL" for item in checks), "latency": latency["latency"]}


def acceptance_table(report):
    """The report as aligned text lines: one row per measurement, its value, the limit and the verdict."""
    rows = [("check", "result", "limit", "verdict")]
    for item in report.get("checks", []):
        rows.append((item["name"], str(item["result"]), str(item.get("limit", "")), item["verdict"]))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
