"""rules.yaml as plain typed data, loaded once (`cardgen.load.rules`) and kept on the game
(`Game.rules`): the component list (docs/rules-format.md, part 1) as `Entry` objects, and the
rulebook's mapping (part 2), which `cardgen.layout.rulebook` renders.

Everything that reads rules.yaml reads this one object: the count checks
(`cardgen.check.components`), the rulebook's `components` in rules text, the booklet's
components page and the outputs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgen.core.errors import Loc
from cardgen.core.located import YDict
from cardgen.schema.files import RULES_PART1, RulesFile

# The keys of rules.yaml that make the rulebook (the others are the component list).
RULEBOOK_KEYS = tuple(k for k in RulesFile.options() if k not in RULES_PART1)


@dataclass(frozen=True)
class Count:
    """A number as the rules state it: exact, at least (`"26+"`), or to be decided."""

    value: int | None       # None when tbd
    loc: Loc
    at_least: bool = False

    @property
    def tbd(self) -> bool:
        return self.value is None

    def __str__(self) -> str:
        if self.value is None:
            return "tbd"
        return f"{self.value}+" if self.at_least else str(self.value)


@dataclass
class Entry:
    """One entry of `components:`, as declared by `cardgen.schema.files.ComponentEntry`."""

    data: YDict
    decks: list[tuple[str, Loc]] = field(default_factory=list)
    item: str | None = None
    total: Count | None = None
    cards: dict[str, Count] = field(default_factory=dict)
    others: Count | None = None
    by: str | None = None
    by_loc: Loc | None = None
    groups: dict[str, Count] = field(default_factory=dict)
    groups_loc: Loc | None = None
    each: Count | None = None
    types: Count | None = None
    count: Count | None = None
    silent: str | None = None
    bought: str | None = None       # an item bought or taken from another game: listed, not printed
    contradicted: bool = False      # the declared total disagrees with the entry's own parts

    @property
    def loc(self) -> Loc:
        return self.data.loc

    @property
    def names(self) -> list[str]:
        """The decks it is about, or its item."""
        return [self.item] if self.item is not None else [d for d, _ in self.decks]


@dataclass
class Rules:
    """rules.yaml, loaded once."""

    file: Path
    data: YDict                     # the mapping as read (with locations): the rulebook is rendered from it
    opts: RulesFile                 # its declared values, converted
    components: list[Entry] | None = None   # None when there is no `components:` list
    raw: YDict | None = None        # the mapping with every language's values (their places: docs/languages.md)
    components_loc: Loc | None = None       # where `components:` is
    rendered: Any = field(default=None, repr=False, compare=False)   # the rulebook, once rendered (layout.rulebook)

    @property
    def has_rulebook(self) -> bool:
        return any(k in self.data for k in RULEBOOK_KEYS)

    def component_names(self) -> dict[str, Entry]:
        """Deck or item name -> its entry (the last entry that names it)."""
        return {n: e for e in self.components or [] for n in e.names}

    def aid_item(self) -> str | None:
        """The component-list item the player aid is (`player_aid: {item: ...}`), if any."""
        aid = self.data.get("player_aid")
        item = aid.get("item") if isinstance(aid, dict) else None
        return item if isinstance(item, str) and item else None

    def items(self) -> list[Entry]:
        """The `item:` entries (tokens, dice, boards), in order."""
        return [e for e in self.components or [] if e.item is not None]


def most_players(text: str | None) -> int:
    """The most players game.yaml's `players` allows ("2-4" gives 4, "3" gives 3); 1 if none."""
    numbers = [int(n) for n in re.findall(r"\d+", text or "") if 0 < int(n) <= 100]
    return max(numbers) if numbers else 1
