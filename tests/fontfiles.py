"""Font files for tests: a TrueType font with some tables changed, its checksums made right
again (so that the damage is in what the tables say, not in a flipped bit)."""
from __future__ import annotations

import struct
from pathlib import Path

from cardgen.core.data import DATA

LATO = DATA / "fonts" / "Lato-Regular.ttf"


def tables(data: bytes) -> dict[bytes, bytes]:
    count = struct.unpack_from(">H", data, 4)[0]
    out = {}
    for i in range(count):
        tag, _, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        out[tag] = data[offset:offset + length]
    return out


def _checksum(chunk: bytes) -> int:
    chunk += bytes(-len(chunk) % 4)
    return sum(struct.unpack(f">{len(chunk) // 4}I", chunk)) & 0xFFFFFFFF


def build(parts: dict[bytes, bytes]) -> bytes:
    """A font file of these tables, checksums and `head.checkSumAdjustment` right."""
    tags = sorted(parts)
    head = struct.pack(">IHHHH", 0x00010000, len(tags), 0, 0, 0)
    offset = 12 + 16 * len(tags)
    directory, body = b"", b""
    for tag in tags:
        chunk = parts[tag]
        if tag == b"head":
            chunk = chunk[:8] + bytes(4) + chunk[12:]
        directory += struct.pack(">4sIII", tag, _checksum(chunk), offset + len(body), len(chunk))
        body += chunk + bytes(-len(chunk) % 4)
    data = bytearray(head + directory + body)
    if b"head" in parts:
        where = data.find(parts[b"head"][:8], 12 + 16 * len(tags))
        struct.pack_into(">I", data, where + 8, (0xB1B0AFBA - _checksum(bytes(data))) & 0xFFFFFFFF)
    return bytes(data)


def changed(path: Path, **edits) -> Path:
    """Lato Regular with tables replaced: `edits` maps a table tag to a function of its bytes."""
    parts = tables(LATO.read_bytes())
    for tag, edit in edits.items():
        key = tag.encode().ljust(4)
        parts[key] = edit(parts[key])
    path.write_bytes(build(parts))
    return path


def no_glyphs(maxp: bytes) -> bytes:
    return maxp[:4] + struct.pack(">H", 0) + maxp[6:]


def blank_glyf(glyf: bytes) -> bytes:
    """Every glyph's outline zeroed (the file still parses and checksums match)."""
    return bytes(len(glyf))
