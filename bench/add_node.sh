#!/usr/bin/env bash
# Day-2 benchmark: wall time of adding one node to the running lab cluster
# (playbooks/add_nodes.yml), set beside the converge of the two-node cluster
# and a full site.yml over the three nodes, in one run; the `changed` count
# of a second add_nodes.yml (must be 0); and removing the node again.
# It recreates the lab with a spare container lab-node3 (bench/inventory/):
# `make lab` state is lost. Run it with `make bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"
base=(-i inventories/lab -i bench/inventory/spare.yml)
grown=("${base[@]}" -i bench/inventory/compute.yml)

run() {  # run <log> <args...>: wall seconds on stdout, recap in the log
  local log=$1; shift
  local start
  start=$(date +%s%N)
  ANSIBLE_NOCOLOR=1 ansible-playbook "$@" >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  python3 -c "import sys; print('%.1f' % ((int(sys.argv[2]) - int(sys.argv[1])) / 1e9))" "$start" "$(date +%s%N)"
}
changed() { grep -oE 'changed=[0-9]+' "$1" | cut -d= -f2 | python3 -c "import sys; print(sum(int(x) for x in sys.stdin))"; }

ansible-playbook "${base[@]}" lab/destroy.yml >/dev/null
ansible-playbook "${base[@]}" lab/create.yml >/dev/null
converge=$(run "$out/day2-converge.log" "${base[@]}" site.yml)
add=$(run "$out/day2-add.log" "${grown[@]}" -e target=lab-node3 playbooks/add_nodes.yml)
again=$(run "$out/day2-add-again.log" "${grown[@]}" -e target=lab-node3 playbooks/add_nodes.yml)
site=$(run "$out/day2-site-3.log" "${grown[@]}" site.yml)
remove=$(run "$out/day2-remove.log" "${grown[@]}" -e target=lab-node3 -e skip_confirmation=true playbooks/remove_nodes.yml)
c_add=$(changed "$out/day2-add.log")
c_again=$(changed "$out/day2-add-again.log")
c_site=$(changed "$out/day2-site-3.log")
ratio() { python3 -c "import sys; print(round(float(sys.argv[1]) / float(sys.argv[2]), 3))" "$1" "$2"; }

printf '%-34s %8s %8s\n' run wall_s changed
printf '%-34s %8.1f %8s\n' "site.yml, 2 nodes, first converge" "$converge" - \
  "add_nodes.yml, +1 node" "$add" "$c_add" \
  "add_nodes.yml again" "$again" "$c_again" \
  "site.yml, 3 nodes, converged" "$site" "$c_site" \
  "remove_nodes.yml, -1 node" "$remove" -
cat >"$out/add_node.json" <<JSON
{"first_converge_2_nodes_s": $converge, "add_node_s": $add, "add_node_changed": $c_add,
 "add_node_again_s": $again, "add_node_again_changed": $c_again, "site_3_nodes_converged_s": $site,
 "site_3_nodes_changed": $c_site, "remove_node_s": $remove,
 "ratio_add_to_first_converge": $(ratio "$add" "$converge")}
JSON
echo "written: $out/add_node.json"
ansible-playbook "${base[@]}" lab/destroy.yml >/dev/null
[ "$c_again" -eq 0 ] || { echo "a second add_nodes.yml changed $c_again things: not idempotent" >&2; exit 1; }
[ "$c_site" -eq 0 ] || { echo "site.yml after add_nodes.yml changed $c_site things" >&2; exit 1; }
