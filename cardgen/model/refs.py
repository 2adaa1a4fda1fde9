"""File references: what a game names (a deck file, rules.yaml, art, an icon, a font, a
spreadsheet, a sheet layout, a template, a colour profile) once it is resolved and confined.

`FileRef`s are made only by `cardgen.load.refs`, the one module that asks `cardgen.core.paths`
whether a file may be read (a test, `tests/test_confinement.py`, holds the code to it); later
stages read them and never confine anything themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardgen.core.errors import Loc


@dataclass(frozen=True)
class FileRef:
    """One file a game names.  `path`: the file resolved (links followed) and confined to the
    game's allowed folders, or None when no file of that name exists; `as_written`: the
    reference as the game wrote it (what messages show); `loc`: where it was written, when
    known; `found`: the file as it was reached, before links were followed (what messages
    name when they name the file)."""

    kind: str
    path: Path | None
    as_written: str
    loc: Loc | None = None
    found: Path | None = None

    @property
    def exists(self) -> bool:
        return self.path is not None
