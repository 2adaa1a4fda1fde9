"""The rules booklet, from the rulebook in `rules.yaml` (`booklet` output):
    rules.pdf                 A5 (or half-letter) pages: cover, components, the rules
    rules-booklet-<paper>.pdf the booklet imposed 2-up for saddle stitching

Options, in game.yaml's `booklet:` section (`BookletOptions`): `page`, `accent` (which the
player aid, `cardgen.outputs.player_aid`, takes too) and `designer_notes`.

Text is set by the text engine (`cardgen.text`) that sets the cards' text; the rulebook's
blocks become strips (`cardgen.outputs.rulebook_pages.Composer`: one line of a paragraph, one
table row, one heading) that flow down the pages (`cardgen.text.flow`), so long paragraphs
split between lines and headings stay with what follows them. This module keeps what is the
booklet's: its pages (cover, components, contents, rules, back matter), the pagination that
fills whole sheets, and the output. Real cards appear as their card forms (`Drawer.card_form`).
"""
from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cardgen.core.errors import CardgenError, Loc
from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM, color
from cardgen.layout.rulebook import Figure, Rulebook, Section, has_rulebook, load_rulebook
from cardgen.model import ops
from cardgen.model.rules import most_players
from cardgen.outputs.base import Job, Output, glyph_warning, where_chars
from cardgen.outputs.rulebook_pages import (
    BODY_SIZE,
    DEFAULT_ACCENT,
    GREY,
    INK,
    Composer,
    Link,
    Page,
    Styles,
    Thumb,
    accent_or_default,
    on_colour,
    render_pages,
    tint,
)
from cardgen.schema.core import Bool, Choice, Colour, Decl, opt
from cardgen.text.flow import Strip, fill, flow, merge, shift

if TYPE_CHECKING:    # (the layout engine is imported when used: start-up time)
    from cardgen.layout.engine import Rendered

BOOKLET_PAGES = ("a5", "half-letter")


@dataclass(frozen=True, kw_only=True)
class BookletOptions(Decl):
    """game.yaml's `booklet:` section."""

    __what__ = "booklet options"

    page: str = opt(Choice(BOOKLET_PAGES), "page size of the rules booklet", "a5", cli="--booklet-page")
    accent: tuple | None = opt(Colour(), "colour of headings, rules, tables and the cover band (booklet and "
                                         "player aid); text in it is darkened where needed to keep a 4.5:1 "
                                         "contrast", color(DEFAULT_ACCENT), default_doc=f"`{DEFAULT_ACCENT}`")
    designer_notes: bool = opt(Bool(), "print the designer's notes (`designer_note:` in rules.yaml and deck "
                                       "files) in rules.pdf; otherwise only `validate` and `build` show them",
                               False, cli="--designer-notes")


# The page: margins of the text block (inside the trim) and the bleed around the trim.
BLEED = 3.0 * MM
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = 14 * MM, 15 * MM, 17 * MM
# body sizes tried to fill whole sheets, nearest to BODY_SIZE first
BODY_SIZES = (9.5, 9.25, 9.75, 9.0, 10.0, 8.75, 10.25, 8.5, 10.5)
MIN_FILL = 0.25             # every page but the last holds at least this share of a full page


# -- the booklet ------------------------------------------------------------------
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


KINDS_SHOWN = 8          # a token or tile file's kinds pictured on the components page, at most
KIND_W = 8 * MM          # each that wide


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


def figure_sides(r: Rendered, fig: Figure) -> list[ops.CardLayout]:
    """The card sides a `figure:` shows, in order: each card named (the first of that name, in
    `fig.deck` if given), its back with `back:`; a component's first KINDS_SHOWN faces.  (The
    names were checked with the rulebook: `cardgen.layout.rulebook`.)"""
    if fig.kind == "component":
        return [lay for deck, _, lay in r.faces if deck.name == fig.names[0]][:KINDS_SHOWN]
    out = []
    for name in fig.names:
        hit = next(((d, c, lay) for d, c, lay in r.faces if c.name == name and fig.deck in (None, d.name)), None)
        if hit is not None:
            deck, card, lay = hit
            back = r.back_of(deck, card) if fig.back else None
            out.append(back if back is not None else lay)
    return out


def figures(blocks: list) -> list[Figure]:
    """The `figure:` blocks among `blocks`, in their sections too."""
    out: list[Figure] = []
    for b in blocks:
        if isinstance(b, Figure):
            out.append(b)
        elif isinstance(b, Section):
            out += figures(b.body)
    return out


def figured(r: Rendered) -> list[ops.CardLayout]:
    """Every card side the rulebook's figures show (none while the rulebook has errors)."""
    try:
        book = load_rulebook(r.game)
    except CardgenError:
        return []
    return [lay for fig in figures(book.sections if book else []) for lay in figure_sides(r, fig)]


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

    def say(self, text: str, **values: object) -> str:
        return self.r.game.words(text, **values)

    def composer(self, base: float) -> Composer:
        return Composer(self.ts, self.fonts, Styles(self.fonts, self.accent, base), self.cw, self.designer_notes,
                        lambda fig: figure_sides(self.r, fig), self.r.game.words)

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
                            (self.say("Rules summary"), replace(st.small, style="bold", align="center",
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
            players = f"{players} {self.say('players')}"          # "2-4" -> "2-4 players"
        elif players:
            players = f"{self.say('Players:')} {players}"        # "set by the scenario"
        return "  ·  ".join(x for x in (players, self.book.play_time,
                                        f"ages {self.book.ages}" if self.book.ages else "") if x)

    def credits(self) -> str:
        gd, version = self.r.game.data, self.r.game.version     # game.yaml's, else git's
        return " · ".join(x for x in (f"{self.say('Designed by')} {gd['designer']}" if gd.get("designer") else "",
                                      f"{self.say('Version')} {version}" if version else "") if x)

    def components(self, c: Composer) -> list[Strip]:
        out = [c.heading(self.say("Components"), 1)]
        c.smart = False         # deck names and descriptions are card data: as typed
        try:
            out += self._component_strips(c)
        finally:
            c.smart = True
        return out

    def _items(self, bought: bool = False) -> list[str]:
        """The `item:` components of rules.yaml that no component file makes, as list entries:
        with `bought`, those marked `bought:` (with what to get), else the others."""
        items = []
        for entry in self.r.game.rules.items() if self.r.game.rules else []:
            n, name = entry.count, str(entry.item)
            if self.r.game.deck(name) is not None or (entry.bought is not None) != bought or \
                    (self.r.game.rules and name == self.r.game.rules.aid_item()):
                continue        # made (shown with the decks), or in the other list
            if bought:
                items.append(f"{name}: {entry.bought}")
            elif n is None:
                items.append(name)
            elif n.value is not None and not n.at_least:
                items.append(f"**{n.value}** {name}")
            else:
                items.append(self.say("{name} (count still to be decided)", name=name))
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
            lines = c.lines(f"**{deck.title}** — {self.r.game.words.count(deck.pieces, deck.kind)}",
                            replace(st.body, size=st.base * 1.08), self.cw - tx, tx)
            detail = f"{kinds} {self.say('different')} · {deck.size.label}" if deck.kind != "die" else \
                f"{kinds} {self.say('faces')} · " + self.say("{edge} mm dice, {size} mm stickers",
                                                             edge=f"{deck.die_edge:g}", size=f"{deck.size.width:g}")
            lines += c.lines(detail, st.small, self.cw - tx, tx)
            desc = deck.data.get("description")
            if desc:
                # the deck's description is prose for the booklet: typeset it (the cards keep theirs)
                lines += c.lines(c.smarten(str(desc)), replace(st.small, color=INK), self.cw - tx, tx)
            note = deck.data.get("designer_note")
            if note and self.designer_notes:
                lines += c.lines(f"*{self.say('Designer’s note')}: {c.smarten(str(note))}*",
                                 replace(st.small, color=GREY), self.cw - tx, tx)
            text = merge(lines)
            # a token or tile file of several kinds shows each kind, small, under its text
            row = faces[:KINDS_SHOWN] if deck.kind in ("token", "tile") and len(faces) > 1 else []
            row_h = (KIND_W * deck.size.height / deck.size.width + 1.5 * MM) if row else 0.0
            h = max(th, text.h + row_h) + 2.5 * MM
            s = Strip(h, [shift(op, 0, 1.2 * MM) for op in text.ops], space=st.gap)
            if lay is not None:
                s.ops.append(Thumb(lay, thumb_w / 2 + 1 * MM, h / 2, thumb_w, 0.0, False))
            for i, (_, klay) in enumerate(row):
                s.ops.append(Thumb(klay, tx + i * (KIND_W + 2 * MM) + KIND_W / 2,
                                   1.2 * MM + text.h + 1.5 * MM + (row_h - 1.5 * MM) / 2, KIND_W, 0.0, False))
            s.ops.append(ops.Line(0, h, self.cw, h, tint(st.accent, 0.7), 0.4))
            out.append(s)
        aid = self.r.game.rules.aid_item() if self.r.game.rules else None
        if aid is not None:
            pa = self.book.player_aid
            n = pa.count if pa is not None and pa.count is not None else most_players(self.r.game.opts.players)
            lines = c.lines(f"**{aid}** — {self.r.game.words.count(n, 'card')}",
                            replace(st.body, size=st.base * 1.08),
                            self.cw)
            lines += c.lines(self.say("the player aid, printed with the cards"), st.small, self.cw)
            text = merge(lines)
            s = Strip(text.h + 2.5 * MM, [shift(op, 0, 1.2 * MM) for op in text.ops], space=st.gap)
            s.ops.append(ops.Line(0, s.h, self.cw, s.h, tint(st.accent, 0.7), 0.4))
            out.append(s)
        items = self._items()
        if items:
            out.append(c.heading(self.say("Also needed"), 3))
            out += c.items(items, False)
        bought = self._items(bought=True)
        if bought:
            out.append(c.heading(self.say("Bought or from another game"), 3))
            out += c.items(bought, False)
        return out

    def contents(self, c: Composer, starts: dict[str, int]) -> list[Strip]:
        """The contents list, kept on one page; `starts`: top-level section -> its page number."""
        st = c.st
        out = [c.heading(self.say("Contents"), 2)]
        for sec in self.book.sections:
            num = starts.get(sec.title, 0)
            left = c.lines(sec.title, st.body, self.cw - 12 * MM)
            right = c.lines(str(num), replace(st.bold, align="right", color=st.accent_text), 12 * MM,
                            self.cw - 12 * MM)
            s = merge(left)
            s.ops += right[0].ops
            s.ops.append(ops.Line(0, s.h, self.cw, s.h, tint(st.accent, 0.75), 0.3, (0.6, 1.8)))
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
                    f = fill(placed, self.ch)
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
                h = c.heading(self.say(sub), 2)
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
                texts = [f"**{d.pieces}** {d.title}" for d in self.r.game.decks] + self._items() \
                    + self._items(bought=True)
                gap = 5 * MM
                width = (self.cw - gap * (columns - 1)) / columns
                entries = [merge(c.items([t], False, width=width)) for t in texts]
                per = -(-len(entries) // columns)
                listing = [c.heading(self.say("In the box"), 1)]
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
        out: list[Strip] = [c.heading(self.say("In the box"), 1)]
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
                    text = merge(c.lines(f"**{d.pieces}** {d.title}", label, tw + gap * 0.8, x - gap * 0.4))
                    strip.ops += [shift(op, 0, ch + 1.5 * MM) for op in text.ops]
                    lab_h = max(lab_h, text.h)
                    del h
                strip.h = ch + 1.5 * MM + lab_h
                out.append(strip)
            items = self._items()
            if items:
                out.append(c.heading(self.say("Also needed"), 3))
                out += c.items(items, False)
            bought = self._items(bought=True)
            if bought:
                out.append(c.heading(self.say("Bought or from another game"), 3))
                out += c.items(bought, False)
        finally:
            c.smart = True
        return out

    def reference_page(self, base: float) -> Page:
        """A page of quick reference (the player aid's turn, end of game and reminders)."""
        page = Page()
        placed = self._fit(lambda c: self._aid_strips(c, self.say("Quick reference")), self.ch, base)
        # (a player aid fits a poker card, so it always fits a page)
        for y, s in placed or flow(self._aid_strips(self.composer(6.5), self.say("Quick reference")), self.ch)[0]:
            page.ops += [shift(op, self.mx, self.top + y) for op in s.ops]
        return page

    def notes_page(self, c: Composer) -> Page:
        """A ruled page for the players' notes."""
        page = Page()
        head = c.heading(self.say("Notes"), 1)
        page.ops += [shift(op, self.mx, self.top) for op in head.ops]
        y = self.top + head.h + 9 * MM
        while y < self.ph - self.bottom - 2 * MM:
            page.ops.append(ops.Line(self.mx, y, self.pw - self.mx, y, tint(self.accent, 0.6), 0.4))
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
            return self._aid_strips(c, self.say("At a glance")) if (show_aid and has_aid) else self._box_strips(c)

        # a little larger than the body text, centred in the space above the band; decks too many
        # for their pictures are listed by name
        height = ph - band - self.top - 10 * MM
        placed = (self._fit(make, height, base * 1.15)
                  or self._fit(lambda c: self._box_strips(c, 1), height, base * 1.15)
                  or self._fit(lambda c: self._box_strips(c, 2), height, base * 1.15)
                  or flow(self._box_strips(self.composer(6.5), 3), height)[0])
        top = self.top + max(0.0, (height - fill(placed, height) * height) / 2)
        for y, s in placed:
            p.ops += [shift(op, self.mx, top + y) for op in s.ops]
        y = ph - band + 11 * MM
        for s in self.comp.lines(self.book.title, replace(st.h[1], size=20, color=ink, align="center"),
                                 pw - 20 * MM, 10 * MM):
            p.ops += [shift(op, 0, y) for op in s.ops]
            y += s.h
        # the rulebook's words with real dashes (an en dash in "2-4 players"), names and versions as typed
        line = "  ·  ".join(x for x in (self.say("Rules summary"), self.comp.smarten(self.info()), self.credits()) if x)
        self.comp.smart = False
        for s in self.comp.lines(line, replace(st.small, size=8, color=ink, align="center"), pw - 20 * MM, 10 * MM):
            p.ops += [shift(op, 0, y + 1.5 * MM) for op in s.ops]
            y += s.h
        self.comp.smart = True
        return p

    def footer(self, page: Page, num: int, st: Styles | None = None) -> None:
        st = st or self.st
        y = self.ph - 11 * MM
        page.ops.append(ops.Line(self.mx, y - 2.5 * MM, self.pw - self.mx, y - 2.5 * MM, tint(st.accent, 0.6), 0.4))
        odd = num % 2 == 1   # right-hand page: number on the outside right
        num_style = replace(self.st.bold, size=9, color=st.accent_text, align="right" if odd else "left")
        ttl_style = replace(self.st.small, size=7.5, align="left" if odd else "right")
        for s in self.comp.lines(str(num), num_style, 20 * MM, self.pw - self.mx - 20 * MM if odd else self.mx):
            page.ops += [shift(op, 0, y) for op in s.ops]
        for s in self.comp.lines(f"{self.book.title} · {self.say('rules summary')}", ttl_style, self.cw - 25 * MM,
                                 self.mx if odd else self.mx + 25 * MM):
            page.ops += [shift(op, 0, y + 0.4 * MM) for op in s.ops]


# -- the output -------------------------------------------------------------------
def rules_pdf(r: Rendered, book: Rulebook, page: str, accent: tuple | None, designer_notes: bool = False) -> bytes:
    """rules.pdf for a laid-out game and its rulebook: trim size `page` with a 3 mm bleed
    (the cover band runs to the edge), TrimBox and BleedBox set."""
    maker = BookletMaker(r, book, page, accent, designer_notes)
    size = (maker.pw + 2 * BLEED, maker.ph + 2 * BLEED)
    return render_pages(maker.pages(), size, r.res.fonts, f"{book.title}: {r.game.words('rules summary')}",
                        trim=(BLEED, BLEED, BLEED + maker.pw, BLEED + maker.ph))


def make_booklet(r: Rendered, page: str = "a5", accent: tuple | None = None,
                 designer_notes: bool | None = None) -> bytes:
    """rules.pdf for a laid-out game with a rulebook; `accent` and `designer_notes`: default
    game.yaml's `booklet:` options (the player aid: `player_aid.make_player_aid`)."""
    book = the_rulebook(r)
    options = Booklet.resolve(r.game.data)
    if accent is None:
        accent = options.accent
    if designer_notes is None:
        designer_notes = options.designer_notes
    return rules_pdf(r, book, page, accent, designer_notes)


def the_rulebook(r: Rendered) -> Rulebook:
    """The game's rulebook; a CardgenError when it has none."""
    book = load_rulebook(r.game)
    if book is None:
        raise CardgenError(Loc(str(r.game.root / "rules.yaml")), "no rulebook (title, intro, sections, player_aid) "
                           "in rules.yaml: see docs/rules-format.md Part 2", code="no-rulebook")
    return book


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
    refers = game.rules is not None and _REFERS_TO_CARDS.search(repr(game.rules.data))
    cards = [[c.fields for c in d.cards] for d in game.decks] if refers else None
    shown = [*pictured(r), *figured(r)] if shows_cards else []
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
        ts = job.rendered.res.typesetter
        ts.lacking = {}
        ts.span_problems = {}
        try:
            yield job_rulebook(job)
            for font, chars in ts.lacking.items():      # (said in the part: a kept part says it again)
                job.report.warn(*glyph_warning(job.game, chars, font, ts.fonts, "rulebook text"))
            for problem, tag in ts.span_problems.items():
                job.report.warn(where_chars(job.game, tag, whole=True), f"rulebook text: {problem}", "bad-span")
        finally:
            ts.lacking = None
            ts.span_problems = None


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


class Booklet(Output[BookletOptions]):
    summary = "The rules summary as a booklet, and the same imposed 2-up to print duplex, fold and staple."
    files = "rules.pdf, rules-booklet-<paper>.pdf"
    uses_rulebook = True

    def make(self, job: Job[BookletOptions]) -> None:
        from cardgen.render import impose_booklet

        r = job.rendered
        with rulebook_part(job, True, job.build.papers) as book:
            if book is None:
                return
            rules = rules_pdf(r, book, job.options.page, job.options.accent, job.options.designer_notes)
            job.staging.add(job.out_dir / "rules.pdf", rules)
            for paper in job.build.papers:
                job.staging.add(job.out_dir / f"rules-booklet-{paper}.pdf",
                                impose_booklet.impose(rules, paper, r.game.title, r.game.words))
