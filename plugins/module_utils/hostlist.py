# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm hostlist expressions: compress host names into ``node[01-04,07]`` and back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_NUMBERED = re.compile(r"^(.*?)(\d+)$")
_BRACKET = re.compile(r"^(.*?)\[([^\]]+)\](.*)$")


def _ranges(numbers, width):
    """Turn sorted integers into ``a-b`` runs, zero-padded to ``width``."""
    runs = []
    start = prev = numbers[0]
    for number in numbers[1:] + [None]:
        if number is not None and number == prev + 1:
            prev = number
            continue
        if start == prev:
            runs.append("%0*d" % (width, start))
        else:
            runs.append("%0*d-%0*d" % (width, start, width, prev))
        if number is not None:
            start = prev = number
    return runs


def compress(names):
    """Return a compact Slurm hostlist expression for ``names``.

    Names are grouped by their non-numeric prefix and the width of their
    numeric suffix, so ``node9`` and ``node10`` stay distinct groups and
    zero padding is never invented or lost. Duplicates are dropped; the
    result is sorted naturally.
    """
    groups = {}
    plain = []
    # Natural order with one match per name: plain names, then (prefix, width) groups, each sorted.
    for name in set(names):
        match = _NUMBERED.match(name)
        if not match:
            plain.append(name)
            continue
        prefix, digits = match.groups()
        groups.setdefault((prefix, len(digits)), []).append(int(digits))
    parts = sorted(plain)
    for prefix, width in sorted(groups):
        runs = _ranges(sorted(groups[prefix, width]), width)
        if len(runs) == 1 and "-" not in runs[0]:
            parts.append(prefix + runs[0])
        else:
            parts.append("%s[%s]" % (prefix, ",".join(runs)))
    return ",".join(parts)


def _split_top_level(expression):
    depth = 0
    current = ""
    for char in expression:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            yield current
            current = ""
        else:
            current += char
    if current:
        yield current


def expand(expression):
    """Expand a hostlist expression into host names."""
    names = []
    for part in _split_top_level(expression):
        match = _BRACKET.match(part)
        if not match:
            names.append(part)
            continue
        prefix, body, suffix = match.groups()
        for item in body.split(","):
            low, high = (item.split("-", 1) + [""])[:2]
            width = len(low)
            for number in range(int(low), int(high or low) + 1):
                name = "%s%0*d%s" % (prefix, width, number, suffix)
                # Several bracket groups (rack[1-2]_n[1-8]) expand left to right.
                names.extend(expand(name) if "[" in suffix else [name])
    return names
