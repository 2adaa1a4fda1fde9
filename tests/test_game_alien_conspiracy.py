"""Alien Conspiracy: the investigator, the eight ring locations, the named items, events and aliens."""
from pathlib import Path

import pytest

from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def game():
    return load_game(ROOT / "cards" / "alien-conspiracy", ROOT, Report())


def test_decks(game):
    assert [d.name for d in game.decks] == ["Investigator", "Location", "Item", "Event", "Alien", "Player pieces"]
    pieces = game.deck("Player pieces")          # "Place the player's pieces at the city location (!)"
    assert pieces.kind == "token" and all(c.fields["placeholder"] is True for c in pieces.cards)


def test_eight_locations_in_the_stated_ring(game):
    locs = game.deck("Location").cards
    assert [c.fields["mark"] for c in locs] == ["1", "2", "3", "$", "4", "5", "6", "!"]
    assert game.deck("Location").count == 8
    # a 3x3 ring around an empty middle, walked clockwise from the top left
    cells = [(c.fields["col"], c.fields["row"]) for c in locs]
    assert cells == [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)]
    names = {c.fields["mark"]: c.name for c in locs}
    assert names["$"] == "Convenience Store" and names["!"] == "City"


def test_named_items_only(game):
    assert [c.name for c in game.deck("Item").cards] == ["Phone", "Camera"]


def test_nothing_invented(game):
    # no event card is described: one placeholder, marked; one alien card; one investigator
    events = game.deck("Event").cards
    assert len(events) == 1 and events[0].fields["placeholder"] is True and events[0].fields["todo"]
    assert [c.name for c in game.deck("Alien").cards] == ["Alien"]
    assert [c.name for c in game.deck("Investigator").cards] == ["Investigator"]
    assert all(c.count == 1 for d in game.decks for c in d.cards)


def test_components(game):
    comps = game.rules.components
    assert {n for c in comps if c.item is None for n in c.names} == {d.name for d in game.decks if d.kind == "card"}
    assert all(c.silent for c in comps if c.item is None)
    dice, pieces = game.rules.items()
    assert dice.count.value == 5 and not dice.count.at_least and dice.bought
    assert pieces.item == "Player pieces" and pieces.count is None and pieces.silent


def test_layout(game):
    report = Report()
    rendered = layout_game(game, report)
    assert [d for d in report.items if d.code == "overflow"] == []
    faces = {card.name: face for _, card, face in rendered.faces}
    # five health dice drawn on the investigator, side by side on one row
    dice = [op for op in faces["Investigator"].ops if isinstance(op, ops.Icon)
            and Path(op.path).stem == "perspective-dice-six-faces-random"]
    assert len(dice) == 5 and len({round(op.y, 3) for op in dice}) == 1
    # events and aliens share one back, so an alien cannot be told apart face down
    assert game.deck("Event").back == game.deck("Alien").back
