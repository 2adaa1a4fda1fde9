"""`ellipse`: an ellipse (a circle in a square box) filling its box."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardgen.elements.base import Box, Fill, LayoutContext, Rotate, Shadow, Stroke
from cardgen.model import ops


@dataclass(frozen=True, kw_only=True)
class Ellipse(Box, Rotate, Fill, Stroke, Shadow):
    """The `ellipse` element."""

    summary: ClassVar[str] = "An ellipse filling its box; a circle when the box is square."

    def layout(self, lc: LayoutContext) -> None:
        if self.fill is None and self.stroke is None:
            return
        x, y, w, h = self.rect(lc)
        fill, stroke, shadow = self.painted()
        lc.out.append(ops.Ellipse(x, y, w, h, fill, stroke, self.outline_width(), self.dash, self.rotate, shadow))
