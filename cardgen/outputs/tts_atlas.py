"""Tabletop Simulator deck atlases ("deck sheets"): the grid and cell size of each sheet,
which distinct faces go on which sheet, and the stable `CustomDeck` keys.

One cell per distinct face: the copies of a card refer to the same cell (its CardID repeats
in the deck's DeckIDs), so a deck of 50 cards with 5 faces gets a 5-cell sheet at full
resolution.  A sheet is at most 10 x 7 cells and 4096 px a side, cells in the card's
proportions and at most 300 dpi (750 x 1050 px for a poker card); the last cell is the
hidden-card image unless the deck uses BackIsHidden.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

from cardgen.core.atlascell import MAX_CELL_DPI, MAX_COLS, MAX_PX, MAX_ROWS, cell_size  # noqa: F401 (here too)

KEY_MAX = (2**31 - 1) // 100 - 1  # key * 100 + 99 must fit a 32-bit int


def grid_for(cells: int, width_mm: float = 63.5, height_mm: float = 88.9) -> tuple[int, int]:
    """The smallest grid (at most 10 x 7) holding `cells` cells: fewest empty cells first,
    then the largest cell the 4096 px limit allows, then more columns than rows."""
    if cells < 1 or cells > MAX_COLS * MAX_ROWS:
        raise ValueError(f"a sheet holds 1 to {MAX_COLS * MAX_ROWS} cells, not {cells}")
    best: tuple | None = None
    for cols in range(1, MAX_COLS + 1):
        rows = math.ceil(cells / cols)
        if rows > MAX_ROWS:
            continue
        rank = (cols * rows - cells, -cell_size(cols, rows, width_mm, height_mm)[0], -cols)
        if best is None or rank < best[0]:
            best = (rank, cols, rows)
    assert best is not None
    return best[1], best[2]


@dataclass
class Sheet:
    """One atlas, one `CustomDeck` entry: a cell per distinct face (`entries`), and how many
    copies of each the deck holds (`counts`, the same order)."""

    cols: int
    rows: int
    cell_w: int
    cell_h: int
    entries: list = field(default_factory=list)   # (card, face layout, back layout or None) per distinct face
    hidden: bool = True                            # last cell is the hidden-card image
    key: int = 0
    counts: list[int] = field(default_factory=list)

    @property
    def size(self) -> tuple[int, int]:
        return self.cols * self.cell_w, self.rows * self.cell_h

    def copies(self) -> list[tuple[int, int]]:
        """(cell index, copy number from 1) of every card of this sheet, in deck order."""
        return [(i, n) for i, count in enumerate(self.counts) for n in range(1, count + 1)]


def plan_sheets(entries: list, width_mm: float, height_mm: float, back_is_hidden: bool,
                counts: list[int] | None = None) -> list[Sheet]:
    """Split a deck's distinct faces (in order; `counts` copies of each, one if not given) into
    sheets; every sheet of a deck has the same cell size (that of the first, largest grid)."""
    per = MAX_COLS * MAX_ROWS - (0 if back_is_hidden else 1)
    counts = list(counts) if counts is not None else [1] * len(entries)
    chunks = [(entries[i:i + per], counts[i:i + per]) for i in range(0, len(entries), per)]
    if not chunks:
        return []
    hidden = 0 if back_is_hidden else 1
    cw, ch = cell_size(*grid_for(len(chunks[0][0]) + hidden, width_mm, height_mm), width_mm, height_mm)
    sheets = []
    for chunk, n in chunks:
        cols, rows = grid_for(len(chunk) + hidden, width_mm, height_mm)
        sheets.append(Sheet(cols, rows, cw, ch, chunk, not back_is_hidden, counts=n))
    return sheets


def deck_keys(game_slug: str, deck_slug: str, n: int, taken: set[int]) -> list[int]:
    """Stable CustomDeck keys for a deck's sheets: a hash of game, deck and sheet number
    into 1..KEY_MAX (so key*100 + index fits 32 bits); a clash within the game moves on."""
    keys = []
    for i in range(n):
        h = int(hashlib.sha256(f"cardgen/{game_slug}/{deck_slug}/{i}".encode()).hexdigest(), 16)
        key = 1 + h % KEY_MAX
        while key in taken:
            key = 1 + key % KEY_MAX
        taken.add(key)
        keys.append(key)
    return keys
