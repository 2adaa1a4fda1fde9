"""Drawing operations: what layout produces and draw consumes.

All positions are in points, relative to the card's trim box top-left corner, with y
growing downwards (as in templates).  Colours are (r, g, b, a) tuples or None.
"""
from __future__ import annotations

import math
import operator
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path as FilePath
from typing import Any

from cardgen.core.digest import digest, file_digest, plain_digest
from cardgen.core.images import shown

Colour = tuple[float, ...]   # (r, g, b, a), each 0..1
Dash = tuple[float, ...]     # dash pattern in points; () for a solid line
Box = tuple[float, float, float, float]   # (x, y, w, h)
Paint = tuple        # a colour, or a gradient (`cardgen.core.paint`: a plain tuple)
Shadow = tuple       # (dx, dy, blur, colour) in points (`cardgen.core.paint`)


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle drawn in the box (x, y, w, h), in points from the card's top left."""

    x: float
    y: float
    w: float
    h: float
    fill: Paint | None = None
    stroke: Colour | None = None
    stroke_width: float = 0.0
    radius: float = 0.0
    dash: Dash = ()
    rotate: float = 0.0
    shadow: Shadow | None = None


@dataclass(frozen=True, slots=True)
class Ellipse:
    """An ellipse filling the box (x, y, w, h)."""

    x: float
    y: float
    w: float
    h: float
    fill: Paint | None = None
    stroke: Colour | None = None
    stroke_width: float = 0.0
    dash: Dash = ()
    rotate: float = 0.0
    shadow: Shadow | None = None


@dataclass(frozen=True, slots=True)
class Line:
    """A straight line from (x1, y1) to (x2, y2)."""

    x1: float
    y1: float
    x2: float
    y2: float
    stroke: Colour = (0, 0, 0, 1)
    stroke_width: float = 0.5
    dash: Dash = ()
    rotate: float = 0.0

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        x, y = min(self.x1, self.x2), min(self.y1, self.y2)
        return x, y, abs(self.x2 - self.x1), abs(self.y2 - self.y1)


@dataclass(frozen=True, slots=True)
class Path:
    """A polygon or polyline through `points` ((x, y) pairs); `box` is what it turns about."""

    points: tuple[tuple[float, float], ...]
    closed: bool = True
    fill: Paint | None = None
    stroke: Colour | None = None
    stroke_width: float = 0.0
    dash: Dash = ()
    rotate: float = 0.0
    box: Box = (0.0, 0.0, 0.0, 0.0)
    shadow: Shadow | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """A piece of text or an inline icon at its baseline position."""

    x: float
    baseline: float
    kind: str            # "text" or "icon"
    content: str | FilePath  # the text, or the icon's file
    font: str            # ReportLab font name (text) or "" (icon)
    size: float          # font size; for icons the icon's height
    color: Colour | None
    width: float = 0.0
    tracking: float = 0.0    # letter spacing: points after each character
    # a shaped run's glyphs that its characters do not draw (a ligature, a joining form), as the
    # code points that draw them (`cardgen.render.glyphs`, plane 16): what the PDF's subsets need
    glyphs: str = ""


class _RunDraft:
    """A `Run` being made by `new_run`: the same slots, in the same order, but assignable."""

    __slots__ = Run.__slots__


def new_run(x: float, baseline: float, kind: str, content: str | FilePath, font: str, size: float,
            color: Colour | None, width: float = 0.0, tracking: float = 0.0, glyphs: str = "") -> Run:
    """`Run(...)` with positional fields, made about four times quicker (the text engine makes
    one per word, 15,000 for 500 cards; the layout cache's sides are decoded into them): a
    frozen class's `__init__` sets each field through `object.__setattr__`, which costs a
    quarter of a microsecond a field; here each is stored in a draft with the same slots, which
    then becomes the `Run` (a class of the same layout may be given to an object). The result
    is a `Run` like any other: frozen, equal and hashing as one made by `Run(...)` (tested)."""
    r: Any = _RunDraft()
    r.x = x
    r.baseline = baseline
    r.kind = kind
    r.content = content
    r.font = font
    r.size = size
    r.color = color
    r.width = width
    r.tracking = tracking
    r.glyphs = glyphs
    r.__class__ = Run
    return r


@dataclass(frozen=True, slots=True)
class Text:
    """Set text in the box (x, y, w, h): its runs at their baselines."""

    x: float
    y: float
    w: float
    h: float
    runs: tuple[Run, ...]
    size: float                 # the size finally used (after shrinking)
    overflow: bool = False
    rotate: float = 0.0
    element: str = ""           # the template element's name, for messages
    shadow: Shadow | None = None
    outline: Colour | None = None    # a line around each glyph, outside it
    outline_width: float = 0.0


@dataclass(frozen=True, slots=True)
class Image:
    """A picture file drawn in the box (x, y, w, h), fitted."""

    path: FilePath
    x: float                    # where the image is drawn (after fitting)
    y: float
    w: float
    h: float
    clip: Box | None = None     # (x, y, w, h) box to clip to, for `cover`
    rotate: float = 0.0
    box: Box | tuple[()] = ()   # the element's box, for rotation
    opacity: float = 1.0


@dataclass(frozen=True, slots=True)
class Icon:
    """An icon file drawn in the box (x, y, w, h)."""

    path: FilePath
    x: float
    y: float
    w: float
    h: float
    color: Colour | None = None
    rotate: float = 0.0
    opacity: float = 1.0


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A labelled box drawn where art is to come."""

    x: float
    y: float
    w: float
    h: float
    label: str
    rotate: float = 0.0


Boxed = Rect | Ellipse | Text | Image | Icon | Placeholder   # operations with a box (x, y, w, h)
_BOXED = frozenset((Rect, Ellipse, Text, Image, Icon, Placeholder))
Op = Boxed | Line | Path


@dataclass
class CardLayout:
    """One side of one card, ready to draw."""

    width: float                 # trim width, pt
    height: float                # trim height, pt
    bleed: float                 # pt
    ops: list[Op] = field(default_factory=list)
    key: str = ""                # stable id (deck slug, card index, side)
    shape: str = "rect"
    stamp: list[int] = field(default_factory=list)   # indices of the ops that show game.version or
    #                                                  card.revision (left out of the side's content hash)
    outline: tuple = ()          # shape `path`: the outline as this side shows it (a back's mirrored),
    #                              mm from the trim's top-left (`cardgen.model.svgpath`)


@dataclass
class Copy:
    """One printed copy: its face, its back (or None) and which deck it belongs to."""

    face: CardLayout
    back: CardLayout | None
    deck: str
    width: float      # mm
    height: float     # mm
    bleed: float      # mm
    sticker: bool = False   # a die's face: printed one-sided, on pages of their own after the rest


# -- geometry -------------------------------------------------------------------
def turn_box(op: Op) -> Box:
    """The box an operation turns about (its centre stays put)."""
    if isinstance(op, Line):
        return op.bounds
    if isinstance(op, Path):
        if any(op.box):
            return op.box
        xs, ys = [p[0] for p in op.points], [p[1] for p in op.points]
        return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)
    if isinstance(op, Image) and len(op.box) == 4:
        return op.box
    return op.x, op.y, op.w, op.h


def extent(op: Op) -> tuple[float, float, float, float]:
    """Where an operation draws (x0, y0, x1, y1; trim top-left origin, y down), rotation
    included; outline widths and text overflowing its box aside."""
    if not op.rotate and type(op) in _BOXED:       # (most: the box's corners, as below)
        x, y, x1, y1 = op.x, op.y, op.x + op.w, op.y + op.h      # type: ignore[union-attr]
        return min(x, x1), min(y, y1), max(x, x1), max(y, y1)
    if isinstance(op, Line):
        pts = [(op.x1, op.y1), (op.x2, op.y2)]
    elif isinstance(op, Path):
        pts = list(op.points)
    else:
        pts = [(op.x, op.y), (op.x + op.w, op.y), (op.x, op.y + op.h), (op.x + op.w, op.y + op.h)]
    if op.rotate and pts:
        bx, by, bw, bh = turn_box(op)
        cx, cy = bx + bw / 2, by + bh / 2
        a = math.radians(op.rotate)
        cos, sin = math.cos(a), math.sin(a)
        # counter-clockwise on the page is clockwise in these y-down coordinates
        pts = [(cx + (px - cx) * cos + (py - cy) * sin, cy - (px - cx) * sin + (py - cy) * cos) for px, py in pts]
    if not pts:
        return 0.0, 0.0, 0.0, 0.0
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def layout_digest(layout: CardLayout, font_files: Mapping[str, FilePath],
                  files_seen: dict[str, str] | None = None, encoded: tuple | None = None,
                  dumped: bytes | None = None) -> str:
    """Content hash of one laid-out card side: its size, shape and drawing operations, and
    the content of every font (`font_files`: ReportLab font name -> file), icon and image file
    they use.  Equal digests draw equal pictures.  Worked out once per layout (a finished
    layout is not changed). `files_seen`: the files' digests as first found by this caller
    (the layout engine's, for one pass over the cards: each file's status looked up once,
    not once a side).  The operations are hashed as the layout cache packs them
    (`encode_ops`, plain tuples that keep every field, by `plain_digest`: a
    few times cheaper than their `repr`); `encoded`: that, if the caller has it already, and
    `dumped` its `plain_bytes` (what the layout cache packs)."""
    done = layout.__dict__.get("_digest")
    if done is not None:
        return str(done)
    if encoded is None:
        encoded = encode_ops(layout.ops)
    drawn = plain_digest(encoded, dumped) or digest(layout.ops)
    files: set[str] = set()
    fonts: set[str] = set()
    for op in layout.ops:
        path = getattr(op, "path", None)
        if path is not None:
            files.add(str(path))
        if isinstance(op, Text):
            for r in op.runs:
                if r.kind == "icon":
                    files.add(str(r.content))
                else:
                    fonts.add(r.font)
    seen = files_seen if files_seen is not None else {}

    def of(path: str) -> str:
        got = seen.get(path)
        if got is None:
            got = seen[path] = file_digest(FilePath(path))
        return got

    font_digests = []
    for name in sorted(fonts):
        path = font_files.get(name)
        font_digests.append((name, of(str(path)) if path else ""))
    done = digest(layout.width, layout.height, layout.bleed, layout.shape, drawn,
                  [(f, of(f)) for f in sorted(files)], font_digests)
    layout.__dict__["_digest"] = done
    return done


# -- what drawing a side needs ---------------------------------------------------------------
def is_svg(path: object) -> bool:
    """Is this image or icon file an SVG (drawn as vectors, not placed as pixels)?"""
    return str(path)[-4:].lower() == ".svg"


@dataclass(frozen=True, slots=True)
class Needs:
    """What drawing one card side into a PDF uses besides its operations: the characters it
    sets in each font (ReportLab font name; `PLACEHOLDER_FONT` for its placeholders' labels,
    whose font the drawing picks), the SVG files it draws as forms ((path, themed), in the
    order it draws them) and the PNG and JPEG files it shows (in order).  Plain values, so a
    cache can keep them (`cardgen.layout.cache`) and a rebuild need not decode the sides it
    does not draw."""
    chars: tuple[tuple[str, str], ...]
    svgs: tuple[tuple[str, bool], ...]
    rasters: tuple[str, ...]
    # each raster's box (w, h in pt, then the part of it shown if not all: `core.images.shown`)
    # where it is a picture drawn at the output's resolution (`render.art`), (0, 0) for an icon
    # drawn from its file as it is
    boxes: tuple[tuple[float, ...], ...] = ()
    # (font, text) of each text run drawn with glyphs no character of it draws (`Run.glyphs`: a
    # ligature), in order: what a reused form says to its fonts (`render.draw.Drawer._name_glyphs`)
    shaped: tuple[tuple[str, str], ...] = ()

    def plain(self) -> tuple:
        return self.chars, self.svgs, self.rasters, self.boxes, self.shaped

    @classmethod
    def from_plain(cls, value: object) -> Needs | None:
        """`plain` undone; None for anything `plain` does not make."""
        if not (isinstance(value, tuple) and len(value) == 5 and all(isinstance(v, tuple) for v in value)):
            return None
        chars, svgs, rasters, boxes, shaped = value
        # (loops, not `all` over generators: a rebuild checks every kept side's, 2,000 at 2,000 cards)
        for group in (chars, shaped):
            for c in group:
                if not (isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str) and isinstance(c[1], str)):
                    return None
        for sv in svgs:
            if not (isinstance(sv, tuple) and len(sv) == 2 and isinstance(sv[0], str) and type(sv[1]) is bool):
                return None
        for r in rasters:
            if not isinstance(r, str):
                return None
        if len(boxes) != len(rasters):
            return None
        for b in boxes:
            if not (isinstance(b, tuple) and len(b) in (2, 6)):
                return None
            for v in b:
                if type(v) is not float:
                    return None
        return cls(chars, svgs, rasters, boxes, shaped)


PLACEHOLDER_FONT = ""


def needs(layout: CardLayout) -> Needs:
    """What drawing `layout` needs (`Needs`), worked out once per side (kept as `_needs`)."""
    done = layout.__dict__.get("_needs")
    if done is not None:
        return done
    chars: dict[str, set[str]] = {}
    svgs: list[tuple[str, bool]] = []
    rasters: list[str] = []
    boxes: list[tuple[float, ...]] = []
    shaped: list[tuple[str, str]] = []

    def file(path: object, themed: bool, box: tuple[float, ...] = (0.0, 0.0)) -> None:
        if is_svg(path):
            svgs.append((str(path), themed))
        else:
            rasters.append(str(path))
            boxes.append(box)

    for op in layout.ops:
        if isinstance(op, Icon):
            file(op.path, op.color is not None)
        elif isinstance(op, Image):
            file(op.path, False, shown(op.x, op.y, op.w, op.h, op.clip))
        elif isinstance(op, Text):
            for r in op.runs:
                if r.kind == "text":
                    chars.setdefault(r.font, set()).update(str(r.content), r.glyphs)
                    if r.glyphs:
                        shaped.append((r.font, str(r.content)))
                elif r.kind == "icon":
                    file(r.content, r.color is not None)
        elif isinstance(op, Placeholder):
            chars.setdefault(PLACEHOLDER_FONT, set()).update(op.label)
    done = Needs(tuple(sorted((font, "".join(sorted(cs))) for font, cs in chars.items())), tuple(svgs),
                 tuple(rasters), tuple(boxes), tuple(shaped))
    layout.__dict__["_needs"] = done
    return done


def _plain_reprs() -> None:
    """The `repr` of this module's dataclasses without the guard `dataclasses` wraps it in
    against a value that holds itself (which these never do: they hold numbers, text, paths and
    tuples of them): the same text, about a third faster, for `core.digest.digest` of them
    (`layout_digest` hashes a side's encoded operations instead, where it can)."""
    for value in list(globals().values()):
        if isinstance(value, type) and value.__module__ == __name__ and is_dataclass(value):
            inner = getattr(value.__dict__.get("__repr__"), "__wrapped__", None)
            if inner is not None:
                value.__repr__ = inner      # type: ignore[method-assign]


_plain_reprs()


# -- drawing operations as plain tuples (the layout cache packs them: `layout.cache.pack_ops`) --

_KINDS = (Rect, Ellipse, Line, Path, Text, Image, Icon, Placeholder)
_TAG = {cls: i for i, cls in enumerate(_KINDS)}
_GET = {cls: operator.attrgetter(*(f.name for f in fields(cls))) for cls in (*_KINDS, Run)}
_RUNS = [f.name for f in fields(Text)].index("runs")
_FILE = {Image: [f.name for f in fields(Image)].index("path"),
         Icon: [f.name for f in fields(Icon)].index("path")}
_CONTENT = [f.name for f in fields(Run)].index("content")


def _run_tuple(run: Run) -> tuple:
    t = _GET[Run](run)
    if isinstance(run.content, FilePath):
        t = (*t[:_CONTENT], os.fsencode(run.content), *t[_CONTENT + 1:])
    return t


def encode_ops(layout: list[Op]) -> tuple:
    """Drawing operations as plain tuples (`marshal` keeps them exactly: ints stay ints);
    file paths as bytes, which no other field holds."""
    out = []
    for op in layout:
        cls = type(op)
        t = list(_GET[cls](op))
        if cls is Text:
            t[_RUNS] = tuple(_run_tuple(r) for r in t[_RUNS])
        elif cls in _FILE:
            t[_FILE[cls]] = os.fsencode(t[_FILE[cls]])
        out.append((_TAG[cls], *t))
    return tuple(out)
