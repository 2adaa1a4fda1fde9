"""Template values: plain YAML values or Jinja2 expressions, evaluated in a sandbox.

`"{{ card.cost }}"` alone keeps the value's type (a number stays a number);
anything else with `{{ }}` or `{% %}` renders to a string.  Each distinct string is
compiled once.
"""
from __future__ import annotations

import re
from functools import cache

from jinja2 import StrictUndefined, TemplateSyntaxError
from jinja2.exceptions import SecurityError, TemplateError, UndefinedError
from jinja2.sandbox import SandboxedEnvironment


class MissingField(Exception):
    """A template asked for a field the card (or deck, or game) does not have."""

    def __init__(self, name: str, owner: str):
        self.name, self.owner = name, owner
        super().__init__(f"{owner} has no field '{name}'")


class ExprError(Exception):
    pass


class Record:
    """Read-only view of a mapping for templates: `card.cost` and `card['cost']`.

    Unlike a dict, no method names shadow fields (a card may have a field `items`)."""

    __slots__ = ("_data", "_label")

    def __init__(self, data: dict, label: str):
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_label", label)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return _wrap(self._data[name], f"{self._label}.{name}")
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key):
        return _wrap(self._data[key], f"{self._label}.{key}")

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __bool__(self):
        return bool(self._data)

    def __repr__(self):
        return f"<{self._label}>"

    def __str__(self):
        return str(self._data.get("name", self._label)) if isinstance(self._data, dict) else self._label


def _wrap(value, label):
    if isinstance(value, dict):
        return Record(value, label)
    return value


class _Undefined(StrictUndefined):
    __slots__ = ()

    def _fail_with_undefined_error(self, *args, **kwargs):
        obj = self._undefined_obj
        owner = obj._label if isinstance(obj, Record) else "template"
        raise MissingField(self._undefined_name or "?", owner)

    __str__ = __iter__ = __len__ = __bool__ = __eq__ = __ne__ = __hash__ = _fail_with_undefined_error
    __int__ = __float__ = __add__ = __radd__ = __mul__ = __getitem__ = __lt__ = _fail_with_undefined_error


ENV = SandboxedEnvironment(undefined=_Undefined, autoescape=False, trim_blocks=True, lstrip_blocks=True)
_SINGLE = re.compile(r"^\s*\{\{(?P<e>(?:(?!\{\{|\}\}).)*)\}\}\s*$", re.S)


def is_dynamic(value) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


@cache
def _compile(source: str):
    m = _SINGLE.match(source)
    try:
        if m:
            return "expr", ENV.compile_expression(m.group("e"), undefined_to_none=False)
        return "tmpl", ENV.from_string(source)
    except TemplateSyntaxError as exc:
        raise ExprError(f"bad template expression {source!r}: {exc.message}") from None


@cache
def _compile_condition(source: str):
    s = source.strip()
    m = _SINGLE.match(s)
    if m:
        s = m.group("e")
    try:
        return ENV.compile_expression(s, undefined_to_none=False)
    except TemplateSyntaxError as exc:
        raise ExprError(f"bad condition {source!r}: {exc.message}") from None


def check_syntax(value) -> str | None:
    """None if the value compiles, else the error message."""
    try:
        if is_dynamic(value):
            _compile(value)
    except ExprError as exc:
        return str(exc)
    return None


def evaluate(value, ctx: dict):
    """Evaluate a template value against `ctx` (plain values pass through)."""
    if not is_dynamic(value):
        return value
    kind, compiled = _compile(value)
    try:
        if kind == "expr":
            result = compiled(**ctx)
            if isinstance(result, _Undefined):
                str(result)  # raises MissingField
            return result
        return compiled.render(**ctx)
    except (MissingField, ExprError):
        raise
    except SecurityError as exc:
        raise ExprError(f"not allowed in a template: {exc}") from None
    except UndefinedError as exc:
        raise ExprError(str(exc)) from None
    except TemplateError as exc:
        raise ExprError(f"{value!r}: {exc}") from None
    except Exception as exc:  # arithmetic on text and the like
        raise ExprError(f"{value!r}: {type(exc).__name__}: {exc}") from None


def condition(value, ctx: dict) -> bool:
    """`when:` values: a boolean, or a Jinja expression with or without braces."""
    if isinstance(value, bool) or value is None:
        return bool(value)
    if not isinstance(value, str):
        return bool(value)
    try:
        result = _compile_condition(value)(**ctx)
        if isinstance(result, _Undefined):
            str(result)
        return bool(result)
    except (MissingField, ExprError):
        raise
    except Exception as exc:
        raise ExprError(f"condition {value!r}: {exc}") from None


def context(card: dict | None, deck: dict | None, game: dict | None) -> dict:
    return {
        "card": Record(card or {}, "card"),
        "deck": Record(deck or {}, "deck"),
        "game": Record(game or {}, "game"),
    }
