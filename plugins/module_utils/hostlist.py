# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slurm hostlist expressions: compress host names into ``node[01-04,07]`` and back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from itertools import repeat
from operator import itemgetter

_DIGITS = "0123456789"
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
    numeric suffix (ASCII digits, as Slurm's own hostlist reads them), so
    ``node9`` and ``node10`` stay distinct groups and zero padding is never
    invented or lost. Duplicates are dropped; the result is sorted
    naturally: plain names, then (prefix, width) groups, each sorted.
    """
    unique = list(set(names))
    prefix = one_prefix(unique)
    if prefix is not None:  # one group, a leaf's hosts most often: no per-name walk
        numbers = sorted(map(int, map(itemgetter(slice(len(prefix), None)), unique)))
        return _group(prefix, numbers, len(unique[0]) - len(prefix))
    groups = {}
    plain = []
    for name, prefix in zip(unique, map(str.rstrip, unique, repeat(_DIGITS)), strict=True):
        if prefix == name:
            plain.append(name)
        else:
            groups.setdefault((prefix, len(name) - len(prefix)), []).append(int(name[len(prefix) :]))
    parts = sorted(plain)
    parts.extend(_group(prefix, sorted(groups[prefix, width]), width) for prefix, width in sorted(groups))
    return ",".join(parts)


def one_prefix(unique):
    """``prefix`` when the distinct names in the list ``unique`` are each ``prefix`` and ASCII digits of one width, else None.

    Such names (``gpu0001`` ... ``gpu4096``) sort by their numbers in plain string order.
    """
    prefixes = set(map(str.rstrip, unique, repeat(_DIGITS)))  # in C: no per-name match
    if len(prefixes) == 1 and len(set(map(len, unique))) == 1:
        prefix = prefixes.pop()
        if len(prefix) < len(unique[0]):
            return prefix
    return None


def _group(prefix, numbers, width):
    """``prefix`` and its sorted ``numbers`` (of ``width`` digits) as one part: ``node07`` or ``node[01-04,07]``."""
    if numbers[-1] - numbers[0] == len(numbers) - 1:  # one run (distinct numbers): no walk over them
        if len(numbers) == 1:
            return "%s%0*d" % (prefix, width, numbers[0])
        return "%s[%0*d-%0*d]" % (prefix, width, numbers[0], width, numbers[-1])
    return "%s[%s]" % (prefix, ",".join(_ranges(numbers, width)))


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
