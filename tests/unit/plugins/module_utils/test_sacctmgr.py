"""Parser, normalizers and planner of module_utils/sacctmgr.

The show output below is constructed, not captured from a live slurmdbd: it
follows the `sacctmgr --noheader --parsable2` format of Slurm 24.11 as the
source prints it ('|' between fields, none at the end, unset numbers and
times empty, names lower case, TRES as type/name=count with mem in units,
MaxWall as [D-]HH:MM:SS, PreemptMode lower case and "cluster" when unset).
"""

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import sacctmgr
from ansible_collections.aicluster.slurm.plugins.module_utils.sacctmgr import (
    AccountingError,
    admin_level,
    diffs,
    fairshare,
    flags,
    normalize_desired,
    parse_parsable2,
    parse_state,
    plan,
    preempt_mode,
    render_minutes,
    render_tres,
    show_commands,
    summary,
    tres,
    wall_minutes,
)

CLUSTER = "aicluster"

# Name|Priority|Preempt|PreemptMode|Flags|GrpTRES|MaxTRESPU|MaxTRES|MaxWall|MaxJobsPU
QOS_OUT = """\
normal|0||cluster||||||
high|100|normal|requeue|DenyOnLimit|gres/gpu=64|gres/gpu=16||2-00:00:00|4
"""
# Account|Organization|Description
ACCOUNTS_OUT = """\
root|root|default root account
nlp|research|natural language processing
vision|research|computer vision
"""
# Account|User|Partition|ParentName|Share|QOS|DefaultQOS
ASSOCS_OUT = """\
root||||1|normal|
root|root|||1|normal|
nlp|||root|60|normal,high|normal
nlp|alice|||1|normal,high|normal
vision|||root|40|normal|
vision|bob|||1|normal|
vision|bob|gpu||1|normal|
"""
# User|AdminLevel
USERS_OUT = """\
alice|None
bob|Operator
root|Administrator
"""
# User|DefaultAccount (one row per association)
USER_DEFAULTS_OUT = """\
alice|nlp
bob|vision
bob|vision
root|root
"""
OUTPUTS = {"qos": QOS_OUT, "accounts": ACCOUNTS_OUT, "assocs": ASSOCS_OUT, "users": USERS_OUT, "user_defaults": USER_DEFAULTS_OUT}

# A cluster just registered: the root account and root user only, QOS normal.
EMPTY = {
    "qos": "normal|0||cluster||||||\n",
    "accounts": "root|root|default root account\n",
    "assocs": "root||||1|normal|\nroot|root|||1|normal|\n",
    "users": "root|Administrator\n",
    "user_defaults": "root|root\n",
}

# The desired state that OUTPUTS already is.
DESIRED = {
    "qos": [
        {"name": "normal", "priority": 0},
        {
            "name": "high",
            "priority": 100,
            "preempt": ["normal"],
            "preempt_mode": "requeue",
            "flags": ["DenyOnLimit"],
            "grp_tres": "gres/gpu=64",
            "max_tres_per_user": "gres/gpu=16",
            "max_wall": "2-00:00:00",
            "max_jobs_per_user": 4,
        },
    ],
    "accounts": [
        {
            "name": "nlp",
            "description": "Natural Language Processing",
            "organization": "research",
            "fairshare": 60,
            "qos": ["high", "normal"],
            "default_qos": "normal",
        },
        {"name": "vision", "parent": "root", "fairshare": "40", "qos": ["normal"]},
    ],
    "users": [
        {"name": "alice", "default_account": "nlp", "qos": ["normal", "high"], "default_qos": "normal", "admin_level": "none"},
        {"name": "bob", "default_account": "vision", "fairshare": 1, "admin_level": "operator"},
    ],
}


def desired(**overrides):
    spec = {key: [dict(item) for item in value] for key, value in DESIRED.items()}
    spec.update(overrides)
    return normalize_desired(spec["qos"], spec["accounts"], spec["users"])


def commands(spec, outputs=None):
    return [step["args"] for step in plan(spec, parse_state(outputs or OUTPUTS), CLUSTER)]


# --- parsing ---------------------------------------------------------------------


def test_show_commands_use_parsable2_and_the_cluster():
    shows = show_commands("AICluster")
    assert shows["qos"] == [
        "--noheader",
        "--parsable2",
        "show",
        "qos",
        "format=Name,Priority,Preempt,PreemptMode,Flags,GrpTRES,MaxTRESPU,MaxTRES,MaxWall,MaxJobsPU",
    ]
    assert shows["assocs"][3:6] == ["assoc", "where", "cluster=aicluster"]
    assert shows["user_defaults"][3:6] == ["user", "withassoc", "where"]
    assert all("-i" not in args for args in shows.values())


def test_parse_parsable2_rows_and_free_text_in_last_field():
    rows = parse_parsable2("nlp|research|speech | text\n\nvision|research|\n", ("Account", "Organization", "Description"))
    assert rows == [
        {"Account": "nlp", "Organization": "research", "Description": "speech | text"},
        {"Account": "vision", "Organization": "research", "Description": ""},
    ]


def test_parse_parsable2_rejects_short_lines():
    with pytest.raises(AccountingError, match="2 fields, expected 3"):
        parse_parsable2("nlp|research\n", ("Account", "Organization", "Description"))


def test_parse_state():
    state = parse_state(OUTPUTS)
    assert state["root"] is True
    assert state["qos"]["high"] == {
        "priority": 100,
        "preempt": ("normal",),
        "preempt_mode": ("requeue",),
        "flags": ("denyonlimit",),
        "grp_tres": (("gres/gpu", 64),),
        "max_tres_per_user": (("gres/gpu", 16),),
        "max_tres_per_job": (),
        "max_wall": 2880,
        "max_jobs_per_user": 4,
    }
    assert state["qos"]["normal"]["preempt_mode"] == ()
    assert state["qos"]["normal"]["max_wall"] is None
    assert state["account_assocs"]["nlp"] == {"parent": "root", "fairshare": "60", "qos": ("high", "normal"), "default_qos": "normal"}
    assert state["accounts"]["nlp"] == {"description": "natural language processing", "organization": "research"}
    assert state["user_assocs"]["alice"] == {"nlp": {"fairshare": "1", "qos": ("high", "normal"), "default_qos": "normal"}}
    # bob's partition association counts as membership, not as the account's settings
    assert state["user_assocs"]["bob"] == {"vision": {"fairshare": "1", "qos": ("normal",), "default_qos": ""}}
    assert state["user_accounts"]["bob"] == {"vision"}
    assert state["users"]["bob"] == {"name": "bob", "admin_level": "operator"}
    assert state["users"]["root"]["admin_level"] == "administrator"
    assert state["user_defaults"] == {"alice": "nlp", "bob": "vision", "root": "root"}


def test_parse_state_of_a_cluster_without_root_cannot_plan():
    state = parse_state(dict(EMPTY, assocs=""))
    assert state["root"] is False
    with pytest.raises(AccountingError, match="no root association"):
        plan(desired(), state, CLUSTER)


def test_qos_alone_need_no_registered_cluster():
    # slurmctld cannot start while a partition names a QOS slurmdbd lacks, so
    # the QOS are declared before the cluster registers.
    steps = plan(desired(accounts=[], users=[]), parse_state(dict(EMPTY, assocs="")), CLUSTER)
    assert steps
    assert {step["kind"] for step in steps} == {"qos"}


# --- normalizers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gres/gpu=16", (("gres/gpu", 16),)),
        ("gres/gpu=16,cpu=64", (("cpu", 64), ("gres/gpu", 16))),
        ("cpu=64, GRES/GPU=16", (("cpu", 64), ("gres/gpu", 16))),
        ("mem=100G", (("mem", 102400),)),
        ("mem=102400", (("mem", 102400),)),
        ("mem=1000M", (("mem", 1000),)),
        ("mem=2T,node=4", (("mem", 2 * 1024 * 1024), ("node", 4))),
        ("gres/gpu:a100=4", (("gres/gpu:a100", 4),)),
        ("", ()),
    ],
)
def test_tres(text, expected):
    assert tres(text) == expected


@pytest.mark.parametrize("text", ["gres/gpu:16", "gres/gpu", "cpu=many", "cpu=-1", "mem=10X", "cpu=1,cpu=2"])
def test_tres_rejects(text):
    with pytest.raises(AccountingError):
        tres(text)


def test_render_tres_matches_what_sacctmgr_prints():
    assert render_tres(tres("gres/gpu=16,cpu=64,mem=102400")) == "cpu=64,gres/gpu=16,mem=100G"
    assert render_tres(tres("mem=1000")) == "mem=1000M"
    assert render_tres(()) == ""


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("2-00:00:00", 2880),
        ("2-0", 2880),
        ("1-12", 2160),
        ("1-12:30", 2190),
        ("12:00:00", 720),
        ("90", 90),
        (90, 90),
        ("5:30", 6),  # min:sec rounds up, as time_str2mins does
        ("00:00:01", 1),
        ("-1", None),
        ("UNLIMITED", None),
        ("", None),
    ],
)
def test_wall_minutes(text, minutes):
    assert wall_minutes(text) == minutes


@pytest.mark.parametrize("text", ["two days", "1:2:3:4", "1-2-3", "1d"])
def test_wall_minutes_rejects(text):
    with pytest.raises(AccountingError):
        wall_minutes(text)


def test_render_minutes_is_mins2time_str():
    assert render_minutes(2880) == "2-00:00:00"
    assert render_minutes(2190) == "1-12:30:00"
    assert render_minutes(90) == "01:30:00"
    assert render_minutes(None) == ""
    assert wall_minutes(render_minutes(2190)) == 2190


def test_preempt_mode():
    assert preempt_mode("REQUEUE") == ("requeue",)
    assert preempt_mode("suspend,gang") == preempt_mode("gang,suspend") == ("gang", "suspend")
    assert preempt_mode("on") == ("suspend",)
    assert preempt_mode("off") == preempt_mode("cluster") == preempt_mode("") == ()
    for bad in ("requeue,cancel", "gang,within", "sometimes"):
        with pytest.raises(AccountingError):
            preempt_mode(bad)


def test_flags_fairshare_admin_level():
    assert flags(["NoDecay", "denyonlimit"]) == ("denyonlimit", "nodecay")
    assert flags("DenyOnLimit,NoDecay") == ("denyonlimit", "nodecay")
    with pytest.raises(AccountingError, match="not one of"):
        flags(["NoSuchFlag"])
    assert fairshare(60) == fairshare("060") == "60"
    assert fairshare("Parent") == "parent"
    with pytest.raises(AccountingError):
        fairshare("-5")
    assert admin_level("Not Set") == admin_level("None") == "none"
    assert admin_level("Administrator") == "administrator"


# --- desired state -----------------------------------------------------------------


def test_normalize_desired_lowercases_names_and_keeps_only_given_keys():
    spec = normalize_desired([{"name": "High", "priority": 5}], [{"name": "NLP"}], [{"name": "Alice", "default_account": "NLP", "accounts": ["Vision", "nlp"]}])
    assert spec["qos"][0] == {"name": "high", "key": "high", "state": "present", "values": {"priority": 5}}
    assert spec["accounts"][0]["name"] == "nlp"
    assert spec["accounts"][0]["assoc"] == {}
    assert spec["accounts"][0]["record"] == {}
    assert spec["users"][0]["name"] == "Alice"
    assert spec["users"][0]["key"] == "alice"
    assert spec["users"][0]["accounts"] == ["nlp", "vision"]


@pytest.mark.parametrize(
    ("qos", "accounts", "users", "message"),
    [
        ([], [], [{"name": "alice"}], "default_account is required"),
        ([], [{"name": "nlp", "qos": ["normal"], "default_qos": "high"}], [], "not in its qos list"),
        ([], [{"name": "nlp", "qos": []}], [], "empty list"),
        ([], [{"name": "root", "state": "absent"}], [], "root account cannot be removed"),
        ([], [{"name": "nlp", "parent": "nlp"}], [], "its own parent"),
        ([{"name": "high", "preempt": ["high"]}], [], [], "preempt itself"),
        ([{"name": "a b"}], [], [], "may not contain"),
        ([{"name": "high"}, {"name": "HIGH"}], [], [], "listed twice"),
        ([], [{"name": "nlp", "description": "a|b"}], [], "may not contain"),
    ],
)
def test_normalize_desired_rejects(qos, accounts, users, message):
    with pytest.raises(AccountingError, match=message):
        normalize_desired(qos, accounts, users)


# --- plan: idempotence ---------------------------------------------------------------


def test_desired_equal_to_current_plans_nothing():
    assert commands(desired()) == []


def test_nothing_listed_plans_nothing():
    assert commands(normalize_desired([], [], [])) == []


def test_equivalent_spellings_plan_nothing():
    spec = desired(
        qos=[
            {
                "name": "HIGH",
                "preempt": ["Normal"],
                "preempt_mode": "REQUEUE",
                "flags": ["denyonlimit"],
                "grp_tres": "GRES/GPU=64",
                "max_wall": "2-0",
                "max_tres_per_job": "",
            },
            {"name": "normal", "preempt_mode": "off", "flags": [], "preempt": [], "max_wall": "UNLIMITED", "max_jobs_per_user": -1, "grp_tres": ""},
        ],
        accounts=[{"name": "NLP", "description": "natural language PROCESSING", "qos": ["HIGH", "normal", "high"]}],
        users=[{"name": "Alice", "default_account": "NLP", "accounts": ["nlp"], "fairshare": "1"}],
    )
    assert commands(spec) == []


def test_keys_not_given_are_left_alone():
    spec = desired(qos=[{"name": "high", "priority": 100}], accounts=[{"name": "nlp"}], users=[{"name": "alice", "default_account": "nlp"}])
    assert commands(spec) == []


# --- plan: additions -------------------------------------------------------------------

TYPICAL = {
    "qos": [{"name": "high", "priority": 100, "max_tres_per_user": "gres/gpu=16"}],
    "accounts": [
        {"name": "nlp", "description": "Natural language processing", "fairshare": 60},
        {"name": "vision", "description": "Computer vision", "fairshare": 40},
    ],
    "users": [{"name": "alice", "default_account": "nlp"}],
}


def test_typical_desired_state_on_an_empty_cluster():
    spec = normalize_desired(TYPICAL["qos"], TYPICAL["accounts"], TYPICAL["users"])
    assert commands(spec, EMPTY) == [
        ["-i", "add", "qos", "high", "Priority=100", "MaxTRESPerUser=gres/gpu=16"],
        ["-i", "add", "account", "nlp", "cluster=aicluster", "parent=root", "description=Natural language processing", "fairshare=60"],
        ["-i", "add", "account", "vision", "cluster=aicluster", "parent=root", "description=Computer vision", "fairshare=40"],
        ["-i", "add", "user", "alice", "defaultaccount=nlp", "cluster=aicluster"],
    ]


def test_full_qos_add_renders_every_key():
    spec = normalize_desired(
        [
            {
                "name": "high",
                "priority": 100,
                "preempt": ["normal"],
                "preempt_mode": "suspend,gang",
                "flags": ["NoDecay", "DenyOnLimit"],
                "grp_tres": "gres/gpu=64,cpu=1024",
                "max_tres_per_user": "gres/gpu=16",
                "max_tres_per_job": "gres/gpu=8,mem=512G",
                "max_wall": "48:00:00",
                "max_jobs_per_user": 4,
            }
        ],
        [],
        [],
    )
    assert commands(spec, EMPTY) == [
        [
            "-i",
            "add",
            "qos",
            "high",
            "Priority=100",
            "Preempt=normal",
            "PreemptMode=gang,suspend",
            "Flags=DenyOnLimit,NoDecay",
            "GrpTRES=cpu=1024,gres/gpu=64",
            "MaxTRESPerUser=gres/gpu=16",
            "MaxTRESPerJob=gres/gpu=8,mem=512G",
            "MaxWall=2-00:00:00",
            "MaxJobsPerUser=4",
        ]
    ]


def test_preempt_of_a_qos_added_later_is_set_after_the_adds():
    spec = normalize_desired([{"name": "high", "preempt": ["low"]}, {"name": "low"}], [], [])
    assert commands(spec, EMPTY) == [
        ["-i", "add", "qos", "high"],
        ["-i", "add", "qos", "low"],
        ["-i", "modify", "qos", "where", "name=high", "set", "Preempt=low"],
    ]
    spec = normalize_desired([{"name": "low"}, {"name": "high", "preempt": ["low"]}], [], [])
    assert commands(spec, EMPTY) == [["-i", "add", "qos", "low"], ["-i", "add", "qos", "high", "Preempt=low"]]


def test_accounts_are_added_parents_first():
    spec = normalize_desired(
        [],
        [{"name": "speech", "parent": "nlp"}, {"name": "nlp", "parent": "research"}, {"name": "research", "organization": "r&d"}],
        [],
    )
    assert commands(spec, EMPTY) == [
        ["-i", "add", "account", "research", "cluster=aicluster", "parent=root", "organization=r&d"],
        ["-i", "add", "account", "nlp", "cluster=aicluster", "parent=research"],
        ["-i", "add", "account", "speech", "cluster=aicluster", "parent=nlp"],
    ]


def test_account_parent_cycle_is_an_error():
    spec = normalize_desired([], [{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}], [])
    with pytest.raises(AccountingError, match="cycle"):
        commands(spec, EMPTY)


def test_account_on_another_cluster_gets_an_association_and_its_record_changed_separately():
    outputs = dict(EMPTY, accounts=EMPTY["accounts"] + "nlp|research|nlp\n")
    spec = normalize_desired([], [{"name": "nlp", "description": "NLP group", "organization": "Research"}], [])
    assert commands(spec, outputs) == [
        ["-i", "add", "account", "nlp", "cluster=aicluster", "parent=root"],
        ["-i", "modify", "account", "where", "name=nlp", "set", "description=NLP group"],
    ]


def test_new_user_with_several_accounts_and_settings():
    spec = desired(
        users=[
            {
                "name": "carol",
                "default_account": "vision",
                "accounts": ["nlp", "vision"],
                "fairshare": 10,
                "qos": ["normal"],
                "default_qos": "normal",
                "admin_level": "operator",
            }
        ]
    )
    assert commands(spec) == [
        [
            "-i",
            "add",
            "user",
            "carol",
            "defaultaccount=vision",
            "cluster=aicluster",
            "account=nlp",
            "adminlevel=operator",
            "fairshare=10",
            "qos=normal",
            "defaultqos=normal",
        ]
    ]


def test_existing_user_gets_a_new_association_without_touching_the_others():
    spec = desired(users=[{"name": "alice", "default_account": "nlp", "accounts": ["vision"]}])
    assert commands(spec) == [["-i", "add", "user", "alice", "account=vision", "cluster=aicluster"]]


def test_user_known_to_slurmdbd_but_new_on_this_cluster():
    # dave is listed with a default account although his only associations are on another cluster; it must not count here.
    outputs = dict(EMPTY, users=EMPTY["users"] + "dave|None\n", user_defaults=EMPTY["user_defaults"] + "dave|nlp\n")
    outputs["assocs"] += "nlp|||root|1|normal|\n"
    spec = normalize_desired([], [], [{"name": "dave", "default_account": "nlp", "admin_level": "operator"}])
    assert commands(spec, outputs) == [
        ["-i", "add", "user", "dave", "account=nlp", "cluster=aicluster"],
        ["-i", "modify", "user", "where", "name=dave", "cluster=aicluster", "set", "defaultaccount=nlp"],
        ["-i", "modify", "user", "where", "name=dave", "set", "adminlevel=operator"],
    ]


# --- plan: modifications -------------------------------------------------------------------


def test_single_qos_key_changes_alone():
    spec = desired()
    spec["qos"][1]["values"]["priority"] = 200
    assert commands(spec) == [["-i", "modify", "qos", "where", "name=high", "set", "Priority=200"]]


def test_tres_change_clears_entries_no_longer_wanted():
    spec = desired(qos=[{"name": "high", "max_tres_per_user": "cpu=256", "grp_tres": ""}])
    assert commands(spec) == [["-i", "modify", "qos", "where", "name=high", "set", "GrpTRES=gres/gpu=-1", "MaxTRESPerUser=cpu=256,gres/gpu=-1"]]


@pytest.mark.parametrize(
    ("key", "value", "arg"),
    [
        ("max_wall", "-1", "MaxWall=-1"),
        ("max_wall", "3-00:00:00", "MaxWall=3-00:00:00"),
        ("max_jobs_per_user", -1, "MaxJobsPerUser=-1"),
        ("flags", [], "Flags=-1"),
        ("flags", ["NoDecay"], "Flags=NoDecay"),
        ("preempt", [], "Preempt="),
        ("preempt_mode", "cluster", "PreemptMode=cluster"),
        ("preempt_mode", "cancel", "PreemptMode=cancel"),
    ],
)
def test_qos_clear_and_set_arguments(key, value, arg):
    spec = desired(qos=[{"name": "high", key: value}])
    assert commands(spec) == [["-i", "modify", "qos", "where", "name=high", "set", arg]]


def test_account_association_and_record_changes():
    spec = desired(accounts=[{"name": "vision", "fairshare": 50, "qos": ["normal", "high"], "default_qos": "high", "organization": "Applied"}])
    assert commands(spec) == [
        ["-i", "modify", "account", "where", "name=vision", "set", "organization=Applied"],
        ["-i", "modify", "account", "where", "name=vision", "cluster=aicluster", "set", "fairshare=50", "qos=high,normal", "defaultqos=high"],
    ]


def test_account_is_moved_only_when_parent_is_given():
    spec = desired(accounts=[{"name": "vision", "parent": "nlp"}])
    assert commands(spec) == [["-i", "modify", "account", "where", "name=vision", "cluster=aicluster", "set", "parent=nlp"]]
    assert commands(desired(accounts=[{"name": "vision"}])) == []


def test_user_settings_default_account_and_admin_level():
    spec = desired(users=[{"name": "bob", "default_account": "nlp", "accounts": ["vision"], "fairshare": "parent", "admin_level": "none"}])
    assert commands(spec) == [
        ["-i", "add", "user", "bob", "account=nlp", "cluster=aicluster", "fairshare=parent"],
        ["-i", "modify", "user", "where", "name=bob", "cluster=aicluster", "account=vision", "set", "fairshare=parent"],
        ["-i", "modify", "user", "where", "name=bob", "cluster=aicluster", "set", "defaultaccount=nlp"],
        ["-i", "modify", "user", "where", "name=bob", "set", "adminlevel=none"],
    ]


# --- plan: removal only when told --------------------------------------------------------


def test_absent_removes_and_order_is_users_accounts_qos():
    spec = desired(
        qos=[{"name": "high", "state": "absent"}],
        accounts=[{"name": "nlp", "state": "absent"}],
        users=[{"name": "alice", "state": "absent"}],
    )
    assert commands(spec) == [
        ["-i", "delete", "user", "where", "name=alice", "cluster=aicluster"],
        ["-i", "delete", "account", "where", "name=nlp", "cluster=aicluster"],
        ["-i", "delete", "qos", "where", "name=high"],
    ]


def test_absent_when_already_gone_plans_nothing():
    spec = normalize_desired([{"name": "gone", "state": "absent"}], [{"name": "gone", "state": "absent"}], [{"name": "gone", "state": "absent"}])
    assert commands(spec) == []


def test_accounts_are_deleted_children_first():
    outputs = dict(OUTPUTS, assocs=OUTPUTS["assocs"] + "speech|||nlp|1|normal|\n")
    spec = desired(qos=[], users=[], accounts=[{"name": "nlp", "state": "absent"}, {"name": "speech", "state": "absent"}])
    assert commands(spec, outputs) == [
        ["-i", "delete", "account", "where", "name=speech", "cluster=aicluster"],
        ["-i", "delete", "account", "where", "name=nlp", "cluster=aicluster"],
    ]


def test_unlisted_associations_are_kept_unless_purged():
    outputs = dict(OUTPUTS, assocs=OUTPUTS["assocs"] + "vision|alice|||1|normal|\n")
    keep = desired(users=[{"name": "alice", "default_account": "nlp"}])
    assert commands(keep, outputs) == []
    purge = desired(users=[{"name": "alice", "default_account": "nlp", "purge_accounts": True}])
    assert commands(purge, outputs) == [["-i", "delete", "user", "where", "name=alice", "cluster=aicluster", "account=vision"]]


def test_purge_moves_the_default_before_deleting_the_old_association():
    spec = desired(users=[{"name": "bob", "default_account": "nlp", "purge_accounts": True}])
    assert commands(spec) == [
        ["-i", "add", "user", "bob", "account=nlp", "cluster=aicluster"],
        ["-i", "modify", "user", "where", "name=bob", "cluster=aicluster", "set", "defaultaccount=nlp"],
        ["-i", "delete", "user", "where", "name=bob", "cluster=aicluster", "account=vision"],
    ]


def test_adds_come_before_removals_across_kinds():
    spec = desired(
        qos=[{"name": "low"}, {"name": "high", "state": "absent"}],
        accounts=[{"name": "speech", "parent": "nlp", "qos": ["low"]}, {"name": "vision", "state": "absent"}],
        users=[{"name": "carol", "default_account": "speech"}, {"name": "bob", "state": "absent"}],
    )
    steps = plan(spec, parse_state(OUTPUTS), CLUSTER)
    assert [(step["action"], step["kind"], step["name"]) for step in steps] == [
        ("add", "qos", "low"),
        ("add", "account", "speech"),
        ("add", "user", "carol"),
        ("delete", "user", "bob"),
        ("delete", "account", "vision"),
        ("delete", "qos", "high"),
    ]


# --- plan: references ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"accounts": [{"name": "nlp", "qos": ["gold"]}]}, "qos gold, which does not exist"),
        ({"qos": [{"name": "high", "preempt": ["gold"]}]}, "qos gold"),
        ({"users": [{"name": "alice", "default_account": "physics"}]}, "account physics, which is not on the cluster"),
        ({"accounts": [{"name": "speech", "parent": "physics"}]}, "parent physics"),
        ({"qos": [{"name": "high", "state": "absent"}], "accounts": [{"name": "nlp", "qos": ["high"]}]}, "qos high, which does not exist"),
    ],
)
def test_unknown_references_fail_before_anything_runs(overrides, message):
    with pytest.raises(AccountingError, match=message):
        commands(desired(**overrides))


# --- diff and summary ------------------------------------------------------------------------


def test_diffs_only_for_changed_objects():
    assert diffs(desired(), parse_state(OUTPUTS)) == []
    spec = desired(qos=[{"name": "high", "priority": 200}, {"name": "new"}], accounts=[], users=[{"name": "bob", "state": "absent"}])
    result = diffs(spec, parse_state(OUTPUTS))
    assert result == [
        {"before_header": "qos high", "after_header": "qos high", "before": "priority: 100\n", "after": "priority: 200\n"},
        {"before_header": "qos new", "after_header": "qos new", "before": "", "after": "present\n"},
        {
            "before_header": "user bob",
            "after_header": "user bob",
            "before": "default_account: vision\naccounts: vision\n",
            "after": "",
        },
    ]


def test_diff_of_a_new_account_and_user():
    spec = normalize_desired([], [{"name": "nlp", "fairshare": 60}], [{"name": "alice", "default_account": "nlp", "qos": ["normal"]}])
    result = {entry["before_header"]: entry for entry in diffs(spec, parse_state(EMPTY))}
    assert result["account nlp"]["before"] == ""
    assert result["account nlp"]["after"] == "parent: root\nfairshare: 60\n"
    assert result["user alice"]["after"] == "default_account: nlp\naccounts: nlp\nassociation nlp: qos=normal\n"


def test_summary_renders_as_sacctmgr_prints():
    result = summary(desired(), parse_state(OUTPUTS))
    assert result["qos"]["high"]["max_wall"] == "2-00:00:00"
    assert result["qos"]["high"]["max_tres_per_user"] == "gres/gpu=16"
    assert result["qos"]["normal"]["preempt_mode"] == "cluster"
    assert result["accounts"]["nlp"]["qos"] == "high,normal"
    assert result["users"]["bob"] == {
        "admin_level": "operator",
        "default_account": "vision",
        "accounts": ["vision"],
        "associations": {"vision": {"fairshare": "1", "qos": "normal", "default_qos": ""}},
    }


def test_module_utils_is_stdlib_only():
    import ast
    import pathlib

    tree = ast.parse(pathlib.Path(sacctmgr.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "re"}


def test_present_qos_keeps_the_present_ones_bare():
    qos = [{"name": "high", "priority": 100, "max_tres_per_user": "gres/gpu=16"}, {"name": "old", "state": "absent"}, {"name": "low", "state": "present"}]
    assert sacctmgr.present_qos(qos) == [{"name": "high"}, {"name": "low"}]
    assert sacctmgr.present_qos(None) == []
