# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Basic-auth credentials of record for the Prometheus-style HTTP endpoints.

A credential lives on one host (the cluster CA's) as two 0600 files:
``<name>.password`` (only when the collection generated it) and
``<name>.bcrypt``, the hash every endpoint's web configuration carries. The
hash is kept while it still matches the password, so a second run changes
nothing (bcrypt salts every new hash).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import secrets
import tempfile

# bcrypt reads at most 72 bytes; a longer password would be cut silently (bcrypt 5 refuses it).
MAX_BYTES = 72
ROUNDS = 10
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class CredentialError(ValueError):
    """A password or name the endpoints cannot use; the message names the variable and the fix, never the value."""


def problem(variable, value):
    """Why ``value`` cannot be a basic-auth password (empty: generated), or None."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        return "%s: a %s, not a string; quote it in YAML" % (variable, type(value).__name__)
    if _CONTROL.search(value):
        return "%s holds a line break or another control character; use printable characters only" % variable
    if value != value.strip():
        return "%s starts or ends with whitespace, which password files lose; remove it" % variable
    if len(value.encode("utf-8")) > MAX_BYTES:
        return "%s is longer than %d bytes, bcrypt's limit; use a shorter one (32 random characters is plenty)" % (variable, MAX_BYTES)
    return None


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8").strip()
    except FileNotFoundError:
        return None


def _write(path, text):
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".web_credential.")
    with os.fdopen(fd, "wb") as handle:
        handle.write(text.encode("utf-8") + b"\n")
    os.chmod(tmp, 0o600)
    os.rename(tmp, path)


def _bcrypt():
    try:
        import bcrypt
    except ImportError as error:
        raise CredentialError("Python's bcrypt module is missing on this host; install Debian's python3-bcrypt") from error
    return bcrypt


def matches(password, hashed):
    """Whether the bcrypt hash ``hashed`` is of ``password``."""
    if not hashed:
        return False
    try:
        return _bcrypt().checkpw(password.encode("utf-8"), hashed.encode("ascii"))
    except ValueError:
        return False


def ensure(directory, name, password="", rounds=ROUNDS, check_mode=False):
    """The credential ``name`` in ``directory``: ``(changed, password, hash)``.

    ``password`` empty: the one generated earlier, or a new random one (kept in
    ``<name>.password``). The hash is rewritten only when it does not match.
    """
    if not _NAME.match(name or ""):
        raise CredentialError("credential name %r: use lower-case letters, digits, - and _ (at most 32)" % (name,))
    message = problem("password of %s" % name, password)
    if message:
        raise CredentialError(message)
    if not os.path.isdir(directory):
        if check_mode:
            return True, password or secrets.token_urlsafe(24), ""
        os.makedirs(directory, 0o700)
    changed = False
    password_path = os.path.join(directory, name + ".password")
    if not password:
        password = _read(password_path)
        if not password:
            password = secrets.token_urlsafe(24)
            changed = True
            if not check_mode:
                _write(password_path, password)
    hash_path = os.path.join(directory, name + ".bcrypt")
    hashed = _read(hash_path)
    if not matches(password, hashed):
        hashed = _bcrypt().hashpw(password.encode("utf-8"), _bcrypt().gensalt(rounds)).decode("ascii")
        changed = True
        if not check_mode:
            _write(hash_path, hashed)
    return changed, password, hashed
