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
        "template g/face": [("", "elements[1].text")]}
    assert _stale(root, tmp_path) == []


def test_a_rules_paragraph_and_a_template_text_are_stale_after_their_source_changes(tmp_path):
    root = _game(tmp_path)
    rules, face = root / "rules.yaml", tmp_path / "templates" / "g" / "face.yaml"
    _build(root, tmp_path)
    assert _stale(root, tmp_path) == []
    _edit(rules, "Read the cards\n            aloud.", "Read the cards\n            aloud, slowly.")
    _edit(rules, "          - \"Play one.\"", "          - \"Play one card.\"")
    _edit(face, "text: ACTION\n", "text: ACTIONS\n")
    mark = "update it, or accept it as it is with `cardgen i18n mark g --lang de`"
    assert _stale(root, tmp_path) == [
        f"{rules}:21:13: warning: German text of rules.yaml (`sections[0].body@de[1].steps[1]`) was written for an "
        f"older English text: the `body[1].steps[1]` it translates changed since; {mark}",
        f"{rules}:25:17: warning: German text of rules.yaml (`sections[0].body@de[2].callout.text`) was written for "
        f"an older English text: the `body[2].callout.text` it translates changed since; {mark}",
        f"{face}:12:5: warning: German text of template g/face (`elements[1].text@de`) was written for an older "
        f"English text: the `text:` it translates changed since; {mark}"]
    _build(root, tmp_path)
    assert len(_stale(root, tmp_path)) == 3          # a build keeps the records of stale translations
    _edit(rules, "          - \"Spiele eine.\"", "          - \"Spiele eine Karte.\"")
    _build(root, tmp_path)
    assert len(_stale(root, tmp_path)) == 2          # edited since: made from the current source

