"""Game 601: the counts and cards its rules document states."""
from pathlib import Path

import pytest

from cardgen.core.errors import Report
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def game():
    return load_game(ROOT / "cards" / "game-601", ROOT, Report())


def test_action_deck_counts(game):
    actions = game.deck("Action")
    counts = {c.name: c.count for c in actions.cards}
    assert counts.pop("Digging") == 6
    assert counts.pop("Give a Speech") == 4
    assert sorted(counts) == ["Accept Bribes", "Assassination", "Bribe", "Explore in Depth", "Flashlight",
                              "Theft", "Transaction", "Treatment", "Unreasonable Clause"]
    assert set(counts.values()) == {3}
    assert actions.count == 37
    # the rules give no text for Give a Speech
    assert "todo" in next(c for c in actions.cards if c.name == "Give a Speech").fields


def test_the_ten_events(game):
    limits = {c.name: c.fields.get("limit", "") for c in game.deck("Event").cards}
    assert limits == {
        "Abandoned Camp": "Abyss", "Be Theft": "", "Earthquake": "Abyss", "Excavation": "Abyss",
        "Flooding": "Abyss", "Forgotten Treasure": "Abyss", "Riot": "City", "Safe": "",
        "Short of Resource": "City", "Traffic Jam": "City"}


def test_partners_and_identities(game):
    partners = {c.name: (c.fields["cost"], c.fields["hp"]) for c in game.deck("Partner").cards}
    assert partners == {"Homeless": (1, 2), "Ordinary Citizen": (2, 3), "Trained Person": (4, 5),
                        "Guardian": (6, 8)}
    ids = game.deck("Identity").cards
    assert [c.name for c in ids] == ["Adventurer", "Employer", "Leader of Secret Association"]
    assert all(len(c.fields["abilities"]) == 2 for c in ids)


def test_treasure_and_player_card(game):
    (treasure,) = game.deck("Treasure").cards
    assert treasure.count == 1 and "todo" not in treasure.fields   # its text is known; only the count is not
    entry = game.rules.component_names()["Treasure"]
    assert "no count" in entry.silent
    assert ":ap: AP +2" in treasure.fields["text"] and ":rp: RP +1" in treasure.fields["text"]
    (player,) = game.deck("Player").cards
    assert (player.fields["ap"], player.fields["rp"], player.fields["treasures"]) == (10, 0, 0)


def test_components_name_every_deck(game):
    comps = game.rules.components
    assert {n for c in comps if c.item is None for n in c.names} == {d.name for d in game.decks}


def test_layout_has_no_overflow(game):
    report = Report()
    layout_game(game, report)
    assert [str(d) for d in report.items if d.code == "overflow"] == []


def test_the_german_translation_is_whole_and_fits():
    """Game 601 in German (docs/languages.md's worked example): every card translated (nothing printed
    in English for want of a translation), every deck named in German, no German text overflowing."""
    report = Report()
    german = load_game(ROOT / "cards" / "game-601", ROOT, report, lang="de")
    assert [(c.name, c.untranslated) for d in german.decks for c in d.cards if c.untranslated] == []
    assert [d.title for d in german.decks] == ["Identität", "Partner", "Aktion", "Ereignis", "Schatz", "Spieler"]
    assert german.title == "Spiel 601"
    digging = next(c for c in german.deck("Action").cards if c.name == "Digging")
    assert (digging.title, digging.fields["limit"]) == ("Graben", "Abyss")     # (the limit a key, not a word)
    layout_game(german, report)
    assert [str(d) for d in report.items if d.severity != "note" and d.code != "count-silent"] == []

