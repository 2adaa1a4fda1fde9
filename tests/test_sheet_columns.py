"""A deck's `columns:` (which column is the name, the count, any field), sheets by position,
header case said once per deck, and `cardgen new --from` guessing the name and count columns."""
from __future__ import annotations

import json

from click.testing import CliRunner
from sheetfiles import write_xlsx
from vgame import make_game, make_project
from vgame import said as _said

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import check_game, load_game

FACE = """\
elements:
  - {name: title, type: text, y: 5mm, height: 10mm, text: "{{ card.name }}", box: safe}
  - {name: kind, type: text, y: 15mm, height: 5mm, text: "{{ card.type }}", box: safe}
  - {name: body, type: text, y: 20mm, height: 30mm, text: "{{ card.text }}", box: safe}
"""
RULES = "source: t\ncomponents:\n  - deck: Spells\n    quote: q\n    total: 6\n"
SHEET = [["Title", "Qty", "Type", "Description"],
         ["Fire", 3, "Attack", "Burn a card."],
         ["Ice", 2, "Defence", "Freeze a card."],
         ["Wind", 1, "Move", "Push a card."]]


def _game(tmp_path, cards: str, sheets: dict | None = None):
    tmp_path.mkdir(parents=True, exist_ok=True)
    deck = f"deck: Spells\ntemplate: g/face\ncards: {cards}\n"
    root = make_game(tmp_path, decks={"spells.yaml": deck}, templates={"face": FACE}, rules=RULES)
    write_xlsx(root / "book.xlsx", sheets or {"Notes": [["just notes"]], "Spells": SHEET})
    return root


def test_columns_map_name_count_and_a_field_and_a_sheet_by_position(tmp_path):
    for n, sheet in enumerate(("Spells", "2", '"#2"', "spells")):
        root = _game(tmp_path / str(n), f"{{file: book.xlsx, sheet: {sheet}, columns: {{name: Title, "
                                        f"count: qty, text: Description}}}}")
        game = load_game(root, tmp_path / str(n))
        cards = game.decks[0].cards
        assert [(c.name, c.count, c.fields.get("text")) for c in cards] == [
            ("Fire", 3, "Burn a card."), ("Ice", 2, "Freeze a card."), ("Wind", 1, "Push a card.")], sheet
        assert "Title" not in cards[0].fields and "Description" not in cards[0].fields
        # `Type` in another case: read as `type`, said once for the deck (not once per card)
        assert _said(root, tmp_path / str(n)) == [
            "cards/g/book.xlsx: Spells!C1: warning: deck 'Spells': column 'Type' as `type` read as the field its "
            "template reads (headers match fields in any case; write them as the template does, or map them "
            "with `columns:`, to say so)"]


def test_header_case_is_one_warning_per_deck_at_the_first_header(tmp_path):
    root = _game(tmp_path, "{file: book.xlsx, sheet: Spells, columns: {name: Title, count: Qty}}",
                 {"Spells": [["Title", "Qty", "Type", "Text"], *[[f"C{i}", 1, "Attack", f"Do {i}."]
                                                                 for i in range(6)]]})
    assert _said(root, tmp_path) == [
        "cards/g/book.xlsx: Spells!C1: warning: deck 'Spells': columns 'Type' as `type`, 'Text' as `text` read "
        "as the fields its template reads (headers match fields in any case; write them as the template does, "
        "or map them with `columns:`, to say so)"]


def test_a_mapped_column_that_is_not_there_names_the_columns_that_are(tmp_path):
    root = _game(tmp_path, "{file: book.xlsx, sheet: Spells, columns: {name: Title, text: Desc}}")
    assert _said(root, tmp_path) == [
        "cards/g/spells.yaml:3:70: error: deck 'Spells': `columns:` reads `text` from the column 'Desc', which the "
        "header row does not have (its columns: 'Title', 'Qty', 'Type', 'Description')"]


def test_a_sheet_position_past_the_last(tmp_path):
    root = _game(tmp_path, "{file: book.xlsx, sheet: 3, columns: {name: Title}}")
    assert _said(root, tmp_path) == [
        "cards/g/spells.yaml:3:8: error: book.xlsx has no sheet 3: it has 2 (sheets: Notes, Spells)"]


def test_new_from_a_workbook_guesses_name_and_count_and_builds_with_the_counts(tmp_path, monkeypatch):
    from cardgen.cli.main import main

    (tmp_path / "p").mkdir()
    project = make_project(tmp_path / "p")
    src = tmp_path / "deck.xlsx"
    write_xlsx(src, {"Spells": SHEET, "Items": [["Card", "Copies", "Cost"], ["Rope", 4, 1], ["Lamp", 2, 3]],
                     "Notes": [["just notes"]]})
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["new", "salad", "--from", str(src)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [
        "deck 'Spells': name from the column 'Title', count from the column 'Qty'",
        "deck 'Items': name from the column 'Card', count from the column 'Copies'"]
    root = project / "cards" / "salad"
    assert "cards: {file: deck.xlsx, sheet: Spells, columns: {name: Title, count: Qty}}" in \
        (root / "spells.yaml").read_text()
    report = Report()
    check_game(root, project, report)
    assert [d for d in report.items if d.severity == "error"] == []
    assert sum(d.code == "sheet-header-case" for d in report.items) <= 2       # at most one per deck
    build_game(root, project, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    cards = json.loads((tmp_path / "out" / "salad" / "manifest.json").read_text())["cards"]
    assert {c["name"]: c["copies"] for c in cards} == {"Fire": 3, "Ice": 2, "Wind": 1, "Rope": 4, "Lamp": 2}


def test_new_from_a_sheet_with_no_name_column_says_which_it_looks_for(tmp_path, monkeypatch):
    from cardgen.cli.main import main

    (tmp_path / "p").mkdir()
    project = make_project(tmp_path / "p")
    src = tmp_path / "deck.csv"
    src.write_text("label,cost\nx,1\n")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["new", "salad", "--from", str(src)])
    assert result.exit_code == 1
    assert "no sheet has a header row with a name column (Name, Title, Card, in any case)" in result.output
