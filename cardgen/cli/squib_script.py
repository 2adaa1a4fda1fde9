"""What a Squib script (`deck.rb`) says of its layout entries, for `cardgen import squib --script`:
which drawing call uses each entry (`text`, `rect`, `svg`, `png`), in what order, and the data
column a `text str: data['Col']` prints.  Read, never run: a call is found by its method word at
the start of a statement and its arguments up to the next such word, and only literal entry
names (`layout: 'name'`, `layout: :name`) are matched; what the script computes (`layout:
"#{res}_rect"` in a loop, `str: data['X'].map { ... }`) is not, and the import says so."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cardgen.core.errors import CardgenError, Loc
from cardgen.core.paths import TooLarge, read_regular

MAX_SCRIPT_BYTES = 1_000_000
# Squib's drawing methods that take a layout, and the cardgen element each makes.
DRAWS = {"text": "text", "rect": "rect", "svg": "image", "png": "image", "circle": "ellipse",
         "ellipse": "ellipse", "line": "line", "triangle": "polygon", "star": "polygon", "polygon": "polygon"}
_CALL = re.compile(r"^[ \t]*(" + "|".join(DRAWS) + r"|background)\b(?![ \t]*(?:=|\.|\[))", re.M)
_LAYOUT = re.compile(r"\blayout:\s*(?:'([\w -]+)'|\"([\w -]+)\"|:(\w+))")
_DYNAMIC = re.compile(r"\blayout:\s*\"([^\"\n]*#\{[^\"\n]*)\"")
_STR = re.compile(r"\bstr:\s*\w+(?:\[\s*['\"]([^'\"]+)['\"]\s*\]|\.([A-Za-z_]\w*))\s*(?:[,)\n]|$)")
_LOOP_STR = re.compile(r"\bstr:\s*\w+\[\s*(\w+)\s*\]\s*(?:[,)\n]|$)")
LOOP = "\0loop"          # a Use's column: the part of the entry's name the loop's variable gives
_COLOUR = re.compile(r"\bcolor:\s*(?:'([^']+)'|\"([^\"]+)\"|:(\w+))")


@dataclass
class Use:
    """One drawing call of an entry: the element kind it makes, the column a text prints (None
    when the script computes it) and the call's line; `pattern`: the entry names a computed
    `layout: "#{res.downcase}_rect"` can make (`\\w+_rect`), for such a call."""

    kind: str
    column: str | None
    line: int
    pattern: re.Pattern | None = None
    written: str = ""           # the computed layout name as the script writes it


@dataclass
class Script:
    path: Path
    calls: list[tuple[str, Use]] = field(default_factory=list)     # (entry name, or "" for a pattern)
    background: str | None = None           # a literal `background color:`
    background_line: int = 0                # a `background` call (its colour literal or not)

    def uses(self, key: str) -> list[Use]:
        """The calls that draw entry `key`, in the script's order: those naming it, and those
        whose computed name can be it (a text of `str: data[res]` in a call whose layout name is
        `"#{res.downcase}_amt"` prints, for `wood_amt`, the column `wood`)."""
        out = []
        for k, u in self.calls:
            m = u.pattern.fullmatch(key) if u.pattern is not None else None
            if k == key or m is not None:
                column = m.group(1) if m is not None and u.column == LOOP else u.column
                out.append(Use(u.kind, column, u.line, u.pattern, u.written))
        return out


def read(path: Path) -> Script:
    try:
        raw = read_regular(path, MAX_SCRIPT_BYTES)
    except TooLarge as exc:
        raise CardgenError(Loc(str(path)), f"this file is {exc.strerror}; not a Squib script") from None
    except OSError as exc:
        raise CardgenError(Loc(str(path)), f"cannot read: {exc.strerror or exc}") from None
    text = raw.decode("utf-8", errors="replace")
    text = re.sub(r"(?m)^[ \t]*#.*$", "", text)           # comment lines (the same number of lines)
    script = Script(path)
    starts = list(_CALL.finditer(text))
    for i, m in enumerate(starts):
        call = text[m.end():starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        line = text.count("\n", 0, m.start()) + 1
        method = m.group(1)
        if method == "background":
            c = _COLOUR.search(call)
            if not script.background_line:
                script.background_line = line
                script.background = next(g for g in c.groups() if g) if c is not None else None
            continue
        s = _STR.search(call) if method == "text" else None
        column = next((g for g in s.groups() if g), None) if s is not None else None
        lay, dyn = _LAYOUT.search(call), _DYNAMIC.search(call)
        if lay is not None:
            script.calls.append((next(g for g in lay.groups() if g), Use(DRAWS[method], column, line)))
        elif dyn is not None:
            holes = re.findall(r"#\{\s*(\w+)[^}]*\}", dyn.group(1))
            parts = re.split(r"#\{[^}]*\}", dyn.group(1))
            loop = _LOOP_STR.search(call) if method == "text" else None
            by_var = len(holes) == 1 and loop is not None and loop.group(1) == holes[0]
            pattern = re.compile(r"(\w+)".join(re.escape(p) for p in parts))
            use = Use(DRAWS[method], LOOP if by_var else None, line, pattern, dyn.group(1))
            script.calls.append(("", use))
    return script
