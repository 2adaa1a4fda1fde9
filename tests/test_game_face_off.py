"""Face Off as data: the counts and named cards of its rules document
(../shared/seeds/004_001ce7bdb4e16086.txt), checked against cards/face-off/."""
from collections import Counter
from pathlib import Path

import pytest

from cardgen.core.errors import Report
from cardgen.load.yamlsrc import load_file
from cardgen.model.ops import Text
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game

PROJECT = Path(__file__).resolve().parent.parent
GAME = PROJECT / "cards" / "face-off"
FACTIONS = ["Monsters", "Cowboys", "Ninjas", "Pirates"]
KINDS = {"Starter", "Power", "Market", "VC", "VC (7)", "HQ", "HQ Reward", "HQ Assault", "Bonus", "Scrubs",
         "Timing"}

# "Faction cards (26+ cards) for each Faction"
FACTION_KINDS = {"Starter": 12, "Power": 4, "Market": 1, "VC": 6, "VC (7)": 1, "HQ": 1, "HQ Reward": 1}
# "Heathen House (103 non-faction cards)", itemized (the items add up to 98)
HEATHEN_KINDS = {"VC": 6, "VC (7)": 1, "HQ": 1, "HQ Reward": 1, "HQ Assault": 10, "Bonus": 10, "Power": 20,
                 "Market": 9, "Scrubs": 30, "Timing": 10}

# every card the document names, with the faction it belongs to
NAMED = {
    "Billy the Kid": "Cowboys", "Banner": "Cowboys", "Red Ryder": "Cowboys",
    "Tomo Sukesada": "Ninjas", "Goemon's Chain Whip": "Ninjas", "Tamoe Gozen": "Ninjas",
    "The Mystical Book of Ninja Secrets": "Ninjas",
    "Aristotle": "Heathen House", "Dracula": "Heathen House", "Truth Gun": "Heathen House",
    "A Haunting Presence": "Heathen House", "Heathen House": "Heathen House",
}


@pytest.fixture(scope="module")
def game():
    report = Report()
    g = load_game(GAME, PROJECT, report)
    assert report.items == []
    return g


def kinds(deck) -> Counter:
    c = Counter()
    for card in deck.cards:
        c[card.fields["kind"]] += card.count
    return c


def card(game, name):
    return next(c for d in game.decks for c in d.cards if c.name == name)


def test_decks_are_the_four_factions_and_heathen_house(game):
    assert sorted(d.name for d in game.decks if d.kind == "card") == sorted([*FACTIONS, "Heathen House"])


def test_vp_tokens_and_the_first_player_marker_are_made(game):
    """"give each player 10 vp tokens" (the bank's size is not given: a placeholder count, marked);
    "the first player marker is passed to the left"."""
    vp, first = game.deck("VP tokens"), game.deck("First player marker")
    assert (vp.kind, vp.size.shape, vp.count) == ("token", "round", 50)
    assert vp.cards[0].fields["placeholder"] is True and vp.cards[0].fields["note"]
    assert vp.cards[0].fields["value"] == "1"           # "VP Tokens are worth one point apiece"
    assert (first.kind, first.count) == ("token", 1)


@pytest.mark.parametrize("faction", FACTIONS)
def test_faction_deck_has_26_cards_by_kind(game, faction):
    deck = game.deck(faction)
    assert deck.count == 26
    assert kinds(deck) == Counter(FACTION_KINDS)
    assert {c.fields["faction"] for c in deck.cards} == {faction}


def test_heathen_house_keeps_its_itemized_98_cards(game):
    deck = game.deck("Heathen House")
    assert kinds(deck) == Counter(HEATHEN_KINDS)
    assert deck.count == sum(HEATHEN_KINDS.values()) == 98


def test_every_card_has_a_known_kind(game):
    for deck in [d for d in game.decks if d.kind == "card"]:
        for c in deck.cards:
            assert c.fields.get("kind") in KINDS, (deck.name, c.name)


def test_component_list_states_the_document_numbers():
    rules = load_file(GAME / "rules.yaml")
    factions, heathen = rules["components"][0], rules["components"][1]
    assert factions["decks"] == FACTIONS
    assert factions["total"] == "26+" and factions["by"] == "kind"
    assert dict(factions["groups"]) == FACTION_KINDS
    assert heathen["deck"] == "Heathen House"
    assert heathen["total"] == 103                       # as declared ...
    assert dict(heathen["groups"]) == HEATHEN_KINDS      # ... against parts that add up to 98
    assert sum(heathen["groups"].values()) == 98
    setup = next(b["table"] for s in rules["sections"] if s["title"] == "Set-up" for b in s["body"]
                 if isinstance(b, dict) and "table" in b)
    assert setup["header"] == ["Deck", "2 players", "3 players", "4 players", "5 players", "Special cards"]
    assert setup["rows"][0] == ["Market deck", 5, 6, 5, 4, "A Haunting Presence"]
    assert setup["rows"][1] == ["Power deck", 6, 8, 10, 12, "Aristotle, Dracula, Truth Gun"]
    assert setup["rows"][3] == ["Bonus cards", 3, 4, 5, 6, ""]


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_card_exists_in_its_deck(game, name):
    deck = game.deck(NAMED[name])
    assert name in [c.name for c in deck.cards]


def test_numbers_the_document_gives(game):
    billy = card(game, "Billy the Kid")
    assert (billy.fields["type"], billy.fields["power"], billy.fields["keywords"]) == ("personality", 7, ["Aviator"])
    banner = card(game, "Banner")
    assert (banner.fields["type"], banner.fields["power"], banner.fields["keywords"]) == ("equipment", 5, ["Traveller"])
    assert (card(game, "Tomo Sukesada").fields["power"], card(game, "Tomo Sukesada").fields["type"]) == (2, "personality")
    whip = card(game, "Goemon's Chain Whip")
    assert (whip.fields["power"], whip.fields["combo"], whip.fields["type"]) == (3, "+6", "equipment")
    assert card(game, "Tamoe Gozen").fields["power"] == 4
    assert "Siege" in card(game, "Tamoe Gozen").fields["text"]
    assert "Shelter" in card(game, "Red Ryder").fields["text"]
    assert card(game, "Cowboys VC 7").fields["pieces"] == 3
    assert card(game, "The Mystical Book of Ninja Secrets").fields["kind"] == "VC"
    assert "two cards" in card(game, "Heathen House").fields["text"]
    assert {card(game, n).fields["kind"] for n in ("Aristotle", "Dracula", "Truth Gun")} == {"Power"}
    assert card(game, "A Haunting Presence").fields["kind"] == "Market"
    # the timing numbers the set-up chart uses: 1, 1, 2, 2, 3, 3, 4 and "the numbered 5 card"
    timing = Counter()
    for c in game.deck("Heathen House").cards:
        if c.fields["kind"] == "Timing" and "number" in c.fields:
            timing[c.fields["number"]] += c.count
    assert timing == Counter({1: 2, 2: 2, 3: 2, 4: 1, 5: 1})
    # faction VCs (1-6) carry the values 1-6 (the Ninjas' are not known)
    for f in ("Monsters", "Cowboys", "Pirates"):
        assert sorted(c.fields["value"] for c in game.deck(f).cards if c.fields["kind"] == "VC") == [1, 2, 3, 4, 5, 6]


def test_gaps_are_marked_not_invented(game):
    for deck in game.decks:
        for c in deck.cards:
            f = c.fields
            if f.get("placeholder"):
                assert f.get("note"), c.name          # every placeholder says what is missing
                assert c.name not in NAMED
            elif c.name in NAMED and not f.get("text"):
                assert f.get("todo"), c.name          # a named card with no text is marked to come
    for name in ("Aristotle", "Dracula", "Truth Gun", "A Haunting Presence", "The Mystical Book of Ninja Secrets"):
        assert card(game, name).fields.get("todo")
        assert not card(game, name).fields.get("text")


def test_cards_lay_out_without_overflow_and_nothing_under_6pt(game):
    report = Report()
    rendered = layout_game(game, report)
    assert [d for d in report.items if d.code == "overflow"] == []
    assert report.items == []
    assert len(rendered.copies) == 4 * 26 + 98 + 50 + 1      # and the VP tokens and the first player marker
    layouts = [face for _, _, face in rendered.faces] + rendered.distinct_backs()
    sizes = [run.size for lay in layouts for i, op in enumerate(lay.ops) if isinstance(op, Text)
             and i not in lay.stamp for run in op.runs if run.kind == "text"]     # the version stamp is small
    assert sizes and min(sizes) >= 6
    # placeholders and cards still to be written say so on the card
    texts = {card.name: " ".join(str(run.content) for op in face.ops if isinstance(op, Text) for run in op.runs)
             for _, card, face in rendered.faces}
    assert "PLACEHOLDER" in texts["Cowboys Starter"]
    assert "TEXT TO COME" in texts["Aristotle"]
    assert "Billy" in texts["Billy the Kid"] and "7" in texts["Billy the Kid"]
