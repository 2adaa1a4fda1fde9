"""Lengths and colours as designers write them.

Lengths: a bare number is millimetres; strings take `mm`, `cm`, `in`, `pt`, `px`
(at 300 dpi) or `%` (of the card's width for x/width, of its height for y/height).
Colours: `#rgb`, `#rrggbb`, `#rrggbbaa`, CSS colour names, or `none`.
"""
from __future__ import annotations

import re
from typing import SupportsFloat

MM = 72.0 / 25.4  # points per millimetre

UNIT_PT = {"mm": MM, "cm": 10 * MM, "in": 72.0, "pt": 1.0, "px": 72.0 / 300.0}
_LEN_RE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*(mm|cm|in|pt|px|%)?\s*$")


class UnitError(ValueError):
    pass


RGBA = tuple[float, float, float, float]


def length_pt(value: object, percent_of_pt: float | None = None) -> float:
    """Convert a length to points. `percent_of_pt` is what 100 % means here."""
    if isinstance(value, bool) or value is None:
        raise UnitError(f"expected a length such as 5mm, 0.25in, 10pt or 50%, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value) * MM
    m = _LEN_RE.match(str(value))
    if not m:
        raise UnitError(f"expected a length such as 5mm, 0.25in, 10pt or 50%, got {value!r}")
    number, unit = float(m.group(1)), m.group(2) or "mm"
    if unit == "%":
        if percent_of_pt is None:
            raise UnitError(f"a percentage is not allowed here ({value!r}); use mm, in or pt")
        return number / 100.0 * percent_of_pt
    return number * UNIT_PT[unit]


def length_mm(value: object, percent_of_mm: float | None = None) -> float:
    return length_pt(value, None if percent_of_mm is None else percent_of_mm * MM) / MM


def number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (str, SupportsFloat)):
        raise UnitError(f"expected a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise UnitError(f"expected a number, got {value!r}") from None


_HEX_RE = re.compile(r"^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_named: dict[str, RGBA] = {}


def _named_colour(name: str) -> RGBA | None:
    """A CSS colour name's value (ReportLab's table, read on first use: importing it costs
    start-up time that `cardgen --help` should not pay)."""
    if not _named:
        from reportlab.lib import colors as rl_colors

        _named.update({n.lower(): (v.red, v.green, v.blue, 1.0) for n, v in rl_colors.getAllNamedColors().items()})
    return _named.get(name)


def color(value: object) -> RGBA | None:
    """A colour as an (r, g, b, a) tuple of floats 0-1, or None for `none`."""
    if value is None:
        return None
    s = str(value).strip()
    if s.lower() in ("none", "transparent", ""):
        return None
    m = _HEX_RE.match(s)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        r, g, b = (int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
        a = int(h[6:8], 16) / 255.0 if len(h) == 8 else 1.0
        return (r, g, b, a)
    named = _named_colour(s.lower())
    if named is not None:
        return named
    raise UnitError(f"unknown colour {value!r}; use #rrggbb, a CSS colour name or none")
