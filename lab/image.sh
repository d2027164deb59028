#!/usr/bin/env bash
# Build a Debian image for the lab, molecule and bad-input containers,
# locally, with debootstrap: no container registry is reachable here. The
# mirror is read from the host's apt configuration (lab/apt_mirror.py).
#
#   lab/image.sh                     Debian 13 with systemd: the lab and molecule image
#                                    (aicluster-slurm/trixie-systemd:1)
#   lab/image.sh forky               Debian forky (testing, Slurm 26.05) with systemd
#                                    (aicluster-slurm/forky-systemd:1)
#   lab/image.sh bookworm minimal    Debian 12, python3 only, no systemd: the bad inputs'
#                                    unsupported OS (BADINPUT_OLD_OS_IMAGE, default
#                                    aicluster-slurm/bookworm-minimal:1)
#
# Images are cached by tag; set LAB_IMAGE_REBUILD=1 to rebuild.
set -euo pipefail

release="${1:-trixie}"
kind="${2:-systemd}"
case "$kind" in
  systemd) image="aicluster-slurm/$release-systemd:1" ;;
  minimal) image="${BADINPUT_OLD_OS_IMAGE:-aicluster-slurm/$release-minimal:1}" ;;
  *) echo "lab/image.sh: kind $kind is not systemd or minimal" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"

# Two scenarios on the same release (the CI harness runs two lanes) build it
# once: the second waits here and finds it cached.
exec 9>"/tmp/aicluster-image-${image//[^A-Za-z0-9]/_}.lock"
flock 9

if docker image inspect "$image" >/dev/null 2>&1 && [ -z "${LAB_IMAGE_REBUILD:-}${BADINPUT_IMAGE_REBUILD:-}" ]; then
  echo "image $image: cached"
  exit 0
fi

command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
mirror="$(python3 "$here/apt_mirror.py")"
# A release newer than the host's debootstrap (forky, Debian testing) is built
# with the sid script, and its Release file may be past Valid-Until on the
# mirror (testing's is renewed weekly; mirrors lag), so apt is told not to check.
script=() valid=""
if [ ! -e "/usr/share/debootstrap/scripts/$release" ]; then
  script=(/usr/share/debootstrap/scripts/sid)
  valid="Check-Valid-Until: no"
fi
root="$(mktemp -d "/var/tmp/aicluster-$release.XXXXXX")"
trap 'rm -rf "$root"' EXIT

echo "image $image: debootstrap $release ($kind) from the host's mirror"
if [ "$kind" = minimal ]; then
  debootstrap --variant=minbase --include=python3,procps "$release" "$root" "$mirror" "${script[@]}" >/dev/null
  rm -rf "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" -c . | docker import --change 'CMD ["sleep", "infinity"]' - "$image" >/dev/null
  echo "image $image: built"
  exit 0
fi

debootstrap --variant=minbase \
  --include=systemd,systemd-sysv,python3,python3-apt,dbus,iproute2,procps,ca-certificates,sudo,iputils-ping \
  "$release" "$root" "$mirror" "${script[@]}" >/dev/null

cat > "$root/etc/apt/sources.list.d/debian.sources" <<SRC
Types: deb
URIs: $mirror
Suites: $release $release-updates
Components: main contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
$valid
SRC
rm -f "$root/etc/apt/sources.list"
# Keep downloaded packages: the lab mounts one shared apt archive volume.
echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' > "$root/etc/apt/apt.conf.d/10keep-archives"
# docker import (20.10) takes no STOPSIGNAL: containers set stop_signal SIGRTMIN+3.
# No consoles or udev in a container; an empty machine-id is regenerated at boot.
chroot "$root" systemctl mask getty@tty1.service console-getty.service systemd-udevd.service \
  systemd-udevd-control.socket systemd-udevd-kernel.socket systemd-firstboot.service \
  systemd-modules-load.service >/dev/null 2>&1
: > "$root/etc/machine-id"
# Package lists stay in the image, as on any installed host.
chroot "$root" apt-get update -qq
rm -rf "$root"/var/cache/apt/archives/*.deb

tar -C "$root" -c . | docker import \
  --change 'ENV container=docker' \
  --change 'CMD ["/sbin/init"]' - "$image" >/dev/null
echo "image $image: built"
