# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Invalid configurations generated from the schema, for every pass-through variable.

Each case is one run of site.yml against the converged lab (tests/badinput/run.py
--live); the same shape as the hand-written catalogue in cases.yml. The
classes: a misspelt key, a value of the wrong type, a number out of range,
an unknown plugin, and injections (a line break with a second parameter, a
comment sign, whitespace with a second Key=value). Seeded: the same seed
gives the same cases.
"""

import random

from ansible_collections.aicluster.slurm.plugins.module_utils.preflight import UNKNOWN_KEYS, VALID_CHOICES
from ansible_collections.aicluster.slurm.plugins.module_utils.slurm_schema_data import SCHEMAS

SCHEMA = SCHEMAS["24.11"]["files"]
# variable -> (schema part, how the value reaches site.yml, play that must stop it, finding id for a bad value)
VARIABLES = {
    "slurm_config": ("slurm.conf", "inventory", "config_value"),
    "cgroups_config": ("cgroup.conf", "inventory", "config_value"),
    "slurmdbd_config": ("slurmdbd.conf", "inventory", "config_value"),
    "slurm_partitions[batch].config": ("partition", "inventory", "config_value"),
    "slurm_node_config": ("node", "hosts", "node_config"),
}
INJECTIONS = ("\nSlurmUser=root", " SlurmUser=root", "#comment", '"quoted"', "\nPartitionName=evil Nodes=ALL")


def _keys(part, *kinds):
    return sorted(entry[0] for entry in SCHEMA[part].values() if entry[1] in kinds)


def _misspelt(rng, key, part):
    """``key`` with one letter dropped or one added, never another real key."""
    while True:
        cut = rng.randrange(1, len(key))
        wrong = key[:cut] + key[cut + 1 :] if rng.random() < 0.5 else key[:cut] + rng.choice("xqz") + key[cut:]
        if wrong.lower() not in SCHEMA[part]:
            return wrong


def _unknown_plugin(rng, part, plugins):
    """A plugin parameter set to a plugin of its own type that no package installs."""
    key = rng.choice(plugins)
    return key, "%s/magic" % SCHEMA[part][key.lower()][2][0].split("/")[0]


def _vars(variable, key, value):
    """Extra variables that put ``key: value`` into ``variable``."""
    if variable.startswith("slurm_partitions"):
        return {"slurm_partitions": [{"name": "batch", "groups": ["slurm_compute"], "default": True, "config": {key: value}}]}
    return {variable: {key: value}}


def _case(index, variable, kind, key, value, check):
    play = VARIABLES[variable][1]
    return {
        "id": "gen-%02d-%s-%s" % (index, variable.split("[")[0], kind),
        "broken": "%s.%s=%r (%s)" % (variable, key, value, kind),
        "vars": _vars(variable, key, value),
        "play": play,
        "expect": {"check": check, "says": "%s.%s" % (variable, key), "fix": ""},
    }


KINDS = ("unknown-key", "bad-type", "out-of-range", "plugin", "injection", "injection")


def _draw(rng, kind, part, keys):
    """(key, value) of one invalid configuration of ``kind``; ``keys``: the candidate keys by type."""
    if kind == "plugin" and keys["plugins"]:
        return _unknown_plugin(rng, part, keys["plugins"])
    if kind == "unknown-key":
        return _misspelt(rng, rng.choice(keys["any"]), part), "1"
    if kind == "out-of-range":
        return rng.choice(keys["integers"] or keys["typed"]), str(rng.choice([2**40, 99999999999]))
    if kind == "injection":
        return rng.choice(keys["any"]), "1" + rng.choice(INJECTIONS)
    return rng.choice(keys["typed"]), rng.choice(["abc", "maybe", "12x", "-"])


def cases(seed=1):
    """Six generated invalid configurations (KINDS) for each pass-through variable."""
    rng = random.Random(seed)
    # Keys whose mistakes the catalogue's own checks name (cases.yml) are left to it.
    special = ("nodename", "partitionname", "nodes", "default", "statesavelocation", "cpus", "realmemory") + tuple(UNKNOWN_KEYS) + tuple(VALID_CHOICES)
    out = []
    for variable, (part, _play, value_check) in VARIABLES.items():
        keys = {
            name: [k for k in _keys(part, *kinds) if k.lower() not in special]
            for name, kinds in (
                ("integers", ("integer", "integer+unlimited", "port")),
                ("typed", ("yesno", "enum", "duration")),
                ("plugins", ("plugin", "plugins")),
            )
        }
        keys["typed"] = keys["typed"] or keys["integers"]
        keys["any"] = [entry[0] for entry in SCHEMA[part].values() if entry[0].lower() not in special]
        for kind in KINDS:
            key, value = _draw(rng, kind, part, keys)
            if kind == "plugin" and not keys["plugins"]:
                kind = "bad-type"
            check = "node_config" if variable == "slurm_node_config" else ("config_key" if kind == "unknown-key" else value_check)
            out.append(_case(len(out) + 1, variable, kind, key, value, check))
    return out
