"""Unit tests for plugins/module_utils/acceptance.py: the parsers, the hardware plan and the report of playbooks/acceptance.yml."""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils.acceptance import (
    acceptance_hardware,
    acceptance_partitions,
    acceptance_report,
    acceptance_table,
    ib_write_bw_gbps,
    nccl_busbw,
)

# The shape of nccl-tests' all_reduce_perf and perftest's ib_write_bw --report_gbits output.
NCCL = """\
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
  1073741824     268435456     float     sum      -1   5897.1  182.08  341.40      0   5881.2  182.57  342.32      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 341.86
"""
IB = """\
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 4096       5000             180.20             179.95               5.491
 65536      5000             390.12             389.87               0.743621
---------------------------------------------------------------------------------------
"""
LATENCY = {"submitted": 20, "started": 20, "latency": {"p50": 0.41, "p90": 0.8, "p99": 1.2, "max": 1.2, "mean": 0.5}, "jobs_per_second": 9.5}
RESULTS = {
    "latency": LATENCY,
    "partitions": [
        {"item": {"name": "batch", "nodes": 2}, "rc": 0, "stdout_lines": ["n1", "n2"]},
        {"item": {"name": "single", "nodes": 1}, "rc": 0, "stdout_lines": ["n1"]},
    ],
    "oom_state": "OUT_OF_MEMORY",
    "cpuset": "3",
    "nccl": {"skipped": "nccl-tests not installed"},
    "ib": {"skipped": "no InfiniBand HCA"},
    "gdr": {"skipped": "no node with both GPUs and InfiniBand HCAs"},
}


def test_parsers():
    assert nccl_busbw(NCCL) == pytest.approx(341.86)
    assert ib_write_bw_gbps(IB) == pytest.approx(389.87)
    assert nccl_busbw("NCCL WARN no GPU") is None
    assert ib_write_bw_gbps("Couldn't connect to server") is None


def test_report_passes_and_skips_absent_hardware():
    report = acceptance_report(RESULTS, {"latency_p99_max_s": 5})
    assert report["passed"]
    verdicts = {item["name"]: item["verdict"] for item in report["checks"]}
    assert verdicts["submit-to-start p99"] == "pass"
    assert verdicts["partition single job"] == "pass"
    assert verdicts["NCCL all_reduce bus bandwidth"] == "skipped"
    assert verdicts["ib_write_bw"] == "skipped"
    assert verdicts["GPUDirect RDMA (nvidia_peermem)"] == "skipped"


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        ({"latency": dict(LATENCY, started=19)}, "jobs started"),
        ({"latency": dict(LATENCY, latency=dict(LATENCY["latency"], p99=6.0))}, "submit-to-start p99"),
        ({"partitions": [{"item": {"name": "batch", "nodes": 2}, "rc": 0, "stdout_lines": ["n1", "n1"]}]}, "partition batch job"),
        ({"partitions": [{"item": {"name": "batch", "nodes": 2}, "rc": 1, "stdout_lines": []}]}, "partition batch job"),
        ({"oom_state": "COMPLETED"}, "memory limit (cgroup)"),
        ({"cpuset": "0-3"}, "cpuset of a -c1 step"),
        ({"nccl": {"stdout": NCCL}}, "NCCL all_reduce bus bandwidth"),
        ({"ib": {"stdout": "error"}}, "ib_write_bw"),
        ({"gdr": {"nodes": ["n1", "n2"], "without": ["n2"]}}, "GPUDirect RDMA (nvidia_peermem)"),
    ],
)
def test_report_fails_on_each_bad_measurement(change, failing):
    report = acceptance_report(dict(RESULTS, **change), {"latency_p99_max_s": 5, "nccl_busbw_min_gbs": 400})
    assert not report["passed"]
    assert [item["name"] for item in report["checks"] if item["verdict"] == "FAIL"] == [failing]


def test_hardware_results_over_their_limits_pass():
    report = acceptance_report(dict(RESULTS, nccl={"stdout": NCCL}, ib={"stdout": IB}), {"nccl_busbw_min_gbs": 300, "ib_bw_min_gbps": 380})
    assert report["passed"]
    results = {item["name"]: item["result"] for item in report["checks"]}
    assert results["NCCL all_reduce bus bandwidth"] == "341.9 GB/s"
    assert results["ib_write_bw"] == "389.9 Gb/s"


def test_table_aligns_columns():
    lines = acceptance_table(acceptance_report(RESULTS, {"latency_p99_max_s": 5}))
    assert lines[0].split() == ["check", "result", "limit", "verdict"]
    verdict_column = lines[0].index("verdict")
    assert all(line[verdict_column:] in ("verdict", "pass", "skipped") for line in lines)
    assert lines[3].split("  ")[0] == "submit-to-start p99"
    assert lines[3].endswith("<= 5 s         pass")


def _host(tools="", gpus=0):
    return {"acceptance_node_tools": {"stdout": tools}, "slurm_node_gpus": {"type": "h200", "count": gpus} if gpus else {}}


def test_hardware_plan_needs_two_equipped_nodes():
    bare = {"n1": _host("nccl=\nib_write_bw=\nhcas="), "n2": _host("nccl=\nib_write_bw=\nhcas=")}
    assert acceptance_hardware(["n1", "n2"], bare) == {
        "nccl": {"skipped": "fewer than two nodes with GPUs"},
        "ib": {"skipped": "fewer than two nodes with InfiniBand HCAs"},
        "gdr": {"skipped": "no node with both GPUs and InfiniBand HCAs"},
    }
    half = {
        "n1": _host("nccl=/usr/bin/all_reduce_perf\nib_write_bw=/usr/bin/ib_write_bw\nhcas=mlx5_0 mlx5_1", gpus=8),
        "n2.example": _host("nccl=\nib_write_bw=/usr/bin/ib_write_bw\nhcas=mlx5_0", gpus=8),
    }
    plan = acceptance_hardware(["n1", "n2.example"], half)
    assert plan["nccl"] == {"skipped": "nccl-tests (all_reduce_perf) is not installed on two nodes with GPUs (found on: n1)"}
    assert plan["ib"] == {"nodes": ["n1", "n2"], "gpus": 8, "hca": "mlx5_0"}
    assert plan["gdr"] == {"nodes": ["n1", "n2"], "without": ["n1", "n2"]}


def test_gdr_on_every_gpu_infiniband_node():
    hosts = {
        "n1": _host("hcas=mlx5_0\ngdr=peermem", gpus=8),
        "n2": _host("hcas=mlx5_0\ngdr=", gpus=8),
        "n3": _host("hcas=\ngdr=", gpus=8),
        "n4": _host("hcas=mlx5_0\ngdr="),
    }
    plan = acceptance_hardware(["n1", "n2", "n3", "n4"], hosts)
    assert plan["gdr"] == {"nodes": ["n1", "n2"], "without": ["n2"]}
    report = acceptance_report(dict(RESULTS, gdr=plan["gdr"]), {})
    (row,) = [item for item in report["checks"] if item["name"] == "GPUDirect RDMA (nvidia_peermem)"]
    assert (row["result"], row["verdict"]) == ("on 1 of 2 GPU+InfiniBand nodes; not on n2", "FAIL")
    good = acceptance_report(dict(RESULTS, gdr={"nodes": ["n1"], "without": []}), {})
    assert good["passed"]


def test_partitions_from_sinfo():
    text = "batch*|2|up|infinite\nh200|1|up|infinite\ninteractive|2|up|1\nold|4|down|infinite"
    assert acceptance_partitions(text) == [{"name": "batch", "nodes": 2}, {"name": "h200", "nodes": 1}, {"name": "interactive", "nodes": 1}]
