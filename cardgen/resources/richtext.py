"""Inline markup and line breaking, shared by cards and booklets.

Markup: `**bold**`, `*italic*`, `:icon:` (an inline vector icon), `\\*` and `\\:` for
literal characters; a single newline breaks the line, a blank line starts a paragraph.
"""
from __future__ import annotations

import enum
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cardgen.model.ops import Run
from cardgen.resources.fonts import FontBook

_TOKEN = re.compile(r"(\\[*:\\]|\*\*|\*|:[A-Za-z0-9_][A-Za-z0-9_+-]*:|\n|[ \t]+|[^\s*:\\]+|.)")
_PARA = re.compile(r"\n[ \t]*\n\s*")

class _Break(enum.Enum):
    BREAK = "break"


BREAK: Final = _Break.BREAK   # a forced line break inside a paragraph


@dataclass(frozen=True)
class Frag:
    kind: str      # "text" or "icon"
    value: str     # text, or icon name
    bold: bool = False
    italic: bool = False

    @property
    def style(self) -> str:
        return ("bold" if self.bold else "") + ("italic" if self.italic else "") or "regular"


Word = list[Frag]
Paragraph = list[Word | _Break]                 # words and BREAKs
Piece = tuple[Frag, float, str, float]          # fragment, width, font name ("" for icons), size
Measured = list[tuple[Frag, float | None, str]]  # a word's fragments: width at 1 pt (icons: None), font name
LineItem = tuple[list[Piece], float]            # one word's pieces and its width
Line = tuple[list[LineItem], float, bool]       # words, width, ends its paragraph


def parse(text: str) -> list[Paragraph]:
    """Text -> paragraphs; a paragraph is a list of words (lists of Frag) and BREAKs."""
    return [_parse_paragraph(ptext) for ptext in _PARA.split(str(text).strip("\n"))]


def _literal_marks(tokens: list[str]) -> set[int]:
    """Which `*` and `**` tokens are plain asterisks, not markup: one standing alone between
    spaces (`2 * 3`), and the last of an odd number (`costs 5*`), which would otherwise set
    the rest of the paragraph in italic or bold."""
    literal: set[int] = set()
    for mark in ("*", "**"):
        at = [i for i, t in enumerate(tokens) if t == mark]
        for i in at:
            before = tokens[i - 1] if i > 0 else " "
            after = tokens[i + 1] if i + 1 < len(tokens) else " "
            if before[0] in " \t\n" and after[0] in " \t\n":
                literal.add(i)
        left = [i for i in at if i not in literal]
        if len(left) % 2:
            literal.add(left[-1])
    return literal


def _parse_paragraph(ptext: str) -> Paragraph:
    bold = italic = False
    items: Paragraph = []
    word: list[Frag] = []
    tokens = _TOKEN.findall(ptext)
    literal = _literal_marks(tokens) if "*" in ptext else set()

    def end_word() -> None:
        nonlocal word
        if word:
            items.append(word)
            word = []

    for n, tok in enumerate(tokens):
        if n in literal:
            word.append(Frag("text", tok, bold, italic))
        elif tok == "**":
            bold = not bold
        elif tok == "*":
            italic = not italic
        elif tok == "\n":
            end_word()
            items.append(BREAK)
        elif tok[0] in " \t":
            end_word()
        elif tok.startswith("\\") and len(tok) == 2:
            word.append(Frag("text", tok[1], bold, italic))
        elif len(tok) > 2 and tok[0] == ":" and tok[-1] == ":":
            word.append(Frag("icon", tok[1:-1], bold, italic))
        else:
            # one string object per distinct word: a 10,000-card game's runs share their words
            # (a soft hyphen marks where a word may break: never printed inside a line)
            word.append(Frag("text", sys.intern(tok.replace("\u00ad", "") if "\u00ad" in tok else tok), bold, italic))
    end_word()
    return items


def icon_names(text: str) -> list[str]:
    """The `:icon:` names in `text`, in order: what `parse` makes icons of (an icon is one
    token, whatever surrounds it; paragraph breaks are whitespace, which no icon holds)."""
    return [t[1:-1] for t in _TOKEN.findall(str(text)) if len(t) > 2 and t[0] == ":" and t[-1] == ":"]


def plain(text: str) -> str:
    """The text without markup; icons become their names in brackets."""
    out = []
    for para in parse(text):
        words = []
        for item in para:
            if item is BREAK:
                words.append("\n")
            else:
                words.append("".join(f.value if f.kind == "text" else f"[{f.value}]" for f in item))
        out.append(" ".join(words).replace(" \n ", "\n"))
    return "\n\n".join(out)


@dataclass
class TextStyle:
    family: str | None = None
    style: str = "regular"        # base style: regular, bold, italic, bolditalic
    size: float = 9.0
    leading: float = 1.2
    color: tuple | None = (0, 0, 0, 1)
    align: str = "left"           # left, center, right, justify
    valign: str = "top"           # top, middle, bottom
    icon_scale: float = 1.0       # inline icon height in font sizes
    paragraph_gap: float = 0.45   # extra space between paragraphs, in font sizes


def _merge_style(base: str, frag: Frag) -> str:
    bold = frag.bold or "bold" in base
    italic = frag.italic or "italic" in base
    return ("bold" if bold else "") + ("italic" if italic else "") or "regular"


class Typesetter:
    """Breaks parsed text into positioned runs inside a box."""

    def __init__(self, fonts: FontBook, icon_path: Callable[[str], Path]):
        self.fonts = fonts
        self.icon_path = icon_path    # name -> Path (raises on unknown)

    def _measure(self, paragraphs: list[Paragraph], st: TextStyle) -> list[list[Measured | _Break]]:
        """Every word's pieces with their width at 1 pt (an icon's: None), measured once for
        all the sizes `fit: shrink` tries: widths are proportional to the size."""
        out: list[list[Measured | _Break]] = []
        for para in paragraphs:
            items: list[Measured | _Break] = []
            for item in para:
                if item is BREAK:
                    items.append(BREAK)
                    continue
                pieces: Measured = []
                for f in item:
                    if f.kind == "icon":
                        pieces.append((f, None, ""))
                        continue
                    # runs by font: what the text's font lacks comes from a fallback font
                    for part, font_name in self.fonts.split(f.value, st.family, _merge_style(st.style, f)):
                        piece = f if part == f.value else Frag("text", part, f.bold, f.italic)
                        pieces.append((piece, self.fonts.width(part, font_name, 1.0), font_name))
                items.append(pieces)
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
        space_face = self.fonts.face(st.family, st.style).name
        space = self.fonts.width(" ", space_face, size)
        for para in measured:
            cur: list[LineItem] = []
            cur_w = 0.0
            for item in para:
                if item is BREAK:
                    lines.append((cur, cur_w, False))
                    cur, cur_w = [], 0.0
                    continue
                pieces, w = self._sized(item, st, size)
                if w > width + 0.01:
                    too_wide = True
                if cur and cur_w + space + w > width + 0.01:
                    lines.append((cur, cur_w, False))
                    cur, cur_w = [], 0.0
                cur.append((pieces, w))
                cur_w += (space if len(cur) > 1 else 0.0) + w
            lines.append((cur, cur_w, True))
        return lines, too_wide, space

    def _height(self, lines: list[Line], st: TextStyle, size: float, asc: float, desc: float) -> float:
        if not lines:
            return 0.0
        n = len(lines)
        gaps = sum(1 for ln in lines[:-1] if ln[2])
        return asc * size + (n - 1) * st.leading * size + gaps * st.paragraph_gap * size + desc * size

    def fits(self, paragraphs: list[Paragraph], st: TextStyle, size: float, w: float, h: float) -> bool:
        return self._fits(self._measure(paragraphs, st), st, size, w, h, {})

    def _fits(self, measured: list[list[Measured | _Break]], st: TextStyle, size: float, w: float, h: float,
              tried: dict[float, tuple[list[Line], bool, float]]) -> bool:
        face = self.fonts.face(st.family, st.style)
        lines, too_wide, _ = tried[size] = self._lines(measured, st, size, w)
        return not too_wide and self._height(lines, st, size, face.ascent, face.descent) <= h + 0.01

    def set(self, paragraphs: list[Paragraph], st: TextStyle, x: float, y: float, w: float, h: float,
            fit: str = "none", min_size: float | None = None, wrap: bool = True) -> tuple[list[Run], float, bool]:
        """Lay out text in the box (x, y, w, h); returns (runs, size_used, overflow)."""
        size = st.size
        measured = self._measure(paragraphs, st)      # once: every size tried scales it
        tried: dict[float, tuple[list[Line], bool, float]] = {}
        if fit == "shrink":
            floor = min_size if min_size is not None else max(6.0, st.size * 0.5)
            if not self._fits(measured, st, size, w if wrap else 1e9, h, tried) and floor < size:
                lo, hi = floor, size   # binary search on a 0.1 pt grid
                if self._fits(measured, st, lo, w if wrap else 1e9, h, tried):
                    while hi - lo > 0.1:
                        mid = (lo + hi) / 2
                        if self._fits(measured, st, mid, w if wrap else 1e9, h, tried):
                            lo = mid
                        else:
                            hi = mid
                size = round(lo - 0.049, 1) if lo > floor else floor
        face = self.fonts.face(st.family, st.style)
        hit = tried.get(size)      # the size chosen was laid out while trying it
        lines, too_wide, space = hit if hit is not None else self._lines(measured, st, size, w if wrap else 1e9)
        total = self._height(lines, st, size, face.ascent, face.descent)
        overflow = too_wide or total > h + 0.01 or (not wrap and any(ln[1] > w + 0.01 for ln in lines))
        top = y + {"top": 0.0, "middle": (h - total) / 2, "bottom": h - total}.get(st.valign, 0.0)
        baseline = top + face.ascent * size
        runs: list[Run] = []
        for items, line_w, para_end in lines:
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
        return runs, size, overflow
