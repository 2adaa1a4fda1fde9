"""Template execution is bounded as a class: every operator, filter and method that can make a
text or a list larger than what it is given has its result's size worked out and checked before
it is made (memory measured under a cap), and every loop, over anything, and every filter that
goes through a list counts its turns (time bounded).  The tables in cardgen.layout.expr name
every filter and method templates may use; these tests hold each entry of them."""
from __future__ import annotations

import time
import tracemalloc

import pytest
from conftest import UNDER_MUTMUT
from jinja2.defaults import DEFAULT_FILTERS

from cardgen.core import limits
from cardgen.layout import expr

# bytes traced while one case runs, its card data included (1.4 MB): the texts one value may make
# in all (20 times CARDGEN_MAX_TEXT, 2,000,000 characters) fit; before each size was checked first,
# the cases made from 11 MB (`'%099999d' * 100 % ...`) to 2 GB (`{% filter %}` of 10,000 long texts)
MEMORY_CAP = 8_000_000
TIME_CAP = 5.0 * UNDER_MUTMUT  # seconds of this process's CPU (not wall clock: a loaded machine
#                               does not slow it); each case stops well under 1 s

BIG = "x" * 100_000
LIMIT_WORDS = ("(limit CARDGEN_MAX_", "20 times CARDGEN_MAX_TEXT", "nests too deeply")


def ctx():
    return expr.context({"name": "A", "big": BIG, "tabs": "\t" * 50_000, "lines": "\n" * 50_000,
                         "words": "http://a.b " * 9_000, "many": list(range(10_000)), "set": {1, 2},
                         "table": {120: "y" * 1000}, "rows": [{"n": BIG}] * 100,
                         "map": dict.fromkeys(range(10_000)), "pairs": [(1, 2)] * 10_000},
                        {"name": "D"}, {"name": "G"})


def _run(source: str, trace: bool = True) -> tuple[BaseException | object, int, float]:
    if not trace:
        start = time.process_time()
        try:
            return expr.evaluate(source, ctx()), 0, time.process_time() - start
        except (expr.ExprError, expr.MissingField) as exc:
            return exc, 0, time.process_time() - start
    tracemalloc.start()
    start = time.process_time()
    try:
        try:
            result: BaseException | object = expr.evaluate(source, ctx())
        except (expr.ExprError, expr.MissingField) as exc:
            result = exc
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak, time.process_time() - start


# Each way a template can ask for a text or list larger than its inputs: operators, filters,
# methods of text, bytes and numbers, blocks, and many small texts kept together.
GROWING = {
    # operators
    "* text": "{{ card.big * 100000 }}",
    "* bytes": "{{ card.big.encode() * 100000 }}",
    "* list": "{{ card.many * 100000 }}",
    "+ text": "{% set a = card.big %}{{ a + a }}",
    "+ list": "{{ card.many * 10 + card.many * 10 }}",
    "~": "{{ card.big ~ card.big }}",
    "** int": "{{ 7 ** 10000000 }}",
    "* int": "{{ (10 ** 900) * (10 ** 900) }}",
    "% width": "{{ '%099999d' * 100 % ((1,) * 100) }}",
    "% precision": "{{ ('%.99999f' * 1000) % ((1.0,) * 1000) }}",
    "% text args": "{{ ('%s' * 100) % ((card.big,) * 100) }}",
    "% mapping": "{{ ('%(a)s' * 100) % {'a': card.big} }}",
    "% star width": "{{ '%*d' % (10**9, 1) }}",
    "% star precision": "{{ '%.*f' % (10**5, 1.0) }}",
    "% bytes": "{{ ('%099999d' * 100).encode() % ((1,) * 100) }}",
    # methods of text and bytes
    "str.center": "{{ 'x'.center(10**9) }}",
    "str.ljust": "{{ 'x'.ljust(10**9) }}",
    "str.rjust": "{{ 'x'.rjust(10**9) }}",
    "str.zfill": "{{ 'x'.zfill(10**9) }}",
    "str.expandtabs": "{{ card.tabs.expandtabs(100) }}",
    "str.format width": "{{ '{:>999999999}'.format(1) }}",
    "str.format nested width": "{{ '{:{}}'.format('a', '999999999') }}",
    "str.format fields": "{{ ('{0:>99999}' * 100).format(1) }}",
    "str.format same text": "{{ ('{0}' * 100).format(card.big) }}",
    "str.format_map": "{{ ('{a}' * 100).format_map({'a': card.big}) }}",
    "str.join list": "{{ card.big.join(card.many | map('string') | list) }}",
    "str.join iterator": "{{ card.big.join(card.many | map('string')) }}",
    "str.replace": "{{ card.big.replace('x', 'yy') }}",
    "str.replace empty": "{{ card.big.replace('', 'y') }}",
    "str.translate": "{{ card.big.translate(card.table) }}",
    "str.translate list": "{{ card.big.translate(['y' * 1000] * 200) }}",
    "bytes.center": "{{ 'x'.encode().center(10**9) }}",
    "bytes.ljust": "{{ 'x'.encode().ljust(10**9) }}",
    "bytes.rjust": "{{ 'x'.encode().rjust(10**9) }}",
    "bytes.zfill": "{{ 'x'.encode().zfill(10**9) }}",
    "bytes.expandtabs": "{{ card.tabs.encode().expandtabs(100) }}",
    "bytes.join": "{{ card.big.encode().join(['a'.encode()] * 1000) }}",
    "bytes.replace": "{{ card.big.encode().replace('x'.encode(), 'yy'.encode()) }}",
    "int.to_bytes": "{{ (1).to_bytes(10**9, 'big') }}",
    "bool.to_bytes": "{{ true.to_bytes(10**9, 'big') }}",
    # filters
    "center": "{{ 'x' | center(10**9) }}",
    "format": "{{ '%0999999999d' | format(1) }}",
    "format fields": "{{ ('%099999d' * 100) | format(*((1,) * 100)) }}",
    "indent": "{{ card.lines | indent(10**4, true, true) }}",
    "indent text": "{{ card.lines | indent('y' * 1000, true, true) }}",
    "join": "{{ card.many | join(card.big) }}",
    "join iterator": "{{ card.many | map('string') | join(card.big) }}",
    "join attribute": "{{ (card.rows * 100) | join(attribute='n') }}",
    "join texts": "{{ ([card.big] * 100) | join }}",
    "replace": "{{ card.big | replace('x', 'yy') }}",
    "sum": "{{ ([card.many] * 100) | sum(start=[]) }}",
    "urlize": "{{ card.words | urlize(target='y' * 10000) }}",
    "wordwrap": "{{ card.big | wordwrap(1, wrapstring='y' * 100000) }}",
    "wordwrap width": "{{ card.big | wordwrap(10**9) }}",
    "wordwrap paragraphs": "{{ card.lines | wordwrap(10, wrapstring='y' * 100000) }}",
    "wordwrap words": "{{ card.words | wordwrap(1, false, 'y' * 1000) }}",
    "tojson": "{{ ([card.big] * 100) | tojson }}",
    "pprint": "{{ ([card.big] * 100) | pprint }}",
    "tojson indent": "{{ card.many | tojson(indent=99999) }}",
    "tojson indent text": "{{ card.many | tojson(indent=' ' * 99999) }}",
    "string": "{{ ([card.big] * 100) | string }}",
    "upper": "{{ ([card.big] * 100) | upper }}",
    "xmlattr": "{{ {'a': [card.big] * 100} | xmlattr }}",
    "lipsum": "{{ lipsum(10**6) }}",
    # what blocks make: {% set %}, macros, {% filter %}, {% call %}
    "set block": "{% set x %}{% for i in range(10000) %}{{ card.big }}{% endfor %}{% endset %}{{ x | length }}",
    "macro": "{% macro m() %}{% for i in range(10000) %}{{ card.big }}{% endfor %}{% endmacro %}{{ m() | length }}",
    "filter block": "{% filter upper %}{% for i in range(10000) %}{{ card.big }}{% endfor %}{% endfilter %}",
    "call block": "{% macro m() %}{{ caller() }}{% endmacro %}"
                  "{% call m() %}{% for i in range(10000) %}{{ card.big }}{% endfor %}{% endcall %}",
    "output": "{% for i in range(10000) %}{{ card.big }}{% endfor %}",
    # many texts, each within the limit, kept together
    "map": "{{ ([card.big] * 1000) | map('upper') | list | length }}",
    "namespace": "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}{% set ns.l = ns.l + [card.big ~ i] %}"
                 "{% endfor %}{{ ns.l | length }}",
    "range": "{{ range(10**9) | list | length }}",
    "recursion": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
}


@pytest.mark.parametrize("name", sorted(GROWING))
def test_growing_is_refused_before_it_is_made(name):
    result, peak, took = _run(GROWING[name])
    assert isinstance(result, expr.ExprError), f"{name}: made {str(result)[:60]!r}"
    assert any(w in str(result) for w in LIMIT_WORDS) or "`*` width" in str(result), str(result)
    assert peak < MEMORY_CAP, f"{name}: {peak:,} bytes"
    assert took < TIME_CAP


# Each way a template can go through a list, a text or a mapping: every loop and every filter
# that reads its whole input.  With `card.many` (10,000 items) inside a loop of 10,000 turns,
# each would go through 100,000,000 items; the step limit stops them.
ITEM = "{% for i in range(10000) %}{% set x = SOURCE %}{% endfor %}"
ITERATING = {
    "for text": "{% for a in card.big %}{% for b in card.big %}{% endfor %}{% endfor %}",
    "for list": "{% for a in card.many %}{% for b in card.many %}{% endfor %}{% endfor %}",
    "for mapping": "{% for a in card.many %}{% for b in card.map %}{% endfor %}{% endfor %}",
    "for dict": "{% set d = dict.fromkeys(card.many) %}{% for a in d %}{% for b in d %}{% endfor %}{% endfor %}",
    "for record": "{% for a in card.big %}{% for b in card %}{% endfor %}{% endfor %}",
    "for if": "{% for a in card.many %}{% for b in card.many if false %}{% endfor %}{% endfor %}",
    "for loop.last": "{% for a in card.many %}{% for b in card.many %}{% if loop.last %}{% endif %}{% endfor %}{% endfor %}",
    "for else": "{% for a in card.many %}{% for b in card.many %}{% else %}{% endfor %}{% endfor %}",
    "for recursive": "{% for a in card.many %}{% for b in [card.many] recursive %}"
                     "{% if b is iterable %}{{ loop(b) }}{% endif %}{% endfor %}"
                     "{% endfor %}",
    "for tuple unpacking": "{% for a in card.many %}{% for b, c in card.pairs %}{% endfor %}{% endfor %}",
    **{f"filter {f}": ITEM.replace("SOURCE", f"card.many | {f} | list | length") for f in (
        "list", "reverse", "sort", "unique", "batch(3)", "slice(3)", "map('abs')", "select", "reject",
        "selectattr('real')", "rejectattr('real')", "groupby('real')", "join")},
    **{f"filter {f}": ITEM.replace("SOURCE", f"card.many | {f}") for f in ("sum", "max", "min")},
    "filter dictsort": ITEM.replace("SOURCE", "dict.fromkeys(card.many) | dictsort | length"),
    "filter items": ITEM.replace("SOURCE", "dict.fromkeys(card.many) | items | list | length"),
    "str.join": ITEM.replace("SOURCE", "''.join(card.many | map('string'))"),
}


@pytest.mark.parametrize("name", sorted(ITERATING))
def test_every_turn_is_a_step(name, monkeypatch):
    monkeypatch.setattr(limits, "MAX_STEPS", 200_000)
    result, _, took = _run(ITERATING[name], trace=False)
    assert isinstance(result, expr.ExprError), f"{name}: gave {str(result)[:60]!r}"
    assert str(result) in ("the expression takes more than 200,000 steps (loops too long?); simplify it (limit "
                           "CARDGEN_MAX_STEPS)", "the expression nests too deeply; simplify it")
    assert took < TIME_CAP


def test_every_filter_is_classified_and_has_a_case():
    """A filter Jinja adds later is not offered until it is classified; each that can grow or
    iterate has a case above."""
    assert set(expr.ENV.filters) == set(expr.FILTERS) <= set(DEFAULT_FILTERS)
    assert set(DEFAULT_FILTERS) - set(expr.FILTERS) == {"random"}     # (not offered: builds are deterministic)
    sized = {f for f, kind in expr.FILTERS.items() if kind == "sized"}
    assert sized <= set(GROWING)
    iterating = {f for f, kind in expr.FILTERS.items() if kind in ("each", "whole")}
    covered = {name.split()[1].split("(")[0] for name in ITERATING if name.startswith("filter ")}
    assert iterating <= covered


VALUES = {str: "'x'", bytes: "'x'.encode()", int: "1", bool: "true", float: "1.5", list: "[1]", tuple: "(1,)",
          dict: "{'a': 1}", set: "card.set"}


def test_every_method_is_classified_or_refused():
    """Every public method of the values a template can hold is either in the table of methods
    templates may call (and, if it can grow, has a case above) or refused by name."""
    growing = {"center", "ljust", "rjust", "zfill", "expandtabs", "join", "replace"}
    checked = {str: growing | {"format", "format_map", "translate"}, bytes: growing, int: {"to_bytes"},
               bool: {"to_bytes"}}
    for kind, literal in VALUES.items():
        for attr in sorted(a for a in dir(kind) if not a.startswith("_")):
            source = f"{{{{ {literal}.{attr} is defined }}}}"
            if attr in expr.METHODS[kind]:
                assert expr.evaluate(source, ctx()) is True
                if attr in checked.get(kind, ()):
                    assert any(case.startswith(f"{kind.__name__}.{attr}") for case in GROWING), (kind, attr)
            else:
                with pytest.raises(expr.ExprError) as info:
                    expr.evaluate(f"{{{{ {literal}.{attr}() }}}}", ctx())
                assert str(info.value).startswith(f"not allowed in a template: '{attr}' on "), (kind, attr)


@pytest.mark.parametrize("source, expected", [
    ("{{ 'x' | center(99999) | length }}", 99999),
    ("{{ '{:>10}'.format(1) }}", "         1"),
    ("{{ '{0:{1}}'.format('a', 3) }}", "a  "),
    ("{{ '%5.1f|%-3s|%(x)s' % (3.14159, 'ab') if false else '%5.1f|%-3s' % (3.14159, 'ab') }}", "  3.1|ab "),
    ("{{ '%(a)s-%(b)03d' % {'a': 'x', 'b': 7} }}", "x-007"),
    ("{{ 'a b c' | wordwrap(1) }}", "a\nb\nc"),
    ("{{ 'a b c' | wordwrap(3, wrapstring='|') }}", "a b|c"),
    ("{{ 'a b\n\nc d e' | wordwrap(3, wrapstring='|') }}", "a b||c d|e"),
    ("{{ ('x' * 50000) | wordwrap(1, false, 'yy') | length }}", 50000),
    ("{{ [[1], [2, 3]] | sum(start=[]) }}", [1, 2, 3]),
    ("{{ [(1,), (2,)] | sum(start=()) }}", (1, 2)),
    ("{{ [1, 2, 3] | sum }}", 6),
    ("{{ [{'n': 2}, {'n': 3}] | sum(attribute='n') }}", 5),
    ("{{ range(5) | map('string') | join('-') }}", "0-1-2-3-4"),
    ("{{ [{'n': 'a'}, {'n': 'b'}] | join(',', attribute='n') }}", "a,b"),
    ("{{ '-'.join(range(3) | map('string')) }}", "0-1-2"),
    ("{{ 'abc' | join('.') }}", "a.b.c"),
    ("{{ 'xax'.translate({120: 'yy'}) }}", "yyayy"),
    ("{% set x %}{% for i in range(3) %}{{ i }}{% endfor %}{% endset %}{{ x }}", "012"),
    ("{% for a in [1, [2, [3]]] recursive %}{{ a if a is number else loop(a) }}{% endfor %}", "123"),
    ("{% for k in card.table %}{{ k }}{% endfor %}", "120"),
    ("{{ card.many | sort(reverse=true) | first }}", 9999),
    ("{{ 'ab' | list }}", ["a", "b"]),
    ("{{ [1, [2]] | tojson(indent=2) }}", "[\n  1,\n  [\n    2\n  ]\n]"),
    ("{{ (3).to_bytes(2, 'big') | list }}", [0, 3]),
])
def test_ordinary_uses_are_unchanged(source, expected):
    assert expr.evaluate(source, ctx()) == expected


def test_a_step_is_cheap_enough():
    """The step limit is a time limit: a million plain loop turns take a second or so, not minutes."""
    start = time.process_time()
    with pytest.raises(expr.ExprError):
        expr.evaluate("{% for a in card.big %}{% for b in card.big %}{% endfor %}{% endfor %}", ctx())
    assert time.process_time() - start < 10 * UNDER_MUTMUT


def test_a_template_too_deep_to_compile_is_a_message():
    with pytest.raises(expr.ExprError) as info:
        expr.evaluate("{{ " + "[" * 3000 + "]" * 3000 + " }}", ctx())
    assert str(info.value).endswith(": it nests too deeply; simplify it")
    assert expr.check_syntax("{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}").endswith("it nests too deeply; "
                                                                                    "simplify it")


@pytest.mark.parametrize("source", [
    "{% for i in range(10000) %}{% for j in range(100) %}{% if card.big.count('y') %}{% endif %}{% endfor %}"
    "{% endfor %}",
    "{% for i in range(10000) %}{% for j in range(100) %}{% if card.big | wordcount %}{% endif %}{% endfor %}"
    "{% endfor %}",
])
def test_reading_a_long_text_counts_its_length(source):
    """A method that reads a whole text is a step per 256 characters, a filter one per 64 (some
    match patterns): a million scans of a 100,000-character text (minutes) stop at the step
    limit in about a second."""
    result, _, took = _run(source, trace=False)
    assert str(result) == ("the expression takes more than 1,000,000 steps (loops too long?); simplify it (limit "
                           "CARDGEN_MAX_STEPS)")
    assert took < TIME_CAP


def test_random_is_not_offered_a_build_is_the_same_every_time():
    with pytest.raises(expr.ExprError) as info:
        expr.evaluate("{{ [1, 2, 3] | random }}", expr.context({"name": "a"}, {}, {}))
    assert "No filter named 'random'" in str(info.value)


def test_a_records_attributes_are_judged_as_the_sandbox_judges_them():
    """The environment reads a card field on a `Record` and tells it safe at once: what Jinja's
    immutable sandbox says of every attribute of one (fields, names like methods, internal
    and private names); and a template's globals are a plain mapping of what Jinja's chain
    of them holds."""
    from collections import ChainMap

    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from cardgen.layout import expr
    from cardgen.layout.exprbounds import Record

    env = expr._env()
    rec = Record({"cost": 2, "items": [1], "mro": 1, "append": 0}, "card")
    for attr in ("cost", "items", "mro", "append", "clear", "_data", "_label", "__class__", "__init__", "x_", "upper"):
        value = getattr(rec, attr, None)
        assert env.is_safe_attribute(rec, attr, value) == \
            ImmutableSandboxedEnvironment.is_safe_attribute(env, rec, attr, value), attr
        if value is not None and not attr.startswith("_"):      # a field read: the sandbox's answer
            assert env.getattr(rec, attr) == ImmutableSandboxedEnvironment.getattr(env, rec, attr), attr
    made = env.make_globals({"own": 1})
    assert type(made) is dict and made == dict(ChainMap({"own": 1}, env.globals))
    assert expr.evaluate("{{ card.cost + range(3) | length }}", expr.context({"cost": 2}, {}, {})) == 5
