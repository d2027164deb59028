#!/bin/sh
# PID 1 of a lab container on a host with the hybrid cgroup layout (cgroup v1
# controllers, an empty cgroup v2 tree at /sys/fs/cgroup/unified), bound in at
# /sys/fs/cgroup by lab/tasks/containers.yml.
#
# systemd 258 and later (Debian forky) refuses to boot on cgroup v1, and the
# host's v2 tree has no controllers to give it (they are bound to v1, and
# Docker uses them). So systemd gets a cgroup v2 tree of its own: this
# container's own directory in the host's v2 tree, as the root of a new cgroup
# namespace. The v1 controller hierarchies stay reachable at
# /run/aicluster/cgroup-v1, where the lab's Slurm (cgroups_config:
# CgroupPlugin cgroup/v1, CgroupMountpoint) puts its job cgroups. On a real
# host both are simply cgroup v2 at /sys/fs/cgroup.
set -eu
# systemd before 258 (Debian 13) boots on the host's cgroup v1 as it is,
# unless LAB_CGROUP2 is set: a container that will be upgraded to forky in
# place must already run its systemd on cgroup v2 (the upgrade scenario).
version=$(/lib/systemd/systemd --version | awk 'NR == 1 {print $2}')
if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || { [ -z "${LAB_CGROUP2:-}" ] && [ "${version%%[!0-9]*}" -lt 258 ]; }; then
  exec /sbin/init
fi
v1=/run/aicluster/cgroup-v1
self=$(awk -F: '$2 == "name=systemd" {print $3}' /proc/self/cgroup)
mkdir -p "/sys/fs/cgroup/unified$self" "$v1"
echo $$ > "/sys/fs/cgroup/unified$self/cgroup.procs"
# Each v1 hierarchy from this container's own cgroup, which the new cgroup
# namespace below makes its root: paths in /proc/self/cgroup then match.
mount -t tmpfs -o mode=755 cgroup-v1 "$v1"
for dir in /sys/fs/cgroup/*; do
  name=${dir##*/}
  if [ -L "$dir" ]; then
    ln -s "$(readlink "$dir")" "$v1/$name"
  elif [ "$name" != unified ] && [ -d "$dir$self" ]; then
    mkdir "$v1/$name" && mount --bind "$dir$self" "$v1/$name"
  fi
done
umount -l /sys/fs/cgroup
exec unshare --cgroup sh -c 'mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec /sbin/init'
