"""`icon`: an icon repeated in a row or column (`count: "{{ card.power }}"`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from cardgen.core.units import MM
from cardgen.elements.base import Box, ElementError, LayoutContext, Opacity, Resources, Rotate
from cardgen.model import ops
from cardgen.resources.icons import IconError, svg_warnings
from cardgen.schema.core import Choice, Colour, Int, Length, Percent, Text, is_expression, opt, resolve, suggest

MAX_ICONS = 1000


@dataclass(frozen=True, kw_only=True)
class IconElement(Box, Rotate, Opacity):
    """The `icon` element."""

    summary: ClassVar[str] = "An icon from art/icons/, repeated `count` times in a row or a column."

    icon: str = opt(Text(), "icon name (a file in art/icons/ or an alias from game.yaml `icons:`)", "",
                    dynamic=True, default_doc="none")
    count: int = opt(Int(min=0, max=MAX_ICONS), "how many times to repeat it, e.g. {{ card.power }}", 1,
                     dynamic=True)
    size: float | Percent | None = opt(Length(percent="own", min=0, max=1000), "each icon's size (`%` of the box's "
                                       "height for a row, width for a column)", None, dynamic=True,
                                       default_doc="the box's height for a row, width for a column")
    gap: float | Percent = opt(Length(percent="own", min=0, max=1000), "space between icons (`%` of the box's "
                               "length along the direction)", 1 * MM, dynamic=True)
    direction: str = opt(Choice(("row", "column")), "row or column", "row", dynamic=True)
    align: str = opt(Choice(("start", "center", "end")), "where the icons sit along the direction", "center",
                     dynamic=True)
    color: tuple | None = opt(Colour(), "colour for the icon's black parts", None, dynamic=True,
                              default_doc="the icon's own colours")

    def layout(self, lc: LayoutContext) -> None:
        if not self.icon:
            return
        try:
            path = lc.res.icons.require(self.icon)
        except IconError as exc:
            raise ElementError("icon", str(exc), "unknown-icon") from None
        if self.count == 0:
            return
        for message, code in svg_warnings(path, lc.res.fonts):
            lc.warn("icon", message, code)
        x, y, w, h = self.rect(lc)
        along, across = (w, h) if self.direction == "row" else (h, w)
        size = across if self.size is None else resolve(self.size, across)
        gap = resolve(self.gap, along)
        total = self.count * size + (self.count - 1) * gap
        start = {"start": 0.0, "center": (along - total) / 2, "end": along - total}[self.align]
        for i in range(self.count):
            off = start + i * (size + gap)
            if self.direction == "row":
                ix, iy = x + off, y + (h - size) / 2
            else:
                ix, iy = x + (w - size) / 2, y + off
            lc.out.append(ops.Icon(path, ix, iy, size, size, self.color, self.rotate, self.opacity))

    @classmethod
    def static_problems(cls, el: Mapping, res: Resources) -> list[tuple[str, str, str]]:
        icon = el.get("icon")
        refused = res.icons.refusal(str(icon)) if icon and not is_expression(icon) else None
        if refused:
            # an alias from game.yaml's `icons:` is reported there, once
            return [("icon", refused, "path-alias" if str(icon) in res.icons.aliases else "path")]
        if icon and not is_expression(icon) and res.icons.find(str(icon)) is None:
            return [("icon", f"unknown icon '{icon}'{suggest(icon, res.icons.names())} (put {icon}.svg in "
                             f"art/icons/ or map it under `icons:` in game.yaml)", "unknown-icon")]
        return []
