"""`figure:` blocks in the rulebook: a card, a hand or a component's pieces drawn in the booklet
at the size asked, where the text puts them, with their caption; a name that is no card is an
error at its line, with the nearest name."""
from __future__ import annotations

import io
import math

import pypdfium2 as pdfium
import pytest
from conftest import write
from pdfgeom import MM, page_items
from pypdf import PdfReader

from cardgen.core.errors import Report
from cardgen.layout.rulebook import rulebook_problems
from cardgen.outputs import booklet
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

POKER_W = 63.5


def rules(root, body: str):
    write(root / "rules.yaml", """
        title: Tiny
        sections:
          - title: Play
            body:
              - "Play a card."
    """.rstrip(" ") + "\n".join("      " + line for line in body.strip("\n").splitlines()) + "\n")


def made(root) -> bytes:
    game = load_game(root, root.parent, Report())
    return booklet.make_booklet(layout_game(game, Report()), "a5")


def placements(pdf: bytes, scale: float):
    """(page index, placement) of every card form drawn at `scale` (its width / the card's)."""
    reader = PdfReader(io.BytesIO(pdf))
    out = []
    for i in range(len(reader.pages)):
        for p in page_items(reader, i)[0]:
            a, b = p.matrix[0], p.matrix[1]
            if math.hypot(a, b) == pytest.approx(scale, abs=1e-4):
                out.append((i, p))
    return out


def pixel(pdf: bytes, index: int, x_mm: float, y_mm: float) -> tuple:
    page = pdfium.PdfDocument(pdf)[index]
    img = page.render(scale=2).to_pil().convert("RGB")
    return img.getpixel((round(x_mm * MM * 2), round(img.height - y_mm * MM * 2)))


def test_a_card_figure_at_its_width_in_the_column_with_its_caption(tiny_game):
    root = tiny_game()
    rules(root, """
        - figure: {card: Alpha, width: 40mm, caption: "The **Alpha** card."}
        - "After the figure."
    """)
    pdf = made(root)
    found = placements(pdf, 40 / POKER_W)
    assert len(found) == 1
    index, p = found[0]
    assert (p.matrix[1], p.matrix[2]) == (0, 0)             # not turned
    cx, cy = p.center()
    # centred in the text column: between the ends of the rule under the section's heading
    rule = max((s for s in page_items(PdfReader(io.BytesIO(pdf)), index)[1] if s.y1 == s.y2),
               key=lambda s: abs(s.x2 - s.x1))
    assert cx == pytest.approx((rule.x1 + rule.x2) / 2, abs=0.05)
    assert abs(rule.x2 - rule.x1) > 80
    assert pixel(pdf, index, cx, cy) == pytest.approx((255, 0, 0), abs=6)   # Alpha's red
    text = PdfReader(io.BytesIO(pdf)).pages[index].extract_text().replace(" ", "").replace("\n", "")
    assert "Playacard." in text and "TheAlphacard." in text and "Afterthefigure." in text
    assert text.index("Playacard.") < text.index("TheAlphacard.") < text.index("Afterthefigure.")


def test_a_hand_fans_its_cards_and_a_component_lines_its_pieces_up(tiny_game):
    root = tiny_game()
    rules(root, """
        - figure: {hand: [Alpha, Beta, Alpha], width: 31mm}
        - figure: {component: Things, width: 20mm}
        - figure: {card: Beta, back: true, width: 22mm}
    """)
    pdf = made(root)
    hand = placements(pdf, 31 / POKER_W)
    turns = [round(math.degrees(math.atan2(p.matrix[1], p.matrix[0])), 3) for _, p in hand]
    assert turns == [10.0, 0.0, -10.0]          # the first on the left turned anticlockwise (PDF: y up)
    xs = [p.center()[0] for _, p in hand]
    assert xs[0] < xs[1] < xs[2]
    row = placements(pdf, 20 / POKER_W)
    assert len(row) == 2
    (i0, a), (_, b) = row
    assert a.center()[1] == pytest.approx(b.center()[1])
    assert b.center()[0] - a.center()[0] == pytest.approx(20 + 3, abs=0.01)     # side by side, 3 mm apart
    assert pixel(pdf, i0, *b.center()) == pytest.approx((0, 255, 0), abs=6)    # Beta, second
    (ib, back), = placements(pdf, 22 / POKER_W)
    assert pixel(pdf, ib, *back.center()) == pytest.approx((0xaa, 0x22, 0x22), abs=6)   # the deck's back


def test_a_figure_that_names_no_card_says_where_and_what_was_meant(tiny_game):
    root = tiny_game()
    rules(root, """
        - figure: {card: Alpah}
        - figure: {hand: [Alpha, Betta]}
        - figure: {component: Thinsg}
        - figure: {card: Alpha, hand: [Beta]}
        - figure: {card: Alpha, size: 3}
    """)
    game = load_game(root, root.parent, Report())
    said = [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in rulebook_problems(game)]
    assert said == [
        "6:24: figure: no card 'Alpah'; did you mean 'Alpha'?",
        "7:32: figure: no card 'Betta'; did you mean 'Beta'?",
        "8:29: figure: no deck or component 'Thinsg'; did you mean 'Things'?",
        "9:17: section 'Play': figure: give one of `card:`, `hand:` or `component:`, not card and hand",
        "10:31: section 'Play': figure: unknown key 'size'",
    ], said


def test_a_figures_caption_is_translated_and_its_card_names_are_not(tiny_game):
    """Card names are the cards' identity in every language (a German booklet's figure names
    the cards as the deck files do): `cardgen i18n export` offers the caption alone."""
    from cardgen.pipeline.translation_files import targets

    root = tiny_game("""
        cards:
          - {name: Red Card, color: "#ff0000"}
          - {name: Green Card, color: "#00ff00"}
    """, game_extra="languages: [en, de]\n")
    rules(root, """
        - figure: {hand: [Red Card, Green Card], caption: "Two cards in a hand."}
        - figure: {card: Red Card, deck: Things, caption: "One card."}
    """)
    texts = {t.source for t in targets(load_game(root, root.parent, Report())).values()}
    assert {"Two cards in a hand.", "One card."} <= texts
    assert "Red Card" in texts                      # (as the card's own name, in its deck file)
    figure_texts = {t.name for t in targets(load_game(root, root.parent, Report())).values() if "figure" in t.name}
    assert figure_texts == {"sections[0].body[1].figure.caption", "sections[0].body[2].figure.caption"}


def test_editing_a_card_only_a_figure_shows_remakes_the_booklet(tiny_game):
    from conftest import in_dir

    cards = "cards:\n" + "".join(f'  - {{name: C{i}, color: "#{i}0{i}0{i}0"}}\n' for i in range(1, 8))
    root = tiny_game(cards)
    rules(root, """
        - figure: {card: C7, width: 40mm}
    """)
    code, _, err = in_dir(root.parent, "build", root.name, "--only", "booklet")
    assert code == 0, err
    pdf = root / "build" / "rules.pdf"
    (index, p), = placements(pdf.read_bytes(), 40 / POKER_W)
    assert pixel(pdf.read_bytes(), index, *p.center()) == pytest.approx((0x70, 0x70, 0x70), abs=6)
    deck = root / "deck.yaml"
    deck.write_text(deck.read_text().replace("#707070", "#0000ff"))     # C7, pictured nowhere else
    code, _, err = in_dir(root.parent, "build", root.name, "--only", "booklet")
    assert code == 0, err
    (index, p), = placements(pdf.read_bytes(), 40 / POKER_W)
    assert pixel(pdf.read_bytes(), index, *p.center()) == pytest.approx((0, 0, 255), abs=6)
