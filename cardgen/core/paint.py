"""Paints and effects as designers write them: gradients (CSS's `linear-gradient(...)` and
`radial-gradient(...)`, or a YAML mapping) and drop shadows (`1mm 1mm 0.5mm #00000080`).

Both are kept as plain tuples (the layout cache marshals drawing operations, and a digest
reads their `repr`):

    gradient  ("linear", angle, corner, stops)   angle in degrees as in CSS (0 upwards,
                                                 90 to the right, 180 downwards); corner
                                                 "top right", ... (the angle then depends
                                                 on the box, as in CSS) or ""
              ("radial", shape, extent, stops)   shape "ellipse" or "circle"; extent
                                                 "farthest-corner", "closest-side", ...
              stops: ((offset 0-1, (r, g, b, a)), ...), offsets ascending
    shadow    (dx, dy, blur, (r, g, b, a))       points; dy downwards
"""
from __future__ import annotations

import math
import re
from typing import Any

from cardgen.core.units import RGBA, UnitError, color, length_pt

Stops = tuple[tuple[float, RGBA], ...]
Gradient = tuple[str, Any, str, Stops]
Shadow = tuple[float, float, float, RGBA]

SIDES = {"top": 0.0, "right": 90.0, "bottom": 180.0, "left": 270.0}
SHAPES = ("ellipse", "circle")
EXTENTS = ("farthest-corner", "closest-side", "farthest-side", "closest-corner")
DEFAULT_SHADOW_COLOUR: RGBA = (0.0, 0.0, 0.0, 0.5)
MAX_STOPS = 32
_CALL = re.compile(r"^\s*(linear|radial)-gradient\s*\((.*)\)\s*$", re.S | re.I)
_ANGLE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*(deg|turn|rad)\s*$", re.I)
_STOP = re.compile(r"^(.*?)\s+([-+]?(?:\d+\.?\d*|\.\d+))%\s*$")


class PaintError(ValueError):
    pass


def is_gradient(paint: object) -> bool:
    return isinstance(paint, tuple) and len(paint) == 4 and paint[0] in ("linear", "radial")


def _split(body: str) -> list[str]:
    """Comma-separated arguments, commas inside parentheses (`rgb(...)`) kept."""
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    out.append(cur.strip())
    return out


def _colour(text: str) -> RGBA:
    try:
        c = color(text)
    except UnitError as exc:
        raise PaintError(str(exc)) from None
    if c is None:
        return (0.0, 0.0, 0.0, 0.0)
    return c


def stops(items: list[Any]) -> Stops:
    """Colour stops (`#fff`, `#c00 40%`) with their offsets: those not given spread evenly
    between their neighbours (the first at 0, the last at 1), as in CSS."""
    if not 2 <= len(items) <= MAX_STOPS:
        raise PaintError(f"a gradient needs 2 to {MAX_STOPS} colours, got {len(items)}")
    cols: list[RGBA] = []
    at: list[float | None] = []
    for item in items:
        text = str(item).strip()
        m = _STOP.match(text)
        if m:
            cols.append(_colour(m.group(1)))
            at.append(min(1.0, max(0.0, float(m.group(2)) / 100.0)))
        else:
            cols.append(_colour(text))
            at.append(None)
    if at[0] is None:
        at[0] = 0.0
    if at[-1] is None:
        at[-1] = 1.0
    i = 0
    while i < len(at):
        if at[i] is None:
            j = i
            while at[j] is None:
                j += 1
            lo, hi = at[i - 1], at[j]
            assert lo is not None and hi is not None
            for k in range(i, j):
                at[k] = lo + (hi - lo) * (k - i + 1) / (j - i + 1)
            i = j
        i += 1
    if len({round(c[3], 4) for c in cols}) > 1:
        raise PaintError("a gradient's colours must all be as opaque as each other (a PDF gradient has one "
                         "opacity: give the element an `opacity` instead)")
    out: list[tuple[float, RGBA]] = []
    last = 0.0
    for a, c in zip(at, cols, strict=True):
        assert a is not None
        last = max(last, a)       # (CSS: a stop before the one ahead of it sits on it)
        out.append((round(last, 6), c))
    return tuple(out)


def _angle(text: str) -> tuple[float, str] | None:
    """A CSS gradient direction: `90deg`, `0.25turn`, `to right`, `to top left`; None if it
    is not one (then it is the first colour)."""
    m = _ANGLE.match(text)
    if m:
        v, unit = float(m.group(1)), m.group(2).lower()
        deg = v * 360 if unit == "turn" else math.degrees(v) if unit == "rad" else v
        return deg % 360, ""
    words = text.lower().split()
    if words and words[0] == "to":
        sides = words[1:]
        if len(sides) == 1 and sides[0] in SIDES:
            return SIDES[sides[0]], ""
        vert = [s for s in sides if s in ("top", "bottom")]
        horiz = [s for s in sides if s in ("left", "right")]
        if len(sides) == 2 and len(vert) == 1 and len(horiz) == 1:
            return 0.0, f"{vert[0]} {horiz[0]}"
        raise PaintError(f"'{text}' is not a direction (to top, to right, to bottom left, ...)")
    return None


def _radial_shape(text: str) -> tuple[str, str] | None:
    words = text.lower().split()
    if not words or not all(w in SHAPES or w in EXTENTS for w in words):
        if "at" in words:
            raise PaintError("a radial gradient is centred in its box ('at ...' is not supported)")
        return None
    shape = next((w for w in words if w in SHAPES), "ellipse")
    extent = next((w for w in words if w in EXTENTS), "farthest-corner")
    return shape, extent


def parse_css(text: str) -> Gradient:
    """`linear-gradient(90deg, #fff, #c00 40%, #300)` or `radial-gradient(circle, ...)`."""
    m = _CALL.match(text)
    if not m:
        raise PaintError(f"'{text}' is not a gradient (linear-gradient(...) or radial-gradient(...))")
    kind, args = m.group(1).lower(), _split(m.group(2))
    if kind == "linear":
        first = _angle(args[0])
        angle, corner = first if first else (180.0, "")
        return ("linear", angle, corner, stops(args[1:] if first else args))
    first_r = _radial_shape(args[0])
    shape, extent = first_r if first_r else ("ellipse", "farthest-corner")
    return ("radial", shape, extent, stops(args[1:] if first_r else args))


def from_mapping(value: dict) -> Gradient:
    """`{linear: [#fff, #c00], angle: 90}` or `{radial: [...], shape: circle, extent: closest-side}`."""
    keys = {str(k).lower() for k in value}
    kinds = keys & {"linear", "radial"}
    if len(kinds) != 1:
        raise PaintError("a gradient is {linear: [colours...]} or {radial: [colours...]}")
    kind = kinds.pop()
    allowed = {"linear": {"linear", "angle"}, "radial": {"radial", "shape", "extent"}}[kind]
    stray = sorted(keys - allowed)
    if stray:
        raise PaintError(f"unknown key '{stray[0]}' in a {kind} gradient (use {', '.join(sorted(allowed))})")
    get = {str(k).lower(): v for k, v in value.items()}
    colours = get[kind]
    if not isinstance(colours, (list, tuple)):
        raise PaintError(f"`{kind}:` must be a list of colours, e.g. [\"#ffffff\", \"#cc0000\"]")
    if kind == "linear":
        angle: tuple[float, str] = (180.0, "")
        if "angle" in get:
            raw = get["angle"]
            if isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw):
                angle = (float(raw) % 360, "")
            else:
                found = _angle(str(raw)) or _angle(f"{raw}deg" if re.fullmatch(r"[-+\d.]+", str(raw)) else "")
                if found is None:
                    raise PaintError(f"angle must be degrees (90) or a direction (to right), got '{raw}'")
                angle = found
        return ("linear", angle[0], angle[1], stops(list(colours)))
    shape, extent = str(get.get("shape", "ellipse")).lower(), str(get.get("extent", "farthest-corner")).lower()
    if shape not in SHAPES:
        raise PaintError(f"shape must be ellipse or circle, got '{shape}'")
    if extent not in EXTENTS:
        raise PaintError(f"extent must be one of {', '.join(EXTENTS)}, got '{extent}'")
    return ("radial", shape, extent, stops(list(colours)))


def paint(value: object) -> RGBA | Gradient | None:
    """A fill as written: a colour, `none`, a CSS gradient or a gradient mapping."""
    if isinstance(value, dict):
        return from_mapping(value)
    if isinstance(value, str) and _CALL.match(value):
        return parse_css(value)
    try:
        return color(value)
    except UnitError as exc:
        raise PaintError(str(exc)) from None


def with_opacity(paint_: Any, opacity: float) -> Any:
    """A colour or gradient with its alpha multiplied by `opacity`."""
    if paint_ is None or opacity >= 1:
        return paint_
    if is_gradient(paint_):
        kind, a, b, st = paint_
        return (kind, a, b, tuple((o, (*c[:3], c[3] * opacity)) for o, c in st))
    return (*paint_[:3], (paint_[3] if len(paint_) > 3 else 1.0) * opacity)


def translucent(paint_: Any) -> bool:
    if paint_ is None:
        return False
    if is_gradient(paint_):
        return any(c[3] < 1 for _, c in paint_[3])
    return len(paint_) > 3 and paint_[3] < 1


# -- geometry ----------------------------------------------------------------------------------

def linear_ends(g: Gradient, x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    """The gradient line's start and end in a box (x, y its top-left; y down), as CSS draws
    it: through the centre, long enough that the box's corners get the end colours."""
    angle = g[1]
    if g[2]:
        tilt = math.degrees(math.atan2(h, w))
        angle = {"top right": tilt, "bottom right": 180 - tilt, "bottom left": 180 + tilt,
                 "top left": 360 - tilt}[g[2]]
    a = math.radians(angle)
    dx, dy = math.sin(a), -math.cos(a)              # y down
    half = (abs(w * math.sin(a)) + abs(h * math.cos(a))) / 2
    cx, cy = x + w / 2, y + h / 2
    return cx - dx * half, cy - dy * half, cx + dx * half, cy + dy * half


def radial_radii(g: Gradient, w: float, h: float) -> tuple[float, float]:
    """The ending shape's radii (x, y) for a gradient centred in a w x h box."""
    shape, extent = g[1], g[2]
    if shape == "circle":
        r = {"closest-side": min(w, h) / 2, "farthest-side": max(w, h) / 2}.get(extent, math.hypot(w, h) / 2)
        return r, r
    k = 1.0 if extent in ("closest-side", "farthest-side") else math.sqrt(2)
    return w / 2 * k, h / 2 * k


# -- shadows -----------------------------------------------------------------------------------

def shadow(value: object) -> Shadow | None:
    """`1mm 1mm` (offset right and down), `1mm 1mm 0.5mm` (and blur), then a colour
    (`#00000080` by default), as CSS's box-shadow; or {x:, y:, blur:, color:}; none."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    if isinstance(value, dict):
        get = {str(k).lower(): v for k, v in value.items()}
        stray = sorted(set(get) - {"x", "y", "blur", "color", "colour"})
        if stray:
            raise PaintError(f"unknown key '{stray[0]}' in a shadow (use x, y, blur, color)")
        parts = [get.get("x", "1pt"), get.get("y", "1pt"), get.get("blur", 0)]
        col = get.get("color", get.get("colour"))
        colour = DEFAULT_SHADOW_COLOUR if col is None else _colour(str(col))
    else:
        words = str(value).split()
        lengths = []
        colour = DEFAULT_SHADOW_COLOUR
        for i, word in enumerate(words):
            try:
                lengths.append(length_pt(word))
            except UnitError:
                if i != len(words) - 1:
                    raise PaintError(f"'{value}' is not a shadow: write offsets, a blur, then a colour, "
                                     f"e.g. 1mm 1mm 0.5mm #00000080") from None
                colour = _colour(word)
        if not 2 <= len(lengths) <= 3:
            raise PaintError(f"'{value}' is not a shadow: write x and y offsets, a blur if any, then a colour, "
                             f"e.g. 1mm 1mm 0.5mm #00000080")
        parts = list(lengths) + [0.0] * (3 - len(lengths))
        return _bounded(parts[0], parts[1], parts[2], colour)
    try:
        dx, dy, blur = (length_pt(p) for p in parts)
    except UnitError as exc:
        raise PaintError(str(exc)) from None
    return _bounded(dx, dy, blur, colour)


def _bounded(dx: float, dy: float, blur: float, colour: RGBA) -> Shadow:
    limit = 50 * 72 / 25.4
    if not all(math.isfinite(v) and abs(v) <= limit for v in (dx, dy, blur)):
        raise PaintError("a shadow's offsets and blur must be at most 50 mm")
    if blur < 0:
        raise PaintError("a shadow's blur cannot be negative")
    return (dx, dy, blur, colour)
