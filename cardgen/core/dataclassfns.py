"""Dataclasses' repr, comparison, hash and frozen-attribute methods made as closures, not
compiled from text, while cardgen imports its modules (`quick_methods()`, used by
`core.imports.importing`).

Python 3.11's `dataclasses` writes each method of each class as source text and compiles it
(`dataclasses._create_fn`): parsing and compiling that text was a third of the instructions
of a small game's `cardgen validate` (some 120 classes; valgrind).  `__repr__`, `__eq__`, the
ordering methods, `__hash__` and a frozen class's `__setattr__` and `__delattr__` are the same
few lines for every class but the field names, so they are made here as closures over the
names the text would hold, doing what the compiled text does (the same text, the same tuples
compared and hashed, the same errors; tests/test_dataclassfns.py holds each to the compiled
one; a repr as quick as the compiled one, which `core.digest.digest` reads).  `__init__` is
compiled as Python writes it (its signature, defaults and speed are each class's own), but
only when the class is first made an instance of (`_init_fn`): about half the classes a command
imports never are (a small game's `validate` made instances of 59 of its 107), and compiling
their `__init__` was most of what making them cost.  The first `PLAIN_CALLS` instances are made
without compiling it (`_plain_init`, what the compiled one does, as a function; a call whose
arguments do not fit compiles it at once): the new game's `validate` compiled 65 `__init__`s
(12 to 17 ms), now 16 (about 3 ms).  Only Python 3.11's helpers are replaced
(their text is known: a later Python's are left alone, 3.13 makes dataclasses quicker
itself), and only within the block."""
from __future__ import annotations

import dataclasses
import operator
import sys
from _thread import _local
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_OPS: dict[str, Callable[[Any, Any], Any]] = {"==": operator.eq, "<": operator.lt, "<=": operator.le,
                                               ">": operator.gt, ">=": operator.ge}


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """What `dataclasses._tuple_str` writes, as a function: the tuple of those attributes."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _named(fn: Callable, name: str, globals: dict) -> Callable:
    fn.__name__ = fn.__qualname__ = name          # (dataclasses sets the class's qualified name)
    fn.__module__ = globals.get("__name__", fn.__module__)
    return fn


def _repr_fn(fields: list, globals: dict) -> Callable:
    get = _getter(tuple(f.name for f in fields))
    shape = "(" + ", ".join(f"{f.name}={{!r}}" for f in fields) + ")"    # `(x={!r}, y={!r})`

    def __repr__(self: Any) -> str:
        return self.__class__.__qualname__ + shape.format(*get(self))
    return dataclasses._recursive_repr(_named(__repr__, "__repr__", globals))  # type: ignore[attr-defined]


def _cmp_fn(name: str, op: str, self_tuple: str, other_tuple: str, globals: dict) -> Callable:
    inner = self_tuple[1:-1].rstrip(",")       # `(self.x,self.y,)` -> the field names
    get = _getter(tuple(part[len("self."):] for part in inner.split(",")) if inner else ())
    compare = _OPS[op]

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(get(self), get(other))
        return NotImplemented
    return _named(method, name, globals)


def _hash_fn(fields: list, globals: dict) -> Callable:
    get = _getter(tuple(f.name for f in fields))

    def __hash__(self: Any) -> int:
        return hash(get(self))
    return _named(__hash__, "__hash__", globals)


def _frozen_get_del_attr(cls: type, fields: list, globals: dict) -> tuple[Callable, Callable]:
    names = tuple(f.name for f in fields)
    error = dataclasses.FrozenInstanceError
    owner: Any = cls

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise error(f"cannot assign to field {name!r}")
        super(owner, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise error(f"cannot delete field {name!r}")
        super(owner, self).__delattr__(name)
    return _named(__setattr__, "__setattr__", globals), _named(__delattr__, "__delattr__", globals)


_NAMES: dict[str, tuple[str | None, str] | None] = {}


def _is_type(annotation: str, cls: type, a_module: Any, a_type: Any, is_type_predicate: Callable) -> bool:
    """`dataclasses._is_type` (is a field's annotation, as text, `ClassVar` or `InitVar`?), the
    annotation's module and name matched once a process (`int`, `str | None`, ... come back on
    every class: some 2,000 matches in a one-card edit), then looked up in the class's module
    as Python does."""
    try:
        parts = _NAMES[annotation]
    except KeyError:
        m = dataclasses._MODULE_IDENTIFIER_RE.match(annotation)  # type: ignore[attr-defined]
        parts = _NAMES[annotation] = (m.group(1), m.group(2)) if m else None
    if parts is None:
        return False
    module_name, name = parts
    ns = None
    if not module_name:                 # (what follows: `dataclasses._is_type`, line by line)
        ns = sys.modules.get(cls.__module__).__dict__
    else:
        module = sys.modules.get(cls.__module__)
        if module and module.__dict__.get(module_name) is a_module:
            ns = sys.modules.get(a_type.__module__).__dict__
    return bool(ns and is_type_predicate(ns.get(name), a_module))


_MADE_NOW = _local()         # (`_process_class`: this thread is making a class without a docstring)


def _init_fn(*args: Any) -> Callable:
    """An `__init__` that compiles the class's own (what `dataclasses._init_fn` makes of the same
    arguments) when it is first called, puts it in its place on the class and calls it; from then
    on the class calls its own.  The mistake `_init_fn` finds before it compiles (a field without
    a default after one with) is found now, as before; and a class without a docstring, which
    `dataclasses` words from the signature of `__init__`, gets its own at once."""
    make = _SAVED["_init_fn"]
    if getattr(_MADE_NOW, "undocumented", False):
        return make(*args)
    seen_default = False
    for f in args[1]:                   # (std_fields: what `_init_fn` checks first, word for word)
        if f.init:
            if not (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING):
                seen_default = True
            elif seen_default:
                raise TypeError(f'non-default argument {f.name!r} follows default argument')
    own: list[Callable] = []
    calls = [0]
    plain = _plain_init(*args)

    def __init__(self: Any, /, *a: Any, **k: Any) -> None:
        if not own:
            if calls[0] < PLAIN_CALLS and plain is not None:
                calls[0] += 1
                if plain(self, a, k):
                    return
            fn = make(*args)
            fn.__qualname__ = __init__.__qualname__     # (`dataclasses` names it after its class)
            own.append(fn)
            for cls in type(self).__mro__:      # (the class `dataclass` made: with slots, a copy of the first)
                if cls.__dict__.get("__init__") is __init__:
                    cls.__init__ = fn       # type: ignore[misc]
                    break
        own[0](self, *a, **k)
    return __init__


PLAIN_CALLS = 16        # calls of a class made by `_plain_init`'s function before its `__init__` is compiled


def _plain_init(fields: list, std_fields: tuple, kw_only_fields: tuple, frozen: bool, has_post_init: bool,
                self_name: str, globals: dict, slots: bool) -> Callable[[Any, tuple, dict], bool] | None:
    """What the `__init__` `dataclasses._init_fn` compiles does (`_field_init`, `_field_assign`:
    each field's value, in field order, a default factory called when its field was not given,
    a frozen class's fields set through `object.__setattr__`, `__post_init__` given the init-only
    fields), as a function of the instance and the call's arguments, without compiling: True when
    it has made the instance; False, having done nothing, for a call whose arguments do not fit
    the signature (the compiled `__init__` then raises Python's own TypeError).  Most classes a
    command makes are made a few times (compiling `__init__` is some 0.2 ms a class: 12 to 17 ms
    of a small game's `validate`); after `PLAIN_CALLS` calls the class compiles its own."""
    steps = _init_steps(fields, slots)
    if steps is None:
        return None
    missing, factory_default = dataclasses.MISSING, dataclasses._HAS_DEFAULT_FACTORY  # type: ignore[attr-defined]
    initvar = dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
    positional = tuple(f.name for f in std_fields)
    names = frozenset(positional) | {f.name for f in kw_only_fields}
    defaults = {f.name: factory_default if f.default_factory is not missing else f.default
                for f in (*std_fields, *kw_only_fields)
                if f.default is not missing or f.default_factory is not missing}
    post = tuple(f.name for f in fields if f._field_type is initvar) if has_post_init else None
    put = object.__setattr__ if frozen else setattr

    def plain(self: Any, a: tuple, k: dict) -> bool:
        values = _bound(a, k, positional, names, defaults)
        if values is None:
            return False
        for name, given, factory in steps:
            if not given:
                value = factory()
            else:
                value = values[name]
                if factory is not None and value is factory_default:
                    value = factory()
            put(self, name, value)
        if post is not None:
            self.__post_init__(*(values[name] for name in post))
        return True
    return plain


def _init_steps(fields: list, slots: bool) -> list[tuple[str, bool, Any]] | None:
    """The fields `__init__` sets, in order, each as (name, whether its value is the argument,
    its default factory or None); None for a class whose init-only field has a factory (compiled
    at once).  (A field out of `__init__` with a plain default is the class's attribute, set only
    with slots: its default is given as a factory.)"""
    missing, initvar = dataclasses.MISSING, dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
    steps: list[tuple[str, bool, Any]] = []
    for f in fields:
        factory = None if f.default_factory is missing else f.default_factory
        if f._field_type is initvar:
            if factory is not None:
                return None
        elif f.init:
            steps.append((f.name, True, factory))
        elif factory is not None:
            steps.append((f.name, False, factory))
        elif slots and f.default is not missing:
            steps.append((f.name, False, (lambda value: lambda: value)(f.default)))
    return steps


def _bound(a: tuple, k: dict, positional: tuple, names: frozenset, defaults: dict) -> dict | None:
    """The call's arguments by field name, the defaults of those not given filled in; None when
    they do not fit (too many, one given twice or unknown, one without a default missing)."""
    if len(a) > len(positional):
        return None
    values = dict(zip(positional, a))
    for name, value in k.items():
        if name in values or name not in names:
            return None
        values[name] = value
    if len(values) < len(names):
        for name in names:
            if name not in values:
                if name not in defaults:
                    return None
                values[name] = defaults[name]
    return values


def _process_class(cls: type, *args: Any, **kwargs: Any) -> type:
    """`dataclasses._process_class`, with a class that has no docstring marked for `_init_fn`."""
    undocumented, was = not cls.__doc__, getattr(_MADE_NOW, "undocumented", False)
    _MADE_NOW.undocumented = undocumented
    try:
        return _SAVED["_process_class"](cls, *args, **kwargs)
    finally:
        _MADE_NOW.undocumented = was


OURS = {"_repr_fn": _repr_fn, "_cmp_fn": _cmp_fn, "_hash_fn": _hash_fn, "_frozen_get_del_attr": _frozen_get_del_attr,
        "_init_fn": _init_fn, "_process_class": _process_class, "_is_type": _is_type}
_SAVED: dict[str, Callable] = {}


@contextmanager
def quick_methods() -> Iterator[None]:
    """Within the block, dataclasses made with the closures above (Python 3.11 only)."""
    if sys.version_info[:2] != (3, 11) or any(not hasattr(dataclasses, n) for n in OURS):
        yield
        return
    saved = {n: getattr(dataclasses, n) for n in OURS}
    if saved["_init_fn"] is _init_fn:   # (a block within a block: already done)
        yield
        return
    _SAVED.update(saved)
    for n, fn in OURS.items():
        setattr(dataclasses, n, fn)
    try:
        yield
    finally:
        for n, fn in saved.items():
            setattr(dataclasses, n, fn)
