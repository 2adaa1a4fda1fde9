"""Flows: set text (and anything drawn with it) cut into strips that go down frames and pages.

A strip is one slice of a flow that is never split: a line of a paragraph (`strips`), a table
row, a heading. Strips carry what pagination needs to know: the space above them (dropped at
the top of a frame), whether they stay with the next one (`keep`: no widow or orphan line, a
heading with its text), a header to set again at the top of a frame (`repeat`). `flow` places
them down frames of given heights, and a paragraph cut at a frame's foot goes on in the next
frame at the line after the last one placed, its lines as they were set.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from cardgen.model import ops
from cardgen.text.typeset import SetText

EPS = 0.01          # points: what counts as fitting exactly


def shift(op, dx: float, dy: float):
    """A drawing operation moved by (dx, dy); an operation of another kind moves itself with
    its `shifted(dx, dy)` method, or has `x` and `y`."""
    if isinstance(op, ops.Text):
        runs = tuple(replace(r, x=r.x + dx, baseline=r.baseline + dy) for r in op.runs)
        return replace(op, x=op.x + dx, y=op.y + dy, runs=runs)
    if isinstance(op, ops.Line):
        return replace(op, x1=op.x1 + dx, y1=op.y1 + dy, x2=op.x2 + dx, y2=op.y2 + dy)
    moved = getattr(op, "shifted", None)
    if moved is not None:
        return moved(dx, dy)
    return replace(op, x=op.x + dx, y=op.y + dy)


@dataclass
class Strip:
    """A slice of a flow: `ops` relative to (the column's left, the strip's top)."""

    h: float
    ops: list = field(default_factory=list)
    space: float = 0.0          # space above it, dropped at the top of a frame
    keep: bool = False          # keep in the same frame as the next strip
    anchor: str | None = None   # a top-level section starts here (for the contents)
    heading: bool = False       # a heading: never the last thing in a frame
    repeat: Strip | None = None  # set again above this strip when it starts a frame (a table's header)


def strips(text: SetText, x: float, w: float) -> list[Strip]:
    """Set text as one strip per line (lines holding only a forced break give none): each strip
    as tall as the space from its line's top to the next line's, its runs relative to its top.
    A line's top is half the leading's extra above its ascent."""
    size = text.size
    lead = text.leading * size
    pad = (lead - (text.ascent + text.descent) * size) / 2
    lines = [ln for ln in text.lines if ln.runs]
    tops = [round(ln.baseline, 4) - text.ascent * size - pad for ln in lines]
    out = []
    for i, ln in enumerate(lines):
        top = tops[i]
        h = (tops[i + 1] - top) if i + 1 < len(tops) else lead
        mine = tuple(replace(r, baseline=r.baseline - top) for r in ln.runs)
        out.append(Strip(h, [ops.Text(x, 0.0, w, h, mine, size)]))
    return out


def merge(parts: list[Strip]) -> Strip:
    """Several strips as one that never splits."""
    out = Strip(0.0)
    for s in parts:
        out.ops.extend(shift(op, 0, out.h) for op in s.ops)
        out.h += s.h
    return out


def inset(parts: list[Strip], top: float, bottom: float) -> list[Strip]:
    """`top` more space inside the first strip (its content moved down) and `bottom` below the last."""
    if parts:
        first = parts[0]
        parts[0] = Strip(first.h + top, [shift(op, 0, top) for op in first.ops], first.space, first.keep,
                         first.anchor, first.heading)
        parts[-1].h += bottom
    return parts


def keep_lines(parts: list[Strip]) -> list[Strip]:
    """No single first or last line of a paragraph alone in a frame (no orphan, no widow)."""
    if len(parts) >= 2:
        parts[0].keep = True
        parts[-2].keep = True
    return parts


Placed = list[tuple[float, Strip]]     # a frame's strips, each with its top


def flow(parts: list[Strip], height: float | Sequence[float]) -> list[Placed]:
    """Place strips down frames: [[(y, strip), ...] per frame]. `height`: every frame's height,
    or the heights of the first frames, the last one repeated for the frames after them.

    A run of strips joined by `keep` moves to the next frame as a whole when it does not fit;
    a run taller than a frame is split where it must, but never right after a heading."""
    heights = (float(height),) if isinstance(height, (int, float)) else tuple(height)
    frames: list[Placed] = [[]]

    def room(k: int) -> float:
        return heights[min(k, len(heights) - 1)]

    y = 0.0
    i = 0
    while i < len(parts):
        j = i
        while parts[j].keep and j + 1 < len(parts):   # the group kept together
            j += 1
        group = parts[i:j + 1]
        alone = group[0].h + sum(s.space + s.h for s in group[1:])     # at the top of a frame
        if group[0].repeat is not None:
            alone += group[0].repeat.h                                  # under its table's header
        here = room(len(frames) - 1)
        if alone <= room(len(frames)) + EPS and (
                (frames[-1] and y + group[0].space + alone > here + EPS)
                or (not frames[-1] and alone > here + EPS)):     # (a frame smaller than the next: left empty)
            frames.append([])
            y = 0.0
            here = room(len(frames) - 1)
        if (not frames[-1] and alone <= here + EPS) or (frames[-1] and y + group[0].space + alone
                                                        - (group[0].repeat.h if group[0].repeat else 0.0)
                                                        <= here + EPS):
            for s in group:
                y = place(frames[-1], s, y)
        else:
            for s in group:      # taller than a frame: split it
                if frames[-1] and y + (s.space if frames[-1] else 0.0) + s.h > room(len(frames) - 1) + EPS:
                    carry: list[Strip] = []
                    while frames[-1] and frames[-1][-1][1].heading:     # a heading goes with what follows
                        carry.insert(0, frames[-1].pop()[1])
                    frames.append([])
                    y = 0.0
                    for c in carry:
                        y = place(frames[-1], c, y)
                y = place(frames[-1], s, y)
        i = j + 1
    if len(heights) == 1:
        return [p for p in frames if p] or [[]]
    while len(frames) > 1 and not frames[-1]:
        frames.pop()
    return frames          # (a frame left empty keeps its place: the frames' heights go by their order)


def place(frame: Placed, s: Strip, y: float) -> float:
    """Put `s` in `frame` below `y` (its space dropped at the top of the frame, a table's header
    set again above a row that starts the frame); the new bottom."""
    if not frame and s.repeat is not None:
        frame.append((0.0, s.repeat))
        y = s.repeat.h
    space = s.space if frame else 0.0
    frame.append((y + space, s))
    return y + space + s.h


def fill(placed: Placed, height: float) -> float:
    """How much of a frame `height` tall the placed strips take (0 to 1)."""
    return max((y + s.h for y, s in placed), default=0.0) / height
