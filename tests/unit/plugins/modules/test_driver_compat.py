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
    tables += [data.OS_NAMES, data.KYLIN_SERVICE_PACKS, data.UOS_UPDATES]
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


def known_bad_id(row):
    return "%s-%s" % (row["kernel_min"], row["drivers"][0] if "drivers" in row else "+".join(str(branch) for branch in row["fixed_in"]))


def from_row(findings, row):
    return [f for f in findings if f["source"] == row["source"]]


@pytest.mark.parametrize("row", data.KNOWN_BAD, ids=known_bad_id)
def test_known_bad_rows(row):
    flavour = row.get("flavour") or "open"
    severity = "warning" if row["tag"] == "U" or row.get("severity") == "warning" else "error"
    major, minor = (int(part) for part in row["kernel_min"].split(".")[:2])
    failing = row["drivers"] if "drivers" in row else ["%d.1.01" % branch for branch in row["fixed_in"]]
    for driver in failing:
        findings = from_row(dc.check_known_bad(driver, flavour, host(kernel=row["kernel_min"] + ".3-amd64")), row)
        assert [(f["id"], f["severity"]) for f in findings] == [("NV-KBAD", severity)]
        assert from_row(dc.check_known_bad(driver, flavour, host(kernel="%d.%d.1" % (major, minor - 1))), row) == []
    for branch, fixed in (row.get("fixed_in") or {}).items():
        message = from_row(dc.check_known_bad("%d.1.01" % branch, flavour, host(kernel=row["kernel_min"] + ".3")), row)[0]["message"]
        if fixed:
            assert dc.version_tuple(fixed)[0] == branch
            assert "use %s or newer" % fixed in message
            assert from_row(dc.check_known_bad(fixed, flavour, host(kernel="6.99.1")), row) == []
        else:
            assert "choose another driver release" in message


def test_known_bad_flavour_and_max_driver():
    assert dc.check_known_bad("545.29.02", "proprietary", host(kernel="6.7.1")) == []
    assert ids(dc.check_known_bad("525.60.13", "open", host(kernel="6.3.1"))) == ["NV-KBAD"]
    assert dc.check_known_bad("535.274.02", "open", host(kernel="6.12.117+deb13-amd64")) == []
    assert dc.check_known_bad("535.274.02", "open", host(kernel=None)) == []


def test_known_bad_linux_612_is_every_old_535_and_550():
    """Linux 6.12 removed PageSwapCache(): every 535 before 535.230.02, 550 before 550.135 and all of 555/560 fail."""
    on_612 = host(kernel="6.12.57+deb13-amd64")
    for driver, fix in [("535.216.03", "535.230.02"), ("535.183.01", "535.230.02"), ("550.127.05", "550.135"), ("550.54.15", "550.135")]:
        findings = dc.check_known_bad(driver, "open", on_612)
        assert [f["severity"] for f in findings] == ["error"], driver
        assert "PageSwapCache" in findings[0]["message"]
        assert "use %s or newer" % fix in findings[0]["message"]
    for driver in ("555.58.02", "560.35.03"):
        assert "choose another driver release" in dc.check_known_bad(driver, "open", on_612)[0]["message"]
    for driver in ("535.230.02", "535.274.02", "550.135", "550.163.01", "565.77", "570.172.08"):
        assert dc.check_known_bad(driver, "open", on_612) == [], driver
    # 565.57.01 builds on 6.12; only nvidia-drm cannot be opened (no display), which compute nodes can live with.
    assert [(f["id"], f["severity"]) for f in dc.check_known_bad("565.57.01", "open", on_612)] == [("NV-KBAD", "warning")]


def test_known_bad_is_judged_within_a_branch():
    """The fix for Linux 6.3-6.5 reached 525 and 535 (and 470) late in each branch: newer releases of an older branch pass."""
    for driver, kernel in [("525.147.05", "6.6.30"), ("525.116.03", "6.4.2"), ("535.86.05", "6.5.1"), ("530.41.03", "6.3.9")]:
        assert dc.check_known_bad(driver, "open", host(kernel=kernel)) == [], driver
    assert ids(dc.check_known_bad("530.41.03", "open", host(kernel="6.4.1")), "error") == ["NV-KBAD"]
    assert ids(dc.check_known_bad("525.105.17", "open", host(kernel="6.5.1")), "error") == ["NV-KBAD"]
    assert ids(dc.check_known_bad("535.54.03", "open", host(kernel="6.5.1")), "error") == ["NV-KBAD"]
    # 470 is not in NVIDIA's open repository: its rows are unconfirmed, so they warn and never block.
    assert dc.check_known_bad("470.256.02", "proprietary", host(kernel="6.8.12")) == []
    assert [f["severity"] for f in dc.check_known_bad("470.161.03", "proprietary", host(kernel="6.5.1"))] == ["warning", "warning"]


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


def test_b300_needs_580_82_07():
    """B300/GB300 are first listed by the open modules at 580.82.07: R570 must not pass them."""
    for card in (gpu("b300", "blackwell", "10.3", "B300 SXM6 AC"), gpu("gb300", "blackwell", "10.3", "GB300")):
        assert ids(dc.check_gpu_rules("570.172.08", "open", [card]), "error") == ["NV-MINBR"]
        assert ids(dc.check_gpu_rules("580.76.05", "open", [card]), "error") == ["NV-MINBR"]
        assert dc.check_gpu_rules("580.82.07", "open", [card]) == []


def test_cuda_13_2_and_13_3():
    facts = host([gpu()])
    full = [f for f in run({"nvidia_driver": "590.48.01", "cuda": ["13.2"]}, facts) if f["id"] == "NV-CUDA"]
    assert [f["severity"] for f in full] == ["warning"]
    assert "595.58.03" in full[0]["message"]
    assert [f for f in run({"nvidia_driver": "610.43.02", "cuda": ["13.3"]}, facts) if f["id"] == "NV-CUDA"] == []
    assert "610.43.02" in [f for f in run({"nvidia_driver": "595.58.03", "cuda": ["13.3.0"]}, facts) if f["id"] == "NV-CUDA"][0]["message"]


def test_cann_9_1_accepts_its_whole_compatibility_table():
    for hdk in ("25.2.0", "25.3.RC1", "25.5.1", "26.0.RC1", "25.7.RC1", "26.1.0"):
        assert dc.check_cann("9.1.0", hdk) == [], hdk
    assert ids(dc.check_cann("9.1.0", "25.0.3"), "error") == ["ASC-CANN"]
    assert ids(dc.check_cann("9.2.0", "25.2.0"), "error") == ["ASC-CANN"]
    assert dc.check_cann("9.2.0", "26.2.RC1") == []
    assert dc.check_cann("8.5.2", "25.0.1") == []
    assert dc.check_cann("9.0.0", "26.1.0") == []


@pytest.mark.parametrize(
    ("os_id", "os_version", "os_release", "kernel", "seen"),
    [
        ("Kylin Linux Advanced Server", "V10", "Lance", "4.19.90-52.22.v2207.ky10.aarch64", ("kylin", "V10 SP3")),
        ("Kylin Linux Advanced Server", "V10", "Sword", "4.19.90-24.4.v2101.ky10.aarch64", ("kylin", "V10 SP2")),
        ("Kylin Linux Advanced Server", "V10", "Tercel", "4.19.90-17.ky10.aarch64", ("kylin", "V10 SP1")),
        ("Kylin Linux Advanced Server", "V10", "Halberd", "4.19.90-89.11.v2401.ky10.aarch64", ("kylin", "V10")),
        ("Uos", "20", "fuyu", "4.19.90-2211.5.0.0178.22.uel20.aarch64", ("uos", "V20 1050u2e")),
        ("UnionTech", "20", "fuyu", "4.19.90-2106.3.0.0095.up2.uel20.aarch64", ("uos", "1020e")),
        ("Uos", "20", "fuyu", "4.19.90-2109.1.0.0108.up2.uel20.aarch64", ("uos", "1021e")),
        ("openEuler", "22.03", "LTS", "5.10.0-60.18.0.50.oe2203.aarch64", ("openeuler", "22.03")),
    ],
)
def test_ascend_os_names_as_ansible_reports_them(os_id, os_version, os_release, kernel, seen):
    assert dc.ascend_os(os_id, os_version, os_release, kernel) == seen


def test_kylin_v10_sp3_and_uos_match_the_910b_table():
    npus = [{"gres_type": "910b"}] * 8
    kylin = host(kernel="4.19.90-52.22.v2207.ky10.aarch64", npus=npus)
    assert [f["severity"] for f in dc.check_ascend_os("Kylin Linux Advanced Server", "V10", kylin, False, "Lance")] == ["info"]
    unknown = dc.check_ascend_os("Kylin Linux Advanced Server", "V10", kylin, False, "Halberd")
    assert [f["severity"] for f in unknown] == ["error"]
    assert "Kylin Linux Advanced Server V10 (Halberd), read as kylin V10," in unknown[0]["message"]
    uos = host(kernel="4.19.90-2211.5.0.0178.22.uel20.aarch64", npus=npus)
    assert [f["severity"] for f in dc.check_ascend_os("Uos", "20", uos, False, "fuyu")] == ["info"]
    old = host(kernel="4.19.90-2106.3.0.0095.up2.uel20.aarch64", npus=[{"gres_type": "910"}])
    assert dc.check_ascend_os("Uos", "20", old, False, "fuyu") == []


def test_data_age_warns_after_a_year():
    as_of = datetime.datetime.strptime(data.AS_OF, "%Y-%m-%d").date()
    assert dc.check_data_age(as_of + datetime.timedelta(days=data.MAX_AGE_DAYS)) == []
    late = dc.check_data_age(as_of + datetime.timedelta(days=data.MAX_AGE_DAYS + 1))
    assert [(f["id"], f["severity"]) for f in late] == [("DATA-AGE", "warning")]
    assert data.AS_OF in late[0]["message"]
    assert "Refreshing the data" in late[0]["message"]
    assert "DATA-AGE" in ids(dc.evaluate({"nvidia_driver": "580.95.05"}, host([gpu()]), datetime.date(2030, 1, 1)))
    assert dc.evaluate({}, host(), datetime.date(2030, 1, 1)) == []


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
    assert result["data_as_of"] == data.AS_OF
    assert ids(result["findings"]) == ["NV-EOL"]


def test_module_skip_is_reported(run_module):
    facts = host([gpu()] * 8, switches=4)
    result = run_module(driver_compat.main, {"facts": facts, "nvidia_driver": "580.95.05", "skip": ["NV-FM"], "today": "2026-01-15"})
    assert result["errors"] == 0
    assert ids(result["skipped_findings"]) == ["NV-FM"]
    assert "skipped" not in result  # Ansible would take the task for skipped


def test_module_reads_kylin_service_pack_from_os_release(run_module):
    facts = host(kernel="4.19.90-52.22.v2207.ky10.aarch64", npus=[{"gres_type": "910b"}] * 8)
    args = {"facts": facts, "ascend_driver": "25.5.0", "os_id": "Kylin Linux Advanced Server", "os_version": "V10", "today": "2026-12-05"}
    assert run_module(driver_compat.main, dict(args, os_release="Lance"))["errors"] == 0
    assert "ASC-OSK" in run_module(driver_compat.main, args)["msg"]


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
