"""Containers that remember where they came from: what the YAML loader (`cardgen.load.yamlsrc`)
makes of mappings and sequences.  They live here, below every stage, so the model can name them."""
from __future__ import annotations

from cardgen.core.errors import Loc
from cardgen.core.paths import read_regular


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
        lines = read_regular(loc.file).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return loc
    for i in range(loc.line - 1, min(len(lines), loc.line - 1 + max_lines)):
        start = loc.col - 1 if i == loc.line - 1 else 0
        col = lines[i].find(needle, start)
        if col >= 0:
            return Loc(loc.file, i + 1, col + 1)
    return loc
