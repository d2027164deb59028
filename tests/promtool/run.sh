#!/usr/bin/env bash
# promtool check rules and promtool test rules on the prometheus role's alert
# rules, rendered with the role's defaults (render.yml), with the promtool the
# role installs: Debian trixie's (2.53). The CI host runs Debian 12, whose
# promtool is 2.42, so the .deb is downloaded once inside the trixie base
# image (make image; it carries trixie's package lists), unpacked, and the
# static binary runs on the host from .cache/promtool. PROMTOOL=path uses
# another binary (e.g. a 3.x one: the configuration is then rendered for 3.x).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="$root/.cache/promtool"
image=aicluster-slurm/trixie-systemd:1
promtool="${PROMTOOL:-$cache/trixie/usr/bin/promtool}"

if [ ! -x "$promtool" ]; then
  echo "promtool: downloading Debian trixie's promtool in $image"
  mkdir -p "$cache"
  docker run --rm --network host -v "$cache:/out" "$image" sh -ec \
    'apt-get update -qq; cd /tmp; apt-get download -qq promtool; rm -rf /out/trixie; dpkg -x promtool_*.deb /out/trixie'
fi
version="$("$promtool" --version | head -1)"
echo "$version"
major="$(echo "$version" | sed -E 's/^promtool, version ([0-9]+)\..*/\1/')"

work="$(mktemp -d "$cache/run.XXXXXX")"
trap 'rm -rf "$work"' EXIT
ansible-playbook -i localhost, "$root/tests/promtool/render.yml" -e promtool_rules_dir="$work" -e promtool_major="$major" >/dev/null
cp "$root"/tests/promtool/*.test.yml "$work/"
cd "$work"
"$promtool" check rules ./*.rules.yml
"$promtool" check config prometheus.yml
"$promtool" test rules ./*.test.yml
