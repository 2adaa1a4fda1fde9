"""Draw laid-out cards on a ReportLab canvas.

Each distinct card side becomes one PDF form XObject, drawn once and placed as often
as the card has copies; icons and SVG art are forms too, shared by every card.  With a
`FormCache` (and `Drawer.prepare`), a card form drawn for one document is reused by the
others and by the next build (`cardgen.render.formcache`).
"""
from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from reportlab.pdfgen.canvas import FILL_EVEN_ODD, FILL_NON_ZERO, Canvas

from cardgen.core.digest import digest, file_digest
from cardgen.core.paint import is_gradient
from cardgen.core.units import MM
from cardgen.model import ops
from cardgen.model.ops import Colour
from cardgen.render import art, docinfo, effects
from cardgen.render.formcache import Forms
from cardgen.render.glyphs import glyph_codes, register, shaped_out
from cardgen.render.rlcompat import CardCanvas, operators, squeezed
from cardgen.resources.fonts import DEFAULT_FAMILY, FontBook, font_files, use_in_reportlab
from cardgen.resources.icons import SVG_FONT, load_svg, svg_font_face
from cardgen.resources.shaping import PSEUDO, Shaped, segments
from cardgen.text import bidi

if TYPE_CHECKING:    # (ReportLab's graphics and svglib are imported when an SVG is drawn, not reused)
    from reportlab.graphics import shapes

_BLACK = (0.0, 0.0, 0.0)


def _base_font(fonts: FontBook) -> str:
    return fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else next(iter(fonts.families)), "regular").name


def new_canvas(target: str | Path | IO[bytes] | None, fonts: FontBook, pagesize: tuple[float, float] = (595.0, 842.0),
               canvas: type[CardCanvas] = CardCanvas, **kw: Any) -> CardCanvas:
    """A canvas that embeds only our own fonts and writes byte-identical output, with the
    PDF version and document information of `cardgen.render.docinfo` (designer, date; set the title with
    `setTitle`). `enforceColorSpace` (ReportLab's hook, a function of a colour) and a
    `canvas` class of its own are how `cardgen.render.cmyk` turns everything into CMYK."""
    use_in_reportlab()    # (fonts are measured without ReportLab; drawing needs them registered)
    c = canvas(target, pagesize=pagesize, invariant=1, initialFontName=_base_font(fonts), pageCompression=1,
               pdfVersion=docinfo.PDF_VERSION, **kw)
    docinfo.attach(c)
    return c


def _is_black(col: Any) -> bool:
    return col is not None and hasattr(col, "red") and (col.red, col.green, col.blue) == _BLACK


def _emit_shape(c: Canvas, node: shapes.Shape) -> bool:
    """Draw an svglib node whose black parts use the current colours; False if unsupported."""
    from reportlab.graphics import renderPDF, shapes

    if isinstance(node, shapes.Group):
        c.saveState()
        if node.transform and tuple(node.transform) != (1, 0, 0, 1, 0, 0):
            c.transform(*node.transform)
        for child in node.contents:
            if not _emit_shape(c, child):
                renderPDF.draw(_wrap(child), c, 0, 0)
        c.restoreState()
        return True
    p = _shape_path(c, node)
    if p is None:
        return False
    fill = getattr(node, "fillColor", None)
    stroke = getattr(node, "strokeColor", None)
    width = getattr(node, "strokeWidth", 0) or 0
    do_fill = fill is not None and not isinstance(node, shapes.PolyLine)
    do_stroke = stroke is not None and width > 0
    if not (do_fill or do_stroke):
        return True
    c.saveState()
    if do_fill and fill is not None and not _is_black(fill):
        c.setFillColorRGB(fill.red, fill.green, fill.blue)
        alpha = getattr(fill, "alpha", 1)
        if alpha is not None and alpha < 1:
            c.setFillAlpha(alpha)
    if do_stroke and stroke is not None:
        if not _is_black(stroke):
            c.setStrokeColorRGB(stroke.red, stroke.green, stroke.blue)
        c.setLineWidth(width)
    mode = getattr(node, "fillMode", FILL_NON_ZERO)
    c.drawPath(p, stroke=1 if do_stroke else 0, fill=1 if do_fill else 0,
               fillMode=FILL_EVEN_ODD if mode == FILL_EVEN_ODD else FILL_NON_ZERO)
    c.restoreState()
    return True


def _shape_path(c: Canvas, node: shapes.Shape) -> Any:
    """The path of an svglib shape (a path, rectangle, circle, ellipse or polygon), or None for
    a shape drawn some other way."""
    from reportlab.graphics import shapes

    if isinstance(node, shapes.Path):
        p = c.beginPath()
        pts = node.points
        i = 0
        for op in node.operators:
            if op == shapes._MOVETO:
                p.moveTo(pts[i], pts[i + 1])
                i += 2
            elif op == shapes._LINETO:
                p.lineTo(pts[i], pts[i + 1])
                i += 2
            elif op == shapes._CURVETO:
                p.curveTo(*pts[i:i + 6])
                i += 6
            elif op == shapes._CLOSEPATH:
                p.close()
    elif isinstance(node, shapes.Rect):
        p = c.beginPath()
        p.rect(node.x, node.y, node.width, node.height)
    elif isinstance(node, shapes.Circle):
        p = c.beginPath()
        p.circle(node.cx, node.cy, node.r)
    elif isinstance(node, shapes.Ellipse):
        p = c.beginPath()
        p.ellipse(node.cx - node.rx, node.cy - node.ry, 2 * node.rx, 2 * node.ry)
    elif isinstance(node, shapes.Polygon):
        p = c.beginPath()
        pts = node.points
        p.moveTo(pts[0], pts[1])
        for k in range(2, len(pts), 2):
            p.lineTo(pts[k], pts[k + 1])
        p.close()
    else:
        return None
    return p


def _embed_svg_fonts(drawing: Any, fonts: FontBook) -> None:
    """Every text of an SVG in an embedded font of the game: the stand-ins the SVG reader gives
    it (`resources.icons.SVG_FONT`) become the family asked for if the game has it, else its
    base font (the layout has warned).  The drawing is kept between uses: the stand-in stays
    on each node, so another game's fonts can be put in later."""
    base = DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else next(iter(fonts.families))
    stack = [drawing]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "contents", None) or [])
        asked = node.__dict__.get("_cardgen_font") or getattr(node, "fontName", None)
        if isinstance(asked, str) and asked.startswith(SVG_FONT):
            node.__dict__["_cardgen_font"] = asked
            node.__dict__["fontName"] = svg_font_face(fonts, asked, base)


def _wrap(node: shapes.Shape) -> shapes.Drawing:
    from reportlab.graphics import shapes

    d = shapes.Drawing(1, 1)
    d.add(node)
    return d


def svg_entry_ok(entry: Any) -> bool:
    """Is `entry` an SVG form as `Drawer.vector_form` keeps it: its operators, no other forms,
    its size and the transparency states it names (each `((name, value), resource)`)?  For
    entries read back from a file, checked before they are replayed into a document."""
    return (isinstance(entry, tuple) and len(entry) == 4 and isinstance(entry[0], str) and entry[1] == []
            and isinstance(entry[2], tuple) and len(entry[2]) == 2
            and all(type(v) in (int, float) for v in entry[2]) and isinstance(entry[3], list)
            and all(isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], tuple) and len(s[0]) == 2
                    and isinstance(s[0][0], str) and isinstance(s[1], str) for s in entry[3]))


class Drawer:
    # The colour a shape's area is filled with, given the shape and its colour; None: the
    # colour as it is. The print-service PDF prints large black areas as rich black with it
    # (`cardgen.render.cmyk.Separation.area_fill`).
    area_fill: Callable[[ops.Op, Colour], Any] | None = None
    # Anything else that makes this drawer draw the same card differently from another must be
    # in `variant`: reused card forms are looked up with it.
    variant = ""
    # the resolution images are drawn at (`render.art`); None: the print PDFs' (`art.print_dpi`)
    image_dpi: float | None = None

    def __init__(self, canvas: Canvas, fonts: FontBook, cache: Forms | None = None) -> None:
        self.c = canvas
        self.fonts = fonts
        # ("svg", path, themed) -> (name, width, height); ("card", id) -> (name, layout)
        self.forms: dict[tuple[object, ...], tuple[Any, ...]] = {}
        self._n = 0
        self.cache = cache
        self._tokens: dict[str, str] | None = None
        self._token_key: tuple | None = None        # (`reuse_key`'s memo key: the tokens, variant, resolution)
        # card form name -> its reuse key in the form cache (None: not reusable): `render.assemble`
        self.keys: dict[str, str | None] = {}

    def _name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def prepare(self, layouts: Iterable[ops.CardLayout], chars: dict[str, set[str]] | None = None) -> None:
        """Before drawing: fix how the document names the fonts and font codes of the card
        sides it will draw (`CardCanvas.fix_resources`), so that with a `FormCache` a card
        form drawn in another document with the same sides is reused (and, with a cache or
        without, the same cards always make the same bytes).  `chars`: the characters of
        another document's sides (`text_chars`), named and coded as that one does, so that
        the forms drawn here are that document's (`render.raster.offer_forms`); those of
        `layouts` it lacks are added."""
        if type(self.c) is not CardCanvas or self.area_fill is not None \
                or getattr(self.c, "_enforceColorSpace", None) is not None:
            return      # (colours converted as they are drawn: not reused)
        own = text_chars(layouts, self.fonts)
        if chars is not None:
            own = {font: own.get(font, set()) | chars.get(font, set()) for font in {*own, *chars}}
            _register_glyphs(own)
        self._tokens = self.c.fix_resources(own)

    # -- shared forms ---------------------------------------------------------
    def vector_form(self, path: str | Path, themed: bool = False) -> tuple[str, float, float]:
        """A form for an SVG file. `themed`: its black parts take the fill and stroke colour
        in force where the form is placed, so one form serves every colour."""
        key = ("svg", str(path), themed)
        hit = self.forms.get(key)
        if hit:
            name, w, h = hit
            return name, w, h
        # named by the file (not by a counter): reused card forms refer to it by this name
        name = "v" + hashlib.sha256(f"{Path(path).resolve()}\0{themed}".encode()).hexdigest()[:16]
        same = self.forms.get(("svg-name", name))      # the same file by another path
        if same:
            self.forms[key] = same
            return name, same[1], same[2]
        c, cache = self.c, self._svg_cache()
        reuse = found = None
        if cache is not None:
            reuse = digest("svg", file_digest(Path(path)), themed, _base_font(self.fonts), self.variant)
            found = cache.get(reuse)
        if found is not None:
            w, h = found[2]
            c.beginForm(name, 0, 0, w, h)
            c.replay(found[0], found[1], found[3])
        else:
            from reportlab.graphics import renderPDF, shapes

            drawing = load_svg(Path(path))
            w, h = float(drawing.width), float(drawing.height)
            # svglib's renderer sets its default font on every drawing: point it at an embedded one.
            shapes.STATE_DEFAULTS["fontName"] = _base_font(self.fonts)
            _embed_svg_fonts(drawing, self.fonts)
            c.beginForm(name, 0, 0, w, h)
            if themed:
                for node in drawing.contents:
                    if not _emit_shape(c, node):
                        renderPDF.draw(_wrap(node), c, 0, 0)
            else:
                renderPDF.draw(drawing, c, 0, 0)
            contents = c.form_contents() if isinstance(c, CardCanvas) else None
            # reusable unless it sets text (in fonts this key does not name) or shows images
            if cache is not None and reuse is not None and contents is not None and not contents[1] and \
                    " Tf" not in contents[0]:
                cache.put(reuse, (contents[0], [], (w, h), contents[2]))
        c.endForm()
        self.forms[key] = self.forms[("svg-name", name)] = (name, w, h)
        return name, w, h

    def _svg_cache(self) -> Any:
        """Where SVG forms drawn before are kept (`get`/`put` by a key of the file's content,
        `themed`, the base font and `variant`): the form cache, for a document whose fonts are
        fixed ahead (`prepare`); None: every SVG drawn with svglib."""
        if self.cache is not None and self._tokens is not None and isinstance(self.c, CardCanvas):
            return self.cache
        return None

    def _prepare(self, layout: ops.CardLayout) -> None:
        """Forms used inside a card form must exist before the card form begins."""
        for path, themed in ops.needs(layout).svgs:
            self.vector_form(path, themed)

    def card_form(self, layout: ops.CardLayout) -> str:
        """The form for one card side (made on first use)."""
        key = ("card", id(layout), self.image_dpi)
        hit = self.forms.get(key)
        if hit:
            return str(hit[0])
        self._prepare(layout)
        name = self._name("card")
        B = layout.bleed
        w, h = layout.width + 2 * B, layout.height + 2 * B
        c = self.c
        found = None
        reuse = self.reuse_key(layout)
        if reuse is not None:
            assert self.cache is not None
            found = self.cache.get(reuse)
        rasters = self._rasters(layout) if found is not None and ops.needs(layout).rasters else ()
        if found is not None and not rasters:       # (no drawing state to go through; its stream as kept)
            c.add_form(name, w, h, found[0], found[1], found[3], found[4] if len(found) > 4 else None)
        else:
            contents = None
            c.beginForm(name, 0, 0, w, h)
            if found is not None:
                for path in rasters:
                    c.register_image(path)
                c.replay(operators(found[0]), found[1], found[3])
            else:
                self.draw_ops(layout, B, B + layout.height)
                if reuse is not None:
                    contents = c.form_contents()
            c.endForm()
            if contents is not None and self.cache is not None:    # kept with its stream compressed
                kept = None if ops.needs(layout).rasters else c.kept_stream(name)     # (replayed: `_rasters`)
                self.cache.put(reuse, (contents[0] if kept is None else squeezed(contents[0]), contents[1], (),
                                       contents[2], kept))
            elif found is None:
                reuse = None
        self.keys[name] = reuse
        self.forms[key] = (name, layout)  # keep layout alive so id() stays unique
        return name

    def _name_glyphs(self, layout: ops.CardLayout) -> bool:
        """A side that draws shaped glyphs, made ready to be reused from another document's
        form: what each glyph stands for (its ToUnicode text) said to its font as drawing the
        side's runs would say it, in the same order; False (draw it) if some glyph code of the
        side is not reached so (a glyph drawn by anything but a text element's runs).  Only the
        runs with such glyphs are shaped again, from what the layout cache keeps of the side
        (`ops.needs(layout).shaped`), not decoding its operations: a run whose glyphs are all
        its characters' names none (`glyph_codes` names only codes past `PSEUDO`), and decoding
        and shaping every word of every reused side was a tenth of a rebuild."""
        from reportlab.pdfbase.pdfmetrics import getFont

        done = layout.__dict__.get("_glyphs_named")     # (what glyphs stand for is said to the font, process-wide)
        if done is not None:
            return bool(done)
        named: set[str] = set()
        for font, text in ops.needs(layout).shaped:
            shaped = self.fonts.shaped(text, font)
            if shaped is not None:
                named.update(glyph_codes(getFont(font), text, shaped))
        first = chr(PSEUDO)         # (each font's characters are sorted: the glyph codes come last)
        done = layout.__dict__["_glyphs_named"] = all(named.issuperset(chars[bisect.bisect_left(chars, first):])
                                                       for chars in side_chars(layout, self.fonts).values())
        return done

    def reuse_key(self, layout: ops.CardLayout, remember: bool = False) -> str | None:
        """The key of `layout`'s form in the form cache (`_reuse_key`), or None where its form
        is not looked up there (no cache, fonts not fixed ahead, glyphs its runs do not name).
        `remember`: kept on the side for the next document that names and codes the fonts alike
        (`_tokens`: the print sheets of both papers, cards.pdf and the fold-over sheets do)."""
        if self.cache is None or self._tokens is None or not isinstance(self.c, CardCanvas):
            return None
        if self._token_key is None:
            self._token_key = (digest(sorted(self._tokens.items())), self.variant, self._dpi())
        memo = layout.__dict__.get("_reuse")          # (the last: a tuple, not a dict, at 10,000 sides)
        if memo is not None and memo[0] == self._token_key:
            return memo[1]
        hit = None if shaped_side(layout, self.fonts) and not self._name_glyphs(layout) \
            else self._reuse_key(layout, self._tokens)
        if remember:        # (not while forms are made: small objects kept among theirs hold their memory)
            layout.__dict__["_reuse"] = (self._token_key, hit)
        return hit

    def keep(self, layouts: Iterable[ops.CardLayout], reuses: Iterable[str]) -> None:
        """What making the forms of `layouts` (their reuse keys `reuses`) would mark as used in
        the form cache (so that saving it keeps them), marked without making them: each form's
        entry, and its SVG forms (made in this document: `render.assemble.deferred`)."""
        keep = getattr(self.cache, "keep", None)       # (a `FormCache`'s)
        if keep is None:
            return
        for reuse in reuses:
            keep(reuse)
        svgs = dict.fromkeys(item for layout in layouts for item in ops.needs(layout).svgs)
        for path, themed in svgs:
            self.vector_form(path, themed)

    def _reuse_key(self, layout: ops.CardLayout, tokens: dict[str, str]) -> str:
        """What a card form's operators depend on: the side's drawing (`ops.layout_digest`), how
        this document names and codes the fonts it uses, and the drawer's `variant`."""
        chars = side_chars(layout, self.fonts)
        drawn, variant, dpi = self.side_ident(layout)
        return digest(drawn, [_coding(tokens[f], chars[f]) for f in sorted(chars)], variant, dpi)

    def side_ident(self, layout: ops.CardLayout) -> tuple[str, str, float]:
        """What a side's reuse key (`_reuse_key`) reads besides how the document names and
        codes its fonts (`_tokens`): its drawing (`ops.layout_digest`, which the layout cache
        keeps: its operations, size, and the content of its fonts, icons and images), the
        drawer's `variant` and the resolution its images are drawn at.  Two documents with the
        same tokens give sides of the same ident the same reuse key, and the same answer to
        whether they have one (`render.assemble.deferred` takes it from the last file's)."""
        return (ops.layout_digest(layout, font_files()), self.variant,
                self._dpi() if ops.needs(layout).rasters else 0)   # (needs: kept in the layout cache)

    def _dpi(self) -> float:
        return self.image_dpi or art.print_dpi()

    def _art(self, op: ops.Image) -> tuple[Any, tuple[float, float, float, float]]:
        """What an image op is drawn from: its file, or a copy downsampled to its box at this
        drawer's resolution (of the part of it its clip shows: `render.art.placed`), drawn by
        its content; and where it is drawn (x, y, w, h points, y down)."""
        src, where = art.placed(op, self._dpi())
        return self._reader(str(op.path), src), where

    def _reader(self, path: str, src: Path) -> Any:
        if src == Path(path):
            return path
        from reportlab.lib.utils import ImageReader

        reader = ImageReader(str(src))
        reader.art_copy = src           # (its image object is kept beside it: `CardCanvas.drawImage`)
        return reader

    def _rasters(self, layout: ops.CardLayout) -> list[Any]:
        """The raster images drawing `layout` puts into the document, in the order it does:
        from what it needs (`ops.needs`, kept in the layout cache), so a reused side's
        operations are not decoded for them."""
        need = ops.needs(layout)
        return [self._reader(path, art.copy_of(path, box, self._dpi())[0]) if box[0] > 0 else path
                for path, box in zip(need.rasters, need.boxes)]

    # -- operations -------------------------------------------------------------
    def draw_ops(self, layout: ops.CardLayout, ox: float, oy: float) -> None:
        """Draw a layout with its trim top-left at (ox, oy) in canvas coordinates."""
        for op in layout.ops:
            if not op.rotate:
                self._op(op, ox, oy)
                continue
            bx, by, bw, bh = ops.turn_box(op)
            cx, cy = ox + bx + bw / 2, oy - by - bh / 2
            self.c.saveState()
            self.c.translate(cx, cy)
            self.c.rotate(op.rotate)
            self.c.translate(-cx, -cy)
            self._op(op, ox, oy)
            self.c.restoreState()

    def _fill(self, col: Colour, area: ops.Op | None = None) -> None:
        if area is not None and self.area_fill is not None:
            self.c.setFillColor(self.area_fill(area, col))
        else:
            self.c.setFillColorRGB(*col[:3])
        if len(col) > 3 and col[3] < 1:
            self.c.setFillAlpha(col[3])

    def _stroke(self, col: Colour, width: float, dash: Sequence[float] | None) -> None:
        self.c.setStrokeColorRGB(*col[:3])
        if len(col) > 3 and col[3] < 1:
            self.c.setStrokeAlpha(col[3])
        self.c.setLineWidth(width)
        self.c.setDash(list(dash) if dash else [])

    def _op(self, op: ops.Op, ox: float, oy: float) -> None:
        c = self.c
        if isinstance(op, (ops.Rect, ops.Ellipse)):
            self._box(op, ox, oy)
        elif isinstance(op, ops.Line):
            c.saveState()
            self._stroke(op.stroke, op.stroke_width, op.dash)
            c.line(ox + op.x1, oy - op.y1, ox + op.x2, oy - op.y2)
            c.restoreState()
        elif isinstance(op, ops.Path):
            self._path(op, ox, oy)
        elif isinstance(op, ops.Text):
            if op.shadow is not None or op.outline is not None:
                effects.text_effects(self, op, ox, oy)
            self._text(op, ox, oy)
        elif isinstance(op, ops.Icon):
            self._icon(op.path, ox + op.x, oy - op.y - op.h, op.w, op.h, op.color, op.opacity)
        elif isinstance(op, ops.Image):
            self._image(op, ox, oy)
        elif isinstance(op, ops.Placeholder):
            self._placeholder(op, ox, oy)

    def _paint(self, op: ops.Rect | ops.Ellipse | ops.Path) -> Any:
        """The canvas, its state saved, with the fill and stroke of `op` set."""
        c = self.c
        c.saveState()
        if op.fill:
            self._fill(op.fill, op)
        if op.stroke:
            self._stroke(op.stroke, op.stroke_width, op.dash)
        return c

    def _under(self, op: ops.Rect | ops.Ellipse | ops.Path, ox: float, oy: float) -> Any:
        """A shape's shadow and gradient fill drawn (`render.effects`): the shape then left to
        draw (without the gradient), or None when nothing is."""
        if op.shadow is not None:
            effects.shape_shadow(self, op, ox, oy)
        if not is_gradient(op.fill):
            return op
        effects.fill_gradient(self.c, op.fill, effects.shape_path(self.c, op, ox, oy),    # type: ignore[arg-type]
                              effects.paint_box(op, ox, oy))
        return replace(op, fill=None) if op.stroke else None

    def _box(self, op: ops.Rect | ops.Ellipse, ox: float, oy: float) -> None:
        op = self._under(op, ox, oy)
        if op is None:
            return
        c = self._paint(op)
        x, y = ox + op.x, oy - op.y - op.h
        if isinstance(op, ops.Ellipse):
            c.ellipse(x, y, x + op.w, y + op.h, stroke=1 if op.stroke else 0, fill=1 if op.fill else 0)
        elif op.radius > 0:
            c.roundRect(x, y, op.w, op.h, op.radius, stroke=1 if op.stroke else 0, fill=1 if op.fill else 0)
        else:
            c.rect(x, y, op.w, op.h, stroke=1 if op.stroke else 0, fill=1 if op.fill else 0)
        c.restoreState()

    def _path(self, op: ops.Path, ox: float, oy: float) -> None:
        if not op.points or not (op.fill or op.stroke):
            return
        op = self._under(op, ox, oy)
        if op is None:
            return
        c = self._paint(op)
        p = c.beginPath()
        p.moveTo(ox + op.points[0][0], oy - op.points[0][1])
        for px, py in op.points[1:]:
            p.lineTo(ox + px, oy - py)
        if op.closed:
            p.close()
        c.drawPath(p, stroke=1 if op.stroke else 0, fill=1 if (op.fill and op.closed) else 0)
        c.restoreState()

    def _image(self, op: ops.Image, ox: float, oy: float) -> None:
        c = self.c
        c.saveState()
        if op.clip:
            x, y, w, h = op.clip
            p = c.beginPath()
            p.rect(ox + x, oy - y - h, w, h)
            c.clipPath(p, stroke=0, fill=0)
        if op.opacity < 1:
            c.setFillAlpha(op.opacity)
            c.setStrokeAlpha(op.opacity)
        if ops.is_svg(op.path):
            name, fw, fh = self.vector_form(op.path)
            c.translate(ox + op.x, oy - op.y - op.h)
            c.scale(op.w / fw, op.h / fh)
            c.doForm(name)
        else:
            src, (x, y, w, h) = self._art(op)
            c.drawImage(src, ox + x, oy - y - h, w, h, mask="auto")
        c.restoreState()

    def _icon(self, path: str | Path, x: float, y: float, w: float, h: float, color: Colour | None,
              opacity: float = 1.0) -> None:
        c = self.c
        if ops.is_svg(path):
            name, fw, fh = self.vector_form(path, color is not None)
            c.saveState()
            if color is not None:
                self._fill(color)
                c.setStrokeColorRGB(*color[:3])
            if opacity < 1:
                c.setFillAlpha(opacity * (color[3] if color is not None and len(color) > 3 else 1.0))
                c.setStrokeAlpha(opacity)
            c.translate(x, y)
            c.scale(w / fw, h / fh)
            c.doForm(name)
            c.restoreState()
        else:
            c.saveState()
            if opacity < 1:
                c.setFillAlpha(opacity)
            c.drawImage(str(path), x, y, w, h, mask="auto", preserveAspectRatio=True)
            c.restoreState()

    def _text(self, op: ops.Text, ox: float, oy: float) -> None:
        """All text runs of a box in one text object, one text operator per stretch of a line
        in one font and colour (`_stretches`), kerned as it was measured; icons after it."""
        c = self.c
        t = c.beginText()
        cur_font = cur_color = None
        spacing = 0.0
        icons = [r for r in op.runs if r.kind == "icon"]
        for r, text, kerns, shaped in self._stretches(op.runs):
            if (r.font, r.size) != cur_font:
                t.setFont(r.font, r.size)
                cur_font = (r.font, r.size)
            if r.tracking != spacing:
                t.setCharSpace(r.tracking)
                spacing = r.tracking
            if r.color != cur_color:
                col = r.color or (0, 0, 0, 1)
                t.setFillColorRGB(*col[:3])
                cur_color = r.color
            t.setTextOrigin(ox + r.x, oy - r.baseline)
            if shaped is not None:
                shaped_out(t, r.font, r.size, text, shaped)
            elif kerns:
                kerned_out(t, r.font, r.size, text, kerns)
            else:
                t.textOut(text)
        if cur_font is not None:
            alpha = (cur_color or (0, 0, 0, 1))[3] if cur_color and len(cur_color) > 3 else 1
            if alpha < 1:
                c.saveState()
                c.setFillAlpha(alpha)
                c.drawText(t)
                c.restoreState()
            else:
                c.drawText(t)
        for r in icons:
            self._icon(r.content, ox + r.x, oy - r.baseline, r.size, r.size, r.color)

    def _stretches(self, runs: Sequence[ops.Run]) -> list[tuple[ops.Run, str, tuple[tuple[int, float], ...],
                                                                  Shaped | None]]:
        """The text runs joined where they continue each other: the same baseline, font, size
        and colour, the next one starting where the previous one ends (a word in two pieces)
        or one space further (the next word).  Each stretch is (its first run, its text, the
        font's kerning in it: each run's own, as the text engine measured it; the run shaped,
        where shaping changes it: such a run is a stretch of its own, drawn glyph by glyph):
        one text operator draws it where the words drawn one by one would be (a justified
        line's wider gaps keep their words apart)."""
        out: list[tuple[ops.Run, str, tuple[tuple[int, float], ...], Shaped | None]] = []
        first: ops.Run | None = None
        parts: list[str] = []
        kerns: list[tuple[int, float]] = []
        at = 0
        end = 0.0

        def add(r: ops.Run, sep: str = "") -> None:
            nonlocal at, end
            text = str(r.content)
            if sep:
                parts.append(sep)
                at += len(sep)
            kerns.extend((at + i, v) for i, v in self.fonts.kerns(text, r.font))
            parts.append(text)
            at += len(text)
            end = r.x + r.width

        for r in runs:
            if r.kind != "text":
                continue
            shaped = self.fonts.shaped(str(r.content), r.font)
            if shaped is not None:
                if first is not None:
                    out.append((first, "".join(parts), tuple(kerns), None))
                out.append((r, str(r.content), (), shaped))
                first = None
                continue
            if first is not None and r.baseline == first.baseline and r.font == first.font \
                    and r.size == first.size and r.color == first.color and r.tracking == first.tracking:
                gap = r.x - end
                if abs(gap) < 1e-6:
                    add(r)
                    continue
                if not r.tracking and abs(gap - self.fonts.width(" ", r.font, r.size)) < 1e-6:
                    add(r, " ")
                    continue
            if first is not None:
                out.append((first, "".join(parts), tuple(kerns), None))
            first, parts, kerns, at = r, [], [], 0
            add(r)
        if first is not None:
            out.append((first, "".join(parts), tuple(kerns), None))
        return out

    def _placeholder(self, op: ops.Placeholder, ox: float, oy: float) -> None:
        c = self.c
        x, y = ox + op.x, oy - op.y - op.h
        c.saveState()
        c.setFillColorRGB(0.94, 0.94, 0.94)
        c.setStrokeColorRGB(0.55, 0.55, 0.55)
        c.setLineWidth(0.6)
        c.setDash([3, 2])
        c.rect(x, y, op.w, op.h, stroke=1, fill=1)
        c.setDash([])
        c.setLineWidth(0.3)
        c.line(x, y, x + op.w, y + op.h)
        c.line(x, y + op.h, x + op.w, y)
        font = _placeholder_font(self.fonts)
        size = max(6.0, min(9.0, op.h / 4))
        tw = self.fonts.width(op.label, font, size)
        pad = 2
        c.setFillColorRGB(0.94, 0.94, 0.94)
        c.rect(x + (op.w - tw) / 2 - pad, y + op.h / 2 - size * 0.45 - pad, tw + 2 * pad, size + 2 * pad,
               stroke=0, fill=1)
        c.setFillColorRGB(0.3, 0.3, 0.3)
        c.setFont(font, size)
        c.drawCentredString(x + op.w / 2, y + op.h / 2 - size * 0.3, op.label)
        c.restoreState()


def kerned_out(t: Any, font_name: str, size: float, text: str, kerns: Sequence[tuple[int, float]]) -> None:
    """`text` written into the text object `t` at its current point with each character of
    `kerns` (index, adjustment in 1/1000 of the size) moved by its adjustment: one TJ operator
    per subset of the font, the adjustments between its strings (as ReportLab writes a text,
    `TextObject._formatText`, less the kerning it does not do)."""
    from reportlab.lib.rl_accel import fp_str
    from reportlab.pdfbase.pdfmetrics import getFont

    font = getFont(font_name)
    doc = t._canvas._doc
    escape = t._canvas._escape
    moved = dict(kerns)
    code = []
    pos = 0
    for subset, chunk in font.splitString(text, doc):
        if subset != t._curSubset:
            code.append(f"{font.getSubsetInternalName(subset, doc)} {fp_str(size)} Tf {fp_str(t._leading)} TL")
            t._curSubset = subset
        items = []
        start = 0
        for k in range(len(chunk)):
            v = moved.get(pos + k)
            if v:
                if k > start:
                    items.append(f"({escape(chunk[start:k])})")
                items.append(fp_str(-v))          # a TJ number moves the next glyph left by 1/1000 em
                start = k
        items.append(f"({escape(chunk[start:])})")
        code.append(f"[{' '.join(items)}] TJ")
        pos += len(chunk)
    t._code.append(" ".join(code))


def draw_line(c: Canvas, fonts: FontBook, text: str, size: float, x: float, y: float, centred: bool = False,
              family: str | None = None, style: str = "regular") -> None:
    """One line of cardgen's own text (a sheet's margin note, the calibration sheet's title) at
    (x, y), in the game's base font, what it lacks in the fallback fonts, as on the cards.
    (What no font has is said by the check, `cardgen.check.glyphs`.)"""
    family = family or (DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None)
    runs = [(seg, font) for part, font in fonts.split(text, family, style) for seg in segments(part)]
    if any(fonts.shaped(t, f) is not None for t, f in runs):     # shaped, in visual order (a Hebrew title)
        base = bidi.paragraph_level(t for t, _ in runs)
        runs = [runs[k] for k in bidi.visual_order(bidi.levels([bidi.kind(t) for t, _ in runs], base))]
    at = x - sum(fonts.run_width(t, f, size) for t, f in runs) / 2 if centred else x
    for part, font in runs:
        shaped = fonts.shaped(part, font)
        if shaped is None:
            c.setFont(font, size)
            c.drawString(at, y, part)
        else:
            t = c.beginText(at, y)
            t.setFont(font, size)
            shaped_out(t, font, size, part, shaped)
            c.drawText(t)
        at += fonts.run_width(part, font, size)


def _placeholder_font(fonts: FontBook) -> str:
    return fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None, "italic").name


def text_chars(layouts: Iterable[ops.CardLayout], fonts: FontBook) -> dict[str, set[str]]:
    """The characters these card sides set in each font (ReportLab font name): their text
    and their placeholders' labels."""
    chars: dict[str, set[str]] = {}
    for layout in layouts:
        for font, text in side_chars(layout, fonts).items():
            chars.setdefault(font, set()).update(text)
    _register_glyphs(chars)
    return chars


def _register_glyphs(chars: dict[str, set[str]]) -> None:
    """Shaped glyphs' codes among `chars` (`Run.glyphs`: `PSEUDO + glyph`) made known to
    their fonts (`glyphs.register`), as they must be before a document codes them: a code the
    font does not know is not given its place, and every later character's code moves."""
    from reportlab.pdfbase.pdfmetrics import getFont

    for font, used in chars.items():
        if used and max(used) >= chr(PSEUDO):
            register(getFont(font), "".join(used))


def _coding(token: str, chars: str) -> str:
    """What of a font's coding in a document (`CardCanvas.fix_resources`: its name, then every
    character it sets there, sorted, each coded by its place) a side setting `chars` depends
    on: the characters up to its own last one.  A character the document adds after them (a
    ligature's glyph code, past every character) leaves the side's form reusable."""
    name, _, text = token.partition(":")
    return f"{name}:{text[:bisect.bisect_right(text, max(chars))]}" if chars else token


def shaped_side(layout: ops.CardLayout, fonts: FontBook) -> bool:
    """Whether a card side draws shaped glyphs (`Run.glyphs`): its form is reused from another
    document only once what its glyphs stand for is said to their fonts (`_name_glyphs`).
    Worked out once a side, as `side_chars` (each paper's sheets and cards.pdf ask)."""
    done = layout.__dict__.get("_shaped")
    if done is None:
        first = chr(PSEUDO)     # (past every character: the largest of a text tells)
        done = layout.__dict__["_shaped"] = any(text and max(text) >= first
                                                for text in side_chars(layout, fonts).values())
    return bool(done)


def side_chars(layout: ops.CardLayout, fonts: FontBook) -> dict[str, str]:
    """The characters one card side sets in each font (`ops.needs`: worked out once per side,
    or kept by the layout cache), its placeholders' labels in their font."""
    done = layout.__dict__.get("_chars")
    if done is not None:
        return done
    chars = dict(ops.needs(layout).chars)
    label = chars.pop(ops.PLACEHOLDER_FONT, None)
    if label is not None:
        font = _placeholder_font(fonts)
        chars[font] = "".join(sorted(set(chars.get(font, "")) | set(label)))
    done = layout.__dict__["_chars"] = chars
    return done


def mm(v: float) -> float:
    return v * MM
