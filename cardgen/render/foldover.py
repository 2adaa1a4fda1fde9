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

import io

from cardgen.core.units import MM
from cardgen.model.ops import Copy
from cardgen.render import impose
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
                    pages: list[tuple[impose.Frame, list[Copy]]], cache: FormCache | None = None) -> bytes:
    layout = opts.layout
    assert layout is not None and layout.foldover, "fold-over sheets need a layout with a fold"
    pw, ph = layout.paper_w, layout.paper_h
    style = layout.spec.crop_marks
    buf = io.BytesIO()
    c = new_canvas(buf, fonts, pagesize=(pw * MM, ph * MM))
    w = opts.words
    c.setTitle(f"{title}: {w('fold-over sheets')} ({opts.paper})")
    drawer = Drawer(c, fonts, cache)
    drawer.prepare(_sides([cp for _, page in pages for cp in page]))
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
    c.save()
    return buf.getvalue()
