"""PDFs assembled from kept bytes: a one-card edit writes one card's objects and the
cross-reference, and takes every other object's bytes from the file the last build wrote.

The print sheets and cards.pdf are made by ReportLab (`render.pdf`).  In such a file every
object but the card forms depends only on what the document shows *around* its cards: the
pages' plan, the forms' names and sizes, how the document names and codes its fonts
(`CardCanvas.fix_resources`), the fonts' files, the images and SVG forms the cards use, the
options, the title and cardgen's code.  The form of a card side depends on its drawing (its
reuse key in the form cache: `Drawer.keys`).  So when the *structure key* (a digest of the
former, worked out by the output and the sheet writer before any page is drawn) is the one
the last build recorded, the new file is the last one with the card forms whose reuse key
changed formatted again, in the same object numbers: the same bytes a clean build makes
(tests/test_pdf_bytes.py compares them), without drawing a page or formatting the rest.

What is kept, per output folder (`<output>/.cache/pdfs.bin`, sealed as every cache file):
for each structure key, the SHA-256 of the file it describes, where each object begins, where
the cross-reference begins and the reuse key of each card form by object number.  The bytes
are read from the file itself, in the output folder, and used only if they have that SHA-256.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from cardgen.core.cachefile import CacheFile


class PdfCache(CacheFile):
    """What the last build wrote of each assembled PDF, by structure key (module docstring)."""

    NAME = "pdfs.bin"

    @classmethod
    def of(cls, folder: Path) -> PdfCache:
        from cardgen.render.formcache import _open  # (saved with the form caches: `save_all`)

        return cls.open_in(folder, _open)


def _objects(doc: Any) -> list[int]:
    """Where each object of a document ReportLab has just written begins, by object number."""
    return [doc.idToOffset[doc.numberToId[n]] for n in range(1, len(doc.numberToId) + 1)]


def _form_numbers(doc: Any, keys: dict[str, str | None]) -> dict[int, str] | None:
    """Object number -> reuse key of each card form `keys` names (form name -> reuse key);
    None if a form has none (it is not kept: the file cannot be assembled)."""
    from reportlab.pdfbase.pdfdoc import xObjectName

    out = {}
    for name, key in keys.items():
        if key is None:
            return None
        out[doc.idToObjectNumberAndVersion[xObjectName(name)][0]] = key
    return out


def _startxref(data: bytes) -> int:
    at = data.rindex(b"startxref\n") + len(b"startxref\n")
    return int(data[at:data.index(b"\n", at)])


def record(cache: PdfCache, key: str, data: bytes, doc: Any, keys: dict[str, str | None],
           offsets: list[int] | None = None) -> None:
    """Keep what `splice` needs of `data`, the PDF of `doc` with the card forms `keys`."""
    forms = _form_numbers(doc, keys)
    if forms is None:
        return
    cache.put(key, (hashlib.sha256(data).hexdigest(), offsets if offsets is not None else _objects(doc),
                    _startxref(data), sorted(forms.items())))


def splice(cache: PdfCache, key: str, previous: Path, doc: Any, keys: dict[str, str | None]) -> bytes | None:
    """The PDF of `doc` (its card forms made: `keys`, form name -> reuse key; no page drawn),
    from the file `previous` the last build wrote with the same structure `key`: its objects,
    but for the card forms whose reuse key changed, formatted now; then the cross-reference.
    None if there is no such file (or it changed since: its SHA-256 is checked)."""
    from reportlab.pdfbase.pdfdoc import PDFIndirectObject

    from cardgen.render.rlcompat import WRITTEN, _without_a85

    kept = cache.get(key)
    forms = _form_numbers(doc, keys) if kept is not None else None
    if kept is None or forms is None:
        return None
    sha, offsets, xref, old_forms = kept
    if dict(old_forms).keys() != forms.keys():
        return None
    try:
        old = previous.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(old).hexdigest() != sha:
        return None
    changed = {num for num, reuse in old_forms if forms[num] != reuse}
    bounds = [*offsets, xref]
    parts, starts, at = [old[:offsets[0]]], [], offsets[0]
    made = 0
    for num in range(1, len(offsets) + 1):
        start, end = bounds[num - 1], bounds[num]
        if num in changed:          # the object, then what the old file had after it (nothing: invariant)
            finish = old.index(b"endobj\n", start) + len(b"endobj\n")
            oid = doc.numberToId[num]
            with _without_a85():
                chunk = PDFIndirectObject(oid, doc.idToObject[oid]).format(doc) + old[finish:end]
            made += len(chunk)
        else:
            chunk = old[start:end]
        starts.append(at)
        parts.append(chunk)
        at += len(chunk)
    table = b"".join([b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1),
                      *(b"%010d 00000 n \n" % s for s in starts)])
    trailer = old[old.index(b"trailer\n", xref):old.rindex(b"startxref\n")]
    tail = table + trailer + b"startxref\n%d\n%%%%EOF\n" % at
    data = b"".join(parts) + tail
    WRITTEN[0] += len(data) - made - len(tail)
    WRITTEN[1] += made + len(tail)
    cache.put(key, (hashlib.sha256(data).hexdigest(), starts, at, sorted(forms.items())))
    return data


# (the cache, what the file depends on besides the structure its writer knows (the output's
# options, fonts, code version), and the file the last build wrote)
Assembly = tuple[PdfCache, str, Path]


def _file(path: str, files: dict[str, str | None]) -> str | None:
    """The file's SHA-256 (`files`: those worked out for this document)."""
    if path not in files:
        from cardgen.core.digest import file_digest

        try:
            files[path] = file_digest(Path(path))
        except OSError:
            files[path] = None
    return files[path]


def side(drawer: Any, layout: Any, files: dict[str, str | None]) -> tuple | None:
    """What the objects of a document around a card side's form depend on: the form's name
    (None: not in the document), the side's size and outline, the SVGs and images it shows (by
    content, at the drawer's resolution; `files`: the files' digests worked out so far).  The
    part that does not depend on the document is worked out once a process for the side (the
    papers' sheets and cards.pdf show the same sides)."""
    if layout is None:
        return None
    made = drawer.forms.get(("card", id(layout), drawer.image_dpi))
    dpi = drawer._dpi()
    own = layout.__dict__.get("_assembly")
    if own is None or own[0] != dpi:
        from cardgen.model import ops

        need = ops.needs(layout)
        shows = ([(p, themed, _file(p, files)) for p, themed in need.svgs],
                 [(p, _file(p, files)) for p in need.rasters], need.boxes) if need.svgs or need.rasters else ()
        own = layout.__dict__["_assembly"] = (dpi, (layout.width, layout.height, layout.bleed, layout.shape,
                                                    layout.outline, shows, dpi if need.rasters else 0))
    return made[0] if made else None, own[1]


def assembled(assembly: Assembly | None, structure: Any, drawer: Any, write: Any) -> bytes:
    """The PDF of `drawer`'s document: `splice`d from the last build's file when its structure
    was the same (every card form made, no page drawn), else `write()` (ReportLab: draw the
    pages and write every object), kept for the next build."""
    if assembly is None:
        return bytes(write())
    from cardgen.core.digest import digest

    cache, base, previous = assembly
    key = digest(base, structure, drawer._tokens)
    doc = drawer.c._doc
    data = splice(cache, key, previous, doc, drawer.keys)
    if data is None:
        data = write()
        record(cache, key, data, doc, drawer.keys)
    return bytes(data)
