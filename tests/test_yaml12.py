"""YAML 1.2 core schema on PyYAML: plain values mean what they say; merge keys work; tags
other than the plain ones are refused at their line."""
from __future__ import annotations

import math

import pytest
from conftest import run_cli

from cardgen.core.errors import CardgenError
from cardgen.load.yamlsrc import load_text


@pytest.mark.parametrize("plain, value", [
    ("No", "No"), ("no", "no"), ("yes", "yes"), ("Yes", "Yes"), ("on", "on"), ("OFF", "OFF"), ("y", "y"),
    ("true", True), ("True", True), ("FALSE", False),
    ("010", 10), ("0o10", 8), ("0x1F", 31), ("-7", -7), ("+3", 3), ("007", 7),
    ("1_000", "1_000"), ("1:30", "1:30"), ("0b101", "0b101"), ("2024-01-01", "2024-01-01"),
    ("1.5", 1.5), ("1e3", 1000.0), (".5", 0.5), ("-.inf", -math.inf), (".Inf", math.inf),
    ("~", None), ("null", None), ("NULL", None), ("", None),
    ("'010'", "010"), ("!!str 10", "10"), ("=", "="),
])
def test_plain_values(plain, value):
    got = load_text(f"a: {plain}\n", "x.yaml")["a"]
    assert got == value and type(got) is type(value)


def test_nan_is_a_float():
    assert math.isnan(load_text("a: .nan\n", "x.yaml")["a"])


def test_merge_keys_then_override():
    data = load_text("base: &d {cost: 1, color: red}\nmore: &m {rare: true}\n"
                     "card:\n  <<: *d\n  cost: 2\nboth:\n  <<: [*d, *m]\n  color: blue\n", "x.yaml")
    assert data["card"] == {"cost": 2, "color": "red"}
    assert data["both"] == {"cost": 1, "color": "blue", "rare": True}
    assert data["card"].value_loc("cost").line == 5


def test_own_duplicates_are_still_errors_with_a_merge():
    with pytest.raises(CardgenError, match=r"^x\.yaml:4:3: error: duplicate key 'cost' \(first at line 3\)"):
        load_text("base: &d {cost: 1}\ncard:\n  cost: 2\n  cost: 3\n  <<: *d\n", "x.yaml")


@pytest.mark.parametrize("value, tag", [
    ("!!set {a, b}", "!!set"), ("!!binary aGVsbG8=", "!!binary"), ("!!timestamp 2024-01-01", "!!timestamp"),
    ("!!omap [a: 1]", "!!omap"), ("!!pairs [a: 1]", "!!pairs"), ("!!python/name:os.system", "!!python/name:os.system"),
    ("!!python/object/apply:os.system ['echo hi']", "!!python/object/apply:os.system"), ("!custom x", "!custom"),
    ("!<tag:example.com,2000:x> y", "tag:example.com,2000:x"),
])
def test_non_plain_tags_are_refused(value, tag):
    with pytest.raises(CardgenError) as info:
        load_text(f"card:\n  a: {value}\n", "x.yaml")
    assert str(info.value) == (f"x.yaml:2:6: error: the YAML tag '{tag}' is not allowed; cardgen reads plain text, "
                               f"numbers, true/false, lists and mappings only (write `!!str` or quotes for text)")


def test_yaml12_values_reach_the_cards(tiny_game):
    root = tiny_game("cards:\n  - {name: No, count: 010}\n  - {name: Off, count: 0o2}\n")
    from cardgen.core.errors import Report
    from cardgen.model.game import BUNDLED
    from cardgen.pipeline.check import load_game

    game = load_game(root, BUNDLED, Report())
    assert [(c.name, c.count) for c in game.decks[0].cards] == [("No", 10), ("Off", 2)]


@pytest.mark.parametrize("count", [".nan", ".inf", "-.inf"])
def test_non_finite_counts_are_refused(tiny_game, count):
    root = tiny_game(f"cards:\n  - {{name: A, count: {count}}}\n")
    code, stdout, stderr = run_cli("validate", str(root))
    assert code == 1 and "Traceback" not in stdout + stderr
    lines = [ln for ln in (stdout + stderr).splitlines() if ": error: " in ln]
    assert lines == [f"{root}/deck.yaml:5:22: error: card 'A': count must be a whole number (0 to 10000), "
                     f"got {count.lstrip('.').replace('.', '')}"]


def _shape(v):
    """Data with every place (`loc`, `key_locs`, `value_locs`, `item_locs`), for comparing loads."""
    if isinstance(v, dict):
        return ("map", v.loc, [(_shape(k), v.key_locs[k], v.value_locs[k], _shape(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("seq", v.loc, v.item_locs, [_shape(x) for x in v])
    return type(v).__name__, repr(v)


@pytest.mark.parametrize("text", [
    "a: 1\nb: [x, {c: d, e: null}]\nf:\n  - 1.5\n  - !!str 7\n  - true\n",
    "- a\n- b: c\n  d: [1, 2]\n", "just text\n", "a: 1\nb: 2\na: 3\n", "a: {x: 1, x: 2}\n", "1: a\n1.0: b\n",
    "a: !!int 1x\n", "a: !!float x\n", "a: !!bool yes\n", "a: !!map b\n", "a: !!seq b\n", "a: !!str {b: c}\n",
    "? [a, b]\n: c\n", "? {a: b}\n: c\n", "a: !!null ''\n", "[!!int 0x1F, 0o17, 1_000, .NaN]\n",
])
def test_a_plain_tree_is_made_as_pyyaml_makes_it(text, monkeypatch):
    """`yamlsrc._build` (a tree without anchors or merge keys, made straight from the nodes)
    gives what PyYAML's constructor gives: the same data and places, or the same error."""
    from cardgen.load import yamlsrc

    def load():
        try:
            return _shape(load_text(text, "x.yaml"))
        except CardgenError as exc:
            return str(exc)

    built = []
    real = yamlsrc._build
    monkeypatch.setattr(yamlsrc, "_build", lambda *a: built.append(1) or real(*a))
    fast = load()
    monkeypatch.setattr(yamlsrc, "_build", lambda *a: (_ for _ in ()).throw(yamlsrc._NotPlain()))
    assert fast == load()
    assert built        # (taken: a tree)


def _same_located(a, b) -> None:
    assert type(a) is type(b) and getattr(a, "loc", None) == getattr(b, "loc", None)
    if isinstance(a, dict):
        assert list(a) == list(b) and list(a.key_locs.items()) == list(b.key_locs.items())
        assert a.value_locs == b.value_locs
        for k in a:
            _same_located(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b) and a.item_locs == b.item_locs
        for x, y in zip(a, b):
            _same_located(x, y)
    else:
        assert a == b or (a != a and b != b)


def test_a_long_file_is_parsed_once(monkeypatch):
    """A file of many lines (a deck) is read in one parse: the limits are counted while its
    values are made, not in a scan of the whole file before composing it."""
    from cardgen.load import yamlsrc

    made = []

    class Counting(yamlsrc._Base):  # type: ignore[misc, name-defined]
        def __init__(self, stream):
            made.append(1)
            super().__init__(stream)

    monkeypatch.setattr(yamlsrc, "_Base", Counting)
    text = "cards:\n" + "".join(f'  - {{name: "C{i}", cost: {i}, rare: {str(i % 2 == 0).lower()}}}\n'
                                for i in range(300))
    data = load_text(text, "d.yaml")
    assert len(made) == 1
    assert data["cards"][7] == {"name": "C7", "cost": 7, "rare": False}
    assert str(data["cards"].item_locs[7]) == "d.yaml:9:5" and str(data["cards"][7].value_locs["cost"]) == "d.yaml:9:24"


@pytest.mark.parametrize("text", [
    "a: 1\nb: {c: 0x1F, d: [.5, ~, 'no', no, 010, -.inf, .nan, '']}\n? e\n: f\n\"g\": |\n  h\n",
    "a: 1\nb: 2\na: 3\n", "a: !!int x\n", "a: !!str 10\n", "a: !!set {b}\n", "a: *x\n", "a: &x 1\nb: *x\n",
    "a: {<<: {b: 1}, c: 2}\n", "? [a]\n: 1\n", "{a: 1, [b]: 2}\n", "a: 1\n---\nb: 2\n", "a: b: c\n", "a:\n\tb: 1\n",
    "- " * 99 + "x\n", "- " * 100 + "x\n", "- " * 100 + "[x]\n", "x: " + "9" * 5000 + "\n", "",
])
def test_one_pass_reads_what_the_composed_path_reads(text):
    """A long file (one parse, values made from the events) loads to the same values and
    places, or fails with the same message at the same place, as a short one (composed)."""
    long = text + "#\n" * 150
    try:
        short = load_text(text, "x.yaml")
    except CardgenError as exc:
        with pytest.raises(CardgenError) as info:
            load_text(long, "x.yaml")
        assert str(info.value) == str(exc)
    else:
        _same_located(load_text(long, "x.yaml"), short)


def test_a_place_is_an_immutable_ordered_value():
    """`Loc` (made for every key and value the loader reads, so made cheap: a named tuple)
    keeps what the frozen dataclass it was gave: its fields by name, order by file, line,
    column and cell, equality and hashing by value, no assignment, the same `repr`, and it
    survives pickling (a worker process's diagnostics come back pickled)."""
    import pickle

    from cardgen.core.errors import Loc

    data = load_text("a: 1\nb: {c: x}\n", "p.yaml")
    loc = data["b"].value_locs["c"]
    assert (loc.file, loc.line, loc.col, loc.cell) == ("p.yaml", 2, 8, "")
    assert repr(loc) == "Loc(file='p.yaml', line=2, col=8, cell='')"
    assert str(loc) == "p.yaml:2:8" and loc.short == "p.yaml:2" and loc.brief == "p.yaml:2:8"
    assert str(Loc("w.xlsx", 5, 2, "Actions!B5")) == "w.xlsx: Actions!B5"
    assert sorted([Loc("b", 1), Loc("a", 2, 3), Loc("a", 2), Loc("a", 10)]) == \
        [Loc("a", 2), Loc("a", 2, 3), Loc("a", 10), Loc("b", 1)]
    assert loc == Loc("p.yaml", 2, 8) and hash(loc) == hash(Loc("p.yaml", 2, 8)) and loc != Loc("p.yaml", 2, 9)
    with pytest.raises(AttributeError):
        loc.line = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(loc)) == loc and type(pickle.loads(pickle.dumps(loc))) is Loc
