"""docs/variables.md is what tools/variables_doc.py writes now; the docs' relative links resolve."""

import re
from pathlib import Path

import pytest
from repo_scripts import load

ROOT = Path(__file__).resolve().parents[2]
variables_doc = load("tools/variables_doc.py", "aicluster_variables_doc")

# [text](target) and [text]: target; the target up to a space, ) or #.
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>#]*)[^)]*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_variables_doc_is_current():
    expected = variables_doc.render()
    current = variables_doc.OUTPUT.read_text(encoding="utf-8")
    assert current == expected, "docs/variables.md is not what tools/variables_doc.py writes from roles/*/meta/argument_specs.yml: run `make variables-doc`"


def test_variables_doc_names_every_option():
    text = variables_doc.OUTPUT.read_text(encoding="utf-8")
    for role, specs in variables_doc.load(ROOT).items():
        assert "## %s\n" % role in text
        for spec in specs.values():
            for name in (spec or {}).get("options") or {}:
                assert "`%s`" % name in text, "%s (role %s) missing from docs/variables.md" % (name, role)


def test_markup_and_literals():
    assert variables_doc.markup("C(slurmd -N) or I(x) | y") == "`slurmd -N` or *x* \\| y"
    assert variables_doc.literal("") == '`""`'
    assert variables_doc.literal([]) == "`[]`"
    assert variables_doc.literal({"a": [1, 2]}) == "`{a: [1, 2]}`"
    assert variables_doc.literal(None) == "`null`"
    assert variables_doc.literal(True) == "`true`"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_resolve(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2) or ""
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        if not (page.parent / target).exists():
            broken.append(target)
    assert not broken, "%s links to files that do not exist: %s" % (page.relative_to(ROOT), ", ".join(broken))
