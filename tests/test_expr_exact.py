"""Template evaluation to the exact value: the steps each operation counts (the time bound is
a count, so a lost or doubled count is a bug), each size check at its limit and one past it,
the messages for a missing field, and cardgen's own `lipsum`. The mutation tests
(tools/mutation_score.py) run these against `layout/expr.py` and `layout/exprbounds.py`."""
from __future__ import annotations

import hashlib
import tracemalloc

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


def takes(source: str, count: int, condition: bool = False) -> bool:
    """Whether `source` evaluates within `count` steps and not within one less: `steps(source) ==
    count` in two evaluations (the mutation tests run these thousands of times)."""
    run = expr.condition if condition else expr.evaluate
    saved = limits.MAX_STEPS
    try:
        limits.MAX_STEPS = count - 1
        try:
            run(source, ctx())
            return False
        except expr.ExprError as exc:
            assert "steps" in str(exc), str(exc)
        limits.MAX_STEPS = count
        run(source, ctx())
        return True
    except expr.ExprError as exc:
        assert "steps" in str(exc), str(exc)
        return False
    finally:
        limits.MAX_STEPS = saved


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
    assert takes(source, count), steps(source)


def test_a_condition_counts_its_steps_too():
    assert takes("card.cost > 2 and -card.cost < 0", 3, condition=True), \
        steps("card.cost > 2 and -card.cost < 0", condition=True)


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
                                    "{{ lipsum(1, false, 10, 1001) }}", "{{ lipsum(1, false, 1001, 5) }}",
                                    "{{ lipsum('2') }}",
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


# Loops of every kind and the filters that go through what they are given: a step a turn or an
# item (a `for` also a step for its call of `counted`), with the small lists of CARD.
LOOP_STEPS = [
    ('{% for k in card.sub %}{{ k }}{% endfor %}', 4),
    ('{% for t in card.tags %}{% if loop.last %}{{ t }}{% endif %}{% endfor %}', 8),
    ('{% for a, b in card.lists %}{{ a }}{% endfor %}', 22),
    ('{% for t in card.tags if t != "y" %}{{ t }}{% endfor %}', 5),
    ('{% for t in card.tags %}{{ t }}{% else %}-{% endfor %}', 5),
    ('{% for a in [card.tags] recursive %}{{ loop(a) if a is not string else a }}{% endfor %}', 6),
    ('{{ card.tags | reverse | list | length }}', 13),
    ('{{ card.tags | batch(2) | list | length }}', 9),
    ('{{ card.tags | slice(2) | list | length }}', 9),
    ("{{ card.many | reject('odd') | list | length }}", 65),
    ("{{ card.many | selectattr('real') | list | length }}", 125),
    ("{{ card.many | rejectattr('real') | list | length }}", 85),
    ("{{ card.many | groupby('real') | length }}", 417),
    ('{{ card.many | max }}', 42),
    ('{{ card.many | min }}', 42),
    ('{{ card.tags | first }}', 2),
    ('{{ card.long | wordcount }}', 11),
    ('{{ card.long | center(700) | length }}', 12),
    ('{{ card.long[:300] | upper | length }}', 7),
    ('{{ (card.long ~ card.long)[:128] | upper | length }}', 7),
    ("{{ card.many | join(',') | length }}", 43),
    ('{{ card.tags | sort | list | length }}', 17),
    ("{{ card.long.count('x') }}", 5),
    ('{{ card.many[3] }}', 2),
    ('{% macro m() %}{{ card.name }}{{ card.name }}{% endmacro %}{{ m() }}', 3),
    ('{% filter upper %}{{ card.name }}{{ card.name }}{% endfilter %}', 3),
    ('{{ card.cost - 1 }}', 2),
    ('{{ card.cost / 2 }}', 2),
    ('{{ card.cost // 2 }}', 2),
    ('{{ card.cost % 2 }}', 2),
    ('{{ card.many + [] }}', 6),
    ('{{ card.many * 1 }}', 6),
]


@pytest.mark.parametrize(("source", "count"), LOOP_STEPS)
def test_each_loop_and_filter_counts_its_turns(source, count):
    assert takes(source, count), steps(source)


# The size each check works out before the text is made: the text's own where it is known
# (`=`), else at least it: a width and its value's size apart, a list as printed, `urlize`'s
# three times the text and 64 a word with its options, `wordwrap` a break per `width` letters.
LEAST_TEXT = [
    ("{% for i in range(20) %}{{ card.long }}{% endfor %}", 12000),                    # =
    ("{% set x %}{% for i in range(2) %}{{ card.long }}{% endfor %}{% endset %}{{ x | length }}", 1200),  # =
    ("{{ '{}{}'.format(card.long, card.long) }}", 1200),                                # =
    ("{{ '{0}{0}'.format(card.long) }}", 1200),                                         # =
    ("{{ '{a}'.format(a=card.long) }}", 600),                                           # =
    ("{{ '{:5}'.format(card.name) }}", 6),
    ("{{ '{}'.format(card.many) }}", 150),                                              # =
    ("{{ '{}'.format(true) }}", 5),
    ("{{ '{}'.format(none) }}", 5),
    ("{{ '{k}{k}'.format_map(card.sub) }}", 3),
    ("{{ card.text | indent(2, true) }}", 14),                                          # =
    ("{{ card.text | indent(width=2, first=true) }}", 14),                              # =
    ("{{ card.text | indent('--', true) }}", 14),                                       # =
    ("{{ card.text | indent }}", 20),                                                   # 4 a line, the first too
    ("{{ card.name | urlize }}", 67),
    ("{{ card.name | urlize(target='xx') }}", 69),
    ("{{ card.name | urlize(target='xx', rel='yyy') }}", 72),
    ("{{ (card.name ~ ' ' ~ card.name) | urlize }}", 137),
    ("{{ card.text | urlize }}", 216),
    ("{{ card.long | wordwrap(100) | length }}", 605),
    ("{{ (card.long * 2) | wordwrap(1000) | length }}", 1201),
    ("{{ card.text | wordwrap(1) }}", 11),                                              # =
    ("{{ card.text | wordwrap(1, wrapstring='--') }}", 16),                             # =
    ("{{ card.text | wordwrap(1, false, '--') }}", 10),                                 # =
    ("{{ (card.name ~ card.name ~ card.name) | wordwrap(1, true, '--') }}", 7),         # =
    ("{{ card.name | center(9) }}", 9),                                                 # =
    ("{{ '\t\t'.expandtabs(300) }}", 602),
    ("{{ '\t\t'.expandtabs(tabsize=300) }}", 602),
    ("{{ ('a\tb').expandtabs(700) }}", 703),
    ("{{ card.long.ljust(1000) | length }}", 1000),
    ("{{ card.name.join(card.tags) }}", 14),                                            # the list, as printed
    ("{{ card.tags | join(card.name) }}", 5),                                           # =
    ("{{ card.tags | join(card.tags) }}", 33),                                          # =
    ("{{ card.lists | join }}", 160),
    ("{{ card.many | join(card.name, attribute='real') | length }}", 151),
    ("{{ card.many | map('string') | join | length }}", 70),
    ("{{ card.tags | tojson(indent=2) }}", 23),                                         # =
    ("{{ card.tags | tojson(2) }}", 23),                                                # =
    ("{{ card.tags | tojson(indent='  ') }}", 23),                                      # =
    ("{{ card.tags | tojson(indent=card.name) }}", 20),                                 # =
    ("{{ [card.tags] | tojson(indent=3) }}", 45),                                       # =
    ("{{ card.tags | pprint }}", 15),                                                   # =
    ("{{ card.lists | pprint }}", 262),
    ("{{ card.many | string }}", 150),                                                  # =
    ("{{ card.lists | sum(start=[]) | string }}", 122),
    ("{{ card.text | replace('', '-') }}", 17),                                         # =
    ("{{ card.text.replace('', '-') }}", 17),                                           # =
    ("{{ card.text.encode().replace(''.encode(), '-'.encode()) | length }}", 17),
    ("{{ card.long.translate({121: 'zz'}) }}", 600),                                    # =
    ("{{ '%s' % card.tags }}", 15),                                                     # =
    ("{{ '%s-%s' % (card.name, card.tags) }}", 26),
    ("{{ '%5s' % card.name }}", 6),
    ("{{ '%.5s' % card.long }}", 605),
    ("{{ '%-5.3s|' % card.long }}", 609),
    ("{{ '%%%s' % card.name }}", 2),                                                    # =
    ("{{ '%c%s' % (66, card.name) }}", 9),
    ("{{ '%(a)s%(b)s' % {'a': card.name, 'b': card.long} }}", 631),
    ("{{ '%-700s|' | format(card.name) }}", 702),
    ("{{ '%(a)700s' | format(a=card.name) }}", 701),
]


@pytest.mark.parametrize(("source", "size"), LEAST_TEXT)
def test_each_text_is_refused_past_the_size_worked_out_for_it(monkeypatch, source, size):
    test_a_text_of_the_limit_is_made_and_one_past_it_is_refused(monkeypatch, source, size)


@pytest.mark.parametrize(("source", "message", "field"), [
    ("{{ card.sub }}!", "`card.sub` is a mapping, which cannot be printed as text; give the field text (or print one "
                        "of its keys: {{ card.sub.KEY }})", "sub"),
    ("{{ deck }}!", "`deck` is a mapping, which cannot be printed as text; give the field text (or print one of its "
                    "keys: {{ deck.KEY }})", None),
    ("{{ {'a': card.cost} }}!", "the expression gives a mapping, which cannot be printed as text; give it text (or "
                                "print one of its keys: {{ x.KEY }})", None),
    ("{{ card.tags }}!", "the expression gives a list, which cannot be printed as text; join it: {{ ... | join(', ') }}",
     None),
    ("{{ (card.cost, 2) }}!", "the expression gives a list, which cannot be printed as text; join it: "
                              "{{ ... | join(', ') }}", None),
    ("{{ card.name.upper }}", "the expression gives a method or function, not text or a number (call it with `()`, "
                              "such as card.name.upper())", None),
    ("{{ card.name.upper }}!", "the expression gives a method or function, not text or a number (call it with `()`, "
                               "such as card.name.upper())", None),
    ("{{ range }}", "the expression gives a class, not text or a number", None),
    ("{{ range }}!", "the expression gives a class, not text or a number", None),
    ("{{ namespace() }}", "the expression gives a Namespace object, not text or a number", None),
    ("{{ range(card.cost) }}", "the expression gives a range of numbers, not text or a number (print its numbers "
                               "with `| join(', ')`, or loop over it with {% for %})", None),
    ("{{ '{0.__class__}'.format(card.cost) }}", "not allowed in a template: '__class__' (names starting with _ are "
                                                "internal)", None),
    ("{{ card._data }}", "not allowed in a template: '_data' (names starting with _ are internal)", None),
    ("{{ card.tags.append }}", "not allowed in a template: 'append' on a list (templates may read card, deck and game "
                               "data but not change it)", None),
    ("{{ {}.update }}", "not allowed in a template: 'update' on a mapping (templates may read card, deck and game "
                        "data but not change it)", None),
    ("{{ card.name.format_map(card.sub, 1) }}", "{{ card.name.format_map(card.sub, 1) }}: TypeError: format_map() "
                                                "takes exactly one argument", None),
    ("{{ card.name.format_map(x=1) }}", "{{ card.name.format_map(x=1) }}: TypeError: format_map() takes exactly one "
                                        "argument", None),
    ("{{ card.cost / 0 }}", "{{ card.cost / 0 }}: ZeroDivisionError: division by zero", None),
    ("{{ card.tags | map('nofilter') | list }}", "\"{{ card.tags | map('nofilter') | list }}\": No filter named "
                                                 "'nofilter'.", None),
    ("{{ 1 + }}", "bad template expression '{{ 1 + }}': unexpected 'end of template'", None),
    ("{% for %}", "bad template expression '{% for %}': Expected an expression, got 'end of statement block'", None),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "the expression nests too deeply; simplify it", None),
    ("{{ '%100001d' % card.cost }}", "a format width of 100,001 is more than 100,000 (limit CARDGEN_MAX_TEXT)", None),
    ("{{ '%100000d' % card.cost }}", "the expression would make a text of 100,002 (more than 100,000); simplify it "
                                     "(limit CARDGEN_MAX_TEXT)", None),
    ("{{ (10 ** 900 + card.cost) * 10 ** 900 }}", "the expression would make a number with more than 1,000 digits; "
                                                  "simplify it (limit CARDGEN_MAX_INT_DIGITS)", None),
    ("{{ card.many * 2500 + card.many * 2500 }}", "the expression would make a list of 200,000 (more than 100,000); "
                                                  "simplify it (limit CARDGEN_MAX_ITEMS)", None),
    ("{{ (card.long * 100) + (card.long * 100) }}", "the expression would make a text of 120,000 (more than 100,000); "
                                                    "simplify it (limit CARDGEN_MAX_TEXT)", None),
    ("{{ card.name.center(100001) }}", "'center': 100,001 is more than 100,000 (limit CARDGEN_MAX_TEXT)", None),
    ("{{ card.name | center(100001) }}", "filter 'center': 100,001 is more than 100,000 (limit CARDGEN_MAX_TEXT)",
     None),
    ("{{ card.name | center(width=100001) }}", "filter 'center': 100,001 is more than 100,000 (limit "
                                               "CARDGEN_MAX_TEXT)", None),
    ("{{ (1).to_bytes(length=100001, byteorder='big') }}", "'to_bytes': 100,001 is more than 100,000 (limit "
                                                           "CARDGEN_MAX_TEXT)", None),
    ("{{ '%*d' % (3, card.cost) }}", "a `*` width in a % format is not allowed in a template; write the width out",
     None),
    ("{{ '%.*f' % (3, card.cost) }}", "a `*` width in a % format is not allowed in a template; write the width out",
     None),
    ("{{ range(card.cost * 2 ** 70) }}", "the expression would make a range of 3,541,774,862,152,233,910,272 (more "
                                         "than 10,000); simplify it (limit CARDGEN_MAX_RANGE)", None),
    ("{{ range(-card.cost * 2 ** 70, 0) }}", "the expression would make a range of 3,541,774,862,152,233,910,272 "
                                             "(more than 10,000); simplify it (limit CARDGEN_MAX_RANGE)", None),
    ("{{ range(10001 + card.cost * 0) }}", "the expression would make a range of 10,001 (more than 10,000); "
                                           "simplify it (limit CARDGEN_MAX_RANGE)", None),
    ("{{ card.tags | sum(start=()) }}", "{{ card.tags | sum(start=()) }}: TypeError: can only concatenate tuple (not "
                                        "\"str\") to tuple", None),
    ("{{ card.name | wordwrap(0) }}", "{{ card.name | wordwrap(0) }}: ValueError: invalid width 0 (must be > 0)", None),
    ("{{ card.name.replace(1, 'x') }}", "{{ card.name.replace(1, 'x') }}: TypeError: replace() argument 1 must be "
                                        "str, not int", None),
    ("{{ card.name | wordwrap('3') }}", "{{ card.name | wordwrap('3') }}: ValueError: invalid width '3' (must be > 0)",
     None),
])
def test_what_a_template_may_not_do_is_said_exactly(source, message, field):
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(source, ctx())
    assert (str(err.value), err.value.field) == (message, field)


def test_a_name_templates_may_not_use_is_refused_by_what_it_is_on():
    """What a new Python adds to a type templates hold is refused with the type's name."""
    env = expr.ENV      # (made when first asked for, which binds Jinja's exceptions: expr.SecurityError)
    for value, kind in (("abc", "text"), (1.5, "float"), ([], "a list"), ({}, "a mapping"), ((1,), "tuple")):
        with pytest.raises(expr.SecurityError) as err:
            env.unsafe_undefined(value, "zz")
        assert str(err.value) == f"'zz' on {kind}"


@pytest.mark.parametrize(("source", "value"), [
    ("{{ card.range | default(3) }}", 3),
    ("{{ range(card.cost, 9, 3) | list }}", [3, 6]),
    ("{{ 6 in range(card.cost, 9, 3) }}", True),
    ("{{ range(10000 + card.cost * 0) | length }}", 10000),
    ("{{ ('<{}>' | e).format(card.name ~ '<') }}", "&lt;A&lt;&gt;"),
    ("{{ '{0:>{1}}'.format(card.name, card.cost) }}", "  A"),
    ("{{ '{k}'.format_map(card.sub) }}", "1"),
    ("{{ '{0.real}|{1[0]}'.format(card.cost, card.tags) }}", "3|x"),     # fields read through the sandbox
    ("{{ '{a.k}'.format_map({'a': card.sub}) }}", "1"),
    ("{{ '%(a)s-%s' | format(a=card.name) if false else '%d%%' | format(card.cost) }}", "3%"),
    ("{{ card.many | sum }}", 780),
    ("{{ card.lists | sum(start=[]) | length }}", 40),
    ("{{ [(1,), (2,)] | sum(start=(card.cost,)) }}", (3, 1, 2)),
    ("{{ card.text | wordwrap(1, wrapstring='|') }}", "a|b|c|d|e|f"),
    ("{{ card.text | wordwrap(1, false, '|') }}", "ab|cd|ef"),
    ("{{ (card.name ~ 'bc-defgh') | wordwrap(6, true, '|') }}", "Abc-|defgh"),            # at the hyphen
    ("{{ (card.name ~ 'bc-defgh') | wordwrap(6, true, '|', false) }}", "Abc-de|fgh"),
    ("{{ card.name | wordwrap }}", "A"),
    ("{{ card.tags | join('-', attribute='upper') if false else card.lists | join(',', attribute=0) }}",
     ",".join(["1"] * 20)),
    ("{{ card.tags | join }}", "xyz"),
    ("{{ (card.cost * 10 ** 997) | string | length }}", 998),
    ("{{ lipsum(1, true, 2, 2) }}", "<p>Dignissim iaculis.</p>"),
    ("{{ card['sub'] ~ '!' }}", "card.sub!"),
    ("{{ (card.cost - 2) ** 5000 }}", 1),                               # 1 and -1 to any power stay small
    ("{{ (2 - card.cost) ** 5001 }}", -1),
    ("{{ ((card.cost - 1) ** 2000) | string | length }}", 603),         # 2,000 bits, within 1,000 digits
    ("{{ ((2 ** 1665 + card.cost - 2) * (2 ** 1665 + 1)) | string | length }}", 1003),   # 3,331 bits: the most                         # a mapping read by key knows where it is
    ("{{ (card.name ~ 'bc') | reverse }}", "cbA"),                      # a text reversed stays a text
    ("{% set x %}{{ card.name }}-{{ card.name }}{% endset %}{{ x }}", "A-A"),
    ("{{ (card.name ~ card.name) | replace('A', 'b', 1) }}", "bA"),
    ("{{ card.name }}-{{ card.cost }}", "A-3"),                         # a template's parts, joined
    ("{% macro m() %}{{ card.name }}{{ card.cost }}{% endmacro %}{{ m() }}", "A3"),
])
def test_what_a_template_gives(source, value):
    assert expr.evaluate(source, ctx()) == value


def test_plain_values_pass_through_and_conditions_take_any_value():
    c = ctx()
    assert expr.evaluate(5, c) == 5 and expr.evaluate("a { b } %", c) == "a { b } %" and expr.evaluate(None, c) is None
    assert [expr.condition(v, c) for v in (None, True, False, 1, 0, [], [0], "card.cost > 2", " {{ card.cost > 5 }} ",
                                           "{{ card.cost }}", "card.sub", "card.name.upper")] == \
        [False, True, False, True, False, False, True, True, False, True, True, True]


@pytest.mark.parametrize(("source", "message"), [
    ("card.cost >", "bad condition 'card.cost >': unexpected 'end of template'"),
    ("card.cost / 0", "condition card.cost / 0: division by zero"),
    ("card.tags.append(1)", "not allowed in a template: 'append' on a list (templates may read card, deck and game "
                            "data but not change it)"),
    ("card.many | sort | length > 1", "condition: the expression takes more than 10 steps (loops too long?); simplify "
                                      "it (limit CARDGEN_MAX_STEPS)"),
])
def test_a_condition_that_cannot_be_worked_out_is_said_exactly(monkeypatch, source, message):
    monkeypatch.setattr(limits, "MAX_STEPS", 10)
    with pytest.raises(expr.ExprError) as err:
        expr.condition(source, ctx())
    assert str(err.value) == message


def test_a_condition_too_deep_to_compile_is_said_shortened():
    source = "(" * 3000 + "1" + ")" * 3000
    with pytest.raises(expr.ExprError) as err:
        expr.condition(source, ctx())
    assert str(err.value) == f"bad condition '{'(' * 196}...: it nests too deeply; simplify it"
    assert expr.check_syntax("{{ " + source + " }}") == f"bad template expression '{{{{ {'(' * 193}...: it nests " \
                                                         "too deeply; simplify it"


def test_syntax_is_checked_for_template_values_only():
    assert expr.check_syntax("{{ x") == "bad template expression '{{ x': unexpected end of template, expected " \
                                        "'end of print statement'."
    assert [expr.check_syntax(v) for v in ("{{ x }}", "{% if x %}y{% endif %}", "a { b", 5, None)] == [None] * 5
    assert [expr.is_dynamic(v) for v in ("{{", "{%", "{ {", "%}", 5, None)] == [True, True, False, False, False, False]


@pytest.mark.parametrize(("source", "reads"), [
    ("{{ card.x }}", True), ("{{ lipsum() }}", True), ("{% for c in card.tags %}{% endfor %}", True),
    ("{{ x", True),                                      # (does not parse: it may read anything)
    ("{{ deck.x ~ game.y }}", False), ("plain card", False), (5, False),
])
def test_a_value_reads_the_card_when_it_names_it(source, reads):
    assert expr.reads_card(source) is reads


ALL = {"deck": None, "game": None}


@pytest.mark.parametrize(("source", "condition", "read"), [
    ("{{ game.version }}", False, {"game": frozenset({"version"})}),
    ("{{ game['title'] ~ deck.name }}", False, {"game": frozenset({"title"}), "deck": frozenset({"name"})}),
    ("{{ game.a.b }} and {{ deck.tags[0] }}", False, {"game": frozenset({"a"}), "deck": frozenset({"tags"})}),
    ("{{ deck.x | default(game.y) }}", False, {"deck": frozenset({"x"}), "game": frozenset({"y"})}),
    ("{{ game.a }}{{ game.b }}", False, {"game": frozenset({"a", "b"})}),
    ("{{ game[card.key] }}", False, {"game": None}),        # any key
    ("{{ game[0] }}", False, {"game": None}),
    ("{{ game.a }}{{ game }}", False, {"game": None}),      # the whole of it, either way round
    ("{{ game }}{{ game.a }}", False, {"game": None}),
    ("{% for k in deck %}{% endfor %}", False, {"deck": None}),
    ("{{ game.a }} trailing", False, {"game": frozenset({"a"})}),
    ("{{ game.a", False, ALL), ("{{ 1 + }}", False, ALL),    # does not parse: anything
    ("{{ card.cost }}", False, {}), ("plain", False, {}), (5, False, {}),
    ("deck.count > 3", True, {"deck": frozenset({"count"})}),
    (" {{ deck.count > 3 }} ", True, {"deck": frozenset({"count"})}),
    ("game", True, {"game": None}), ("true", True, {}),
    ("deck.count >", True, ALL), ("deck.count 3", True, ALL), ("{{ game.a }} x", True, ALL),
])
def test_what_a_value_reads_of_the_deck_and_game(source, condition, read):
    assert expr.data_read(source, condition) == read


def test_records_read_as_their_data():
    record = expr.Record({"name": "Ann", "k": {"x": 1}}, "card")
    assert (repr(record), str(record), len(record), list(record), "k" in record, "x" in record, bool(record)) == \
        ("<card>", "Ann", 2, ["name", "k"], True, False, True)
    assert (str(expr.Record({"k": 1}, "card.sub")), str(expr.Record([1], "card.l")), bool(expr.Record({}, "c"))) == \
        ("card.sub", "card.l", False)
    assert record.k._label == "card.k" and record["k"]._data == {"x": 1} and record.name == "Ann"
    for name in ("nope", "_data_"):
        with pytest.raises(AttributeError) as err:
            getattr(record, name)
        assert err.value.args == (name,)
    with pytest.raises(KeyError):
        record["nope"]


def test_sizes_are_worked_out_without_making_the_text():
    from cardgen.layout import exprbounds as bounds
    assert [bounds._size(v) for v in (True, None, 10 ** 10, 1.5, object(), "abc", b"ab", [1, "ab"],
                                      expr.Record({"name": "abc"}, "x"), expr.Record({}, "x"),
                                      expr.Record([1], "x"))] == [5, 5, 12, 330, 64, 3, 2, 10, 3, 0, 8]
    assert [bounds._text_size(v, 1000) for v in ([1, "ab", [3]], {"a": 1}, "abc", 5, (), [[[]]])] == \
        [19, 16, 3, 0, 2, 13]
    assert bounds._text_size([[1]], 1000, 0, 3) == 17
    assert bounds._text_size(["abc"] * 100, 10) == 14                  # stops once past the budget
    assert bounds._text_size([["a"] * 100], 10) == 17                 # an item within what is left of it
    assert bounds._text_size(expr.Record({"a": "xy"}, "r"), 1000, 1) == 7 and \
        bounds._text_size(expr.Record({"a": "xy"}, "r"), 1000) == 0
    deep: list = []
    sizes = []
    for _ in range(60):
        deep = [deep]
        sizes.append(bounds._text_size(deep, 10 ** 6))
    assert sizes[48:52] == [1423, 1477, 1530, 1530] and sizes[-1] == 1530   # no deeper than 50 levels counted
    assert bounds._printf_size("%5d|%.3f|%c|%%|%3%|%(k)s", {"k": "abcd"}) == 47
    assert bounds._printf_size(b"ab%s", ("xyz",)) == 5
    assert bounds._printf_size("%s%s%s", ("a", "bb", "ccc")) == 6
    assert bounds._printf_size("%(z)s|%(k)s", {"k": "abcd"}) == 10            # a key not given: as None
    assert bounds._printf_size("%s%s", "xy") == 7                       # one value; the missing one as None
    assert bounds._translated_size("xxy", [None] * 120 + ["abc"]) == 7
    assert bounds._translated_size("xxy", {"x": "abc", 120: 5, -1: "ab", 0x110000: "ab"}) == 3
    assert bounds._translated_size("xxy", expr.Record({120: "abcd"}, "t")) == 9
    assert bounds._translated_size("xxy", 7) == 3


def test_a_translation_table_counts_every_longer_replacement(monkeypatch):
    from cardgen.layout import exprbounds as bounds
    assert bounds._translated_size("a\0b", {0: "xyz"}) == 5             # character 0 is a character too
    assert bounds._translated_size("xxy", {120: "ab"}) == 5
    assert bounds._translated_size("xxy", {120: "a"}) == 3
    monkeypatch.setattr(limits, "MAX_TEXT", 3)
    assert bounds._translated_size("ab", {97: "xy", 98: "xy"}) == 4    # counted on past the limit, not stopped at it


@pytest.mark.parametrize("source", ["{{ card.many ~ card.name }}", "{{ card.many }}!"])
def test_a_list_printed_in_a_concatenation_is_refused_before_it_is_printed(monkeypatch, source):
    monkeypatch.setattr(limits, "MAX_TEXT", 100)
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(source, ctx())
    assert str(err.value) == "the expression would make a text of more than 100 characters (from a list or mapping " \
                             "this large); simplify it (limit CARDGEN_MAX_TEXT)"


def test_a_missing_value_without_a_name():
    with pytest.raises(expr.MissingField) as err:
        expr.evaluate("{% for t in card.tags %}{{ loop.previtem }}{% endfor %}", ctx())
    assert (str(err.value), err.value.name, err.value.owner) == ("template has no field '?'", "?", "template")


def test_the_text_one_value_makes_in_all_is_bounded_at_twenty_times_the_limit(monkeypatch):
    """Each concatenation's text counts (a `~` of two parts too), up to 20 times CARDGEN_MAX_TEXT."""
    monkeypatch.setattr(limits, "MAX_TEXT", 601)
    source = "{% for i in range(N) %}{% set x = card.long ~ card.name %}{% endfor %}ok"
    assert expr.evaluate(source.replace("N", "20"), ctx()) == "ok"               # 20 times 601 characters
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(source.replace("N", "21"), ctx())
    assert str(err.value) == "the expression makes more than 12,020 characters of text in all (20 times " \
                             "CARDGEN_MAX_TEXT); simplify it"


@pytest.mark.parametrize(("text", "old", "new", "size"), [
    ("xxa", "x", "yy", 5), ("xxa", "x", "", 1), ("ab", "", "-", 5), ("", "", "--", 2), (b"xxa", b"x", b"yyy", 7),
    (b"ab", b"", b"-", 5),
])
def test_a_replacement_is_refused_before_it_is_made_past_the_limit(monkeypatch, text, old, new, size):
    """The size `_check_replace` works out is the replaced text's, exactly (the check made before
    the text is: a later check of the text made would say the same, too late)."""
    from cardgen.layout import exprbounds as bounds
    assert len(text.replace(old, new)) == size
    monkeypatch.setattr(limits, "MAX_TEXT", size)
    bounds._check_replace(text, old, new)
    monkeypatch.setattr(limits, "MAX_TEXT", size - 1)
    with pytest.raises(bounds.LimitError, match="CARDGEN_MAX_TEXT"):
        bounds._check_replace(text, old, new)


def test_a_replacement_of_mismatched_types_is_left_to_python(monkeypatch):
    from cardgen.layout import exprbounds as bounds
    monkeypatch.setattr(limits, "MAX_TEXT", 0)
    for args in (("ab", b"a", "y"), ("ab", "a", b"y"), (b"ab", "a", b"y"), (["a"], "a", "y"), ("ab",), ("ab", "a")):
        bounds._check_replace(*args)


def test_the_text_a_condition_makes_is_bounded_as_a_value_is(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TEXT", 601)
    twenty = "[" + ", ".join(["card.long ~ card.name"] * 20) + "] | length == 20"
    assert expr.condition(twenty, ctx()) is True                                  # 20 times 601 characters
    with pytest.raises(expr.ExprError, match=r"^condition: the expression makes more than 12,020 characters"):
        expr.condition(twenty.replace("[", "[card.name ~ card.name, "), ctx())


def test_a_size_is_counted_only_just_past_the_limit(monkeypatch):
    """`_size` stops counting a list (or a record's name) as soon as it passes CARDGEN_MAX_TEXT:
    each item of ["a", ...] is 4 more (2, 6, 10, 14, ...)."""
    from cardgen.layout import exprbounds as bounds
    for value in (["a"] * 100, expr.Record({"name": ["a"] * 100}, "r")):
        monkeypatch.setattr(limits, "MAX_TEXT", 9)
        assert bounds._size(value) == 14
        monkeypatch.setattr(limits, "MAX_TEXT", 8)
        assert bounds._size(value) == 10


def test_a_format_is_refused_at_the_field_that_passes_the_limit(monkeypatch):
    """The fields formatted so far add up: the sixth 600-character field passes 3,000 and is
    refused before it is made, not the whole 600,000-character text after."""
    monkeypatch.setattr(limits, "MAX_TEXT", 3000)
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate("{{ ('{0}' * 1000).format(card.long) }}", ctx())
    assert str(err.value) == "the expression would make a text of 3,600 (more than 3,000); simplify it (limit " \
                             "CARDGEN_MAX_TEXT)"


# Texts and lists these would make (3 to 60 MB) from values within the limits: refused before
# they are made, as the memory the evaluation took shows (under 1 MB each). A check after the
# value is made would say the same words, too late.
TEXT = "the expression would make a text of {} (more than 100,000); simplify it (limit CARDGEN_MAX_TEXT)"
LIST = "the expression would make a list of {} (more than 100,000); simplify it (limit CARDGEN_MAX_ITEMS)"
DIGITS = "the expression would make a number with more than 1,000 digits; simplify it (limit CARDGEN_MAX_INT_DIGITS)"
INDENTED = "the expression would make a text of more than 100,000 characters (from a list or mapping this large, " \
           "indented); simplify it (limit CARDGEN_MAX_TEXT)"
TOO_LARGE = [
    ('{{ card.long * 100000 }}', TEXT.format("60,000,000")),
    ('{{ 100000 * card.long }}', TEXT.format("60,000,000")),
    ('{{ card.many * 1000000 }}', LIST.format("40,000,000")),
    ('{{ card.long.encode() * 100000 }}', TEXT.format("60,000,000")),
    ("{{ card.long.replace('x', card.long * 100) }}", TEXT.format("36,000,000")),
    ("{{ card.long | replace('x', card.long * 100) }}", TEXT.format("36,000,000")),
    ("{{ card.long.encode().replace('x'.encode(), (card.long * 100).encode()) }}", TEXT.format("36,000,000")),
    ('{{ card.long.translate({120: card.long * 100}) }}', TEXT.format("36,000,000")),
    ('{{ card.long.translate([none] * 120 + [card.long * 100]) }}', TEXT.format("36,000,000")),
    ("{{ ('\t' * 900).expandtabs(10000) }}", TEXT.format("9,000,900")),
    ("{{ ('\t' * 900).encode().expandtabs(10000) }}", TEXT.format("9,000,900")),
    ("{{ (card.long * 150).join(card.many | map('string')) }}", TEXT.format("3,510,070")),
    ("{{ (card.long * 150).join(card.many | map('string') | list) }}", TEXT.format("3,510,070")),
    ('{{ card.many | join(card.long * 150) }}', TEXT.format("3,510,112")),
    ("{{ card.many | map('string') | join(card.long * 150) }}", TEXT.format("3,510,070")),
    ('{{ card.long | wordwrap(1, wrapstring=card.long * 100) }}', TEXT.format("35,940,000")),
    ('{{ (card.text * 100) | indent(card.long * 100) }}', TEXT.format("12,060,800")),
    ('{{ (card.text * 100) | indent(card.long * 100, true) }}', TEXT.format("12,060,800")),
    ('{{ (card.lists * 10) | tojson(indent=9000) }}', INDENTED),
    ('{{ (card.lists * 10) | tojson(9000) }}', INDENTED),
    ("{{ (card.lists * 10) | tojson(indent=' ' * 9000) }}", INDENTED),
    ("{{ ('{0}' * 900).format(card.long * 100) }}", TEXT.format("120,000")),
    ("{{ ('{a}' * 900).format_map({'a': card.long * 100}) }}", TEXT.format("120,000")),
    ("{{ ('%(a)s' * 900) % {'a': card.long * 100} }}", TEXT.format("54,000,000")),
    ("{{ ('%(a)s' * 900) | format(a=card.long * 100) }}", TEXT.format("54,000,000")),
    ('{{ ([card.many * 2500] * 30) | sum(start=[]) }}', LIST.format("200,000")),
    ("{{ '%099999d' * 900 % ((card.cost,) * 900) }}", TEXT.format("90,000,900")),
    ('{{ (card.cost - 1) ** 100000000 }}', DIGITS),
    ('{{ (10 ** 900 + card.cost) ** 10000 }}', DIGITS),
]


@pytest.mark.parametrize(("source", "message"), TOO_LARGE)
def test_what_would_pass_the_limits_is_refused_before_it_is_made(source, message):
    tracemalloc.start()
    try:
        with pytest.raises(expr.ExprError) as err:
            expr.evaluate(source, ctx())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (str(err.value), peak < 2_000_000) == (message, True), peak


def test_a_nested_mapping_printed_is_named_by_its_whole_field():
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate("{{ card.a.b }}!", expr.context({"a": {"b": {"c": 1}}}, {}, {}))
    assert (str(err.value), err.value.field) == (
        "`card.a.b` is a mapping, which cannot be printed as text; give the field text (or print one of its keys: "
        "{{ card.a.b.KEY }})", "a.b")


def test_a_block_of_two_parts_or_more_counts_in_the_text_made_in_all(monkeypatch):
    """What a block joins counts in the text one value makes (the `~` of
    test_the_text_one_value_makes_in_all_is_bounded_at_twenty_times_the_limit); a block of one
    part makes no new text."""
    monkeypatch.setattr(limits, "MAX_TEXT", 601)
    source = "{% for i in range(N) %}{% set x %}BODY{% endset %}{% endfor %}ok"
    two, one = source.replace("BODY", "{{ card.long }}{{ card.name }}"), source.replace("BODY", "{{ card.long }}")
    assert expr.evaluate(two.replace("N", "20"), ctx()) == expr.evaluate(one.replace("N", "21"), ctx()) == "ok"
    with pytest.raises(expr.ExprError, match=r"^the expression makes more than 12,020 characters of text in all"):
        expr.evaluate(two.replace("N", "21"), ctx())


@pytest.mark.parametrize("source", ["{{ card.many | sort | length }}", "{{ card.many | map('string') | join | length }}",
                                    "{{ ''.join(card.many | map('string')) | length }}"])
def test_a_list_read_whole_is_refused_at_one_past_the_limit(monkeypatch, source):
    monkeypatch.setattr(limits, "MAX_ITEMS", 40)
    assert expr.evaluate(source, ctx()) in (40, 70)
    monkeypatch.setattr(limits, "MAX_ITEMS", 39)
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(source, ctx())
    assert str(err.value) == "the expression would make a list of 40 (more than 39); simplify it (limit " \
                             "CARDGEN_MAX_ITEMS)"


def test_an_indent_that_is_not_a_width_is_left_to_the_filter(monkeypatch):
    """`indent` or `tojson` given an indent that is neither a number nor a text adds no size of
    its own: at a limit the text itself fits, the filter says what is wrong (or prints)."""
    monkeypatch.setattr(limits, "MAX_TEXT", 8)
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate("{{ card.text | indent(1.5) }}", ctx())
    assert str(err.value) == "{{ card.text | indent(1.5) }}: TypeError: can't multiply sequence by non-int of type " \
                             "'float'"
    monkeypatch.setattr(limits, "MAX_TEXT", 15)
    assert expr.evaluate("{{ card.tags | tojson(indent=none) }}", ctx()) == '["x", "y", "z"]'


def test_a_template_is_refused_at_the_part_that_passes_the_limit(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TEXT", 11999)
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate("{% for i in range(20) %}{{ card.long }}{% endfor %}", ctx())
    assert str(err.value) == "the expression would make a text of 12,000 (more than 11,999); simplify it (limit " \
                             "CARDGEN_MAX_TEXT)"


@pytest.mark.parametrize(("source", "message"), [
    ("{{ card.cost.format }}", "template has no field 'format'"),
    ("{{ card.sub._hidden }}", "card.sub has no field '_hidden'"),
])
def test_a_name_a_value_does_not_have_is_missing(source, message):
    with pytest.raises(expr.MissingField) as err:
        expr.evaluate(source, ctx())
    assert str(err.value) == message


def test_a_range_of_a_64_bit_number_is_refused_by_its_size():
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate("{{ range(card.cost * 2 ** 62) }}", ctx())
    assert str(err.value) == "the expression would make a range of 13,835,058,055,282,163,712 (more than 10,000); " \
                             "simplify it (limit CARDGEN_MAX_RANGE)"


def test_urlize_counts_a_word_for_an_empty_text(monkeypatch):
    monkeypatch.setattr(limits, "MAX_TEXT", 64)
    assert expr.evaluate("{{ (card.name * 0) | urlize }}", ctx()) == ""
    monkeypatch.setattr(limits, "MAX_TEXT", 63)
    with pytest.raises(expr.ExprError, match=r"^the expression would make a text of 64 \(more than 63\)"):
        expr.evaluate("{{ (card.name * 0) | urlize }}", ctx())


def test_a_cards_mapping_reads_as_a_dict_in_dictsort_items_and_tojson():
    """A card's nested mapping has no `items()` of its own (a card may have a field `items`), yet
    `dictsort`, `items` and `tojson` read it as the mapping it is; its own mappings stay
    read-only views."""
    card = {"name": "A", "stats": {"def": 3, "atk": 2, "more": {"x": 1}}, "items": "a field"}
    assert expr.evaluate("{% for k, v in card.stats | dictsort %}{{ k }}{% endfor %}", ctx(card)) == "atkdefmore"
    assert expr.evaluate("{% for k, v in card.stats | items %}{{ k }}={{ v.x if k == 'more' else v }} "
                         "{% endfor %}", ctx(card)) == "def=3 atk=2 more=1 "
    assert expr.evaluate("{{ card.stats | tojson }}", ctx(card)) == '{"atk": 2, "def": 3, "more": {"x": 1}}'
    assert expr.evaluate("{{ card.items }}", ctx(card)) == "a field"
    with pytest.raises(expr.MissingField) as info:         # (a view: no dict methods to change it by)
        expr.evaluate("{% for k, v in card.stats | items %}{% if k == 'more' %}{{ v.update({}) }}{% endif %}"
                      "{% endfor %}", ctx(card))
    assert str(info.value) == "card.stats.more has no field 'update'"


@pytest.mark.parametrize("source", ["{{ range(3) }}", "{{ range(1, 10, 2) }}"])
def test_a_range_printed_is_said_as_one_with_what_to_write(source):
    with pytest.raises(expr.ExprError) as info:
        expr.evaluate(source, ctx())
    assert str(info.value) == ("the expression gives a range of numbers, not text or a number (print its numbers "
                               "with `| join(', ')`, or loop over it with {% for %})")
    assert expr.evaluate("{{ range(3) | join(', ') }}", ctx()) == "0, 1, 2"


@pytest.mark.parametrize("source", ["{{ card.name }}", "{{card.cost}}", " {{ card.tags }}\n", "{{ card.sub }}",
                                    "{{ card.long }}", "{{ deck.name }}", "{{ game.name }}", "{{ card.nope }}",
                                    "{{ card._data }}", "{{ other.name }}", "{{ card.name  }} "])
def test_one_field_read_as_jinja_reads_it(source, monkeypatch):
    """`{{ card.NAME }}` is read without running Jinja (`expr._field`): the same value, the same
    steps counted and the same error as Jinja's compiled expression gives."""
    def outcome():
        try:
            return "value", expr.evaluate(source, ctx()), steps(source)
        except (expr.ExprError, expr.MissingField) as exc:
            return type(exc).__name__, str(exc), None

    fast = outcome()
    monkeypatch.setattr(expr, "_field", lambda source, ctx: expr._NOT_A_FIELD)
    assert fast == outcome()


@pytest.mark.parametrize("name", ["items", "keys", "get", "values", "copy", "label", "data"])
def test_a_field_named_as_a_mapping_method_is_read_as_jinja_reads_it(name, monkeypatch):
    """`expr._field` reads the field itself (`Record[NAME]`, not the attribute lookup that
    fails first), which is what Jinja's `card.NAME` gives for any name a field can have."""
    card = {"name": "A", name: {"k": 1}, "other": 2}

    def outcome():
        value = expr.evaluate(f"{{{{ card.{name} }}}}", ctx(card))
        return value, expr.evaluate("{{ card.other }}", ctx(card)), steps(f"{{{{ card.{name} }}}}", card)

    fast = outcome()
    monkeypatch.setattr(expr, "_field", lambda source, ctx: expr._NOT_A_FIELD)
    assert fast == outcome() == ({"k": 1}, 2, 1)


def test_one_field_read_without_jinja(monkeypatch):
    """The field is read by `expr._field`, and Jinja does not even compile the expression (a
    new game's templates are mostly such reads: compiling them was a tenth of its `validate`);
    a missing field is compiled and run, for Jinja to say what is wrong."""
    compiled = []

    def compile_(source):
        compiled.append(source)
        return "expr", None

    monkeypatch.setattr(expr, "_compile", compile_)
    assert expr.evaluate("{{ card.cost }}", ctx()) == 3
    assert expr.evaluate("{{ card.sub }}", ctx()) == {"k": 1, "j": 2}
    assert expr.check_syntax("{{ card.cost }}") is None and expr.check_syntax(" {{ game.nope }}\n") is None
    assert compiled == []
    with pytest.raises(expr.ExprError, match="TypeError"):    # (no such field: the compiled expression is called)
        expr.evaluate("{{ card.nope }}", ctx())
    assert compiled == ["{{ card.nope }}"]
    assert expr.check_syntax("{{ card.cost + 1 }}") is None and compiled[-1] == "{{ card.cost + 1 }}"


def test_a_field_read_is_judged_by_its_pattern_as_jinja_judges_it():
    """`reads_card` and `data_read` answer a field read (`{{ card.cost }}`, `{{ deck.kind }}`)
    by its pattern, without Jinja (an edit of a game whose templates only read fields imports
    none of it); the answer is the one Jinja's parse of the same read gives (in parentheses,
    which the pattern does not take)."""
    seen = []
    for root in ("card", "deck", "game"):
        for name in ("cost", "not", "true", "None", "x_1", "in"):
            for form in ("{{ %s.%s }}", "{{%s.%s}}", "  {{ %s.%s }}\n"):
                source = form % (root, name)
                parsed = source.replace("{{", "{{ (").replace("}}", ") }}")
                assert expr._field_of(source) == (root, name) and expr._field_of(parsed) is None
                assert (expr.reads_card(source), expr.data_read(source)) == \
                       (expr.reads_card(parsed), expr.data_read(parsed))
                seen.append((expr.reads_card(source), expr.data_read(source)))
    assert seen[0] == (True, {}) and seen[18] == (False, {"deck": frozenset({"cost"})}) \
        and seen[36] == (False, {"game": frozenset({"cost"})})
