"""Images made of card-side bitmaps on a grid (Tabletop Simulator's deck sheets and pieces'
images), each cell pasted as it comes: from a render just made (`raster.run` hands a raster
worker's renders of the sheet it makes straight to it, so they are not read back from the
bitmap cache) or from its cached file.

A cell is a cached bitmap's file (scaled to the cell as it is pasted when its size differs),
(that file, 180) for a die's face turned over, an RGB colour, or None (left white).  The
pixels do not depend on where a cell came from: a cached bitmap is the render, losslessly.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from cardgen.render import raster

if TYPE_CHECKING:
    from cardgen.render.raster import Unit

Finish = Callable[[Image.Image, bool, str], Image.Image]


def encode(img: Image.Image, fmt: str, quality: int) -> bytes:
    buf = io.BytesIO()
    if fmt == "png":
        img.save(buf, "PNG", compress_level=6)
    else:
        img.save(buf, "JPEG", quality=quality, subsampling=0, optimize=False)
    return buf.getvalue()


class Mosaic:
    """One image file to make (`out`, sealed as a cache entry): open it, `put` the renders at
    hand, then `close` pastes the other cells from the cache, encodes the image and writes it.
    `finish`: what is done to the whole image before it is encoded, with `turn` and `mask`
    (a piece's image turned, cut out: `outputs.tts_objects.finish`)."""

    def __init__(self, cells: list, cols: int, rows: int, cw: int, ch: int, fmt: str, quality: int,
                 out: str | Path, finish: Finish | None = None, turn: bool = False, mask: str = ""):
        self.out = Path(out)
        self.cells, self.cols, self.cw, self.ch = cells, cols, cw, ch
        self.rows, self.fmt, self.quality = rows, fmt, quality
        self.finish, self.turn, self.mask = finish, turn, mask
        self.image: Image.Image | None = None
        self.done: set[int] = set()

    def open(self) -> bool:
        """Start the image; False if it is in the cache already (nothing to make)."""
        if self.out.is_file() and raster.is_intact(self.out):
            return False
        self.image = Image.new("RGB", (self.cols * self.cw, self.rows * self.ch), (255, 255, 255))
        return True

    def put(self, path: str | Path, img: Image.Image) -> None:
        """Paste the bitmap of the cached file `path` into every cell that shows it."""
        path = str(path)
        fitted = None
        for i, cell in enumerate(self.cells):
            if i in self.done or not (cell == path or (isinstance(cell, tuple) and len(cell) == 2 and
                                                       cell[0] == path)):
                continue
            if fitted is None:
                fitted = img if img.size == (self.cw, self.ch) else img.resize((self.cw, self.ch),
                                                                                Image.Resampling.LANCZOS)
            self._paste(i, fitted.transpose(Image.Transpose.ROTATE_180) if isinstance(cell, tuple) else fitted)

    def _paste(self, i: int, img) -> None:
        assert self.image is not None
        x, y = (i % self.cols) * self.cw, (i // self.cols) * self.ch
        if isinstance(img, tuple):
            self.image.paste(img, (x, y, x + self.cw, y + self.ch))
        else:
            self.image.paste(img, (x, y))
        self.done.add(i)

    def close(self) -> str:
        """Paste the cells not put yet (from the cache), encode and write; returns the file."""
        from cardgen.core.atomic import write_bytes

        if self.image is None:
            return str(self.out)
        for i, cell in enumerate(self.cells):
            if i in self.done or cell is None:
                continue
            if isinstance(cell, tuple) and len(cell) != 2:
                self._paste(i, cell)
                continue
            path = cell[0] if isinstance(cell, tuple) else cell
            self.put(path, raster.open_image(path))        # (copies are consecutive: each read once)
        img = self.image if self.finish is None else self.finish(self.image, self.turn, self.mask)
        self.image = None
        write_bytes(self.out, raster.seal(encode(img, self.fmt, self.quality)))
        return str(self.out)

    def make(self) -> str:
        self.open()
        return self.close()


def made(units: list[Unit], font_dirs: tuple, font_names: dict, art_at, known, args: tuple) -> list:
    """Make one mosaic (`args`: `Mosaic`'s) in this process, rendering `units` into it as
    `raster._run_jobs` renders them (a group of `raster.run`); returns what that returns."""
    sheet = Mosaic(*args)
    done = raster._run_jobs(units, font_dirs, font_names, art_at, known, sheet.put if sheet.open() else None)
    sheet.close()
    return done
