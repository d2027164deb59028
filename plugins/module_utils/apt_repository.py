# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A site's own Slurm packages from its apt repository (slurm_apt_repository): checks and the files apt reads.

The slurm role writes three files from these functions: the repository's
signing key (/etc/apt/keyrings), a deb822 source that trusts only that key,
and an apt preferences file that takes the Slurm packages from that
repository (and, with slurm_package_version, holds them at that version)
while every other package keeps coming from Debian.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

VARIABLE = "slurm_apt_repository"
KEYS = ("url", "suites", "components", "key", "pin_priority")
KEYRING = "/etc/apt/keyrings/aicluster-slurm.asc"
SOURCES = "/etc/apt/sources.list.d/aicluster-slurm.sources"
PREFERENCES = "/etc/apt/preferences.d/aicluster-slurm.pref"
# The binary packages Debian's slurm-wlm source builds, and the ones sites' own builds add.
PACKAGES = ("slurm*", "libslurm*", "libpmi*", "libpam-slurm*", "sview", "python3-pyslurm")
DEFAULT_PRIORITY = 990
# A version pin above 1000 would let apt downgrade; a site's pin below 500 would lose to Debian's release.
PRIORITY_RANGE = (500, 999)
HOLD_PRIORITY = 1001

_URL = re.compile(r"^(https?|file)://[^\s\"']+$")
_HOST = re.compile(r"^https?://(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+)")
_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+~-]*$")
_ARMOURED = re.compile(r"^-----BEGIN PGP PUBLIC KEY BLOCK-----\n(?:.*\n)*?-----END PGP PUBLIC KEY BLOCK-----\n?$")
_VERSION = re.compile(r"^[0-9][A-Za-z0-9.+~:-]*$")


def _problem(key, value, problem, fix):
    shown = value if isinstance(value, (str, int)) and not isinstance(value, bool) else repr(value)
    return finding("apt_repository", "%s.%s=%s %s; %s" % (VARIABLE, key, shown, problem, fix), "%s.%s" % (VARIABLE, key), value, fix)


def _words(repo, key, default):
    value = repo.get(key, default)
    if isinstance(value, str):
        value = [value]
    return value


def findings(repo, package_version=""):
    """What is wrong with ``slurm_apt_repository`` (``{}``: Debian's packages, nothing to check)."""
    if not repo:
        return []
    if not isinstance(repo, dict):
        return [finding("apt_repository", "%s must be a mapping with url, key, suites, components" % VARIABLE, VARIABLE, repo, "see docs/upgrade.md")]
    found = []
    for key in sorted(set(repo) - set(KEYS)):
        found.append(
            finding("apt_repository", "%s.%s is not a known key (known: %s)" % (VARIABLE, key, ", ".join(KEYS)), VARIABLE, key, "remove it or fix its name")
        )
    url = repo.get("url")
    if not isinstance(url, str) or not _URL.match(url):
        found.append(
            _problem("url", url, "is not an http(s):// or file:// URL on one line", "give the repository's base URL, e.g. https://repo.example.org/slurm")
        )
    for key in ("suites", "components"):
        words = _words(repo, key, ["main"] if key == "components" else [])
        if not isinstance(words, list) or not all(isinstance(word, str) and _WORD.match(word) for word in words):
            found.append(_problem(key, words, "must be a list of names (letters, digits, . _ / + ~ -)", "e.g. [trixie] and [main]"))
    key = repo.get("key")
    if not isinstance(key, str) or not _ARMOURED.match(key.replace("\r\n", "\n")):
        found.append(
            _problem(
                "key",
                "<%d characters>" % len(key) if isinstance(key, str) else key,
                "is not an ASCII-armoured PGP public key block",
                "give the key's text, e.g. \"{{ lookup('ansible.builtin.file', 'site-slurm.asc') }}\" (gpg --export --armor)",
            )
        )
    priority = repo.get("pin_priority", DEFAULT_PRIORITY)
    if isinstance(priority, bool) or not isinstance(priority, int) or not PRIORITY_RANGE[0] <= priority <= PRIORITY_RANGE[1]:
        found.append(
            _problem(
                "pin_priority",
                priority,
                "is not a whole number from %d to %d" % PRIORITY_RANGE,
                "leave it out (%d: the repository wins over Debian's, never downgrading) or give one in the range" % DEFAULT_PRIORITY,
            )
        )
    if package_version and not _VERSION.match(str(package_version)):
        found.append(
            finding(
                "apt_repository",
                "slurm_package_version=%s is not a Debian package version; give the version the repository holds, e.g. 24.11.6-1site1" % package_version,
                "slurm_package_version",
                package_version,
                "e.g. 24.11.6-1site1",
            )
        )
    return found


def origin(url):
    """The apt origin of a repository URL: its host name (empty for a file:// repository)."""
    match = _HOST.match(url)
    return match.group(1).strip("[]") if match else ""


def sources(repo, codename):
    """The deb822 source: the repository, trusted only with its own key (``codename``: the default suite)."""
    suites = _words(repo, "suites", []) or [codename]
    components = _words(repo, "components", ["main"])
    return "\n".join(
        [
            "# aicluster.slurm: the site's Slurm packages (slurm_apt_repository)",
            "Types: deb",
            "URIs: %s" % repo["url"],
            "Suites: %s" % " ".join(suites),
            "Components: %s" % " ".join(components),
            "Signed-By: %s" % KEYRING,
            "",
        ]
    )


def preferences(repo, package_version=""):
    """The apt preferences: the Slurm packages from the repository; with ``package_version``, held at that version.

    apt takes a version's priority from the first stanza that matches it, so the hold comes first.
    """
    packages = " ".join(PACKAGES)
    stanzas = []
    if package_version:
        # Above 1000: apt keeps (or returns) every Slurm package to this version until slurm_package_version changes.
        stanzas += [
            "# aicluster.slurm: the Slurm packages held at slurm_package_version; the upgrade changes it deliberately",
            "Package: %s" % packages,
            "Pin: version %s" % package_version,
            "Pin-Priority: %d" % HOLD_PRIORITY,
            "",
        ]
    stanzas += [
        "# aicluster.slurm: the Slurm packages come from the site's repository (slurm_apt_repository)",
        "Package: %s" % packages,
        'Pin: origin "%s"' % origin(repo["url"]),
        "Pin-Priority: %d" % repo.get("pin_priority", DEFAULT_PRIORITY),
        "",
    ]
    return "\n".join(stanzas)


def key_text(repo):
    """The key file's content, with Unix line ends and one final newline."""
    return repo["key"].replace("\r\n", "\n").rstrip("\n") + "\n"


def files(repo, codename, package_version=""):
    """The three files as ``{path, content, mode}``; ``content`` None where the file must not exist (no repository)."""
    if not repo:
        return [{"path": path, "content": None, "mode": "0644"} for path in (KEYRING, SOURCES, PREFERENCES)]
    return [
        {"path": KEYRING, "content": key_text(repo), "mode": "0644"},
        {"path": SOURCES, "content": sources(repo, codename), "mode": "0644"},
        {"path": PREFERENCES, "content": preferences(repo, package_version), "mode": "0644"},
    ]
