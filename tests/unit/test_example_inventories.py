# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The example inventories pass the collection's own inventory preflight.

Each directory under inventories/ (except lab, the inventory of `make lab`'s
containers, not an example to copy) is loaded the way Ansible loads it, with ``ansible-inventory
--list``, and given to the filter that roles/preflight/tasks/inventory.yml
calls, with the same arguments and defaults. No host is contacted.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import pytest
import yaml

from ansible_collections.aicluster.slurm.plugins.filter.slurm import preflight_line, slurm_preflight_inventory
from ansible_collections.aicluster.slurm.plugins.module_utils import gres, minio, preflight

ROOT = pathlib.Path(__file__).resolve().parents[2]
INVENTORIES = sorted(p.name for p in (ROOT / "inventories").iterdir() if p.is_dir() and p.name != "lab")

# Secrets have no defaults and live in a vault, never in the example
# inventories; preflight stops without them. These stand-ins are long enough
# for its checks and are used only here.
DUMMY_SECRETS = {
    "slurmdbd_storage_pass": "unit-test-not-a-secret-0123456789",
    "minio_root_user": "unit-test-admin",
    "minio_root_password": "unit-test-not-a-secret-root-0123456789",
    "minio_checkpoint_secret_key": "unit-test-not-a-secret-job-0123456789",
}
MINIO_DEFAULTS = yaml.safe_load((ROOT / "roles" / "minio" / "defaults" / "main.yml").read_text())


def _ansible_inventory():
    beside_python = pathlib.Path(sys.executable).parent / "ansible-inventory"
    return str(beside_python) if beside_python.exists() else shutil.which("ansible-inventory")


def _load(name):
    env = dict(os.environ, ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"), ANSIBLE_CACHE_PLUGIN="memory")
    result = subprocess.run(
        [_ansible_inventory(), "-i", str(ROOT / "inventories" / name), "--list"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@cache
def _all_inventories():
    # One ansible-inventory per directory, run side by side: each takes about a second.
    with ThreadPoolExecutor(max_workers=len(INVENTORIES) or 1) as pool:
        return dict(zip(INVENTORIES, pool.map(_load, INVENTORIES), strict=True))


def _groups(listing):
    """Group name -> every host in it or in its children, as Ansible's ``groups``."""

    def members(group, seen=()):
        entry = listing.get(group) or {}
        hosts = list(entry.get("hosts") or [])
        for child in entry.get("children") or []:
            if child not in seen:
                hosts.extend(h for h in members(child, (*seen, group)) if h not in hosts)
        return hosts

    return {group: members(group) for group in listing if group != "_meta"}


def inventory(name):
    listing = _all_inventories()[name]
    hostvars = listing["_meta"]["hostvars"]
    return _groups(listing), hostvars


def _play_vars(groups, hostvars):
    """The variables the preflight play sees on its first host (group_vars/all are the same everywhere)."""
    first = (groups.get("slurmctld") or groups["all"])[0]
    return {**hostvars[first], **DUMMY_SECRETS}


def findings(name):
    """roles/preflight/tasks/inventory.yml, argument for argument."""
    groups, hostvars = inventory(name)
    v = _play_vars(groups, hostvars)
    return slurm_preflight_inventory(
        groups,
        v.get("slurm_config", {}),
        v.get("slurm_partitions", []),
        v.get("slurm_munge_key", ""),
        skip=v.get("preflight_skip", []),
        dbd_storage_pass=v.get("slurmdbd_storage_pass", ""),
        preempt=[v.get("slurm_preempt_type", ""), v.get("slurm_preempt_mode", "REQUEUE")],
        accounting={
            "qos": v.get("slurm_accounting_qos", []),
            "accounts": v.get("slurm_accounting_accounts", []),
            "users": v.get("slurm_accounting_users", []),
        },
        slurm_version=v.get("slurm_package_version", ""),
        topology={
            "source": v.get("slurm_topology_source", ""),
            "spines": v.get("slurm_topology_spines", {}),
            "blocks": v.get("slurm_topology_blocks", []),
            "block_sizes": v.get("slurm_topology_block_sizes", []),
            "strict": v.get("slurm_topology_strict", False),
        },
        hostvars=hostvars,
    )


def test_example_inventories_found():
    assert {"startup", "midsize", "large"} <= set(INVENTORIES)


@pytest.mark.parametrize("name", INVENTORIES)
def test_inventory_passes_preflight(name):
    errors = [preflight_line(f) for f in findings(name) if f["severity"] == "error"]
    assert errors == []


@pytest.mark.parametrize("name", INVENTORIES)
def test_every_compute_node_declares_sound_gpus(name):
    groups, hostvars = inventory(name)
    for host in groups["slurm_compute"]:
        gres.normalize_gpus(host, hostvars[host].get("slurm_node_gpus", {}))


# The tiers as the mission draws them: accounting and monitoring from the mid-size tier on, MinIO at the large tier.


@pytest.mark.parametrize("name", ["midsize", "large"])
def test_midsize_and_large_have_accounting_and_monitoring(name):
    groups = inventory(name)[0]
    assert len(groups.get("slurmdbd") or []) == 1
    assert len(groups.get("monitoring") or []) == 1


@pytest.mark.parametrize("name", ["midsize", "large"])
def test_midsize_and_large_have_login_nodes_of_their_own(name):
    groups = inventory(name)[0]
    login = set(groups.get("slurm_login") or [])
    assert login
    assert not login & set(groups["slurmctld"] + groups["slurm_compute"])


@pytest.mark.parametrize("name", [name for name in INVENTORIES if "minio" in inventory(name)[0]])
def test_minio_inventories_pass_the_minio_preflight(name):
    """roles/minio/tasks/preflight.yml's check, with the role's defaults under the inventory's values."""
    groups, hostvars = inventory(name)
    v = {**MINIO_DEFAULTS, **hostvars[groups["minio"][0]], **DUMMY_SECRETS}
    settings = {
        "hosts": groups["minio"],
        "addresses": v["minio_addresses"],
        "data_dirs": v["minio_data_dirs"],
        "port": v["minio_port"],
        "scheme": "https",
        "volumes": v["minio_volumes"],
        "client_endpoint": v["minio_client_endpoint"],
        "client_endpoints": v["minio_client_endpoints"],
        "accounts": v["minio_checkpoint_accounts"],
    }
    credentials = {
        "root_user": v["minio_root_user"],
        "root_password": v["minio_root_password"],
        "job_access_key": v["minio_checkpoint_access_key"],
        "job_secret_key": v["minio_checkpoint_secret_key"],
    }
    assert [preflight_line(f) for f in minio.input_findings(settings, credentials)] == []


def test_large_has_minio_for_checkpoints():
    groups, hostvars = inventory("large")
    assert len(groups["minio"]) >= 4
    assert len(hostvars[groups["minio"][0]]["minio_data_dirs"]) >= 4


# The large tier (> 1000 GPUs).


def test_large_has_a_primary_and_a_backup_controller():
    groups = inventory("large")[0]
    assert len(groups["slurmctld"]) == 2


def test_large_has_more_than_1024_gpus():
    groups, hostvars = inventory("large")
    total = 0
    for host in groups["slurm_compute"]:
        gpus = gres.normalize_gpus(host, hostvars[host].get("slurm_node_gpus", {}))
        total += gpus["count"] if gpus else 0
    assert total >= 1024


def test_large_partition_qos_are_declared():
    groups, hostvars = inventory("large")
    v = _play_vars(groups, hostvars)
    declared = {q["name"] for q in v["slurm_accounting_qos"]}
    partition_qos = {p["name"]: p.get("config", {}).get("QOS") for p in v["slurm_partitions"]}
    assert set(partition_qos) == {"llm-pretrain", "llm-finetune", "multimodal", "eval"}
    assert all(partition_qos.values()), partition_qos
    assert set(partition_qos.values()) <= declared


def test_large_slurm_config_keys_are_known_to_preflight():
    groups, hostvars = inventory("large")
    config = _play_vars(groups, hostvars)["slurm_config"]
    for key, value in config.items():
        assert preflight.check_slurm_config({key: value}) == [], key


def test_large_backfill_window_covers_the_longest_partition():
    groups, hostvars = inventory("large")
    v = _play_vars(groups, hostvars)
    window = [int(p.split("=", 1)[1]) for p in v["slurm_config"]["SchedulerParameters"] if p.startswith("bf_window=")]
    longest = max(_minutes(p["config"]["MaxTime"]) for p in v["slurm_partitions"])
    assert window == [longest]


def _minutes(text):
    days, _dash, clock = text.rpartition("-")
    hours, minutes, seconds = (int(x) for x in clock.split(":"))
    return int(days or 0) * 1440 + hours * 60 + minutes + (1 if seconds else 0)
