"""A template's `computed:` values: worked out once per card, read as `card.NAME`, errors located."""
from __future__ import annotations

from pypdf import PdfReader
from vgame import make_game
from vgame import said as _said

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

FACE = """\
computed:
  strong: "{{ card.power >= 3 }}"
  label: "{{ 'Strong ' ~ card.name if card.strong else card.name }}"
elements:
  - {name: title, type: text, y: 5mm, height: 10mm, text: "{{ card.label }}", box: safe}
  - {name: mark, type: text, when: card.strong, y: 20mm, height: 10mm, text: "STAR", box: safe}
"""
DECK = "deck: D\ntemplate: g/face\ncards:\n  - {name: Ox, power: 5}\n  - {name: Ant, power: 1}\n"


def test_computed_values_are_read_like_fields(tmp_path):
    root = make_game(tmp_path, decks={"d.yaml": DECK}, templates={"face": FACE}, rules=None)
    assert _said(root, tmp_path) == []
    written = build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = next(p for p in written if p.suffix == ".pdf")
    text = " ".join(page.extract_text() for page in PdfReader(str(pdf)).pages)
    assert "Strong Ox" in text and "Ant" in text and "Strong Ant" not in text
    assert text.count("STAR") == 1


def test_a_computed_error_is_located_with_the_card(tmp_path):
    face = FACE.replace("card.power >= 3", "card.power >= 'x'")
    root = make_game(tmp_path, decks={"d.yaml": DECK}, templates={"face": face}, rules=None)
    said = _said(root, tmp_path)
    assert said == [f"templates/g/face.yaml:2:11: error: card '{n}' (d.yaml:{line}), computed `strong`: "
                    f"{{{{ card.power >= 'x' }}}}: TypeError: '>=' not supported between instances of 'int' and 'str'"
                    for n, line in (("Ant", 5), ("Ox", 4))], said


def test_a_computed_value_reading_a_missing_field(tmp_path):
    face = FACE.replace("card.power >= 3", "card.powr >= 3")
    root = make_game(tmp_path, decks={"d.yaml": DECK}, templates={"face": face}, rules=None)
    said = _said(root, tmp_path)
    assert said == ["templates/g/face.yaml:2:11: error: card 'Ox' (d.yaml:4) has no field 'powr'; did you mean "
                    "'power'? (used by computed `strong`); add `powr:` to the card, or a default under `defaults:` "
                    "in template g/face (1 more card the same)"], said


def test_a_child_template_inherits_and_replaces_computed_values(tmp_path):
    child = "extends: g/face\ncomputed:\n  strong: \"{{ card.power >= 1 }}\"\n"
    deck = DECK.replace("g/face", "g/child")
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={"face": FACE, "child": child}, rules=None)
    assert _said(root, tmp_path) == []
    written = build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = next(p for p in written if p.suffix == ".pdf")
    text = " ".join(page.extract_text() for page in PdfReader(str(pdf)).pages)
    assert "Strong Ox" in text and "Strong Ant" in text and text.count("STAR") == 2


def test_an_element_reading_a_computed_name_misspelt_is_located(tmp_path):
    face = FACE.replace("text: \"{{ card.label }}\"", "text: \"{{ card.lable }}\"")
    root = make_game(tmp_path, decks={"d.yaml": DECK}, templates={"face": face}, rules=None)
    said = _said(root, tmp_path)
    assert len(said) == 1 and said[0].startswith("templates/g/face.yaml:5:") and "'lable'" in said[0], said


def test_a_deck_declares_computed_values_after_and_over_the_template_s(tmp_path):
    deck = DECK.replace("cards:\n", "computed:\n  strong: \"{{ card.name == 'Ant' }}\"\n  tag: \"#{{ card.power }}\"\n"
                                    "cards:\n")
    face = FACE + "  - {name: tag, type: text, y: 35mm, height: 10mm, text: \"{{ card.tag }}\", box: safe}\n"
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={"face": face}, rules=None)
    assert _said(root, tmp_path) == []
    written = build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = next(p for p in written if p.suffix == ".pdf")
    pages = [page.extract_text() for page in PdfReader(str(pdf)).pages]
    ox = next(t for t in pages if "Ox" in t)
    ant = next(t for t in pages if "Ant" in t)
    assert "Strong Ant" in ant and "STAR" in ant and "#1" in ant
    assert "Strong" not in ox and "STAR" not in ox and "#5" in ox


def test_a_deck_computed_error_is_at_its_line_in_the_deck_file(tmp_path):
    deck = DECK.replace("cards:\n", "computed:\n  tag: \"{{ card.powr }}\"\ncards:\n")
    root = make_game(tmp_path, decks={"d.yaml": deck}, templates={"face": FACE}, rules=None)
    said = _said(root, tmp_path)
    assert len(said) == 1 and said[0].startswith("cards/g/d.yaml:4:8: error: card 'Ox' (d.yaml:6) has no field "
                                                 "'powr'; did you mean 'power'? (used by computed `tag`)"), said
