#!/usr/bin/env bash
# make schema: regenerate plugins/module_utils/slurm_schema_data.py from the
# man pages and plugin files of the Slurm packages the lab image's apt
# sources install (Debian's), extracted in a throwaway container.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
image="${LAB_IMAGE:-aicluster-slurm/trixie-systemd:1}"
work="$(mktemp -d /var/tmp/aicluster-schema.XXXXXX)"
trap 'rm -rf "$work"' EXIT

docker run --rm -v "$work:/out" --entrypoint bash "$image" -c '
  set -euo pipefail
  apt-get update -qq
  cd /tmp && apt-get download -qq slurm-client slurmdbd slurm-wlm-basic-plugins >/dev/null
  for deb in *.deb; do dpkg -x "$deb" /tmp/root; done
  mkdir -p /out/man /out/plugins
  cp /tmp/root/usr/share/man/man5/{slurm,cgroup,gres,slurmdbd}.conf.5.gz /out/man/
  cp -r /tmp/root/usr/lib/*/slurm-wlm/*.so /out/plugins/
  dpkg-deb -f slurm-client_*.deb Version > /out/version
  chmod -R a+rX /out'

version="$(cat "$work/version")"
series="$(echo "$version" | sed -E 's/^([0-9]+:)?([0-9]+\.[0-9]+).*/\2/')"
python3 "$here/gen_slurm_schema.py" --version "$series" --package-version "$version" --man-dir "$work/man" --plugin-dir "$work/plugins"
