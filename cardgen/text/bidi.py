"""Right-to-left text on a line: the direction of a paragraph and the visual order of its runs.

A line is set in logical order (the order it is typed and read) and broken into lines so;
then each line's runs are put in visual order, left to right on the page, by a simplified
Unicode bidirectional algorithm (UAX #9) at the level of runs (`cardgen.resources.shaping`
cuts a word where its direction changes, and shapes each right-to-left run right to left):

- the paragraph's direction is that of its first strong letter (`paragraph_level`), unless
  the text style sets it (`TextStyle.direction`: `ltr`, `rtl`);
- numbers after left-to-right letters (or at the start of a left-to-right paragraph) go as
  those letters; other numbers read left to right inside right-to-left text (W7, I1-I2);
- neutral runs (punctuation, icons, the spaces between words) take the direction of the
  runs on both sides of them when the two agree (numbers count as right to left), else the
  paragraph's (N1-N2);
- the runs are reversed from the highest level down to the lowest odd one (L2).

Explicit embeddings and isolates (U+202A...U+2069) are not read: a run holding one is set
by its letters like any other.
"""
from __future__ import annotations

from collections.abc import Iterable

from cardgen.resources import shaping


def kind(text: str) -> str:
    """A run's part in ordering a line: "R", "L", "N" (a number: digits, no letter) or ""
    (neutral: punctuation, an icon, a space)."""
    side = shaping.strong(text)
    if side:
        return side
    return "N" if any(ch.isdigit() for ch in text) else ""


_PAIRS = dict(zip("()[]{}<>«»‹›", ")(][}{><»«›‹", strict=True))


def unwrap(text: str) -> list[str]:
    """`text` as its leading punctuation, its letters and digits, and its trailing punctuation
    (those present): `(2).` -> `(`, `2`, `).`; text with no letter or digit stays whole."""
    inner = [k for k, ch in enumerate(text) if shaping.char_kind(ch)]
    if not inner:
        return [text]
    a, b = inner[0], inner[-1] + 1
    return [p for p in (text[:a], text[a:b], text[b:]) if p]


def mirrored(text: str) -> str:
    """Neutral text set right to left, as it is drawn left to right: reversed, each bracket
    turned to face the other way (Unicode's mirrored pairs; the common ones)."""
    return "".join(_PAIRS.get(ch, ch) for ch in reversed(text))


def paragraph_level(texts: Iterable[str], direction: str = "auto") -> int:
    """0 (left to right) or 1 (right to left): `direction` if it is `ltr` or `rtl`, else that
    of the first strong letter in `texts` (left to right where there is none)."""
    if direction in ("ltr", "rtl"):
        return int(direction == "rtl")
    for text in texts:
        side = shaping.strong(text)
        if side:
            return int(side == "R")
    return 0


def levels(kinds: list[str], base: int) -> list[int]:
    """The embedding level of each run (`kind`) of a line in a paragraph of level `base`."""
    sos = "R" if base else "L"
    resolved = list(kinds)
    last = sos
    for k, cls in enumerate(kinds):          # W7: a number after L letters is L
        if cls in ("L", "R"):
            last = cls
        elif cls == "N" and last == "L":
            resolved[k] = "L"
    n = len(resolved)
    k = 0
    while k < n:                             # N1-N2: neutrals between two of a direction take it
        if resolved[k]:
            k += 1
            continue
        end = k
        while end < n and not resolved[end]:
            end += 1
        before = sos if k == 0 else ("R" if resolved[k - 1] == "N" else resolved[k - 1])
        after = sos if end == n else ("R" if resolved[end] == "N" else resolved[end])
        fill = before if before == after else sos
        for j in range(k, end):
            resolved[j] = fill
        k = end
    table = {"L": (0, 2), "R": (1, 1), "N": (2, 2)}     # I1-I2
    return [table[cls][base] for cls in resolved]


def visual_order(lv: list[int]) -> list[int]:
    """The indices of the runs in visual order (L2): from the highest level down to the
    lowest odd one, each stretch of runs at that level or above reversed."""
    order = list(range(len(lv)))
    if not lv:
        return order
    top = max(lv)
    low = min(x for x in lv) | 1
    for level in range(top, low - 1, -1):
        k = 0
        while k < len(order):
            if lv[order[k]] >= level:
                end = k
                while end < len(order) and lv[order[end]] >= level:
                    end += 1
                order[k:end] = order[k:end][::-1]
                k = end
            else:
                k += 1
    return order
