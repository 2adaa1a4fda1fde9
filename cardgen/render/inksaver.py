"""Ink-saver: a card side redrawn to use little ink on a home printer (`cardgen build
--ink-saver`), as a transform of its drawing operations, so every template gets it alike and the
normal build is untouched.

- **Backgrounds**: a shape covering half the side or more (a full-bleed background) is
  lightened to a faint tint of its colour (`BACKGROUND`, its ink times 0.12); smaller shapes
  (panels, banners, frames' fills) to a light tint (`PANEL`, times 0.3); gradients stop by
  stop. Shadows are dropped. Outlines (strokes) are kept: thin, cheap, and they show the shapes.
- **Art**: raster pictures become light greyscale (`ART`: their darkness times 0.3), written
  once beside the art cache's copies; vector art (SVG) is drawn at 30 % opacity.
- **Emblems and watermarks**, icons covering 4 % of the side or more or drawn see-through,
  are art: a coloured one is lightened as a panel, another drawn at 30 % opacity.
- **Text and other icons** keep their colour when it is dark; a light or middling one (it stood on a
  dark background that is now light) is darkened, keeping its hue, until its relative luminance
  is at most `TEXT_LUMINANCE`: against the lightest panel's darkest tint it keeps the
  readability check's 4.5:1 (`cardgen.check.contrast`).
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from cardgen.core.digest import file_digest
from cardgen.core.paint import is_gradient
from cardgen.model import ops
from cardgen.render import art

BACKGROUND = 0.12        # a large area keeps this share of its ink
PANEL = 0.3              # a smaller shape's share
ART = 0.3                # a picture's share of its darkness, in grey
LARGE = 0.5              # a shape covering this share of the side (with bleed) is a background
EMBLEM = 0.04            # an icon covering this share (a picture, not a symbol), or see-through, is art
TEXT_LUMINANCE = 0.03    # text and coloured icons at most this light (WCAG relative luminance)
RASTER = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff")


def ink_saver(layout: ops.CardLayout) -> ops.CardLayout:
    """`layout` drawn with less ink (the module's rules); its ops replaced, nothing else."""
    area = (layout.width + 2 * layout.bleed) * (layout.height + 2 * layout.bleed)
    return replace(layout, ops=[_op(op, area) for op in layout.ops])


def _op(op: Any, area: float) -> Any:
    if isinstance(op, (ops.Rect, ops.Ellipse, ops.Path)):
        w, h = (op.box[2], op.box[3]) if isinstance(op, ops.Path) else (op.w, op.h)
        share = BACKGROUND if w * h >= LARGE * area else PANEL
        return replace(op, fill=lighten(op.fill, share) if op.fill is not None else None, shadow=None)
    if isinstance(op, ops.Text):
        runs = tuple(replace(r, color=darken(r.color)) if r.color is not None else r for r in op.runs)
        return replace(op, runs=runs, shadow=None)
    if isinstance(op, ops.Icon):
        if op.opacity < 1 or op.w * op.h >= EMBLEM * area:      # a watermark, an emblem: art
            return replace(op, color=lighten(op.color, PANEL)) if op.color is not None \
                else replace(op, opacity=op.opacity * ART)
        return replace(op, color=darken(op.color)) if op.color is not None else op
    if isinstance(op, ops.Image):
        if ops.is_svg(op.path):
            return replace(op, opacity=op.opacity * ART)
        if Path(op.path).suffix.lower() in RASTER:
            return replace(op, path=grey_copy(Path(op.path)))
    return op


def _tint(c: tuple, share: float) -> tuple:
    return (*(1 - (1 - v) * share for v in c[:3]), *c[3:])


def lighten(paint: Any, share: float) -> Any:
    """A colour or gradient with `share` of its ink (mixed with white)."""
    if is_gradient(paint):
        kind, a, b, stops = paint
        return (kind, a, b, tuple((at, _tint(c, share)) for at, c in stops))
    return _tint(paint, share)


def luminance(c: tuple) -> float:
    """WCAG 2 relative luminance (as `cardgen.check.colours`, which render may not import)."""
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def darken(c: tuple) -> tuple:
    """`c` as it is if dark enough, else scaled towards black (its hue kept) until its
    luminance is at most TEXT_LUMINANCE."""
    if luminance(c) <= TEXT_LUMINANCE:
        return c
    lo, hi = 0.0, 1.0                      # the largest scale that is dark enough
    for _ in range(20):
        mid = (lo + hi) / 2
        if luminance(tuple(v * mid for v in c[:3])) <= TEXT_LUMINANCE:
            lo = mid
        else:
            hi = mid
    return (*(v * lo for v in c[:3]), *c[3:])


def grey_copy(path: Path) -> Path:
    """A light greyscale copy of the raster picture `path` (alpha kept), made once, in the art
    cache's folder, named by its content; `path` itself if it cannot be read (the layout said so)."""
    from PIL import Image

    from cardgen.core.images import open_path

    try:
        target = art.folder() / f"{file_digest(path)[:32]}-ink{int(ART * 100)}.png"
    except OSError:
        return path
    if target.is_file():
        return target
    try:
        with open_path(path) as im:
            rgba = im.convert("RGBA")
    except Exception:       # unreadable: drawn as it is
        return path
    alpha = rgba.getchannel("A")
    grey = rgba.convert("L").point(lambda v: 255 - round((255 - v) * ART))
    low, _ = alpha.getextrema()
    out = Image.merge("LA", (grey, alpha)) if isinstance(low, int) and low < 255 else grey
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    out.save(tmp, format="PNG")
    tmp.replace(target)
    return target


def coverage(pdf: bytes, dpi: float = 30) -> list[float]:
    """The ink each page of `pdf` puts down, 0 (white paper) to 1 (solid black): the mean over
    its pixels, rasterized with PDFium at `dpi`, of (C + M + Y) / 3 with C = 1 - red and so on
    (the ink an RGB page asks a home printer for, before its black generation)."""
    import pypdfium2 as pdfium
    from PIL import ImageStat

    doc = pdfium.PdfDocument(pdf)
    try:
        out = []
        for page in doc:
            img = page.render(scale=dpi / 72).to_pil().convert("RGB")
            page.close()
            out.append(1 - sum(ImageStat.Stat(img).mean) / (3 * 255))
        return out
    finally:
        doc.close()
