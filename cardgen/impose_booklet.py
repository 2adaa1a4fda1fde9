"""Saddle-stitch imposition: a booklet's pages, 2-up on landscape sheets, in the order
that reads right after duplex printing (flip on the short edge), folding and stapling.

`saddle_order(n)` is the pure page arithmetic; `impose(pdf, paper)` places the pages
with pypdf, scaling a page down (and centring it) when it is larger than half a sheet.
"""
from __future__ import annotations

import io

from pypdf import PageObject, PdfReader, PdfWriter, Transformation

from cardgen.sizes import PAPER_SIZES_MM
from cardgen.units import MM


def padded(n: int) -> int:
    """Pages after padding to a multiple of 4 (at least 4)."""
    return max(4, 4 * -(-n // 4))


def saddle_order(n: int) -> list[tuple[int, int]]:
    """Sides in print order as (left page, right page), 1-based; pages above n are blank.

    Sheet s (0-based) front: (N4-2s, 2s+1); back: (2s+2, N4-2s-1)."""
    n4 = padded(n)
    sides = []
    for s in range(n4 // 4):
        sides.append((n4 - 2 * s, 2 * s + 1))
        sides.append((2 * s + 2, n4 - 2 * s - 1))
    return sides


def placement(page_w: float, page_h: float, half_w: float, half_h: float) -> tuple[float, float, float]:
    """(scale, dx, dy): a page scaled to fit (never enlarged) and centred in a half sheet (points)."""
    scale = min(1.0, half_w / page_w, half_h / page_h)
    return scale, (half_w - page_w * scale) / 2, (half_h - page_h * scale) / 2


def impose(pdf: bytes, paper: str, title: str = "") -> bytes:
    """The booklet `pdf` imposed on landscape `paper` sheets (letter or a4), front and back."""
    reader = PdfReader(io.BytesIO(pdf))
    pages = list(reader.pages)
    pw_mm, ph_mm = PAPER_SIZES_MM[paper]
    sheet_w, sheet_h = ph_mm * MM, pw_mm * MM          # landscape
    half_w = sheet_w / 2
    writer = PdfWriter()
    for left, right in saddle_order(len(pages)):
        side = PageObject.create_blank_page(width=sheet_w, height=sheet_h)
        for num, x0 in ((left, 0.0), (right, half_w)):
            if num > len(pages):
                continue
            src = pages[num - 1]
            w, h = float(src.mediabox.width), float(src.mediabox.height)
            scale, dx, dy = placement(w, h, half_w, sheet_h)
            t = Transformation().translate(-float(src.mediabox.left), -float(src.mediabox.bottom)) \
                .scale(scale, scale).translate(x0 + dx, dy)
            side.merge_transformed_page(src, t)
        writer.add_page(side)
    writer.add_metadata({"/Producer": "cardgen", "/Creator": "cardgen",
                         "/Title": f"{title}: rules booklet ({paper}, duplex, flip on short edge)"})
    writer.compress_identical_objects()
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()

