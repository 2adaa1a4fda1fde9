"""Games, decks and cards as loaded from YAML; per-card backs; `cardgen list`."""
from __future__ import annotations

from pathlib import Path

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
    """`core.digest.digest` hashes the operations' `repr`; it is dataclasses' own, unwrapped
    from its guard against a value holding itself (`ops._plain_reprs`): every field, in order."""
    import dataclasses

    from cardgen.model import ops

    run = ops.Run(1.5, 2.0, "text", "Fox", "Lato-Regular", 9.0, (0.0, 0.5, 1.0, 1.0), 12.25, 0.1, "\ue000")
    text = ops.Text(0.0, 1.0, 50.0, 20.0, (run, run), 9.0, False, 90.0, "title", None, (1.0, 1.0, 1.0, 1.0), 0.5)
    for op in (run, text, ops.Rect(1.0, 2.0, 3.0, 4.0, fill=(1.0, 0.0, 0.0, 1.0)), ops.CardLayout(180.0, 252.0, 9.0, [text])):
        fields = ", ".join(f"{f.name}={getattr(op, f.name)!r}" for f in dataclasses.fields(op) if f.repr)
        assert repr(op) == f"{type(op).__qualname__}({fields})"
        assert not hasattr(type(op).__repr__, "__wrapped__")
    assert repr(text).count("Run(x=1.5, baseline=2.0, kind='text', content='Fox'") == 2


def test_a_sides_digest_tells_apart_any_change_to_any_field_of_its_operations():
    """`layout_digest` hashes the operations as the layout cache encodes them: equal sides made
    apart have one digest (given their encoding or not), and a side changed in any one field
    of an operation or a text run, even to an equal number of another type (1 and 1.0, 0.0
    and -0.0) or a file path for a text, has another."""
    import dataclasses
    from pathlib import Path

    from cardgen.model import ops

    def side(**change) -> ops.CardLayout:
        run = ops.Run(1.5, 2.0, "text", "Fox", "Lato-Regular", 9.0, (0.0, 0.5, 1.0, 1.0), 12.25, 0.1, "\ue000")
        run = dataclasses.replace(run, **change.get("run", {}))
        text = ops.Text(0.0, 1.0, 50.0, 20.0, (run,), 9.0, False, 90.0, "title", None, (1.0, 1.0, 1.0, 1.0), 0.5)
        text = dataclasses.replace(text, **change.get("text", {}))
        return ops.CardLayout(180.0, 252.0, 9.0, [ops.Rect(1.0, 2.0, 3.0, 4.0, fill=(1.0, 0.0, 0.0, 1.0)), text])

    first = ops.layout_digest(side(), {})
    assert ops.layout_digest(side(), {}) == first
    plain = side()
    assert ops.layout_digest(plain, {}, None, ops.encode_ops(plain.ops)) == first
    changes = [{"run": {"x": 1.25}}, {"run": {"x": 1}}, {"text": {"x": -0.0}}, {"text": {"x": 0}},
               {"run": {"content": "Fix"}}, {"run": {"content": Path("Fox")}}, {"run": {"glyphs": ""}},
               {"run": {"color": (0.0, 0.5, 1.0, 0.5)}}, {"text": {"rotate": 0.0}}, {"text": {"element": "body"}}]
    got = {ops.layout_digest(side(**c), {}) for c in changes}
    assert first not in got and len(got) == len(changes)


def test_a_run_made_quickly_is_a_run_as_its_class_makes_it():
    """`ops.new_run` (the text engine's and the layout cache's way to make a `Run`) gives what
    `Run(...)` gives for any values: the same class, equal, the same hash, repr and encoding,
    still frozen, and `dataclasses.replace` of it a `Run` too."""
    import dataclasses
    import random
    from pathlib import Path

    from cardgen.model import ops

    rng = random.Random(5)
    values = [0.0, -0.0, 1, 2.5, float("inf"), "", "Fox", "\ue000", Path("art/x.svg"), None, (0.0, 0.5, 1.0, 1.0), ()]
    for _ in range(500):
        args = [rng.choice(values) for _ in range(rng.randrange(7, 11))]
        made, quick = ops.Run(*args), ops.new_run(*args)
        assert type(quick) is ops.Run and quick == made and hash(quick) == hash(made) and repr(quick) == repr(made)
        assert ops.encode_ops([ops.Text(0.0, 0.0, 1.0, 1.0, (quick,), 9.0)]) == \
            ops.encode_ops([ops.Text(0.0, 0.0, 1.0, 1.0, (made,), 9.0)])
        with pytest.raises(dataclasses.FrozenInstanceError):
            quick.x = 1.0       # type: ignore[misc]
        assert dataclasses.replace(quick, size=3.0) == dataclasses.replace(made, size=3.0)
    with pytest.raises(TypeError):
        ops.new_run(*range(11))     # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ops.new_run(*range(6))      # type: ignore[arg-type]


def test_an_operations_extent_is_the_box_of_its_corners():
    """`ops.extent` of an operation that is not turned, told from its box's two corners, is
    what the general way (the four corners) gives, for boxes of any sign (-0.0 included)."""
    import random

    from cardgen.model import ops

    rng = random.Random(7)
    numbers = [0.0, -0.0, 1.5, -2.25, 100.0, 3]
    for _ in range(1000):
        x, y, w, h = (rng.choice(numbers) for _ in range(4))
        for op in (ops.Rect(x, y, w, h), ops.Ellipse(x, y, w, h), ops.Placeholder(x, y, w, h, "a"),
                   ops.Icon(Path("a.svg"), x, y, w, h), ops.Text(x, y, w, h, (), 9.0)):
            xs, ys = [x, x + w, x, x + w], [y, y, y + h, y + h]
            got = ops.extent(op)
            assert got == (min(xs), min(ys), max(xs), max(ys))
            assert [repr(v) for v in got] == [repr(v) for v in (min(xs), min(ys), max(xs), max(ys))]


GOOD_NEEDS = ((("F1", "abc"),), (("art/x.svg", True),), ("art/p.png", "art/q.png"),
              ((10.0, 20.0), (1.0, 2.0, 0.0, 0.0, 1.0, 1.0)), (("F1", "ffi"),))


@pytest.mark.parametrize("bad", [
    None, [], GOOD_NEEDS[:4], (*GOOD_NEEDS, ()), (list(GOOD_NEEDS[0]), *GOOD_NEEDS[1:]),
    ((("F1",),), *GOOD_NEEDS[1:]), ((("F1", 3),), *GOOD_NEEDS[1:]), (((1, "a"),), *GOOD_NEEDS[1:]),
    (*GOOD_NEEDS[:4], (("F1", b"x"),)), (*GOOD_NEEDS[:4], ("F1",)),
    (GOOD_NEEDS[0], (("a.svg", 1),), *GOOD_NEEDS[2:]), (GOOD_NEEDS[0], (("a.svg",),), *GOOD_NEEDS[2:]),
    (GOOD_NEEDS[0], ((b"a.svg", True),), *GOOD_NEEDS[2:]), (GOOD_NEEDS[0], ("a.svg",), *GOOD_NEEDS[2:]),
    (*GOOD_NEEDS[:2], ("art/p.png", 3), *GOOD_NEEDS[3:]), (*GOOD_NEEDS[:2], ("art/p.png",), *GOOD_NEEDS[3:]),
    (*GOOD_NEEDS[:3], ((10.0, 20), (1.0, 2.0, 0.0, 0.0, 1.0, 1.0)), GOOD_NEEDS[4]),
    (*GOOD_NEEDS[:3], ((10.0, 20.0, 1.0), (1.0, 2.0, 0.0, 0.0, 1.0, 1.0)), GOOD_NEEDS[4]),
    (*GOOD_NEEDS[:3], ([10.0, 20.0], (1.0, 2.0, 0.0, 0.0, 1.0, 1.0)), GOOD_NEEDS[4]),
])
def test_what_a_side_needs_is_read_back_only_in_the_shape_it_was_kept(bad):
    """`ops.Needs.from_plain` (a kept side's needs, from the layout cache): what `plain` made
    is read back equal; any other shape is None (the side is laid out again)."""
    from cardgen.model.ops import Needs

    needs = Needs.from_plain(GOOD_NEEDS)
    assert needs is not None and needs.plain() == GOOD_NEEDS and Needs.from_plain(needs.plain()) == needs
    assert Needs.from_plain(bad) is None


@pytest.mark.parametrize("fields, back", [
    ({"name": "A", "count": 2, "text": "x"}, None),
    ({"name": "A", "id": 7, "cost": 1.5, "tags": ["a", {"b": None}], 3: "three", True: "yes", None: 0}, None),
    ({"name": "A", "name@de": "Ä", "id@fr": "x", "identity": "kept", "named": 1, "count@de": 4, "x@y": "é"},
     {"name": "A", "count": 1, "art": "b.png", "id": "back-id"}),
    ({"name": "A"}, {}),
])
def test_a_cards_two_hashes_are_digests_of_its_data_with_and_without_its_names(fields, back):
    """`Card.data_hash` and `Card.body_hash` (what revisions follow; kept in the history file)
    are `digest` of its data without `count` and without `count`, `name` and `id` (any
    language's), whatever keys it has: the body's is made from the same plain data."""
    import hashlib
    import json

    from cardgen.core.errors import Loc
    from cardgen.model.game import Card, _plain

    def digest(value):          # (as cardgen has always hashed a card: the history files keep these)
        text = json.dumps(_plain(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    card = Card("A", 1, fields, Loc("d.yaml", 3), 0, fields, back)
    sides = [fields, back]

    def without(*keys):
        return [{k: v for k, v in f.items() if k not in keys and not (isinstance(k, str) and k.partition("@")[0] in keys)}
                if f is not None else None for f in sides]

    assert card.data_hash == digest(without("count"))
    assert card.body_hash == digest(without("count", "name", "id"))
    assert card.body_hash != card.data_hash
    if fields == {"name": "A", "count": 2, "text": "x"}:
        assert (card.data_hash[:12], card.body_hash[:12]) == ("4b33b91088c5", "d298ce388f80")
