"""PDF/X-1a:2003 files of card sides for print services, and how much ink they put down.

A page per card side at trim + bleed (MediaBox = BleedBox, TrimBox inside it), every colour
and image in the CMYK of one output profile (`cardgen.render.cmyk`), no transparency
(`cardgen.render.flatten` has removed it), fonts embedded and subset (as in every cardgen
PDF), the output profile embedded in the PDF/X output intent, GTS_PDFXVersion and
GTS_PDFXConformance, Trapped /False, Title and dates in the document information.

PDF/X-1a rather than PDF/X-4: DriveThruCards (and most print-on-demand services that share
its printer) ask for PDF/X-1a; every RIP takes it, since it is plain CMYK with nothing left
to interpret, whereas X-4's live transparency and ICC-based colour are still refused or
flattened differently by some. Flattening here, where we can check the result, is safer.
"""
from __future__ import annotations

import io
import zlib
from pathlib import Path

from PIL import ImageChops, ImageMath
from reportlab.pdfbase import pdfdoc

from cardgen.model import ops
from cardgen.render import docinfo
from cardgen.render.cmyk import CmykCanvas, Condition, Separation
from cardgen.render.draw import Drawer, new_canvas
from cardgen.resources.fonts import FontBook

PDFX_VERSION = "PDF/X-1:2003"
PDFX_CONFORMANCE = "PDF/X-1a:2003"
INK_DPI = 72          # ink coverage is measured on areas half a millimetre across (0.35 mm pixels)


def draw_sides(sides: list[ops.CardLayout], fonts: FontBook, sep: Separation, folder: Path, title: str,
               condition: Condition | None = None) -> bytes:
    """One page per layout (trim + bleed, the layout drawn once as a form however often it
    appears); with `condition`, a PDF/X-1a file (boxes, output intent, PDF/X keys)."""
    buf = io.BytesIO()
    c = new_canvas(buf, fonts, canvas=CmykCanvas, enforceColorSpace=sep.enforce)
    c.setTitle(title)
    drawer = Drawer(c, fonts)
    drawer.area_fill = sep.area_fill
    converted: dict[int, ops.CardLayout] = {}
    for layout in sides:
        lay = converted.get(id(layout))
        if lay is None:
            lay = converted[id(layout)] = sep.art_in(layout, folder)[0]
        B = lay.bleed
        w, h = lay.width + 2 * B, lay.height + 2 * B
        c.setPageSize((w, h))
        if condition is not None:
            c.setBleedBox((0, 0, w, h))
            c.setTrimBox((B, B, B + lay.width, B + lay.height))
        c.setFillColor((0.0, 0.0, 0.0))          # the inherited colour: black, in the separation's terms
        c.setStrokeColor((0.0, 0.0, 0.0))
        c.doForm(drawer.card_form(lay))
        c.showPage()
    if condition is not None:
        _pdfx(c, sep, condition)
    c.save()
    return buf.getvalue()


def _pdfx(c: object, sep: Separation, cond: Condition) -> None:
    """The output intent in the catalog, the PDF/X keys in the document information."""
    doc = c._doc                                    # type: ignore[attr-defined]
    profile = pdfdoc.PDFStream(pdfdoc.PDFDictionary({"N": 4, "Filter": pdfdoc.PDFName("FlateDecode")}),
                               zlib.compress(sep.icc, 9), filters=[])
    intent = pdfdoc.PDFDictionary({
        "Type": pdfdoc.PDFName("OutputIntent"),
        "S": pdfdoc.PDFName("GTS_PDFX"),
        "OutputConditionIdentifier": pdfdoc.PDFString(cond.identifier),
        "RegistryName": pdfdoc.PDFString(cond.registry),
        "OutputCondition": pdfdoc.PDFString(cond.condition),
        "Info": pdfdoc.PDFString(cond.info),
        "DestOutputProfile": doc.Reference(profile),
    })
    cat = doc.Catalog
    # ReportLab's catalog writes the keys its class lists; this one lists one more.
    cat.__NoDefault__ = [*type(cat).__NoDefault__, "OutputIntents"]
    cat.OutputIntents = pdfdoc.PDFArray([intent])
    docinfo.extend(c, GTS_PDFXVersion=PDFX_VERSION, GTS_PDFXConformance=PDFX_CONFORMANCE)


def ink_peaks(sides: list[ops.CardLayout], fonts: FontBook, sep: Separation, folder: Path,
              dpi: float = INK_DPI) -> list[float]:
    """The highest total ink (C+M+Y+K, percent) anywhere on each side, as printed: each
    side drawn with the inks as brightness (`Separation.for_plate`) and rasterized."""
    import pypdfium2 as pdfium

    pages = {}
    for plate in ("cmy", "k"):
        data = draw_sides(sides, fonts, sep.for_plate(plate), folder, "plate")
        pages[plate] = pdfium.PdfDocument(data)
    out = []
    try:
        for i in range(len(sides)):
            shots = []
            for plate in ("cmy", "k"):
                page = pages[plate][i]
                bitmap = page.render(scale=dpi / 72)
                shots.append(bitmap.to_pil().convert("RGB"))
                bitmap.close()
                page.close()
            cmy, k = (ImageChops.invert(s) for s in shots)
            total = ImageMath.lambda_eval(lambda a: a["c"] + a["m"] + a["y"] + a["k"],
                                          c=cmy.getchannel(0), m=cmy.getchannel(1), y=cmy.getchannel(2),
                                          k=k.getchannel(0))
            out.append(float(total.getextrema()[1]) / 255 * 100)
    finally:
        for doc in pages.values():
            doc.close()
    return out
