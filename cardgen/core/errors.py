"""Diagnostics: every problem cardgen reports names a file, a line and what to do."""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 card`, `3 cards`."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


_shown: dict[tuple[str, str], str] = {}        # (path, working directory) -> `display_path`


def display_path(path: str | os.PathLike | None) -> str:
    """A path as the user should see it: relative to the working directory when inside it."""
    if path is None:
        return "<unknown>"
    try:
        key = (os.fspath(path), os.getcwd())    # (remembered: a report sorts a thousand problems of one file)
    except (TypeError, OSError):
        return _display_path(path)
    hit = _shown.get(key)
    if hit is None:
        if len(_shown) >= 4096:
            _shown.clear()
        hit = _shown[key] = _display_path(path)
    return hit


def relative_to(full: str, root: str) -> str:
    """`os.path.relpath(full, root)` of two absolute, normalized paths (`os.path.abspath`), a
    path inside `root` cut from it without `relpath`'s work (3 to 6 us a path: the thousands of
    files of a build's gallery)."""
    inside = os.path.join(root, "")
    return full[len(inside):] if len(full) > len(inside) and full.startswith(inside) else os.path.relpath(full, root)


def _display_path(path: str | os.PathLike) -> str:
    p = Path(path)
    try:
        return os.path.relpath(p) if p.is_absolute() and not os.path.relpath(p).startswith("..") else str(p)
    except (ValueError, OSError):       # (another drive; or the working directory no longer exists)
        return str(p)


def escape_controls(text: str) -> str:
    """`text` safe to print on a terminal: control characters (escape sequences, carriage
    returns, a bell) shown as `\\x1b`, `\\r`, ... instead of acting on the terminal."""
    if text.isprintable():
        return text
    return "".join(ch.encode("unicode_escape").decode("ascii") if _unsafe(ch) else ch for ch in text)


_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _unsafe(ch: str) -> bool:
    """C0/C1 controls, line separators and bidi overrides (they reorder what follows)."""
    import unicodedata

    return unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in _BIDI


class Loc(NamedTuple):
    """A place in a source file (1-based line and column).  `cell`: a spreadsheet cell as the
    workbook names it (`Actions!B5`); then `line`/`col` are its row and column numbers and
    the place prints as `cards.xlsx: Actions!B5`.

    A named tuple: immutable, ordered by (file, line, col, cell), and made in a quarter of a
    frozen dataclass's time (the YAML loader makes one for every key and value: 18,000 for a
    2,000-card deck)."""

    file: str
    line: int = 0
    col: int = 0
    cell: str = ""

    def __str__(self) -> str:
        out = display_path(self.file)
        if self.cell:
            return f"{out}: {self.cell}"
        if self.line:
            out += f":{self.line}"
            if self.col:
                out += f":{self.col}"
        return out

    @property
    def short(self) -> str:
        """`file.yaml:12` with the file's base name only, for inline references."""
        if self.cell:
            return f"{Path(self.file).name} {self.cell}"
        return f"{Path(self.file).name}:{self.line}" if self.line else Path(self.file).name

    @property
    def brief(self) -> str:
        """`cards.csv:2:3` (`cards.xlsx Actions!A2`): the file's base name and the exact place,
        the same from any folder (it names the first card of a grouped diagnostic)."""
        if self.cell:
            return f"{Path(self.file).name} {self.cell}"
        return self.short + (f":{self.col}" if self.line and self.col else "")


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place.  A problem that can repeat card after card (the same missing
    art file, the same glyph no font has) also says what it is without naming the card
    (`group`) and which card it is (`card`: `'Digging', cards.csv:2:3`): the same `group`
    said of several cards is printed once, with the count and the first card (`grouped`)."""

    loc: Loc
    message: str
    severity: str = "error"  # "error", "warning" or "note" (a designer's note: not a problem)
    code: str = ""
    # What the problem is about, the same whichever check finds it (e.g. ("unknown-icon", icon,
    # card)): a later check leaves out a problem an earlier one already reported.  Not compared.
    dedupe: tuple[str, ...] = field(default=(), compare=False)
    group: str = ""          # the message said of many cards (no card named), or ""
    card: str = ""           # the card this one is about, with its place
    count: int = 1           # how many cards a grouped diagnostic stands for

    def __str__(self) -> str:
        return escape_controls(f"{self.loc}: {self.severity}: {self.message}")

    def sort_key(self) -> tuple[str, int, int, str]:
        return (display_path(self.loc.file), self.loc.line, self.loc.col, self.message)

    def as_dict(self) -> dict:
        out = {
            "file": display_path(self.loc.file),
            "line": self.loc.line,
            "col": self.loc.col,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }
        if self.loc.cell:
            out["cell"] = self.loc.cell
        if self.count > 1:
            out["count"] = self.count
            out["first_card"] = self.card
        return out


def grouped(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`diags` as they are said: diagnostics with the same severity, code and `group` (one
    problem found on several cards) become one, at the place of the first card found (the
    cards are checked in deck order), saying the count and that card: `... on 66 cards
    (first: 'Digging', cards.csv:2:3)`.  A group of one keeps its own message.  Sorted."""
    unique = list(dict.fromkeys(diags))
    groups: dict[tuple[str, str, str], list[Diagnostic]] = {}
    out: list[Diagnostic] = []
    for d in unique:
        if d.group:
            groups.setdefault((d.severity, d.code, d.group), []).append(d)
        else:
            out.append(d)
    for members in groups.values():
        d = members[0]
        n = sum(m.count for m in members)
        out.append(d if n == 1 else Diagnostic(d.loc, f"{d.group} on {n} cards (first: {d.card})", d.severity,
                                               d.code, d.dedupe, group=d.group, card=d.card, count=n))
    return sorted(out, key=Diagnostic.sort_key)


class CardgenError(Exception):
    """An error the user can fix; carries one or more diagnostics."""

    def __init__(self, loc: Loc | None, message: str = "", *, diagnostics: list[Diagnostic] | None = None,
                 code: str = "", dedupe: tuple[str, ...] = ()):
        if diagnostics is None:
            diagnostics = [Diagnostic(loc or Loc("<unknown>"), message, "error", code, dedupe)]
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


@dataclass
class Report:
    """Collects warnings (and errors) while a build runs."""

    items: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)    # not problems: lines for the build summary
    # `items` as a set, for `_add` (a check that warns card after card asked the list each
    # time: quadratic, 46,000 comparisons for 305 contrast warnings); made again from `items`
    # when something changed the list without `_add` (`report.items.append(d)`)
    _seen: set[Diagnostic] = field(default_factory=set, init=False, repr=False, compare=False)
    _of: tuple[list | None, int] = field(default=(None, 0), init=False, repr=False, compare=False)

    def note(self, message: str) -> None:
        """A line for the build summary (how an output was laid out), not a problem."""
        if message not in self.notes:
            self.notes.append(message)

    def warn(self, loc: Loc, message: str, code: str = "", *, group: str = "", card: str = "") -> None:
        """A warning; with `group` and `card`, one that may repeat card after card (`grouped`)."""
        self._add(Diagnostic(loc, message, "warning", code, group=group, card=card))

    def error(self, loc: Loc, message: str, code: str = "") -> None:
        self._add(Diagnostic(loc, message, "error", code))

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        for d in diags:
            self._add(d)

    def _add(self, d: Diagnostic) -> None:
        """`d` at the end of `items`, unless an equal one is there."""
        items = self.items
        if self._of[0] is not items or self._of[1] != len(items):
            self._seen = set(items)
        if d not in self._seen:
            items.append(d)
            self._seen.add(d)
        self._of = (items, len(items))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=Diagnostic.sort_key)

    def said(self) -> list[Diagnostic]:
        """The diagnostics as they are printed: sorted, each problem found on many cards once."""
        return grouped(self.items)
