"""The Jinja side of template values (`cardgen.layout.expr`): the sandboxed environment every
value that is more than a field read is compiled in, bounded as `cardgen.layout.exprbounds`
says, its undefined value and the filters it has its own versions of.

`expr` imports this module when a value first needs Jinja (`expr.new_environment`): a game
whose templates read only fields (`{{ card.cost }}`) lays out, checks and builds without
importing Jinja (17 to 19 ms of a one-card edit; docs/design.md, "Start-up").
"""
from __future__ import annotations

import math
import re
import textwrap
from typing import Any

from jinja2 import StrictUndefined, Undefined, nodes
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import SecurityError
from jinja2.filters import make_attrgetter
from jinja2.sandbox import (
    ImmutableSandboxedEnvironment,
    SandboxedEscapeFormatter,
    SandboxedFormatter,
    modifies_known_mutable,
)
from jinja2.utils import _PassArg, pass_environment
from markupsafe import Markup

from cardgen.core import limits
from cardgen.layout.exprbounds import (
    _KINDS,
    _SORTING,
    FILTERS,
    METHODS,
    PLAIN_MAPPING,
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
    _pre_binop,
    _pre_call,
    _refuse_text,
    _size,
    _tick,
    _too_long,
    plain_mapping,
)


class _Undefined(StrictUndefined):
    __slots__ = ()

    def _fail_with_undefined_error(self, *args, **kwargs):
        obj = self._undefined_obj
        owner = obj._label if isinstance(obj, Record) else "template"
        raise MissingField(self._undefined_name or "?", owner)

    __str__ = __iter__ = __len__ = __bool__ = __eq__ = __ne__ = __hash__ = _fail_with_undefined_error
    __int__ = __float__ = __add__ = __radd__ = __mul__ = __getitem__ = __lt__ = _fail_with_undefined_error


@pass_environment
def _join_filter(environment, value, d: str = "", attribute=None):
    items = _all_of(value)
    if attribute is not None:
        get = make_attrgetter(environment, attribute)
        items = [get(x) for x in items]
    if isinstance(d, str):
        _refuse_text(len(d) * max(len(items) - 1, 0) + sum(_size(x) for x in items))
    for x in items:
        _check_text_size(x)
    return str(d).join(map(str, items))


@pass_environment
def _sum_filter(environment, iterable, attribute=None, start=0):
    """Jinja's `sum`, in linear time: lists (and texts, refused by Python's own `sum`) are put
    together once, their size checked first, not copied again for every item."""
    items = _all_of(iterable)
    if attribute is not None:
        get = make_attrgetter(environment, attribute)
        items = [get(x) for x in items]
    if isinstance(start, (list, tuple)):
        n = len(start)
        for x in items:
            if not isinstance(x, type(start)):
                raise TypeError(f'can only concatenate {type(start).__name__} (not "{type(x).__name__}") to '
                                f'{type(start).__name__}')
            n += len(x)
            if n > limits.MAX_ITEMS:
                raise _too_long("a list", n, limits.MAX_ITEMS, "CARDGEN_MAX_ITEMS")
        _tick(n // 16)
        out = list(start)
        for x in items:
            out.extend(x)
        return type(start)(out)
    total = start
    for x in items:
        total = environment.call_binop(None, "+", total, x)   # each addition checked: 10**900 + ... stays a number
    return total


@pass_environment
def _wordwrap_filter(environment, s, width: int = 79, break_long_words: bool = True, wrapstring=None,
                     break_on_hyphens: bool = True) -> str:
    """Jinja's `wordwrap`, with the size of what it makes worked out from the wrapped lines
    before they are joined (a long `wrapstring` between 100,000 one-letter lines)."""
    if wrapstring is None:
        wrapstring = environment.newline_sequence
    s, wrapstring = str(s), str(wrapstring)
    if not isinstance(width, int) or width < 1:
        raise ValueError(f"invalid width {width!r} (must be > 0)")
    lines = s.splitlines()
    # what is known before wrapping: `wrapstring` between paragraphs, and (long words broken)
    # at least a line for every `width` characters that are not spaces
    between = len(lines) - 1
    if break_long_words:
        between += sum(max((len(x) - x.count(" ")) // width - 1, 0) for x in lines)
    _refuse_text(len(wrapstring) * max(between, 0))
    paragraphs = []
    n = len(wrapstring) * max(len(lines) - 1, 0)
    for line in lines:
        _tick()
        wrapped = textwrap.wrap(line, width=width, expand_tabs=False, replace_whitespace=False,
                                break_long_words=break_long_words, break_on_hyphens=break_on_hyphens)
        _tick(len(wrapped))
        n += sum(len(x) for x in wrapped) + len(wrapstring) * max(len(wrapped) - 1, 0)
        _refuse_text(n)
        paragraphs.append(wrapped)
    return wrapstring.join(wrapstring.join(p) for p in paragraphs)


_OWN_FILTERS = {"join": _join_filter, "sum": _sum_filter, "wordwrap": _wordwrap_filter}


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

    def make_globals(self, d) -> dict:
        """A template's globals as one plain mapping, made when it is compiled (Jinja's `ChainMap`
        of its own over the environment's was walked twice for every value evaluated: copied
        into each evaluation's context and listed; nothing changes the environment's globals
        once it is made)."""
        return dict(super().make_globals(d))

    def is_safe_attribute(self, obj, attr: str, value) -> bool:
        if type(obj) is Record:     # (every card field read: what the checks below say of a Record, at once)
            return not attr.startswith("_")
        kind = next((k for k in _KINDS if isinstance(obj, k)), None)   # card data's own dict and list too
        if kind is not None and attr not in METHODS[kind]:
            return False
        return super().is_safe_attribute(obj, attr, value)

    def getattr(self, obj, attribute: str):
        _tick()
        if type(obj) is Record and not attribute.startswith("_") and attribute in obj._data:
            return obj[attribute]       # (a card's field: what the sandbox gives, `Record.__getattr__`, safe)
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
