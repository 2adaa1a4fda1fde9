"""PDFs assembled from kept bytes: a one-card edit writes one card's objects and the
cross-reference, and takes every other object's bytes from the file the last build wrote.

The print sheets and cards.pdf are made by ReportLab (`render.pdf`).  In such a file every
object but the card forms depends only on what the document shows *around* its cards: the
pages' plan, the forms' names and sizes, how the document names and codes its fonts
(`CardCanvas.fix_resources`), the fonts' files, the images and SVG forms the cards use, the
options, the title and cardgen's code.  The form of a card side depends on its drawing (its
reuse key in the form cache: `Drawer.keys`).  So when the *structure key* (a digest of the
former, worked out by the output and the sheet writer before any page is drawn) is the one
the last build recorded, the new file is the last one with the card forms whose reuse key
changed formatted again, in the same object numbers: the same bytes a clean build makes
(tests/test_pdf_bytes.py compares them), without drawing a page or formatting the rest.

What is kept, per output folder (`<output>/.cache/pdfs.bin`, sealed as every cache file):
for each structure key, the file it describes, its SHA-256, where each object begins, where
the cross-reference begins, each card form's object number and reuse key (the forms are
named `card1`, `card2`, ... in the order of their numbers) and what its side's reuse key read
besides the fonts' naming (`Drawer.side_ident`), and the object numbers of the other objects a
card form may refer to (SVG forms, images, the fonts' dictionary).  The bytes are read from
the file itself, in the output folder (or, once a build that did not make it retired it, from
its copy in `.cache/retired/`: `PdfCache.retired`), and used only if they have that
SHA-256.  The file keeps, for each PDF, the entry of the last build that made
it (`PdfCache.payload`): a build that makes some of the folder's PDFs (`--only print`) keeps
the others' entries.

*Deferred forms* (`deferred`): the print sheets, cards.pdf and the fold-over sheets work out
their structure key from the card forms' names alone (each side's, in the order the pages
first place them: `card1`, `card2`, ...), before any form is made; the print-service file
(`render.pdfx.DeckPdf`) after making the forms of the sides it has no kept piece for (what
a piece asks for, SVG forms, images, states, is part of its structure).  When the last build
recorded it (the fonts named and coded alike, so a side of the ident its form's had keeps
that form's reuse key, not worked out again), only the forms whose reuse key changed are made,
and each is formatted in the object number the last file gave its name, its references (SVG
forms, images, fonts) to the numbers the last file gave theirs: no form object is built for an
unchanged card.  Anything
that does not hold (a form not reusable, a name the last file had not) makes the document
again from its start, every form made, and written whole (`Fallback`).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cardgen.core.cachefile import CacheFile


class Fallback(Exception):
    """A deferred document found it cannot be assembled after it began making forms: make it
    again from its start, whole."""


class PdfCache(CacheFile):
    """What the last build wrote of each assembled PDF, by structure key (module docstring)."""

    NAME = "pdfs.bin"

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path)
        self.latest: dict[str, Any] = {}        # file -> the key this process found or recorded for it

    @classmethod
    def of(cls, folder: Path) -> PdfCache:
        from cardgen.render.formcache import _open  # (saved with the form caches: `save_all`)

        return cls.open_in(folder, _open)

    @staticmethod
    def entry_ok(key: Any, entry: Any) -> bool:
        return isinstance(entry, tuple) and len(entry) == 7 and isinstance(entry[0], str)

    def get(self, key: Any) -> Any | None:
        hit = super().get(key)
        if hit is not None:
            self.latest[hit[0]] = key
        return hit

    def put(self, key: Any, entry: Any) -> None:
        super().put(key, entry)
        self.latest[entry[0]] = key

    def payload(self) -> Any:
        """For each file this process assembled or wrote, the last entry it found or made for
        it; for each other file still there, or kept in the cache when a build retired it
        (`retired`), the entry the cache had (a build that makes some of the folder's PDFs
        keeps the others'): one entry a file."""
        others: dict[str, Any] = {}
        for key, entry in self.entries.items():
            if entry[0] not in self.latest:
                others[entry[0]] = key
        keep = set(self.latest.values()) | {key for file, key in others.items()
                                            if Path(file).is_file() or (self.retired(Path(file)) or Path()).is_file()}
        return {key: entry for key, entry in self.entries.items() if key in keep}

    def retired(self, file: Path) -> Path | None:
        """Where the output file `file` is kept once a build that did not make it retired it
        (`atomic.Staging.retire`: `--only print` removes cards.pdf), for the next build to
        assemble it from (its SHA-256 checked as the file's is); None where it would be reached
        through a link, or the file is not in this cache's output folder."""
        from cardgen.core.atomic import retired_copy
        from cardgen.core.paths import through_link

        if self.path is None:
            return None
        out = self.path.parent.parent
        try:
            copy = retired_copy(out, Path(file).relative_to(out))
        except ValueError:
            return None
        return None if through_link(copy, len(copy.relative_to(out).parts)) else copy

    def files(self) -> set[str]:
        """The files the cache has an entry for (paths, as `Assembly` gives them)."""
        self.load()
        return {entry[0] for entry in self.entries.values()}


def _objects(doc: Any) -> list[int]:
    """Where each object of a document ReportLab has just written begins, by object number."""
    return [doc.idToOffset[doc.numberToId[n]] for n in range(1, len(doc.numberToId) + 1)]


def _form_numbers(doc: Any, keys: dict[str, str | None]) -> dict[int, str] | None:
    """Object number -> reuse key of each card form `keys` names (form name -> reuse key; the
    forms are `card1`, `card2`, ... in the order of their numbers); None if a form has none
    (it is not kept: the file cannot be assembled)."""
    from reportlab.pdfbase.pdfdoc import xObjectName

    out = {}
    for name, key in keys.items():
        if key is None:
            return None
        out[doc.idToObjectNumberAndVersion[xObjectName(name)][0]] = key
    return out


def _named(doc: Any, forms: dict[int, str]) -> list[tuple[str, int]]:
    """(name, object number) of what a card form may refer to besides itself: the fonts'
    dictionary and every other form or image (`deferred` formats new forms against them)."""
    return [(name, num) for num, name in doc.numberToId.items()
            if num not in forms and (name == "BasicFonts" or name.startswith("FormXob."))]


def _startxref(data: bytes) -> int:
    at = data.rindex(b"startxref\n") + len(b"startxref\n")
    return int(data[at:data.index(b"\n", at)])


def _entry(previous: Path, data: bytes, offsets: list[int], xref: int, forms: dict[int, str],
           named: list[tuple[str, int]], idents: list[tuple] | None = None) -> tuple:
    """`idents`: each form's side's `Drawer.side_ident`, in the order of the forms' numbers
    (None: not known; `deferred` then works out every side's reuse key)."""
    return (str(previous), hashlib.sha256(data).hexdigest(), offsets, xref, sorted(forms.items()), named, idents)


def record(cache: PdfCache, key: str, data: bytes, doc: Any, keys: dict[str, str | None], previous: Path,
           idents: Callable[[], list[tuple]] | None = None) -> None:
    """Keep what `deferred` needs of `data`, the PDF of `doc` with the card forms `keys`,
    written to `previous` (`idents()`: as `_entry`'s, asked for once the forms are known to
    be kept)."""
    forms = _form_numbers(doc, keys)
    if forms is None:
        return
    sides = idents() if idents is not None else None
    cache.put(key, _entry(previous, data, _objects(doc), _startxref(data), forms, _named(doc, forms),
                          sides if sides is not None and len(sides) == len(forms) else None))


def _last(cache: PdfCache, key: str, previous: Path) -> tuple[tuple, bytes] | None:
    """The entry kept for `key` and the file it describes, if it still has its SHA-256."""
    kept = cache.get(key)
    if kept is None or kept[0] != str(previous):
        return None
    try:
        old = previous.read_bytes()
    except FileNotFoundError:           # (retired by the last build: kept in the cache, not through a link)
        copy = cache.retired(previous)
        try:
            old = copy.read_bytes() if copy is not None else b""
        except OSError:
            return None
    except OSError:
        return None
    return (kept, old) if hashlib.sha256(old).hexdigest() == kept[1] else None


def _rebuilt(old: bytes, offsets: list[int], xref: int, made: dict[int, bytes]) -> tuple[bytes, list[int], int]:
    """The last file `old` with the objects `made` (object number -> its new bytes, `N 0 obj`
    to `endobj`) in their places, and a new cross-reference: (the file, where each object
    begins, where the cross-reference begins).  `rlcompat.WRITTEN` counts the bytes."""
    from cardgen.render.rlcompat import WRITTEN

    # (the objects between two made ones are copied as one run, their places shifted by what
    # the made ones before them changed; their lines of the old cross-reference kept where
    # nothing before them changed)
    count = len(offsets)
    head = b"xref\n0 %d\n0000000000 65535 f \n" % (count + 1)
    line = xref + len(head)               # (where the old table's line of object 1 begins: 20 bytes each)
    old_table = old[xref:line] == head
    parts, starts, lines = [old[:offsets[0]]], [], []
    shift = fresh = 0
    first = 1                   # (the first object of the run not copied yet)
    for num in sorted(k for k in made if 1 <= k <= count):
        start, end = offsets[num - 1], offsets[num] if num < count else xref
        parts.append(old[offsets[first - 1]:start])
        starts += [o + shift for o in offsets[first - 1:num - 1]] if shift else offsets[first - 1:num - 1]
        finish = old.index(b"endobj\n", start) + len(b"endobj\n")
        chunk = made[num] + old[finish:end]     # (the object, then what the old file had after it: nothing)
        fresh += len(chunk)
        parts.append(chunk)
        starts.append(start + shift)
        shift += len(chunk) - (end - start)
        first = num + 1
    if first <= count:
        parts.append(old[offsets[first - 1]:xref])
        starts += [o + shift for o in offsets[first - 1:]] if shift else offsets[first - 1:]
    at = xref + shift
    kept = 0                    # (the leading objects whose places did not change)
    if old_table:
        while kept < count and starts[kept] == offsets[kept]:
            kept += 1
        if kept and (old[line:line + 20] != b"%010d 00000 n \n" % offsets[0]
                     or old[line + 20 * (kept - 1):line + 20 * kept] != b"%010d 00000 n \n" % offsets[kept - 1]):
            kept = 0            # (not the table this writes: made again whole)
        lines.append(old[line:line + 20 * kept])
    lines += [b"%010d 00000 n \n" % s for s in starts[kept:]]
    table = b"".join([head, *lines])
    trailer = old[old.index(b"trailer\n", xref):old.rindex(b"startxref\n")]
    tail = table + trailer + b"startxref\n%d\n%%%%EOF\n" % at
    data = b"".join(parts) + tail
    WRITTEN[0] += len(data) - fresh - len(tail)
    WRITTEN[1] += fresh + len(tail)
    return data, starts, at


def kept(assembly: Assembly | None) -> bool:
    """Whether the cache has an entry for the file at all (a first build has none: its
    documents make their forms before working out their structure, as before `deferred`)."""
    if assembly is None:
        return False
    cache, _, previous = assembly
    cache.load()
    file = str(previous)
    return any(entry[0] == file for entry in cache.entries.values())


def deferred(assembly: Assembly, structure: Any, drawer: Any, sides: Sequence[Any]) -> bytes | None:
    """The PDF of `drawer`'s document, whose card forms are `sides` (in the order the pages
    first place them, named `card1`, `card2`, ...: none made yet), from the file the last
    build wrote with the same `structure` (module docstring): only the forms whose reuse key
    (`Drawer.reuse_key`) changed are made, each formatted in the object number the last file
    gave its name.  None, with nothing made, if there is no such file or a side has no reuse
    key; `Fallback` if something does not hold once forms were made."""
    from reportlab.pdfbase.pdfdoc import PDFIndirectObject, xObjectName

    from cardgen.core.digest import digest
    from cardgen.render.rlcompat import _without_a85

    cache, base, previous = assembly
    key = digest(base, structure, drawer._tokens)
    last = _last(cache, key, previous)
    if last is None:
        return None
    (_, _, offsets, xref, old_forms, named, old_idents), old = last
    if len(old_forms) != len(sides) or (old_idents is not None and len(old_idents) != len(sides)):
        return None
    reuses, changed, idents = [], [], []
    for n, (side, had) in enumerate(zip(sides, old_forms)):     # (`card1`, `card2`, ...: in their numbers' order)
        ident = drawer.side_ident(side)
        idents.append(ident)
        if old_idents is not None and old_idents[n] == ident:
            reuse = had[1]      # (the side the last file's form showed, fonts named and coded alike: its key)
        else:
            reuse = drawer.reuse_key(side, remember=True)
            if reuse is None:
                return None
        reuses.append(reuse)
        if had[1] != reuse:
            changed.append((side, had[0], reuse))
    drawer.keep(sides, reuses)
    doc = drawer.c._doc
    numbers = dict(named)
    todo = []
    for side, num, reuse in changed:
        name = drawer.card_form(side)
        if drawer.keys[name] != reuse:
            raise Fallback
        numbers[xObjectName(name)] = (num, 0)
        todo.append((num, xObjectName(name)))
    made = {}
    own, memo = doc.idToObjectNumberAndVersion, doc.__dict__.pop("_cardgen_resources", None)
    doc.idToObjectNumberAndVersion = {k: v if isinstance(v, tuple) else (v, 0) for k, v in numbers.items()}
    counter = doc.objectcounter
    try:
        with _without_a85():
            for num, oid in todo:
                made[num] = PDFIndirectObject(oid, doc.idToObject[oid]).format(doc)
        if doc.objectcounter != counter:        # (formatting named an object the last file may not have)
            raise Fallback
    except KeyError:
        raise Fallback from None
    finally:
        doc.idToObjectNumberAndVersion = own
        doc.__dict__.pop("_cardgen_resources", None)
        if memo is not None:
            doc.__dict__["_cardgen_resources"] = memo
    data, starts, at = _rebuilt(old, offsets, xref, made)
    forms = {num: reuse for (num, _), reuse in zip(old_forms, reuses)}
    cache.put(key, _entry(previous, data, starts, at, forms, named, idents))
    return data


# (the cache, what the file depends on besides the structure its writer knows (the output's
# options, fonts, code version), and the file the last build wrote)
Assembly = tuple[PdfCache, str, Path]


def _file(path: str, files: dict[str, str | None]) -> str | None:
    """The file's SHA-256 (`files`: those worked out for this document)."""
    if path not in files:
        from cardgen.core.digest import file_digest

        try:
            files[path] = file_digest(Path(path))
        except OSError:
            files[path] = None
    return files[path]


def names(sides: Sequence[Any]) -> tuple[list[Any], dict[int, str]]:
    """The distinct sides of `sides` (the order a document first places them in), and the
    name `Drawer.card_form` gives each side's form (by id) when they are made in that order."""
    order: dict[int, Any] = {}
    for layout in sides:
        if layout is not None:
            order.setdefault(id(layout), layout)
    return list(order.values()), {key: f"card{n}" for n, key in enumerate(order, 1)}


def side(drawer: Any, layout: Any, files: dict[str, str | None], named: dict[int, str]) -> tuple | None:
    """What the objects of a document around a card side's form depend on: the form's name
    (`named`, by the side's id: `names`; None: not in the document), the side's size and
    outline, the SVGs and images it shows (by content, at the drawer's resolution; `files`:
    the files' digests worked out so far).  The part that does not depend on the document is
    worked out once a process for the side (the papers' sheets and cards.pdf show the same
    sides)."""
    if layout is None:
        return None
    dpi = drawer._dpi()
    own = layout.__dict__.get("_assembly")
    if own is None or own[0] != dpi:
        from cardgen.model import ops

        need = ops.needs(layout)
        shows = ([(p, themed, _file(p, files)) for p, themed in need.svgs],
                 [(p, _file(p, files)) for p in need.rasters], need.boxes) if need.svgs or need.rasters else ()
        own = layout.__dict__["_assembly"] = (dpi, (layout.width, layout.height, layout.bleed, layout.shape,
                                                    layout.outline, shows, dpi if need.rasters else 0))
    return named.get(id(layout)), own[1]


def assembled(assembly: Assembly | None, structure: Any, drawer: Any, write: Callable[[], bytes],
              sides: Sequence[Any] = ()) -> bytes:
    """The PDF of `drawer`'s document written whole (`write()`: ReportLab draws the pages and
    writes every object), and with an `assembly` kept for the next build's `deferred`, if its
    card forms have the names `deferred` takes them by (`sides`: its card forms, in order)."""
    data = write()
    if assembly is not None and len(drawer.keys) == len(sides) and all(
            drawer.forms.get(("card", id(layout), drawer.image_dpi), ("",))[0] == f"card{n}"
            for n, layout in enumerate(sides, 1)):
        from cardgen.core.digest import digest

        cache, base, previous = assembly
        record(cache, digest(base, structure, drawer._tokens), data, drawer.c._doc, drawer.keys, previous,
               idents=lambda: [drawer.side_ident(layout) for layout in sides])
    return bytes(data)
