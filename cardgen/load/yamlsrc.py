"""Load YAML safely, remembering where every key and value came from.

Mappings load as `YDict` and sequences as `YList`: ordinary dicts and lists that also
carry the source location of themselves, of each key and of each value.  Scalars stay
plain Python values, so the data can go straight into Jinja templates.
"""
from __future__ import annotations

import errno
import re
from pathlib import Path
from typing import Any, ClassVar

import yaml

from cardgen.core import limits
from cardgen.core.errors import CardgenError, Loc
from cardgen.core.located import YDict, YList, loc_of, refine_loc  # noqa: F401 (loc_of, refine_loc: here too)
from cardgen.core.paths import NotRegular, TooLarge, read_regular

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# YAML 1.2 core schema for plain values (PyYAML alone is YAML 1.1: `no` would be false,
# `010` octal 8, `1_000` 1000, `1:30` 90 and `2024-01-01` a date).
_CORE = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                                r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
]
# Tags a file may write explicitly (`!!str 10`); any other (`!!set`, `!!binary`, `!!python/...`,
# `!custom`) is refused.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge")}


_INT_FORMS = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")


def _scalar(loader, node, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise CardgenError(_mark(loader.name, node), f"`{node.tag.rsplit(':', 1)[-1]}` tag on a list or mapping; "
                                                     f"remove the tag (`!!...`)", code="yaml")
    return str(loader.construct_scalar(node))


def _core_int(loader, node) -> int:
    value = _scalar(loader, node, "a whole number")
    if not _INT_FORMS.fullmatch(value):
        raise CardgenError(_mark(loader.name, node), f"'!!int {value[:40]}' is not a whole number; remove the "
                                                     f"`!!int` tag or write a number", code="yaml")
    digits = value.lstrip("+-")
    if len(digits) - (2 if digits[:2] in ("0o", "0x") else 0) > limits.MAX_INT_DIGITS:
        raise CardgenError(_mark(loader.name, node), f"a number with more than {limits.MAX_INT_DIGITS} digits; "
                                                     f"write it in quotes if it is text")
    if value.startswith("0o"):
        return int(value[2:], 8)
    if value.startswith("0x"):
        return int(value[2:], 16)
    return int(value, 10)


def _core_float(loader, node) -> float:
    value = _scalar(loader, node, "a number")
    low = value.lower()
    if low.endswith(".inf"):
        return float("-inf") if low.startswith("-") else float("inf")
    if low == ".nan":
        return float("nan")
    try:
        if len(value) > limits.MAX_INT_DIGITS + 20:
            raise ValueError(value)
        return float(value)
    except ValueError:
        raise CardgenError(_mark(loader.name, node), f"'!!float {value[:40]}' is not a number; remove the "
                                                     f"`!!float` tag or write a number", code="yaml") from None


def _core_bool(loader, node) -> bool:
    value = _scalar(loader, node, "true or false").lower()
    if value not in ("true", "false"):
        raise CardgenError(_mark(loader.name, node), f"'!!bool {value[:40]}' is neither true nor false (YAML 1.2: "
                                                     f"yes, no, on and off are text); write true or false",
                           code="yaml")
    return value == "true"


def _duplicate(at: Loc, key: Any, first: Loc) -> CardgenError:
    """A mapping's key given twice (at `at`; `first`: where it was given before)."""
    return CardgenError(at, f"duplicate key '{key}' (first at line {first.line}); remove one of them")


def _mark(filename: str, node) -> Loc:
    return Loc(filename, node.start_mark.line + 1, node.start_mark.column + 1)


def _check_nodes(root, filename: str, anchors: bool = True) -> None:
    """Refuse what would make cardgen's work explode or mean something else than it seems:
    more than MAX_YAML_NODES values once aliases are expanded (an alias bomb), nesting deeper
    than MAX_YAML_DEPTH, an alias that contains itself, tags other than the plain ones.
    Iterative, and each node's expanded size is computed once, so it is fast on any input.
    A document without anchors (`&name`; `anchors` False) is a tree: one quick pass finds
    that nothing is wrong, and only a document with a problem is looked at node by node."""
    if not anchors and _plain_tree(root):
        return
    size: dict[int, int] = {}
    depth_of: dict[int, int] = {id(root): 1}
    stack: list[tuple[object, bool]] = [(root, False)]
    active: set[int] = set()
    while stack:
        node, done = stack.pop()
        nid = id(node)
        if done:
            active.discard(nid)
            children = _children(node)
            total = 1 + sum(size[id(c)] for c in children)
            size[nid] = total
            if total > limits.MAX_YAML_NODES:
                raise CardgenError(_mark(filename, node), f"this value expands to more than "
                                   f"{limits.MAX_YAML_NODES:,} values through aliases (`*name`); an alias bomb? "
                                   f"(limit CARDGEN_MAX_YAML_NODES)", code="yaml")
            continue
        if nid in size:
            continue
        if nid in active:
            raise CardgenError(_mark(filename, node), "this value contains itself through an alias (`*name`); "
                                                      "an alias must refer to a finished value", code="yaml")
        tag = getattr(node, "tag", "")
        if tag not in _PLAIN_TAGS:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise CardgenError(_mark(filename, node), f"the YAML tag '{shown[:60]}' is not allowed; cardgen reads "
                                                      f"plain text, numbers, true/false, lists and mappings only "
                                                      f"(write `!!str` or quotes for text)", code="yaml")
        depth = depth_of.get(nid, 1)
        if depth > limits.MAX_YAML_DEPTH:
            raise CardgenError(_mark(filename, node), f"mappings and lists nested more than "
                                                      f"{limits.MAX_YAML_DEPTH} deep; flatten the data "
                                                      f"(limit CARDGEN_MAX_YAML_DEPTH)", code="yaml")
        active.add(nid)
        stack.append((node, True))
        for child, level in _children_levels(node, depth):
            if id(child) not in size:
                depth_of[id(child)] = max(depth_of.get(id(child), 0), level)
                stack.append((child, False))


def _plain_tree(root) -> bool:
    """True if a tree of nodes (no node reached twice) has plain tags only, at most
    MAX_YAML_NODES nodes and no deeper nesting than MAX_YAML_DEPTH."""
    stack = [(root, 1)]
    count = 0
    mapping, sequence = yaml.MappingNode, yaml.SequenceNode
    while stack:
        node, depth = stack.pop()
        count += 1
        if node.tag not in _PLAIN_TAGS or depth > limits.MAX_YAML_DEPTH or count > limits.MAX_YAML_NODES:
            return False
        if isinstance(node, (mapping, sequence)):
            stack.extend(_children_levels(node, depth))
    return True


_MERGE = "tag:yaml.org,2002:merge"


def _children_levels(node, depth: int) -> list:
    """(child, its nesting level) of a node at level `depth`: one deeper, except what a merge
    key (`<<:`) merges (a mapping, or a list of mappings), whose keys land in this mapping."""
    if isinstance(node, yaml.SequenceNode):
        return [(v, depth + 1) for v in node.value]
    if not isinstance(node, yaml.MappingNode):
        return []
    out = []
    for k, v in node.value:
        out.append((k, depth + 1))
        if k.tag == _MERGE:
            out.append((v, depth))
            if isinstance(v, yaml.SequenceNode):
                out += [(m, depth) for m in v.value]
        else:
            out.append((v, depth + 1))
    return out


def _children(node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_depth(text: str, filename: str) -> None:
    """Refuse nesting deeper than MAX_YAML_DEPTH and more than MAX_YAML_NODES values from the
    event stream, while it is read and before anything is composed (a composed document is
    held whole in memory, and libyaml's composer recurses: it would crash on a few thousand
    `[`).  libyaml (from PyYAML 6.0.4) stops at 1000 levels with a message of its own, before
    the events reach this check when the brackets stand on one line (it reads a line ahead):
    the file is then read again with PyYAML's own parser, which has no such limit, so that
    the place and message are cardgen's."""
    try:
        _scan_events(yaml.parse(text, Loader=_Base), filename)
    except yaml.YAMLError as exc:
        if "nesting depth" not in str(exc):
            raise
        _scan_events(yaml.parse(text, Loader=yaml.SafeLoader), filename)
        mark = getattr(exc, "problem_mark", None)       # (a limit raised past libyaml's own)
        raise CardgenError(Loc(filename, mark.line + 1, mark.column + 1) if mark else Loc(filename),
                           "mappings and lists nested more than the YAML reader reads (1000 deep); flatten the data",
                           code="yaml") from None


def _scan_events(events, filename: str) -> None:
    depth = 0
    nodes = 0
    starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    for event in events:
        if isinstance(event, starts):
            depth += 1
            nodes += 1
            if depth > limits.MAX_YAML_DEPTH:
                raise _limit_error(filename, event, deep=True)
        elif isinstance(event, ends):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
        if nodes > limits.MAX_YAML_NODES:
            raise _limit_error(filename, event, deep=False)


def _limit_error(filename: str, event, deep: bool) -> CardgenError:
    """The event scan's refusal at `event`: nesting deeper than MAX_YAML_DEPTH (`deep`) or
    more than MAX_YAML_NODES values."""
    m = event.start_mark
    at = Loc(filename, m.line + 1, m.column + 1) if m else Loc(filename)
    if deep:
        return CardgenError(at, f"mappings and lists nested more than {limits.MAX_YAML_DEPTH} deep; flatten "
                                f"the data (limit CARDGEN_MAX_YAML_DEPTH)", code="yaml")
    return CardgenError(at, f"this file has more than {limits.MAX_YAML_NODES:,} values; split it into smaller "
                            f"files (limit CARDGEN_MAX_YAML_NODES)", code="yaml")


def _one_pass(loader, filename: str):
    """What `_check_depth` then `_build` make of a file, from one parse: the event scan's
    limits counted (and refused at the same event, with the same message) while the same
    `YDict`s and `YList`s are made straight from the events, without composing nodes.
    `_NotPlain` for anything it does not make the way `_build` would (an alias, an anchor,
    an explicit tag, a mapping as a key, more than one document) and for any other error
    (a duplicate key, a bad value, invalid YAML): the caller then reads the file the usual
    way, which finds the same first problem in the same order."""
    depth = nodes = documents = 0
    max_depth, max_nodes = limits.MAX_YAML_DEPTH, limits.MAX_YAML_NODES
    scalar_event, map_start, seq_start = yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    frames: list[list] = []     # [container, key (or _NO_KEY), the key's place] of each open collection
    root: Any = None
    tags: dict[str, str] = {}
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)
            if kind is scalar_event:
                nodes += 1
                if nodes > max_nodes:
                    raise _limit_error(filename, event, deep=False)
                if depth >= max_depth:
                    raise _NotPlain                         # (a value nested too deep: `_check_nodes` says where)
                value = _event_scalar(loader, event, tags)
                loc = Loc(filename, event.start_mark.line + 1, event.start_mark.column + 1)
                if frames:
                    _place(frames, value, loc)
                else:
                    root = value
            elif kind is map_start or kind is seq_start:
                depth += 1
                nodes += 1
                if depth > max_depth:
                    raise _limit_error(filename, event, deep=True)
                if nodes > max_nodes:
                    raise _limit_error(filename, event, deep=False)
                value = _begin(frames, event, filename)
                if depth == 1:
                    root = value
            elif kind in ends:
                depth -= 1
                frames.pop()
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _NotPlain
            elif kind is not yaml.StreamStartEvent and kind is not yaml.DocumentEndEvent and \
                    kind is not yaml.StreamEndEvent:
                raise _NotPlain                             # an alias
    except yaml.YAMLError:
        raise _NotPlain from None
    return root


def _event_scalar(loader, event, tags: dict[str, str]) -> Any:
    """A scalar event's value, as `_build` makes it of its node.  `tags`: the tag each short
    plain value resolved to (a file repeats its keys: a deck's `name:` on every card)."""
    if event.anchor is not None or event.tag is not None:
        raise _NotPlain
    value = event.value
    if not event.implicit[0]:
        return value
    tag = tags.get(value)
    if tag is None:
        tag = loader.resolve(yaml.ScalarNode, value, (True, False))
        if len(value) <= 40:
            tags[value] = tag
    return value if tag == _STR else _scalar_value(loader, tag, event)


def _begin(frames: list[list], event, filename: str) -> YDict | YList:
    """The mapping or list a start event begins, put into the innermost open collection
    (not as a key) and opened."""
    if event.anchor is not None or event.tag is not None:
        raise _NotPlain
    loc = Loc(filename, event.start_mark.line + 1, event.start_mark.column + 1)
    value: YDict | YList
    if type(event) is yaml.MappingStartEvent:
        value = YDict()
        value.key_locs, value.value_locs = {}, {}
    else:
        value = YList()
        value.item_locs = []
    value.loc = loc
    if frames:
        if frames[-1][1] is _NO_KEY and type(frames[-1][0]) is YDict:
            raise _NotPlain                                 # a mapping or list as a key
        _place(frames, value, loc)
    frames.append([value, _NO_KEY, None])
    return value


_NO_KEY = object()


def _place(frames: list[list], value: Any, loc: Loc) -> None:
    """Put a finished value (or a collection just begun) into the innermost open collection."""
    frame = frames[-1]
    into = frame[0]
    if type(into) is YList:
        into.append(value)
        into.item_locs.append(loc)
    elif frame[1] is _NO_KEY:
        if value in into:
            raise _NotPlain                                 # a duplicate key: `_build` says which
        frame[1], frame[2] = value, loc
    else:
        key = frame[1]
        into[key] = value
        into.key_locs[key] = frame[2]
        into.value_locs[key] = loc
        frame[1] = _NO_KEY


def _scalar_value(loader, tag: str, event) -> Any:
    if tag == _NULL:
        return None
    make = {_INT: _core_int, _FLOAT: _core_float, _BOOL: _core_bool}.get(tag)
    if make is None:
        raise _NotPlain
    try:
        return make(loader, yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark))
    except CardgenError:
        raise _NotPlain from None                           # `_build` says it, in its order


def _flatten_merges(loader, node) -> None:
    """Merge keys (`<<:`) of `node` and of the mappings it merges, resolved innermost first
    without recursion: a long chain of merges (each mapping merging the one before) is data
    as flat as its last mapping, not nesting."""
    order: list = []
    stack: list[tuple[object, bool]] = [(node, False)]
    seen: set[int] = set()
    while stack:                        # depth first, each mapping after the ones it merges
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if id(n) in seen or not isinstance(n, yaml.MappingNode):
            continue
        seen.add(id(n))
        stack.append((n, True))
        for k, v in n.value:
            if k.tag == "tag:yaml.org,2002:merge":
                stack.extend((m, False) for m in (v.value if isinstance(v, yaml.SequenceNode) else [v]))
    for n in order[:-1]:
        loader.flatten_mapping(n)       # (its own merged mappings are flat by now: no recursion)


def _make_loader(filename: str):
    class Loader(_Base):  # type: ignore[misc, valid-type]
        yaml_implicit_resolvers: ClassVar[dict] = {}

    for tag, pattern, first in _CORE:
        Loader.add_implicit_resolver(tag, re.compile(pattern), list(first))
    Loader.add_constructor("tag:yaml.org,2002:int", _core_int)
    Loader.add_constructor("tag:yaml.org,2002:float", _core_float)
    Loader.add_constructor("tag:yaml.org,2002:bool", _core_bool)

    def mark(node) -> Loc:
        return Loc(filename, node.start_mark.line + 1, node.start_mark.column + 1)

    def construct_map(loader, node):
        if not isinstance(node, yaml.MappingNode):
            raise CardgenError(mark(node), "`!!map` tag on a value that is not a mapping; remove the tag",
                               code="yaml")
        own = sum(1 for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge")
        try:
            _flatten_merges(loader, node)
            loader.flatten_mapping(node)
        except yaml.constructor.ConstructorError as exc:
            raise CardgenError(mark(node), f"a merge key `<<:` needs a mapping or a list of mappings "
                                           f"({exc.problem})", code="yaml") from None
        merged = len(node.value) - own     # the first `merged` pairs came from `<<:`; own keys override them
        d = YDict()
        d.loc = mark(node)
        d.key_locs = {}
        d.value_locs = {}
        from_merge: set = set()
        for i, (k_node, v_node) in enumerate(node.value):
            key = loader.construct_object(k_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise CardgenError(mark(k_node), "a mapping key must be a plain value") from None
            if i < merged:
                from_merge.add(key)
            elif key in from_merge:
                from_merge.discard(key)     # an own key overrides a merged one
            elif key in d:
                raise _duplicate(mark(k_node), key, d.key_locs[key])
            d[key] = loader.construct_object(v_node, deep=True)
            d.key_locs[key] = mark(k_node)
            d.value_locs[key] = mark(v_node)
        return d

    def construct_seq(loader, node):
        if not isinstance(node, yaml.SequenceNode):
            raise CardgenError(mark(node), "`!!seq` tag on a value that is not a list; remove the tag", code="yaml")
        seq = YList(loader.construct_object(child, deep=True) for child in node.value)
        seq.loc = mark(node)
        seq.item_locs = [mark(child) for child in node.value]
        return seq

    Loader.add_constructor("tag:yaml.org,2002:map", construct_map)
    Loader.add_constructor("tag:yaml.org,2002:seq", construct_seq)
    return Loader


class _NotPlain(Exception):
    """A node `_build` leaves to PyYAML's constructor (a tag on the wrong kind of node, a
    mapping as a key)."""


_T = "tag:yaml.org,2002:"
_STR, _NULL, _INT, _FLOAT, _BOOL, _MAP, _SEQ = (_T + t for t in ("str", "null", "int", "float", "bool", "map", "seq"))


def _build(loader, node, filename: str):
    """What `loader.construct_document(node)` makes of a tree (no anchors, no merge keys) whose
    tags are plain, made straight from the nodes: the same `YDict`s and `YList`s with the same
    places, the same scalars through the same constructors, the same first error in the same
    order (a duplicate key, a bad `!!int`); a third of the time (a 2,000-card deck file: 18,000
    values through PyYAML's generic constructor).  `_NotPlain` for anything else."""
    kind, tag = type(node), node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
        if tag == _NULL:
            return None
        if tag == _INT:
            return _core_int(loader, node)
        if tag == _FLOAT:
            return _core_float(loader, node)
        if tag == _BOOL:
            return _core_bool(loader, node)
        raise _NotPlain
    if kind is yaml.MappingNode and tag == _MAP:
        d = YDict()
        d.loc = _mark(filename, node)
        d.key_locs = {}
        d.value_locs = {}
        for k_node, v_node in node.value:
            if type(k_node) is not yaml.ScalarNode:
                raise _NotPlain
            key = _build(loader, k_node, filename)
            if key in d:
                raise _duplicate(_mark(filename, k_node), key, d.key_locs[key])
            d[key] = _build(loader, v_node, filename)
            d.key_locs[key] = _mark(filename, k_node)
            d.value_locs[key] = _mark(filename, v_node)
        return d
    if kind is yaml.SequenceNode and tag == _SEQ:
        seq = YList(_build(loader, child, filename) for child in node.value)
        seq.loc = _mark(filename, node)
        seq.item_locs = [_mark(filename, child) for child in node.value]
        return seq
    raise _NotPlain


def _yaml_error(filename: str, exc: yaml.YAMLError, text: str) -> CardgenError:
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    # An unclosed bracket or quote is noticed lines later: point at where it was opened.
    mark = context_mark if context_mark is not None and problem_mark is not None and \
        context_mark.line < problem_mark.line else (problem_mark or context_mark)
    line = mark.line + 1 if mark else 0
    col = mark.column + 1 if mark else 0
    problem = getattr(exc, "problem", None) or str(exc)
    lines = text.splitlines()

    def indent_has_tab(m) -> bool:
        src = lines[m.line] if m is not None and 0 <= m.line < len(lines) else ""
        return "\t" in src[: len(src) - len(src.lstrip())]

    if indent_has_tab(mark) or indent_has_tab(problem_mark) or "'\\t'" in problem or "tab character" in problem:
        tab_mark = next((m for m in (problem_mark, mark) if indent_has_tab(m)), problem_mark or mark)
        line = tab_mark.line + 1 if tab_mark else 0
        col = 1 if tab_mark and indent_has_tab(tab_mark) else (tab_mark.column + 1 if tab_mark else 0)
        message = "tab character in indentation; YAML indents with spaces only (replace the tab with spaces)"
    else:
        context = getattr(exc, "context", None)
        message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
        if mark is context_mark and problem_mark is not None:
            message += f", noticed at line {problem_mark.line + 1}"
            message = message.replace("(while parsing", "(the one opened here; while parsing")
        message += "; check the indentation and quoting on this line"
    return CardgenError(Loc(filename, line, col), message, code="yaml")


def _deepest(text: str, filename: str, limit: int = 100) -> Loc:
    """Where flow brackets (or indentation) first nest `limit` deep: the place to point at
    when the parser gave up on the depth."""
    depth, line, col = 0, 1, 0
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch in "[{":
            depth += 1
            if depth >= limit:
                return Loc(filename, line, col)
        elif ch in "]}":
            depth -= 1
    return Loc(filename, 1)


def load_text(text: str, filename: str):
    """Parse YAML text (YAML 1.2 core schema for plain values); errors become CardgenError
    with file:line.  Alias bombs, absurd nesting and non-plain tags are refused."""
    Loader = _make_loader(filename)
    try:
        if text.count("[") + text.count("{") + text.count("\n") > limits.MAX_YAML_DEPTH or \
                len(text) > limits.MAX_YAML_NODES:
            if "&" not in text and "<<" not in text:        # a tree without merge keys: one parse
                loader = Loader(text)
                loader.name = filename
                try:
                    return _one_pass(loader, filename)
                except _NotPlain:
                    pass
                finally:
                    loader.dispose()
            _check_depth(text, filename)
        loader = Loader(text)
        loader.name = filename
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_nodes(node, filename, anchors="&" in text)
            if "&" not in text and "<<" not in text:        # a tree without merge keys: most files
                try:
                    return _build(loader, node, filename)
                except _NotPlain:
                    pass
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except CardgenError:
        raise
    except RecursionError:
        raise CardgenError(_deepest(text, filename), "nested too deeply (lists or mappings inside each other "
                                                     "hundreds of levels deep); flatten the data",
                           code="yaml") from None
    except yaml.YAMLError as exc:
        raise _yaml_error(filename, exc, text) from None


def _decode(raw: bytes, path: Path) -> str:
    """A YAML file's bytes as text: UTF-8 only (a UTF-8 BOM is fine); UTF-16, binary data and
    other encodings are errors at the line where they show."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(raw) > 1 and (raw[0] == 0) != (raw[1] == 0)):
        raise CardgenError(Loc(str(path), 1, 1), "this file is UTF-16 text; save it as UTF-8 (any text editor's "
                                                 "\"Save as\" offers the encoding)", code="encoding")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    nul = raw.find(b"\0")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        col = nul - (raw.rfind(b"\n", 0, nul) + 1) + 1
        raise CardgenError(Loc(str(path), line, col), "binary data (a NUL byte), not YAML text; is this the right "
                                                      "file?", code="encoding")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = len(raw[raw.rfind(b"\n", 0, exc.start) + 1:exc.start].decode("utf-8", "replace")) + 1
        raise CardgenError(Loc(str(path), line, col), f"not UTF-8 text (byte 0x{raw[exc.start]:02x} here); save the "
                                                      f"file as UTF-8", code="encoding") from None


def load_file(path: str | Path):
    path = Path(path)
    try:
        raw = read_regular(path)
    except TooLarge as exc:
        raise CardgenError(Loc(str(path)), f"this file is {exc.strerror}; split it into smaller files",
                           code="too-large") from None
    except NotRegular:
        raise CardgenError(Loc(str(path)), "not a regular file (a pipe, device or socket), so cardgen does not "
                                           "read it; replace it with a YAML file or remove it",
                           code="not-a-file") from None
    except FileNotFoundError:
        raise CardgenError(Loc(str(path)), "file not found") from None
    except IsADirectoryError:
        raise CardgenError(Loc(str(path)), "this is a folder, not a YAML file; rename it (or move it out of the "
                                           "game folder)", code="not-a-file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CardgenError(Loc(str(path)), "a link that leads back to itself; replace it with the file",
                               code="unreadable") from None
        raise CardgenError(Loc(str(path)), f"cannot read: {exc.strerror or exc}", code="unreadable") from None
    return load_text(_decode(raw, path), str(path))
