"""Transparency taken out of a card side, for PDF/X-1a (which forbids it): every translucent
drawing operation becomes an opaque one that looks the same.

For each translucent operation the card is rendered twice (PDFium, at `SAMPLE_DPI`): what is
under it (the operations before it) and where it paints (the operation alone, in black).

- A shape, line, text or themed icon whose translucent colours lie on one flat colour (a
  white 40 % frame on a plain back) gets opaque colours mixed with that colour: it stays
  vector art, exactly as it looked.
- Anything else (a translucent image, an SVG with opacity inside, a translucent shape over
  art or over a gradient of shapes) is replaced by a picture, at `RASTER_DPI`, of the card
  drawn up to and including it, cut to where it paints: what is under it is in the picture,
  so it is exact, and whatever comes after it is still drawn on top as before.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageStat

from cardgen.core.images import open_path, restrict
from cardgen.core.paint import is_gradient
from cardgen.core.paint import translucent as translucent_paint
from cardgen.model import ops
from cardgen.resources.fonts import FontBook

restrict()      # (before ReportLab reads an image: cardgen.core.images)

SAMPLE_DPI = 100
RASTER_DPI = 300
FLAT = 3                 # a backdrop is one colour when no channel varies by more than this (of 255)
_BLACK = (0.0, 0.0, 0.0, 1.0)


def _clear(col: Any) -> bool:
    """A translucent colour or gradient."""
    return translucent_paint(col)


# What an SVG's text holds if anything in it can be translucent for svglib (opacity of any kind,
# colours with alpha, images, references to other files, entities, CSS imports); lower case
_MAYBE_CLEAR = (b"opacity", b"rgba", b"hsla", b"transparent", b"image", b"href", b"<!doctype", b"<!entity",
                b"import")
_ALPHA_HEX = re.compile(rb"#(?:[0-9a-f]{4}|[0-9a-f]{8})(?![0-9a-f])")


def _plainly_opaque(path: Path) -> bool:
    """An SVG whose text names nothing that can be translucent (`_MAYBE_CLEAR`, a colour of 4
    or 8 hex digits): opaque without parsing it (svglib and ReportLab's graphics, a tenth of a
    second to import, for a one-card edit's icons).  False: look inside."""
    try:
        data = Path(path).read_bytes().lower()
    except OSError:
        return False
    return b"\0" not in data and not any(t in data for t in _MAYBE_CLEAR) and _ALPHA_HEX.search(data) is None


@lru_cache(maxsize=256)
def svg_is_translucent(path: Path) -> bool:
    """An SVG with opacity, translucent colours or raster images inside."""
    return not _plainly_opaque(path) and _parsed_translucent(path)


def _parsed_translucent(path: Path) -> bool:
    """`svg_is_translucent`, by svglib's drawing of the file."""
    from reportlab.graphics import shapes

    from cardgen.resources.icons import load_svg

    def walk(node: Any) -> bool:
        if isinstance(node, shapes.Image):
            return True
        for attr in ("fillOpacity", "strokeOpacity"):
            v = getattr(node, attr, None)
            if v is not None and v < 1:
                return True
        for attr in ("fillColor", "strokeColor"):
            c = getattr(node, attr, None)
            if c is not None and getattr(c, "alpha", 1) is not None and getattr(c, "alpha", 1) < 1:
                return True
        return any(walk(child) for child in getattr(node, "contents", ()) or ())

    try:
        return walk(load_svg(Path(path)))
    except Exception:          # an SVG that does not load is reported where it is used
        return False


@lru_cache(maxsize=256)
def raster_is_translucent(path: Path) -> bool:
    try:
        with open_path(path) as im:
            return im.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in im.info
    except OSError:
        return False


def _art_translucent(path: Any) -> bool:
    p = Path(path)
    return svg_is_translucent(p) if p.suffix.lower() == ".svg" else raster_is_translucent(p)


def _soft(shadow: Any) -> bool:
    """A shadow drawn with transparency: translucent, or blurred (in translucent layers)."""
    return shadow is not None and (shadow[2] > 0 or _clear(shadow[3]))


def _effects(op: ops.Op) -> bool:
    """Does `op` draw with transparency that only a picture takes out: a soft shadow, a
    translucent gradient or text outline, opacity (`cardgen.render.effects`)? (An opaque
    gradient stays a shading, its colours in CMYK.)"""
    if _soft(getattr(op, "shadow", None)) or getattr(op, "opacity", 1.0) < 1:
        return True
    fill = getattr(op, "fill", None)
    return (is_gradient(fill) and _clear(fill)) or (isinstance(op, ops.Text) and _clear(op.outline))


_NONE = (0.0, 0.0, 0.0, 0.0)


def _apart(op: ops.Op) -> list[ops.Op]:
    """An operation with a soft shadow as two: the shadow alone (its shape drawn in no
    colour), which becomes a picture, and the operation without it, which may stay vectors
    (text above all); likewise a translucent outline under opaque text."""
    out: list[ops.Op] = []
    if isinstance(op, (ops.Rect, ops.Ellipse, ops.Path)) and _soft(op.shadow):
        out.append(replace(op, fill=_NONE if op.fill else None, stroke=_NONE if op.stroke else None))
        op = replace(op, shadow=None)
    elif isinstance(op, ops.Text) and (_soft(op.shadow) or _clear(op.outline)):
        ghost = tuple(replace(r, color=_NONE) for r in op.runs if r.kind == "text" or r.color is not None)
        if _soft(op.shadow):
            out.append(replace(op, runs=ghost, outline=_NONE if op.outline else None))
            op = replace(op, shadow=None)
        if _clear(op.outline):
            out.append(replace(op, runs=ghost, shadow=None))
            op = replace(op, outline=None)
    return [*out, op]


def translucent(op: ops.Op) -> bool:
    """Does drawing `op` use transparency (or an effect drawn with it, `_effects`)?"""
    if _effects(op):
        return True
    if isinstance(op, (ops.Rect, ops.Ellipse, ops.Path)):
        return _clear(op.fill) or _clear(op.stroke)
    if isinstance(op, ops.Line):
        return _clear(op.stroke)
    if isinstance(op, ops.Text):
        return any(_clear(r.color) or (r.kind == "icon" and _art_translucent(r.content)) for r in op.runs)
    if isinstance(op, ops.Icon):
        return _clear(op.color) or _art_translucent(op.path)
    if isinstance(op, ops.Image):
        return _art_translucent(op.path)
    return False


def _mixable(op: ops.Op) -> bool:
    """Can its colours be mixed with a flat backdrop (vector art whose only transparency is
    in its own colours, not overlapping itself)?"""
    if _effects(op) or is_gradient(getattr(op, "fill", None)):
        return False
    if isinstance(op, (ops.Rect, ops.Ellipse, ops.Path)):
        return not (_clear(op.fill) and _clear(op.stroke))
    if isinstance(op, ops.Line):
        return True
    if isinstance(op, ops.Text):
        return not any(r.kind == "icon" and _art_translucent(r.content) for r in op.runs)
    if isinstance(op, ops.Icon):
        return not _art_translucent(op.path)
    return False


def _mix(col: Any, bg: tuple[float, float, float]) -> Any:
    if not _clear(col):
        return col
    a = col[3]
    return (*tuple(a * c + (1 - a) * b for c, b in zip(col[:3], bg)), 1.0)


def _mixed(op: ops.Op, bg: tuple[float, float, float]) -> ops.Op:
    if isinstance(op, (ops.Rect, ops.Ellipse, ops.Path)):
        return replace(op, fill=_mix(op.fill, bg), stroke=_mix(op.stroke, bg))
    if isinstance(op, ops.Line):
        return replace(op, stroke=_mix(op.stroke, bg))
    if isinstance(op, ops.Text):
        return replace(op, runs=tuple(replace(r, color=_mix(r.color, bg)) for r in op.runs))
    if isinstance(op, ops.Icon):
        return replace(op, color=_mix(op.color, bg))
    return op


def _solid(op: ops.Op) -> ops.Op:
    """The operation in opaque black: where it paints."""
    shadow = getattr(op, "shadow", None)
    if shadow is not None:
        op = replace(op, shadow=(*shadow[:3], _BLACK))    # type: ignore[arg-type]
    if isinstance(op, (ops.Image, ops.Icon)) and op.opacity < 1:
        op = replace(op, opacity=1.0)
    if isinstance(op, (ops.Rect, ops.Ellipse, ops.Path)):
        return replace(op, fill=_BLACK if op.fill else None, stroke=_BLACK if op.stroke else None)
    if isinstance(op, ops.Line):
        return replace(op, stroke=_BLACK)
    if isinstance(op, ops.Text):
        return replace(op, runs=tuple(replace(r, color=_BLACK) if r.kind == "text" or r.color else r
                                      for r in op.runs), outline=_BLACK if op.outline else None)
    if isinstance(op, ops.Icon) and op.color is not None:
        return replace(op, color=_BLACK)
    return op


def render(layouts: list[ops.CardLayout], fonts: FontBook, dpi: float,
           crops: Sequence[tuple[float, float, float, float] | None] | None = None) -> list[Image.Image]:
    """Each layout's page (trim + bleed) as an RGB image, drawn as cards.pdf draws it; a
    crop (x0, y0, x1, y1 in points from the page's top-left) renders only that part."""
    import pypdfium2 as pdfium

    from cardgen.render.raster import jobs_pdf

    doc = pdfium.PdfDocument(jobs_pdf(layouts, fonts))
    out = []
    try:
        for i, lay in enumerate(layouts):
            page = doc[i]
            cut = crops[i] if crops else None
            if cut is None:
                bitmap = page.render(scale=dpi / 72)
            else:
                W, H = lay.width + 2 * lay.bleed, lay.height + 2 * lay.bleed
                x0, y0, x1, y1 = cut
                bitmap = page.render(scale=dpi / 72, crop=(x0, H - y1, W - x1, y0))
            out.append(bitmap.to_pil().convert("RGB"))
            bitmap.close()
            page.close()
    finally:
        doc.close()
    return out


def reach(op: ops.Op, layout: ops.CardLayout) -> tuple[float, float, float, float]:
    """Where `op` may paint: (x0, y0, x1, y1) in points from the page's top-left (trim +
    bleed), generously (strokes, turned boxes, glyphs over their box), within the page."""
    if isinstance(op, ops.Text):
        x, y, w, h = op.x, op.y, op.w, op.h
        pad = op.size
        for r in op.runs:
            x, w = min(x, r.x), max(x + w, r.x + (r.width or r.size)) - min(x, r.x)
            y, h = min(y, r.baseline - r.size), max(y + h, r.baseline + r.size * 0.4) - min(y, r.baseline - r.size)
        pad += op.outline_width
    else:
        x, y, w, h = ops.turn_box(op)
        pad = float(getattr(op, "stroke_width", 0.0) or 0.0) + 1.0
    shadow = getattr(op, "shadow", None)
    if shadow is not None:        # (the shadow's offset and blur, either way)
        pad += max(abs(shadow[0]), abs(shadow[1])) + shadow[2]
    if op.rotate:
        import math

        cx, cy, t = x + w / 2, y + h / 2, math.radians(op.rotate)
        hw = abs(w / 2 * math.cos(t)) + abs(h / 2 * math.sin(t))
        hh = abs(w / 2 * math.sin(t)) + abs(h / 2 * math.cos(t))
        x, y, w, h = cx - hw, cy - hh, 2 * hw, 2 * hh
    B = layout.bleed
    W, H = layout.width + 2 * B, layout.height + 2 * B
    return (max(0.0, x + B - pad), max(0.0, y + B - pad), min(W, x + B + w + pad), min(H, y + B + h + pad))


def _flat_colour(backdrop: Image.Image, where: Image.Image) -> tuple[float, float, float] | None:
    """The one colour of `backdrop` under the white pixels of `where`, or None."""
    stat = ImageStat.Stat(backdrop, mask=where)
    if not stat.count or stat.count[0] == 0:
        return None
    if any(hi - lo > FLAT for lo, hi in stat.extrema):
        return None
    return tuple(v / 255 for v in stat.mean)    # type: ignore[return-value]


def flatten(layout: ops.CardLayout, fonts: FontBook, folder: Path) -> tuple[ops.CardLayout, int]:
    """The layout without transparency, and how many operations became pictures (written
    into `folder`, named by content)."""
    (out,), (n,) = flatten_all([layout], fonts, folder)
    return out, n


def flatten_all(layouts: list[ops.CardLayout], fonts: FontBook,
                folder: Path) -> tuple[list[ops.CardLayout], list[int]]:
    """`flatten` for many layouts at once (two PDFs to render in all, not two per card): the
    layouts, and how many pictures each got."""
    flat: list[ops.CardLayout] = []
    todo: list[tuple[int, int]] = []
    for n, lay in enumerate(layouts):
        drawn = lay.ops         # (once a side: a side the layout cache holds packed decodes it on each look)
        if any(_soft(getattr(op, "shadow", None)) or (isinstance(op, ops.Text) and _clear(op.outline))
               for op in drawn):
            lay = replace(lay, ops=[part for op in drawn for part in _apart(op)])
            drawn = lay.ops
        flat.append(lay)
        todo += [(n, i) for i, op in enumerate(drawn) if translucent(op)]
    layouts = flat
    if not todo:
        return list(layouts), [0] * len(layouts)
    pages, crops = [], []
    for n, i in todo:
        layout = layouts[n]
        cut = reach(layout.ops[i], layout)
        pages += [replace(layout, ops=list(layout.ops[:i])), replace(layout, ops=[_solid(layout.ops[i])])]
        crops += [cut, cut]
    shots = render(pages, fonts, SAMPLE_DPI, crops)
    result: list[list[ops.Op | None]] = [list(layout.ops) for layout in layouts]
    pictures: list[tuple[int, int, tuple[float, float, float, float]]] = []
    px = 72 / SAMPLE_DPI
    for k, (n, i) in enumerate(todo):
        op = layouts[n].ops[i]
        backdrop, mask = shots[2 * k], shots[2 * k + 1].convert("L")
        box = mask.point(lambda v: 255 if v < 250 else 0).getbbox()
        if box is None:                      # paints nothing visible
            result[n][i] = None
            continue
        core = mask.point(lambda v: 255 if v < 128 else 0)
        where = core if core.getbbox() else mask.point(lambda v: 255 if v < 250 else 0)
        bg = _flat_colour(backdrop, where) if _mixable(op) else None
        if bg is not None:
            result[n][i] = _mixed(op, bg)
        else:
            x0, y0 = crops[2 * k][:2]
            pictures.append((n, i, (x0 + (box[0] - 1) * px, y0 + (box[1] - 1) * px,
                                    x0 + (box[2] + 1) * px, y0 + (box[3] + 1) * px)))
    if pictures:
        cuts = [_snap(box, layouts[n]) for n, _, box in pictures]
        full = render([replace(layouts[n], ops=list(layouts[n].ops[:i + 1])) for n, i, _ in pictures], fonts,
                      RASTER_DPI, cuts)
        for (n, i, _), cut, shot in zip(pictures, cuts, full):
            result[n][i] = _picture(layouts[n], cut, shot, folder)
    counts = [0] * len(layouts)
    for n, _, _ in pictures:
        counts[n] += 1
    return [replace(layout, ops=[op for op in kept if op is not None])
            for layout, kept in zip(layouts, result)], counts


def _snap(box: tuple[float, float, float, float], layout: ops.CardLayout) -> tuple[float, float, float, float]:
    """`box` (points) grown to whole pixels at RASTER_DPI, within the page."""
    import math

    k = RASTER_DPI / 72
    W, H = layout.width + 2 * layout.bleed, layout.height + 2 * layout.bleed
    x0, y0 = max(0, math.floor(box[0] * k)), max(0, math.floor(box[1] * k))
    x1, y1 = min(math.floor(W * k), math.ceil(box[2] * k)), min(math.floor(H * k), math.ceil(box[3] * k))
    return x0 / k, y0 / k, x1 / k, y1 / k


def _picture(layout: ops.CardLayout, cut: tuple[float, float, float, float], shot: Image.Image,
             folder: Path) -> ops.Image:
    """`shot` (the page rendered at RASTER_DPI within `cut`) as an image operation at its
    place on the card."""
    k = RASTER_DPI / 72
    x0, y0, x1, y1 = cut
    want = (round((x1 - x0) * k), round((y1 - y0) * k))
    if shot.size != want:             # PDFium rounds the bitmap: at most a pixel either way
        shot = shot.crop((0, 0, *want)) if shot.width >= want[0] and shot.height >= want[1] \
            else shot.resize(want, Image.Resampling.LANCZOS)
    data = shot.tobytes()
    path = Path(folder) / f"flat-{hashlib.sha256(data + repr(shot.size).encode()).hexdigest()[:24]}.png"
    if not path.exists():
        shot.save(path, "PNG", compress_level=1)
    B = layout.bleed
    return ops.Image(path, x0 - B, y0 - B, x1 - x0, y1 - y0)
