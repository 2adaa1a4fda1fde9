"""Tuck boxes (docs/components.md#tuck-boxes): the nets read back from the PDF in mm, for 10, 54
and 120 poker cards (the last in two pieces), the flaps checked to meet, the faces laid out by
the tuck box template (the bundled one or the game's own), and the box in the default build."""
from __future__ import annotations

import itertools
import textwrap

import pytest
from conftest import REPO, write
from pdfgeom import page_items
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.outputs import OUTPUTS
from cardgen.pipeline.build import BuildOptions, build_game

CARD = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#7a2a3a"}
"""
POKER = (63.5, 88.9)
GLUE, TUCK = 8.0, 15.0


def box_game(tmp_path, count, size="poker", extra=""):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: Boxes\n" + extra)
    write(root / "templates" / "t" / "card.yaml", CARD)
    write(root / "deck.yaml", textwrap.dedent(f"""\
        deck: Cards
        template: t/card
        back: t/card
        size: {size}
        vars: {{color: "#2a4a7a"}}
        cards:
          - {{name: C, count: {count}}}
        """))
    return root


def build(root, tmp_path, only=("tuckboxes",)):
    out = tmp_path / "out"
    report = Report()
    build_game(root, REPO, BuildOptions(out=out, only=only, papers=("letter",)), report)
    return out / root.name, report


def lines(reader, page):
    """(folds, cuts) on `page`: dashed 0.5 pt and solid 0.6 pt black segments, in mm (y up)."""
    segs = page_items(reader, page)[1]
    return ([s for s in segs if abs(s.width - 0.5) < 1e-6 and s.gray == 0],
            [s for s in segs if abs(s.width - 0.6) < 1e-6])


def horizontal(segs, length=None):
    return [s for s in segs if abs(s.y1 - s.y2) < 1e-6 and (length is None or abs(abs(s.x2 - s.x1) - length) < 0.05)]


def vertical(segs):
    return [s for s in segs if abs(s.x1 - s.x2) < 1e-6]


def box(segs):
    xs = [v for s in segs for v in (s.x1, s.x2)]
    ys = [v for s in segs for v in (s.y1, s.y2)]
    return min(xs), min(ys), max(xs), max(ys)


def check_flaps(folds, cuts, w, d):
    """The flaps meet: each lid is as deep as the box (its fold and its tuck's fold d apart); each
    dust flap is as wide as the side it folds from and as long as the box is deep (its end a cut
    d from its fold); every fold line of a lid or tuck is as long as the box is wide."""
    lid_folds = sorted({round(s.y1, 3) for s in horizontal(folds, w)})
    assert len(lid_folds) == 4                      # top: tuck, lid; bottom: lid, tuck
    top_tuck, top_lid, bottom_lid, bottom_tuck = lid_folds[::-1]
    assert top_tuck - top_lid == pytest.approx(d, abs=0.05)
    assert bottom_lid - bottom_tuck == pytest.approx(d, abs=0.05)
    flap_folds = horizontal(folds, d)
    assert len(flap_folds) == 4
    flap_ends = horizontal(cuts, d)
    assert len(flap_ends) == 4
    for fold in flap_folds:
        end = min(flap_ends, key=lambda e: abs(e.x1 + e.x2 - fold.x1 - fold.x2) + abs(e.y1 - fold.y1))
        assert abs(end.y1 - fold.y1) == pytest.approx(min(d, w), abs=0.05)
        assert sorted((end.x1, end.x2)) == pytest.approx(sorted((fold.x1, fold.x2)), abs=0.05)


@pytest.mark.parametrize("count", [10, 54])
def test_a_box_in_one_piece_has_panels_the_size_of_the_deck_and_flaps_that_meet(tmp_path, count):
    out, report = build(box_game(tmp_path, count), tmp_path)
    reader = PdfReader(out / "tuckboxes-letter.pdf")
    assert len(reader.pages) == 1
    folds, cuts = lines(reader, 0)
    w, h, d = POKER[0] + 2, POKER[1] + 2, count * 0.33 + 2         # inside: clearance 2 mm, 0.33 mm a card
    body = vertical(folds)
    xs = sorted({round(s.x1, 3) for s in body})                     # the body's four corners
    assert [b - a for a, b in itertools.pairwise(xs)] == pytest.approx([w, d, w], abs=0.05)
    assert [abs(s.y1 - s.y2) for s in body] == pytest.approx([h] * 4, abs=0.05)
    x0, y0, x1, y1 = box(cuts)
    assert (x1 - x0, y1 - y0) == pytest.approx((GLUE + 2 * w + 2 * d, 2 * (TUCK + d) + h), abs=0.05)
    check_flaps(folds, cuts, w, d)
    # the bottom lid is free of the dust flap beside it: a cut runs down between them
    bottom_lid = sorted(horizontal(folds, w), key=lambda s: s.y1)[1]
    right = max(bottom_lid.x1, bottom_lid.x2)
    assert any(abs(s.x1 - right) < 0.05 and min(s.y1, s.y2) <= bottom_lid.y1 - d + 0.05
               and max(s.y1, s.y2) >= bottom_lid.y1 - 0.05 for s in vertical(cuts))
    assert "tuckboxes-letter.pdf: 1 box" in report.notes


def test_a_120_card_box_is_two_pieces_on_one_page_that_glue_together(tmp_path):
    out, report = build(box_game(tmp_path, 120), tmp_path)
    reader = PdfReader(out / "tuckboxes-letter.pdf")
    assert len(reader.pages) == 1
    page = reader.pages[0]
    assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx((792, 612), abs=0.1)
    folds, cuts = lines(reader, 0)
    w, h, d = POKER[0] + 2, POKER[1] + 2, 120 * 0.33 + 2
    # the pieces, told apart by the gap between them
    spans = sorted((min(s.x1, s.x2), max(s.x1, s.x2)) for s in cuts)
    reach, split = spans[0][1], None
    for lo, hi in spans[1:]:
        if lo > reach + 3:
            split = (reach + lo) / 2
        reach = max(reach, hi)
    assert split is not None

    def part(segs, left):
        return [s for s in segs if (max(s.x1, s.x2) < split) == left]

    (f1, c1), (f2, c2) = (part(folds, True), part(cuts, True)), (part(folds, False), part(cuts, False))
    # piece 1: glue | back | side | glue; above the back its lid and tuck, the side's flaps
    x0, y0, x1, y1 = box(c1)
    assert (x1 - x0, y1 - y0) == pytest.approx((2 * GLUE + w + d, TUCK + d + h + d), abs=0.05)
    xs = sorted({round(s.x1, 3) for s in vertical(f1)})
    assert [b - a for a, b in itertools.pairwise(xs)] == pytest.approx([w, d], abs=0.05)
    # piece 2: the front and the other side; below the front its lid and tuck
    x0, y0, x1, y1 = box(c2)
    assert (x1 - x0, y1 - y0) == pytest.approx((w + d, d + h + d + TUCK), abs=0.05)
    assert [abs(s.y1 - s.y2) for s in vertical(f1) + vertical(f2)] == pytest.approx([h] * 4, abs=0.05)
    check_flaps(f1 + f2, c1 + c2, w, d)
    # the second tab is as tall as the front's edge it is glued under
    tab = [s for s in vertical(c1) if abs(s.x1 - box(c1)[2]) < 0.05]
    assert len(tab) == 1 and abs(tab[0].y1 - tab[0].y2) <= h
    assert "tuckboxes-letter.pdf: 1 box; in two pieces: Cards" in report.notes


def test_a_box_whose_halves_do_not_fit_the_paper_is_left_out_and_said(tmp_path):
    _, report = build(box_game(tmp_path, 300, size="tarot"), tmp_path)
    assert "tuckboxes-letter.pdf: 0 boxes; left out, larger than the paper: Cards" in report.notes


def test_the_faces_come_from_the_bundled_template_or_the_games_own(tmp_path):
    root = box_game(tmp_path, 30)
    out, _ = build(root, tmp_path)
    text = " ".join(PdfReader(out / "tuckboxes-letter.pdf").pages[0].extract_text().split())
    assert text.count("Cards") >= 5 and "30 cards · Boxes" in text       # front, back, sides, lid, bottom
    write(root / "templates" / "t" / "box.yaml", textwrap.dedent("""\
        elements:
          - {name: t, type: text, x: 0, y: 0, width: 100%, height: 100%, size: 7,
             text: "MY {{ card.panel }} {{ deck.size.width | round(1) }}x{{ deck.size.height | round(1) }}"}
        """))
    write(root / "game.yaml", "title: Boxes\ntuckboxes: {template: t/box}\n")
    out, _ = build(root, tmp_path)
    # spaces left out: the oldest pypdf allowed joins a word drawn upside down (the bottom) to the next
    text = "".join(PdfReader(out / "tuckboxes-letter.pdf").pages[0].extract_text().split())
    d = round(30 * 0.33 + 2, 1)
    for face in ("MYfront65.5x90.9", "MYback65.5x90.9", f"MYside90.9x{d}", f"MYlid65.5x{d}", f"MYbottom65.5x{d}"):
        assert face in text


def test_tuck_boxes_are_in_the_default_build(tmp_path):
    assert OUTPUTS["tuckboxes"].default
    root = box_game(tmp_path, 20)
    out, _ = build(root, tmp_path, only=())
    assert (out / "tuckboxes-letter.pdf").is_file()


def test_a_token_pool_gets_a_box_when_asked_its_depth_from_the_token_thickness(tmp_path):
    root = box_game(tmp_path, 20)
    write(root / "coins.yaml", "deck: Coins\nkind: token\nsize: 25mm\ntemplate: t/card\ncards:\n"
                               "  - {name: Gold, count: 12}\n  - {name: Silver, count: 8}\n")
    out, report = build(root, tmp_path)
    assert "tuckboxes-letter.pdf: 1 box" in report.notes                  # cards only by default
    write(root / "game.yaml", "title: Boxes\ntuckboxes: {tokens: true, token_thickness: 1.5mm}\n")
    out, report = build(root, tmp_path)
    assert "tuckboxes-letter.pdf: 2 boxes" in report.notes
    reader = PdfReader(out / "tuckboxes-letter.pdf")
    pages = [i for i, p in enumerate(reader.pages) if "Coins: a box for 20 tokens" in " ".join(p.extract_text().split())]
    assert len(pages) == 1
    folds, cuts = lines(reader, pages[0])
    w, d = 25 + 2, 20 * 1.5 + 2                                             # the pieces on edge, 1.5 mm each
    xs = sorted({round(s.x1, 3) for s in vertical(folds)})
    assert [b - a for a, b in itertools.pairwise(xs)] == pytest.approx([w, d, w], abs=0.05)
    check_flaps(folds, cuts, w, d)
    assert "20 tokens · Boxes" in " ".join(reader.pages[pages[0]].extract_text().split())


def test_the_front_band_runs_down_to_the_fold_over_the_back_design(tmp_path):
    """The name band covers the front's lower 30 % down to the fold: the deck back's own design
    (its label, often at the bottom) does not peek out in a strip below the band."""
    import pypdfium2 as pdfium

    root = box_game(tmp_path, 30)
    out, _ = build(root, tmp_path)
    reader = PdfReader(out / "tuckboxes-letter.pdf")
    folds, _ = lines(reader, 0)
    w, h = 65.5, 90.9
    fold = min(horizontal(folds, w), key=lambda s: s.y1)                 # the front's fold onto the bottom lid
    x0, bottom = min(fold.x1, fold.x2), fold.y1
    scale = 100 / 25.4                                                   # px per mm at 100 dpi
    image = pdfium.PdfDocument(str(out / "tuckboxes-letter.pdf"))[0].render(scale=100 / 72).to_pil().convert("RGB")
    page_h = image.height / scale
    x = (x0 + 0.08 * w) * scale
    for frac in (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.28):             # from just above the fold to the band's top
        px = image.getpixel((round(x), round((page_h - (bottom + frac * h)) * scale)))
        assert max(abs(a - b) for a, b in zip(px, (0x2A, 0x4A, 0x7A))) <= 6, (frac, px)


@pytest.mark.parametrize("count, extra, diameter", [(30, "", 12.5), (120, "", 12.5),
                                                    (30, "tuckboxes: {thumb_notch: 20mm}\n", 20.0),
                                                    (30, "tuckboxes: {thumb_notch: 0}\n", 0.0)])
def test_the_fronts_top_edge_has_a_half_round_thumb_notch(tmp_path, count, extra, diameter):
    """A half circle of the notch's diameter is cut down into the middle of the front's top edge
    (in one piece and in two), the edge on either side of it straight; `thumb_notch: 0`: none."""
    import math

    out, _ = build(box_game(tmp_path, count, extra=extra), tmp_path)
    reader = PdfReader(out / "tuckboxes-letter.pdf")
    w, h = POKER[0] + 2, POKER[1] + 2
    folds, cuts = lines(reader, 0)
    body = vertical(folds)                          # the front lies left of the free side's fold
    top = max(max(s.y1, s.y2) for s in body)        # the body's top edge (y up)
    tops = [s for s in horizontal(cuts) if abs(s.y1 - top) < 0.05]
    curved = [s for s in cuts if abs(s.y1 - s.y2) > 1e-6 and abs(s.x1 - s.x2) > 1e-6      # short chords,
              and math.hypot(s.x2 - s.x1, s.y2 - s.y1) < 3 and top - diameter / 2 - 0.05 <= min(s.y1, s.y2) and max(s.y1, s.y2) <= top + 0.05]
    if not diameter:
        assert not curved
        return
    xs = [v for s in curved for v in (s.x1, s.x2)]
    cx = (min(xs) + max(xs)) / 2
    assert max(xs) - min(xs) == pytest.approx(diameter, abs=0.05)
    for s in curved:                                # every chord's ends on the circle, below the edge
        for x, y in ((s.x1, s.y1), (s.x2, s.y2)):
            assert math.hypot(x - cx, y - top) == pytest.approx(diameter / 2, abs=0.05)
            assert y <= top + 1e-6
    # the straight parts either side run from the notch to the front's corners: w in all
    beside = [s for s in tops if abs(min(s.x1, s.x2) - (cx + diameter / 2)) < 0.05
              or abs(max(s.x1, s.x2) - (cx - diameter / 2)) < 0.05]
    assert len(beside) == 2
    assert sum(abs(s.x2 - s.x1) for s in beside) + diameter == pytest.approx(w, abs=0.05)
    assert h > diameter


def test_the_lid_reads_upright_from_the_front_of_the_closed_box(tmp_path):
    """The lid folds forward over the top from the back: its face is turned half a turn on the
    net (text upside down there), so it reads upright to one facing the box's front; the front,
    back and bottom lid are upright on the net, the sides a quarter turn."""
    root = box_game(tmp_path, 30)
    write(root / "templates" / "t" / "box.yaml",
          'elements:\n  - {name: t, type: text, x: 0, y: 0, width: 100%, height: 100%, size: 7, text: "P-{{ card.panel }}"}\n')
    write(root / "game.yaml", "title: Boxes\ntuckboxes: {template: t/box}\n")
    out, _ = build(root, tmp_path)
    import math

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    page = pdfium.PdfDocument(str(out / "tuckboxes-letter.pdf"))[0]
    textpage = page.get_textpage()
    text = textpage.get_text_bounded()
    turns = {}
    for word in ("P-front", "P-back", "P-bottom", "P-lid", "P-side"):
        at = text.index(word)                                     # the first character's turn, as drawn
        turns[word] = round(math.degrees(pdfium_c.FPDFText_GetCharAngle(textpage.raw, at)))
    assert turns == {"P-front": 0, "P-back": 0, "P-bottom": 0, "P-lid": 180, "P-side": 270}
