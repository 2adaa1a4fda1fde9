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
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cardgen.core.errors import CardgenError, Loc, plural
from cardgen.core.sizes import CARD_SIZES_MM, PAPER_SIZES_MM
from cardgen.core.units import MM, color
from cardgen.model import ops
from cardgen.outputs.base import Job, Output
from cardgen.resources.fonts import FontBook
from cardgen.resources.richtext import TextStyle, Typesetter, parse, plain
from cardgen.schema.core import Choice, Colour, Decl, opt

if TYPE_CHECKING:    # (the rulebook's parser, Jinja and ReportLab are imported when used: start-up time)
    from cardgen.layout.engine import Rendered
    from cardgen.layout.rulebook import Callout, Rulebook, Section, Table
    from cardgen.render.draw import Drawer

BOOKLET_PAGES = ("a5", "half-letter")
DEFAULT_ACCENT = "#2b4a6f"


@dataclass(frozen=True, kw_only=True)
class BookletOptions(Decl):
    __what__ = "booklet options"

    page: str = opt(Choice(BOOKLET_PAGES), "page size of the rules booklet", "a5", cli="--booklet-page")
    accent: tuple | None = opt(Colour(), "colour of headings, rules, tables and the cover band (booklet and "
                                         "player aid)", color(DEFAULT_ACCENT), default_doc=f"`{DEFAULT_ACCENT}`")
INK = (0.12, 0.11, 0.10, 1.0)
GREY = (0.42, 0.42, 0.42, 1.0)
WHITE = (1.0, 1.0, 1.0, 1.0)
CALLOUT_TINT = {"example": (0.93, 0.95, 0.98, 1), "tip": (0.92, 0.97, 0.92, 1), "note": (0.99, 0.96, 0.88, 1)}
CALLOUT_BAR = {"example": None, "tip": (0.25, 0.55, 0.30, 1), "note": (0.80, 0.58, 0.15, 1)}


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


# -- styles -----------------------------------------------------------------------
class Styles:
    def next_key(self) -> int:
        """A fresh number for a heading's PDF destination."""
        self._keys += 1
        return self._keys

    def __init__(self, fonts: FontBook, accent: tuple, base: float = 9.5):
        serif = "Vollkorn" if fonts.has("Vollkorn") else None
        sans = "Lato" if fonts.has("Lato") else None
        self.base = base
        self.accent = accent
        self._keys = 0
        self.body = TextStyle(sans, "regular", base, 1.32, INK)
        self.lead = TextStyle(serif, "italic", base * 1.12, 1.3, INK)
        self.bold = TextStyle(sans, "bold", base, 1.32, INK)
        self.small = TextStyle(sans, "regular", base * 0.84, 1.25, GREY)
        self.marker = TextStyle(sans, "bold", base, 1.32, accent, align="right")
        self.h = {1: TextStyle(serif, "bold", base * 1.65, 1.1, accent),
                  2: TextStyle(serif, "bold", base * 1.3, 1.15, INK),
                  3: TextStyle(sans, "bold", base * 1.08, 1.2, accent)}
        self.gap = base * 0.55           # between blocks


class Composer:
    """Turns rulebook blocks into strips of a given width."""

    def __init__(self, ts: Typesetter, fonts: FontBook, st: Styles, width: float):
        self.ts, self.fonts, self.st, self.w = ts, fonts, st, width
        self.smart = True       # rulebook text: curly quotes and dashes (off for card data)

    # text -> one strip per line
    def lines(self, text: str, style: TextStyle, w: float, x: float = 0.0) -> list[Strip]:
        from cardgen.layout.rulebook import smarten

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
                              first.anchor)
            strips[-1].h += bottom
        return strips

    @staticmethod
    def keep_lines(strips: list[Strip]) -> list[Strip]:
        """No single first or last line of a paragraph alone on a page."""
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
        head = replace(st.bold, size=size, leading=1.2, color=WHITE)
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
            widths = [self.w * n / total for n in natural]
        out = []
        rows = ([(tb.header, True)] if tb.header else []) + [(r, False) for r in tb.rows]
        for ri, (row, is_head) in enumerate(rows):
            style = head if is_head else body
            cells, h, x = [], 0.0, 0.0
            for c in range(ncol):
                text = row[c] if c < len(row) else ""
                cell = self.merge(self.lines(text, replace(style, align="left" if c == 0 else "center"),
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
        # a short table stays in one piece; a long one keeps its header with two rows
        for k, strip in enumerate(out[:-1]):
            strip.keep = len(out) <= 12 or k < (3 if tb.header else 2)
        out[0].space = st.gap * 1.4
        return out

    def callout(self, co: Callout) -> list[Strip]:
        st = self.st
        bar = 1.2 * MM
        inner_x = bar + 2.8 * MM
        inner_w = self.w - inner_x - 2.8 * MM
        bar_col = CALLOUT_BAR[co.kind] or st.accent
        title = replace(st.bold, color=bar_col, size=st.body.size * 0.95)
        body = replace(st.body, style="italic" if co.kind == "example" else "regular", size=st.body.size * 0.95)
        lines = self.lines(co.title, title, inner_w, inner_x) if co.title else []
        if lines:
            lines = [self.merge(lines)]
            lines[0].keep = True
        lines += self.keep_lines(self.lines(co.text, body, inner_w, inner_x))
        lines = self.pad(lines, 2.2 * MM, 2.2 * MM)
        for s in lines:   # background and bar slices that join up across strips
            s.ops[:0] = [ops.Rect(0, 0, self.w, s.h, CALLOUT_TINT[co.kind]), ops.Rect(0, 0, bar, s.h, bar_col)]
        if lines:
            lines[0].space = st.gap * 1.5
            if len(lines) <= 8:          # a short box stays in one piece
                for s in lines[:-1]:
                    s.keep = True
        return lines

    def blocks(self, body: list) -> list[Strip]:
        from cardgen.layout.rulebook import Callout, ListBlock, Para, Section, Table

        out: list[Strip] = []
        for b in body:
            if isinstance(b, Para):
                out += self.para(b.text)
            elif isinstance(b, ListBlock):
                out += self.items(b.items, b.kind == "steps")
            elif isinstance(b, Table):
                out += self.table(b)
            elif isinstance(b, Callout):
                out += self.callout(b)
            elif isinstance(b, Section):
                out += self.section(b)
        return out

    def section(self, sec: Section) -> list[Strip]:
        return [self.heading(sec.title, sec.level, sec.title if sec.level == 1 else None), *self.blocks(sec.body)]


def _tint(col, t: float):
    """`col` mixed with white (t = 1: white)."""
    return (col[0] + (1 - col[0]) * t, col[1] + (1 - col[1]) * t, col[2] + (1 - col[2]) * t, 1.0)


# -- page flow --------------------------------------------------------------------
def flow(strips: list[Strip], height: float) -> list[list[tuple[float, Strip]]]:
    """Place strips down pages `height` tall: [[(y, strip), ...] per page]."""
    pages: list[list[tuple[float, Strip]]] = [[]]
    y = 0.0
    i = 0
    while i < len(strips):
        s = strips[i]
        space = s.space if pages[-1] else 0.0
        need = space + s.h
        j = i
        while strips[j].keep and j + 1 < len(strips):   # the group kept together
            j += 1
            need += strips[j].space + strips[j].h
        if pages[-1] and (y + need > height + 0.01) and not (need > height and y + space + s.h <= height):
            pages.append([])
            y, space = 0.0, 0.0
        pages[-1].append((y + space, s))
        y += space + s.h
        i += 1
    return [p for p in pages if p] or [[]]


# -- the booklet ------------------------------------------------------------------
def faces_by_deck(r: Rendered) -> dict[str, list]:
    """Deck name -> [(card, face layout)], in deck order."""
    by_deck: dict[str, list] = {}
    for deck, card, lay in r.faces:
        by_deck.setdefault(deck.name, []).append((card, lay))
    return by_deck


def fan_cards(r: Rendered) -> list[ops.CardLayout]:
    """The cover's fan: up to five faces, taking each deck's cards in turn."""
    lists = [v for v in faces_by_deck(r).values() if v]
    out: list = []
    k = 0
    while len(out) < 5 and any(k < len(v) for v in lists):
        for v in lists:
            if k < len(v) and len(out) < 5:
                out.append(v[k][1])
        k += 1
    return out


def pictured(r: Rendered) -> list[ops.CardLayout]:
    """Every card face the booklet shows: the cover's fan and each deck's first card."""
    return [*fan_cards(r), *(v[0][1] for v in faces_by_deck(r).values() if v)]


@dataclass
class Page:
    ops: list = field(default_factory=list)   # page coordinates, y down, points


class BookletMaker:
    def __init__(self, r: Rendered, book: Rulebook, page: str, accent: tuple | None):
        self.r, self.book = r, book
        self.fonts = r.res.fonts
        self.ts = r.res.typesetter
        self.pw, self.ph = (v * MM for v in PAPER_SIZES_MM[page])
        self.st = Styles(self.fonts, accent_or_default(accent))
        self.mx, self.top, self.bottom = 14 * MM, 15 * MM, 17 * MM
        self.cw = self.pw - 2 * self.mx
        self.ch = self.ph - self.top - self.bottom
        self.comp = Composer(self.ts, self.fonts, self.st, self.cw)

    # faces of each deck, in deck order
    def _faces(self):
        return faces_by_deck(self.r)

    def fan_cards(self) -> list[ops.CardLayout]:
        return fan_cards(self.r)

    def cover(self) -> Page:
        st, pw, ph = self.st, self.pw, self.ph
        p = Page()
        band = 62 * MM
        p.ops.append(ops.Rect(0, 0, pw, band, st.accent))
        title = replace(st.h[1], size=30, color=WHITE, align="center", leading=1.05)
        lines = self.comp.lines(self.book.title, title, pw - 20 * MM, 10 * MM)
        y = 17 * MM
        for s in lines:
            p.ops += [shift(op, 0, y) for op in s.ops]
            y += s.h
        if self.book.subtitle:
            sub = replace(st.lead, color=WHITE, align="center", size=11.5)
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
        players = str(self.book.players or "")
        if players and re.fullmatch(r"[\d\s+\-–]+", players):
            players = f"{players} players"          # "2-4" -> "2-4 players"
        elif players:
            players = f"Players: {players}"        # "set by the scenario"
        info = [x for x in (players,
                            self.book.play_time, f"ages {self.book.ages}" if self.book.ages else "") if x]
        y = ph - 48 * MM
        if info:
            for s in self.comp.lines("  ·  ".join(info), replace(st.bold, size=12, align="center"),
                                     pw - 20 * MM, 10 * MM):
                p.ops += [shift(op, 0, y) for op in s.ops]
                y += s.h
        gd = self.r.game.data
        by = " · ".join(x for x in (f"Designed by {gd['designer']}" if gd.get("designer") else "",
                                    f"Version {gd['version']}" if gd.get("version") else "") if x)
        y += 2 * MM
        for text, style in ((by, replace(st.small, align="center")),
                            ("Rules summary", replace(st.small, style="bold", align="center", color=st.accent))):
            if text:
                for s in self.comp.lines(text, style, pw - 20 * MM, 10 * MM):
                    p.ops += [shift(op, 0, y) for op in s.ops]
                    y += s.h
        return p

    def components(self) -> list[Strip]:
        c = self.comp
        out = [c.heading("Components", 1)]
        c.smart = False         # deck names and descriptions are card data: as typed
        try:
            out += self._component_strips()
        finally:
            c.smart = True
        return out

    def _component_strips(self) -> list[Strip]:
        from cardgen.layout.rulebook import smarten

        c, st = self.comp, self.st
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
            text = c.merge(lines)
            h = max(th, text.h) + 2.5 * MM
            s = Strip(h, [shift(op, 0, 1.2 * MM) for op in text.ops], space=st.gap)
            if lay is not None:
                s.ops.append(Thumb(lay, thumb_w / 2 + 1 * MM, h / 2, thumb_w, 0.0, False))
            s.ops.append(ops.Line(0, h, self.cw, h, _tint(st.accent, 0.7), 0.4))
            out.append(s)
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
        if items:
            out.append(c.heading("Also needed", 3))
            out += c.items(items, False)
        return out

    def contents(self, starts: dict[str, int]) -> list[Strip]:
        c, st = self.comp, self.st
        out = [c.heading("Contents", 2)]
        for sec in self.book.sections:
            num = starts.get(sec.title)
            if num is None:
                continue
            left = c.lines(sec.title, st.body, self.cw - 12 * MM)
            right = c.lines(str(num), replace(st.bold, align="right", color=st.accent), 12 * MM, self.cw - 12 * MM)
            s = c.merge(left)
            s.ops += right[0].ops
            s.ops.append(ops.Line(0, s.h, self.cw, s.h, _tint(st.accent, 0.75), 0.3, (0.6, 1.8)))
            s.ops.append(Link(f"sec:{sec.title}", 0, 0, self.cw, s.h))
            s.space = st.base * 0.15
            out.append(s)
        return out

    def rules(self) -> list[Strip]:
        c = self.comp
        out = []
        if self.book.intro:
            out += c.para(self.book.intro, self.st.lead)
        for sec in self.book.sections:
            out += c.section(sec)
        return out

    def pages(self) -> list[Page]:
        rule_pages = flow(self.rules(), self.ch)
        comp = self.components()
        # the contents' page numbers depend on how many pages the components take
        n_front = 1 + len(flow(comp + self.contents({s.title: 0 for s in self.book.sections}), self.ch))
        starts = {}
        for pi, rule_page in enumerate(rule_pages):
            for _, s in rule_page:
                if s.anchor and s.anchor not in starts:
                    starts[s.anchor] = n_front + pi + 1
        front_pages = flow(comp + self.contents(starts), self.ch)
        out = [self.cover()]
        for placed in [*front_pages, *rule_pages]:
            page = Page()
            for y, s in placed:
                page.ops += [shift(op, self.mx, self.top + y) for op in s.ops]
            out.append(page)
        for num, page in enumerate(out[1:], 2):
            self.footer(page, num)
        return out

    def footer(self, page: Page, num: int) -> None:
        st = self.st
        y = self.ph - 11 * MM
        page.ops.append(ops.Line(self.mx, y - 2.5 * MM, self.pw - self.mx, y - 2.5 * MM, _tint(st.accent, 0.6), 0.4))
        odd = num % 2 == 1   # right-hand page: number on the outside right
        num_style = replace(st.bold, size=9, color=st.accent, align="right" if odd else "left")
        ttl_style = replace(st.small, size=7.5, align="left" if odd else "right")
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


def player_aid_pages(r: Rendered, book: Rulebook, accent: tuple) -> list[Page]:
    aid = book.player_aid
    assert aid is not None, "player_aid_pages() needs a rulebook with a player aid"
    fonts, ts = r.res.fonts, r.res.typesetter
    B = AID_BLEED * MM
    w, h = AID_SIZE[0] * MM, AID_SIZE[1] * MM
    inner = 4.5 * MM
    cw = w - 2 * inner
    band = 11 * MM

    def side(heading: str, parts: list[tuple[str | None, list[str], bool]]) -> Page:
        avail = h - band - inner - 3 * MM
        base = 9.0
        while True:   # the largest text size (down to 5 pt) at which everything fits
            st = Styles(fonts, accent, base)
            comp = Composer(ts, fonts, st, cw)
            strips: list[Strip] = []
            for sub, items, numbered in parts:
                if not items:
                    continue
                if sub:
                    hs = comp.heading(sub, 3)
                    if not strips:
                        hs.space = 0
                    strips.append(hs)
                strips += comp.items(items, numbered)
            total = sum(s.h + (s.space if k else 0) for k, s in enumerate(strips))
            if total <= avail or base <= 5.0:
                break
            base = round(base - 0.25, 2)
        p = Page()
        p.ops.append(ops.Rect(0, 0, w + 2 * B, h + 2 * B, WHITE))
        p.ops.append(ops.Rect(0, 0, w + 2 * B, B + band, accent))
        p.ops.append(ops.Rect(B + 2 * MM, B + 2 * MM, w - 4 * MM, h - 4 * MM, None, accent, 0.8, 2.5 * MM))
        head = Styles(fonts, accent, 8)
        for s in comp.lines(book.title.upper(), replace(head.small, size=6, color=WHITE, align="center",
                                                         style="bold"), cw, B + inner):
            p.ops += [shift(op, 0, B + 1.6 * MM) for op in s.ops]
        for s in comp.lines(heading, replace(head.h[1], size=12.5, color=WHITE, align="center"), cw, B + inner):
            p.ops += [shift(op, 0, B + 4.2 * MM) for op in s.ops]
        y = B + band + 2.5 * MM
        for k, s in enumerate(strips):
            y += s.space if k else 0.0
            p.ops += [shift(op, B + inner, y) for op in s.ops]
            y += s.h
        return p

    front = side("Your turn", [(None, aid.turn, True)])
    back = side("End of the game", [(None, aid.end, False), ("Remember", aid.notes, False)])
    return [front, back]


# -- the outputs ------------------------------------------------------------------
def accent_or_default(accent: tuple | None) -> tuple:
    """`accent`, or the default accent colour (DEFAULT_ACCENT) when there is none."""
    if accent:
        return accent
    default = color(DEFAULT_ACCENT)
    assert default is not None
    return default


def rules_pdf(r: Rendered, book: Rulebook, page: str, accent: tuple | None) -> bytes:
    """rules.pdf for a laid-out game and its rulebook."""
    maker = BookletMaker(r, book, page, accent)
    return render_pages(maker.pages(), (maker.pw, maker.ph), r.res.fonts, f"{book.title}: rules summary")


def player_aid_pdf(r: Rendered, book: Rulebook, accent: tuple | None) -> bytes | None:
    """player-aid.pdf, or None when the rulebook has no player aid."""
    if not (book.player_aid and (book.player_aid.turn or book.player_aid.end or book.player_aid.notes)):
        return None
    B = AID_BLEED * MM
    w, h = AID_SIZE[0] * MM, AID_SIZE[1] * MM
    return render_pages(player_aid_pages(r, book, accent_or_default(accent)), (w + 2 * B, h + 2 * B),
                        r.res.fonts, f"{book.title}: player aid", trim=(B, B, B + w, B + h))


def make_booklet(r: Rendered, page: str = "a5", accent: tuple | None = None) -> tuple[bytes, bytes | None]:
    """(rules.pdf, player-aid.pdf or None) for a laid-out game with a rulebook; `accent`:
    default game.yaml's `booklet: accent`."""
    from cardgen.layout.rulebook import load_rulebook

    book = load_rulebook(r.game)
    if book is None:
        raise CardgenError(Loc(str(r.game.root / "rules.yaml")), "no rulebook (title, intro, sections, player_aid) "
                           "in rules.yaml: see docs/rules-format.md Part 2", code="no-rulebook")
    if accent is None:
        accent = Booklet.resolve(r.game.data).accent
    return rules_pdf(r, book, page, accent), player_aid_pdf(r, book, accent)


_REFERS_TO_CARDS = re.compile(r"\{[{%](?:(?!\}\}|%\}).)*\bcards\b", re.S)


def rulebook_inputs(job: Job, shows_cards: bool) -> tuple:
    """What the rulebook's pages read, for `Job.part`: game.yaml and rules.yaml (by content),
    the decks' names, counts, sizes and descriptions, every card's data when the rules' text
    refers to `cards`, the game's fonts and icons, and (`shows_cards`: the booklet) the card
    faces it pictures (`pictured`)."""
    from cardgen.core.digest import file_digest
    from cardgen.outputs.incremental import fonts_digest

    r, game = job.rendered, job.game
    decks = [(d.name, d.slug, d.count, len(d.cards), d.size, d.context()) for d in game.decks]
    cards = [[c.fields for c in d.cards] for d in game.decks] if _REFERS_TO_CARDS.search(repr(game.rules)) else None
    shown = pictured(r) if shows_cards else []
    icons = [(str(p), file_digest(p)) for d in r.res.icons.dirs if d.is_dir() for p in sorted(d.iterdir())
             if p.suffix.lower() in (".svg", ".png")]
    return (file_digest(game.file), file_digest(game.root / "rules.yaml"), decks, cards, shown,
            fonts_digest(r.res.fonts), sorted(r.res.icons.aliases.items()), icons)


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
    from cardgen.layout.rulebook import load_rulebook

    if no_rulebook(job):
        return None
    return load_rulebook(job.rendered.game)


def no_rulebook(job: Job) -> bool:
    """Warn (once a build) and say True when the game has no rulebook."""
    from cardgen.layout.rulebook import has_rulebook

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
            rules = rules_pdf(r, book, job.options.page, job.options.accent)
            job.staging.add(job.out_dir / "rules.pdf", rules)
            for paper in job.build.papers:
                job.staging.add(job.out_dir / f"rules-booklet-{paper}.pdf",
                                impose_booklet.impose(rules, paper, r.game.title))
