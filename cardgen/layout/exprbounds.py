"""What bounds a template's evaluation (`cardgen.layout.expr` uses it): card data as read-only
records, the steps and text counted as an expression runs, the filters and methods offered
(each with how it is bounded), and the checks made before a text, list or number is made
(docs/security.md#templates)."""
from __future__ import annotations

import re
from collections.abc import Iterable
from contextvars import ContextVar, Token
from typing import Any

from cardgen.core import limits


class MissingField(Exception):
    """A template asked for a field the card (or deck, or game) does not have."""

    def __init__(self, name: str, owner: str):
        self.name, self.owner = name, owner
        super().__init__(f"{owner} has no field '{name}'")


class ExprError(Exception):
    """An expression that cannot give a value; `field`: the card field at fault, if one is
    (`text` for `{{ card.text }}` printing a mapping), for the error's place."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


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


# the filters that read a mapping as a dict (its `items()`), which a Record has not (a card may
# have a field `items`): they are given one
PLAIN_MAPPING = frozenset({"dictsort", "items", "tojson"})


def plain_mapping(record: Record, deep: bool = False) -> dict:
    """A Record as a dict for a filter: its fields, mappings among them still Records (`deep`:
    the data as it is, for `tojson`)."""
    if deep:
        return dict(record._data)
    return {k: _wrap(v, f"{record._label}.{k}") for k, v in record._data.items()}


class LimitError(Exception):
    """An expression tried to make or compute more than the limits allow (`cardgen.core.limits`)."""


# What one evaluation has done so far: [steps, characters of text all the strings it made add
# up to] (each string may be within MAX_TEXT and still, made 40,000 times (`map`, a loop), fill
# the memory). One list a value evaluated (`counting`), changed in place: a context variable
# set and reset twice a value was a tenth of evaluating `{{ card.name }}`.
_counts: ContextVar[list[int]] = ContextVar("cardgen_expr_counts")


def counting() -> Token[list[int]]:
    """Counts from nothing for one value's evaluation; `_counts.reset(token)` after it."""
    return _counts.set([0, 0])


def _current() -> list[int]:
    counts = _counts.get(None)
    if counts is None:      # (counted outside an evaluation: from nothing, in this context)
        counts = [0, 0]
        _counts.set(counts)
    return counts
TOTAL_TEXT_FACTOR = 20
_INT_BITS = int(limits.MAX_INT_DIGITS * 3.33) + 1
# filters that turn what they are given into text (`join` of a list of long texts)
# How each filter Jinja offers is bounded.  A filter this table does not name is not offered
# to templates (tests/test_limits.py runs every one of them against its limit); `random` is
# not offered: a build makes the same bytes every time.
#   "small": its result is at most a few times the size of what it is given, in as many steps;
#   "text":  makes text of what it is given (a list or mapping printed), its size checked first;
#   "each":  goes through what it is given item by item, each item one step;
#   "whole": reads all of what it is given first, each item a step (sorting: n log n steps);
#   "sized": makes text whose size follows from its arguments, worked out and checked first.
FILTERS = {
    "abs": "small", "attr": "small", "count": "small", "d": "small", "default": "small", "first": "small",
    "float": "small",
    "int": "small", "last": "small", "length": "small", "round": "small",
    "filesizeformat": "small",
    "capitalize": "text", "e": "text", "escape": "text", "forceescape": "text", "lower": "text",
    "pprint": "text", "safe": "text", "string": "text", "striptags": "text", "title": "text", "tojson": "text",
    "trim": "text", "truncate": "text", "upper": "text", "urlencode": "text", "wordcount": "text",
    "xmlattr": "text",
    "batch": "each", "list": "each", "map": "each", "max": "each", "min": "each",
    "reject": "each", "rejectattr": "each", "select": "each", "selectattr": "each", "slice": "each",
    "dictsort": "whole", "groupby": "whole", "items": "whole", "reverse": "whole", "sort": "whole",
    "unique": "whole",
    "center": "sized", "format": "sized", "indent": "sized", "join": "sized", "replace": "sized", "sum": "sized",
    "urlize": "sized", "wordwrap": "sized",
}
_SORTING = {"sort", "groupby", "dictsort"}

# The methods templates may call on values of these types; any other is refused.  "bounded":
# its result is at most a few times the size of its object and arguments; "checked": its
# result's size is worked out and checked before it is made (`_pre_call`).
_STR_BOUNDED = {
    "capitalize", "casefold", "count", "encode", "endswith", "find", "index", "isalnum", "isalpha", "isascii",
    "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle",
    "isupper", "lower", "lstrip", "maketrans", "partition", "removeprefix", "removesuffix", "rfind", "rindex",
    "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper",
    "striptags", "unescape", "escape", "decode", "fromhex", "hex",
}
_STR_CHECKED = {"center", "ljust", "rjust", "zfill", "expandtabs", "format", "format_map", "join", "replace",
                "translate"}
METHODS: dict[type, frozenset[str]] = {
    str: frozenset(_STR_BOUNDED | _STR_CHECKED),
    bytes: frozenset(_STR_BOUNDED | _STR_CHECKED),
    int: frozenset({"as_integer_ratio", "bit_count", "bit_length", "conjugate", "denominator", "imag",
                    "numerator", "real", "is_integer", "to_bytes", "from_bytes"}),
    float: frozenset({"as_integer_ratio", "conjugate", "fromhex", "hex", "imag", "is_integer", "real"}),
    list: frozenset({"copy", "count", "index"}),
    tuple: frozenset({"count", "index"}),
    dict: frozenset({"copy", "fromkeys", "get", "items", "keys", "values"}),
    set: frozenset({"copy", "difference", "intersection", "isdisjoint", "issubset", "issuperset",
                    "symmetric_difference", "union"}),
    frozenset: frozenset({"copy", "difference", "intersection", "isdisjoint", "issubset", "issuperset",
                          "symmetric_difference", "union"}),
}
METHODS[bool] = METHODS[int]
_KINDS = (bool, int, float, str, bytes, list, tuple, dict, frozenset, set)


def _tick(n: int = 1) -> None:
    counts = _current()
    counts[0] = steps = counts[0] + n
    if steps > limits.MAX_STEPS:
        raise LimitError(f"the expression takes more than {limits.MAX_STEPS:,} steps (loops too long?); "
                         f"simplify it (limit CARDGEN_MAX_STEPS)")


def _counted(iterable):
    """`iterable`, one step for each item taken from it: every `for` of a template and every
    filter that goes through a list, a text or a mapping runs through this."""
    for item in iterable:
        _tick()
        yield item


def _all_of(value) -> list:
    """Everything in `value` as a list, a step for each item (and refused past MAX_ITEMS)."""
    out = []
    for item in _counted(value):
        out.append(item)
        if len(out) > limits.MAX_ITEMS:
            raise _too_long("a list", len(out), limits.MAX_ITEMS, "CARDGEN_MAX_ITEMS")
    return out


def _too_long(what: str, n: int, limit: int, var: str) -> LimitError:
    return LimitError(f"the expression would make {what} of {n:,} (more than {limit:,}); simplify it "
                      f"(limit {var})")


def _refuse_text(n: int) -> None:
    if n > limits.MAX_TEXT:
        raise _too_long("a text", n, limits.MAX_TEXT, "CARDGEN_MAX_TEXT")


def _count_made(n: int) -> None:
    counts = _current()
    counts[1] = made = counts[1] + n
    if made > limits.MAX_TEXT * TOTAL_TEXT_FACTOR:
        raise LimitError(f"the expression makes more than {limits.MAX_TEXT * TOTAL_TEXT_FACTOR:,} characters of "
                         f"text in all ({TOTAL_TEXT_FACTOR} times CARDGEN_MAX_TEXT); simplify it")


def _text_size(value, budget: int, depth: int = 0, indent: int = 1) -> int:
    """At least how many characters `value` makes as text (`str()`, `tojson`, `%s`), counted
    without making it; stops counting past `budget`.  Containers count each item every time it
    appears (a list of one long text repeated 40,000 times is 40,000 long texts), and the
    indentation each nested item gets (`pprint`: 1 a level; `tojson(indent=n)`: n)."""
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, (list, tuple, set, frozenset, dict)) or (depth and isinstance(value, Record)):
        items = value.items() if isinstance(value, dict) else value
        total = 2
        for item in items:
            total += 2 + (depth + 1) * indent + (_text_size(item, budget - total, depth + 1, indent)
                                                if depth < 50 else 0)
            if total > budget:
                break
        return total
    return 0


def _size(value) -> int:
    """At most (about) how many characters `str(value)` is, worked out without making it."""
    if isinstance(value, (str, bytes, list, tuple, set, frozenset, dict)):
        return _text_size(value, limits.MAX_TEXT + 1)
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return int(value.bit_length() * 0.302) + 2
    if isinstance(value, float):
        return 330            # '%f' of 1e308
    if isinstance(value, Record):
        return _text_size(value._data.get("name", ""), limits.MAX_TEXT + 1) if isinstance(value._data, dict) else 8
    return 64


def _check_text_size(value, what: str = "a text") -> None:
    """Refuse `value` before it is made into text, if that text would pass MAX_TEXT."""
    if isinstance(value, (list, tuple, set, frozenset, dict, bytes)):
        n = _text_size(value, limits.MAX_TEXT)
        if n > limits.MAX_TEXT:
            raise LimitError(f"the expression would make {what} of more than {limits.MAX_TEXT:,} characters "
                             f"(from a list or mapping this large); simplify it (limit CARDGEN_MAX_TEXT)")


def _check_value(value):
    """`value` if its size is within the limits, else LimitError.  A list made counts a step
    for every 16 items (copying is work too: a list grown by one item in a loop is quadratic)."""
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
    elif isinstance(value, (list, tuple, dict, set, frozenset)):
        if len(value) > limits.MAX_ITEMS:
            raise _too_long("a list", len(value), limits.MAX_ITEMS, "CARDGEN_MAX_ITEMS")
        _tick(len(value) // 16)
    return value


def _length(value) -> int | None:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else None


def _check_ints(args, what: str) -> None:
    for a in args:
        if isinstance(a, int) and not isinstance(a, bool) and abs(a) > limits.MAX_TEXT:
            raise LimitError(f"{what}: {a:,} is more than {limits.MAX_TEXT:,} (limit CARDGEN_MAX_TEXT)")


def _check_format(fmt) -> None:
    """A printf or str.format pattern asking for a huge width or precision."""
    if isinstance(fmt, bytes):
        fmt = fmt.decode("latin-1")
    for m in re.finditer(r"\d{6,}", fmt):
        if int(m.group()) > limits.MAX_TEXT:
            raise LimitError(f"a format width of {int(m.group()):,} is more than {limits.MAX_TEXT:,} "
                             f"(limit CARDGEN_MAX_TEXT)")
    if re.search(r"%(?:\([^)]*\))?[-+ #0]*\*|%(?:\([^)]*\))?[-+ #0]*\d*\.\*", fmt):
        raise LimitError("a `*` width in a % format is not allowed in a template; write the width out")


_PRINTF = re.compile(r"%(?:\((?P<key>[^)]*)\))?[-+ #0]*(?P<width>\d+)?(?:\.(?P<prec>\d*))?[hlL]?"
                     r"(?P<conv>[diouxXeEfFgGcrsab%])")


def _printf_size(fmt, args) -> int:
    """At most how many characters `fmt % args` makes: the pattern's own text, and for each
    conversion its width, its precision and the size of the value it converts."""
    if isinstance(fmt, bytes):
        fmt = fmt.decode("latin-1")
    specs = list(_PRINTF.finditer(fmt))
    total = len(fmt) - sum(m.end() - m.start() for m in specs)
    seq = args if isinstance(args, tuple) else (args,)
    i = 0
    for m in specs:
        width, prec = int(m["width"] or 0), int(m["prec"] or 0)
        if m["conv"] == "%":
            total += max(width, 1)
            continue
        if m["key"] is not None:
            try:
                arg = args[m["key"]]
            except Exception:
                arg = None
        else:
            arg = seq[i] if i < len(seq) else None
            i += 1
        total += width + prec + (1 if m["conv"] == "c" else _size(arg))
    return total


def _check_printf(fmt, args) -> None:
    _check_format(fmt)
    _refuse_text(_printf_size(fmt, args))


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
        if a is not None and b is not None:
            if isinstance(left, (str, bytes)):
                _refuse_text(a + b)
            elif a + b > limits.MAX_ITEMS:
                raise _too_long("a list", a + b, limits.MAX_ITEMS, "CARDGEN_MAX_ITEMS")
    elif op == "%" and isinstance(left, (str, bytes)):
        _check_text_size(right)
        _check_printf(left, right)


def _pre_call(obj, args: tuple, kwargs: dict) -> tuple:
    """Check a call before it is made: the size of what a method of text makes (and `to_bytes`),
    worked out from its arguments.  Returns the arguments to call with (an iterator given to
    `join` is read first, a step an item, so that its size is known)."""
    name = getattr(obj, "__name__", "")
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, int) and name == "to_bytes":
        _check_ints([*args, *kwargs.values()], f"'{name}'")
    if not isinstance(owner, (str, bytes)):
        return args
    if name in ("format", "format_map") and isinstance(owner, str):
        _check_format(owner)
    elif name == "replace":
        _check_replace(owner, *args[:2])
    elif name == "join" and args:
        parts = args[0] if isinstance(args[0], (str, bytes, list, tuple)) else _all_of(args[0])
        args = (parts, *args[1:])
        _refuse_text(len(owner) * max(len(parts) - 1, 0) + sum(len(x) for x in parts if isinstance(x, (str, bytes))))
    elif name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        tabs = owner.count("\t") if isinstance(owner, str) else owner.count(b"\t")
        if isinstance(size, int):
            _refuse_text(len(owner) + tabs * size)
    elif name == "translate" and args and isinstance(owner, str):
        _refuse_text(_translated_size(owner, args[0]))
    _check_ints([*args, *kwargs.values()], f"'{name}'")
    for a in (*args, *kwargs.values()):
        _check_text_size(a)
    return args


def _translated_size(text: str, table) -> int:
    """How long `text.translate(table)` is: each character the table maps to a longer text
    counts that text's length every time it appears."""
    n = len(text)
    if isinstance(table, Record):
        table = table._data
    pairs: Iterable[tuple[Any, Any]]
    if isinstance(table, dict):
        pairs = table.items()
    elif isinstance(table, (list, tuple)):
        pairs = enumerate(table)
    else:
        return n
    for key, value in pairs:
        if isinstance(key, int) and 0 <= key < 0x110000 and isinstance(value, str) and len(value) > 1:
            n += text.count(chr(key)) * (len(value) - 1)
            if n > limits.MAX_TEXT:
                break
    return n


def _check_replace(text, old=None, new=None) -> None:
    """Refuse a replacement whose result would pass MAX_TEXT (its length is known in advance)."""
    if isinstance(text, (str, bytes)) and isinstance(old, type(text)) and isinstance(new, type(text)):
        count: Any = text.count
        n = len(text) + count(old) * (len(new) - len(old)) if old else len(text) + (len(text) + 1) * len(new)
        _refuse_text(n)


def _check_filter(name: str, data: list, kwargs: dict) -> None:
    """What a "sized" or "text" filter would make, refused before it is made."""
    for a in data[1:]:
        if isinstance(a, int):
            _check_ints([a], f"filter '{name}'")
    _check_ints([v for v in kwargs.values() if isinstance(v, int)], f"filter '{name}'")
    if not data:
        return
    value = data[0]
    if name == "format" and isinstance(value, str):
        _check_printf(value, kwargs or tuple(data[1:]))
    elif name == "replace" and len(data) >= 3:
        _check_replace(*data[:3])
    elif name == "indent" and isinstance(value, str):
        width = data[1] if len(data) > 1 else kwargs.get("width", 4)
        w = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        _refuse_text(len(value) + (value.count("\n") + 1) * w)
    elif name == "tojson" and (len(data) > 1 or "indent" in kwargs):
        indent = data[1] if len(data) > 1 else kwargs["indent"]
        k = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) else 0
        if k > 0 and _text_size(value, limits.MAX_TEXT, 0, k + 1) > limits.MAX_TEXT:
            raise LimitError(f"the expression would make a text of more than {limits.MAX_TEXT:,} characters "
                             f"(from a list or mapping this large, indented); simplify it (limit CARDGEN_MAX_TEXT)")
    elif name == "urlize" and isinstance(value, str):
        # every word may become a link carrying its address twice, `target`, `rel` and the schemes
        extra = sum(len(x) for x in (*data[2:], *kwargs.values()) if isinstance(x, str))
        _refuse_text(3 * len(value) + (len(value.split()) or 1) * (extra + 64))
    if name not in ("sum", "join"):
        for a in (*data, *kwargs.values()):
            _check_text_size(a)


class _CountingRange:
    """range() for templates: at most MAX_RANGE long (each turn of a loop over it is a step,
    as every loop's)."""

    def __init__(self, *args: int):
        for a in args:
            if isinstance(a, int) and a.bit_length() > 63:
                raise _too_long("a range", abs(a), limits.MAX_RANGE, "CARDGEN_MAX_RANGE")
        self._r = range(*args)
        if len(self._r) > limits.MAX_RANGE:
            raise _too_long("a range", len(self._r), limits.MAX_RANGE, "CARDGEN_MAX_RANGE")

    def __iter__(self):
        return iter(self._r)

    def __len__(self) -> int:
        return len(self._r)

    def __contains__(self, x) -> bool:
        return x in self._r


def _lipsum(n: int = 5, html: bool = False, min: int = 20, max: int = 100) -> str:
    if not all(isinstance(v, int) for v in (n, min, max)) or n > limits.MAX_LIPSUM or max > 1000 or min > 1000:
        raise LimitError(f"lipsum() is limited to {limits.MAX_LIPSUM} paragraphs of at most 1000 words "
                         f"(limit CARDGEN_MAX_LIPSUM)")
    return _check_value(_lorem(n, bool(html), min, max))


def _lorem(n: int, html: bool, least: int, most: int) -> str:
    """`n` paragraphs of `least` to `most` placeholder words, in sentences.  Unlike Jinja's
    own lipsum, the same arguments give the same text (builds stay byte-identical)."""
    import random

    from jinja2.constants import LOREM_IPSUM_WORDS

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
