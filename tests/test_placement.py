"""Placement that follows content (`below:`, `inside:`, stacks) and `origin: bleed`, read back
from the printed PDF: baselines from its text, boxes from the pixels of the rendered page."""
from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from vgame import make_game, said

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

MM = 72 / 25.4
DPI = 600
BLEED = 3.175       # the page of cards.pdf is the card and its bleed

FACE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: under, type: rect, inside: title, fill: "#ff0000"}
  - {name: title, type: text, box: safe, y: 5mm, size: 12, text: "{{ card.title }}"}
  - {name: bar, type: rect, below: title, margin: 2mm, height: 1mm, fill: "#0000ff"}
  - {name: desc, type: text, box: safe, below: title, margin: 2mm, size: 8, text: "{{ card.desc }}"}
"""
LONG = "A much longer title that wraps onto three lines of text in this box for sure"
DECK = f"""\
deck: D
template: g/face
cards:
  - {{name: Short, title: A short title, desc: Follows it}}
  - {{name: Long, title: {LONG}, desc: Follows it}}
"""
STACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: panel, type: rect, inside: body, fill: "#00ff00"}
  - {name: body, type: stack, box: safe, y: 40mm, height: 40mm, valign: middle, spacing: 1mm, items: [prereq, text]}
  - {name: prereq, type: text, size: 8, color: "#cc0000", align: center, when: card.prereq is defined,
     text: "{{ card.prereq }}"}
  - {name: text, type: text, size: 9, align: center, text: "{{ card.text }}"}
"""
STACK_DECK = """\
deck: D
template: g/face
cards:
  - {name: With, prereq: "Requires two apples", text: "Gain two coins."}
  - {name: Without, text: "Gain two coins, then draw a card and discard one card of your choice."}
"""


def _build(tmp_path: Path, face: str, deck: str = DECK, game: str = "title: Test game\n") -> bytes:
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={"face": face}, rules=None, game=game)
    report = Report()
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items, [str(d) for d in report.items]
    return (tmp_path / "out" / "g" / "cards.pdf").read_bytes()


def _baselines(pdf: bytes, index: int) -> list[tuple[str, float]]:
    """Each line of a page's text with its baseline, mm from the page's top."""
    page = pdfium.PdfDocument(pdf)[index]
    _, page_h = page.get_size()
    text = page.get_textpage()
    lines: dict[float, str] = {}
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if ch.strip():
            x, y = pdfium_c.c_double(), pdfium_c.c_double()
            pdfium_c.FPDFText_GetCharOrigin(text.raw, i, x, y)
            at = round((page_h - y.value) / MM, 3)
            lines[at] = lines.get(at, "") + ch
    return sorted(((t, at) for at, t in lines.items()), key=lambda item: item[1])


def _rows(pdf: bytes, index: int, colour: tuple[int, int, int]) -> tuple[float, float, float, float]:
    """Where a page shows `colour`: (left, top, right, bottom) in mm from its top-left corner."""
    image = pdfium.PdfDocument(pdf)[index].render(scale=DPI / 72).to_pil().convert("RGB")
    mask = image.point(lambda v: 255 if v > 200 else 0).split()
    # the pixels whose channels are high where `colour`'s are and low where its are not
    from PIL import ImageChops

    hit = None
    for band, want in zip(mask, colour, strict=True):
        band = band if want else ImageChops.invert(band)
        hit = band if hit is None else ImageChops.multiply(hit, band)
    box = hit.getbbox()
    assert box is not None, f"no {colour} on page {index}"
    px = 25.4 / DPI
    return box[0] * px, box[1] * px, box[2] * px, box[3] * px


def test_an_element_below_another_follows_its_laid_out_text(tmp_path):
    pdf = _build(tmp_path, FACE)
    short, long = _baselines(pdf, 0), _baselines(pdf, 1)
    assert [t for t, _ in short] == ["Ashorttitle", "Followsit"]
    assert len(long) == 4 and long[-1][0] == "Followsit"
    # the title's box (`inside: title`, red) is its lines: from its box's top, 1 and 3 lines tall
    under = [_rows(pdf, i, (255, 0, 0)) for i in (0, 1)]
    top = BLEED + 5      # (x and y are from the trim whatever the box)
    assert all(u[1] == pytest.approx(top, abs=0.05) for u in under)
    leading = 1.2 * 12 / MM
    assert (under[1][3] - under[1][1]) - (under[0][3] - under[0][1]) == pytest.approx(2 * leading, abs=0.1)
    # the title's last baseline lies in it, the descent below
    assert under[0][1] < short[0][1] < under[0][3] and under[1][1] < long[2][1] < under[1][3]
    # what is placed below the title starts the margin (2 mm) below its laid-out height, on both cards
    bars = [_rows(pdf, i, (0, 0, 255)) for i in (0, 1)]
    for u, bar in zip(under, bars, strict=True):
        assert bar[1] - u[3] == pytest.approx(2.0, abs=0.1)
        assert bar[3] - bar[1] == pytest.approx(1.0, abs=0.1)
    # and the description (text below the title) moves down by the title's two more lines
    assert long[-1][1] - short[-1][1] == pytest.approx(2 * leading, abs=0.01)
    assert long[-1][1] - long[2][1] == pytest.approx(short[-1][1] - short[0][1], abs=0.01)


def test_a_stack_sets_its_items_as_one_block_centred_in_its_box(tmp_path):
    pdf = _build(tmp_path, STACK, STACK_DECK)
    box_top, box_bottom = BLEED + 40, BLEED + 80
    panels = [_rows(pdf, i, (0, 255, 0)) for i in (0, 1)]
    for panel in panels:        # the block's extent (`inside: body`), centred in the stack's box
        assert (panel[1] + panel[3]) / 2 == pytest.approx((box_top + box_bottom) / 2, abs=0.1)
        assert box_top < panel[1] and panel[3] < box_bottom
    with_, without = _baselines(pdf, 0), _baselines(pdf, 1)
    assert [t for t, _ in with_] == ["Requirestwoapples", "Gaintwocoins."]
    assert len(without) == 2 and not any("Requires" in t for t, _ in without)
    # the red line first, the text right under it (its ascent, the spacing and the prereq's descent apart)
    assert with_[0][1] < with_[1][1] < with_[0][1] + (8 + 9) / MM
    assert all(panels[0][1] < at < panels[0][3] for _, at in with_)


@pytest.mark.parametrize(("face", "expected"), [
    ("  - {name: a, type: text, below: titel, text: x}\n",
     "templates/g/face.yaml:3:34: error: element 'a': `below:` names no element of the template: 'titel'; did you "
     "mean 'title'?"),
    ("  - {name: a, type: text, below: b, text: x}\n  - {name: b, type: rect, right_of: a, fill: red}\n",
     "templates/g/face.yaml:3:34: error: element 'a': placed in a cycle: 'a' is placed below 'b', 'b' is placed "
     "right of 'a'; place one of them by x and y"),
    ("  - {name: a, type: text, below: title, y: 3mm, text: x}\n",
     "templates/g/face.yaml:3:44: error: element 'a': `y` and `below:` both place it; give one"),
    ("  - {name: s, type: stack, items: [a, s]}\n  - {name: a, type: text, y: 1mm, text: x}\n",
     "templates/g/face.yaml:3:35: error: element 's': `items:` names 's', a stack; a stack sets other elements\n"
     "templates/g/face.yaml:4:30: error: element 'a': it is an item of stack 's' (face.yaml:3:5), which sets its `y` "
     "and `height`; remove its `y`"),
])
def test_placement_mistakes_are_errors_at_the_template_line(tmp_path, face, expected):
    head = "elements:\n  - {name: title, type: text, text: x}\n"
    root = make_game(tmp_path, decks={"d.yaml": DECK}, templates={"face": head + face}, rules=None)
    assert "\n".join(said(root, tmp_path)) == expected


ORIGIN = """\
origin: bleed
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: corner, type: rect, x: 0, y: 0, width: 10mm, height: 6mm, fill: "#ff0000"}
  - {name: trim, type: rect, x: 3.175mm, y: 3.175mm, width: 5mm, height: 5mm, fill: "#0000ff"}
  - {name: rule, type: line, x: 20mm, y: 30mm, x2: 40mm, y2: 30mm, stroke: "#00ff00", stroke_width: 1mm}
"""


def test_origin_bleed_measures_from_the_bleeds_corner(tmp_path):
    pdf = _build(tmp_path, ORIGIN, "deck: D\ntemplate: g/face\ncards:\n  - {name: One}\n")
    assert _rows(pdf, 0, (255, 0, 0))[:2] == pytest.approx((0, 0), abs=0.05)       # the page is the bleed's
    blue = _rows(pdf, 0, (0, 0, 255))
    assert blue == pytest.approx((BLEED, BLEED, BLEED + 5, BLEED + 5), abs=0.05)     # the trim's corner
    green = _rows(pdf, 0, (0, 255, 0))
    assert green == pytest.approx((20, 29.5, 40, 30.5), abs=0.05)


def test_a_child_template_keeps_its_parents_origin(tmp_path):
    child = "extends: g/face\nelements:\n  - {name: trim, x: 0, y: 0}\n"
    root = make_game(tmp_path, decks={"d.yaml": "deck: D\ntemplate: g/child\ncards:\n  - {name: One}\n"},
                     templates={"face": ORIGIN, "child": child}, rules=None)
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = (tmp_path / "out" / "g" / "cards.pdf").read_bytes()
    assert _rows(pdf, 0, (0, 0, 255))[:2] == pytest.approx((BLEED, BLEED), abs=0.05)    # the child's: trim
    assert _rows(pdf, 0, (255, 0, 0))[:2] == pytest.approx((0, 0), abs=0.05)            # the parent's: bleed


def test_an_element_placed_by_a_hidden_one_takes_its_place(tmp_path):
    face = FACE.replace("text: \"{{ card.title }}\"", "text: \"{{ card.title }}\", when: card.name == 'Long'")
    pdf = _build(tmp_path, face.replace("  - {name: under, type: rect, inside: title, fill: \"#ff0000\"}\n", ""))
    bar = _rows(pdf, 0, (0, 0, 255))
    assert bar[1] == pytest.approx(BLEED + 5, abs=0.05)      # at the title's top, no margin
    assert _rows(pdf, 1, (0, 0, 255))[1] > BLEED + 5 + 2 + 2 * 1.2 * 12 / MM      # below its 3 lines


SIDES = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: cost, type: text, x: 30mm, y: 40mm, width: 20mm, size: 12, text: "{{ card.cost }}"}
  - {name: over, type: rect, above: cost, margin: 1mm, x: 30mm, height: 2mm, width: 5mm, fill: "#ff0000"}
  - {name: before, type: rect, left_of: cost, margin: 1mm, y: 40mm, height: 4mm, width: 3mm, fill: "#0000ff"}
  - {name: after, type: rect, right_of: cost, margin: 1mm, y: 40mm, height: 4mm, width: 3mm, fill: "#00ff00"}
"""


def test_above_left_of_and_right_of_follow_the_text_as_set(tmp_path):
    pdf = _build(tmp_path, SIDES, "deck: D\ntemplate: g/face\ncards:\n  - {name: A, cost: 1}\n"
                                  "  - {name: B, cost: 123456}\n")
    for i in (0, 1):
        page = pdfium.PdfDocument(pdf)[i]
        text = page.get_textpage()
        boxes = [text.get_charbox(k) for k in range(text.count_chars()) if text.get_text_range(k, 1).strip()]
        ink_right = max(b[2] for b in boxes) / MM
        over, before, after = (_rows(pdf, i, c) for c in ((255, 0, 0), (0, 0, 255), (0, 255, 0)))
        assert over[3] == pytest.approx(BLEED + 40 - 1, abs=0.05)          # 1 mm above the text's top
        assert before[2] == pytest.approx(BLEED + 30 - 1, abs=0.05)        # 1 mm left of its left
        # 1 mm right of its line's end (the advance of its last figure, just past the ink)
        assert after[0] - 1 == pytest.approx(ink_right, abs=0.4)
    assert _rows(pdf, 1, (0, 255, 0))[0] - _rows(pdf, 0, (0, 255, 0))[0] > 5 * 2.0      # five more figures


def test_a_stack_too_tall_for_its_box_is_a_warning_at_it(tmp_path):
    face = STACK.replace("height: 40mm", "height: 5mm")
    root = make_game(tmp_path, decks={"d.yaml": STACK_DECK}, templates={"face": face}, rules=None)
    got = [s for s in said(root, tmp_path) if "stack" in s or "overflow" in s or "tall" in s]
    assert got and got[0].startswith("templates/g/face.yaml:4:")
    assert "element 'body': its items are" in got[0] and "its box 5.0 mm: they overflow it" in got[0]


def test_a_changed_origin_lays_the_cards_out_again(tmp_path):
    deck = "deck: D\ntemplate: g/face\ncards:\n  - {name: One}\n"
    _build(tmp_path, ORIGIN.replace("origin: bleed\n", ""), deck)
    face = tmp_path / "templates" / "g" / "face.yaml"
    assert _rows((tmp_path / "out" / "g" / "cards.pdf").read_bytes(), 0, (0, 0, 255))[0] == \
        pytest.approx(2 * BLEED, abs=0.05)
    face.write_text(ORIGIN)
    build_game(tmp_path / "cards" / "g", tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert _rows((tmp_path / "out" / "g" / "cards.pdf").read_bytes(), 0, (0, 0, 255))[0] == \
        pytest.approx(BLEED, abs=0.05)


def test_a_child_template_places_an_inherited_element_below_another(tmp_path):
    parent = FACE.replace("below: title, margin: 2mm, height: 1mm", "y: 60mm, height: 1mm")
    child = "extends: g/face\nelements:\n  - {name: bar, below: title, margin: 2mm}\n"
    root = make_game(tmp_path, decks={"d.yaml": DECK.replace("g/face", "g/child")},
                     templates={"face": parent, "child": child}, rules=None)
    assert said(root, tmp_path) == []
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = (tmp_path / "out" / "g" / "cards.pdf").read_bytes()
    for i in (0, 1):        # the parent's y gives way: the bar follows the title's lines
        assert _rows(pdf, i, (0, 0, 255))[1] - _rows(pdf, i, (255, 0, 0))[3] == pytest.approx(2.0, abs=0.1)


def test_inside_an_element_a_card_does_not_draw_is_nothing(tmp_path):
    face = STACK.replace("inside: body", "inside: prereq, margin: -1mm")
    pdf = _build(tmp_path, face, STACK_DECK)
    with_ = _rows(pdf, 0, (0, 255, 0))
    assert with_[3] - with_[1] > 8 / MM + 2 - 0.1       # round the red line, 1 mm out
    image = pdfium.PdfDocument(pdf)[1].render(scale=2).to_pil().convert("RGB")
    assert (0, 255, 0) not in {c for _, c in image.getcolors(1 << 20)}     # no prereq: no panel


PICTURE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: pic, type: image, src: wide.png, x: 10mm, y: 10mm, width: 20mm, height: 20mm, fit: "{{ card.fit }}"}
  - {name: bar, type: rect, below: pic, margin: 1mm, x: 10mm, width: 5mm, height: 2mm, fill: "#0000ff"}
  - {name: side, type: rect, right_of: pic, margin: 1mm, y: 10mm, width: 2mm, height: 5mm, fill: "#00ff00"}
"""


def test_an_element_follows_a_picture_as_it_shows(tmp_path):
    from PIL import Image

    deck = "deck: D\ntemplate: g/face\ncards:\n  - {name: A, fit: contain}\n  - {name: B, fit: cover}\n"
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={"face": PICTURE}, rules=None)
    (root / "art").mkdir()
    Image.new("RGB", (1600, 400), (255, 0, 0)).save(root / "art" / "wide.png")
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = (tmp_path / "out" / "g" / "cards.pdf").read_bytes()
    # contained: 20 x 5 mm, in the middle of its box; what is below it follows the picture
    assert _rows(pdf, 0, (255, 0, 0)) == pytest.approx((BLEED + 10, BLEED + 17.5, BLEED + 30, BLEED + 22.5), abs=0.1)
    assert _rows(pdf, 0, (0, 0, 255))[1] == pytest.approx(BLEED + 22.5 + 1, abs=0.1)
    # covering: cropped to its box, so what is right of it starts at the box's edge, not the picture's
    assert _rows(pdf, 1, (255, 0, 0)) == pytest.approx((BLEED + 10, BLEED + 10, BLEED + 30, BLEED + 30), abs=0.1)
    assert _rows(pdf, 1, (0, 255, 0))[0] == pytest.approx(BLEED + 30 + 1, abs=0.1)
    assert _rows(pdf, 1, (0, 0, 255))[1] == pytest.approx(BLEED + 30 + 1, abs=0.1)


def test_a_stacks_shrinking_items_fit_its_box_together(tmp_path):
    face = STACK.replace("height: 40mm", "height: 6mm").replace("size: 9, align", "size: 9, fit: shrink, min_size: 3, align")
    root = make_game(tmp_path, decks={"d.yaml": STACK_DECK}, templates={"face": face}, rules=None)
    assert said(root, tmp_path) == []          # no overflow: the text made smaller
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = (tmp_path / "out" / "g" / "cards.pdf").read_bytes()
    for i in (0, 1):
        panel = _rows(pdf, i, (0, 255, 0))
        assert panel[1] >= BLEED + 40 - 0.05 and panel[3] <= BLEED + 46 + 0.05
    for i in (0, 1):
        text = pdfium.PdfDocument(pdf)[i].get_textpage()
        sizes = {round(pdfium_c.FPDFText_GetFontSize(text.raw, k), 1) for k in range(text.count_chars())
                 if text.get_text_range(k, 1).strip()}
        assert max(sizes) < 9 and min(sizes) >= 3
