"""Card images for web pages, shops and rulebooks made elsewhere (`cardgen.outputs.images`):
a card side's bitmap (`cardgen.render.raster`, the pixels of its print PDF) cut to its outline
with rounded corners (transparent outside), optionally with a soft drop shadow, and several
cards fanned out like a hand held; as PNG, and as SVG whose outline, turn and shadow are
vector and whose card pictures are those same bitmaps embedded at full resolution.

Geometry is in pixels, y down.  A card is `w` x `h` px; in a fan, card i is turned `angle`
degrees clockwise about its centre, which lies `pivot` px from a point below the hand, turned
the same angle (so the cards spread at the top and overlap at the bottom, as held).
"""
from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardgen.model import ops

if TYPE_CHECKING:       # (Pillow is imported when an image is made)
    from PIL import Image

SUPERSAMPLE = 4             # outline masks are drawn this many times larger, then reduced: smooth edges
SHADOW_OPACITY = 0.45       # of the shadow under the card
FAN_STEP = 10.0             # degrees between neighbouring cards of a fan
FAN_SPREAD = 48.0           # at most this many degrees from the first card of a fan to the last
FAN_PIVOT = 1.15            # the fan's pivot: this many card heights below each card's centre


@dataclass(frozen=True)
class Look:
    """How a card is cut and shadowed: the corner radius of a rectangular card (px), and the
    shadow (off: 0): its blur (the Gaussian's standard deviation, px) and how far it falls
    below the card (px)."""

    radius: float = 0.0
    blur: float = 0.0
    drop: float = 0.0

    @property
    def shadow(self) -> bool:
        return self.blur > 0

    @property
    def margin(self) -> int:
        """The transparent border a shadow needs around the cards (px, every side)."""
        return math.ceil(3 * self.blur + self.drop) if self.shadow else 0


def look(width_px: int, height_px: int, radius_mm: float, width_mm: float, shadow: bool) -> Look:
    """The look of a card `width_px` px wide whose trim is `width_mm` wide: corners of
    `radius_mm` (at most half the shorter side), and a shadow blurred over 2.5 % of the card's
    width, 1.5 % below it."""
    radius = min(radius_mm / width_mm * width_px, min(width_px, height_px) / 2) if width_mm > 0 else 0.0
    if not shadow:
        return Look(radius)
    return Look(radius, max(1.0, round(0.025 * width_px, 1)), max(1.0, round(0.015 * width_px, 1)))


# -- outlines --------------------------------------------------------------------------------

def outline_mask(layout: ops.CardLayout, size: tuple[int, int], radius: float) -> Image.Image:
    """An 8-bit mask of the side's outline in its box (255 inside, 0 outside, the edge smooth):
    a rectangle with corners of `radius` px, or the piece's own shape (a disc, a hexagon, a
    `path` outline: `cardgen.outputs.tts_objects.shape_mask`)."""
    from PIL import Image, ImageDraw

    shape = layout.shape
    if shape != "rect":
        from cardgen.outputs import tts_objects as objs

        return objs.shape_mask(objs.path_mask(layout.outline) if shape == "path" else shape, size)
    k = SUPERSAMPLE
    big = Image.new("L", (size[0] * k, size[1] * k), 0)
    draw = ImageDraw.Draw(big)
    r = radius * k
    if r >= 0.5:
        draw.rounded_rectangle((0, 0, big.width - 1, big.height - 1), radius=r, fill=255)
    else:
        draw.rectangle((0, 0, big.width - 1, big.height - 1), fill=255)
    return big.resize(size, Image.Resampling.BOX)


def cut(rgb: Image.Image, layout: ops.CardLayout, radius: float) -> Image.Image:
    """The card's bitmap as RGBA, transparent outside its outline."""
    img = rgb.convert("RGBA")
    img.putalpha(outline_mask(layout, img.size, radius))
    return img


# -- placing cards ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Placed:
    """A card on the image: its centre (px) and its turn (degrees clockwise)."""

    cx: float
    cy: float
    angle: float = 0.0


def extent(shape: str, w: float, h: float, radius: float, angle: float) -> tuple[float, float]:
    """Half the width and half the height of the box around a card of w x h px turned `angle`
    degrees: its outline's (a disc's, a hexagon's, a rectangle's with its rounded corners),
    so a fan's image is as large as what it shows."""
    a = math.radians(angle)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    if shape == "round":
        return math.hypot(w / 2 * c, h / 2 * s), math.hypot(w / 2 * s, h / 2 * c)
    if shape in ("hex-flat", "hex-pointy"):
        from cardgen.model.components import outline

        pts = [(x - w / 2, y - h / 2) for x, y in outline(shape, 0, 0, w, h)]
        ca, sa = math.cos(a), math.sin(a)
        return max(abs(x * ca - y * sa) for x, y in pts), max(abs(x * sa + y * ca) for x, y in pts)
    r = min(radius, w / 2, h / 2) if shape == "rect" else 0.0
    iw, ih = w / 2 - r, h / 2 - r
    return iw * c + ih * s + r, iw * s + ih * c + r


def bounds(placed: list[Placed], shapes: list[str], w: float, h: float,
           radius: float) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) round cards of these shapes, w x h, placed and turned as
    `placed` says: exactly their outlines' (`extent`)."""
    boxes = []
    for p, shape in zip(placed, shapes, strict=True):
        ex, ey = extent(shape, w, h, radius, p.angle)
        boxes.append((p.cx - ex, p.cy - ey, p.cx + ex, p.cy + ey))
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def fan_angles(n: int) -> list[float]:
    """The turn of each of `n` cards, left to right: FAN_STEP apart, FAN_SPREAD at most in all."""
    if n <= 1:
        return [0.0] * n
    step = min(FAN_STEP, FAN_SPREAD / (n - 1))
    return [step * (i - (n - 1) / 2) for i in range(n)]


def fan_layout(shapes: list[str], w: float, h: float, radius: float,
               margin: int) -> tuple[list[Placed], tuple[int, int]]:
    """Where the cards (of these shapes, each w x h px) go in a fan, and the image size that
    holds them exactly (their turned outlines' bounding box, centred, `margin` px more on
    every side)."""
    pivot = FAN_PIVOT * h
    raw = [Placed(pivot * math.sin(math.radians(a)), -pivot * math.cos(math.radians(a)), a)
           for a in fan_angles(len(shapes))]
    x0, y0, x1, y1 = bounds(raw, shapes, w, h, radius)
    size = (math.ceil(x1 - x0 - 1e-6) + 2 * margin, math.ceil(y1 - y0 - 1e-6) + 2 * margin)
    ox, oy = (size[0] - (x1 - x0)) / 2 - x0, (size[1] - (y1 - y0)) / 2 - y0
    return [Placed(c.cx + ox, c.cy + oy, c.angle) for c in raw], size


def single_layout(w: int, h: int, margin: int) -> tuple[list[Placed], tuple[int, int]]:
    return [Placed(margin + w / 2, margin + h / 2)], (w + 2 * margin, h + 2 * margin)


def _affine(p: Placed, w: int, h: int) -> tuple[float, ...]:
    """Pillow's AFFINE data mapping an image pixel back to the card's own pixel."""
    a = math.radians(p.angle)
    c, s = math.cos(a), math.sin(a)
    return (c, s, -c * p.cx - s * p.cy + w / 2, -s, c, s * p.cx - c * p.cy + h / 2)


def compose(cards: list[Image.Image], placed: list[Placed], size: tuple[int, int], lk: Look) -> Image.Image:
    """The RGBA image of `cards` (each RGBA, cut to its outline) placed as `placed` says, in
    order (the last on top), each over its own shadow."""
    from PIL import Image, ImageFilter

    canvas = Image.new("RGBA", size, (0, 0, 0, 0))
    for card, p in zip(cards, placed, strict=True):
        w, h = card.size
        if p.angle == 0 and float(p.cx - w / 2).is_integer() and float(p.cy - h / 2).is_integer():
            layer = Image.new("RGBa", size, (0, 0, 0, 0))
            layer.paste(card.convert("RGBa"), (int(p.cx - w / 2), int(p.cy - h / 2)))
        else:       # (premultiplied, so the edge does not darken where it is resampled)
            layer = card.convert("RGBa").transform(size, Image.Transform.AFFINE, _affine(p, w, h),
                                                   Image.Resampling.BICUBIC)
        if lk.shadow:
            alpha = layer.getchannel(3)
            shade = Image.new("L", size, 0)
            shade.paste(alpha.point(lambda v: round(v * SHADOW_OPACITY)), (0, round(lk.drop)))
            shadow = Image.new("RGBA", size, (0, 0, 0, 0))
            shadow.putalpha(shade.filter(ImageFilter.GaussianBlur(lk.blur)))
            canvas = Image.alpha_composite(canvas, shadow)
        canvas = Image.alpha_composite(canvas, layer.convert("RGBA"))
    return canvas


def png_bytes(img: Image.Image, dpi: int, icc: bytes) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=6, icc_profile=icc, dpi=(dpi, dpi))
    return buf.getvalue()


# -- SVG ---------------------------------------------------------------------------------------

def _num(v: float) -> str:
    return f"{round(v, 3):g}"


def _outline_svg(layout: ops.CardLayout, w: int, h: int, radius: float) -> str:
    """The card's outline at (0, 0) w x h as an SVG shape."""
    shape = layout.shape
    if shape == "round":
        return f'<ellipse cx="{_num(w / 2)}" cy="{_num(h / 2)}" rx="{_num(w / 2)}" ry="{_num(h / 2)}"/>'
    if shape == "path" and layout.outline:
        from cardgen.model import svgpath

        _, _, bw, bh = svgpath.bounds(layout.outline)
        return (f'<path transform="scale({_num(w / bw)} {_num(h / bh)})" clip-rule="evenodd" fill-rule="evenodd" '
                f'd="{svgpath.to_d(layout.outline)}"/>')
    if shape != "rect":
        from cardgen.model.components import outline

        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in outline(shape, 0, 0, w, h))
        return f'<polygon points="{pts}"/>'
    r = _num(radius)
    return f'<rect width="{w}" height="{h}" rx="{r}" ry="{r}"/>'


def svg(pictures: list[tuple[bytes, ops.CardLayout]], size: tuple[int, int], placed: list[Placed],
        w: int, h: int, lk: Look, title: str) -> str:
    """The SVG of cards placed as `placed` says (`pictures`: each card's PNG, w x h px, and its
    side's layout for the outline): each card its embedded bitmap clipped to its outline, turned
    about its centre, over a blurred shadow; `size` px, one unit a pixel."""
    from xml.sax.saxutils import escape

    W, H = size
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
           f'width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
           f"<title>{escape(title)}</title>",
           f"<desc>Made by cardgen. Each card is its print drawing rendered to a {w} x {h} px PNG, embedded; "
           "the rounded outline, the turn and the shadow are vector.</desc>", "<defs>"]
    shapes: dict[str, str] = {}
    for _, layout in pictures:
        shape = _outline_svg(layout, w, h, lk.radius)
        if shape not in shapes:
            shapes[shape] = f"o{len(shapes) + 1}"
            out.append(f'<clipPath id="{shapes[shape]}">{shape}</clipPath>')
    if lk.shadow:
        out.append(f'<filter id="shadow" x="-50%" y="-50%" width="200%" height="200%">'
                   f'<feGaussianBlur stdDeviation="{_num(lk.blur)}"/></filter>')
    out.append("</defs>")
    for (png, layout), p in zip(pictures, placed, strict=True):
        shape = _outline_svg(layout, w, h, lk.radius)
        turn = (f"translate({_num(p.cx)} {_num(p.cy)}) rotate({_num(p.angle)}) "
                f"translate({_num(-w / 2)} {_num(-h / 2)})")
        if lk.shadow:
            shadow = shape.replace("/>", f' fill="#000" fill-opacity="{SHADOW_OPACITY}"/>', 1)
            out.append(f'<g transform="translate(0 {_num(lk.drop)})" filter="url(#shadow)">'
                       f'<g transform="{turn}">{shadow}</g></g>')
        data = base64.b64encode(png).decode("ascii")
        out.append(f'<g transform="{turn}"><image width="{w}" height="{h}" clip-path="url(#{shapes[shape]})" '
                   f'preserveAspectRatio="none" xlink:href="data:image/png;base64,{data}"/></g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
