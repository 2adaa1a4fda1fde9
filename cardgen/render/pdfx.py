"""PDF/X-1a:2003 files of card sides for print services, and how much ink they put down.

A page per card side at trim + bleed (MediaBox = BleedBox, TrimBox inside it), every colour
and image in the CMYK of one output profile (`cardgen.render.cmyk`), no transparency
(`cardgen.render.flatten` has removed it), fonts embedded and subset (as in every cardgen
PDF), the output profile embedded in the PDF/X output intent, GTS_PDFXVersion and
GTS_PDFXConformance, Trapped /False, Title and dates in the document information. Shaped
pieces (tokens, tiles) carry a die line (`DieLine`): their trim outline stroked in a
`CutContour` spot colour, overprinting, that a print-and-cut RIP cuts and does not print
(PDF/X-1a is PDF 1.4: no optional content, so no layer; the spot colour's name is what RIPs
key on).

PDF/X-1a rather than PDF/X-4: DriveThruCards (and most print-on-demand services that share
its printer) ask for PDF/X-1a; every RIP takes it, since it is plain CMYK with nothing left
to interpret, whereas X-4's live transparency and ICC-based colour are still refused or
flattened differently by some. Flattening here, where we can check the result, is safer.
"""
from __future__ import annotations

import bisect
import io
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageChops, ImageMath
from reportlab.pdfbase import pdfdoc

from cardgen.core.digest import plain_digest
from cardgen.core.units import MM
from cardgen.model import ops
from cardgen.render import assemble, docinfo
from cardgen.render.assemble import Assembly
from cardgen.render.cmyk import CmykCanvas, Condition, Separation, spot
from cardgen.render.draw import Drawer, new_canvas, shaped_side, side_chars, svg_entry_ok, text_chars
from cardgen.render.outlines import outline_ops
from cardgen.render.pdfxcache import PdfxCache, Piece, key, side_key
from cardgen.resources.fonts import FontBook

PDFX_VERSION = "PDF/X-1:2003"
PDFX_CONFORMANCE = "PDF/X-1a:2003"
INK_DPI = 72          # ink coverage is measured on areas half a millimetre across (0.35 mm pixels)


class _Drawer(Drawer):
    """The drawer of a print-service file: large black areas in rich black, and for each card
    side it converts, the SVG forms the side asks for and the highest ink among them."""

    def __init__(self, canvas: CmykCanvas, fonts: FontBook, sep: Separation, folder: Path) -> None:
        super().__init__(canvas, fonts)
        self.area_fill = sep.area_fill
        self.sep, self.folder = sep, Path(folder)
        self.asked: list[tuple[str, bool]] = []
        self.asked_peak = 0.0
        self._svg_peaks: dict[str, float] = {}
        # (the separation's cache: the ink preflight's plates draw without the sides' pieces)
        self._kept_svgs = _KeptSvgs(sep.cache, sep) if sep.cache is not None else None

    def _svg_cache(self) -> _KeptSvgs | None:
        return self._kept_svgs

    # -- for `render.assemble.deferred` (set by `DeckPdf.write`) ---------------------------
    made_by: Callable[[ops.CardLayout], str]    # makes a side's form (`DeckPdf._form`)
    reuses: dict[int, str | None]                # each side's reuse key (by id): its piece's key; None: not kept
    pieces: dict[int, Piece | None]              # each side's piece (by id)

    def form_of(self, side: int) -> str:
        """The name of the form made for the side (by id)."""
        return str(self.forms[("card", side, self.image_dpi)][0])

    def card_form(self, layout: ops.CardLayout) -> str:
        hit = self.forms.get(("card", id(layout), self.image_dpi))
        return str(hit[0]) if hit else self.made_by(layout)

    def reuse_key(self, layout: ops.CardLayout, remember: bool = False) -> str | None:
        return self.reuses.get(id(layout))

    def keep(self, layouts: Iterable[ops.CardLayout], reuses: Iterable[str]) -> None:
        """The SVG forms the sides' pieces ask for, made (their entries in the cache used), as
        making the sides' forms would make them."""
        for svg, themed in dict.fromkeys(item for layout in layouts for item in (self.pieces[id(layout)] or
                                                                                 _NO_PIECE).svgs):
            self.vector_form(svg, themed)

    def vector_form(self, path: str | Path, themed: bool = False) -> tuple[str, float, float]:
        new = ("svg", str(path), themed) not in self.forms
        before, self.sep.peak = self.sep.peak, 0.0
        name, w, h = super().vector_form(path, themed)
        if new:
            self._svg_peaks[name] = max(self._svg_peaks.get(name, 0.0), self.sep.peak)
        self.sep.peak = max(before, self.sep.peak)
        self.asked.append((str(path), themed))
        self.asked_peak = max(self.asked_peak, self._svg_peaks.get(name, 0.0))
        return name, w, h

    def side_form(self, side: ops.CardLayout, piece: Piece | None, drawing: ops.CardLayout,
                  pictures: int) -> tuple[str, Piece, bool]:
        """A form for `side`: made from its `piece` (its images as `CmykCanvas.kept` has them), else drawn
        from `drawing` (the side flattened, with `pictures` pictures) and its images converted;
        then the piece that makes it again, and whether it can (not when drawing it used what
        the piece cannot bring: a font `fix_resources` did not fix, a spot colour)."""
        c, sep = self.c, self.sep
        assert isinstance(c, CmykCanvas)
        if piece is not None:
            for svg, themed in piece.svgs:
                self.vector_form(svg, themed)
        else:
            drawing, art = sep.art_in(drawing, self.folder)
            self.asked, self.asked_peak, sep.peak = [], 0.0, 0.0
            self._prepare(drawing)
        name = self._name("card")
        B = side.bleed
        if piece is not None and not piece.images:      # (no drawing state to go through: `add_form`)
            c.add_form(name, side.width + 2 * B, side.height + 2 * B, piece.code, piece.forms, piece.states,
                       later=True)
            return name, piece, True
        c.beginForm(name, 0, 0, side.width + 2 * B, side.height + 2 * B)
        if piece is None:
            c.shown, fonts = [], _font_state(c)
            self.draw_ops(drawing, B, B + side.height)
            made = c.form_contents() if _font_state(c) == fonts else None
            shown = [Path(p) for p in c.shown]
            piece = Piece(*(made or ("", [], [])), list(self.asked), [p.stem for p in shown],
                          max(art, sep.peak, self.asked_peak), pictures)
            # (a side with shaped glyphs, only if what its glyphs stand for is said by its runs:
            # `Drawer._name_glyphs`)
            reusable = made is not None and (not shaped_side(side, self.fonts) or self._name_glyphs(side)) and all(
                p.parent == self.folder and c.kept is not None and c.kept.image(p.stem) is not None for p in shown)
        else:
            for image in piece.images:
                c.register_image(str(self.folder / f"{image}.tif"))
            c.replay(piece.code, piece.forms, piece.states)
            reusable = True
        c.endForm()
        return name, piece, reusable


class _KeptSvgs:
    """The print-service drawer's SVG forms, kept in its cache (`Drawer.vector_form` asks
    `get` and `put`): each form's operators with its colours as this separation converted
    them, and the highest ink it puts down, which a form made from them raises the
    separation's peak to, as drawing it with svglib would.  A one-card edit made every kept
    side's icons again with svglib each time the deck's file was written."""

    def __init__(self, cache: PdfxCache, sep: Separation) -> None:
        self.cache, self.sep = cache, sep

    def _key(self, reuse: str) -> str:
        return key("svg", self.sep.key, self.sep.plate or "", reuse)

    def get(self, reuse: str) -> tuple | None:
        raw = self.cache.get(self._key(reuse))
        if not (isinstance(raw, tuple) and len(raw) == 5 and svg_entry_ok(raw[:4]) and type(raw[4]) is float):
            return None
        self.sep.peak = max(self.sep.peak, raw[4])
        return raw[:4]

    def put(self, reuse: str, value: tuple) -> None:
        self.cache.put(self._key(reuse), (*value, float(self.sep.peak)))


def _font_state(c: CmykCanvas) -> tuple[int, tuple[int, ...]]:
    """How many fonts the document names and characters it codes: drawing a side that changes
    it used a font or character `fix_resources` did not fix (a placeholder's label)."""
    doc = c._doc
    return len(doc.fontMapping), tuple(len(f.state[doc].assignments) for f in doc.delayedFonts
                                       if doc in getattr(f, "state", {}))


_NO_PIECE = Piece("", [], [], [], [], 0.0, 0)
DIE_WIDTH = 0.25        # pt: the die line's stroke (a hairline, as cutting RIPs expect)


@dataclass(frozen=True)
class DieLine:
    """The die line of shaped pieces: each side's trim outline stroked in the spot colour
    `name` (a Separation colour space of its own, shown as 100 % magenta), overprinting, so
    that a RIP lifts it off to its cutter and prints nothing of it.  `sides`: the sides (by
    id) that get one; a back's outline is its own (a path piece's mirrored: the same line
    through the paper)."""

    name: str
    sides: frozenset[int]

    def draw(self, c: CmykCanvas, side: ops.CardLayout) -> None:
        B = side.bleed
        path = outline_ops(side.shape, B / MM, B / MM, side.width / MM, side.height / MM, 0.0,
                           (side.height + 2 * B) / MM, path=side.outline)
        c.saveState()
        c.setStrokeColor(spot(self.name))
        c.setStrokeOverprint(True)
        c.setLineWidth(DIE_WIDTH)
        c._code.append(f"{path} S")
        c.restoreState()


class DeckPdf:
    """A PDF of card sides, a page each at trim + bleed, each distinct side drawn once as a
    form. With a `cache`, a side's form is made from the `Piece` a build before kept for the
    side as this document draws it; the others (`missing`) are converted from their flattened
    layouts and their pieces kept. Either way the same sides give the same bytes."""

    def __init__(self, sides: list[ops.CardLayout], fonts: FontBook, sep: Separation, folder: Path,
                 cache: PdfxCache | None = None, die: DieLine | None = None) -> None:
        self.sides, self.fonts, self.sep, self.folder, self.cache, self.die = sides, fonts, sep, folder, cache, die
        self.chars: dict[str, set[str]] | None = None
        self.converted: set[int] = set()            # (the sides converted: counted once)
        self._start()
        tokens = self.tokens
        self.keys: dict[int, str] = {}
        self.pieces: dict[int, Piece | None] = {}     # (all known after `write`)
        for side in sides:
            if id(side) in self.pieces:
                continue
            self.pieces[id(side)] = None
            if cache is None:
                continue
            used = sorted(side_chars(side, fonts))      # (its fonts)
            key = self.keys[id(side)] = side_key("side", side, sep.key, [tokens[f] for f in used])
            piece = cache.piece(key)
            if piece is not None and cache.has_images(piece) and (
                    not shaped_side(side, fonts) or self.drawer._name_glyphs(side)):
                self.pieces[id(side)] = piece

    def _start(self) -> None:
        """A new document: its canvas, and a drawer with the fonts named for these sides (the
        same names and codes in every build)."""
        self.buf = io.BytesIO()
        self.c = new_canvas(self.buf, self.fonts, canvas=CmykCanvas, enforceColorSpace=self.sep.enforce)
        self.c.kept = self.sep.cache
        self.drawer = _Drawer(self.c, self.fonts, self.sep, self.folder)
        if self.chars is None:      # (after the canvas: it registers the fonts)
            self.chars = text_chars(self.sides, self.fonts)
        self.tokens = self.c.fix_resources(self.chars)

    def missing(self) -> list[ops.CardLayout]:
        """The distinct sides no kept piece makes: to flatten and convert."""
        return [side for side in {id(s): s for s in self.sides}.values() if self.pieces[id(side)] is None]

    def write(self, flat: Mapping[int, tuple[ops.CardLayout, int]], title: str,
              condition: Condition | None = None, assembly: Assembly | None = None) -> bytes:
        """The PDF; `flat`: each missing side (by id) flattened, and how many pictures that made.
        With `condition`, a PDF/X-1a file (boxes, output intent, PDF/X keys).  With an
        `assembly`, the file is taken from the last build's where only card forms changed
        (`render.assemble.deferred`): the missing sides' forms are made first (what their
        pieces ask for is part of the structure), then only those whose reuse key changed;
        else every card form is made before the first page, in the order the pages place them."""
        self.c.setTitle(title)
        self.sep.convert_ahead([flat.get(id(side), (side, 0))[0] for side in self.missing()], self.drawer.folder)
        order, named = assemble.names(self.sides)
        if assembly is not None and self.cache is not None and assemble.kept(assembly):
            early = {id(side) for side in self.missing()}
            for side in self.missing():
                self._form(side, flat)
            self.drawer.made_by = lambda side: self._form(side, flat)
            self.drawer.reuses = {i: self.keys[i] if i not in early or self.drawer.keys[self.drawer.form_of(i)]
                                  else None for i in self.pieces}
            self.drawer.pieces = self.pieces
            try:
                data = assemble.deferred(assembly, self._structure(title, condition, named), self.drawer, order)
            except assemble.Fallback:
                data = None
            if data is not None:
                return data
            for i in early:     # (drawn out of the pages' order: the document again, from its start)
                if self.drawer.reuses[i] is None:
                    self.pieces[i] = None
            self._start()
            self.c.setTitle(title)
        for side in order:
            self._form(side, flat)
        structure = self._structure(title, condition, named) if assembly is not None else None
        return assemble.assembled(assembly, structure, self.drawer, lambda: self._pages(condition), order)

    def _pages(self, condition: Condition | None) -> bytes:
        c = self.c
        for side in self.sides:
            B = side.bleed
            w, h = side.width + 2 * B, side.height + 2 * B
            c.setPageSize((w, h))
            if condition is not None:
                c.setBleedBox((0, 0, w, h))
                c.setTrimBox((B, B, B + side.width, B + side.height))
            c.setFillColor((0.0, 0.0, 0.0))          # the inherited colour: black, in the separation's terms
            c.setStrokeColor((0.0, 0.0, 0.0))
            c.doForm(self.drawer.form_of(id(side)))
            if condition is not None and self.die is not None and id(side) in self.die.sides:
                self.die.draw(c, side)
            c.showPage()
        if condition is not None:
            _pdfx(c, self.sep, condition)
        c.save()
        return self.buf.getvalue()

    def _structure(self, title: str, condition: Condition | None, named: dict[int, str]) -> tuple:
        """What the file's objects but the card forms depend on (`render.assemble`), once every
        side's piece is known: what each form asks for (SVG forms, images, states), in order,
        and each page (its form, its boxes, its die line)."""
        forms = [(named[i], p.svgs, p.images, p.forms, p.states) for i, p in self.pieces.items() if p is not None]
        pages = [(id(side) in self.die.sides if self.die else False, side.width, side.height, side.bleed, side.shape,
                  side.outline, named[id(side)]) for side in self.sides]
        # (the forms and pages by `plain_digest`, as the print sheets': their `repr` was most of the key's cost)
        return ("pdfx", title, condition, self.sep.key, self.die.name if self.die else None, self.tokens,
                plain_digest((forms, pages)) or (forms, pages))

    def _form(self, side: ops.CardLayout, flat: Mapping[int, tuple[ops.CardLayout, int]]) -> str:
        """The form of `side` (made from its kept piece, else drawn from `flat`), its piece
        kept, and its reuse key said to `render.assemble` (None: not kept)."""
        had, cache = self.pieces[id(side)], self.cache
        drawing, pictures = flat.get(id(side), (side, 0))
        name, piece, reusable = self.drawer.side_form(side, had, drawing, pictures)
        self.pieces[id(side)] = piece
        if had is None and cache is not None and id(side) not in self.converted:
            self.converted.add(id(side))
            cache.converted += 1
            if reusable:
                cache.keep_piece(self.keys[id(side)], piece)
        self.drawer.keys[name] = self.keys.get(id(side)) if reusable else None
        self.drawer.forms[("card", id(side), self.drawer.image_dpi)] = (name, side)
        return name


def _pdfx(c: object, sep: Separation, cond: Condition) -> None:
    """The output intent in the catalog, the PDF/X keys in the document information."""
    doc = c._doc                                    # type: ignore[attr-defined]
    profile = pdfdoc.PDFStream(pdfdoc.PDFDictionary({"N": 4, "Filter": pdfdoc.PDFName("FlateDecode")}),
                               sep.deflated_profile(), filters=[])
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
    if not sides:
        return []
    import pypdfium2 as pdfium

    pages = {}
    for plate in ("cmy", "k"):
        data = DeckPdf(sides, fonts, sep.for_plate(plate), folder).write({}, "plate")
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


def unembedded_fonts(data: bytes) -> list[str]:
    """The fonts a PDF (its bytes) uses without embedding them, read back from the file.  A
    PDF/X-1a file must embed every font; the print-service preflight says so if one is not (it
    never should be: cardgen draws only its own fonts, SVG text included).  Every font object
    of a file written as ReportLab writes one (a cross-reference table, no object streams) is
    read straight from its bytes (`_font_objects`); any other file is walked with pypdf, from
    its pages through the forms they draw."""
    found = _font_objects(data)
    return found if found is not None else _unembedded_walked(data)


_XREF_ROW = re.compile(rb"(\d{10}) \d{5} ([nf])")
_REF = rb"\s*(\d+) 0 R"


def _font_objects(data: bytes) -> list[str] | None:
    """`unembedded_fonts` of a file with one cross-reference table and no object streams,
    from each object's dictionary (its bytes up to its stream or `endobj`): every font but a
    Type 3 font (drawn by its own procedures) whose descriptor (a Type 0 font's: its
    descendant's) names no font file.  None for any other file, or a font not found so.  (pypdf
    reading the whole PDF/X back was 7 % of a one-card rebuild of every output.)"""
    at = data.rfind(b"startxref")
    head = re.match(rb"startxref\s+(\d+)", data[at:at + 40]) if at >= 0 else None
    if head is None or b"/ObjStm" in data:
        return None
    start = int(head.group(1))
    table = re.match(rb"xref\s+0 (\d+)\s+", data[start:start + 40])
    if table is None:
        return None
    count = int(table.group(1))
    body = data[start + table.end():start + table.end() + 20 * count]
    rows = _XREF_ROW.findall(body)
    if len(rows) != count:
        return None
    used = {num: int(offset) for num, (offset, kind) in enumerate(rows) if kind == b"n"}
    bounds = sorted([*used.values(), start])
    for num, at in used.items():
        if not data.startswith(b"%d 0 obj" % num, at):
            return None

    def dictionary(at: int) -> bytes:
        """The object's dictionary: its bytes up to its stream or `endobj`."""
        end = bounds[bisect.bisect_right(bounds, at)] if at < start else len(data)     # (where the next one begins)
        ends = [e for e in (data.find(b"stream", at, end), data.find(b"endobj", at, end)) if e >= 0]
        return data[at:min(ends)] if ends else b""

    def ref(obj: bytes, key: bytes) -> bytes | None:
        m = re.search(key + _REF, obj)
        at = used.get(int(m.group(1))) if m else None
        return dictionary(at) if at is not None else None

    missing = set()
    for obj in _fonts(data, set(used.values()), bounds, dictionary):
        kind = re.search(rb"/Subtype\s*/(\w+)", obj)
        if kind is None:
            return None
        if kind.group(1) in (b"Type3", b"CIDFontType0", b"CIDFontType2"):     # (descendants: through their Type 0)
            continue
        font = ref(obj, rb"/DescendantFonts\s*\[") if kind.group(1) == b"Type0" else obj
        if font is None:
            return None
        desc = ref(font, rb"/FontDescriptor")
        if desc is None or not re.search(rb"/FontFile[23]?\b", desc):
            name = re.search(rb"/BaseFont\s*/([^\s/\[\]<>()]+)", obj)
            missing.add(name.group(1).decode("latin-1") if name else "?")
    return sorted(missing)


def _fonts(data: bytes, starts: set[int], bounds: list[int], dictionary: Callable[[int], bytes]) -> list[bytes]:
    """The dictionaries of the objects (beginning at `starts`; `bounds`: those and the
    cross-reference's, sorted) that say /Type /Font, found by one search of the whole file:
    looking into every object's dictionary was a tenth of a 2,000-card edit's build process."""
    fonts: dict[int, bytes] = {}
    for m in re.finditer(rb"/Type\s*/Font\b", data):
        at = bounds[bisect.bisect_right(bounds, m.start()) - 1] if m.start() >= bounds[0] else -1
        if at in starts and at not in fonts:
            obj = dictionary(at)
            if at + len(obj) >= m.end():        # (in its dictionary, not its stream)
                fonts[at] = obj
    return list(fonts.values())


def _unembedded_walked(data: bytes) -> list[str]:
    """`unembedded_fonts` read with pypdf: the fonts on the pages and in the forms they draw,
    however nested."""
    from pypdf import PdfReader
    from pypdf.generic import IndirectObject

    reader = PdfReader(io.BytesIO(data))
    missing: set[str] = set()
    seen: set[int] = set()
    stack = [page.get("/Resources") for page in reader.pages]
    while stack:
        res = stack.pop()
        if isinstance(res, IndirectObject):
            if res.idnum in seen:
                continue
            seen.add(res.idnum)
        res = res.get_object() if res is not None else None
        if not res:
            continue
        for font in _entry(res, "/Font").values():
            font = font.get_object()
            if font.get("/Subtype") == "/Type3":
                stack.append(font.get("/Resources"))
                continue
            desc = _entry(font, "/DescendantFonts")[0].get_object() if "/DescendantFonts" in font else font
            desc = desc.get("/FontDescriptor")
            desc = desc.get_object() if desc is not None else {}
            if not any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                missing.add(str(font.get("/BaseFont", "?")).lstrip("/"))
        for xo in _entry(res, "/XObject").values():
            if isinstance(xo, IndirectObject):
                if xo.idnum in seen:
                    continue
                seen.add(xo.idnum)
            obj = xo.get_object()
            if obj.get("/Subtype") == "/Form":
                stack.append(obj.get("/Resources"))
    return sorted(missing)


def _entry(obj, key: str):
    """`obj[key]` resolved (pypdf 4 leaves an indirect reference there), or {}."""
    value = obj.get(key)
    return value.get_object() if value is not None else {}
