"""Dataclasses made while cardgen imports its modules (`core.imports.importing`) get their
`__repr__`, `__eq__`, ordering, `__hash__` and frozen `__setattr__`/`__delattr__` as closures
(`core.dataclassfns`), not compiled from text: each does what Python's compiled method does."""
from __future__ import annotations

import dataclasses
import inspect
import sys
from dataclasses import dataclass, field

import pytest

from cardgen.core import dataclassfns
from cardgen.core.imports import importing

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="only Python 3.11's helpers are replaced")


def _classes():
    """The same classes, made anew each call (nested: each kind of field and flag)."""
    @dataclass(frozen=True)
    class Empty:
        pass

    @dataclass(frozen=True, kw_only=True)
    class One:
        x: float = 0.0

    @dataclass(frozen=True, order=True)
    class Many:
        a: int
        b: str = "b"
        skip: list = field(default_factory=list, compare=False)
        c: tuple = ()

    @dataclass(unsafe_hash=True)
    class Hashed:
        a: int
        b: int = field(default=0, hash=False)
        c: int = field(default=0, compare=False, hash=True)

    @dataclass(frozen=True)
    class Sub(Many):
        d: int = 4

    @dataclass
    class Node:                 # (a repr that meets itself says `...`)
        name: str
        next: object = field(default=None, repr=True)
        hidden: int = field(default=0, repr=False)

    class Plain(One):           # a class of its own, not a dataclass: may set new attributes
        pass

    return {c.__name__: c for c in (Empty, One, Many, Hashed, Sub, Plain, Node)}


def _outcome(fn, *args):
    try:
        return "value", fn(*args)
    except Exception as exc:
        return type(exc).__name__, str(exc)


def _behaviour(classes) -> list:
    Empty, One, Many, Hashed, Sub, Plain = (classes[n] for n in ("Empty", "One", "Many", "Hashed", "Sub", "Plain"))
    m1, m2, m3 = Many(1, "x", [1]), Many(1, "x", [2]), Many(2, "a")
    s1 = Sub(1, "x")
    h1, h2 = Hashed(1, 2, 3), Hashed(1, 5, 3)
    nan = float("nan")
    out: list = [Empty() == Empty(), hash(Empty()) == hash(()), One(x=nan) == One(x=nan), One(x=1) == One(x=1.0),
                 hash(One(x=1)), m1 == m2, m1 != m3, m1 == s1, s1 == Sub(1, "x", [5]), Many.__eq__(m1, s1),
                 m1 < m3, m3 <= m1, m1 > m3, m1 >= m2, _outcome(lambda: m1 < s1), hash(m1) == hash(m2),
                 hash(m1), hash(s1), h1 == h2, hash(h1) == hash(h2), hash(h1), _outcome(lambda: Hashed(1) < h1)]
    node = classes["Node"]("a", hidden=3)
    node.next = classes["Node"]("b", node)
    out += [repr(x) for x in (Empty(), One(x=nan), One(x="q'\n"), m1, s1, h1, Plain(x=2), node)]
    for obj, name in ((m1, "a"), (m1, "new"), (s1, "d"), (s1, "a"), (Empty(), "z"), (Plain(x=1), "x"),
                      (Plain(x=1), "extra")):
        def assign(obj=obj, name=name):
            setattr(obj, name, 9)
            return getattr(obj, name)

        def remove(obj=obj, name=name):
            delattr(obj, name)
            return hasattr(obj, name)
        out += [(name, _outcome(assign), _outcome(remove))]
    for cls in classes.values():
        for method in ("__repr__", "__eq__", "__lt__", "__hash__", "__setattr__", "__delattr__"):
            fn = cls.__dict__.get(method)
            out.append((cls.__name__, method, getattr(fn, "__qualname__", fn), getattr(fn, "__module__", None)))
    return out


def test_each_method_does_what_the_compiled_one_does():
    stock = _classes()
    with importing():
        quick = _classes()
    assert dataclasses._cmp_fn is not dataclassfns._cmp_fn              # (only within the block)
    assert quick["Many"].__eq__.__code__.co_filename == dataclassfns.__file__          # (a closure)
    assert quick["Many"].__repr__.__wrapped__.__code__.co_filename == dataclassfns.__file__
    assert stock["Many"].__eq__.__code__.co_filename == "<string>"                     # (compiled)
    assert _behaviour(quick) == _behaviour(stock)
    assert quick["One"].__init__.__code__.co_filename == "<string>"     # (`__init__` compiled as Python does)


def _lazy_classes():
    """Classes whose `__init__` is made when first called: a subclass calling it through
    `super()`, a class with slots (a copy of the class `dataclass` first made), one with an
    `__init__` of its own, one with a `__post_init__` and an init-only field."""
    @dataclass(frozen=True)
    class Base:
        """A base."""
        a: int
        b: str = "b"
        c: list = field(default_factory=list)

    class Child(Base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    @dataclass(slots=True)
    class Slotted:
        """Slots."""
        x: int
        y: int = 2

    @dataclass
    class Own:
        """An __init__ of its own."""
        v: int = 0

        def __init__(self, w):
            self.v = w * 2

    @dataclass
    class Post:
        """After __init__."""
        a: int
        scale: dataclasses.InitVar[int] = 1
        b: int = field(init=False, default=0)

        def __post_init__(self, scale):
            self.b = self.a * scale

    return {c.__name__: c for c in (Base, Child, Slotted, Own, Post)}


def _made(classes) -> list:
    out: list = []
    for name, args, kwargs in (("Base", (1,), {}), ("Base", (), {"a": 2, "c": [3]}), ("Base", (), {}),
                               ("Base", (1, 2, 3, 4), {}), ("Base", (1,), {"a": 1}), ("Base", (1,), {"z": 1}),
                               ("Child", (5, "q"), {}), ("Child", (), {}), ("Slotted", (1,), {}),
                               ("Slotted", (1, 2, 3), {}), ("Own", (4,), {}), ("Post", (3, 5), {}),
                               ("Post", (3,), {"b": 1}), ("Base", (7,), {})):
        out.append((name, _outcome(lambda cls=classes[name], args=args, kwargs=kwargs: repr(cls(*args, **kwargs)))))
    for cls in classes.values():
        init = cls.__init__
        out.append((cls.__name__, init.__qualname__, str(inspect.signature(cls)), cls.__doc__,
                    init.__defaults__, init.__kwdefaults__, init.__annotations__))
    return out


def test_init_is_made_when_first_called():
    """Within the block a dataclass's `__init__` is compiled when the class is first called
    (about half the classes a command imports never are): until then the class holds one that
    makes it; then the class's own is in its place, doing and saying what Python's does (the
    same errors, signature, defaults and qualified name)."""
    stock = _lazy_classes()
    with importing():
        lazy = _lazy_classes()
    assert dataclasses._init_fn is not dataclassfns._init_fn              # (only within the block)
    assert lazy["Base"].__dict__["__init__"].__code__.co_filename == dataclassfns.__file__    # (not made yet)
    assert lazy["Slotted"].__dict__["__init__"].__code__.co_filename == dataclassfns.__file__
    assert _made(lazy) == _made(stock)
    for name in ("Base", "Slotted", "Post"):
        assert lazy[name].__dict__["__init__"].__code__.co_filename == "<string>", name     # (made, in place)
    assert lazy["Own"].__dict__["__init__"].__code__.co_filename == __file__


def test_what_init_checks_first_is_checked_when_the_class_is_made():
    """A class without a docstring is given one worded from `__init__`'s signature: made at once;
    a field without a default after one with is refused when the class is made, as Python does."""
    def undocumented():
        @dataclass(frozen=True)
        class Bare:
            a: int
            b: tuple = ()
        return Bare

    def wrong():
        @dataclass
        class Wrong:
            """Wrong."""
            a: int = 0
            b: str
        return Wrong

    with importing():
        bare = undocumented()
        refused = _outcome(wrong)
    assert bare.__doc__ == undocumented().__doc__ == "Bare(a: 'int', b: 'tuple' = ())"
    assert bare.__dict__["__init__"].__code__.co_filename == "<string>"
    assert refused == _outcome(wrong) == ("TypeError", "non-default argument 'b' follows default argument")


def test_class_variables_and_init_only_fields_are_told_apart_as_python_does():
    """`ClassVar` and `InitVar` annotations, written as text (`from __future__ import
    annotations`) in every form `dataclasses` recognises, give the same fields within the block
    as outside it (`core.dataclassfns._is_type` matches each annotation's text once)."""
    import typing

    namespace = {"dataclass": dataclass, "dataclasses": dataclasses, "typing": typing, "CV": typing.ClassVar,
                 "IV": dataclasses.InitVar, "__name__": "tests.fields_told_apart"}    # (ClassVar, InitVar: by module)
    source = ("from __future__ import annotations\n"
              "@dataclass\n"
              "class Told:\n"
              "    '''Each form.'''\n"
              "    a: int\n"
              "    b: CV[int] = 1\n"
              "    c: typing.ClassVar[int] = 2\n"
              "    d: ClassVar[int] = 3\n"
              "    e: IV[int] = 4\n"
              "    f: dataclasses.InitVar[int] = 5\n"
              "    g: str = 'g'\n"
              "    h: typing.List[int] = None\n"
              "    def __post_init__(self, e, f):\n"
              "        self.made = (e, f)\n")
    module = type(sys)("tests.fields_told_apart")
    sys.modules[module.__name__] = module
    try:
        def told():
            ns = dict(namespace)
            module.__dict__.clear()
            module.__dict__.update(ns)
            exec(source, module.__dict__)
            cls = module.__dict__["Told"]
            return ([(f.name, f._field_type.name) for f in cls.__dataclass_fields__.values()],
                    repr(cls(1, 6)), cls(1, 6).made)

        stock = told()
        with importing():
            quick = told()
    finally:
        del sys.modules[module.__name__]
    assert quick == stock
    assert [kind for _, kind in stock[0]] == ["_FIELD", "_FIELD_CLASSVAR", "_FIELD_CLASSVAR", "_FIELD",
                                              "_FIELD_INITVAR", "_FIELD_INITVAR", "_FIELD", "_FIELD"]


def _shapes():
    """Classes of every shape `__init__` takes: defaults and factories, keyword-only fields,
    init-only fields given to `__post_init__`, fields out of `__init__` (with slots, set from
    their default), frozen and slotted classes."""
    @dataclass(frozen=True)
    class Frozen:
        """Frozen."""
        a: int
        b: str = "b"
        c: list = field(default_factory=list)
        d: dict = field(init=False, default_factory=dict)

    @dataclass(slots=True)
    class Slots:
        """Slots."""
        x: int
        y: int = 2
        z: int = field(init=False, default=9)
        w: list = field(default_factory=lambda: [1])

    @dataclass(kw_only=True)
    class Keywords:
        """Keyword-only."""
        p: int
        q: tuple = ()

    @dataclass
    class Mixed:
        """Keyword-only after positional, an init-only field, `__post_init__`."""
        a: int
        scale: dataclasses.InitVar[int] = 3
        b: int = field(init=False, default=0)
        _: dataclasses.KW_ONLY
        tag: str = "t"

        def __post_init__(self, scale):
            self.b = self.a * scale

    @dataclass(frozen=True, slots=True)
    class Both:
        """Frozen and slotted."""
        n: int = 1

    return {c.__name__: c for c in (Frozen, Slots, Keywords, Mixed, Both)}


_CALLS = (("Frozen", (1,), {}), ("Frozen", (1, "x", [2]), {}), ("Frozen", (), {"a": 5, "c": [1]}),
          ("Slots", (1,), {}), ("Slots", (), {"x": 1, "y": 5, "w": []}), ("Keywords", (), {"p": 1}),
          ("Keywords", (), {"q": (1,), "p": 2}), ("Mixed", (2,), {}), ("Mixed", (2, 5), {"tag": "u"}),
          ("Mixed", (), {"a": 1, "scale": 0}), ("Both", (), {}), ("Both", (4,), {}),
          ("Frozen", (), {}), ("Frozen", (1, 2, 3, 4), {}), ("Frozen", (1,), {"a": 1}), ("Slots", (1,), {"z": 1}),
          ("Keywords", (1,), {}), ("Mixed", (1,), {"b": 2}), ("Both", (), {"m": 1}))


def _state(obj) -> tuple:
    slots = [n for c in type(obj).__mro__ for n in getattr(c, "__slots__", ())]
    return repr(obj), sorted(getattr(obj, "__dict__", {}).items()), [(n, getattr(obj, n, "unset")) for n in slots]


def test_the_first_calls_make_instances_as_the_compiled_init_does():
    """Until a class has been called `PLAIN_CALLS` times, its instances are made without its
    `__init__` being compiled (`_plain_init`): the same fields, the same values (a factory's
    new each time), the same `__post_init__`; a call the signature refuses gets the compiled
    one's error, and from then on the class has its own."""
    stock = _shapes()
    with importing():
        plain = _shapes()
    for name, args, kwargs in _CALLS:
        init = plain[name].__dict__["__init__"]
        ok = _outcome(lambda args=args, kwargs=kwargs, name=name: _state(stock[name](*args, **kwargs)))
        assert _outcome(lambda args=args, kwargs=kwargs, name=name: _state(plain[name](*args, **kwargs))) == ok
        compiled = plain[name].__dict__["__init__"].__code__.co_filename == "<string>"
        assert compiled == (init.__code__.co_filename == "<string>" or ok[0] != "value"), (name, args, kwargs)
    one, two = plain["Frozen"](1), plain["Frozen"](1)
    assert one.c == [] and one.c is not two.c and one.d is not two.d
    with importing():
        keywords = _shapes()["Keywords"]
    for _ in range(dataclassfns.PLAIN_CALLS):
        assert keywords.__dict__["__init__"].__code__.co_filename == dataclassfns.__file__
        assert keywords(p=1).q == ()
    keywords(p=2)
    assert keywords.__dict__["__init__"].__code__.co_filename == "<string>"
