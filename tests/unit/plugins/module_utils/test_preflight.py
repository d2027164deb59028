import base64

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import pam_adopt, preflight
from ansible_collections.aicluster.slurm.plugins.module_utils.preflight import (
    check_groups,
    check_munge_key,
    check_partitions,
    check_slurm_config,
    check_state_save_marker,
    host_findings,
    inventory_findings,
)

GROUPS = {"slurmctld": ["ctl1"], "slurm_compute": ["node01", "node02"], "gpu": ["node02"], "empty": []}
PARTITIONS = [{"name": "batch", "groups": ["slurm_compute"], "default": True}]
GOOD_KEY = base64.b64encode(bytes(range(256)) * 4).decode()
DEBIAN = {"distribution": "Debian", "distribution_major_version": "13", "distribution_release": "trixie", "hostname": "node01", "memtotal_mb": 16000}
FORKY = dict(DEBIAN, distribution_major_version="forky/sid", distribution_version="forky/sid", distribution_release="forky")


def ids(findings):
    return [f["id"] for f in findings]


def only(findings):
    assert len(findings) == 1, findings
    return findings[0]


def test_findings_have_the_documented_shape():
    findings = inventory_findings({}, {"SelectType": "select/cgroup"}, [], "!!")
    assert findings
    for finding in findings:
        assert set(finding) == {"id", "severity", "variable", "value", "message", "fix"}
        assert finding["severity"] in ("error", "warning")


def test_inventory_findings_clean():
    assert inventory_findings(GROUPS, {"SelectType": "select/cons_tres"}, PARTITIONS, GOOD_KEY) == []


# --- groups ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        ({}, ["groups_present", "groups_present"]),
        ({"slurmctld": ["ctl1"], "slurm_compute": []}, ["groups_present"]),
        ({"slurmctld": ["c1", "c2"], "slurm_compute": ["n1"]}, []),
        ({"slurmctld": ["c1", "c2", "c3"], "slurm_compute": ["n1"]}, ["controller_count"]),
        ({"slurmctld": ["c1"], "slurm_compute": ["c1", "n1"]}, ["controller_not_compute"]),
    ],
    ids=["no-groups", "empty-compute", "primary-and-backup", "three-controllers", "controller-is-compute"],
)
def test_check_groups_ids(groups, expected):
    assert ids(check_groups(groups)) == expected


def test_check_groups_missing_names_the_group():
    finding = only(check_groups({"slurmctld": ["ctl1"]}))
    assert finding["severity"] == "error"
    assert "slurm_compute" in finding["message"]


def test_check_groups_three_controllers():
    finding = only(check_groups({"slurmctld": ["c1", "c2", "c3"], "slurm_compute": ["n1"]}))
    assert (finding["id"], finding["severity"]) == ("controller_count", "error")
    assert "3 hosts (c1, c2, c3)" in finding["message"]


def test_check_groups_overlap_is_a_warning():
    finding = only(check_groups({"slurmctld": ["c1", "c2"], "slurm_compute": ["n1", "c2", "c1"]}))
    assert finding["severity"] == "warning"
    assert "hosts c1, c2 are in both" in finding["message"]


# --- munge key ---------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [None, "", GOOD_KEY, base64.b64encode(b"k" * preflight.MUNGE_KEY_MIN_BYTES).decode(), base64.b64encode(b"k" * preflight.MUNGE_KEY_MAX_BYTES).decode()],
    ids=["none", "empty", "1024-bytes", "min-length", "max-length"],
)
def test_check_munge_key_accepts(value):
    assert check_munge_key(value) == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("not base64!", "not valid base64"),
        (GOOD_KEY[:-2], "not valid base64"),
        (GOOD_KEY[:76] + "\n" + GOOD_KEY[76:], "not valid base64"),
        (12345, "not valid base64"),
        (base64.b64encode(b"short").decode(), "decodes to 5 bytes; munge needs 32 to 1024"),
        (base64.b64encode(b"k" * 31).decode(), "decodes to 31 bytes"),
        (base64.b64encode(b"k" * 1025).decode(), "decodes to 1025 bytes"),
    ],
    ids=["garbage", "bad-padding", "wrapped-lines", "not-a-string", "too-short", "one-below-min", "one-above-max"],
)
def test_check_munge_key_rejects(value, message):
    finding = only(check_munge_key(value))
    assert (finding["id"], finding["severity"]) == ("secrets", "error")
    assert message in finding["message"]


def test_check_munge_key_never_echoes_the_key():
    value = base64.b64encode(b"topsecret").decode()
    assert value not in only(check_munge_key(value))["message"]
    assert "topsecret" not in only(check_munge_key(value))["message"]


# --- slurm_config ------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "fix"),
    [
        ({"SelectType": "select/cgroup"}, "use select/cons_tres"),
        ({"SelectType": "select/cons_res"}, "select/cons_tres (select/cons_res was removed"),
        ({"selecttype": " Select/CGroup "}, "use select/cons_tres"),
        ({"SelectType": "select/magic"}, "use select/cons_tres or select/linear"),
        ({"TopologyPlugin": "topology/cluster"}, "use topology/tree or topology/block"),
        ({"TopologyPlugin": "topology/3d_torus"}, "topology/3d_torus was removed"),
        ({"ProctrackType": "proctrack/cgroups"}, "use proctrack/cgroup"),
        ({"TaskPlugin": "task/cgroups"}, "use task/cgroup"),
    ],
    ids=["select-cgroup", "select-cons-res", "case-and-space", "select-unknown", "topology-cluster", "topology-torus", "proctrack-cgroups", "task-cgroups"],
)
def test_check_slurm_config_bad_values(config, fix):
    finding = only(check_slurm_config(config))
    assert (finding["id"], finding["severity"]) == ("slurm_config_value", "error")
    key, value = next(iter(config.items()))
    assert "slurm_config.%s=%s does not exist in Slurm" % (key, value) in finding["message"]
    assert fix in finding["message"]


@pytest.mark.parametrize(
    ("key", "fix"),
    [
        ("AccrueInterimStats", "AccountingStorageTRES"),
        ("accrueinterimstats", "AccountingStorageTRES"),
        ("ControlMachine", "use SlurmctldHost"),
        ("BackupController", "second host in the slurmctld group"),
        ("FastSchedule", "removed in Slurm 20.02"),
        ("CryptoType", "removed in Slurm 23.11"),
    ],
    ids=["accrue-interim-stats", "lower-case", "control-machine", "backup-controller", "fast-schedule", "crypto-type"],
)
def test_check_slurm_config_unknown_keys(key, fix):
    finding = only(check_slurm_config({key: "anything"}))
    assert (finding["id"], finding["severity"]) == ("slurm_config_key", "error")
    assert "slurm_config.%s: Slurm has no such parameter" % key in finding["message"]
    assert fix in finding["message"]


@pytest.mark.parametrize(
    "config",
    [
        None,
        {},
        {"SelectType": "select/cons_tres", "TopologyPlugin": "topology/tree", "ProctrackType": "proctrack/cgroup"},
        {"SelectType": "select/linear", "TopologyPlugin": "topology/block", "ProctrackType": "proctrack/pgid"},
        {"SelectType": None, "ClusterName": "ai-prod_1", "SlurmctldPort": 6817},
    ],
    ids=["none", "empty", "valid-choices", "other-valid-choices", "null-removes-a-default"],
)
def test_check_slurm_config_clean(config):
    assert check_slurm_config(config) == []


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({"TopologyPlugin": ["topology/cluster"]}, "slurm_config.TopologyPlugin=topology/cluster is not installed"),
        ({"SchedulerParameters": {"a": 1}}, "slurm_config.SchedulerParameters={'a': 1} is a mapping"),
        ({"ClusterName": "select/cgroup"}, "slurm_config.ClusterName=select/cgroup is not a cluster name"),
        ({"NodeName": "n1 CPUs=2"}, "slurm_config.NodeName: NodeName lines are structure the collection writes"),
        ({"SlurmctldTimeout": "120\nSlurmUser=root"}, "slurm_config.SlurmctldTimeout=120\\nSlurmUser=root contains a line break"),
    ],
    ids=["list-of-unknown-plugin", "mapping", "cluster-name-rule", "structure-key", "injection"],
)
def test_check_slurm_config_schema(config, says):
    assert says in only(check_slurm_config(config))["message"]


def test_check_slurm_config_linuxproc_warns_when_cgroups_enforced():
    finding = only(check_slurm_config({"ProctrackType": "proctrack/linuxproc"}))
    assert (finding["id"], finding["severity"]) == ("proctrack_cgroup", "warning")
    assert "use proctrack/cgroup" in finding["message"]


def test_check_slurm_config_linuxproc_is_fine_without_cgroups():
    assert check_slurm_config({"ProctrackType": "proctrack/linuxproc"}, cgroups_enforced=False) == []


def test_check_slurm_config_reports_every_problem():
    config = {"SelectType": "select/cgroup", "TopologyPlugin": "topology/cluster", "AccrueInterimStats": 1, "ProctrackType": "proctrack/linuxproc"}
    assert sorted(ids(check_slurm_config(config))) == ["proctrack_cgroup", "slurm_config_key", "slurm_config_value", "slurm_config_value"]


# --- partitions --------------------------------------------------------------


@pytest.mark.parametrize(
    ("partitions", "messages"),
    [
        (PARTITIONS, []),
        (None, []),
        ([{"name": "a", "groups": ["gpu"], "default": True}, {"name": "b", "groups": ["gpu"], "default": True}], ["a, b are all default: true"]),
        ([{"name": "x", "groups": ["nosuch"]}], ["partition x uses inventory group nosuch"]),
        ([{"name": "y", "groups": ["slurm_compute", "empty"]}], ["partition y uses inventory group empty"]),
    ],
    ids=["clean", "none", "two-defaults", "missing-group", "empty-group"],
)
def test_check_partitions(partitions, messages):
    findings = check_partitions(partitions, GROUPS)
    assert [(f["id"], f["severity"]) for f in findings] == [("partitions", "error")] * len(messages)
    assert all(messages[i] in findings[i]["message"] for i in range(len(messages)))


# --- inventory_findings ------------------------------------------------------

BROKEN = dict(
    groups={"slurmctld": ["c1", "c2", "c3"], "slurm_compute": ["n1"]},
    config={"ProctrackType": "proctrack/linuxproc", "SelectType": "select/cgroup"},
    partitions=[{"name": "p", "groups": ["nosuch"]}],
    munge_key="!!",
)


def test_inventory_findings_collects_all_checks():
    assert ids(inventory_findings(**BROKEN)) == ["controller_count", "secrets", "slurm_config_value", "proctrack_cgroup", "partitions"]


@pytest.mark.parametrize(
    ("skip", "remaining"),
    [
        ((), ["controller_count", "secrets", "slurm_config_value", "proctrack_cgroup", "partitions"]),
        (("proctrack_cgroup",), ["controller_count", "secrets", "slurm_config_value", "partitions"]),
        (["controller_count", "secrets", "partitions"], ["slurm_config_value", "proctrack_cgroup"]),
        (("no_such_id",), ["preflight_skip"]),
    ],
    ids=["nothing", "one", "several-as-list", "unknown-id"],
)
def test_inventory_findings_skip(skip, remaining):
    assert ids(inventory_findings(skip=skip, **BROKEN)) == remaining


def test_inventory_findings_passes_cgroups_enforced():
    assert "proctrack_cgroup" not in ids(inventory_findings(cgroups_enforced=False, **BROKEN))


# --- host_findings -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "facts", "kwargs", "expected"),
    [
        ("node01", DEBIAN, {}, []),
        ("node01.cluster.example", DEBIAN, {}, []),
        ("node01", FORKY, {}, []),
        ("node01", dict(DEBIAN, distribution="Ubuntu", distribution_release="noble"), {}, ["os_supported"]),
        ("node01", dict(DEBIAN, distribution_major_version="12", distribution_release="bookworm"), {}, ["os_supported"]),
        ("node01", None, {}, ["os_supported"]),
        ("node01", dict(DEBIAN, hostname="other"), {}, ["hostname_match"]),
        ("ctl1", dict(DEBIAN, hostname="other"), {"is_compute": False}, []),
        ("node01", DEBIAN, {"memory_reserve_mb": 16000}, ["memory_reserve"]),
        ("node01", DEBIAN, {"memory_reserve_mb": 15999}, []),
        ("ctl1", dict(DEBIAN, hostname="ctl1"), {"memory_reserve_mb": 99999, "is_compute": False}, []),
        ("node01", dict(DEBIAN, distribution="Rocky", hostname="x"), {"skip": ("os_supported",)}, ["hostname_match"]),
    ],
    ids=[
        "clean",
        "fqdn-inventory-name",
        "int-major-version",
        "other-os",
        "older-debian",
        "no-facts",
        "hostname-mismatch",
        "controller-hostname-not-checked",
        "reserve-equals-memory",
        "reserve-below-memory",
        "controller-memory-not-checked",
        "skip",
    ],
)
def test_host_findings(name, facts, kwargs, expected):
    findings = host_findings(name, facts, **kwargs)
    assert ids(findings) == expected
    assert all(f["severity"] == "error" for f in findings)


def test_host_findings_messages_name_the_host():
    facts = dict(DEBIAN, distribution="Ubuntu", distribution_version="24.04", distribution_release="noble", hostname="other")
    messages = [f["message"] for f in host_findings("node01", facts, memory_reserve_mb=20000)]
    assert messages[0].startswith("node01 runs Ubuntu 24.04 (noble);")
    assert messages[1].startswith("node01: its hostname is other")
    assert messages[2].startswith("node01: slurm_node_memory_reserve_mb=20000 is not below its memory (16000 MB)")


def test_check_slurm_config_linuxproc_warns_in_any_case():
    findings = preflight.check_slurm_config({"proctracktype": "proctrack/linuxproc"})
    assert [f["id"] for f in findings] == ["proctrack_cgroup"]


@pytest.mark.parametrize(
    ("groups", "password", "expected"),
    [
        ({"slurmdbd": ["dbd1"]}, "x" * 24, []),
        ({"slurmdbd": []}, "", []),
        ({}, None, []),
        ({"slurmdbd": ["dbd1"]}, "", ["secrets"]),
        ({"slurmdbd": ["dbd1"]}, "Pw0rd-x9", ["secrets"]),
        ({"slurmdbd": ["dbd1", "dbd2"]}, "x" * 24, ["slurmdbd_count"]),
        ({"slurmdbd": ["dbd1"]}, " spaces # $HOME \\ 'q' `b` é ", []),
        ({"slurmdbd": ["dbd1"]}, 'long enough "quoted" password', ["secrets"]),
        ({"slurmdbd": ["dbd1"]}, "long enough password\nsecond line", ["secrets"]),
    ],
    ids=["ok", "no-dbd-no-password", "no-group", "missing-password", "short-password", "two-dbd", "hostile-ok", "double-quote", "line-break"],
)
def test_check_accounting(groups, password, expected):
    findings = preflight.check_accounting(groups, password)
    assert [f["id"] for f in findings] == expected
    assert all(f["severity"] == "error" for f in findings)
    for finding in findings:
        assert password is None or password == "" or password not in finding["message"]


def test_missing_dbd_password_names_the_variable():
    [finding] = preflight.check_accounting({"slurmdbd": ["dbd1"]}, "")
    assert finding["message"].startswith("slurmdbd_storage_pass is not set;")


@pytest.mark.parametrize(
    ("ptype", "mode", "expected"),
    [
        ("", "OFF", []),
        ("preempt/partition_prio", "REQUEUE", []),
        ("preempt/qos", "CANCEL", []),
        ("preempt/partition_prio", "SUSPEND,GANG", []),
        ("preempt/partition_prio", "OFF", ["PreemptMode is OFF"]),
        ("preempt/partition_prio", "SUSPEND", ["needs GANG"]),
        ("preempt/qos", "REQUEU", ["REQUEU is not a PreemptMode"]),
    ],
    ids=["off", "requeue", "qos-cancel", "suspend-gang", "mode-off", "suspend-without-gang", "typo"],
)
def test_check_preemption(ptype, mode, expected):
    findings = preflight.check_preemption(ptype, mode)
    assert len(findings) == len(expected)
    for finding, text in zip(findings, expected, strict=True):
        assert finding["id"] == "preemption"
        assert finding["message"].startswith("slurm_preempt_mode=%s: " % mode)
        assert text in finding["message"]


# --- QOS references ----------------------------------------------------------

DBD_GROUPS = dict(GROUPS, slurmdbd=["dbd1"])


@pytest.mark.parametrize(
    ("partitions", "accounting", "messages"),
    [
        ([], {}, []),
        ([{"name": "p", "config": {"QOS": "interactive"}}], {"qos": [{"name": "interactive"}]}, []),
        ([{"name": "p", "config": {"AllowQos": "ALL"}}], {}, []),
        ([{"name": "p", "config": {"AllowQos": "normal,high"}}], {"qos": [{"name": "High"}]}, []),
        (
            [{"name": "p", "config": {"QOS": "interactive"}}],
            {},
            ["slurm_partitions[p].config.QOS names QOS interactive, which is not declared; add {name: interactive} to slurm_accounting_qos"],
        ),
        (
            [],
            {"accounts": [{"name": "nlp", "qos": ["normal", "hgh"]}], "qos": [{"name": "high"}]},
            ["slurm_accounting_accounts[nlp].qos names QOS hgh, which is not declared"],
        ),
        (
            [],
            {"users": [{"name": "alice", "default_qos": "urgent"}]},
            ["slurm_accounting_users[alice].default_qos names QOS urgent"],
        ),
        (
            [],
            {"qos": [{"name": "high", "preempt": ["scavenger"]}]},
            ["slurm_accounting_qos[high].preempt names QOS scavenger"],
        ),
        (
            [],
            {"qos": [{"name": "old", "state": "absent"}], "accounts": [{"name": "nlp", "qos": ["old"]}]},
            ["slurm_accounting_accounts[nlp].qos names QOS old, which is not declared"],
        ),
        ([], {"accounts": [{"name": "gone", "state": "absent", "qos": ["nope"]}]}, []),
    ],
    ids=[
        "nothing",
        "partition-qos-declared",
        "allow-all",
        "case-folded",
        "partition-qos-undeclared",
        "account-qos-typo",
        "user-default-qos",
        "qos-preempts-undeclared",
        "removed-qos-still-used",
        "absent-account-ignored",
    ],
)
def test_check_qos_references(partitions, accounting, messages):
    findings = preflight.check_qos_references(DBD_GROUPS, partitions, accounting)
    assert ids(findings) == ["qos_defined"] * len(messages)
    for finding, message in zip(findings, messages, strict=True):
        assert message in finding["message"]


def test_check_qos_references_without_accounting_host():
    findings = preflight.check_qos_references(GROUPS, [{"name": "p", "config": {"QOS": "normal"}}], {})
    assert ids(findings) == ["qos_defined"]
    assert "the inventory has no slurmdbd host" in findings[0]["message"]


def test_inventory_findings_checks_qos_references():
    findings = inventory_findings(
        DBD_GROUPS, {}, PARTITIONS, GOOD_KEY, dbd_storage_pass="a-long-enough-password", accounting={"users": [{"name": "bob", "qos": ["x"]}]}
    )
    assert ids(findings) == ["qos_defined"]


# --- GPUs on a host ----------------------------------------------------------

H200_FILES = ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"]


@pytest.mark.parametrize(
    ("gpus", "present", "message"),
    [
        ({}, [], None),
        ({"type": "h200", "count": 4}, H200_FILES, None),
        (
            {"type": "h200", "count": 4},
            H200_FILES[:2],
            "gpu01: slurm_node_gpus declares 4 h200 GPUs (/dev/nvidia[0-3]) but /dev/nvidia2, /dev/nvidia3 are not a character device there",
        ),
        ({"type": "h200", "count": 1}, [], "but /dev/nvidia0 is not a character device"),
        ({"type": "h200", "count": -1}, [], "host gpu01: slurm_node_gpus.count=-1 must be a whole number"),
    ],
    ids=["none", "all-present", "two-missing", "one-missing", "malformed"],
)
def test_check_gpus(gpus, present, message):
    findings = preflight.check_gpus("gpu01", gpus, present)
    if message is None:
        assert findings == []
    else:
        assert ids(findings) == ["gpus"]
        assert message in findings[0]["message"]


def test_host_findings_gpus_only_on_compute_nodes():
    facts = {"distribution": "Debian", "distribution_major_version": "13", "distribution_release": "trixie", "hostname": "gpu01", "memtotal_mb": 64000}
    assert ids(host_findings("gpu01", facts, gpus={"type": "h200", "count": 2})) == ["gpus"]
    assert host_findings("gpu01", facts, is_compute=False, gpus={"type": "h200", "count": 2}) == []
    assert ids(host_findings("gpu01", facts, gpus={"type": "h200", "count": 2}, skip=["gpus"])) == []


# --- duplicate NodeNames -----------------------------------------------------


@pytest.mark.parametrize(
    ("compute", "expected"),
    [
        (["node01", "node02"], []),
        (["node01.pod1.example", "node02.pod1.example"], []),
        (["node01.pod1.example", "node01.pod2.example"], ["hosts node01.pod1.example, node01.pod2.example, which all become NodeName=node01"]),
        (["n1", "n1.lab", "n2", "n2.lab"], ["hosts n1, n1.lab, which all become NodeName=n1", "hosts n2, n2.lab, which all become NodeName=n2"]),
    ],
    ids=["short-names", "one-domain", "two-pods-one-name", "two-pairs"],
)
def test_check_node_names(compute, expected):
    findings = preflight.check_node_names({"slurm_compute": compute})
    assert [(f["id"], f["severity"]) for f in findings] == [("node_names_unique", "error")] * len(expected)
    for finding, text in zip(findings, expected, strict=True):
        assert text in finding["message"]
        assert "give each node its own short name" in finding["message"]


# --- shared state for a backup controller -----------------------------------


@pytest.mark.parametrize(
    ("controllers", "config", "message"),
    [
        (["c1"], {}, None),
        (["c1", "c2"], {"StateSaveLocation": "/shared/slurmctld"}, None),
        (["c1", "c2", "c3"], {}, None),
        (["c1", "c2"], {}, "slurmctld has 2 hosts (c1, c2) but slurm_config.StateSaveLocation=/var/lib/slurm/slurmctld is the collection's local"),
        (["c1", "c2"], {"statesavelocation": "/var/lib/slurm/slurmctld/"}, "slurm_config.StateSaveLocation=/var/lib/slurm/slurmctld/ is"),
        (["c1", "c2"], {"StateSaveLocation": None}, "slurm_config.StateSaveLocation=/var/lib/slurm/slurmctld is"),
        (["c1"], {"StateSaveLocation": "state"}, "slurm_config.StateSaveLocation=state is not an absolute path"),
    ],
    ids=["one-controller", "shared-path", "three-is-controller-count", "two-local-default", "trailing-slash-lower-key", "null-value", "relative"],
)
def test_check_state_save(controllers, config, message):
    findings = preflight.check_state_save({"slurmctld": controllers}, config)
    if message is None:
        assert findings == []
    else:
        finding = only(findings)
        assert (finding["id"], finding["severity"]) == ("state_save_shared", "error")
        assert message in finding["message"]


def test_check_state_save_names_the_fix():
    finding = only(preflight.check_state_save({"slurmctld": ["c1", "c2"]}, {}))
    assert "Set slurm_config.StateSaveLocation to a directory on storage both controllers mount" in finding["message"]


# --- Slurm version pin -------------------------------------------------------


@pytest.mark.parametrize("version", [None, "", "24.11.5-4", "24.11.5-4+deb13u1", "1:24.11.5-4", "24.11.*", "24.11*", " 24.11.0-1 "])
def test_check_slurm_version_accepts(version):
    assert preflight.check_slurm_version(version) == []


@pytest.mark.parametrize(
    ("version", "seen"),
    [
        ("23.02.6-1", "is Slurm 23.02"),
        ("25.05.1-1", "is Slurm 25.05"),
        ("24.110.1-1", "is Slurm 24.110"),
        ("24.11", "is not a Debian package version of Slurm"),
        (24.11, "is not a Debian package version of Slurm"),
        ("latest", "is not a Debian package version of Slurm"),
    ],
    ids=["older", "newer", "not-a-prefix-match", "series-only", "yaml-float", "word"],
)
def test_check_slurm_version_rejects(version, seen):
    finding = only(preflight.check_slurm_version(version))
    assert (finding["id"], finding["severity"]) == ("slurm_version", "error")
    assert finding["message"].startswith("slurm_package_version=%s %s" % (version, seen))
    assert "pin a 24.11 build" in finding["message"]


@pytest.mark.parametrize(("version", "series"), [("26.05.5-1", "26.05"), ("26.05.*", "26.05"), ("24.11.5-4", "24.11")])
def test_check_slurm_version_accepts_the_platforms_series(version, series):
    assert preflight.check_slurm_version(version, series) == []


def test_check_slurm_version_names_the_platform_and_the_tested_ones():
    finding = only(preflight.check_slurm_version("24.11.5-4", "26.05"))
    assert "configures Slurm 26.05 on Debian forky (testing)" in finding["message"]
    assert "tested with Debian 13 trixie with Slurm 24.11 and Debian forky (testing) with Slurm 26.05" in finding["message"]
    assert "pin a 26.05 build" in finding["message"]


@pytest.mark.parametrize(
    ("facts", "series"),
    [(DEBIAN, "24.11"), (FORKY, "26.05"), (dict(DEBIAN, distribution_release="bookworm"), None), (None, None), ({}, None)],
)
def test_platform_series(facts, series):
    assert preflight.platform_series(facts) == series


def test_os_supported_names_the_tested_platforms():
    finding = only(preflight.host_findings("node01", dict(DEBIAN, distribution_version="12.9", distribution_release="bookworm")))
    assert finding["message"] == (
        "node01 runs Debian 12.9 (bookworm); this collection is tested on Debian 13 trixie with Slurm 24.11 and "
        "Debian forky (testing) with Slurm 26.05 only. Add os_supported to preflight_skip to try it anyway (untested)"
    )


def test_inventory_checks_follow_the_controllers_series():
    groups = {"slurmctld": ["ctl"], "slurm_compute": ["node01"]}
    # Removed in 26.05 (its successor is NamespaceType), valid in 24.11.
    config = {"JobContainerType": "job_container/tmpfs"}
    assert "config_key" not in ids(preflight.inventory_findings(groups, config, [], "x" * 64, series="24.11"))
    assert "config_key" in ids(preflight.inventory_findings(groups, config, [], "x" * 64, series="26.05"))


# --- hostlist expressions ----------------------------------------------------


@pytest.mark.parametrize("expression", ["node01", "node[01-04,07]", "a,b,c", "rack[1-2]_n[1-8]", "n[7]", "/dev/nvidia[0-7]"])
def test_hostlist_problem_accepts(expression):
    from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import expand

    assert preflight.hostlist_problem(expression) is None
    assert expand(expression)


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("", "it is empty"),
        (None, "it is empty"),
        ("node[1-2", "'[' has no ']'"),
        ("node1-2]", "']' has no '['"),
        ("node[[1-2]]", "brackets are nested"),
        ("node[2-1]", "the range 2-1 runs backwards"),
        ("node[a-b]", "[a-b] holds 'a-b', which is not a number"),
        ("node[1,,3]", "holds '', which is not a number"),
        ("node[]", "holds ''"),
        ("a,,b", "an empty name between commas"),
        ("a,", "an empty name between commas"),
        ("node 1", "whitespace"),
        ("node[1-1000000]", "names 1000000 hosts"),
    ],
    ids=[
        "empty",
        "none",
        "unclosed",
        "unopened",
        "nested",
        "backwards",
        "letters",
        "empty-item",
        "empty-brackets",
        "double-comma",
        "trailing-comma",
        "space",
        "huge",
    ],
)
def test_hostlist_problem_rejects(expression, problem):
    assert problem in preflight.hostlist_problem(expression)


def test_check_hostlists_names_where():
    findings = preflight.check_hostlists({"spine": ["leaf1", "leaf[3-2]"]}, [{"name": "rack1", "nodes": "n[1-2"}, {"name": "rack2", "nodes": ["n3"]}])
    assert ids(findings) == ["hostlist", "hostlist"]
    assert findings[0]["message"].startswith("slurm_topology_spines.spine=leaf[3-2] is not a hostlist expression: the range 3-2 runs backwards;")
    assert findings[1]["message"].startswith("slurm_topology_blocks[rack1].nodes=n[1-2 is not a hostlist expression: '[' has no ']';")
    assert all("write names or ranges such as node[01-04,07]" in f["message"] for f in findings)


# --- topology from the inventory ---------------------------------------------

COMPUTE = ["n1", "n2", "n3", "n4"]
LEAVES = [{"name": "leaf1", "nodes": ["n1", "n2"]}, {"name": "leaf2", "nodes": ["n3", "n4"]}]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"source": ""}, []),
        ({"source": None}, []),
        ({"source": "ibnetdiscover"}, []),
        ({"source": "inventory", "switches": LEAVES + [{"name": "spine", "switches": ["leaf1", "leaf2"]}]}, []),
        ({"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-2]"}, {"name": "r2", "nodes": "n[3-4]"}]}, []),
        ({"source": "tree"}, [("topology", "error", "slurm_topology_source=tree is not a topology source")]),
        (
            {"source": "inventory", "switches": LEAVES + [{"name": "a", "switches": ["b", "leaf1"]}, {"name": "b", "switches": ["a", "leaf2"]}]},
            [("topology", "error", "slurm_topology_source=inventory: switches a, b form a cycle")],
        ),
        (
            {"source": "inventory", "switches": LEAVES + [{"name": "spine", "switches": "leaf[1-3]"}]},
            [("topology", "error", "switch spine has child switch leaf3, which is not defined; fix the hosts' slurm_topology_leaf")],
        ),
        (
            {"source": "inventory", "switches": LEAVES[:1] + [{"name": "spine", "switches": ["leaf1"]}]},
            [("topology_nodes", "warning", "places no switch or block over slurm_compute nodes n[3-4]")],
        ),
        (
            {"source": "inventory", "switches": LEAVES[:1] + [{"name": "spine", "switches": ["leaf1"]}], "strict": True},
            [("topology_nodes", "error", "places no switch or block over slurm_compute nodes n[3-4]")],
        ),
        (
            {"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-2]"}, {"name": "r2", "nodes": "n[3-4,9]"}]},
            [("topology", "error", "blocks r2 hold more nodes than the base block size 2")],
        ),
        (
            {"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-2]"}, {"name": "r2", "nodes": "n[8-9]"}, {"name": "r3", "nodes": "n[3-4]"}]},
            [("topology_nodes", "error", "slurm_topology_source=blocks names nodes n[8-9], which are not in slurm_compute")],
        ),
        (
            {"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-2]"}, {"name": "r2", "nodes": "n[2-1]"}]},
            [("topology", "error", "slurm_topology_source=blocks:")],
        ),
        (
            {"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-4]"}], "block_sizes": [4, "x"]},
            [("topology", "error", "slurm_topology_source=blocks:")],
        ),
    ],
    ids=[
        "none",
        "null",
        "ibnetdiscover-on-the-controller",
        "inventory-tree",
        "blocks",
        "unknown-source",
        "cycle",
        "undefined-child",
        "uncovered-warns",
        "uncovered-strict",
        "block-too-big",
        "block-unknown-nodes",
        "backwards-range-does-not-raise",
        "bad-size-does-not-raise",
    ],
)
def test_check_topology(kwargs, expected):
    source = kwargs.pop("source")
    findings = preflight.check_topology(source, COMPUTE, **kwargs)
    assert [(f["id"], f["severity"]) for f in findings] == [(i, s) for i, s, dummy in expected]
    for finding, expectation in zip(findings, expected, strict=True):
        assert expectation[2] in finding["message"]


def test_inventory_findings_checks_hostlists_before_the_topology():
    topology = {"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-"}]}
    findings = inventory_findings(GROUPS, {}, PARTITIONS, GOOD_KEY, topology_inputs=topology)
    assert ids(findings) == ["hostlist"]
    assert inventory_findings(GROUPS, {}, PARTITIONS, GOOD_KEY, topology_inputs=topology, skip=["hostlist"]) == []


def test_inventory_findings_new_checks_and_skip():
    groups = {"slurmctld": ["c1", "c2"], "slurm_compute": ["n1.a", "n1.b"]}
    topology = {"source": "blocks", "blocks": [{"name": "r1", "nodes": "n[1-2]"}]}
    everything = ["node_names_unique", "state_save_shared", "slurm_version", "topology_nodes"]
    assert ids(inventory_findings(groups, {}, [], "", slurm_version="23.02.6-1", topology_inputs=topology)) == everything
    for check in everything:
        remaining = [i for i in everything if i != check]
        assert ids(inventory_findings(groups, {}, [], "", slurm_version="23.02.6-1", topology_inputs=topology, skip=[check])) == remaining


# --- partitions: entries the collection cannot write -------------------------


@pytest.mark.parametrize(
    ("partitions", "message"),
    [
        ([{"groups": ["slurm_compute"]}], "an entry has no name"),
        ([{"name": "a", "groups": ["slurm_compute"]}, {"name": "a", "groups": ["gpu"]}], "partition a is declared twice"),
        ([{"name": "a"}], "partition a has groups=None; list the inventory groups"),
        ([{"name": "a", "groups": []}], "partition a has groups=[]"),
        ([{"name": "a", "groups": ["gpu"], "config": {"Nodes": "node[01-02]"}}], "partition a sets Nodes=node[01-02] in config"),
        ([{"name": "a", "groups": ["gpu"], "config": {"default": "YES"}}], "partition a sets default=YES in config"),
    ],
    ids=["no-name", "twice", "no-groups", "empty-groups", "nodes-in-config", "default-in-config"],
)
def test_check_partitions_entries(partitions, message):
    finding = only(check_partitions(partitions, GROUPS))
    assert (finding["id"], finding["severity"]) == ("partitions", "error")
    assert message in finding["message"]


# --- node_config on a host ---------------------------------------------------

NODE_FACTS = dict(DEBIAN, processor_vcpus=8)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, None),
        ({}, None),
        ({"RealMemory": 16000, "CPUs": 8, "Weight": 10}, None),
        ({"realmemory": "15000"}, None),
        ({"RealMemory": 16001}, "node01: slurm_node_config.RealMemory=16001 is more than the host has (16000 MB); slurmctld drains"),
        ({"CPUs": 16}, "node01: slurm_node_config.CPUs=16 is more than the host has (8);"),
        ({"RealMemory": "lots"}, "node01: slurm_node_config.RealMemory=lots is not a whole number"),
        ({"NodeName": "x"}, "node01: slurm_node_config.NodeName=x: the NodeName is the host's short inventory name"),
        ("RealMemory=1", "node01: slurm_node_config='RealMemory=1' must be a dict"),
    ],
    ids=["none", "empty", "fits", "string-number-lower-key", "memory-over", "cpus-over", "not-a-number", "nodename", "not-a-dict"],
)
def test_check_node_config(config, message):
    findings = preflight.check_node_config("node01", NODE_FACTS, config)
    if message is None:
        assert findings == []
    else:
        finding = only(findings)
        assert (finding["id"], finding["severity"]) == ("node_config", "error")
        assert message in finding["message"]


def test_host_findings_node_config_on_compute_nodes_only():
    config = {"RealMemory": 99999}
    assert ids(host_findings("node01", NODE_FACTS, node_config=config)) == ["node_config"]
    assert host_findings("ctl1", dict(NODE_FACTS, hostname="ctl1"), is_compute=False, node_config=config) == []
    assert host_findings("node01", NODE_FACTS, node_config=config, skip=["node_config"]) == []


def test_check_gpus_rejects_a_bad_file_expression():
    finding = only(preflight.check_gpus("gpu01", {"type": "h200", "count": 8, "file": "/dev/nvidia[0-7"}, []))
    assert finding["id"] == "gpus"
    assert "gpu01: slurm_node_gpus.file=/dev/nvidia[0-7 is not a hostlist expression: '[' has no ']'" in finding["message"]


@pytest.mark.parametrize(
    ("skip", "says"),
    [
        ("os_supported", "preflight_skip=os_supported is a string, not a list of check ids"),
        (["os_suported"], "names no check: os_suported"),
        ([1], "is a list of non-strings, not a list of check ids"),
    ],
)
def test_preflight_skip_must_be_a_list_of_known_ids(skip, says):
    finding = only(preflight.host_findings("node01", NODE_FACTS, skip=skip))
    assert finding["id"] == "preflight_skip"
    assert says in finding["message"]


# Two sockets of 4 cores as the facts give them; each GPU local to half a socket (NPS2).
SOCKET_FACTS = dict(DEBIAN, processor_vcpus=8, processor_count=2, processor_cores=4, processor_threads_per_core=1)
SPLIT = {"gpus": [{"device_file": "/dev/nvidia0", "cores": "0-1"}, {"device_file": "/dev/nvidia1", "cores": "2-3"}]}
WHOLE = {"gpus": [{"device_file": "/dev/nvidia0", "cores": "0-3"}, {"device_file": "/dev/nvidia1", "cores": "4-7"}]}


def test_discovered_gpus_that_split_a_socket_are_refused_in_preflight():
    finding = only(preflight.host_findings("node01", SOCKET_FACTS, discover=True, accelerators=SPLIT))
    assert finding["id"] == "gpus"
    assert "/dev/nvidia0 is local to cores 0-1, part of socket 0 (cores 0-3)" in finding["message"]
    assert "SlurmdParameters: numa_node_as_socket" in finding["message"]
    assert preflight.host_findings("node01", SOCKET_FACTS, discover=True, accelerators=WHOLE) == []
    # NUMA nodes declared as sockets: the same devices are whole sockets.
    numa = {"Sockets": 4, "CoresPerSocket": 2}
    assert preflight.host_findings("node01", SOCKET_FACTS, discover=True, accelerators=SPLIT, node_config=numa) == []


def test_discovery_and_declared_gpus_together_are_refused():
    finding = only(preflight.host_findings("node01", NODE_FACTS, gpus={"type": "h200", "count": 8}, gpu_files=[], discover=True)[:1])
    assert "slurm_gres_discover=true and slurm_node_gpus=" in finding["message"]


@pytest.mark.parametrize("features", [["a b"], {"rack": "r 1"}, "a,b&c", ["x#y"]])
def test_bad_feature_names_are_refused(features):
    assert [f["id"] for f in preflight.host_findings("node01", NODE_FACTS, features=features)] == ["node_features"]


@pytest.mark.parametrize(
    ("facts", "version", "repository", "series"),
    [
        (DEBIAN, "", None, "24.11"),
        (FORKY, "", None, "26.05"),
        # A site's own 26.05 build on trixie: the collection configures 26.05 there.
        (DEBIAN, "26.05.5-1site1", {"url": "file:///srv/repo"}, "26.05"),
        # Debian's packages: the release decides, whatever the pin says (check_slurm_version refuses the pin).
        (DEBIAN, "26.05.5-1", None, "24.11"),
        # A series the collection has no schema for: the release's.
        (DEBIAN, "25.05.3-1site1", {"url": "file:///srv/repo"}, "24.11"),
        (dict(DEBIAN, distribution_release="bookworm"), "", None, "24.11"),
    ],
)
def test_configured_series(facts, version, repository, series):
    assert preflight.configured_series(facts, version, repository) == series


def test_slurm_openmetrics_true_is_refused_where_slurm_has_no_endpoints():
    findings = inventory_findings(GROUPS, {}, PARTITIONS, GOOD_KEY, settings={"openmetrics": True}, series="24.11")
    assert [(f["id"], f["message"]) for f in findings] == [
        (
            "slurm_openmetrics",
            "slurm_openmetrics=true but Slurm 24.11 has no OpenMetrics endpoints (Slurm 26.05 has them); "
            "set slurm_openmetrics to auto or false; the Slurm metrics collector serves this series",
        )
    ]
    assert inventory_findings(GROUPS, {}, PARTITIONS, GOOD_KEY, settings={"openmetrics": True}, series="26.05") == []


def test_state_save_seen_on_both_controllers_is_shared():
    assert check_state_save_marker("/srv/state/slurmctld", "ctl1", "/srv/state", "ctl2", True) == []


def test_state_save_not_seen_on_the_second_controller_is_refused_with_the_fix():
    (finding,) = check_state_save_marker("/var/lib/slurm/own", "ctl1", "/var/lib/slurm", "ctl2", False)
    assert finding["id"] == "state_save_shared"
    assert finding["severity"] == "error"
    assert finding["message"] == (
        "slurm_config.StateSaveLocation=/var/lib/slurm/own: a file written in /var/lib/slurm on ctl1 is not there on ctl2, "
        "so the controllers do not share it and the backup would take over with no jobs; mount one shared directory "
        "(NFS, Lustre, ...) at /var/lib/slurm on both controllers, or keep one controller"
    )


def test_state_save_that_cannot_be_written_is_a_warning_with_the_reason():
    (finding,) = check_state_save_marker("/nfs/state", "ctl1", None, "ctl2", False, "mktemp: failed to create file via template\nPermission denied\n")
    assert finding["severity"] == "warning"
    assert "could not write a test file on ctl1 (Permission denied)" in finding["message"]


LOGIN_GROUPS = {"slurmctld": ["ctl"], "slurm_compute": ["n1", "n2"], "slurm_login": ["login1"]}


@pytest.mark.parametrize(
    ("setting", "groups", "expected"),
    [
        ("auto", LOGIN_GROUPS, True),
        ("auto", {"slurmctld": ["ctl"], "slurm_compute": ["n1"]}, False),
        ("AUTO", {"slurm_login": []}, False),
        (True, {}, True),
        ("true", {}, True),
        (False, LOGIN_GROUPS, False),
        ("false", LOGIN_GROUPS, False),
        ("yes", {}, True),
        ("no", LOGIN_GROUPS, False),
    ],
)
def test_pam_adopt_on(setting, groups, expected):
    assert pam_adopt.adopt_on(setting, groups) is expected


def test_check_login_accepts_login_nodes_of_their_own():
    assert preflight.check_login(LOGIN_GROUPS, {}, "auto") == []
    assert preflight.check_login(LOGIN_GROUPS, {"PrologFlags": "Alloc,Contain"}, "auto") == []


@pytest.mark.parametrize("group", ["slurmctld", "slurm_compute"])
def test_check_login_refuses_a_login_node_that_is_also_a_daemon_host(group):
    groups = dict(LOGIN_GROUPS, slurm_login=["login1", groups_first(group)])
    findings = preflight.check_login(groups, {}, "auto")
    assert [f["variable"] for f in findings] == ["groups.slurm_login"]
    assert "slurm_login and %s" % group in findings[0]["message"]


def groups_first(group):
    return LOGIN_GROUPS[group][0]


def test_check_login_needs_contain_in_prologflags_when_adopting():
    findings = preflight.check_login(LOGIN_GROUPS, {"prologflags": "Alloc"}, "auto")
    assert len(findings) == 1
    assert findings[0]["variable"] == "slurm_config.PrologFlags"
    assert "PrologFlags: Alloc,Contain" in findings[0]["message"]
    assert "slurm_pam_adopt: false" in findings[0]["message"]
    # Without adoption PrologFlags is the site's business.
    assert preflight.check_login(LOGIN_GROUPS, {"PrologFlags": "Alloc"}, False) == []


@pytest.mark.parametrize("bad", ["yes please", 1, ["auto"], None])
def test_check_login_refuses_a_setting_that_is_not_auto_true_or_false(bad):
    findings = preflight.check_login(LOGIN_GROUPS, {}, bad)
    assert [f["variable"] for f in findings] == ["slurm_pam_adopt"]
    assert "is not auto, true or false" in findings[0]["message"]


def test_settings_check_every_file_they_land_in():
    """cgroups_config, slurmdbd_config and containers_config each against their own file's schema, named by variable."""
    findings = preflight.check_settings(
        {
            "cgroups_config": {"ConstrainCore": True},
            "slurmdbd_config": {"DbdPort": "x"},
            "containers_config": {"RunTimeRun": 'crun run "%b"', "RunTimeQuery": "crun state %n.%u.%j.%s.%t"},
        }
    )
    assert sorted(f["variable"] for f in findings) == [
        "cgroups_config.ConstrainCore",
        "containers_config.RunTimeRun",
        "slurmdbd_config.DbdPort",
    ]
