"""Template evaluation to the exact value: the steps each operation counts (the time bound is
a count, so a lost or doubled count is a bug), each size check at its limit and one past it,
the messages for a missing field, and cardgen's own `lipsum`. The mutation tests
(tools/mutation_score.py) run these against `layout/expr.py` and `layout/exprbounds.py`."""
from __future__ import annotations

import hashlib

import pytest

from cardgen.core import limits
from cardgen.layout import expr

CARD = {"name": "A", "cost": 3, "tags": ["x", "y", "z"], "sub": {"k": 1, "j": 2}, "long": "x" * 600,
        "many": list(range(40)), "lists": [[1, 2]] * 20, "text": "ab\ncd\nef"}


def ctx(card=None):
    return expr.context(CARD if card is None else card, {"name": "D"}, {"name": "G"})


def steps(source: str, card=None, condition: bool = False) -> int:
    """The fewest steps (CARDGEN_MAX_STEPS) `source` evaluates within."""
    run = expr.condition if condition else expr.evaluate
    lo, hi = 0, 2000
    saved = limits.MAX_STEPS
    try:
        while lo < hi:
            limits.MAX_STEPS = (lo + hi) // 2
            try:
                run(source, ctx(card))
                hi = limits.MAX_STEPS
            except expr.ExprError as exc:
                assert "steps" in str(exc), str(exc)
                lo = limits.MAX_STEPS + 1
    finally:
        limits.MAX_STEPS = saved
    return lo


# Each operation a step; a filter a step and each item it goes through one more (sorting n log n);
# a method or filter reading a text a step per 256 (method) or 64 (filter) characters; a list
# made a step per 16 items. Values from the card's data, so that Jinja cannot work them out
# when it compiles.
STEPS = [
    ('{{ -card.cost }}', 2),
    ('{{ +card.cost }}', 2),
    ('{{ card.cost * 2 }}', 2),
    ('{{ card.cost ** 2 }}', 2),
    ('{{ card.name }}', 1),
    ("{{ card['name'] }}", 1),
    ('{{ card.name.upper() }}', 3),
    ('{{ card.long.upper() | length }}', 6),
    ("{{ card.tags | join(',') }}", 5),
    ('{{ card.tags | length }}', 2),
    ('{{ card.tags | sort | first }}', 13),
    ('{{ card.many | sort | first }}', 297),
    ('{% for t in card.tags %}{{ t }}{% endfor %}', 5),
    ('{% for t in card.tags recursive %}{{ t }}{% endfor %}', 4),
    ("{{ 'a' ~ card.name ~ 'b' }}", 2),
    ("{{ '{:>3}{}'.format(card.cost, card.name) }}", 6),
    ("{{ card.tags | map('upper') | list | length }}", 13),
    ('{{ card.long | upper | length }}', 12),
    ("{{ card.long | replace('x', 'y') | length }}", 12),
    ('{{ card.many | list | length }}', 45),
    ('{{ card.many | reverse | list | length }}', 126),
    ('{% set x %}{{ card.name }}{{ card.name }}{% endset %}{{ x }}', 2),
    ("{{ '%s-%s' % (card.cost, card.name) }}", 3),
    ('{{ card.long | wordwrap(100) | length }}', 19),
    ('{{ card.text | wordwrap(1) | length }}', 12),
    ('{{ card.many | sum }}', 82),
    ('{{ card.lists | sum(start=[]) | length }}', 27),
    ('{{ card.long | trim | length }}', 12),
    ('{{ card.many | unique | list | length }}', 126),
    ('{{ card.sub | length }}', 2),
    ("{{ card.tags | join(',', attribute='x') if false else card.name }}", 1),
    ("{{ card.many | select('odd') | list | length }}", 65),
    ('{{ card.many[:20] | length }}', 2),
    ('{{ card.tags + card.tags }}', 3),
    ('{{ card.long ~ card.long | length }}', 4),
    ('{{ lipsum(1, false, 3, 3) }}', 1),
    ('{{ range(card.cost) | list }}', 6),
    ('{{ card.name.format_map({}) }}', 3),
    ('{{ card.tags | tojson }}', 2),
    ("{{ card.tags.index('y') }}", 3),
    ('{{ card.cost in range(5) }}', 2),
    ('{{ (card.tags * 20) | length }}', 6),
]


@pytest.mark.parametrize(("source", "count"), STEPS)
def test_each_operation_counts_its_steps(source, count):
    assert steps(source) == count


def test_a_condition_counts_its_steps_too():
    assert steps("card.cost > 2 and -card.cost < 0", condition=True) == 3


@pytest.mark.parametrize(("source", "size"), [
    ("{{ card.long.replace('x', 'yy') }}", 1200),
    ("{{ card.long | replace('x', 'yy') }}", 1200),
    ("{{ card.long.replace('', 'y') }}", 1201),
    ("{{ card.long.translate({120: 'yy'}) }}", 1200),
    ("{{ card.long.translate(['y'] * 120 + ['yy']) }}", 1200),
    ("{{ card.long.center(1000) }}", 1000),
    ("{{ '%700s' % card.name }}", 701),          # a width and the size of its value, worked out apart
    ("{{ '%(a)700s' % {'a': card.name} }}", 701),
    ("{{ '%500s%%%c' % (card.name, 65) }}", 503),
    ("{{ '{:>700}'.format(card.name) }}", 701),
    ("{{ 'ab' ~ card.long }}", 602),
    ("{{ card.long + 'ab' }}", 602),
    ("{{ card.long * 2 }}", 1200),
    ("{{ card.tags | join(card.long) }}", 1203),
    ("{{ card.long | indent(2, true) }}", 602),
    ("{{ card.text | wordwrap(1, wrapstring=card.long) | length }}", 3006),   # 5 breaks and the lines, worked out first
])
def test_a_text_of_the_limit_is_made_and_one_past_it_is_refused(monkeypatch, source, size):
    """Each size worked out before the text is made is the text's (a format's: its width and
    its value's size, added): at CARDGEN_MAX_TEXT = size the value is made, at size - 1 refused."""
    monkeypatch.setattr(limits, "MAX_TEXT", size)
    expr.evaluate(source, ctx())
    monkeypatch.setattr(limits, "MAX_TEXT", size - 1)
    with pytest.raises(expr.ExprError, match="CARDGEN_MAX_TEXT"):
        expr.evaluate(source, ctx())


@pytest.mark.parametrize(("source", "items"), [
    ("{{ card.tags * 10 }}", 30),
    ("{{ card.many + card.many }}", 80),
    ("{{ card.lists | sum(start=[]) }}", 40),
    ("{{ card.many | list }}", 40),
])
def test_a_list_of_the_limit_is_made_and_one_past_it_is_refused(monkeypatch, source, items):
    monkeypatch.setattr(limits, "MAX_ITEMS", items)
    expr.evaluate(source, ctx())
    monkeypatch.setattr(limits, "MAX_ITEMS", items - 1)
    with pytest.raises(expr.ExprError, match="CARDGEN_MAX_ITEMS"):
        expr.evaluate(source, ctx())


@pytest.mark.parametrize(("source", "message", "name", "owner"), [
    ("{{ card.nope }}", "card has no field 'nope'", "nope", "card"),
    ("{{ card['nope'] }}", "card has no field 'nope'", "nope", "card"),
    ("{{ card.sub.nope }}", "card.sub has no field 'nope'", "nope", "card.sub"),
    ("{{ nope }}", "template has no field 'nope'", "nope", "template"),
    ("{% if card.nope %}x{% endif %}", "card has no field 'nope'", "nope", "card"),
    ("{{ card.nope + 1 }}", "card has no field 'nope'", "nope", "card"),
    ("{% for x in card.nope %}{{ x }}{% endfor %}", "card has no field 'nope'", "nope", "card"),
    ("{{ card.nope ~ 'x' }}", "card has no field 'nope'", "nope", "card"),
])
def test_a_missing_field_is_named_with_its_owner(source, message, name, owner):
    with pytest.raises(expr.MissingField) as err:
        expr.evaluate(source, ctx())
    assert (str(err.value), err.value.name, err.value.owner) == (message, name, owner)


def test_a_missing_field_in_a_condition():
    with pytest.raises(expr.MissingField, match=r"^deck has no field 'nope'$"):
        expr.condition("deck.nope", ctx())


@pytest.mark.parametrize(("source", "value"), [
    ("{{ card ~ '!' }}", "A!"),                 # a record as text: its name
    ("{{ card.sub ~ '!' }}", "card.sub!"),      # ... or, without one, where it is
    ("{{ 'name' in card }}", True),
    ("{{ 'nope' in card }}", False),
    ("{{ card.sub | length }}", 2),
    ("{{ card.sub | list }}", ["k", "j"]),
    ("{{ 'yes' if card.sub else 'no' }}", "yes"),
    ("{{ 'yes' if card.sub.k else 'no' }}", "yes"),
    ("{{ card.cost in range(4) }}", True),
    ("{{ card.cost in range(3) }}", False),
    ("{{ range(card.cost) | length }}", 3),
    ("{{ -card.cost }}", -3),
    ("{{ +card.cost }}", 3),
    ("{{ card.sub }}", {"k": 1, "j": 2}),       # one expression keeps the value: a mapping stays one
])
def test_records_and_ranges_read_as_data(source, value):
    assert expr.evaluate(source, ctx()) == value


def test_an_empty_record_is_false():
    assert expr.evaluate("{{ 'yes' if card else 'no' }}", expr.context({}, {}, {})) == "no"
    assert expr.evaluate("{{ 'yes' if card else 'no' }}", ctx()) == "yes"


def test_lipsum_is_fixed_text_of_the_size_asked():
    c = ctx()
    assert expr.evaluate("{{ lipsum(2, false, 5, 5) }}", c) == \
        "Ligula senectus nisi dictum vitae.\n\nEt dignissim vivamus curabitur senectus."
    assert expr.evaluate("{{ lipsum(2, true, 3, 8) }}", c) == \
        "<p>Venenatis conubia volutpat dis.</p>\n<p>Pretium sociis sed.</p>"
    assert expr.evaluate("{{ lipsum(1, false, 0, 0) }}", c) == "Eleifend."
    text = expr.evaluate("{{ lipsum() }}", c)         # 5 paragraphs of 20 to 100 words, not HTML
    assert [len(p.split()) for p in text.split("\n\n")] == [75, 57, 26, 70, 46]
    assert hashlib.sha256(text.encode()).hexdigest() == \
        "ff59fe05bb8f62f9c6986ef33d1826faaa5b61e11b4094da8b45a53dc4ee93a1"


@pytest.mark.parametrize("source", ["{{ lipsum(100, false, 1, 2) }}", "{{ lipsum(1, false, 1000, 1000) }}",
                                    "{{ lipsum(1, false, 999, 1000) }}"])
def test_lipsum_at_its_limits(source):
    assert expr.evaluate(source, ctx())


@pytest.mark.parametrize("source", ["{{ lipsum(101) }}", "{{ lipsum(1, false, 1001, 1001) }}",
                                    "{{ lipsum(1, false, 10, 1001) }}", "{{ lipsum('2') }}",
                                    "{{ lipsum(1, false, '3') }}", "{{ lipsum(1, false, 3, '9') }}"])
def test_lipsum_past_its_limits(source):
    with pytest.raises(expr.ExprError, match=r"^lipsum\(\) is limited to 100 paragraphs of at most 1000 words "
                                             r"\(limit CARDGEN_MAX_LIPSUM\)$"):
        expr.evaluate(source, ctx())


def test_a_long_value_is_shortened_in_a_message():
    source = "{{ 1 + card.name }}" + "x" * 300
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(source, ctx())
    assert str(err.value) == source[:197] + "...: TypeError: unsupported operand type(s) for +: 'int' and 'str'"
    assert expr._short("x" * 200) == "x" * 200
    assert expr._short(12345) == "12345"
