"""Stale tracking and PO files for every translatable text, not only a card's fields
(docs/languages.md): a card's `back:`, a deck file's own text, game.yaml, rules.yaml at any
depth and the templates, one walk over them all (`cardgen.check.texts`)."""
from __future__ import annotations

import json
from pathlib import Path

from vgame import make_game

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.validate import validate_game

GAME = "title: Test game\ntitle@de: Testspiel\nlanguages: [en, de]\n"
DECK = """\
deck: Action
deck@de: Aktion
template: g/face
backs: g/face
description: Things to do
description@de: Was zu tun ist
vars: {label: Action, label@de: Aktion}
defaults:
  note: Keep it secret.
  note@de: Halte es geheim.
cards:
  - name: Digging
    name@de: Graben
    text: Dig a hole.
    text@de: Grabe ein Loch.
    back:
      text: Dug.
      text@de: Gegraben.
  - {name: Bribe, name@de: Bestechung, text: Pay someone., count: 2}
"""
FACE = """\
elements:
  - name: bg
    type: rect
    box: bleed
    fill: "#ffffff"
  - name: label      # the kind of card
    type: text
    y: 2mm
    height: 6mm
    box: safe
    text: ACTION
    text@de: AKTION
  - name: body
    type: text
    y: 25mm
    height: 40mm
    text: "{{ card.text }}"
    box: safe
"""
RULES = """\
# the rulebook
title: Rules
title@de: Regeln
sections:
  - title: Set-up
    title@de: Aufbau
    body:
      - Shuffle the deck.
      - steps:
          - Draw five cards.
          - "Play one."
      - callout:
          kind: tip
          text: >-
            Read the cards
            aloud.
    body@de:
      - Mische den Stapel.
      - steps:
          - Ziehe fünf Karten.
          - "Spiele eine."
      - callout:
          kind: tip
          title: Tipp
          text: >-
            Lies die Karten
            laut vor.
player_aid:
  turn: ["Draw a card.", "Play a card."]
  turn@de: ["Ziehe eine Karte.", "Spiele eine Karte."]
components:
  - item: Pawn
    item@de: Spielfigur
    count: 4
"""


GERMAN_BODY = RULES[RULES.index("    body@de:"):RULES.index("player_aid:")]


def _game(tmp_path: Path, **kw) -> Path:
    return make_game(tmp_path, game=GAME, decks={"actions.yaml": DECK}, templates={"face": FACE}, rules=RULES, **kw)


def _stale(root: Path, tmp_path: Path) -> list[str]:
    return [str(d) for d in validate_game(root, tmp_path).diagnostics if d.code == "stale-translation"]


def _build(root: Path, tmp_path: Path) -> None:
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_every_translated_text_is_recorded_text_by_text(tmp_path):
    root = _game(tmp_path)
    _build(root, tmp_path)
    recorded = json.loads((root / "cardgen-history.json").read_text())["translations"]
    named = {group: [(r["card"], r["field"]) for r in records] for group, records in recorded.items()}
    assert named == {
        "Action": [("deck", "deck"), ("deck", "defaults.note"), ("deck", "description"), ("deck", "vars.label"),
                   ("name:Digging", "back.text"), ("name:Digging", "name"), ("name:Digging", "text"),
                   ("name:Bribe", "name")],
        "game.yaml": [("", "title")],
        "rules.yaml": [("", "components[0].item"), ("", "player_aid.turn[0]"), ("", "player_aid.turn[1]"),
                       ("", "sections[0].body[0]"), ("", "sections[0].body[1].steps[0]"),
                       ("", "sections[0].body[1].steps[1]"), ("", "sections[0].body[2].callout.kind"),
                       ("", "sections[0].body[2].callout.text"), ("", "sections[0].body[2].callout.title"),
                       ("", "sections[0].title"), ("", "title")],
        "template g/face": [("", "elements[label].text")]}
    assert _stale(root, tmp_path) == []


def test_a_rules_paragraph_and_a_template_text_are_stale_after_their_source_changes(tmp_path):
    root = _game(tmp_path)
    rules, face = root / "rules.yaml", tmp_path / "templates" / "g" / "face.yaml"
    _build(root, tmp_path)
    assert _stale(root, tmp_path) == []
    _edit(rules, "Read the cards\n            aloud.", "Read the cards\n            aloud, slowly.")
    _edit(rules, "          - \"Play one.\"", "          - \"Play one card.\"")
    _edit(face, "text: ACTION\n", "text: ACTIONS\n")
    # an element inserted above: the label is named by its name, not its place
    _edit(face, "elements:\n", "elements:\n  - name: frame\n    type: rect\n    box: trim\n    fill: \"#eeeeee\"\n")
    mark = "update it, or accept it as it is with `cardgen i18n mark g --lang de`"
    assert _stale(root, tmp_path) == [
        f"{rules}:21:13: warning: German text of rules.yaml (`sections[0].body@de[1].steps[1]`) was written for an "
        f"older English text: the `body[1].steps[1]` it translates changed since; {mark}",
        f"{rules}:25:17: warning: German text of rules.yaml (`sections[0].body@de[2].callout.text`) was written for "
        f"an older English text: the `body[2].callout.text` it translates changed since; {mark}",
        f"{face}:16:5: warning: German text of template g/face (`elements[label].text@de`) was written for an older "
        f"English text: the `text:` it translates changed since; {mark}"]
    _build(root, tmp_path)
    assert len(_stale(root, tmp_path)) == 3          # a build keeps the records of stale translations
    _edit(rules, "          - \"Spiele eine.\"", "          - \"Spiele eine Karte.\"")
    _build(root, tmp_path)
    assert len(_stale(root, tmp_path)) == 2          # edited since: made from the current source



def _export(root: Path, tmp_path: Path) -> str:
    from cardgen.pipeline.check import load_game
    from cardgen.pipeline.translation_files import export

    return export(load_game(root, tmp_path, Report()), "de", Report())


def _import(root: Path, tmp_path: Path, po: Path, report: Report | None = None) -> list[Path]:
    from cardgen.pipeline.check import load_game
    from cardgen.pipeline.translation_files import import_file

    return import_file(load_game(root, tmp_path, Report()), po, "de", report or Report())


def _files(root: Path, tmp_path: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted([*root.iterdir(), *(tmp_path / "templates").rglob("*.yaml")])
            if p.is_file()}


def _entry(text: str, ctx: str) -> str:
    """The PO file's entry of `ctx` (from its reference line to its msgstr)."""
    entries = text.rstrip("\n").split("\n\n")
    found = [e for e in entries if f'msgctxt "{ctx}"' in e]
    assert len(found) == 1, ctx
    return found[0]


def test_every_text_is_exported_and_an_unchanged_file_imports_byte_for_byte(tmp_path):
    root = _game(tmp_path)
    _build(root, tmp_path)
    before = _files(root, tmp_path)
    text = _export(root, tmp_path)
    expected = {
        "Action|deck|deck": ("actions.yaml:1", "Action", "Aktion"),
        "Action|deck|description": ("actions.yaml:5", "Things to do", "Was zu tun ist"),
        "Action|deck|vars.label": ("actions.yaml:7", "Action", "Aktion"),
        "Action|deck|defaults.note": ("actions.yaml:9", "Keep it secret.", "Halte es geheim."),
        "Action|name:Digging|back.text": ("actions.yaml:17", "Dug.", "Gegraben."),
        "Action|name:Bribe|text": ("actions.yaml:19", "Pay someone.", ""),
        "game.yaml||title": ("game.yaml:1", "Test game", "Testspiel"),
        "rules.yaml||sections[0].body[1].steps[1]": ("rules.yaml:11", "Play one.", "Spiele eine."),
        "rules.yaml||sections[0].body[2].callout.text": ("rules.yaml:14", "Read the cards aloud.",
                                                          "Lies die Karten laut vor."),
        "rules.yaml||player_aid.turn[0]": ("rules.yaml:29", "Draw a card.", "Ziehe eine Karte."),
        "rules.yaml||components[0].item": ("rules.yaml:32", "Pawn", "Spielfigur"),
        "template g/face||elements[label].text": ("../../templates/g/face.yaml:11", "ACTION", "AKTION")}
    for ctx, (where, msgid, msgstr) in expected.items():
        assert _entry(text, ctx).endswith(f'#: {where}\nmsgctxt "{ctx}"\nmsgid "{msgid}"\nmsgstr "{msgstr}"'), ctx
    assert "callout.kind" not in text and "{{ card.text }}" not in text     # a keyword, a bare expression
    po = tmp_path / "de.po"
    po.write_text(text, encoding="utf-8")
    assert _import(root, tmp_path, po) == []
    assert _files(root, tmp_path) == before
    assert _export(root, tmp_path) == text


def test_translations_are_written_into_every_file_where_they_belong(tmp_path):
    root = _game(tmp_path)
    rules, face = root / "rules.yaml", tmp_path / "templates" / "g" / "face.yaml"
    _edit(rules, GERMAN_BODY, "")
    text = _export(root, tmp_path)
    new = {"Action|deck|vars.label": "Aktionen", "Action|name:Bribe|text": "Bezahle jemanden.",
           "Action|name:Digging|back.text": "Tief gegraben.", "rules.yaml||sections[0].body[0]": "Mische.",
           "rules.yaml||sections[0].body[1].steps[0]": "Ziehe fünf.",
           "rules.yaml||sections[0].body[1].steps[1]": "Spiele eine.",
           "rules.yaml||sections[0].body[2].callout.text": "Lies vor.",
           "rules.yaml||player_aid.turn[1]": "Spiele eine Karte aus.", "template g/face||elements[label].text": "TUN"}
    for ctx, msgstr in new.items():
        entry = _entry(text, ctx)
        text = text.replace(entry, entry[:entry.rindex("msgstr ")] + f'msgstr "{msgstr}"')
    po = tmp_path / "de.po"
    po.write_text(text, encoding="utf-8")
    assert sorted(_import(root, tmp_path, po)) == sorted([root / "actions.yaml", rules, face])
    deck = (root / "actions.yaml").read_text()
    assert 'vars: {label: Action, label@de: "Aktionen"}\n' in deck
    assert '      text@de: "Tief gegraben."\n  - {name: Bribe, name@de: Bestechung, text: Pay someone., ' \
           'text@de: "Bezahle jemanden.", count: 2}\n' in deck
    assert "    text: ACTION\n    text@de: \"TUN\"\n" in face.read_text()
    assert "  turn@de: [\"Ziehe eine Karte.\", \"Spiele eine Karte aus.\"]\n" in rules.read_text()
    assert ("            aloud.\n    body@de:\n      - Mische.\n      - steps:\n        - Ziehe fünf.\n"
            "        - Spiele eine.\n      - callout:\n          kind: tip\n          text: Lies vor.\nplayer_aid:"
            ) in rules.read_text()
    assert rules.read_text().startswith("# the rulebook\n")
    from cardgen.pipeline.check import load_game

    game = load_game(root, tmp_path, Report(), lang="de")
    assert game.rules is not None and game.rules.data["sections"][0]["body"][2]["callout"]["text"] == "Lies vor."
    assert game.decks[0].cards[1].fields["text"] == "Bezahle jemanden."
    assert _stale(root, tmp_path) == []
    po.write_text(_export(root, tmp_path), encoding="utf-8")
    before = _files(root, tmp_path)
    assert _import(root, tmp_path, po) == [] and _files(root, tmp_path) == before


def test_a_rules_text_translated_in_part_or_an_entry_given_twice_is_not_written_and_said(tmp_path):
    root = _game(tmp_path)
    _edit(root / "rules.yaml", GERMAN_BODY, "")
    text = _export(root, tmp_path)
    entry = _entry(text, "rules.yaml||sections[0].body[0]")
    po = tmp_path / "de.po"
    po.write_text(text.replace(entry, entry[:entry.rindex("msgstr ")] + 'msgstr "Mische."'), encoding="utf-8")
    report = Report()
    before = _files(root, tmp_path)
    twice = _entry(text, "game.yaml||title").replace("Testspiel", "Spiel")
    po.write_text(po.read_text(encoding="utf-8") + "\n" + twice + "\n", encoding="utf-8")
    assert _import(root, tmp_path, po, report) == [] and _files(root, tmp_path) == before
    line = text[:text.index(entry)].count("\n") + 1
    assert [str(d) for d in report.items if d.code == "po-import"] == [
        f"{po}:{text.count(chr(10)) + 2}:1: warning: 'game.yaml||title' is in the file twice: the first is imported, "
        f"not this one",
        f"{po}:{line}:1: warning: `body@de` is written once all 4 texts of `sections[0].body` are translated "
        f"(the file translates 1): not imported"]


def test_a_broken_entry_for_a_rules_text_is_a_located_error(tmp_path):
    import pytest

    from cardgen.core.errors import CardgenError

    root = _game(tmp_path)
    text = _export(root, tmp_path)
    entry = _entry(text, "rules.yaml||sections[0].body[1].steps[1]")
    broken = entry.replace('msgstr "Spiele eine."', 'msgstr "Spiele \\eine."')
    text = text.replace(entry, broken)
    line = text[:text.index(broken)].count("\n") + broken.count("\n") + 1
    po = tmp_path / "de.po"
    po.write_text(text, encoding="utf-8")
    before = _files(root, tmp_path)
    with pytest.raises(CardgenError) as exc:
        _import(root, tmp_path, po)
    assert [str(d) for d in exc.value.diagnostics] == [f"{po}:{line}:16: error: unknown escape \\e in a PO string"]
    assert _files(root, tmp_path) == before


def test_game_601s_german_exports_and_imports_with_no_change(tmp_path):
    import shutil

    from cardgen.model.game import BUNDLED

    repo = Path(__file__).resolve().parent.parent
    project = tmp_path / "p"
    shutil.copytree(repo / "cards" / "game-601", project / "cards" / "game-601")
    shutil.copytree(repo / "templates" / "game-601", project / "templates" / "game-601")
    (project / "cardgen.yaml").write_text("")
    root = project / "cards" / "game-601"
    assert BUNDLED not in root.parents
    before = {str(p): p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()}
    text = _export(root, project)
    from cardgen.load.po import loads

    entries = loads(text, "de.po")[0]
    assert len(entries) > 150 and [e.msgctxt for e in entries if not e.msgstr or e.fuzzy] == []
    assert 'msgctxt "rules.yaml||sections[1].body[0].steps[0]"' in text
    assert 'msgctxt "template game-601/partner||' in text
    po = tmp_path / "de.po"
    po.write_text(text, encoding="utf-8")
    assert _import(root, project, po) == []
    assert {str(p): p.read_bytes() for p in sorted(project.rglob("*")) if p.is_file()} == before
    assert _export(root, project) == text


def test_a_spreadsheet_card_is_stale_at_its_cell_and_not_written_into(tmp_path):
    import pytest

    from cardgen.core.errors import CardgenError

    deck = "deck: Action\ntemplate: g/face\ncards: actions.csv\n"
    root = make_game(tmp_path, game=GAME, decks={"actions.yaml": deck}, templates={"face": FACE}, rules=None)
    sheet = root / "actions.csv"
    sheet.write_text("name,name@de,text,text@de,count\nDigging,Graben,Dig.,Grab.,6\nBribe,Bestechung,Pay.,,2\n")
    _build(root, tmp_path)
    sheet.write_text(sheet.read_text().replace("Dig.,", "Dig deep.,"))
    said = _stale(root, tmp_path)
    assert len(said) == 1 and said[0].startswith(f"{sheet}:2:4: warning: German text of 'Digging'") and "(`text@de`)" in said[0], said
    text = _export(root, tmp_path)
    entry = _entry(text, "Action|name:Bribe|text")
    po = tmp_path / "de.po"
    po.write_text(text.replace(entry, entry.replace('msgstr ""', 'msgstr "Bezahle."')), encoding="utf-8")
    line = text[:text.index(entry)].count("\n") + 1
    before = _files(root, tmp_path)
    with pytest.raises(CardgenError) as exc:
        _import(root, tmp_path, po)
    assert [str(d) for d in exc.value.diagnostics] == [
        f"{po}:{line}:1: error: deck 'Action' reads its cards from a spreadsheet: add a column `text@de` there (not "
        f"imported)"]
    assert _files(root, tmp_path) == before
