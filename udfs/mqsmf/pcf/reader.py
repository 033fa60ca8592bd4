"""Read performance event messages from message-dump files written by IBM's ``dmpmqmsg``.

The file format (text, one item per line):

- ``*`` lines are comments (``dmpmqmsg`` writes its version, the queue manager, the queue and the
  dump time there); blank lines are ignored;
- ``N`` starts a new message;
- ``A <code> <value>`` is one MQMD field of that message, by its three-letter code (``ENC``,
  ``CCS``, ``COI``, ``PTD``, ...; ``layouts/pcf/MQMD.csv`` maps them): numbers in decimal, byte
  fields (MsgId, CorrelId, ...) in hexadecimal, character fields as text;
- ``X <hex>`` lines hold the message data in hexadecimal, in order.

Other line types (the text forms of the ``-d`` display options) are not read: a message that has
them is quarantined, naming the line. The message data are the bytes as the queue manager wrote
them, in the encoding its MQMD gives: ``Encoding`` says the integer byte order (big-endian as
written on z/OS, little-endian once converted for x86), ``CodedCharSetId`` the strings' character
set (EBCDIC as written, ASCII once converted). Each message is checked whole: a message whose
MQMD, PCF header or parameters are malformed is quarantined with the file, the byte offset and
line of its ``N`` line and the reason; every other message still loads. Messages that are not
queue depth events (other PCF commands or reasons) are counted as skipped.

Event files are few and small (one message per queue manager per event), and PCF parameters are
variable-length: they are walked per message, not vectorized.
"""

from __future__ import annotations

import datetime as dt
import struct
from collections import Counter
from dataclasses import dataclass, field

import pyarrow as pa

from . import layouts as L

STRUCTURE = "PERFM_EVENT"  # the raw table's structure name (raw table perfm_event)
FRAMING = "dmpmqmsg"
# Identifies a message across loads (idempotent reload): the queue manager that put it, its MsgId
# and put time.
NATURAL_KEY = ("event_qmgr_name", "msg_id", "put_at")
_REQUIRED = ("ENC", "CCS", "FMT")
_HEX = set("0123456789abcdefABCDEF")


class DumpError(ValueError):
    """A message that cannot be read: the reason (file, offset and line are added by the caller)."""


@dataclass
class DumpedMessage:
    line: int  # 1-based line of the message's N line
    offset: int  # byte offset of that line
    end: int  # byte offset just past the message's last line
    attrs: dict[str, str] = field(default_factory=dict)
    hex_parts: list[str] = field(default_factory=list)
    problem: str | None = None


@dataclass
class Quarantined:
    source_file: str
    offset: int
    length: int
    line: int
    reason: str
    raw: bytes

    def __str__(self) -> str:
        return f"{self.source_file}: line {self.line} (offset {self.offset}): {self.reason}"


@dataclass
class DumpReport:
    source_file: str
    size: int = 0
    messages: int = 0
    decoded: int = 0
    skipped: int = 0
    quarantine: list[Quarantined] = field(default_factory=list)
    skipped_reasons: Counter = field(default_factory=Counter)


def looks_like_dump(head: bytes) -> bool:
    """True when a file starts like a dmpmqmsg dump: text whose first non-blank line is a comment,
    an N line or an A line (SMF dumps start with binary descriptor words)."""
    for raw in head.split(b"\n")[:8]:
        s = raw.strip()
        if not s:
            continue
        try:
            s.decode("ascii")
        except UnicodeDecodeError:
            return False
        return s.startswith(b"*") or s == b"N" or s.startswith(b"A ")
    return False


def is_dump_file(path: str) -> bool:
    with open(path, "rb") as f:
        return looks_like_dump(f.read(512))


def split_messages(data: bytes) -> tuple[list[DumpedMessage], list[tuple[int, int, int, str]]]:
    """The messages of a dump, and problems outside any message (offset, length, line, reason)."""
    msgs: list[DumpedMessage] = []
    stray: list[tuple[int, int, int, str]] = []
    cur: DumpedMessage | None = None
    pos = 0
    for no, raw in enumerate(data.split(b"\n"), start=1):
        start, pos = pos, pos + len(raw) + 1
        line = raw.rstrip(b"\r")
        if cur is not None and cur.problem is None:
            cur.end = min(pos, len(data))
        text = line.strip()
        if not text or text.startswith(b"*"):
            continue
        try:
            s = line.decode("ascii")
        except UnicodeDecodeError:
            reason = f"line {no} is not text"
            if cur is None:
                stray.append((start, len(raw), no, reason))
            elif cur.problem is None:
                cur.problem = reason
            continue
        kind, _, rest = s.partition(" ")
        if kind == "N" and not rest.strip():
            cur = DumpedMessage(no, start, min(pos, len(data)))
            msgs.append(cur)
            continue
        if cur is None:
            stray.append((start, len(raw), no, f"line {no} ({kind!r}) comes before any N line"))
            continue
        if cur.problem is not None:
            cur.end = min(pos, len(data))
            continue
        if kind == "A":
            code, _, value = rest.partition(" ")
            if len(code) != 3 or not code.isalpha():
                cur.problem = f"line {no}: malformed attribute line {s[:40]!r}"
            else:
                cur.attrs[code] = value
        elif kind == "X":
            h = rest.strip()
            if len(h) % 2 or not set(h) <= _HEX:
                cur.problem = f"line {no}: message data is not an even number of hexadecimal digits"
            else:
                cur.hex_parts.append(h)
        else:
            cur.problem = f"line {no}: line type {kind[:8]!r} is not read (only *, N, A and X lines)"
    return msgs, stray


# --------------------------------------------------------------------------------------------
# Decoding one message
# --------------------------------------------------------------------------------------------


def _charset(ccsid: int) -> L.Charset:
    cs = L.charsets().get(ccsid)
    if cs is None:
        raise DumpError(f"CodedCharSetId {ccsid} is not a supported character set ({sorted(L.charsets())})")
    return cs


def byte_order(encoding: int) -> str:
    bits = encoding & L.const("MQENC_INTEGER_MASK")
    if bits == L.const("MQENC_INTEGER_NORMAL"):
        return ">"
    if bits == L.const("MQENC_INTEGER_REVERSED"):
        return "<"
    raise DumpError(f"Encoding {encoding} gives no integer byte order (low 4 bits {bits})")


def mqmd_values(attrs: dict[str, str]) -> dict[str, object]:
    """MQMD columns from a message's A lines (absent attributes are NULL)."""
    out: dict[str, object] = {}
    for f in L.structure("MQMD"):
        if not f.dump_code:
            continue
        v = attrs.get(f.dump_code)
        if v is None:
            out[f.alias] = None
        elif f.type == "MQLONG":
            t = v.strip()
            # An MQLONG is a signed 32-bit integer written in ASCII digits; anything else (a
            # superscript digit, a number beyond 32 bits) is damage, not a value.
            body = t[1:] if t[:1] in "+-" else t
            if not (body.isascii() and body.isdigit()):
                raise DumpError(f"MQMD {f.name} ({f.dump_code}) is not a number: {t[:20]!r}")
            if not -(1 << 31) <= int(t) < 1 << 31:
                raise DumpError(f"MQMD {f.name} ({f.dump_code}) {t[:20]} does not fit a 32-bit MQLONG")
            out[f.alias] = int(t)
        elif f.type == "MQBYTE":
            h = v.strip().upper()
            if len(h) != 2 * f.length or not set(h) <= _HEX:
                raise DumpError(f"MQMD {f.name} ({f.dump_code}) is not {f.length} bytes of hexadecimal")
            out[f.alias] = h
        else:
            out[f.alias] = v.rstrip()
    return out


def put_timestamp(put_date: str | None, put_time: str | None) -> dt.datetime:
    """PutDate YYYYMMDD and PutTime HHMMSSTH (GMT) as a UTC timestamp."""
    d, t = (put_date or "").strip(), (put_time or "").strip()
    if not d or not t:  # the event's key and its date: without them it could be neither
        raise DumpError("no PutDate/PutTime: an event without its put time has no date and no key")
    if len(d) != 8 or len(t) != 8 or not (d + t).isascii() or not (d + t).isdigit():
        raise DumpError(f"PutDate/PutTime {d!r}/{t!r} are not YYYYMMDD/HHMMSSTH")
    try:
        base = dt.datetime(int(d[:4]), int(d[4:6]), int(d[6:]), int(t[:2]), int(t[2:4]), int(t[4:6]), tzinfo=dt.UTC)
    except ValueError as e:
        raise DumpError(f"PutDate/PutTime {d!r}/{t!r}: {e}") from None
    return base + dt.timedelta(milliseconds=10 * int(t[6:]))


def decode_pcf(data: bytes, order: str, msg_ccsid: int) -> tuple[dict[str, object], str | None]:
    """MQCFH and parameter columns of one message's data; the second value is why the message is
    skipped (not a queue depth event), else None. Malformed data raise DumpError."""
    hdr = L.structure("MQCFH")
    hsize = L.size("MQCFH")
    if len(data) < hsize:
        raise DumpError(f"message data of {len(data)} bytes is shorter than the {hsize}-byte MQCFH")
    out: dict[str, object] = {}
    for f in hdr:
        out[f.alias] = struct.unpack_from(order + "i", data, f.offset)[0]
    a = {f.name: f.alias for f in hdr}
    # An MQEVENT message must start with an event MQCFH: anything else is damage or a wrong Encoding.
    if out[a["Type"]] != L.const("MQCFT_EVENT") or out[a["StrucLength"]] != L.const("MQCFH_STRUC_LENGTH"):
        raise DumpError(
            f"MQCFH Type {out[a['Type']]}, StrucLength {out[a['StrucLength']]} (expected "
            f"{L.const('MQCFT_EVENT')}, {L.const('MQCFH_STRUC_LENGTH')}): wrong Encoding or damaged data"
        )
    if out[a["Command"]] != L.const("MQCMD_PERFM_EVENT"):
        return out, f"not a performance event (MQCFH Command {out[a['Command']]})"
    event = L.events().get(out[a["Reason"]])
    if event is None:
        return out, f"performance event with reason {out[a['Reason']]} is not a queue depth event"
    out["event"], out["event_name"] = event
    params = {p.value: p for p in L.parameters()}
    for p in L.parameters():
        out[p.alias] = None
    fin = {f.name: f for f in L.structure("MQCFIN")}
    fst = {f.name: f for f in L.structure("MQCFST")}
    pos = hsize
    count = out[a["ParameterCount"]]
    if count < 0 or count > 1000:
        raise DumpError(f"MQCFH ParameterCount {count} is not plausible")
    for k in range(count):
        if pos + 8 > len(data):
            raise DumpError(f"parameter {k + 1} of {count} starts at data offset {pos}, past the {len(data)}-byte data")
        ptype, plen = struct.unpack_from(order + "ii", data, pos)
        if plen < 8 or plen % 4 or pos + plen > len(data):
            raise DumpError(
                f"parameter {k + 1} at data offset {pos} has StrucLength {plen} (data is {len(data)} bytes)"
            )
        pid = struct.unpack_from(order + "i", data, pos + 8)[0] if plen >= 12 else None
        p = params.get(pid)
        if ptype == L.const("MQCFT_INTEGER"):
            if plen != L.const("MQCFIN_STRUC_LENGTH"):
                raise DumpError(f"MQCFIN at data offset {pos} has StrucLength {plen}")
            value = struct.unpack_from(order + "i", data, pos + fin["Value"].offset)[0]
            if p is not None:
                if p.pcf_type != "MQCFIN":
                    raise DumpError(f"parameter {p.name} at data offset {pos} is an integer, expected {p.pcf_type}")
                out[p.alias] = value
        elif ptype == L.const("MQCFT_STRING"):
            fixed = L.const("MQCFST_STRUC_LENGTH_FIXED")
            if plen < fixed:
                raise DumpError(
                    f"MQCFST at data offset {pos} has StrucLength {plen}, less than its fixed {fixed} bytes"
                )
            ccsid, slen = struct.unpack_from(order + "ii", data, pos + fst["CodedCharSetId"].offset)
            if slen < 0 or fixed + slen > plen:
                raise DumpError(f"MQCFST at data offset {pos}: StringLength {slen} does not fit StrucLength {plen}")
            raw = data[pos + fixed : pos + fixed + slen]
            if p is not None:
                if p.pcf_type != "MQCFST":
                    raise DumpError(f"parameter {p.name} at data offset {pos} is a string, expected {p.pcf_type}")
                codec = _charset(ccsid or msg_ccsid).codec
                try:
                    out[p.alias] = raw.decode(codec).rstrip(" \x00")
                except UnicodeDecodeError as e:
                    raise DumpError(
                        f"parameter {p.name} at data offset {pos} is not valid {codec} (CCSID {ccsid or msg_ccsid}): {e.reason} at byte {e.start}"
                    ) from None
        pos += plen
    if pos != len(data):
        raise DumpError(f"{len(data) - pos} bytes follow the {count} parameters")
    return out, None


# --------------------------------------------------------------------------------------------
# Arrow
# --------------------------------------------------------------------------------------------


def _arrow_type(pcf_type: str) -> pa.DataType:
    return pa.int32() if pcf_type in ("MQLONG", "MQCFIN") else pa.string()


def arrow_schema() -> pa.Schema:
    """Columns of the raw table: lineage, MQMD, derived put time and encoding, MQCFH, the event
    and its parameters."""
    fields = [
        pa.field("source_file", pa.string()),
        pa.field("record_offset", pa.int64()),
        pa.field("line_number", pa.int64()),
        pa.field("message_index", pa.int32()),
    ]
    fields += [pa.field(f.alias, _arrow_type(f.type)) for f in L.structure("MQMD") if f.dump_code]
    fields += [
        pa.field("put_at", pa.timestamp("us", tz="UTC")),
        pa.field("byte_order", pa.string()),
        pa.field("char_set", pa.string()),
    ]
    fields += [pa.field(f.alias, pa.int32()) for f in L.structure("MQCFH")]
    fields += [pa.field("event", pa.string()), pa.field("event_name", pa.string())]
    fields += [pa.field(p.alias, _arrow_type(p.pcf_type)) for p in L.parameters()]
    return pa.schema(fields)


def decode_message(msg: DumpedMessage) -> tuple[dict[str, object] | None, str | None]:
    """(row, None) for a queue depth event, (None, why) for a skipped message; DumpError if bad."""
    missing = [c for c in _REQUIRED if c not in msg.attrs]
    if missing:
        raise DumpError(f"MQMD attribute(s) {', '.join(missing)} missing")
    row = mqmd_values(msg.attrs)
    enc, ccsid = row["encoding"], row["coded_char_set_id"]
    if row["msg_format"] != str(L.const("MQFMT_EVENT")).rstrip():
        return None, f"format {row['msg_format']!r} is not {str(L.const('MQFMT_EVENT')).rstrip()!r}"
    order = byte_order(enc)
    cs = _charset(ccsid)
    data = bytes.fromhex("".join(msg.hex_parts))
    pcf, skip = decode_pcf(data, order, ccsid)
    if skip:
        return None, skip
    row.update(pcf)
    row["put_at"] = put_timestamp(row.get("put_date"), row.get("put_time"))
    row["byte_order"] = "big-endian" if order == ">" else "little-endian"
    row["char_set"] = ("EBCDIC " if cs.ebcdic else "ASCII ") + cs.codec
    return row, None


def read_dump_bytes(data: bytes, source: str, report: DumpReport | None = None) -> tuple[pa.Table, DumpReport]:
    """Decode a whole dump: (table of queue depth events, report with counts and quarantine)."""
    report = report if report is not None else DumpReport(source)
    report.size = len(data)
    msgs, stray = split_messages(data)
    for off, ln, no, reason in stray:
        report.quarantine.append(Quarantined(source, off, ln, no, reason, data[off : off + ln]))
    rows = []
    for i, m in enumerate(msgs):
        report.messages += 1
        try:
            if m.problem:
                raise DumpError(m.problem)
            row, skip = decode_message(m)
        except DumpError as e:
            report.quarantine.append(
                Quarantined(source, m.offset, m.end - m.offset, m.line, f"message {i + 1}: {e}", data[m.offset : m.end])
            )
            continue
        if skip:
            report.skipped += 1
            report.skipped_reasons[skip] += 1
            continue
        row.update(source_file=source, record_offset=m.offset, line_number=m.line, message_index=i)
        rows.append(row)
        report.decoded += 1
    schema = arrow_schema()
    table = pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()
    return table, report


def read_dump(path: str, source_name: str | None = None) -> tuple[pa.Table, DumpReport]:
    with open(path, "rb") as f:
        data = f.read()
    return read_dump_bytes(data, source_name or path)
