"""One declaration per option.

Every file cardgen reads (game, deck, card, template element, rules, output options) is
declared once, as a frozen dataclass whose fields are made with `opt()`: the key, the
value's kind (type, unit, range or choices), the default and a one-line description.
That one declaration gives

- loading: `Decl.load(mapping, where)` converts every value, fills in defaults and reports
  every problem (unknown keys with "did you mean", wrong types, values out of range) at
  the value's `file:line:col`;
- typed attribute access for the rest of the pipeline (and for mypy);
- the docs tables (`doc_table`, written by `cardgen.pipeline.reference`) and the JSON Schema
  (`Decl.json_schema`, `cardgen.pipeline.jsonschema`).

Template element options may be Jinja expressions (`"{{ card.cost }}"`): such an option is
declared `dynamic=True`; the static check only checks the expression's syntax, and the
layout stage converts the evaluated value with the same kind, per card.
"""
from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.core.units import MM, UNIT_PT, UnitError, color

T = TypeVar("T", bound="Decl")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


class Invalid(Exception):
    """A value does not fit its kind. `message` completes "`key` ...", e.g. "must be a
    number, got 'big'"; `path` leads into nested lists and mappings for the location."""

    def __init__(self, message: str, path: tuple = ()):
        super().__init__(message)
        self.message = message
        self.path = path


def suggest(word: object, choices: Iterable[object], cutoff: float = 0.6) -> str:
    """`; did you mean 'x'?` for the closest choice, or nothing.  A name that differs from a
    choice by look-alike letters of another script (a Cyrillic a, U+0430, in `treasure`) or invisible
    characters says which: `; did you mean 'treasure'? (the name holds a non-Latin look-alike
    letter U+0430 CYRILLIC SMALL LETTER A)`."""
    import difflib  # (here: only a mistake needs it)

    from cardgen.core.confusables import note, skeleton

    text = str(word)
    options = [str(c) for c in choices]
    folded = skeleton(text)
    if folded != text:
        if folded in options:
            return f"; did you mean '{folded}'?{note(text)}"
        match = difflib.get_close_matches(folded, options, n=1, cutoff=cutoff)
        if match:
            return f"; did you mean '{match[0]}'?{note(text)}"
    match = difflib.get_close_matches(text, options, n=1, cutoff=cutoff)
    return f"; did you mean '{match[0]}'?" if match else ""


def show(value: object) -> str:
    """A value as a message quotes it: short, one line, no control characters."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value) if isinstance(value, str) else str(value)
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 60 else text[:57] + "..."


def is_expression(value: object) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


# -- environments ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Env:
    """What conversion may depend on: the card's trim size in points, for `%` lengths."""

    width: float = 100.0
    height: float = 100.0


STATIC_ENV = Env()


@dataclass(frozen=True)
class Percent:
    """A `%` length relative to something only the element knows (its own box)."""

    fraction: float

    def of(self, base: float) -> float:
        return self.fraction * base


def resolve(value: float | Percent, base: float) -> float:
    """A length in points: a plain number as is, a `Percent` of `base`."""
    return value.of(base) if isinstance(value, Percent) else value


# -- kinds of value -------------------------------------------------------------------------

class Kind:
    """A kind of value: converts what YAML gave, describes itself for docs and JSON Schema."""

    def convert(self, value: Any, env: Env) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        """Short type for docs: `length`, `colour`, `one of a, b`."""
        raise NotImplementedError

    def json_schema(self) -> dict:
        raise NotImplementedError

    def show_default(self, default: Any) -> str:
        return show(default) if not isinstance(default, str) else default


class Anything(Kind):
    """Free data: any plain YAML value (`vars:`, card fields)."""

    def convert(self, value: Any, env: Env) -> Any:
        return value

    def describe(self) -> str:
        return "any value"

    def json_schema(self) -> dict:
        return {}


@dataclass(frozen=True)
class Text(Kind):
    """Text. Numbers are accepted as their text (`version: 2`); mappings and lists are not."""

    nonempty: bool = False
    max_length: int = 100_000

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
            raise Invalid(f"must be text, got {show(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise Invalid(f"must be text, got {show(value)}")
        text = value if isinstance(value, str) else str(value)
        if self.nonempty and not text.strip():
            raise Invalid("must not be empty")
        if len(text) > self.max_length:
            raise Invalid(f"is {len(text)} characters long; at most {self.max_length} are allowed")
        return text

    def describe(self) -> str:
        return "text"

    def json_schema(self) -> dict:
        return {"type": ["string", "number"]}


class Bool(Kind):
    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):   # rendered by Jinja
            return value.strip().lower() == "true"
        if not isinstance(value, bool):
            raise Invalid(f"must be true or false, got {show(value)}")
        return value

    def describe(self) -> str:
        return "true/false"

    def json_schema(self) -> dict:
        return {"type": "boolean"}


def _range_text(lo: float | None, hi: float | None, lo_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f"from {lo:g} to {hi:g}" if not lo_open else f"greater than {lo:g} and at most {hi:g}"
    if lo is not None:
        return f"greater than {lo:g}" if lo_open else f"at least {lo:g}"
    if hi is not None:
        return f"at most {hi:g}"
    return ""


def _finite_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                raise Invalid(f"must be {what}, got {show(value)}") from None
            if not math.isfinite(number):
                raise Invalid(f"must be a finite number, got {show(value)}")
            return number
        raise Invalid(f"must be {what}, got {show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise Invalid(f"must be a finite number, got {show(value)}")
    return float(value)


@dataclass(frozen=True)
class Number(Kind):
    """A finite number, optionally bounded; `min_open`: the minimum itself is not allowed."""

    min: float | None = None
    max: float | None = None
    min_open: bool = False
    unit: str = ""

    def convert(self, value: Any, env: Env) -> Any:
        n = _finite_number(value, "a number")
        if (self.min is not None and (n < self.min or (self.min_open and n == self.min))) or \
                (self.max is not None and n > self.max):
            raise Invalid(f"must be a number {_range_text(self.min, self.max, self.min_open)}, got {show(value)}")
        return n

    def describe(self) -> str:
        r = _range_text(self.min, self.max, self.min_open)
        return "number" + (f" ({self.unit})" if self.unit else "") + (f", {r}" if r else "")

    def json_schema(self) -> dict:
        out: dict = {"type": "number"}
        if self.min is not None:
            out["exclusiveMinimum" if self.min_open else "minimum"] = self.min
        if self.max is not None:
            out["maximum"] = self.max
        return out


@dataclass(frozen=True)
class Int(Kind):
    """A whole number (`3.0` is accepted as 3), optionally bounded."""

    min: int | None = None
    max: int | None = None

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str):          # a Jinja expression rendered to text: "3"
            with contextlib.suppress(ValueError):
                value = float(value) if value.strip() else value
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            bounds = " " + _range_text(self.min, self.max) if self.min is not None or self.max is not None else ""
            raise Invalid(f"must be a whole number{bounds}, got {show(value)}")
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise Invalid(f"must be a whole number {_range_text(self.min, self.max)}, got {show(value)}")
        return value

    def describe(self) -> str:
        r = _range_text(self.min, self.max)
        return "whole number" + (f", {r}" if r else "")

    def json_schema(self) -> dict:
        out: dict = {"type": "integer"}
        if self.min is not None:
            out["minimum"] = self.min
        if self.max is not None:
            out["maximum"] = self.max
        return out


_LEN_RE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*(mm|cm|in|pt|px|%)?\s*$")
_LEN_PATTERN = r"^\s*[-+]?(\d+\.?\d*|\.\d+)\s*(mm|cm|in|pt|px|%)?\s*$"
LENGTH_EXAMPLE = "5mm, 0.25in, 10pt or 50%"


# No length is longer than this (10 m), whatever the option: beyond it no card, sheet or page
# makes sense, and numbers as large as 1e308 overflow once turned into points or pixels.
MAX_LENGTH_MM = 10_000.0
MAX_PERCENT = 10_000.0


def _bounded_length(pt: float, value: Any) -> float:
    if not (math.isfinite(pt) and abs(pt) <= MAX_LENGTH_MM * MM):
        raise Invalid(f"must be a length of at most {MAX_LENGTH_MM:,.0f} mm (10 m) either way, got {show(value)}")
    return pt


@dataclass(frozen=True)
class Length(Kind):
    """A length: a bare number is millimetres, or `mm`, `cm`, `in`, `pt`, `px` (300 dpi), and
    `%` of the card's width, height or shorter side where `percent` says which.  Converts to
    points, or to millimetres with `to="mm"`.  `min`/`max` are in millimetres."""

    percent: str | None = None          # "width", "height", "min", "own" (a `Percent`) or None
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    to: str = "pt"

    def convert(self, value: Any, env: Env) -> Any:
        if self.percent == "own" and isinstance(value, str) and value.strip().endswith("%"):
            m = _LEN_RE.match(value)
            if m:
                fraction = float(m.group(1)) / 100.0
                if not abs(fraction) <= MAX_PERCENT / 100 or (self.min is not None and self.min >= 0 and fraction < 0):
                    low = "0" if self.min is not None and self.min >= 0 else f"-{MAX_PERCENT:g}"
                    raise Invalid(f"must be from {low}% to {MAX_PERCENT:g}% of the element's own size, "
                                  f"got {show(value)}")
                return Percent(fraction)
        pt = self.points(value, env)
        mm = pt / MM
        if (self.min is not None and (mm < self.min - 1e-9 or (self.min_open and abs(mm - self.min) < 1e-9))) or \
                (self.max is not None and mm > self.max + 1e-9):
            raise Invalid(f"must be a length {_range_text(self.min, self.max, self.min_open)} mm, got {show(value)}")
        return mm if self.to == "mm" else pt

    def points(self, value: Any, env: Env) -> float:
        example = LENGTH_EXAMPLE if self.percent else "5mm, 0.25in or 10pt"
        if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
            raise Invalid(f"must be a length such as {example}, got {show(value)}")
        if isinstance(value, (int, float)):
            return _bounded_length(_finite_number(value, "a length") * MM, value)
        m = _LEN_RE.match(str(value))
        if not m:
            raise Invalid(f"must be a length such as {example}, got {show(value)}")
        number, unit = float(m.group(1)), m.group(2) or "mm"
        if unit == "%":
            if not self.percent:
                raise Invalid(f"must be a length in mm, in or pt (no %), got {show(value)}")
            base = {"width": env.width, "height": env.height}.get(self.percent, min(env.width, env.height))
            return _bounded_length(number / 100.0 * base, value)
        return _bounded_length(number * UNIT_PT[unit], value)

    def describe(self) -> str:
        pct = {"width": "% of the card's width", "height": "% of the card's height",
               "min": "% of the card's shorter side", "own": "% of the element's own size"}
        r = _range_text(self.min, self.max, self.min_open)
        return "length" + (f" ({pct[self.percent]} allowed)" if self.percent else "") + (f", {r} mm" if r else "")

    def json_schema(self) -> dict:
        return {"anyOf": [{"type": "number"}, {"type": "string", "pattern": _LEN_PATTERN}]}

    def show_default(self, default: Any) -> str:
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            mm = default if self.to == "mm" else default / MM
            return f"{round(mm, 3):g} mm"
        return super().show_default(default)


def _colour_names() -> list[str]:
    from reportlab.lib import colors as rl_colors

    return sorted(name.lower() for name in rl_colors.getAllNamedColors())


class Colour(Kind):
    """`#rgb`, `#rrggbb`, `#rrggbbaa`, a CSS colour name, or `none`: (r, g, b, a) or None."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, (dict, list, bool, int, float)):
            raise Invalid(f"must be a colour such as #1d6a72, a CSS colour name or none, got {show(value)}")
        try:
            return color(value)
        except UnitError:
            hint = suggest(str(value).strip().lower(), _colour_names(), 0.8) if not str(value).startswith("#") else ""
            raise Invalid(f"must be a colour such as #1d6a72, a CSS colour name or none, got {show(value)}"
                          f"{hint}") from None

    def describe(self) -> str:
        return "colour"

    def json_schema(self) -> dict:
        return {"type": ["string", "null"]}


@dataclass(frozen=True)
class Choice(Kind):
    """One of a fixed set of words (case does not matter)."""

    choices: tuple[str, ...]

    def convert(self, value: Any, env: Env) -> Any:
        word = str(value).strip().lower() if isinstance(value, (str, int, float)) and not isinstance(value, bool) \
            else None
        if word not in self.choices:
            raise Invalid(f"must be one of {', '.join(self.choices)}, got {show(value)}"
                          f"{suggest(str(value).lower(), self.choices) if isinstance(value, str) else ''}")
        return word

    def describe(self) -> str:
        return "one of " + ", ".join(f"`{c}`" for c in self.choices)

    def json_schema(self) -> dict:
        return {"enum": list(self.choices)}


@dataclass(frozen=True)
class ListOf(Kind):
    """A list of values of one kind; a single value is not turned into a list."""

    item: Kind
    max_items: int = 10_000
    min_items: int = 0
    nonzero_sum: bool = False           # numbers that may not all be 0 (a dash pattern)

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, list):
            raise Invalid(f"must be a list ({self.item.describe()} each), got {show(value)}")
        if len(value) > self.max_items:
            raise Invalid(f"has {len(value)} items; at most {self.max_items} are allowed")
        if len(value) < self.min_items:
            raise Invalid(f"needs at least {self.min_items} item{'s' if self.min_items != 1 else ''}")
        out = []
        for i, v in enumerate(value):
            try:
                out.append(self.item.convert(v, env))
            except Invalid as exc:
                raise Invalid(f"item {i + 1} {exc.message}", (i, *exc.path)) from None
        if self.nonzero_sum and out and not sum(out) > 0:
            raise Invalid(f"must not be all zeros, got [{', '.join(map(str, value))}]; give a dash and a gap, "
                          f"such as [2, 1]")
        return tuple(out)

    def describe(self) -> str:
        return f"list of {self.item.describe()}" + (", not all 0" if self.nonzero_sum else "")

    def json_schema(self) -> dict:
        return {"type": "array", "items": self.item.json_schema(), "maxItems": self.max_items}


_FEATURE = re.compile(r"-?[A-Za-z0-9]{4}")


class Features(Kind):
    """OpenType feature tags, as a list or as text (`smcp tnum`); `-lnum` turns one off."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, list) or len(value) > 32:
            raise Invalid(f"must be a list of OpenType feature tags such as [smcp, tnum], got {show(value)}")
        out = []
        for i, tag in enumerate(value):
            if not isinstance(tag, str) or not _FEATURE.fullmatch(tag):
                raise Invalid(f"item {i + 1} must be an OpenType feature tag of four letters or digits (lnum, onum, "
                              f"tnum, smcp, ss01, ...), got {show(tag)}", (i,))
            out.append(tag)
        return tuple(dict.fromkeys(out))

    def describe(self) -> str:
        return "list of OpenType feature tags"

    def json_schema(self) -> dict:
        return {"type": ["array", "string"], "items": {"type": "string", "pattern": "^-?[A-Za-z0-9]{4}$"}}


class Language(Kind):
    """A language code that hyphenation has a dictionary for (`en`, `en-GB`, `de`)."""

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*", value):
            raise Invalid(f"must be a language code such as en, en-GB, de or fr, got {show(value)}")
        import pyphen

        if not pyphen.language_fallback(value.replace("-", "_")):
            raise Invalid(f"has no hyphenation dictionary for '{value}'; use a language code such as en, en-GB, de, "
                          f"fr, es, it, nl, pt, pl or sv")
        return value

    def describe(self) -> str:
        return "language code"

    def json_schema(self) -> dict:
        return {"type": "string", "pattern": "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$"}


@dataclass(frozen=True)
class MapOf(Kind):
    """A mapping of names to values of one kind."""

    value: Kind
    key_doc: str = "name"

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, dict):
            raise Invalid(f"must be a mapping of {self.key_doc}: {self.value.describe()}, got {show(value)}")
        out = {}
        for k, v in value.items():
            if isinstance(k, (dict, list)) or k is None:
                raise Invalid(f"has a key that is not a plain name: {show(k)}", (k,))
            try:
                out[str(k)] = self.value.convert(v, env)
            except Invalid as exc:
                raise Invalid(f"'{k}' {exc.message}", (k, *exc.path)) from None
        return out

    def describe(self) -> str:
        return f"mapping of {self.key_doc}: {self.value.describe()}"

    def json_schema(self) -> dict:
        return {"type": "object", "additionalProperties": self.value.json_schema()}


@dataclass(frozen=True)
class OneOf(Kind):
    """The first kind that accepts the value; the message lists what is accepted."""

    kinds: tuple[Kind, ...]
    message: str = ""

    def convert(self, value: Any, env: Env) -> Any:
        for kind in self.kinds:
            try:
                return kind.convert(value, env)
            except Invalid:
                continue
        raise Invalid(self.message.format(value=show(value)) if self.message
                      else f"must be {' or '.join(k.describe() for k in self.kinds)}, got {show(value)}")

    def describe(self) -> str:
        return " or ".join(k.describe() for k in self.kinds)

    def json_schema(self) -> dict:
        return {"anyOf": [k.json_schema() for k in self.kinds]}


@dataclass(frozen=True)
class Nested(Kind):
    """A mapping declared by another `Decl` (`tts:` options, a card size)."""

    decl: type[Decl]

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, dict):
            raise Invalid(f"must be a mapping ({self.decl.__what__}), got {show(value)}")
        problems = self.decl.problems(value, env)
        if problems:
            raise Invalid(problems[0][1], problems[0][0])
        return self.decl.load_unchecked(value, env)

    def describe(self) -> str:
        return f"mapping ({self.decl.__what__})"

    def json_schema(self) -> dict:
        return self.decl.json_schema()


# -- options and declarations ----------------------------------------------------------------

@dataclass(frozen=True)
class Opt:
    """One option: what `opt()` records on a declaration's field."""

    kind: Kind
    doc: str
    default: Any = REQUIRED
    dynamic: bool = False           # may be a Jinja expression, evaluated per card
    default_doc: str = ""           # the default in words, where it is computed
    cli: str = ""                   # command-line flag that sets it (output options)
    key: str = ""                   # YAML key (default: the field's name)
    group: str = ""                 # docs: the shared group it comes from (box, paint, ...)

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def default_text(self) -> str:
        if self.default_doc:
            return self.default_doc
        if self.required:
            return "required"
        if self.default is None:
            return "none"
        return self.kind.show_default(self.default)


def opt(kind: Kind, doc: str, default: Any = REQUIRED, *, dynamic: bool = False, default_doc: str = "",
        cli: str = "", key: str = "", group: str = "") -> Any:
    """A declared option, as a dataclass field: `size: float = opt(Number(min=0), "font size", 9.0)`."""
    meta = {"cardgen": Opt(kind, doc, default, dynamic, default_doc, cli, key, group)}
    if default is REQUIRED:
        return field(default=None, metadata=meta)
    if isinstance(default, (list, dict, set)):
        raise TypeError("option defaults must be immutable (use a tuple)")
    return field(default=default, metadata=meta)


def _loc_in(data: Any, key: Any, path: tuple, fallback: Loc) -> Loc:
    """Location of data[key] followed by `path` into nested YAML lists and mappings."""
    loc = data.value_loc(key) if hasattr(data, "value_loc") else fallback
    node = data.get(key) if isinstance(data, dict) else None
    for step in path:
        if isinstance(node, dict) and step in node:
            loc = node.value_loc(step) if hasattr(node, "value_loc") else loc
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            loc = node.item_loc(step) if hasattr(node, "item_loc") else loc
            node = node[step]
        else:
            break
    return loc


@dataclass(frozen=True, kw_only=True)
class Decl:
    """Base of every declaration: a frozen, keyword-only dataclass whose fields are `opt()`s.

    Class attributes: `__what__` names the mapping in messages ("game.yaml", "deck file"),
    `__extra__` says what to do with keys that are not declared: "error" (unknown key, with
    did-you-mean), or "keep" (free fields, like a card's)."""

    __what__: ClassVar[str] = "mapping"
    __doc_title__: ClassVar[str] = ""
    __extra__: ClassVar[str] = "error"
    __options: ClassVar[dict[type, dict[str, tuple[str, Opt]]]] = {}

    @classmethod
    def options(cls) -> dict[str, tuple[str, Opt]]:
        """YAML key -> (attribute name, option), in declaration order."""
        cached = Decl.__options.get(cls)
        if cached is None:
            cached = {}
            for f in fields(cls):
                o = f.metadata.get("cardgen")
                if o is not None:
                    cached[o.key or f.name] = (f.name, o)
            Decl.__options[cls] = cached
        return cached

    @classmethod
    def problems(cls, data: Mapping, env: Env = STATIC_ENV, *, skip_dynamic: bool = False,
                 only: Iterable[str] | None = None, allow: Container[object] = ()) -> list[tuple[tuple, str]]:
        """Every problem of `data` as (path, message) pairs; path[0] is the key, if any.
        `skip_dynamic`: expressions in dynamic options are left for the layout stage; keys in
        `allow` are not unknown (another declaration checks them)."""
        out: list[tuple[tuple, str]] = []
        opts = cls.options()
        keys = set(only) if only is not None else None
        if cls.__extra__ == "error":
            for key in data:
                if key not in opts and key not in allow:
                    out.append(((key, "<key>"), f"unknown key '{_safe_key(key)}'{suggest(key, opts)}"))
        for key, (_, o) in opts.items():
            if keys is not None and key not in keys:
                continue
            if key not in data:
                if o.required:
                    out.append(((), f"has no `{key}:` ({o.doc})"))
                continue
            value = data[key]
            if skip_dynamic and o.dynamic and is_expression(value):
                continue
            try:
                o.kind.convert(value, env)
            except Invalid as exc:
                out.append(((key, *exc.path), f"`{key}` {exc.message}"))
        return out

    @classmethod
    def diagnostics(cls, data: Mapping, where: str, fallback: Loc, env: Env = STATIC_ENV, *,
                    skip_dynamic: bool = False, code: str = "schema") -> list[Diagnostic]:
        """`problems()` as located diagnostics, each message starting with `where`."""
        out = []
        for path, message in cls.problems(data, env, skip_dynamic=skip_dynamic):
            if not path:
                loc = data.loc if hasattr(data, "loc") else fallback
            elif path[-1:] == ("<key>",):
                loc = data.key_loc(path[0]) if hasattr(data, "key_loc") else fallback
                code_ = "unknown-key"
                out.append(Diagnostic(loc, f"{where}: {message}", "error", code_))
                continue
            else:
                loc = _loc_in(data, path[0], path[1:], fallback)
            out.append(Diagnostic(loc, f"{where}: {message}", "error", code))
        return out

    @classmethod
    def load_unchecked(cls: type[T], data: Mapping, env: Env = STATIC_ENV) -> T:
        """Build the typed object from data that `problems()` found nothing wrong with
        (or whose problems were reported): values that do not convert take the default."""
        kwargs: dict[str, Any] = {}
        for key, (attr, o) in cls.options().items():
            if key in data:
                try:
                    kwargs[attr] = o.kind.convert(data[key], env)
                    continue
                except Invalid:
                    pass
            kwargs[attr] = None if o.required else o.default
        obj = cls(**kwargs)
        if cls.__extra__ == "keep":
            object.__setattr__(obj, "_extra", {k: v for k, v in data.items() if k not in cls.options()})
        return obj

    @classmethod
    def load(cls: type[T], data: Mapping, where: str, fallback: Loc, env: Env = STATIC_ENV) -> T:
        """The typed object; every problem at once as a CardgenError."""
        diags = cls.diagnostics(data, where, fallback, env)
        if diags:
            raise CardgenError(None, diagnostics=diags)
        return cls.load_unchecked(data, env)

    @classmethod
    def default_values(cls) -> dict[str, Any]:
        return {key: o.default for key, (_, o) in cls.options().items() if not o.required}

    @classmethod
    def json_schema(cls) -> dict:
        props: dict[str, Any] = {}
        required = []
        for key, (_, o) in cls.options().items():
            s = dict(o.kind.json_schema())
            if o.dynamic:
                s = {"anyOf": [s, {"type": "string", "pattern": r"\{[{%]"}]} if s else {}
            s["description"] = o.doc
            if not o.required and o.default is not None and _json_plain(o.default):
                s["default"] = list(o.default) if isinstance(o.default, tuple) else o.default
            props[key] = s
            if o.required:
                required.append(key)
        out: dict[str, Any] = {"type": "object", "properties": props,
                               "additionalProperties": cls.__extra__ != "error"}
        if props and cls.__extra__ == "error":       # a translation beside its key (`text@de`: docs/languages.md)
            names = "|".join(re.escape(k) for k in props)
            out["patternProperties"] = {f"^(?:{names})@{LANGUAGE_CODE}$": {}}
        if cls.__doc_title__:
            out["title"] = cls.__doc_title__
        if required:
            out["required"] = required
        return out


# a language code as `FIELD@LANG` and `languages:` take it (an ISO 639 language, then a region
# or script: `de`, `pt-BR`, `zh-Hant`; cardgen.schema.languages)
LANGUAGE_CODE = r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*"


def _json_plain(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, (str, int, bool)):
        return True
    if isinstance(v, tuple):
        return all(_json_plain(x) for x in v)
    return False


def _safe_key(key: Any) -> str:
    text = str(key)
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 60 else text[:57] + "..."


def doc_table(decl: type[Decl], keys: Callable[[str, Opt], bool] | None = None) -> str:
    """The Markdown table of a declaration's options: key, kind, default, meaning."""
    rows = ["| key | value | default | meaning |", "|---|---|---|---|"]
    for key, (_, o) in decl.options().items():
        if keys is not None and not keys(key, o):
            continue
        kind = o.kind.describe() + (", expression" if o.dynamic else "")
        rows.append(f"| `{key}` | {kind} | {o.default_text()} | {o.doc} |")
    return "\n".join(rows)
