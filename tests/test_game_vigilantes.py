"""Vigilantes: the decks its rules describe, one placeholder per described card, laid out cleanly."""
from pathlib import Path

import pytest

from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def game():
    return load_game(ROOT / "cards" / "vigilantes", ROOT, Report())


def test_every_deck_the_rules_list(game):
    assert [d.name for d in game.decks if d.kind == "card"] == [
        "Vigilante", "Vigilante Ability", "Vigilante Gadget", "Villain", "Villain Ability",
        "Henchmen", "Event", "Reward"]


def test_one_henchman_card_per_type_with_activation_order(game):
    hench = game.deck("Henchmen")
    kinds = {c.fields["kind"]: c.fields["order"] for c in hench.cards}
    # villains act first, then fast, special, normal, strong (heavy) henchmen
    assert kinds == {"Fast": 2, "Special": 3, "Normal": 4, "Heavy": 5}
    assert hench.count == 4


def test_no_card_is_invented(game):
    # the rules name no vigilante, villain, event, reward, gadget or ability: each deck holds
    # one placeholder, marked as such and with its missing text stated
    for deck in [d for d in game.decks if d.kind == "card"]:
        for card in deck.cards:
            assert card.count == 1
            assert card.fields.get("placeholder") is True, card.name
            assert card.fields.get("todo"), card.name
            assert "text" not in card.fields


def test_components_cover_every_deck_and_the_booklet(game):
    comps = game.rules.components
    decks = {n for c in comps if c.item is None for n in c.names}
    assert decks == {d.name for d in game.decks if d.kind == "card"}
    assert all(c.silent for c in comps if c.item is None)
    items = {c.item for c in game.rules.items()}
    assert {"Location Booklet", "Attack dice", "Health dice", "Energy dice", "Charge tokens"} <= items
    # the tokens it makes: each an item of the list; objective and alarm tokens are two-sided
    made = {d.name: d for d in game.decks if d.kind != "card"}
    assert set(made) == {"Objective tokens", "Alarm token", "Starting player token", "Turn token", "Threat token",
                         "Enemy pieces", "Vigilante pieces", "Item tokens", "Charge tokens", "Permanent Stickers",
                         "Location Booklet", "Attack dice"}
    assert set(made) <= items
    for two_sided in ("Objective tokens", "Alarm token"):
        deck = made[two_sided]
        assert deck.backs and all(c.back_fields["label"] != c.fields["label"] for c in deck.cards)
    assert made["Objective tokens"].cards[0].fields["placeholder"] is True     # no count given: 4 is marked
    # "Attack dice have 3 different faces: Plus, Blank, Minus": how many of each, and how many dice,
    # are placeholders, marked
    dice = made["Attack dice"]
    assert dice.kind == "die" and len(dice.cards) == 6 and dice.pieces == 6
    assert [c.name.split()[0] for c in dice.cards] == ["Plus", "Plus", "Blank", "Blank", "Minus", "Minus"]
    assert all(c.fields["placeholder"] is True and "placeholder" in c.fields["todo"] for c in dice.cards)
    assert {e.item: e.bought for e in game.rules.items() if e.bought} == {
        "Health dice": "standard six-sided dice", "Energy dice": "standard six-sided dice",
        "Card Storage Box": "a box for the cards and pieces (cardgen's tuck boxes hold the decks)",
        "Card Dividers": "card dividers, one per villain and vigilante"}
    assert made["Location Booklet"].kind == "board"


def test_layout_has_no_overflow_and_stat_slots(game):
    report = Report()
    rendered = layout_game(game, report)
    assert [d for d in report.items if d.code == "overflow"] == []
    faces = {card.name: face for _, card, face in rendered.faces}

    def texts(face):
        return [" ".join(str(r.content).strip() for r in op.runs if r.kind == "text") for op in face.ops
                if isinstance(op, ops.Text)]

    # unknown stats print a "?" slot; the kind line gives the activation order
    assert texts(faces["Villain"]).count("?") == 3
    assert any("ACTIVATES 2ND" in t for t in texts(faces["Fast Henchman"]))
    assert any("TEXT TO COME" in t for t in texts(faces["Reward"]))
