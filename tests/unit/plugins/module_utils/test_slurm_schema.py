"""The configuration schema: property-based (hypothesis) and example tests.

Every generated invalid key, value, name and injection is refused, per file;
every valid value the man pages give (the schema's choices, the installed
plugins, numbers in range, Slurm times) is accepted.
"""

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.aicluster.slurm.plugins.module_utils import slurm_conf, slurm_schema
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_schema_data import SCHEMAS

SCHEMA = SCHEMAS["24.11"]
PARTS = ("slurm.conf", "partition", "node", "cgroup.conf", "gres.conf", "slurmdbd.conf", "oci.conf")
EXAMPLES = 1000
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SYNTAX = ["\n", "\r", "#", '"', "'", "`", " ", "\t", "\x00", "\x1b", "\\"]
NAME_CHARS = string.ascii_letters + string.digits + "_"


def keys_of(part, *kinds):
    return sorted(name for name, entry in SCHEMA["files"][part].items() if not kinds or entry[1] in kinds)


def refused(part, key, value):
    return slurm_schema.check_parameters(part, {key: value}) != []


def valid_values(part, key):
    """Values the man page documents for this key (its type's own examples)."""
    entry = SCHEMA["files"][part][key]
    kind, choices = entry[1], (entry[2] if len(entry) > 2 else [])
    low, high = slurm_schema.RANGES.get((part, key), (0, slurm_schema.INT_MAX))
    if kind in ("enum", "options"):
        return list(choices) or ["value_1"]
    if kind in ("plugin", "plugins"):
        prefixes = {c.split("/")[0] for c in choices}
        return ["%s/%s" % (p, stem[len(p) + 1 :]) for p in prefixes for stem in SCHEMA["plugins"] if stem.startswith(p + "_")] or [
            "%s/none" % p for p in prefixes
        ]
    if kind.startswith("integer"):
        return [str(low), str(high), str((low + high) // 2)] + (["UNLIMITED"] if kind.endswith("unlimited") else [])
    if kind == "number":
        return [str(low), "%d.5" % low]
    if kind in ("port", "port-range"):
        return ["6817", "1", "65535"]
    if kind == "duration":
        return ["60", "1:00:00", "7-00:00:00", "2-12", "INFINITE", "30:00"]
    if kind == "yesno":
        return ["YES", "no", True, False]
    if kind == "clustername":
        return ["aicluster", "ai-prod_1"]
    if kind == "oversubscribe":
        return ["EXCLUSIVE", "FORCE:4", "NO", "YES"]
    if kind == "command":
        return ["crun --rootless=true --root=/run/aicluster/oci/%U state %n.%u.%j.%s.%t", "/usr/bin/runc"]
    if kind == "regex":
        return ["^(SLURM_CONF|SLURM_CONF_SERVER)=", "^X[0-9]+ Y$"]
    return ["/var/lib/slurm/example", "value_1"]


@pytest.mark.parametrize("part", PARTS)
def test_every_documented_value_is_accepted(part):
    rejected = []
    for key in keys_of(part):
        for value in valid_values(part, key):
            findings = slurm_schema.check_parameters(part, {SCHEMA["files"][part][key][0]: value})
            if findings:
                rejected.append(findings[0]["message"])
    assert rejected == []


@pytest.mark.parametrize("part", PARTS)
@PROPERTY
@given(data=st.data())
def test_unknown_keys_are_refused(part, data):
    key = data.draw(st.text(alphabet=NAME_CHARS, min_size=1, max_size=30).filter(lambda k: k.lower() not in SCHEMA["files"][part]))
    findings = slurm_schema.check_parameters(part, {key: "1"})
    assert [f["id"] for f in findings] == ["config_key"]
    assert key in findings[0]["message"]


@pytest.mark.parametrize("part", PARTS)
@PROPERTY
@given(data=st.data())
def test_keys_with_syntax_are_refused(part, data):
    known = data.draw(st.sampled_from(keys_of(part)))
    key = data.draw(st.sampled_from([known[:cut] + mark + known[cut:] for cut in range(len(known) + 1) for mark in SYNTAX + ["="]]))
    assert refused(part, key, "1")


@pytest.mark.parametrize("part", PARTS)
@PROPERTY
@given(data=st.data())
def test_injections_are_refused(part, data):
    """A value that would end the line, start a comment or another Key=value is refused whatever the key."""
    key = data.draw(st.sampled_from(keys_of(part)))
    good = data.draw(st.sampled_from([str(v) for v in valid_values(part, key)]))
    # A command or a regular expression is written quoted: spaces in it are not syntax.
    spaced = SCHEMA["files"][part][key][1] in slurm_schema.SPACED_KINDS
    mark = data.draw(st.sampled_from([m for m in SYNTAX if not (spaced and m in " \t")]))
    tail = data.draw(st.sampled_from(["", "SlurmUser=root", "PartitionName=evil Nodes=ALL", "x", "NodeName=n1"]))
    cut = data.draw(st.integers(0, len(good)))
    value = good[:cut] + mark + tail + good[cut:]
    findings = slurm_schema.check_parameters(part, {SCHEMA["files"][part][key][0]: value})
    assert findings
    assert findings[0]["id"] == "config_value"
    assert "\n" not in findings[0]["message"]


def _bad_typed(kind, choices, data):
    words = st.text(alphabet=string.ascii_letters + "/_", min_size=1, max_size=20)
    if kind.startswith("integer") or kind in ("port", "port-range"):
        return data.draw(
            st.one_of(
                words.filter(lambda w: w.upper() not in ("UNLIMITED", "INFINITE")),
                st.integers(slurm_schema.INT_MAX + 1, 2**64).map(str),
                st.integers(70000, 2**40).map(str) if kind.startswith("port") else st.integers(-(2**31), -1).map(str),
            )
        )
    if kind == "number":
        return data.draw(st.one_of(words, st.integers(-1000, -1).map(str)))
    if kind == "duration":
        return data.draw(words.filter(lambda w: w.upper() not in ("INFINITE", "UNLIMITED")))
    if kind == "yesno":
        return data.draw(words.filter(lambda w: w.lower() not in ("yes", "no", "true", "false", "y", "n")))
    if kind == "enum":
        return data.draw(words.filter(lambda w: w.lower() not in {c.lower() for c in choices}))
    if kind == "options":
        names = {c.lower() for c in choices}
        return data.draw(st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=20).filter(lambda w: w not in names))
    if kind in ("plugin", "plugins"):
        prefix = choices[0].split("/")[0]
        return (
            prefix
            + "/"
            + data.draw(
                st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=12).filter(
                    lambda w: "%s_%s" % (prefix, w) not in SCHEMA["plugins"] and w != "none"
                )
            )
        )
    if kind == "clustername":
        return data.draw(
            st.one_of(
                st.text(alphabet=string.ascii_uppercase, min_size=1, max_size=10),
                st.text(alphabet=string.ascii_lowercase, min_size=41, max_size=60),
                st.just("1abc"),
            )
        )
    if kind == "oversubscribe":
        return data.draw(words.filter(lambda w: w.upper() not in ("EXCLUSIVE", "FORCE", "YES", "NO")))
    return None


TYPED = [
    (part, key)
    for part in PARTS
    for key, entry in SCHEMA["files"][part].items()
    if entry[1] not in ("string", "list") + slurm_schema.SPACED_KINDS and not (entry[1] == "options" and len(entry) < 3)
]


@pytest.mark.parametrize("part", [p for p in PARTS if any(t[0] == p for t in TYPED)])
@PROPERTY
@given(data=st.data())
def test_values_of_the_wrong_type_are_refused(part, data):
    key = data.draw(st.sampled_from([k for p, k in TYPED if p == part]))
    entry = SCHEMA["files"][part][key]
    value = _bad_typed(entry[1], entry[2] if len(entry) > 2 else [], data)
    findings = slurm_schema.check_parameters(part, {entry[0]: value})
    assert [f["id"] for f in findings] == ["config_value"], (entry, value)


@pytest.mark.parametrize("kind", ["cluster", "node", "partition", "feature"])
@PROPERTY
@given(data=st.data())
def test_bad_names_are_refused(kind, data):
    name = data.draw(
        st.one_of(
            st.sampled_from(
                (["DEFAULT", "default"] if kind in ("node", "partition") else []) + ["", "a b", "x#y", "x\ny", "a&b", "a|b", "a[1]", "a*", "a,b", "a!b"]
                if kind != "cluster"
                else ["", "AI", "a b", "1x"]
            ),
            st.text(min_size=1, max_size=8).map(lambda t: "ok" + t + "\n"),
            st.text(alphabet="&|[]*,! \t#\"'", min_size=1, max_size=5).map(lambda t: "n" + t),
            st.text(alphabet=string.ascii_lowercase, min_size=70, max_size=90),
        )
    )
    assert slurm_schema.name_problem(kind, name) is not None


@pytest.mark.parametrize(
    ("kind", "name"),
    [("cluster", "aicluster"), ("cluster", "ai-prod_2"), ("node", "gpu00001"), ("node", "node01.pod1"), ("partition", "batch"), ("feature", "gpu_type=h200")],
)
def test_good_names_are_accepted(kind, name):
    assert slurm_schema.name_problem(kind, name) is None


def test_plugins_are_checked_against_the_host():
    """An installed plugin passes; the same name fails on a host whose plugin files lack it."""
    assert slurm_schema.value_problem("slurm.conf", "SchedulerType", "sched/backfill") is None
    problem = slurm_schema.value_problem("slurm.conf", "SchedulerType", "sched/backfill", plugins=["sched_builtin"])
    assert problem.startswith("is not installed (no sched_backfill.so")


def test_unknown_key_gets_the_closest_name():
    finding = slurm_schema.check_parameters("slurm.conf", {"SlurmctlTimeout": 120})[0]
    assert finding["message"] == ("slurm_config.SlurmctlTimeout: no such parameter in Slurm 24.11's slurm.conf; did you mean SlurmctldTimeout? (slurm.conf(5))")
    assert finding["variable"] == "slurm_config.SlurmctlTimeout"
    assert finding["fix"].startswith("did you mean SlurmctldTimeout")


def test_keys_match_case_insensitively():
    assert slurm_schema.check_parameters("slurm.conf", {"slurmctldtimeout": 120, "SCHEDULERTYPE": "sched/backfill"}) == []


TEXT = """# managed
ClusterName=aicluster
SlurmctldHost=ctl1
SlurmctldHost=ctl2(ctl2.example)
TaskPlugin=task/cgroup,task/affinity
SchedulerParameters=bf_continue,bf_window=10080
NodeName=gpu[001-128] CPUs=64 RealMemory=500000 Gres=gpu:h200:8 Port=[17001-17128] State=UNKNOWN
PartitionName=batch Nodes=gpu[001-128] Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
"""


def test_a_whole_file_as_written_passes():
    assert slurm_schema.check_text("slurm.conf", TEXT) == []


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("SlurmUser=slurm\nSlurmUser=root", "sets SlurmUser again (first on line"),
        ("SlurmctldTimeout=120 SlurmUser=root", "holds more than one parameter"),
        ("PartitionName=evil Nodes=ALL MaxTme=1", "MaxTme: no such parameter in Slurm 24.11's PartitionName lines"),
        ("NodeName=n[1-2] CPUs=two", "CPUs=two is not a whole number"),
        ("PartitionName=DEFAULT2 Nodes=n1 State=OPEN", "State=OPEN is not one of UP"),
        ("NodeName=bad&name CPUs=2", "is not a node name"),
        ("just words", "is not Key=value words"),
    ],
)
def test_a_whole_file_with_problems(line, says):
    findings = slurm_schema.check_text("slurm.conf", "ClusterName=aicluster\n" + line + "\n")
    assert any(says in f["message"] for f in findings), [f["message"] for f in findings]


def test_gres_conf_lines_as_the_collection_writes_them():
    """Discovered GPUs and Ascend NPUs (a GRES name of GresTypes' own, npu) pass."""
    text = "AutoDetect=off\nNodeName=n1 Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-55\nNodeName=n2 Name=npu Type=910b File=/dev/davinci0 Cores=0-23\n"
    assert slurm_schema.check_text("gres.conf", text) == []


def test_plugins_of_files_are_the_stems_of_the_shared_objects():
    paths = ["/usr/lib/x/slurm-wlm/sched_backfill.so", "/usr/lib/x/slurm-wlm/select_cons_tres.so", "/usr/lib/x/slurm-wlm/README", "/x/so"]
    assert slurm_schema.plugins_of_files(paths) == ["sched_backfill", "select_cons_tres"]
    assert slurm_schema.plugins_of_files([]) == []


@pytest.mark.parametrize(
    ("part", "params", "gone_in", "there_in"),
    [
        # 26.05 replaced job_container/tmpfs with namespace/tmpfs, and a partition's ExclusiveUser with Exclusive.
        ("slurm.conf", {"JobContainerType": "job_container/tmpfs"}, "26.05", "24.11"),
        ("slurm.conf", {"NamespaceType": "namespace/tmpfs"}, "24.11", "26.05"),
        ("partition", {"ExclusiveUser": "YES"}, "26.05", "24.11"),
        ("cgroup.conf", {"EnableExtraControllers": "cpuset"}, "24.11", "26.05"),
    ],
)
def test_each_series_has_its_own_schema(part, params, gone_in, there_in):
    assert slurm_schema.check_parameters(part, params, "slurm_config", series=there_in) == []
    found = slurm_schema.check_parameters(part, params, "slurm_config", series=gone_in)
    assert len(found) == 1
    assert "no such parameter in Slurm %s's" % gone_in in found[0]["message"]
    # The message names the series that has it.
    assert "(Slurm %s has it)" % there_in in found[0]["message"]


def test_a_dropped_parameter_or_plugin_names_its_successor():
    (found,) = slurm_schema.check_parameters("slurm.conf", {"JobContainerType": "job_container/tmpfs"}, "slurm_config", series="26.05")
    assert found["message"] == (
        "slurm_config.JobContainerType: no such parameter in Slurm 26.05's slurm.conf (Slurm 24.11 has it); use NamespaceType=namespace/tmpfs (slurm.conf(5))"
    )
    (found,) = slurm_schema.check_parameters("slurm.conf", {"TopologyPlugin": "topology/default"}, "slurm_config", series="26.05")
    assert "no topology_default.so among the Slurm 26.05 plugins (Slurm 24.11 has it)" in found["message"]
    assert "; use topology/flat" in found["message"]
    (found,) = slurm_schema.check_parameters("slurm.conf", {"TopologyPlugin": "topology/flat"}, "slurm_config", series="24.11")
    assert "(Slurm 26.05 has it)" in found["message"]
    # A name neither series has says nothing about the other.
    (found,) = slurm_schema.check_parameters("slurm.conf", {"NoSuchKey": "1"}, "slurm_config", series="26.05")
    assert "has it" not in found["message"]


def test_series_schemas_name_their_packages():
    assert {series: SCHEMAS[series]["package"].split(".")[:2] for series in SCHEMAS} == {"24.11": ["24", "11"], "26.05": ["26", "05"]}
    # The plugins each release's packages ship: topology/default is gone in 26.05, topology/flat is new.
    assert "topology_default" in SCHEMAS["24.11"]["plugins"]
    assert "topology_default" not in SCHEMAS["26.05"]["plugins"]
    assert "topology_flat" in SCHEMAS["26.05"]["plugins"]
    assert "topology_flat" not in SCHEMAS["24.11"]["plugins"]


def test_openmetrics_exist_from_the_series_whose_slurm_conf_has_metrics_type():
    assert not slurm_schema.has_openmetrics("24.11")
    assert slurm_schema.has_openmetrics("26.05")


@pytest.mark.parametrize(
    ("setting", "series", "config", "monitored", "enabled"),
    [
        ("auto", "26.05", {}, True, True),
        ("auto", "26.05", {}, False, False),  # no Prometheus of this inventory scrapes them
        ("auto", "24.11", {}, True, False),
        ("auto", "26.05", {"PrivateData": "jobs"}, True, False),
        ("auto", "26.05", {"PrivateData": "jobs", "MetricsParameters": "ignore_private_data"}, True, True),
        (True, "26.05", {}, False, True),
        ("yes", "26.05", {}, False, True),
        (False, "26.05", {}, True, False),
        (True, "24.11", {}, True, False),  # refused in preflight
        ("maybe", "26.05", {}, True, False),
    ],
)
def test_openmetrics_enabled(setting, series, config, monitored, enabled):
    assert slurm_schema.openmetrics_enabled(setting, series, config, monitored) is enabled


@pytest.mark.parametrize(
    ("setting", "series", "config", "problem"),
    [
        (True, "24.11", {}, "Slurm 24.11 has no OpenMetrics endpoints (Slurm 26.05 has them)"),
        ("true", "26.05", {"privatedata": "jobs"}, "PrivateData limits the endpoints"),
        (1, "26.05", {}, "is not auto, true or false"),
        (None, "26.05", {}, "is not auto, true or false"),
    ],
)
def test_openmetrics_problems_name_the_versions_and_the_fix(setting, series, config, problem):
    found, fix = slurm_schema.openmetrics_problem(setting, series, config)
    assert problem in found
    assert fix.startswith(("set slurm_openmetrics", "drop PrivateData"))


@pytest.mark.parametrize("setting", ["auto", True, False, " AUTO ", "no"])
def test_openmetrics_good_settings_have_no_problem(setting):
    assert slurm_schema.openmetrics_problem(setting, "26.05", {}) is None


def test_commands_are_written_quoted_and_read_back_whole():
    """oci.conf's RunTime* commands hold spaces: written quoted, the written file passes and parses to the same value."""
    command = "crun --rootless=true --root=/run/aicluster/oci/%U run --bundle %b %n.%u.%j.%s.%t"
    lines = slurm_conf.parameter_lines({"RunTimeRun": command, "RunTimeEnvExclude": "^(SLURM_CONF|SLURM_CONF_SERVER)=", "SrunArgs": ["--mpi=pmix", "-v"]})
    assert lines == [
        "RunTimeEnvExclude=^(SLURM_CONF|SLURM_CONF_SERVER)=",
        'RunTimeRun="%s"' % command,
        "SrunArgs=--mpi=pmix",
        "SrunArgs=-v",
    ]
    assert slurm_schema.check_text("oci.conf", "\n".join(lines)) == []
    assert slurm_schema.parse_line(lines[1]) == [("RunTimeRun", command)]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('crun run "%b"', "quote"),
        ("crun run %b # comment", "comment"),
        ("crun run\n%b", "line break"),
        (" crun run %b", "whitespace"),
        ("crun run \\%b", "backslash"),
    ],
)
def test_commands_with_syntax_are_refused(value, says):
    findings = slurm_schema.check_parameters("oci.conf", {"RunTimeRun": value})
    assert [f["id"] for f in findings] == ["config_value"]
    assert findings[0]["variable"] == "containers_config.RunTimeRun"
    assert says in findings[0]["message"]


def test_spaces_stay_refused_outside_commands():
    """A path in oci.conf (ContainerPath) or any slurm.conf value is still one word."""
    assert refused("oci.conf", "ContainerPath", "/var/lib/slurm oci")
    assert refused("slurm.conf", "SlurmUser", "slurm root")
