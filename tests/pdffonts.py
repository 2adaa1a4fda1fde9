"""Every font a PDF uses, read back with pypdf: on its pages, in the forms they draw (however
deeply nested), in annotation appearances and Type 3 glyph procedures; shared by the tests
that hold every PDF cardgen writes to embedded fonts."""
from __future__ import annotations

from pathlib import Path

from pdfgeom import pdf_entry
from pypdf import PdfReader
from pypdf.generic import IndirectObject


def pdf_fonts(pdf: Path | str) -> dict[str, bool]:
    """BaseFont name -> whether the font program is embedded (a FontFile, FontFile2 or
    FontFile3 in its descriptor, or its descendant's; a Type 3 font is its own program)."""
    reader = PdfReader(str(pdf))
    fonts: dict[str, bool] = {}
    seen: set[tuple[int, int]] = set()
    stack = []
    for page in reader.pages:
        stack.append(page.get("/Resources"))
        for annot in pdf_entry(page, "/Annots") or []:
            ap = pdf_entry(annot.get_object(), "/AP")
            for stream in ap.values():
                stream = stream.get_object()
                stack.extend([stream.get("/Resources")] if "/Resources" in stream else
                             [s.get_object().get("/Resources") for s in stream.values()])
    while stack:
        res = stack.pop()
        if isinstance(res, IndirectObject):
            if (res.idnum, res.generation) in seen:
                continue
            seen.add((res.idnum, res.generation))
        res = res.get_object() if res is not None else None
        if not res:
            continue
        for font in pdf_entry(res, "/Font").values():
            font = font.get_object()
            name = str(font.get("/BaseFont") or font.get("/Name") or "?")
            if font.get("/Subtype") == "/Type3":
                fonts[name] = True
                stack.append(font.get("/Resources"))
                continue
            desc = pdf_entry(font, "/DescendantFonts")[0].get_object() if "/DescendantFonts" in font else font
            desc = desc.get("/FontDescriptor")
            desc = desc.get_object() if desc is not None else {}
            fonts[name] = any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3"))
        for xo in pdf_entry(res, "/XObject").values():
            if isinstance(xo, IndirectObject):
                if (xo.idnum, xo.generation) in seen:
                    continue
                seen.add((xo.idnum, xo.generation))
            obj = xo.get_object()
            if obj.get("/Subtype") == "/Form":
                stack.append(obj.get("/Resources"))
        for pattern in pdf_entry(res, "/Pattern").values():
            stack.append(pattern.get_object().get("/Resources"))
    return fonts


def unembedded(pdf: Path | str) -> list[str]:
    """The fonts of `pdf` that are not embedded."""
    return sorted(name for name, embedded in pdf_fonts(pdf).items() if not embedded)
