"""Sheets used well (render/packing.py): pages whose pieces fit into the free room of others are
not printed.  Planned page by page (what moved where, nothing butted to another back, all inside
the margin), then read back from the PDFs in mm: every back behind its face on a shared sheet
(both flips), crop marks never on a card nor on another piece's bleed."""
from __future__ import annotations

import itertools
import zlib

import pytest
from conftest import REPO, run_cli
from pdfgeom import page_items
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.model.ops import CardLayout, Copy, Rect
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import impose
from cardgen.render.backs import plan_size_group
from cardgen.render.packing import fill

LETTER = (215.9, 279.4)
POKER = (63.5, 88.9)
BLEED = 3.175


def side(key: str, w: float = POKER[0], h: float = POKER[1], shape: str = "rect") -> CardLayout:
    """A side drawn in a colour of its own (two sides with different keys are different designs)."""
    return CardLayout(w, h, BLEED, [Rect(0, 0, 10, 10, fill=f"#{zlib.crc32(key.encode()) & 0xffffff:06x}")],
                      key=key, shape=shape)


def copies(deck: str, back: CardLayout | None, n: int, w: float = POKER[0], h: float = POKER[1],
           shape: str = "rect") -> list[Copy]:
    return [Copy(side(f"{deck}{i}", w, h, shape), back, deck, w, h, BLEED) for i in range(n)]


def grid_pages(cps: list[Copy]) -> list:
    """The pages `render.pdf.plan_sheets` gives one size on Letter (a page per back design, or a gutter)."""
    cp = cps[0]
    grid = impose.plan_grid(*LETTER, cp.width, cp.height, BLEED, cp.face.shape != "rect")
    return plan_size_group(cps, grid, False).pages


def bled(slot: impose.Slot, cp: Copy) -> impose.Rect:
    return (slot.x - cp.bleed, slot.y - cp.bleed, slot.w + 2 * cp.bleed, slot.h + 2 * cp.bleed)


def overlap(a: impose.Rect, b: impose.Rect) -> bool:
    return a[0] < b[0] + b[2] - 1e-6 and b[0] < a[0] + a[2] - 1e-6 and a[1] < b[1] + b[3] - 1e-6 and \
        b[1] < a[1] + a[3] - 1e-6


def parts_of(frame: impose.Frame, page: list[Copy]) -> list[int]:
    """The part each copy of a page is in (all 0 unless the page is shared)."""
    if not isinstance(frame, impose.Mixed):
        return [0] * len(page)
    return [i for i, (_, k) in enumerate(frame.parts) for _ in range(k)]


def check_page(frame: impose.Frame, page: list[Copy], margin: float = impose.PRINTER_MARGIN) -> None:
    """No piece's bleed lies on another part's; two pieces that share a cut have one back; every
    moved piece (part 1 on) inside the paper less the margin, clear of the unprintable edge."""
    slots = impose.slots(frame, len(page))
    assert len(slots) == len(page)
    part = parts_of(frame, page)
    for i, j in itertools.combinations(range(len(page)), 2):
        if part[i] != part[j]:
            assert not overlap(bled(slots[i], page[i]), bled(slots[j], page[j])), (page[i].deck, page[j].deck)
        elif overlap(bled(slots[i], page[i]), (slots[j].x, slots[j].y, slots[j].w, slots[j].h)):
            assert page[i].back is page[j].back, "different backs butted"
    for cp, s, p in zip(page, slots, part):
        if p:
            x, y, w, h = bled(s, cp)
            assert x >= margin - 1e-6 and y >= margin - 1e-6
            assert x + w <= LETTER[0] - margin + 1e-6 and y + h <= LETTER[1] - margin + 1e-6


def test_a_lonely_card_and_the_player_aid_share_a_sheet():
    """Alien Conspiracy's case: one Alien card on a sheet, four player aids (another back) on the
    next. The aids go below the card (and beside it), in a gutter, one sheet fewer."""
    alien, aid = copies("Alien", side("alien-back"), 1), copies("Player aid", side("aid-back"), 4)
    pages = grid_pages(alien) + grid_pages(aid)
    assert len(pages) == 2
    out, saved = fill(pages, impose.PRINTER_MARGIN)
    assert saved == 1 and len(out) == 1
    frame, page = out[0]
    assert isinstance(frame, impose.Mixed)
    assert [cp.deck for cp in page] == ["Alien"] + ["Player aid"] * 4
    assert frame.parts[0] == (pages[0][0], 1)            # the card stays where it was (it fills the top)
    check_page(frame, page)


def test_a_page_moves_only_whole_and_a_full_sheet_takes_nothing():
    """Nine cards fill a Letter sheet; nine more of another back cannot fit anywhere: both pages
    stay exactly as planned.  Seven cards leave no room for nine either."""
    for first in (9, 7):
        pages = grid_pages(copies("A", side("a"), first)) + grid_pages(copies("B", side("b"), 9))
        out, saved = fill(pages, impose.PRINTER_MARGIN)
        assert saved == 0 and out == pages


def test_full_sheets_of_a_large_deck_are_not_tried_in_rooms_that_hold_no_card(monkeypatch):
    """A full A4 sheet's free room (the strips beside and below its block) holds no card, so a
    500-card deck's full sheets are not tried there, room by room (`packing._may_fit`: only
    rooms that take a whole card count); its last page is not tried in them either."""
    cps = copies("A", side("back"), 500)
    pages = plan_size_group(cps, impose.plan_grid(210.0, 297.0, *POKER, BLEED), False).pages     # (A4)
    assert [len(p[1]) for p in pages] == [9] * 55 + [5]
    planned = []
    plan_grid = impose.plan_grid
    monkeypatch.setattr(impose, "plan_grid", lambda *a, **k: planned.append(k) or plan_grid(*a, **k))
    out, saved = fill(pages, 0.0)
    assert saved == 0 and out == pages
    assert planned == []


def test_tokens_fill_the_strip_under_cards_largest_first():
    """Three cards (one row) and round tokens of two sizes on a page of their own: the tokens go
    in the strip below the row, the 30 mm ones first so the 18 mm ones fill the gaps."""
    cards = copies("Card", side("back"), 3)
    small, large = copies("Small", None, 10, 18, 18, "round"), copies("Large", None, 4, 30, 30, "round")
    shelf = impose.pack_shelves(*LETTER, [(cp.width, cp.height, cp.bleed) for cp in small + large])
    assert len(shelf) == 1
    pages = [*grid_pages(cards), (shelf[0], small + large)]
    out, saved = fill(pages, impose.PRINTER_MARGIN)
    assert saved == 1
    frame, page = out[0]
    assert [cp.deck for cp in page] == ["Card"] * 3 + ["Large"] * 4 + ["Small"] * 10
    check_page(frame, page)
    slots = impose.slots(frame, len(page))
    row_bottom = max(s.y + s.h for s in slots[:3]) + BLEED
    assert all(s.y - BLEED >= row_bottom - 1e-6 for s in slots[3:])


def test_cards_of_one_back_moved_into_a_room_stay_butted_and_of_several_backs_get_a_gutter():
    """A page of two small cards of one back goes butted below a row of poker cards; of two
    backs, with a gutter (every card keeps its bleed)."""
    for backs, gutter in ((("x", "x"), False), (("x", "y"), True)):
        shared = {k: side(k) for k in set(backs)}
        small = [Copy(side(f"s{i}", 44, 68), shared[b], "Small", 44, 68, BLEED) for i, b in enumerate(backs)]
        pages = [*grid_pages(copies("Card", side("back"), 3)), (impose.plan_grid(*LETTER, 44, 68, BLEED, gutter), small)]
        out, saved = fill(pages, impose.PRINTER_MARGIN)
        assert saved == 1
        frame, page = out[0]
        assert isinstance(frame, impose.Mixed) and frame.parts[1][0].gutter is gutter
        check_page(frame, page)


@pytest.mark.parametrize("flip", ["long", "short"])
def test_a_shared_sheet_prints_every_back_behind_its_face(tiny_game, tmp_path, flip):
    """Two cards and round tokens with their own back on one sheet: read from the PDF, each back
    is at its face's place mirrored (left-right for the long edge, top-bottom for the short), to
    0.1 mm; crop marks never touch a card's face nor a token's bleed; each token's outline is
    traced on both sides."""
    root = tiny_game("cards:\n  - {name: A}\n  - {name: B}\n")
    (root / "tokens.yaml").write_text(
        "deck: Tokens\ntemplate: tiny/face\nback: tiny/face\nsize: {diameter: 25mm}\n"
        "cards:\n  - {name: T, count: 5}\n", encoding="utf-8")
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("print",), papers=("letter",), outputs={"print": {"flip": flip}}),
               Report())
    reader = PdfReader(out / "tiny" / "print-letter.pdf")
    assert len(reader.pages) == 2                        # one sheet: the tokens share it
    w, h = LETTER
    faces, face_marks = page_items(reader, 0)
    backs, back_marks = page_items(reader, 1)
    faces = [p for p in faces if ".card" in p.name]
    backs = [p for p in backs if ".card" in p.name]
    assert len(faces) == len(backs) == 7
    behind = [p.center() for p in backs]
    for x, y in (p.center() for p in faces):
        want = (w - x, y) if flip == "long" else (x, h - y)
        near = [b for b in behind if abs(b[0] - want[0]) < 0.1 and abs(b[1] - want[1]) < 0.1]
        assert len(near) == 1, (x, y)
        behind.remove(near[0])
    for placed, marks in ((faces, face_marks), (backs, back_marks)):
        boxes = []
        for p in placed:
            cx, cy = p.center()
            size = (p.bbox[2] - p.bbox[0]) / (72 / 25.4)     # trim + 2 bleeds (the card upright or turned)
            other = (p.bbox[3] - p.bbox[1]) / (72 / 25.4)
            bw, bh = (size, other) if abs(p.matrix[1]) < 1e-6 else (other, size)
            boxes.append((cx - bw / 2, cy - bh / 2, bw, bh, bw < 40))       # bled box; a token?
        ticks = [m for m in marks if abs(m.width - 0.3) < 1e-6 or abs(m.width - 0.5) < 1e-6]
        assert ticks
        for m in ticks:
            for x, y, bw, bh, token in boxes:
                inner = (x, y, bw, bh) if token else (x + BLEED, y + BLEED, bw - 2 * BLEED, bh - 2 * BLEED)
                seg = (min(m.x1, m.x2), min(m.y1, m.y2), abs(m.x2 - m.x1) or 1e-3, abs(m.y2 - m.y1) or 1e-3)
                assert not overlap(seg, inner), (m, (x, y, bw, bh))


def test_the_build_summary_says_the_sheets_each_paper_takes(tiny_game, tmp_path):
    """A sheet of cards printed duplex and a board across four sheets printed one-sided: the
    summary counts sheets of paper, not pages halved (the PDF's subject says them)."""
    root = tiny_game("cards:\n  - {name: A}\n")
    (root / "board.yaml").write_text("deck: Map\nkind: board\ntemplate: tiny/face\n"
                                     "size: {width: 420mm, height: 297mm}\ncards:\n  - {name: M}\n", encoding="utf-8")
    code, out, err = run_cli("build", str(root), "--only", "print", "--page", "letter", "--out", str(tmp_path / "o"))
    assert code == 0, err
    assert "print-letter.pdf  6 pages, 5 sheets: 1 double-sided, 4 single-sided" in out
    reader = PdfReader(tmp_path / "o" / "tiny" / "print-letter.pdf")
    assert reader.metadata["/Subject"] == "print sheets: 1 double-sided, 4 single-sided"
