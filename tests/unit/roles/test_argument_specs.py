"""Every role's defaults match its meta/argument_specs.yml, key for key and value for value."""

import re
from pathlib import Path

import pytest
import yaml

from ansible_collections.aicluster.slurm.plugins.module_utils.preflight import CHECK_IDS

ROOT = Path(__file__).resolve().parents[3]
ROLES = sorted(p.name for p in (ROOT / "roles").iterdir() if (p / "meta" / "argument_specs.yml").exists())


def _load(path):
    return yaml.safe_load(path.read_text()) or {}


def test_every_role_has_argument_specs():
    assert sorted(p.name for p in (ROOT / "roles").iterdir() if p.is_dir()) == ROLES


@pytest.mark.parametrize("role", ROLES)
def test_defaults_match_argument_specs(role):
    defaults = _load(ROOT / "roles" / role / "defaults" / "main.yml")
    options = _load(ROOT / "roles" / role / "meta" / "argument_specs.yml")["argument_specs"]["main"]["options"]
    assert sorted(defaults) == sorted(options), "defaults/main.yml and argument_specs.yml declare different variables"
    for name, spec in options.items():
        assert "type" in spec, "%s has no type" % name
        assert spec.get("default") == defaults[name], "%s: default %r in argument_specs, %r in defaults" % (name, spec.get("default"), defaults[name])
        assert name.startswith(role + "_"), "%s is not prefixed with the role name" % name


def _typed(options):
    for name, spec in options.items():
        yield name, spec
        yield from _typed(spec.get("options") or {})


@pytest.mark.parametrize("role", ROLES)
def test_every_option_is_typed(role):
    for entry in _load(ROOT / "roles" / role / "meta" / "argument_specs.yml")["argument_specs"].values():
        for name, spec in _typed(entry.get("options") or {}):
            assert "type" in spec, "%s: option %s has no type" % (role, name)
            if spec["type"] == "list":
                assert "elements" in spec, "%s: list option %s has no elements" % (role, name)


def test_preflight_skip_choices_are_the_check_ids():
    """Every id a preflight finding can carry is a choice of preflight_skip, and nothing else is."""
    source = (ROOT / "plugins" / "module_utils" / "preflight.py").read_text()
    ids = set(re.findall(r'finding\(\s*"(\w+)"', source)) - {"preflight_skip"}
    ids |= {"config_key", "config_value", "config_type"}  # slurm_schema.check_parameters
    ids |= {"apt_repository"}  # apt_repository.findings
    for entry in _load(ROOT / "roles" / "preflight" / "meta" / "argument_specs.yml")["argument_specs"].values():
        assert set(entry["options"]["preflight_skip"]["choices"]) == ids == set(CHECK_IDS)
