#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: slurm_job_latency
short_description: Measure Slurm scheduling latency by submitting small batch jobs
version_added: 0.1.0
description:
  - Acceptance test for a new cluster. Submits O(count) one-minute batch jobs running O(command), one after another,
    with C(sbatch --parsable), then polls C(squeue) every O(poll_interval) seconds until all of them have started or
    O(timeout) seconds have passed, cancels with one C(scancel) the jobs not started, and returns latency percentiles.
  - A job's latency is the time from right after its C(sbatch) returned to right after the first C(squeue) that shows
    it started, on the monotonic clock of the host the module runs on. The resolution is about O(poll_interval) plus
    the time one C(squeue) takes; latencies are upper bounds.
  - A job counts as started once the scheduler has allocated nodes to it, that is the first time squeue shows it in
    any state other than C(PENDING), C(RESV_DEL_HOLD), the requeue states (C(REQUEUED), C(REQUEUE_FED),
    C(REQUEUE_HOLD), C(SPECIAL_EXIT), which lead back to C(PENDING)), C(CANCELLED) and C(DEADLINE); for example
    C(CONFIGURING), C(RUNNING), C(COMPLETING), C(COMPLETED), C(FAILED) or C(NODE_FAIL).
  - A job that squeue no longer lists ran and was purged between two polls (see C(MinJobAge)); it counts as started
    at that poll. A job seen C(CANCELLED) or C(DEADLINE) counts as not started, as a pending job can end there
    without having been allocated.
  - Run it on a host where C(sbatch), C(squeue) and C(scancel) reach slurmctld, usually the controller, as a user
    that may submit to O(partition).
options:
  count:
    description: Number of jobs to submit, from 1 to 10000.
    type: int
    default: 50
  partition:
    description: Partition to submit to (C(--partition)); the cluster's default partition when not given.
    type: str
  command:
    description: Shell command each job runs (C(sbatch --wrap)).
    type: str
    default: "true"
  extra_args:
    description:
      - More C(sbatch) arguments, each one list element, for example C([--gres=gpu:1, --account=ops]). They come
        after the module's own, so C(--time) or C(--output) given here replace its values.
    type: list
    elements: str
    default: []
  timeout:
    description:
      - Seconds, from the first submission, to wait for the jobs to start. Jobs not started by then are cancelled and
        returned in RV(not_started); when it passes while submitting, the remaining jobs are not submitted.
    type: int
    default: 300
  poll_interval:
    description: Seconds between two C(squeue) polls; must be greater than 0.
    type: float
    default: 0.2
  job_name:
    description: Name of the jobs (C(--job-name)), to tell them apart in C(squeue) and C(sacct).
    type: str
    default: aicluster-latency
notes:
  - The jobs write no output (C(--output=/dev/null)) and ask for one minute (C(--time=1)).
  - Slurm 24.11 option and state names; see the C(sbatch) and C(squeue) man pages.
attributes:
  check_mode:
    support: partial
    description: Can run in check mode.
    details: In check mode no job is submitted and nothing is measured; the module returns RV(skipped=true) and RV(msg).
  diff_mode:
    support: none
    description: Measures only; there is nothing to diff.
  platform:
    support: full
    platforms: posix
    description: Any host with the Slurm client commands that reaches slurmctld.
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Measure scheduling latency with 200 jobs on the gpu partition
  aicluster.slurm.slurm_job_latency:
    count: 200
    partition: gpu
    timeout: 600
  register: latency
  run_once: true

- name: Fail the acceptance test when scheduling is slow
  ansible.builtin.assert:
    that:
      - latency.not_started | length == 0
      - latency.latency.p99 < 5
    fail_msg: "p99 scheduling latency {{ latency.latency.p99 }}s, {{ latency.not_started | length }} jobs not started"
"""

RETURN = r"""
submitted:
  description: Number of jobs submitted.
  returned: success, except in check mode
  type: int
  sample: 50
started:
  description: Number of those jobs that started before O(timeout).
  returned: success, except in check mode
  type: int
  sample: 50
not_started:
  description: Ids of the jobs submitted that did not start (cancelled at the timeout, or seen cancelled while pending).
  returned: success, except in check mode
  type: list
  elements: str
  sample: ["4127"]
cancelled:
  description: Ids of the jobs passed to C(scancel) at the end (the ones still waiting at the timeout).
  returned: success, except in check mode
  type: list
  elements: str
  sample: ["4127"]
latency:
  description: Latency, submit to start, of the jobs started, in seconds rounded to milliseconds; each value is null when none started.
  returned: success, except in check mode
  type: dict
  contains:
    p50:
      description: Median, nearest rank.
      type: float
      sample: 0.412
    p90:
      description: 90th percentile, nearest rank.
      type: float
      sample: 0.815
    p99:
      description: 99th percentile, nearest rank.
      type: float
      sample: 1.207
    max:
      description: Largest latency.
      type: float
      sample: 1.311
    mean:
      description: Mean latency.
      type: float
      sample: 0.468
jobs_per_second:
  description:
    - Jobs started per second, from the first submission to the last start, rounded to 2 decimals. C(0.0) when none
      started; null when that span is zero.
  returned: success, except in check mode
  type: float
  sample: 38.46
submit_seconds:
  description: Seconds the submissions took.
  returned: success, except in check mode
  type: float
  sample: 1.204
wall_seconds:
  description: Seconds the whole test took, submissions, polls and cancel included.
  returned: success, except in check mode
  type: float
  sample: 1.87
poll_interval:
  description: Seconds between two polls, as given.
  returned: success, except in check mode
  type: float
  sample: 0.2
job_ids:
  description: Ids of the jobs submitted, in submission order.
  returned: success, except in check mode
  type: list
  elements: str
  sample: ["4078", "4079", "4080"]
skipped:
  description: True in check mode, where no job is submitted.
  returned: in check mode
  type: bool
  sample: true
msg:
  description: Why nothing was measured.
  returned: in check mode
  type: str
  sample: "check mode: no jobs submitted, scheduling latency not measured"
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aicluster.slurm.plugins.module_utils import latency


def main():
    module = AnsibleModule(
        argument_spec={
            "count": {"type": "int", "default": 50},
            "partition": {"type": "str"},
            "command": {"type": "str", "default": "true"},
            "extra_args": {"type": "list", "elements": "str", "default": []},
            "timeout": {"type": "int", "default": 300},
            "poll_interval": {"type": "float", "default": 0.2},
            "job_name": {"type": "str", "default": "aicluster-latency"},
        },
        supports_check_mode=True,
    )
    params = module.params
    try:
        latency.check_options(params["count"], params["timeout"], params["poll_interval"])
    except latency.LatencyError as exc:
        module.fail_json(msg=str(exc))
    if module.check_mode:
        module.exit_json(changed=False, skipped=True, msg="check mode: no jobs submitted, scheduling latency not measured")

    paths = {name: module.get_bin_path(name, required=True) for name in ("sbatch", "squeue", "scancel")}

    def run(argv):
        return module.run_command([paths[argv[0]]] + argv[1:])

    try:
        result = latency.measure(
            run,
            time.monotonic,
            time.sleep,
            count=params["count"],
            partition=params["partition"],
            command=params["command"],
            extra_args=params["extra_args"],
            timeout=params["timeout"],
            poll_interval=params["poll_interval"],
            job_name=params["job_name"],
        )
    except latency.LatencyError as exc:
        module.fail_json(msg=str(exc), changed=bool(exc.details.get("job_ids")), **exc.details)
    for warning in result.pop("warnings"):
        module.warn(warning)
    module.exit_json(changed=True, **result)


if __name__ == "__main__":
    main()
