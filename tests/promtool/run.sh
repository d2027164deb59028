#!/usr/bin/env bash
# promtool check rules, check config and test rules on the prometheus role's
# alert rules, rendered with the role's defaults (render.yml), with the
# promtool of each platform the collection installs: Debian trixie's (2.53)
# and forky's (3.5). The CI host runs Debian 12, whose promtool is 2.42, so
# each .deb is downloaded once inside that release's base image (it carries
# the release's package lists; lab/image.sh builds it when missing), unpacked,
# and the static binary runs on the host from .cache/promtool/<release>.
# PROMTOOL=path uses that binary alone (the configuration is rendered for its
# major version).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="$root/.cache/promtool"

# promtool of Debian release $1, downloaded once.
fetch() {
  local release="$1" image="aicluster-slurm/$1-systemd:1"
  if [ ! -x "$cache/$release/usr/bin/promtool" ]; then
    echo "promtool: downloading Debian $release's promtool in $image" >&2
    bash "$root/lab/image.sh" "$release" >&2
    mkdir -p "$cache"
    docker run --rm --network host -v "$cache:/out" "$image" sh -ec \
      "apt-get update -qq; cd /tmp; apt-get download -qq promtool; rm -rf /out/$release; dpkg -x promtool_*.deb /out/$release"
  fi
  echo "$cache/$release/usr/bin/promtool"
}

# The rules and prometheus.yml through promtool $1.
check() {
  local promtool="$1" version major work
  version="$("$promtool" --version | head -1)"
  echo "$version"
  major="$(echo "$version" | sed -E 's/^promtool, version ([0-9]+)\..*/\1/')"
  work="$(mktemp -d "$cache/run.XXXXXX")"
  ansible-playbook -i localhost, "$root/tests/promtool/render.yml" -e promtool_rules_dir="$work" -e promtool_major="$major" >/dev/null
  cp "$root"/tests/promtool/*.test.yml "$work/"
  (cd "$work" && "$promtool" check rules ./*.rules.yml && "$promtool" check config prometheus.yml && "$promtool" test rules ./*.test.yml)
  rm -rf "$work"
}

if [ -n "${PROMTOOL:-}" ]; then
  check "$PROMTOOL"
else
  for release in trixie forky; do
    promtool="$(fetch "$release")"
    check "$promtool"
  done
fi
