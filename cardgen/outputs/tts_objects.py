"""Tabletop Simulator objects for a game's components (`kind: token`, `tile`, `board`, `die`):
the TTS output (`cardgen.outputs.tts`) puts decks into the save; this module makes the rest.

One function per component kind maps a piece to its TTS object (`OBJECTS`); a kind added
later (dice) adds its own.  What the objects hold was compared key by key with real saves
(the SCED Arkham Horror mod, docs/tts.md):

- a token or tile is a `Custom_Tile` of its shape (`CustomTile.Type` 0 box, 1 hex, 2 circle),
  stackable, 0.1 thick, its face as `ImageURL` and its back (two-sided pieces) as
  `ImageSecondaryURL`; with `tts: {object: token}` a `Custom_Token` whose outline is the
  image's alpha (the piece's shape, transparent outside);
- a board or mat is a `Custom_Tile` box, not stackable (what real mods do for mats and
  boards: a tile's size follows its scale, a `Custom_Board`'s follows its image's pixels);
- the copies of a component file go into a `Bag` (each copy an object of its own), or with
  `tts: {supply: true}` each kind into an `Infinite_Bag` holding one; a single piece and each
  board lie on the table by themselves.

TTS's hex tile has flat edges at the top and bottom of its image: a pointy-top piece's image is
turned a quarter and the object turned back.

A die file's dice are `Custom_Dice` (`CustomImage.CustomDice.Type` 1, a d6), compared key by
key with SCED's `Custom_Dice.loladie.json`: one image of 3 x 3 equal cells for the six faces
(`D6_CELLS`), and `RotationValues`, the rotation that shows each face on top with its value.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardgen.core.words import ENGLISH, Words

if TYPE_CHECKING:
    from PIL import Image

TILE_TYPES = {"rect": 0, "hex-flat": 1, "hex-pointy": 1, "round": 2}   # CustomTile.Type (3: rounded box)
UNITS_AT_SCALE_1 = 2.0       # a Custom_Tile or Custom_Token at scale 1 is 2 table units deep
THICKNESS = 0.1              # table units (about an inch): what SCED's tokens and mats use
MERGE_DISTANCE = 15          # Custom_Token's outline tracing, in pixels (TTS's default)
POKER_WIDTH_MM = 63.5            # a TTS card at scale 1 is a poker card
UNITS_PER_MM = 2.2 / POKER_WIDTH_MM   # a poker card at scale 1 is about 2.2 x 3.1 table units
MAX_PIECE_DPI = 300
MAX_PIECE_PX = 4096
TOKEN_BORDER = 0.04         # a Custom_Token's transparent border, each side, as a share of its image's height
BAG_SIZE_MM = (75.0, 75.0)   # a bag's footprint on the table, generous

# TTS's custom d6 image: 3 x 3 equal cells, the top row unused, then faces 2, 4, 5, then 1, 3, 6;
# faces 1 and 6 turned 180 degrees.  Per cell, row by row: (face, turned) or None.
D6_CELLS: tuple[tuple[int, bool] | None, ...] = (None, None, None, (2, False), (4, False), (5, False),
                                                 (1, True), (3, False), (6, True))
# The rotation (x, y, z degrees) that shows each face on top, faces 1 to 6 (SCED's saved d6).
D6_ROTATIONS = ((-90, 0, 0), (0, 0, 0), (0, 0, -90), (0, 0, 90), (0, 0, -180), (90, 0, 0))
DIE_SCALE = 1.0             # TTS's own size for a custom die: how its scale maps to mm is unknown


COMMON = {"AltLookAngle": {"x": 0.0, "y": 0.0, "z": 0.0},
          "ColorDiffuse": {"r": 0.713235259, "g": 0.713235259, "b": 0.713235259},
          "LayoutGroupSortIndex": 0, "Value": 0, "Locked": False, "Grid": True, "Snap": True,
          "IgnoreFoW": False, "MeasureMovement": False, "DragSelectable": True, "Autoraise": True,
          "Sticky": True, "Tooltip": True, "GridProjection": False}
WHITE = {"r": 1.0, "g": 1.0, "b": 1.0}      # a tile's tint colours its sides, a token's whole image
SCRIPT = {"LuaScript": "", "LuaScriptState": "", "XmlUI": ""}


def guid(*parts) -> str:
    """A stable 6-hex-digit GUID (what TTS writes) from the names that identify an object."""
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:6]


def transform(scale: float, face_down: bool = True, turn: float = 0.0) -> dict:
    return {"posX": 0.0, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0 + turn,
            "rotZ": 180.0 if face_down else 0.0, "scaleX": scale, "scaleY": 1.0, "scaleZ": scale}


# -- images -----------------------------------------------------------------------------------

def turned(shape: str) -> bool:
    """A pointy-top hex: its image is turned a quarter to TTS's flat-top hex."""
    return shape == "hex-pointy"


def piece_px(width_mm: float, height_mm: float) -> tuple[int, int]:
    """Pixel size of a piece's image (its trim box): up to 300 dpi, at most 4096 px a side,
    in the piece's proportions."""
    dpi = min(MAX_PIECE_DPI, MAX_PIECE_PX * 25.4 / max(width_mm, height_mm))
    return max(1, round(width_mm / 25.4 * dpi)), max(1, round(height_mm / 25.4 * dpi))


def shape_mask(shape: str, size: tuple[int, int]) -> Image.Image:
    """An 8-bit mask of the piece's outline in its box (255 inside), drawn at 4x and reduced so
    the edge is smooth: a Custom_Token's shape is its image's alpha."""
    from PIL import Image, ImageDraw

    from cardgen.model.components import outline

    k = 4
    w, h = size[0] * k, size[1] * k
    big = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(big)
    if shape == "round":
        draw.ellipse((0, 0, w - 1, h - 1), fill=255)
    elif shape.startswith(PATH):
        _draw_path(big, shape[len(PATH):])
    else:
        draw.polygon(outline(shape, 0, 0, w, h), fill=255)
    return big.resize(size, Image.Resampling.LANCZOS)


PATH = "path:"


def path_mask(outline: tuple) -> str:
    """The mask of a `path` piece's side: its outline (mm, `cardgen.model.svgpath`) as text."""
    from cardgen.model import svgpath

    return PATH + svgpath.to_d(outline)


def _draw_path(big: Image.Image, d: str) -> None:
    """Fill the outline `d` (mm, its box from 0, 0) into `big`, scaled to it; a subpath inside
    another is a hole (even-odd)."""
    from PIL import Image, ImageChops, ImageDraw

    from cardgen.model import svgpath

    path = svgpath.parse(d)
    _, _, bw, bh = svgpath.bounds(path)
    sx, sy = big.width / bw, big.height / bh
    for poly in svgpath.polygons(path, 0.02):
        layer = Image.new("L", big.size, 0)
        ImageDraw.Draw(layer).polygon([(x * sx, y * sy) for x, y in poly], fill=255)
        big.paste(ImageChops.difference(big, layer))


def finish(img: Image.Image, turn: bool, mask: str) -> Image.Image:
    """A piece's image as TTS gets it: turned a quarter (pointy-top hexes, counter-clockwise),
    transparent outside `mask` (a shape; "" keeps it opaque) with a transparent border around
    it (TTS's Knowledge Base: it helps the outline tracing)."""
    from PIL import Image

    if mask:
        img = img.convert("RGBA")
        img.putalpha(shape_mask(mask, img.size))
    if turn:
        img = img.transpose(Image.Transpose.ROTATE_90)
    if mask:
        pad = round(img.height * TOKEN_BORDER)
        framed = Image.new("RGBA", (img.width + 2 * pad, img.height + 2 * pad), (0, 0, 0, 0))
        framed.paste(img, (pad, pad))
        img = framed
    return img


# -- objects ----------------------------------------------------------------------------------

@dataclass
class Piece:
    """One kind of piece (an entry of a component file), with its image addresses."""

    kind: str              # token, tile or board
    shape: str             # rect, round, hex-flat, hex-pointy
    size_mm: tuple[float, float]
    name: str
    description: str
    tags: list[str]
    front: str             # image address
    back: str              # "" when one-sided (TTS shows the front on both sides)
    as_token: bool = False  # Custom_Token (alpha outline) instead of Custom_Tile
    tint: dict | None = None  # its colour ({r, g, b}), for the bag that hands it out
    notes: str = ""         # GMNotes: the entry's `notes` field
    values: tuple = ()      # a die's faces' values, faces 1 to 6 (its RotationValues)


def tint(value: object) -> dict | None:
    """A colour field (`#rrggbb`, a CSS name) as TTS's ColorDiffuse, or None if it is none."""
    from cardgen.core.units import UnitError, color

    try:
        rgba = color(value)
    except UnitError:
        return None
    return None if rgba is None else {k: round(v, 4) for k, v in zip("rgb", rgba)}


def scale(piece: Piece) -> float:
    """TTS scale of a tile or token: its image's height (the box's width for a turned hex) in
    table units, over what scale 1 gives; the same mm per unit as the decks."""
    depth = piece.size_mm[0] if turned(piece.shape) else piece.size_mm[1]
    if piece.as_token:
        depth *= 1 + 2 * TOKEN_BORDER     # the image's transparent border
    return round(depth * UNITS_PER_MM / UNITS_AT_SCALE_1, 4)


def _image(piece: Piece, shape_block: dict) -> dict:
    return {"ImageURL": piece.front, "ImageSecondaryURL": piece.back, "ImageScalar": 1.0, "WidthScale": 0.0,
            **shape_block}


def _base(piece: Piece, name: str, ident: str, locked: bool = False) -> dict:
    return {"GUID": ident, "Name": name,
            "Transform": transform(scale(piece), face_down=False, turn=90.0 if turned(piece.shape) else 0.0),
            "Nickname": piece.name, "Description": piece.description, "GMNotes": piece.notes,
            **COMMON, "ColorDiffuse": dict(WHITE), "Locked": locked, "Tags": list(piece.tags),
            "HideWhenFaceDown": False, "Hands": False}


def tile_or_token(piece: Piece, ident: str, stackable: bool = True) -> dict:
    """A token or tile: a Custom_Tile of its shape, or a Custom_Token (`tts: {object: token}`)."""
    if piece.as_token:
        block = {"CustomToken": {"Thickness": THICKNESS, "MergeDistancePixels": MERGE_DISTANCE,
                                 "Stackable": stackable, "StandUp": False}}
        return {**_base(piece, "Custom_Token", ident), "CustomImage": _image(piece, block), **SCRIPT}
    block = {"CustomTile": {"Type": TILE_TYPES.get(piece.shape, 0), "Thickness": THICKNESS, "Stackable": stackable,
                            "Stretch": True}}
    return {**_base(piece, "Custom_Tile", ident), "CustomImage": _image(piece, block), **SCRIPT}


def board(piece: Piece, ident: str) -> dict:
    """A board or mat: a Custom_Tile box, not stackable (as real mods make their mats)."""
    return tile_or_token(piece, ident, stackable=False)


def die(piece: Piece, ident: str) -> dict:
    """A die: a Custom_Dice (a d6) whose image holds its six faces (`D6_CELLS`), each face's
    value shown when it lands on top (`RotationValues`)."""
    obj = {**_base(piece, "Custom_Dice", ident), "CustomImage": _image(piece, {"CustomDice": {"Type": 1}})}
    obj["Transform"] = {**obj["Transform"], "scaleX": DIE_SCALE, "scaleY": DIE_SCALE, "scaleZ": DIE_SCALE}
    obj["RotationValues"] = [{"Value": value, "Rotation": dict(zip("xyz", (float(a) for a in rotation)))}
                             for value, rotation in zip(piece.values, D6_ROTATIONS)]
    return {**obj, **SCRIPT}


# the TTS object for each component kind: (piece, GUID) -> object
OBJECTS: dict[str, Callable[[Piece, str], dict]] = {"token": tile_or_token, "tile": tile_or_token, "board": board,
                                                    "die": die}


def bag(name: str, description: str, ident: str, tags: list[str], contents: list[dict], infinite: bool,
        colour: dict | None = None) -> dict:
    """A Bag holding `contents` (each an object of its own), or an Infinite_Bag holding one
    that it hands out without end; in the pieces' colour when they have one."""
    obj = {"GUID": ident, "Name": "Infinite_Bag" if infinite else "Bag",
           "Transform": transform(1.0, face_down=False), "Nickname": name, "Description": description,
           "GMNotes": "", **COMMON, "Tags": list(tags), "MaterialIndex": -1, "MeshIndex": -1,
           "HideWhenFaceDown": False, "Hands": False}
    if colour is not None:
        obj["ColorDiffuse"] = dict(colour)
    if not infinite:
        obj["Bag"] = {"Order": 0}
    return {**obj, "ContainedObjects": contents, **SCRIPT}


def component_objects(game_slug: str, deck_slug: str, deck_name: str, description: str,
                      pieces: list[tuple[Piece, int]], supply: bool, colour: dict | None = None,
                      words: Words = ENGLISH) -> list[dict]:
    """A component file's objects on the table: its pieces (each with its copies) in bags, a
    single piece by itself, boards each by itself; each carries `_size_mm` (its footprint) and
    `_group` for the table's layout."""
    pieces = [(p, n) for p, n in pieces if n > 0]
    if not pieces:
        return []
    kind = pieces[0][0].kind
    make = OBJECTS[kind]
    tags = [deck_name]
    if supply and kind != "board":
        text = "\n".join(t for t in (words("{deck}: take as many as you need", deck=deck_name), description) if t)
        return [{**bag(deck_name if len(pieces) == 1 else p.name, text,
                       guid(game_slug, deck_slug, i, "supply"), tags, [make(p, guid(game_slug, deck_slug, i, 0))],
                       infinite=True, colour=p.tint or colour), "_size_mm": BAG_SIZE_MM, "_group": "piece"}
                for i, (p, _) in enumerate(pieces)]
    copies = [(p, make(p, guid(game_slug, deck_slug, i, n))) for i, (p, count) in enumerate(pieces)
              for n in range(count)]
    if kind == "board" or len(copies) == 1:
        group = "board" if kind == "board" else "piece"
        # a piece without a description of its own says what the file's description says
        return [{**obj, "Description": obj["Description"] or description, "_size_mm": p.size_mm, "_group": group}
                for p, obj in copies]
    counts = ", ".join(f"{n} {p.name}" for p, n in pieces if n)
    text = "\n".join(t for t in (description, f"{len(copies)} pieces: {counts}") if t)
    return [{**bag(deck_name, text, guid(game_slug, deck_slug, "bag"), tags, [obj for _, obj in copies],
                   infinite=False, colour=colour or pieces[0][0].tint), "_size_mm": BAG_SIZE_MM, "_group": "piece"}]
