#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: slurm_accounting
short_description: Declare Slurm accounting QOS, accounts and users with sacctmgr
version_added: 0.1.0
description:
  - Brings QOS, accounts (their association on one cluster) and users (their associations on that cluster) to the
    state given, through C(sacctmgr). Reads the current state with C(sacctmgr --noheader --parsable2 show ...),
    compares normalized values (TRES lists, wall times, QOS lists, case) and runs C(sacctmgr -i add|modify|delete)
    only for what differs, so a second run changes nothing.
  - Only the objects listed are looked at, and of those only the keys given are managed; a key left out is left
    as it is. Nothing is removed unless it is listed with O(qos[].state=absent), O(accounts[].state=absent),
    O(users[].state=absent), or dropped from a user's accounts with O(users[].purge_accounts=true).
  - Adds and changes run QOS first, then accounts (parents before children), then users; removals run users first,
    then accounts (children before parents), then QOS.
  - After applying, the state is read back; anything still different (for example a removal Slurm refused while
    exiting 0) fails the task.
  - Run it where C(sacctmgr) can reach slurmdbd as a Slurm administrator (usually the slurmdbd or controller host).
options:
  cluster:
    description:
      - The cluster's C(ClusterName). Accounts and users are managed through their associations on this cluster; it
        must already be registered in slurmdbd (slurmctld registers it on first start, or C(sacctmgr add cluster))
        when O(accounts) or O(users) are given. QOS alone need no registered cluster.
    type: str
    required: true
  qos:
    description: Quality of service definitions. QOS are global to slurmdbd, not per cluster.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: QOS name (Slurm stores it in lower case).
        type: str
        required: true
      state:
        description: V(absent) deletes the QOS.
        type: str
        choices: [present, absent]
        default: present
      priority:
        description: C(Priority) added to the priority of jobs in this QOS.
        type: int
      preempt:
        description: QOS this QOS can preempt (C(Preempt)); an empty list clears it.
        type: list
        elements: str
      preempt_mode:
        description:
          - C(PreemptMode), for example C(requeue), C(cancel), C(suspend,gang). C(off), C(cluster) or an empty string
            fall back to the cluster-wide PreemptMode.
        type: str
      flags:
        description: QOS C(Flags), for example C([DenyOnLimit, NoDecay]); an empty list clears them.
        type: list
        elements: str
      grp_tres:
        description: C(GrpTRES), for example C(gres/gpu=64,cpu=2048); TRES not listed are cleared, an empty string clears all.
        type: str
      max_tres_per_user:
        description: C(MaxTRESPerUser), for example C(gres/gpu=16); TRES not listed are cleared.
        type: str
      max_tres_per_job:
        description: C(MaxTRESPerJob), for example C(gres/gpu=8); TRES not listed are cleared.
        type: str
      max_wall:
        description:
          - C(MaxWall) per job, as C(<min>), C(<hr>:<min>:<sec>) or C(<days>-<hr>[:<min>[:<sec>]]), for example
            C(2-00:00:00), or a number of minutes. C(-1) or C(UNLIMITED) clears it. Compared in minutes, the way
            slurmdbd stores it.
        type: raw
      max_jobs_per_user:
        description: C(MaxJobsPerUser); C(-1) clears it.
        type: int
  accounts:
    description: Accounts, for example one per business line, and their association on O(cluster).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Account name (Slurm stores it in lower case).
        type: str
        required: true
      state:
        description:
          - V(absent) deletes the account's association on O(cluster), and with it its users' associations in that
            account there. Slurm refuses while it is a user's default account or jobs run in it.
        type: str
        choices: [present, absent]
        default: present
      description:
        description: Account description (Slurm stores it in lower case).
        type: str
      organization:
        description: Account organization (Slurm stores it in lower case).
        type: str
      parent:
        description:
          - Parent account. An account is created under V(root) unless this is given; an existing account is moved
            only when this is given.
        type: str
      fairshare:
        description: C(Fairshare) of the account's association, a whole number or C(parent).
        type: raw
      qos:
        description: QOS the account's association may use (replaces the list).
        type: list
        elements: str
      default_qos:
        description: Default QOS of the account's association; must be in O(accounts[].qos) when both are given.
        type: str
  users:
    description: Users and their associations on O(cluster).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Login name.
        type: str
        required: true
      state:
        description: V(absent) deletes all the user's associations on O(cluster) (the user stays on other clusters).
        type: str
        choices: [present, absent]
        default: present
      default_account:
        description: The user's default account on O(cluster); required when O(users[].state=present).
        type: str
      accounts:
        description:
          - Further accounts the user gets an association in (O(users[].default_account) always is one).
            Associations in other accounts are kept unless O(users[].purge_accounts=true).
        type: list
        elements: str
      purge_accounts:
        description: Delete the user's associations on O(cluster) in accounts not listed.
        type: bool
        default: false
      fairshare:
        description: C(Fairshare) of each of the user's listed associations, a whole number or C(parent).
        type: raw
      qos:
        description: QOS each of the user's listed associations may use (replaces the list).
        type: list
        elements: str
      default_qos:
        description: Default QOS of each of the user's listed associations.
        type: str
      admin_level:
        description: The user's C(AdminLevel) in slurmdbd (global, not per cluster).
        type: str
        choices: [none, operator, administrator]
  sacctmgr_path:
    description: Path of C(sacctmgr); found on E(PATH) when not given.
    type: path
notes:
  - Associations limited to a partition are not managed; a user's settings apply to the user's associations without
    a partition, and a change through C(sacctmgr modify user ... account=A) reaches A's partition associations too.
  - Slurm 24.11 field and option names; see the C(sacctmgr) man page.
attributes:
  check_mode:
    support: full
    description: Reads the state with C(sacctmgr show) and returns the commands that would run; writes nothing.
  diff_mode:
    support: full
    description: Returns the before and after values of each QOS, account and user that changes.
  platform:
    support: full
    platforms: posix
    description: Any host with C(sacctmgr) that reaches slurmdbd.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: QOS, one account per business line, users
  aicluster.slurm.slurm_accounting:
    cluster: aicluster
    qos:
      - name: normal
        priority: 0
      - name: high
        priority: 100
        preempt: [normal]
        preempt_mode: requeue
        flags: [DenyOnLimit]
        max_tres_per_user: gres/gpu=16
        max_wall: 2-00:00:00
    accounts:
      - name: nlp
        description: Natural language processing
        organization: research
        fairshare: 60
        qos: [normal, high]
        default_qos: normal
      - name: vision
        fairshare: 40
        qos: [normal]
    users:
      - name: alice
        default_account: nlp
        qos: [normal, high]
        default_qos: normal
      - name: bob
        default_account: vision
        accounts: [nlp]

- name: Take a QOS and an account away (only what is listed as absent goes)
  aicluster.slurm.slurm_accounting:
    cluster: aicluster
    users:
      - name: carol
        state: absent
    accounts:
      - name: legacy
        state: absent
    qos:
      - name: scavenger
        state: absent
"""

RETURN = r"""
commands:
  description: The sacctmgr argument lists run (or, in check mode, that would run), in order.
  returned: always
  type: list
  elements: list
  sample: [["-i", "add", "qos", "high", "Priority=100", "MaxTRESPerUser=gres/gpu=16"]]
accounting:
  description:
    - The current values of the QOS, accounts and users named in the task, as sacctmgr prints them; read after the
      changes (in check mode, before).
  returned: always
  type: dict
  sample:
    qos: {high: {priority: "100", preempt: "normal", max_tres_per_user: "gres/gpu=16", max_wall: "2-00:00:00"}}
    accounts: {nlp: {parent: root, fairshare: "60", qos: "high,normal", default_qos: normal}}
    users: {alice: {default_account: nlp, accounts: [nlp], admin_level: none, associations: {nlp: {fairshare: "1"}}}}
output:
  description: What sacctmgr printed for each command run.
  returned: when a command ran
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aicluster.slurm.plugins.module_utils import sacctmgr

STATE = {"type": "str", "choices": ["present", "absent"], "default": "present"}
QOS_OPTIONS = {
    "name": {"type": "str", "required": True},
    "state": STATE,
    "priority": {"type": "int"},
    "preempt": {"type": "list", "elements": "str"},
    "preempt_mode": {"type": "str"},
    "flags": {"type": "list", "elements": "str"},
    "grp_tres": {"type": "str"},
    "max_tres_per_user": {"type": "str"},
    "max_tres_per_job": {"type": "str"},
    "max_wall": {"type": "raw"},
    "max_jobs_per_user": {"type": "int"},
}
ACCOUNT_OPTIONS = {
    "name": {"type": "str", "required": True},
    "state": STATE,
    "description": {"type": "str"},
    "organization": {"type": "str"},
    "parent": {"type": "str"},
    "fairshare": {"type": "raw"},
    "qos": {"type": "list", "elements": "str"},
    "default_qos": {"type": "str"},
}
USER_OPTIONS = {
    "name": {"type": "str", "required": True},
    "state": STATE,
    "default_account": {"type": "str"},
    "accounts": {"type": "list", "elements": "str"},
    "purge_accounts": {"type": "bool", "default": False},
    "fairshare": {"type": "raw"},
    "qos": {"type": "list", "elements": "str"},
    "default_qos": {"type": "str"},
    "admin_level": {"type": "str", "choices": ["none", "operator", "administrator"]},
}


def _run(module, binary, args):
    cmd = [binary] + args
    rc, out, err = module.run_command(cmd)
    if rc != 0:
        module.fail_json(msg="sacctmgr failed (rc=%d): %s" % (rc, (err or out).strip()), cmd=cmd, rc=rc, stdout=out, stderr=err)
    return out


def read_state(module, binary, cluster):
    outputs = {key: _run(module, binary, args) for key, args in sacctmgr.show_commands(cluster).items()}
    try:
        return sacctmgr.parse_state(outputs)
    except sacctmgr.AccountingError as exc:
        module.fail_json(msg=str(exc))


def main():
    module = AnsibleModule(
        argument_spec={
            "cluster": {"type": "str", "required": True},
            "qos": {"type": "list", "elements": "dict", "default": [], "options": QOS_OPTIONS},
            "accounts": {"type": "list", "elements": "dict", "default": [], "options": ACCOUNT_OPTIONS},
            "users": {"type": "list", "elements": "dict", "default": [], "options": USER_OPTIONS},
            "sacctmgr_path": {"type": "path"},
        },
        supports_check_mode=True,
    )
    params = module.params
    cluster = params["cluster"]
    try:
        desired = sacctmgr.normalize_desired(params["qos"], params["accounts"], params["users"])
    except sacctmgr.AccountingError as exc:
        module.fail_json(msg=str(exc))
    binary = params["sacctmgr_path"] or module.get_bin_path("sacctmgr", required=True)

    state = read_state(module, binary, cluster)
    try:
        steps = sacctmgr.plan(desired, state, cluster)
    except sacctmgr.AccountingError as exc:
        module.fail_json(msg=str(exc))
    commands = [step["args"] for step in steps]
    result = {"changed": bool(steps), "commands": commands}
    if module._diff:
        result["diff"] = sacctmgr.diffs(desired, state)

    if steps and not module.check_mode:
        output = []
        for step in steps:
            output.extend(_run(module, binary, step["args"]).splitlines())
        result["output"] = output
        state = read_state(module, binary, cluster)
        try:
            left = sacctmgr.plan(desired, state, cluster)
        except sacctmgr.AccountingError as exc:
            module.fail_json(msg="after applying: %s" % exc, **result)
        if left:
            module.fail_json(
                msg="sacctmgr accepted the commands but these changes are still pending; see output for what it reported",
                pending=[step["args"] for step in left],
                **result,
            )
    result["accounting"] = sacctmgr.summary(desired, state)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
