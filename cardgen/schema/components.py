"""The kinds of component a game folder's files make (`kind:` in a deck file) and the outlines
they take (`shape:`), declared once: the deck file's declaration (`cardgen.schema.files`), the
loader and the print sheets read these; the geometry is `cardgen.model.components`."""
from __future__ import annotations

from dataclasses import dataclass

# The outlines a piece may have.  `rect` is a card's (or a square token's or tile's);
# `round` a disc as wide as the piece; the hexes are inscribed in the piece's box, flat-top
# (flat edges at top and bottom: width = point-to-point) or pointy-top (points at top and bottom);
# `path` any outline a deck file's `path:` gives (`cardgen.model.svgpath`).
SHAPES: dict[str, str] = {
    "rect": "a rectangle (cards, square tokens and tiles, boards)",
    "round": "a disc as wide as the piece",
    "hex-flat": "a hexagon with flat edges at the top and bottom",
    "hex-pointy": "a hexagon with points at the top and bottom",
    "path": "any outline, an SVG path (`path:`; tokens only)",
}
HEXES = ("hex-flat", "hex-pointy")


@dataclass(frozen=True)
class ComponentKind:
    """What a component file's `kind:` means."""

    name: str
    summary: str
    shapes: tuple[str, ...]          # the shapes it takes
    default_shape: str
    needs_size: bool                 # True: the game's card_size is no default for it


KINDS: dict[str, ComponentKind] = {k.name: k for k in (
    ComponentKind("card", "a deck of cards (the default)", tuple(s for s in SHAPES if s != "path"), "rect", False),
    ComponentKind("token", "tokens and counters: round, square or hex; one- or two-sided", tuple(SHAPES),
                  "round", True),
    ComponentKind("tile", "tiles: hex (flat-top or pointy-top, sized flat to flat) or square, tessellated on "
                          "the sheet", ("hex-flat", "hex-pointy", "rect"), "hex-flat", True),
    ComponentKind("board", "boards and mats of any size; tiled across sheets when larger than the paper",
                  ("rect",), "rect", True),
    ComponentKind("die", "custom six-sided dice: six faces, printed as stickers and as a net to fold",
                  ("rect",), "rect", True),
)}

DIE_FACES = 6               # a die file's entries: faces 1 to 6, face i opposite face 7 - i
STICKER_INSET = 1.5         # mm: a die's sticker stays this far inside each edge of its face (16 mm die: 13 mm)
MIN_STICKER = 3.0           # mm: the smallest sticker a die file may ask for
