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

import functools
import operator
import re
from collections import Counter, deque
from itertools import chain, islice, repeat
from itertools import compress as select

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress, one_prefix
from ansible_collections.aicluster.slurm.plugins.module_utils.topology import gc_paused as _gc_paused

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

    __slots__ = ("guid", "kind", "desc", "nports", "sysimgguid", "port_guids", "has_record")

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


class Link(tuple):
    """One cable, undirected: ``(a_guid, a_port)`` sorts before ``(b_guid, b_port)``.

    ``width`` (``4x``) and ``speed`` (``NDR``) are ``None`` when unknown
    (``??`` in the output or not shown). A loopback cable has ``a_guid == b_guid``.
    A tuple ``(a_guid, a_port, b_guid, b_port, width, speed)`` with names: a
    fabric of 64k hosts has some 200k links, made in C from tuples by the
    fast path of :func:`parse` (``_new_link``) and unpacked in C by its readers.
    """

    __slots__ = ()

    def __new__(cls, a_guid, a_port, b_guid, b_port, width=None, speed=None):
        return tuple.__new__(cls, (a_guid, a_port, b_guid, b_port, width, speed))

    a_guid = property(operator.itemgetter(0))
    a_port = property(operator.itemgetter(1))
    b_guid = property(operator.itemgetter(2))
    b_port = property(operator.itemgetter(3))
    width = property(operator.itemgetter(4))
    speed = property(operator.itemgetter(5))

    @property
    def loopback(self):
        return self[0] == self[2]

    def other(self, guid):
        """The GUID at the other end from ``guid``."""
        return self[2] if self[0] == guid else self[0]

    def __repr__(self):
        return "Link(%s[%d] <-> %s[%d] %s%s)" % (self[0], self[1], self[2], self[3], self[4] or "??", self[5] or "??")


_new_link = functools.partial(tuple.__new__, Link)  # Link from one 6-tuple, with no Python frame


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


_NO_RATE = (None, None)


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


@_gc_paused
def parse_file(path):
    """:func:`parse` of the capture in the file at ``path`` (named in errors); :class:`FabricError` when it cannot be read.

    A capture in ibnetdiscover's own layout, plain ASCII with ``\\n`` line
    breaks, is read block by block by the fast path (_parse_canonical), so the
    whole text is never held: on a 64k-node fabric that is some 40 MiB less at
    the peak. Anything else is read whole and goes through :func:`parse`, with
    the same result and messages as :func:`parse` of the file's bytes.
    """
    try:
        with open(path, "rb") as handle:
            try:
                fabric = _parse_canonical(_file_chunks(handle))
            except _NotPlain:
                fabric = None
            if fabric is None:
                handle.seek(0)
                data = handle.read()
    except (OSError, TypeError) as error:
        raise FabricError("cannot read %s: %s" % (path, error)) from None
    if fabric is None:
        return parse(data, str(path))
    fabric.warnings = []
    return fabric


# Every line break that str.splitlines() knows besides "\n" (CRLF counts once).
_BREAKS_RE = re.compile("\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Whitespace within one line: \s without the line break.
_WS = r"[^\S\n]"
# The tail of a port line (after the remote port): the text between its first and last double
# quote (the remote node's description), then the first rate (_LINK_RE) after its last quote.
_TAIL = r'(?:[^"\n]*"(?:(.*)")?)?(?:[^"\n]*?%s)?.*' % _LINK_RE.pattern.replace(r"\s", _WS)
# One regular expression for the whole text (parse scans it with finditer, no per-line split):
# each match is one non-blank line, leading whitespace skipped, classified by the outer group
# that matched. The port, attribute and header alternatives are _PORT_RE, _ATTR_RE and
# _HEADER_RE with \s kept inside the line, and with the same case sensitivity (ports are
# case-sensitive, attributes and headers not); anything else non-blank is OTHER.
_LINE_RE = re.compile(
    r"^%(ws)s*(?:"
    r"(?P<port>%(port)s)"
    r"|(?P<attr>(?i:%(attr)s).*)"
    r"|(?P<header>(?i:%(header)s))"
    r"|(?P<other>\S.*))"
    % {
        "ws": _WS,
        "port": _PORT_RE.pattern[len(r"^\s*") : -len("(.*)$")].replace(r"\s", _WS) + _TAIL,
        "attr": _ATTR_RE.pattern[len(r"^\s*") :].replace(r"\s", _WS),
        "header": _HEADER_RE.pattern[len(r"^\s*") : -len("$")].replace(r"\s", _WS),
    },
    re.M,
)
_PORT, _ATTR, _HEADER, _OTHER = (_LINE_RE.groupindex[name] for name in ("port", "attr", "header", "other"))
# Port, local port GUID, prefix, remote GUID, remote port, remote port GUID, remote description, width, speed.
_PORT_GROUPS = tuple(range(_PORT + 1, _PORT + 10))


def _one_break(text):
    """``text`` with every line break as ``\\n``: ``text.split("\\n")`` gives the lines of ``text.splitlines()``, same numbers."""
    if text.isascii() and "\r" not in text and "\x0b" not in text and "\x0c" not in text and "\x1c" not in text and "\x1d" not in text and "\x1e" not in text:
        return text  # the usual capture: no copy
    return _BREAKS_RE.sub("\n", text)


def _line_at(text, pos):
    """``(line number, stripped line)`` of the line holding ``pos`` in a text with ``\\n`` breaks only (for messages)."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text.count("\n", 0, pos) + 1, text[start : end if end >= 0 else len(text)].strip()


# The fast path of parse: a capture exactly as ibnetdiscover prints it, read by two findalls per
# chunk and set operations on their columns, with no Python code per port line. _CANON_RE: each
# line is one match, a record (its attribute lines and header, then its port lines as one string),
# a blank or comment line, or anything else (JUNK), which sends the whole text to the line-by-line
# reader; _CANON_PORT_RE then reads the port lines. Both accept a subset of what that reader
# accepts and read it the same way; where they cannot (an upper-case or longer GUID, [ext N],
# leading blanks, a tail other than ` lid N <rate>` after the last double quote, which makes that
# rate the first one after it), the record is JUNK or a port line is left unmatched.
_CANON_RE = re.compile(
    r"^(?:vendid=0x[0-9a-f]+\ndevid=0x[0-9a-f]+\n"
    r"(?:sysimgguid=0x([0-9a-f]{1,16})\n)?"
    r"(?:switchguid=0x[0-9a-f]{1,16}\(([0-9a-f]{1,16})\)\n|(?:caguid|rtguid)=0x[0-9a-f]{1,16}\n)?"
    r'(Switch|Ca|Rt)%(ws)s+(\d+)%(ws)s+"[SHR]-([0-9a-f]{16})"%(ws)s*#%(ws)s*"(.*)"[^"\n]*\n'
    r"((?:\[.*\n)*)"
    r"|%(ws)s*(?:#.*)?\n"
    r"|(.+\n?|\n?))" % {"ws": _WS},
    re.M,
)
# The groups of a _CANON_RE match, in the order findall gives them.
_C_SYSIMG, _C_PORT0, _C_WORD, _C_NPORTS, _C_GUID, _C_DESC, _C_PORTS, _C_JUNK = range(8)
# Local port and port GUID, remote node and port; a remote port GUID only where nothing that the
# reader would take for one follows ("(" or "[ext"); the rate.
_CANON_PORT_RE = re.compile(
    r'^\[([1-9]\d*)\](?:\(([0-9a-f]{1,16})\))?%(ws)s*"[SHR]-([0-9a-f]{16})"\[([1-9]\d*)\](?:\(([0-9a-f]{1,16})\))?(?!%(ws)s*[(\[])'
    r'(?:.*")? lid \d+ (\d+x|\?\?)(FDR10|[A-Z]DR|\?\?)\n' % {"ws": _WS},
    re.M,
)
_CHUNK = 1 << 18  # characters per findall: its tuples and columns of one chunk at a time, not of the whole text


def _chunks(text):
    """``text`` in slices of about _CHUNK characters, each cut before a ``vendid=`` line (a record's first)."""
    start = 0
    while start < len(text):
        end = text.find("\nvendid=", start + _CHUNK) + 1 or len(text)
        yield text[start:end]
        start = end


class _NotPlain(Exception):
    """A block of a file that the fast path does not read as it is (see :func:`_file_chunks`)."""


_MAGIC_BYTES = tuple(magic for magic, _what, _fix in _MAGIC)
# ASCII bytes that _one_break or decode treat specially: other line breaks, NUL (a binary file).
_NOT_PLAIN_BYTES = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x00")


def _file_chunks(handle):
    """The text of the binary file ``handle`` in pieces of at least _CHUNK characters, each cut before a ``vendid=`` line.

    Raises :class:`_NotPlain` on a compressed file's magic, a byte that is not
    ASCII, a line break other than ``\\n`` or a NUL byte: such files are read whole.
    """
    data = handle.read(_CHUNK)
    if data.startswith(_MAGIC_BYTES):
        raise _NotPlain()
    while data:
        more = handle.read(_CHUNK)
        cut = data.rfind(b"\nvendid=") + 1 if more else len(data)
        if cut > 0:
            piece = data[:cut]
            if not piece.isascii() or any(byte in piece for byte in _NOT_PLAIN_BYTES):
                raise _NotPlain()
            yield piece.decode("ascii")
            data = data[cut:]
        data += more


def _parse_canonical(chunks):
    """The :class:`Fabric` of a whole capture in ibnetdiscover's own layout, or None (then the lines are read one by one).

    ``chunks``: the capture's text in pieces, each cut before a ``vendid=``
    line (:func:`_chunks`, :func:`_file_chunks`).

    None unless every non-blank line is a comment, a record (``vendid``,
    ``devid``, optional ``sysimgguid``, ``switchguid``/``caguid``/``rtguid``,
    header) or one of its port lines in the plain layout (_CANON_RE); and
    unless the fabric is whole: every node named has its own record, no GUID
    has two, no loopback, no port listed twice in a record, every cable
    reported from both ends with the same rate. The result is then the one
    the line-by-line reader gives (which alone names lines in errors and
    warnings): the same nodes in the same order (first named), the same port
    GUIDs, links and rates.
    """
    canon = _Memo(lambda digits: "0x" + digits.zfill(16))  # normalize_guid of lower-case hex of up to 16 digits
    known = _Memo(lambda value: None if value == "??" else value)  # a width or speed, one string for each
    records = []  # (sysimgguid, port 0 GUID, Switch|Ca|Rt, ports, GUID, description), hex as written
    record_guids = []  # normalised
    named = {}  # GUID -> None, in the order the reader meets them (a record, then the peers on its port lines)
    # Each report of a cable as (a guid, a port, b guid, b port, width, speed), a the end that sorts
    # first: forward (Links) when a's record reports it, backward when b's does. For a whole capture
    # both hold every cable once; forward stays a list in the capture's order (sorted, or nearly: a
    # cheap sort).
    forward = []
    backward = set()
    port_guids = {}  # GUID -> {port: port GUID} from the port lines, in their order (the reader's)
    for chunk in chunks:
        columns = list(zip(*_CANON_RE.findall(chunk), strict=True))
        if not columns:
            continue
        if any(columns[_C_JUNK]):
            return None
        headers = columns[_C_WORD]  # '' on blank and comment lines, as the other columns
        records.extend(zip(*(select(columns[index], headers) for index in range(_C_PORTS)), strict=True))
        hexes = list(select(columns[_C_GUID], headers))
        blocks = list(select(columns[_C_PORTS], headers))
        del columns
        guids = list(map(canon.__getitem__, hexes))
        record_guids.extend(guids)
        ports_text = "".join(blocks)
        lines = _CANON_PORT_RE.findall(ports_text)
        if len(lines) != ports_text.count("\n"):
            return None  # a port line in another layout
        del ports_text
        if not lines:
            named.update(zip(hexes, repeat(None), strict=False))
            continue
        counts = list(map(str.count, blocks, repeat("\n")))
        del blocks
        ports, pguids, remotes, remote_ports, remote_pguids, widths, speeds = zip(*lines, strict=True)
        del lines
        # Each record's GUID, then the peers on its port lines: one islice of them per record.
        peers = iter(remotes)
        named.update(zip(chain.from_iterable(map(chain, zip(hexes), map(islice, repeat(peers), counts))), repeat(None), strict=False))
        owners = list(chain.from_iterable(map(repeat, guids, counts)))
        ports = list(map(int, ports))
        remotes = list(map(canon.__getitem__, remotes))
        remote_ports = list(map(int, remote_ports))
        if len(set(zip(owners, ports, strict=True))) < len(ports) or any(map(operator.eq, owners, remotes)):
            return None  # a port listed twice (or a repeated line), or a loopback
        widths = list(map(known.__getitem__, widths))
        speeds = list(map(known.__getitem__, speeds))
        ahead = list(map(operator.lt, owners, remotes))
        forward.extend(map(_new_link, select(zip(owners, ports, remotes, remote_ports, widths, speeds, strict=True), ahead)))
        backward.update(select(zip(remotes, remote_ports, owners, ports, widths, speeds, strict=True), map(operator.not_, ahead)))
        shown = select(zip(owners, ports, pguids, remotes, remote_ports, remote_pguids, strict=True), map(operator.add, pguids, remote_pguids))
        for guid, port, pguid, remote, remote_port, remote_pguid in shown:
            if pguid:
                port_guids.setdefault(guid, {})[port] = canon[pguid]
            if remote_pguid:
                port_guids.setdefault(remote, {})[remote_port] = canon[remote_pguid]
    if not records or len(named) != len(records) or len(set(record_guids)) != len(records):
        return None  # a node without a record, or a GUID with two
    # Reports are distinct (no port twice in a record, no GUID with two records): equal sizes and one within the other is equal sets.
    if len(forward) != len(backward) or not backward.issuperset(forward):
        return None  # a cable reported from one end only, or with two rates
    del backward
    fabric = Fabric()
    fabric.records = len(records)
    nodes = {}
    for guid, (sysimgguid, port0, word, nports, _digits, desc) in zip(record_guids, records, strict=True):
        node = nodes[guid] = FabricNode(guid, _KINDS[word.lower()], desc, int(nports))
        node.has_record = True
        if sysimgguid:
            node.sysimgguid = canon[sysimgguid]
        if port0 and word == "Switch":
            node.port_guids[0] = canon[port0]
        if guid in port_guids:
            if word == "Switch":
                return None  # port GUIDs on port lines too (not ibnetdiscover's layout): the reader orders them around port 0's
            node.port_guids = port_guids[guid]
    del records, port_guids
    fabric.nodes = {guid: nodes[guid] for guid in map(canon.__getitem__, named)}
    forward.sort()
    fabric.links = forward
    return fabric


@_gc_paused
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
    # Line numbers are only needed in messages: positions are kept instead, and counted on an error.
    text = _one_break(text or "")
    fabric = _parse_canonical(_chunks(text))
    if fabric is not None:
        fabric.warnings = warnings
        return fabric
    fabric = Fabric()
    fabric.warnings = warnings
    nodes = fabric.nodes
    guids = _Memo(normalize_guid)  # a node's GUID is named on every cable to it
    rates = {}
    remote_descs = {}  # GUID of a node without a record yet -> the least description its peers show
    links = {}  # (a guid, a port, b guid, b port), (a guid, a port) <= (b guid, b port) -> (width, speed)
    claims = _Claims()
    record_at = {}  # GUID -> position of its record's header line
    attrs = {}
    current = None
    prefix_kind = _PREFIX_KIND

    for match in _LINE_RE.finditer(text):
        kind = match.lastindex
        if kind == _PORT:
            if current is None:
                continue
            port, local_pguid, prefix, remote_hex, remote_port, remote_pguid, remote_desc, width, speed = match.group(*_PORT_GROUPS)
            current_guid = current.guid
            port = int(port)
            remote_port = int(remote_port)
            remote_guid = guids[remote_hex]
            remote = nodes.get(remote_guid)
            if remote is None:
                remote = nodes[remote_guid] = FabricNode(remote_guid, prefix_kind[prefix.upper()])
            if local_pguid:
                current.port_guids[port] = guids[local_pguid]
            if remote_pguid:
                remote.port_guids[remote_port] = guids[remote_pguid]
            if remote_desc is not None and not remote.has_record:
                known = remote_descs.get(remote_guid)
                if known is None or remote_desc < known:
                    remote_descs[remote_guid] = remote_desc
            if current_guid < remote_guid or (current_guid == remote_guid and port <= remote_port):
                key = (current_guid, port, remote_guid, remote_port)
            else:
                key = (remote_guid, remote_port, current_guid, port)
            known = links.get(key)
            # A cable claims both its ends on its first report; the second report (from the other end)
            # claims nothing. A loopback claims its local end on each report. A port claimed by another
            # cable is cabled to two peers.
            if remote_guid != current_guid:
                if known is None:
                    if not claims.claim(current_guid, port):
                        _conflict(text, source, match.start(), (current_guid, port), claims, links)
                    if not claims.claim(remote_guid, remote_port):
                        _conflict(text, source, match.start(), (remote_guid, remote_port), claims, links)
            elif claims.claim(current_guid, port):
                claims.loops[current_guid, port] = key
            elif claims.loops.get((current_guid, port)) != key:
                _conflict(text, source, match.start(), (current_guid, port), claims, links)
            if width is None:
                rate = _NO_RATE
            else:  # one tuple per distinct rate, shared by all the links of the fabric
                rate = rates.get((width, speed))
                if rate is None:
                    rate = rates[width, speed] = ((None if width == "??" else width), (None if speed == "??" else speed))
            if known is None or (rate is not known and (rate[0] or rate[1]) and (known == _NO_RATE or _rate_key(*rate) < _rate_key(*known))):
                links[key] = rate  # rates are shared tuples: the same rate from both ends is the usual case
        elif kind == _ATTR:
            key = match.group(_ATTR + 1).lower()
            if current is not None or key in attrs:
                attrs = {}
            current = None
            value = match.group(_ATTR + 2)
            attrs[key] = guids[value] if key not in ("vendid", "devid") else value.lower()
            if key == "switchguid" and match.group(_ATTR + 3):
                attrs["port0"] = guids[match.group(_ATTR + 3)]
        elif kind == _HEADER:
            current = _read_header(match.group(_HEADER + 1, _HEADER + 2, _HEADER + 4, _HEADER + 5), nodes, guids, attrs, record_at, text, source, match.start())
            fabric.records += 1
            attrs = {}
        else:
            line = match.group(_OTHER)
            if (current is not None and line[0] == "[") or (line[0] != "[" and _RECORD_START_RE.match(line)):
                _damaged(source, text, match.start())

    if not fabric.records:
        raise FabricError(
            "%s: no Switch, Ca or Rt record found: this is not ibnetdiscover topology output (run `ibnetdiscover` without -p/-l/-S)" % (source or "input")
        )
    del claims
    for guid, desc in remote_descs.items():
        node = nodes[guid]
        if not node.has_record:
            node.desc = desc
    fabric.links = [Link(a_guid, a_port, b_guid, b_port, *links[a_guid, a_port, b_guid, b_port]) for a_guid, a_port, b_guid, b_port in sorted(links)]
    missing = sorted(guid for guid, node in nodes.items() if node.kind == "switch" and not node.has_record)
    if missing:
        fabric.warnings.append(
            "%s: %s named on peers' port lines have no record of their own (%s): the capture is incomplete (truncated, or run while "
            "they were unreachable); their hosts are missing from the tree, capture again"
            % (source or "the capture", _count(len(missing), "switch"), ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else ""))
        )
    return fabric


class _Memo(dict):
    """``memo[key]`` is ``function(key)``, computed once per key."""

    def __init__(self, function):
        dict.__init__(self)
        self.function = function

    def __missing__(self, key):
        value = self[key] = self.function(key)
        return value


def _last_line(text, number):
    """Whether nothing but blank lines follows line ``number`` (a capture cut there)."""
    return not any(rest.strip() for rest in text.splitlines()[number:])


def _read_header(groups, nodes, guids, attrs, record_at, text, source, position):
    """The node of a ``Switch|Ca|Rt N "X-<guid>" # "<desc>"`` line, with the attributes read above it."""
    kind_word, nports, guid_hex, rest = groups
    guid = guids[guid_hex]
    kind = _KINDS[kind_word.lower()]
    if guid in record_at:
        number, line = _line_at(text, position)
        first, first_line = _line_at(text, record_at[guid])
        raise FabricError(
            "%s: duplicate GUID %s: this record (%r) and the one on line %d (%r) carry the same GUID, so they would merge "
            "into one node; fix the firmware GUID of one of them or capture again"
            % (_where(source, number), guid, " ".join(line.split())[:80], first, " ".join(first_line.split())[:80])
        )
    record_at[guid] = position
    node = nodes.get(guid)
    if node is None:
        node = nodes[guid] = FabricNode(guid, kind)
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
    return node


class _Claims:
    """The ``(guid, port)`` ends that a cable has claimed in :func:`parse`: one bit per port in an int per GUID.

    Far smaller than a table of ends (two tuples per cable). Ports from 1024 on (InfiniBand has
    255) go to a set, so that a garbled port number costs no huge int. ``loops`` keeps the
    cable of the ends that loopbacks claimed, to tell a loopback's own repeat from another cable.
    """

    __slots__ = ("bits", "far", "loops")

    def __init__(self):
        self.bits = {}
        self.far = set()
        self.loops = {}

    def claim(self, guid, port):
        """Claim one end; False when a cable claimed it before."""
        if port < 1024:
            bits = self.bits.get(guid, 0)
            if bits >> port & 1:
                return False
            self.bits[guid] = bits | 1 << port
            return True
        if (guid, port) in self.far:
            return False
        self.far.add((guid, port))
        return True

    def cable(self, end, links):
        """The key in ``links`` of the cable that claimed ``end``: a loopback's, else the one other cable with that end."""
        if end in self.loops:
            return self.loops[end]
        return next(key for key in links if key[0] != key[2] and end in (key[:2], key[2:]))


def _peer(end, key):
    """The other end of the cable ``key`` (a key of ``links`` in :func:`parse`) from ``end``."""
    return key[2:] if key[:2] == end else key[:2]


def _conflict(text, source, position, end, claims, links):
    """The port line at ``position`` cables ``end``, which another cable claimed before, to a second peer."""
    known = _peer(end, claims.cable(end, links))
    first = None
    for at, local, remote in _cables_until(text, position):
        # A cable claims both ends on its first report; a loopback claims the local end on each report.
        if first is None and ((local, remote) == (end, known) or (end[0] != known[0] and (remote, local) == (end, known))):
            first = at
    peer = remote if end == local else local  # the ends of the line at position, the last one read
    raise FabricError(
        "%s: port %d of %s is cabled to %s[%d] here and to %s[%d] on line %d: two nodes share the GUID %s "
        "(cloned firmware or a merged capture); give each its own GUID or capture again"
        % (_where(source, _line_at(text, position)[0]), end[1], end[0], peer[0], peer[1], known[0], known[1], _line_at(text, first)[0], end[0])
    )


def _cables_until(text, stop):
    """``(position, local end, remote end)`` of each port line up to the one at ``stop``, read as :func:`parse` does.

    parse keeps no line numbers nor the peer of each line; its messages find them again here.
    """
    current = None
    end = text.find("\n", stop)
    for match in _LINE_RE.finditer(text, 0, end if end >= 0 else len(text)):
        kind = match.lastindex
        if kind == _HEADER:
            current = normalize_guid(match.group(_HEADER + 4))
        elif kind == _ATTR:
            current = None
        elif kind == _PORT and current is not None:
            yield match.start(), (current, int(match.group(_PORT + 1))), (normalize_guid(match.group(_PORT + 4)), int(match.group(_PORT + 5)))


def _damaged(source, text, position):
    """The line at ``position`` starts like a record or port line but does not parse."""
    number, line = _line_at(text, position)
    if _last_line(text, number):
        raise FabricError(
            "%s: truncated record %r: the capture ends in the middle of a record (copied while ibnetdiscover was still writing, or cut); capture again"
            % (_where(source, number), line[:80])
        )
    raise FabricError(
        '%s: malformed record line %r (not `Switch|Ca|Rt N "X-<guid>" # "<desc>"` nor `[port] "X-<guid>"[port]`); fix or capture again'
        % (_where(source, number), line[:80])
    )


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
            raise FabricError("%s line %d maps %s to %r, line %d to %r: keep one of them" % (name_of, number, guid, name.strip(), lines[guid], mapping[guid]))
        mapping[guid] = name.strip()
        lines[guid] = number
    return mapping


def _number(match):
    run = match.group()
    digits = (run.lstrip("0") or "0") if run.isascii() else str(int(run))
    return "\0\0%c%s" % (len(digits), digits)


def natural_key(name):
    """Sort key: digit runs compare as numbers (``leaf2`` before ``leaf10``), text without case, then ``name`` itself.

    The order of comparing the parts one by one, as one string that sorts in C:
    each digit run becomes ``\\0\\0``, a character for its length without
    leading zeros and those digits; a NUL in the text becomes ``\\0\\1``, so
    a text part still sorts before its own continuation.
    """
    text = name.lower()
    if "\0" in text:
        text = text.replace("\0", "\0\1")
    return (_DIGITS_RE.sub(_number, text), name)


def natural_sorted(names):
    """The distinct ``names`` in :func:`natural_key` order."""
    unique = list(set(names))
    if one_prefix(unique) is not None:  # a host per number of one width (gpu00001 ...): natural order is plain order
        unique.sort()
        return unique
    return sorted(unique, key=natural_key)


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


def _any_of(compiled):
    """One regex that ``search``es true exactly where one of ``compiled`` (from :func:`_compile`) does, else None.

    Only for plain patterns (no group, no ``(?`` construct: nothing a ``|`` join could renumber or
    reinterpret); it spares most hosts one search per pattern.
    """
    if not compiled or any(regex.groups or "(?" in pattern for pattern, regex in compiled):
        return None
    try:
        return re.compile("|".join("(?:%s)" % pattern for pattern, _regex in compiled), re.I)
    except re.error:
        return None


def _classify(node, guid_map, appliances, excludes, name_regex, any_appliance=None):
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
    desc_words = node.desc.split()
    desc = " ".join(desc_words)
    mapped = _lookup(guid_map, node) if guid_map else None
    if mapped is None:
        label, words = desc, desc_words
        if _SHARP_RE.search(desc):
            return None, None, "sharp", "SHARP aggregation node (in-switch reduction engine), not a host"
        if not desc or _MODEL_RE.match(desc):
            if guid_map:
                reason = "unmapped: the description %r is only the adapter model and guid_map has no entry for its GUID; add one"
                return None, None, "unmapped_guid", reason % desc
            reason = (
                "unnamed: the description %r is only the adapter model (node description not set on the host, or the host is down); map its GUID in guid_map"
            )
            return None, None, "unnamed", reason % desc
    else:
        words = mapped.split()
        label = " ".join(words)
    if not words:
        return None, None, "unnamed", "unnamed: empty name in guid_map; map its GUID to a host name"
    raw_host = words[0]
    hca = words[1] if len(words) > 1 else None
    if hca is None and mapped is not None and len(desc_words) > 1 and not _MODEL_RE.match(desc):
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
    host = raw_host.partition(".")[0]
    if not _HOST_RE.match(host):
        return None, None, "invalid", "%r is not a valid host name" % raw_host
    if host.lower() in GENERIC_HOST_NAMES:
        return None, None, "generic", "%r is not a unique host name (default OS host name); set the node description or map its GUID" % host
    for pattern, regex in excludes:
        if regex.search(host) or regex.search(label) or regex.search(desc):
            return None, None, "exclude", "matches exclude pattern %r" % pattern
    if any_appliance is None or any_appliance.search(host):
        for pattern, regex in appliances:
            if regex.search(host):
                return host, hca, "appliance", "appliance (UFM, storage): host name matches %r; set appliance_patterns to change" % pattern
    return host, hca, None, None


# Reasons a channel adapter is not rendered as a node: the keys of ``dropped``.
DROP_REASONS = {
    "sharp": "SHARP aggregation nodes",
    "router": "IB routers",
    "unnamed": "unnamed adapters (model-only description: host down or description unset; use guid_map)",
    "unmapped_guid": "model-only adapters missing from guid_map",
    "junk_name": "invalid or generic host names (localhost, ubuntu, ...)",
    "appliance": "appliances by name (UFM, storage; appliance_patterns)",
    "exclude": "matched exclude patterns",
    "name_pattern": "did not match name_pattern",
    "other_rail": "other HCAs of placed hosts (one rail per host)",
    "duplicate_name": "adapters claiming a host/HCA name another adapter has",
    "uncabled": "not cabled to a switch",
}
_CATEGORY_KEY = {"invalid": "junk_name", "generic": "junk_name", "pattern": "name_pattern"}
# Host names of appliances that sit on the compute fabric but run no jobs (searched, case-insensitive).
APPLIANCE_PATTERNS = ("ufm", "storage", "lustre", "gpfs", "beegfs", "weka", "ddn")


def _components(start, adjacency, allowed, more=None):
    """Connected components (sets of GUIDs) of the ``allowed`` switches, in sorted start order.

    ``more``, a second adjacency map, adds its edges (parents beside children) without a merged copy.
    """
    components = []
    seen = set()
    for guid in sorted(start):
        if guid in seen or guid not in allowed:
            continue
        component = {guid}
        seen.add(guid)
        queue = deque([guid])
        while queue:
            node = queue.popleft()
            for peer in chain(adjacency.get(node, ()), more.get(node, ()) if more else ()):
                if peer in allowed and peer not in seen:
                    seen.add(peer)
                    component.add(peer)
                    queue.append(peer)
        components.append(component)
    return components


@_gc_paused
def to_tree(fabric, guid_map=None, hca_names=None, exclude=None, name_pattern=None, root_name="fabric-root", appliance_patterns=APPLIANCE_PATTERNS):
    r"""Turn a :class:`Fabric` into a Slurm switch hierarchy.

    Returns ``{'switches', 'excluded', 'warnings', 'levels', 'dropped', 'rails', 'dropped_switches'}``:

    * ``switches``: ``{name: {'switches': [...], 'nodes': [...]}}``, children
      only. Leaves list host names in ``nodes``, upper tiers list child
      switches in ``switches``; the other list is empty. Ordered leaves
      first, then tier by tier upwards, names naturally sorted in each tier
      and in each list. Every host is under exactly one leaf.
    * ``excluded``: ``[{'endpoint', 'reason'}]`` for every CA or router that is
      not rendered as a node and every loopback cable, sorted by endpoint.
    * ``dropped``: ``{reason: count}`` of the channel adapters and routers
      not rendered as nodes, every key of :data:`DROP_REASONS` present, so
      that placed adapters plus ``sum(dropped.values())`` is every CA of
      the fabric.
    * ``rails``: ``{hca: hosts placed by it}`` (``""`` for hosts without an HCA word).
    * ``dropped_switches``: ``{'empty_leaf', 'no_host_below', 'unreached'}`` counts.
    * ``warnings``: one summarised line per finding (the parser's first).
    * ``levels``: the number of switch tiers kept.

    Host identity (per CA): ``guid_map`` (node GUID, port GUID, then system
    image GUID) wins, else the description ``<hostname> <hca>``; the host is
    the first word, domain cut (short names only). Not rendered, each with
    its reason: routers; SHARP ``Aggregation Node`` CAs; model-only
    descriptions (``MT4129 ConnectX7``, anything starting with
    ``MT<digits>``, ``Mellanox Technologies`` or ``ConnectX``) unless mapped;
    invalid and generic names (``localhost``, ``ubuntu``, see
    GENERIC_HOST_NAMES); names or descriptions matching one of the
    ``exclude`` regexes (case-insensitive ``re.search``); host names
    matching ``appliance_patterns`` (UFM, storage; pass ``()`` to render
    them); CAs not cabled to any switch. ``name_pattern``: optional regex
    searched in each CA's name (map value or description); CAs it does not
    match are excluded. A group ``host`` (or the first group) picks the host
    name out of descriptions that are not ``<hostname> <hca>`` (e.g.
    ``r'^(?P<hca>mlx5_\d+)\s+(?P<host>\S+)'``); a group ``hca`` the HCA name.

    Rails: each host is placed by one adapter. ``hca_names`` is a preference
    list: the first of its names the host has wins; a host with none of them
    (or without ``hca_names``) uses its naturally first HCA (``mlx5_0``
    before ``mlx5_1``, ``HCA-1`` before ``HCA-2``). The host's other
    adapters count as ``other_rail``. An adapter whose ports reach several
    switches places the host by its lowest-numbered port.

    Levels come from the fabric's structure, not from where the placed hosts
    are: a switch is host-facing (level 0) when any channel adapter other than
    a SHARP aggregation node (which sits inside every switch, spines
    included) is cabled to it - compute hosts, hosts that are down or
    unnamed, other rails, storage, UFM. Every other switch is ranked by its
    distance from the host-facing ones. A cable from level ``n + 1`` to
    level ``n`` is a parent/child edge only when the parent is not farther
    from the host-facing switches than the child (the sum of its distances
    to them, each group of leaves with the same uplinks counted once, is not
    larger; a spine missing a cable or two still passes): a
    leaf whose hosts are powered off, or that a truncated capture shows only
    through its uplinks, looks like a switch above the spines but is
    farther from the other leaves than the spines are, so it never becomes
    their parent. Host-facing switches are never parents, so a
    leaf without placed hosts stays a leaf and is dropped (Slurm before 25.05
    refuses empty leaves) with a warning; so is any upper switch with no
    placed host below it. Cables inside one tier are not edges and are
    reported, so the result is always acyclic.

    Roots: several top switches stay as they are when one of them reaches
    every placed host (slurmctld accepts that without a warning, e.g. the
    spines of a two-level fat tree). When the hosts are one connected fabric
    but no switch reaches all of them, a logical root ``root_name`` is added
    over the top switches; None leaves them without a common parent (and
    warns, as slurmctld would). Disconnected fabrics get a warning.

    Raises :class:`FabricError` when the fabric has no switch, when no
    compute host is left (with the counts by reason), or on an invalid regex.
    """
    guid_map = _normalize_map(guid_map)
    if isinstance(hca_names, str):
        hca_names = [hca_names]
    # An empty list is "no preference" (the role's default).
    hca_names = [str(name) for name in hca_names] if hca_names else []
    excludes = _compile([exclude] if isinstance(exclude, str) else exclude)
    appliances = _compile([appliance_patterns] if isinstance(appliance_patterns, str) else appliance_patterns)
    any_appliance = _any_of(appliances)
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

    # Cabled ports of each adapter and router, and the switch graph (parallel cables folded); loopbacks set aside.
    node_ports = {}
    adjacency = {guid: set() for guid in switches}
    loopbacks = []
    for link in fabric.links:
        a_guid, a_port, b_guid, b_port, _width, _speed = link
        if a_guid == b_guid:
            loopbacks.append(link)
            continue
        if a_guid not in switches:
            node_ports.setdefault(a_guid, []).append((a_port, b_guid))
        elif b_guid in switches:
            adjacency[a_guid].add(b_guid)
            adjacency[b_guid].add(a_guid)
        if b_guid not in switches:
            node_ports.setdefault(b_guid, []).append((b_port, a_guid))
    natural = _Memo(natural_key)  # every switch name, sorted many times

    def hca_key(hca):
        """The preferred rail first (its place in hca_names), then natural order."""
        return (hca_names.index(hca) if hca in hca_names else len(hca_names),) + natural_key(hca or "~")

    hca_keys = _Memo(hca_key)  # a few HCA names: one key tuple each, shared by every host
    hca_names_seen = {}

    excluded = []
    dropped = dict.fromkeys(DROP_REASONS, 0)
    host_facing = set()  # switches cabled to any adapter but a SHARP aggregation node
    candidates = {}  # host -> [(hca sort key, guid, hca, leaf)]
    appliance_cas = []
    labels = dict(names)  # GUID -> name for messages: switch names, then host names

    def drop(node, key, reason, label=None):
        excluded.append({"endpoint": _endpoint(node, label), "reason": reason})
        dropped[key] += 1

    for guid in sorted(nodes):
        node = nodes[guid]
        if node.kind == "switch":
            continue
        ports = node_ports.get(guid, ())
        if len(ports) > 1:  # most adapters have one cable: no sort
            ports = sorted(ports)
        cabled = [peer for _port, peer in ports if peer in switches]
        host, hca, category, reason = _classify(node, guid_map, appliances, excludes, name_regex, any_appliance)
        if category != "sharp" and node.kind != "router":
            host_facing.update(cabled)
        if host is not None and not cabled:
            host, category, reason = None, "uncabled", "not cabled to any switch"
        if host is None:
            drop(node, _CATEGORY_KEY.get(category, category), reason, _lookup(guid_map, node))
            continue
        hca = hca_names_seen.setdefault(hca, hca)  # one string per HCA name, not one per adapter
        entry = (hca_keys[hca], guid, hca, cabled[0])
        if category == "appliance":
            appliance_cas.append((host, entry, reason))
        else:
            candidates.setdefault(host, []).append(entry)
    del node_ports  # per-adapter tables go as soon as they are read: they weigh most on a large fabric
    appliance_hosts = natural_sorted(host for host, _entry, _reason in appliance_cas)
    if appliance_cas and not candidates:
        # A fabric of nothing but such names is a lab (r-ufm101 ...): render them rather than nothing.
        for host, entry, _reason in appliance_cas:
            candidates.setdefault(host, []).append(entry)
        fabric_notes = [
            "rendered %s matching appliance_patterns, as no other host is on the fabric: %s" % (_count(len(appliance_hosts), "host"), _summary(appliance_hosts))
        ]
    else:
        for _host, entry, reason in appliance_cas:
            drop(nodes[entry[1]], "appliance", reason, _lookup(guid_map, nodes[entry[1]]))
        fabric_notes = []

    # One adapter per host: the preferred rail, then the naturally first HCA.
    leaf_hosts = {}
    rails = {}
    fallback = []
    clones = []
    host_order = {host: index for index, host in enumerate(natural_sorted(candidates))}
    for host in host_order:
        options = sorted(candidates[host]) if len(candidates[host]) > 1 else candidates[host]
        key, guid, hca, leaf = options[0]
        leaf_hosts.setdefault(leaf, set()).add(host)
        rails[hca or ""] = rails.get(hca or "", 0) + 1
        labels[guid] = host if hca is None else "%s %s" % (host, hca)
        if hca_names and key[0] == len(hca_names):
            fallback.append(host)
        for other_key, other_guid, other_hca, _leaf in options[1:]:
            if other_hca == hca and other_key == key:
                clones.append("%s %s" % (host, hca))
                drop(
                    nodes[other_guid], "duplicate_name", "%s %s is also claimed by %s (cloned node description?); map its GUID in guid_map" % (host, hca, guid)
                )
            else:
                labels[other_guid] = "%s %s" % (host, other_hca)
                drop(nodes[other_guid], "other_rail", "other rail: its host is placed by %s" % (hca or "another adapter"))

    for link in loopbacks:
        excluded.append(
            {"endpoint": "%s port %d <-> port %d" % (names.get(link.a_guid, link.a_guid), link.a_port, link.b_port), "reason": "loopback cable, ignored"}
        )
    excluded.sort(key=lambda item: (natural_key(item["endpoint"]), item["reason"]))
    multi_rail = sum(1 for host in candidates if len(candidates[host]) > 1)
    del candidates

    if not leaf_hosts:
        detail = ", ".join("%d %s" % (count, DROP_REASONS[key]) for key, count in sorted(dropped.items(), key=lambda item: (-item[1], item[0])) if count)
        raise FabricError(
            "no compute hosts left after filtering: %d endpoints excluded (%s); see guid_map, exclude, appliance_patterns and name_pattern"
            % (sum(dropped.values()), detail or "none found")
        )

    warnings = list(getattr(fabric, "warnings", ())) + fabric_notes
    leaves = set(leaf_hosts)

    # An adapter-only switch cabled straight to a compute leaf is not taken for a leaf (a storage switch hanging off a leaf).
    host_facing = leaves | {guid for guid in host_facing if not adjacency[guid] & leaves}
    distance = _bfs(sorted(host_facing), adjacency)
    spread = _farness(host_facing, adjacency)

    children = {guid: set() for guid in distance}
    peers = set()
    for guid in distance:
        for peer in adjacency[guid]:
            if peer not in distance:
                continue
            if distance[guid] == distance[peer] + 1 and spread.get(guid, 0) <= spread.get(peer, 0):
                children[guid].add(peer)
            elif distance[guid] == distance[peer] and guid < peer:
                peers.add((guid, peer))

    # Placed hosts below each switch, as a bit set of compute leaves (an int), children before parents.
    bit = {leaf: 1 << index for index, leaf in enumerate(sorted(leaves))}
    below = {}
    for guid in sorted(distance, key=lambda g: (distance[g], g)):
        mask = bit.get(guid, 0)
        if guid not in host_facing:
            for child in children[guid]:
                mask |= below[child]
        below[guid] = mask
    kept = {guid for guid, mask in below.items() if mask}
    empty_leaves = sorted((host_facing - leaves), key=lambda g: natural_key(names[g]))
    no_below = sorted((set(distance) - host_facing - kept), key=lambda g: natural_key(names[g]))
    unreached = sorted(switches - set(distance), key=lambda g: natural_key(names[g]))
    if empty_leaves:
        warnings.append(
            "dropped %s with no compute host (their adapters are other rails, storage, UFM, hosts down or unnamed); they stay leaves, never "
            "parents: %s" % (_count(len(empty_leaves), "leaf switch"), _summary(names[guid] for guid in empty_leaves))
        )
    if no_below:
        warnings.append(
            "dropped %s with no compute host below (a leaf whose hosts are all down or missing from the capture, or a redundant top "
            "switch), so none is ranked above the spines: %s" % (_count(len(no_below), "switch"), _summary(names[guid] for guid in no_below))
        )
    if unreached:
        warnings.append(
            "dropped %s not connected to any host-facing switch (another fabric, or cut off in the capture): %s"
            % (_count(len(unreached), "switch"), _summary(names[guid] for guid in unreached))
        )
    if peers:
        pairs = sorted((tuple(natural_sorted((names[a], names[b]))) for a, b in peers), key=lambda pair: (natural_key(pair[0]), natural_key(pair[1])))
        example = ", ".join("%s <-> %s" % pair for pair in pairs[:3])
        warnings.append(
            "left out %s cabled within one tier (spine mesh or leaf-to-leaf): such cables are not parent/child edges: %s%s"
            % (_count(len(pairs), "switch pair"), example, ", ..." if len(pairs) > 3 else "")
        )
    if fallback:
        warnings.append(
            "placed %s by their first HCA, as they have none of hca_names (%s), e.g. %s"
            % (_count(len(fallback), "host"), ", ".join(hca_names), ", ".join(fallback[:3]))
        )
    if clones:
        warnings.append(
            "found %s claimed by more than one adapter (cloned node descriptions?), e.g. %r; map their GUIDs in guid_map"
            % (_count(len(clones), "host/HCA name"), clones[0])
        )
    lost = dropped["unnamed"] + dropped["unmapped_guid"]
    if lost:
        warnings.append("left out %s named only by their model (host down, description unset or missing from guid_map); see excluded" % _count(lost, "adapter"))

    # Disconnected fabrics and the missing common root.
    add_root = False
    everything = (1 << len(leaves)) - 1
    parents = {}
    for guid, below_guid in children.items():
        for child in below_guid:
            parents.setdefault(child, set()).add(guid)
    groups = _components(leaves, children, kept, parents)
    if len(groups) > 1:
        joined = _components(leaves, adjacency, switches)
        if len(joined) > 1:
            sizes = sorted((len({h for g in group if g in leaves for h in leaf_hosts[g]}) for group in joined), reverse=True)
            warnings.append(
                "the compute hosts sit on %d disconnected fabrics (%s hosts); jobs cannot span them: put each in its own partition"
                % (len(joined), "/".join(str(size) for size in sizes))
            )
    if len(kept) > 1 and not any(below[guid] == everything for guid in kept):
        if root_name and len(_components(leaves, adjacency, switches)) == 1:
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
    del labels

    tree = {}
    for guid in sorted(kept, key=lambda g: (distance[g], natural[names[g]])):
        if guid in leaves:
            tree[names[guid]] = {"switches": [], "nodes": sorted(leaf_hosts[guid], key=host_order.__getitem__)}
        else:
            tree[names[guid]] = {"switches": sorted({names[child] for child in children[guid] if child in kept}, key=natural.__getitem__), "nodes": []}
    levels = max(distance[guid] for guid in kept) + 1
    if add_root:
        # One connected fabric whose top switches do not share a parent
        # (leaf-to-leaf, spine mesh): a logical root over them is what
        # SchedMD recommends (leaves plus one top switch).
        listed = {child for entry in tree.values() for child in entry["switches"]}
        tops = natural_sorted(name for name in tree if name not in listed)
        root = root_name
        while root in tree:
            root += "-root"
        tree[root] = {"switches": tops, "nodes": []}
        levels += 1
        warnings.append("no switch reached all compute leaves, but they are one connected fabric: added the logical root %s over %s" % (root, _summary(tops)))
    if multi_rail:
        warnings.append(
            "placed %s with several adapters by one rail each (%s); the other adapters are counted as other_rail"
            % (
                _count(multi_rail, "host"),
                ", ".join("%s: %d" % (hca or "-", count) for hca, count in sorted(rails.items(), key=lambda item: natural_key(item[0]))),
            )
        )
    return {
        "switches": tree,
        "excluded": excluded,
        "warnings": warnings,
        "levels": levels,
        "dropped": dropped,
        "rails": rails,
        "dropped_switches": {"empty_leaf": len(empty_leaves), "no_host_below": len(no_below), "unreached": len(unreached)},
    }


def _bfs(sources, adjacency):
    """Hop distance from the nearest of ``sources`` over ``adjacency``."""
    return {guid: hops for hops, ring in _rings(sources, adjacency) for guid in ring}


def _rings(sources, adjacency):
    """``(hops, set of GUIDs that far from the nearest source)``, nearest first.

    Ring by ring with set unions, so the work per cable is done in C.
    ``adjacency`` is anything indexed by vertex (a dict or a list).
    """
    seen = set(sources)
    ring = set(seen)
    hops = 0
    while ring:
        yield hops, ring
        ring = set().union(*[adjacency[guid] for guid in ring])
        ring -= seen
        seen |= ring
        hops += 1


def _farness(targets, adjacency):
    """``{switch: sum of its distances to the reachable classes of targets}`` (smaller is more central).

    Targets with the same set of neighbours form one class (every switch but
    themselves is equally far from each of them), counted once so that a
    big pod does not outweigh a small one. A member is 2 hops from its own
    class (0 when alone in it). A switch that no class reaches may be
    missing (read it as 0).

    The walks run over groups, not switches: switches with the same
    neighbours (the leaves of a pod, the cores of a group) are never cabled
    to each other and are equally far from every other switch, so one walk
    per class over one vertex per group gives the distances of all the
    members; a fat tree costs one short walk per pod.
    """
    group_of = {}  # switch -> group number
    numbers = {}  # neighbour set -> group number
    members = []  # group number -> its switches
    for guid, peers in adjacency.items():
        number = numbers.setdefault(frozenset(peers), len(numbers))
        if number == len(members):
            members.append([])
        members[number].append(guid)
        group_of[guid] = number
    quotient = [{group_of[peer] for peer in neighbours} for neighbours in numbers]  # numbers keeps insertion order
    classes = {}
    for guid in targets:
        classes.setdefault(group_of[guid], set()).add(guid)
    group_total = [0] * len(members)
    own = {}  # switch -> distance to the class of its own group
    for number, targets_in in classes.items():
        for hops, ring in _rings((number,), quotient):
            if hops:
                for other in ring:
                    group_total[other] += hops
        if quotient[number]:
            # The other members of the group are two hops away (through any neighbour); so are the targets, unless alone.
            for guid in members[number]:
                own[guid] = own.get(guid, 0) + (2 if guid not in targets_in or len(targets_in) > 1 else 0)
    return {guid: group_total[group_of[guid]] + own.get(guid, 0) for guid in adjacency}


def dropped_summary(dropped):
    """One line for ``dropped``: ``not rendered as nodes: 40 sharp, 69 unnamed, ...`` (None when nothing was dropped)."""
    counts = ["%d %s" % (count, key) for key, count in sorted(dropped.items(), key=lambda item: (-item[1], item[0])) if count]
    if not counts:
        return None
    return "not rendered as nodes: %s adapters (%s); `excluded` lists each with its reason" % (sum(dropped.values()), ", ".join(counts))


_A_GUID, _B_GUID, _WIDTH, _SPEED = map(operator.itemgetter, (0, 2, 4, 5))  # of a Link


def _degraded(fabric, switches, labels):
    """Warnings for cables below the fabric norm: narrower than the usual width, or inter-switch cables slower than the usual inter-switch speed.

    Host cables slower than the switches are not flagged: that is usually
    the adapter's own limit (DDR cards on a QDR fabric).
    """
    # Counted in C over columns of the links: a fabric of 64k hosts has 200k.
    links = fabric.links
    if any(map(operator.eq, map(_A_GUID, links), map(_B_GUID, links))):
        links = [link for link in links if link.a_guid != link.b_guid]  # loopbacks
    between = map(operator.and_, map(switches.__contains__, map(_A_GUID, links)), map(switches.__contains__, map(_B_GUID, links)))
    widths = {width: count for width, count in Counter(map(_WIDTH, links)).items() if width}
    speeds = {speed: count for speed, count in Counter(select(map(_SPEED, links), between)).items() if speed}
    if not widths and not speeds:
        return []
    norm_width = max(widths, key=lambda w: (widths[w], int(w[:-1]))) if widths else None
    norm_speed = max(speeds, key=lambda s: (speeds[s], SPEED_RANK.get(s, 0))) if speeds else None
    # Decided per distinct rate, so a healthy fabric needs no second pass over its links.
    narrow = {width for width in widths if int(width[:-1]) < int(norm_width[:-1])} if norm_width else set()
    slower = {speed for speed in speeds if SPEED_RANK.get(speed, 0) < SPEED_RANK.get(norm_speed, 0)}
    if not narrow and not slower:
        return []
    slow = [
        link
        for link in fabric.links
        if link.a_guid != link.b_guid and (link.width in narrow or (link.speed in slower and link.a_guid in switches and link.b_guid in switches))
    ]
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
