"""PDF outputs: duplex print sheets (Letter, A4) and cards.pdf (one card per page)."""
from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reportlab.lib.colors import white
from reportlab.pdfgen.canvas import Canvas

from cardgen.core.digest import plain_digest
from cardgen.core.sizes import PAPER_SIZES_MM
from cardgen.core.units import MM
from cardgen.core.words import ENGLISH, Words
from cardgen.model.components import HEXES
from cardgen.model.ops import CardLayout, Copy
from cardgen.render import assemble, docinfo, impose
from cardgen.render.assemble import Assembly
from cardgen.render.backs import BackPlan, back_groups, describe, plan_size_group
from cardgen.render.draw import Drawer, draw_line, new_canvas
from cardgen.render.formcache import FormCache
from cardgen.render.outlines import mirrored, outline_ops
from cardgen.render.rlcompat import CardCanvas
from cardgen.render.sheetlayout import SheetLayout, draw_cut_lines, draw_registration
from cardgen.resources.fonts import DEFAULT_FAMILY, FontBook


@dataclass
class SheetOptions:
    """How the print sheets are made."""

    paper: str = "letter"
    gutter: bool = False
    flip: str = "long"                 # long or short
    back_offset: tuple[float, float] = (0.0, 0.0)    # mm
    backs: bool = True
    mix_backs: bool = False            # True: copies in deck order, different backs may touch
    layout: SheetLayout | None = None  # a sheet layout (`render/sheetlayout.py`); None: the plain grid on `paper`
    overlap: float = 10.0              # mm: sheets of a piece larger than the paper overlap by this much
    words: Words = ENGLISH             # the margin notes' words: the language built's (`cardgen.core.words`)
    titles: Mapping[str, str] = field(default_factory=dict)   # deck name -> as the notes show it (`deck@de:`)

    def shown(self, deck: str) -> str:
        """A deck as the margin notes name it: its translated name (`deck@LANG`), else its name."""
        return self.titles.get(deck, deck)

    @property
    def paper_size(self) -> tuple[float, float]:
        return (self.layout.paper_w, self.layout.paper_h) if self.layout else PAPER_SIZES_MM[self.paper]

    def frame(self, first: Copy) -> impose.Frame:
        """Where the cards of `first`'s size and shape go on a page: hexes tessellated (their bleed
        hexes butt), round pieces each with its own bleed ring (a gutter), others as the layout
        says."""
        shape = first.face.shape
        if shape in HEXES and self._plain_grid():
            return impose.plan_hexes(*self.paper_size, first.width, first.height, first.bleed, shape, self.margin)
        gutter = self.gutter or shape != "rect"
        if self.layout is not None:
            return self.layout.frame(first.width, first.height, first.bleed, gutter, f"deck '{first.deck}'")
        pw, ph = PAPER_SIZES_MM[self.paper]
        return impose.plan_grid(pw, ph, first.width, first.height, first.bleed, gutter)

    @property
    def margin(self) -> float:
        """What the sheet's pieces stay inside of (a grid's, and pages of round pieces)."""
        return self.layout.spec.margin if self.layout is not None else impose.PRINTER_MARGIN

    def packable(self) -> bool:
        """Pieces may fill other sheets' free room (`render.packing`): the layout is a grid, its
        cut lines are marked by ticks, and it has no cutting machine's marks."""
        lay = self.layout
        return lay is None or (lay.spec.cards == "grid" and lay.spec.registration is None
                               and lay.spec.crop_marks == "ticks")

    def _foldover(self) -> bool:
        """A fold-over layout (no cutting machine's marks): a board too large for its half is
        printed on whole pages, one-sided, like on the duplex sheets."""
        lay = self.layout
        return lay is not None and lay.foldover and lay.spec.registration is None

    def _plain_grid(self) -> bool:
        """The layout is a grid on the whole page (no fold, no cutting machine's marks, no listed
        places): hexes may be tessellated and a board tiled across sheets."""
        lay = self.layout
        return lay is None or (lay.spec.cards == "grid" and not lay.foldover and lay.spec.registration is None
                               and lay.spec.area is None)


def _pt_rect(rect: impose.Rect, paper_h: float) -> impose.Rect:
    x, y, w, h = rect
    return x * MM, (paper_h - y - h) * MM, w * MM, h * MM


def size_groups(copies: list[Copy]) -> list[list[Copy]]:
    """Copies grouped by card size (and bleed, shape, a path piece's outline), in order of first
    appearance."""
    groups: dict[tuple[float, float, float, str, tuple], list[Copy]] = {}
    for cp in copies:
        groups.setdefault((round(cp.width, 3), round(cp.height, 3), round(cp.bleed, 3), cp.face.shape,
                           cp.face.outline), []).append(cp)
    return list(groups.values())


def plan_pages(copies: list[Copy], opts: SheetOptions) -> list[tuple[impose.Frame, list[Copy]]]:
    """[(grid, [copies on the page])] for every face page, sizes on pages of their own."""
    return plan_sheets(copies, opts)[0]


def one_sided(grid: impose.Frame, page: list[Copy]) -> bool:
    """A page printed on one side only: a sheet of a board larger than the paper, or dice's stickers."""
    return isinstance(grid, impose.Poster) or all(cp.sticker for cp in page)


def one_sided_last(pages: list[tuple[impose.Frame, list[Copy]]]) -> list[tuple[impose.Frame, list[Copy]]]:
    """The pages with the one-sided ones last (stickers, then boards' sheets, each in order), so
    that every other page keeps its back behind it when printed duplex."""
    return [p for p in pages if not one_sided(*p)] + [p for p in pages if one_sided(*p)]


def _stickers_apart(copies: list[Copy], stickers: list[Copy],
                    opts: SheetOptions) -> tuple[list[tuple[impose.Frame, list[Copy]]], str]:
    """`plan_sheets` of copies some of which are dice's stickers: theirs after the other pages,
    before the sheets of a board larger than the paper."""
    pages, how = plan_sheets([cp for cp in copies if not cp.sticker], opts)
    more = plan_sheets(stickers, opts)[0]
    boards = [p for p in pages if isinstance(p[0], impose.Poster)]
    return [p for p in pages if not isinstance(p[0], impose.Poster)] + more + boards, \
        f"{how}; the dice's stickers on {len(more)} page{'s' if len(more) != 1 else ''} of their own, one-sided"


def plan_sheets(copies: list[Copy], opts: SheetOptions) -> tuple[list[tuple[impose.Frame, list[Copy]]], str]:
    """Every face page, and one line saying how different backs were kept apart
    (`cardgen.render.backs`); dice's stickers on pages of their own, one-sided, after the others
    (before the sheets of a board larger than the paper)."""
    stickers = [cp for cp in copies if cp.sticker]
    if stickers and len(stickers) < len(copies):
        return _stickers_apart(copies, stickers, opts)
    any_backs = opts.backs and any(cp.back is not None for cp in copies)
    pages: list[tuple[impose.Frame, list[Copy]]] = []
    posters: list[tuple[impose.Frame, list[Copy]]] = []
    shelved: list[tuple[impose.Frame, list[Copy]]] = []     # round pieces of several sizes, after the rest
    plans = []
    groups = size_groups(copies)
    rounds = [g for g in groups if g[0].face.shape == "round"]
    if len(rounds) > 1 and opts._plain_grid():
        # round pieces of several sizes share pages: each keeps its bleed ring, so any backs may meet
        groups = [g for g in groups if g[0].face.shape != "round"]
        mixed = [cp for g in rounds for cp in g]
        shelves = impose.pack_shelves(*opts.paper_size, [(cp.width, cp.height, cp.bleed) for cp in mixed], opts.margin)
        at = 0
        for shelf in shelves:
            shelved.append((shelf, mixed[at:at + shelf.per_page]))
            at += shelf.per_page
        plans.append(BackPlan([], "one back", len(back_groups(mixed))))
    for group in groups:
        try:
            grid = opts.frame(group[0])
        except impose.DoesNotFit:
            if not opts._plain_grid() and not opts._foldover():
                raise
            # larger than the paper (a board): across sheets, after everything else (one-sided)
            cp = group[0]
            tiles = impose.plan_poster(*opts.paper_size, cp.width, cp.height, cp.bleed, opts.overlap)
            posters += [(tile, [cp]) for cp in group for tile in tiles]
            continue
        plan = plan_size_group(group, grid, opts.mix_backs or not any_backs)
        plans.append(plan)
        pages += plan.pages
    pages += shelved
    how = describe(plans) if any_backs else "no back pages"
    if posters:
        n = len({id(cp) for _, page in posters for cp in page})
        per = len(posters) // n
        tiled = (f"{n} piece{'s' if n != 1 else ''} larger than the paper across {per} sheets each "
                 f"({opts.overlap:g} mm overlap, one-sided, last)")
        if any(cp.back is not None for _, page in posters for cp in page):
            tiled += "; their backs are not printed (print them from cards.pdf)"
        how = f"{how}; {tiled}" if plans else tiled
    return pages + posters, how


def _sides(cards: Sequence[Copy | CardLayout]) -> list[CardLayout]:
    """The distinct card sides of these copies (faces and backs) or sides, in order: what
    `Drawer.prepare` names the resources from (the print sheets and cards.pdf of one game
    name them alike, whether the sheets print backs or not, so they share card forms)."""
    seen: dict[int, CardLayout] = {}
    for item in cards:
        for side in (item.face, item.back) if isinstance(item, Copy) else (item,):
            if side is not None:
                seen.setdefault(id(side), side)
    return list(seen.values())


def _note(c: Canvas, fonts: FontBook, grid: impose.Frame, slots: list[impose.Slot], text: str) -> None:
    """A small line of text in the left margin, between cut lines, clear of marks."""
    margin = min(s.clip[0] for s in slots)          # left edge of what is printed
    if margin - impose.UNPRINTABLE < 2.2:
        return
    cuts = sorted({0.0, grid.paper_h} | {s.y for s in slots} | {s.y + s.h for s in slots})
    gaps = [(b - a, a, b) for a, b in itertools.pairwise(cuts)]
    span, a, b = max(gaps)
    face = fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None, "regular")
    size = 6.0
    while fonts.width(text, face.name, size) / MM > span - 8 and size > 4.5:
        size -= 0.5
    if fonts.width(text, face.name, size) / MM > span - 8:
        return
    x = (impose.UNPRINTABLE + min(margin, impose.UNPRINTABLE + 6)) / 2 + size / MM * 0.35
    c.saveState()
    c.setFont(face.name, size)
    c.setFillColorRGB(0.35, 0.35, 0.35)
    c.translate(x * MM, (grid.paper_h - (a + b) / 2) * MM)
    c.rotate(90)
    draw_line(c, fonts, text, size, 0, 0, centred=True)
    c.restoreState()


def _outline_ops(shape: str, slot: impose.Slot, grow: float, paper_h: float, path: tuple = ()) -> str:
    """The outline of a `round`, hex or `path` piece in `slot` (its trim, moved out by `grow`
    mm) as content-stream path operators, in points."""
    return outline_ops(shape, slot.x, slot.y, slot.w, slot.h, grow, paper_h, slot.rotation, path)


CUT_WIDTH = 0.4         # pt: the line traced around a shaped piece
CUT_GREY = 0.25


def shape_cuts(c: Canvas, page: Sequence[Copy], page_slots: list[impose.Slot], paper_h: float,
               back: bool = False) -> None:
    """The cut line traced around each round, hex or path piece, on its trim; on the `back`
    of the sheet a path piece's outline is mirrored (its back's, `side_outline`)."""
    paths = [_outline_ops(cp.face.shape, slot, 0.0, paper_h, mirrored(cp.face) if back else cp.face.outline)
             for cp, slot in zip(page, page_slots) if cp.face.shape != "rect"]
    if paths:
        c._code.append(f"q {CUT_WIDTH:g} w {CUT_GREY:g} {CUT_GREY:g} {CUT_GREY:g} RG "
                       + " ".join(f"{p} S" for p in paths) + " Q")


def _place(c: CardCanvas, drawer: Drawer, layout: CardLayout, slot: impose.Slot, paper_h: float) -> None:
    """Place a card's form in its slot, clipped to the slot (a round or hex piece to its bleed's
    outline), turned as the slot says."""
    name = drawer.card_form(layout)
    B = layout.bleed
    x, y = slot.x * MM - B, (paper_h - slot.y - slot.h) * MM - B
    w, h = slot.w * MM + 2 * B, slot.h * MM + 2 * B
    if slot.rotation == 90:        # card's top to the left
        matrix = (0.0, 1.0, -1.0, 0.0, x + w, y)
    elif slot.rotation == -90:     # card's top to the right
        matrix = (0.0, -1.0, 1.0, 0.0, x, y + h)
    elif slot.rotation == 180:     # upside down
        matrix = (-1.0, 0.0, 0.0, -1.0, x + w, y + h)
    else:
        matrix = (1.0, 0.0, 0.0, 1.0, x, y)
    if layout.shape != "rect":
        c.place_form_in(name, _outline_ops(layout.shape, slot, layout.bleed / MM, paper_h, layout.outline), matrix)
    else:
        c.place_form(name, _pt_rect(slot.clip, paper_h), matrix)


def _marks(c: Canvas, marks: list[impose.Mark], paper_h: float) -> None:
    for m in marks:
        if m.halo:
            c.setStrokeColor(white)
            c.setLineWidth(1.6)
            c.line(m.x1 * MM, (paper_h - m.y1) * MM, m.x2 * MM, (paper_h - m.y2) * MM)
    c.setStrokeColorRGB(0, 0, 0)
    for m in marks:
        c.setLineWidth(0.5 if m.halo else 0.3)
        c.line(m.x1 * MM, (paper_h - m.y1) * MM, m.x2 * MM, (paper_h - m.y2) * MM)


def crop_ticks(c: Canvas, grid: impose.Frame, page_slots: list[impose.Slot], paper_h: float,
               cross_bleed: bool = True, others: tuple[impose.Rect, ...] = ()) -> None:
    """`_marks` of `impose.crop_marks`: worked out and drawn once per document for each
    arrangement of slots (every full page of a deck has the same), then the same operators
    again.  Marks are drawn in the state every page starts with, which they leave as the
    first drawing left it."""
    memo = c.__dict__.setdefault("_cardgen_marks", {})
    key = (grid, tuple(page_slots), paper_h, cross_bleed, others)
    hit = memo.get(key)
    if hit is None:
        start = len(c._code)
        _marks(c, impose.crop_marks(grid, page_slots, cross_bleed, others), paper_h)
        memo[key] = hit = (c._code[start:], c._strokeColorObj, c._lineWidth)
    else:
        c._code.extend(hit[0])
        c._strokeColorObj, c._lineWidth = hit[1], hit[2]


def page_ticks(c: Canvas, grid: impose.Frame, page: Sequence[Copy], sides: list[list[impose.Slot | None]],
               paper_h: float, cross_bleed: bool = True) -> None:
    """The crop marks of a page's rectangular cards; `sides` holds each copy's slot on each side
    drawn on this page (None: not shown).  On a shared sheet (`impose.Mixed`) each part has its
    own, which stop short of the other parts' bleed."""
    parts = grid.parts if isinstance(grid, impose.Mixed) else ((grid, len(page)),)
    at = 0
    for frame, k in parts:
        if page[at].face.shape == "rect":
            mine = [side[i] for side in sides for i in range(at, at + k) if side[i] is not None]
            others = tuple((s.x - cp.bleed, s.y - cp.bleed, s.w + 2 * cp.bleed, s.h + 2 * cp.bleed)
                           for side in sides for i, (cp, s) in enumerate(zip(page, side))
                           if s is not None and not at <= i < at + k)
            crop_ticks(c, frame, [s for s in mine if s is not None], paper_h, cross_bleed, others)
        at += k


CROSS = 3.0             # mm: the arm of an alignment cross on a board's sheets


def poster_marks(c: Canvas, fonts: FontBook, tile: impose.Poster, name: str, title: str,
                 words: Words = ENGLISH) -> None:
    """On one sheet of a piece larger than the paper: the edge of the printed area where a
    neighbour overlaps it (dashed), alignment crosses in each overlap (a neighbour's meet them),
    and at the foot a label (the row and column) with a small assembly map, this sheet filled."""
    pw, ph = tile.paper_w, tile.paper_h
    sx, sy, sw, sh = tile.shown()
    x0, y0 = tile.to_sheet(sx, sy)
    c.saveState()
    c.setLineWidth(0.3)
    c.setStrokeColorRGB(0.3, 0.3, 0.3)
    c.setDash(2, 2)
    edges = []
    if tile.col > 0:            # this sheet goes under its left neighbour's overlap
        edges.append((x0 + tile.overlap, y0, x0 + tile.overlap, y0 + sh))
    if tile.row > 0:
        edges.append((x0, y0 + tile.overlap, x0 + sw, y0 + tile.overlap))
    for x1, y1, x2, y2 in edges:
        c.line(x1 * MM, (ph - y1) * MM, x2 * MM, (ph - y2) * MM)
    c.setDash()
    for bx, by in tile.alignment_points():
        x, y = tile.to_sheet(bx, by)
        for ink, width in ((white, 1.4), (None, 0.4)):
            if ink is None:
                c.setStrokeColorRGB(0, 0, 0)
            else:
                c.setStrokeColor(ink)
            c.setLineWidth(width)
            c.line((x - CROSS) * MM, (ph - y) * MM, (x + CROSS) * MM, (ph - y) * MM)
            c.line(x * MM, (ph - y - CROSS) * MM, x * MM, (ph - y + CROSS) * MM)
    # the board's own cut line, where this sheet shows it
    c.setStrokeColorRGB(CUT_GREY, CUT_GREY, CUT_GREY)
    c.setLineWidth(CUT_WIDTH)
    for bx1, by1, bx2, by2 in tile.trim_segments():
        (x1, y1), (x2, y2) = tile.to_sheet(bx1, by1), tile.to_sheet(bx2, by2)
        c.line(x1 * MM, (ph - y1) * MM, x2 * MM, (ph - y2) * MM)
    # the foot: label and assembly map
    c.setFillColorRGB(0.2, 0.2, 0.2)
    foot = ph - impose.POSTER_FOOT + 2.5
    if tile.rows * tile.cols == 1:
        draw_line(c, fonts, f"{title} · {name} · {words('cut along the grey line')} · "
                            f"{words('print at 100 % (Actual size)')}", 7,
                  impose.POSTER_SIDE * MM, (ph - foot - 3) * MM)
        c.restoreState()
        return
    cell = min(4.0, 24.0 / max(tile.cols, tile.rows))
    mx = pw - impose.POSTER_SIDE - tile.cols * cell
    c.setLineWidth(0.3)
    c.setStrokeColorRGB(0.2, 0.2, 0.2)
    for r in range(tile.rows):
        for col in range(tile.cols):
            here = (r, col) == (tile.row, tile.col)
            c.setFillColorRGB(*((0.2, 0.2, 0.2) if here else (1, 1, 1)))
            c.rect((mx + col * cell) * MM, (ph - foot - (r + 1) * cell) * MM, cell * MM, cell * MM,
                   stroke=1, fill=1)
    c.setFillColorRGB(0.2, 0.2, 0.2)
    n = tile.row * tile.cols + tile.col + 1
    where = words("{deck}: sheet {n} of {total} (row {row}, column {column})", deck=name, n=n,
                  total=tile.rows * tile.cols, row=tile.row + 1, column=tile.col + 1)
    draw_line(c, fonts, f"{title} · {where} · {words('print at 100 % (Actual size)')}", 7,
              impose.POSTER_SIDE * MM, (ph - foot - 3) * MM)
    draw_line(c, fonts, words("Trim each sheet along the dashed line, lay it {overlap} mm over its neighbour so the "
                              "crosses meet, and glue; then cut along the grey line.", overlap=f"{tile.overlap:g}"), 7,
              impose.POSTER_SIDE * MM, (ph - foot - 7) * MM)
    c.restoreState()


SHEETS_SAID = "print sheets:"     # the document's subject: the sheets of paper it takes (the build summary reads it)


class SheetWriter:
    """The print sheets of `copies` (faces, then their backs, page by page), made in two steps.
    Made: every card form the pages will place, in the order they place them (drawn, or found
    in `cache`: `cardgen.render.formcache`), so that after it `cache` holds every form these
    sheets show and the sheets of another paper are made by replaying them.  `finish()`: the
    pages, and the PDF.

    `cover(canvas, duplex)` draws pages before the first sheet (an even number of them when
    `duplex`)."""

    def __init__(self, copies: list[Copy], fonts: FontBook, opts: SheetOptions, title: str,
                 pages: list[tuple[impose.Frame, list[Copy]]] | None = None,
                 cover: Callable[[Canvas, bool], None] | None = None, cache: FormCache | None = None,
                 assembly: Assembly | None = None) -> None:
        self.opts, self.fonts, self.title, self.cover = opts, fonts, title, cover
        self.assembly = assembly if cover is None else None
        self.pages = pages if pages is not None else plan_sheets(copies, opts)[0]
        self.any_backs = opts.backs and any(cp.back is not None for cp in copies)
        order: list[CardLayout | None] = []
        for _, page in self.pages:
            order += [cp.face for cp in page]
            if self.any_backs:
                order += [cp.back for cp in page]
        # every card form the pages place, in the order they first place them
        self.sides, named = assemble.names(order)
        self.data: bytes | None = None
        self.structure: tuple | None = None
        self._start(copies, cache)
        if self.assembly is not None and assemble.kept(self.assembly):
            self.structure = self._structure(named)
            try:
                self.data = assemble.deferred(self.assembly, self.structure, self.drawer, self.sides)
            except assemble.Fallback:
                self._start(copies, cache)
        if self.data is None:
            for layout in self.sides:
                self.drawer.card_form(layout)
            if self.assembly is not None and self.structure is None:
                self.structure = self._structure(named)

    def _start(self, copies: list[Copy], cache: FormCache | None) -> None:
        """A new document: its canvas, and a drawer with the fonts named for these cards."""
        pw, ph = self.opts.paper_size
        c = self.c = new_canvas(None, self.fonts, pagesize=(pw * MM, ph * MM))
        c.setTitle(f"{self.title}: {self.opts.words('print sheets')} ({self.opts.paper})")
        self.drawer = Drawer(c, self.fonts, cache)
        self.drawer.prepare(_sides(copies))

    def finish(self) -> bytes:
        """The PDF: with an `assembly`, from the last build's file when nothing but card forms
        changed (`render.assemble`: then only the changed forms were made)."""
        if self.data is not None:
            return self.data
        return assemble.assembled(self.assembly, self.structure, self.drawer, self._write, self.sides)

    def _structure(self, named: dict[int, str]) -> tuple:
        """What the sheets' objects but the card forms depend on, of what this writer knows:
        each side shown (once), and each page's arrangement by the sides' forms."""
        o, words = self.opts, self.opts.words
        files: dict[str, str | None] = {}
        sides: dict[int, Any] = {}
        shown: list[tuple | None] = []

        def side(layout: CardLayout | None) -> Any:
            if layout is None:
                return None
            if id(layout) not in sides:
                sides[id(layout)] = len(shown)
                shown.append(assemble.side(self.drawer, layout, files, named))
            return sides[id(layout)]

        pages = [[(side(cp.face), side(cp.back) if self.any_backs else None, cp.deck, cp.width, cp.height,
                   cp.bleed, cp.sticker) for cp in page] for _, page in self.pages]
        # (the sides and pages by `plain_digest`, where they are plain: their `repr` was most of
        # the key's cost, 2,000 sides naming their SVG files and those files' SHA-256)
        each = plain_digest((shown, pages)) or (shown, pages)
        return ("sheets", self.c._pagesize, self.title, o.paper, o.gutter, o.flip, o.back_offset, o.backs,
                o.mix_backs, o.layout, o.overlap, words.lang, sorted(words.own.items()) if words.own else None,
                sorted(o.titles.items()), self.any_backs, each, [grid for grid, _ in self.pages])

    def _write(self) -> bytes:
        c, opts, fonts, title = self.c, self.opts, self.fonts, self.title
        ph = opts.paper_size[1]
        layout = opts.layout
        notes = layout.spec.notes if layout else True
        pages, any_backs = self.pages, self.any_backs
        if self.cover is not None:
            self.cover(c, any_backs)
        # one-sided pages (stickers) print no back page only where every page after them is one-sided
        # too: a back page in between keeps the duplex pairs in step
        tail = len(pages)
        while tail > 0 and one_sided(*pages[tail - 1]):
            tail -= 1
        cover = c.getPageNumber() - 1           # pages the cover drew (pairs when duplex)
        double, single = (cover // 2 + tail, len(pages) - tail) if any_backs else (0, cover + len(pages))
        docinfo.extend(c, Subject=f"{SHEETS_SAID} {double} double-sided, {single} single-sided")
        for n, (grid, page) in enumerate(pages, 1):
            if isinstance(grid, impose.Poster):
                _place(c, self.drawer, page[0].face, grid.slot(), ph)
                poster_marks(c, fonts, grid, opts.shown(page[0].deck), title, opts.words)
                c.showPage()        # one-sided: no back page
                continue
            face_slots = impose.slots(grid, len(page))
            self._side(grid, page, face_slots, [cp.face for cp in page])
            if layout is not None:
                draw_registration(c, layout)
            decks = ", ".join(dict.fromkeys(opts.shown(cp.deck) for cp in page))
            w = opts.words
            sides = w(f"fronts, duplex: flip on {opts.flip} edge") if any_backs else w("fronts")
            if n > tail and any_backs:
                sides = w("one-sided: print this page alone, on sticker paper")
            sheet = w("sheet {n} of {total}", n=n, total=len(pages))
            if notes:
                _note(c, fonts, grid, face_slots,
                      f"{title} · {decks} · {sheet} · {sides} · {w('print at 100 % (Actual size)')}")
            c.showPage()
            if any_backs and n <= tail:
                b_slots = impose.back_slots(grid, face_slots, opts.flip, opts.back_offset)
                self._side(grid, page, b_slots, [cp.back for cp in page])     # cut from either side
                if notes:
                    _note(c, fonts, grid, b_slots, f"{title} · {decks} · {sheet} · {w('backs')}")
                c.showPage()
        return c.getpdfdata()       # (the bytes as made: no copy into and out of a file object)

    def _side(self, grid: impose.Frame, page: list[Copy], page_slots: list[impose.Slot],
              sides: list[CardLayout | None]) -> None:
        """One side of a sheet: the cut lines a layout asks for, the cards (faces or backs), and
        the crop marks, or for round and hex pieces their outline traced."""
        c, ph = self.c, self.opts.paper_size[1]
        style = self.opts.layout.spec.crop_marks if self.opts.layout else "ticks"
        if style == "lines" and page[0].face.shape == "rect":
            draw_cut_lines(c, self.opts.paper_size[0], ph, page_slots)
        for side, slot in zip(sides, page_slots):
            if side is not None:
                _place(c, self.drawer, side, slot, ph)
        shape_cuts(c, page, page_slots, ph, back=any(s is not cp.face for s, cp in zip(sides, page)))
        if style == "ticks":
            page_ticks(c, grid, page, [list(page_slots)], ph)


def print_sheets(copies: list[Copy], fonts: FontBook, opts: SheetOptions, title: str,
                 pages: list[tuple[impose.Frame, list[Copy]]] | None = None,
                 cover: Callable[[Canvas, bool], None] | None = None, cache: FormCache | None = None) -> bytes:
    """The print sheets of `copies` (`SheetWriter`, both steps)."""
    return SheetWriter(copies, fonts, opts, title, pages, cover, cache).finish()


def cards_pdf(faces: list[CardLayout], backs: list[CardLayout], fonts: FontBook, title: str,
              cache: FormCache | None = None, assembly: Assembly | None = None) -> bytes:
    """Each distinct face once, then each distinct back, at trim + bleed with TrimBox/BleedBox;
    `cache`: card forms drawn before (`cardgen.render.formcache`); `assembly`: the PDF taken
    from the last build's where only card forms changed (`cardgen.render.assemble`).  Every
    card form is made before the first page."""
    sides = [*faces, *backs]
    order, named = assemble.names(sides)
    c, drawer = _cards_canvas(fonts, title, sides, cache)
    files: dict[str, str | None] = {}
    shown = [assemble.side(drawer, layout, files, named) for layout in sides] if assembly else []
    structure = ("cards", title, plain_digest(shown) or shown) if assembly else None
    if assembly is not None:
        try:
            data = assemble.deferred(assembly, structure, drawer, order)
        except assemble.Fallback:
            data = None
            c, drawer = _cards_canvas(fonts, title, sides, cache)
        if data is not None:
            return data
    names = [drawer.card_form(layout) for layout in sides]

    def write() -> bytes:
        for layout, name in zip(sides, names):
            B = layout.bleed
            w, h = layout.width + 2 * B, layout.height + 2 * B
            c.setPageSize((w, h))
            c.setBleedBox((0, 0, w, h))
            c.setTrimBox((B, B, B + layout.width, B + layout.height))
            c.doForm(name)
            c.showPage()
        return c.getpdfdata()

    return assemble.assembled(assembly, structure, drawer, write, order)


def _cards_canvas(fonts: FontBook, title: str, sides: list[CardLayout], cache: FormCache | None) -> tuple[Any, Drawer]:
    """cards.pdf's canvas, and a drawer with the fonts named for its cards."""
    c = new_canvas(None, fonts)
    c.setTitle(f"{title}: cards")
    drawer = Drawer(c, fonts, cache)
    drawer.prepare(_sides(sides))
    return c, drawer
