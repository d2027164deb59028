#!/usr/bin/env bash
# Provisioning benchmark: first and second converge of the lab cluster
# (1 controller, 2 compute nodes) from fresh containers, wall-clock seconds
# and the `changed` counts of each run. The second run must report 0.
# It recreates the lab: `make lab` state is lost. Run it with `make bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"

run() {  # run <log> <args...>: wall seconds on stdout, recap in the log
  local log=$1; shift
  local start
  start=$(date +%s%N)
  ANSIBLE_NOCOLOR=1 ansible-playbook -i inventories/lab "$@" >"$log" 2>&1
  python3 -c "import sys; print('%.1f' % ((int(sys.argv[2]) - int(sys.argv[1])) / 1e9))" "$start" "$(date +%s%N)"
}
changed() { grep -oE 'changed=[0-9]+' "$1" | cut -d= -f2 | python3 -c "import sys; print(sum(int(x) for x in sys.stdin))"; }

ansible-playbook -i inventories/lab lab/destroy.yml >/dev/null
ansible-playbook -i inventories/lab lab/create.yml >/dev/null
first=$(run "$out/converge-first.log" site.yml)
second=$(run "$out/converge-second.log" site.yml)
c1=$(changed "$out/converge-first.log")
c2=$(changed "$out/converge-second.log")

printf '%-18s %10s %9s\n' run wall_s changed
printf '%-18s %10.1f %9d\n' first_converge "$first" "$c1" second_converge "$second" "$c2"
cat >"$out/converge.json" <<JSON
{"hosts": 3, "first_converge_s": $first, "first_changed": $c1, "second_converge_s": $second, "second_changed": $c2,
 "ratio_second_to_first": $(python3 -c "import sys; print(round(float(sys.argv[1]) / float(sys.argv[2]), 3))" "$second" "$first")}
JSON
echo "written: $out/converge.json"
[ "$c2" -eq 0 ] || { echo "second converge changed $c2 things: not idempotent" >&2; exit 1; }
