"""Games, decks and cards as loaded from YAML; per-card backs; `cardgen list`."""
from __future__ import annotations

import pytest
from conftest import REPO, run_cli, write

from cardgen.core.errors import CardgenError, Report
from cardgen.load.yamlsrc import load_text
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game


def test_every_value_keeps_its_source_line():
    data = load_text("deck: X\ncards:\n  - name: A\n    cost: 3\n  - name: B\n", "d.yaml")
    assert data.value_loc("deck").line == 1
    cards = data["cards"]
    assert cards.item_loc(1).line == 5
    assert cards[0].value_loc("cost").line == 4 and cards[0].value_loc("cost").col == 11


def test_duplicate_keys_are_errors():
    with pytest.raises(CardgenError, match=r"d.yaml:2:1: error: duplicate key 'a' \(first at line 1\)"):
        load_text("a: 1\na: 2\n", "d.yaml")


def test_yaml_tags_that_run_code_are_refused():
    with pytest.raises(CardgenError, match="is not allowed"):
        load_text("a: !!python/object/apply:os.system ['echo hi']\n", "d.yaml")


def test_count_defaults_to_one_and_deck_defaults_apply(tiny_game):
    root = tiny_game("defaults: {kind: Basic}\ncards:\n  - {name: A}\n  - {name: B, count: 4, kind: Rare}\n")
    game = load_game(root, REPO, Report())
    deck = game.decks[0]
    assert [c.count for c in deck.cards] == [1, 4] and deck.count == 5
    assert [c.fields["kind"] for c in deck.cards] == ["Basic", "Rare"]


def test_per_card_backs_use_the_cards_back_fields(tiny_game):
    root = tiny_game("cards:\n  - {name: A, color: '#ff0000', back: {color: '#0000ff'}}\n  - {name: B}\n")
    write(root / "deck.yaml", "deck: Two-sided\ntemplate: tiny/face\nbacks: tiny/face\n"
          "cards:\n  - {name: A, color: '#ff0000', back: {color: '#0000ff', name: A back}}\n  - {name: B}\n")
    game = load_game(root, REPO, Report())
    rendered = layout_game(game, Report())
    deck = game.decks[0]
    backs = [rendered.back_of(deck, c) for c in deck.cards]
    assert backs[0] is not backs[1]
    assert backs[0].ops[0].fill == (0.0, 0.0, 1.0, 1.0)
    assert backs[0].ops[1].runs[0].content == "A"


def test_a_deck_with_both_back_kinds_is_an_error(tiny_game):
    root = tiny_game()
    write(root / "deck.yaml", "deck: X\ntemplate: tiny/face\nback: tiny/back\nbacks: tiny/face\ncards:\n  - name: A\n")
    with pytest.raises(CardgenError, match="has both `back:`"):
        load_game(root, REPO, Report())


def test_cardgen_list_shows_decks_and_counts(tiny_game):
    root = tiny_game()
    code, out, _ = run_cli("list", str(root))
    assert code == 0
    assert out.splitlines() == [
        "tiny: Tiny (3 cards)",
        "  Things: 3 cards, 2 distinct, poker (63.5x88.9 mm), template tiny/face",
    ]


def test_the_operations_repr_lists_every_field_as_dataclasses_writes_it():
    """`layout_digest` hashes the operations' `repr`; it is dataclasses' own, unwrapped from
    its guard against a value holding itself (`ops._plain_reprs`): every field, in order."""
    import dataclasses

    from cardgen.model import ops

    run = ops.Run(1.5, 2.0, "text", "Fox", "Lato-Regular", 9.0, (0.0, 0.5, 1.0, 1.0), 12.25, 0.1, "\ue000")
    text = ops.Text(0.0, 1.0, 50.0, 20.0, (run, run), 9.0, False, 90.0, "title", None, (1.0, 1.0, 1.0, 1.0), 0.5)
    for op in (run, text, ops.Rect(1.0, 2.0, 3.0, 4.0, fill=(1.0, 0.0, 0.0, 1.0)), ops.CardLayout(180.0, 252.0, 9.0, [text])):
        fields = ", ".join(f"{f.name}={getattr(op, f.name)!r}" for f in dataclasses.fields(op) if f.repr)
        assert repr(op) == f"{type(op).__qualname__}({fields})"
        assert not hasattr(type(op).__repr__, "__wrapped__")
    assert repr(text).count("Run(x=1.5, baseline=2.0, kind='text', content='Fox'") == 2
