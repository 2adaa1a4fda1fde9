"""Sheets used well: the free room of a sheet takes the pieces of another, so fewer are printed.

`render.pdf.plan_sheets` gives each card size and shape pages of their own, which leaves many
sheets part empty: a deck's last few cards, the player aid alone, a row of tokens.  `fill` then
goes through the pages from the last one back, and moves a page's copies into the free room of
the other pages when all of them fit there (else the page stays as it was):

- the free room of a page laid out on a grid is the rest of its last row, and the strip below
  it once the page's block is moved up to the top of where it was fitted (the paper less its
  margin, or a layout's area or a fold-over's front half); of a page of round pieces, the strip
  below its last shelf;
- each batch of moved copies is laid out in a room as on a page of its own (`impose`): cards in
  a grid, butted when they share one back, else with a gutter; round pieces in shelves; hexes
  tessellated.  A batch is laid out at the top of its room, and what is left below it takes the
  next batch.

Dice's stickers (printed one-sided on sticker paper) share sheets only with each other.

A room begins where the printed bleed of what is already on the page ends, and a batch keeps
its own bleed inside the room: nothing moved touches anything else on the sheet, so pieces of
any backs may share it (a miscut shows a sliver of paper, never another back).  The page
becomes an `impose.Mixed`, its slots those of its parts; its backs are mirrored slot by slot
like any page's (`impose.back_slots`), and its crop marks are drawn part by part, each stopping
short of the other parts' bleed (`render.pdf.page_ticks`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from cardgen.model.components import HEXES
from cardgen.model.ops import Copy
from cardgen.render import impose
from cardgen.render.backs import back_groups

Page = tuple[impose.Frame, list[Copy]]
Batch = tuple[impose.Frame, int, float]         # (where the copies go, how many, height used from the room's top)
MIN_ROOM = 10.0         # mm: a room narrower or lower than this is not offered (no piece is that small)


@dataclass
class _Host:
    """A page that may take others' copies: its own arrangement moved up to the top of its bounds,
    its free rooms, and what it took."""

    frame: impose.Frame
    copies: list[Copy]
    rooms: list[impose.Rect]
    parts: list[tuple[impose.Frame, list[Copy]]] = field(default_factory=list)


def _bounds(frame: impose.Grid | impose.Shelves, margin: float) -> impose.Rect:
    """Where the page's pieces, bleed included, may go."""
    if isinstance(frame, impose.Grid):
        if frame.area is not None:
            return frame.area
        margin = frame.margin
    return (margin, margin, frame.paper_w - 2 * margin, frame.paper_h - 2 * margin)


def _rooms(rooms: list[impose.Rect]) -> list[impose.Rect]:
    return [r for r in rooms if r[2] >= MIN_ROOM and r[3] >= MIN_ROOM]


def _grid_host(g: impose.Grid, copies: list[Copy]) -> _Host:
    """The rest of the last row (from where the last card's bleed ends, below where the row
    above's bleed ends) and the strip below the last row, with the block at the top."""
    bx, by, bw, bh = _bounds(g, 0.0)
    b = g.bleed
    g = replace(g, y0=min(g.y0, by + b))               # moved up, never down
    last, used = divmod(len(copies) - 1, g.cols)
    top = g.y0 + last * g.pitch_y                       # the last row's trim top
    rooms = []
    if used + 1 < g.cols:
        above = top - g.pitch_y + g.card_h + b if last else by
        x = g.x0 + used * g.pitch_x + g.card_w + b
        rooms.append((x, above, bx + bw - x, min(top + g.card_h + b, by + bh) - above))
    below = top + g.card_h + b
    rooms.append((bx, below, bw, by + bh - below))
    return _Host(g, copies, _rooms(rooms))


def _shelves_host(s: impose.Shelves, copies: list[Copy], margin: float) -> _Host:
    """The strip below the last shelf, the shelves moved up to the top."""
    bx, by, bw, bh = _bounds(s, margin)
    dy = min(0.0, by - min(y - b for _, y, _, _, b in s.places))
    s = impose.Shelves(s.paper_w, s.paper_h, tuple((x, y + dy, w, h, b) for x, y, w, h, b in s.places))
    below = max(y + h + b for _, y, _, h, b in s.places)
    return _Host(s, copies, _rooms([(bx, below, bw, by + bh - below)]))


def _host(frame: impose.Frame, copies: list[Copy], margin: float) -> _Host | None:
    if isinstance(frame, impose.Grid) and copies:
        return _grid_host(frame, copies)
    if isinstance(frame, impose.Shelves) and copies:
        return _shelves_host(frame, copies, margin)
    return None


def _stock(copies: list[Copy]) -> bool:
    """Printed on sticker paper (dice's stickers, one-sided): such pages share only with each other."""
    return all(cp.sticker for cp in copies)


def _kind(frame: impose.Frame, copies: list[Copy]) -> str | None:
    """How a page's copies are laid out in a room: "grid", "round" (shelves), "hex"; None: they
    stay where they are (a board's sheet, a shared sheet, places a layout lists)."""
    if not copies:
        return None
    shape = copies[0].face.shape
    if isinstance(frame, impose.Shelves) or (isinstance(frame, impose.Grid) and shape == "round"):
        return "round"
    if isinstance(frame, impose.Grid):
        return "grid"
    if isinstance(frame, impose.Spots) and shape in HEXES and all(cp.face.shape == shape for cp in copies):
        return "hex"
    return None


def _grid_batch(room: impose.Rect, copies: list[Copy], paper: tuple[float, float], butt: bool) -> Batch | None:
    """The first copies in a grid in `room` (turned if more fit), at its top: butted when `butt`."""
    cp = copies[0]
    try:
        g = impose.plan_grid(*paper, cp.width, cp.height, cp.bleed, not butt, area=room)
    except impose.DoesNotFit:
        return None
    k = min(len(copies), g.per_page)
    rows = math.ceil(k / g.cols)
    g = replace(g, rows=rows, y0=room[1] + cp.bleed)
    return g, k, rows * g.pitch_y + (0.0 if g.gutter else 2 * cp.bleed)


def _round_batch(room: impose.Rect, copies: list[Copy], paper: tuple[float, float]) -> Batch | None:
    """The first round pieces that fit in `room`, in shelves (`impose.pack_shelves`), at its top."""
    rx, ry, rw, rh = room
    pieces = []
    for cp in copies:
        if cp.width + 2 * cp.bleed > rw + 1e-6 or cp.height + 2 * cp.bleed > rh + 1e-6:
            break
        pieces.append((cp.width, cp.height, cp.bleed))
    if not pieces:
        return None
    shelf = impose.pack_shelves(rw, rh, pieces, 0.0)[0]
    top = min(y - b for _, y, _, _, b in shelf.places)
    places = tuple((x + rx, y - top + ry, w, h, b) for x, y, w, h, b in shelf.places)
    used = max(y + h + b for _, y, _, h, b in places) - ry
    return impose.Shelves(*paper, places), shelf.per_page, used


def _hex_batch(room: impose.Rect, copies: list[Copy], paper: tuple[float, float]) -> Batch | None:
    """The first hexes tessellated in `room` (`impose.plan_hexes`); they take the whole room."""
    rx, ry, rw, rh = room
    cp = copies[0]
    try:
        sp = impose.plan_hexes(rw, rh, cp.width, cp.height, cp.bleed, cp.face.shape, 0.0)
    except impose.DoesNotFit:
        return None
    places = tuple((x + rx, y + ry, t) for x, y, t in sp.places)
    return (impose.Spots(*paper, sp.card_w, sp.card_h, sp.bleed, places, sp.gutter),
            min(len(copies), sp.per_page), rh)


def _batch(kind: str, room: impose.Rect, copies: list[Copy], paper: tuple[float, float], mix: bool) -> Batch | None:
    if kind == "round":
        return _round_batch(room, copies, paper)
    if kind == "hex":
        return _hex_batch(room, copies, paper)
    butt = copies[0].face.shape == "rect" and (mix or len(back_groups(copies)) == 1)
    return _grid_batch(room, copies, paper, butt)


def _spread(kind: str, copies: list[Copy], hosts: list[tuple[int, _Host]], paper: tuple[float, float],
            mix: bool) -> dict[int, tuple[list[impose.Rect], list[tuple[impose.Frame, list[Copy]]]]] | None:
    """Where all of `copies` go in the hosts' rooms, in order: for each host taking some, its
    rooms after and its new parts; None when they do not all fit."""
    out = {}
    left = copies
    for i, host in hosts:
        rooms, parts = list(host.rooms), []
        j = 0
        while j < len(rooms) and left:
            batch = _batch(kind, rooms[j], left, paper, mix)
            if batch is None:
                j += 1
                continue
            frame, k, used = batch
            parts.append((frame, left[:k]))
            left = left[k:]
            x, y, w, h = rooms[j]
            rooms[j:j + 1] = _rooms([(x, y + used, w, h - used)])
        if parts:
            out[i] = (rooms, parts)
        if not left:
            return out
    return None


def _holds(w: float, h: float, sizes: tuple[tuple[float, float, float], ...]) -> bool:
    """Whether a room `w` x `h` takes one piece of some size (width, height, bleed) in `sizes`,
    as `impose.plan_grid` lays it out in an area (its trim and bleed inside, turned or not;
    a little more lenient than it)."""
    eps = 1e-3
    return any((cw + 2 * b <= w + eps and ch + 2 * b <= h + eps) or (ch + 2 * b <= w + eps and cw + 2 * b <= h + eps)
               for cw, ch, b in sizes)


def _may_fit(kind: str, copies: list[Copy], d: int, hosts: list[_Host | None], stock: list[bool],
             usable: dict[tuple[int, tuple], float], pools: dict[tuple[bool, tuple], float]) -> bool:
    """False when `copies` (page `d`'s) laid out in a grid cannot fit into the other hosts'
    rooms (those of its stock): each takes at least its trim in a room that holds a whole
    piece, and no two overlap, so their trims' area is more than those rooms' (a full sheet of
    a large deck: `_spread` would try every room of every sheet for nothing; the strips beside
    and below a full sheet's block hold no card).  `usable`: each host's area of such rooms by
    the pieces' sizes; `pools`: the sum of them over every host of a stock (a page of a large
    deck asks about every other page: summed once, not once a page).  Both kept by the caller,
    and dropped for hosts whose rooms change."""
    if kind != "grid":
        return True
    sizes = tuple(sorted({(cp.width, cp.height, cp.bleed) for cp in copies}))

    def area(i: int, host: _Host) -> float:
        got = usable.get((i, sizes))
        if got is None:
            got = usable[(i, sizes)] = sum(w * h for _, _, w, h in host.rooms if _holds(w, h, sizes))
        return got

    pool = pools.get((stock[d], sizes))
    if pool is None:
        pool = pools[(stock[d], sizes)] = sum(area(i, h) for i, h in enumerate(hosts)
                                              if h is not None and stock[i] == stock[d])
    own = hosts[d]
    rooms = pool - (area(d, own) if own is not None else 0.0)
    return sum(cp.width * cp.height for cp in copies) <= rooms + 1e-6


def fill(pages: list[Page], margin: float, mix_backs: bool = False) -> tuple[list[Page], int]:
    """The pages with every page whose copies fit into the others' free room moved there (see
    the module's doc), and how many pages that saves.  `margin`: what pages of round pieces were
    fitted inside; `mix_backs`: cards of different backs may be butted."""
    if not pages:
        return pages, 0
    paper = (pages[0][0].paper_w, pages[0][0].paper_h)
    hosts = [_host(frame, copies, margin) for frame, copies in pages]
    stock = [_stock(copies) for _, copies in pages]      # (a host's own copies: its page's)
    gone = [False] * len(pages)
    took = [False] * len(pages)
    usable: dict[tuple[int, tuple], float] = {}        # (`_may_fit`)
    pools: dict[tuple[bool, tuple], float] = {}
    for d in reversed(range(len(pages))):
        kind = _kind(*pages[d])
        if kind is None or took[d]:
            continue
        copies = pages[d][1]
        if kind == "round":         # the largest first: small ones fill the gaps the large leave
            copies = sorted(copies, key=lambda cp: -max(cp.width, cp.height) - 2 * cp.bleed)
        if not _may_fit(kind, copies, d, hosts, stock, usable, pools):
            continue
        others = [(i, h) for i, h in enumerate(hosts)
                  if h is not None and i != d and not gone[i] and stock[i] == stock[d]]
        spread = _spread(kind, copies, others, paper, mix_backs)
        if spread is None:
            continue
        gone[d] = True
        hosts[d] = None
        pools.clear()
        for i, (rooms, parts) in spread.items():
            host = hosts[i]
            assert host is not None
            host.rooms = rooms
            for key in [k for k in usable if k[0] == i]:
                del usable[key]
            host.parts += parts
            took[i] = True
    out: list[Page] = []
    for i, page in enumerate(pages):
        host = hosts[i]
        if gone[i]:
            continue
        if not took[i] or host is None:
            out.append(page)
            continue
        parts = [(host.frame, host.copies), *host.parts]
        out.append((impose.Mixed(*paper, tuple((f, len(c)) for f, c in parts)), [cp for _, c in parts for cp in c]))
    return out, sum(gone)
