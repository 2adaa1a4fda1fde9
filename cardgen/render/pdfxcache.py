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
- "colours": the sRGB colours the separation turned into inks (by the profile and rich
  black: `Separation.keep_colours`), so that a rebuild makes Little CMS's transform only for
  a colour or picture no build before separated;
- "safe": the text of a side that comes too close to the trim (by drawing and margin);
- "art": an image file converted to the profile's inks, the converted file's name and its
  highest ink (by the file's content, the profile and the plate);
- "svg": an SVG file's form as the PDF/X file draws it, its colours separated, and its
  highest ink (by the file's content, how it is themed, the base font, the separation and
  the plate; `cardgen.render.pdfx._KeptSvgs`), so that the kept sides' icons are not drawn
  again with svglib.

So a rebuild after one card was edited converts that card's sides only, and the file is
byte for byte the one a clean build makes (`cardgen.render.pdfx.DeckPdf`).  The converted
images are kept as the PDF holds them (`KeptImage`: ReportLab's image object, compressed, so
a rebuild neither decodes nor compresses a deck's art again), each a sealed file in
`<output>/.cache/pdfx/` named by its pixels and headed by cardgen's code version, deleted
when the entries kept no longer name it.
"""
from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from cardgen.core import atomic
from cardgen.core.cachefile import CacheFile
from cardgen.core.digest import code_version, digest, read_sealed, seal
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
        self._images: dict[str, KeptImage] = {}

    def piece(self, key: str) -> Piece | None:
        raw = self.get(key)
        if not isinstance(raw, tuple) or len(raw) != len(Piece._fields):
            return None
        piece = Piece(*raw)
        return piece if all(isinstance(n, str) and _NAME.fullmatch(n) for n in piece.images) else None

    def has_images(self, piece: Piece) -> bool:
        """Are the images `piece` shows kept, intact?"""
        return all(self.image(n) is not None for n in piece.images)

    def keep_piece(self, key: str, piece: Piece) -> None:
        self.put(key, tuple(piece))

    # -- converted images ------------------------------------------------------------------
    def image(self, name: str) -> KeptImage | None:
        """The converted image `name` as the PDF holds it, kept by a build before; None when
        there is none, or it is damaged (then it is deleted) or made by another installation."""
        hit = self._images.get(name)
        if hit is not None or self.folder is None or not _NAME.fullmatch(name):
            return hit
        body = read_sealed(self.folder / f"{name}.img")
        if body is None:
            return None
        hit = KeptImage.loads(body)
        if hit is not None:
            self._images[name] = hit
        return hit

    def keep_image(self, name: str, image: KeptImage) -> None:
        """Keep the converted image `name` (named by its pixels) as the PDF holds it."""
        self._images[name] = image
        if self.folder is not None and _NAME.fullmatch(name) and not (self.folder / f"{name}.img").is_file():
            with contextlib.suppress(OSError):
                atomic.write_bytes(self.folder / f"{name}.img", seal(image.dumps()))

    def save(self) -> None:
        """Keep the entries this process used, and the converted images they name."""
        changed = self._new
        super().save()
        self._images.clear()                 # (read again by the next build: memory stays flat)
        if not changed or self.folder is None or not self.folder.is_dir():
            return
        named = {f"{n}.img" for key, value in self.entries.items() if key in self.used
                 for n in _images(key, value)}
        for path in self.folder.iterdir():
            if path.name not in named and _NAME.fullmatch(path.stem) and path.suffix == ".img":
                with contextlib.suppress(OSError):
                    path.unlink()


@dataclass(frozen=True)
class KeptImage:
    """An image as the PDF holds it (ReportLab's `PDFImageXObject`, compressed): what ReportLab
    would make from the converted file again by decoding and compressing it, which for a
    deck's art is most of the work of writing its file."""

    name: str                       # ReportLab's name for it (a hash of its pixels)
    width: int
    height: int
    bits: int
    space: str                      # DeviceCMYK, DeviceRGB, DeviceGray
    filters: tuple[str, ...]
    mask: tuple[int, ...] | None
    decode: tuple[float, ...] | None
    dotrans: int
    stream: bytes

    @classmethod
    def of(cls, obj: Any) -> KeptImage | None:
        """ReportLab's image object, if it can be made again from this (no soft mask)."""
        stream = obj.streamContent
        if not isinstance(stream, bytes) or getattr(obj, "smask", None) is not None or hasattr(obj, "_smask"):
            return None
        decode = getattr(obj, "_decode", None)
        return cls(str(obj.name), int(obj.width), int(obj.height), int(obj.bitsPerComponent), str(obj.colorSpace),
                   tuple(str(f) for f in obj._filters), tuple(obj.mask) if obj.mask else None,
                   tuple(decode) if decode else None, int(getattr(obj, "_dotrans", 0)), stream)

    def xobject(self) -> Any:
        """The `PDFImageXObject`, as ReportLab made it."""
        from reportlab.pdfbase import pdfdoc

        obj = pdfdoc.PDFImageXObject(self.name)
        obj.width, obj.height, obj.bitsPerComponent, obj.colorSpace = self.width, self.height, self.bits, self.space
        obj._filters, obj.streamContent = self.filters, self.stream
        obj.mask = list(self.mask) if self.mask else None
        if self.decode:
            obj._decode = list(self.decode)
        if self.dotrans:
            obj._dotrans = self.dotrans
        return obj

    def dumps(self) -> bytes:
        """cardgen's code version, the image's description (JSON) and its stream, a line each."""
        head = {k: v for k, v in self.__dict__.items() if k != "stream"}
        return code_version().encode() + b"\n" + json.dumps(head, sort_keys=True).encode() + b"\n" + self.stream

    @classmethod
    def loads(cls, data: bytes) -> KeptImage | None:
        """What `dumps` wrote, by this installation of cardgen (else None, unread)."""
        version = code_version().encode() + b"\n"
        if not data.startswith(version):
            return None
        head, _, stream = data[len(version):].partition(b"\n")
        try:
            d = json.loads(head)
            return cls(str(d["name"]), int(d["width"]), int(d["height"]), int(d["bits"]), str(d["space"]),
                       tuple(str(f) for f in d["filters"]), tuple(int(v) for v in d["mask"]) if d["mask"] else None,
                       tuple(float(v) for v in d["decode"]) if d["decode"] else None, int(d["dotrans"]), stream)
        except (ValueError, KeyError, TypeError):
            return None


def _images(key: str, value: Any) -> list[str]:
    """The converted images an entry names."""
    kind = key.split(":", 1)[0]
    if kind == "side" and isinstance(value, tuple) and len(value) == len(Piece._fields):
        return [str(n) for n in Piece(*value).images]
    if kind == "art" and isinstance(value, tuple) and value:
        return [str(value[0])]
    return []
