"""Template values: plain YAML values or Jinja2 expressions, evaluated in a sandbox.

`"{{ card.cost }}"` alone keeps the value's type (a number stays a number);
anything else with `{{ }}` or `{% %}` renders to a string.  Each distinct string is
compiled once.
"""
from __future__ import annotations

import re
from contextvars import ContextVar
from functools import cache

from jinja2 import StrictUndefined, TemplateSyntaxError, Undefined, nodes
from jinja2.compiler import CodeGenerator
from jinja2.constants import LOREM_IPSUM_WORDS
from jinja2.exceptions import SecurityError, TemplateError, UndefinedError
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, modifies_known_mutable

from cardgen.core import limits


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


class LimitError(Exception):
    """An expression tried to make or compute more than the limits allow (`cardgen.core.limits`)."""


_steps: ContextVar[int] = ContextVar("cardgen_expr_steps", default=0)
# Characters of text all the strings one evaluation makes add up to: each may be within
# MAX_TEXT and still, made 40,000 times (`map`, a loop), fill the memory.
_made: ContextVar[int] = ContextVar("cardgen_expr_made", default=0)
TOTAL_TEXT_FACTOR = 20
_INT_BITS = int(limits.MAX_INT_DIGITS * 3.33) + 1
# filters that turn what they are given into text (`join` of a list of long texts)
_TEXT_MAKING = {"string", "tojson", "pprint", "format", "join", "center", "indent", "wordwrap", "truncate",
                "replace", "urlize", "striptags", "title", "upper", "lower", "capitalize", "trim", "escape", "e",
                "forceescape", "safe", "xmlattr", "urlencode", "filesizeformat"}
_AMPLIFYING = {"center", "ljust", "rjust", "zfill", "expandtabs", "indent", "wordwrap", "truncate", "batch",
               "slice", "format", "replace", "join", "mul"}


def _tick(n: int = 1) -> None:
    steps = _steps.get() + n
    _steps.set(steps)
    if steps > limits.MAX_STEPS:
        raise LimitError(f"the expression takes more than {limits.MAX_STEPS:,} steps (loops too long?); "
                         f"simplify it (limit CARDGEN_MAX_STEPS)")


def _too_long(what: str, n: int, limit: int, var: str) -> LimitError:
    return LimitError(f"the expression would make {what} of {n:,} (more than {limit:,}); simplify it "
                      f"(limit {var})")


def _count_made(n: int) -> None:
    made = _made.get() + n
    _made.set(made)
    if made > limits.MAX_TEXT * TOTAL_TEXT_FACTOR:
        raise LimitError(f"the expression makes more than {limits.MAX_TEXT * TOTAL_TEXT_FACTOR:,} characters of "
                         f"text in all ({TOTAL_TEXT_FACTOR} times CARDGEN_MAX_TEXT); simplify it")


def _text_size(value, budget: int, depth: int = 0) -> int:
    """At least how many characters `value` makes as text (`str()`, `tojson`, `%s`), counted
    without making it; stops counting past `budget`.  Containers count each item every time it
    appears (a list of one long text repeated 40,000 times is 40,000 long texts)."""
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, (list, tuple, set, frozenset, dict)) or (depth and isinstance(value, Record)):
        items = value.items() if isinstance(value, dict) else value
        total = 2
        for item in items:
            total += 2 + (_text_size(item, budget - total, depth + 1) if depth < 50 else 0)
            if total > budget:
                break
        return total
    return 0


def _check_text_size(value, what: str = "a text") -> None:
    """Refuse `value` before it is made into text, if that text would pass MAX_TEXT."""
    if isinstance(value, (list, tuple, set, frozenset, dict, bytes)):
        n = _text_size(value, limits.MAX_TEXT)
        if n > limits.MAX_TEXT:
            raise LimitError(f"the expression would make {what} of more than {limits.MAX_TEXT:,} characters "
                             f"(from a list or mapping this large); simplify it (limit CARDGEN_MAX_TEXT)")


def _check_value(value):
    """`value` if its size is within the limits, else LimitError."""
    if isinstance(value, (str, bytes)):
        if len(value) > limits.MAX_TEXT:
            raise _too_long("a text", len(value), limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
        _count_made(len(value))
    elif isinstance(value, bool):
        pass
    elif isinstance(value, int):
        if value.bit_length() > _INT_BITS:
            raise LimitError(f"the expression would make a number with more than {limits.MAX_INT_DIGITS:,} "
                             f"digits; simplify it (limit CARDGEN_MAX_INT_DIGITS)")
    elif isinstance(value, (list, tuple, dict, set)) and len(value) > limits.MAX_ITEMS:
        raise _too_long("a list", len(value), limits.MAX_ITEMS, "CARDGEN_MAX_ITEMS")
    return value


def _length(value) -> int | None:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else None


def _check_ints(args, what: str) -> None:
    for a in args:
        if isinstance(a, int) and not isinstance(a, bool) and abs(a) > limits.MAX_TEXT:
            raise LimitError(f"{what}: {a:,} is more than {limits.MAX_TEXT:,} (limit CARDGEN_MAX_TEXT)")


def _check_format(fmt: str) -> None:
    """A printf or str.format pattern asking for a huge width or precision."""
    for m in re.finditer(r"\d{6,}", fmt):
        if int(m.group()) > limits.MAX_TEXT:
            raise LimitError(f"a format width of {int(m.group()):,} is more than {limits.MAX_TEXT:,} "
                             f"(limit CARDGEN_MAX_TEXT)")
    if re.search(r"%[-+ #0]*\*", fmt):
        raise LimitError("a `*` width in a % format is not allowed in a template; write the width out")


def _pre_binop(op: str, left, right) -> None:
    if op == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
        if right * max(abs(left).bit_length() - 1, 1) > _INT_BITS:
            raise LimitError(f"the expression would make a number with more than {limits.MAX_INT_DIGITS:,} "
                             f"digits; simplify it (limit CARDGEN_MAX_INT_DIGITS)")
    elif op == "*":
        for seq, n in ((left, right), (right, left)):
            size = _length(seq)
            if size is not None and isinstance(n, int) and not isinstance(n, bool):
                if isinstance(seq, (str, bytes)) and size * n > limits.MAX_TEXT:
                    raise _too_long("a text", size * n, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
                if not isinstance(seq, (str, bytes)) and size * n > limits.MAX_ITEMS:
                    raise _too_long("a list", size * n, limits.MAX_ITEMS, "CARDGEN_MAX_ITEMS")
        if isinstance(left, int) and isinstance(right, int) and \
                left.bit_length() + right.bit_length() > _INT_BITS + 1:
            raise LimitError(f"the expression would make a number with more than {limits.MAX_INT_DIGITS:,} "
                             f"digits; simplify it (limit CARDGEN_MAX_INT_DIGITS)")
    elif op == "+":
        a, b = _length(left), _length(right)
        if a is not None and b is not None and a + b > limits.MAX_TEXT:
            raise _too_long("a text" if isinstance(left, str) else "a list", a + b, limits.MAX_TEXT,
                            "CARDGEN_MAX_TEXT")
    elif op == "%" and isinstance(left, str):
        _check_format(left)
        _check_text_size(right)


def _pre_call(obj, args, kwargs) -> None:
    name = getattr(obj, "__name__", "")
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, (str, bytes)):
        if name in ("format", "format_map") and isinstance(owner, str):
            _check_format(owner)
        elif name == "replace":
            _check_replace(owner, *args[:2])
        elif name == "join" and args and isinstance(args[0], (str, bytes, list, tuple)):
            parts = args[0]
            n = len(owner) * max(len(parts) - 1, 0) + sum(len(x) for x in parts if isinstance(x, (str, bytes)))
            if n > limits.MAX_TEXT:
                raise _too_long("a text", n, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
        elif name == "expandtabs":
            size = args[0] if args else kwargs.get("tabsize", 8)
            tabs = owner.count("\t") if isinstance(owner, str) else owner.count(b"\t")
            if isinstance(size, int) and len(owner) + tabs * size > limits.MAX_TEXT:
                raise _too_long("a text", len(owner) + tabs * size, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
        _check_ints([*args, *kwargs.values()], f"'{name}'")
        for a in (*args, *kwargs.values()):
            _check_text_size(a)


def _check_replace(text, old=None, new=None) -> None:
    """Refuse a replacement whose result would pass MAX_TEXT (its length is known in advance)."""
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        n = len(text) + text.count(old) * (len(new) - len(old))
        if n > limits.MAX_TEXT:
            raise _too_long("a text", n, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")


class _CountingRange:
    """range() for templates: at most MAX_RANGE long, each turn counted as a step."""

    def __init__(self, *args: int):
        for a in args:
            if isinstance(a, int) and a.bit_length() > 63:
                raise _too_long("a range", abs(a), limits.MAX_RANGE, "CARDGEN_MAX_RANGE")
        self.r = range(*args)
        if len(self.r) > limits.MAX_RANGE:
            raise _too_long("a range", len(self.r), limits.MAX_RANGE, "CARDGEN_MAX_RANGE")

    def __iter__(self):
        for i in self.r:
            _tick()
            yield i

    def __len__(self) -> int:
        return len(self.r)

    def __contains__(self, x) -> bool:
        return x in self.r


def _lipsum(n: int = 5, html: bool = False, min: int = 20, max: int = 100) -> str:
    if not all(isinstance(v, int) for v in (n, min, max)) or n > limits.MAX_LIPSUM or max > 1000 or min > 1000:
        raise LimitError(f"lipsum() is limited to {limits.MAX_LIPSUM} paragraphs of at most 1000 words "
                         f"(limit CARDGEN_MAX_LIPSUM)")
    return _check_value(_lorem(n, bool(html), min, max))


def _lorem(n: int, html: bool, least: int, most: int) -> str:
    """`n` paragraphs of `least` to `most` placeholder words, in sentences.  Unlike Jinja's
    own lipsum, the same arguments give the same text (builds stay byte-identical)."""
    import random

    rng = random.Random(f"cardgen lipsum {n} {least} {most}")
    words = LOREM_IPSUM_WORDS.split()
    paragraphs = []
    for _ in range(n):
        chosen = [rng.choice(words) for _ in range(rng.randint(least, most) if most > least else max(least, 1))]
        sentences, i = [], 0
        while i < len(chosen):
            step = rng.randint(5, 12)
            sentence = " ".join(chosen[i:i + step])
            sentences.append(sentence[:1].upper() + sentence[1:] + ".")
            i += step
        paragraphs.append(" ".join(sentences))
    if html:
        return "\n".join(f"<p>{para}</p>" for para in paragraphs)
    return "\n\n".join(paragraphs)


class _BoundedCodeGenerator(CodeGenerator):
    def visit_Concat(self, node: nodes.Concat, frame) -> None:
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox templates run in: immutable (no `append`, `update`, ... on card, deck or game
    data), and bounded: every operation, call and loop turn counts against MAX_STEPS, and no
    string, list or integer may grow past the limits in `cardgen.core.limits`."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset(["*", "**", "+", "%", "//", "/", "-"])
    intercepted_unops = frozenset(["-", "+"])

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.globals["range"] = _CountingRange
        self.globals["lipsum"] = _lipsum
        self.filters = {name: self._bounded_filter(name, f) for name, f in self.filters.items()}

    @staticmethod
    def _bounded_filter(name: str, f):
        def run(*args, **kwargs):
            _tick()
            plain = [a for a in args if not isinstance(a, (EvalContext, Context))]
            if name in _AMPLIFYING:
                _check_ints([*args[1:], *kwargs.values()], f"filter '{name}'")
                if name == "format" and plain and isinstance(plain[0], str):
                    _check_format(plain[0])
                if name == "replace" and len(plain) >= 3:
                    _check_replace(*plain[:3])
                if name == "indent" and plain and isinstance(plain[0], str):
                    width = plain[1] if len(plain) > 1 else kwargs.get("width", 4)
                    w = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
                    n = len(plain[0]) + (plain[0].count("\n") + 1) * w
                    if n > limits.MAX_TEXT:
                        raise _too_long("a text", n, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
            if name == "join" and plain and isinstance(plain[0], (list, tuple)):
                sep = plain[1] if len(plain) > 1 and isinstance(plain[1], str) else kwargs.get("d", "")
                parts = plain[0]
                n = sum(len(x) for x in parts if isinstance(x, str)) + len(sep) * max(len(parts) - 1, 0)
                if n > limits.MAX_TEXT:
                    raise _too_long("a text", n, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
            if name in _TEXT_MAKING:
                for a in (*plain, *kwargs.values()):
                    _check_text_size(a)
            return _check_value(f(*args, **kwargs))

        for attr in ("jinja_pass_arg",):
            if hasattr(f, attr):
                setattr(run, attr, getattr(f, attr))
        run.__name__ = getattr(f, "__name__", name)
        return run

    def wrap_str_format(self, value):
        """`str.format` and `format_map` as the sandbox runs them, with their pattern and
        arguments checked first (a width given as an argument: `'{:{}}'.format('a', 10**9)`)."""
        fmt = super().wrap_str_format(value)
        if fmt is None:
            return None

        def checked(*args, **kwargs):
            _pre_call(value, args, kwargs)
            return fmt(*args, **kwargs)

        return checked

    def bounded_concat(self, parts) -> str:
        _tick()
        total = 0
        out = []
        for p in parts:
            _check_text_size(p)
            s = str(p)
            total += len(s)
            if total > limits.MAX_TEXT:
                raise _too_long("a text", total, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")
            out.append(s)
        return "".join(out)

    def call_binop(self, context, operator: str, left, right):
        _tick()
        _pre_binop(operator, left, right)
        return _check_value(super().call_binop(context, operator, left, right))

    def call_unop(self, context, operator: str, arg):
        _tick()
        return super().call_unop(context, operator, arg)

    def call(__self, __context, __obj, *args, **kwargs):
        _tick()
        _pre_call(__obj, args, kwargs)
        return _check_value(super().call(__context, __obj, *args, **kwargs))

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
    kind = ("a method or function" if callable(value) and not isinstance(value, type)
            else "a class" if isinstance(value, type) else f"a {type(value).__name__.lstrip('_')} object")
    hint = " (call it with `()`, such as card.name.upper())" if kind == "a method or function" else ""
    raise ExprError(f"the expression gives {kind}, not text or a number{hint}")


def _finalize(value):
    """Every `{{ }}` of a text before it is written out: a list or mapping too large to print is
    refused before it is turned into text, and so is what is not data (`_plain_result`)."""
    _check_text_size(value)
    return _plain_result(value)


ENV = BoundedEnvironment(undefined=_Undefined, autoescape=False, trim_blocks=True, lstrip_blocks=True,
                         finalize=_finalize)
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
def reads_card(source: str) -> bool:
    """Whether a template value may differ between cards of one deck: it names `card` (or
    `lipsum`, new text each time).  One that does not depends only on `deck` and `game`, so
    the layout works it out once per deck."""
    if not is_dynamic(source):
        return False
    try:
        names = {n.name for n in ENV.parse(source).find_all(nodes.Name)}
    except TemplateSyntaxError:
        return True
    return bool(names & {"card", "lipsum"})


DATA_ROOTS = ("deck", "game")


@cache
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
    except TemplateSyntaxError:
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
    token, made = _steps.set(0), _made.set(0)
    try:
        if kind == "expr":
            result = compiled(**ctx)
            if isinstance(result, _Undefined):
                str(result)  # raises MissingField
            return _check_value(_plain_result(result))
        return _render_bounded(compiled, ctx)
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
