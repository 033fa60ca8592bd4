"""Damage a written dump in ways a reader must survive, and say exactly what it must quarantine.

* ``truncate``: the file ends in the middle of a record (an interrupted transfer). That record is
  quarantined (from its start to the end of the file); every record before it decodes; the
  records after it (and the dump trailer) are gone.
* ``bitflip``: one bit of a structure's eyecatcher flips. The record is quarantined as a whole
  (identifier/eyecatcher check); all other records decode.
* ``badrdw``: a record's RDW length is too long (RDW and BDW framings). In an RDW file the walk
  quarantines that record's bytes and resynchronises on the next record. In a BDW file the segment
  no longer fits its block, so the rest of the block is quarantined (the records in it are lost);
  if the block ends with the start of a spanned record, that record's continuation segments in
  the next block are quarantined as orphans.

Damaged records are chosen from the seed among complete (single-segment) 115 records, away from
each other and from the file's ends."""

from __future__ import annotations

import os

import numpy as np

from ..framing import DESCRIPTOR_FLAGS, MAX_SEGMENT, RDW, SEG_MIDDLE
from ..headers import TRIPLET_AREA, TRIPLET_COUNT, TRIPLET_OFFSET, TRIPLET_SIZE
from ..layouts import placements


def _read(path: str, offset: int, length: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(offset)
        return fh.read(length)


def _patch(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(data)


def _file_bytes(rec: dict) -> int:
    """Bytes the record occupies in the file, first RDW to the end of its last segment (the
    quarantine's evidence): descriptor words of continuation segments and blocks included, and no
    RDW at all in a NORDW file."""
    last_offset, last_bytes = rec["segments"][-1]
    return last_offset + last_bytes - rec["offset"]


def _logical_to_file(rec: dict, logical: int, framing: str) -> int:
    # Logical offsets count the first RDW; a NORDW record has none.
    return rec["offset"] + logical - (RDW if framing == "nordw" else 0)


def _eyecatcher_position(path: str, rec: dict, framing: str) -> tuple[int, str]:
    """File offset of the first byte of the record's first eyecatcher, and the structure."""
    head = _read(path, rec["offset"] - (RDW if framing == "nordw" else 0), min(rec["length"], 512))
    if framing == "nordw":
        head = bytes(RDW) + head[RDW:]
    for t, lay in sorted(placements()[(115, rec["subtype"])], key=lambda x: x[0]):
        if not lay.eyecatcher:
            continue
        p = TRIPLET_AREA + TRIPLET_SIZE * t
        off = int.from_bytes(head[p + TRIPLET_OFFSET.offset : p + TRIPLET_OFFSET.end], "big")
        count = int.from_bytes(head[p + TRIPLET_COUNT.offset : p + TRIPLET_COUNT.end], "big")
        if count:
            return _logical_to_file(rec, off + lay.eyecatcher_field.offset, framing), lay.name
    raise ValueError(f"record at {rec['offset']} has no structure with an eyecatcher")


def apply_corruptions(
    path: str, framing: str, index: list[dict], kinds: list[str], rng: np.random.Generator
) -> list[dict]:
    if not kinds:
        return []
    if len(set(kinds)) != len(kinds):
        raise ValueError("each corruption kind can be applied once")
    if "badrdw" in kinds and framing == "nordw":
        raise ValueError("badrdw needs RDW or BDW framing (a NORDW file has no RDWs)")
    n = len(index)
    single = [i for i, e in enumerate(index) if e["smf_type"] == 115 and len(e["segments"]) == 1]
    taken: set[int] = set()
    thirds = {"bitflip": (0.05, 0.33), "badrdw": (0.33, 0.66), "truncate": (0.66, 0.95)}
    out = []
    for kind in sorted(kinds, key=lambda x: ("bitflip", "badrdw", "truncate").index(x)):
        lo, hi = thirds[kind]
        cands = [
            i for i in single if lo * n <= i < hi * n and 2 <= i < n - 2 and not any(abs(i - j) <= 2 for j in taken)
        ]
        if kind == "badrdw":
            cands = [i for i in cands if _badrdw_ok(index, i, framing)]
        if not cands:
            cands = [
                i
                for i in single
                if 2 <= i < n - 2
                and not any(abs(i - j) <= 2 for j in taken)
                and (kind != "badrdw" or _badrdw_ok(index, i, framing))
            ]
        if not cands:
            raise ValueError(f"no record suitable for {kind} (the scenario is too small)")
        i = int(cands[int(rng.integers(0, len(cands)))])
        taken.add(i)
        rec = index[i]
        what = {"smf_type": 115, "smf_subtype": rec["subtype"], "qmgr": rec["qmgr"], "interval": rec["k"]}
        if kind == "bitflip":
            pos, structure = _eyecatcher_position(path, rec, framing)
            byte = _read(path, pos, 1)[0]
            _patch(path, pos, bytes([byte ^ 0x01]))
            out.append(
                dict(
                    kind=kind,
                    offset=pos,
                    length=1,
                    record=dict(what, offset=rec["offset"], structure=structure),
                    change=f"byte {pos}: X'{byte:02X}' -> X'{byte ^ 0x01:02X}' (first eyecatcher byte of {structure})",
                    expected_quarantine=[
                        dict(
                            offset=rec["offset"],
                            length=_file_bytes(rec),
                            smf_type=115,
                            smf_subtype=rec["subtype"],
                            reason_contains="eyecatcher",
                        )
                    ],
                    records_lost=[
                        dict(offset=rec["offset"], smf_type=115, smf_subtype=rec["subtype"], instances=rec["instances"])
                    ],
                )
            )
        elif kind == "badrdw":
            seg_off, seg_len = rec["segments"][0]
            if framing == "rdw":
                new_len = seg_len + _bad_length_delta(path, rec, index[i + 1])
                quarantine = [
                    dict(offset=rec["offset"], length=seg_len, smf_type=None, smf_subtype=None, reason_contains="RDW")
                ]
                lost = [rec]
            else:
                block_end = _block_end(path, seg_off)
                new_len = block_end - seg_off + 8  # runs past the end of its block
                quarantine = [
                    dict(
                        offset=seg_off,
                        length=block_end - seg_off,
                        smf_type=None,
                        smf_subtype=None,
                        reason_contains="block",
                    )
                ]
                lost = [e for e in index if seg_off <= e["segments"][0][0] < block_end]
                for seg in (sg for e in lost for sg in e["segments"] if sg[0] >= block_end):
                    quarantine.append(
                        dict(offset=seg[0], length=seg[1], smf_type=None, smf_subtype=None, reason_contains="orphan")
                    )
            _patch(path, seg_off, new_len.to_bytes(2, "big"))
            out.append(
                dict(
                    kind=kind,
                    offset=seg_off,
                    length=2,
                    record=dict(what, offset=rec["offset"]),
                    change=f"RDW length {seg_len} -> {new_len}",
                    expected_quarantine=quarantine,
                    records_lost=_records_lost(lost),
                )
            )
        else:
            seg_off, seg_len = rec["segments"][0]
            cut = seg_off + seg_len // 2
            size = os.path.getsize(path)
            with open(path, "r+b") as fh:
                fh.truncate(cut)
            lost = [e for e in index[i:]]
            out.append(
                dict(
                    kind=kind,
                    offset=cut,
                    length=size - cut,
                    record=dict(what, offset=rec["offset"]),
                    change=f"file cut at byte {cut} (was {size} bytes)",
                    expected_quarantine=[
                        dict(
                            offset=rec["offset"],
                            length=cut - rec["offset"],
                            smf_type=None,
                            smf_subtype=None,
                            reason_contains="truncated",
                        )
                    ],
                    records_lost=_records_lost(lost),
                )
            )
    for c in out:
        c["expected_quarantine_count"] = len(c["expected_quarantine"])
        c["framing"] = framing
    out.sort(key=lambda c: c["record"]["offset"])
    return out


def _badrdw_ok(index: list[dict], i: int, framing: str) -> bool:
    """RDW: the record is followed directly by a complete record (the damaged length ends inside
    it). BDW: any complete record (the rest of its block goes)."""
    if framing == "bdw":
        return True
    if i + 1 >= len(index) or len(index[i + 1]["segments"]) != 1:
        return False
    seg_off, seg_len = index[i]["segments"][0]
    return index[i + 1]["segments"][0][0] == seg_off + seg_len


def _block_end(path: str, offset: int) -> int:
    """End of the VBS block that holds the segment at ``offset`` (walking the BDWs)."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        p = 0
        while p < size:
            fh.seek(p)
            end = p + int.from_bytes(fh.read(2), "big")
            if p < offset < end:
                return end
            p = end
    raise ValueError(f"no block holds offset {offset}")


def _bad_length_delta(path: str, rec: dict, nxt: dict) -> int:
    """How much longer the damaged RDW claims to be: it ends inside the next record, at a place
    that cannot pass for an RDW (so the walk cannot take the wrong length for a good one)."""
    _, seg_len = rec["segments"][0]
    nxt_off, nxt_len = nxt["segments"][0]
    body = _read(path, nxt_off, nxt_len)
    for delta in range(7, min(nxt_len - 8, MAX_SEGMENT - seg_len)):
        p = delta  # position inside the next record where the bad length ends
        flags = p + DESCRIPTOR_FLAGS
        if p + RDW <= len(body) and (body[flags] > SEG_MIDDLE or body[flags + 1] != 0):
            return delta
    raise ValueError("no position for a damaged RDW length")


def _records_lost(entries: list[dict]) -> list[dict]:
    """The manifest's description of records a damage makes unreadable."""
    return [
        dict(offset=e["offset"], smf_type=e["smf_type"], smf_subtype=e["subtype"], instances=e.get("instances", {}))
        for e in entries
    ]
