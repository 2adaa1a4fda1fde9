"""Fold-over sheets: fronts on one half of a single-sided page, each back mirrored on the other
half across the fold line, so that folded (printed side out) and glued, every back sits exactly
behind its face.

Folding over a vertical line mirrors left-right, as turning a portrait sheet over its long
edge does; over a horizontal line it mirrors top-bottom, as the short edge does.  So each back
goes where `impose.back_slots` puts it for that flip (with no offset: a fold does not drift),
and is turned the same way.  The pages come from `render.pdf.plan_sheets` on the layout's
front half, so different backs are kept apart exactly as on the duplex sheets.
"""
from __future__ import annotations

from typing import Any

from cardgen.core.digest import plain_digest
from cardgen.core.units import MM
from cardgen.model.ops import Copy
from cardgen.render import assemble, impose
from cardgen.render.assemble import Assembly
from cardgen.render.draw import Drawer, new_canvas
from cardgen.render.formcache import FormCache
from cardgen.render.pdf import SheetOptions, _note, _place, _sides, page_ticks, poster_marks, shape_cuts
from cardgen.render.sheetlayout import draw_cut_lines, draw_fold, draw_registration
from cardgen.resources.fonts import DEFAULT_FAMILY, FontBook


def page_slots(grid: impose.Frame, page: list[Copy], fold_flip: str) -> tuple[list[impose.Slot], list[impose.Slot]]:
    """(front slots, back slots) of one fold-over page."""
    fronts = impose.slots(grid, len(page))
    return fronts, impose.back_slots(grid, fronts, fold_flip)


def foldover_sheets(fonts: FontBook, opts: SheetOptions, title: str,
                    pages: list[tuple[impose.Frame, list[Copy]]], cache: FormCache | None = None,
                    assembly: Assembly | None = None) -> bytes:
    """The fold-over sheets of `pages`: every card form made first, in the order the pages
    place them; then the pages, or with an `assembly` the PDF taken from the last build's where
    only card forms changed (`render.assemble`)."""
    layout = opts.layout
    assert layout is not None and layout.foldover, "fold-over sheets need a layout with a fold"
    order: list[Any] = []
    for grid, page in pages:
        poster = isinstance(grid, impose.Poster)       # (one form, the board's face)
        order += [cp.face for cp in (page[:1] if poster else page)]
        if opts.backs and not poster:
            order += [cp.back for cp in page]
    sides, named = assemble.names(order)
    c, drawer = _start(fonts, opts, title, pages, cache)
    structure = _structure(drawer, opts, title, pages, named) if assembly else None
    if assembly is not None:
        try:
            data = assemble.deferred(assembly, structure, drawer, sides)
        except assemble.Fallback:
            data = None
            c, drawer = _start(fonts, opts, title, pages, cache)
        if data is not None:
            return data
    for side in sides:
        drawer.card_form(side)
    return assemble.assembled(assembly, structure, drawer, lambda: _write(c, drawer, fonts, opts, title, pages), sides)


def _start(fonts: FontBook, opts: SheetOptions, title: str, pages: list[tuple[impose.Frame, list[Copy]]],
           cache: FormCache | None) -> tuple[Any, Drawer]:
    """The sheets' canvas, and a drawer with the fonts named for their cards."""
    assert opts.layout is not None
    c = new_canvas(None, fonts, pagesize=(opts.layout.paper_w * MM, opts.layout.paper_h * MM))
    c.setTitle(f"{title}: {opts.words('fold-over sheets')} ({opts.paper})")
    drawer = Drawer(c, fonts, cache)
    drawer.prepare(_sides([cp for _, page in pages for cp in page]))
    return c, drawer


def _structure(drawer: Drawer, opts: SheetOptions, title: str, pages: list[tuple[impose.Frame, list[Copy]]],
               named: dict[int, str]) -> tuple:
    """What the sheets' objects but the card forms depend on, of what the writer knows
    (`render.assemble`): each side shown, once, and the pages by side."""
    files: dict[str, str | None] = {}
    index: dict[int, int] = {}
    shown: list[tuple | None] = []

    def side(layout: Any) -> int | None:
        if layout is None:
            return None
        if id(layout) not in index:
            index[id(layout)] = len(shown)
            shown.append(assemble.side(drawer, layout, files, named))
        return index[id(layout)]

    words = opts.words
    placed = [[(side(cp.face), side(cp.back) if opts.backs else None, cp.deck, cp.width, cp.height, cp.bleed,
                cp.sticker) for cp in page] for _, page in pages]
    # (the sides and pages by `plain_digest`, as the print sheets': their `repr` was most of the key's cost)
    each = plain_digest((shown, placed)) or (shown, placed)
    return ("foldover", drawer.c._pagesize, title, opts.paper, opts.backs, opts.layout, words.lang,
            sorted(words.own.items()) if words.own else None, sorted(opts.titles.items()), each,
            [grid for grid, _ in pages])


def _write(c: Any, drawer: Drawer, fonts: FontBook, opts: SheetOptions, title: str,
           pages: list[tuple[impose.Frame, list[Copy]]]) -> bytes:
    layout = opts.layout
    assert layout is not None
    pw, ph = layout.paper_w, layout.paper_h
    style = layout.spec.crop_marks
    w = opts.words
    font = fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None, "regular").name
    side = "left" if layout.spec.fold == "vertical" else "top"
    for n, (grid, page) in enumerate(pages, 1):
        if isinstance(grid, impose.Poster):     # a board larger than the half: the whole page, no fold
            _place(c, drawer, page[0].face, grid.slot(), ph)
            poster_marks(c, fonts, grid, opts.shown(page[0].deck), title, w)
            c.showPage()
            continue
        fronts, backs = page_slots(grid, page, layout.fold_flip)
        shown = [s for cp, s in zip(page, backs) if cp.back is not None and opts.backs]
        if style == "lines" and page[0].face.shape == "rect":
            draw_cut_lines(c, pw, ph, fronts + shown)
        for cp, slot in zip(page, fronts):
            _place(c, drawer, cp.face, slot, ph)
        for cp, slot in zip(page, backs):
            if cp.back is not None and opts.backs:
                _place(c, drawer, cp.back, slot, ph)
        # round and hex pieces: their outline traced, front and back; cards: crop marks
        shape_cuts(c, page, fronts, ph)
        shape_cuts(c, [cp for cp in page if cp.back is not None and opts.backs], shown, ph, back=True)
        if style == "ticks":
            behind = [s if cp.back is not None and opts.backs else None for cp, s in zip(page, backs)]
            page_ticks(c, grid, page, [list(fronts), behind], ph, cross_bleed=False)
        stickers = all(cp.sticker for cp in page)      # dice's stickers: nothing to fold
        if not stickers:
            draw_fold(c, layout, fronts + shown, grid.bleed, font, w("fold"))
        draw_registration(c, layout)
        if layout.spec.notes:
            decks = ", ".join(dict.fromkeys(opts.shown(cp.deck) for cp in page))
            how = w("stickers: print this page on sticker paper, 100 %, and cut; no fold") if stickers else \
                w(f"single-sided, 100 %: fronts {side}, fold on the dashed line, glue, cut")
            sheet = w("sheet {n} of {total}", n=n, total=len(pages))
            _note(c, fonts, grid, fronts + shown, f"{title} · {decks} · {sheet} · {how}")
        c.showPage()
    return bytes(c.getpdfdata())
