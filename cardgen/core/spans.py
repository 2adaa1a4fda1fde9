"""Inline span attributes: what a `[color=#c00 size=8pt]...[/]` or `<span foreground="#c00">`
span, or a named style of game.yaml's `styles:`, changes in the text it holds.

Attributes (the Pango names of Squib's `<span>` are taken as well):

    color (foreground, fgcolor)   a colour: `#c00`, `#cc0000`, a CSS name
    size                          `8pt` (points), `120%` or `1.2em` (of the text's size)
    font (font_family, face, family)  a font family in fonts/
    weight                        100-900, or thin, light, normal/regular, medium, semibold, bold,
                                  extrabold, black/heavy (the family's file of that weight:
                                  `cardgen.resources.weights`)
    style                         normal or italic (oblique)
    letter_spacing (tracking)     `1pt`, `0.05em`; a bare number is points (in `<span>`,
                                  Pango's 1/1024 pt)

Paragraph attributes, for a paragraph that starts inside the span (a style used as a
paragraph style: `[flavour]...[/flavour]` around whole paragraphs):

    align                         left, center, right, justify, start or end
    space_before, space_after     `4pt`, `0.5em`: more space above or below the paragraph
                                  (between paragraphs; not above a text's first one or below
                                  its last)
    indent                        `1em`, `3mm`: the first line's indent
    leading (line_height)         the line height in sizes of the text: `1.4`, `140%`

Sizes and letter spacing are kept relative to the text's size where they are written
relative, and in points otherwise: the typesetter turns them into a scale of the size it
sets the text at (`fit: shrink` shrinks a span with its text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from cardgen.core.units import UnitError, color

WEIGHTS = {"thin": 100, "hairline": 100, "extralight": 200, "ultralight": 200, "light": 300, "normal": 400,
            "regular": 400, "book": 400, "medium": 500, "semibold": 600, "demibold": 600, "bold": 700,
            "extrabold": 800, "ultrabold": 800, "heavy": 900, "black": 900}
ALIASES = {"foreground": "color", "fgcolor": "color", "colour": "color", "font_family": "font", "face": "font",
            "family": "font", "tracking": "letter_spacing", "font_weight": "weight", "font_style": "style",
            "font_size": "size", "line_height": "leading", "alignment": "align", "text_indent": "indent"}
NAMES = ("color", "size", "font", "weight", "style", "letter_spacing", "align", "space_before", "space_after", "indent",
         "leading")
ALIGNS = ("left", "center", "right", "justify", "start", "end")
_PARAGRAPH = ("align", "space_before", "space_after", "indent", "leading")
_QTY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*(pt|%|em)?\s*$")
_STRAIGHT = str.maketrans("\u201c\u201d\u2018\u2019", "\"\"''")
_ATTR = re.compile(r"""([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"']+)|(\S+)""")


class SpanError(ValueError):
    pass


@dataclass(frozen=True)
class Span:
    """A span's attributes; None: as the text around it. A size or a letter spacing is
    (value, unit): unit `pt`, or `em` (of the text's size)."""

    color: tuple[float, float, float, float] | None = None
    size: tuple[float, str] | None = None
    font: str | None = None
    weight: int | None = None
    italic: bool | None = None
    tracking: tuple[float, str] | None = None
    # paragraph attributes: for the paragraphs that start inside the span
    align: str | None = None
    space_before: tuple[float, str] | None = None
    space_after: tuple[float, str] | None = None
    indent: tuple[float, str] | None = None
    leading: float | None = None

    def over(self, outer: Span | None) -> Span:
        """This span inside `outer`: its attributes, the outer ones where it has none (a size
        relative to the text's size is relative to the outer span's)."""
        if outer is None:
            return self
        size = self.size
        if size is not None and size[1] == "em" and outer.size is not None:
            size = (size[0] * outer.size[0], outer.size[1])
        mine = {k: getattr(self, k) for k in ("color", "font", "weight", "italic", "tracking", *_PARAGRAPH)}
        return replace(outer, size=size or outer.size, **{k: v for k, v in mine.items() if v is not None})

    def scale(self, base: float) -> float:
        """The span's size over the text's (`base` points)."""
        if self.size is None:
            return 1.0
        value, unit = self.size
        return value if unit == "em" else value / base if base > 0 else 1.0

    def ems(self, name: str, base: float) -> float:
        """A paragraph length (`space_before`, `space_after`, `indent`) in sizes of the text
        (`base` points); 0 when not set."""
        value = getattr(self, name)
        if value is None:
            return 0.0
        return value[0] if value[1] == "em" else value[0] / base if base > 0 else 0.0

    def spacing(self, base: float) -> float:
        """The letter spacing in sizes of the text (`base` points)."""
        if self.tracking is None:
            return 0.0
        value, unit = self.tracking
        return value if unit == "em" else value / base if base > 0 else 0.0


def _quantity(value: str, what: str, pango: bool = False) -> tuple[float, str]:
    m = _QTY.match(value)
    if not m:
        raise SpanError(f"{what} must be like 8pt, 120% or 1.2em, got '{value}'")
    number, unit = float(m.group(1)), m.group(2)
    if unit == "%":
        return number / 100.0, "em"
    if unit is None and pango:
        return number / 1024.0, "pt"       # Pango's units
    return number, unit or "pt"


def attribute(span: Span, key: str, value: object, pango: bool = False) -> Span:
    """`span` with one attribute set (SpanError: an unknown attribute or a bad value)."""
    name = ALIASES.get(key.lower(), key.lower())
    text = str(value).strip()
    if name == "color":
        try:
            return replace(span, color=color(text))
        except UnitError as exc:
            raise SpanError(str(exc)) from None
    if name == "size":
        size = _quantity(text, "size", pango and text.isdigit())
        if size[0] <= 0 or (size[1] == "pt" and size[0] > 500) or (size[1] == "em" and size[0] > 20):
            raise SpanError(f"size '{text}' is out of range")
        return replace(span, size=size)
    if name == "font":
        if not text:
            raise SpanError("font must name a font family in fonts/")
        return replace(span, font=text)
    if name == "weight":
        return replace(span, weight=_weight(text))
    if name == "style":
        if text.lower() not in ("normal", "italic", "oblique"):
            raise SpanError(f"style must be normal or italic, got '{text}'")
        return replace(span, italic=text.lower() != "normal")
    if name == "letter_spacing":
        spacing = _quantity(text, "letter_spacing", pango)
        if abs(spacing[0]) > (1 if spacing[1] == "em" else 50):
            raise SpanError(f"letter_spacing '{text}' is out of range")
        return replace(span, tracking=spacing)
    if name in _PARAGRAPH:
        return _paragraph(span, name, text)
    raise SpanError(f"unknown span attribute '{key}' (use {', '.join(NAMES)})")


def _paragraph(span: Span, name: str, text: str) -> Span:
    if name == "align":
        word = text.lower().replace("centre", "center")
        if word not in ALIGNS:
            raise SpanError(f"align must be {', '.join(ALIGNS)}, got '{text}'")
        return replace(span, align=word)
    if name == "leading":
        m = _QTY.match(text)
        if not m or m.group(2) == "pt":
            raise SpanError(f"leading must be a line height in sizes of the text, like 1.3 or 130%, got '{text}'")
        value = float(m.group(1)) / (100.0 if m.group(2) == "%" else 1.0)
        if not 0.5 <= value <= 5:
            raise SpanError(f"leading '{text}' is out of range (0.5 to 5)")
        return replace(span, leading=value)
    if text.endswith("mm") and _QTY.match(text[:-2]):      # (a length in mm, as elsewhere in cardgen)
        amount = (float(text[:-2]) * 72 / 25.4, "pt")
    else:
        amount = _quantity(text, name)
    if amount[0] < 0 or amount[0] > (10 if amount[1] == "em" else 200):
        raise SpanError(f"{name} '{text}' is out of range")
    if name == "indent":
        return replace(span, indent=amount)
    return replace(span, space_before=amount) if name == "space_before" else replace(span, space_after=amount)


def _weight(text: str) -> int:
    key = text.lower().replace("-", "").replace(" ", "")
    if key in WEIGHTS:
        return WEIGHTS[key]
    if key.isdigit() and 100 <= int(key) <= 900 and int(key) % 100 == 0:
        return int(key)
    raise SpanError(f"weight must be 100, 200, ... 900 or a name (light, bold, extrabold, ...), got '{text}'")


def from_tag(body: str, pango: bool = False) -> tuple[Span, list[str]]:
    """The attributes written in a tag (`color=#c00 size="8pt"`) and what is wrong with some
    of them (each left out)."""
    span = Span()
    problems: list[str] = []
    body = body.translate(_STRAIGHT)       # (text curled by typographer's punctuation first)
    for key, value, stray in _ATTR.findall(body):
        if stray:
            problems.append(f"'{stray}' is not an attribute (write name=value)")
            continue
        try:
            span = attribute(span, key, value.strip("\"'"), pango)
        except SpanError as exc:
            problems.append(str(exc))
    return span, problems
