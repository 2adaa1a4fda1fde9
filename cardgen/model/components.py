"""The kinds of component a game folder's files make, and the outlines of their shapes: plain
data and arithmetic (mm, y down from the piece's top-left), no drawing.

A component file is a deck file with `kind:` (docs/components.md): cards, tokens, tiles and
boards are all laid out by the same templates and elements; what differs is declared here,
once: which shapes a kind takes, what `size:` means for it, and how its print sheets are
planned (`cardgen.render.impose`: butted grid, a gutter for round tokens, hexes tessellated,
boards larger than the paper tiled across sheets).
"""
from __future__ import annotations

import math

from cardgen.schema.components import HEXES, KINDS, SHAPES, ComponentKind

SQRT3 = math.sqrt(3.0)

__all__ = ["HEXES", "KINDS", "SHAPES", "SQRT3", "ComponentKind", "edge_distance", "hex_box", "inside", "outline",
           "tessellation"]

Point = tuple[float, float]


def hex_box(flat_to_flat: float, shape: str) -> tuple[float, float]:
    """(width, height) of a regular hexagon `flat_to_flat` across its flats."""
    points = flat_to_flat * 2 / SQRT3
    return (points, flat_to_flat) if shape == "hex-flat" else (flat_to_flat, points)


def outline(shape: str, x: float, y: float, w: float, h: float, grow: float = 0.0) -> list[tuple[float, float]]:
    """The corners of a `rect` or hex piece whose box (trim) is at (x, y) w x h, its edges moved
    out by `grow` (the bleed's outline with grow = bleed; negative moves them in), clockwise
    from the left.  A hexagon's edges move out parallel to themselves (so a bleed hex is the
    same hex `2 * grow` wider across its flats)."""
    if shape == "rect":
        return [(x - grow, y - grow), (x + w + grow, y - grow), (x + w + grow, y + h + grow), (x - grow, y + h + grow)]
    if shape not in HEXES:
        raise ValueError(f"no polygon outline for shape {shape!r}")
    if shape == "hex-pointy":      # the flat-top hex with x and y swapped
        return [(px, py) for py, px in outline("hex-flat", y, x, h, w, grow)]
    # flat-top: points at left and right, flats at top and bottom; a grow of g moves the flats
    # out by g and the points by g / cos(30) = 2g / sqrt(3)
    gp = 2 * grow / SQRT3
    cx, cy = x + w / 2, y + h / 2
    hw, hh = w / 2 + gp, h / 2 + grow
    q = w / 4 + grow / SQRT3        # half the length of a flat edge, grown
    return [(cx - hw, cy), (cx - q, cy - hh), (cx + q, cy - hh), (cx + hw, cy), (cx + q, cy + hh), (cx - q, cy + hh)]


def tessellation(shape: str, w: float, h: float, bleed: float) -> tuple[float, float, float, str]:
    """How hexes of box w x h (trim) and `bleed` tessellate so that their bleed hexes butt:
    (pitch_x, pitch_y, stagger, axis).  Flat-top: columns 3/4 of a bleed hex's width apart, rows
    its height apart, every other column (`axis` x) shifted down by `stagger`, half a row;
    pointy-top: rows 3/4 of its height apart, every other row (`axis` y) shifted right by half
    a column."""
    if shape == "hex-pointy":
        py, px, stagger, _ = tessellation("hex-flat", h, w, bleed)
        return px, py, stagger, "y"
    bw = w + 4 * bleed / SQRT3          # the bleed hex's width (point to point)
    bh = h + 2 * bleed                  # and height (flat to flat)
    return 0.75 * bw, bh, bh / 2, "x"


def inside(p: Point, poly: list[Point]) -> bool:
    """Whether `p` is inside the closed polygon `poly` (even-odd ray casting)."""
    x, y = p
    n, hit = len(poly), False
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def edge_distance(p: Point, polys: list[list[Point]]) -> float:
    """How far `p` lies inside the outline made of `polys` (even-odd: a subpath inside another
    is a hole): the distance to its nearest edge, negative when `p` is outside."""
    near = math.inf
    for poly in polys:
        for a, b in zip(poly, poly[1:] + poly[:1]):
            dx, dy = b[0] - a[0], b[1] - a[1]
            span = dx * dx + dy * dy
            t = 0.0 if span == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / span))
            near = min(near, math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy))
    within = sum(inside(p, poly) for poly in polys) % 2 == 1
    return near if within else -near
