#!/usr/bin/env bash
# ansible-test sanity, offline, with empty ignore files.
# ansible-test must run from a checkout at ansible_collections/aicluster/slurm:
# the tracked and untracked (not ignored) files are copied there, so no
# virtualenv or cache from the working tree comes along.
# It downloads a pip bootstrap script from a host we cannot reach; it takes a
# cached one instead, so we put there a stand-in that bootstraps pip with
# ensurepip and installs from the registry with the system CA store.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$here/.venv/bin/python}"
pyver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

cache="$HOME/.ansible/test/cache"
mkdir -p "$cache"
for version in 24_2 25_0 25_1 25_2; do
  cat > "$cache/get_pip_${version}.py" <<'PY'
# Offline stand-in for get-pip.py, written by aicluster.slurm tests/sanity.sh.
import os
import subprocess
import sys

env = dict(os.environ)
env.pop("PIP_CONFIG_FILE", None)
env.setdefault("PIP_CERT", "/etc/ssl/certs/ca-certificates.crt")
subprocess.check_call([sys.executable, "-m", "ensurepip", "--upgrade"], env=env)
args = [a for a in sys.argv[1:] if not a.startswith("--") or a in ("--upgrade", "--no-cache-dir", "--disable-pip-version-check")]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "--disable-pip-version-check"] + args, env=env))
PY
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
dest="$work/ansible_collections/aicluster/slurm"
mkdir -p "$dest"
(cd "$here" && git ls-files --cached --others --exclude-standard -z | xargs -0 -I{} sh -c '[ -e "{}" ] && printf "%s\0" "{}"' | tar --null -T - -cf -) | tar -C "$dest" -xf -
cd "$dest"
git init -q && git add -A >/dev/null
export PIP_CERT="${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}"
PATH="$(dirname "$python"):$PATH" ansible-test sanity --local --requirements --python "$pyver" "$@"
