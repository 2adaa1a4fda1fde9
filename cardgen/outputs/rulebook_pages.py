"""What the rules booklet and the player aid share: their colours (text kept readable on what
is behind it), their type styles, the rulebook's blocks set as strips (`Composer`, through
the text engine, `cardgen.text`), the drawing operations of their own (a card's picture, a
bookmark, a link) and the drawing of their pages to a PDF.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cardgen.core.units import MM, color
from cardgen.core.words import ENGLISH, Words
from cardgen.layout.rulebook import Callout, DesignerNote, Figure, ListBlock, Para, Section, Table
from cardgen.model import ops
from cardgen.resources.fonts import FontBook
from cardgen.text.flow import Strip, inset, keep_lines, merge, shift, strips
from cardgen.text.markup import Paragraph, parse, plain
from cardgen.text.pseudo import pseudo
from cardgen.text.punctuation import smarten
from cardgen.text.typeset import TextStyle, Typesetter

if TYPE_CHECKING:    # (ReportLab is imported when drawing: start-up time)
    from cardgen.render.draw import Drawer

DEFAULT_ACCENT = "#2b4a6f"
INK = (0.12, 0.11, 0.10, 1.0)
GREY = (0.36, 0.36, 0.36, 1.0)
WHITE = (1.0, 1.0, 1.0, 1.0)
BLACK = (0.0, 0.0, 0.0, 1.0)
CALLOUT_TINT = {"example": (0.93, 0.95, 0.98, 1), "tip": (0.92, 0.97, 0.92, 1), "note": (0.99, 0.96, 0.88, 1),
                "designer": (0.94, 0.94, 0.94, 1), "open": (0.98, 0.92, 0.94, 1)}
CALLOUT_BAR = {"example": None, "tip": (0.25, 0.55, 0.30, 1), "note": (0.80, 0.58, 0.15, 1),
               "designer": (0.45, 0.45, 0.45, 1), "open": (0.72, 0.15, 0.30, 1)}
MIN_CONTRAST = 4.5          # text against what is behind it (WCAG AA for body text)

BODY_SIZE = 9.5             # the body text size the booklet prefers (points)
FIGURE_W = {"card": 38 * MM, "hand": 30 * MM, "component": 25 * MM}   # a figure's cards' width by default
FIGURE_MAX_H = 110 * MM     # a figure is made smaller to be at most this high (it fits a page)
FIGURE_GAP = 3 * MM         # between a component's pieces

_TAG = re.compile(r"'(\[[^'\]]*\]|</?span[^'>]*>)'")      # the tag a span problem is about


# -- colour contrast --------------------------------------------------------------
def luminance(col) -> float:
    """Relative luminance (WCAG 2) of an (r, g, b[, a]) colour, components 0..1."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(float(c)) for c in col[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg=WHITE) -> float:
    """The contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def readable(fg, bg=WHITE, ratio: float = MIN_CONTRAST) -> tuple:
    """`fg`, or `fg` darkened (lightened on a dark `bg`) just enough to reach `ratio` against `bg`."""
    if contrast(fg, bg) >= ratio:
        return tuple(fg)
    target = WHITE if luminance(bg) < 0.18 else BLACK
    for k in range(1, 41):
        t = k / 40
        col = (*(fg[i] + (target[i] - fg[i]) * t for i in range(3)), 1.0)
        if contrast(col, bg) >= ratio:
            return col
    return target


def on_colour(bg) -> tuple:
    """White or ink, whichever reads on `bg` (white when both do)."""
    return WHITE if contrast(WHITE, bg) >= MIN_CONTRAST else INK


# -- drawing operations of our own ------------------------------------------------
@dataclass(frozen=True)
class Thumb:
    """A real card, scaled to `w` (trim width) and turned `rotate` degrees clockwise about its centre."""

    layout: ops.CardLayout
    cx: float
    cy: float
    w: float
    rotate: float = 0.0
    shadow: bool = False

    def shifted(self, dx: float, dy: float) -> Thumb:
        return replace(self, cx=self.cx + dx, cy=self.cy + dy)


@dataclass(frozen=True)
class Mark:
    """A PDF destination at (x, y) and its entry in the outline (bookmarks): `level` 0 is
    the top; `key` is the destination's name."""

    key: str
    title: str
    level: int
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class Link:
    """A clickable area (x, y top left, w x h) going to the destination `key`."""

    key: str
    x: float
    y: float
    w: float
    h: float


# -- styles and the rulebook's blocks as strips -------------------------------------
class Styles:
    def next_key(self) -> int:
        """A fresh number for a heading's PDF destination."""
        self._keys += 1
        return self._keys

    def __init__(self, fonts: FontBook, accent: tuple, base: float = BODY_SIZE):
        serif = "Vollkorn" if fonts.has("Vollkorn") else None
        sans = "Lato" if fonts.has("Lato") else None
        self.base = base
        self.accent = accent
        self.accent_text = readable(accent)          # the accent as a text colour on white
        self._keys = 0
        # (`start`: flush left, and flush right in a paragraph of Hebrew or Arabic)
        self.body = TextStyle(sans, "regular", base, 1.32, INK, align="start")
        self.lead = TextStyle(serif, "italic", base * 1.12, 1.3, INK, align="start")
        self.bold = TextStyle(sans, "bold", base, 1.32, INK, align="start")
        self.small = TextStyle(sans, "regular", base * 0.84, 1.25, GREY, align="start")
        self.marker = TextStyle(sans, "bold", base, 1.32, self.accent_text, align="right")
        self.h = {1: TextStyle(serif, "bold", base * 1.65, 1.1, self.accent_text, align="start"),
                  2: TextStyle(serif, "bold", base * 1.3, 1.15, INK, align="start"),
                  3: TextStyle(sans, "bold", base * 1.08, 1.2, self.accent_text, align="start")}
        self.gap = base * 0.55           # between blocks


class Composer:
    """Turns rulebook blocks into strips of a given width (`cardgen.text.flow`), their text set
    by the text engine."""

    def __init__(self, ts: Typesetter, fonts: FontBook, st: Styles, width: float, designer_notes: bool = False,
                 pictures: Callable[[Figure], list[ops.CardLayout]] | None = None, words: Words = ENGLISH):
        self.ts, self.fonts, self.st, self.w = ts, fonts, st, width
        self.words = words      # cardgen's own words, in the language built
        self.smart = True       # rulebook text: curly quotes and dashes (off for card data)
        self.designer_notes = designer_notes   # print the designer's notes (`booklet: designer_notes`)
        self.pictures = pictures    # a figure's card sides, in order (the booklet's: `booklet.figure_sides`)

    def lines(self, text: str, style: TextStyle, w: float, x: float = 0.0) -> list[Strip]:
        """Text set in a column `w` wide from `x`, one strip per line."""
        if not str(text).strip():
            return []
        return strips(self.ts.set_lines(self.paragraphs(text), style, x, w), x, w)

    def paragraphs(self, text: str) -> list[Paragraph]:
        """The text's paragraphs, rulebook text with curly quotes and dashes (`smart`)."""
        problems: list[str] | None = None if self.ts.span_problems is None else []
        out = parse(self.smarten(str(text)) if self.smart else str(text), self.ts.styles, problems)
        if self.ts.pseudo:
            out = pseudo(out)
        for problem in problems or ():
            tag = _TAG.search(problem)
            self.ts.span_problems.setdefault(problem, tag.group(1) if tag else "")      # type: ignore[union-attr]
        return out

    def smarten(self, text: str) -> str:
        """Rulebook text with typographer's punctuation (`cardgen.text.punctuation`), unless
        the game turns it off (`smart_punctuation: false`)."""
        return smarten(text) if self.ts.punctuation else text

    def heading(self, title: str, level: int, anchor: str | None = None) -> Strip:
        style = self.st.h[min(level, 3)]
        s = merge(self.lines(title, style, self.w))
        key = f"sec:{anchor}" if anchor else f"h:{self.st.next_key()}:{plain(title)}"
        s.ops.insert(0, Mark(key, plain(title), min(level, 3) - 1))
        if level == 1:
            s.h += style.size * 0.25
            s.ops.append(ops.Line(0, s.h, self.w, s.h, self.st.accent, 0.8))
            s.h += style.size * 0.35
            s.space = self.st.base * 1.6
        else:
            s.h += style.size * 0.15
            s.space = self.st.base * (1.1 if level == 2 else 0.8)
        s.keep = True
        s.heading = True
        s.anchor = anchor
        return s

    def para(self, text: str, style: TextStyle | None = None) -> list[Strip]:
        strips = keep_lines(self.lines(text, style or self.st.body, self.w))
        if strips:
            strips[0].space = self.st.gap
            if plain(text).rstrip().endswith(":"):   # it introduces what follows
                strips[-1].keep = True
        return strips

    def items(self, items: list[str], numbered: bool, style: TextStyle | None = None,
              width: float | None = None) -> list[Strip]:
        st = self.st
        style = style or st.body
        width = width or self.w
        indent = style.size * (1.9 if numbered else 1.3)
        out = []
        for i, text in enumerate(items):
            lines = self.lines(text, style, width - indent, indent)
            if not lines:
                continue
            first = lines[0]
            if numbered:
                mk = replace(st.marker, size=style.size, leading=style.leading)
                mark = self.lines(f"{i + 1}.", mk, indent - style.size * 0.45)
                first.ops.extend(mark[0].ops)
            else:
                d = style.size * 0.32
                # the dot sits on the x-height of the first line
                base = next((r.baseline for op in first.ops if isinstance(op, ops.Text) for r in op.runs), first.h)
                first.ops.append(ops.Ellipse(style.size * 0.35, base - style.size * 0.36 - d / 2, d, d, st.accent))
            first.space = style.size * 0.28 if i else st.gap
            out.extend(keep_lines(lines))
        return out

    def table(self, tb: Table) -> list[Strip]:
        st = self.st
        pad = 1.6 * MM
        ncol = max([len(tb.header)] + [len(r) for r in tb.rows]) if (tb.header or tb.rows) else 0
        if not ncol:
            return []
        size = st.body.size * 0.95
        body = replace(st.body, size=size, leading=1.2)
        head = replace(st.bold, size=size, leading=1.2, color=on_colour(st.accent))
        natural = [0.0] * ncol
        for r, row in enumerate([tb.header, *tb.rows]):
            for c, cell_text in enumerate(row):
                style = head if (r == 0 and tb.header) else body
                set_w = self.ts.natural_width(self.paragraphs(cell_text), style) if str(cell_text).strip() else 0.0
                natural[c] = max(natural[c], set_w + 2 * pad + 1)
        widths = column_widths(natural, self.w)
        out = []
        rows = ([(tb.header, True)] if tb.header else []) + [(r, False) for r in tb.rows]
        for ri, (row, is_head) in enumerate(rows):
            style = head if is_head else body
            cells, h, x = [], 0.0, 0.0
            for c in range(ncol):
                text = row[c] if c < len(row) else ""
                # the first column and columns that wrap are set left, short ones centred
                align = "left" if c == 0 or natural[c] > widths[c] + 0.5 else "center"
                cell = merge(self.lines(text, replace(style, align=align),
                                             widths[c] - 2 * pad, x + pad))
                cells.append(cell)
                h = max(h, cell.h)
                x += widths[c]
            h += 2 * pad * 0.7
            strip = Strip(h)
            band = ri - (1 if tb.header else 0)
            if is_head:
                strip.ops.append(ops.Rect(0, 0, self.w, h, st.accent))
            elif band % 2 == 1:
                strip.ops.append(ops.Rect(0, 0, self.w, h, tint(st.accent, 0.9)))
            for cell in cells:
                strip.ops.extend(shift(op, 0, pad * 0.7) for op in cell.ops)
            if not is_head:
                strip.ops.append(ops.Line(0, h, self.w, h, tint(st.accent, 0.6), 0.4))
            out.append(strip)
        # a short table stays in one piece; a long one keeps its header with two rows, and its
        # header is set again at the top of every page it runs on to
        for k, strip in enumerate(out[:-1]):
            strip.keep = len(out) <= 12 or k < (3 if tb.header else 2)
        if tb.header:
            for strip in out[1:]:
                strip.repeat = out[0]
        out[0].space = st.gap * 1.4
        return out

    def callout(self, co: Callout) -> list[Strip]:
        st = self.st
        bar = 1.2 * MM
        inner_x = bar + 2.8 * MM
        inner_w = self.w - inner_x - 2.8 * MM
        tint = CALLOUT_TINT[co.kind]
        bar_col = CALLOUT_BAR[co.kind] or st.accent
        title = replace(st.bold, color=readable(bar_col, tint), size=st.body.size * 0.95)
        body = replace(st.body, style="italic" if co.kind == "example" else "regular", size=st.body.size * 0.95)
        lines = self.lines(co.title, title, inner_w, inner_x) if co.title else []
        if lines:
            lines = [merge(lines)]
            lines[0].keep = True
        lines += keep_lines(self.lines(co.text, body, inner_w, inner_x))
        lines = inset(lines, 2.2 * MM, 2.2 * MM)
        for s in lines:   # background and bar slices that join up across strips
            s.ops[:0] = [ops.Rect(0, 0, self.w, s.h, tint), ops.Rect(0, 0, bar, s.h, bar_col)]
        if lines:
            lines[0].space = st.gap * 1.5
            if len(lines) <= 8:          # a short box stays in one piece
                for s in lines[:-1]:
                    s.keep = True
        return lines

    def block(self, b) -> list[Strip]:
        if isinstance(b, Para):
            return self.para(b.text)
        if isinstance(b, ListBlock):
            return self.items(b.items, b.kind == "steps")
        if isinstance(b, Table):
            return self.table(b)
        if isinstance(b, Callout):
            return self.callout(b)
        if isinstance(b, DesignerNote):
            if not self.designer_notes:
                return []
            return self.callout(Callout("designer", self.words("Designer’s note"), b.text, b.loc))
        if isinstance(b, Section):
            return self.section(b)
        if isinstance(b, Figure):
            return self.figure(b)
        return []

    def figure(self, fig: Figure) -> list[Strip]:
        """A figure: its cards drawn as they print (`Thumb`), centred in the column, each
        `fig.width` wide (smaller where the figure would be wider than the column or higher than
        FIGURE_MAX_H), with their shadow, then its caption, kept with it."""
        sides = self.pictures(fig) if self.pictures is not None else []
        if not sides:
            return []
        w = fig.width * MM if fig.width else FIGURE_W[fig.kind]
        if fig.kind == "component":
            w = min(w, (self.w - FIGURE_GAP * (len(sides) - 1)) / len(sides))
        thumbs, fw, fh = self._figure_thumbs(fig.kind, sides, w)
        k = min(1.0, self.w / fw, FIGURE_MAX_H / fh)
        if k < 1.0:
            thumbs, fw, fh = self._figure_thumbs(fig.kind, sides, w * k)
        pad = 1.5 * MM          # (room for the shadow)
        strip = Strip(fh + 2 * pad, [t.shifted((self.w - fw) / 2, pad) for t in thumbs], space=self.st.gap * 1.5)
        caption = self.lines(fig.caption, replace(self.st.small, style="italic", align="center"), self.w)
        if caption:
            strip.keep = True
            caption = [merge(caption)]
            caption[0].space = self.st.base * 0.2
        return [strip, *caption]

    def _figure_thumbs(self, kind: str, sides: list[ops.CardLayout], w: float) -> tuple[list[Thumb], float, float]:
        """The figure's cards w wide, from (0, 0), and the width and height they take."""
        if kind == "hand":
            from cardgen.outputs.card_images import bounds, fan_layout

            h = w * sides[0].height / sides[0].width
            shapes = [s.shape for s in sides]
            placed, _ = fan_layout(shapes, w, h, min(w, h) * 0.05, 0)
            box = bounds(placed, shapes, w, h, min(w, h) * 0.05)
            return ([Thumb(s, p.cx - box[0], p.cy - box[1], w, p.angle, True) for s, p in zip(sides, placed)],
                    box[2] - box[0], box[3] - box[1])
        heights = [w * s.height / s.width for s in sides]
        fh = max(heights)
        thumbs = [Thumb(s, i * (w + FIGURE_GAP) + w / 2, fh / 2, w, 0.0, True) for i, s in enumerate(sides)]
        return thumbs, len(sides) * w + (len(sides) - 1) * FIGURE_GAP, fh

    def section(self, sec: Section) -> list[Strip]:
        out = [self.heading(sec.title, sec.level, sec.title if sec.level == 1 else None)]
        body = [b for b in sec.body if self.designer_notes or not isinstance(b, DesignerNote)]
        for k, b in enumerate(body):
            strips = self.block(b)
            # a short opening paragraph introduces the table or box after it: keep them together,
            # so that the table or box is never split away from its heading
            if (k == 0 and isinstance(b, Para) and 0 < len(strips) <= 3 and len(body) > 1
                    and isinstance(body[1], (Table, Callout))):
                strips[-1].keep = True
            # a heading keeps at least two lines of text below it
            if k == 0 and len(strips) == 1 and len(body) > 1:
                strips[0].keep = True
            out += strips
        return out


def column_widths(natural: list[float], width: float) -> list[float]:
    """A table's column widths from their natural widths: all of them widened alike to fill
    `width`; or, when they do not fit, the columns narrower than a fair share keep their width
    and the wide ones share the rest (and wrap)."""
    ncol = len(natural)
    total = sum(natural)
    if total <= width:
        return [n + (width - total) / ncol for n in natural]
    fixed: set[int] = set()
    while True:
        rest = [c for c in range(ncol) if c not in fixed]
        share = (width - sum(natural[c] for c in fixed)) / len(rest)
        narrow = [c for c in rest if natural[c] <= share]
        if not narrow or len(narrow) == len(rest):
            break
        fixed.update(narrow)
    free = width - sum(natural[c] for c in fixed)
    wide = sum(natural[c] for c in rest)
    return [natural[c] if c in fixed else free * natural[c] / wide for c in range(ncol)]


def tint(col, t: float):
    """`col` mixed with white (t = 1: white)."""
    return (col[0] + (1 - col[0]) * t, col[1] + (1 - col[1]) * t, col[2] + (1 - col[2]) * t, 1.0)



# -- pages and their drawing ------------------------------------------------------
@dataclass
class Page:
    """One page of a rulebook: its drawing operations."""

    ops: list = field(default_factory=list)   # page coordinates, y down, points


def render_pages(pages: list[Page], size: tuple[float, float], fonts: FontBook, title: str,
                 trim: tuple | None = None) -> bytes:
    """Pages of ops (y down, points) to a PDF with embedded fonts and fixed bytes."""
    from cardgen.render.draw import Drawer, new_canvas

    buf = io.BytesIO()
    c = new_canvas(buf, fonts, pagesize=size)
    c.setTitle(title)
    drawer = Drawer(c, fonts)
    W, H = size
    if trim:
        c.setBleedBox((0, 0, W, H))
        c.setTrimBox(trim)
    last_level = -1
    for page in pages:
        batch: list[ops.Op] = []

        def flush(batch: list[ops.Op]) -> None:
            if batch:
                drawer.draw_ops(ops.CardLayout(W, H, 0.0, list(batch)), 0.0, H)
                batch.clear()

        links = []
        for op in page.ops:
            if isinstance(op, Thumb):
                flush(batch)
                _draw_thumb(c, drawer, op, H)
            elif isinstance(op, Mark):
                c.bookmarkPage(op.key, fit="XYZ", left=0, top=H - op.y + 4, zoom=0)
                level = max(0, min(op.level, last_level + 1))
                c.addOutlineEntry(op.title, op.key, level=level, closed=False)
                last_level = level
            elif isinstance(op, Link):
                links.append(op)
            else:
                batch.append(op)
        flush(batch)
        for ln in links:
            c.linkAbsolute("", ln.key, (ln.x, H - ln.y - ln.h, ln.x + ln.w, H - ln.y), thickness=0)
        c.showPage()
    c.save()
    return buf.getvalue()


def _thumb_outline(c, shape: str, x: float, y: float, w: float, h: float, r: float, path: tuple = ()):
    """A thumbnail's outline as a path: its card's shape (a rounded rectangle for a card; a
    path piece's own outline, `path`, scaled to the box)."""
    from cardgen.model import svgpath
    from cardgen.model.components import HEXES, outline

    p = c.beginPath()
    if shape == "path" and path:
        _, _, bw, bh = svgpath.bounds(path)
        for poly in svgpath.polygons(path, 0.05):
            pts = [(x + px / bw * w, y + h - py / bh * h) for px, py in poly]
            p.moveTo(*pts[0])
            for pt in pts[1:]:
                p.lineTo(*pt)
            p.close()
    elif shape == "round":
        p.ellipse(x, y, w, h)
    elif shape in HEXES:
        pts = outline(shape, x, y, w, h)
        p.moveTo(*pts[0])
        for pt in pts[1:]:
            p.lineTo(*pt)
        p.close()
    else:
        p.roundRect(x, y, w, h, r)
    return p


def _draw_thumb(c, drawer: Drawer, t: Thumb, H: float) -> None:
    lay = t.layout
    name = drawer.card_form(lay)
    s = t.w / lay.width
    tw, th = lay.width * s, lay.height * s
    r = min(tw, th) * 0.05
    c.saveState()
    c.translate(t.cx, H - t.cy)
    c.rotate(-t.rotate)
    if t.shadow:
        c.setFillColorRGB(0, 0, 0)
        c.setFillAlpha(0.22)
        c.drawPath(_thumb_outline(c, lay.shape, -tw / 2 + 1.2, -th / 2 - 1.6, tw, th, r, lay.outline), stroke=0, fill=1)
        c.setFillAlpha(1)
    c.saveState()
    c.clipPath(_thumb_outline(c, lay.shape, -tw / 2, -th / 2, tw, th, r, lay.outline), stroke=0, fill=0)
    c.translate(-tw / 2 - lay.bleed * s, -th / 2 - lay.bleed * s)
    c.scale(s, s)
    c.doForm(name)
    c.restoreState()
    c.setStrokeColorRGB(0.55, 0.55, 0.55)
    c.setLineWidth(0.4)
    c.drawPath(_thumb_outline(c, lay.shape, -tw / 2, -th / 2, tw, th, r, lay.outline), stroke=1, fill=0)
    c.restoreState()


def accent_or_default(accent: tuple | None) -> tuple:
    """`accent`, or the default accent colour (DEFAULT_ACCENT) when there is none."""
    if accent:
        return accent
    default = color(DEFAULT_ACCENT)
    assert default is not None
    return default
