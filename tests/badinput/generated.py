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
    part, play, _ = VARIABLES[variable]
    return {
        "id": "gen-%02d-%s-%s" % (index, variable.split("[")[0], kind),
        "broken": "%s.%s=%r (%s)" % (variable, key, value, kind),
        "vars": _vars(variable, key, value),
        "play": play,
        "expect": {"check": check, "says": "%s.%s" % (variable, key), "fix": ""},
    }


def cases(seed=1, per_variable=6):
    """``per_variable`` generated invalid configurations for each pass-through variable."""
    rng = random.Random(seed)
    out = []
    for variable, (part, _play, value_check) in VARIABLES.items():
        integers = [k for k in _keys(part, "integer", "integer+unlimited", "port") if k not in ("CPUs", "RealMemory")]
        typed = _keys(part, "yesno", "enum", "duration") or integers
        plugins = _keys(part, "plugin", "plugins")
        # Keys whose mistakes the catalogue's own checks name (cases.yml) are left to it.
        special = ("nodename", "partitionname", "nodes", "default", "statesavelocation") + tuple(UNKNOWN_KEYS) + tuple(VALID_CHOICES)
        anykey = [entry[0] for entry in SCHEMA[part].values() if entry[0].lower() not in special]
        integers = [k for k in integers if k.lower() not in special]
        typed = [k for k in typed if k.lower() not in special] or integers
        plugins = [k for k in plugins if k.lower() not in special]
        kinds = [
            ("unknown-key", lambda: (_misspelt(rng, rng.choice(anykey), part), "1"), "config_key"),
            ("bad-type", lambda: (rng.choice(typed), rng.choice(["abc", "maybe", "12x", "-"])), value_check),
            ("out-of-range", lambda: (rng.choice(integers or typed), str(rng.choice([2**40, 99999999999]))), value_check),
            ("plugin", lambda: _unknown_plugin(rng, part, plugins), value_check),
            ("injection", lambda: (rng.choice(anykey), "1" + rng.choice(INJECTIONS)), value_check),
            ("injection", lambda: (rng.choice(anykey), "1" + rng.choice(INJECTIONS)), value_check),
        ]
        for kind, make, check in kinds[:per_variable]:
            if kind == "plugin" and not plugins:
                kind, make = "bad-type", kinds[1][1]
            key, value = make()
            if variable == "slurm_node_config" and check == "config_key":
                check = "node_config"
            out.append(_case(len(out) + 1, variable, kind, key, value, check))
    return out
