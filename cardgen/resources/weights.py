"""Font weights: a family's files by weight (100-900) and italic, and the nearest one to a
weight asked for.

A family is the files `<Family>-<Weight>[Italic].ttf` in a fonts folder, the weight named as
font makers name it: Thin (100), ExtraLight (200), Light (300), Regular (400), Medium (500),
SemiBold (600), Bold (700), ExtraBold (800), Black (900); `Italic` alone is the regular
italic. A style is written `regular`, `bold`, `italic`, `bolditalic` for 400 and 700, and
`w<weight>` or `w<weight>italic` for the others (`w800`: ExtraBold). A weight the family
lacks is drawn with the nearest one it has, in the same slant first (as CSS picks: above 500,
heavier ones first; below, lighter ones).
"""
from __future__ import annotations

import re
from pathlib import Path

from cardgen.core.spans import WEIGHTS as NAMES

_STYLE = re.compile(r"^w([1-9])00(italic)?$")


def style_of(weight: int, italic: bool) -> str:
    """The style string of a weight and slant."""
    if weight == 400:
        return "italic" if italic else "regular"
    if weight == 700:
        return "bolditalic" if italic else "bold"
    return f"w{weight}" + ("italic" if italic else "")


def parse_style(style: str) -> tuple[int, bool] | None:
    """(weight, italic) of a style string; None: not a style."""
    named = {"regular": (400, False), "bold": (700, False), "italic": (400, True), "bolditalic": (700, True)}
    if style in named:
        return named[style]
    m = _STYLE.match(style)
    return (int(m.group(1)) * 100, bool(m.group(2))) if m else None


def file_style(suffix: str) -> str | None:
    """The style of a font file named `<Family>-<suffix>.ttf` (`ExtraBoldItalic` -> `w800italic`),
    or None."""
    key = suffix.lower().replace("-", "").replace("_", "")
    italic = key.endswith("italic")
    base = key[:-len("italic")] if italic else key
    if italic and not base:
        return "italic"
    weight = NAMES.get(base)
    return None if weight is None else style_of(weight, italic)


def nearest(files: dict[str, Path], style: str, same_slant: bool = False) -> Path | None:
    """The file of `files` (style -> file) that draws `style` best: the same slant first, then
    the nearest weight (heavier first above 500, lighter first below). `same_slant`: only a
    file of the same slant, or None."""
    want = parse_style(style)
    assert want is not None
    weight, italic = want

    def rank(key: str) -> tuple[int, int, int]:
        have = parse_style(key)
        assert have is not None
        w, i = have
        heavier = w > weight
        wrong_side = (not heavier) if weight > 500 else heavier
        return (i != italic, abs(w - weight), wrong_side)

    keys = [k for k in files if not same_slant or (parse_style(k) or (0, not italic))[1] == italic]
    return files[min(keys, key=rank)] if keys else None
