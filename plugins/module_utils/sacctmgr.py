# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm accounting through sacctmgr: parse, normalize, plan.

Pure functions, stdlib only: the module runs the ``show`` commands of
``show_commands``, hands their output to ``parse_state``, and runs what
``plan`` returns. Everything that decides whether a command is needed is here
and unit-tested; a second run against the state the first one produced must
plan nothing.

Facts relied on (Slurm 24.11, src/sacctmgr and src/common, tag slurm-24-11-7-1):
 * ``--parsable2`` prints fields separated by ``|`` with no trailing ``|``;
   unset numbers and times print as empty fields (print_fields.c).
 * sacctmgr lower-cases account, QOS and cluster names, descriptions and
   organizations (slurm_addto_char_list, strip_quotes); user names too unless
   PreserveCaseUser is set. Names and texts compare case-insensitively here.
 * TRES limits print as ``type[/name]=count`` (``mem`` and ``bb`` in MB with a
   unit suffix, e.g. ``mem=100G``); a modify merges the given TRES into the
   stored ones, so an entry is removed by setting it to ``-1``
   (mod_tres_str, TRES_STR_FLAG_REMOVE; sacctmgr(1) "a new value of -1 for
   each TRES id").
 * MaxWall is stored in minutes (rounded up) and printed ``[D-]HH:MM:SS``
   (time_str2mins, mins2time_str); ``-1`` clears it.
 * PreemptMode prints lower case, ``cluster`` when unset; ``off`` and
   ``cluster`` both unset it. ``Preempt=`` (empty) clears the preempt list,
   ``Preempt=a,b`` replaces it. ``Flags=a,b`` replaces the flags, ``-1``
   clears them. ``QOS=a,b`` on an association replaces its QOS list.
 * ``modify account where name=A cluster=C set ...`` changes only the
   account's own association (no user given); ``modify user where name=U
   cluster=C account=A set ...`` changes the user's associations under A.
 * ``delete account|user where ... cluster=C`` removes associations on that
   cluster only; without a cluster the object would go from every cluster.
 * sacctmgr may report a refused change (default account, running jobs,
   "Nothing modified") with exit status 0, so the module reads the state
   back after applying and checks that nothing is left to do.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


class AccountingError(ValueError):
    """Invalid desired state or sacctmgr output that cannot be understood."""


# --- show commands and parsing -----------------------------------------------

QOS_FIELDS = ("Name", "Priority", "Preempt", "PreemptMode", "Flags", "GrpTRES", "MaxTRESPU", "MaxTRES", "MaxWall", "MaxJobsPU")
# Description last: it is free text and may hold a "|".
ACCOUNT_FIELDS = ("Account", "Organization", "Description")
ASSOC_FIELDS = ("Account", "User", "Partition", "ParentName", "Share", "QOS", "DefaultQOS")
USER_FIELDS = ("User", "AdminLevel")
USER_DEFAULT_FIELDS = ("User", "DefaultAccount")

SHOW_PREFIX = ["--noheader", "--parsable2", "show"]


def show_commands(cluster):
    """The read-only sacctmgr argument lists, by the key parse_state expects."""
    cluster = cluster.lower()
    return {
        "qos": SHOW_PREFIX + ["qos", "format=" + ",".join(QOS_FIELDS)],
        "accounts": SHOW_PREFIX + ["account", "format=" + ",".join(ACCOUNT_FIELDS)],
        "assocs": SHOW_PREFIX + ["assoc", "where", "cluster=" + cluster, "format=" + ",".join(ASSOC_FIELDS)],
        "users": SHOW_PREFIX + ["user", "format=" + ",".join(USER_FIELDS)],
        "user_defaults": SHOW_PREFIX + ["user", "withassoc", "where", "cluster=" + cluster, "format=" + ",".join(USER_DEFAULT_FIELDS)],
    }


def parse_parsable2(text, fields):
    """Rows of ``--noheader --parsable2`` output as dicts keyed by ``fields``.

    The last field takes the rest of the line, so free text there may hold "|".
    """
    rows = []
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        values = line.split("|", len(fields) - 1)
        if len(values) != len(fields):
            raise AccountingError("unexpected sacctmgr output line %r: %d fields, expected %d (%s)" % (line, len(values), len(fields), ",".join(fields)))
        rows.append({field: values[index] for index, field in enumerate(fields)})
    return rows


# --- value normalization -----------------------------------------------------

QOS_FLAGS = (
    "DenyOnLimit",
    "EnforceUsageThreshold",
    "NoDecay",
    "NoReserve",
    "OverPartQOS",
    "PartitionMaxNodes",
    "PartitionMinNodes",
    "PartitionTimeLimit",
    "Relative",
    "RequiresReservation",
    "UsageFactorSafe",
)
_FLAG_NAMES = {flag.lower(): flag for flag in QOS_FLAGS}

PREEMPT_MODES = ("cancel", "requeue", "suspend")
ADMIN_LEVELS = ("none", "operator", "administrator")

_MEM_UNITS = {"": 1, "M": 1, "G": 1024, "T": 1024**2, "P": 1024**3}
_TIME_RE = re.compile(r"^(\d+)(?:-(\d+)(?::(\d+)(?::(\d+))?)?|(?::(\d+)(?::(\d+))?)?)$")


def _is_memory_tres(key):
    """TRES counted in MB and printed with a unit suffix by sacctmgr."""
    return key == "mem" or key.startswith("bb/") or key == "gres/gpumem"


def names(values):
    """A list of names as a sorted tuple of lower-case names, duplicates dropped."""
    if values is None:
        return None
    if isinstance(values, str):
        values = values.split(",")
    return tuple(sorted({str(value).strip().lower() for value in values if str(value).strip()}))


def tres(value, what="TRES"):
    """``cpu=8,mem=100G,gres/gpu=16`` -> sorted tuple of (key, count); memory in MB."""
    if value is None:
        return None
    items = {}
    for token in str(value).split(","):
        token = token.strip()
        if not token:
            continue
        key, sep, amount = token.partition("=")
        key = key.strip().lower()
        amount = amount.strip()
        if not sep or not key or not amount:
            raise AccountingError("%s %r: each entry must be TYPE[/NAME]=COUNT, for example gres/gpu=16" % (what, value))
        if _is_memory_tres(key):
            match = re.match(r"^(\d+(?:\.\d+)?)([MGTP]?)$", amount, re.IGNORECASE)
            if not match:
                raise AccountingError("%s %r: %s needs a size in MB or with a unit M, G, T or P" % (what, value, key))
            number = int(round(float(match.group(1)) * _MEM_UNITS[match.group(2).upper()]))
        else:
            if not amount.isdigit():
                raise AccountingError("%s %r: %s needs a whole number, not %r" % (what, value, key, amount))
            number = int(amount)
        if key in items:
            raise AccountingError("%s %r: %s given twice" % (what, value, key))
        items[key] = number
    return tuple(sorted(items.items()))


def render_tres(items):
    """The sorted TRES tuple as sacctmgr would accept it (memory with the largest exact unit)."""
    out = []
    for key, amount in items or ():
        if _is_memory_tres(key):
            unit = "M"
            for name in ("G", "T", "P"):
                if amount and amount % 1024 == 0:
                    amount //= 1024
                    unit = name
                else:
                    break
            out.append("%s=%d%s" % (key, amount, unit))
        else:
            out.append("%s=%d" % (key, amount))
    return ",".join(out)


def wall_minutes(value):
    """A MaxWall value in minutes the way sacctmgr stores it; None for unlimited.

    Accepts <min>, <min>:<sec>, <hr>:<min>:<sec>, <days>-<hr>[:<min>[:<sec>]] and
    -1, UNLIMITED, INFINITE or an empty string for no limit (sacctmgr(1) MaxWall).
    """
    if value is None:
        return None
    text = str(value).strip()
    if text.lower() in ("", "-1", "infinite", "unlimited"):
        return None
    match = _TIME_RE.match(text)
    if not match:
        raise AccountingError("max_wall %r is not <min>, <min>:<sec>, <hr>:<min>:<sec> or <days>-<hr>[:<min>[:<sec>]]" % value)
    first, d_hours, d_mins, d_secs, second, third = match.groups()
    if "-" in text:
        seconds = int(first) * 86400 + int(d_hours or 0) * 3600 + int(d_mins or 0) * 60 + int(d_secs or 0)
    elif third is not None:
        seconds = int(first) * 3600 + int(second) * 60 + int(third)
    else:
        seconds = int(first) * 60 + int(second or 0)
    return (seconds + 59) // 60


def render_minutes(minutes):
    """Minutes as sacctmgr prints them (mins2time_str): D-HH:MM:SS or HH:MM:SS."""
    if minutes is None:
        return ""
    days, rest = divmod(int(minutes), 1440)
    hours, mins = divmod(rest, 60)
    if days:
        return "%d-%02d:%02d:00" % (days, hours, mins)
    return "%02d:%02d:00" % (hours, mins)


def count(value, what, allow_unset=True):
    """A whole number limit; -1 (or empty when read back) means unset -> None."""
    if value is None:
        return None
    text = str(value).strip()
    if text == "" and allow_unset:
        return None
    try:
        number = int(text)
    except ValueError:
        raise AccountingError("%s %r is not a whole number" % (what, value)) from None
    if number < 0:
        if allow_unset and number == -1:
            return None
        raise AccountingError("%s %r must be 0 or more%s" % (what, value, " (-1 clears it)" if allow_unset else ""))
    return number


def preempt_mode(value):
    """PreemptMode as a sorted tuple of modes; () is the cluster default (off, cluster, "")."""
    if value is None:
        return None
    tokens = set()
    for token in str(value).lower().split(","):
        token = token.strip()
        if token in ("", "off", "cluster"):
            continue
        if token == "on":
            token = "suspend"
        if token not in PREEMPT_MODES + ("gang", "within"):
            raise AccountingError("preempt_mode %r: unknown mode %r (off, cluster, cancel, requeue, suspend, gang, within)" % (value, token))
        tokens.add(token)
    if len(tokens & set(PREEMPT_MODES)) > 1:
        raise AccountingError("preempt_mode %r: only one of cancel, requeue, suspend" % value)
    if {"gang", "within"} <= tokens:
        raise AccountingError("preempt_mode %r: gang and within cannot be combined" % value)
    return tuple(sorted(tokens))


def render_preempt_mode(modes):
    return ",".join(modes) if modes else "cluster"


def flags(values, strict=True):
    """QOS flags as a sorted tuple of lower-case flag names."""
    if values is None:
        return None
    if isinstance(values, str):
        values = values.split(",")
    found = set()
    for value in values:
        value = str(value).strip().lower()
        if not value or value == "notset":
            continue
        if strict and value not in _FLAG_NAMES:
            raise AccountingError("QOS flag %r is not one of %s" % (value, ", ".join(QOS_FLAGS)))
        found.add(value)
    return tuple(sorted(found))


def render_flags(values):
    return ",".join(_FLAG_NAMES.get(value, value) for value in values)


def fairshare(value):
    """Fairshare as a string: a whole number, or "parent"."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text == "parent":
        return text
    if not text.isdigit():
        raise AccountingError("fairshare %r must be a whole number or 'parent'" % value)
    return str(int(text))


def admin_level(value):
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("", "not set", "notset"):
        return "none"
    if text in ("admin", "superuser"):
        return "administrator"
    if text not in ADMIN_LEVELS:
        raise AccountingError("admin_level %r is not one of %s" % (value, ", ".join(ADMIN_LEVELS)))
    return text


def text_key(value):
    """How sacctmgr stores a description or organization (lower case, quotes as backticks)."""
    if value is None:
        return None
    return str(value).lower().replace('"', "`").replace("'", "`")


def _priority(value):
    """QOS Priority: 0 or more; read back empty when unset."""
    if value in (None, ""):
        return None
    return count(value, "priority", allow_unset=False)


def _render_count(value):
    return "" if value is None else str(value)


# name, sacctmgr option, show field, normalizer, renderer
QOS_KEYS = (
    ("priority", "Priority", "Priority", _priority, _render_count),
    ("preempt", "Preempt", "Preempt", names, ",".join),
    ("preempt_mode", "PreemptMode", "PreemptMode", preempt_mode, render_preempt_mode),
    ("flags", "Flags", "Flags", flags, render_flags),
    ("grp_tres", "GrpTRES", "GrpTRES", lambda v: tres(v, "grp_tres"), render_tres),
    ("max_tres_per_user", "MaxTRESPerUser", "MaxTRESPU", lambda v: tres(v, "max_tres_per_user"), render_tres),
    ("max_tres_per_job", "MaxTRESPerJob", "MaxTRES", lambda v: tres(v, "max_tres_per_job"), render_tres),
    ("max_wall", "MaxWall", "MaxWall", wall_minutes, render_minutes),
    ("max_jobs_per_user", "MaxJobsPerUser", "MaxJobsPU", lambda v: count(v, "max_jobs_per_user"), _render_count),
)
QOS_KEY_NAMES = tuple(key[0] for key in QOS_KEYS)
ACCOUNT_RECORD_KEYS = ("description", "organization")
ASSOC_KEYS = ("fairshare", "qos", "default_qos")


def _render_assoc_value(key, value):
    if key == "qos":
        return ",".join(value)
    return value


# --- current state -------------------------------------------------------------


def parse_state(outputs):
    """The stdout of each show command (keys of show_commands) -> current state.

    {"qos": {name: {key: canonical}}, "accounts": {name: {description, organization}},
     "account_assocs": {name: {parent, fairshare, qos, default_qos}},
     "users": {lname: {name, admin_level}}, "user_assocs": {lname: {account: {fairshare, qos, default_qos}}},
     "user_accounts": {lname: set of accounts, partition associations included},
     "user_defaults": {lname: account}, "root": bool}
    """
    state = {"qos": {}, "accounts": {}, "account_assocs": {}, "users": {}, "user_assocs": {}, "user_accounts": {}, "user_defaults": {}, "root": False}
    for row in parse_parsable2(outputs.get("qos", ""), QOS_FIELDS):
        values = {}
        for key, _option, field, normalize, _render in QOS_KEYS:
            if key == "flags":
                values[key] = flags(row[field], strict=False)
            else:
                values[key] = normalize(row[field])
        state["qos"][row["Name"].lower()] = values
    for row in parse_parsable2(outputs.get("accounts", ""), ACCOUNT_FIELDS):
        state["accounts"][row["Account"].lower()] = {"description": row["Description"], "organization": row["Organization"]}
    for row in parse_parsable2(outputs.get("assocs", ""), ASSOC_FIELDS):
        account = row["Account"].lower()
        settings = {"fairshare": fairshare(row["Share"]) if row["Share"] else None, "qos": names(row["QOS"]), "default_qos": row["DefaultQOS"].lower()}
        user = row["User"]
        if not user:
            if account == "root":
                state["root"] = True
            settings["parent"] = row["ParentName"].lower()
            state["account_assocs"][account] = settings
            continue
        key = user.lower()
        state["user_accounts"].setdefault(key, set()).add(account)
        if not row["Partition"]:
            state["user_assocs"].setdefault(key, {})[account] = settings
    for row in parse_parsable2(outputs.get("users", ""), USER_FIELDS):
        state["users"][row["User"].lower()] = {"name": row["User"], "admin_level": admin_level(row["AdminLevel"])}
    for row in parse_parsable2(outputs.get("user_defaults", ""), USER_DEFAULT_FIELDS):
        # A user without an association here may still be listed, with a default from another cluster.
        if row["DefaultAccount"] and row["User"].lower() in state["user_accounts"]:
            state["user_defaults"][row["User"].lower()] = row["DefaultAccount"].lower()
    return state


# --- desired state -------------------------------------------------------------


def _name(value, what):
    text = str(value or "").strip()
    if not text:
        raise AccountingError("%s without a name" % what)
    if re.search(r"[\s,|=\"']", text):
        raise AccountingError("%s name %r may not contain spaces, commas, '|', '=' or quotes" % (what, text))
    return text


def _free_text(value, what):
    if value is None:
        return None
    text = str(value)
    if "|" in text or "\n" in text:
        raise AccountingError("%s %r may not contain '|' or a newline" % (what, text))
    return text


def _qos_list(value, what):
    if value is None:
        return None
    result = names(value)
    if not result:
        raise AccountingError("%s is an empty list; leave it out to keep what is set" % what)
    return result


def _default_qos(value, allowed, what):
    if value is None:
        return None
    text = str(value).strip().lower()
    if not text:
        raise AccountingError("%s is empty; leave it out to keep what is set" % what)
    if allowed is not None and text not in allowed:
        raise AccountingError("%s %r is not in its qos list %s" % (what, text, ",".join(allowed)))
    return text


def _unique(items, what):
    seen = set()
    for item in items:
        key = item["key"]
        if key in seen:
            raise AccountingError("%s %s is listed twice" % (what, item["name"]))
        seen.add(key)
    return items


def normalize_desired(qos=None, accounts=None, users=None):
    """Validate the module's options and bring values to their canonical form.

    Only keys given (not None) are managed; the result keeps the order given.
    """
    desired = {"qos": [], "accounts": [], "users": []}
    for entry in qos or []:
        name = _name(entry.get("name"), "qos").lower()
        item = {"name": name, "key": name, "state": entry.get("state") or "present", "values": {}}
        if item["state"] == "present":
            for key, _option, _field, normalize, _render in QOS_KEYS:
                if entry.get(key) is not None:
                    item["values"][key] = normalize(entry[key])
            if name in (item["values"].get("preempt") or ()):
                raise AccountingError("qos %s cannot preempt itself" % name)
        desired["qos"].append(item)
    for entry in accounts or []:
        name = _name(entry.get("name"), "account").lower()
        item = {"name": name, "key": name, "state": entry.get("state") or "present", "record": {}, "assoc": {}, "parent": None}
        if item["state"] == "absent" and name == "root":
            raise AccountingError("the root account cannot be removed (it goes with its cluster)")
        if item["state"] == "present":
            for key in ACCOUNT_RECORD_KEYS:
                if entry.get(key) is not None:
                    item["record"][key] = _free_text(entry[key], "account %s %s" % (name, key))
            if entry.get("parent") is not None:
                item["parent"] = _name(entry["parent"], "parent of account %s" % name).lower()
                if item["parent"] == name:
                    raise AccountingError("account %s cannot be its own parent" % name)
                if name == "root":
                    raise AccountingError("the root account has no parent")
            _assoc_values(entry, item["assoc"], "account %s" % name)
        desired["accounts"].append(item)
    for entry in users or []:
        name = _name(entry.get("name"), "user")
        item = {"name": name, "key": name.lower(), "state": entry.get("state") or "present", "assoc": {}}
        if item["state"] == "present":
            if not entry.get("default_account"):
                raise AccountingError("user %s: default_account is required when state is present" % name)
            default = _name(entry["default_account"], "default_account of user %s" % name).lower()
            wanted = [default]
            for account in entry.get("accounts") or []:
                account = _name(account, "account of user %s" % name).lower()
                if account not in wanted:
                    wanted.append(account)
            item.update(default_account=default, accounts=wanted, purge_accounts=bool(entry.get("purge_accounts")))
            item["admin_level"] = admin_level(entry.get("admin_level"))
            _assoc_values(entry, item["assoc"], "user %s" % name)
        desired["users"].append(item)
    for what in ("qos", "accounts", "users"):
        _unique(desired[what], what.rstrip("s"))
    return desired


def _assoc_values(entry, out, what):
    if entry.get("fairshare") is not None:
        out["fairshare"] = fairshare(entry["fairshare"])
    qos = _qos_list(entry.get("qos"), "%s qos" % what)
    if qos is not None:
        out["qos"] = qos
    default_qos = _default_qos(entry.get("default_qos"), qos, "%s default_qos" % what)
    if default_qos is not None:
        out["default_qos"] = default_qos


# --- plan ------------------------------------------------------------------------

WRITE = ["-i"]


def _step(kind, name, action, args):
    return {"kind": kind, "name": name, "action": action, "args": WRITE + args}


def _assoc_args(values):
    args = []
    if "fairshare" in values:
        args.append("fairshare=%s" % values["fairshare"])
    if "qos" in values:
        args.append("qos=%s" % ",".join(values["qos"]))
    if "default_qos" in values:
        args.append("defaultqos=%s" % values["default_qos"])
    return args


def _assoc_changes(want, have):
    return {key: value for key, value in want.items() if (have or {}).get(key) != value}


def _qos_set_arg(key, option, render, want, have):
    """The sacctmgr option that brings ``have`` to ``want`` for one QOS key."""
    if key in ("grp_tres", "max_tres_per_user", "max_tres_per_job"):
        wanted = dict(want)
        removed = sorted(name for name, _count in (have or ()) if name not in wanted)
        value = ",".join(filter(None, [render(want)] + ["%s=-1" % name for name in removed]))
        return "%s=%s" % (option, value)
    if key == "flags" and not want:
        return "Flags=-1"
    if key in ("max_wall", "max_jobs_per_user") and want is None:
        return "%s=-1" % option
    return "%s=%s" % (option, render(want))


def _check_references(desired, state):
    """Every QOS, parent and account named must exist or be added by this run."""
    problems = []
    qos_present = set(state["qos"])
    acct_present = set(state["account_assocs"])
    for item in desired["qos"]:
        (qos_present.add if item["state"] == "present" else qos_present.discard)(item["key"])
    for item in desired["accounts"]:
        (acct_present.add if item["state"] == "present" else acct_present.discard)(item["key"])

    def need_qos(names_, where):
        for name in names_ or ():
            if name not in qos_present:
                problems.append("%s names qos %s, which does not exist and is not added here" % (where, name))

    for item in desired["qos"]:
        need_qos(item["values"].get("preempt"), "qos %s preempt" % item["name"])
    for item in desired["accounts"] + desired["users"]:
        if item["state"] != "present":
            continue
        what = "%s %s" % ("user" if "accounts" in item else "account", item["name"])
        need_qos(item["assoc"].get("qos"), what)
        need_qos([item["assoc"]["default_qos"]] if "default_qos" in item["assoc"] else (), what + " default_qos")
        if item.get("parent") and item["parent"] not in acct_present:
            problems.append("%s has parent %s, which is not on the cluster and is not added here" % (what, item["parent"]))
        for account in item.get("accounts") or ():
            if account not in acct_present:
                problems.append("%s is in account %s, which is not on the cluster and is not added here" % (what, account))
    if problems:
        raise AccountingError("; ".join(problems))


def _parent_first(items, parent_of):
    """Order ``items`` (by key) so that an item's parent, if among them, comes first."""
    pending = list(items)
    ordered = []
    keys = {item["key"] for item in items}
    while pending:
        progressed = False
        placed = {item["key"] for item in ordered}
        for item in list(pending):
            parent = parent_of(item)
            if parent not in keys or parent in placed:
                ordered.append(item)
                placed.add(item["key"])
                pending.remove(item)
                progressed = True
        if not progressed:
            raise AccountingError("accounts form a parent cycle: %s" % ", ".join(item["name"] for item in pending))
    return ordered


def _depth(account, parents):
    depth = 0
    seen = set()
    while account in parents and account not in seen and parents[account]:
        seen.add(account)
        account = parents[account]
        depth += 1
    return depth


def plan(desired, state, cluster):
    """Desired + current state -> the sacctmgr write commands, in the order to run them.

    Adds and changes run QOS, then accounts (parents first), then users;
    removals run users, then accounts (children first), then QOS.
    Each step: {"kind", "name", "action", "args"} where args follow ``sacctmgr``.
    """
    cluster = cluster.lower()
    # QOS are global to slurmdbd; only associations need the cluster.
    if (desired["accounts"] or desired["users"]) and not state.get("root"):
        raise AccountingError("cluster %s has no root association in slurmdbd; register it first (sacctmgr add cluster %s)" % (cluster, cluster))
    _check_references(desired, state)
    where_cluster = "cluster=%s" % cluster
    steps, later, removals = [], [], []

    # QOS: add (preempting only QOS that already exist), then modify.
    existing_qos = set(state["qos"])
    qos_mods = []
    for item in desired["qos"]:
        name, have = item["name"], state["qos"].get(item["key"])
        if item["state"] == "absent":
            if have is not None:
                removals.append(("qos", 0, _step("qos", name, "delete", ["delete", "qos", "where", "name=%s" % name])))
            continue
        if have is None:
            args, deferred = ["add", "qos", name], None
            for key, option, _field, _normalize, render in QOS_KEYS:
                want = item["values"].get(key)
                if key not in item["values"] or want in (None, ()):
                    continue
                if key == "preempt" and not set(want) <= existing_qos:
                    deferred = ["modify", "qos", "where", "name=%s" % name, "set", "Preempt=%s" % render(want)]
                    continue
                args.append("%s=%s" % (option, render(want)))
            steps.append(_step("qos", name, "add", args))
            existing_qos.add(item["key"])
            if deferred:
                qos_mods.append(_step("qos", name, "modify", deferred))
            continue
        sets = []
        for key, option, _field, _normalize, render in QOS_KEYS:
            if key in item["values"] and item["values"][key] != have.get(key):
                sets.append(_qos_set_arg(key, option, render, item["values"][key], have.get(key)))
        if sets:
            qos_mods.append(_step("qos", name, "modify", ["modify", "qos", "where", "name=%s" % name, "set"] + sets))
    steps.extend(qos_mods)

    # Accounts: add parents first, then modify; delete children first.
    present = [item for item in desired["accounts"] if item["state"] == "present"]
    adds = [item for item in present if item["key"] not in state["account_assocs"]]
    for item in _parent_first(adds, lambda item: item["parent"] or "root"):
        name = item["name"]
        record = state["accounts"].get(item["key"])
        args = ["add", "account", name, where_cluster, "parent=%s" % (item["parent"] or "root")]
        if record is None:
            args += ["%s=%s" % (key, item["record"][key]) for key in ACCOUNT_RECORD_KEYS if key in item["record"]]
        steps.append(_step("account", name, "add", args + _assoc_args(item["assoc"])))
        if record is not None:
            later.extend(_account_record_steps(item, record))
    for item in present:
        have = state["account_assocs"].get(item["key"])
        if have is None:
            continue
        record = state["accounts"].get(item["key"], {})
        steps.extend(_account_record_steps(item, record))
        changes = _assoc_changes(item["assoc"], have)
        sets = []
        if item["parent"] and item["parent"] != have.get("parent"):
            sets.append("parent=%s" % item["parent"])
        sets += _assoc_args(changes)
        if sets:
            steps.append(_step("account", item["name"], "modify", ["modify", "account", "where", "name=%s" % item["name"], where_cluster, "set"] + sets))
    steps.extend(later)
    parents = {name: assoc.get("parent") for name, assoc in state["account_assocs"].items()}
    for item in desired["accounts"]:
        if item["state"] == "absent" and item["key"] in state["account_assocs"]:
            step = _step("account", item["name"], "delete", ["delete", "account", "where", "name=%s" % item["name"], where_cluster])
            removals.append(("account", -_depth(item["key"], parents), step))

    # Users.
    user_removals = []
    for item in desired["users"]:
        key, name = item["key"], item["name"]
        have_assocs = state["user_assocs"].get(key, {})
        have_accounts = state["user_accounts"].get(key, set())
        if item["state"] == "absent":
            if have_accounts:
                user_removals.append(_step("user", name, "delete", ["delete", "user", "where", "name=%s" % name, where_cluster]))
            continue
        exists = key in state["users"]
        missing = [account for account in item["accounts"] if account not in have_assocs]
        default = item["default_account"]
        assoc_args = _assoc_args(item["assoc"])
        if not exists:
            args = ["add", "user", name, "defaultaccount=%s" % default, where_cluster]
            others = [account for account in missing if account != default]
            if others:
                args.append("account=%s" % ",".join(others))
            if item["admin_level"] is not None:
                args.append("adminlevel=%s" % item["admin_level"])
            steps.append(_step("user", name, "add", args + assoc_args))
        else:
            if missing:
                steps.append(_step("user", name, "add", ["add", "user", name, "account=%s" % ",".join(missing), where_cluster] + assoc_args))
            for account in item["accounts"]:
                if account in have_assocs:
                    changes = _assoc_changes(item["assoc"], have_assocs[account])
                    if changes:
                        steps.append(
                            _step(
                                "user",
                                name,
                                "modify",
                                ["modify", "user", "where", "name=%s" % name, where_cluster, "account=%s" % account, "set"] + _assoc_args(changes),
                            )
                        )
            if state["user_defaults"].get(key) != default:
                steps.append(_step("user", name, "modify", ["modify", "user", "where", "name=%s" % name, where_cluster, "set", "defaultaccount=%s" % default]))
            if item["admin_level"] is not None and state["users"][key]["admin_level"] != item["admin_level"]:
                steps.append(_step("user", name, "modify", ["modify", "user", "where", "name=%s" % name, "set", "adminlevel=%s" % item["admin_level"]]))
        if item["purge_accounts"]:
            extra = sorted(have_accounts - set(item["accounts"]))
            if extra:
                user_removals.append(
                    _step("user", name, "delete", ["delete", "user", "where", "name=%s" % name, where_cluster, "account=%s" % ",".join(extra)])
                )

    steps.extend(user_removals)
    order = {"account": 0, "qos": 1}
    for _kind, _rank, step in sorted(removals, key=lambda entry: (order[entry[0]], entry[1])):
        steps.append(step)
    return steps


def _account_record_steps(item, record):
    sets = []
    for key in ACCOUNT_RECORD_KEYS:
        if key in item["record"] and text_key(item["record"][key]) != text_key(record.get(key)):
            sets.append("%s=%s" % (key, item["record"][key]))
    if not sets:
        return []
    return [_step("account", item["name"], "modify", ["modify", "account", "where", "name=%s" % item["name"], "set"] + sets)]


# --- diff and summary --------------------------------------------------------------


def _lines(pairs):
    return "".join("%s: %s\n" % (key, value) for key, value in pairs)


def _qos_text(values, keys):
    if values is None:
        return ""
    return _lines((key, render(values.get(key))) for key, _option, _field, _normalize, render in QOS_KEYS if key in keys)


def _assoc_text(values, keys):
    return ((key, _render_assoc_value(key, values.get(key)) or "") for key in ASSOC_KEYS if key in keys)


def _account_text(item, record, assoc, keys):
    if assoc is None:
        return ""
    pairs = [("parent", assoc.get("parent") or "")] if "parent" in keys else []
    pairs += [(key, (record or {}).get(key) or "") for key in ACCOUNT_RECORD_KEYS if key in keys]
    pairs += list(_assoc_text(assoc, keys))
    return _lines(pairs)


def _user_text(user, default, assocs, accounts, keys):
    if not assocs and not accounts:
        return ""
    pairs = []
    if "admin_level" in keys:
        pairs.append(("admin_level", (user or {}).get("admin_level") or ""))
    pairs.append(("default_account", default or ""))
    pairs.append(("accounts", ",".join(sorted(accounts))))
    for account in sorted(assocs):
        settings = " ".join("%s=%s" % pair for pair in _assoc_text(assocs[account], keys))
        if settings:
            pairs.append(("association %s" % account, settings))
    return _lines(pairs)


def diffs(desired, state):
    """Before/after text per object that the plan would change (for module._diff)."""
    out = []
    for item in desired["qos"]:
        have = state["qos"].get(item["key"])
        keys = set(item["values"])
        before = _qos_text(have, keys)
        if item["state"] == "absent":
            after = ""
        else:
            merged = dict(have or {})
            merged.update(item["values"])
            after = _qos_text(merged, keys) or "present\n"
            before = before or ("present\n" if have is not None else "")
        out.append(("qos %s" % item["name"], before, after))
    for item in desired["accounts"]:
        have = state["account_assocs"].get(item["key"])
        record = state["accounts"].get(item["key"])
        keys = set(item["record"]) | set(item["assoc"]) | ({"parent"} if item["parent"] or have is None else set())
        before = _account_text(item, record, have, keys)
        if item["state"] == "absent":
            after = ""
        else:
            merged_record = dict(record or {})
            for key, value in item["record"].items():
                if text_key(value) != text_key(merged_record.get(key)):
                    merged_record[key] = value
            merged_assoc = dict(have or {})
            merged_assoc.update(item["assoc"])
            merged_assoc["parent"] = item["parent"] or (have or {}).get("parent") or "root"
            after = _account_text(item, merged_record, merged_assoc, keys)
        out.append(("account %s" % item["name"], before, after))
    for item in desired["users"]:
        key = item["key"]
        have_assocs = state["user_assocs"].get(key, {})
        have_accounts = state["user_accounts"].get(key, set())
        keys = set(item["assoc"]) | ({"admin_level"} if item.get("admin_level") else set())
        before = _user_text(state["users"].get(key), state["user_defaults"].get(key), have_assocs, have_accounts, keys)
        if item["state"] == "absent":
            after = ""
        else:
            accounts = set(item["accounts"]) | (set() if item["purge_accounts"] else have_accounts)
            assocs = {}
            for account in accounts:
                if account in item["accounts"] or account in have_assocs:
                    settings = dict(have_assocs.get(account, {}))
                    if account in item["accounts"]:
                        settings.update(item["assoc"])
                    assocs[account] = settings
            user = {"admin_level": item["admin_level"] or (state["users"].get(key) or {}).get("admin_level")}
            after = _user_text(user, item["default_account"], assocs, accounts, keys)
        out.append(("user %s" % item["name"], before, after))
    return [{"before_header": header, "after_header": header, "before": before, "after": after} for header, before, after in out if before != after]


def summary(desired, state):
    """The current values of the objects named in the task, rendered as sacctmgr prints them."""
    result = {"qos": {}, "accounts": {}, "users": {}}
    for item in desired["qos"]:
        have = state["qos"].get(item["key"])
        if have is not None:
            result["qos"][item["name"]] = {key: render(have.get(key)) for key, _option, _field, _normalize, render in QOS_KEYS}
    for item in desired["accounts"]:
        have = state["account_assocs"].get(item["key"])
        if have is not None:
            record = state["accounts"].get(item["key"], {})
            entry = {"parent": have.get("parent") or "", "description": record.get("description", ""), "organization": record.get("organization", "")}
            entry.update({key: _render_assoc_value(key, have.get(key)) or "" for key in ASSOC_KEYS})
            result["accounts"][item["name"]] = entry
    for item in desired["users"]:
        key = item["key"]
        accounts = state["user_accounts"].get(key)
        if accounts:
            assocs = state["user_assocs"].get(key, {})
            result["users"][item["name"]] = {
                "admin_level": (state["users"].get(key) or {}).get("admin_level") or "",
                "default_account": state["user_defaults"].get(key, ""),
                "accounts": sorted(accounts),
                "associations": {account: {k: _render_assoc_value(k, v) or "" for k, v in assocs[account].items()} for account in sorted(assocs)},
            }
    return result


def present_qos(qos):
    """The QOS to be present (``state`` present or unset), by name only: ``[{"name": ...}]``."""
    return [{"name": item["name"]} for item in qos or () if (item.get("state") or "present") == "present"]
