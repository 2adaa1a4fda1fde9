"""Sheet layouts as data: the presets load and validate, a broken layout file is reported at its
file:line:col, the default sheets are the plain grid byte for byte, fold-over backs sit exactly
behind their faces (read back from the PDF and from rendered pixels), the registration marks
are where docs/printing.md says, and the player aid is printed with the cards."""
from __future__ import annotations

import io
import math
import re

import pypdfium2 as pdfium
import pytest
from conftest import REPO, write
from pdfgeom import MM, page_items
from pypdf import PdfReader
from test_marked_cards import _placed_rect
from test_validate import run
from vgame import make_game

from cardgen.core.errors import CardgenError, Report
from cardgen.layout.engine import layout_game
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import load_game
from cardgen.render import impose
from cardgen.render.pdf import SheetOptions, plan_sheets, print_sheets
from cardgen.render.sheetlayout import PRESETS, load_layout, preset_names, resolve

BLEED = 3.175
POKER = (63.5, 88.9)
LETTER = (215.9, 279.4)

# A face with a red square at its top-left corner, a back with a green one: after folding (or
# duplex), a card turned over like a book page shows the back's top-left behind the face's
# top-right.
MARKED_FACE = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "{{ card.color }}"}
      - {name: corner, type: rect, x: 0mm, y: 0mm, width: 12mm, height: 12mm, fill: "#ff0000"}
"""
MARKED_BACK = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "{{ card.back_color }}"}
      - {name: corner, type: rect, x: 0mm, y: 0mm, width: 12mm, height: 12mm, fill: "#00ff00"}
"""
COLOURS = ["#2040c0", "#c0a020", "#8020a0", "#20a0a0", "#a05020", "#606060"]
BACKS = ["#f0c0c0", "#c0f0c0", "#c0c0f0", "#f0f0a0", "#a0f0f0", "#f0a0f0"]


def marked_game(tiny_game, n=6, game_extra=""):
    """`n` cards, each with its own face colour and its own back colour (per-card backs)."""
    cards = "cards:\n" + "".join(f'  - {{name: "C{i}", color: "{COLOURS[i % 6]}", back_color: "{BACKS[i % 6]}"}}\n'
                                 for i in range(n))
    root = tiny_game(cards, template=MARKED_FACE, game_extra=game_extra)
    write(root / "templates" / "tiny" / "back.yaml", MARKED_BACK)
    deck = (root / "deck.yaml").read_text().replace("back: tiny/back\n", "backs: tiny/back\n")
    (root / "deck.yaml").write_text(deck)
    return root


def build(root, out, only=("print",), papers=("letter",), project=REPO, **outputs):
    opts = BuildOptions(out=out, only=only, papers=papers, outputs=outputs)
    report = Report()
    build_game(root, project, opts, report)
    return out / root.name, report


def card_trims(reader, page):
    """Trim boxes (x0, y0, x1, y1) of the cards placed on a page, in drawing order."""
    placements, _ = page_items(reader, page)
    return [(x0 + BLEED, y0 + BLEED, x1 - BLEED, y1 - BLEED)
            for x0, y0, x1, y1 in (_placed_rect(p) for p in placements if ".card" in p.name)]


# -- the presets -------------------------------------------------------------------------------

def test_every_preset_loads_and_places_poker_cards():
    names = preset_names()
    assert {"letter", "a4", "letter-gutter", "a4-gutter", "letter-foldover", "a4-foldover", "silhouette-letter",
            "silhouette-a4"} <= set(names)
    for name in names:
        layout = load_layout(PRESETS / f"{name}.yaml")
        assert layout.spec.description, name
        frame = layout.frame(*POKER, BLEED, False, "poker")
        assert frame.per_page >= 4, name
        for s in impose.slots(frame, frame.per_page):       # every card, bleed included, on the paper
            assert s.x - BLEED >= 0 and s.y - BLEED >= 0, name
            assert s.x + s.w + BLEED <= layout.paper_w and s.y + s.h + BLEED <= layout.paper_h, name


@pytest.mark.parametrize("name, gutter, sheets", [("letter", False, 2), ("a4", False, 2),
                                                  ("letter-gutter", True, 3), ("a4-gutter", True, 3)])
def test_grid_presets_are_the_plain_grid_byte_for_byte(tiny_game, name, gutter, sheets):
    """The presets restate the grid cardgen computes without a layout file: same PDF bytes."""
    root = tiny_game("cards:\n" + "".join(f"  - {{name: C{i}, count: {i % 3 + 1}}}\n" for i in range(9)))
    r = layout_game(load_game(root, REPO), Report())
    paper = name.split("-")[0]
    plain = SheetOptions(paper, gutter)
    preset = SheetOptions(paper, False, layout=load_layout(PRESETS / f"{name}.yaml"))
    assert plan_sheets(r.copies, preset) == plan_sheets(r.copies, plain)
    a = print_sheets(r.copies, r.res.fonts, plain, "Tiny")
    b = print_sheets(r.copies, r.res.fonts, preset, "Tiny")
    assert a == b
    assert len(PdfReader(io.BytesIO(a)).pages) == 2 * sheets          # 18 copies, and their backs


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_default_print_sheets_unchanged(tiny_game, tmp_path, paper):
    """A build's print-<paper>.pdf (a game without a player aid) is the plain grid's PDF, byte for
    byte: the layout files changed nothing (checked against main's build with cmp as well)."""
    root = tiny_game("cards:\n" + "".join(f"  - {{name: C{i}, count: 2}}\n" for i in range(7)))
    out, _ = build(root, tmp_path, papers=(paper,))
    r = layout_game(load_game(root, REPO), Report())
    assert (out / f"print-{paper}.pdf").read_bytes() == print_sheets(r.copies, r.res.fonts, SheetOptions(paper),
                                                                     "Tiny")


# -- broken layout files -------------------------------------------------------------------------

BROKEN = """\
description: broken
paper: leter
card: poker
cards:
  - {x: 10, y: 10}
  - {x: 50mm, y: 10, rotate: 45}
crop_marks: line
registraton: {inset: 10mm}
"""
OFF_THE_PAPER = """\
paper: {width: 100mm, height: 150mm}
card: poker
cards:
  - {x: 10, y: 10}
  - {x: 40mm, y: 20mm}
area: {x: 0, y: 0, width: 200, height: 10}
"""


def test_a_broken_layout_file_is_reported_at_file_line_col(tmp_path):
    make_game(tmp_path, game="title: Test game\nprint:\n  layout: [letter, bad, letter-foldover, nosuch, mine]\n",
              files={"layouts/bad.yaml": BROKEN, "cards/g/layouts/mine.yaml": OFF_THE_PAPER})
    code, lines = run(tmp_path, "g")
    assert code == 1
    assert lines == [
        "cards/g/game.yaml:3:25: error: layout 'letter-foldover' is a fold-over layout (`fold: vertical`); name it "
        "under `foldover: layout:` instead",
        "cards/g/game.yaml:3:42: error: no layout 'nosuch': none in g/layouts/, the project's layouts/ or the presets "
        f"({', '.join(preset_names())})",
        "cards/g/layouts/mine.yaml:5:5: error: layout 'mine': card position 2 (40,20 mm, 63.5x88.9 mm as placed) "
        "reaches past the paper (100x150 mm)",
        "cards/g/layouts/mine.yaml:5:5: error: layout 'mine': card position 2 overlaps position 1",
        "cards/g/layouts/mine.yaml:6:7: error: layout 'mine': `area` reaches past the paper (100x150 mm)",
        "layouts/bad.yaml:2:8: error: layout 'bad': `paper` is not a paper size: 'leter'; did you mean 'letter'? "
        "(named sizes: letter, a4, a5, half-letter, a6; or give width and height)",
        "layouts/bad.yaml:6:30: error: layout 'bad': `cards` item 2 `rotate` must be 0, 90, -90, 270 or 180 "
        "(degrees), got 45",
        "layouts/bad.yaml:7:13: error: layout 'bad': `crop_marks` must be one of ticks, lines, none, got 'line'; "
        "did you mean 'lines'?",
        "layouts/bad.yaml:8:1: error: layout 'bad': unknown key 'registraton'; did you mean 'registration'?",
        "g: 9 errors, 0 warnings"]


def test_build_refuses_a_broken_layout_with_the_same_messages(tmp_path):
    root = make_game(tmp_path, files={"layouts/bad.yaml": BROKEN})
    with pytest.raises(CardgenError) as exc:
        build(root, tmp_path / "out", project=tmp_path, print={"layout": ("bad",)})
    shown = sorted(f"{d.loc.line}:{d.loc.col} {d.message}" for d in exc.value.diagnostics)
    assert shown[0] == ("2:8 layout 'bad': `paper` is not a paper size: 'leter'; did you mean 'letter'? (named "
                        "sizes: letter, a4, a5, half-letter, a6; or give width and height)")
    assert len(shown) == 4 and all(d.loc.file.endswith("layouts/bad.yaml") for d in exc.value.diagnostics)
    assert not (tmp_path / "out" / "g").exists()


@pytest.mark.parametrize("name, message", [
    ("../../etc/passwd", "layout '../../etc/passwd' is not a layout name: a layout is named by its file in layouts/, "
                         "without .yaml"),
    ("lettr", "no layout 'lettr'; did you mean 'letter'?"),
])
def test_a_layout_name_stays_a_name(tmp_path, name, message):
    root = make_game(tmp_path)
    game = load_game(root, tmp_path)
    with pytest.raises(CardgenError) as exc:
        resolve(name, game)
    assert str(exc.value.diagnostics[0].loc).endswith("cards/g/game.yaml:1")
    assert exc.value.diagnostics[0].message.startswith(message)


def test_a_layout_file_that_links_outside_is_refused(tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("paper: letter\n")
    root = make_game(tmp_path)
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "sneaky.yaml").symlink_to(outside)
    with pytest.raises(CardgenError) as exc:
        resolve("sneaky", load_game(root, tmp_path))
    assert "layout 'sneaky' resolves outside the allowed folders" in exc.value.diagnostics[0].message


def test_a_project_layout_replaces_the_preset_of_that_name(tmp_path):
    root = make_game(tmp_path, files={"layouts/letter.yaml": "paper: letter\ncrop_marks: lines\n"})
    out, _ = build(root, tmp_path / "out", project=tmp_path)
    _, segments = page_items(PdfReader(out / "print-letter.pdf"), 0)
    long_lines = [s for s in segments if abs(s.x1 - s.x2) + abs(s.y1 - s.y2) > 200]
    assert len(long_lines) == 8           # a 3x3 grid: 4 vertical and 4 horizontal cut lines across the sheet


# -- fold-over sheets ----------------------------------------------------------------------------

DPI = 100


def _mean(img, x, y, page_h, r=1.5):
    """Mean RGB of a square of side 2r mm centred on (x, y), mm from the page's bottom-left."""
    k = DPI / 25.4
    crop = img.crop((round((x - r) * k), round((page_h - y - r) * k), round((x + r) * k), round((page_h - y + r) * k)))
    return crop.reduce((crop.width, crop.height)).getpixel((0, 0))


def _near(rgb, hex_colour, tol=40):
    want = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return max(abs(a - b) for a, b in zip(rgb, want)) <= tol


def _corners(t, inset=6.0):
    """Sample points near a trim's corners, clockwise from the top-left (y up)."""
    x0, y0, x1, y1 = t
    return [(x0 + inset, y1 - inset), (x1 - inset, y1 - inset), (x1 - inset, y0 + inset), (x0 + inset, y0 + inset)]


def check_foldover(pdf, vertical, gap=6.0):
    """Every back exactly opposite its face across the fold (placements, 0.1 mm) and the right
    way round (pixels: the back's top-left corner behind the face's top-right); returns the
    number of cards checked."""
    reader = PdfReader(pdf)
    doc = pdfium.PdfDocument(str(pdf))
    w, h = (float(v) / MM for v in reader.pages[0].mediabox[2:])
    fold = w / 2 if vertical else h / 2

    def mirror(x, y):
        return (2 * fold - x, y) if vertical else (x, 2 * fold - y)

    seen = 0
    for n in range(len(reader.pages)):
        trims = card_trims(reader, n)
        k = len(trims) // 2
        assert len(trims) == 2 * k and k > 0
        img = doc[n].render(scale=DPI / 72).to_pil().convert("RGB")
        for front, back in zip(trims[:k], trims[k:]):
            if vertical:
                assert front[2] <= fold - gap + 1e-6                    # fronts on the left half
                expect = (2 * fold - front[2], front[1], 2 * fold - front[0], front[3])
            else:
                assert front[1] >= fold + gap - 1e-6                    # fronts on the top half (y up)
                expect = (front[0], 2 * fold - front[3], front[2], 2 * fold - front[1])
            assert back == pytest.approx(expect, abs=0.1)
            centre = ((front[0] + front[2]) / 2, (front[1] + front[3]) / 2)
            colour = _mean(img, *centre, h, r=3)
            i = next(i for i, c in enumerate(COLOURS) if _near(colour, c))
            assert _near(_mean(img, *mirror(*centre), h, r=3), BACKS[i]), "the back of another card"
            red = [j for j, p in enumerate(_corners(front)) if _near(_mean(img, *p, h), "#ff0000")]
            assert len(red) == 1
            top_right = _corners(front)[(red[0] + 1) % 4]
            assert _near(_mean(img, *mirror(*top_right), h), "#00ff00"), "the back is turned the wrong way"
            green = [p for p in _corners(back) if _near(_mean(img, *p, h), "#00ff00")]
            assert len(green) == 1
            seen += 1
    return seen


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_foldover_backs_sit_exactly_behind_their_faces(tiny_game, tmp_path, paper):
    root = marked_game(tiny_game, 6)
    out, report = build(root, tmp_path / "out", only=("foldover",), papers=(paper,))
    pdf = out / f"print-{paper}-foldover.pdf"
    assert check_foldover(pdf, vertical=True) == 6
    assert len(PdfReader(pdf).pages) == 2          # 6 different backs: 3 a page with a gutter, never butted
    assert report.notes == [f"print-{paper}-foldover.pdf: 2 sheets, single-sided; 6 back designs kept apart: "
                            f"left-over cards of different backs share pages with a full-bleed gutter (4 sheets "
                            f"fewer than a page per back design)"]


def test_horizontal_fold_turns_the_backs_upside_down(tiny_game, tmp_path):
    root = marked_game(tiny_game, 5)
    write(root / "layouts" / "across.yaml", "paper: a4\nfold: horizontal\nmargin: 8mm\nfold_gap: 6mm\n")
    out, _ = build(root, tmp_path / "out", only=("foldover",), foldover={"layout": ("across",)})
    assert check_foldover(out / "print-across-foldover.pdf", vertical=False) == 5


def test_foldover_marks_stay_off_every_bleed_and_the_fold_is_marked(tiny_game, tmp_path):
    root = marked_game(tiny_game, 4)
    out, _ = build(root, tmp_path / "out", only=("foldover",))
    reader = PdfReader(out / "print-letter-foldover.pdf")
    w = float(reader.pages[0].mediabox[2]) / MM
    trims = card_trims(reader, 0)
    _, segments = page_items(reader, 0)
    fold = [s for s in segments if abs(s.x1 - w / 2) < 1e-6 and abs(s.x2 - w / 2) < 1e-6]
    marks = [s for s in segments if s not in fold]
    assert fold and all(s.gray > 0.3 for s in fold)                  # grey, dashed (between the two labels)
    assert sum(abs(s.y2 - s.y1) for s in fold) > 250
    assert reader.pages[0].extract_text().count("fold") >= 2
    bled = [(x0 - BLEED, y0 - BLEED, x1 + BLEED, y1 + BLEED) for x0, y0, x1, y1 in trims]
    for s in fold + marks:                                           # nothing over a card or its bleed
        for x0, y0, x1, y1 in bled:
            for t in (0.0, 0.5, 1.0):
                px, py = s.x1 + t * (s.x2 - s.x1), s.y1 + t * (s.y2 - s.y1)
                assert not (x0 + 1e-3 < px < x1 - 1e-3 and y0 + 1e-3 < py < y1 - 1e-3), (s, (x0, y0, x1, y1))
    xs = {round(v, 2) for t in trims for v in (t[0], t[2])}
    ys = {round(v, 2) for t in trims for v in (t[1], t[3])}
    for x in xs:                                                     # every cut line has a mark
        assert any(abs(m.x1 - x) < 0.01 and abs(m.x2 - x) < 0.01 for m in marks), x
    for y in ys:
        assert any(abs(m.y1 - y) < 0.01 and abs(m.y2 - y) < 0.01 for m in marks), y


def _touching_backs_differ(pdf):
    """Pairs of backs on fold-over pages that share a cut line but show different colours."""
    from test_marked_cards import _shared_cuts

    reader = PdfReader(pdf)
    doc = pdfium.PdfDocument(str(pdf))
    h = float(reader.pages[0].mediabox[3]) / MM
    bad, shared = [], 0
    for n in range(len(reader.pages)):
        trims = card_trims(reader, n)
        backs = trims[len(trims) // 2:]
        img = doc[n].render(scale=DPI / 72).to_pil().convert("RGB")
        colours = [_mean(img, (x0 + x1) / 2, (y0 + y1) / 2, h, r=3) for x0, y0, x1, y1 in backs]
        for i, j, *_ in _shared_cuts(backs):
            shared += 1
            if max(abs(a - b) for a, b in zip(colours[i], colours[j])) > 24:
                bad.append((n + 1, i, j))
    return bad, shared


def test_foldover_never_butts_different_backs(tiny_game, tmp_path):
    from test_marked_cards import _two_backs

    root = _two_backs(tiny_game, 5, 6)
    out, _ = build(root, tmp_path / "out", only=("foldover",))
    bad, shared = _touching_backs_differ(out / "print-letter-foldover.pdf")
    assert bad == [] and shared > 0
    mixed, _ = build(root, tmp_path / "mixed", only=("foldover",), print={"mix_backs": True})
    assert _touching_backs_differ(mixed / "print-letter-foldover.pdf")[0] != []


# -- cutting machines ----------------------------------------------------------------------------

REG_DPI = 300


def _dark_run(img, along_x, at, lo, hi, page_h):
    """(first, last) mm of the dark pixels on the line y=at (along_x) or x=at, between lo and hi mm
    (mm from the page's top-left)."""
    k = REG_DPI / 25.4
    dark = []
    for i in range(round(lo * k), round(hi * k)):
        px = img.getpixel((i, round(at * k)) if along_x else (round(at * k), i))
        if sum(px) < 3 * 100:
            dark.append(i)
    assert dark, (along_x, at, lo, hi)
    assert dark[-1] - dark[0] + 1 == len(dark), "one unbroken mark"
    return dark[0] / k, (dark[-1] + 1) / k


@pytest.mark.parametrize("name, paper", [("silhouette-letter", LETTER), ("silhouette-a4", (210.0, 297.0))])
def test_registration_marks_where_the_docs_say_and_cards_clear_of_them(tiny_game, tmp_path, name, paper):
    """docs/printing.md: a 5 mm square 10 mm from the top and left edges; L-marks of 0.5 mm bars,
    20 mm long, 10 mm from the edges, at the top-right and bottom-left; cards, bleed included, at
    least 2 mm clear of each mark's 20 mm square and inside the marks."""
    root = tiny_game("cards:\n" + "".join(f"  - {{name: C{i}, color: '#101010'}}\n" for i in range(8)))
    out, _ = build(root, tmp_path / "out", print={"layout": (name,)})
    pdf = out / f"print-{name}.pdf"
    doc = pdfium.PdfDocument(str(pdf))
    w, h = paper
    img = doc[0].render(scale=REG_DPI / 72).to_pil().convert("RGB")
    tol = 0.1
    assert _dark_run(img, True, 12.5, 0, 35, h) == pytest.approx((10, 15), abs=tol)          # the square
    assert _dark_run(img, False, 12.5, 0, 35, h) == pytest.approx((10, 15), abs=tol)
    assert _dark_run(img, True, 10.25, w - 40, w - 2, h) == pytest.approx((w - 30, w - 10), abs=tol)   # top-right
    assert _dark_run(img, False, w - 10.25, 2, 40, h) == pytest.approx((10, 30), abs=tol)
    assert _dark_run(img, False, w - 20, 2, 20, h) == pytest.approx((10, 10.5), abs=tol)     # 0.5 mm thick
    assert _dark_run(img, True, h - 10.25, 2, 40, h) == pytest.approx((10, 30), abs=tol)     # bottom-left
    assert _dark_run(img, False, 10.25, h - 40, h - 2, h) == pytest.approx((h - 30, h - 10), abs=tol)
    assert _dark_run(img, True, h - 20, 2, 20, h) == pytest.approx((10, 10.5), abs=tol)
    back = doc[1].render(scale=REG_DPI / 72).to_pil().convert("RGB")                           # none on the back
    assert all(sum(back.getpixel((round(x * REG_DPI / 25.4), round(12.5 * REG_DPI / 25.4)))) > 600
               for x in range(1, 35))
    reader = PdfReader(pdf)
    trims = card_trims(reader, 0)
    assert len(trims) == 6                                                       # poker: 2 x 3, turned
    zones = [(10, h - 30, 30, h - 10), (w - 30, h - 30, w - 10, h - 10), (10, 10, 30, 30)]   # y up
    for x0, y0, x1, y1 in trims:
        bx0, by0, bx1, by1 = x0 - BLEED, y0 - BLEED, x1 + BLEED, y1 + BLEED
        assert bx0 >= 12 - 1e-6 and by0 >= 12 - 1e-6 and bx1 <= w - 12 + 1e-6 and by1 <= h - 12 + 1e-6
        for zx0, zy0, zx1, zy1 in zones:
            assert bx1 <= zx0 - 2 + 1e-6 or bx0 >= zx1 + 2 - 1e-6 or by1 <= zy0 - 2 + 1e-6 or by0 >= zy1 + 2 - 1e-6
    svg = (out / f"print-{name}-cut.svg").read_text()
    assert f'width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}"' in svg
    rects = [tuple(float(v) for v in m) for m in
             re.findall(r'<rect id="card-\d+" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/>', svg)]
    from_pdf = sorted((x0, h - y1, x1 - x0, y1 - y0) for x0, y0, x1, y1 in trims)          # to top-left origin
    assert [v for r in sorted(rects) for v in r] == pytest.approx([v for r in from_pdf for v in r], abs=0.01)


def test_a_cutter_layout_whose_cards_would_touch_a_mark_is_refused(tiny_game, tmp_path):
    root = tiny_game()
    write(root / "layouts" / "tight.yaml", "paper: letter\narea: {x: 5mm, y: 5mm, width: 200mm, height: 260mm}\n"
                                           "registration: {inset: 10mm}\n")
    with pytest.raises(CardgenError) as exc:
        build(root, tmp_path / "out", print={"layout": ("tight",)})
    d = exc.value.diagnostics[0]
    assert (d.loc.line, d.loc.col) == (2, 7) and d.loc.file.endswith("layouts/tight.yaml")
    assert d.message.startswith("layout 'tight': a card of deck 'Things' at ")
    assert "reaches outside the registration marks" in d.message


# -- the player aid on the sheets and in the PNGs ------------------------------------------------

AID = """\
title: Tiny
player_aid:
  turn: [Draw a card, Play a card]
  end: [The last card wins]
"""


def _aid_game(tiny_game, players="2-3", aid_extra=""):
    root = tiny_game("cards:\n  - {name: Alpha, color: '#ff0000', count: 9}\n", game_extra=f"players: {players}\n")
    write(root / "rules.yaml", AID + aid_extra)
    return root


@pytest.mark.parametrize("players, extra, copies", [("2-3", "", 3), ("4", "", 4), ("solo play", "", 1),
                                                    ("2-3", "  count: 2\n", 2)])
def test_player_aids_on_the_print_sheets_at_their_size(tiny_game, tmp_path, players, extra, copies):
    out, report = build(_aid_game(tiny_game, players, extra), tmp_path / "out", only=("print", "foldover"))
    reader = PdfReader(out / "print-letter.pdf")
    assert len(reader.pages) == 4                        # 9 cards: one sheet; the aids: a sheet of their own
    assert "Your turn" not in reader.pages[0].extract_text()
    aids = card_trims(reader, 2)
    assert len(aids) == copies
    for x0, y0, x1, y1 in aids:
        assert (x1 - x0, y1 - y0) == pytest.approx(POKER, abs=0.01)
    assert reader.pages[2].extract_text().count("Your turn") == copies
    assert reader.pages[3].extract_text().count("End of the game") == copies
    back_trims = card_trims(reader, 3)                   # each aid's back behind it (long-edge flip)
    assert sorted(round(LETTER[0] - x1, 2) for x0, _, x1, _ in back_trims) == sorted(round(x0, 2) for x0, *_ in aids)
    assert report.notes[0].endswith(f"; the player aid ({copies} copies) on 1 page of their own")
    fold = PdfReader(out / "print-letter-foldover.pdf")
    assert fold.pages[-1].extract_text().count("Your turn") == min(copies, 4)


def test_player_aid_count_zero_leaves_it_off_and_a_bad_count_is_an_error(tiny_game, tmp_path):
    out, _ = build(_aid_game(tiny_game, aid_extra="  count: 0\n"), tmp_path / "out")
    assert len(PdfReader(out / "print-letter.pdf").pages) == 2
    (tmp_path / "v").mkdir()
    root = make_game(tmp_path / "v", rules=AID + "  count: many\n")
    assert run(tmp_path / "v", "g") == (1, ["cards/g/rules.yaml:5:10: error: player_aid `count` must be a whole "
                                            "number from 0 to 10000, got 'many'", "g: 1 error, 0 warnings"])
    assert root.is_dir()


def test_player_aids_in_the_print_service_pngs(tiny_game, tmp_path):
    from PIL import Image

    out, _ = build(_aid_game(tiny_game), tmp_path / "out", only=("png",), png={"targets": ("mpc",)})
    fronts = sorted(p.name for p in (out / "png" / "mpc" / "fronts").iterdir())
    backs = sorted(p.name for p in (out / "png" / "mpc" / "backs").iterdir())
    aids = [f"{n:03d}-player-aid-{i}of3.png" for n, i in ((10, 1), (11, 2), (12, 3))]
    assert fronts[-3:] == aids and [f for f in fronts if "player-aid" in f] == aids
    assert [b for b in backs if "player-aid" in b] == aids                      # each with its own back
    front = Image.open(out / "png" / "mpc" / "fronts" / aids[0])
    back = Image.open(out / "png" / "mpc" / "backs" / aids[0])
    assert front.size == back.size == (822, 1122)                               # poker at MakePlayingCards
    assert front.convert("RGB").getpixel((411, 60)) != back.convert("RGB").getpixel((411, 600))


# -- the docs' examples, and layouts for one card size --------------------------------------------

def test_the_example_layouts_in_the_docs_load_and_hold_their_cards(tmp_path):
    text = (REPO / "docs" / "printing.md").read_text(encoding="utf-8")
    examples = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if b.startswith("description:")]
    assert len(examples) == 2
    for i, body in enumerate(examples):
        path = write(tmp_path / f"example{i}.yaml", body)
        layout = load_layout(path)
        size = (70.0, 120.0) if layout.spec.card is not None else POKER
        frame = layout.frame(*size, BLEED, False, "a deck")
        assert frame.per_page == (3 if layout.spec.card is not None else 4)      # poker: 2x2 in that area


def test_a_deck_of_another_size_than_the_layout_is_an_error(tiny_game, tmp_path):
    root = tiny_game()
    write(root / "layouts" / "tarot3.yaml", "paper: a4\ncard: tarot\ncards:\n  - {x: 20mm, y: 20mm}\n")
    with pytest.raises(CardgenError) as exc:
        build(root, tmp_path / "out", print={"layout": ("tarot3",)})
    d = exc.value.diagnostics[0]
    assert (d.loc.line, d.loc.col) == (2, 7)
    assert d.message == ("layout 'tarot3' is for tarot (70x120 mm) cards, but deck 'Things' is 63.5x88.9 mm; use a "
                         "layout for that size or one with `card: any`")


def test_foldover_takes_only_layouts_with_a_fold(tmp_path):
    make_game(tmp_path, game="title: Test game\nfoldover:\n  layout: [letter-foldover, a4]\n")
    assert run(tmp_path, "g") == (1, ["cards/g/game.yaml:3:29: error: layout 'a4' has no fold (`fold: none`): it "
                                      "makes duplex sheets; name it under `print: layout:` instead",
                                      "g: 1 error, 0 warnings"])


def test_listed_positions_are_where_the_cards_go(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: A, count: 4}\n", deck_extra="size: tarot\n")
    write(root / "layouts" / "three.yaml", "paper: {width: 297mm, height: 297mm}\ncard: tarot\ncards:\n"
                                           "  - {x: 25mm, y: 45mm}\n  - {x: 95mm, y: 45mm}\n"
                                           "  - {x: 202mm, y: 45mm, rotate: 180}\n  - {x: 100mm, y: 175mm, rotate: 90}\n")
    out, report = build(root, tmp_path / "out", print={"layout": ("three",)})
    reader = PdfReader(out / "print-three.pdf")
    h = 297.0
    trims = [(x0, h - y1, x1 - x0, y1 - y0) for x0, y0, x1, y1 in card_trims(reader, 0)]   # top-left origin
    expect = [(25, 45, 70, 120), (95, 45, 70, 120), (202, 45, 70, 120), (100, 175, 120, 70)]
    assert [v for t in trims for v in t] == pytest.approx([v for t in expect for v in t], abs=0.01)
    placements = [p for p in page_items(reader, 0)[0] if ".card" in p.name]
    turns = [round(math.degrees(math.atan2(p.matrix[1], p.matrix[0]))) % 360 for p in placements]
    assert turns == [0, 0, 180, 90]
    first, second = placements[0].clip, placements[1].clip        # butted: no bleed between them
    assert first[0] + first[2] == pytest.approx(95, abs=0.01) and second[0] == pytest.approx(95, abs=0.01)
    backs = [(x0, h - y1, x1 - x0, y1 - y0) for x0, y0, x1, y1 in card_trims(reader, 1)]
    assert [round(297 - x - w, 2) for x, _, w, _ in backs] == [25, 95, 202, 100]        # long-edge flip
    assert report.notes == ["print-three.pdf: 1 sheets; one back design per card size: cards butted"]
    write(root / "layouts" / "three.yaml", "paper: a4\ncard: tarot\ncards:\n  - {x: 10mm, y: 10mm}\n"
                                           "  - {x: 84mm, y: 10mm}\n")
    with pytest.raises(CardgenError) as exc:
        build(root, tmp_path / "again", print={"layout": ("three",)})
    d = exc.value.diagnostics[0]
    assert (d.loc.line, d.loc.col, d.message) == (5, 5, "layout 'three': card position 2 is closer to position 1 "
                                                        "than two bleeds of deck 'Things' (6.35 mm): butt them or "
                                                        "space them further apart, so no card's bleed lies on another")
