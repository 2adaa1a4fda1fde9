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

from cardgen.core.cachefile import CacheFile
from cardgen.render import raster

if TYPE_CHECKING:
    from cardgen.render.raster import Unit

Finish = Callable[[Image.Image, bool, str], Image.Image]


def encode(img: Image.Image, fmt: str, quality: int) -> bytes:
    buf = io.BytesIO()
    if fmt == "png":
        img.save(buf, "PNG", compress_level=6)
    else:
        # (a marker after each row of blocks: a sheet made again encodes only the rows that
        # changed, `render.jpegrows`; the pixels are the same)
        img.save(buf, "JPEG", quality=quality, subsampling=0, optimize=False, restart_marker_rows=1)
    return buf.getvalue()


class Mosaic:
    """One image file to make (`out`, sealed as a cache entry): open it, `put` the renders at
    hand, then `close` pastes the other cells from the cache, encodes the image and writes it.
    `finish`: what is done to the whole image before it is encoded, with `turn` and `mask`
    (a piece's image turned, cut out: `outputs.tts_objects.finish`).  `base`: (the file of
    an image of the same grid and kind, the file names of its cells), the one this replaces: a
    JPEG then holds and encodes only the rows of blocks where their cells differ, and takes
    the others' bytes from it (`render.jpegrows`: the bytes a whole encode gives).  `ready`:
    a file the image's bytes are also written to, as they are, for the output to move into
    place (`Staging.add_ready`: the build process does not read the image back from the
    cache); `made` is then (that file, their sha256) once it is written."""

    def __init__(self, cells: list, cols: int, rows: int, cw: int, ch: int, fmt: str, quality: int,
                 out: str | Path, finish: Finish | None = None, turn: bool = False, mask: str = "",
                 base: tuple[str, list] | None = None, ready: str | None = None):
        self.out = Path(out)
        self.ready = ready
        self.made: tuple[str, str] | None = None
        self.cells, self.cols, self.cw, self.ch = cells, cols, cw, ch
        self.rows, self.fmt, self.quality = rows, fmt, quality
        self.finish, self.turn, self.mask = finish, turn, mask
        self.image: Image.Image | None = None
        self.done: set[int] = set()
        self.base = base
        self.top, self.bottom = 0, rows * ch         # the pixel rows held (all, or the changed band)
        self.old: bytes | None = None                # the base's bytes, when only a band is held

    def open(self) -> bool:
        """Start the image; False if it is in the cache already (nothing to make)."""
        if self.out.is_file() and raster.is_intact(self.out):
            return False
        self._band()
        self.image = Image.new("RGB", (self.cols * self.cw, self.bottom - self.top), (255, 255, 255))
        return True

    def _band(self) -> None:
        """Hold only the rows of blocks whose cells differ from the base's, if that is less
        than half the image and the base is intact."""
        from cardgen.render.jpegrows import ROW

        if self.base is None or self.fmt != "jpeg" or self.finish is not None or len(self.base[1]) != len(self.cells):
            return
        changed = [i for i, (new, old) in enumerate(zip(self.cells, self.base[1])) if cell_name(new) != old]
        if not changed:
            return
        height = self.rows * self.ch
        top = min(i // self.cols for i in changed) * self.ch // ROW * ROW
        bottom = min(-(-(max(i // self.cols for i in changed) + 1) * self.ch // ROW) * ROW, height)
        if 2 * (bottom - top) > height:
            return
        try:
            self.old = bytes(raster.read_payload(Path(self.base[0])))
        except (OSError, raster.CorruptCache):
            return
        self.top, self.bottom = top, bottom

    def _overlaps(self, i: int) -> bool:
        y = (i // self.cols) * self.ch
        return y < self.bottom and y + self.ch > self.top

    def put(self, path: str | Path, img: Image.Image) -> None:
        """Paste the bitmap of the cached file `path` into every cell that shows it."""
        path = str(path)
        fitted = None
        for i, cell in enumerate(self.cells):
            if i in self.done or not (cell == path or (isinstance(cell, tuple) and len(cell) == 2 and
                                                       cell[0] == path)) or not self._overlaps(i):
                continue
            if fitted is None:
                fitted = img if img.size == (self.cw, self.ch) else img.resize((self.cw, self.ch),
                                                                                Image.Resampling.LANCZOS)
            self._paste(i, fitted.transpose(Image.Transpose.ROTATE_180) if isinstance(cell, tuple) else fitted)

    def _paste(self, i: int, img) -> None:
        assert self.image is not None
        x, y = (i % self.cols) * self.cw, (i // self.cols) * self.ch - self.top
        if isinstance(img, tuple):
            self.image.paste(img, (x, y, x + self.cw, y + self.ch))
        else:
            self.image.paste(img, (x, y))
        self.done.add(i)

    def close(self) -> str:
        """Paste the cells not put yet (from the cache), encode and write; returns the file."""
        from cardgen.core.atomic import write_parts

        if self.image is None:
            return str(self.out)
        self._fill()
        img = self.image if self.finish is None else self.finish(self.image, self.turn, self.mask)
        self.image = None
        data = encode(img, self.fmt, self.quality)
        if self.old is not None:
            from cardgen.render.jpegrows import ROW, splice

            band = splice(self.old, self.top // ROW, data)
            if band is None:        # (the base is not of the form expected: the image whole)
                self.old, self.top, self.bottom, self.done = None, 0, self.rows * self.ch, set()
                self.image = Image.new("RGB", (self.cols * self.cw, self.bottom), (255, 255, 255))
                self._fill()
                band, self.image = encode(self.image, self.fmt, self.quality), None
            data = band
        sealed = raster.seal_parts(data)        # (the sheet's bytes not copied to be sealed)
        write_parts(self.out, sealed)
        if self.ready is not None:
            write_parts(Path(self.ready), sealed[2:])
            self.made = (self.ready, sealed[1].hex())
        return str(self.out)

    def _fill(self) -> None:
        """Paste the cells (of the rows held) not put yet, from the cache."""
        for i, cell in enumerate(self.cells):
            if i in self.done or cell is None or not self._overlaps(i):
                continue
            if isinstance(cell, tuple) and len(cell) != 2:
                self._paste(i, cell)
                continue
            path = cell[0] if isinstance(cell, tuple) else cell
            self.put(path, raster.open_image(path))        # (copies are consecutive: each read once)

    def make(self) -> str:
        self.open()
        return self.close()


def cell_name(cell) -> object:
    """A cell as an image's record of its cells names it (`Sheets`): a bitmap by its file's
    name (its content's key), a turned one with its turn, a colour or None as it is."""
    if isinstance(cell, tuple) and len(cell) == 2:
        return f"{Path(cell[0]).name}@{cell[1]}"
    return Path(cell).name if isinstance(cell, (str, Path)) else cell


class Sheets(CacheFile):
    """What each image of the last build was made of, so that the image that replaces it
    encodes only the rows that changed (`Mosaic.base`): `<atlas folder name>/<image name>` ->
    (its grid and kind, its file's name in that folder, its cells' names).  In
    `<output>/.cache/sheets.bin`, sealed, for this code version only; the last build's images
    only."""

    NAME = "sheets.bin"

    @classmethod
    def of(cls, folder: Path) -> Sheets:
        from cardgen.render.formcache import _open  # (saved with the form caches: `save_all`)

        return cls.open_in(folder, _open)

    @staticmethod
    def entry_ok(key: object, entry: object) -> bool:
        return (isinstance(key, str) and isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], tuple)
                and isinstance(entry[1], str) and isinstance(entry[2], tuple))

    def base(self, name: str, kind: tuple, out: Path, cells: list) -> tuple[str, list] | None:
        """The base of the image `name` made of `cells` into `out` (an atlas folder's file;
        `kind`: its grid, format and finish), which is recorded as this build's."""
        key = f"{out.parent.parent.name}/{name}"
        old = self.get(key)
        entry = (tuple(kind), out.name, tuple(cell_name(c) for c in cells))
        if old != entry:
            self.put(key, entry)
        if old is None or old[0] != entry[0] or old[1] == out.name or not old[1].isascii() \
                or "/" in old[1] or "\\" in old[1] or old[1].startswith("."):
            return None
        return str(out.parent.parent / old[1][:2] / old[1]), list(old[2])


def made(units: list[Unit], font_dirs: tuple, font_names: dict, art_at, known, args: tuple) -> list:
    """Make one mosaic (`args`: `Mosaic`'s) in this process, rendering `units` into it as
    `raster._run_jobs` renders them (a group of `raster.run`); returns what that returns, and
    the image's (ready file, sha256) if it was given one (`Mosaic`'s `ready`)."""
    sheet = Mosaic(*args)
    done = raster._run_jobs(units, font_dirs, font_names, art_at, known, sheet.put if sheet.open() else None)
    sheet.close()
    return [*done, sheet.made] if sheet.made is not None else done
