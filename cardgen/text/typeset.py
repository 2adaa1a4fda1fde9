"""Setting text: measured words broken into lines, fitted, aligned and placed as runs.

`Typesetter.set` sets text in a box (a card's text element): the size that fits (`fit:
shrink`), the lines aligned in the box, an overflow reported. `Typesetter.set_lines` sets
text at its size for a flow (a booklet's paragraph, a player aid's item): the lines are
placed one below the other from the top and kept apart, so that `cardgen.text.flow` can
split them across frames and pages. Both go through the same steps, in this order:

    measure (`cardgen.text.measure`: the only step that knows fonts and glyphs)
    -> break into lines at a size (`_lines`: greedy, at the spaces and forced breaks)
    -> choose the size (`_fits`: the largest on a 0.1 pt grid, for `fit: shrink`)
    -> place (`_place`: alignment, justification, each run's position and baseline).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cardgen.model.ops import Run
from cardgen.resources.fonts import FontBook
from cardgen.text.markup import BREAK, Frag, Paragraph, _Break
from cardgen.text.measure import Measured, measure_word, space_width

Piece = tuple[Frag, float, str, float]          # span, width, font name ("" for icons), size
LineItem = tuple[list[Piece], float]            # one word's pieces and its width
Line = tuple[list[LineItem], float, bool]       # words, width, ends its paragraph
_SLACK = 0.01                                   # points: what counts as fitting exactly


@dataclass
class TextStyle:
    """How a text is set: its font (family and base style; spans add bold and italic), size
    (points), line height and paragraph gap (in sizes), colour, alignment in its column and
    (in a box) vertically, and the height of its inline icons."""

    family: str | None = None
    style: str = "regular"        # base style: regular, bold, italic, bolditalic
    size: float = 9.0
    leading: float = 1.2
    color: tuple | None = (0, 0, 0, 1)
    align: str = "left"           # left, center, right, justify
    valign: str = "top"           # top, middle, bottom
    icon_scale: float = 1.0       # inline icon height in font sizes
    paragraph_gap: float = 0.45   # extra space between paragraphs, in font sizes
    # OpenType features frozen into the fonts (`cardgen.resources.features.effective`); None: the defaults
    features: tuple[str, ...] | None = None


@dataclass(slots=True)
class SetLine:
    """One line as set: its runs (page positions), its baseline, its width and whether it ends
    its paragraph. A line holding only a forced break has no runs."""

    runs: list[Run]
    baseline: float
    width: float
    para_end: bool


@dataclass(frozen=True)
class SetText:
    """Text set at one size for a flow: its lines (the first one's top at 0) and what a flow
    needs to cut them apart: the size, the line height (`leading`, in sizes) and the font's
    ascent and descent (in sizes)."""

    lines: list[SetLine]
    size: float
    leading: float
    ascent: float
    descent: float
    too_wide: bool                # a word is wider than the measure


class Typesetter:
    """Breaks parsed text into positioned runs, in a box or for a flow."""

    def __init__(self, fonts: FontBook, icon_path: Callable[[str], Path]):
        self.fonts = fonts
        self.icon_path = icon_path    # name -> Path (raises on unknown)
        # typographer's punctuation (`cardgen.text.punctuation`) on cards and in the booklet:
        # game.yaml `smart_punctuation`
        self.punctuation = True
        # when a dict: every character set that no font has, by the font it is set in (an
        # output that sets text of its own, the rulebook, collects them to warn; cards are
        # checked by the layout)
        self.lacking: dict[str, str] | None = None

    def _note_lacking(self, measured: Measured) -> None:
        """Remember the characters of a measured word that no font has (`lacking`)."""
        assert self.lacking is not None
        for piece, unit, font_name in measured:
            if unit is None:
                continue
            gone = self.fonts.missing(str(piece.value), font_name)
            if gone:
                had = self.lacking.get(font_name, "")
                self.lacking[font_name] = had + "".join(ch for ch in gone if ch not in had)

    def _measure(self, paragraphs: list[Paragraph], st: TextStyle) -> list[list[Measured | _Break]]:
        """Every word's runs with their width at 1 pt (an icon's: None), measured once for
        all the sizes `fit: shrink` tries: widths are proportional to the size."""
        out: list[list[Measured | _Break]] = []
        for para in paragraphs:
            items: list[Measured | _Break] = []
            for item in para:
                if item is BREAK:
                    items.append(BREAK)
                else:
                    measured = measure_word(self.fonts, item, st.family, st.style, st.features)
                    if self.lacking is not None:
                        self._note_lacking(measured)
                    items.append(measured)
            out.append(items)
        return out

    @staticmethod
    def _sized(pieces: Measured, st: TextStyle, size: float) -> tuple[list[Piece], float]:
        """One word's pieces at `size`: (fragment, width, font name, size) and the word's width."""
        out: list[Piece] = []
        total = 0.0
        for f, unit, name in pieces:
            if unit is None:
                h = size * st.icon_scale
                w = h + size * 0.08
                out.append((f, w, "", h))
            else:
                w = unit * size
                out.append((f, w, name, size))
            total += w
        return out, total

    def _lines(self, measured: list[list[Measured | _Break]], st: TextStyle, size: float,
               width: float) -> tuple[list[Line], bool, float]:
        """Greedy line breaking. Returns (lines, too_wide, space); a line is (items, width, para_end)."""
        lines: list[Line] = []
        too_wide = False
        space = space_width(self.fonts, st.family, st.style, size, st.features)
        for para in measured:
            cur: list[LineItem] = []
            cur_w = 0.0
            for item in para:
                if item is BREAK:
                    lines.append((cur, cur_w, False))
                    cur, cur_w = [], 0.0
                    continue
                pieces, w = self._sized(item, st, size)
                if w > width + _SLACK:
                    too_wide = True
                if cur and cur_w + space + w > width + _SLACK:
                    lines.append((cur, cur_w, False))
                    cur, cur_w = [], 0.0
                cur.append((pieces, w))
                cur_w += (space if len(cur) > 1 else 0.0) + w
            lines.append((cur, cur_w, True))
        return lines, too_wide, space

    @staticmethod
    def _height(lines: list[Line], st: TextStyle, size: float, asc: float, desc: float) -> float:
        if not lines:
            return 0.0
        n = len(lines)
        gaps = sum(1 for ln in lines[:-1] if ln[2])
        return asc * size + (n - 1) * st.leading * size + gaps * st.paragraph_gap * size + desc * size

    def fits(self, paragraphs: list[Paragraph], st: TextStyle, size: float, w: float, h: float) -> bool:
        return self._fits(self._measure(paragraphs, st), st, size, w, h, {})

    def _fits(self, measured: list[list[Measured | _Break]], st: TextStyle, size: float, w: float, h: float,
              tried: dict[float, tuple[list[Line], bool, float]]) -> bool:
        face = self.fonts.face(st.family, st.style, st.features)
        lines, too_wide, _ = tried[size] = self._lines(measured, st, size, w)
        return not too_wide and self._height(lines, st, size, face.ascent, face.descent) <= h + _SLACK

    def _place(self, lines: list[Line], st: TextStyle, size: float, space: float, ascent: float,
               x: float, w: float, top: float, runs: list[Run]) -> list[tuple[int, float, float, bool]]:
        """The lines' runs placed, appended to `runs`: the first line's top at `top`, each line
        aligned in (x, w). Returns each line's (index of its first run, baseline, width, ends
        its paragraph)."""
        baseline = top + ascent * size
        out: list[tuple[int, float, float, bool]] = []
        for items, line_w, para_end in lines:
            out.append((len(runs), baseline, line_w, para_end))
            extra = 0.0
            if st.align == "center":
                cx = x + (w - line_w) / 2
            elif st.align == "right":
                cx = x + w - line_w
            else:
                cx = x
                if st.align == "justify" and not para_end and len(items) > 1:
                    extra = (w - line_w) / (len(items) - 1)
            for wi, (pieces, _ww) in enumerate(items):
                if wi:
                    cx += space + extra
                for frag, pw, font_name, fsize in pieces:
                    if frag.kind == "icon":
                        path = self.icon_path(frag.value)
                        runs.append(Run(cx + size * 0.04, baseline, "icon", path, "", fsize, st.color, fsize))
                    else:
                        runs.append(Run(cx, baseline, "text", frag.value, font_name, fsize, st.color, pw))
                    cx += pw
            baseline += st.leading * size + (st.paragraph_gap * size if para_end else 0.0)
        return out

    def set(self, paragraphs: list[Paragraph], st: TextStyle, x: float, y: float, w: float, h: float,
            fit: str = "none", min_size: float | None = None, wrap: bool = True) -> tuple[list[Run], float, bool]:
        """Lay out text in the box (x, y, w, h); returns (runs, size_used, overflow)."""
        size = st.size
        measured = self._measure(paragraphs, st)      # once: every size tried scales it
        tried: dict[float, tuple[list[Line], bool, float]] = {}
        measure_w = w if wrap else 1e9
        if fit == "shrink":
            floor = min_size if min_size is not None else max(6.0, st.size * 0.5)
            if not self._fits(measured, st, size, measure_w, h, tried) and floor < size:
                lo, hi = floor, size   # binary search on a 0.1 pt grid
                if self._fits(measured, st, lo, measure_w, h, tried):
                    while hi - lo > 0.1:
                        mid = (lo + hi) / 2
                        if self._fits(measured, st, mid, measure_w, h, tried):
                            lo = mid
                        else:
                            hi = mid
                size = round(lo - 0.049, 1) if lo > floor else floor
        face = self.fonts.face(st.family, st.style, st.features)
        hit = tried.get(size)      # the size chosen was laid out while trying it
        lines, too_wide, space = hit if hit is not None else self._lines(measured, st, size, measure_w)
        total = self._height(lines, st, size, face.ascent, face.descent)
        overflow = too_wide or total > h + _SLACK or (not wrap and any(ln[1] > w + _SLACK for ln in lines))
        top = y + {"top": 0.0, "middle": (h - total) / 2, "bottom": h - total}.get(st.valign, 0.0)
        runs: list[Run] = []
        self._place(lines, st, size, space, face.ascent, x, w, top, runs)
        return runs, size, overflow

    def natural_width(self, paragraphs: list[Paragraph], st: TextStyle) -> float:
        """How wide the text is set at its size with no line broken but at its forced breaks:
        its widest line."""
        lines, _, _ = self._lines(self._measure(paragraphs, st), st, st.size, float("inf"))
        return max((ln[1] for ln in lines), default=0.0)

    def set_lines(self, paragraphs: list[Paragraph], st: TextStyle, x: float, w: float) -> SetText:
        """Text set at its size in a column `w` wide from `x`, for a flow: the lines from the top
        (0) down, as `set` would place them in a box as tall as they are."""
        face = self.fonts.face(st.family, st.style, st.features)
        lines, too_wide, space = self._lines(self._measure(paragraphs, st), st, st.size, w)
        runs: list[Run] = []
        placed = self._place(lines, st, st.size, space, face.ascent, x, w, 0.0, runs)
        ends = [at for at, *_ in placed[1:]] + [len(runs)]
        return SetText([SetLine(runs[at:end], baseline, line_w, para_end)
                        for (at, baseline, line_w, para_end), end in zip(placed, ends, strict=True)],
                       st.size, st.leading, face.ascent, face.descent, too_wide)
