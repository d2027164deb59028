#!/usr/bin/env bash
# Scheduling benchmark on the emulated large tier (bench/scheduling.py): brings
# up the molecule `large` scenario (2 controllers, slurmdbd, one container
# emulating the nodes), replays a job trace per seed with the collection's
# configuration and with a flat baseline, and removes the cluster.
#   bash bench/scheduling.sh            # 128 nodes x 8 GPUs, seeds 1-5, load 1.0
#   bash bench/scheduling.sh 512        # 512 nodes x 8 GPUs (about 1.3 GB more memory)
#   bash bench/scheduling.sh 128 --seeds 1,2 --load 0.7   # scheduling.py's options after the size
# Uses the scenario's container names: not while `molecule test -s large` runs.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-128}
shift || true
out=bench/results
mkdir -p "$out"
export AICLUSTER_LARGE_NODES=$nodes
trap 'molecule destroy -s large >/dev/null 2>&1 || true' EXIT
molecule destroy -s large >/dev/null
for step in create prepare converge; do
  molecule "$step" -s large >"$out/scheduling-$nodes-$step.log" 2>&1 || { tail -30 "$out/scheduling-$nodes-$step.log"; exit 1; }
done
python3 bench/scheduling.py --out "$out/scheduling-$nodes.json" "$@"
