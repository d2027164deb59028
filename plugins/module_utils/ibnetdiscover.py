# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""InfiniBand fabric from ``ibnetdiscover`` output, and the Slurm switch tree it implies.

Two steps, both pure functions over text and plain objects:

* :func:`parse` reads the topology text that ``ibnetdiscover`` prints (with or
  without ``-g``) into a :class:`Fabric`: nodes by GUID and de-duplicated
  undirected links. It never depends on record order, tabs versus spaces,
  blank or whitespace-only separators, or noise lines (stderr captured with
  the output); every link is built from whichever side reports it.
* :func:`to_tree` decides which channel adapters are compute hosts, names the
  switches, infers the switch tiers from the compute leaves upwards and
  returns the children-only hierarchy that ``topology.conf``
  (``topology/tree``) and ``topology.yaml`` need, with everything it dropped
  and why.

Nothing here runs ``ibnetdiscover`` or writes files.
"""

from __future__ import absolute_import, division, print_function

import re
from collections import deque

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress

__metaclass__ = type

# slurmctld rejects SwitchName values of HOST_NAME_MAX (64) characters or more.
MAX_NAME_LEN = 63

# Host names that many machines share, so they cannot identify one node.
GENERIC_HOST_NAMES = frozenset(
    (
        "localhost",
        "localhost4",
        "localhost6",
        "localdomain",
        "ubuntu",
        "debian",
        "centos",
        "rocky",
        "rhel",
        "almalinux",
        "fedora",
        "linux",
        "none",
        "unknown",
        "hostname",
    )
)

SPEED_RANK = {"SDR": 1, "DDR": 2, "QDR": 3, "FDR10": 4, "FDR": 5, "EDR": 6, "HDR": 7, "NDR": 8, "XDR": 9}

_KINDS = {"switch": "switch", "ca": "ca", "rt": "router"}
_PREFIX_KIND = {"S": "switch", "H": "ca", "R": "router"}

_ATTR_RE = re.compile(r"^\s*(vendid|devid|sysimgguid|switchguid|caguid|rtguid|routerguid)\s*=\s*(?:0x)?([0-9a-fA-F]+)(?:\s*\(([0-9a-fA-F]+)\))?", re.I)
_HEADER_RE = re.compile(r'^\s*(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"(.*)$', re.I)
_PORT_RE = re.compile(
    r"^\s*\[(\d+)\](?:\s*\[ext\s*\d+\])?"  # local port, optional [ext N] (-g)
    r"\s*(?:\(([0-9a-fA-F]+)\))?"  # local port GUID (CA and router records)
    r'\s*"([SHR])-([0-9a-fA-F]+)"'  # remote node
    r"\s*\[(\d+)\](?:\s*\[ext\s*\d+\])?"  # remote port, optional [ext N]
    r"\s*(?:\(([0-9a-fA-F]+)\))?"  # remote port GUID (remote is not a switch)
    r"(.*)$"
)
_LINK_RE = re.compile(r"(\d+x|\?\?)\s*(FDR10|[A-Z]DR|\?\?)")
_MF0_RE = re.compile(r"^\s*MF0;([^:]*):")
# Default node descriptions: the adapter model, set by firmware when the host never wrote its name.
_MODEL_RE = re.compile(r"^(MT\d+|Mellanox\s+Technologies|ConnectX)", re.I)
_SHARP_RE = re.compile(r"aggregation\s+node", re.I)
_HOST_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")
_DASHES_RE = re.compile(r"-{2,}")
_DIGITS_RE = re.compile(r"(\d+)")
_MAP_RE = re.compile(r'^\s*(?:[SHR]-|0x)?([0-9a-fA-F]+)\s+(?:"([^"]*)"|([^#]*?))\s*(?:#.*)?$')


class FabricError(ValueError):
    """The input cannot describe a Slurm switch tree; the message says why and what to do."""


class FabricNode:
    """One switch, channel adapter or router.

    ``guid`` is the node GUID as ``0x`` plus 16 lower-case hex digits;
    ``kind`` is ``switch``, ``ca`` or ``router``; ``desc`` is the node
    description without quotes; ``nports`` the port count from the record
    header (0 when the node was only seen from its peers); ``sysimgguid`` is
    ``None`` when absent; ``port_guids`` maps port number to port GUID where
    the output shows it (port 0 of a switch from its ``switchguid=`` line); ``has_record`` tells whether the node had its own
    record or was only named on peers' port lines.
    """

    def __init__(self, guid, kind, desc="", nports=0):
        self.guid = guid
        self.kind = kind
        self.desc = desc
        self.nports = nports
        self.sysimgguid = None
        self.port_guids = {}
        self.has_record = False

    def __repr__(self):
        return "FabricNode(%s, %s, %r)" % (self.guid, self.kind, self.desc)


class Link:
    """One cable, undirected: ``(a_guid, a_port)`` sorts before ``(b_guid, b_port)``.

    ``width`` (``4x``) and ``speed`` (``NDR``) are ``None`` when unknown
    (``??`` in the output or not shown). A loopback cable has ``a_guid == b_guid``.
    """

    def __init__(self, a_guid, a_port, b_guid, b_port, width=None, speed=None):
        self.a_guid = a_guid
        self.a_port = a_port
        self.b_guid = b_guid
        self.b_port = b_port
        self.width = width
        self.speed = speed

    @property
    def loopback(self):
        return self.a_guid == self.b_guid

    def other(self, guid):
        """The GUID at the other end from ``guid``."""
        return self.b_guid if self.a_guid == guid else self.a_guid

    def __repr__(self):
        return "Link(%s[%d] <-> %s[%d] %s%s)" % (self.a_guid, self.a_port, self.b_guid, self.b_port, self.width or "??", self.speed or "??")


class Fabric:
    """``nodes``: GUID to :class:`FabricNode`; ``links``: de-duplicated :class:`Link` list, sorted.

    ``records`` counts the Switch/Ca/Rt records read (nodes only seen from a
    peer's port line have no record of their own); ``warnings`` lists what
    was read around (bytes that are not UTF-8, switches without a record).
    """

    def __init__(self):
        self.nodes = {}
        self.links = []
        self.records = 0
        self.warnings = []

    def kind_nodes(self, kind):
        """Nodes of one kind, sorted by GUID."""
        return [self.nodes[guid] for guid in sorted(self.nodes) if self.nodes[guid].kind == kind]

    def __repr__(self):
        return "Fabric(%d nodes, %d links)" % (len(self.nodes), len(self.links))


def normalize_guid(value):
    """``S-0008f1...``, ``0x8f1...`` or bare hex to ``0x`` plus 16 lower-case hex digits."""
    text = str(value).strip()
    if len(text) > 2 and text[1] == "-" and text[0] in "SHRshr":
        text = text[2:]
    if text[:2].lower() == "0x":
        text = text[2:]
    try:
        number = int(text, 16)
    except ValueError:
        raise FabricError("not a GUID: %r" % (value,)) from None
    return "0x%016x" % number


def _quoted(text):
    """Text between the first and the last double quote, or None."""
    first = text.find('"')
    last = text.rfind('"')
    if first < 0 or last <= first:
        return None
    return text[first + 1 : last]


def _link_rate(text):
    """``(width, speed)`` from the tail of a port line (after the last quote)."""
    last = text.rfind('"')
    match = _LINK_RE.search(text[last + 1 :] if last >= 0 else text)
    if not match:
        return None, None
    width, speed = match.groups()
    return (None if width == "??" else width), (None if speed == "??" else speed)


def _rate_key(width, speed):
    """Order for choosing between two reports of one link: unknown first, then slower."""
    return (int(width[:-1]) if width else 0, SPEED_RANK.get(speed, 0))


_MAGIC = (
    (b"\x1f\x8b", "gzip-compressed", "gunzip it first"),
    (b"BZh", "bzip2-compressed", "bunzip2 it first"),
    (b"\xfd7zXZ\x00", "xz-compressed", "unxz it first"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "unzstd it first"),
    (b"PK\x03\x04", "a zip archive", "unzip it first"),
)
_RECORD_START_RE = re.compile(r'^\s*(?:Switch|Ca|Rt)\s+\d+\s+"')


def _where(source, number):
    return "%s line %d" % (source or "<input>", number)


def decode(data, source=None):
    """Bytes of a capture or GUID map to ``(text, warnings)``.

    Raises :class:`FabricError` naming ``source`` for compressed or binary
    content (NUL bytes). Bytes that are not UTF-8 (a node description set
    from a Latin-1 console) are replaced by U+FFFD with a warning naming the
    first line; the rest of the file is read as usual.
    """
    if isinstance(data, str):
        return data, []
    name = source or "<input>"
    for magic, what, fix in _MAGIC:
        if data.startswith(magic):
            raise FabricError("%s is %s, not ibnetdiscover text: %s" % (name, what, fix))
    if b"\x00" in data:
        number = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise FabricError("%s line %d: NUL byte, this is a binary file, not ibnetdiscover text (a --cache file? use the text output)" % (name, number))
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        number = data.count(b"\n", 0, error.start) + 1
        text = data.decode("utf-8", errors="replace")
        bad = sum(1 for line in text.splitlines() if "\ufffd" in line)
        return text, [
            "%s line %d: byte 0x%02x is not UTF-8 (%s with such bytes, read with U+FFFD in their place); set plain ASCII node descriptions"
            % (name, number, data[error.start], _count(bad, "line"))
        ]


def read_file(path):
    """``(text, warnings)`` of a file, through :func:`decode`; :class:`FabricError` when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except (OSError, TypeError) as error:
        raise FabricError("cannot read %s: %s" % (path, error)) from None
    return decode(data, str(path))


def parse(text, source=None):
    """Parse ``ibnetdiscover`` topology output into a :class:`Fabric`.

    Accepted: the plain and the ``-g`` (chassis-grouped, ``Non-Chassis
    Nodes``, ``[p][ext N]``) layouts; tabs or spaces; blank, whitespace-only
    or missing separators between records; records in any order; noise
    lines anywhere (a stderr line on top, chassis headers, comments), which
    are skipped. Port lines belong to the last record header seen, so a
    blank line inside a record does not lose ports. ``text`` may be bytes
    (see :func:`decode`); ``source`` (the file name) is named in errors.

    Links come from both sides (a switch's port line and the CA's port line
    report the same cable) and are de-duplicated on their two
    ``(guid, port)`` ends. A node only named on peers' port lines still gets a
    :class:`FabricNode` (``has_record`` False) with the kind from its GUID
    prefix (``S-``/``H-``/``R-``). When the two sides disagree on a link's
    rate the slower one is kept, so the result never depends on record order.

    Raises :class:`FabricError`, naming the file and line, when the text has
    no Switch, Ca or Rt record, when two records carry one GUID (both
    lines named), when one port is cabled to two different peers, and when
    a record or port line is cut (a truncated capture) or garbled.
    """
    text, warnings = decode(text, source)
    fabric = Fabric()
    fabric.warnings = warnings
    nodes = fabric.nodes
    seen_desc = {}
    links = {}
    port_ends = {}
    record_line = {}
    attrs = {}
    current = None

    def node_for(guid, kind):
        node = nodes.get(guid)
        if node is None:
            node = nodes[guid] = FabricNode(guid, kind)
        return node

    def claim(end, peer, number):
        known = port_ends.get(end)
        if known is None:
            port_ends[end] = (peer, number)
        elif known[0] != peer:
            raise FabricError(
                "%s: port %d of %s is cabled to %s[%d] here and to %s[%d] on line %d: two nodes share the GUID %s "
                "(cloned firmware or a merged capture); give each its own GUID or capture again"
                % (_where(source, number), end[1], end[0], peer[0], peer[1], known[0][0], known[0][1], known[1], end[0])
            )

    lines = (text or "").splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if line[0] != "[":
            match = _ATTR_RE.match(line)
            if match:
                key = match.group(1).lower()
                if current is not None or key in attrs:
                    attrs = {}
                current = None
                attrs[key] = normalize_guid(match.group(2)) if key not in ("vendid", "devid") else match.group(2).lower()
                if key == "switchguid" and match.group(3):
                    attrs["port0"] = normalize_guid(match.group(3))
                continue
            match = _HEADER_RE.match(line)
            if match:
                kind_word, nports, prefix, guid_hex, rest = match.groups()
                guid = normalize_guid(guid_hex)
                kind = _KINDS[kind_word.lower()]
                if guid in record_line:
                    first = record_line[guid]
                    raise FabricError(
                        "%s: duplicate GUID %s: this record (%r) and the one on line %d (%r) carry the same GUID, so they would merge "
                        "into one node; fix the firmware GUID of one of them or capture again"
                        % (_where(source, number), guid, " ".join(line.split())[:80], first, " ".join(lines[first - 1].split())[:80])
                    )
                record_line[guid] = number
                node = node_for(guid, kind)
                node.kind = kind
                node.nports = int(nports)
                desc = _quoted(rest.split("#", 1)[1]) if "#" in rest else None
                if desc is not None:
                    node.desc = desc
                node.has_record = True
                if "sysimgguid" in attrs:
                    node.sysimgguid = attrs["sysimgguid"]
                if "port0" in attrs and kind == "switch":
                    node.port_guids[0] = attrs["port0"]
                fabric.records += 1
                attrs = {}
                current = node
            elif _RECORD_START_RE.match(line):
                _damaged(source, number, line, number == len(lines) or not any(rest.strip() for rest in lines[number:]))
            continue
        match = _PORT_RE.match(line)
        if not match:
            if current is not None:
                _damaged(source, number, line, not any(rest.strip() for rest in lines[number:]))
            continue
        if current is None:
            continue
        port, local_pguid, prefix, remote_hex, remote_port, remote_pguid, tail = match.groups()
        port, remote_port = int(port), int(remote_port)
        remote_guid = normalize_guid(remote_hex)
        remote = node_for(remote_guid, _PREFIX_KIND[prefix.upper()])
        if local_pguid:
            current.port_guids[port] = normalize_guid(local_pguid)
        if remote_pguid:
            remote.port_guids[remote_port] = normalize_guid(remote_pguid)
        if not remote.has_record:
            remote_desc = _quoted(tail)
            if remote_desc is not None:
                seen_desc.setdefault(remote_guid, set()).add(remote_desc)
        claim((current.guid, port), (remote_guid, remote_port), number)
        if remote_guid != current.guid:
            claim((remote_guid, remote_port), (current.guid, port), number)
        width, speed = _link_rate(tail)
        ends = sorted(((current.guid, port), (remote_guid, remote_port)))
        key = (ends[0][0], ends[0][1], ends[1][0], ends[1][1])
        known = links.get(key)
        if known is None or ((width or speed) and (known == (None, None) or _rate_key(width, speed) < _rate_key(*known))):
            links[key] = (width, speed)

    if not fabric.records:
        raise FabricError(
            "%s: no Switch, Ca or Rt record found: this is not ibnetdiscover topology output (run `ibnetdiscover` without -p/-l/-S)" % (source or "input")
        )
    for guid, descs in seen_desc.items():
        node = nodes[guid]
        if not node.has_record:
            node.desc = sorted(descs)[0]
    fabric.links = [Link(key[0], key[1], key[2], key[3], rate[0], rate[1]) for key, rate in sorted(links.items())]
    missing = sorted(guid for guid, node in nodes.items() if node.kind == "switch" and not node.has_record)
    if missing:
        fabric.warnings.append(
            "%s: %s named on peers' port lines have no record of their own (%s): the capture is incomplete (truncated, or run while "
            "they were unreachable); their hosts are missing from the tree, capture again"
            % (source or "the capture", _count(len(missing), "switch"), ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else ""))
        )
    return fabric


def _damaged(source, number, line, last):
    """A line that starts like a record or port line but does not parse."""
    if last:
        raise FabricError(
            "%s: truncated record %r: the capture ends in the middle of a record (copied while ibnetdiscover was still writing, or cut); capture again"
            % (_where(source, number), line[:80])
        )
    raise FabricError("%s: malformed record line %r (not `Switch|Ca|Rt N \"X-<guid>\" # \"<desc>\"` nor `[port] \"X-<guid>\"[port]`); fix or capture again" % (_where(source, number), line[:80]))


def parse_guid_map(text, source=None):
    """Read an ``ibnetdiscover --node-name-map`` file into ``{guid: name}``.

    Lines are ``0x<guid> "<name>"``; ``#`` starts a comment. Also accepted,
    as hand-written maps use them: ``S-``/``H-`` prefixed or bare hex GUIDs
    and unquoted names (the rest of the line). GUIDs are normalised like
    :attr:`FabricNode.guid`. ``text`` may be bytes (see :func:`decode`).
    Raises :class:`FabricError` naming ``source`` and the line on a line
    that is neither blank, a comment nor a mapping, on a GUID of more than
    16 hex digits, and on a GUID mapped twice to different names.
    """
    text, _warnings = decode(text, source)
    mapping = {}
    lines = {}
    name_of = source or "guid map"
    for number, raw in enumerate((text or "").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _MAP_RE.match(line)
        name = (match.group(2) if match and match.group(2) is not None else match.group(3) if match else "") or ""
        if not match or not name.strip():
            raise FabricError('%s line %d is not `0x<guid> "<name>"`: %r; fix or remove the line' % (name_of, number, raw[:80]))
        if len(match.group(1).lstrip("0")) > 16:
            raise FabricError("%s line %d: %r is longer than a 64-bit GUID (16 hex digits); fix the line" % (name_of, number, match.group(1)))
        guid = normalize_guid(match.group(1))
        if guid in mapping and mapping[guid] != name.strip():
            raise FabricError(
                "%s line %d maps %s to %r, line %d to %r: keep one of them" % (name_of, number, guid, name.strip(), lines[guid], mapping[guid])
            )
        mapping[guid] = name.strip()
        lines[guid] = number
    return mapping


def natural_key(name):
    """Sort key: digit runs compare as numbers (``leaf2`` before ``leaf10``)."""
    parts = _DIGITS_RE.split(name)
    return (tuple(int(part) if index % 2 else part.lower() for index, part in enumerate(parts)), name)


def natural_sorted(names):
    return sorted(set(names), key=natural_key)


def sanitize_name(text):
    """A Slurm-safe name: anything but letters, digits, ``.``, ``_`` and ``-`` becomes ``-``.

    That covers whitespace, ``[],=#;:``, quotes and ``/``; repeated dashes
    collapse and leading or trailing dashes and dots go.
    """
    return _DASHES_RE.sub("-", _UNSAFE_RE.sub("-", text or "")).strip("-.")


def _shorten(name, guid, keep):
    """``name`` cut so that it plus ``-`` plus the last ``keep`` GUID digits stays <= MAX_NAME_LEN."""
    suffix = guid[-keep:]
    return "%s-%s" % (name[: MAX_NAME_LEN - keep - 1].rstrip("-."), suffix)


def switch_names(fabric, guid_map=None):
    """``{switch guid: name}`` for every switch of the fabric, deterministic.

    Source, in order: ``guid_map`` (node GUID or switch port GUID), the
    ``NAME`` of a modern NVIDIA description ``MF0;NAME:MODEL/U1``, else the
    whole description. Each is passed through :func:`sanitize_name`. A name
    that comes out empty, or that several switches share (``Infiniscale-IV
    Mellanox Technologies``), becomes ``sw-<16 hex GUID digits>`` for each of
    them. A name of 64 characters or more is cut and given the last 8 GUID
    digits (all 16 if that still collides). The mapping depends only on the
    set of switches, never on record order.
    """
    guid_map = _normalize_map(guid_map)
    base = {}
    for node in fabric.kind_nodes("switch"):
        mapped = _lookup(guid_map, node)
        if mapped is not None:
            name = sanitize_name(mapped)
        else:
            match = _MF0_RE.match(node.desc)
            name = sanitize_name(match.group(1) if match else node.desc)
        base[node.guid] = name
    counts = {}
    for name in base.values():
        counts[name] = counts.get(name, 0) + 1
    names = {}
    for guid in sorted(base):
        name = base[guid]
        if not name or counts[name] > 1:
            name = "sw-%s" % guid[2:]
        if len(name) > MAX_NAME_LEN:
            name = _shorten(name, guid, 8)
        names[guid] = name
    taken = {}
    for guid in sorted(names):
        taken.setdefault(names[guid], []).append(guid)
    for name, guids in taken.items():
        if len(guids) > 1:
            for guid in guids:
                names[guid] = _shorten(name, guid, 16) if len(name) + 17 > MAX_NAME_LEN else "%s-%s" % (name, guid[2:])
    return names


def _normalize_map(guid_map):
    if not guid_map:
        return {}
    return {normalize_guid(guid): str(name) for guid, name in guid_map.items()}


def _lookup(guid_map, node):
    """Mapped name by node GUID, then port GUIDs (port order), then system image GUID."""
    if not guid_map:
        return None
    candidates = [node.guid] + [node.port_guids[port] for port in sorted(node.port_guids)]
    if node.sysimgguid:
        candidates.append(node.sysimgguid)
    for guid in candidates:
        if guid in guid_map:
            return guid_map[guid]
    return None


def _endpoint(node, label=None):
    return '"%s" (%s)' % (" ".join((label if label is not None else node.desc).split()), node.guid)


def _count(number, noun):
    """``1 switch``, ``3 switches``, ``2 links``."""
    if number == 1:
        return "1 %s" % noun
    return "%d %s%s" % (number, noun, "es" if noun.endswith(("ch", "s", "x")) else "s")


def _summary(names, limit=240):
    """Compact hostlist of names for a message, cut at ``limit`` characters."""
    text = compress(names)
    if len(text) > limit:
        text = text[:limit].rsplit(",", 1)[0] + ",..."
    return text


def _compile(patterns):
    compiled = []
    for pattern in patterns or ():
        try:
            compiled.append((pattern, re.compile(pattern, re.I)))
        except re.error as error:
            raise FabricError("exclude pattern %r is not a valid regular expression: %s" % (pattern, error)) from None
    return compiled


def _classify(node, guid_map, hca_names, excludes, name_regex):
    """``(host, hca, None, None)`` for a compute CA, else ``(None, None, category, reason)``.

    Identity: a ``guid_map`` entry wins; otherwise the node description,
    ``<hostname> <hca>``. The host is the first word cut at the first dot; the
    HCA is the second word (from the map value, else from the description).
    ``name_regex`` (``name_pattern``) is searched in that label and must
    match; its group ``host`` (or its first group) then gives the host name,
    and a group ``hca`` the HCA name.
    """
    if node.kind == "router":
        return None, None, "router", "IB router, not a compute host"
    desc = " ".join(node.desc.split())
    mapped = _lookup(guid_map, node)
    label = " ".join(mapped.split()) if mapped is not None else desc
    if mapped is None:
        if _SHARP_RE.search(desc):
            return None, None, "sharp", "SHARP aggregation node (in-switch reduction engine), not a host"
        if not desc or _MODEL_RE.match(desc):
            reason = "unnamed: the description %r is only the adapter model (node description not set on the host); map its GUID in guid_map"
            return None, None, "unnamed", reason % desc
    words = label.split()
    if not words:
        return None, None, "unnamed", "unnamed: empty name in guid_map; map its GUID to a host name"
    raw_host = words[0]
    hca = words[1] if len(words) > 1 else None
    if hca is None and mapped is not None:
        desc_words = desc.split()
        if len(desc_words) > 1 and not _MODEL_RE.match(desc):
            hca = desc_words[1]
    if name_regex is not None:
        match = name_regex.search(label)
        if not match:
            return None, None, "pattern", "%r does not match name_pattern %r" % (label, name_regex.pattern)
        groups = match.groupdict()
        if groups.get("host"):
            raw_host = groups["host"]
        elif name_regex.groups and "host" not in groups and match.group(1):
            raw_host = match.group(1)
        if groups.get("hca"):
            hca = groups["hca"]
    host = raw_host.split(".", 1)[0]
    if not _HOST_RE.match(host):
        return None, None, "invalid", "%r is not a valid host name" % raw_host
    if host.lower() in GENERIC_HOST_NAMES:
        return None, None, "generic", "%r is not a unique host name (default OS host name); set the node description or map its GUID" % host
    for pattern, regex in excludes:
        if regex.search(host) or regex.search(label) or regex.search(desc):
            return None, None, "exclude", "matches exclude pattern %r" % pattern
    if hca_names is not None and hca not in hca_names:
        if hca is None:
            return None, None, "hca", "HCA name unknown (no HCA word in the name) and hca_names is set"
        return None, None, "hca", "HCA %r not in hca_names (%s)" % (hca, ", ".join(hca_names))
    return host, hca, None, None


_CATEGORY_TEXT = {
    "router": "IB routers",
    "sharp": "SHARP aggregation nodes",
    "unnamed": "unnamed adapters (model-only description; use guid_map)",
    "invalid": "invalid host names",
    "generic": "generic host names (localhost, ubuntu, ...)",
    "exclude": "matched exclude patterns",
    "pattern": "did not match name_pattern",
    "hca": "HCAs not in hca_names",
    "uncabled": "not cabled to a switch",
}


def _leaf_partition(leaves, adjacency, allowed):
    """The connected groups of ``leaves`` in the switch graph restricted to ``allowed``, as a frozenset of frozensets."""
    groups = []
    seen = set()
    for leaf in sorted(leaves):
        if leaf in seen:
            continue
        group = set()
        queue = deque([leaf])
        seen.add(leaf)
        while queue:
            guid = queue.popleft()
            if guid in leaves:
                group.add(guid)
            for peer in adjacency.get(guid, ()):
                if peer in allowed and peer not in seen:
                    seen.add(peer)
                    queue.append(peer)
        groups.append(frozenset(group))
    return frozenset(groups)


def _components(start, adjacency, allowed):
    """Connected components (sets of GUIDs) of the ``allowed`` switches, in sorted start order."""
    components = []
    seen = set()
    for guid in sorted(start):
        if guid in seen or guid not in allowed:
            continue
        component = {guid}
        seen.add(guid)
        queue = deque([guid])
        while queue:
            for peer in adjacency.get(queue.popleft(), ()):
                if peer in allowed and peer not in seen:
                    seen.add(peer)
                    component.add(peer)
                    queue.append(peer)
        components.append(component)
    return components


def to_tree(fabric, guid_map=None, hca_names=None, exclude=None, name_pattern=None, root_name="fabric-root"):
    r"""Turn a :class:`Fabric` into a Slurm switch hierarchy.

    Returns ``{'switches', 'excluded', 'warnings', 'levels'}``:

    * ``switches``: ``{name: {'switches': [...], 'nodes': [...]}}``, children
      only. Leaves list host names in ``nodes``, upper tiers list child
      switches in ``switches``; the other list is empty. Ordered leaves
      first, then tier by tier upwards, names naturally sorted in each tier
      and in each list.
    * ``excluded``: ``[{'endpoint', 'reason'}]`` for every CA or router that is
      not a compute host and every loopback cable, sorted by endpoint.
    * ``warnings``: one summarised line per finding.
    * ``levels``: the number of switch tiers kept.

    Host identity (per CA): ``guid_map`` (node GUID, port GUID, then system
    image GUID) wins, else the description ``<hostname> <hca>``; the host is
    the first word, domain cut (short names only). Excluded, each with its
    reason: routers; SHARP ``Aggregation Node`` CAs; model-only descriptions
    (``MT4129 ConnectX7``, anything starting with ``MT<digits>``,
    ``Mellanox Technologies`` or ``ConnectX``) unless mapped; invalid and
    generic names (``localhost``, ``ubuntu``, see GENERIC_HOST_NAMES); names
    or descriptions matching one of the ``exclude`` regexes
    (case-insensitive ``re.search``, e.g. UFM or storage hosts); with
    ``hca_names``, CAs whose HCA word is not in that list (use it to keep one
    rail of a rail-optimised fabric); CAs not cabled to any switch.
    ``name_pattern``: optional regex searched in each CA's name (map value or
    description); CAs it does not match are excluded. A group ``host`` (or
    the first group) picks the host name out of descriptions that are not
    ``<hostname> <hca>`` (e.g. ``r'^(?P<hca>mlx5_\d+)\s+(?P<host>\S+)'``);
    a group ``hca`` the HCA name; without groups it only filters
    (``r'^gpu\d+ '``).
    ``root_name``: when the compute leaves form one connected fabric but no
    switch reaches all of them (leaf-to-leaf cables, a spine mesh), a logical
    root of this name is added over the top switches; None leaves them
    without a common parent (and warns, as slurmctld would).

    Tiers: a leaf is a switch with at least one compute host cabled to it.
    Switches are ranked by BFS distance from the set of leaves over
    switch-to-switch cables (loopbacks ignored); each cable between two
    tiers is an edge from the higher tier (parent) to the lower (child).
    Cables inside one tier (spine mesh, leaf-to-leaf) are not edges and are
    reported, so the result is always acyclic and no switch lists a parent or
    a peer as child. A switch that only carries excluded endpoints (storage,
    UFM, other rails; SHARP nodes do not count) would otherwise rank above
    the spines and become a false root (the topograph quirk): it is dropped
    unless it is needed to connect compute leaves. Switches not connected to
    any compute leaf are dropped with a warning, as is any non-leaf switch
    left without children.

    A host cabled to several leaves (rails, or one HCA's two ports on two
    switches) stays under each of them, as slurmctld accepts that with a
    warning; it is reported once with a hint to use ``hca_names``.

    Raises :class:`FabricError` when the fabric has no switch, when no
    compute host is left (with the exclusion counts by reason), or on an
    invalid regex.
    """
    guid_map = _normalize_map(guid_map)
    if isinstance(hca_names, str):
        hca_names = [hca_names]
    # An empty list is "no filter" (the role's default), not "no HCA at all".
    hca_names = [str(name) for name in hca_names] if hca_names else None
    excludes = _compile([exclude] if isinstance(exclude, str) else exclude)
    try:
        name_regex = re.compile(name_pattern) if name_pattern else None
    except re.error as error:
        raise FabricError("name_pattern %r is not a valid regular expression: %s" % (name_pattern, error)) from None

    nodes = fabric.nodes
    switches = {guid for guid, node in nodes.items() if node.kind == "switch"}
    if not switches:
        cas = sum(1 for node in nodes.values() if node.kind != "switch")
        raise FabricError(
            "no switches in the fabric (%d adapters only): topology/tree needs at least one switch; capture from a host cabled to the fabric" % cas
        )
    names = switch_names(fabric, guid_map)

    # Cables per node, loopbacks set aside.
    node_links = {}
    loopbacks = []
    for link in fabric.links:
        if link.loopback:
            loopbacks.append(link)
            continue
        node_links.setdefault(link.a_guid, []).append(link)
        node_links.setdefault(link.b_guid, []).append(link)

    excluded = []
    categories = {}
    endpoint_switches = set()  # switches carrying at least one non-SHARP endpoint
    leaf_hosts = {}
    host_leaves = {}
    host_hcas = {}
    labels = dict(names)  # GUID -> name for messages: switch names, then host names
    for guid in sorted(nodes):
        node = nodes[guid]
        if node.kind == "switch":
            continue
        cabled = sorted({link.other(guid) for link in node_links.get(guid, ()) if link.other(guid) in switches})
        host, hca, category, reason = _classify(node, guid_map, hca_names, excludes, name_regex)
        if host is not None and not cabled:
            host, category, reason = None, "uncabled", "not cabled to any switch"
        if category != "sharp":
            endpoint_switches.update(cabled)
        if host is None:
            label = _lookup(guid_map, node)
            excluded.append({"endpoint": _endpoint(node, label), "reason": reason})
            categories[category] = categories.get(category, 0) + 1
            continue
        labels[guid] = host if hca is None else "%s %s" % (host, hca)
        if hca is not None:
            host_hcas.setdefault((host, hca), set()).add(node.sysimgguid or guid)
        for switch in cabled:
            leaf_hosts.setdefault(switch, set()).add(host)
            host_leaves.setdefault(host, set()).add(switch)

    for link in loopbacks:
        excluded.append(
            {"endpoint": "%s port %d <-> port %d" % (names.get(link.a_guid, link.a_guid), link.a_port, link.b_port), "reason": "loopback cable, ignored"}
        )
    excluded.sort(key=lambda item: (natural_key(item["endpoint"]), item["reason"]))

    if not host_leaves:
        detail = ", ".join("%d %s" % (count, _CATEGORY_TEXT[cat]) for cat, count in sorted(categories.items(), key=lambda item: (-item[1], item[0])))
        raise FabricError(
            "no compute hosts left after filtering: %d endpoints excluded (%s); see guid_map, hca_names and exclude"
            % (sum(categories.values()), detail or "none found")
        )

    warnings = []
    leaves = set(leaf_hosts)

    # Switch graph: switch-to-switch cables, parallel cables folded.
    adjacency = {}
    for link in fabric.links:
        if link.loopback or link.a_guid not in switches or link.b_guid not in switches:
            continue
        adjacency.setdefault(link.a_guid, set()).add(link.b_guid)
        adjacency.setdefault(link.b_guid, set()).add(link.a_guid)

    # Switches with only excluded endpoints: keep only those needed to join compute leaves.
    non_compute = endpoint_switches - leaves
    allowed = switches - non_compute
    target = _leaf_partition(leaves, adjacency, switches)
    current = _leaf_partition(leaves, adjacency, allowed)
    pending = sorted(non_compute, key=lambda guid: natural_key(names[guid]))
    while current != target and pending:
        progress = False
        for guid in list(pending):
            trial = _leaf_partition(leaves, adjacency, allowed | {guid})
            if len(trial) < len(current):
                allowed.add(guid)
                pending.remove(guid)
                current = trial
                progress = True
                if current == target:
                    break
        if not progress:
            allowed.update(pending)
            pending = []
            current = _leaf_partition(leaves, adjacency, allowed)
    if pending:
        warnings.append(
            "dropped %s carrying only excluded endpoints (storage, UFM, other rails, unnamed adapters) and not needed to connect the compute "
            "leaves, so none becomes a false parent: %s" % (_count(len(pending), "switch"), _summary(names[guid] for guid in pending))
        )

    # Tiers by BFS from the leaves.
    distance = {leaf: 0 for leaf in leaves}
    queue = deque(sorted(leaves))
    while queue:
        guid = queue.popleft()
        for peer in sorted(adjacency.get(guid, ())):
            if peer in allowed and peer not in distance:
                distance[peer] = distance[guid] + 1
                queue.append(peer)
    unreached = sorted((allowed - set(distance)), key=lambda guid: natural_key(names[guid]))
    if unreached:
        warnings.append(
            "dropped %s not connected to any compute leaf (another fabric, or an island of excluded hosts): %s"
            % (_count(len(unreached), "switch"), _summary(names[guid] for guid in unreached))
        )

    children = {guid: set() for guid in distance}
    peers = set()
    for guid in distance:
        for peer in adjacency.get(guid, ()):
            if peer not in distance:
                continue
            if distance[guid] > distance[peer]:
                children[guid].add(peer)
            elif distance[guid] == distance[peer] and guid < peer:
                peers.add((guid, peer))
    if peers:
        pairs = sorted((tuple(natural_sorted((names[a], names[b]))) for a, b in peers), key=lambda pair: (natural_key(pair[0]), natural_key(pair[1])))
        example = ", ".join("%s <-> %s" % pair for pair in pairs[:3])
        warnings.append(
            "left out %s cabled within one tier (spine mesh or leaf-to-leaf): such cables are not parent/child edges: %s%s"
            % (_count(len(pairs), "switch pair"), example, ", ..." if len(pairs) > 3 else "")
        )

    # A non-leaf switch without children adds nothing (cannot happen with BFS ranks, kept as a guard).
    kept = set(distance)
    while True:
        empty = sorted(guid for guid in kept if guid not in leaves and not (children[guid] & kept))
        if not empty:
            break
        warnings.append("dropped %s with no hosts below: %s" % (_count(len(empty), "switch"), _summary(names[guid] for guid in empty)))
        kept -= set(empty)

    # Multi-leaf hosts.
    multi = natural_sorted(host for host, hosts_leaves in host_leaves.items() if len(hosts_leaves) > 1)
    if multi:
        example = multi[0]
        example_leaves = natural_sorted(names[guid] for guid in host_leaves[example])
        hcas = {}
        for key in host_hcas:
            hcas[key[1]] = hcas.get(key[1], 0) + 1
        hint = min(hcas, key=lambda hca: (-hcas[hca], natural_key(hca))) if hcas else "mlx5_0"
        warnings.append(
            "found %s cabled to more than one leaf switch (rail-optimised fabric or several HCAs), e.g. %s under %s; each is listed under "
            "all of them (slurmctld warns 'Multiple leaf switches contain nodes'); pass hca_names (e.g. ['%s']) to place each host by one rail"
            % (_count(len(multi), "host"), example, ", ".join(example_leaves), hint)
        )

    duplicates = natural_sorted("%s %s" % key for key, owners in host_hcas.items() if len(owners) > 1)
    if duplicates:
        warnings.append(
            "found %s claimed by more than one adapter (cloned node descriptions?), e.g. %r; map their GUIDs in guid_map"
            % (_count(len(duplicates), "host/HCA name"), duplicates[0])
        )

    # Disconnected fabrics and the missing common root.
    add_root = False
    groups = _components(leaves, adjacency, kept)
    if len(groups) > 1:
        sizes = sorted((len({h for g in group if g in leaves for h in leaf_hosts[g]}) for group in groups), reverse=True)
        warnings.append(
            "the compute hosts sit on %d disconnected fabrics (%s hosts); jobs cannot span them: put each in its own partition"
            % (len(groups), "/".join(str(size) for size in sizes))
        )
    elif len(kept) > 1:
        # Leaves below each switch as a bit set (an int), children before parents.
        bit = {leaf: 1 << index for index, leaf in enumerate(sorted(leaves))}
        below = {}
        for guid in sorted(kept, key=lambda g: (distance[g], g)):
            mask = bit.get(guid, 0)
            for child in children[guid] & kept:
                mask |= below[child]
            below[guid] = mask
        everything = (1 << len(leaves)) - 1
        if not any(mask == everything for mask in below.values()):
            if root_name:
                add_root = True
            else:
                warnings.append(
                    "no switch reaches all compute leaves through its descendants (slurmctld warns the same); jobs cannot span leaves without a "
                    "common parent unless TopologyParam=TopoOptional is set"
                )

    if loopbacks:
        warnings.append(
            "ignored %s (both ends on one switch), e.g. %s port %d <-> port %d"
            % (_count(len(loopbacks), "loopback cable"), names.get(loopbacks[0].a_guid, loopbacks[0].a_guid), loopbacks[0].a_port, loopbacks[0].b_port)
        )
    warnings.extend(_degraded(fabric, switches, labels))

    tree = {}
    for guid in sorted(kept, key=lambda g: (distance[g], natural_key(names[g]))):
        if guid in leaves:
            tree[names[guid]] = {"switches": [], "nodes": natural_sorted(leaf_hosts[guid])}
        else:
            tree[names[guid]] = {"switches": natural_sorted(names[child] for child in children[guid] if child in kept), "nodes": []}
    levels = max(distance[guid] for guid in kept) + 1
    if add_root:
        # One connected fabric whose top switches are cabled to each other
        # (leaf-to-leaf, spine mesh): a logical root over them is true to the
        # cabling and is what SchedMD recommends (leaves plus one top switch).
        tops = natural_sorted(name for name in tree if not any(name in entry["switches"] for entry in tree.values()))
        root = root_name
        while root in tree:
            root += "-root"
        tree[root] = {"switches": tops, "nodes": []}
        levels += 1
        warnings.append("no switch reached all compute leaves, but they are one connected fabric: added the logical root %s over %s" % (root, _summary(tops)))
    return {
        "switches": tree,
        "excluded": excluded,
        "warnings": warnings,
        "levels": levels,
    }


def _degraded(fabric, switches, labels):
    """Warnings for cables below the fabric norm: narrower than the usual width, or inter-switch cables slower than the usual inter-switch speed.

    Host cables slower than the switches are not flagged: that is usually
    the adapter's own limit (DDR cards on a QDR fabric).
    """
    widths = {}
    speeds = {}
    for link in fabric.links:
        if link.loopback:
            continue
        if link.width:
            widths[link.width] = widths.get(link.width, 0) + 1
        if link.speed and link.a_guid in switches and link.b_guid in switches:
            speeds[link.speed] = speeds.get(link.speed, 0) + 1
    if not widths and not speeds:
        return []
    norm_width = max(widths, key=lambda w: (widths[w], int(w[:-1]))) if widths else None
    norm_speed = max(speeds, key=lambda s: (speeds[s], SPEED_RANK.get(s, 0))) if speeds else None
    slow = []
    for link in fabric.links:
        if link.loopback:
            continue
        narrow = norm_width and link.width and int(link.width[:-1]) < int(norm_width[:-1])
        inter = link.a_guid in switches and link.b_guid in switches
        slower = inter and norm_speed and link.speed and SPEED_RANK.get(link.speed, 0) < SPEED_RANK.get(norm_speed, 0)
        if narrow or slower:
            slow.append(link)
    if not slow:
        return []

    def label(guid, port):
        if guid in labels:
            return "%s[%d]" % (labels[guid], port)
        return '"%s" (%s)[%d]' % (" ".join(fabric.nodes[guid].desc.split()), guid, port)

    examples = sorted("%s <-> %s %s%s" % (label(x.a_guid, x.a_port), label(x.b_guid, x.b_port), x.width or "??", x.speed or "??") for x in slow)
    return [
        "found %s below the fabric norm (%s%s), degraded cable or port?: %s%s"
        % (_count(len(slow), "link"), norm_width or "??", norm_speed or "", ", ".join(examples[:3]), ", ..." if len(examples) > 3 else "")
    ]
