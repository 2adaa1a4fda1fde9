"""Fills and effects on a ReportLab canvas: gradient fills (PDF shadings, clipped to the
shape), drop shadows of shapes and text, and text outlines, all as vectors.

- A gradient is one PDF shading (axial or radial), clipped to the shape; its colours are
  all as opaque (`core.paint.stops`: a shading carries no opacity), that opacity the
  graphics state's.
- A shadow is the shape (filled, its outline included) or the text in the shadow's colour,
  moved by its offset. A blur widens it outwards by up to `blur` in `BLUR_STEPS` layers whose
  opacities add up to the shadow's own where the shape is, fading to nothing `blur` beyond
  its edge (vectors: no picture is made; the PDF/X flattens it like any translucency).
- An outline is a stroke of each glyph of twice its width, drawn under the glyphs, so the
  outline's width shows outside each letter and none of the letter is covered.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import FILL_EVEN_ODD

from cardgen.core import paint
from cardgen.model import ops

BLUR_STEPS = 16


def shape_path(c: Any, op: ops.Rect | ops.Ellipse | ops.Path, ox: float, oy: float) -> Any:
    """The outline of a shape, in canvas coordinates (trim top-left at (ox, oy))."""
    p = c.beginPath()
    if isinstance(op, ops.Path):
        p.moveTo(ox + op.points[0][0], oy - op.points[0][1])
        for px, py in op.points[1:]:
            p.lineTo(ox + px, oy - py)
        if op.closed:
            p.close()
        return p
    x, y = ox + op.x, oy - op.y - op.h
    if isinstance(op, ops.Ellipse):
        p.ellipse(x, y, op.w, op.h)
    elif op.radius > 0:
        p.roundRect(x, y, op.w, op.h, op.radius)
    else:
        p.rect(x, y, op.w, op.h)
    return p


def paint_box(op: ops.Rect | ops.Ellipse | ops.Path, ox: float, oy: float) -> tuple[float, float, float, float]:
    """The box a shape's gradient spans: (left, top, width, height), top in canvas coordinates."""
    x, y, w, h = ops.turn_box(op)
    return ox + x, oy - y, w, h


# -- gradients ---------------------------------------------------------------------------------

def _colour(c: Any, col: tuple[float, ...]) -> Any:
    """A colour for ReportLab (a CMYK canvas converts it: `rlcompat.CardCanvas._gradient_colours`
    for a gradient's, `enforceColorSpace` for the others)."""
    return Color(col[0], col[1], col[2])


def fill_gradient(c: Any, g: paint.Gradient, path: Any, box: tuple[float, float, float, float]) -> None:
    """Fill `path` with `g` spanning `box` (left, top, width, height; canvas coordinates)."""
    left, top, w, h = box
    st = g[3]
    if not (w > 0 and h > 0):       # (a shape with no area shows nothing: no shading with no length)
        return
    c.saveState()
    c.clipPath(path, stroke=0, fill=0)
    alpha = st[0][1][3]          # (the same for every colour: `paint.stops`)
    if alpha < 1:
        c.setFillAlpha(alpha)
    if g[0] == "linear":
        x0, y0, x1, y1 = paint.linear_ends(g, 0.0, 0.0, w, h)
        start, end = (left + x0, top - y0), (left + x1, top - y1)
        c.linearGradient(*start, *end, [_colour(c, col) for _, col in st], [t for t, _ in st], extend=True)
    else:
        rx, ry = paint.radial_radii(g, w, h)
        c.translate(left + w / 2, top - h / 2)
        if rx > 0 and ry > 0:
            c.scale(1.0, ry / rx)
        c.radialGradient(0, 0, max(rx, 1e-6), [_colour(c, col) for _, col in st], [t for t, _ in st], extend=True)
    c.restoreState()


# -- shadows -----------------------------------------------------------------------------------

def _layers(alpha: float, blur: float, parts: int = 1) -> list[tuple[float, float]]:
    """(how far beyond the edge, opacity) of each layer of a shadow: one without a blur; with
    one, `BLUR_STEPS` reaching further and further, as opaque as makes them together (each
    painted `parts` times) fade from the shadow's opacity at the edge to none `blur` beyond it
    (smoothly: 1 - smoothstep of the distance)."""
    if blur <= 0:
        return [(0.0, alpha)]
    n = BLUR_STEPS

    def cover(j: int) -> float:          # how opaque the shadow is between layers j - 1 and j
        if j > n:
            return 0.0
        t = (j - 0.5) / n
        return alpha * (1 - (3 * t * t - 2 * t ** 3))

    out = []
    for j in range(1, n + 1):
        clear = (1 - cover(j)) / (1 - cover(j + 1))
        out.append((blur * j / n, 1 - clear ** (1 / parts)))
    return out


def shape_shadow(d: Any, op: ops.Rect | ops.Ellipse | ops.Path, ox: float, oy: float) -> None:
    """The shadow of a shape, under it: what it paints (fill and outline), moved and blurred."""
    if op.shadow is None or not (op.fill or op.stroke):
        return
    dx, dy, blur, col = op.shadow
    c = d.c
    c.saveState()
    c.translate(dx, -dy)
    c.setFillColor(_colour(c, col))
    c.setStrokeColor(_colour(c, col))
    c.setLineJoin(1)
    c.setLineCap(1)
    spread = op.stroke_width / 2 if op.stroke else 0.0
    filled = bool(op.fill) and (not isinstance(op, ops.Path) or op.closed)
    if filled:
        c.setFillAlpha(col[3])
        c.drawPath(shape_path(c, op, ox, oy), stroke=0, fill=1)
        if spread <= 0 and blur <= 0:
            c.restoreState()
            return
        left, top, w, h = paint_box(op, ox, oy)
        m = spread + blur + 5
        outside = c.beginPath()
        outside.rect(left - m, top - h - m, w + 2 * m, h + 2 * m)
        _add(outside, shape_path(c, op, ox, oy))
        c.clipPath(outside, stroke=0, fill=0, fillMode=FILL_EVEN_ODD)
    for reach, alpha in _layers(col[3], blur):
        width = 2 * (spread + reach) if filled else op.stroke_width + 2 * reach
        if width <= 0:
            continue
        c.setStrokeAlpha(alpha)
        c.setLineWidth(width)
        c.drawPath(shape_path(c, op, ox, oy), stroke=1, fill=0)
    c.restoreState()


def _add(path: Any, other: Any) -> None:
    """`other`'s subpaths added to `path` (ReportLab keeps a path as its operators)."""
    path._code.extend(code for code in other._code if code != "n")


# -- text --------------------------------------------------------------------------------------

def _text_pass(d: Any, op: ops.Text, ox: float, oy: float, col: tuple[float, ...], mode: int,
               width: float, icons: bool) -> None:
    """`op`'s text drawn once more in `col`, in text render mode `mode` (0 fill, 1 stroke,
    2 both) with lines `width` wide; its themed icons too with `icons`."""
    runs = tuple(replace(r, color=col) for r in op.runs
                 if r.kind == "text" or (icons and r.color is not None))
    if not runs:
        return
    c = d.c
    c.saveState()
    c.setStrokeColor(_colour(c, col))
    if col[3] < 1:
        c.setStrokeAlpha(col[3])
    c.setLineWidth(width)
    c.setLineJoin(1)
    c.setLineCap(1)
    c._code.append(f"{mode} Tr")            # (text state: restored with the graphics state)
    d._text(replace(op, runs=runs, shadow=None, outline=None), ox, oy)
    c.restoreState()


def text_effects(d: Any, op: ops.Text, ox: float, oy: float) -> None:
    """What is drawn under a text: its shadow, then its outline."""
    if op.shadow is not None:
        dx, dy, blur, col = op.shadow
        grow = op.outline_width if op.outline else 0.0
        d.c.saveState()
        d.c.translate(dx, -dy)
        for reach, alpha in _layers(col[3], blur, 2):
            width = 2 * (grow + reach)
            _text_pass(d, op, ox, oy, (*col[:3], alpha), 2 if width > 0 else 0, width, True)
        d.c.restoreState()
    if op.outline is not None and op.outline_width > 0:
        _text_pass(d, op, ox, oy, op.outline, 1, 2 * op.outline_width, False)
