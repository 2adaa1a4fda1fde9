"""Alter Ego (rules v6.0) as data: the deck totals and per-type counts the rules document
states, every card it names, placeholders marked as such, and a clean layout."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from cardgen.core.data import DATA
from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

PROJECT = Path(__file__).resolve().parent.parent
GAME = PROJECT / "cards" / "alter-ego"


@pytest.fixture(scope="module")
def game():
    return load_game(GAME, PROJECT, Report())


def by_type(deck) -> Counter:
    out = Counter()
    for c in deck.cards:
        out[c.fields["type"]] += c.count
    return out


def test_decks_present(game):
    assert [d.name for d in game.decks if d.kind == "card"] == ["Hero", "Alter Ego", "Character", "Henchmen",
                                                                "Arch Villain", "Equipment", "Nemesis"]


def test_the_documents_tokens_and_boards_are_made_with_their_counts(game):
    """"4 Player boards", "15 Civilian (CIV) Tokens (5 each of 3 types)", "40 Arch Villain / Penalty
    Tokens"; Teamwork and Money tokens are "XX": placeholders, marked."""
    made = {d.name: d for d in game.decks if d.kind != "card"}
    assert {n: (d.kind, d.count) for n, d in made.items()} == {
        "Civilian (CIV) tokens": ("token", 15), "Arch Villain / Penalty tokens": ("token", 40),
        "Teamwork tokens": ("token", 10), "Money tokens": ("token", 20), "Player boards": ("board", 4)}
    assert sorted(c.count for c in made["Civilian (CIV) tokens"].cards) == [5, 5, 5]
    for name in ("Civilian (CIV) tokens", "Teamwork tokens", "Money tokens", "Player boards"):
        assert all(c.fields.get("todo") for c in made[name].cards), name
    board = made["Player boards"].cards[0]
    assert board.fields["areas"] == ["Income", "Support", "Patrol", "Fight", "Recoup"]


def test_hero_50_cards_10_each_of_5_types(game):
    hero = game.deck("Hero")
    assert hero.count == 50
    types = by_type(hero)
    assert len(types) == 5
    assert set(types.values()) == {10}


def test_alter_ego_75_cards_25_family_job_community(game):
    deck = game.deck("Alter Ego")
    assert deck.count == 75
    assert by_type(deck) == {"Family": 25, "Job": 25, "Community": 25}


def test_character_10_cards(game):
    assert game.deck("Character").count == 10
    assert len(game.deck("Character").cards) == 10


def test_arch_villains_9_cards_of_the_3_named_types(game):
    deck = game.deck("Arch Villain")
    assert deck.count == 9
    types = by_type(deck)
    assert set(types) == {"Sadist", "Anarchist", "Mastermind"}
    assert sum(types.values()) == 9


def test_six_starting_henchmen_three_take_hostages(game):
    deck = game.deck("Henchmen")
    starting = [c for c in deck.cards if c.fields["type"] == "Starting Henchman"]
    assert sum(c.count for c in starting) == 6
    assert sum(c.count for c in starting if c.fields.get("setup_hostages")) == 3


def test_equipment_deck_holds_equipment_and_events(game):
    assert set(by_type(game.deck("Equipment"))) == {"Equipment", "Event"}
    assert game.deck("Nemesis").count >= 1


def test_undescribed_cards_are_marked_placeholders_with_todo(game):
    # The document gives no card texts: nothing may carry invented ability text.
    for deck in [d for d in game.decks if d.kind == "card"]:
        for card in deck.cards:
            assert card.fields.get("placeholder") is True, (deck.name, card.name)
            assert card.fields.get("todo"), (deck.name, card.name)
            assert not card.fields.get("text"), (deck.name, card.name)


def test_rules_component_list_matches_the_document_and_the_data(game):
    rules = yaml.safe_load((GAME / "rules.yaml").read_text(encoding="utf-8"))
    comps = {c.get("deck") or c.get("item"): c for c in rules["components"]}
    assert comps["Hero"]["total"] == 50 and comps["Hero"]["each"] == 10 and comps["Hero"]["types"] == 5
    assert comps["Alter Ego"]["groups"] == {"Family": 25, "Job": 25, "Community": 25}
    assert comps["Character"]["total"] == 10
    assert comps["Arch Villain"]["total"] == 9 and comps["Arch Villain"]["types"] == 3
    for xx in ("Henchmen", "Equipment", "Nemesis"):
        assert comps[xx]["total"] == "tbd"
    assert comps["Henchmen"]["groups"] == {"Starting Henchman": 6}
    assert comps["Player boards"]["count"] == 4
    assert comps["Civilian (CIV) tokens"]["count"] == 15
    assert comps["Arch Villain / Penalty tokens"]["count"] == 40
    assert comps["Teamwork tokens"]["count"] == "tbd" and comps["Money tokens"]["count"] == "tbd"
    # every deck of the game is in the list, and every listed deck exists
    decks = {c["deck"] for c in rules["components"] if "deck" in c}
    assert decks == {d.name for d in game.decks if d.kind == "card"}
    items = {c["item"] for c in rules["components"] if "item" in c}
    assert items == {d.name for d in game.decks if d.kind != "card"}     # each item made by its component file
    for d in [d for d in game.decks if d.kind == "card"]:
        total = comps[d.name]["total"]
        if total != "tbd":
            assert d.count == total


def test_document_icons_are_aliased(game):
    icons = game.data["icons"]
    for name in ("money", "family", "community", "teamwork", "badge", "fight", "trophy", "villain", "civ"):
        assert (DATA / "art" / "icons" / f"{icons[name]}.svg").is_file(), name


def test_every_card_lays_out_without_overflow_or_tiny_text(game):
    report = Report()
    rendered = layout_game(game, report)
    assert [d for d in report.items if d.code == "overflow"] == []
    assert len(rendered.faces) == sum(len(d.cards) for d in game.decks)
    assert len(rendered.backs) == len([d for d in game.decks if d.back])     # one back per deck (tokens: none)
    for _, _, layout in [*rendered.faces]:
        for i, op in enumerate(layout.ops):
            if isinstance(op, ops.Text) and i not in layout.stamp:     # the version stamp is small on purpose
                assert op.size >= 6, layout.key
    cards = [(d, f) for d, _, f in rendered.faces if d.kind == "card"]
    placeholders = [f for _, f in cards
                    if any(getattr(r, "content", None) == "PLACEHOLDER" for op in f.ops if isinstance(op, ops.Text)
                           for r in op.runs)]
    assert len(placeholders) == len(cards)
