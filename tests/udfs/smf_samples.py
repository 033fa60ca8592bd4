"""Test helpers: where the shared samples are, and re-framing of an RDW dump as BDW or NORDW."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqsmf.framing import frame

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "testdata"
SAMPLES = SHARED / "smf"
EXPECTED = SHARED / "expected"


def sample(name: str) -> Path:
    path = SAMPLES / f"{name}.dat"
    if not path.exists():
        pytest.skip(f"shared sample {path} not present")
    return path


def expected_rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (EXPECTED / f"{name}.jsonl").read_text().splitlines()]


def rdw_segments(data: bytes) -> list[bytes]:
    """The RDW segments of a well-formed RDW dump, in order."""
    out, p = [], 0
    while p < len(data):
        length = int.from_bytes(data[p : p + 2], "big")
        out.append(data[p : p + length])
        p += length
    return out


def to_bdw(data: bytes, block_size: int = 27998) -> bytes:
    """Pack RDW segments into VBS blocks (each block: BDW + whole segments)."""
    blocks, cur = [], []
    for seg in rdw_segments(data):
        if cur and 4 + sum(map(len, cur)) + len(seg) > block_size:
            blocks.append(cur)
            cur = []
        cur.append(seg)
    if cur:
        blocks.append(cur)
    out = bytearray()
    for blk in blocks:
        body = b"".join(blk)
        out += (len(body) + 4).to_bytes(2, "big") + b"\0\0" + body
    return bytes(out)


def to_nordw(data: bytes) -> bytes:
    """Logical records (spanned segments joined) with no descriptor words."""
    fr = frame(data, "rdw")
    out = bytearray()
    for i, (off, length) in enumerate(zip(fr.offsets, fr.lengths, strict=True)):
        rec = fr.spanned.get(i) or data[off : off + length]
        out += rec[4:]
    return bytes(out)
