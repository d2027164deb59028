#!/usr/bin/env bash
# Make sure a Docker engine answers: install Debian's docker.io if it is
# missing, start dockerd if it is not running (with systemd when the host
# has it, in the background otherwise).
set -euo pipefail

if docker info >/dev/null 2>&1; then
  exit 0
fi
if ! command -v dockerd >/dev/null; then
  echo "docker: installing Debian's docker.io"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if [ -d /run/systemd/system ]; then
  systemctl start docker
else
  echo "docker: starting dockerd (log: /var/log/aicluster-dockerd.log)"
  nohup dockerd >/var/log/aicluster-dockerd.log 2>&1 &
fi
for _ in $(seq 60); do
  docker info >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "docker: the engine did not answer within 60 s; see /var/log/aicluster-dockerd.log" >&2
exit 1
