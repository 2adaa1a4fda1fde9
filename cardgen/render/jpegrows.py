"""A JPEG made again from the last one's bytes where only some of its rows changed.

Every JPEG a deck sheet is (`render.mosaic.encode`) has a restart marker after each row of
8 x 8 blocks: the decoder's running DC values are reset there, and the coder's bits are padded
out to a byte.  So the bytes between two markers (a row's *segment*) depend on that row's
pixels, the quality and the image's width only, and an image whose pixels changed in rows
`first` to `last` is the last image's header and segments with those rows' segments encoded
anew: `splice` gives the bytes a whole encode gives (tests/test_jpegrows.py compares them).
Encoding only the rows a one-card edit changed is about a seventh of a 10 x 7 sheet's JPEG.
The markers add two bytes a row (about 1,000 for a 4,096-pixel-high sheet); the pixels are
the same as without them.
"""
from __future__ import annotations

import re

ROW = 8                              # pixels in a row of blocks (no chroma subsampling: 8 x 8)
_RST = re.compile(rb"\xff[\xd0-\xd7]")
_SOF0 = 0xC0
_SOS = 0xDA


def parts(data: bytes | memoryview) -> tuple[bytes, list[bytes], int] | None:
    """(header up to the scan data, each row's segment, the header's offset of the image
    height) of a baseline JPEG written with a marker after every row; None for another."""
    data = bytes(data)
    if data[:2] != b"\xff\xd8" or data[-2:] != b"\xff\xd9":
        return None
    at, height_at = 2, -1
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        size = int.from_bytes(data[at + 2:at + 4], "big")
        if marker == _SOF0:
            height_at = at + 5
        at += 2 + size
        if marker == _SOS:
            break
    else:
        return None
    if height_at < 0:
        return None
    scan = data[at:-2]
    segments, start = [], 0
    for m in _RST.finditer(scan):
        segments.append(scan[start:m.start()])
        start = m.end()
    segments.append(scan[start:])
    height = int.from_bytes(data[height_at:height_at + 2], "big")
    if len(segments) != -(-height // ROW):
        return None
    return data[:at], segments, height_at


def splice(old: bytes | memoryview, first: int, band: bytes) -> bytes | None:
    """The image `old` with its rows of blocks from `first` on replaced by those of `band`
    (the same width, quality and settings, encoded alone: its rows are `first`, `first + 1`,
    ...); None if either is not of the form `parts` reads, or their headers differ in more
    than the height."""
    was, new = parts(old), parts(band)
    if was is None or new is None:
        return None
    head, rows, h_at = was
    bhead, brows, bh_at = new
    if first + len(brows) > len(rows) or len(head) != len(bhead) or h_at != bh_at \
            or head[:h_at] + head[h_at + 2:] != bhead[:bh_at] + bhead[bh_at + 2:]:
        return None
    if first + len(brows) < len(rows) and int.from_bytes(bhead[bh_at:bh_at + 2], "big") % ROW:
        return None              # (a band that is not the image's bottom is whole rows)
    rows = rows[:first] + brows + rows[first + len(brows):]
    out = [head]
    for k, seg in enumerate(rows):
        out.append(seg)
        if k + 1 < len(rows):
            out.append(bytes((0xFF, 0xD0 + k % 8)))
    out.append(b"\xff\xd9")
    return b"".join(out)
