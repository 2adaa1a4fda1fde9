"""`cardgen build --watch`: rebuild when a game's files, templates, fonts or art change.

Polling file times keeps it dependency-free and works on every system and file share."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

IGNORED_PARTS = {"build", ".git", "__pycache__", ".cardgen-cache"}


def snapshot(roots: Iterable[Path]) -> dict[Path, tuple[float, int]]:
    """(mtime, size) of every file below the roots, build output and caches left out."""
    seen: dict[Path, tuple[float, int]] = {}
    for root in roots:
        if not root.exists():
            continue
        files = [root] if root.is_file() else root.rglob("*")
        for p in files:
            if p.is_file() and not IGNORED_PARTS.intersection(p.parts) and not p.name.startswith(".#"):
                try:
                    st = p.stat()
                except OSError:
                    continue
                seen[p] = (st.st_mtime, st.st_size)
    return seen


def changed(before: dict[Path, tuple[float, int]], after: dict[Path, tuple[float, int]]) -> list[Path]:
    return sorted({p for p in before.keys() | after.keys() if before.get(p) != after.get(p)})


def watch(roots: Callable[[], list[Path]], rebuild: Callable[[list[Path]], None], interval: float = 0.5,
          settle: float = 0.15, stop: Callable[[], bool] = lambda: False,
          sleep: Callable[[float], object] = time.sleep) -> None:
    """Call `rebuild(changed_files)` whenever files below `roots()` change, until `stop()`."""
    before = snapshot(roots())
    while not stop():
        sleep(interval)
        after = snapshot(roots())
        diff = changed(before, after)
        if not diff:
            continue
        sleep(settle)                      # let an editor finish writing (save = several writes)
        after = snapshot(roots())
        rebuild(changed(before, after) or diff)
        before = after
