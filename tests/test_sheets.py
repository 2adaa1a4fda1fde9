"""Print sheets read back from the PDF: positions in mm, clips, crop marks, duplex backs."""
from __future__ import annotations

import pytest
from conftest import REPO
from pdfgeom import page_items, pdf_entry
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

BLEED = 3.175
PW, PH = 215.9, 279.4          # Letter
CW, CH = 63.5, 88.9            # poker


def nine_cards(n=9):
    lines = "\n".join(f'  - {{name: "C{i}", color: "#{(i * 25) % 256:02x}4080"}}' for i in range(n))
    return "cards:\n" + lines + "\n"


def build(root, tmp_path, papers=("letter", "a4"), **kw):
    """`kw`: print-sheet options as the command line gives them (flip="short", gutter=True)."""
    out = tmp_path / "out"
    opts = BuildOptions(out=out, only=("print", "cards"), papers=papers, outputs={"print": kw})
    build_game(root, REPO, opts, Report())
    return out / root.name


def card_placements(reader, page):
    placements, segments = page_items(reader, page)
    return [p for p in placements if ".card" in p.name], segments   # card forms, not icons


def trims(placements):
    """Trim rectangles (x, y, w, h) in mm from the page's bottom-left."""
    return [(p.x + BLEED, p.y + BLEED, CW, CH) for p in placements]


def test_letter_poker_is_3x3_butted_and_centred(tiny_game, tmp_path):
    out = build(tiny_game(nine_cards()), tmp_path, papers=("letter",))
    reader = PdfReader(out / "print-letter.pdf")
    assert len(reader.pages) == 2                      # one face page, one back page
    assert [round(float(v), 2) for v in reader.pages[0].mediabox] == [0, 0, 612, 792]
    cards, _ = card_placements(reader, 0)
    assert len(cards) == 9
    expected = [(12.7 + c * CW, PH - 6.35 - (r + 1) * CH) for r in range(3) for c in range(3)]
    for (x, y, _, _), (ex, ey) in zip(trims(cards), expected):
        assert x == pytest.approx(ex, abs=0.1) and y == pytest.approx(ey, abs=0.1)


def test_a4_poker_is_3x3_centred(tiny_game, tmp_path):
    out = build(tiny_game(nine_cards()), tmp_path, papers=("a4",))
    reader = PdfReader(out / "print-a4.pdf")
    assert [round(float(v), 1) for v in reader.pages[0].mediabox] == [0, 0, 595.3, 841.9]
    cards, _ = card_placements(reader, 0)
    xs = sorted({round(t[0], 2) for t in trims(cards)})
    ys = sorted({round(t[1], 2) for t in trims(cards)})
    assert xs == pytest.approx([9.75, 73.25, 136.75], abs=0.1)
    assert ys == pytest.approx([15.15, 104.05, 192.95], abs=0.1)


def test_butted_cards_show_bleed_only_around_the_block(tiny_game, tmp_path):
    out = build(tiny_game(nine_cards()), tmp_path, papers=("letter",))
    cards, _ = card_placements(PdfReader(out / "print-letter.pdf"), 0)
    top_left, middle = cards[0], cards[4]
    tx, ty, _, _ = trims([top_left])[0]
    cx, cy, cw, ch = top_left.clip
    assert cx == pytest.approx(tx - BLEED, abs=0.01)          # bleed on the outer left
    assert cy + ch == pytest.approx(ty + CH + BLEED, abs=0.01)  # and outer top
    assert cx + cw == pytest.approx(tx + CW, abs=0.01)        # none towards the neighbour
    assert cy == pytest.approx(ty, abs=0.01)
    mx, my, _, _ = trims([middle])[0]
    assert middle.clip == pytest.approx((mx, my, CW, CH), abs=0.01)


def _marks(segments):
    return [s for s in segments if s.gray < 0.5]


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_crop_marks_on_every_cut_line_never_on_a_card_and_printable(tiny_game, tmp_path, paper):
    out = build(tiny_game(nine_cards()), tmp_path, papers=(paper,))
    reader = PdfReader(out / f"print-{paper}.pdf")
    pw, ph = (float(v) / (72 / 25.4) for v in reader.pages[0].mediabox[2:])
    cards, segments = card_placements(reader, 0)
    rects = trims(cards)
    marks = _marks(segments)
    xs = sorted({round(x, 3) for x, _, w, _ in rects} | {round(x + w, 3) for x, _, w, _ in rects})
    ys = sorted({round(y, 3) for _, y, _, h in rects} | {round(y + h, 3) for _, y, _, h in rects})
    for m in marks:
        assert 0.25 <= m.width <= 0.5
        vertical = abs(m.x1 - m.x2) < 1e-6
        if vertical:
            assert any(abs(m.x1 - x) < 0.01 for x in xs), "vertical mark off every cut line"
        else:
            assert abs(m.y1 - m.y2) < 1e-6
            assert any(abs(m.y1 - y) < 0.01 for y in ys), "horizontal mark off every cut line"
        for px, py in ((m.x1, m.y1), (m.x2, m.y2), ((m.x1 + m.x2) / 2, (m.y1 + m.y2) / 2)):
            assert 4.0 - 1e-6 <= px <= pw - 4.0 + 1e-6 and 4.0 - 1e-6 <= py <= ph - 4.0 + 1e-6
            for x, y, w, h in rects:     # never on a card's face
                assert not (x - 0.01 < px < x + w + 0.01 and y - 0.01 < py < y + h + 0.01)
    for x in xs:   # every vertical cut line is marked above and below the block
        assert any(abs(m.x1 - x) < 0.01 and m.y1 > max(r[1] + r[3] for r in rects) for m in marks)
        assert any(abs(m.x1 - x) < 0.01 and m.y1 < min(r[1] for r in rects) for m in marks)
    for y in ys:
        assert any(abs(m.y1 - y) < 0.01 and m.x1 < min(r[0] for r in rects) for m in marks)
        assert any(abs(m.y1 - y) < 0.01 and m.x1 > max(r[0] + r[2] for r in rects) for m in marks)


def test_a4_marks_above_and_below_stay_outside_the_bleed(tiny_game, tmp_path):
    out = build(tiny_game(nine_cards()), tmp_path, papers=("a4",))
    cards, segments = card_placements(PdfReader(out / "print-a4.pdf"), 0)
    rects = trims(cards)
    top = max(y + h for _, y, _, h in rects)
    bottom = min(y for _, y, _, _ in rects)
    vertical = [m for m in _marks(segments) if abs(m.x1 - m.x2) < 1e-6]
    assert vertical
    for m in vertical:
        lo, hi = min(m.y1, m.y2), max(m.y1, m.y2)
        assert lo >= top + BLEED or hi <= bottom - BLEED


def test_letter_marks_above_the_block_cross_the_bleed_with_a_halo(tiny_game, tmp_path):
    """Letter leaves 6.35 mm above a 3x3 poker block: the marks there cross the outer bleed,
    drawn over a white halo so they show on any background."""
    out = build(tiny_game(nine_cards()), tmp_path, papers=("letter",))
    cards, segments = card_placements(PdfReader(out / "print-letter.pdf"), 0)
    top = max(y + h for _, y, _, h in trims(cards))
    above = [m for m in _marks(segments) if abs(m.x1 - m.x2) < 1e-6 and min(m.y1, m.y2) > top]
    halos = [s for s in segments if s.gray > 0.5 and abs(s.x1 - s.x2) < 1e-6 and min(s.y1, s.y2) > top]
    assert len(above) == 4 and len(halos) == 4
    for m in above:
        assert min(m.y1, m.y2) == pytest.approx(top + 0.5, abs=0.01)
        assert max(m.y1, m.y2) == pytest.approx(PH - 4.0, abs=0.01)


@pytest.mark.parametrize("flip", ["long", "short"])
def test_each_back_lands_behind_its_face(tiny_game, tmp_path, flip):
    out = build(tiny_game(nine_cards(7)), tmp_path, papers=("letter",), flip=flip)
    reader = PdfReader(out / "print-letter.pdf")
    faces, _ = card_placements(reader, 0)
    backs, _ = card_placements(reader, 1)
    assert len(faces) == len(backs) == 7
    for f, b in zip(faces, backs):
        fx, fy = f.center()
        bx, by = b.center()
        assert (fx, fy) == pytest.approx((f.x + BLEED + CW / 2, f.y + BLEED + CH / 2), abs=0.01)
        if flip == "long":
            assert (bx, by) == pytest.approx((PW - fx, fy), abs=0.01)
            assert b.matrix[:4] == pytest.approx((1, 0, 0, 1))       # upright
        else:
            assert (bx, by) == pytest.approx((fx, PH - fy), abs=0.01)
            assert b.matrix[:4] == pytest.approx((-1, 0, 0, -1))     # turned 180 degrees


def test_back_offset_shifts_every_back(tiny_game, tmp_path):
    root = tiny_game(nine_cards(3))
    plain = build(root, tmp_path, papers=("letter",))
    reader = PdfReader(plain / "print-letter.pdf")
    base, _ = card_placements(reader, 1)
    shifted_out = tmp_path / "shifted"
    build_game(root, REPO, BuildOptions(out=shifted_out, only=("print",), papers=("letter",),
                                        outputs={"print": {"back_offset": (1.0, -0.5)}}), Report())
    shifted, _ = card_placements(PdfReader(shifted_out / "tiny" / "print-letter.pdf"), 1)
    for a, b in zip(base, shifted):
        assert b.x - a.x == pytest.approx(1.0, abs=0.01)
        assert b.y - a.y == pytest.approx(0.5, abs=0.01)      # 0.5 mm down = +0.5 from the bottom


def test_no_backs_leaves_out_back_pages(tiny_game, tmp_path):
    out = build(tiny_game(nine_cards(10)), tmp_path, papers=("letter",), backs=False)
    reader = PdfReader(out / "print-letter.pdf")
    assert len(reader.pages) == 2
    assert [len(card_placements(reader, i)[0]) for i in range(2)] == [9, 1]


def test_copies_follow_count(tiny_game, tmp_path):
    out = build(tiny_game("cards:\n  - {name: A, count: 11}\n  - {name: B, count: 2}\n"), tmp_path,
                papers=("a4",))
    reader = PdfReader(out / "print-a4.pdf")
    assert len(reader.pages) == 4
    counts = [len(card_placements(reader, i)[0]) for i in range(4)]
    assert counts == [9, 9, 4, 4]
    forms = [p.name for p in card_placements(reader, 0)[0]]
    assert len(set(forms)) == 1                   # nine copies of A: one form placed nine times


def test_gutter_mode_keeps_full_bleed_and_marks_each_corner(tiny_game, tmp_path):
    out = build(tiny_game(nine_cards(6)), tmp_path, papers=("letter",), gutter=True)
    reader = PdfReader(out / "print-letter.pdf")
    cards, segments = card_placements(reader, 0)
    # With a full bleed on every card, poker fits 2x2 upright on Letter but 2x3 turned.
    assert len(cards) == 6
    trims_on_sheet = []
    for c in cards:
        x, y, w, h = c.clip                      # the whole bleed box is shown
        assert (w, h) == pytest.approx((CH + 2 * BLEED, CW + 2 * BLEED), abs=0.01)
        trims_on_sheet.append((x + BLEED, y + BLEED, w - 2 * BLEED, h - 2 * BLEED))
    marks = _marks(segments)
    for x, y, w, h in trims_on_sheet:
        for cx, cy in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
            near = [m for m in marks
                    if ((abs(m.x1 - cx) < 0.01 and abs(m.x2 - cx) < 0.01) or (abs(m.y1 - cy) < 0.01 and abs(m.y2 - cy) < 0.01))
                    and min(abs(m.x1 - cx) + abs(m.y1 - cy), abs(m.x2 - cx) + abs(m.y2 - cy)) <= BLEED + 1.01]
            assert len(near) == 2, f"corner {cx:.1f},{cy:.1f} has {len(near)} marks"
        for m in marks:                          # never on any card's face
            for px, py in ((m.x1, m.y1), (m.x2, m.y2)):
                assert not (x + 0.01 < px < x + w - 0.01 and y + 0.01 < py < y + h - 0.01)


@pytest.mark.parametrize(("cards", "pages", "sizes"), [(9, 4, [{63.5}, {25.0}]), (2, 2, [{63.5, 25.0}])])
def test_a_size_gets_pages_of_its_own_unless_another_sheet_has_room(tiny_game, tmp_path, cards, pages, sizes):
    """A full sheet of cards leaves no room: the tokens get a sheet of their own. Two cards leave
    two thirds of the sheet free: the tokens go below them (`render.packing`)."""
    root = tiny_game(nine_cards(cards))
    (root / "tokens.yaml").write_text(
        "deck: Tokens\ntemplate: tiny/face\nback: tiny/back\nsize: {diameter: 25mm}\n"
        "cards:\n  - {name: T, count: 3}\n", encoding="utf-8")
    out = build(root, tmp_path, papers=("letter",))
    reader = PdfReader(out / "print-letter.pdf")
    assert len(reader.pages) == pages
    got = [{round(p.bbox[2] / (72 / 25.4) - 2 * BLEED, 2) for p in card_placements(reader, i)[0]}
           for i in range(0, pages, 2)]
    assert got == sizes


def test_cards_pdf_has_trim_and_bleed_boxes(tiny_game, tmp_path):
    out = build(tiny_game(), tmp_path, papers=("letter",))
    reader = PdfReader(out / "cards.pdf")
    assert len(reader.pages) == 3                 # 2 distinct faces, 1 shared back
    b = BLEED * 72 / 25.4
    for page in reader.pages:
        media = [float(v) for v in page.mediabox]
        assert media == pytest.approx([0, 0, (CW + 2 * BLEED) * 72 / 25.4, (CH + 2 * BLEED) * 72 / 25.4], abs=0.01)
        assert [float(v) for v in page.bleedbox] == pytest.approx(media, abs=0.01)
        assert [float(v) for v in page.trimbox] == pytest.approx([b, b, media[2] - b, media[3] - b], abs=0.01)


def test_every_font_is_embedded_and_subset(bundled_build):
    folder, _ = bundled_build("game-601")
    for name in ("en/print-letter.pdf", "en/cards.pdf", "de/print-letter.pdf", "de/cards.pdf"):
        reader = PdfReader(folder / name)
        fonts = {}

        def collect(res, fonts):
            res = res.get_object() if res else {}
            for f in pdf_entry(res, "/Font").values():
                f = f.get_object()
                fonts[str(f["/BaseFont"])] = f
            for xo in pdf_entry(res, "/XObject").values():
                collect(xo.get_object().get("/Resources"), fonts)

        for page in reader.pages:
            collect(page.get("/Resources"), fonts)
        assert fonts, name
        for base, font in fonts.items():
            assert "+" in base, f"{base} is not subset"
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor, f"{base} is not embedded"


def test_rebuild_is_byte_identical(tiny_game, tmp_path):
    root = tiny_game()
    a = build(root, tmp_path / "a", papers=("letter", "a4"))
    b = build(root, tmp_path / "b", papers=("letter", "a4"))
    for name in ("print-letter.pdf", "print-a4.pdf", "cards.pdf"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_jumbo_cards_turn_sideways_when_that_fits_more(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: J, count: 3}\n", deck_extra="size: jumbo\n")
    out = build(root, tmp_path, papers=("letter",))
    reader = PdfReader(out / "print-letter.pdf")
    cards, _ = card_placements(reader, 0)
    assert len(cards) == 3            # 1 x 3 turned, instead of 2 x 1 upright
    _placements, _ = page_items(reader, 0)
    # the forms are placed with a 90 degree turn: read the clip (sheet space) of each
    for p in cards:
        _x, _y, w, h = p.clip
        assert w > h                  # landscape on the sheet
    backs, _ = card_placements(reader, 1)
    assert len(backs) == 3
    for f, b in zip(cards, backs):
        fx = f.clip[0] + f.clip[2] / 2
        bx = b.clip[0] + b.clip[2] / 2
        assert bx == pytest.approx(PW - fx, abs=0.01)


def test_a_card_larger_than_the_page_is_printed_across_sheets(tiny_game, tmp_path):
    """(It was an error; now it is tiled like a board: tests/test_components.py measures it.)"""
    root = tiny_game("cards:\n  - {name: Board}\n", deck_extra="size: {width: 300mm, height: 300mm}\n")
    out = build(root, tmp_path, papers=("letter",))
    reader = PdfReader(out / "print-letter.pdf")
    assert len(reader.pages) == 4              # 2 x 2 sheets, one-sided


def test_a_card_with_count_zero_is_parked_not_printed(tiny_game, tmp_path):
    out = build(tiny_game("cards:\n  - {name: Kept, count: 2}\n  - {name: Parked, count: 0}\n"), tmp_path,
                papers=("letter",))
    reader = PdfReader(out / "cards.pdf")
    assert len(reader.pages) == 2                       # one face, one back
    assert "Parked" not in reader.pages[0].extract_text()
    assert len(card_placements(PdfReader(out / "print-letter.pdf"), 0)[0]) == 2


@pytest.mark.parametrize("game", ["face-off", "alien-conspiracy", "sheet-demo"])
def test_card_forms_are_written_exactly_as_reportlab_writes_them(game, tmp_path, monkeypatch):
    """`rlcompat._Form` writes card forms without ReportLab's object tree: the files must be
    the same bytes as ReportLab's own formatting gives (forms with images, nested forms and
    transparency included)."""
    from reportlab.pdfbase import pdfdoc

    from cardgen.render import rlcompat

    def made(tag):
        out = tmp_path / tag
        build_game(REPO / "cards" / game, REPO, BuildOptions(out=out, only=("print", "cards")), Report())
        files = sorted((out / game).glob("*.pdf"))
        assert files
        return {f.name: f.read_bytes() for f in files}

    fast = made("fast")
    calls = []
    monkeypatch.setattr(rlcompat._Form, "format",
                        lambda self, doc: calls.append(1) or pdfdoc.PDFFormXObject.format(self, doc))
    slow = made("slow")
    assert calls                      # the forms did go through ReportLab this time
    assert fast == slow


def test_card_forms_are_held_compressed_until_the_document_is_written(tmp_path):
    """A document holds every card form of its sheets until it is written: each form's
    operators are kept compressed from when it is made (not uncompressed until the end), written
    as they were kept, and given back whole to whoever reads the stream (ReportLab's own
    formatting)."""
    import io
    import zlib

    from pypdf import PdfReader
    from reportlab.pdfbase import pdfdoc

    from cardgen.core.data import DATA
    from cardgen.render import rlcompat
    from cardgen.render.draw import new_canvas
    from cardgen.resources.fonts import FontBook

    c = new_canvas(None, FontBook([DATA / "fonts"]), pagesize=(200, 200))
    c.beginForm("card1", 0, 0, 100, 100)
    for i in range(200):
        c.rect(i % 90, i % 80, 5, 5, fill=1)
    c.endForm()
    c.add_form("card2", 100, 100, "0 0 1 rg 10 10 50 50 re f", [], [])
    forms = [c._doc.idToObject[pdfdoc.xObjectName(n)] for n in ("card1", "card2")]
    for form in forms:
        assert type(form) is rlcompat._Form and "_stream" not in vars(form) and "stream" not in vars(form)
        assert zlib.decompress(vars(form)["_packed"]) == form.stream
    assert b"10 10 50 50 re f" in forms[1].stream and forms[0].stream.count(b" re") == 200
    c.doForm("card1")
    c.doForm("card2")
    c.showPage()
    page = PdfReader(io.BytesIO(c.getpdfdata())).pages[0]
    streams = [x.get_object().get_data() for x in page["/Resources"]["/XObject"].values()]
    assert sorted(streams) == sorted(f.stream for f in forms)
