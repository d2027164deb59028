#!/usr/bin/env bash
# A real Debian 12 host for the "unsupported OS" bad input: a minimal
# bookworm root (python3 for Ansible, no systemd) made with debootstrap from
# the host's own mirror, cached by tag. Set BADINPUT_IMAGE_REBUILD=1 to rebuild.
set -euo pipefail

image="${BADINPUT_OLD_OS_IMAGE:-aicluster-slurm/bookworm-minimal:1}"
here="$(cd "$(dirname "$0")" && pwd)"

if docker image inspect "$image" >/dev/null 2>&1 && [ -z "${BADINPUT_IMAGE_REBUILD:-}" ]; then
  echo "image $image: cached"
  exit 0
fi

command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
mirror="$(python3 "$here/../../lab/apt_mirror.py")"
root="$(mktemp -d /var/tmp/aicluster-bookworm.XXXXXX)"
trap 'rm -rf "$root"' EXIT

echo "image $image: debootstrap bookworm from the host's mirror"
debootstrap --variant=minbase --include=python3,procps bookworm "$root" "$mirror" >/dev/null
rm -rf "$root"/var/cache/apt/archives/*.deb
tar -C "$root" -c . | docker import --change 'CMD ["sleep", "infinity"]' - "$image" >/dev/null
echo "image $image: built"
