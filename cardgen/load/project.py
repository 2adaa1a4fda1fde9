"""Where cardgen finds its work: games, projects, and where a game's output goes.

- A **game** is a folder with a `game.yaml`.  It is self-contained: its decks, `rules.yaml`,
  `templates/`, `art/` and `fonts/` live inside it, so it builds from any current folder,
  after being moved, or zipped to a co-designer.
- A **project** is a folder holding several games in `cards/<game>/`, marked by a
  `cardgen.yaml` file or, as before, by having both `cards/` and `templates/`.  It is found by
  searching upwards from the current folder, like git finds its repository.  Its
  `templates/`, `art/` and `fonts/` are shared by its games (searched after the game's own).
- A game's project is the nearest project above the game folder (one marked by `cardgen.yaml`,
  or one whose `cards/` holds the game); outside any project the game stands alone and is its
  own project.
- Output goes to `<project>/build/<game>/`, for a game standing alone to `<game>/build/`, or
  with `--out DIR` to `DIR/<game>/`; never into cardgen's installation, whatever the current
  folder.
"""
from __future__ import annotations

from pathlib import Path

from cardgen.core.errors import CardgenError, Loc

MARKER = "cardgen.yaml"
GAME_FILE = "game.yaml"


def is_project(folder: Path) -> bool:
    return (folder / MARKER).is_file() or ((folder / "cards").is_dir() and (folder / "templates").is_dir())


def find_project(start: Path | None = None) -> Path | None:
    """The nearest project at or above `start` (default: the current folder), or None."""
    here = (start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if is_project(p):
            return p
    return None


def game_project(game: Path) -> Path:
    """The project `game` belongs to: the nearest folder above it with a `cardgen.yaml`, or
    with `cards/` and `templates/` where the game is inside `cards/`; else the game folder
    itself (a game standing alone)."""
    root = game.resolve()
    for p in root.parents:
        if (p / MARKER).is_file():
            return p
        if is_project(p) and (p / "cards") in (root, *root.parents):
            return p
    return root


def output_dir(game: Path, project: Path, out: Path | None = None, lang: str | None = None) -> Path:
    """Where a game's outputs go (see the module's doc); with `lang` (a game with `languages:`,
    docs/languages.md), that language's folder in it."""
    slug = game.resolve().name
    if out is not None:
        base = out / slug
    elif project.resolve() == game.resolve():
        base = game / "build"
    else:
        base = project / "build" / slug
    return base / lang if lang else base


def enclosing_game(start: Path, stop: Path | None = None) -> Path | None:
    """The game folder `start` is in (itself or a folder above it, below `stop`), or None."""
    here = start.resolve()
    for p in (here, *here.parents):
        if stop is not None and p == stop.resolve():
            return None
        if (p / GAME_FILE).is_file():
            return p
    return None


def project_games(project: Path) -> list[Path]:
    """Every game in the project's `cards/`, by name."""
    cards = project / "cards"
    return sorted(p for p in cards.iterdir() if (p / GAME_FILE).is_file()) if cards.is_dir() else []


def resolve_games(names: list[str], project: Path | None, cwd: Path | None = None) -> list[Path]:
    """Game folders for CLI arguments: paths to game folders (or their game.yaml), or names of
    games in the project's `cards/`.  No names: the game the current folder is in, else every
    game of the project."""
    cwd = cwd or Path.cwd()
    if not names:
        here = enclosing_game(cwd, project)
        if here is not None:
            return [here]
        if project is None:
            raise CardgenError(Loc(str(cwd)), "no game here (a game is a folder with a game.yaml); give a game "
                                              "folder, or start one with `cardgen new NAME`")
        games = project_games(project)
        if not games:
            raise CardgenError(Loc(str(project / "cards")), "no games found (a game is a folder with a game.yaml)")
        return games
    out = []
    for name in names:
        p = Path(name)
        if p.is_file() and p.name == GAME_FILE:
            p = p.parent
        if (p / GAME_FILE).is_file():
            out.append(p)
        elif project is not None and (project / "cards" / name / GAME_FILE).is_file():
            out.append(project / "cards" / name)
        else:
            known = [q.name for q in project_games(project)] if project is not None else []
            where = (f"games: {', '.join(known) or 'none'}; or give a path to a game folder" if project is not None
                     else "not in a project; give a path to a game folder")
            from cardgen.schema.core import suggest

            raise CardgenError(Loc(name), f"no game called '{name}'{suggest(name, known)} ({where})")
    return out
