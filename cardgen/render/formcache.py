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
build used, sealed with a checksum like every cache file (`core.digest.seal`; a damaged file
is deleted and its forms drawn again).  The file starts with cardgen's code version
(`core.digest.code_version`, which includes when this installation's libraries were
installed): a file made by another installation, such as one shipped inside a downloaded
game folder, is ignored without being read further.

That file is an `EntryFile`: the print-service PDFs keep their own pieces in one too
(`cardgen.render.pdfxcache`).
"""
from __future__ import annotations

import contextlib
import marshal
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

from cardgen.core import atomic
from cardgen.core.digest import CorruptCache, code_version, read_payload, seal

# a form's operators, the forms and images it uses, its size (an SVG's; () for a card) and
# the transparency states it named ([((key, value), name)])
Entry = tuple[str, list[str], tuple[float, ...], list]
E = TypeVar("E")
_open: dict[Path, EntryFile[Any]] = {}


class EntryFile(Generic[E]):
    """Entries by key in one sealed file of an output folder's `.cache/` (`FILE`), kept while
    a build uses them; `marshal`led (plain data only), headed by cardgen's code version."""

    FILE: ClassVar[str] = ""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.entries: dict[str, E] = {}
        self.used: set[str] = set()
        self.drawn = 0                  # entries made (forms drawn: not found), since this process opened it
        self.reused = 0                 # entries found
        self._new = False               # drawn since saved
        self._loaded = path is None
        self._stamp: tuple[int, int] | None = None      # the file as last read or written

    @classmethod
    def of(cls, folder: Path) -> Self:
        """The cache of an output folder (`<folder>/.cache/<FILE>`), one per process (read
        again when the file changed since: another process wrote it, or it was damaged)."""
        path = Path(folder) / ".cache" / cls.FILE
        hit = _open.get(path)
        if not isinstance(hit, cls) or (hit._loaded and hit._stamp != _stamp(path)):
            hit = _open[path] = cls(path)
        return hit

    def _load(self) -> None:
        self._loaded = True
        if self.path is None:
            return
        self._stamp = _stamp(self.path)
        try:
            body = read_payload(self.path)
        except CorruptCache:
            with contextlib.suppress(OSError):
                self.path.unlink()
            return
        except OSError:
            return
        head = code_version().encode() + b"\n"
        if not body.startswith(head):
            return       # another version of cardgen (or not cardgen's): never unmarshalled
        with contextlib.suppress(ValueError, EOFError, TypeError):
            entries = marshal.loads(body[len(head):])
            if isinstance(entries, dict):
                self.entries = entries

    def get(self, key: str) -> E | None:
        if not self._loaded:
            self._load()
        hit = self.entries.get(key)
        if hit is not None:
            self.used.add(key)
            self.reused += 1
        return hit

    def put(self, key: str, entry: E) -> None:
        self.entries[key] = entry
        self.used.add(key)
        self.drawn += 1
        self._new = True

    def save(self) -> None:
        """Keep the entries this process used (if it made any: else the file is current)."""
        if self.path is None or not self._new:
            return
        body = marshal.dumps({k: v for k, v in self.entries.items() if k in self.used})
        atomic.write_bytes(self.path, seal(code_version().encode() + b"\n" + body))
        self._stamp = _stamp(self.path)
        self._new = False


class FormCache(EntryFile[Entry]):
    FILE = "forms.bin"


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def save_all() -> None:
    """Save every output folder's cache file this process made entries in (after a build)."""
    for cache in _open.values():
        with contextlib.suppress(OSError):
            cache.save()
