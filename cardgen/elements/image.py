"""`image`: a PNG, JPEG or SVG file from art/, fitted to its box."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from cardgen.core import images
from cardgen.core.paths import PathRefused
from cardgen.core.units import MM
from cardgen.elements.base import Box, ElementError, LayoutContext, Opacity, Resources, Rotate
from cardgen.model import ops
from cardgen.resources.fonts import DEFAULT_FAMILY, describe_chars
from cardgen.resources.icons import IconError, check_raster, load_svg, svg_warnings
from cardgen.schema.core import Bool, Choice, OneOf, Text, is_expression, opt

MISSING_HINT = "add the file, fix the name, or add `placeholder: true` to the element for a labelled box"


def image_size(path: Path, box: tuple[float, float, float, float, str] | None = None) -> tuple[float, float]:
    """An image's size (an SVG's in points, a raster's in pixels, checked by decoding it).
    `box`: (x, y, width, height, fit) it is drawn in, for the copy made from that decode."""
    if path.suffix.lower() == ".svg":
        d = load_svg(path)
        return float(d.width), float(d.height)
    pixels = header_size(path) if box is not None else None
    drawn = images.shown(*_placed(*box[:4], float(pixels[0]), float(pixels[1]), box[4])) \
        if pixels is not None and box is not None else None
    w, h = check_raster(path, drawn)
    return float(w), float(h)


def header_size(path: Path) -> tuple[int, int] | None:
    """A PNG's or JPEG's pixel size as its header says (not decoded); None if it cannot be
    read (damaged, a bomb, ...: `check_raster` says what is wrong)."""
    from cardgen.core.images import open_path

    try:
        with open_path(path) as im:
            return int(im.size[0]), int(im.size[1])
    except Exception:
        return None


def _drawn(iw: float, ih: float, w: float, h: float, fit: str) -> tuple[float, float]:
    """The size an iw x ih image is drawn at in a w x h box."""
    if fit == "stretch" or iw <= 0 or ih <= 0:
        return w, h
    scale = (min if fit == "contain" else max)(w / iw, h / ih)
    return iw * scale, ih * scale


def _placed(x: float, y: float, w: float, h: float, iw: float, ih: float, fit: str
            ) -> tuple[float, float, float, float, tuple[float, float, float, float] | None]:
    """Where an iw x ih image is drawn in the box (x, y, w, h) (x, y, w, h points) and the box
    it is clipped to (`cover`; else None)."""
    dw, dh = _drawn(iw, ih, w, h, fit)
    clip = (x, y, w, h) if fit == "cover" and iw > 0 and ih > 0 else None
    return x + (w - dw) / 2, y + (h - dh) / 2, dw, dh, clip


def _soft(lc: LayoutContext, iw: float, ih: float, dw: float, dh: float) -> None:
    """Warn when the image has fewer pixels than its box shows at the print resolution."""
    dpi = float(getattr(lc.res, "image_dpi", images.DEFAULT_DPI))
    if dw > 0 and dh > 0 and images.soft(int(iw), int(ih), dw, dh, dpi):
        tw, th = images.pixels(dw, dh, dpi)
        shown = min(iw * 72 / dw, ih * 72 / dh)
        lc.warn("src", f"the image prints soft: {int(iw)} x {int(ih)} px shown {dw / MM:.1f} x {dh / MM:.1f} mm "
                       f"is {shown:.0f} dpi, where {dpi:.0f} dpi needs {tw} x {th} px (use larger art, or set "
                       f"`image_dpi` in game.yaml)", "soft-image")


@dataclass(frozen=True, kw_only=True)
class ImageElement(Box, Rotate, Opacity):
    """The `image` element."""

    summary: ClassVar[str] = ("A PNG, JPEG or SVG picture from art/ (SVG stays vector), fitted to its box. A PNG or "
                              "JPEG with more pixels than its box shows is embedded at the box's pixels (game.yaml "
                              "`image_dpi`, 300 by default, in the print PDFs; the bitmap's own size in Tabletop "
                              "Simulator, the gallery and PNGs), and with `fit: cover` only the part of it the box "
                              "shows; one with fewer is warned about: it prints soft.")

    src: str = opt(Text(), "image file (PNG, JPEG or SVG) in art/, or a path relative to the game folder", "",
                   dynamic=True, default_doc="none")
    fit: str = opt(Choice(("contain", "cover", "stretch")), "contain (all of it, letterboxed), cover (fill the "
                   "box, cropping) or stretch", "contain", dynamic=True)
    placeholder: bool | str = opt(OneOf((Bool(), Text())), "true or a label: draw a labelled box when the file is "
                                  "missing or src is empty", False, dynamic=True, default_doc="false")

    def layout(self, lc: LayoutContext) -> None:
        x, y, w, h = self.rect(lc)
        src = self.src
        try:
            path = lc.res.find_art(src) if src else None
        except PathRefused as exc:
            raise ElementError("src", str(exc), "path") from None
        if path is None:
            if self.placeholder:
                label = self.placeholder if isinstance(self.placeholder, str) else (
                    f"art: {src}" if src else "art to come")
                lc.out.append(ops.Placeholder(x, y, w, h, str(label), self.rotate))
                fonts = lc.res.fonts        # the label is drawn in one font (`render.draw._placeholder_font`)
                font = fonts.face(DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else None, "italic").name
                gone = fonts.missing(str(label), font)
                if gone:
                    lc.warn("placeholder" if isinstance(self.placeholder, str) else "src",
                            f"the placeholder's label: font {font} has no glyph for {describe_chars(gone)}; "
                            f"{'they print' if len(gone) > 1 else 'it prints'} as a box (write the label "
                            f"without {'them' if len(gone) > 1 else 'it'})", "missing-glyph")
                if src:     # a file named but not there: the placeholder is drawn, and said
                    lc.warn("src", f"image '{src}' is not in art/ or the game folder (add it or fix the name); "
                                   f"the placeholder '{label}' is printed in its place", "missing-image")
                return
            if not src:
                return
            raise ElementError("src", f"image '{src}' not found in art/ or the game folder; {MISSING_HINT}",
                               "unknown-image")
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".svg"):
            raise ElementError("src", f"image '{src}' is not PNG, JPEG or SVG")
        try:
            iw, ih = image_size(path, (x, y, w, h, self.fit))
        except IconError as exc:
            raise ElementError("src", f"cannot use image '{src}': {exc}", "bad-image") from None
        except Exception as exc:  # unreadable file
            raise ElementError("src", f"cannot read image '{src}': {exc}", "bad-image") from None
        for message, code in svg_warnings(path, lc.res.fonts):
            lc.warn("src", message, code)
        dx, dy, dw, dh, clip = _placed(x, y, w, h, iw, ih, self.fit)
        if path.suffix.lower() != ".svg":
            _soft(lc, iw, ih, dw, dh)
        lc.out.append(ops.Image(path, dx, dy, dw, dh, clip, self.rotate, (x, y, w, h), self.opacity))

    def ahead(self, lc: LayoutContext) -> tuple[Path, tuple[int, int], tuple[float, ...]] | None:
        """The PNG or JPEG file `layout` will check (decode), its pixel size and the points it
        is drawn at with the part of it shown (`core.images.shown`; `layout.ahead` decodes it
        before); None if none, or it cannot tell."""
        path = lc.res.find_art(self.src) if self.src else None
        if path is None or path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            return None
        pixels = header_size(path)
        if pixels is None:
            return None
        x, y, w, h = self.rect(lc)
        return path, pixels, images.shown(*_placed(x, y, w, h, float(pixels[0]), float(pixels[1]), self.fit))

    @classmethod
    def static_problems(cls, el: Mapping, res: Resources) -> list[tuple[str, str, str]]:
        src = el.get("src")
        if src and not is_expression(src):
            try:
                res.find_art(str(src))
            except PathRefused as exc:
                return [("src", str(exc), "path")]
        if src and not is_expression(src) and not el.get("placeholder") and res.find_art(str(src)) is None:
            return [("src", f"image '{src}' not found in art/ or the game folder; add the file, fix the name, or "
                            f"add `placeholder: true` for a labelled box", "unknown-image")]
        return []
