"""`line`: a straight line from (x, y) to (x2, y2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardgen.elements.base import Box, LayoutContext, Rotate, Stroke
from cardgen.model import ops
from cardgen.schema.core import Colour, Length, opt


@dataclass(frozen=True, kw_only=True)
class Line(Box, Rotate, Stroke):
    """The `line` element."""

    summary: ClassVar[str] = "A straight line from (x, y) to (x2, y2); `rotate` turns it about its middle."

    x2: float | None = opt(Length(percent="width"), "end point x (the start is x, y)", None, dynamic=True,
                           default_doc="x + width")
    y2: float | None = opt(Length(percent="height"), "end point y", None, dynamic=True, default_doc="y")
    stroke: tuple | None = opt(Colour(), "line colour", (0.0, 0.0, 0.0, 1.0), dynamic=True,
                               default_doc="black", group="paint")

    def layout(self, lc: LayoutContext) -> None:
        if self.stroke is None:
            return
        x, y, w, _ = self.rect(lc)
        x2 = x + w if self.x2 is None else self.x2
        y2 = y if self.y2 is None else self.y2
        width = 0.5 if self.stroke_width is None else self.stroke_width
        lc.out.append(ops.Line(x, y, x2, y2, self.stroke, width, self.dash, self.rotate))
