"""A six-sided die's paper net and how it folds: plain arithmetic (mm, y down from the net's
top-left), no drawing (docs/components.md, "Dice").

The net is a cross: four squares in a column (faces 2, 1, 5, 6 from the top) and an arm on
each side of the second (face 3 on the left, 4 on the right), so that faces i and 7 - i are
opposite once folded and faces 1, 2 and 3 run counterclockwise round their shared corner (a
"right-handed" die, as Western dice are).  The 14 outer edges meet in 7 joints; each joint has
one glue tab, on the edge whose tab lies in the cross's empty corners (or, for the joint of the
column's two ends, above the top square), so that no tab overlaps another or a face.

`fold()` folds any net of unit squares about their shared edges, for the tests and for anyone
checking a net: it gives each square's outward normal and the direction its art's top points to.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cardgen.schema.components import DIE_FACES, MIN_STICKER, STICKER_INSET

__all__ = ["DIE_FACES", "FACE_CELLS", "MIN_STICKER", "STICKER_INSET", "DieNet", "Folded", "Tab", "fold", "handedness",
           "sticker_side"]

Seg = tuple[float, float, float, float]         # x1, y1, x2, y2
Vec = tuple[float, float, float]

# Where each face lies on the net: (column, row) of its square, in units of the die's edge.
FACE_CELLS: dict[int, tuple[int, int]] = {2: (1, 0), 3: (0, 1), 1: (1, 1), 4: (2, 1), 5: (1, 2), 6: (1, 3)}


def sticker_side(edge: float, inset: float | None) -> float:
    """A die's sticker: its face less the inset on each side."""
    return edge - 2 * (STICKER_INSET if inset is None else inset)


@dataclass(frozen=True)
class Tab:
    """A glue tab: folded along `base` (an outer edge of face `face`), glued under the edge of
    face `partner` that meets it; `points` its outline (the base's ends and the two outer corners)."""

    face: int
    partner: int
    base: Seg
    points: tuple[tuple[float, float], ...]


# The 7 joints of the cross: (face with the tab, its edge, the face it is glued under).  Edges
# are named by the side of the face's square: top, bottom, left, right.
JOINTS: tuple[tuple[int, str, int], ...] = (
    (2, "left", 3), (2, "right", 4),        # the top square's sides under the arms' tops
    (5, "left", 3), (5, "right", 4),        # the third square's sides under the arms' feet
    (6, "left", 3), (6, "right", 4),        # the foot square's sides under the arms' outer ends
    (2, "top", 6),                          # the column's two ends
)


@dataclass(frozen=True)
class DieNet:
    """The net of a die with edge `edge` mm and glue tabs `tab` mm deep (their ends cut at 45
    degrees).  The net's box is 3 edges wide and 4 edges plus a tab high (the tab above face 2)."""

    edge: float
    tab: float

    @classmethod
    def for_edge(cls, edge: float) -> DieNet:
        """The net of a die of `edge` mm: tabs a quarter of the edge deep, at most 7 mm."""
        return cls(edge, min(0.25 * edge, 7.0))

    @property
    def width(self) -> float:
        return 3 * self.edge

    @property
    def height(self) -> float:
        return 4 * self.edge + self.tab

    def square(self, face: int) -> tuple[float, float, float, float]:
        """Face `face`'s square on the net: (x, y, w, h)."""
        col, row = FACE_CELLS[face]
        a = self.edge
        return col * a, self.tab + row * a, a, a

    def edge_of(self, face: int, side: str) -> Seg:
        """One side of a face's square, clockwise round the square (so a tab's outline turns the
        same way on every side)."""
        x, y, a, _ = self.square(face)
        return {"top": (x, y, x + a, y), "right": (x + a, y, x + a, y + a),
                "bottom": (x + a, y + a, x, y + a), "left": (x, y + a, x, y)}[side]

    def tabs(self) -> list[Tab]:
        out = []
        for face, side, partner in JOINTS:
            x1, y1, x2, y2 = self.edge_of(face, side)
            ux, uy = (x2 - x1) / self.edge, (y2 - y1) / self.edge     # along the edge, clockwise
            nx, ny = uy, -ux                                            # outwards (left of clockwise: y is down)
            t = self.tab
            points = ((x1, y1), (x1 + t * (ux + nx), y1 + t * (uy + ny)),
                      (x2 + t * (nx - ux), y2 + t * (ny - uy)), (x2, y2))
            out.append(Tab(face, partner, (x1, y1, x2, y2), points))
        return out

    def folds(self) -> list[Seg]:
        """The dashed lines: the five edges between faces, and every tab's base."""
        a, t = self.edge, self.tab
        inner = [(a, t + a, 2 * a, t + a),          # 2 | 1
                 (a, t + 2 * a, 2 * a, t + 2 * a),  # 1 | 5
                 (a, t + 3 * a, 2 * a, t + 3 * a),  # 5 | 6
                 (a, t + a, a, t + 2 * a),          # 3 | 1
                 (2 * a, t + a, 2 * a, t + 2 * a)]  # 1 | 4
        return inner + [tab.base for tab in self.tabs()]

    def cuts(self) -> list[Seg]:
        """The solid lines: the net's outline, round every tab."""
        tabbed = {(face, side) for face, side, _ in JOINTS}
        out: list[Seg] = []
        tabs = {(tb.face, tb.base): tb for tb in self.tabs()}
        for face, side in _OUTER:
            seg = self.edge_of(face, side)
            if (face, side) in tabbed:
                pts = tabs[(face, seg)].points
                out += [(*pts[i], *pts[i + 1]) for i in range(len(pts) - 1)]
            else:
                out.append(seg)
        return out


# The 14 outer edges of the cross, by face and side.
_OUTER: tuple[tuple[int, str], ...] = (
    (2, "top"), (2, "right"), (4, "top"), (4, "right"), (4, "bottom"), (5, "right"), (6, "right"),
    (6, "bottom"), (6, "left"), (5, "left"), (3, "bottom"), (3, "left"), (3, "top"), (2, "left"))


def _sub(a: Vec, b: Vec) -> Vec:
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


def _cross(a: Vec, b: Vec) -> Vec:
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


def _dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@dataclass(frozen=True)
class Folded:
    """Where a square of the net lies once folded: its top-left corner and the 3-D directions
    of the net's x (right) and y (down) on it, in edges.  The paper starts in the plane z = 0,
    printed side towards -z; folds bend the paper towards +z."""

    origin: Vec
    ex: Vec
    ey: Vec

    @property
    def normal(self) -> Vec:
        """The printed side's direction: -(ex x ey)."""
        n = _cross(self.ex, self.ey)
        return -n[0], -n[1], -n[2]

    @property
    def up(self) -> Vec:
        """Where the top of the square's art points to."""
        return -self.ey[0], -self.ey[1], -self.ey[2]

    @property
    def centre(self) -> Vec:
        return self.at(0.5, 0.5)

    def at(self, x: float, y: float) -> Vec:
        """A point of the square (x, y in edges from its top-left) in 3-D."""
        o, ex, ey = self.origin, self.ex, self.ey
        return o[0] + x * ex[0] + y * ey[0], o[1] + x * ex[1] + y * ey[1], o[2] + x * ex[2] + y * ey[2]

    def neighbour(self, dc: int, dr: int) -> Folded:
        """The square next to this one (dc, dr one of the four unit steps), folded 90 degrees
        about their shared edge, away from the printed side (a face or a glue tab)."""
        n = _cross(self.ex, self.ey)                 # towards +z for the flat paper: the fold's way
        back = (-n[0], -n[1], -n[2])
        if dc == 1:
            return Folded(self.at(1, 0), n, self.ey)
        if dr == 1:
            return Folded(self.at(0, 1), self.ex, n)
        o = _sub(self.origin, back)                  # left or up: the square starts one edge "behind"
        return Folded(o, back, self.ey) if dc == -1 else Folded(o, self.ex, back)


def fold(cells: Mapping[int, tuple[int, int]]) -> dict[int, Folded]:
    """Fold a net of unit squares (`cells`: face -> (column, row), the squares edge to edge)
    about every edge two squares share, starting from the first face's square (in the plane
    z = 0): where each face lies once folded.  A square not joined to the first is missing."""
    by_cell = {cell: face for face, cell in cells.items()}
    first = next(iter(cells))
    out = {first: Folded((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))}
    todo = [first]
    while todo:
        face = todo.pop(0)
        c, r = cells[face]
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            other = by_cell.get((c + dc, r + dr))
            if other is not None and other not in out:
                out[other] = out[face].neighbour(dc, dr)
                todo.append(other)
    return out


def handedness(folded: Mapping[int, Folded]) -> str:
    """"right" when faces 1, 2 and 3 run counterclockwise round their shared corner, seen from
    outside the die (as on Western dice), "left" when clockwise, "none" when they share none."""
    n1, n2, n3 = (folded[i].normal for i in (1, 2, 3))
    det = _dot(_cross(n1, n2), n3)
    return "right" if det > 0.5 else "left" if det < -0.5 else "none"
