"""What the print-service PDF did to each card side, kept for the next build.

Putting a card side into `print-service/<deck>-pdfx.pdf` takes more than drawing it: its
transparency is flattened (`cardgen.render.flatten`: PDFium renders it), its images are
converted to the profile's inks (`Separation.convert_art`: Little CMS), its colours are
separated as it is drawn, and the preflight measures its ink (two more renders) and how close
its text comes to the trim.  A `PdfxCache`, one per output folder (`<output>/.cache/pdfx.bin`,
a `core.cachefile.CacheFile` like the drawn card forms' of `cardgen.render.formcache`: sealed with a
checksum, a damaged file deleted, headed by cardgen's code version so that a file from
another installation is ignored, plain data only), keeps per card side:

- "side" entries, a `Piece`: the side's form as the PDF/X file draws it, keyed by the side's
  drawing (`ops.layout_digest`: its operations and the fonts and files they use), the
  separation (`Separation.key`: the output profile and rich black) and how the document
  codes the fonts the side uses (`CardCanvas.fix_resources`);
- "ink": the highest total ink measured on a side (by drawing and the separation);
- "safe": the text of a side that comes too close to the trim (by drawing and margin);
- "art": an image file converted to the profile's inks, the converted file's name and its
  highest ink (by the file's content, the profile and the plate).

So a rebuild after one card was edited converts that card's sides only, and the file is
byte for byte the one a clean build makes (`cardgen.render.pdfx.DeckPdf`).  The converted
images are sealed files in `<output>/.cache/pdfx/`, named by their content, deleted when the
entries kept no longer name them.
"""
from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any, NamedTuple

from cardgen.core import atomic
from cardgen.core.cachefile import CacheFile
from cardgen.core.digest import CorruptCache, digest, read_payload, seal
from cardgen.model import ops
from cardgen.render import formcache
from cardgen.resources.fonts import font_files

_NAME = re.compile(r"[0-9a-f]{24}")     # a converted image's name (`Separation.convert_art`)


def key(kind: str, *inputs: Any) -> str:
    """An entry's key: its kind ("side", "ink", "safe", "art") and the hash of its inputs."""
    return f"{kind}:{digest(*inputs)}"


def side_key(kind: str, side: ops.CardLayout, *inputs: Any) -> str:
    """The key of an entry about one card side: its drawing (`ops.layout_digest`) and `inputs`."""
    return key(kind, ops.layout_digest(side, font_files()), *inputs)


class Piece(NamedTuple):
    """A card side as a print-service PDF draws it, in a form made again from this alone."""

    code: str                       # the form's operators (`CardCanvas.form_contents`)
    forms: list[str]                # the forms and images they use
    states: list                    # the graphics states they name
    svgs: list[tuple[str, bool]]    # the SVG forms (file, themed) it asks for, in order: made before it
    images: list[str]               # the converted images it shows (names in the cache), in order
    peak: float                     # the highest total ink (%) of its colours and images
    pictures: int                   # its translucent parts printed as pictures


class PdfxCache(CacheFile):
    NAME = "pdfx.bin"

    @classmethod
    def of(cls, folder: Path) -> PdfxCache:
        """The cache of an output folder (`<folder>/.cache/pdfx.bin`), one per process, saved
        with the drawn card forms after a build (`formcache.save_all`)."""
        return cls.open_in(folder, formcache._open)

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path)
        self.converted = 0          # card sides converted (not found), since this process opened it
        self.folder = path.parent / "pdfx" if path is not None else None

    def piece(self, key: str) -> Piece | None:
        raw = self.get(key)
        if not isinstance(raw, tuple) or len(raw) != len(Piece._fields):
            return None
        piece = Piece(*raw)
        return piece if all(isinstance(n, str) and _NAME.fullmatch(n) for n in piece.images) else None

    def keep_piece(self, key: str, piece: Piece) -> None:
        self.put(key, tuple(piece))

    # -- converted images ------------------------------------------------------------------
    def stash(self, path: Path) -> None:
        """Keep the converted image `path` (named by its content) for builds to come."""
        if self.folder is None:
            return
        target = self.folder / Path(path).name
        if not target.is_file():
            with contextlib.suppress(OSError):
                atomic.write_bytes(target, seal(Path(path).read_bytes()))

    def fetch(self, name: str, folder: Path) -> Path | None:
        """The kept converted image `name` (`<name>.tif`), copied into `folder`; None when there
        is none or it is damaged (then it is deleted)."""
        target = Path(folder) / f"{name}.tif"
        if target.is_file():
            return target
        if self.folder is None or not _NAME.fullmatch(name):
            return None
        kept = self.folder / f"{name}.tif"
        try:
            target.write_bytes(read_payload(kept))
        except CorruptCache:
            with contextlib.suppress(OSError):
                kept.unlink()
            return None
        except OSError:
            return None
        return target

    def save(self) -> None:
        """Keep the entries this process used, and the converted images they name."""
        changed = self._new
        super().save()
        if not changed or self.folder is None or not self.folder.is_dir():
            return
        named = {f"{n}.tif" for key, value in self.entries.items() if key in self.used
                 for n in _images(key, value)}
        for path in self.folder.iterdir():
            if path.name not in named and _NAME.fullmatch(path.stem) and path.suffix == ".tif":
                with contextlib.suppress(OSError):
                    path.unlink()


def _images(key: str, value: Any) -> list[str]:
    """The converted images an entry names."""
    kind = key.split(":", 1)[0]
    if kind == "side" and isinstance(value, tuple) and len(value) == len(Piece._fields):
        return [str(n) for n in Piece(*value).images]
    if kind == "art" and isinstance(value, tuple) and value:
        return [str(value[0])]
    return []
