#!/usr/bin/env bash
# make schema: regenerate plugins/module_utils/slurm_schema_data.py from the
# man pages and plugin files of Debian's Slurm packages, one entry per Slurm
# series: tools/slurm_schema.sh [SUITE...] (default: trixie forky, i.e.
# Slurm 24.11 and 26.05). The packages come from the mirror the host's apt
# uses (lab/apt_mirror.py), checked as apt checks them: the suite's InRelease
# against Debian's archive keyring (gpgv; an expired Valid-Until does not
# matter for a signature), the Packages index against InRelease, each .deb
# against the index. Nothing is installed.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mirror="$(python3 "$here/../lab/apt_mirror.py")"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
arch="$(dpkg --print-architecture)"
packages=(slurm-client slurmdbd slurm-wlm-basic-plugins slurm-wlm-mysql-plugin)
[ "$#" -gt 0 ] || set -- trixie forky

for suite in "$@"; do
  work="$(mktemp -d /var/tmp/aicluster-schema.XXXXXX)"
  (
    set -euo pipefail
    cd "$work"
    curl -fsS -o InRelease "$mirror/dists/$suite/InRelease"
    gpgv --keyring "$keyring" InRelease 2>/dev/null || { echo "$suite: InRelease is not signed by Debian's archive key" >&2; exit 1; }
    index="main/binary-$arch/Packages.xz"
    curl -fsS -o Packages.xz "$mirror/dists/$suite/$index"
    want="$(awk -v f="$index" '$3 == f && length($1) == 64 {print $1}' InRelease | tail -1)"
    echo "$want  Packages.xz" | sha256sum --quiet -c -
    for package in "${packages[@]}"; do
      read -r file sum < <(xz -dc Packages.xz | awk -v p="$package" '$0 == "Package: " p {x = 1} x && /^Filename:/ {f = $2} x && /^SHA256:/ {print f, $2; exit}')
      [ -n "${file:-}" ] || { echo "$suite: no package $package" >&2; exit 1; }
      curl -fsS -o "$(basename "$file")" "$mirror/$file"
      echo "$sum  $(basename "$file")" | sha256sum --quiet -c -
      dpkg-deb -x "$(basename "$file")" root
    done
    mkdir -p man plugins
    cp root/usr/share/man/man5/{slurm,cgroup,gres,slurmdbd,oci}.conf.5.gz man/
    cp root/usr/lib/*/slurm-wlm/*.so plugins/
    version="$(dpkg-deb -f slurm-client_*.deb Version)"
    series="$(echo "$version" | sed -E 's/^([0-9]+:)?([0-9]+\.[0-9]+).*/\2/')"
    python3 "$here/gen_slurm_schema.py" --version "$series" --package-version "$version" --man-dir man --plugin-dir plugins
  ) || { rm -rf "$work"; exit 1; }
  rm -rf "$work"
done
