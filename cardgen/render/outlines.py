"""A piece's outline (its trim, or its bleed's outline) as PDF path operators: what the print
sheets clip a shaped piece's art to and trace as its cut line, and what the print-service
PDF/X strokes as its die line (`CutContour`).  One place turns a shape into a path.

A `path` piece's bleed outline is its outline grown by the bleed with round corners (the
Minkowski sum of the shape and a disc): written as a union, under the nonzero winding rule,
of the shape itself (its subpaths oriented so that holes stay holes), a band along each edge
of its polygon (curves cut into chords within `CLIP_TOLERANCE`) and a disc at each corner, all
turning the same way: exact up to the chords, with no polygon clipping library."""
from __future__ import annotations

import math
from collections.abc import Callable

from cardgen.core.units import MM
from cardgen.model import svgpath
from cardgen.model.components import HEXES, inside, outline
from cardgen.model.ops import CardLayout
from cardgen.render.rlcompat import _numbers

KAPPA = 0.5522847498          # a quarter circle as one cubic curve
CLIP_TOLERANCE = 0.02         # mm: how far a chord of the bleed outline's curves may stray

Point = tuple[float, float]


def placed(x: float, y: float, w: float, h: float, rotation: int) -> Callable[[float, float], Point]:
    """Where a point of a piece (mm from its trim's top-left, y down) lies on a sheet when the
    piece is in the box (x, y, w, h) of the sheet, turned by `rotation` (0; 90: its top to the
    left; -90: to the right; 180), as the print sheets place a card's form."""
    if rotation == 90:
        return lambda px, py: (x + py, y + h - px)
    if rotation == -90:
        return lambda px, py: (x + w - py, y + px)
    if rotation == 180:
        return lambda px, py: (x + w - px, y + h - py)
    return lambda px, py: (x + px, y + py)


def mirrored(side: CardLayout) -> tuple:
    """A `path` side's outline as its other side shows it (turned over about its upright axis)."""
    return svgpath.mirrored(side.outline, side.width / MM) if side.outline else ()


def outline_ops(shape: str, x: float, y: float, w: float, h: float, grow: float, paper_h: float,
                rotation: int = 0, path: tuple = ()) -> str:
    """The outline of a piece of `shape` whose trim box is at (x, y) w x h (mm, y down from the
    top of a page `paper_h` mm high, the box as it lies on the page), its edges moved out by
    `grow` mm, as content-stream path operators in points, closed (`h`), not painted.
    `rotation`: the piece lies turned in its box (a flat-top hex a quarter turn round is
    pointy-top); `path`: a `path` piece's outline (mm from its trim's top-left, unturned)."""
    if shape == "path":
        where = placed(x, y, w, h, rotation)
        return _path_ops(svgpath.mapped(path, lambda px, py: where(px, py)), grow, paper_h)
    if shape == "round":
        cx, cy, r = (x + w / 2) * MM, (paper_h - y - h / 2) * MM, (w / 2 + grow) * MM
        return _circle(cx, cy, r)
    if rotation in (90, -90) and shape in HEXES:
        shape = {"hex-flat": "hex-pointy", "hex-pointy": "hex-flat"}[shape]
    pts = outline(shape, x, y, w, h, grow)
    return _polygon([(px * MM, (paper_h - py) * MM) for px, py in pts])


def _circle(cx: float, cy: float, r: float, clockwise: bool = False) -> str:
    """A circle (pt) as four cubic curves, counter-clockwise (y up) unless `clockwise`."""
    k = KAPPA * r
    s = -1 if clockwise else 1
    return (f"{_numbers((cx + r, cy))} m {_numbers((cx + r, cy + s * k, cx + k, cy + s * r, cx, cy + s * r))} c "
            f"{_numbers((cx - k, cy + s * r, cx - r, cy + s * k, cx - r, cy))} c "
            f"{_numbers((cx - r, cy - s * k, cx - k, cy - s * r, cx, cy - s * r))} c "
            f"{_numbers((cx + k, cy - s * r, cx + r, cy - s * k, cx + r, cy))} c h")


def _polygon(pts: list[Point]) -> str:
    return " ".join(f"{_numbers(p)} {'m' if i == 0 else 'l'}" for i, p in enumerate(pts)) + " h"


def _path_ops(path: svgpath.Outline, grow: float, paper_h: float) -> str:
    """A path outline already on the page (mm, y down) in points: as it is, or grown."""
    def pt(px: float, py: float) -> Point:
        return px * MM, (paper_h - py) * MM

    if grow <= 0:
        out = []
        for sub in path:
            for cmd in sub:
                if cmd[0] == "Z":
                    continue
                pts = [v for k in range(1, len(cmd), 2) for v in pt(cmd[k], cmd[k + 1])]
                out.append(f"{_numbers(tuple(pts))} {'m' if cmd[0] == 'M' else cmd[0].lower()}")
            out.append("h")
        return " ".join(out)
    polys = [[pt(px, py) for px, py in poly] for poly in svgpath.polygons(path, CLIP_TOLERANCE)]
    g = grow * MM
    parts = [_polygon(p) for p in _oriented(polys)]
    for poly in polys:
        for a, b in zip(poly, poly[1:] + poly[:1]):
            d = math.dist(a, b)
            if d < 1e-9:
                continue
            nx, ny = -(b[1] - a[1]) / d * g, (b[0] - a[0]) / d * g
            parts.append(_polygon(_ccw([(a[0] + nx, a[1] + ny), (a[0] - nx, a[1] - ny),
                                        (b[0] - nx, b[1] - ny), (b[0] + nx, b[1] + ny)])))
        parts += [_circle(px, py, g) for px, py in poly]
    return " ".join(parts)


def _area(poly: list[Point]) -> float:
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(poly, poly[1:] + poly[:1])) / 2


def _ccw(poly: list[Point]) -> list[Point]:
    return poly if _area(poly) >= 0 else poly[::-1]


def _oriented(polys: list[list[Point]]) -> list[list[Point]]:
    """The subpaths turned so that the nonzero rule fills what the even-odd rule does: one
    inside an even number of others counter-clockwise (y up), one inside an odd number (a
    hole) clockwise."""
    out = []
    for i, poly in enumerate(polys):
        depth = sum(1 for j, other in enumerate(polys) if j != i and inside(poly[0], other))
        ccw = _ccw(poly)
        out.append(ccw if depth % 2 == 0 else ccw[::-1])
    return out
