"""Squib's value forms, read as cardgen's: lengths with units, the `middle` and `deck` shorthands,
angles, dash patterns, Pango font descriptions and colours (for `cardgen import squib`).

What Squib accepts is in its lib/squib/args/ (unit_conversion.rb, xywh_shorthands.rb, draw.rb,
paragraph.rb); each reader here takes those forms and refuses, at the value's place, what Squib
would read as 0 or a string no cardgen value can hold."""
from __future__ import annotations

import math
import re
from typing import Any

from cardgen.core.errors import CardgenError, Loc

DPI = 300.0
CELL_PX = 37.5                       # Squib's default cell size
DECK = (825.0, 1125.0)               # Squib's default deck: a poker card with its 1/8 in bleed, in pixels
PT_PER_PX = 72.0 / DPI
# Squib's unit suffixes, as pixels per unit at 300 dpi (lib/squib/args/unit_conversion.rb).
UNITS = {"in": DPI, "pt": DPI / 72.0, "cm": DPI / 2.54, "mm": DPI / 25.4,
         "cells": CELL_PX, "cell": CELL_PX, "cs": CELL_PX, "c": CELL_PX}
_NUMBER = re.compile(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*(in|pt|cm|mm|cells|cell|cs|c)?\s*")
# Squib's x, y, width and height shorthands (xywh_shorthands.rb): `middle` (or `center`) is half
# the deck's width or height, `deck` all of it, with `+ n`, `- n` (and for `deck`, `/ n`).
_SHORTHAND = re.compile(r"\s*(middle|center|deck)\s*(?:([-+/])\s*(.+?))?\s*")
FORMS = "a number of pixels, or with in, mm, cm, pt or c; or middle, deck, middle + 1in, deck - 2c, deck / 3"


def is_shorthand(value: Any) -> bool:
    return isinstance(value, str) and _SHORTHAND.fullmatch(value) is not None


def length(value: Any, loc: Loc, axis: int | None = None, deck: tuple[float, float] = DECK) -> float:
    """A Squib length as pixels at 300 dpi; with `axis` (0: x and width, 1: y and height) the
    `middle` and `deck` shorthands too, of the deck's width or height."""
    if isinstance(value, bool):
        raise CardgenError(loc, f"'{value}' is not a length")
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value)
    m = _NUMBER.fullmatch(text)
    if m is not None:
        return float(m.group(1)) * UNITS.get(m.group(2) or "", 1.0)
    s = _SHORTHAND.fullmatch(text) if axis is not None else None
    if s is None:
        where = FORMS if axis is not None else FORMS.split("; or")[0]
        raise CardgenError(loc, f"'{value}' is not a length the importer reads ({where})")
    word, op, rest = s.groups()
    whole = deck[axis] if axis is not None else 0.0
    base = whole if word == "deck" else whole / 2
    if op is None:
        return base
    if op == "/" and word != "deck":
        raise CardgenError(loc, f"'{value}': Squib divides only `deck` (deck / 3), not `{word}`")
    n = length(rest, loc)
    if op == "/":
        if n == 0:
            raise CardgenError(loc, f"'{value}' divides by 0")
        return base / n
    return base + n if op == "+" else base - n


def angle(value: Any, loc: Loc) -> float:
    """A Squib angle (`angle:`) in radians: a number of radians, or `90deg`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = re.fullmatch(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*(deg)?\s*", str(value))
    if m is None:
        raise CardgenError(loc, f"'{value}' is not an angle the importer reads (radians, or degrees as 90deg)")
    return math.radians(float(m.group(1))) if m.group(2) else float(m.group(1))


def about_centre(x: float, y: float, w: float, h: float, a: float) -> tuple[float, float, float]:
    """Squib turns a box by `a` radians clockwise about its top-left corner (x, y); cardgen turns
    an element counter-clockwise, in degrees, about its centre.  The same turn about the centre
    moves the centre by R(h) - h, h the half-diagonal (w/2, h/2): the box's new x and y and its
    `rotate`."""
    hx, hy = w / 2, h / 2
    dx = hx * math.cos(a) - hy * math.sin(a) - hx
    dy = hx * math.sin(a) + hy * math.cos(a) - hy
    return x + dx, y + dy, -math.degrees(a)


def dash(value: Any, loc: Loc) -> list[float]:
    """A Squib dash pattern (`'0.02in 0.02in'`, `3 3`: pixels or units, space separated) as cardgen's
    list of points."""
    parts = str(value).split()
    if not parts or len(parts) > 16:
        raise CardgenError(loc, f"'{value}' is not a dash pattern the importer reads (1 to 16 lengths)")
    out = [round(length(p, loc) * PT_PER_PX, 3) for p in parts]
    if any(v < 0 for v in out) or not any(out):
        raise CardgenError(loc, f"'{value}' is not a dash pattern (lengths of 0 or more, not all 0)")
    return out


_BOLD = {"bold", "ultra-bold", "ultrabold", "extra-bold", "extrabold", "semi-bold", "semibold", "demi-bold",
         "demibold", "heavy", "ultra-heavy", "black"}
_ITALIC = {"italic", "oblique"}
_OTHER = {"normal", "regular", "book", "medium", "light", "ultra-light", "thin", "small-caps", "condensed",
          "expanded", "semi-condensed", "semi-expanded", "ultra-condensed", "extra-condensed", "roman"}


def font(value: Any) -> tuple[list[str], str | None, float | None]:
    """A Pango font description (`Montserrat Black,Sans Bold 17`, `Times New Roman, Serif Italic 7`):
    its families, the cardgen `style` its style words make (None for none) and its size in
    points (None for none; Squib sets Pango's resolution to its dpi, so a size is points)."""
    text = str(value).strip()
    size = None
    m = re.search(r"(?:^|[\s,])(\d+(?:\.\d+)?)(px)?$", text)
    if m is not None:
        size = float(m.group(1)) * (PT_PER_PX if m.group(2) else 1.0)
        text = text[:m.start(1)].rstrip(" ,")
    words = text.split(" ")
    styles = []
    while words and words[-1].lower() in _BOLD | _ITALIC | _OTHER:
        styles.append(words.pop().lower())
    families = [f.strip() for f in " ".join(words).split(",") if f.strip()]
    bold, italic = any(s in _BOLD for s in styles), any(s in _ITALIC for s in styles)
    style = "bolditalic" if bold and italic else "bold" if bold else "italic" if italic else None
    return families, style, size


def colour(value: Any) -> str | None:
    """A Squib colour cardgen can print (#rgb, #rgba, #rrggbb, #rrggbbaa or a name), or None."""
    text = str(value).strip()
    if re.fullmatch(r"#[0-9a-fA-F]{3,4}", text):
        return "#" + "".join(c * 2 for c in text[1:])
    return text if re.fullmatch(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]+", text) else None
