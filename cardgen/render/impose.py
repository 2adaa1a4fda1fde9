"""Sheet geometry, in millimetres with y growing downwards from the page's top-left.

Pure arithmetic: which grid fits, where each card's trim box sits, where the crop
marks go, where each back lands on the duplex page.  pdfout draws what this plans.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

PRINTER_MARGIN = 5.0     # the trimmed block stays this far inside the paper
UNPRINTABLE = 4.0        # home printers cannot print this close to the edge
MARK_LENGTH = 5.0        # preferred crop-mark length
MARK_GAP = 1.0           # gap between the outer bleed and a mark in the margin
MARK_CLEAR = 0.5         # marks stop this far from any card's trim

Rect = tuple[float, float, float, float]   # (x, y, w, h), mm


@dataclass(frozen=True)
class Grid:
    """Cards on a sheet of paper: how many fit, and where."""

    paper_w: float
    paper_h: float
    card_w: float
    card_h: float
    bleed: float
    cols: int
    rows: int
    gutter: bool            # True: every card keeps its bleed, cards spaced 2 x bleed apart
    x0: float               # trim left of column 0
    y0: float               # trim top of row 0
    rotated: bool = False   # cards turned 90 degrees (card_w/card_h are then the turned size)
    margin: float = PRINTER_MARGIN      # what the grid was fitted inside: the paper less this margin,
    area: Rect | None = None            # or this rectangle (a layout's `area`, a fold-over's half)

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    @property
    def pitch_x(self) -> float:
        return self.card_w + (2 * self.bleed if self.gutter else 0.0)

    @property
    def pitch_y(self) -> float:
        return self.card_h + (2 * self.bleed if self.gutter else 0.0)

    def cell(self, i: int) -> tuple[float, float]:
        """Trim top-left of cell i (row-major)."""
        r, c = divmod(i, self.cols)
        return self.x0 + c * self.pitch_x, self.y0 + r * self.pitch_y


class DoesNotFit(ValueError):
    pass


def _fit(paper_w: float, paper_h: float, card_w: float, card_h: float, bleed: float, gutter: bool,
         margin: float) -> tuple[int, int]:
    eps = 1e-6
    pad = 2 * bleed if gutter else 0.0
    cols = math.floor((paper_w - 2 * margin + eps) / (card_w + pad))
    rows = math.floor((paper_h - 2 * margin + eps) / (card_h + pad))
    return max(cols, 0), max(rows, 0)


def plan_grid(paper_w: float, paper_h: float, card_w: float, card_h: float, bleed: float, gutter: bool = False,
              margin: float = PRINTER_MARGIN, area: Rect | None = None) -> Grid:
    """The largest grid whose trimmed block (or, in gutter mode, bled block) fits inside `margin`,
    centred on the page; or, given an `area` (x, y, w, h), whose bled block fits inside that
    area, centred in it.

    Cards are turned 90 degrees when only that fits, or fits more (jumbo cards on Letter)."""
    if area is None:
        cols, rows = _fit(paper_w, paper_h, card_w, card_h, bleed, gutter, margin)
        rcols, rrows = _fit(paper_w, paper_h, card_h, card_w, bleed, gutter, margin)
    else:           # everything printed, the butted block's outer bleed too, stays inside the area
        inner = 0.0 if gutter else bleed
        cols, rows = _fit(area[2], area[3], card_w, card_h, bleed, gutter, inner)
        rcols, rrows = _fit(area[2], area[3], card_h, card_w, bleed, gutter, inner)
    rotated = rcols * rrows > cols * rows
    if rotated:
        cols, rows, card_w, card_h = rcols, rrows, card_h, card_w
    if cols < 1 or rows < 1:
        inside = f"inside a {margin:g} mm margin" if area is None else \
            f"inside the {area[2]:g}x{area[3]:g} mm area at {area[0]:g},{area[1]:g} mm"
        raise DoesNotFit(f"a {card_w:g}x{card_h:g} mm card does not fit on a {paper_w:g}x{paper_h:g} mm page "
                         f"{inside}")
    pad = 2 * bleed if gutter else 0.0
    block_w, block_h = cols * (card_w + pad), rows * (card_h + pad)
    if area is not None:
        x0 = area[0] + (area[2] - block_w) / 2 + pad / 2
        y0 = area[1] + (area[3] - block_h) / 2 + pad / 2
    elif gutter:
        x0 = (paper_w - block_w) / 2 + bleed
        y0 = (paper_h - block_h) / 2 + bleed
    else:
        x0 = (paper_w - cols * card_w) / 2
        y0 = (paper_h - rows * card_h) / 2
    return Grid(paper_w, paper_h, card_w, card_h, bleed, cols, rows, gutter, x0, y0, rotated, margin, area)


@dataclass(frozen=True)
class Spots:
    """Card places listed by a layout file (`cardgen.render.sheetlayout`): each card's trim
    top-left on the sheet (as it lies there) and its turn; a page is filled in this order."""

    paper_w: float
    paper_h: float
    card_w: float            # the card's own size, not turned
    card_h: float
    bleed: float
    places: tuple[tuple[float, float, int], ...]     # (x, y, rotation)
    gutter: bool = False     # no two cards share a cut line: every card keeps its full bleed
    rotated: bool = False

    @property
    def per_page(self) -> int:
        return len(self.places)

    def rect(self, i: int) -> Rect:
        x, y, turn = self.places[i]
        w, h = (self.card_h, self.card_w) if turn in (90, -90) else (self.card_w, self.card_h)
        return (x, y, w, h)




@dataclass(frozen=True)
class Slot:
    """One card's place on a sheet."""

    x: float                 # trim left
    y: float                 # trim top
    w: float
    h: float
    clip: Rect               # (x, y, w, h) of what is shown: trim plus bleed on open sides
    rotation: int = 0        # 0; 90 (card's top to the left), -90 (to the right), 180 (upside down)


def _clip_for(rect: Rect, others: list[Rect], bleed: float, gutter: bool) -> Rect:
    x, y, w, h = rect
    if gutter:
        return (x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed)

    def touches(dx: int, dy: int) -> bool:
        for ox, oy, ow, oh in others:
            if dx and abs(oy - y) < 1e-6 and abs((ox - (x + w)) if dx > 0 else ((ox + ow) - x)) < 1e-6:
                return True
            if dy and abs(ox - x) < 1e-6 and abs((oy - (y + h)) if dy > 0 else ((oy + oh) - y)) < 1e-6:
                return True
        return False

    left = 0.0 if touches(-1, 0) else bleed
    right = 0.0 if touches(1, 0) else bleed
    top = 0.0 if touches(0, -1) else bleed
    bottom = 0.0 if touches(0, 1) else bleed
    return (x - left, y - top, w + left + right, h + top + bottom)


def slots(grid: Frame, n: int) -> list[Slot]:
    """Slots for the first n cells of a page; butted cards show bleed only on open sides."""
    if isinstance(grid, Poster):        # one sheet of a board: the board's one slot
        return [grid.slot()][:n]
    if isinstance(grid, Shelves):       # each piece with its own bleed
        return [Slot(x, y, w, h, (x - b, y - b, w + 2 * b, h + 2 * b)) for x, y, w, h, b in grid.places[:n]]
    if isinstance(grid, Mixed):         # a shared sheet: each part as on a page of its own (no two touch)
        return [s for frame, k in grid.parts for s in slots(frame, k)][:n]
    if isinstance(grid, Spots):
        rects = [grid.rect(i) for i in range(n)]
        turns = [grid.places[i][2] for i in range(n)]
    else:
        rects = [(*grid.cell(i), grid.card_w, grid.card_h) for i in range(n)]
        turns = [90 if grid.rotated else 0] * n
    out = []
    for i, r in enumerate(rects):
        others = rects[:i] + rects[i + 1:]
        out.append(Slot(*r, _clip_for(r, others, grid.bleed, grid.gutter), turns[i]))
    return out


def back_slots(grid: Frame, faces: list[Slot], flip: str = "long",
               offset: tuple[float, float] = (0.0, 0.0)) -> list[Slot]:
    """Where each face's back goes on the following page so it lands behind its face.

    Long-edge flip mirrors left-right, short-edge flip mirrors top-bottom; `offset`
    (mm, x right and y down) corrects a printer's front-to-back drift."""
    dx, dy = offset
    out = []
    for s in faces:
        if flip == "long":
            x, y = grid.paper_w - s.x - s.w, s.y
            cx, cy, cw, ch = s.clip
            clip = (grid.paper_w - cx - cw, cy, cw, ch)
        else:
            x, y = s.x, grid.paper_h - s.y - s.h
            cx, cy, cw, ch = s.clip
            clip = (cx, grid.paper_h - cy - ch, cw, ch)
        # The back must be what you see turning the cut card over like a book page. Turning the
        # sheet over its long edge does that for upright cards; a card turned 90 degrees on the
        # sheet needs its back turned the other way. Turning the sheet over its short edge puts
        # an upright card's back upside down, so the back is drawn turned 180 degrees.
        rotation = -s.rotation if flip == "long" else (180 - s.rotation) % 360
        rotation = rotation - 360 if rotation > 180 else rotation
        out.append(Slot(x + dx, y + dy, s.w, s.h, (clip[0] + dx, clip[1] + dy, clip[2], clip[3]), rotation))
    return out


@dataclass(frozen=True)
class Mark:
    """A crop mark: a line on the sheet."""

    x1: float
    y1: float
    x2: float
    y2: float
    halo: bool              # drawn over bleed: white underlay so it shows on any colour


def crop_marks(grid: Frame, page_slots: list[Slot], cross_bleed: bool = True, others: tuple[Rect, ...] = ()
               ) -> list[Mark]:
    """Marks extending every cut line outward from each card corner.

    A mark stops MARK_CLEAR short of any other card's trim and at the unprintable
    edge.  Where there is room it starts beyond the bleed (+MARK_GAP); where there is
    not (Letter's 6.35 mm above a 3x3 poker block) it starts MARK_CLEAR outside the
    trim and crosses the outer bleed, drawn with a white halo so it shows on any
    background.  With `cross_bleed` False (fold-over sheets) a mark never touches any card's
    bleed: it stops MARK_GAP short of every other card's bleed too, and where there is no
    room for 2 mm of it, that end of the cut line has none.  `others` (x, y, w, h: the bled boxes
    of other pieces on a shared sheet) stop marks as a card's trim does."""
    rects = [(s.x, s.y, s.w, s.h) for s in page_slots]
    obstacles = rects + list(others)
    marks: dict[tuple[float, ...], Mark] = {}
    clear = MARK_CLEAR if cross_bleed else grid.bleed + MARK_GAP
    for x, y, w, h in rects:
        corners = [((x, y), (0, -1)), ((x, y), (-1, 0)), ((x + w, y), (0, -1)), ((x + w, y), (1, 0)),
                   ((x, y + h), (0, 1)), ((x, y + h), (-1, 0)), ((x + w, y + h), (0, 1)), ((x + w, y + h), (1, 0))]
        for (px, py), (dx, dy) in corners:
            span = _mark_span(_room(px, py, dx, dy, obstacles, grid.paper_w, grid.paper_h, clear), grid.bleed,
                              cross_bleed)
            if span is None:
                continue
            start, end, halo = span
            m = Mark(px + dx * start, py + dy * start, px + dx * end, py + dy * end, halo)
            key = tuple(round(v, 3) for v in (min(m.x1, m.x2), min(m.y1, m.y2), max(m.x1, m.x2), max(m.y1, m.y2)))
            marks.setdefault(key, m)
    return [marks[k] for k in sorted(marks)]


def _room(px: float, py: float, dx: int, dy: int, rects: list[tuple[float, float, float, float]], pw: float,
          ph: float, clear: float) -> float:
    """Free distance from (px, py) going (dx, dy) before another trim (less `clear`) or the
    edge limit of a `pw` x `ph` paper."""
    eps = 1e-6
    if dx < 0:
        limit = px - UNPRINTABLE
    elif dx > 0:
        limit = pw - UNPRINTABLE - px
    elif dy < 0:
        limit = py - UNPRINTABLE
    else:
        limit = ph - UNPRINTABLE - py
    for rx, ry, rw, rh in rects:
        if dx:
            if ry - eps <= py <= ry + rh + eps:
                d = (rx - px) if dx > 0 else (px - (rx + rw))
                if d >= -eps:
                    limit = min(limit, d - clear)
        else:
            if rx - eps <= px <= rx + rw + eps:
                d = (ry - py) if dy > 0 else (py - (ry + rh))
                if d >= -eps:
                    limit = min(limit, d - clear)
    return limit


def _mark_span(free: float, bleed: float, cross_bleed: bool) -> tuple[float, float, bool] | None:
    """Where a mark with `free` room starts and ends (from the corner) and whether it needs a
    halo; None when there is no room for one."""
    start = bleed + MARK_GAP
    halo = False
    if not cross_bleed:
        end = min(free, start + MARK_LENGTH)
        if end - start < 2.0:
            return None
    elif free - start < 3.0:
        start, halo = MARK_CLEAR, True
        end = min(free, MARK_CLEAR + bleed + MARK_LENGTH)
    else:
        end = min(free, start + MARK_LENGTH)
    if end - start < 1.0:
        return None
    return start, end, halo


# -- shaped pieces: hexes tessellated, and pieces larger than the paper ----------------------

def plan_hexes(paper_w: float, paper_h: float, w: float, h: float, bleed: float, shape: str,
               margin: float = PRINTER_MARGIN) -> Spots:
    """Hex pieces (box w x h, `shape` hex-flat or hex-pointy) tessellated on the page: their bleed
    hexes butt, so neighbours' cut lines are 2 x bleed apart (with no bleed they share them), at
    the pitch `model.components.tessellation` gives; the block centred inside `margin`."""
    from cardgen.model.components import SQRT3, tessellation

    px, py, stagger, axis = tessellation(shape, w, h, bleed)
    bw = w + (4 * bleed / SQRT3 if shape == "hex-flat" else 2 * bleed)     # the bleed hex's box
    bh = h + (2 * bleed if shape == "hex-flat" else 4 * bleed / SQRT3)
    room_w, room_h = paper_w - 2 * margin, paper_h - 2 * margin
    eps = 1e-6

    def count(room: float, pitch: float, size: float) -> int:
        return max(0, math.floor((room - size + eps) / pitch) + 1) if room + eps >= size else 0

    if axis == "x":         # columns staggered down by half a row
        cols = count(room_w, px, bw)
        rows = count(room_h - stagger, py, bh) if cols > 1 else count(room_h, py, bh)
        block_w, block_h = (cols - 1) * px + bw, (rows - 1) * py + bh + (stagger if cols > 1 else 0)
    else:                   # rows staggered right by half a column
        rows = count(room_h, py, bh)
        cols = count(room_w - stagger, px, bw) if rows > 1 else count(room_w, px, bw)
        block_w, block_h = (cols - 1) * px + bw + (stagger if rows > 1 else 0), (rows - 1) * py + bh
    if cols < 1 or rows < 1:
        raise DoesNotFit(f"a {w:g}x{h:g} mm hex does not fit on a {paper_w:g}x{paper_h:g} mm page inside a "
                         f"{margin:g} mm margin")
    left = (paper_w - block_w) / 2 + (bw - w) / 2       # trim box of the first piece
    top = (paper_h - block_h) / 2 + (bh - h) / 2
    places = []
    for r in range(rows):
        for c in range(cols):
            x, y = left + c * px, top + r * py
            if axis == "x" and c % 2:
                y += stagger
            if axis == "y" and r % 2:
                x += stagger
            places.append((x, y, 0))
    # with a bleed, no two pieces share a cut (their bleeds butt); without, neighbours share cuts
    return Spots(paper_w, paper_h, w, h, bleed, tuple(places), gutter=bleed > 0)


POSTER_SIDE = 6.0            # a board tile's printed area stays this far inside the paper's left, right, top
POSTER_FOOT = 16.0           # and this far above its foot: the label and the assembly map go there


@dataclass(frozen=True)
class Poster:
    """One sheet of a piece larger than the paper (a board), printed across rows x cols sheets
    that overlap by `overlap` mm.  The piece lies turned 90 degrees when that takes fewer sheets.
    In the piece's bleed box as it lies (origin at its top-left bleed corner, `lw` x `lh` with
    bleed), this sheet shows [tx, tx + area_w] x [ty, ty + area_h], at (POSTER_SIDE, POSTER_SIDE)."""

    paper_w: float
    paper_h: float
    card_w: float            # the piece as it lies on the sheet (turned when `rotated`)
    card_h: float
    bleed: float
    row: int
    col: int
    rows: int
    cols: int
    overlap: float
    rotated: bool = False

    @property
    def area_w(self) -> float:
        return self.paper_w - 2 * POSTER_SIDE

    @property
    def area_h(self) -> float:
        return self.paper_h - POSTER_SIDE - POSTER_FOOT

    @property
    def lw(self) -> float:
        return self.card_w + 2 * self.bleed

    @property
    def lh(self) -> float:
        return self.card_h + 2 * self.bleed

    @property
    def tx(self) -> float:
        return self.col * (self.area_w - self.overlap)

    @property
    def ty(self) -> float:
        return self.row * (self.area_h - self.overlap)

    @property
    def per_page(self) -> int:
        return 1

    @property
    def gutter(self) -> bool:
        return True

    def to_sheet(self, x: float, y: float) -> tuple[float, float]:
        """A point of the piece's bleed box (as it lies) on this sheet."""
        return POSTER_SIDE + x - self.tx, POSTER_SIDE + y - self.ty

    def slot(self) -> Slot:
        x, y = self.to_sheet(self.bleed, self.bleed)
        clip = (POSTER_SIDE, POSTER_SIDE, min(self.area_w, self.lw - self.tx), min(self.area_h, self.lh - self.ty))
        return Slot(x, y, self.card_w, self.card_h, clip, 90 if self.rotated else 0)

    def shown(self) -> Rect:
        """What this sheet shows of the piece's bleed box (x, y, w, h as it lies)."""
        return (self.tx, self.ty, min(self.area_w, self.lw - self.tx), min(self.area_h, self.lh - self.ty))

    def trim_segments(self) -> list[tuple[float, float, float, float]]:
        """The parts of the piece's trim (its cut line, in the bleed box as it lies) this sheet shows."""
        sx, sy, sw, sh = self.shown()
        b, right, foot = self.bleed, self.lw - self.bleed, self.lh - self.bleed
        x0, x1 = max(sx, b), min(sx + sw, right)
        y0, y1 = max(sy, b), min(sy + sh, foot)
        out = []
        for y in (b, foot):
            if sy - 1e-6 <= y <= sy + sh + 1e-6 and x1 > x0:
                out.append((x0, y, x1, y))
        for x in (b, right):
            if sx - 1e-6 <= x <= sx + sw + 1e-6 and y1 > y0:
                out.append((x, y0, x, y1))
        return out

    def alignment_points(self) -> list[tuple[float, float]]:
        """Where this sheet prints its alignment crosses, in the piece's bleed box: in the middle
        of each overlap it shares with a neighbour, a quarter and three quarters along it.  Its
        neighbour prints the same points, so laid over each other the crosses meet."""
        sx, sy, sw, sh = self.shown()
        out = []
        for c0 in (self.col - 1, self.col):          # the overlap with the left and right neighbours
            if 0 <= c0 < self.cols - 1:
                x = (c0 + 1) * (self.area_w - self.overlap) + self.overlap / 2
                out += [(x, sy + sh * f) for f in (0.25, 0.75)]
        for r0 in (self.row - 1, self.row):
            if 0 <= r0 < self.rows - 1:
                y = (r0 + 1) * (self.area_h - self.overlap) + self.overlap / 2
                out += [(sx + sw * f, y) for f in (0.25, 0.75)]
        return out


@dataclass(frozen=True)
class Shelves:
    """Round pieces of several sizes sharing a page: rows ("shelves") filled left to right, each
    piece with its own bleed ring (so no two touch, whatever their backs); `places` are the
    trim rectangles (x, y, w, h) and bleeds, in the order the page's copies come."""

    paper_w: float
    paper_h: float
    places: tuple[tuple[float, float, float, float, float], ...]     # (x, y, w, h, bleed)

    gutter: ClassVar[bool] = True
    rotated: ClassVar[bool] = False

    @property
    def per_page(self) -> int:
        return len(self.places)

    @property
    def bleed(self) -> float:
        return max((p[4] for p in self.places), default=0.0)

    @property
    def card_w(self) -> float:
        """The largest piece's width (for a title: the pieces differ)."""
        return max((p[2] for p in self.places), default=0.0)

    @property
    def card_h(self) -> float:
        return max((p[3] for p in self.places), default=0.0)


def pack_shelves(paper_w: float, paper_h: float, pieces: list[tuple[float, float, float]],
                 margin: float = PRINTER_MARGIN) -> list[Shelves]:
    """Pages of `pieces` (trim width, height, bleed; in order), each with its bleed, packed in
    rows inside `margin`: a piece goes on the current row if it fits, else starts the next row,
    else the next page.  Each page's block is centred."""
    room_w, room_h = paper_w - 2 * margin, paper_h - 2 * margin
    eps = 1e-6
    pages: list[list[tuple[float, float, float, float, float]]] = []
    page: list = []
    row_y, row_h, x = 0.0, 0.0, 0.0
    for w, h, b in pieces:
        bw, bh = w + 2 * b, h + 2 * b
        if bw > room_w + eps or bh > room_h + eps:
            raise DoesNotFit(f"a {w:g}x{h:g} mm piece does not fit on a {paper_w:g}x{paper_h:g} mm page inside a "
                             f"{margin:g} mm margin")
        if x + bw > room_w + eps:               # the next row
            row_y, row_h, x = row_y + row_h, 0.0, 0.0
        if row_y + bh > room_h + eps:           # the next page
            pages.append(page)
            page, row_y, row_h, x = [], 0.0, 0.0, 0.0
        page.append((x + b, row_y + b, w, h, b))
        x += bw
        row_h = max(row_h, bh)
    if page:
        pages.append(page)
    out = []
    for pg in pages:
        block_w = max(px + w + b for px, _, w, _, b in pg)
        block_h = max(py + h + b for _, py, _, h, b in pg)
        dx, dy = (paper_w - block_w) / 2, (paper_h - block_h) / 2
        out.append(Shelves(paper_w, paper_h, tuple((px + dx, py + dy, w, h, b) for px, py, w, h, b in pg)))
    return out


@dataclass(frozen=True)
class Mixed:
    """A sheet shared by several arrangements (`cardgen.render.packing`): each part a frame and how
    many of the page's copies, in order, it holds.  No part touches another: each keeps its bleed
    clear of the others' bleed, so pieces of any backs may share the sheet."""

    paper_w: float
    paper_h: float
    parts: tuple[tuple[Frame, int], ...]

    gutter: ClassVar[bool] = False
    rotated: ClassVar[bool] = False

    @property
    def per_page(self) -> int:
        return sum(k for _, k in self.parts)

    @property
    def bleed(self) -> float:
        return max((f.bleed for f, _ in self.parts), default=0.0)

    @property
    def card_w(self) -> float:
        """The first part's card (for a title: the parts differ)."""
        return self.parts[0][0].card_w

    @property
    def card_h(self) -> float:
        return self.parts[0][0].card_h


Frame = Grid | Spots | Poster | Shelves | Mixed     # where the cards of one page go (a Poster: one sheet of a board)


def _spans(length: float, area: float, overlap: float) -> int:
    return 1 if length <= area + 1e-6 else math.ceil((length - overlap) / (area - overlap) - 1e-9)


def plan_poster(paper_w: float, paper_h: float, w: float, h: float, bleed: float, overlap: float) -> list[Poster]:
    """The sheets of a piece w x h (trim) too large for the page, row by row: the fewest of the
    piece upright or turned 90 degrees.  Columns = ceil((W - o) / (A - o)) with W its width with
    bleed, A the printed width of a sheet and o the overlap; rows likewise."""
    area_w, area_h = paper_w - 2 * POSTER_SIDE, paper_h - POSTER_SIDE - POSTER_FOOT
    if overlap >= min(area_w, area_h) / 2:
        raise DoesNotFit(f"an overlap of {overlap:g} mm is more than half of the {area_w:g}x{area_h:g} mm a "
                         f"{paper_w:g}x{paper_h:g} mm sheet prints")
    best = None
    for rotated in (False, True):
        cw, ch = (h, w) if rotated else (w, h)
        cols = _spans(cw + 2 * bleed, area_w, overlap)
        rows = _spans(ch + 2 * bleed, area_h, overlap)
        if best is None or cols * rows < best[0] * best[1]:
            best = (cols, rows, cw, ch, rotated)
    assert best is not None
    cols, rows, cw, ch, rotated = best
    return [Poster(paper_w, paper_h, cw, ch, bleed, r, c, rows, cols, overlap, rotated)
            for r in range(rows) for c in range(cols)]
