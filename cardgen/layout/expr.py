"""Template values: plain YAML values or Jinja2 expressions, evaluated in a sandbox.

`"{{ card.cost }}"` alone keeps the value's type (a number stays a number);
anything else with `{{ }}` or `{% %}` renders to a string.  Each distinct string is
compiled once.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from cardgen.core import limits
from cardgen.layout.exprbounds import (  # the bounds of evaluation, re-exported: expr.FILTERS, expr.Record
    FILTERS,  # noqa: F401
    METHODS,  # noqa: F401
    ExprError,
    LimitError,
    MissingField,
    Record,
    _check_text_size,
    _check_value,
    _CountingRange,
    _counts,
    _tick,
    _too_long,
    counting,
)


class _NotYet(Exception):
    """Stands for Jinja's exceptions until Jinja is imported: nothing can raise them before."""


# Jinja's exceptions, caught by `evaluate` and `condition`: bound to Jinja's own classes when
# the environment is first made (`new_environment`, which imports Jinja: a value that only
# reads a field, `{{ card.cost }}`, needs none of it).
if TYPE_CHECKING:
    from jinja2.exceptions import SecurityError, TemplateError, TemplateSyntaxError, UndefinedError

    from cardgen.layout.exprenv import BoundedEnvironment
else:
    TemplateSyntaxError = SecurityError = UndefinedError = TemplateError = _NotYet
_JINJA_ERRORS = ("TemplateSyntaxError", "SecurityError", "UndefinedError", "TemplateError")
_Undefined: type = _NotYet     # (the environment's undefined value, `exprenv._Undefined`: nothing is one before)
ENV: BoundedEnvironment      # (made when first used: `_env`)


_DATA = (str, int, float, bool, type(None), list, tuple, dict, set, frozenset, bytes, Record)
_PLAIN: tuple[type, ...] = _DATA      # (and Jinja's Undefined, once Jinja is imported: `new_environment`)


def _plain_result(value):
    """`value` if it is data (text, a number, a list, ...); a method, function, class or any
    other object would print as its Python name and memory address, different on every build:
    refused with what to write instead."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (range, _CountingRange)):
        raise ExprError("the expression gives a range of numbers, not text or a number (print its numbers with "
                        "`| join(', ')`, or loop over it with {% for %})")
    kind = ("a method or function" if callable(value) and not isinstance(value, type)
            else "a class" if isinstance(value, type) else f"a {type(value).__name__.lstrip('_')} object")
    hint = " (call it with `()`, such as card.name.upper())" if kind == "a method or function" else ""
    raise ExprError(f"the expression gives {kind}, not text or a number{hint}")


def _finalize(value):
    """Every `{{ }}` of a text before it is written out: a list or mapping too large to print is
    refused before it is turned into text, and so is what is not data (`_plain_result`), and a
    mapping or list (it would print as Python writes it, `{'a': 1}`): `wrong_shape`."""
    _check_text_size(value)
    value = _plain_result(value)
    wrong_shape(value)
    return value


def wrong_shape(value) -> None:
    """ExprError if `value` is a mapping or a list, which cannot be printed as text: said with
    the field it came from (`card.text`) and what to write instead."""
    if isinstance(value, (Record, dict)):
        label = value._label if isinstance(value, Record) else ""
        field = label.split(".", 1)[1] if label.startswith("card.") else None
        raise ExprError(f"{'`' + label + '` is' if label else 'the expression gives'} a mapping, which cannot be "
                        f"printed as text; give {'the field' if label else 'it'} text (or print one of its "
                        f"keys: {{{{ {label or 'x'}.KEY }}}})", field)
    if isinstance(value, (list, tuple, set, frozenset)):
        raise ExprError("the expression gives a list, which cannot be printed as text; join it: "
                        "{{ ... | join(', ') }}")


def new_environment() -> BoundedEnvironment:
    """The environment every template value is compiled in (`ENV`, made when a value first
    needs Jinja: `_env`; the mutation tests make a new one for each test, tests/conftest.py).
    Imports Jinja, and binds its exceptions here."""
    global _PLAIN, _Undefined
    from cardgen.core.imports import importing

    with importing(freeze=False):       # (often while a game is loaded: `core.imports`)
        from jinja2 import exceptions

        from cardgen.layout import exprenv
    _PLAIN, _Undefined = (*_DATA, exprenv.Undefined), exprenv._Undefined
    globals().update({name: getattr(exceptions, name) for name in _JINJA_ERRORS})
    return exprenv.BoundedEnvironment(undefined=_Undefined, autoescape=False, trim_blocks=True,
                                      lstrip_blocks=True, finalize=_finalize)


def _env() -> BoundedEnvironment:
    global ENV
    try:
        return ENV
    except NameError:
        ENV = new_environment()
        return ENV


def __getattr__(name: str):
    if name == "ENV":       # (`expr.ENV` from outside: made when first asked for)
        return _env()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SINGLE = re.compile(r"^\s*\{\{(?P<e>(?:(?!\{\{|\}\}).)*)\}\}\s*$", re.S)


def is_dynamic(value) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


@lru_cache(maxsize=4096)
def _compile(source: str):
    m = _SINGLE.match(source)
    try:
        if m:
            return "expr", _env().compile_expression(m.group("e"), undefined_to_none=False)
        return "tmpl", _env().from_string(source)
    except TemplateSyntaxError as exc:
        raise ExprError(f"bad template expression {_short(repr(source))}: {exc.message}") from None
    except (RecursionError, SyntaxError, MemoryError):
        raise ExprError(f"bad template expression {_short(repr(source))}: it nests too deeply; simplify it") from None


@lru_cache(maxsize=4096)
def reads_card(source: str) -> bool:
    """Whether a template value may differ between cards of one deck: it names `card` (or
    `lipsum`, new text each time).  One that does not depends only on `deck` and `game`, so
    the layout works it out once per deck."""
    if not is_dynamic(source):
        return False
    field = _field_of(source)
    if field is not None:       # (`{{ card.cost }}`: by its pattern, without Jinja)
        return field[0] == "card"
    env = _env()
    from jinja2 import nodes

    try:
        names = {n.name for n in env.parse(source).find_all(nodes.Name)}
    except (TemplateSyntaxError, RecursionError):
        return True
    return bool(names & {"card", "lipsum"})


DATA_ROOTS = ("deck", "game")


@lru_cache(maxsize=4096)
def data_read(source: str, condition: bool = False) -> dict[str, frozenset[str] | None]:
    """What a template value (a `when:` condition with `condition`) may read of `deck` and
    `game`: for each, the set of its keys the value names (`game.version`, `game['title']`),
    or None when it may read any of them (`game | tojson`, `{% for k in deck %}`, a value that
    does not parse).  A root it does not name is left out.  The layout cache
    (`cardgen.layout.cache`) keys a card side on the parts it may read, so that a new version
    in game.yaml lays out again only the cards whose templates can show it."""
    everything: dict[str, frozenset[str] | None] = dict.fromkeys(DATA_ROOTS)
    if condition:
        s = source.strip()
        m = _SINGLE.match(s)
        text = m.group("e") if m else s
    elif is_dynamic(source):
        field = _field_of(source)
        if field is not None:   # (`{{ deck.kind }}`: by its pattern, without Jinja)
            return {field[0]: frozenset({field[1]})} if field[0] in DATA_ROOTS else {}
        m = _SINGLE.match(source)
        text = m.group("e") if m else None
    else:
        return {}
    env = _env()
    from jinja2 import nodes
    from jinja2.parser import Parser

    try:
        if text is not None:
            parser = Parser(env, text, state="variable")
            tree: nodes.Node = parser.parse_expression()
            if not parser.stream.eos:
                return everything
        else:
            tree = env.parse(source)
    except (TemplateSyntaxError, RecursionError):
        return everything
    out: dict[str, set[str] | None] = {}

    def walk(node: nodes.Node) -> None:
        if isinstance(node, (nodes.Getattr, nodes.Getitem)) and isinstance(node.node, nodes.Name) \
                and node.node.name in DATA_ROOTS:
            key = node.attr if isinstance(node, nodes.Getattr) else \
                node.arg.value if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str) else None
            if key is not None:
                seen = out.setdefault(node.node.name, set())
                if seen is not None:
                    seen.add(key)
                return
        if isinstance(node, nodes.Name) and node.name in DATA_ROOTS:
            out[node.name] = None       # the whole mapping: passed on, looped over, printed, ...
            return
        for child in node.iter_child_nodes():
            walk(child)

    walk(tree)
    return {k: (frozenset(v) if v is not None else None) for k, v in out.items()}


@lru_cache(maxsize=4096)
def _compile_condition(source: str):
    s = source.strip()
    m = _SINGLE.match(s)
    if m:
        s = m.group("e")
    try:
        return _env().compile_expression(s, undefined_to_none=False)
    except TemplateSyntaxError as exc:
        raise ExprError(f"bad condition {_short(repr(source))}: {exc.message}") from None
    except (RecursionError, SyntaxError, MemoryError):
        raise ExprError(f"bad condition {_short(repr(source))}: it nests too deeply; simplify it") from None


def check_syntax(value) -> str | None:
    """None if the value compiles, else the error message."""
    try:
        if is_dynamic(value) and _field_of(value) is None:     # (`{{ card.cost }}` parses by its pattern)
            _compile(value)
    except ExprError as exc:
        return str(exc)
    return None


def evaluate(value, ctx: dict):
    """Evaluate a template value against `ctx` (plain values pass through)."""
    if not is_dynamic(value):
        return value
    token = counting()
    try:
        result = _field(value, ctx)         # (`{{ card.cost }}` with the field there: not even compiled)
        if result is _NOT_A_FIELD:
            kind, compiled = _compile(value)
            if kind != "expr":
                return _render_bounded(compiled, ctx)
            result = compiled(**ctx)
        if isinstance(result, _Undefined):
            str(result)  # raises MissingField
        result = _plain_result(result)
        if isinstance(result, Record):      # a mapping: the option's declaration judges it as one
            return _check_value(result._data)
        return _check_value(result)
    except (MissingField, ExprError):
        raise
    except LimitError as exc:
        raise ExprError(str(exc)) from None
    except RecursionError:
        raise ExprError("the expression nests too deeply; simplify it") from None
    except MemoryError:
        raise ExprError("the expression needs too much memory; simplify it") from None
    except SecurityError as exc:
        raise ExprError(f"not allowed in a template: {exc}") from None
    except UndefinedError as exc:
        raise ExprError(str(exc)) from None
    except TemplateError as exc:
        raise ExprError(f"{value!r}: {exc}") from None
    except Exception as exc:  # arithmetic on text and the like
        raise ExprError(f"{_short(value)}: {type(exc).__name__}: {_short(str(exc))}") from None
    finally:
        _counts.reset(token)


# `{{ card.cost }}` (or deck's, game's): one field read, the commonest template value
_FIELD = re.compile(r"\s*\{\{\s*(card|deck|game)\.([A-Za-z][A-Za-z0-9_]*)\s*\}\}\s*")
_NOT_A_FIELD = object()


@lru_cache(maxsize=4096)
def _field_of(source: str) -> tuple[str, str] | None:
    m = _FIELD.fullmatch(source)
    return (m.group(1), m.group(2)) if m else None


def _field(source: str, ctx: dict):
    """What `{{ card.NAME }}` gives when the card has the field NAME, read as the sandbox reads
    it (a step counted, `Record.__getattr__`) without running Jinja's compiled expression,
    which costs ten times as much (the colour-coding check reads every card's colours and
    titles); `_NOT_A_FIELD` for any other value or a missing field (Jinja says why)."""
    field = _field_of(source)
    if field is None:
        return _NOT_A_FIELD
    record = ctx.get(field[0])
    if type(record) is not Record or field[1] not in record._data:
        return _NOT_A_FIELD
    _tick()                         # (as the sandbox's getattr does)
    # (what `getattr(record, NAME)` gives, which fails the usual lookup first, an AttributeError
    # made and caught: a Record has no attribute of a field's name, and NAME is one it has)
    return record[field[1]]


def _short(text: str, n: int = 200) -> str:
    text = repr(text) if not isinstance(text, str) else text
    return text if len(text) <= n else text[: n - 3] + "..."


def _render_bounded(template, ctx: dict) -> str:
    """Render, stopping as soon as the output passes MAX_TEXT characters."""
    out: list[str] = []
    total = 0
    for chunk in template.generate(**ctx):
        total += len(chunk)
        if total > limits.MAX_TEXT:
            raise _too_long("a text", total, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
        out.append(chunk)
    return "".join(out)


def condition(value, ctx: dict) -> bool:
    """`when:` values: a boolean, or a Jinja expression with or without braces."""
    if isinstance(value, bool) or value is None:
        return bool(value)
    if not isinstance(value, str):
        return bool(value)
    token = counting()
    try:
        result = _compile_condition(value)(**ctx)
        if isinstance(result, _Undefined):
            str(result)
        return bool(result)
    except (MissingField, ExprError):
        raise
    except LimitError as exc:
        raise ExprError(f"condition: {exc}") from None
    except SecurityError as exc:
        raise ExprError(f"not allowed in a template: {exc}") from None
    except Exception as exc:
        raise ExprError(f"condition {_short(value)}: {_short(str(exc))}") from None
    finally:
        _counts.reset(token)


def context(card: dict | None, deck: dict | None, game: dict | None) -> dict:
    return {
        "card": Record(card or {}, "card"),
        "deck": Record(deck or {}, "deck"),
        "game": Record(game or {}, "game"),
    }
