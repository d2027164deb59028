# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host firewall (roles/firewall): which ports each role opens, to whom, as an nftables ruleset.

The ports are data (:data:`SERVICES`), not prose: each entry names the
inventory groups whose hosts serve it, where its port comes from, and who may
connect. ``cluster`` is every inventory host's IPv4 addresses plus
``firewall_cluster_networks``; ``clients`` adds ``firewall_client_networks``
(the users' networks, for the monitoring UIs and the S3 API). Everything else
inbound is dropped; the ruleset lives in its own table (``inet aicluster``),
so other tables (Docker's, a site's) are left alone.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

TABLE = "aicluster"
# (name, groups that serve it, setting that holds the port or range (None: fixed), default, who may connect)
SERVICES = (
    ("slurmctld", ("slurmctld",), "SlurmctldPort", "6817", "cluster"),
    ("slurmd", ("slurm_compute",), "SlurmdPort", "6818", "cluster"),
    ("slurmdbd", ("slurmdbd",), "DbdPort", "6819", "cluster"),
    # srun's I/O and PMI ports where jobs are submitted and where steps run.
    ("srun", ("slurmctld", "slurm_compute", "slurm_login"), "SrunPortRange", "60001-63000", "cluster"),
    ("node_exporter", ("slurmctld", "slurmdbd", "slurm_compute", "monitoring", "minio"), "node_exporter_port", "9100", "cluster"),
    ("prometheus", ("monitoring",), "prometheus_port", "9090", "clients"),
    ("alertmanager", ("monitoring",), "prometheus_alertmanager_port", "9093", "clients"),
    ("minio", ("minio",), "minio_port", "9000", "clients"),
    ("minio_console", ("minio",), "minio_console_port", "9001", "clients"),
    # glusterd's and NFSv4's fixed ports; the bricks' range, which roles/shared_fs
    # gives glusterd (GlusterFS 11 picks each brick's port at random within it).
    ("glusterfs", ("shared_fs",), None, "24007-24008", "cluster"),
    ("glusterfs_bricks", ("shared_fs",), "shared_fs_glusterfs_brick_ports", "49152-49251", "cluster"),
    ("nfs", ("shared_fs",), None, "2049", "cluster"),
)
# Services that open only with this shared_fs_type (settings key shared_fs_type).
SHARED_FS_SERVICES = {"glusterfs": "glusterfs", "glusterfs_bricks": "glusterfs", "nfs": "nfs"}
# The prometheus role's default scrape jobs other than node exporter (in SERVICES): where
# prometheus_scrape_jobs is not set in the inventory, these exporters' ports open to the cluster.
DEFAULT_SCRAPE_JOBS = (
    {"name": "slurm", "port": 9341, "groups": ["slurm_exporter"]},
    {"name": "dcgm", "port": 9400, "groups": ["dcgm_exporter"]},
    {"name": "npu", "port": 8082, "groups": ["npu_exporter"]},
)
_RANGE = re.compile(r"^([0-9]{1,5})(?:-([0-9]{1,5}))?$")


class FirewallError(ValueError):
    """Input the ruleset cannot be made from; the message names the variable, the value and the fix."""


def port_range(variable, value):
    """``"6817"`` or ``"60001-63000"`` from a port, a range or Slurm's ``6817-6818``; FirewallError otherwise."""
    match = _RANGE.match(str(value).strip()) if not isinstance(value, bool) else None
    if match:
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if 0 < low <= high < 65536:
            return str(low) if low == high else "%d-%d" % (low, high)
    raise FirewallError("%s: %r is not a TCP port or a range such as 60001-63000; set a port from 1 to 65535" % (variable, value))


def networks(variable, values):
    """Normalised IPv4/IPv6 networks from ``values`` (addresses or CIDRs); FirewallError names a bad one."""
    if not isinstance(values, list):
        raise FirewallError("%s: %r is not a list; give addresses or networks such as [10.0.0.0/16]" % (variable, values))
    result = []
    for value in values:
        try:
            result.append(str(ipaddress.ip_network(str(value).strip(), strict=False)))
        except ValueError:
            raise FirewallError("%s: %r is not an IP address or network; use a form such as 10.0.0.0/16 or fd00::/64" % (variable, value)) from None
    return result


def _by_family(nets):
    four = sorted({n for n in nets if ipaddress.ip_network(n).version == 4}, key=ipaddress.ip_network)
    six = sorted({n for n in nets if ipaddress.ip_network(n).version == 6}, key=ipaddress.ip_network)
    return four, six


def plan(groups_of_host, settings):
    """``[(name, ports, audience)]``: what this host opens (``groups_of_host``: its inventory groups).

    ``settings``: the port settings by name (slurm.conf's and the roles'),
    ``scrape_jobs`` (prometheus_scrape_jobs; None: the prometheus role's
    defaults), ``host`` (this host's inventory name, for jobs that name
    hosts) and ``extra``: ``[{name, port, groups, from}]`` (firewall_allow)
    for the site's own services.
    """
    opened = []
    mine = set(groups_of_host)
    names = set()
    jobs = settings.get("scrape_jobs")
    for job in DEFAULT_SCRAPE_JOBS if jobs is None else jobs:
        # Prometheus scrapes these from the monitoring hosts, which are in the cluster set.
        if isinstance(job, dict) and (mine & set(job.get("groups") or []) or settings.get("host") in (job.get("hosts") or [])):
            name = "scrape %s" % job.get("name")
            if name not in names:
                names.add(name)
                opened.append((name, port_range("prometheus_scrape_jobs: job %s: port" % job.get("name"), job.get("port")), "cluster"))
    for name, groups, setting, default, audience in SERVICES:
        if name in SHARED_FS_SERVICES and settings.get("shared_fs_type") != SHARED_FS_SERVICES[name]:
            continue
        if mine & set(groups):
            value = (settings.get(setting) if setting else None) or default
            opened.append((name, port_range(setting or name, value), audience))
    for index, rule in enumerate(settings.get("extra") or []):
        variable = "firewall_allow[%d]" % index
        if not isinstance(rule, dict) or not rule.get("name") or "port" not in rule:
            raise FirewallError("%s: %r needs name and port (and groups, from: cluster or clients); e.g. {name: ssh-alt, port: 2222}" % (variable, rule))
        unknown = set(rule) - {"name", "port", "groups", "from"}
        if unknown:
            raise FirewallError("%s: unknown keys %s; use name, port, groups and from" % (variable, ", ".join(sorted(unknown))))
        audience = rule.get("from", "cluster")
        if audience not in ("cluster", "clients", "anywhere"):
            raise FirewallError("%s: from %r is not cluster, clients or anywhere" % (variable, audience))
        groups = rule.get("groups")
        if groups is None or mine & set(groups):
            opened.append((str(rule["name"]), port_range(variable + ".port", rule["port"]), audience))
    return opened


def _set(name, nets):
    elements = ", ".join(nets)
    # auto-merge: a host address inside a listed network is one interval, not a conflict.
    return "  set %s {\n    type %s\n    flags interval\n    auto-merge\n%s  }\n" % (
        name,
        "ipv4_addr" if name.endswith("4") else "ipv6_addr",
        "    elements = { %s }\n" % elements if nets else "",
    )


def ruleset(groups_of_host, settings, cluster, clients, ssh_from, peers=None):
    """The nftables text for one host.

    ``cluster``, ``clients``, ``ssh_from``: networks (see :func:`networks`);
    ``peers``: the other compute nodes' addresses where this host is one
    (jobs talk to each other on any port: NCCL, MPI, torchrun).
    """
    opened = plan(groups_of_host, settings)
    cluster = networks("firewall_cluster_networks", cluster)
    cluster4, cluster6 = _by_family(cluster)
    clients4, clients6 = _by_family(cluster + networks("firewall_client_networks", clients))
    ssh4, ssh6 = _by_family(networks("firewall_ssh_networks", ssh_from))
    peers4, peers6 = _by_family(networks("compute node addresses", peers or []))
    lines = [
        "#!/usr/sbin/nft -f",
        "# aicluster.slurm firewall (roles/firewall); this table only, other tables are left alone.",
        "table inet %s" % TABLE,
        "delete table inet %s" % TABLE,
        "table inet %s {" % TABLE,
    ]
    body = ""
    for name, nets in (
        ("cluster4", cluster4),
        ("cluster6", cluster6),
        ("clients4", clients4),
        ("clients6", clients6),
        ("ssh4", ssh4),
        ("ssh6", ssh6),
        ("peers4", peers4),
        ("peers6", peers6),
    ):
        body += _set(name, nets)
    rules = [
        "ct state established,related accept",
        "ct state invalid drop",
        'iifname "lo" accept',
        "meta l4proto icmp accept",
        "meta l4proto ipv6-icmp accept",
        "ip saddr @ssh4 tcp dport 22 accept",
        "ip6 saddr @ssh6 tcp dport 22 accept",
        "ip saddr @peers4 accept",
        "ip6 saddr @peers6 accept",
    ]
    for name, ports, audience in opened:
        if audience == "anywhere":
            rules.append('tcp dport %s accept comment "%s"' % (ports, name))
            continue
        sets = ("cluster4", "cluster6") if audience == "cluster" else ("clients4", "clients6")
        rules.append('ip saddr @%s tcp dport %s accept comment "%s"' % (sets[0], ports, name))
        rules.append('ip6 saddr @%s tcp dport %s accept comment "%s"' % (sets[1], ports, name))
    body += "  chain input {\n    type filter hook input priority filter; policy drop;\n"
    body += "".join("    %s\n" % rule for rule in rules)
    body += "  }\n"
    return "\n".join(lines) + "\n" + body + "}\n"


def findings(settings, groups_of_host=()):
    """The firewall variables' problems as preflight findings (``settings``: firewall_* by name, and the ports)."""
    from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

    result = []
    if not isinstance(settings.get("firewall_enabled", False), bool):
        result.append(finding("firewall", "firewall_enabled: %r is not true or false" % (settings["firewall_enabled"],), "firewall_enabled"))
    for variable in ("firewall_cluster_networks", "firewall_client_networks", "firewall_ssh_networks"):
        try:
            networks(variable, settings.get(variable, []))
        except FirewallError as error:
            result.append(finding("firewall", str(error), variable))
    # The ports only where the firewall will open them: each role checks its own port settings, so a firewall
    # that is off must not report them first (with another play's message).
    if settings.get("firewall_enabled"):
        try:
            plan(groups_of_host, settings.get("ports") or {})
        except FirewallError as error:
            result.append(finding("firewall", str(error), str(error).split(":", 1)[0]))
    if settings.get("firewall_enabled") and not settings.get("firewall_ssh_networks"):
        result.append(
            finding(
                "firewall",
                "firewall_ssh_networks is empty: no one could reach sshd once the firewall is on; name your bastion or management network",
                "firewall_ssh_networks",
            )
        )
    return result


def control_node_findings(route, cluster, clients, what):
    """The control node's reach to a service the firewall admits from the cluster and the client networks only.

    ``route``: ``ip -o route get ADDRESS`` as run on the control node (its source address is ``src``);
    ``cluster``, ``clients``: the firewall's networks (see :func:`ruleset`); ``what``: the service and why the
    control node talks to it. A finding names firewall_client_networks, the address and the fix.
    """
    from ansible_collections.aicluster.slurm.plugins.module_utils.findings import finding

    match = re.search(r"\bsrc ([0-9.]+)", route or "")
    if not match:
        return []
    address = ipaddress.ip_address(match.group(1))
    nets = networks("firewall_cluster_networks", cluster) + networks("firewall_client_networks", clients)
    if address.is_loopback or any(address in ipaddress.ip_network(net) for net in nets):
        return []
    message = (
        "firewall_client_networks: the control node (%s) is neither an inventory host nor in firewall_client_networks, "
        "so the host firewall would drop it at %s; add %s (or its network) to firewall_client_networks" % (address, what, address)
    )
    return [finding("firewall", message, "firewall_client_networks")]
