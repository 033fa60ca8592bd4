"""Write queue depth event messages as IBM MQ writes them (MQCFH + MQCFST/MQCFIN parameters, in
the byte order and character set of the MQMD) and save them in ``dmpmqmsg``'s dump format.
Everything comes from the layout tables; see reader.py for the format."""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Iterable, Mapping

from . import layouts as L

HEX_PER_LINE = 64  # bytes of message data per X line


def event_data(reason: int, values: Mapping[str, object], big_endian: bool, ccsid: int) -> bytes:
    """The message data of one queue depth event: MQCFH, then every parameter of
    ``parameters.csv`` in table order (``values`` by column alias)."""
    order = ">" if big_endian else "<"
    params = L.parameters()
    hdr = {
        "Type": L.const("MQCFT_EVENT"),
        "StrucLength": L.const("MQCFH_STRUC_LENGTH"),
        "Version": L.const("MQCFH_VERSION_1"),
        "Command": L.const("MQCMD_PERFM_EVENT"),
        "MsgSeqNumber": 1,
        "Control": L.const("MQCFC_LAST"),
        "CompCode": L.const("MQCC_WARNING"),
        "Reason": reason,
        "ParameterCount": len(params),
    }
    out = bytearray(L.size("MQCFH"))
    for f in L.structure("MQCFH"):
        struct.pack_into(order + "i", out, f.offset, hdr[f.name])
    codec = L.charsets()[ccsid].codec
    fin = {f.name: f for f in L.structure("MQCFIN")}
    fst = {f.name: f for f in L.structure("MQCFST")}
    for p in params:
        v = values[p.alias]
        if p.pcf_type == "MQCFIN":
            b = bytearray(L.const("MQCFIN_STRUC_LENGTH"))
            for name, val in (("Type", L.const("MQCFT_INTEGER")), ("StrucLength", len(b)), ("Parameter", p.value)):
                struct.pack_into(order + "i", b, fin[name].offset, val)
            struct.pack_into(order + "i", b, fin["Value"].offset, int(v))
        else:
            s = str(v).encode(codec)
            fixed = L.const("MQCFST_STRUC_LENGTH_FIXED")
            total = fixed + (len(s) + 3) // 4 * 4
            b = bytearray(total)
            fields = (
                ("Type", L.const("MQCFT_STRING")),
                ("StrucLength", total),
                ("Parameter", p.value),
                ("CodedCharSetId", ccsid),
                ("StringLength", len(s)),
            )
            for name, val in fields:
                struct.pack_into(order + "i", b, fst[name].offset, val)
            b[fixed : fixed + len(s)] = s
        out += b
    return bytes(out)


def put_date_time(at: dt.datetime) -> tuple[str, str]:
    """MQMD PutDate and PutTime (GMT, hundredths) of a UTC time."""
    at = at.astimezone(dt.UTC)
    return at.strftime("%Y%m%d"), at.strftime("%H%M%S") + f"{at.microsecond // 10_000:02d}"


def dump_text(messages: Iterable[tuple[Mapping[str, object], bytes]], qmgr: str, queue: str, dumped_at: str) -> str:
    """A dmpmqmsg dump of ``messages`` (MQMD values by column alias, message data)."""
    lines = [
        "* Dumped by dmpmqmsg (mqsmf generator)",
        f"* Qmgr      = {qmgr}",
        f"* Queue     = {queue}",
        f"* Dump time = {dumped_at}",
        "",
    ]
    mqmd = [f for f in L.structure("MQMD") if f.dump_code]
    for md, data in messages:
        lines.append("N")
        for f in mqmd:
            v = md.get(f.alias)
            if v is None:
                continue
            lines.append(f"A {f.dump_code} {v}".rstrip() if f.type != "MQCHAR" else f"A {f.dump_code} {v}")
        for i in range(0, len(data), HEX_PER_LINE):
            lines.append("X " + data[i : i + HEX_PER_LINE].hex().upper())
        lines.append("")
    return "\n".join(lines) + "\n"
