"""No marked cards: on the back pages of every bundled game, no two cards with different backs
share a cut line.  Read back by pixels: for every cut line two cards share, both cards are
sampled (a grid of block averages over the whole card); they must show the same back, so a
miscut only ever shows a sliver of the same design.  `--mix-backs` keeps the old order, and the
same check finds the different backs touching there (so the check can fail)."""
from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from conftest import REPO
from pdfgeom import MM, page_items
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import load_game

GAMES = sorted(p.name for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file())
DPI = 100
BLOCKS = 8               # samples per side of a card


def _folders(game, folder):
    """The game's output folders in its build folder: it, or one per language (Game 601: en/
    and de/)."""
    langs = load_game(REPO / "cards" / game, REPO).languages
    return [folder / lang for lang in langs] or [folder]


def _placed_rect(p):
    """The placed form's box (x0, y0, x1, y1) in mm from the page's bottom-left."""
    x0, y0, x1, y1 = p.bbox
    a, b, c, d, e, f = p.matrix
    xs = [(x * a + y * c + e) / MM for x in (x0, x1) for y in (y0, y1)]
    ys = [(x * b + y * d + f) / MM for x in (x0, x1) for y in (y0, y1)]
    return min(xs), min(ys), max(xs), max(ys)


def _shared_cuts(trims):
    """(i, j, axis, at, lo, hi): cards i and j share the cut line x=at (axis 'x') or y=at over lo..hi."""
    out = []
    for i, (ax0, ay0, ax1, ay1) in enumerate(trims):
        for j, (bx0, by0, bx1, by1) in enumerate(trims):
            if abs(ax1 - bx0) < 0.05 and min(ay1, by1) - max(ay0, by0) > 5:
                out.append((i, j, "x", ax1, max(ay0, by0), min(ay1, by1)))
            if abs(ay0 - by1) < 0.05 and min(ax1, bx1) - max(ax0, bx0) > 5:   # j below i
                out.append((i, j, "y", ay0, max(ax0, bx0), min(ax1, bx1)))
    return out


def _mean(img, x0, y0, x1, y1, page_h):
    """Mean RGB of a rectangle given in mm from the bottom-left."""
    k = DPI / 25.4
    crop = img.crop((round(x0 * k), round((page_h - y1) * k), round(x1 * k), round((page_h - y0) * k)))
    return crop.reduce((crop.width, crop.height)).getpixel((0, 0))


def _sample(img, trim, page_h):
    """BLOCKS x BLOCKS block averages over the card's trim (0.5 mm in from the cut)."""
    x0, y0, x1, y1 = trim[0] + 0.5, trim[1] + 0.5, trim[2] - 0.5, trim[3] - 0.5
    w, h = (x1 - x0) / BLOCKS, (y1 - y0) / BLOCKS
    return [_mean(img, x0 + i * w, y0 + j * h, x0 + (i + 1) * w, y0 + (j + 1) * h, page_h)
            for j in range(BLOCKS) for i in range(BLOCKS)]


def marked_edges(pdf, bleed):
    """Every cut line on a back page shared by two cards that show different backs, and how many
    shared cut lines there were."""
    reader = PdfReader(pdf)
    doc = pdfium.PdfDocument(str(pdf))
    bad, cuts_seen = [], 0
    for n in range(1, len(reader.pages), 2):          # back pages follow their face pages
        placements, _ = page_items(reader, n)
        cards = [p for p in placements if ".card" in p.name]
        trims = [(x0 + bleed, y0 + bleed, x1 - bleed, y1 - bleed) for x0, y0, x1, y1 in map(_placed_rect, cards)]
        cuts = _shared_cuts(trims)
        if not cuts:
            continue
        page_h = float(reader.pages[n].mediabox.height) / MM
        img = doc[n].render(scale=DPI / 72).to_pil().convert("RGB")
        samples = [_sample(img, t, page_h) for t in trims]
        for i, j, axis, at, _, _ in cuts:
            cuts_seen += 1
            diff = max(abs(u - v) for a, b in zip(samples[i], samples[j]) for u, v in zip(a, b))
            if diff > 24:
                bad.append((n + 1, axis, round(at, 1), diff))
    return bad, cuts_seen


def _bleed(game):
    bleeds = {round(d.bleed, 3) for d in load_game(REPO / "cards" / game, REPO).decks}
    assert len(bleeds) == 1
    return bleeds.pop()


@pytest.mark.parametrize("game", GAMES)
def test_no_two_different_backs_share_a_cut_line(game, bundled_build):
    for out in _folders(game, bundled_build(game)[0]):
        for paper in ("letter", "a4"):
            bad, _ = marked_edges(out / f"print-{paper}.pdf", _bleed(game))
            assert bad == [], f"{out} {paper}: different backs share cut lines at (page, axis, mm, difference): {bad}"


@pytest.mark.parametrize("game", GAMES)
def test_mix_backs_keeps_the_old_order_and_the_check_finds_its_marked_cards(game, tmp_path):
    opts = BuildOptions(out=tmp_path, only=("print",), papers=("letter",), outputs={"print": {"mix_backs": True}})
    build_game(REPO / "cards" / game, REPO, opts, Report())
    for out in _folders(game, tmp_path / game):
        bad, _ = marked_edges(out / "print-letter.pdf", _bleed(game))
        assert bad, "with --mix-backs different backs should touch somewhere in every bundled game"


def _two_backs(tiny_game, n_red, n_blue):
    """A game with `n_red` cards of one back and `n_blue` of another (a second deck)."""
    from conftest import write
    root = tiny_game(f"cards:\n  - {{name: R, color: '#ff0000', count: {n_red}}}\n")
    write(root / "templates" / "tiny" / "blue-back.yaml",
          "elements:\n  - {name: bg, type: rect, box: bleed, fill: '#2222aa'}\n")
    write(root / "blue.yaml", "deck: Blues\ntemplate: tiny/face\nback: tiny/blue-back\n"
          f"cards:\n  - {{name: B, color: '#0000ff', count: {n_blue}}}\n")
    return root


@pytest.mark.parametrize(("n_red", "n_blue", "sheets", "how"), [
    (9, 9, 2, "a page per back design"),      # full pages: nothing to save
    (3, 3, 1, "full-bleed gutter (1 sheet fewer"),   # 6 fit one gutter page (Letter 3x2), 2 pages otherwise
    (4, 4, 2, "a page per back design"),      # 8 need 2 gutter pages too: the butted pages win the tie
])
def test_the_layout_that_wastes_least_paper_is_chosen_and_said(tiny_game, tmp_path, n_red, n_blue, sheets, how):
    root = _two_backs(tiny_game, n_red, n_blue)
    report = Report()
    opts = BuildOptions(out=tmp_path / "out", only=("print",), papers=("letter",))
    build_game(root, REPO, opts, report)
    pdf = tmp_path / "out" / root.name / "print-letter.pdf"
    assert len(PdfReader(pdf).pages) == 2 * sheets
    assert len(report.notes) == 1 and report.notes[0].startswith(f"print-letter.pdf: {sheets} sheets; 2 back designs")
    assert how in report.notes[0]
    bad, _ = marked_edges(pdf, 3.175)
    assert bad == []
    mixed = tmp_path / "mixed"
    build_game(root, REPO, BuildOptions(out=mixed, only=("print",), papers=("letter",),
                                        outputs={"print": {"mix_backs": True}}), Report())
    if n_red % 9:
        assert marked_edges(mixed / root.name / "print-letter.pdf", 3.175)[0] != []


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_back_pages_carry_the_front_crop_marks_mirrored(tiny_game, tmp_path, paper):
    from conftest import write
    root = _two_backs(tiny_game, 9, 0)
    write(root / "blue.yaml", "deck: Blues\ntemplate: tiny/face\nback: tiny/blue-back\ncards: []\n")
    build_game(root, REPO, BuildOptions(out=tmp_path, only=("print",), papers=(paper,)), Report())
    reader = PdfReader(tmp_path / root.name / f"print-{paper}.pdf")
    pw = float(reader.pages[0].mediabox.width) / MM

    def marks(page):
        segs = page_items(reader, page)[1]
        return sorted((round(min(s.x1, s.x2), 2), round(min(s.y1, s.y2), 2), round(max(s.x1, s.x2), 2),
                       round(max(s.y1, s.y2), 2)) for s in segs if s.gray == 0 and s.width in (0.3, 0.5))

    front, back = marks(0), marks(1)
    assert len(front) >= 12
    mirrored = sorted((pw - x2, y1, pw - x1, y2) for x1, y1, x2, y2 in front)
    assert len(back) == len(mirrored)
    for got, want in zip(back, mirrored):
        assert got == pytest.approx(want, abs=0.02)
