"""`polygon`: a regular polygon (triangle, hexagon, ...) inscribed in its box.

The first plug-in written on the one-declaration design: its options are declared here
once, and it lays out as a generic path, so nothing else in cardgen had to change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from cardgen.elements.base import Box, Fill, LayoutContext, Rotate, Shadow, Stroke
from cardgen.model import ops
from cardgen.schema.core import Int, opt


@dataclass(frozen=True, kw_only=True)
class Polygon(Box, Rotate, Fill, Stroke, Shadow):
    """The `polygon` element."""

    summary: ClassVar[str] = ("A regular polygon with `sides` corners inscribed in its box (stretched to the box's "
                              "shape), one corner pointing up; `rotate` turns it about its centre.")

    sides: int = opt(Int(min=3, max=100), "number of sides (3 for a triangle, 6 for a hexagon)", 6, dynamic=True)

    def layout(self, lc: LayoutContext) -> None:
        if self.fill is None and self.stroke is None:
            return
        x, y, w, h = self.rect(lc)
        cx, cy, rx, ry = x + w / 2, y + h / 2, w / 2, h / 2
        points = []
        for i in range(self.sides):
            a = -math.pi / 2 + 2 * math.pi * i / self.sides     # first corner straight up (y grows down)
            points.append((round(cx + rx * math.cos(a), 4), round(cy + ry * math.sin(a), 4)))
        fill, stroke, shadow = self.painted()
        lc.out.append(ops.Path(tuple(points), True, fill, stroke, self.outline_width(), self.dash, self.rotate,
                               (x, y, w, h), shadow))
