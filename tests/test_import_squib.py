"""`cardgen import squib`: a Squib layout file as a cardgen template, its boxes where Squib puts
them (read back from the built PDF), what it cannot carry over said, bad input a located error.
tests/fixtures/squib/ holds layouts written for the tests in Squib's format (its README.md)."""
from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
import yaml
from click.testing import CliRunner
from test_placement import _rows
from vgame import make_game

from cardgen.cli import squib_values as sv
from cardgen.cli.main import main
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

FIXTURES = Path(__file__).parent / "fixtures" / "squib"
PX = 25.4 / 300          # Squib's pixel, in mm (the page of cards.pdf is the card with its bleed)


def _import(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["import", "squib", *args, "--out", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def _build(tmp_path: Path, root: Path) -> bytes:
    report = Report()
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not [d for d in report.items if d.severity == "error"], [str(d) for d in report.items]
    return (tmp_path / "out" / "g" / "cards.pdf").read_bytes()


def _chars(pdf: bytes) -> dict[str, tuple[float, float, float, float]]:
    """Each character of page 1 (each printed once) -> its box (left, top, right, bottom), mm from the page's top-left."""
    page = pdfium.PdfDocument(pdf)[0]
    _, h = page.get_size()
    text = page.get_textpage()
    out = {}
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if ch.strip():
            left, bottom, right, top = text.get_charbox(i)
            out[ch] = (left * 25.4 / 72, (h - top) * 25.4 / 72, right * 25.4 / 72, (h - bottom) * 25.4 / 72)
    return out


def test_a_squib_layout_imports_and_builds_with_its_boxes_where_squib_puts_them(tmp_path):
    deck = "deck: D\ntemplate: heist\ncards:\n  - {name: A, title: W, cost: Q, credit: Z}\n"
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={}, rules=None)
    code, out = _import(root, str(FIXTURES / "heist.yml"))
    assert code == 0, out
    assert "heist.yml:63:3: 'cut' made a rect (from radius, stroke_color, dash); change its type if it holds text or art\n" in out
    assert "heist.yml:9:9: 'title': font family Serif not carried over (put its files in fonts/ and set `font:`); its size and style are kept\n" in out
    text = (root / "templates" / "heist.yaml").read_text()
    assert text.startswith("# Imported from the Squib layout heist.yml") and "origin: bleed" in text
    assert "  dash:\n  - 0.72\n  - 0.72\n" in text          # `dash: 3 3`: 3 px on, 3 off
    chars = _chars(_build(tmp_path, root))
    # title: x 90, y 90, left-aligned, top: its first letter starts at the box's left edge
    assert chars["W"][0] == pytest.approx(90 * PX, abs=0.5)
    assert chars["W"][1] == pytest.approx(90 * PX, abs=1.5)       # below the top by the font's ascent gap
    # cost: x 595 + width 135, right-aligned: the letter ends at the box's right edge
    assert chars["Q"][2] == pytest.approx((595 + 135) * PX, abs=0.5)
    # credit: y 1025 + height 25, centred at the bottom: x centre 75 + 675 / 2
    z = chars["Z"]
    assert (z[0] + z[2]) / 2 == pytest.approx((75 + 675 / 2) * PX, abs=0.5)
    assert z[3] <= (1025 + 25) * PX + 0.5


LAYOUT = """\
base:
  x: 0.5in
  y: 100
  width: 300
  height: 2cm
  fill_color: '#ff0000'
inner:
  extends: base
  x: += 30
  y: += 10mm
  width: -= 60
  fill_color: '#0000ff'
"""


def test_extends_with_relative_values_lands_each_box_within_half_a_millimetre(tmp_path):
    deck = "deck: D\ntemplate: boxes\ncards:\n  - {name: A}\n"
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={}, rules=None)
    (tmp_path / "boxes.yml").write_text(LAYOUT)
    code, out = _import(root, str(tmp_path / "boxes.yml"))
    assert code == 0, out
    pdf = _build(tmp_path, root)
    red = _rows(pdf, 0, (255, 0, 0))        # base, less what inner covers: its outer bounds still show
    assert red == pytest.approx((12.7, 100 * PX, 12.7 + 300 * PX, 100 * PX + 20), abs=0.5)
    left, top = 12.7 + 30 * PX, 100 * PX + 10
    assert _rows(pdf, 0, (0, 0, 255)) == pytest.approx((left, top, left + 240 * PX, top + 20), abs=0.5)


@pytest.mark.parametrize(("text", "expected"), [
    ("a:\n  x: [1\n", ":2:6: "),
    ("a:\n  x: 1\nb:\n  extends: c\n", ":4:12: error: 'b' extends 'c', which this file does not have"),
    ("a:\n  extends: b\nb:\n  extends: a\n", ":2:3: error: 'a' extends itself (through a -> b -> a)"),
    ("a:\n  x: '=deck/2'\n", ":2:6: error: '=deck/2' is not a length the importer reads (a number of pixels, "
                            "or with in, mm, cm, pt or c; or middle, deck, middle + 1in, deck - 2c, deck / 3)"),
    ("a:\n  x: middle / 2\n", ":2:6: error: 'middle / 2': Squib divides only `deck` (deck / 3), not `middle`"),
    ("a:\n  x: deck / 0\n", ":2:6: error: 'deck / 0' divides by 0"),
    ("a:\n  x: middle\nb:\n  extends: a\n  x: += 1\n",
     ":5:6: error: '+= 1' over 'middle': Squib reads its `middle` and `deck` forms as 0 under `+=`; write the number"),
    ("a:\n  x: 1\n  angle: left\n", ":3:10: error: 'left' is not an angle the importer reads (radians, or "
                                      "degrees as 90deg)"),
    ("a:\n  x: 1\n  dash: 0 0\n", ":3:9: error: '0 0' is not a dash pattern (lengths of 0 or more, not all 0)"),
    ("- 1\n", ":1:1: error: a Squib layout is a mapping of names to mappings"),
    ("a: !!python/object:os.system x\n", ":1:4: "),
])
def test_bad_layouts_are_one_line_errors_at_their_place(tmp_path, text, expected):
    path = tmp_path / "bad.yml"
    path.write_text(text)
    code, out = _import(tmp_path / "g", str(path))
    assert code == 1
    assert f"bad.yml{expected}" in out, out
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1, out


def test_it_does_not_overwrite_without_force_and_reads_squibs_ruby_symbols(tmp_path):
    root = tmp_path / "g"
    layout = str(FIXTURES / "symbols.yml")      # writes `valign: !ruby/symbol middle`
    assert _import(root, layout)[0] == 0
    assert "valign: middle" in (root / "templates" / "symbols.yaml").read_text()
    code, out = _import(root, layout)
    assert code == 1 and "symbols.yaml: error: already exists; pass --force to overwrite it" in out
    assert _import(root, layout, "--force")[0] == 0


def test_with_data_it_writes_a_deck_reading_it(tmp_path):
    root = make_game(tmp_path, decks={}, templates={}, rules=None)
    (tmp_path / "cards.csv").write_text("Title,Qty,Cost\nDragon,2,7\n")
    code, out = _import(root, str(FIXTURES / "heist.yml"), str(tmp_path / "cards.csv"))
    assert code == 0, out
    deck = (root / "heist-deck.yaml").read_text()
    assert "template: heist" in deck and "file: cards.csv" in deck and "name: Title" in deck
    assert (root / "cards.csv").is_file()
    chars = _chars(_build(tmp_path, root))
    assert chars["7"][2] == pytest.approx((595 + 135) * PX, abs=0.5)


def test_parents_shared_many_times_over_are_worked_out_once(tmp_path):
    lines = ["e0:\n  x: 1\n  width: 10\n", "e1:\n  extends: e0\n  x: += 1\n"]
    lines += [f"e{i}:\n  extends: [e{i - 1}, e{i - 2}]\n  x: += 1\n  width: '*= 1'\n" for i in range(2, 60)]
    path = tmp_path / "wide.yml"
    path.write_text("".join(lines))          # 2^58 merges, unless each entry is resolved once
    code, out = _import(tmp_path / "g", str(path))
    assert code == 0, out
    assert "- name: e59\n  type: text\n  x: 60px\n  y: 0px\n  width: 10px\n  height: 1125px\n" in (tmp_path / "g" / "templates" / "wide.yaml").read_text()


def test_an_entry_whose_name_is_no_field_name_prints_nothing_and_says_so(tmp_path):
    path = tmp_path / "odd.yml"
    path.write_text("\"a}}{{ 7*7 }}\":\n  x: 10\n")
    code, out = _import(tmp_path / "g", str(path))
    assert code == 0 and "odd.yml:2:3: 'a}}{{ 7*7 }}' is not a field name a template can print; its text is " \
                         "left empty\n" in out, out
    assert "text: ''" in (tmp_path / "g" / "templates" / "odd.yaml").read_text()


SHORTHANDS = """\
wide:
  x: middle - 1in
  y: deck - 2in
  width: deck / 3
  height: center
  fill_color: '#ff0000'
  stroke_width: 0
turned:
  x: 300
  y: 100
  width: 200
  height: 100
  angle: 90deg
  fill_color: '#0000ff'
  stroke_width: 0
dashed:
  x: 100
  y: 1000
  width: 600
  height: 50
  dash: 0.1in 0.1in
  stroke_color: '#00ff00'
  stroke_width: 10
  cap: round
"""


def test_middle_and_deck_shorthands_angles_and_dashes_land_where_squib_draws_them(tmp_path):
    deck = "deck: D\ntemplate: shapes\ncards:\n  - {name: A}\n"
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={}, rules=None)
    (tmp_path / "shapes.yml").write_text(SHORTHANDS)
    code, out = _import(root, str(tmp_path / "shapes.yml"))
    assert code == 0, out
    assert "shapes.yml:24:8: 'dashed': cap not carried over\n" in out
    assert "shapes.yml: `middle` and `deck` read for a 825 x 1125 px deck" in out
    pdf = _build(tmp_path, root)
    # middle - 1in = 412.5 - 300; deck - 2in = 1125 - 600; deck / 3 = 275; center = 562.5 (of the height)
    assert _rows(pdf, 0, (255, 0, 0)) == pytest.approx((112.5 * PX, 525 * PX, 387.5 * PX, 1087.5 * PX), abs=0.5)
    # Squib turns a box about its top-left corner, clockwise: 90deg puts (300..500, 100..200) at
    # (200..300, 100..300)
    assert _rows(pdf, 0, (0, 0, 255)) == pytest.approx((200 * PX, 100 * PX, 300 * PX, 300 * PX), abs=0.5)
    # 0.1in on, 0.1in off along the top edge: green runs of 30 px (2.54 mm), 30 px apart
    image = pdfium.PdfDocument(pdf)[0].render(scale=300 / 72).to_pil().convert("RGB")
    row = [image.getpixel((x, 1000)) for x in range(100, 700)]
    green = "".join("g" if g > 200 and r < 100 and b < 100 else "." for r, g, b in row)
    runs = [len(r) for r in green.split(".") if r]
    gaps = [len(g) for g in green.strip(".").split("g") if g]
    assert len(runs) >= 9 and all(abs(r - 30) <= 3 for r in runs[1:-1]), green
    assert all(abs(g - 30) <= 3 for g in gaps), green


PARTY = """\
# a party-game face: the title up the left side, as Squib's own party.yml lays it out
title:
  x: 75
  y: 1050
  angle: 4.71238898 # 3 pi / 2
  width: 850
  height: 125
  align: right
  valign: middle
  font: Sans 22
rules:
  x: 225
  y: 200
  width: 525
  height: 300
  font: Times New Roman, Serif Italic 10
plain:
  x: 225
  y: 600
"""


def test_pango_fonts_give_size_and_style_and_say_the_family_once_at_its_line(tmp_path):
    root = tmp_path / "g"
    (tmp_path / "party.yml").write_text(PARTY)
    code, out = _import(root, str(tmp_path / "party.yml"))
    assert code == 0, out
    assert ("party.yml:16:9: 'rules': font family Times New Roman, Serif not carried over (put its files in "
            "fonts/ and set `font:`); its size and style are kept\n") in out
    template = yaml.safe_load((root / "templates" / "party.yaml").read_text())
    els = {e["name"]: e for e in template["elements"]}
    assert (els["title"]["size"], els["rules"]["size"], els["rules"]["style"]) == (22, 10, "italic")
    assert els["plain"]["size"] == 12 and "style" not in els["plain"]          # Squib's default font, Arial 12
    # title: x 75, y 1050, 850 x 125, turned 3 pi / 2 about its corner: upright from y 200 to 1050
    title = els["title"]
    assert title["rotate"] == pytest.approx(90, abs=1e-3)
    cx = float(title["x"][:-2]) + 850 / 2
    cy = float(title["y"][:-2]) + 125 / 2
    assert (cx, cy) == pytest.approx((75 + 125 / 2, 1050 - 850 / 2), abs=0.01)


@pytest.mark.parametrize(("desc", "expected"), [
    ("Sans Bold 18", (["Sans"], "bold", 18.0)),
    ("Archistico,Montserrat Black,Sans Bold 18", (["Archistico", "Montserrat Black", "Sans"], "bold", 18.0)),
    ("Times New Roman,Serif Italic 7", (["Times New Roman", "Serif"], "italic", 7.0)),
    ("Sans bold italic 9.5", (["Sans"], "bolditalic", 9.5)),
    ("Sans 75px", (["Sans"], None, 18.0)),
    ("Georgia", (["Georgia"], None, None)),
])
def test_pango_font_descriptions(desc, expected):
    assert sv.font(desc) == expected
