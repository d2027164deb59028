"""Unit tests for the slurm_accounting module, run in-process through the run_module fixture.

AnsibleModule.run_command is replaced by FakeSacctmgr, a small in-memory
slurmdbd that answers the `show` commands in the `--parsable2` format of
Slurm 24.11 (constructed from the source's print routines, not captured from a
live cluster) and applies the add/modify/delete commands the way sacctmgr
does: names and texts lower-cased, TRES merged with -1 removing an entry, MaxWall
in minutes, QOS lists replaced, associations inheriting their parent's QOS.
"""

import re

import pytest
from ansible.module_utils import basic

from ansible_collections.aicluster.slurm.plugins.modules import slurm_accounting

SACCTMGR = "/usr/bin/sacctmgr"
CLUSTER = "aicluster"
TRES_IDS = {"cpu": 1, "mem": 2, "energy": 3, "node": 4, "billing": 5}
QOS_FLAG_ORDER = ["DenyOnLimit", "EnforceUsageThreshold", "NoReserve", "PartitionMaxNodes", "PartitionMinNodes", "OverPartQOS", "PartitionTimeLimit"]
QOS_FLAG_ORDER += ["RequiresReservation", "NoDecay", "Relative", "UsageFactorSafe"]


def _mins(text):
    if text == "-1":
        return None
    days = 0
    if "-" in text:
        day, text = text.split("-", 1)
        days = int(day)
        parts = [int(p) for p in text.split(":")] + [0, 0]
        return days * 1440 + parts[0] * 60 + parts[1] + (1 if parts[2] else 0)
    parts = [int(p) for p in text.split(":")]
    if len(parts) == 3:
        return parts[0] * 60 + parts[1] + (1 if parts[2] else 0)
    return parts[0] + (1 if len(parts) > 1 and parts[1] else 0)


def _print_mins(minutes):
    if minutes is None:
        return ""
    days, rest = divmod(minutes, 1440)
    text = "%02d:%02d:00" % divmod(rest, 60)
    return "%d-%s" % (days, text) if days else text


def _parse_tres(text):
    out = {}
    for token in text.split(","):
        key, value = token.split("=")
        key = key.lower()
        if value == "-1":
            out[key] = None
            continue
        unit = {"G": 1024, "T": 1024 * 1024, "M": 1}.get(value[-1:].upper(), 1)
        out[key] = int(value.rstrip("MGTmgt")) * (unit if key == "mem" else 1)
    return out


def _print_tres(tres):
    def order(key):
        return (TRES_IDS.get(key, 1000), key)

    out = []
    for key in sorted(tres, key=order):
        value = tres[key]
        if key == "mem":
            unit = "M"
            for name in ("G", "T"):
                if value % 1024 == 0:
                    value //= 1024
                    unit = name
            out.append("mem=%d%s" % (value, unit))
        else:
            out.append("%s=%d" % (key, value))
    return ",".join(out)


class FakeSacctmgr:
    """An in-memory slurmdbd behind sacctmgr's command line."""

    def __init__(self):
        self.qos = {"normal": self._new_qos("normal")}
        self.qos["normal"]["priority"] = 0
        self.accounts = {"root": {"description": "default root account", "organization": "root"}}
        self.assocs = [self._assoc("root", "", ""), self._assoc("root", "root", "")]
        self.assocs[0]["qos"] = ["normal"]
        self.users = {"root": {"admin": "Administrator", "default": "root"}}
        self.writes = []
        self.shows = 0

    @staticmethod
    def _new_qos(name):
        return {"name": name, "priority": 0, "preempt": [], "mode": "", "flags": [], "grp": {}, "mtpu": {}, "mtpj": {}, "wall": None, "mjpu": None}

    @staticmethod
    def _assoc(account, user, parent):
        return {"account": account, "user": user, "partition": "", "parent": parent, "share": 1, "qos": [], "defqos": ""}

    # -- command line ---------------------------------------------------------------

    def __call__(self, module, args, **kwargs):
        assert args[0] == SACCTMGR, args
        args = list(args[1:])
        if args[:3] == ["--noheader", "--parsable2", "show"]:
            self.shows += 1
            return 0, self.show(args[3:]), ""
        assert args[0] == "-i", "write without -i would prompt: %r" % args
        self.writes.append(args[1:])
        verb, entity, rest = args[1], args[2], args[3:]
        getattr(self, "%s_%s" % (verb, entity))(*self._split(rest))
        return 0, " done\n", ""

    @staticmethod
    def _split(rest):
        names, where, sets = [], {}, {}
        section = "names"
        for token in rest:
            if token in ("where", "set"):
                section = token
                continue
            if "=" not in token:
                names.append(token.lower())
                continue
            key, value = token.split("=", 1)
            key = key.lower()
            if section == "set":
                sets[key] = value
            else:
                where[key] = value
        if section == "names" and where:
            sets, where = where, {}
        return names, where, sets

    def _qos_names(self, text):
        result = [name.lower() for name in text.split(",") if name]
        for name in result:
            assert name in self.qos, "unknown qos %s" % name
        return result

    # -- qos -----------------------------------------------------------------------------

    def _set_qos(self, qos, sets):
        for key, value in sets.items():
            if key == "priority":
                qos["priority"] = int(value)
            elif key == "preempt":
                qos["preempt"] = self._qos_names(value)
            elif key == "preemptmode":
                qos["mode"] = "" if value.lower() in ("off", "cluster", "") else value.lower()
            elif key == "flags":
                qos["flags"] = [] if value == "-1" else [f for f in QOS_FLAG_ORDER if f.lower() in value.lower().split(",")]
            elif key in ("grptres", "maxtresperuser", "maxtresperjob"):
                target = qos[{"grptres": "grp", "maxtresperuser": "mtpu", "maxtresperjob": "mtpj"}[key]]
                for tres, count in _parse_tres(value).items():
                    if count is None:
                        target.pop(tres, None)
                    else:
                        target[tres] = count
            elif key == "maxwall":
                qos["wall"] = _mins(value)
            elif key == "maxjobsperuser":
                qos["mjpu"] = None if value == "-1" else int(value)
            else:
                raise AssertionError("unknown qos option %s" % key)

    def add_qos(self, names, where, sets):
        for name in names:
            self.qos[name] = self._new_qos(name)
            self._set_qos(self.qos[name], sets)

    def modify_qos(self, names, where, sets):
        self._set_qos(self.qos[where["name"].lower()], sets)

    def delete_qos(self, names, where, sets):
        # slurmdbd drops it from association QOS lists; a preempt bit of a deleted QOS is not printed.
        name = where["name"].lower()
        del self.qos[name]
        for qos in self.qos.values():
            qos["preempt"] = [other for other in qos["preempt"] if other != name]
        for assoc in self.assocs:
            assoc["qos"] = [other for other in assoc["qos"] if other != name]
            if assoc["defqos"] == name:
                assoc["defqos"] = ""

    # -- associations ----------------------------------------------------------------------

    def _set_assoc(self, assoc, sets):
        for key, value in sets.items():
            if key == "fairshare":
                assoc["share"] = value
            elif key == "qos":
                assoc["qos"] = self._qos_names(value)
            elif key == "defaultqos":
                assoc["defqos"] = value.lower()
            elif key == "parent":
                assert any(a["account"] == value and not a["user"] for a in self.assocs)
                assoc["parent"] = value.lower()

    def _find(self, account, user=""):
        return [a for a in self.assocs if a["account"] == account and a["user"] == user]

    def _effective(self, assoc):
        """QOS and default QOS as printed: inherited from the parent when not set."""
        qos, defqos, current = assoc["qos"], assoc["defqos"], assoc
        while not qos or not defqos:
            parent = current["account"] if current["user"] else current["parent"]
            if not parent:
                break
            current = self._find(parent)[0]
            qos = qos or current["qos"]
            defqos = defqos or current["defqos"]
        return qos, defqos

    # -- accounts --------------------------------------------------------------------------

    def add_account(self, names, where, sets):
        assert sets.pop("cluster") == CLUSTER
        parent = sets.pop("parent", "root").lower()
        for name in names:
            record = self.accounts.setdefault(name, {"description": name, "organization": parent})
            for key in ("description", "organization"):
                if key in sets:
                    record[key] = sets[key].lower()
            assert not self._find(name), "account %s is already on the cluster" % name
            assoc = self._assoc(name, "", parent)
            self._set_assoc(assoc, {k: v for k, v in sets.items() if k not in ("description", "organization")})
            self.assocs.append(assoc)

    def modify_account(self, names, where, sets):
        name = where["name"].lower()
        if "cluster" in where:
            self._set_assoc(self._find(name)[0], sets)
        else:
            for key, value in sets.items():
                self.accounts[name][key] = value.lower()

    def delete_account(self, names, where, sets):
        name = where["name"].lower()
        assert where["cluster"] == CLUSTER
        self.assocs = [a for a in self.assocs if a["account"] != name]

    # -- users -------------------------------------------------------------------------------

    def add_user(self, names, where, sets):
        assert sets.pop("cluster") == CLUSTER
        default = sets.pop("defaultaccount", None)
        accounts = [a for a in sets.pop("account", "").split(",") if a]
        admin = sets.pop("adminlevel", None)
        for name in names:
            new = name not in self.users
            if new:
                self.users[name] = {"admin": {"operator": "Operator", "administrator": "Administrator"}.get(admin, "None"), "default": default}
            for account in ([default] if default else []) + accounts:
                assert self._find(account), "account %s is not on the cluster" % account
                if not self._find(account, name):
                    assoc = self._assoc(account, name, "")
                    self._set_assoc(assoc, sets)
                    self.assocs.append(assoc)
            if not self.users[name]["default"]:
                self.users[name]["default"] = default or accounts[0]

    def modify_user(self, names, where, sets):
        name = where["name"]
        if "defaultaccount" in sets:
            assert self._find(sets["defaultaccount"], name)
            self.users[name]["default"] = sets.pop("defaultaccount")
        if "adminlevel" in sets:
            self.users[name]["admin"] = sets.pop("adminlevel").capitalize()
        if sets:
            for assoc in self._find(where["account"], name):
                self._set_assoc(assoc, sets)

    def delete_user(self, names, where, sets):
        name = where["name"]
        accounts = where["account"].split(",") if "account" in where else None
        self.assocs = [a for a in self.assocs if not (a["user"] == name and (accounts is None or a["account"] in accounts))]

    # -- show ---------------------------------------------------------------------------------

    def show(self, args):
        entity = args[0]
        fmt = [a for a in args if a.startswith("format=")][0][len("format=") :].split(",")
        rows = []
        if entity == "qos":
            assert fmt == ["Name", "Priority", "Preempt", "PreemptMode", "Flags", "GrpTRES", "MaxTRESPU", "MaxTRES", "MaxWall", "MaxJobsPU"]
            order = list(self.qos)
            for q in self.qos.values():
                preempt = ",".join(sorted(q["preempt"], key=order.index))
                mode = q["mode"] or "cluster"
                mjpu = "" if q["mjpu"] is None else str(q["mjpu"])
                row = [q["name"], str(q["priority"]), preempt, mode, ",".join(q["flags"])]
                row += [_print_tres(q["grp"]), _print_tres(q["mtpu"]), _print_tres(q["mtpj"]), _print_mins(q["wall"]), mjpu]
                rows.append(row)
        elif entity == "account":
            assert fmt == ["Account", "Organization", "Description"]
            rows = [[name, r["organization"], r["description"]] for name, r in self.accounts.items()]
        elif entity == "assoc":
            assert fmt == ["Account", "User", "Partition", "ParentName", "Share", "QOS", "DefaultQOS"]
            order = list(self.qos)
            for a in self.assocs:
                qos, defqos = self._effective(a)
                rows.append([a["account"], a["user"], a["partition"], a["parent"], str(a["share"]), ",".join(sorted(qos, key=order.index)), defqos])
        elif entity == "user" and "withassoc" in args:
            assert fmt == ["User", "DefaultAccount"]
            rows = [[a["user"], self.users[a["user"]]["default"]] for a in self.assocs if a["user"]]
        elif entity == "user":
            assert fmt == ["User", "AdminLevel"]
            rows = [[name, u["admin"]] for name, u in self.users.items()]
        else:
            raise AssertionError(args)
        return "".join("|".join(row) + "\n" for row in rows)


@pytest.fixture
def fake(monkeypatch):
    db = FakeSacctmgr()

    def run_command(module, args, **kwargs):
        return db(module, args, **kwargs)

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    return db


def run(run_module, check_mode=False, diff=False, **params):
    args = dict(params, cluster=CLUSTER, sacctmgr_path=SACCTMGR)
    if diff:
        args["_ansible_diff"] = True
    return run_module(slurm_accounting.main, args, check_mode=check_mode)


TYPICAL = {
    "qos": [{"name": "high", "priority": 100, "max_tres_per_user": "gres/gpu=16"}],
    "accounts": [
        {"name": "nlp", "description": "Natural language processing", "fairshare": 60},
        {"name": "vision", "description": "Computer vision", "fairshare": 40},
    ],
    "users": [{"name": "alice", "default_account": "nlp"}],
}

FULL = {
    "qos": [
        {"name": "normal", "priority": 0},
        {"name": "low", "priority": 10, "preempt_mode": "cancel", "flags": ["NoReserve"]},
        {
            "name": "high",
            "priority": 100,
            "preempt": ["low", "normal"],
            "preempt_mode": "requeue",
            "flags": ["DenyOnLimit", "NoDecay"],
            "grp_tres": "gres/gpu=64,cpu=2048,mem=4T",
            "max_tres_per_user": "gres/gpu=16",
            "max_tres_per_job": "gres/gpu=8,node=1",
            "max_wall": "2-00:00:00",
            "max_jobs_per_user": 4,
        },
    ],
    "accounts": [
        {"name": "Speech", "parent": "nlp", "fairshare": "parent"},
        {
            "name": "nlp",
            "description": "Natural Language Processing",
            "organization": "Research",
            "fairshare": 60,
            "qos": ["normal", "high"],
            "default_qos": "normal",
        },
        {"name": "vision", "fairshare": 40, "qos": ["normal", "low"]},
    ],
    "users": [
        {"name": "alice", "default_account": "nlp", "accounts": ["speech"], "qos": ["normal", "high"], "default_qos": "high", "admin_level": "operator"},
        {"name": "bob", "default_account": "vision", "fairshare": 5},
    ],
}


def test_typical_run_commands_then_idempotent(run_module, fake):
    result = run(run_module, **TYPICAL)
    assert result["changed"] is True
    assert result["commands"] == [
        ["-i", "add", "qos", "high", "Priority=100", "MaxTRESPerUser=gres/gpu=16"],
        ["-i", "add", "account", "nlp", "cluster=aicluster", "parent=root", "description=Natural language processing", "fairshare=60"],
        ["-i", "add", "account", "vision", "cluster=aicluster", "parent=root", "description=Computer vision", "fairshare=40"],
        ["-i", "add", "user", "alice", "defaultaccount=nlp", "cluster=aicluster"],
    ]
    assert fake.writes == [args[1:] for args in result["commands"]]
    assert result["accounting"]["qos"]["high"]["max_tres_per_user"] == "gres/gpu=16"
    assert result["accounting"]["users"]["alice"]["default_account"] == "nlp"

    fake.writes.clear()
    again = run(run_module, **TYPICAL)
    assert again["changed"] is False
    assert again["commands"] == []
    assert fake.writes == []


def test_full_state_converges_in_one_run(run_module, fake):
    first = run(run_module, **FULL)
    assert first["changed"] is True
    assert "failed" not in first
    fake.writes.clear()
    second = run(run_module, diff=True, **FULL)
    assert second["changed"] is False, second["commands"]
    assert second["diff"] == []
    assert fake.writes == []
    high = second["accounting"]["qos"]["high"]
    assert high["grp_tres"] == "cpu=2048,gres/gpu=64,mem=4T"
    assert high["preempt"] == "low,normal"
    assert second["accounting"]["accounts"]["speech"]["parent"] == "nlp"
    assert second["accounting"]["users"]["alice"]["associations"]["speech"]["default_qos"] == "high"


def test_check_mode_runs_only_show_commands(run_module, fake):
    result = run(run_module, check_mode=True, diff=True, **TYPICAL)
    assert result["changed"] is True
    assert len(result["commands"]) == 4
    assert fake.writes == []
    assert fake.shows == 5
    headers = [entry["before_header"] for entry in result["diff"]]
    assert headers == ["qos high", "account nlp", "account vision", "user alice"]
    assert result["diff"][0]["after"] == "priority: 100\nmax_tres_per_user: gres/gpu=16\n"
    assert "high" not in result["accounting"]["qos"]


def test_single_change_then_removal_only_when_told(run_module, fake):
    run(run_module, **FULL)
    fake.writes.clear()

    changed = {"qos": [{"name": "high", "max_tres_per_user": "gres/gpu=32"}]}
    result = run(run_module, diff=True, **changed)
    assert result["commands"] == [["-i", "modify", "qos", "where", "name=high", "set", "MaxTRESPerUser=gres/gpu=32"]]
    assert result["diff"] == [
        {"before_header": "qos high", "after_header": "qos high", "before": "max_tres_per_user: gres/gpu=16\n", "after": "max_tres_per_user: gres/gpu=32\n"}
    ]

    # Objects not listed are left alone: an empty task changes nothing.
    assert run(run_module)["commands"] == []
    assert "vision" in fake.accounts
    assert "low" in fake.qos

    removal = {"users": [{"name": "bob", "state": "absent"}], "accounts": [{"name": "vision", "state": "absent"}], "qos": [{"name": "low", "state": "absent"}]}
    result = run(run_module, **removal)
    assert result["commands"] == [
        ["-i", "delete", "user", "where", "name=bob", "cluster=aicluster"],
        ["-i", "delete", "account", "where", "name=vision", "cluster=aicluster"],
        ["-i", "delete", "qos", "where", "name=low"],
    ]
    assert "low" not in fake.qos
    assert run(run_module, **removal)["changed"] is False


def test_sacctmgr_failure_reports_command_and_stderr(run_module, monkeypatch):
    def failing(module, args, **kwargs):
        return 1, "", " sacctmgr: error: Problem talking to the database: Connection refused\n"

    monkeypatch.setattr(basic.AnsibleModule, "run_command", failing)
    result = run(run_module, **TYPICAL)
    assert result["failed"] is True
    assert "Connection refused" in result["msg"]
    assert result["cmd"][:4] == [SACCTMGR, "--noheader", "--parsable2", "show"]
    assert result["rc"] == 1


def test_write_failure_stops_at_the_failing_command(run_module, fake, monkeypatch):
    def refuse_users(module, args, **kwargs):
        if args[1:4] == ["-i", "add", "user"]:
            return 1, "", " error: Problem adding user associations: Invalid account\n"
        return fake(module, args, **kwargs)

    monkeypatch.setattr(basic.AnsibleModule, "run_command", refuse_users)
    result = run(run_module, **TYPICAL)
    assert result["failed"] is True
    assert "Invalid account" in result["msg"]
    assert result["cmd"] == [SACCTMGR, "-i", "add", "user", "alice", "defaultaccount=nlp", "cluster=aicluster"]


def test_change_refused_with_exit_status_zero_fails_after_read_back(run_module, fake, monkeypatch):
    def ignore_deletes(module, args, **kwargs):
        if args[2] == "delete":
            return 0, " Error with request: Jobs are running on the requested association(s)\n", ""
        return fake(module, args, **kwargs)

    run(run_module, **TYPICAL)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", ignore_deletes)
    result = run(run_module, users=[{"name": "alice", "state": "absent"}])
    assert result["failed"] is True
    assert result["pending"] == [["-i", "delete", "user", "where", "name=alice", "cluster=aicluster"]]
    assert any("Jobs are running" in line for line in result["output"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"users": [{"name": "alice"}]}, "default_account is required"),
        ({"qos": [{"name": "high", "max_tres_per_user": "gres/gpu:16"}]}, "TYPE\\[/NAME\\]=COUNT"),
        ({"accounts": [{"name": "nlp", "qos": ["platinum"]}]}, "qos platinum"),
        ({"qos": [{"name": "high", "max_wall": "two days"}]}, "max_wall"),
    ],
)
def test_invalid_input_fails_without_writing(run_module, fake, params, message):
    result = run(run_module, **params)
    assert result["failed"] is True
    assert re.search(message, result["msg"])
    assert fake.writes == []


def test_fake_follows_sacctmgr_output_conventions(fake):
    """Guards the fake itself: the printed forms the parser relies on."""
    fake.add_qos(["high"], {}, {"maxwall": "2-00:00:00", "grptres": "mem=4T,gres/gpu=8,cpu=10"})
    out = fake.show(["qos", "format=Name,Priority,Preempt,PreemptMode,Flags,GrpTRES,MaxTRESPU,MaxTRES,MaxWall,MaxJobsPU"])
    assert "high|0||cluster||cpu=10,mem=4T,gres/gpu=8|||2-00:00:00|\n" in out
