"""Template values: plain YAML values or Jinja2 expressions, evaluated in a sandbox.

`"{{ card.cost }}"` alone keeps the value's type (a number stays a number);
anything else with `{{ }}` or `{% %}` renders to a string.  Each distinct string is
compiled once.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from jinja2 import TemplateSyntaxError, Undefined, nodes
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import SecurityError, TemplateError, UndefinedError
from jinja2.sandbox import (
    ImmutableSandboxedEnvironment,
    SandboxedEscapeFormatter,
    SandboxedFormatter,
    modifies_known_mutable,
)
from jinja2.utils import _PassArg
from markupsafe import Markup

from cardgen.core import limits
from cardgen.layout.exprbounds import (  # the bounds of evaluation, re-exported: expr.FILTERS, expr.Record
    _KINDS,
    _OWN_FILTERS,
    _SORTING,
    FILTERS,
    METHODS,
    PLAIN_MAPPING,
    ExprError,
    LimitError,
    MissingField,
    Record,
    _all_of,
    _check_filter,
    _check_format,
    _check_ints,
    _check_text_size,
    _check_value,
    _count_made,
    _counted,
    _CountingRange,
    _lipsum,
    _made,
    _pre_binop,
    _pre_call,
    _refuse_text,
    _size,
    _steps,
    _tick,
    _too_long,
    _Undefined,
    plain_mapping,
)


class _BoundedCodeGenerator(CodeGenerator):
    def visit_Concat(self, node: nodes.Concat, frame) -> None:
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    def visit_For(self, node: nodes.For, frame) -> None:
        # every loop goes through environment.counted: the list, text or mapping it is given,
        # and in a recursive loop (`loop(children)`) what each turn is given
        original = node.iter
        if not node.recursive:
            node.iter = nodes.Call(nodes.EnvironmentAttribute("counted", lineno=original.lineno), [original], [],
                                   None, None, lineno=original.lineno)
        try:
            super().visit_For(node, frame)
        finally:
            node.iter = original

    def write(self, x: str) -> None:
        super().write("environment.counted(reciter)" if x == "reciter" else x)


class _BoundedFormatter(SandboxedFormatter):
    """`str.format` in a template: each field's width and precision checked before it is
    formatted, and the fields together at most MAX_TEXT characters."""

    def __init__(self, env, **kwargs):
        super().__init__(env, **kwargs)
        self.made = 0

    def format_field(self, value, format_spec: str):
        _tick()
        _check_format(format_spec)
        _refuse_text(self.made + _size(value) + sum(int(d) for d in re.findall(r"\d+", format_spec)))
        out = super().format_field(value, format_spec)
        self.made += len(out)
        _refuse_text(self.made)
        return out


class _BoundedEscapeFormatter(_BoundedFormatter, SandboxedEscapeFormatter):
    pass


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox templates run in: immutable (no `append`, `update`, ... on card, deck or game
    data), and bounded: every operation, call and loop turn (every item a `for` or a filter goes
    through) counts against MAX_STEPS, and no string, list or integer may grow past the limits
    in `cardgen.core.limits`: its size is worked out and checked before it is made."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset(["*", "**", "+", "%", "//", "/", "-"])
    intercepted_unops = frozenset(["-", "+"])

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.globals["range"] = _CountingRange
        self.globals["lipsum"] = _lipsum
        filters = {**self.filters, **_OWN_FILTERS}
        self.filters = {name: self._bounded_filter(name, f) for name, f in filters.items() if name in FILTERS}

    @staticmethod
    def counted(iterable):
        return _counted(iterable)

    def concat(self, parts) -> str:
        """What a block makes (`{% set x %}...{% endset %}`, a macro, `{% filter %}`), its size
        checked before it is joined."""
        parts = list(parts)
        n = sum(len(p) for p in parts)
        _refuse_text(n)
        if len(parts) > 1:
            _count_made(n)
        return "".join(parts)

    @staticmethod
    def _bounded_filter(name: str, f):
        kind = FILTERS[name]
        skip = 0 if _PassArg.from_obj(f) is None else 1

        def run(*args, **kwargs):
            _tick()
            lead, data = args[:skip], list(args[skip:])
            if data and isinstance(data[0], Record) and name in PLAIN_MAPPING:
                data[0] = plain_mapping(data[0], deep=name == "tojson")
            if data and kind in ("each", "whole") and not isinstance(data[0], Undefined):
                if kind == "each":
                    data[0] = _counted(data[0])
                elif isinstance(data[0], (dict, Record)):
                    _tick(len(data[0]))
                else:
                    data[0] = _all_of(data[0]) if not isinstance(data[0], str) else data[0]
                    _tick(len(data[0]))
                if name in _SORTING and isinstance(data[0], (list, dict, str)) and len(data[0]) > 1:
                    _tick(int(len(data[0]) * math.log2(len(data[0]))))
            if kind in ("text", "sized"):
                _check_filter(name, data, kwargs)
                if data and isinstance(data[0], (str, bytes)):
                    _tick(len(data[0]) >> 6)     # reading the text (some with patterns): a step per 64 characters
            return _check_value(f(*lead, *data, **kwargs))

        for attr in ("jinja_pass_arg",):
            if hasattr(f, attr):
                setattr(run, attr, getattr(f, attr))
        run.__name__ = getattr(f, "__name__", name)
        return run

    def wrap_str_format(self, value):
        """`str.format` and `format_map` as templates run them: the pattern checked when the
        method is looked up, each field's size checked before it is formatted."""
        if not callable(value) or getattr(value, "__name__", None) not in ("format", "format_map"):
            return None
        owner = getattr(value, "__self__", None)
        if not isinstance(owner, str):
            return None
        _check_format(owner)
        is_map = value.__name__ == "format_map"
        kind = type(owner)

        def checked(*args: Any, **kwargs: Any):
            if is_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one argument")
                kwargs, args = args[0], ()
            values = (*args, *(kwargs.values() if isinstance(kwargs, dict) else ()))
            _check_ints(values, f"'{value.__name__}'")
            for a in values:
                _check_text_size(a)
            if isinstance(owner, Markup):
                formatter: _BoundedFormatter = _BoundedEscapeFormatter(self, escape=owner.escape)
            else:
                formatter = _BoundedFormatter(self)
            return kind(formatter.vformat(owner, args, kwargs))

        checked.__name__ = value.__name__
        return checked

    def bounded_concat(self, parts) -> str:
        _tick()
        total = 0
        out = []
        for p in parts:
            _check_text_size(p)
            s = str(p)
            total += len(s)
            _refuse_text(total)
            out.append(s)
        if len(out) > 1:
            _count_made(total)
        return "".join(out)

    def call_binop(self, context, operator: str, left, right):
        _tick()
        _pre_binop(operator, left, right)
        return _check_value(super().call_binop(context, operator, left, right))

    def call_unop(self, context, operator: str, arg):
        _tick()
        return super().call_unop(context, operator, arg)

    def call(__self, __context, __obj, *args, **kwargs):
        owner = getattr(__obj, "__self__", None)
        # a method of a text reads all of it: a step for every 256 characters
        _tick(1 + (len(owner) >> 8 if isinstance(owner, (str, bytes)) else 0))
        args = _pre_call(__obj, args, kwargs)
        return _check_value(super().call(__context, __obj, *args, **kwargs))

    def is_safe_attribute(self, obj, attr: str, value) -> bool:
        kind = next((k for k in _KINDS if isinstance(obj, k)), None)   # card data's own dict and list too
        if kind is not None and attr not in METHODS[kind]:
            return False
        return super().is_safe_attribute(obj, attr, value)

    def getattr(self, obj, attribute: str):
        _tick()
        if isinstance(obj, str) and attribute in ("format", "format_map"):
            _check_format(obj)
        return super().getattr(obj, attribute)

    def getitem(self, obj, argument):
        _tick()
        return super().getitem(obj, argument)

    def unsafe_undefined(self, obj, attribute: str):
        if attribute.startswith("_"):
            raise SecurityError(f"'{attribute}' (names starting with _ are internal)")
        kind = ("a list" if isinstance(obj, list) else "a mapping" if isinstance(obj, dict)
                else "text" if isinstance(obj, str) else type(obj).__name__)
        if modifies_known_mutable(obj, attribute):
            raise SecurityError(f"'{attribute}' on {kind} (templates may read card, deck and game data but "
                                f"not change it)")
        raise SecurityError(f"'{attribute}' on {kind}")


_PLAIN = (str, int, float, bool, type(None), list, tuple, dict, set, frozenset, bytes, Record, Undefined)


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
    """The environment every template value is compiled in (`ENV`, made once at import; the
    mutation tests make a new one for each test, tests/conftest.py)."""
    return BoundedEnvironment(undefined=_Undefined, autoescape=False, trim_blocks=True, lstrip_blocks=True,
                              finalize=_finalize)


ENV = new_environment()
_SINGLE = re.compile(r"^\s*\{\{(?P<e>(?:(?!\{\{|\}\}).)*)\}\}\s*$", re.S)


def is_dynamic(value) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


@lru_cache(maxsize=4096)
def _compile(source: str):
    m = _SINGLE.match(source)
    try:
        if m:
            return "expr", ENV.compile_expression(m.group("e"), undefined_to_none=False)
        return "tmpl", ENV.from_string(source)
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
    try:
        names = {n.name for n in ENV.parse(source).find_all(nodes.Name)}
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
        m = _SINGLE.match(source)
        text = m.group("e") if m else None
    else:
        return {}
    try:
        if text is not None:
            from jinja2.parser import Parser

            parser = Parser(ENV, text, state="variable")
            tree: nodes.Node = parser.parse_expression()
            if not parser.stream.eos:
                return everything
        else:
            tree = ENV.parse(source)
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
        return ENV.compile_expression(s, undefined_to_none=False)
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
    token, made = _steps.set(0), _made.set(0)
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
        _steps.reset(token)
        _made.reset(made)


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
    token, made = _steps.set(0), _made.set(0)
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
        _steps.reset(token)
        _made.reset(made)


def context(card: dict | None, deck: dict | None, game: dict | None) -> dict:
    return {
        "card": Record(card or {}, "card"),
        "deck": Record(deck or {}, "deck"),
        "game": Record(game or {}, "game"),
    }
