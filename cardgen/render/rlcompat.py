"""The ReportLab canvas cardgen draws on: two fixes, made without changing any ReportLab global.

1. Form XObjects drop their ExtGState resources, so transparency inside a form (a card
   drawn once and placed many times) would point at undefined graphics states. The canvas
   records the states on the form (`form.ExtGState`) but `PDFFormXObject.format` leaves
   them out of the form's resource dictionary; `CardCanvas.endForm` gives such a form a
   resource dictionary that has them (the same one ReportLab would build, plus ExtGState).
3. (below) `drawInlineImage` draws an image XObject: see its docstring.
4. (below) Reusable form contents: `fix_resources` names fonts and font codes the same way in
   every document that draws the same cards, so a card form's operators (`form_contents`,
   with the transparency states it named: ReportLab names those afresh in each form) drawn
   in one document are valid in another (`replay`).
5. (below) Card forms are written straight to bytes (`_Form.format`): ReportLab builds and
   formats a dictionary object tree for each of them, most of the time of saving a sheet
   PDF of a few hundred cards.  The bytes are exactly ReportLab's (tests compare them).  A
   form's compressed stream is kept with its entry in the form cache (`kept_stream`) and
   taken as it is by the next build (`add_form(kept=...)`); `WRITTEN` counts the bytes taken
   as kept and the bytes made (`render.assemble` takes whole files from the last build).
2. ASCII85 on binary streams makes PDFs ~25 % larger for nothing. ReportLab only has the
   process-wide `rl_config.useA85` switch for this (no canvas or document argument), and
   reads it when an image is loaded (`drawImage`) and when streams are written
   (`save`/`getpdfdata`). `CardCanvas` turns it off for the length of those calls only and
   puts the previous value back, so nothing outside a cardgen canvas sees a change.
"""
from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas

from cardgen.core.memo import Bounded
from cardgen.resources.fonts import data_sha256

__all__ = ["CardCanvas"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def _without_a85() -> Iterator[None]:
    """`rl_config.useA85` off for the duration of the block, then back as it was."""
    before = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = before


def _no_a85(method: Callable[_P, _R]) -> Callable[_P, _R]:
    @wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _without_a85():
            return method(*args, **kwargs)

    return wrapper


def _form_resources(form: Any, extgstate: bool = True) -> Any:
    """The resource dictionary `PDFFormXObject.format` builds, plus the form's ExtGState."""
    resources = pdfdoc.PDFResourceDictionary()
    resources.basicFonts()
    if form.hasImages:
        resources.allProcs()
    else:
        resources.basicProcs()
    if form.XObjects:
        resources.XObject = form.XObjects
    if extgstate and getattr(form, "ExtGState", None):
        resources.ExtGState = form.ExtGState
    return resources


def _numbers(values: Iterable[float]) -> str:
    """Numbers for a content stream, to 1/10000 pt (ReportLab's `fp_str`, quicker)."""
    out = []
    for v in values:
        text = f"{v:.4f}".rstrip("0").rstrip(".")
        out.append("0" if text in ("", "-0") else text)
    return " ".join(out)


def squeezed(code: str) -> bytes:
    """A card form's operators as its cache entry keeps them when the entry also keeps the
    form's compressed stream (then they are asked for only where that stream cannot be taken
    as it is): compressed, about a quarter of their size (10,000 cards held 16 MB of them)."""
    return zlib.compress(code.encode("utf-8", "surrogatepass"), 1)


def operators(code: str | bytes) -> str:
    """An entry's operators, as `squeezed` kept them or as they were."""
    return code if isinstance(code, str) else zlib.decompress(code).decode("utf-8", "surrogatepass")


class _Form(pdfdoc.PDFFormXObject):
    """A form XObject written as ReportLab writes it, without building its dictionaries: the
    resource dictionary of forms that use the same forms and images is formatted once per
    document, and the same stream compressed once per process (the print sheets of both
    papers, cards.pdf and the fold-over sheets hold the same card forms)."""

    # The stream is kept compressed from when the form is made (`pack`): a document holds
    # every card form of its sheets until it is written (uncompressed, about 2.5 KB a card
    # side more: measured at 2,000 cards, both papers, 131 MB before and 126 MB after);
    # `stream` gives it back uncompressed to whoever asks (ReportLab's own `format`).

    @property
    def stream(self) -> bytes:
        self._settle()
        packed = self.__dict__.get("_packed")
        return zlib.decompress(packed) if packed is not None else self.__dict__.get("_stream", b"")

    @stream.setter
    def stream(self, data: bytes) -> None:
        self.__dict__.pop("_later", None)
        self.__dict__.pop("_packed", None)
        self.__dict__["_stream"] = data
        self.pack()

    def later(self, parts: list[str]) -> None:
        """The stream `setStreamList(parts)` sets, set (encoded, compressed) only when the
        form is written or its stream is asked for: the forms of a PDF assembled from the last
        one's bytes are not written (`render.assemble`), and their operators are held anyway
        by the cache they come from (`pdfxcache.Piece`)."""
        self.__dict__.pop("_packed", None)
        self.__dict__.pop("_stream", None)
        self.__dict__["_later"] = parts

    def _settle(self) -> None:
        parts = self.__dict__.pop("_later", None)
        if parts is not None:
            self.setStreamList(parts)

    def pack(self) -> None:
        """Keep the stream compressed, as the document will write it (when it compresses; a
        `CardCanvas` writes without ASCII85 whatever `rl_config.useA85` says now)."""
        data = self.__dict__.pop("stream", None)            # (set before the class was _Form's)
        if data is not None:
            self.__dict__["_stream"] = data
        if self.__dict__.get("compression") and self.__dict__.get("_stream"):
            self.__dict__["_packed"] = _compressed(self.__dict__.pop("_stream"))

    def format(self, document: Any) -> bytes:
        self._settle()
        packed = self.__dict__.get("_packed")
        plain = (not self.Contents and not self.Annots and not self.BBox and not self.Matrix
                 and (packed is not None or (self.stream and self.compression)) and not rl_config.useA85
                 and isinstance(document.encrypt, pdfdoc.NoEncryption))
        if not plain:
            return super().format(document)
        memo = document.__dict__.setdefault("_cardgen_resources", {})
        if self.Resources:
            resources = pdfdoc.format(self.Resources, document)
        else:
            xobjects = self.XObjects.dict if self.XObjects else {}
            key = (bool(self.hasImages), tuple((k, v.name) for k, v in xobjects.items()))
            resources = memo.get(key)
            if resources is None:
                resources = memo[key] = pdfdoc.format(_form_resources(self, extgstate=False), document)
        data = packed if packed is not None else _compressed(self.stream)
        if self.__dict__.get("_kept"):          # (bytes taken from the form cache, not made: `CardCanvas.written`)
            document.__dict__["_cardgen_kept"] = document.__dict__.get("_cardgen_kept", 0) + len(data)
        box = pdfdoc.format(pdfdoc.PDFArray([self.lowerx, self.lowery, self.upperx, self.uppery]), document)
        return (b"<<\n/BBox " + box + b" /Filter [ /FlateDecode ] /FormType 1 /Length "
                + str(len(data)).encode() + b" /Matrix [ 1 0 0 1 0 0 ] /Resources " + resources
                + b" \n  /Subtype /Form /Type /XObject\n>>\nstream\n" + data + b"endstream\n")


# bytes of the PDFs this process wrote: [taken as they were kept, made (formatted, compressed) here]:
# kept card form streams (`CardCanvas.getpdfdata`), a last build's file (`render.assemble.deferred`)
WRITTEN = [0, 0]
_zipped: Bounded[bytes, bytes] = Bounded(20_000, 64 << 20, len)   # at most 64 MB


def _compressed(stream: bytes) -> bytes:
    """zlib of a form's stream, as ReportLab compresses it, kept for the process by the
    stream's digest (not the stream itself: a 10,000-card build would keep every card's
    operators twice)."""
    key = hashlib.sha1(stream, usedforsecurity=False).digest() + len(stream).to_bytes(4, "little")
    hit = _zipped.get(key)
    if hit is None:
        hit = _zipped[key] = zlib.compress(stream)
    return hit



def _font_ident(doc: Any, font: Any) -> str:
    """A font's resource name in a document whose fonts are fixed (`fix_resources`): from its
    file's bytes, not its ReportLab name.  That name depends on what the process registered
    before (a second font file of the same name is given another, and ReportLab draws a copy
    of a file it has under another name as the font it met first: a game with a copy of Lato
    built before one with the bundled Lato), so the same game would give other bytes after
    another game in the same process (`cardgen build A B`, `serve`).  A second font of the
    same bytes in one document (not made by cardgen's fonts, which give ReportLab one font
    per file) is named by its ReportLab name, as before, rather than share the first's."""
    ident = font.__dict__.get("_cardgen_ident")
    if ident is None:
        ident = font._cardgen_ident = "F" + data_sha256(font)[:10]
    named = doc.__dict__.setdefault("_cardgen_font_idents", {})
    if named.setdefault(ident, font) is not font:
        ident = "F" + hashlib.sha256(font.fontName.encode()).hexdigest()[:10]
        named[ident] = font
    return ident

class CardCanvas(Canvas):
    """A ReportLab `Canvas` whose forms keep their transparency and whose streams are not
    ASCII85-encoded (see the module docstring). Same constructor and methods as `Canvas`."""

    def endForm(self, **extra_attributes: Any) -> None:
        name = self._formData[0]
        shading = dict(self._shadingUsed)       # (ReportLab leaves a form's shadings out of its resources)
        super().endForm(**extra_attributes)
        form = self._doc.idToObject[pdfdoc.xObjectName(name)]
        if type(form) is pdfdoc.PDFFormXObject:
            form.__class__ = _Form
            form.pack()
        if (shading or getattr(form, "ExtGState", None)) and not form.Resources:
            form.Resources = _form_resources(form)
            if shading:         # an SVG's gradients (svglib draws them as shadings): without these, black
                form.Resources.setShading(shading)

    def linearGradient(self, x0: float, y0: float, x1: float, y1: float, colors: Any, positions: Any = None,
                       extend: bool = True) -> None:
        super().linearGradient(x0, y0, x1, y1, self._gradient_colours(colors), positions, extend)

    def radialGradient(self, x: float, y: float, radius: float, colors: Any, positions: Any = None,
                       extend: bool = True) -> None:
        super().radialGradient(x, y, radius, self._gradient_colours(colors), positions, extend)

    def _gradient_colours(self, colors: Any) -> list:
        """A gradient's colours in the canvas's colour space (CMYK in a PDF/X: ReportLab's
        `enforceColorSpace` converts the colours set, not a gradient's stops)."""
        enforce = getattr(self, "_enforceColorSpace", None)
        return [enforce(c) for c in colors] if enforce is not None else list(colors)

    def drawImage(self, image: Any, x: float, y: float, width: float | None = None, height: float | None = None,
                  mask: Any = None, preserveAspectRatio: bool = False, anchor: str = "c", **kwargs: Any) -> Any:
        """ReportLab's, but an image read from a downsampled copy of a picture (`render.art`:
        the reader's `art_copy`) is put into the PDF as the copy's image object kept beside it
        (`art.kept_image`), compressed once for every PDF that shows it, not decoded and
        compressed again in each."""
        from cardgen.render import art

        copy = getattr(image, "art_copy", None) if mask == "auto" and not kwargs else None
        kept = art.kept_image(copy) if copy is not None else None
        if kept is not None:
            return self.draw_kept(kept, x, y, width, height, preserveAspectRatio, anchor)
        with _without_a85():
            size = Canvas.drawImage(self, image, x, y, width, height, mask, preserveAspectRatio, anchor, **kwargs)
        if copy is not None:
            art.keep_image(copy, self._doc.idToObject[self._doc.getXObjectName(self._formsinuse[-1])])
        return size

    def draw_kept(self, kept: Any, x: float, y: float, width: float | None, height: float | None,
                   keep_ratio: bool, anchor: str) -> tuple[int, int]:
        """What `drawImage` does with an image it has read and compressed, from `kept` (a
        `render.pdfxcache.KeptImage`): the same objects and operators, without decoding and
        compressing the image again."""
        from reportlab.lib.boxstuff import aspectRatioFix

        self._currentPageHasImages = 1
        reg = self._doc.getXObjectName(kept.name)
        if reg not in self._doc.idToObject:
            obj = kept.xobject()
            self._setXObjects(obj)
            self._doc.Reference(obj, reg)
            self._doc.addForm(kept.name, obj)
        x, y, width, height, _ = aspectRatioFix(keep_ratio, anchor, x, y, width, height, kept.width, kept.height)
        self.saveState()
        self.translate(x, y)
        self.scale(width, height)
        self._code.append(f"/{reg} Do")
        self.restoreState()
        self._formsinuse.append(kept.name)
        return kept.width, kept.height

    save = _no_a85(Canvas.save)

    def getpdfdata(self) -> bytes:
        """The PDF (without ASCII85), and `written`: how many of its bytes were taken as they
        were kept (the compressed streams of card forms from the form cache) and how many made."""
        with _without_a85():
            data = Canvas.getpdfdata(self)
        kept = self._doc.__dict__.pop("_cardgen_kept", 0)
        self.written = (kept, len(data) - kept)
        WRITTEN[0] += kept
        WRITTEN[1] += len(data) - kept
        return data

    # -- reusable form contents ----------------------------------------------------------
    def fix_resources(self, chars: Mapping[str, Iterable[str]]) -> dict[str, str]:
        """Before anything is drawn: give the fonts `chars` names (ReportLab font name ->
        the characters set in it) their resource names in sorted order, and assign the codes
        of their characters in sorted order (ASCII keeps its own codes).  ReportLab otherwise
        numbers both in order of first use, which differs between documents.  Returns a
        token per font, equal for two documents exactly when they name and code it alike: a
        character the font's map lacks (a shaped glyph's code not registered in this process,
        `glyphs.register`) takes no code, so it is not in the token."""
        from reportlab.pdfbase import pdfmetrics

        doc = self._doc
        tokens: dict[str, str] = {}
        for name in sorted(chars):
            font = pdfmetrics.getFont(name)
            if getattr(font, "_dynamicFont", False):
                ascii_fixed = bool(getattr(font, "_asciiReadable", False))   # ASCII codes are its own
                text = "".join(sorted(ch for ch in set(chars[name]) if not (ascii_fixed and ord(ch) < 128)))
                state = font._assignState(doc)
                if state.internalName is None:
                    # named by the font alone (ReportLab counts the fonts of the document: a
                    # font more or less would rename the others), registered as ReportLab does
                    state.internalName = _font_ident(doc, font)
                    doc.fontMapping[font.fontName] = "/" + state.internalName
                    doc.delayedFonts.append(font)
                internal = font.getSubsetInternalName(0, doc)
                font.splitString(text, doc)
                known = font.face.charToGlyph
                text = "".join(ch for ch in text if ord(ch) in known or ch == "\xa0")
            else:
                text, internal = "", doc.getInternalFontName(name)
            tokens[name] = f"{internal}:{text}"
        return tokens

    def form_contents(self) -> tuple[str, list[str], list] | None:
        """Inside a form, before `endForm`: its operators (one string, as the form's stream
        joins them), the forms and images it uses and the transparency states it named; None
        when it uses something that is not reusable (spot colours, shadings)."""
        if self._colorsUsed or self._shadingUsed or self._annotationrefs:
            return None
        return "\n".join(self._code), list(self._formsinuse), sorted(self._extgstate._c.items())

    def replay(self, code: str, forms: list[str], states: list) -> None:
        """Inside a form: what `form_contents` gave in a document with the same
        `fix_resources` tokens (the forms and images it uses must exist in this one)."""
        if code:
            self._code.append(code)
        self._formsinuse.extend(forms)
        self._extgstate._c.update((tuple(key), name) for key, name in states)

    def add_form(self, name: str, width: float, height: float, code: str | bytes, forms: list[str], states: list,
                 kept: tuple[str, bytes] | None = None, later: bool = False) -> None:
        """The form `name` that `beginForm(name, 0, 0, width, height)`, `replay(code, forms,
        states)` and `endForm()` make, made without going through the canvas's drawing state
        (a rebuild replays hundreds of card forms).  Not for a form that shows images
        (`register_image` draws inside the form).  `kept`: what `kept_stream` gave for the
        same form in another document: its stream is then taken as it was compressed there.
        `later`: the stream made only if the form is written (`_Form.later`; for operators
        held elsewhere anyway)."""
        form = _Form(lowerx=0, lowery=0, upperx=width, uppery=height)
        form.compression = self._pageCompression
        if kept is not None and form.compression and kept[0] == self._preamble:
            form.__dict__["_packed"] = kept[1]
            form.__dict__["_kept"] = True
        else:
            code = operators(code)      # (as the form cache keeps it)
            parts = [self._preamble, code] if code else [self._preamble]
            if later:
                form.later(parts)
            else:
                form.setStreamList(parts)
        form._colorsUsed = {}
        form.ExtGState = pdfdoc.PDFDictionary({gs: pdfdoc.PDFDictionary(dict((tuple(key),)))
                                               for key, gs in states}) if states else None
        form.XObjects = self._doc.xobjDict(forms) if forms else None
        form.Annots = []
        self._doc.addForm(name, form)
        if form.ExtGState and not form.Resources:
            form.Resources = _form_resources(form)

    def kept_stream(self, name: str) -> tuple[str, bytes] | None:
        """The form `name`'s stream as this document will write it (compressed), with the
        preamble it begins with, to keep with its operators in the form cache (`add_form`)."""
        form = self._doc.idToObject.get(pdfdoc.xObjectName(name))
        packed = form.__dict__.get("_packed") if isinstance(form, _Form) else None
        return (self._preamble, packed) if packed is not None else None

    def packed_stream(self, code: str) -> tuple[str, bytes]:
        """What `kept_stream` gives for a form of operators `code` in a document that
        compresses its streams, worked out in one that does not (a raster worker's: the form
        cache's entry for a print document, `render.raster.offer_forms`)."""
        return self._preamble, _compressed(pdfdoc.pdfdocEnc("\n".join([self._preamble, code] if code
                                                                      else [self._preamble])))

    def place_form(self, name: str, clip: tuple[float, float, float, float], matrix: tuple[float, ...]) -> None:
        """Draw the form `name` through `matrix` (a b c d e f), clipped to the rectangle `clip`
        (x, y, w, h): what saveState, a clip path, translate/rotate, doForm and restoreState
        write, as one operator string (the print sheets place thousands of cards)."""
        self._code.append(f"q {_numbers(clip)} re W n {_numbers(matrix)} cm /{self._doc.getXObjectName(name)} Do Q")
        self._formsinuse.append(name)

    def place_form_in(self, name: str, clip: str, matrix: tuple[float, ...]) -> None:
        """`place_form`, clipped to a path given as content-stream operators (`m`, `l`, `c`, `h`)."""
        self._code.append(f"q {clip} W n {_numbers(matrix)} cm /{self._doc.getXObjectName(name)} Do Q")
        self._formsinuse.append(name)

    def register_image(self, path: Any) -> None:
        """Put the image (a file name or an `ImageReader`) into the document as
        `drawImage(path, mask="auto")` would, drawing nothing (for a replayed form that shows it)."""
        mark = len(self._code)
        self.drawImage(path, 0, 0, 1, 1, mask="auto")
        del self._code[mark:]
    def drawInlineImage(self, image: Any, x: float, y: float, width: float | None = None,
                        height: float | None = None, preserveAspectRatio: bool = False,
                        anchor: str = "c", anchorAtXY: bool = False, showBoundary: bool = False,
                        extraReturn: Any = None) -> Any:
        """Images inline in a content stream break inside forms (ReportLab joins the form's
        stream as text and the image data is bytes: a TypeError for every SVG that embeds a
        raster `<image>`). Draw them as image XObjects instead, which forms hold fine."""
        from reportlab.lib.utils import ImageReader

        if not isinstance(image, (str, ImageReader)):
            image = ImageReader(image)
        return self.drawImage(image, x, y, width, height, preserveAspectRatio=preserveAspectRatio,
                              anchor=anchor, anchorAtXY=anchorAtXY, showBoundary=showBoundary,
                              extraReturn=extraReturn)
