"""Card forms drawn once, reused: by every PDF of a build and by the next build.

Drawing a card side into a PDF form (`Drawer.card_form`) is most of the work of the print
sheets and cards.pdf.  The form's operators depend only on the card side (its drawing
operations and the fonts and files they use: `ops.layout_digest`) and on how the document
names its fonts and font codes, which `Drawer.prepare` fixes from the cards it will draw
(`CardCanvas.fix_resources`: the same cards give the same names).  So
the operators drawn for `print-letter.pdf` serve `print-a4.pdf` and `cards.pdf` as they are,
and a rebuild after one card was edited draws that one card.

A `FormCache` holds them by (document token, card side digest), one per output folder
(`FormCache.of(folder)`, shared by every output of a build and kept while `--watch` runs),
saved to `<output>/.cache/forms.bin` when the build is done (`save_all`): the entries that
build used.  The file is kept as every cache file of an output folder is
(`core.cachefile`): sealed with a checksum (a damaged file is deleted and its forms drawn
again) and ignored unless this installation of cardgen wrote it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from cardgen.core.cachefile import CacheFile, save_every

# a form's operators (`rlcompat.squeezed` where the stream is kept too), the forms and images
# it uses, its size (an SVG's; () for a card), the transparency states it named
# ([((key, value), name)]) and, for a card form without images, its stream as the PDF holds
# it: (the preamble it begins with, the compressed bytes), or None (`CardCanvas.kept_stream`:
# a rebuild compresses no stream but the edited cards')
Entry = (tuple[str | bytes, list[str], tuple[float, ...], list]
         | tuple[str | bytes, list[str], tuple[float, ...], list, Any])
_open: dict[Path, Any] = {}      # the form caches, and the print-service's (`render.pdfxcache`)


class Forms(Protocol):
    """What `Drawer` asks of a cache of forms: a `FormCache`, or a raster worker's SVG forms."""

    def get(self, key: Any) -> Any | None: ...

    def put(self, key: Any, entry: Any) -> None: ...


class FormCache(CacheFile):
    NAME = "forms.bin"
    offered = 0         # forms offered (`offer`), since this process opened the file

    @classmethod
    def of(cls, folder: Path) -> FormCache:
        """The cache of an output folder (`<folder>/.cache/forms.bin`), one per process."""
        return cls.open_in(folder, _open)

    @property
    def drawn(self) -> int:
        """Forms drawn (not found), since this process opened the file."""
        return self.made

    @property
    def reused(self) -> int:
        """Forms found."""
        return self.found

    def offer(self, key: Any, entry: Any) -> None:
        """A form drawn elsewhere for documents that name and code the fonts alike (the raster
        workers', `render.raster.offer_forms`), there for a document that asks for it; kept by
        `save` only if one did (it is not counted as drawn, nor as found until it is)."""
        if not self._loaded:
            self.load()
        if key not in self.entries:
            self.entries[key] = entry
            self.offered += 1
            self._new = True


def save_all() -> None:
    """Save every output folder's cache this process drew forms into (after a build)."""
    save_every(_open)
