# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one shape of a finding, whichever check makes it.

Every check of the collection (preflight, the schema, MinIO, exporters,
driver compatibility, monitoring, job environment, health checks) returns a
list of these; roles/preflight/tasks/report.yml prints ``[id] message`` and
fails once on the errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

SEVERITIES = ("error", "warning", "info")


def finding(check_id, message, variable=None, value=None, fix=None, severity="error", **extra):
    """``{id, severity, variable, value, message, fix}`` plus ``extra`` keys.

    ``message`` is the whole plain sentence the user reads (it names the
    variable, the value and the fix); ``variable``, ``value`` and ``fix`` are
    its parts for programs (None where the check concerns no single variable).
    """
    if severity not in SEVERITIES:
        raise ValueError("finding %s: severity %r is not one of %s" % (check_id, severity, ", ".join(SEVERITIES)))
    result = {"id": check_id, "severity": severity, "variable": variable, "value": value, "message": message, "fix": fix}
    result.update(extra)
    return result


def from_messages(messages, check_id, variable):
    """Plain messages (each naming the value and the fix) as errors of the shared shape, for the preflight reporter."""
    return [finding(check_id, message, variable) for message in messages]


def prefixed(item, variable):
    """A finding whose message names options of ``variable`` (a dict), with that variable named first; the input is not modified."""
    return dict(item, message="%s: %s" % (variable, item["message"]))


def line(item):
    """One finding as ``[id] message``."""
    return "[%s] %s" % (item["id"], item["message"])
