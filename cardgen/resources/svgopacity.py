"""SVG `opacity` as a browser draws it, for svglib (which reads `fill-opacity` and
`stroke-opacity` but not `opacity`, on a shape or a group: a 50 % white panel printed solid
white).

Before svglib reads the tree, each `opacity` is multiplied into the `fill-opacity` and
`stroke-opacity` of every shape under it (with what those inherit from above). For one shape,
or shapes in a group that do not overlap, that is exactly what a browser draws; where shapes
of one translucent group overlap, each shows through the other (a browser blends the group
as one picture).
"""
from __future__ import annotations

from typing import Any

_SKIP = {"defs", "clipPath", "mask", "pattern", "linearGradient", "radialGradient", "symbol", "marker", "style",
         "title", "desc", "metadata", "filter"}
_SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "text", "use", "image"}


def _local(el: Any) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _style(el: Any) -> dict[str, str]:
    out = {}
    for part in (el.get("style") or "").split(";"):
        if ":" in part:
            k, v = part.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def _number(text: str | None, default: float) -> float:
    if text is None or not text.strip():
        return default
    text = text.strip()
    try:
        v = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        return default
    return min(1.0, max(0.0, v)) if v == v else default


def _own(el: Any, name: str) -> str | None:
    """A presentation property as the element itself sets it (style over attribute)."""
    return _style(el).get(name) or el.get(name)


def push_opacity(root: Any) -> bool:
    """Move every `opacity` of the tree at `root` into its shapes' fill and stroke opacity;
    whether there was any."""
    if not any(_own(el, "opacity") is not None for el in root.iter() if isinstance(el.tag, str)):
        return False
    _walk(root, 1.0, 1.0, 1.0)
    return True


def _walk(el: Any, opacity: float, fill: float, stroke: float) -> None:
    name = _local(el)
    if name in _SKIP or not name:
        return
    opacity *= _number(_own(el, "opacity"), 1.0)
    fill = _number(_own(el, "fill-opacity"), fill)
    stroke = _number(_own(el, "stroke-opacity"), stroke)
    if name in _SHAPES:
        if opacity < 1:
            style = {k: v for k, v in _style(el).items() if k not in ("opacity", "fill-opacity", "stroke-opacity")}
            style["fill-opacity"] = f"{fill * opacity:.6g}"
            style["stroke-opacity"] = f"{stroke * opacity:.6g}"
            el.set("style", ";".join(f"{k}:{v}" for k, v in style.items()))
            for attr in ("opacity", "fill-opacity", "stroke-opacity"):
                if attr in el.attrib:
                    del el.attrib[attr]
        if name != "text":
            return
    for child in el:
        _walk(child, opacity, fill, stroke)


def gradient_opacity(drawing: Any) -> None:
    """svglib draws a gradient fill opaque whatever the shape's `fill-opacity` (and fills the
    shape in black under it first, which fringes its edges): each gradient of `drawing` is
    replaced by one drawn at the shape's fill opacity, over nothing."""
    from reportlab.graphics.shapes import DirectDraw

    stack = [drawing]
    while stack:
        node = stack.pop()
        contents = getattr(node, "contents", None)
        if not contents:
            continue
        for i, child in enumerate(contents):
            if isinstance(child, DirectDraw) and hasattr(child, "_clip_shape") and hasattr(child, "_rl_colors"):
                contents[i] = _gradient_of(child)
            else:
                stack.append(child)


def _gradient_class() -> type:
    from reportlab.graphics.shapes import DirectDraw

    class Gradient(DirectDraw):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def getBounds(self) -> Any:
            return self.inner.getBounds()

        def drawDirectly(self, renderer: Any) -> None:
            from svglib import svglib

            g, c = self.inner, renderer._canvas
            path = svglib._shape_to_pdf_path(c, g._clip_shape)
            if not path:
                return
            c.saveState()
            c.clipPath(path, fill=0, stroke=0)
            alpha = getattr(g._clip_shape, "fillOpacity", None)
            if alpha is not None and alpha < 1:
                c.setFillAlpha(alpha)
            if hasattr(g, "_x0"):
                c.linearGradient(g._x0, g._y0, g._x1, g._y1, g._rl_colors, g._positions, g._extend)
            else:
                c.radialGradient(g._cx, g._cy, g._r, g._rl_colors, g._positions, g._extend)
            c.restoreState()

    return Gradient


def _gradient_of(inner: Any) -> Any:
    """`inner` drawn by `_gradient_class` (made on first use: ReportLab is imported late)."""
    global _made
    if _made is None:
        _made = _gradient_class()
    return _made(inner)


_made: type | None = None
