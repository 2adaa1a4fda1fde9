"""Containers that remember where they came from: what the YAML loader (`cardgen.load.yamlsrc`)
makes of mappings and sequences.  They live here, below every stage, so the model can name them."""
from __future__ import annotations

from cardgen.core.errors import Loc


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
