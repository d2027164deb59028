#!/usr/bin/env bash
# The end of `make lab`: a demo job on the lab cluster, and how to get in.
set -euo pipefail
ctl="${LAB_CONTROLLER:-lab-ctl}"

echo "== sinfo"
docker exec "$ctl" sinfo
echo "== demo job: 2 nodes, 1 task each"
docker exec "$ctl" bash -c 'cd /tmp && job=$(sbatch --parsable --wait -N2 --ntasks-per-node=1 --time=2 --output=/tmp/demo-%j.out \
  --wrap "srun bash -c \"echo \\\$(hostname): task \\\$SLURM_PROCID of \\\$SLURM_NTASKS, CPUs \\\$(nproc)\" | sort") \
  && echo "job $job finished: $(scontrol show job "$job" | grep -o "JobState=[A-Z_]*")" && cat /tmp/demo-$job.out'
cat <<MSG

The lab cluster is up: 1 controller ($ctl), 2 compute nodes.
  make lab-shell      a shell on the controller (sinfo, srun, sbatch ...)
  make lab-destroy    remove the containers and their network
MSG
