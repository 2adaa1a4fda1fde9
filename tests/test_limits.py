"""Bounded work: no template, expression or YAML file can hang cardgen or eat its memory; each
limit is one located line.  Speed is a property of the limits, the CPU time only a safety net (a loaded machine cannot fail it)."""
from __future__ import annotations

import time

import pytest
from conftest import UNDER_MUTMUT, run_cli

from cardgen.core.errors import CardgenError
from cardgen.layout import expr
from cardgen.load.yamlsrc import load_text

TEXT = "the expression would make a text of {n} (more than 100,000); simplify it (limit CARDGEN_MAX_TEXT)"
DIGITS = ("the expression would make a number with more than 1,000 digits; simplify it "
          "(limit CARDGEN_MAX_INT_DIGITS)")


def ctx():
    return expr.context({"name": "A", "seen": [], "stats": {"hp": 3}, "items": [{"a": 1}]}, {"name": "D"}, {})


@pytest.mark.parametrize("source, message", [
    ("{{ 'x' * 10**9 }}", TEXT.format(n="1,000,000,000")),
    ("{{ 10**9 * 'x' }}", TEXT.format(n="1,000,000,000")),
    ("{{ 10 ** 100000000 }}", DIGITS),
    ("{{ 2 ** 4000 }}", DIGITS),
    ("{{ (10 ** 900) * (10 ** 900) }}", DIGITS),
    ("{{ [1] * 10**9 }}", "the expression would make a list of 1,000,000,000 (more than 100,000); simplify it "
                          "(limit CARDGEN_MAX_ITEMS)"),
    ("{% for i in range(100000) %}{% endfor %}", "the expression would make a range of 100,000 (more than "
                                                 "10,000); simplify it (limit CARDGEN_MAX_RANGE)"),
    ("{{ range(10**30) | list }}", "the expression would make a range of 1,000,000,000,000,000,000,000,000,000,000 "
                                   "(more than 10,000); simplify it (limit CARDGEN_MAX_RANGE)"),
    ("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
     "the expression takes more than 1,000,000 steps (loops too long?); simplify it (limit CARDGEN_MAX_STEPS)"),
    ("{{ lipsum(100000) }}", "lipsum() is limited to 100 paragraphs of at most 1000 words (limit "
                             "CARDGEN_MAX_LIPSUM)"),
    ("{{ lipsum(5, false, 10, 10**9) }}", "lipsum() is limited to 100 paragraphs of at most 1000 words (limit "
                                          "CARDGEN_MAX_LIPSUM)"),
    ("{{ 'x'.center(10**9) }}", "'center': 1,000,000,000 is more than 100,000 (limit CARDGEN_MAX_TEXT)"),
    ("{{ 'x'.ljust(10**9) }}", "'ljust': 1,000,000,000 is more than 100,000 (limit CARDGEN_MAX_TEXT)"),
    ("{{ 'x' | center(10**9) }}", "filter 'center': 1,000,000,000 is more than 100,000 (limit CARDGEN_MAX_TEXT)"),
    ("{{ 'x' | indent(10**9, true) }}", "filter 'indent': 1,000,000,000 is more than 100,000 "
                                        "(limit CARDGEN_MAX_TEXT)"),
    ("{{ '%0999999999d' % 1 }}", "a format width of 999,999,999 is more than 100,000 (limit CARDGEN_MAX_TEXT)"),
    ("{{ '%*d' % (10**9, 1) }}", "a `*` width in a % format is not allowed in a template; write the width out"),
    ("{{ '{:>999999999}'.format(1) }}", "a format width of 999,999,999 is more than 100,000 (limit "
                                        "CARDGEN_MAX_TEXT)"),
    ("{{ '%0999999999d' | format(1) }}", "a format width of 999,999,999 is more than 100,000 (limit "
                                         "CARDGEN_MAX_TEXT)"),
    ("{{ ('x' * 1000).replace('', 'y' * 1000) }}", TEXT.format(n="1,002,000")),
    ("{{ ('x' * 1000) | replace('x', 'y' * 1000) }}", TEXT.format(n="1,000,000")),
    ("{% set a = 'x' * 60000 %}{{ a ~ a }}", TEXT.format(n="120,000")),
    ("{% set a = 'x' * 60000 %}{{ a + a }}", TEXT.format(n="120,000")),
    ("{% set a = 'x' * 60000 %}{{ [a, a] | join }}", TEXT.format(n="120,000")),
    ("{% for i in range(10000) %}{{ 'xxxxxxxxxxxxxxxxxxxx' }}{% endfor %}", TEXT.format(n="100,020")),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "the expression nests too deeply; simplify it"),
])
def test_expression_limits(source, message):
    start = time.process_time()
    with pytest.raises(expr.ExprError) as info:
        expr.evaluate(source, ctx())
    assert str(info.value) == message
    assert time.process_time() - start < 10 * UNDER_MUTMUT      # safety net; the limits stop each case in well under a second


@pytest.mark.parametrize("source, message", [
    ("{{ card.seen.append(1) }}", "not allowed in a template: 'append' on a list "
     "(templates may read card, deck and game data but not change it)"),
    ("{{ card['items'][0].update(b=2) }}", "not allowed in a template: 'update' on a mapping (templates may "
                                           "read card, deck and game data but not change it)"),
    ("{{ card.items.pop() }}", "not allowed in a template: 'pop' on a list "
     "(templates may read card, deck and game data but not change it)"),
    ("{{ card.__class__ }}", "not allowed in a template: '__class__' (names starting with _ are internal)"),
    ("{{ ''.__class__.__mro__ }}", "not allowed in a template: '__class__' (names starting with _ are internal)"),
    ("{{ card._data }}", "not allowed in a template: '_data' (names starting with _ are internal)"),
])
def test_sandbox_is_immutable_and_says_what_is_blocked(source, message):
    c = ctx()
    with pytest.raises(expr.ExprError) as info:
        expr.evaluate(source, c)
    assert str(info.value) == message
    assert c["card"]["seen"] == [] and c["card"]["items"][0] == {"a": 1}


def test_ordinary_expressions_still_work():
    c = ctx()
    assert expr.evaluate("{{ 2 ** 10 }}", c) == 1024
    assert expr.evaluate("{{ card.name ~ '!' }}", c) == "A!"
    assert expr.evaluate("{% for i in range(3) %}{{ i }}{% endfor %}", c) == "012"
    assert expr.evaluate("{{ '%5.1f' % 3.14159 }}", c) == "  3.1"
    assert expr.evaluate("{{ 'a b' | replace(' ', '-') | upper }}", c) == "A-B"
    assert expr.evaluate("{{ card.stats.hp * 3 }}", c) == 9
    assert expr.evaluate("{{ 'x' * 100000 }}", c) == "x" * 100000     # the limit itself is allowed
    assert len(expr.evaluate("{{ lipsum(2) }}", c)) > 10
    assert expr.condition("card.stats.hp > 2", c) is True


def test_steps_are_counted_per_value():
    """One expression near the step limit does not eat the next one's budget."""
    source = "{% for i in range(10000) %}{% for j in range(50) %}{% endfor %}{% endfor %}"
    for _ in range(5):
        assert expr.evaluate(source, ctx()) == ""


def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, message", [
    (_bomb(), "x.yaml:7:5: error: this value expands to more than 1,000,000 values through aliases (`*name`); "
              "an alias bomb? (limit CARDGEN_MAX_YAML_NODES)"),
    ("a: " + "[" * 100000 + "]" * 100000 + "\n", "x.yaml:1:103: error: mappings and lists nested more than 100 "
                                                 "deep; flatten the data (limit CARDGEN_MAX_YAML_DEPTH)"),
    ("a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 150)), "x.yaml:101:201: error: mappings and lists "
                                                                      "nested more than 100 deep; flatten the data "
                                                                      "(limit CARDGEN_MAX_YAML_DEPTH)"),
    ("a: &a [1, *a]\n", "x.yaml:1:4: error: this value contains itself through an alias (`*name`); an alias must "
                        "refer to a finished value"),
    ("a: " + "9" * 5000 + "\n", "x.yaml:1:4: error: a number with more than 1000 digits; write it in quotes if "
                                "it is text"),
])
def test_yaml_limits(text, message):
    assert len(text) < 250_000
    start = time.process_time()
    with pytest.raises(CardgenError) as info:
        load_text(text, "x.yaml")
    assert str(info.value) == message
    assert time.process_time() - start < 10 * UNDER_MUTMUT


def test_alias_bomb_in_a_card_field_is_a_located_error(tiny_game, tmp_path):
    bomb = _bomb().replace("\n", "\n  ").rstrip()
    cards = f"x-bomb:\n  {bomb}\ncards:\n  - {{name: A, power: *a8}}\n"
    assert len(cards) < 1024 + 200
    root = tiny_game(cards)
    start = time.process_time()
    for command in ("validate", "build"):
        args = ("--out", str(tmp_path / "out"), "--only", "print") if command == "build" else ()
        code, stdout, stderr = run_cli(command, str(root), *args)
        assert code == 1
        assert "Traceback" not in stdout + stderr
        assert f"{root}/deck.yaml:11:7: error: this value expands to more than 1,000,000 values through aliases " \
               f"(`*name`); an alias bomb? (limit CARDGEN_MAX_YAML_NODES)" in (stdout + stderr).splitlines()
    assert time.process_time() - start < 30 * UNDER_MUTMUT


HOSTILE_TEMPLATE = """
    elements:
      - name: body
        type: text
        width: 50mm
        height: 20mm
        text: "{source}"
"""


@pytest.mark.parametrize("source, message", [
    ("{{ 'x' * 10**9 }}", TEXT.format(n="1,000,000,000")),
    ("{{ card.seen.append(1) }}", "not allowed in a template: 'append' on a list "
     "(templates may read card, deck and game data but not change it)"),
])
def test_limits_in_a_build_are_located(tiny_game, tmp_path, source, message):
    root = tiny_game("cards:\n  - {name: A, seen: [1]}\n", template=HOSTILE_TEMPLATE.replace("{source}", source))
    code, _, stderr = run_cli("build", str(root), "--out", str(tmp_path / "out"), "--only", "print")
    assert code == 1
    assert "Traceback" not in stderr
    assert f"{root}/templates/tiny/face.yaml:6:11: error: card 'A' (deck.yaml:5), element 'body': {message}" \
        in stderr.splitlines()


def test_icon_count_and_infinite_size_are_refused(tiny_game):
    root = tiny_game(template="""
        elements:
          - name: t
            type: text
            size: .inf
            fit: shrink
            text: hi
          - name: i
            type: icon
            icon: coin
            count: 1000000000
    """)
    code, stdout, _ = run_cli("validate", str(root))
    assert code == 1
    lines = [ln for ln in stdout.splitlines() if ": error: " in ln]
    assert lines == [f"{root}/templates/tiny/face.yaml:4:11: error: element 't' (text): `size` must be a finite "
                     f"number, got inf",
                     f"{root}/templates/tiny/face.yaml:10:12: error: element 'i' (icon): `count` must be a whole "
                     f"number from 0 to 1000, got 1000000000"]


def test_lipsum_is_the_same_text_on_every_build():
    """Jinja's own lipsum() is random on every call; cardgen's gives the same text for the same
    arguments, so a template that uses it still builds byte-identical files."""
    c = {"card": {}}
    first = expr.evaluate("{{ lipsum(2, false, 10, 20) }}", c)
    assert first == expr.evaluate("{{ lipsum(2, false, 10, 20) }}", c)
    paragraphs = first.split("\n\n")
    assert len(paragraphs) == 2
    assert all(10 <= len(p.split()) <= 20 and p[0].isupper() and p.endswith(".") for p in paragraphs)


def test_a_long_chain_of_merges_is_not_nesting():
    """Each mapping merging the one before (`<<: *prev`) makes flat data: 300 links load."""
    lines = ["a0: &a0 {x0: 0}"] + [f"a{i}: &a{i} {{<<: *a{i - 1}, x{i}: {i}}}" for i in range(1, 300)]
    data = load_text("\n".join(lines) + "\n", "m.yaml")
    assert len(data["a299"]) == 300 and data["a299"]["x0"] == 0 and data["a299"]["x299"] == 299


def test_yaml_value_count_is_checked_before_composing(monkeypatch):
    """A file with more values than the limit is refused from the event stream, at the value
    that passes the limit, never composed whole."""
    from cardgen.core import limits

    monkeypatch.setattr(limits, "MAX_YAML_NODES", 1000)
    text = "a: [" + ", ".join(["1"] * 1200) + "]\n"
    import yaml

    from cardgen.load import yamlsrc

    composed = []
    monkeypatch.setattr(yamlsrc, "_Base", yaml.SafeLoader)      # (the Python composer, to watch it)
    monkeypatch.setattr(yaml.composer.Composer, "compose_node", lambda *a: composed.append(1))
    with pytest.raises(CardgenError) as info:
        load_text(text, "x.yaml")
    assert not composed
    assert str(info.value) == ("x.yaml:1:2996: error: this file has more than 1,000 values; split it into smaller "
                               "files (limit CARDGEN_MAX_YAML_NODES)")
