# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Subject alternative names for the hosts' certificates (roles/tls)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

# A DNS name as certificates carry it: labels of letters, digits and hyphens, a leading "*." allowed.
_DNS = re.compile(r"^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")


class TlsError(ValueError):
    """A name a certificate cannot carry; the message names the variable, the value and the fix."""


def san(value, variable="tls_extra_sans"):
    """``IP:<address>`` or ``DNS:<name>`` for ``value``; TlsError for anything else."""
    text = str(value).strip() if isinstance(value, str) else None
    if text:
        try:
            return "IP:" + str(ipaddress.ip_address(text))
        except ValueError:
            pass
        # A last label of digits only is a mistyped address, not a name.
        if len(text) <= 253 and _DNS.match(text) and not text.rsplit(".", 1)[-1].isdigit():
            return "DNS:" + text.lower()
    raise TlsError("%s: %r is neither an IP address nor a DNS name; give names like login.example.net or addresses like 10.0.0.5" % (variable, value))


def sans_problems(values, variable="tls_extra_sans"):
    """Every problem of a tls_extra_sans value, as messages (empty: none)."""
    if not isinstance(values, list):
        return ["%s: %r is not a list; give a list of DNS names and IP addresses" % (variable, values)]
    problems = []
    for value in values:
        try:
            san(value, variable)
        except TlsError as error:
            problems.append(str(error))
    return problems


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def input_problems(settings):
    """Every problem of the tls_* variables (``settings``: their values by name), as ``(variable, message)`` pairs."""
    # Imported here: web_credential needs nothing else, and this keeps the import graph one way.
    from ansible_collections.aicluster.slurm.plugins.module_utils import web_credential

    problems = []
    enabled = settings.get("tls_enabled", True)
    if not isinstance(enabled, bool):
        problems.append(("tls_enabled", "tls_enabled: %r is not true or false; set true (HTTPS with basic auth) or false (plain HTTP)" % (enabled,)))
    cert, key = settings.get("tls_ca_cert") or "", settings.get("tls_ca_key") or ""
    if bool(cert) != bool(key):
        problems.append(
            ("tls_ca_cert", "tls_ca_cert and tls_ca_key: give both (the site's CA certificate and key, PEM) or neither (the collection creates its CA)")
        )
    if cert and "-----BEGIN CERTIFICATE-----" not in str(cert):
        problems.append(("tls_ca_cert", "tls_ca_cert is not a PEM certificate (no BEGIN CERTIFICATE line); give the CA certificate's PEM text"))
    if key and "PRIVATE KEY-----" not in str(key):
        problems.append(("tls_ca_key", "tls_ca_key is not a PEM private key (no PRIVATE KEY line); give the CA key's PEM text, unencrypted"))
    days, renew = settings.get("tls_cert_days", 825), settings.get("tls_renew_days", 30)
    if not _whole(days) or not 2 <= days <= 3650:
        problems.append(("tls_cert_days", "tls_cert_days: %r is not a whole number of days from 2 to 3650; e.g. 825" % (days,)))
    elif not _whole(renew) or not 1 <= renew < days:
        problems.append(("tls_renew_days", "tls_renew_days: %r is not a whole number of days from 1 to tls_cert_days - 1 (%d); e.g. 30" % (renew, days - 1)))
    for variable in ("tls_monitoring_admin_password", "tls_monitoring_scrape_password"):
        message = web_credential.problem(variable, settings.get(variable))
        if message:
            problems.append((variable, message))
    problems += [("tls_extra_sans", message) for message in sans_problems(settings.get("tls_extra_sans", []))]
    return problems


def listen_problem(variable, value, addresses):
    """Why a service cannot listen on ``value`` on a host with IPv4 ``addresses``, or None."""
    if value in ("0.0.0.0", "127.0.0.1") or value in (addresses or []):
        return None
    if not value:
        return "%s is empty and the host has no default IPv4 route; set it to the host's cluster address" % variable
    return "%s: %r is not an IPv4 address of this host (%s); set one of them, or 0.0.0.0 for every address" % (
        variable,
        value,
        ", ".join(addresses or []) or "none",
    )


def findings(settings):
    """The tls_* problems as preflight findings (never the values: two of them are passwords)."""
    from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

    return [finding("tls", message, variable) for variable, message in input_problems(settings)]


def listen_findings(listen, addresses):
    """Preflight findings for ``listen`` (``{variable: address}``) on a host with IPv4 ``addresses``."""
    from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

    problems = ((variable, listen_problem(variable, value, addresses)) for variable, value in sorted((listen or {}).items()))
    return [finding("listen_address", message, variable, listen[variable]) for variable, message in problems if message]
