"""`cardgen import squib`: a Squib layout file as a cardgen template, its boxes where Squib puts
them (read back from the built PDF), what it cannot carry over said, bad input a located error.
tests/fixtures/squib/ holds real layouts from andymeneely/squib (MIT; see its README.md)."""
from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from test_placement import _rows
from vgame import make_game

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


def test_a_real_squib_layout_imports_and_builds_with_its_boxes_where_squib_puts_them(tmp_path):
    deck = "deck: D\ntemplate: fantasy\ncards:\n  - {name: A, title: W, upper_right: Q, copyright: Z}\n"
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={}, rules=None)
    code, out = _import(root, str(FIXTURES / "fantasy.yml"))
    assert code == 0, out
    assert "fantasy.yml:89:3: 'cut' made a rect (from its name); change its type if it holds text or art\n" in out
    assert "fantasy.yml:101:9: 'safe': dash not carried over\n" in out
    text = (root / "templates" / "fantasy.yaml").read_text()
    assert text.startswith("# Imported from the Squib layout fantasy.yml") and "origin: bleed" in text
    chars = _chars(_build(tmp_path, root))
    # title: x 90, y 90, left-aligned, top: its first letter starts at the box's left edge
    assert chars["W"][0] == pytest.approx(90 * PX, abs=0.5)
    assert chars["W"][1] == pytest.approx(90 * PX, abs=1.5)       # below the top by the font's ascent gap
    # upper_right: x 595 + width 135, right-aligned: the letter ends at the box's right edge
    assert chars["Q"][2] == pytest.approx((595 + 135) * PX, abs=0.5)
    # copyright: y 1025 + height 25, centred at the bottom: x centre 75 + 675 / 2
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
    ("a:\n  x: middle\n", ":2:6: error: 'middle' is not a length the importer reads"),
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
    layout = str(FIXTURES / "custom-layout.yml")      # writes `valign: !ruby/symbol middle`
    assert _import(root, layout)[0] == 0
    assert "valign: middle" in (root / "templates" / "custom-layout.yaml").read_text()
    code, out = _import(root, layout)
    assert code == 1 and "custom-layout.yaml: error: already exists; pass --force to overwrite it" in out
    assert _import(root, layout, "--force")[0] == 0


def test_with_data_it_writes_a_deck_reading_it(tmp_path):
    root = make_game(tmp_path, decks={}, templates={}, rules=None)
    (tmp_path / "cards.csv").write_text("Title,Qty,Upper_Right\nDragon,2,7\n")
    code, out = _import(root, str(FIXTURES / "fantasy.yml"), str(tmp_path / "cards.csv"))
    assert code == 0, out
    deck = (root / "fantasy-deck.yaml").read_text()
    assert "template: fantasy" in deck and "file: cards.csv" in deck and "name: Title" in deck
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
    assert "- name: e59\n  type: text\n  x: 60px\n  width: 10px\n" in (tmp_path / "g" / "templates" / "wide.yaml").read_text()


def test_an_entry_whose_name_is_no_field_name_prints_nothing_and_says_so(tmp_path):
    path = tmp_path / "odd.yml"
    path.write_text("\"a}}{{ 7*7 }}\":\n  x: 10\n")
    code, out = _import(tmp_path / "g", str(path))
    assert code == 0 and "odd.yml:2:3: 'a}}{{ 7*7 }}' is not a field name a template can print; its text is " \
                         "left empty\n" in out, out
    assert "text: ''" in (tmp_path / "g" / "templates" / "odd.yaml").read_text()
