"""Fallback fonts: what the text's font lacks is drawn (and measured) in the first fallback
family that has it; what no font has is a warning, once per card side and font."""
from __future__ import annotations

import pypdfium2 as pdfium
from conftest import REPO
from reportlab.pdfbase import pdfmetrics

from cardgen.core.errors import Report
from cardgen.layout.engine import layout_game
from cardgen.model import ops
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import load_game
from cardgen.resources.fonts import use_in_reportlab

TEMPLATE = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53mm, height: 30mm, text: "{{ card.name }}", size: 40}
"""
DPI = 150


def _runs(root) -> list[ops.Run]:
    report = Report()
    rendered = layout_game(load_game(root, REPO, report), report)
    use_in_reportlab()     # (layout measures without ReportLab; the tests ask ReportLab for the widths)
    _, _, face = rendered.faces[0]
    return [r for op in face.ops if isinstance(op, ops.Text) for r in op.runs]


def _ink(pdf, run: ops.Run, bleed_pt: float) -> int:
    """Dark pixels in the box where `run` is drawn (its advance width, cap height above the baseline)."""
    page = pdfium.PdfDocument(str(pdf))[0]
    img = page.render(scale=DPI / 72).to_pil().convert("L")
    s = DPI / 72
    box = (round((bleed_pt + run.x) * s), round((bleed_pt + run.baseline - 0.7 * run.size) * s),
           round((bleed_pt + run.x + run.width) * s), round((bleed_pt + run.baseline) * s))
    return sum(img.crop(box).histogram()[:128])


def test_a_star_is_drawn_by_the_bundled_fallback(tiny_game, tmp_path):
    root = tiny_game('cards:\n  - {name: "A\\u2605"}\n', template=TEMPLATE)
    runs = _runs(root)
    assert [(r.content, r.font) for r in runs] == [("A", "Lato-Regular"), ("\u2605", "DejaVuSans")]
    a, star = runs
    # measured in the font that draws it, and placed right after the A
    assert star.width == pdfmetrics.stringWidth("\u2605", "DejaVuSans", 40)
    assert abs(star.x - (a.x + pdfmetrics.stringWidth("A", "Lato-Regular", 40))) < 1e-6
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    pdf = tmp_path / "out" / "tiny" / "cards.pdf"
    # the star is solid: most of its box is ink (2 x 0.7 x 40 pt at 150 dpi is about 700 pixels)
    assert _ink(pdf, star, 9.0) > 400


def test_a_character_no_font_has_leaves_its_place_blank_and_is_reported(tiny_game, tmp_path):
    """The control for the test above: where no font has the glyph, there is no ink."""
    root = tiny_game('cards:\n  - {name: "A\\u4e2d"}\n', template=TEMPLATE)
    runs = _runs(root)
    assert [(r.content, r.font) for r in runs] == [("A\u4e2d", "Lato-Regular")]
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert [d.code for d in report.items] == ["missing-glyph"]
    pdf = tmp_path / "out" / "tiny" / "cards.pdf"
    a_width = pdfmetrics.stringWidth("A", "Lato-Regular", 40)
    cjk = ops.Run(runs[0].x + a_width, runs[0].baseline, "text", "\u4e2d", "Lato-Regular", 40, None,
                  runs[0].width - a_width)
    assert _ink(pdf, cjk, 9.0) == 0
    assert _ink(pdf, ops.Run(runs[0].x, runs[0].baseline, "text", "A", "Lato-Regular", 40, None, a_width), 9.0) > 100


def test_fallback_fonts_from_game_yaml_come_before_the_bundled_one(tiny_game):
    # U+2023 TRIANGULAR BULLET: not in Lato, in Vollkorn and in DejaVu Sans
    cards = 'cards:\n  - {name: "\\u2023 go"}\n'
    assert [(r.content, r.font) for r in _runs(tiny_game(cards, template=TEMPLATE))] == [
        ("\u2023", "DejaVuSans"), ("go", "Lato-Regular")]
    root = tiny_game(cards, template=TEMPLATE, game_extra="fallback_fonts: [Vollkorn]\n")
    assert [(r.content, r.font) for r in _runs(root)] == [("\u2023", "Vollkorn-Regular"), ("go", "Lato-Regular")]


def test_bold_text_keeps_its_style_around_a_fallback_glyph(tiny_game):
    root = tiny_game('cards:\n  - {name: "**Win\\u2605now**"}\n', template=TEMPLATE)
    assert [(r.content, r.font) for r in _runs(root)] == [("Win", "Lato-Bold"), ("\u2605", "DejaVuSans"),
                                                         ("now", "Lato-Bold")]


def test_wrapping_measures_fallback_glyphs_in_their_own_font(tiny_game):
    """Stars are much wider in DejaVu Sans than Lato's empty glyph: a line of them wraps
    where their real width says, and every line stays inside the box."""
    stars = " ".join(["\u2605\u2605\u2605"] * 6)
    root = tiny_game(f'cards:\n  - {{name: "{stars}"}}\n', template=TEMPLATE.replace("size: 40", "size: 20"))
    runs = _runs(root)
    width = 53 * 72 / 25.4
    left = min(r.x for r in runs)
    assert all(r.x + r.width <= left + width + 0.01 for r in runs)
    per_word = pdfmetrics.stringWidth("\u2605\u2605\u2605", "DejaVuSans", 20)
    space = pdfmetrics.stringWidth(" ", "Lato-Regular", 20)
    fit = int((width + space) // (per_word + space))
    lines = sorted({r.baseline for r in runs})
    assert len(lines) == -(-6 // fit)


def test_missing_glyphs_are_reported_once_per_card_and_font(tiny_game):
    template = TEMPLATE + ('  - {name: body, type: text, x: 5mm, y: 40mm, width: 53mm, height: 30mm, '
                           'text: "{{ card.text }}"}\n'
                           '  - {name: rule, type: text, x: 5mm, y: 70mm, width: 53mm, height: 10mm, '
                           'text: "{{ card.text }}", style: bold}\n')
    root = tiny_game('cards:\n  - {name: "A\\u4e2d", text: "\\u4e2d\\u6587"}\n'
                     '  - {name: "B\\u4e2d", text: "plain"}\n', template=template)
    report = Report()
    layout_game(load_game(root, REPO, report), report)
    said = [(d.message.split(", element ")[0], d.message.split(" no glyph for ")[1].split(";")[0])
            for d in report.items if d.code == "missing-glyph"]
    assert said == [
        ("card 'A\u4e2d' (deck.yaml:5)", "U+4E2D CJK UNIFIED IDEOGRAPH-4E2D"),        # title, Lato-Regular
        ("card 'A\u4e2d' (deck.yaml:5)", "U+6587 CJK UNIFIED IDEOGRAPH-6587"),        # body: only what is new
        ("card 'A\u4e2d' (deck.yaml:5)", "U+4E2D CJK UNIFIED IDEOGRAPH-4E2D, U+6587 CJK UNIFIED IDEOGRAPH-6587"),
        ("card 'B\u4e2d' (deck.yaml:6)", "U+4E2D CJK UNIFIED IDEOGRAPH-4E2D"),
    ]
    assert "Lato-Bold" in [d.message for d in report.items if d.code == "missing-glyph"][2]


def test_every_bundled_font_passes_the_table_checksums_and_any_flipped_table_fails():
    import struct

    from cardgen.core.data import DATA
    from cardgen.resources.fonts import table_problem

    fonts = sorted((DATA / "fonts").glob("*.ttf"))
    assert len(fonts) == 13
    for path in fonts:
        assert table_problem(path.read_bytes()) is None, path.name
    data = (DATA / "fonts" / "LeckerliOne-Regular.ttf").read_bytes()
    count = struct.unpack_from(">H", data, 4)[0]
    for i in range(count):
        tag, _, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if length == 0:
            continue
        flipped = bytearray(data)
        flipped[offset + length - 1] ^= 0x01
        name = tag.decode().strip()
        assert table_problem(bytes(flipped)) == f"table checksum mismatch in '{name}'"
    assert table_problem(data[:40]) == "the table directory is cut short"
