"""What every template element shares: the base declaration, the option groups several
elements reuse (box, rotation, fill, stroke), and what an element sees while it lays out.

An element type is one module in `cardgen.elements`: a frozen dataclass subclassing
`Element` (and the groups it takes), its options declared with `opt()`, and a
`layout(lc)` method that appends drawing operations (`cardgen.model.ops`) for one card.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from cardgen.core.paint import with_opacity
from cardgen.core.units import MM
from cardgen.resources.fonts import FontBook
from cardgen.resources.icons import IconBook
from cardgen.schema.core import Anything, Choice, Colour, Decl, Env, Length, ListOf, Number, Text, is_expression, opt
from cardgen.schema.paint import Paint, ShadowKind
from cardgen.text.typeset import Typesetter

SAFE_MM = 3.175          # the safe area: 1/8 in inside the trim
SAFE_PT = SAFE_MM * MM


class ElementError(Exception):
    """A problem with one option of one element for one card: `key` locates it."""

    def __init__(self, key: str | None, message: str, code: str = "element", dedupe: tuple[str, ...] = (),
                 field: str | None = None):
        super().__init__(message)
        self.key, self.message, self.code = key, message, code
        self.dedupe = dedupe    # what it is about, with the card's name added (`Diagnostic.dedupe`)
        self.field = field      # the card field whose value is at fault, if one is


class Resources(Protocol):
    """What elements may use of a game's resources (fonts, icons, art)."""

    fonts: FontBook
    icons: IconBook
    typesetter: Typesetter

    def find_art(self, src: str) -> Path | None: ...


@dataclass
class LayoutContext:
    """One card side being laid out: its size, what has been drawn so far, how to warn."""

    res: Resources
    width: float                      # trim, points
    height: float
    bleed: float
    out: list = field(default_factory=list)
    who: str = ""                     # "card 'Digging'", for messages
    warn: Callable[[str | None, str, str], None] = lambda key, message, code: None
    # what the element laid out, where its drawing's extent would say too much: (x0, y0, x1, y1),
    # points, for an element placed `below:` (etc.) it (a text's lines as set, not its box)
    content: tuple[float, float, float, float] | None = None
    # `content` is asked for (`layout.placement` measures the element): else it need not be set
    measure: bool = False

    @property
    def env(self) -> Env:
        return Env(self.width, self.height)


# -- the base and the shared groups ---------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Element(Decl):
    """Keys every element takes (`cardgen.elements.TABLE` names each type); `summary` heads its docs."""

    summary: ClassVar[str] = ""
    __what__: ClassVar[str] = "element"

    name: str = opt(Text(nonempty=True), "the element's name (required, unique in the template; a child "
                                         "template overrides an element by its name)")
    type: str = opt(Text(), "the element type (required, unless a child template overrides an element by name)",
                    "", default_doc="required")
    when: Any = opt(Anything(), "draw only if this expression is true, e.g. `card.cost is defined`", True,
                    default_doc="always")
    before: str = opt(Text(), "in a child template: insert this new element before the named one", "",
                      default_doc="none")
    after: str = opt(Text(), "in a child template: insert this new element after the named one", "",
                     default_doc="none")

    #: keys handled by the template loader and the layout engine, not by `layout()`
    META: ClassVar[frozenset[str]] = frozenset({"name", "type", "when", "before", "after"})

    def layout(self, lc: LayoutContext) -> None:
        raise NotImplementedError

    @classmethod
    def static_problems(cls, el: Mapping, res: Resources) -> list[tuple[str, str, str]]:
        """References that can be checked before any card is laid out (a font, an icon, an
        image file named in the template itself): (key, message, code) for each problem."""
        return []


@dataclass(frozen=True, kw_only=True)
class Box(Element):
    """Where the element sits: x, y, width and height, or a named box."""

    box: str = opt(Choice(("trim", "bleed", "safe")), "the box that x, y, width and height start from: trim, "
                   "bleed (reaches into the bleed) or safe (1/8 in inside the trim)", "trim", dynamic=True,
                   group="box")
    x: float | None = opt(Length(percent="width"), "left edge from the trim's left", None, dynamic=True,
                          default_doc="the box's left", group="box")
    y: float | None = opt(Length(percent="height"), "top edge from the trim's top, downwards", None, dynamic=True,
                          default_doc="the box's top", group="box")
    width: float | None = opt(Length(percent="width", min=0), "width", None, dynamic=True,
                              default_doc="to the box's right edge", group="box")
    height: float | None = opt(Length(percent="height", min=0), "height", None, dynamic=True,
                               default_doc="to the box's bottom edge", group="box")
    below: str = opt(Text(nonempty=True), "put the top edge `margin` below the named element as laid out on this "
                     "card (a text's last line, not its box); instead of `y`", "", default_doc="none", group="place")
    above: str = opt(Text(nonempty=True), "put the bottom edge `margin` above the named element as laid out on this "
                     "card (its first line); the top is `y`, or the bottom less `height`", "", default_doc="none",
                     group="place")
    right_of: str = opt(Text(nonempty=True), "put the left edge `margin` right of the named element as laid out on "
                        "this card (a text's longest line); instead of `x`", "", default_doc="none", group="place")
    left_of: str = opt(Text(nonempty=True), "put the right edge `margin` left of the named element as laid out on "
                       "this card; the left is `x`, or the right less `width`", "", default_doc="none",
                       group="place")
    inside: str = opt(Text(nonempty=True), "the box is the named element's as laid out on this card (a text's "
                      "lines), `margin` inside it (a negative margin: around it, e.g. a panel behind a text); "
                      "instead of x, y, width and height", "", default_doc="none", group="place")
    margin: float = opt(Length(min=-1000, max=1000), "space between this element and the one it is placed by "
                     "(`below:`, `above:`, `right_of:`, `left_of:`, `inside:`)", 0.0, dynamic=True, group="place")

    def rect(self, lc: LayoutContext) -> tuple[float, float, float, float]:
        """The element's box in points, trim top-left origin, y down."""
        W, H, B = lc.width, lc.height, lc.bleed
        if self.box == "bleed":
            bx, by, bw, bh = -B, -B, W + 2 * B, H + 2 * B
        elif self.box == "safe":
            bx, by, bw, bh = SAFE_PT, SAFE_PT, W - 2 * SAFE_PT, H - 2 * SAFE_PT
        else:
            bx, by, bw, bh = 0.0, 0.0, W, H
        x = bx if self.x is None else self.x
        y = by if self.y is None else self.y
        w = ((bx + bw) - x if self.x is not None else bw) if self.width is None else self.width
        h = ((by + bh) - y if self.y is not None else bh) if self.height is None else self.height
        return x, y, w, h


@dataclass(frozen=True, kw_only=True)
class Rotate(Element):
    """Turning the element about its centre."""

    rotate: float = opt(Number(min=-3600, max=3600, unit="degrees"), "rotation in degrees, counter-clockwise, "
                        "about the element's centre", 0.0, dynamic=True, group="rotate")


@dataclass(frozen=True, kw_only=True)
class Fill(Element):
    """What fills the element: a colour or a gradient."""

    fill: tuple | None = opt(Paint(), "fill: a colour (#rrggbb, a CSS name, or none) or a gradient, "
                             "`linear-gradient(90deg, #fff, #c00)`, `radial-gradient(#fff, #c00 80%)` or "
                             "`{linear: [\"#fff\", \"#c00\"], angle: 90}` (docs/templates.md)", None,
                             dynamic=True, group="paint")


@dataclass(frozen=True, kw_only=True)
class Stroke(Element):
    """The element's outline: colour, width, dashes."""

    stroke: tuple | None = opt(Colour(), "outline colour", None, dynamic=True, group="paint")
    stroke_width: float | None = opt(Length(min=0, max=50), "outline width", None, dynamic=True,
                                     default_doc="0.5pt when stroke is set", group="paint")
    dash: tuple = opt(ListOf(Number(min=0, max=1000), max_items=16, nonzero_sum=True),
                      "dash pattern for the outline, e.g. [2, 1] (in points)", (), dynamic=True,
                      default_doc="solid", group="paint")

    def outline_width(self) -> float:
        if self.stroke is None:
            return 0.0
        return 0.5 if self.stroke_width is None else self.stroke_width


@dataclass(frozen=True, kw_only=True)
class Opacity(Element):
    """How opaque the element is."""

    opacity: float = opt(Number(min=0, max=1), "how opaque the element is, from 0 (invisible) to 1 (its colours "
                         "as they are); what is under it shows through", 1.0, dynamic=True, group="effects")


@dataclass(frozen=True, kw_only=True)
class Shadow(Opacity):
    """A drop shadow under the element (and its opacity)."""

    shadow: tuple | None = opt(ShadowKind(), "a drop shadow: `x y` offsets (right, down), then a blur and a colour "
                               "if wanted, e.g. `1mm 1mm`, `0.5mm 0.8mm 1mm #00000099` (black at 50 % unless "
                               "a colour is given)", None, dynamic=True, default_doc="none", group="effects")

    def shade(self) -> tuple | None:
        """The shadow, its colour as translucent as the element's `opacity` makes it."""
        if self.shadow is None or self.opacity >= 1:
            return self.shadow
        dx, dy, blur, col = self.shadow
        return dx, dy, blur, with_opacity(col, self.opacity)

    def painted(self) -> tuple[tuple | None, tuple | None, tuple | None]:
        """(fill, stroke, shadow) with the element's `opacity` in their colours."""
        fill = with_opacity(getattr(self, "fill", None), self.opacity)
        stroke = with_opacity(getattr(self, "stroke", None), self.opacity)
        return fill, stroke, self.shade()


def expression_keys(el: Mapping, cls: type[Element]) -> list[str]:
    """The keys of `el` whose value is a Jinja expression, in declaration order."""
    opts = cls.options()
    return [k for k in opts if k in el and is_expression(el[k])]
