"""`rect`: a rectangle, optionally with rounded corners."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardgen.elements.base import Box, Fill, LayoutContext, Rotate, Shadow, Stroke
from cardgen.model import ops
from cardgen.schema.core import Length, Percent, opt, resolve


@dataclass(frozen=True, kw_only=True)
class Rect(Box, Rotate, Fill, Stroke, Shadow):
    """The `rect` element."""

    summary: ClassVar[str] = "A rectangle, filled and/or outlined, optionally with rounded corners."

    radius: float | Percent = opt(Length(percent="own", min=0, max=1000), "corner radius (`%` of the shorter "
                                  "side of the box)", 0.0, dynamic=True)

    def layout(self, lc: LayoutContext) -> None:
        if self.fill is None and self.stroke is None:
            return
        x, y, w, h = self.rect(lc)
        fill, stroke, shadow = self.painted()
        lc.out.append(ops.Rect(x, y, w, h, fill, stroke, self.outline_width(), resolve(self.radius, min(w, h)),
                               self.dash, self.rotate, shadow))
