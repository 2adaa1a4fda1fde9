"""`text`: rich text in a box: **bold**, *italic*, :icon:, paragraphs, fitted by shrinking."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import ClassVar

from cardgen.core.paint import with_opacity
from cardgen.core.units import MM
from cardgen.elements.base import Box, ElementError, LayoutContext, Resources, Rotate, Shadow
from cardgen.model import ops
from cardgen.resources.features import effective
from cardgen.resources.fonts import FontError
from cardgen.resources.icons import IconError
from cardgen.schema.core import Bool, Choice, Colour, Features, Length, Number, Text, is_expression, opt, suggest
from cardgen.text.markup import icon_names
from cardgen.text.typeset import TextStyle

_X = attrgetter("x")


@dataclass(frozen=True, kw_only=True)
class TextElement(Box, Rotate, Shadow):
    """The `text` element."""

    summary: ClassVar[str] = "Text in a box, wrapped and aligned; markup `**bold**`, `*italic*`, `:icon:`, spans " \
                             "`[color=#c00 size=8pt]...[/]` and named styles `[name]...[/name]`, a blank " \
                             "line between paragraphs; `fit: shrink` makes long text smaller to fit."

    text: str | None = opt(Text(), "the text: markup **bold**, *italic*, :icon:, newline, blank line for a "
                           "paragraph", "", dynamic=True, default_doc="empty")
    font: str | None = opt(Text(), "font family in fonts/", None, dynamic=True, default_doc="Lato")
    style: str = opt(Choice(("regular", "bold", "italic", "bolditalic")), "font style", "regular", dynamic=True)
    size: float = opt(Number(min=0, max=500, min_open=True, unit="pt"), "font size in points", 9.0, dynamic=True)
    min_size: float | None = opt(Number(min=0, max=500, min_open=True, unit="pt"), "smallest size `fit: shrink` "
                                 "may use", None, dynamic=True, default_doc="half the size, at least 6")
    color: tuple | None = opt(Colour(), "text colour", (0.0, 0.0, 0.0, 1.0), dynamic=True, default_doc="black")
    align: str = opt(Choice(("left", "center", "right", "justify", "start", "end")), "horizontal alignment; "
                     "`start` and `end` by the text's direction: `start` is left in English, right in Hebrew "
                     "and Arabic", "left", dynamic=True)
    direction: str = opt(Choice(("auto", "ltr", "rtl")), "the direction each paragraph is read in: `auto` by its "
                         "first letter (Hebrew and Arabic: right to left), `ltr` left to right, `rtl` right to left",
                         "auto", dynamic=True)
    valign: str = opt(Choice(("top", "middle", "bottom")), "vertical alignment in the box", "top", dynamic=True)
    leading: float = opt(Number(min=0.5, max=5), "line height in font sizes", 1.2, dynamic=True)
    fit: str = opt(Choice(("none", "shrink")), "none (overflow is a warning) or shrink (shrink to fit, down to "
                   "min_size)", "none", dynamic=True)
    wrap: bool = opt(Bool(), "wrap at the box's width; false keeps each line whole", True, dynamic=True)
    icon_scale: float = opt(Number(min=0.1, max=10), "inline icon height relative to the default", 1.0,
                            dynamic=True)
    paragraph_gap: float = opt(Number(min=0, max=10), "extra space between paragraphs, in font sizes", 0.45,
                               dynamic=True)
    uppercase: bool = opt(Bool(), "print the text in capitals", False, dynamic=True)
    features: tuple[str, ...] = opt(Features(), "OpenType features of the font to use: `smcp` (small capitals), "
                                    "`tnum` (figures all as wide), `onum` (old-style figures), `zero`, `ss01`, ...; "
                                    "`lnum` (lining figures, as tall as capitals) is on unless `onum` or `-lnum` "
                                    "is given", (), dynamic=True, default_doc="[lnum]")
    outline: tuple | None = opt(Colour(), "a line of this colour around each letter, outside it (light text on "
                                "busy art)", None, dynamic=True, default_doc="none")
    outline_width: float = opt(Length(min=0, max=10), "the outline's width", 0.5, dynamic=True,
                               default_doc="0.5 pt")

    def layout(self, lc: LayoutContext) -> None:
        if self.text is None:
            return
        text = self.text.upper() if self.uppercase else self.text
        if not text.strip():
            return
        x, y, w, h = self.rect(lc)
        st = TextStyle(family=self.font, style=self.style, size=self.size, leading=self.leading,
                       color=self.color, align=self.align, valign=self.valign, icon_scale=self.icon_scale,
                       paragraph_gap=self.paragraph_gap, features=effective(self.features),
                       direction=self.direction)
        try:
            problems: list[str] = []
            try:
                runs, used, overflow, (top, tall) = lc.res.typesetter.set_text(text, st, x, y, w, h, self.fit,
                                                                               self.min_size, self.wrap, problems)
            finally:
                for problem in problems:
                    lc.warn("text", problem, "bad-span")
        except FontError as exc:
            raise ElementError("font" if self.font else "style", str(exc)) from None
        except IconError as exc:
            raise ElementError("text", str(exc), dedupe=("unknown-icon", exc.unknown) if exc.unknown else ()) from None
        if overflow:
            lc.warn("text", f"text does not fit its box "
                            f"({w / MM:.1f}x{h / MM:.1f} mm at {used:g} pt); shorten it, enlarge the box"
                            + ("" if self.fit == "shrink" else " or add `fit: shrink`"), "overflow")
        if lc.measure and runs and not self.rotate:  # the lines as set: what an element placed by this one follows
            lc.content = (min(map(_X, runs)), top, max([r.x + r.width for r in runs]), top + tall)
        if self.opacity < 1:
            runs = [replace(r, color=with_opacity(r.color or (0.0, 0.0, 0.0, 1.0) if r.kind == "text" else r.color,
                                                  self.opacity)) for r in runs]
        lc.out.append(ops.Text(x, y, w, h, tuple(runs), used, overflow, self.rotate, self.name, self.shade(),
                               with_opacity(self.outline, self.opacity),
                               self.outline_width if self.outline else 0.0))

    @classmethod
    def static_problems(cls, el: Mapping, res: Resources) -> list[tuple[str, str, str]]:
        out = []
        font = el.get("font")
        refused = getattr(res.fonts, "refused", {})
        if font and not is_expression(font) and not res.fonts.has(str(font)) and str(font) in refused:
            out.append(("font", refused[str(font)], "bad-font"))
        elif font and not is_expression(font) and not res.fonts.has(str(font)):
            out.append(("font", f"unknown font '{font}'{suggest(font, res.fonts.families)} (fonts found: "
                                f"{', '.join(sorted(res.fonts.families)) or 'none'}; add {font}-Regular.ttf to "
                                f"fonts/)", "unknown-font"))
        text = el.get("text")
        if isinstance(text, str) and ":" in text:
            # icons written in the template itself (Jinja parts cannot name one reliably)
            static = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", " ", text, flags=re.S) if is_expression(text) else text
            for icon in dict.fromkeys(icon_names(static)):
                if res.icons.find(icon) is None:
                    out.append(("text", f"unknown icon ':{icon}:'{suggest(icon, res.icons.names())} (put "
                                        f"{icon}.svg in art/icons/ or map it under `icons:` in game.yaml)",
                                "unknown-icon"))
        return out
