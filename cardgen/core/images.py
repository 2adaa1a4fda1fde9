"""Opening raster images: by the kind their name declares, and only with decoders that run
inside this process.

Pillow picks a decoder by a file's content, not its name, and among its decoders is one that
starts a program: EPS files are rendered by Ghostscript.  A game's art is untrusted
(docs/security.md), so a `card.png` that is really PostScript would run Ghostscript on it.
cardgen therefore

- opens every image of a game with the formats its name allows (`open_path`: `.png` is
  PNG, `.jpg` and `.jpeg` are JPEG; an embedded `data:image/png` is PNG: `open_bytes`), and
- leaves Pillow no decoder but those in `IN_PROCESS` (`restrict`, done before any image is
  opened, by every module that uses Pillow), and has ReportLab's `ImageReader`, which reads a
  file given by name with `PIL.Image.open` and no formats, read by the name too: svglib's
  images (drawn by ReportLab) reach no other decoder either.
"""
from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

# The decoders Pillow keeps: each reads its format in Python or in Pillow's own C code
IN_PROCESS = frozenset({"PNG", "JPEG", "MPO", "TIFF", "GIF", "BMP", "WEBP", "PPM"})
BY_SUFFIX = {".png": ("PNG",), ".jpg": ("JPEG",), ".jpeg": ("JPEG",)}
BY_MIME = {"image/png": ("PNG",), "image/jpeg": ("JPEG",), "image/jpg": ("JPEG",)}
OWN_BY_SUFFIX = {".tif": ("TIFF",), ".tiff": ("TIFF",)}      # (what cardgen itself writes)
NAMES = {"PNG": "PNG", "JPEG": "JPEG"}

_restricted: list[bool] = []


def restrict() -> None:
    """Leave Pillow only the decoders in `IN_PROCESS` (once a process).  Pillow loads its PNG,
    JPEG, GIF, BMP and PPM drivers first (`preinit`) and all the others (`init`) only when a
    file is none of those; cardgen loads TIFF and WebP itself and marks the drivers as all
    loaded, so that the others (EPS among them) are never registered, and unregisters any
    that were (someone called `init` before; 0.2 s of imports saved too)."""
    if _restricted:
        return
    import importlib

    from PIL import Image

    Image.preinit()
    for plugin in ("TiffImagePlugin", "WebPImagePlugin"):
        with contextlib.suppress(ImportError):          # (a Pillow built without it)
            importlib.import_module(f"PIL.{plugin}")
    if Image._initialized < 2:
        Image._initialized = 2          # (Pillow's own mark: `init` loads no more drivers)
    for fmt in list(Image.OPEN):
        if fmt not in IN_PROCESS:
            del Image.OPEN[fmt]
    Image.ID[:] = [fmt for fmt in Image.ID if fmt in IN_PROCESS]
    _route_reportlab()
    _restricted.append(True)


def _route_reportlab() -> None:
    """ReportLab reads an image file it is given by name with `PIL.Image.open` (no formats):
    its reader is made to read by the name as cardgen does (`.png` as PNG, `.jpg` and `.jpeg`
    as JPEG, and `.tif`, the copies cardgen converts for print services, as TIFF)."""
    try:
        from reportlab.lib.utils import ImageReader
    except ImportError:
        return
    if getattr(ImageReader._read_image, "_cardgen", False):
        return

    def _read_image(self: Any, fp: Any) -> Any:
        name = self.fileName if isinstance(self.fileName, str) else ""
        formats = BY_SUFFIX.get(Path(name).suffix.lower()) or OWN_BY_SUFFIX.get(Path(name).suffix.lower())
        if formats is None:
            from PIL import Image

            return Image.open(fp)           # (only the decoders kept)
        return _open(fp, formats, Path(name).name)

    _read_image._cardgen = True             # type: ignore[attr-defined]
    ImageReader._read_image = _read_image


class WrongKind(OSError):
    """An image whose content is not the kind its name (or `data:` type) declares; the
    message is one line."""


def formats_for(path: Path | str) -> tuple[str, ...] | None:
    """The Pillow formats a file of this name may be read as, or None."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


def _sniff(fp: Any) -> str | None:
    """What an image really is, for the message (among the decoders kept), or None."""
    from PIL import Image

    try:
        if hasattr(fp, "seek"):
            fp.seek(0)
        with Image.open(fp) as im:
            return str(im.format)
    except Exception:       # anything it is not: said as "not an image cardgen reads"
        return None


def _open(fp: Any, formats: tuple[str, ...], name: str) -> Image.Image:
    from PIL import Image, UnidentifiedImageError

    restrict()
    try:
        return Image.open(fp, formats=list(formats))
    except UnidentifiedImageError:
        actual = _sniff(fp)
        wanted = " or ".join(NAMES.get(f, f) for f in formats)
        if actual is not None and actual not in formats:
            raise WrongKind(f"{name} is a {actual} image, not {wanted} as its name says; convert it to "
                            f"{wanted} or rename it") from None
        raise WrongKind(f"{name} is not a {wanted} image cardgen can read (damaged, or another format); "
                        f"export it again as {wanted}") from None


def open_path(path: Path | str) -> Image.Image:
    """The image file `path`, read as the kind its name declares (WrongKind if it is not
    one, or if its name is not one of an image cardgen reads)."""
    formats = formats_for(path)
    name = Path(path).name
    if formats is None:
        raise WrongKind(f"{name} is not a PNG or JPEG file (by its name); cardgen reads .png, .jpg and .jpeg")
    return _open(str(path), formats, name)


def open_bytes(data: bytes, formats: tuple[str, ...], name: str) -> Image.Image:
    """An image held in memory (an embedded `data:` image), read as one of `formats`."""
    return _open(io.BytesIO(data), formats, name)


def open_own(path: Path | str | io.BytesIO) -> Image.Image:
    """An image cardgen itself wrote (a cached bitmap, a converted copy): any decoder kept."""
    from PIL import Image

    restrict()
    return Image.open(path)


# -- resolution: what a box shows (`render.art` draws images at it) -------------------------
DEFAULT_DPI = 300       # the print PDFs' images, unless game.yaml `image_dpi` says otherwise
_print_dpi: list[float] = [DEFAULT_DPI]
# called with (file, its decoded image, the points it is drawn at and the part of it shown:
# `shown`) when the layout's check has decoded a picture: `render.art` makes its print copy
# from that decode
DECODED: list[Callable[[Path, Image.Image, tuple[float, ...]], None]] = []


# called with (a picture's pixel size, the points it is drawn at and the part of it shown):
# the rows from its top that what is made of it reads (`render.art`); a check decodes no
# more of a PNG (`resources.icons.decode_checked`, `decode_rows`)
ROWS: list[Callable[[tuple[int, int], tuple[float, ...]], int]] = []
WHOLE = "cardgen whole size"    # `info` of a picture decoded down to a row only: its whole size


def rows_read(size: tuple[int, int], drawn: tuple[float, ...] | None) -> int:
    """The rows from the top of a picture of `size` drawn at `drawn` that anything reads (all
    of them when `drawn` is None)."""
    if drawn is None or not ROWS:
        return int(size[1])
    return min(int(size[1]), max(1, ROWS[0](size, drawn)))


def decode_rows(im: Any, rows: int) -> bool:
    """Have the picture `im` (opened, not loaded) decode its top `rows` rows only, if it is a
    PNG that can (not interlaced, one frame): PNG rows are stored top to bottom, so the
    decoder stops there, the rest of the file skipped unread by zlib.  Its `info[WHOLE]`
    then holds its whole size (`whole_size`).  False if it cannot, or needs all its rows."""
    w, h = im.size
    if im.format != "PNG" or rows >= h or im.info.get("interlace") or getattr(im, "n_frames", 1) != 1 \
            or len(im.tile) != 1 or tuple(im.tile[0][1]) != (0, 0, w, h):
        return False
    tile = im.tile[0]
    extents = (0, 0, w, rows)
    im.tile = [tile._replace(extents=extents) if hasattr(tile, "_replace") else (tile[0], extents, *tile[2:])]
    im._size = (w, rows)
    im.info[WHOLE] = (w, h)
    return True


def whole_size(im: Image.Image) -> tuple[int, int]:
    """The pixel size of the picture `im` is (all of it, or its top rows: `decode_rows`)."""
    got = im.info.get(WHOLE)
    return (int(got[0]), int(got[1])) if got else (int(im.size[0]), int(im.size[1]))


def set_print_dpi(dpi: float) -> None:
    """The resolution of the print PDFs' images in this process (the game being laid out's
    `image_dpi`: `layout.engine.Resources`)."""
    _print_dpi[0] = float(dpi)


def print_dpi() -> float:
    return _print_dpi[0]
SOFT = 0.8              # below this share of the resolution asked, an image prints soft (warned)


def pixels(w_pt: float, h_pt: float, dpi: float) -> tuple[int, int]:
    """The pixels a box of `w_pt` x `h_pt` points shows at `dpi`."""
    return max(1, math.ceil(abs(w_pt) * dpi / 72 - 1e-6)), max(1, math.ceil(abs(h_pt) * dpi / 72 - 1e-6))


def shown(x: float, y: float, w: float, h: float, clip: tuple[float, float, float, float] | None
          ) -> tuple[float, ...]:
    """An image drawn at (x, y) `w` x `h` points clipped to the box `clip` (x, y, w, h; a
    `cover` image): (w, h) and the part of it the box shows, as fractions of its width and
    height (left, top, right, bottom); (w, h) alone when all of it shows.  What its copies are
    cut to (`render.art.window`): the layout, the drawing and what a cached side needs
    (`model.ops.needs`) all work it out here, from the same numbers."""
    if not clip or w <= 0 or h <= 0:
        return float(w), float(h)
    cx, cy, cw, ch = clip
    part = (max(0.0, float(cx - x) / w), max(0.0, float(cy - y) / h),
            min(1.0, float(cx + cw - x) / w), min(1.0, float(cy + ch - y) / h))
    if part == (0.0, 0.0, 1.0, 1.0) or part[2] <= part[0] or part[3] <= part[1]:
        return float(w), float(h)
    return (float(w), float(h), *part)


def soft(iw: int, ih: int, w_pt: float, h_pt: float, dpi: float) -> bool:
    """Whether an image of iw x ih px drawn w_pt x h_pt points prints visibly soft at `dpi`."""
    tw, th = pixels(w_pt, h_pt, dpi)
    return iw < tw * SOFT or ih < th * SOFT
