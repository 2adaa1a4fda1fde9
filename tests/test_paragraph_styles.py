"""Paragraph styles: game.yaml `styles:` with alignment, space before and after, first-line
indent and line height, used around whole paragraphs (`[rule]...[/rule]`) in any text; read
back from the positions of the printed characters."""
from __future__ import annotations

import pytest
from conftest import REPO
from test_spans import _chars

from cardgen.core.errors import CardgenError, Report
from cardgen.core.spans import Span, attribute
from cardgen.pipeline.build import BuildOptions, build_game

MM = 72 / 25.4
BLEED = 3.175 * MM
STYLES = """styles:
  head: {weight: bold, align: center, space_after: 4pt}
  rule: {align: justify, indent: 1em, leading: 1.5}
  flavour: {align: right, style: italic, space_before: 6pt}
"""
CARD = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: body, type: text, x: 5mm, y: 5mm, width: 53mm, height: 78mm, size: 10, leading: 1.2, paragraph_gap: 0.5,
     text: "{{ card.text }}"}
"""
TEXT = ("[head]Ambush[/head]\\n\\n[rule]When an enemy enters your zone you may play this card before it acts "
        "and deal two damage to it.[/rule]\\n\\n[flavour]Never seen.[/flavour]\\n\\nPlain one.\\nPlain two.")


def _lines(chars):
    """The printed characters grouped by baseline (their boxes' bottoms, to 0.5 pt), in order."""
    rows: dict[float, list] = {}
    for ch, box, _ in chars:
        key = next((k for k in rows if abs(k - box[3]) < 2.5), box[3])
        rows.setdefault(key, []).append((ch, box))
    return [rows[k] for k in sorted(rows)]


def test_paragraph_attributes_parse_and_nest():
    span = attribute(attribute(Span(), "align", "centre"), "space_before", "6pt")
    span = attribute(attribute(span, "indent", "2mm"), "line_height", "140%")
    assert (span.align, span.space_before, span.leading) == ("center", (6.0, "pt"), 1.4)
    assert span.indent == (pytest.approx(2 * MM), "pt") and span.ems("indent", 10) == pytest.approx(2 * MM / 10)
    inner = Span(color=(1.0, 0.0, 0.0, 1.0)).over(span)          # a character span inside keeps them
    assert inner.align == "center" and inner.leading == 1.4


def test_paragraph_styles_on_a_card(tiny_game, tmp_path):
    root = tiny_game(f'cards:\n  - {{name: One, text: "{TEXT}"}}\n', template=CARD, game_extra=STYLES)
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items, [str(i) for i in report.items]
    _, chars = _chars((tmp_path / "out" / "tiny" / "cards.pdf").read_bytes())
    rows = _lines(chars)
    text = ["".join(c for c, _ in row) for row in rows]
    assert text[0] == "Ambush" and text[-2:] == ["Plainone.", "Plaintwo."] and text[-3] == "Neverseen."
    left, right = BLEED + 5 * MM, BLEED + 58 * MM
    base = [row[0][1][3] for row in rows]
    # head: centred in the box
    head = rows[0]
    assert (head[0][1][0] + head[-1][1][2]) / 2 == pytest.approx((left + right) / 2, abs=1.0)
    # rule: its first line indented 1 em (10 pt), the next ones not; justified to the right edge
    rule = rows[1:-3]
    assert len(rule) >= 2
    assert rule[0][0][1][0] - left == pytest.approx(10.0, abs=1.0)
    assert rule[1][0][1][0] - left == pytest.approx(0.0, abs=1.0)
    assert rule[0][-1][1][2] == pytest.approx(right, abs=1.0)
    # its lines 1.5 sizes apart, the plain paragraph's 1.2
    assert base[2] - base[1] == pytest.approx(15.0, abs=0.3)
    assert base[-1] - base[-2] == pytest.approx(12.0, abs=0.3)
    # space after the head: its gap (0.5 size) + 4 pt; before the flavour: the gap + 6 pt
    assert base[1] - base[0] == pytest.approx(15.0 + 5.0 + 4.0, abs=0.3)    # (the rule's line height)
    assert base[-3] - base[-4] == pytest.approx(12.0 + 5.0 + 6.0, abs=0.3)
    # flavour: right-aligned
    assert rows[-3][-1][1][2] == pytest.approx(right, abs=1.0)


def test_a_bad_paragraph_attribute_is_an_error_at_its_line(tiny_game, tmp_path):
    root = tiny_game(game_extra="styles:\n  rule: {align: middle}\n")
    with pytest.raises(CardgenError) as caught:
        build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert str(caught.value) == (f"{root / 'game.yaml'}:3:17: error: game.yaml: `styles` 'rule' is not a valid style: "
                                 f"align must be left, center, right, justify, start, end, got 'middle'")


def test_a_paragraph_style_in_a_flow_as_the_booklet_sets_it():
    """The booklet and the player aid set their text with `set_lines`: a paragraph style
    there centres, indents and spaces its paragraphs as on a card."""
    from cardgen.core.data import DATA
    from cardgen.resources.fonts import FontBook
    from cardgen.text.markup import parse
    from cardgen.text.typeset import TextStyle, Typesetter

    ts = Typesetter(FontBook([DATA / "fonts"]), lambda name: DATA / name)
    styles = {"quote": attribute(attribute(Span(), "align", "center"), "space_before", "5pt"),
              "rule": attribute(attribute(Span(), "indent", "2em"), "leading", "2")}
    st = TextStyle("Lato", "regular", 10.0, 1.2, paragraph_gap=0.5)
    text = ts.set_lines(parse("Plain text.\n\n[rule]One rule that runs over two lines here.[/rule]\n\n"
                              "[quote]Said.[/quote]", styles), st, 0.0, 120.0)
    firsts = [ln.runs[0] for ln in text.lines]
    assert firsts[0].x == 0.0 and firsts[1].x == pytest.approx(20.0) and firsts[2].x == 0.0
    assert firsts[2].baseline - firsts[1].baseline == pytest.approx(20.0)          # leading 2
    said = text.lines[-1]
    assert said.runs[0].x + said.width / 2 == pytest.approx(60.0, abs=0.01)        # centred in 120 pt
    assert said.baseline - text.lines[-2].baseline == pytest.approx(12.0 + 5.0 + 5.0)   # 1.2 size + gap + 5 pt
