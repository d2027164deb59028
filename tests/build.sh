#!/usr/bin/env bash
# `ansible-galaxy collection build` works and the tarball installs: build it,
# install it into an empty path, and load a module and a role from there.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/build
rm -rf "$out"
ansible-galaxy collection build --force --output-path "$out" >/dev/null
tarball=$(ls "$out"/aicluster-slurm-*.tar.gz)
export ANSIBLE_COLLECTIONS_PATH="$PWD/$out/installed"
# --no-deps: Galaxy is unreachable; dependencies come from the pinned `ansible` package.
ansible-galaxy collection install --force --no-deps -p "$out/installed" "$tarball" >/dev/null
ansible-doc -t module aicluster.slurm.key_file >/dev/null
ansible-doc -t role aicluster.slurm.slurm >/dev/null
ansible-playbook --syntax-check -i inventories/lab "$out/installed/ansible_collections/aicluster/slurm/playbooks/site.yml" >/dev/null
echo "build: $tarball ($(du -k "$tarball" | cut -f1) KiB) builds, installs, and loads"
