#!/usr/bin/env bash
# The end of `make lab`: a demo job on the lab cluster, and how to get in.
set -euo pipefail
ctl="${LAB_CONTROLLER:-lab-ctl}"

echo "== sinfo"
docker exec "$ctl" sinfo
echo "== demo job: 2 nodes, 1 task each (srun from the controller)"
# shellcheck disable=SC2016  # expanded inside the job, not here
docker exec "$ctl" srun -N2 --ntasks-per-node=1 --time=2 bash -c \
  'echo "$(hostname): task $SLURM_PROCID of $SLURM_NTASKS in job $SLURM_JOB_ID, $(nproc) CPUs, partition $SLURM_JOB_PARTITION"' | sort
cat <<MSG

The lab cluster is up: 1 controller ($ctl), 2 compute nodes.
  make lab-shell      a shell on the controller (sinfo, srun, sbatch ...)
  make lab-destroy    remove the containers and their network
MSG
