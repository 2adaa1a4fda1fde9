"""Declaration of a sheet layout file (`layouts/NAME.yaml`): where the cards go on a sheet of
paper, how the cut lines are marked, whether the sheet folds, and registration marks for a
cutting machine.

Declared once here; loading with `file:line:col` messages, the docs table (docs/printing.md)
and `cardgen schema layout` come from it.  The checks that need the whole layout (positions
inside the paper, no overlaps, clear of registration marks) are in
`cardgen.render.sheetlayout`, which also turns a layout into the geometry the sheets are
drawn from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardgen.core.sizes import PAPER_SIZES_MM, CardSize
from cardgen.schema.core import Bool, Choice, Decl, Env, Invalid, Kind, Length, ListOf, Nested, Text, opt, show, suggest
from cardgen.schema.files import CardSizeKind, named_size

MAX_PAPER_MM = 2000.0
_SIDE = Length(min=0, min_open=True, max=MAX_PAPER_MM, to="mm")
_PLACE = Length(min=0, max=MAX_PAPER_MM, to="mm")


@dataclass(frozen=True)
class Paper:
    """A sheet of paper, in millimetres (portrait or landscape as given)."""

    width: float
    height: float
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or f"{self.width:g}x{self.height:g} mm"


@dataclass(frozen=True, kw_only=True)
class PaperSides(Decl):
    """A paper size given by its sides."""

    __what__ = "a paper size: width and height"
    __doc_title__ = "paper size"

    width: float = opt(_SIDE, "the paper's width, left to right as printed")
    height: float = opt(_SIDE, "the paper's height, top to bottom as printed")


class PaperKind(Kind):
    """A paper: a name (letter, a4, ...) or `{width, height}`; converts to `Paper` (mm)."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str):
            return Paper(*named_size(value, PAPER_SIZES_MM, "paper"))
        if not isinstance(value, dict):
            raise Invalid(f"must be a paper size name such as letter, or a mapping with width and height, "
                          f"got {show(value)}")
        sides = Nested(PaperSides).convert(value, env)
        return Paper(sides.width, sides.height)

    def describe(self) -> str:
        return f"paper: a name ({', '.join(PAPER_SIZES_MM)}) or {{width, height}}"

    def json_schema(self) -> dict:
        return {"anyOf": [{"enum": list(PAPER_SIZES_MM)}, PaperSides.json_schema()]}

    def show_default(self, default: Any) -> str:
        return default.label if isinstance(default, Paper) else super().show_default(default)


class CardOrAny(Kind):
    """`any`, or a card size (`CardSizeKind`): None for any."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str) and value.strip().lower() == "any":
            return None
        return CardSizeKind().convert(value, env)

    def describe(self) -> str:
        return "`any`, or a card size: a name (poker, ...) or {width, height}"

    def json_schema(self) -> dict:
        size = CardSizeKind().json_schema()
        return {"anyOf": [{"const": "any"}, *size["anyOf"]]}


ROTATIONS = {0: 0, 90: 90, -90: -90, 270: -90, 180: 180, -180: 180}


class Rotation(Kind):
    """A quarter turn: 0, 90 (the card's top to the left), -90 or 270 (to the right), 180."""

    def convert(self, value: Any, env: Env) -> Any:
        number = value
        if isinstance(value, float) and value.is_integer():
            number = int(value)
        if isinstance(number, bool) or not isinstance(number, int) or number not in ROTATIONS:
            raise Invalid(f"must be 0, 90, -90, 270 or 180 (degrees), got {show(value)}")
        return ROTATIONS[number]

    def describe(self) -> str:
        return "0, 90, -90 (or 270) or 180 degrees"

    def json_schema(self) -> dict:
        return {"enum": sorted(ROTATIONS)}


@dataclass(frozen=True, kw_only=True)
class CardPosition(Decl):
    """Where one card goes on the sheet."""

    __what__ = "a card position"
    __doc_title__ = "card position"

    x: float = opt(_PLACE, "from the paper's left edge to the card's trim (its left cut, as it lies on the sheet)")
    y: float = opt(_PLACE, "from the paper's top edge to the card's trim (its top cut, as it lies on the sheet)")
    rotate: int = opt(Rotation(), "turn the card on the sheet: 90 puts its top to the left, -90 (or 270) to "
                                  "the right, 180 upside down", 0)


class CardPlaces(Kind):
    """`grid` (the automatic grid), or a list of `CardPosition`s."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str):
            if value.strip().lower() != "grid":
                raise Invalid(f"must be grid or a list of positions ({{x, y, rotate}}), got {show(value)}"
                              f"{suggest(value.strip().lower(), ('grid',))}")
            return "grid"
        if not isinstance(value, list):
            raise Invalid(f"must be grid or a list of positions ({{x, y, rotate}}), got {show(value)}")
        return ListOf(Nested(CardPosition), max_items=500, min_items=1).convert(value, env)

    def describe(self) -> str:
        return "`grid`, or a list of positions `{x, y, rotate}`"

    def json_schema(self) -> dict:
        return {"anyOf": [{"const": "grid"},
                          {"type": "array", "items": CardPosition.json_schema(), "minItems": 1, "maxItems": 500}]}


@dataclass(frozen=True, kw_only=True)
class Area(Decl):
    """A rectangle on the sheet, from its top-left corner."""

    __what__ = "an area"
    __doc_title__ = "area"

    x: float = opt(_PLACE, "from the paper's left edge")
    y: float = opt(_PLACE, "from the paper's top edge")
    width: float = opt(_SIDE, "the area's width")
    height: float = opt(_SIDE, "the area's height")


REGISTRATION_STYLES = ("silhouette",)


@dataclass(frozen=True, kw_only=True)
class Registration(Decl):
    """Registration marks a cutting machine's optical sensor reads on the printed sheet."""

    __what__ = "registration marks"
    __doc_title__ = "registration marks"

    style: str = opt(Choice(REGISTRATION_STYLES), "silhouette: a filled square at the top-left corner and "
                                                  "L-shaped corner marks at the top-right and bottom-left (Silhouette "
                                                  "Studio's Type 1)", "silhouette")
    inset: float = opt(Length(min=4, max=100, to="mm"), "from the paper's edges to the marks' outer edges", 10.0)
    length: float = opt(Length(min=5, max=100, to="mm"), "the length of each arm of an L-shaped mark", 20.0)
    square: float = opt(Length(min=2, max=50, to="mm"), "the side of the filled square", 5.0)
    thickness: float = opt(Length(min=0.1, max=3, to="mm"), "the line width of the L-shaped marks", 0.5)
    clearance: float = opt(Length(min=0, max=50, to="mm"), "how far every card, bleed included, stays from the "
                                                           "marks and from the square each mark sits in", 2.0)


@dataclass(frozen=True, kw_only=True)
class SheetLayoutFile(Decl):
    """A sheet layout: `cardgen/data/layouts/*.yaml` (the presets), or a designer's own
    `layouts/NAME.yaml` in the game folder or the project."""

    __what__ = "layout file"
    __doc_title__ = "sheet layout"

    description: str = opt(Text(), "what the layout is for, in a line", "", default_doc="none")
    paper: Paper = opt(PaperKind(), "the paper: letter, a4, a5, half-letter, a6 or {width, height} (turn it "
                                    "landscape by giving the width and height that way)")
    card: CardSize | None = opt(CardOrAny(), "the card size the layout is made for; a deck of another size is an "
                                             "error. `any`: every size", None, default_doc="any")
    cards: Any = opt(CardPlaces(), "where the cards go: `grid`, the largest grid that fits the area (cards turned "
                                   "sideways when that fits more), centred in it; or a list of positions, filled "
                                   "in order, one page after another", "grid")
    margin: float = opt(Length(min=0, max=200, to="mm"), "grid: the cards (with `spacing: gutter` their bleed too) "
                                                         "stay this far inside the paper's edges", 5.0)
    area: Area | None = opt(Nested(Area), "grid: the rectangle the cards stay inside, instead of the paper less "
                                          "`margin`", None, default_doc="none")
    spacing: str = opt(Choice(("butted", "gutter")), "grid: butted (neighbours share their cut lines) or gutter "
                                                     "(every card keeps its full bleed, cards two bleeds apart); "
                                                     "`--gutter` sets gutter", "butted")
    fold: str = opt(Choice(("none", "vertical", "horizontal")), "a fold-over sheet: the fold line across the "
                                                                "middle of the paper, vertical (fronts on the left "
                                                                "half, backs mirrored on the right) or horizontal "
                                                                "(fronts on the top half); none: duplex sheets, "
                                                                "backs on their own pages", "none")
    fold_gap: float = opt(Length(min=0, max=100, to="mm"), "fold-over: from the fold line to the nearest card's "
                                                           "trim; at least the bleed, so a fold off the line hides "
                                                           "in the bleed", 6.0)
    crop_marks: str = opt(Choice(("ticks", "lines", "none")), "ticks: short marks in the margins along every cut "
                                                              "line; lines: full lines across the sheet, under the "
                                                              "cards; none", "ticks")
    registration: Registration | None = opt(Nested(Registration), "registration marks for a cutting machine, on "
                                                                  "the printed side", None, default_doc="none")
    notes: bool = opt(Bool(), "a line in the left margin naming the game, the decks and how to print", True)
