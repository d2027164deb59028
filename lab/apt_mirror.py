"""Print the Debian mirror this host's apt is configured with.

The repository never names a mirror: the lab image is bootstrapped from
whatever the host already uses. Both the deb822 (*.sources) and the one-line
(sources.list) formats are read; the first URI that serves the Debian archive
(suite without -security, component main) wins.
"""

from __future__ import annotations

import glob
import re
import sys


def _deb822_entries(text):
    entry = {}
    for line in text.splitlines() + [""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if entry:
                yield entry
            entry = {}
            continue
        if ":" in line and not line[0].isspace():
            key, value = line.split(":", 1)
            entry[key.strip().lower()] = value.strip()


def _candidates(apt_dir):
    for path in sorted(glob.glob(f"{apt_dir}/sources.list.d/*.sources")):
        with open(path, encoding="utf-8") as handle:
            for entry in _deb822_entries(handle.read()):
                if entry.get("enabled", "yes").lower() == "no" or "deb" not in entry.get("types", "").split():
                    continue
                for uri in entry.get("uris", "").split():
                    yield uri, entry.get("suites", "").split(), entry.get("components", "").split()
    for path in [f"{apt_dir}/sources.list"] + sorted(glob.glob(f"{apt_dir}/sources.list.d/*.list")):
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except FileNotFoundError:
            continue
        for line in lines:
            words = re.sub(r"\[[^]]*\]", " ", line.split("#", 1)[0]).split()
            if len(words) < 4 or words[0] != "deb":
                continue
            yield words[1], [words[2]], words[3:]


def debian_mirror(apt_dir="/etc/apt"):
    for uri, suites, components in _candidates(apt_dir):
        if "main" not in components or not suites:
            continue
        if any(s.endswith("-security") for s in suites) or "security" in uri:
            continue
        if any(s.split("-")[0] in DEBIAN_SUITES for s in suites):
            return uri.rstrip("/")
    return None


DEBIAN_SUITES = {"bullseye", "bookworm", "trixie", "forky", "sid", "stable", "testing", "unstable", "oldstable"}

if __name__ == "__main__":
    mirror = debian_mirror(sys.argv[1] if len(sys.argv) > 1 else "/etc/apt")
    if not mirror:
        sys.exit("apt_mirror: no Debian mirror found in the host's apt configuration (/etc/apt/sources.list*)")
    print(mirror)
