"""Rule-summary booklets and player aids, from the rulebook in `rules.yaml`.

Outputs: `booklet` (this module) and `player-aid` (`cardgen.outputs.player_aid`):
    rules.pdf                 A5 (or half-letter) pages: cover, components, the rules
    rules-booklet-<paper>.pdf the booklet imposed 2-up for saddle stitching
    player-aid.pdf            one poker-size card, front (turn) and back (end of game)

Options, in game.yaml's `booklet:` section (`BookletOptions`): `page` and `accent`.

Text goes through the cards' own `richtext.Typesetter` and `draw.Drawer`; real cards
appear as their card forms (`Drawer.card_form`).  Everything is laid out as "strips"
(one line of a paragraph, one table row, one heading) that flow down the pages, so long
paragraphs split between lines and headings stay with what follows them.
"""
from __future__ import annotations

import contextlib
import io
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cardgen.core.errors import CardgenError, Loc, plural
from cardgen.core.sizes import CARD_SIZES_MM, PAPER_SIZES_MM
from cardgen.core.units import MM, color
from cardgen.layout.rulebook import (  # noqa: F401
    Callout,
    DesignerNote,
    ListBlock,
    Para,
    Rulebook,
    Section,
    Table,
    has_rulebook,
    load_rulebook,
    rulebook_problems,
    smarten,
)
from cardgen.model import ops
from cardgen.outputs.base import Job, Output
from cardgen.resources.fonts import FontBook
from cardgen.resources.richtext import TextStyle, Typesetter, parse, plain
from cardgen.schema.core import Bool, Choice, Colour, Decl, opt

if TYPE_CHECKING:    # (the layout engine and ReportLab are imported when used: start-up time)
    from cardgen.layout.engine import Rendered
    from cardgen.render.draw import Drawer

BOOKLET_PAGES = ("a5", "half-letter")
DEFAULT_ACCENT = "#2b4a6f"


@dataclass(frozen=True, kw_only=True)
class BookletOptions(Decl):
    __what__ = "booklet options"

    page: str = opt(Choice(BOOKLET_PAGES), "page size of the rules booklet", "a5", cli="--booklet-page")
    accent: tuple | None = opt(Colour(), "colour of headings, rules, tables and the cover band (booklet and "
                                         "player aid); text in it is darkened where needed to keep a 4.5:1 "
                                         "contrast", color(DEFAULT_ACCENT), default_doc=f"`{DEFAULT_ACCENT}`")
    designer_notes: bool = opt(Bool(), "print the designer's notes (`designer_note:` in rules.yaml and deck "
                                       "files) in rules.pdf; otherwise only `validate` and `build` show them",
                               False, cli="--designer-notes")
INK = (0.12, 0.11, 0.10, 1.0)
GREY = (0.36, 0.36, 0.36, 1.0)
WHITE = (1.0, 1.0, 1.0, 1.0)
BLACK = (0.0, 0.0, 0.0, 1.0)
CALLOUT_TINT = {"example": (0.93, 0.95, 0.98, 1), "tip": (0.92, 0.97, 0.92, 1), "note": (0.99, 0.96, 0.88, 1),
                "designer": (0.94, 0.94, 0.94, 1)}
CALLOUT_BAR = {"example": None, "tip": (0.25, 0.55, 0.30, 1), "note": (0.80, 0.58, 0.15, 1),
               "designer": (0.45, 0.45, 0.45, 1)}
MIN_CONTRAST = 4.5          # text against what is behind it (WCAG AA for body text)

# The page: margins of the text block (inside the trim) and the bleed around the trim.
BLEED = 3.0 * MM
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = 14 * MM, 15 * MM, 17 * MM
BODY_SIZE = 9.5             # the body text size the booklet prefers (points)
# body sizes tried to fill whole sheets, nearest to BODY_SIZE first
BODY_SIZES = (9.5, 9.25, 9.75, 9.0, 10.0, 8.75, 10.25, 8.5, 10.5)
MIN_FILL = 0.25             # every page but the last holds at least this share of a full page


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


def shift(op, dx: float, dy: float):
    if isinstance(op, ops.Text):
        runs = tuple(replace(r, x=r.x + dx, baseline=r.baseline + dy) for r in op.runs)
        return replace(op, x=op.x + dx, y=op.y + dy, runs=runs)
    if isinstance(op, ops.Line):
        return replace(op, x1=op.x1 + dx, y1=op.y1 + dy, x2=op.x2 + dx, y2=op.y2 + dy)
    if isinstance(op, Thumb):
        return replace(op, cx=op.cx + dx, cy=op.cy + dy)
    return replace(op, x=op.x + dx, y=op.y + dy)


@dataclass
class Strip:
    """A slice of the page flow: `ops` relative to (content left, strip top)."""

    h: float
    ops: list = field(default_factory=list)
    space: float = 0.0          # space above it, dropped at the top of a page
    keep: bool = False          # keep on the same page as the next strip
    anchor: str | None = None   # a top-level section starts here (for the contents)
    heading: bool = False       # a heading: never the last thing on a page
    repeat: Strip | None = None  # set again above this strip when it starts a page (a table's header)


# -- styles -----------------------------------------------------------------------
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
        self.body = TextStyle(sans, "regular", base, 1.32, INK)
        self.lead = TextStyle(serif, "italic", base * 1.12, 1.3, INK)
        self.bold = TextStyle(sans, "bold", base, 1.32, INK)
        self.small = TextStyle(sans, "regular", base * 0.84, 1.25, GREY)
        self.marker = TextStyle(sans, "bold", base, 1.32, self.accent_text, align="right")
        self.h = {1: TextStyle(serif, "bold", base * 1.65, 1.1, self.accent_text),
                  2: TextStyle(serif, "bold", base * 1.3, 1.15, INK),
                  3: TextStyle(sans, "bold", base * 1.08, 1.2, self.accent_text)}
        self.gap = base * 0.55           # between blocks


class Composer:
    """Turns rulebook blocks into strips of a given width."""

    def __init__(self, ts: Typesetter, fonts: FontBook, st: Styles, width: float, designer_notes: bool = False):
        self.ts, self.fonts, self.st, self.w = ts, fonts, st, width
        self.smart = True       # rulebook text: curly quotes and dashes (off for card data)
        self.designer_notes = designer_notes   # print the designer's notes (`booklet: designer_notes`)

    # text -> one strip per line
    def lines(self, text: str, style: TextStyle, w: float, x: float = 0.0) -> list[Strip]:
        if not str(text).strip():
            return []
        runs, size, _ = self.ts.set(parse(smarten(str(text)) if self.smart else str(text)), style, x, 0.0, w, 1e7)
        face = self.fonts.face(style.family, style.style)
        lead = style.leading * size
        pad = (lead - (face.ascent + face.descent) * size) / 2
        baselines = sorted({round(r.baseline, 4) for r in runs})
        tops = [b - face.ascent * size - pad for b in baselines]
        out = []
        for i, b in enumerate(baselines):
            top = tops[i]
            h = (tops[i + 1] - top) if i + 1 < len(tops) else lead
            mine = tuple(replace(r, baseline=r.baseline - top) for r in runs if round(r.baseline, 4) == b)
            out.append(Strip(h, [ops.Text(x, 0.0, w, h, mine, size)]))
        return out

    @staticmethod
    def merge(strips: list[Strip]) -> Strip:
        """Several strips as one that never splits."""
        out = Strip(0.0)
        for s in strips:
            out.ops.extend(shift(op, 0, out.h) for op in s.ops)
            out.h += s.h
        return out

    @staticmethod
    def pad(strips: list[Strip], top: float, bottom: float) -> list[Strip]:
        if strips:
            first = strips[0]
            strips[0] = Strip(first.h + top, [shift(op, 0, top) for op in first.ops], first.space, first.keep,
                              first.anchor, first.heading)
            strips[-1].h += bottom
        return strips

    @staticmethod
    def keep_lines(strips: list[Strip]) -> list[Strip]:
        """No single first or last line of a paragraph alone on a page (no orphan, no widow)."""
        if len(strips) >= 2:
            strips[0].keep = True
            strips[-2].keep = True
        return strips

    def heading(self, title: str, level: int, anchor: str | None = None) -> Strip:
        style = self.st.h[min(level, 3)]
        s = self.merge(self.lines(title, style, self.w))
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
        strips = self.keep_lines(self.lines(text, style or self.st.body, self.w))
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
            out.extend(self.keep_lines(lines))
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
                face = self.fonts.face(style.family, style.style)
                natural[c] = max(natural[c], self.fonts.width(plain(cell_text), face.name, size) + 2 * pad + 1)
        total = sum(natural)
        if total <= self.w:
            widths = [n + (self.w - total) / ncol for n in natural]
        else:
            # columns narrower than a fair share keep their width; the wide ones share the rest and wrap
            fixed: set[int] = set()
            while True:
                rest = [c for c in range(ncol) if c not in fixed]
                share = (self.w - sum(natural[c] for c in fixed)) / len(rest)
                narrow = [c for c in rest if natural[c] <= share]
                if not narrow or len(narrow) == len(rest):
                    break
                fixed.update(narrow)
            free = self.w - sum(natural[c] for c in fixed)
            wide = sum(natural[c] for c in rest)
            widths = [natural[c] if c in fixed else free * natural[c] / wide for c in range(ncol)]
        out = []
        rows = ([(tb.header, True)] if tb.header else []) + [(r, False) for r in tb.rows]
        for ri, (row, is_head) in enumerate(rows):
            style = head if is_head else body
            cells, h, x = [], 0.0, 0.0
            for c in range(ncol):
                text = row[c] if c < len(row) else ""
                # the first column and columns that wrap are set left, short ones centred
                align = "left" if c == 0 or natural[c] > widths[c] + 0.5 else "center"
                cell = self.merge(self.lines(text, replace(style, align=align),
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
                strip.ops.append(ops.Rect(0, 0, self.w, h, _tint(st.accent, 0.9)))
            for cell in cells:
                strip.ops.extend(shift(op, 0, pad * 0.7) for op in cell.ops)
            if not is_head:
                strip.ops.append(ops.Line(0, h, self.w, h, _tint(st.accent, 0.6), 0.4))
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
            lines = [self.merge(lines)]
            lines[0].keep = True
        lines += self.keep_lines(self.lines(co.text, body, inner_w, inner_x))
        lines = self.pad(lines, 2.2 * MM, 2.2 * MM)
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
            return self.callout(Callout("designer", "Designer\u2019s note", b.text, b.loc))
        if isinstance(b, Section):
            return self.section(b)
        return []

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


def _tint(col, t: float):
    """`col` mixed with white (t = 1: white)."""
    return (col[0] + (1 - col[0]) * t, col[1] + (1 - col[1]) * t, col[2] + (1 - col[2]) * t, 1.0)


# -- page flow --------------------------------------------------------------------
_EPS = 0.01


def flow(strips: list[Strip], height: float) -> list[list[tuple[float, Strip]]]:
    """Place strips down pages `height` tall: [[(y, strip), ...] per page].

    A run of strips joined by `keep` moves to the next page as a whole when it does not fit;
    a run taller than a page is split where it must, but never right after a heading."""
    pages: list[list[tuple[float, Strip]]] = [[]]
    y = 0.0
    i = 0
    while i < len(strips):
        j = i
        while strips[j].keep and j + 1 < len(strips):   # the group kept together
            j += 1
        group = strips[i:j + 1]
        alone = group[0].h + sum(s.space + s.h for s in group[1:])     # at the top of a page
        if group[0].repeat is not None:
            alone += group[0].repeat.h                                  # under its table's header
        if pages[-1] and y + group[0].space + alone > height + _EPS and alone <= height + _EPS:
            pages.append([])
            y = 0.0
        if (not pages[-1] and alone <= height + _EPS) or (pages[-1] and y + group[0].space + alone
                                                            - (group[0].repeat.h if group[0].repeat else 0.0)
                                                            <= height + _EPS):
            for s in group:
                y = _place(pages[-1], s, y)
        else:
            for s in group:      # taller than a page: split it
                if pages[-1] and y + (s.space if pages[-1] else 0.0) + s.h > height + _EPS:
                    carry: list[Strip] = []
                    while pages[-1] and pages[-1][-1][1].heading:     # a heading goes with what follows
                        carry.insert(0, pages[-1].pop()[1])
                    pages.append([])
                    y = 0.0
                    for c in carry:
                        y = _place(pages[-1], c, y)
                y = _place(pages[-1], s, y)
        i = j + 1
    return [p for p in pages if p] or [[]]


def _place(page: list[tuple[float, Strip]], s: Strip, y: float) -> float:
    """Put `s` on `page` below `y` (its space dropped at the top of the page, a table's header
    set again above a row that starts the page); the new bottom."""
    if not page and s.repeat is not None:
        page.append((0.0, s.repeat))
        y = s.repeat.h
    space = s.space if page else 0.0
    page.append((y + space, s))
    return y + space + s.h


def page_fill(placed: list[tuple[float, Strip]], height: float) -> float:
    """How much of a page `height` tall the placed strips take (0 to 1)."""
    return max((y + s.h for y, s in placed), default=0.0) / height


# -- the booklet ------------------------------------------------------------------
@dataclass
class Page:
    ops: list = field(default_factory=list)   # page coordinates, y down, points


@dataclass
class Parts:
    """The booklet's text, composed at one body size."""

    base: float
    comp: Composer
    components: list[Strip]
    contents: list[Strip]       # with every page number 0 (the numbers do not change the heights)
    rules: list[Strip]


@dataclass
class Plan:
    """One way to paginate the booklet: the content pages (between the cover and the back
    matter), the back matter pages, and what the layout costs (lower is better)."""

    parts: Parts
    pages: list[list[tuple[float, Strip]]]
    back: tuple[str, ...]       # after the content: "reference", "notes", then "back" (the back cover)
    cost: float


def _card_unfinished(card, lay: ops.CardLayout) -> int:
    """0 for a finished card; more for placeholder art ("art to come") or text still to come."""
    art = any(isinstance(op, ops.Placeholder) for op in lay.ops)
    fields = getattr(card, "fields", {}) or {}
    text = bool(fields.get("todo")) or bool(fields.get("placeholder"))
    return 2 * art + text


def faces_by_deck(r: Rendered) -> dict[str, list]:
    """Deck name -> [(card, face layout)], in deck order."""
    by_deck: dict[str, list] = {}
    for deck, card, lay in r.faces:
        by_deck.setdefault(deck.name, []).append((card, lay))
    return by_deck


def fan_cards(r: Rendered) -> list[ops.CardLayout]:
    """Up to five cards for the cover, finished ones (no "art to come" placeholder, no text
    to come) from as many decks and kinds of card as there are; unfinished ones only to
    make up three, those with placeholder art last."""
    lists = [[(name, card, lay) for card, lay in sorted(v, key=lambda cl: _card_unfinished(*cl))]
             for name, v in faces_by_deck(r).items() if v]
    order: list = []
    k = 0
    while any(k < len(v) for v in lists):
        order += [v[k] for v in lists if k < len(v)]
        k += 1
    chosen: list = []
    kinds: set = set()
    # (most unfinished allowed, how many to reach, one card per deck and kind)
    for level, limit, distinct in ((0, 5, True), (0, 3, False), (1, 3, True), (1, 3, False), (3, 3, False)):
        for name, card, lay in order:
            f = card.fields or {}
            kind = (name, str(f.get("kind") or f.get("type") or ""))
            if (len(chosen) < limit and _card_unfinished(card, lay) <= level and all(lay is not c for c in chosen)
                    and not (distinct and kind in kinds)):
                chosen.append(lay)
                kinds.add(kind)
    return chosen


def box_faces(r: Rendered) -> dict[str, ops.CardLayout]:
    """Each deck's most finished card (the first of the most finished), for "In the box"."""
    return {name: min(v, key=lambda cl: _card_unfinished(*cl))[1] for name, v in faces_by_deck(r).items() if v}


def pictured(r: Rendered) -> list[ops.CardLayout]:
    """Every card face the booklet shows: the cover's fan, each deck's first card (the
    components) and its most finished one (in the box)."""
    return [*fan_cards(r), *(v[0][1] for v in faces_by_deck(r).values() if v), *box_faces(r).values()]


class BookletMaker:
    def __init__(self, r: Rendered, book: Rulebook, page: str, accent: tuple | None, designer_notes: bool = False):
        self.r, self.book = r, book
        self.fonts = r.res.fonts
        self.ts = r.res.typesetter
        self.pw, self.ph = (v * MM for v in PAPER_SIZES_MM[page])
        self.accent = accent_or_default(accent)
        self.on_accent = on_colour(self.accent)
        self.designer_notes = designer_notes
        self.mx, self.top, self.bottom = MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM
        self.cw = self.pw - 2 * self.mx
        self.ch = self.ph - self.top - self.bottom
        self.st = Styles(self.fonts, self.accent)
        self.comp = self.composer(BODY_SIZE)

    def composer(self, base: float) -> Composer:
        return Composer(self.ts, self.fonts, Styles(self.fonts, self.accent, base), self.cw, self.designer_notes)

    # faces of each deck, in deck order
    def _faces(self):
        return faces_by_deck(self.r)

    def fan_cards(self) -> list[ops.CardLayout]:
        return fan_cards(self.r)

    def cover(self) -> Page:
        st, pw, ph = self.st, self.pw, self.ph
        ink = self.on_accent
        p = Page()
        band = 62 * MM
        p.ops.append(ops.Rect(-BLEED, -BLEED, pw + 2 * BLEED, band + BLEED, self.accent))   # runs into the bleed
        title = replace(st.h[1], size=30, color=ink, align="center", leading=1.05)
        lines = self.comp.lines(self.book.title, title, pw - 20 * MM, 10 * MM)
        y = 17 * MM
        for s in lines:
            p.ops += [shift(op, 0, y) for op in s.ops]
            y += s.h
        if self.book.subtitle:
            sub = replace(st.lead, color=ink, align="center", size=11.5)
            for s in self.comp.lines(self.book.subtitle, sub, pw - 24 * MM, 12 * MM):
                p.ops += [shift(op, 0, y + 2 * MM) for op in s.ops]
                y += s.h
        # the fan: cards turned about a point below them, like a hand of cards
        cards = self.fan_cards()
        n = len(cards)
        if n:
            card_w = min(36 * MM, pw * 0.26)
            step = 11.0 if n > 3 else 15.0
            radius = 90 * MM
            pivot_y = band + 56 * MM + radius
            for i, lay in enumerate(cards):
                a = (i - (n - 1) / 2) * step
                cx = pw / 2 + radius * math.sin(math.radians(a))
                cy = pivot_y - radius * math.cos(math.radians(a))
                p.ops.append(Thumb(lay, cx, cy, card_w, a, True))
        y = ph - 48 * MM
        info = self.info()
        if info:
            for s in self.comp.lines(info, replace(st.bold, size=12, align="center"), pw - 20 * MM, 10 * MM):
                p.ops += [shift(op, 0, y) for op in s.ops]
                y += s.h
        y += 2 * MM
        for text, style in ((self.credits(), replace(st.small, align="center")),
                            ("Rules summary", replace(st.small, style="bold", align="center",
                                                      color=st.accent_text))):
            if text:
                self.comp.smart = False         # names and versions as typed ("v1-2-g0c1d", not an en dash)
                for s in self.comp.lines(text, style, pw - 20 * MM, 10 * MM):
                    p.ops += [shift(op, 0, y) for op in s.ops]
                    y += s.h
                self.comp.smart = True
        return p

    def info(self) -> str:
        """"2-4 players · 30 min · ages 10+" from the rulebook (or game.yaml)."""
        players = str(self.book.players or "")
        if players and re.fullmatch(r"[\d\s+\-–]+", players):
            players = f"{players} players"          # "2-4" -> "2-4 players"
        elif players:
            players = f"Players: {players}"        # "set by the scenario"
        return "  ·  ".join(x for x in (players, self.book.play_time,
                                        f"ages {self.book.ages}" if self.book.ages else "") if x)

    def credits(self) -> str:
        gd, version = self.r.game.data, self.r.game.version     # game.yaml's, else git's
        return " · ".join(x for x in (f"Designed by {gd['designer']}" if gd.get("designer") else "",
                                      f"Version {version}" if version else "") if x)

    def components(self, c: Composer) -> list[Strip]:
        out = [c.heading("Components", 1)]
        c.smart = False         # deck names and descriptions are card data: as typed
        try:
            out += self._component_strips(c)
        finally:
            c.smart = True
        return out

    def _items(self) -> list[str]:
        """The `item:` components of rules.yaml, as list entries."""
        items = []
        for entry in (self.r.game.rules or {}).get("components") or []:
            if isinstance(entry, dict) and "item" in entry:
                n = entry.get("count")
                name = str(entry["item"])
                if isinstance(n, int) and not isinstance(n, bool):
                    items.append(f"**{n}** {name}")
                elif n in (None, ""):
                    items.append(name)
                else:
                    items.append(f"{name} (count still to be decided)")
        return items

    def _component_strips(self, c: Composer) -> list[Strip]:
        st = c.st
        out: list[Strip] = []
        by_deck = self._faces()
        thumb_w = 15 * MM
        for deck in self.r.game.decks:
            faces = by_deck.get(deck.name) or []
            lay = faces[0][1] if faces else None
            th = thumb_w * (deck.size.height / deck.size.width) if lay else 8 * MM
            tx = thumb_w + 5 * MM
            kinds = len(deck.cards)
            lines = c.lines(f"**{deck.name}** — {plural(deck.count, 'card')}", replace(st.body, size=st.base * 1.08),
                            self.cw - tx, tx)
            detail = f"{kinds} different · {deck.size.label}"
            lines += c.lines(detail, st.small, self.cw - tx, tx)
            desc = deck.data.get("description")
            if desc:
                # the deck's description is prose for the booklet: typeset it (the cards keep theirs)
                lines += c.lines(smarten(str(desc)), replace(st.small, color=INK), self.cw - tx, tx)
            note = deck.data.get("designer_note")
            if note and self.designer_notes:
                lines += c.lines(f"*Designer\u2019s note: {smarten(str(note))}*", replace(st.small, color=GREY),
                                 self.cw - tx, tx)
            text = c.merge(lines)
            h = max(th, text.h) + 2.5 * MM
            s = Strip(h, [shift(op, 0, 1.2 * MM) for op in text.ops], space=st.gap)
            if lay is not None:
                s.ops.append(Thumb(lay, thumb_w / 2 + 1 * MM, h / 2, thumb_w, 0.0, False))
            s.ops.append(ops.Line(0, h, self.cw, h, _tint(st.accent, 0.7), 0.4))
            out.append(s)
        items = self._items()
        if items:
            out.append(c.heading("Also needed", 3))
            out += c.items(items, False)
        return out

    def contents(self, c: Composer, starts: dict[str, int]) -> list[Strip]:
        """The contents list, kept on one page; `starts`: top-level section -> its page number."""
        st = c.st
        out = [c.heading("Contents", 2)]
        for sec in self.book.sections:
            num = starts.get(sec.title, 0)
            left = c.lines(sec.title, st.body, self.cw - 12 * MM)
            right = c.lines(str(num), replace(st.bold, align="right", color=st.accent_text), 12 * MM,
                            self.cw - 12 * MM)
            s = c.merge(left)
            s.ops += right[0].ops
            s.ops.append(ops.Line(0, s.h, self.cw, s.h, _tint(st.accent, 0.75), 0.3, (0.6, 1.8)))
            s.ops.append(Link(f"sec:{sec.title}", 0, 0, self.cw, s.h))
            s.space = st.base * 0.15
            out.append(s)
        for s in out[:-1]:
            s.keep = True
        return out

    def rules(self, c: Composer) -> list[Strip]:
        out = []
        if self.book.intro:
            out += c.para(self.book.intro, c.st.lead)
            out[0].space = c.st.base * 1.6   # set off from the contents or components above it
            out[-1].keep = True         # the lead paragraph opens the rules: it stays with the first section
        for sec in self.book.sections:
            out += c.section(sec)
        return out

    def parts(self, base: float) -> Parts:
        c = self.composer(base)
        return Parts(base, c, self.components(c), self.contents(c, {}), self.rules(c))

    # -- pagination: whole sheets, no blank pages -----------------------------------------
    def plans(self, parts: Parts) -> list[Plan]:
        """Every way to paginate `parts`: contents before or after the components (or none),
        the rules on a new page or right after, and back matter to fill the last sheet."""
        from cardgen.render.impose_booklet import padded

        out = []
        aid = bool(self.book.player_aid and (self.book.player_aid.turn or self.book.player_aid.end))
        fronts = {"none": parts.components}
        if self.book.sections:
            fronts.update({"after": parts.components + parts.contents, "before": parts.contents + parts.components})
        for where, front in fronts.items():
            for new_page in (True, False):
                pages = (flow(front, self.ch) + flow(parts.rules, self.ch)) if new_page \
                    else flow(front + parts.rules, self.ch)
                n = 1 + len(pages)
                total = padded(n)
                extra = total - n
                back = (("back",), ("reference" if aid else "notes", "back"),
                        ("reference" if aid else "notes", "notes", "back"))[extra - 1] if extra else ()
                cost = 100.0 * total + 4 * abs(parts.base - BODY_SIZE)
                if len(fronts) > 1 and (where != "none") != (total >= 8):
                    cost += 1000.0          # a contents list from 8 pages on, never below
                cost += (1.5, 0.0, 2.0 if aid else 6.0, 12.0)[extra]
                cost += (0.0 if new_page else 1.0) + (0.5 if where == "before" else 0.0)
                for k, placed in enumerate(pages):
                    f = page_fill(placed, self.ch)
                    last_page = k == len(pages) - 1 and not back
                    if f < MIN_FILL and not last_page:
                        cost += 300.0
                    elif f < 0.6 and k < len(pages) - 1:      # a half-empty page mid-book looks unfinished
                        cost += (0.6 - f) * 10
                    elif f < 0.5 and last_page:       # the outside back of the booklet, nearly empty
                        cost += (0.5 - f) * 8
                out.append(Plan(parts, pages, back, cost))
        return out

    def plan(self) -> Plan:
        """The cheapest pagination over the body sizes in BODY_SIZES."""
        best: Plan | None = None
        for base in BODY_SIZES:
            for plan in self.plans(self.parts(base)):
                if best is None or plan.cost < best.cost - 1e-9:
                    best = plan
        assert best is not None
        return best

    def pages(self) -> list[Page]:
        """Every page of rules.pdf, in page coordinates with the bleed (y down, points)."""
        plan = self.plan()
        parts = plan.parts
        c = parts.comp
        starts: dict[str, int] = {}
        for pi, placed in enumerate(plan.pages):
            for _, s in placed:
                if s.anchor and s.anchor not in starts:
                    starts[s.anchor] = pi + 2
        numbered = dict(zip(map(id, parts.contents), self.contents(c, starts)))
        out = [self.cover()]
        for num, placed in enumerate(plan.pages, 2):
            page = Page()
            for y, s in placed:
                s = numbered.get(id(s), s)
                page.ops += [shift(op, self.mx, self.top + y) for op in s.ops]
            self.footer(page, num, c.st)
            out.append(page)
        reference = "reference" in plan.back
        for what in plan.back:
            num = len(out) + 1
            if what == "back":
                out.append(self.back_cover(parts.base, show_aid=not reference))
            else:
                page = self.reference_page(parts.base) if what == "reference" else self.notes_page(c)
                self.footer(page, num, c.st)
                out.append(page)
        return [Page([shift(op, BLEED, BLEED) for op in p.ops]) for p in out]

    # -- back matter ------------------------------------------------------------------------
    def _fit(self, make, height: float, base: float) -> list[tuple[float, Strip]] | None:
        """The strips `make(composer)` gives, placed at the largest body size up to `base` at which
        they fit one page `height` tall (down to 6.5 pt); None when they do not fit even then."""
        size = base
        while True:
            placed = flow(make(self.composer(size)), height)
            if len(placed) == 1:
                return placed[0]
            if size <= 6.5:
                return None
            size -= 0.25

    def _aid_strips(self, c: Composer, title: str | None) -> list[Strip]:
        aid = self.book.player_aid
        out: list[Strip] = [c.heading(title, 1)] if title else []
        if aid is None:
            return out
        for sub, items, numbered in (("Your turn", aid.turn, True), ("End of the game", aid.end, False),
                                     ("Remember", aid.notes, False)):
            if items:
                h = c.heading(sub, 2)
                if not out:
                    h.space = 0.0
                out += [h, *c.items(items, numbered)]
        return out

    def _box_strips(self, c: Composer, columns: int = 0) -> list[Strip]:
        """What is in the box: a grid of the decks (a finished card of each, its count and name
        below), then the other components as a list; with `columns`, everything as a list in
        that many columns, top to bottom then across."""
        st = c.st
        if columns:
            c.smart = False
            try:
                texts = [f"**{d.count}** {d.name}" for d in self.r.game.decks] + self._items()
                gap = 5 * MM
                width = (self.cw - gap * (columns - 1)) / columns
                entries = [c.merge(c.items([t], False, width=width)) for t in texts]
                per = -(-len(entries) // columns)
                listing = [c.heading("In the box", 1)]
                for i in range(per):
                    line = Strip(0.0, space=st.base * 0.28 if i else st.gap)
                    for j in range(columns):
                        if i + j * per < len(entries):
                            e = entries[i + j * per]
                            line.ops += [shift(op, j * (width + gap), 0) for op in e.ops]
                            line.h = max(line.h, e.h)
                    listing.append(line)
                return listing
            finally:
                c.smart = True
        faces = box_faces(self.r)
        decks = self.r.game.decks
        cols = max(1, min(4, len(decks)))
        if len(decks) in (5, 6):
            cols = 3
        gap = 4 * MM
        tw = min(st.base / (BODY_SIZE * 1.15) * 30 * MM, (self.cw - gap * (cols - 1)) / cols)
        out: list[Strip] = [c.heading("In the box", 1)]
        label = replace(st.small, size=st.base * 0.95, color=INK, align="center")
        c.smart = False
        try:
            for r0 in range(0, len(decks), cols):
                row = decks[r0:r0 + cols]
                x0 = (self.cw - (len(row) * tw + (len(row) - 1) * gap)) / 2
                ch = max(tw * d.size.height / d.size.width for d in row)
                strip = Strip(0.0, space=st.gap * 2)
                lab_h = 0.0
                for k, d in enumerate(row):
                    x = x0 + k * (tw + gap)
                    h = tw * d.size.height / d.size.width
                    lay = faces.get(d.name)
                    if lay is not None:
                        strip.ops.append(Thumb(lay, x + tw / 2, ch / 2, tw, 0.0, True))
                    text = c.merge(c.lines(f"**{d.count}** {d.name}", label, tw + gap * 0.8, x - gap * 0.4))
                    strip.ops += [shift(op, 0, ch + 1.5 * MM) for op in text.ops]
                    lab_h = max(lab_h, text.h)
                    del h
                strip.h = ch + 1.5 * MM + lab_h
                out.append(strip)
            items = self._items()
            if items:
                out.append(c.heading("Also needed", 3))
                out += c.items(items, False)
        finally:
            c.smart = True
        return out

    def reference_page(self, base: float) -> Page:
        """A page of quick reference (the player aid's turn, end of game and reminders)."""
        page = Page()
        placed = self._fit(lambda c: self._aid_strips(c, "Quick reference"), self.ch, base)
        # (a player aid fits a poker card, so it always fits a page)
        for y, s in placed or flow(self._aid_strips(self.composer(6.5), "Quick reference"), self.ch)[0]:
            page.ops += [shift(op, self.mx, self.top + y) for op in s.ops]
        return page

    def notes_page(self, c: Composer) -> Page:
        """A ruled page for the players' notes."""
        page = Page()
        head = c.heading("Notes", 1)
        page.ops += [shift(op, self.mx, self.top) for op in head.ops]
        y = self.top + head.h + 9 * MM
        while y < self.ph - self.bottom - 2 * MM:
            page.ops.append(ops.Line(self.mx, y, self.pw - self.mx, y, _tint(self.accent, 0.6), 0.4))
            y += 8 * MM
        return page

    def back_cover(self, base: float, show_aid: bool) -> Page:
        """The back cover: the turn in short (or what is in the box) above a band in the accent
        colour with the title, like the front."""
        st, pw, ph = self.st, self.pw, self.ph
        ink = self.on_accent
        band = 44 * MM
        p = Page()
        p.ops.append(ops.Rect(-BLEED, ph - band, pw + 2 * BLEED, band + BLEED, self.accent))
        aid = self.book.player_aid
        has_aid = bool(aid and (aid.turn or aid.end))

        def make(c: Composer) -> list[Strip]:
            return self._aid_strips(c, "At a glance") if (show_aid and has_aid) else self._box_strips(c)

        # a little larger than the body text, centred in the space above the band; decks too many
        # for their pictures are listed by name
        height = ph - band - self.top - 10 * MM
        placed = (self._fit(make, height, base * 1.15)
                  or self._fit(lambda c: self._box_strips(c, 1), height, base * 1.15)
                  or self._fit(lambda c: self._box_strips(c, 2), height, base * 1.15)
                  or flow(self._box_strips(self.composer(6.5), 3), height)[0])
        top = self.top + max(0.0, (height - page_fill(placed, height) * height) / 2)
        for y, s in placed:
            p.ops += [shift(op, self.mx, top + y) for op in s.ops]
        y = ph - band + 11 * MM
        for s in self.comp.lines(self.book.title, replace(st.h[1], size=20, color=ink, align="center"),
                                 pw - 20 * MM, 10 * MM):
            p.ops += [shift(op, 0, y) for op in s.ops]
            y += s.h
        # the rulebook's words with real dashes (an en dash in "2-4 players"), names and versions as typed
        line = "  ·  ".join(x for x in ("Rules summary", smarten(self.info()), self.credits()) if x)
        self.comp.smart = False
        for s in self.comp.lines(line, replace(st.small, size=8, color=ink, align="center"), pw - 20 * MM, 10 * MM):
            p.ops += [shift(op, 0, y + 1.5 * MM) for op in s.ops]
            y += s.h
        self.comp.smart = True
        return p

    def footer(self, page: Page, num: int, st: Styles | None = None) -> None:
        st = st or self.st
        y = self.ph - 11 * MM
        page.ops.append(ops.Line(self.mx, y - 2.5 * MM, self.pw - self.mx, y - 2.5 * MM, _tint(st.accent, 0.6), 0.4))
        odd = num % 2 == 1   # right-hand page: number on the outside right
        num_style = replace(self.st.bold, size=9, color=st.accent_text, align="right" if odd else "left")
        ttl_style = replace(self.st.small, size=7.5, align="left" if odd else "right")
        for s in self.comp.lines(str(num), num_style, 20 * MM, self.pw - self.mx - 20 * MM if odd else self.mx):
            page.ops += [shift(op, 0, y) for op in s.ops]
        for s in self.comp.lines(f"{self.book.title} · rules summary", ttl_style, self.cw - 25 * MM,
                                 self.mx if odd else self.mx + 25 * MM):
            page.ops += [shift(op, 0, y + 0.4 * MM) for op in s.ops]


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


def _draw_thumb(c, drawer: Drawer, t: Thumb, H: float) -> None:
    lay = t.layout
    name = drawer.card_form(lay)
    s = t.w / lay.width
    tw, th = lay.width * s, lay.height * s
    r = min(tw, th) * 0.05
    rnd = lay.shape == "round"
    c.saveState()
    c.translate(t.cx, H - t.cy)
    c.rotate(-t.rotate)
    if t.shadow:
        c.setFillColorRGB(0, 0, 0)
        c.setFillAlpha(0.22)
        if rnd:
            c.ellipse(-tw / 2 + 1.2, -th / 2 - 1.6, tw / 2 + 1.2, th / 2 - 1.6, stroke=0, fill=1)
        else:
            c.roundRect(-tw / 2 + 1.2, -th / 2 - 1.6, tw, th, r, stroke=0, fill=1)
        c.setFillAlpha(1)
    c.saveState()
    p = c.beginPath()
    if rnd:
        p.ellipse(-tw / 2, -th / 2, tw, th)
    else:
        p.roundRect(-tw / 2, -th / 2, tw, th, r)
    c.clipPath(p, stroke=0, fill=0)
    c.translate(-tw / 2 - lay.bleed * s, -th / 2 - lay.bleed * s)
    c.scale(s, s)
    c.doForm(name)
    c.restoreState()
    c.setStrokeColorRGB(0.55, 0.55, 0.55)
    c.setLineWidth(0.4)
    if rnd:
        c.ellipse(-tw / 2, -th / 2, tw / 2, th / 2, stroke=1, fill=0)
    else:
        c.roundRect(-tw / 2, -th / 2, tw, th, r, stroke=1, fill=0)
    c.restoreState()


# -- the player aid ---------------------------------------------------------------
AID_SIZE = CARD_SIZES_MM["poker"]
AID_BLEED = 3.175


AID_MAX_SIZE, AID_MIN_SIZE = 11.0, 5.0     # text sizes of the player aid (points)
AID_BALANCE = 1.2                          # the larger side's text at most this times the other's


def player_aid_pages(r: Rendered, book: Rulebook, accent: tuple) -> list[Page]:
    """The player aid's front (the turn) and back (the end of the game, reminders). Each side's
    text is set as large as fits (up to AID_MAX_SIZE) and the room left is shared out between
    the items and around them, so that both sides fill the card. The reminders go on the front
    when that balances the two sides better."""
    aid = book.player_aid
    assert aid is not None, "player_aid_pages() needs a rulebook with a player aid"
    fonts, ts = r.res.fonts, r.res.typesetter
    B = AID_BLEED * MM
    w, h = AID_SIZE[0] * MM, AID_SIZE[1] * MM
    inner = 4.5 * MM
    cw = w - 2 * inner
    band = 11 * MM
    avail = h - band - inner - 4 * MM
    ink = on_colour(accent)

    def compose(parts: Sequence[tuple[str | None, list[str], bool]], largest: float = AID_MAX_SIZE
                ) -> tuple[float, list[Strip], Composer]:
        base = largest
        while True:   # the largest text size at which everything fits
            comp = Composer(ts, fonts, Styles(fonts, accent, base), cw)
            strips: list[Strip] = []
            for sub, items, numbered in parts:
                if not items:
                    continue
                if sub:
                    hs = comp.heading(sub, 3)
                    strips.append(hs)
                strips += comp.items(items, numbered)
            if strips:
                strips[0].space = 0.0
            total = sum(s.h + s.space for s in strips)
            if total <= avail or base <= AID_MIN_SIZE:
                return base, strips, comp
            base = round(base - 0.25, 2)

    def side(heading: str, base: float, strips: list[Strip], comp: Composer) -> Page:
        p = Page()
        p.ops.append(ops.Rect(0, 0, w + 2 * B, h + 2 * B, WHITE))
        p.ops.append(ops.Rect(0, 0, w + 2 * B, B + band, accent))
        p.ops.append(ops.Rect(B + 2 * MM, B + 2 * MM, w - 4 * MM, h - 4 * MM, None, accent, 0.8, 2.5 * MM))
        head = Styles(fonts, accent, 8)
        for s in comp.lines(book.title.upper(), replace(head.small, size=6.5, color=ink, align="center",
                                                         style="bold"), cw, B + inner):
            p.ops += [shift(op, 0, B + 1.5 * MM) for op in s.ops]
        for s in comp.lines(heading, replace(head.h[1], size=12.5, color=ink, align="center"), cw, B + inner):
            p.ops += [shift(op, 0, B + 4.2 * MM) for op in s.ops]
        # the room left: shared between the items (up to a line's worth each), the rest above and below
        spare = avail - sum(s.h + s.space for s in strips)
        gaps = [k for k, s in enumerate(strips) if k and s.space > 0]
        each = min(spare / len(gaps), base * 1.1) if gaps and spare > 0 else 0.0
        y = B + band + 3 * MM + max(0.0, spare - each * len(gaps)) / 2
        for k, s in enumerate(strips):
            y += s.space + (each if k in gaps else 0.0)
            p.ops += [shift(op, B + inner, y) for op in s.ops]
            y += s.h
        return p

    Part = tuple[str | None, list[str], bool]
    parts: list[tuple[list[Part], list[Part]]] = [
        ([(None, aid.turn, True)], [(None, aid.end, False), ("Remember", aid.notes, False)])]
    if aid.notes and aid.end:
        parts.append(([(None, aid.turn, True), ("Remember", aid.notes, False)], [(None, aid.end, False)]))
    options = [(compose(f), compose(b)) for f, b in parts]
    # the larger of the two sides' smaller text sizes; then the closer sizes
    best = max(range(len(options)), key=lambda i: (min(options[i][0][0], options[i][1][0]),
                                                    -abs(options[i][0][0] - options[i][1][0])))
    front, back = options[best]
    front_parts, back_parts = parts[best]
    # the two sides of one card in about the same type: neither more than AID_BALANCE x the other
    if back[0] > front[0] * AID_BALANCE:
        back = compose(back_parts, round(front[0] * AID_BALANCE * 4) / 4)
    elif front[0] > back[0] * AID_BALANCE:
        front = compose(front_parts, round(back[0] * AID_BALANCE * 4) / 4)
    fh, bh = "Your turn", "End of the game"
    return [side(fh, *front), side(bh, *back)]


# -- the outputs ------------------------------------------------------------------
def accent_or_default(accent: tuple | None) -> tuple:
    """`accent`, or the default accent colour (DEFAULT_ACCENT) when there is none."""
    if accent:
        return accent
    default = color(DEFAULT_ACCENT)
    assert default is not None
    return default


def rules_pdf(r: Rendered, book: Rulebook, page: str, accent: tuple | None, designer_notes: bool = False) -> bytes:
    """rules.pdf for a laid-out game and its rulebook: trim size `page` with a 3 mm bleed
    (the cover band runs to the edge), TrimBox and BleedBox set."""
    maker = BookletMaker(r, book, page, accent, designer_notes)
    size = (maker.pw + 2 * BLEED, maker.ph + 2 * BLEED)
    return render_pages(maker.pages(), size, r.res.fonts, f"{book.title}: rules summary",
                        trim=(BLEED, BLEED, BLEED + maker.pw, BLEED + maker.ph))


def player_aid_pdf(r: Rendered, book: Rulebook, accent: tuple | None) -> bytes | None:
    """player-aid.pdf, or None when the rulebook has no player aid."""
    if not (book.player_aid and (book.player_aid.turn or book.player_aid.end or book.player_aid.notes)):
        return None
    B = AID_BLEED * MM
    w, h = AID_SIZE[0] * MM, AID_SIZE[1] * MM
    return render_pages(player_aid_pages(r, book, accent_or_default(accent)), (w + 2 * B, h + 2 * B),
                        r.res.fonts, f"{book.title}: player aid", trim=(B, B, B + w, B + h))


def make_booklet(r: Rendered, page: str = "a5", accent: tuple | None = None,
                 designer_notes: bool | None = None) -> tuple[bytes, bytes | None]:
    """(rules.pdf, player-aid.pdf or None) for a laid-out game with a rulebook; `accent` and
    `designer_notes`: default game.yaml's `booklet:` options."""
    book = load_rulebook(r.game)
    if book is None:
        raise CardgenError(Loc(str(r.game.root / "rules.yaml")), "no rulebook (title, intro, sections, player_aid) "
                           "in rules.yaml: see docs/rules-format.md Part 2", code="no-rulebook")
    options = Booklet.resolve(r.game.data)
    if accent is None:
        accent = options.accent
    if designer_notes is None:
        designer_notes = options.designer_notes
    return rules_pdf(r, book, page, accent, designer_notes), player_aid_pdf(r, book, accent)


_REFERS_TO_CARDS = re.compile(r"\{[{%](?:(?!\}\}|%\}).)*\bcards\b", re.S)


def rulebook_inputs(job: Job, shows_cards: bool) -> tuple:
    """What the rulebook's pages read, for `Job.part`: game.yaml and rules.yaml (by content),
    the game's version, the decks' names, counts, sizes and everything their files say but
    their cards, every card's data when the rules' text refers to `cards`, the game's fonts
    and icons, and (`shows_cards`: the booklet) the card faces it pictures (`pictured`)."""
    from cardgen.core.digest import file_digest
    from cardgen.outputs.incremental import fonts_digest

    r, game = job.rendered, job.game
    decks = [(d.name, d.slug, d.count, len(d.cards), d.size, d.context(),
              {k: v for k, v in d.data.items() if k != "cards"}) for d in game.decks]
    cards = [[c.fields for c in d.cards] for d in game.decks] if _REFERS_TO_CARDS.search(repr(game.rules)) else None
    shown = pictured(r) if shows_cards else []
    icons = [(str(p), file_digest(p)) for d in r.res.icons.dirs if d.is_dir() for p in sorted(d.iterdir())
             if p.suffix.lower() in (".svg", ".png")]
    return (file_digest(game.file), file_digest(game.root / "rules.yaml"), getattr(game, "version", ""), decks,
            cards, shown, fonts_digest(r.res.fonts), sorted(r.res.icons.aliases.items()), icons)


@contextlib.contextmanager
def rulebook_part(job: Job, shows_cards: bool, *inputs: Any) -> Iterator[Rulebook | None]:
    """The rulebook to make an output from, inside that output's part (`Job.part`, reading
    `rulebook_inputs` and `inputs`); None when the game has none (after a warning) or when
    the part is kept from the last build."""
    if no_rulebook(job):
        yield None
        return
    part = job.part("", *inputs, rulebook_inputs(job, shows_cards))
    if part.keep():
        yield None
        return
    with part:
        yield job_rulebook(job)


def job_rulebook(job: Job) -> Rulebook | None:
    """The game's rulebook, or None (after a warning, once a build) when it has none."""
    if no_rulebook(job):
        return None
    return load_rulebook(job.rendered.game)


def no_rulebook(job: Job) -> bool:
    """Warn (once a build) and say True when the game has no rulebook."""
    if has_rulebook(job.game):
        return False
    where = job.game.root / "rules.yaml"
    job.report.warn(Loc(str(where if where.is_file() else job.game.file)),
                    "no rulebook (title, intro, sections, player_aid) in rules.yaml: rules.pdf and "
                    "player-aid.pdf not made; see docs/rules-format.md Part 2", "no-rulebook")
    return True


class Booklet(Output):
    name = "booklet"
    summary = "The rules summary as a booklet, and the same imposed 2-up to print duplex, fold and staple."
    files = "rules.pdf, rules-booklet-<paper>.pdf"
    section = "booklet"
    Options = BookletOptions
    uses_rulebook = True

    def make(self, job: Job) -> None:
        from cardgen.render import impose_booklet

        r = job.rendered
        with rulebook_part(job, True, job.build.papers) as book:
            if book is None:
                return
            rules = rules_pdf(r, book, job.options.page, job.options.accent, job.options.designer_notes)
            job.staging.add(job.out_dir / "rules.pdf", rules)
            for paper in job.build.papers:
                job.staging.add(job.out_dir / f"rules-booklet-{paper}.pdf",
                                impose_booklet.impose(rules, paper, r.game.title))
