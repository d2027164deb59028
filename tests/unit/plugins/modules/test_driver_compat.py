import datetime

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import driver_compat as dc
from ansible_collections.aicluster.slurm.plugins.module_utils import driver_compat_data as data
from ansible_collections.aicluster.slurm.plugins.modules import driver_compat

TODAY = datetime.date(2026, 1, 15)


def gpu(gres_type="h200", arch="hopper", cc="9.0", model="H200"):
    return {"gres_type": gres_type, "arch": arch, "compute_capability": cc, "model": model}


def host(gpus=(), kernel="6.12.57+deb13-amd64", switches=0, **extra):
    facts = {
        "kernel": {"release": kernel, "compiler": "gcc", "compiler_version": "14.2.0", "headers": True},
        "gcc_version": "14.2.0",
        "secure_boot": "disabled",
        "nouveau": {"loaded": False, "blacklisted": True},
        "gpus": list(gpus),
        "nvswitches": [{"pci_bus_id": "0000:0%d:00.0" % i} for i in range(switches)],
        "npus": [],
    }
    facts.update(extra)
    return facts


def ids(findings, severity=None):
    return sorted({f["id"] for f in findings if severity is None or f["severity"] == severity})


def run(request, facts):
    return dc.evaluate(request, facts, TODAY)


# ----------------------------------------------------------------- data rows


def test_every_row_has_a_source_and_tag():
    tables = [data.CUDA_DRIVER, data.CUDA_MVC_FLOOR, data.BRANCHES, data.ARCHITECTURES, data.PRODUCTS, data.KNOWN_BAD, data.CANN_HDK, data.ASCEND_OS]
    for table in tables:
        for row in table:
            assert row["source"]
            assert row["tag"] in ("V", "D", "U")
    for row in data.ASCEND_OBSERVED:
        assert row["source"]


@pytest.mark.parametrize("row", data.CUDA_DRIVER, ids=lambda row: row["cuda"])
def test_cuda_rows(row):
    major = int(row["cuda"].split(".")[0])
    floor = next(f for f in data.CUDA_MVC_FLOOR if f["major"] == major)
    findings = dc.check_cuda(row["driver"], [row["cuda"]], [])
    if dc.version_tuple(row["driver"]) < dc.version_tuple(floor["driver"]):
        # CUDA 11.0 shipped before the 450.80.02 floor NVIDIA now recommends.
        assert [f["severity"] for f in findings] == ["error"]
        return
    assert findings == []
    if dc.version_tuple(row["driver"]) > dc.version_tuple(floor["driver"]):
        below = dc.check_cuda(floor["driver"], [row["cuda"]], [])
        assert [f["severity"] for f in below] == ["warning"]


@pytest.mark.parametrize("row", data.CUDA_MVC_FLOOR, ids=lambda row: str(row["major"]))
def test_mvc_floor_rows(row):
    older = "%d.0" % (dc.version_tuple(row["driver"])[0] - 1)
    findings = run({"nvidia_driver": older + ".1", "cuda": ["%d.0" % row["major"]]}, host([gpu("a100", "ampere", "8.0", "A100")]))
    assert "NV-CUDA" in ids(findings, "error")


@pytest.mark.parametrize("row", data.BRANCHES, ids=lambda row: str(row["branch"]))
def test_branch_rows(row):
    findings = dc.check_branch("%d.10.01" % row["branch"], TODAY)
    ended = row["eol"] == "past" or (row["eol"] and row["eol"] < "2026-01")
    assert bool(findings) == bool(ended or row["type"] == "NFB")
    assert all(f["severity"] == "warning" for f in findings)


def test_branch_eol_follows_today():
    assert dc.check_branch("580.95.05", datetime.date(2028, 7, 1))[0]["id"] == "NV-EOL"
    assert dc.check_branch("580.95.05", TODAY) == []
    assert "not in the branch table" in dc.check_branch("999.1.1", TODAY)[0]["message"]


@pytest.mark.parametrize("row", data.ARCHITECTURES, ids=lambda row: row["arch"])
def test_architecture_rows(row):
    card = gpu(row["arch"], row["arch"], "8.0", row["arch"])
    good_branch = row["min_branch"] or row["max_branch"] or 570
    flavour = "proprietary" if row["flavour"] == "proprietary_required" else "open"
    assert dc.check_gpu_rules("%d.100.01" % good_branch, flavour, [card]) == []
    if row["min_branch"]:
        assert ids(dc.check_gpu_rules("%d.100.01" % (row["min_branch"] - 5), flavour, [card]), "error") == ["NV-MINBR"]
    if row["max_branch"]:
        assert "NV-MINBR" in ids(dc.check_gpu_rules("%d.10.01" % (row["max_branch"] + 10), flavour, [card]), "error")
    if row["flavour"] != "any":
        other = "open" if flavour == "proprietary" else "proprietary"
        assert "NV-FLAVOR" in ids(dc.check_gpu_rules("%d.100.01" % good_branch, other, [card]), "error")


@pytest.mark.parametrize("row", data.PRODUCTS, ids=lambda row: row["gres_type"])
def test_product_rows(row):
    card = gpu(row["gres_type"], None, "9.0", row["gres_type"])
    minimum = row["min_driver"] or "570.100.01"
    assert dc.check_gpu_rules(minimum, "open", [card]) == []
    if row["min_driver"]:
        low = dc.check_gpu_rules("%d.10.01" % (dc.version_tuple(minimum)[0] - 5), "open", [card])
        assert [f["severity"] for f in low] == ["warning" if row["tag"] == "U" else "error"]
    if row["flavour"] == "open_required":
        assert ids(dc.check_gpu_rules(minimum, "proprietary", [card]), "error") == ["NV-FLAVOR"]


@pytest.mark.parametrize("row", data.KNOWN_BAD, ids=lambda row: row.get("max_driver") or row["drivers"][0])
def test_known_bad_rows(row):
    driver = row.get("max_driver") or row["drivers"][-1]
    flavour = row.get("flavour") or "open"
    assert ids(dc.check_known_bad(driver, flavour, host(kernel=row["kernel_min"] + ".3-amd64"))) == ["NV-KBAD"]
    major, minor = (int(part) for part in row["kernel_min"].split(".")[:2])
    older = dc.check_known_bad(driver, flavour, host(kernel="%d.%d.1" % (major, minor - 1)))
    assert [f for f in older if f["source"] == row["source"]] == []


def test_known_bad_flavour_and_max_driver():
    assert dc.check_known_bad("545.29.02", "proprietary", host(kernel="6.7.1")) == []
    assert ids(dc.check_known_bad("525.60.13", "open", host(kernel="6.3.1"))) == ["NV-KBAD"]
    assert dc.check_known_bad("535.274.02", "open", host(kernel="6.12.117+deb13-amd64")) == []
    assert dc.check_known_bad("535.274.02", "open", host(kernel=None)) == []


@pytest.mark.parametrize("row", data.CANN_HDK, ids=lambda row: row["cann"])
def test_cann_rows(row):
    driver = row["hdk"][0].replace(".X", ".0")
    assert dc.check_cann(row["cann"], driver) == []
    bad = dc.check_cann(row["cann"], "1.0.0")
    assert [f["severity"] for f in bad] == ["warning" if row["tag"] == "U" else "error"]


@pytest.mark.parametrize("row", data.ASCEND_OBSERVED, ids=lambda row: row["driver"])
def test_observed_ascend_rows(row):
    assert dc.check_firmware(row["driver"], row["firmware"], None, {}) == []
    assert [f["severity"] for f in dc.check_firmware(row["driver"], "1.0.0.0", None, {})] == ["warning"]
    if not any(r["cann"] == row["cann"] for r in data.CANN_HDK):
        assert [f["severity"] for f in dc.check_cann(row["cann"], row["driver"])] == ["info"]


@pytest.mark.parametrize("row", data.ASCEND_OS, ids=lambda row: "%s-%s-%s" % (row["product"], row["os"], row["version"]))
def test_ascend_os_rows(row):
    facts = host(kernel=row["kernel"] or "5.10.0", npus=[{"gres_type": row["product"]}])
    findings = dc.check_ascend_os(row["os"], row["version"], facts, False)
    assert findings == [] if row["install"] == "binary" else [f["severity"] for f in findings] == ["info"]


# ----------------------------------------------------------------- checks


def test_good_h200_stack_passes():
    facts = host([gpu()] * 8, switches=4)
    findings = run({"nvidia_driver": "580.95.05", "nvidia_flavour": "open", "cuda": ["12.8", "13.0"], "fabricmanager": "580.95.05"}, facts)
    assert findings == []
    assert dc.fabricmanager_package("580.95.05") == "nvidia-fabricmanager"
    assert dc.fabricmanager_package("570.133.20") == "nvidia-fabricmanager-570"


def test_debian_packages_on_trixie_kernel():
    facts = host([gpu("a100", "ampere", "8.0", "A100")], kernel="6.12.117+deb13-amd64")
    assert ids(run({"nvidia_driver": "535.216.03"}, facts), "error") == ["NV-KBAD"]
    assert ids(run({"nvidia_driver": "535.274.02"}, facts), "error") == []
    assert ids(run({"nvidia_driver": "550.163.01"}, facts), "error") == []


def test_cuda13_on_r570_and_on_old_gpus():
    assert "NV-CUDA" in ids(run({"nvidia_driver": "570.133.20", "cuda": ["13.0"]}, host([gpu()])), "error")
    volta = host([gpu("v100", "volta", "7.0", "V100")])
    assert "NV-CUDA13-ARCH" in ids(run({"nvidia_driver": "580.95.05", "nvidia_flavour": "proprietary", "cuda": ["13.0"]}, volta), "error")


def test_cuda_input_and_unknown_versions():
    facts = host([gpu()])
    assert ids(run({"nvidia_driver": "580.95.05", "cuda": ["twelve"]}, facts), "error") == ["NV-CUDA"]
    assert [f["severity"] for f in run({"nvidia_driver": "580.95.05", "cuda": ["14.0"]}, facts)] == ["warning"]
    assert [f["severity"] for f in run({"nvidia_driver": "580.95.05", "cuda": ["12.7"]}, facts)] == ["warning"]
    assert ids(run({"nvidia_driver": "580"}, facts), "error") == ["INPUT"]
    assert ids(run({"cuda": ["12.4"]}, facts), "error") == ["INPUT"]
    assert ids(run({"cann": "8.0.RC1"}, facts), "error") == ["INPUT"]


def test_mixed_blackwell_and_volta():
    cards = [gpu("b200", "blackwell", "10.0", "B200"), gpu("v100", "volta", "7.0", "V100")]
    assert "NV-FLAVOR" in ids(dc.check_gpu_rules("580.95.05", "open", cards), "error")


def test_proprietary_after_r580_warns():
    assert [f["severity"] for f in dc.check_gpu_rules("590.48.01", "proprietary", [gpu("a100", "ampere", "8.0")])] == ["warning"]


def test_fabricmanager():
    facts = host([gpu()], switches=4)
    assert "set fabricmanager=580.95.05" in dc.check_fabricmanager("580.95.05", None, facts)[0]["message"]
    assert "differs" in dc.check_fabricmanager("580.95.05", "580.82.07", facts)[0]["message"]
    assert dc.check_fabricmanager("580.95.05", "580.95.05", facts) == []
    assert [f["severity"] for f in dc.check_fabricmanager("580.95.05", "580.95.05", host([gpu()]))] == ["warning"]


def test_build_host_checks():
    facts = host([gpu()])
    facts["kernel"]["headers"] = False
    facts["gcc_version"] = "12.2.0"
    facts["secure_boot"] = "enabled"
    assert ids(dc.check_build_host(facts, "dkms", False), "error") == ["HOST-CC", "HOST-KHDR", "HOST-SB"]
    assert dc.check_build_host(facts, "precompiled", False) == []
    assert ids(dc.check_build_host(facts, "dkms", True), "error") == ["HOST-CC", "HOST-KHDR"]
    facts["gcc_version"] = None
    assert "install gcc-14" in dc.check_build_host(facts, "dkms", True)[1]["message"]
    facts.update(gcc_version="14.3.0", secure_boot=None)
    facts["kernel"]["headers"] = True
    assert [(f["id"], f["severity"]) for f in dc.check_build_host(facts, "dkms", False)] == [("HOST-CC", "warning"), ("HOST-SB", "warning")]
    facts["kernel"]["compiler"] = "clang"
    facts["secure_boot"] = "disabled"
    assert [(f["id"], f["severity"]) for f in dc.check_build_host(facts, "dkms", False)] == [("HOST-CC", "warning")]


def test_rc_kernel_and_nouveau_and_no_gpu():
    assert ids(run({"nvidia_driver": "580.95.05"}, host([gpu()], kernel="6.13.0-rc3")), "error") == ["HOST-KREL"]
    loaded = host([gpu()], nouveau={"loaded": True, "blacklisted": False})
    assert [(f["id"], f["severity"]) for f in run({"nvidia_driver": "580.95.05"}, loaded)] == [("NV-NOUVEAU", "warning")]
    fresh = host([gpu()], nouveau={"loaded": False, "blacklisted": False})
    assert [(f["id"], f["severity"]) for f in run({"nvidia_driver": "580.95.05"}, fresh)] == [("NV-NOUVEAU", "info")]
    assert ids(run({"nvidia_driver": "580.95.05"}, host())) == ["NV-INV"]


def test_ascend_stack():
    npus = [{"gres_type": "910b"}] * 8
    facts = host(kernel="5.10.0-60.18.0.50.oe2203.aarch64", npus=npus, ascend_driver={"version": "24.1.RC3", "firmware_range": ["7.0.0", "7.7.99"]})
    good = {"ascend_driver": "24.1.RC3", "ascend_firmware": "7.5.0.1.129", "cann": "8.2.RC1", "os_id": "openEuler", "os_version": "22.03"}
    assert ids(run(good, facts), "error") == []
    assert ids(run(dict(good, cann="8.1.RC1"), facts), "error") == ["ASC-CANN"]
    assert ids(run(dict(good, os_id="Debian", os_version="13"), facts), "error") == ["ASC-OSK"]
    assert ids(run(dict(good, os_id="Debian", os_version="13", allow_unlisted_os=True), facts), "error") == []
    assert [f["severity"] for f in run(dict(good, ascend_firmware="7.8.0.5.208"), facts) if f["id"] == "ASC-FWRANGE"] == ["warning"]
    assert ids(run(dict(good, os_id=None), facts)) == ["ASC-OSK"]
    assert "ASC-INV" in ids(run(good, host()))
    assert ids(dc.check_firmware("24.1.RC3", "x", ["7.0.0", "7.7.99"], {}), "error") == ["ASC-FWRANGE"]
    assert [f["severity"] for f in dc.check_firmware("26.0.0", "7.8.0", None, {})] == ["warning"]


def test_split_skips():
    findings = [{"id": "NV-FM", "severity": "error"}, {"id": "NV-EOL", "severity": "warning"}]
    assert dc.split(findings, ["NV-FM"]) == ([findings[1]], [findings[0]])


# ----------------------------------------------------------------- module


def test_module_fails_on_errors_and_changes_nothing(run_module):
    facts = host([gpu()] * 8, switches=4)
    result = run_module(driver_compat.main, {"facts": facts, "nvidia_driver": "535.216.03", "cuda": ["13.0"], "today": "2026-01-15"})
    assert result["failed"] is True
    assert result["changed"] is False
    assert "NV-KBAD" in result["msg"]
    assert result["errors"] == 3


def test_module_passes_good_stack_and_reports_warnings(run_module):
    facts = host([gpu()] * 8, switches=4)
    args = {"facts": facts, "nvidia_driver": "570.133.20", "fabricmanager": "570.133.20", "cuda": ["12.8"], "today": "2026-03-01"}
    result = run_module(driver_compat.main, args, check_mode=True)
    assert "failed" not in result
    assert result["errors"] == 0
    assert result["fabricmanager_package"] == "nvidia-fabricmanager-570"
    assert ids(result["findings"]) == ["NV-EOL"]


def test_module_skip_is_reported(run_module):
    facts = host([gpu()] * 8, switches=4)
    result = run_module(driver_compat.main, {"facts": facts, "nvidia_driver": "580.95.05", "skip": ["NV-FM"], "today": "2026-01-15"})
    assert result["errors"] == 0
    assert ids(result["skipped_findings"]) == ["NV-FM"]
    assert "skipped" not in result  # Ansible would take the task for skipped


def test_module_rejects_bad_date(run_module):
    result = run_module(driver_compat.main, {"facts": {}, "today": "15/01/2026"})
    assert result["failed"] is True
    assert "today=" in result["msg"]


def test_module_versions_dict_is_the_same_as_the_options(run_module):
    facts = host([gpu()] * 8, switches=4)
    options = {"nvidia_driver": "580.95.05", "skip": ["NV-FM"], "cuda": ["12.8"]}
    flat = run_module(driver_compat.main, dict(options, facts=facts, today="2026-01-15"))
    nested = run_module(driver_compat.main, {"facts": facts, "versions": options, "today": "2026-01-15"})
    assert nested == flat
    # A key in versions wins over the top-level option; an absent one leaves it.
    wins = run_module(driver_compat.main, {"facts": facts, "nvidia_driver": "535.216.03", "versions": options, "today": "2026-01-15"})
    assert wins == flat


@pytest.mark.parametrize(
    ("versions", "says"),
    [
        ({"nvidia_drivre": "580.95.05"}, "nvidia_drivre"),
        ({"secure_boot_signing": "maybe"}, "secure_boot_signing"),
        ({"nvidia_flavour": "closed"}, "nvidia_flavour"),
    ],
)
def test_module_versions_dict_refuses_unknown_keys_and_bad_types(run_module, versions, says):
    result = run_module(driver_compat.main, {"facts": {}, "versions": versions})
    assert result["failed"] is True
    assert says in result["msg"]
