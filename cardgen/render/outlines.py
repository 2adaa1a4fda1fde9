"""A piece's outline (its trim, or its bleed's outline) as PDF path operators: what the print
sheets clip a round or hex piece's art to and trace as its cut line, and what the print-service
PDF/X strokes as its die line (`CutContour`).  One place turns a shape into a path."""
from __future__ import annotations

from cardgen.core.units import MM
from cardgen.model.components import HEXES, outline
from cardgen.render.rlcompat import _numbers

KAPPA = 0.5522847498          # a quarter circle as one cubic curve


def outline_ops(shape: str, x: float, y: float, w: float, h: float, grow: float, paper_h: float,
                turned: bool = False) -> str:
    """The outline of a piece of `shape` whose trim box is at (x, y) w x h (mm, y down from the
    top of a page `paper_h` mm high), its edges moved out by `grow` mm, as content-stream path
    operators in points, closed (`h`), not painted.  `turned`: the piece lies a quarter turn
    round in its box (a flat-top hex is then pointy-top)."""
    if shape == "round":
        cx, cy, r = (x + w / 2) * MM, (paper_h - y - h / 2) * MM, (w / 2 + grow) * MM
        k = KAPPA * r
        return (f"{_numbers((cx + r, cy))} m {_numbers((cx + r, cy + k, cx + k, cy + r, cx, cy + r))} c "
                f"{_numbers((cx - k, cy + r, cx - r, cy + k, cx - r, cy))} c "
                f"{_numbers((cx - r, cy - k, cx - k, cy - r, cx, cy - r))} c "
                f"{_numbers((cx + k, cy - r, cx + r, cy - k, cx + r, cy))} c h")
    if turned and shape in HEXES:
        shape = {"hex-flat": "hex-pointy", "hex-pointy": "hex-flat"}[shape]
    pts = outline(shape, x, y, w, h, grow)
    ops = [f"{_numbers((px * MM, (paper_h - py) * MM))} {'m' if i == 0 else 'l'}" for i, (px, py) in enumerate(pts)]
    return " ".join(ops) + " h"
