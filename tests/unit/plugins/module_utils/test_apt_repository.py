"""Unit tests for plugins/module_utils/apt_repository.py: a site's Slurm repository, checked and rendered."""

import pytest

from ansible_collections.aicluster.slurm.plugins.filter.apt_repository import FilterModule
from ansible_collections.aicluster.slurm.plugins.module_utils import apt_repository, preflight

KEY = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZxyz\n=abcd\n-----END PGP PUBLIC KEY BLOCK-----\n"
REPO = {"url": "https://repo.example.org/slurm/debian", "key": KEY}


def messages(repo, version=""):
    return [item["message"] for item in apt_repository.findings(repo, version)]


def test_nothing_set_is_debian_and_removes_the_files():
    assert apt_repository.findings({}) == []
    assert [(item["path"], item["content"]) for item in apt_repository.files({}, "trixie")] == [
        ("/etc/apt/keyrings/aicluster-slurm.asc", None),
        ("/etc/apt/sources.list.d/aicluster-slurm.sources", None),
        ("/etc/apt/preferences.d/aicluster-slurm.pref", None),
    ]


def test_sources_trust_only_the_repository_key_and_default_to_the_host_release():
    assert apt_repository.sources(REPO, "trixie") == (
        "# aicluster.slurm: the site's Slurm packages (slurm_apt_repository)\n"
        "Types: deb\n"
        "URIs: https://repo.example.org/slurm/debian\n"
        "Suites: trixie\n"
        "Components: main\n"
        "Signed-By: /etc/apt/keyrings/aicluster-slurm.asc\n"
    )
    custom = dict(REPO, suites=["trixie-slurm", "trixie-slurm-updates"], components="contrib")
    text = apt_repository.sources(custom, "trixie")
    assert "Suites: trixie-slurm trixie-slurm-updates\n" in text
    assert "Components: contrib\n" in text


def test_preferences_pin_the_slurm_packages_to_the_origin_and_hold_the_version():
    text = apt_repository.preferences(REPO)
    assert text == (
        "# aicluster.slurm: the Slurm packages come from the site's repository (slurm_apt_repository)\n"
        "Package: slurm* libslurm* libpmi* libpam-slurm* sview python3-pyslurm\n"
        'Pin: origin "repo.example.org"\n'
        "Pin-Priority: 990\n"
    )
    held = apt_repository.preferences(dict(REPO, pin_priority=700), "24.11.6-1site1")
    assert held.endswith("Pin-Priority: 700\n")
    # apt takes a version's priority from the first stanza that matches: the hold is first.
    assert held.startswith(
        "# aicluster.slurm: the Slurm packages held at slurm_package_version; the upgrade changes it deliberately\n"
        "Package: slurm* libslurm* libpmi* libpam-slurm* sview python3-pyslurm\nPin: version 24.11.6-1site1\nPin-Priority: 1001\n\n"
    )


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://repo.example.org/slurm", "repo.example.org"),
        ("http://user@mirror.site:8080/slurm/", "mirror.site"),
        ("https://[2001:db8::1]/slurm", "2001:db8::1"),
        ("file:///srv/slurm-repo", ""),
    ],
)
def test_origin_is_the_host_apt_matches(url, origin):
    assert apt_repository.origin(url) == origin
    assert 'Pin: origin "%s"\n' % origin in apt_repository.preferences(dict(REPO, url=url))


def test_key_file_has_unix_line_ends():
    assert apt_repository.key_text(dict(REPO, key=KEY.replace("\n", "\r\n").rstrip())) == KEY
    files = apt_repository.files(REPO, "trixie", "24.11.6-1site1")
    assert [item["content"] for item in files] == [KEY, apt_repository.sources(REPO, "trixie"), apt_repository.preferences(REPO, "24.11.6-1site1")]


@pytest.mark.parametrize(
    ("repo", "version", "says"),
    [
        (dict(REPO, urll="x"), "", "slurm_apt_repository.urll is not a known key (known: url, suites, components, key, pin_priority)"),
        (dict(REPO, url="ftp://repo.example.org/slurm"), "", "slurm_apt_repository.url=ftp://repo.example.org/slurm is not an http(s):// or file:// URL"),
        (dict(REPO, url="https://repo.example.org/slurm\nTypes: deb-src"), "", "slurm_apt_repository.url="),
        ({"key": KEY}, "", "slurm_apt_repository.url=None is not"),
        (dict(REPO, suites=["trixie main"]), "", "slurm_apt_repository.suites=['trixie main'] must be a list of names"),
        (dict(REPO, components=[1]), "", "slurm_apt_repository.components=[1] must be a list of names"),
        (dict(REPO, key="not a key"), "", "slurm_apt_repository.key=<9 characters> is not an ASCII-armoured PGP public key block"),
        (dict(REPO, key=KEY + "Signed-By: /dev/null\n"), "", "is not an ASCII-armoured PGP public key block"),
        ({"url": REPO["url"]}, "", "slurm_apt_repository.key=None is not"),
        (dict(REPO, pin_priority=1001), "", "slurm_apt_repository.pin_priority=1001 is not a whole number from 500 to 999"),
        (dict(REPO, pin_priority="990"), "", "slurm_apt_repository.pin_priority=990 is not a whole number"),
        (dict(REPO, pin_priority=True), "", "pin_priority=True is not"),
        (REPO, "24.11 6", "slurm_package_version=24.11 6 is not a Debian package version"),
        ("https://repo.example.org", "", "slurm_apt_repository must be a mapping"),
    ],
)
def test_bad_values_are_named_with_their_fix(repo, version, says):
    found = messages(repo, version)
    assert len(found) == 1, found
    assert says in found[0]


def test_a_good_repository_has_no_findings_and_preflight_runs_the_check():
    assert messages(dict(REPO, suites=["trixie"], components=["main", "contrib"], pin_priority=600), "24.11.6-1site1") == []
    assert "apt_repository" in preflight.CHECK_IDS
    found = preflight.check_settings({"apt_repository": dict(REPO, url="ftp://x")})
    assert [item["id"] for item in found] == ["apt_repository"]
    assert found[0]["variable"] == "slurm_apt_repository.url"


def test_filter_adapts_empty_values():
    files = FilterModule().filters()["slurm_apt_files"](None, "trixie", None)
    assert [item["content"] for item in files] == [None, None, None]
