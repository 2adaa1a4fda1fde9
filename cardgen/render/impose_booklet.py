"""Saddle-stitch imposition: a booklet's pages, 2-up on landscape sheets, in the order
that reads right after duplex printing (flip on the short edge), folding and stapling.

`saddle_order(n)` is the pure page arithmetic; `impose(pdf, paper)` places the pages
with pypdf, each page once as a form, scaling a page down (and centring it) when it is larger than half a sheet.
A page with a bleed is placed by its TrimBox and clipped to it: the trimmed page fills its half,
and what runs into the bleed (a cover band) stops at the fold instead of spilling onto the other page.
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING

from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM
from cardgen.core.words import ENGLISH, Words
from cardgen.render import docinfo

if TYPE_CHECKING:   # (pypdf is imported by what imposes: the booklet's page count needs only `padded`)
    from pypdf import PageObject, PdfWriter
    from pypdf.generic import IndirectObject, PdfObject


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


def _page_form(writer: PdfWriter, page: PageObject) -> IndirectObject:
    """The page as a Form XObject in `writer`: its content stream as is, its resources cloned.
    Placing a form costs nothing, where transforming a page means parsing its whole content."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, FloatObject, NameObject

    contents = page.get("/Contents")
    contents = contents.get_object() if contents is not None else None
    if contents is None:
        data = b""
    elif isinstance(contents, ArrayObject):
        data = b"\n".join(part.get_object().get_data() for part in contents)
    else:
        data = contents.get_data()
    box = page.trimbox        # the MediaBox when the page has no TrimBox
    form = DecodedStreamObject()
    form.set_data(data)
    form.update({
        NameObject("/Type"): NameObject("/XObject"),
        NameObject("/Subtype"): NameObject("/Form"),
        NameObject("/BBox"): ArrayObject([FloatObject(float(v)) for v in (box.left, box.bottom, box.right, box.top)]),
        NameObject("/Resources"): _resources(page).clone(writer),
    })
    return writer._add_object(form.flate_encode())


def _resources(page: PageObject) -> PdfObject:
    resources = page["/Resources"].get_object()
    if resources is None:
        raise ValueError("booklet page without a resource dictionary")
    return resources


def impose(pdf: bytes, paper: str, title: str = "", words: Words = ENGLISH) -> bytes:
    """The booklet `pdf` imposed on landscape `paper` sheets (letter or a4), front and back."""
    from pypdf import PageObject, PdfReader
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    reader = PdfReader(io.BytesIO(pdf))
    pages = list(reader.pages)
    pw_mm, ph_mm = PAPER_SIZES_MM[paper]
    sheet_w, sheet_h = ph_mm * MM, pw_mm * MM          # landscape
    half_w = sheet_w / 2
    writer = docinfo.pypdf_writer()
    forms = {}
    for left, right in saddle_order(len(pages)):
        side = PageObject.create_blank_page(width=sheet_w, height=sheet_h)
        xobjects = DictionaryObject()
        ops = []
        for num, x0 in ((left, 0.0), (right, half_w)):
            if num > len(pages):
                continue
            src = pages[num - 1]
            if num not in forms:
                forms[num] = _page_form(writer, src)
            trim = src.trimbox
            w, h = float(trim.width), float(trim.height)
            scale, dx, dy = placement(w, h, half_w, sheet_h)
            name = f"/Page{num}"
            xobjects[NameObject(name)] = forms[num]
            tx = x0 + dx - float(trim.left) * scale
            ty = dy - float(trim.bottom) * scale
            ops.append(f"q {scale:.6f} 0 0 {scale:.6f} {tx:.4f} {ty:.4f} cm {name} Do Q")
        content = DecodedStreamObject()
        content.set_data("\n".join(ops).encode("ascii"))
        side[NameObject("/Resources")] = DictionaryObject({NameObject("/XObject"): xobjects})
        side[NameObject("/Contents")] = writer._add_object(content.flate_encode())
        writer.add_page(side)
    writer.add_metadata(docinfo.pypdf_metadata(f"{title}: "
                                               + words("rules booklet ({paper}, duplex, flip on short edge)",
                                                       paper=paper)))
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
