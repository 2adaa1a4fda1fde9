"""Watch a game's files, templates, fonts, art and sheet layouts, and act on every saved change: `cardgen
build --watch` rebuilds, `cardgen serve` checks again and updates the page.

On `watchfiles` (the operating system's file events, polling only where there are none).
Every folder counts, whatever its name (a game inside a folder called `build` too); only the
build's own output folders (exactly those: a deck `buildings.yaml` beside `build/` counts), what a
build makes beside them (its staging folder and commit record, `core.atomic`), cardgen's and
editors' temporary files, the build's own update of the game's history file
(`load.history.ours`), and version-control and cache folders are ignored: a build never
sets off another.  Folders may come and go: the watched set is checked again every `recheck` seconds,
and a folder that appears counts as changed."""
from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from watchfiles import Change, DefaultFilter
from watchfiles import watch as watch_changes

from cardgen.core.atomic import SIDE_SUFFIXES
from cardgen.core.paths import SHARED_KINDS
from cardgen.load import history
from cardgen.load.project import game_project

IGNORED_DIRS = (*DefaultFilter.ignore_dirs, ".cardgen-cache")
# what a build writes beside an output folder (`.build.cardgen-new/`, ...), and temporary files
# (`core.atomic`: `.print-a4.pdf.k2j3.tmp`)
_SIDE = re.compile(r"^\..*(?:" + "|".join(re.escape(s) for s in SIDE_SUFFIXES) + r")$")
_TEMPORARY = (r"^\..*\.tmp$",)


class Filter(DefaultFilter):
    """Which changed paths count (see the module docstring)."""

    def __init__(self, outputs: Iterable[Path] = ()) -> None:
        super().__init__(ignore_dirs=IGNORED_DIRS,
                         ignore_entity_patterns=(*DefaultFilter.ignore_entity_patterns, *_TEMPORARY))
        self.outputs = tuple(str(p) for p in outputs)

    def __call__(self, change: Change, path: str) -> bool:
        if any(path == out or path.startswith(out.rstrip(os.sep) + os.sep) for out in self.outputs):
            return False
        if any(_SIDE.match(part) for part in Path(path).parts):
            return False
        if history.ours(Path(path)):    # cardgen-history.json as the build wrote it
            return False
        return super().__call__(change, path)


def game_roots(games: Iterable[Path]) -> list[Path]:
    """What building `games` reads: the game folders and their projects' shared folders (templates/, fonts/
    and art/ (those need not exist yet)."""
    games = list(games)
    projects = sorted({game_project(g) for g in games})
    return [*games, *(q / d for q in projects for d in SHARED_KINDS)]


def existing(roots: Iterable[Path]) -> list[Path]:
    """The roots that exist, resolved, without those inside another one."""
    found = sorted({p.resolve() for p in roots if p.exists()})
    return [p for p in found if not any(q in p.parents for q in found)]


def watch(roots: Callable[[], list[Path]], rebuild: Callable[[list[Path]], None], *,
          ignore: Iterable[Path] = (), stop: threading.Event | None = None,
          debounce: float = 0.3, recheck: float = 1.0, force_polling: bool | None = None) -> None:
    """Call `rebuild(changed_paths)` whenever files below `roots()` change, until `stop` is set
    (or Ctrl-C, raised as KeyboardInterrupt).  `ignore`: folders whose changes do not count (the
    output folders)."""
    stop = stop or threading.Event()
    watch_filter = Filter(p.resolve() for p in ignore)
    watched = existing(roots())
    while not stop.is_set():
        if not watched:
            stop.wait(recheck)
            appeared = existing(roots())
            if appeared:
                watched = appeared
                rebuild(appeared)
            continue
        for changes in watch_changes(*watched, watch_filter=watch_filter, stop_event=stop,
                                     debounce=int(debounce * 1000), step=50, rust_timeout=int(recheck * 1000),
                                     yield_on_timeout=True, force_polling=force_polling):
            now = existing(roots())
            appeared = [p for p in now if p not in watched]
            paths = sorted({Path(path) for _, path in changes} | set(appeared))
            if paths:
                rebuild(paths)
            if now != watched:          # a folder came or went: watch the new set
                watched = now
                break
        else:
            return                      # stopped
