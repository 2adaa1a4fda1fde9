"""Load YAML safely, remembering where every key and value came from.

Mappings load as `YDict` and sequences as `YList`: ordinary dicts and lists that also
carry the source location of themselves, of each key and of each value.  Scalars stay
plain Python values, so the data can go straight into Jinja templates.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from cardgen.core.errors import CardgenError, Loc

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YDict(dict):
    """A dict with `loc` (the mapping), `key_locs` and `value_locs` (per key)."""

    loc: Loc
    key_locs: dict
    value_locs: dict

    def key_loc(self, key) -> Loc:
        return self.key_locs.get(key, self.loc) if hasattr(self, "key_locs") else getattr(self, "loc", Loc("?"))

    def value_loc(self, key) -> Loc:
        return self.value_locs.get(key, self.loc) if hasattr(self, "value_locs") else getattr(self, "loc", Loc("?"))


class YList(list):
    """A list with `loc` (the sequence) and `item_locs` (per item)."""

    loc: Loc
    item_locs: list

    def item_loc(self, i: int) -> Loc:
        locs = getattr(self, "item_locs", None)
        return locs[i] if locs and i < len(locs) else getattr(self, "loc", Loc("?"))


def loc_of(container, key=None) -> Loc:
    """Best location for `container[key]` (or the container itself)."""
    if isinstance(container, YDict):
        return container.value_loc(key) if key is not None else container.loc
    if isinstance(container, YList):
        return container.item_loc(key) if key is not None else container.loc
    return Loc("<unknown>")


def refine_loc(loc: Loc, needle: str, max_lines: int = 200) -> Loc:
    """The exact line of `needle` inside a value starting at `loc` (a multi-line block
    scalar reports only where it starts). Falls back to `loc`."""
    if not needle or not loc.line:
        return loc
    try:
        lines = Path(loc.file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return loc
    for i in range(loc.line - 1, min(len(lines), loc.line - 1 + max_lines)):
        start = loc.col - 1 if i == loc.line - 1 else 0
        col = lines[i].find(needle, start)
        if col >= 0:
            return Loc(loc.file, i + 1, col + 1)
    return loc


def _make_loader(filename: str):
    class Loader(_Base):  # type: ignore[misc, valid-type]
        pass

    def mark(node) -> Loc:
        return Loc(filename, node.start_mark.line + 1, node.start_mark.column + 1)

    def construct_map(loader, node):
        loader.flatten_mapping(node)
        d = YDict()
        d.loc = mark(node)
        d.key_locs = {}
        d.value_locs = {}
        for k_node, v_node in node.value:
            key = loader.construct_object(k_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise CardgenError(mark(k_node), "a mapping key must be a plain value")
            if key in d:
                raise CardgenError(mark(k_node), f"duplicate key '{key}' (first at line {d.key_locs[key].line}); "
                                                 f"remove one of them")
            d[key] = loader.construct_object(v_node, deep=True)
            d.key_locs[key] = mark(k_node)
            d.value_locs[key] = mark(v_node)
        return d

    def construct_seq(loader, node):
        seq = YList(loader.construct_object(child, deep=True) for child in node.value)
        seq.loc = mark(node)
        seq.item_locs = [mark(child) for child in node.value]
        return seq

    Loader.add_constructor("tag:yaml.org,2002:map", construct_map)
    Loader.add_constructor("tag:yaml.org,2002:seq", construct_seq)
    return Loader


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
    """Parse YAML text; errors become CardgenError with file:line."""
    Loader = _make_loader(filename)
    try:
        return yaml.load(text, Loader=Loader)
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
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CardgenError(Loc(str(path)), "file not found") from None
    except IsADirectoryError:
        raise CardgenError(Loc(str(path)), "this is a folder, not a YAML file; rename it (or move it out of the "
                                           "game folder)", code="not-a-file") from None
    except OSError as exc:
        raise CardgenError(Loc(str(path)), f"cannot read: {exc.strerror or exc}", code="unreadable") from None
    return load_text(_decode(raw, path), str(path))
