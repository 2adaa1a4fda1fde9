"""The one resolver of file references: everything a game names becomes a
`cardgen.model.refs.FileRef` here, confined to the game's allowed folders.

What game.yaml and the deck files name (deck files, rules.yaml, icon aliases, spreadsheets) is
resolved when the game loads (`cardgen.load.game`, `cardgen.load.sheets`); what only a card's
values name (art `src: "{{ card.art }}"`, icons in text, templates, fonts, sheet layouts, a
colour profile) is resolved where it is first needed, through the same functions.  This module
is the only one that calls the confinement functions of `cardgen.core.paths` (which keeps the
rules themselves); `tests/test_confinement.py` holds the package to that, so a new kind of file
cannot skip confinement.  Every function raises `PathRefused` (its `str()` is the one-line
message) for a reference that leaves the allowed folders.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cardgen.core import paths as _paths
from cardgen.core.data import DATA
from cardgen.core.errors import Loc
from cardgen.core.paths import PathRefused
from cardgen.model.refs import FileRef

__all__ = ["FileRef", "PathRefused", "check_written", "confined", "find", "roots_for"]


def roots_for(game_root: Path, project: Path) -> tuple[Path, ...]:
    """The folders a game may read files from: the game folder, the project's shared folders
    and cardgen's bundled ones (`cardgen.core.paths.allowed_roots`)."""
    return _paths.allowed_roots(game_root, project, DATA)


def check_written(ref: str, what: str) -> None:
    """Refuse a reference that is absolute or climbs out with `..`, as written (nothing is
    looked up)."""
    _paths.check_ref(ref, what)


def confined(path: Path, roots: Sequence[Path], kind: str, what: str | None = None, as_written: str | None = None,
             loc: Loc | None = None) -> FileRef:
    """The reference to the existing file `path`, confined to `roots`.  `what` names it in
    messages (default: `kind`); `as_written` is the reference as the game wrote it (default: the
    file's name in messages, the path itself in the reference)."""
    real = _paths.confine(Path(path), roots, what or kind, as_written)
    return FileRef(kind, real, as_written if as_written is not None else str(path), loc, Path(path))


def find(ref: str, bases: Sequence[Path], roots: Sequence[Path] | None, kind: str, what: str | None = None,
         suffixes: Sequence[str] = ("",), loc: Loc | None = None, svg: bool = False) -> FileRef:
    """The first `base / ref + suffix` that is a file, confined to `roots`; its `path` is None
    when there is none.  Without `roots` (a book of files made for a folder alone), absolute
    paths and `..` escapes are still refused.  With `svg`, an SVG file found must also pass
    `cardgen.core.paths.svg_problem` (what it refers to stays inside `roots`)."""
    what = what or kind
    if roots is None:
        _paths.check_ref(ref, what)
        found = next((Path(b) / f"{ref}{s}" for b in bases for s in suffixes if (Path(b) / f"{ref}{s}").is_file()),
                     None)
        return FileRef(kind, found, ref, loc, found)
    path = _paths.find_confined(ref, bases, roots, what, suffixes)
    if svg and path is not None and path.suffix.lower() == ".svg":
        problem = _paths.svg_problem(path, roots)
        if problem:
            raise PathRefused(problem)
    return FileRef(kind, path, ref, loc, path)
