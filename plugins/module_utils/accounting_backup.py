# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The accounting database's backups (roles/slurmdbd, backup.yml): the slurmdbd_backup_* variables' problems.

systemd's own parser (``systemd-analyze calendar``, roles/slurmdbd preflight.yml) has the last word on the
calendar; this catches what would not even reach it as one value: a type, a range, a second line."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

KEEP_RANGE = (1, 3650)
# Absolute, no whitespace or shell/systemd specials: the path lands in a unit file's argument list.
_DIR = re.compile(r"^/[A-Za-z0-9._/-]+$")
# A database name the dump and the unit's argument list take as it is.
_DATABASE = re.compile(r"^[A-Za-z0-9_]{1,64}$")
# What systemd.time(7) calendar events are written with.
_CALENDAR = re.compile(r"^[A-Za-z0-9*:,./~ +-]+$")


def findings(settings):
    """Preflight findings for ``settings``: ``{enabled, dir, calendar, keep}`` (slurmdbd_backup_*) and ``database``
    (slurmdbd_storage_loc, which the dump names)."""
    found = []

    def bad(variable, value, message):
        found.append(finding("accounting_backup", message, variable, value))

    enabled = settings.get("enabled", True)
    if not isinstance(enabled, bool):
        bad("slurmdbd_backup_enabled", enabled, "slurmdbd_backup_enabled %r is not true or false; set true or false" % (enabled,))
        return found
    if not enabled:
        return found
    database = settings.get("database")
    if not isinstance(database, str) or not _DATABASE.match(database):
        bad(
            "slurmdbd_storage_loc",
            database,
            "slurmdbd_storage_loc %r is not a database name of 1 to 64 letters, digits and _ (which the backup dumps by name); "
            "set e.g. slurm_acct_db" % (database,),
        )
    path = settings.get("dir")
    if not isinstance(path, str) or not _DIR.match(path) or "/../" in path + "/" or path.rstrip("/") in ("", "/"):
        bad(
            "slurmdbd_backup_dir",
            path,
            "slurmdbd_backup_dir %r is not an absolute directory below / of letters, digits and ._-; set e.g. /var/backups/slurm-accounting" % (path,),
        )
    calendar = settings.get("calendar")
    if not isinstance(calendar, str) or not calendar.strip() or not _CALENDAR.match(calendar):
        bad(
            "slurmdbd_backup_calendar",
            calendar,
            "slurmdbd_backup_calendar %r is not one systemd calendar event (systemd.time(7)); set e.g. '*-*-* 03:17:00' or daily" % (calendar,),
        )
    keep = settings.get("keep")
    if isinstance(keep, bool) or not isinstance(keep, int) or not KEEP_RANGE[0] <= keep <= KEEP_RANGE[1]:
        bad(
            "slurmdbd_backup_keep",
            keep,
            "slurmdbd_backup_keep %r is not a whole number of dumps from %d to %d; set e.g. 14" % ((keep,) + KEEP_RANGE),
        )
    return found
