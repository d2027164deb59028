# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values quoted for the parser of the file they land in: one function per format.

Each returns the text to write after ``Key=`` (or ``key = ``), so that the
program reading the file gets exactly ``value`` back, and raises QuotingError
(naming the variable, what the value holds and the fix, never the value: these
are mostly secrets) for a value that format cannot carry. ``problem`` gives the
same message without raising, for preflight.

* ``slurm``: Slurm's files (slurmdbd.conf's StoragePass). Slurm's parser
  (src/common/parse_config.c) cuts a line at an unescaped ``#``, then drops a
  backslash before any character, then reads a value as ``"..."`` (no ``"``
  inside) or as one word. So ``\\`` and ``#`` are escaped, a value with
  whitespace is put in double quotes, and a double quote is refused.
* ``systemd_env``: systemd's EnvironmentFile= (/etc/default/minio). Double
  quotes, with ``\\``, ``"``, ``$`` and the backquote escaped; systemd expands
  no variables there. Measured with systemd 257 (``systemd-run --pipe -p
  EnvironmentFile=``, systemd 257 and 262): every printable string comes back
  unchanged.
* ``rclone``: rclone.conf. rclone keeps the rest of the line but trims its
  ends; a value in backquotes (or, when it holds a backquote, in triple double
  quotes) comes back exactly. Measured with ``rclone config dump`` (1.60,
  Debian 13's; Debian 14 has no rclone package).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# Line breaks end a line in every one of these files; other control characters are refused as well, since no
# one types them in a password and terminals and logs mangle them.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class QuotingError(ValueError):
    """A value the file's format cannot carry; the message names the variable and the fix, never the value."""


def _text(variable, value):
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list, tuple)):
        raise QuotingError("%s is a %s; give one line of text" % (variable, "null" if value is None else type(value).__name__))
    text = value if isinstance(value, str) else str(value)
    if _CONTROL.search(text):
        raise QuotingError("%s contains a line break or another control character; give one line of printable text" % variable)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise QuotingError("%s is not valid UTF-8 text; give printable text" % variable) from None
    return text


def slurm(value, variable="value"):
    text = _text(variable, value)
    if '"' in text:
        raise QuotingError(
            "%s contains a double quote, which Slurm's parser cannot read inside a value (a quoted value ends at the first one): "
            "choose one without it" % variable
        )
    escaped = text.replace("\\", "\\\\").replace("#", "\\#")
    if text == "" or any(char.isspace() for char in text):
        return '"%s"' % escaped
    return escaped


def systemd_env(value, variable="value"):
    text = _text(variable, value)
    return '"%s"' % re.sub(r'([\\"$`])', r"\\\1", text)


def rclone(value, variable="value"):
    text = _text(variable, value)
    if "`" not in text:
        return "`%s`" % text
    if '"""' in text:
        raise QuotingError('%s contains both a backquote and """, which rclone.conf cannot quote together: choose one without them' % variable)
    return '"""%s"""' % text


FORMATS = {"slurm": slurm, "systemd_env": systemd_env, "rclone": rclone}


def quote(value, file_format, variable="value"):
    """``value`` as written in a file of ``file_format`` (one of FORMATS)."""
    if file_format not in FORMATS:
        raise QuotingError("unknown file format %r; use one of %s" % (file_format, ", ".join(sorted(FORMATS))))
    return FORMATS[file_format](value, variable)


def problem(value, file_format, variable="value"):
    """Why ``value`` cannot be written in a ``file_format`` file (the message names the variable), or None."""
    try:
        quote(value, file_format, variable)
    except QuotingError as exc:
        return str(exc)
    return None
