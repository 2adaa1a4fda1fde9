"""Card sides laid out once, reused by the next build while nothing they read has changed.

Laying out every card again is most of what checking a game costs (`cardgen.layout.engine`).
A `LayoutCache` keeps each laid-out card side, with the problems its layout reported, in
`<output>/.cache/layout.bin` (one per output folder, next to the drawn forms of
`cardgen.render.formcache`; read by `cardgen validate` and `build`, written when a build
succeeds).  An entry is found by its **key**, a hash of everything the layout of that side
reads that is known before laying it out:

- the card's data: its fields as the template sees them (the deck's and the template's
  defaults merged in, `card.revision`, `card.revision_number`, `card.revision_hash`), its own
  mapping (which field a warning names) and its name; for a deck's shared back, the deck's name;
- the template: its name, the files it comes from (`extends:` included) and every value they
  hold (but not where: a comment or a line added to a template changes no key);
- what the template may read of `deck` and `game` (`expr.data_read`): the keys it names
  (`game.version`, `deck.count`), or all of them when it reads the whole mapping;
- the side (face, back), the card's size, shape and bleed;
- the fallback fonts, the limits on template expressions (`cardgen.core.limits`), and
  game.yaml's named span styles (`styles:`) and `smart_punctuation`;
- cardgen's code and bundled data and the installed libraries: the file starts with
  `core.digest.code_version`, and a file with another is not read.

What the layout looks up while it runs is recorded with the entry and checked before the
entry is used, the same way the layout would look it up:

- each font (family and style): the font it resolves to, and the SHA-256 of the font file
  as ReportLab read it;
- each icon and each image: the file the name resolves to (or why it was refused, or that
  there is none: an image added later is found), and the SHA-256 of its content, taken when
  the layout looked it up, before it read the file, so that a file saved while a build runs
  is read again by the next.  A file's hash is remembered with its size and modification
  time (`core.digest.DigestCache`, kept in the cache file) and trusted only when it was taken
  more than two seconds after the file's last change.

The problems a side's layout reports (text that does not fit, characters no font has, an
element off the card) are kept with it and reported again, in the same order, when it is
reused.  They name places in the deck file and the template, so an entry whose side reported
any is used only while the card and its template are where they were (the line and column of
the card, of its fields and of every value of the template; its **anchor**): after a line is
added above it, the card is laid out again.  An entry that reported nothing is used wherever
the card or its template's values have moved.

A side whose layout failed is not kept (it is laid out again, and says what is wrong, each
time).  The file holds plain data only (`marshal`: tuples, strings, numbers, bytes; drawing
operations as tuples, paths as bytes), sealed with a checksum and headed by the code version
(`core.cachefile`); each entry's shape is checked before it is used.  A side's drawing
operations are marshalled apart and decoded only when something asks for them (`CachedLayout`):
`cardgen validate` never does.  `validate` and the preview read the file; a build writes it
when it succeeds (`pipeline.build`), keeping the entries it used.
"""
from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path as FilePath
from typing import Any

from cardgen.core import limits
from cardgen.core.cachefile import CacheFile
from cardgen.core.digest import DigestCache, file_digest, plain_bytes
from cardgen.core.errors import CardgenError, Loc
from cardgen.core.paths import PathRefused
from cardgen.model import ops
from cardgen.model.ops import _CONTENT, _FILE, _KINDS, _RUNS, encode_ops
from cardgen.resources.fonts import FontBook, FontError, font_digest, font_files
from cardgen.text.typeset import Typesetter

FORMAT = 4         # 4: sides packed by zstd, not zlib (3: `ops.layout_digest` hashes the encoded operations)
_open: dict[FilePath, LayoutCache] = {}

# The content hashes a build works out for a laid-out side and keeps on it, by attribute:
# `ops.layout_digest` (what its drawing depends on: card forms, output parts) and
# `sidehash.SideHasher.side` (what the manifest records).  Both are functions of the side's
# operations and of the files they use, which the entry is checked against before it is used.
# With them, what drawing the side needs (`ops.needs`, a function of its operations alone).
HASHES = ("_digest", "_side_hash")


def facts_of(layout: ops.CardLayout) -> tuple | None:
    """What a build worked out for a side that the next build can reuse without decoding it:
    its `HASHES` and its `ops.Needs`; None until the build has worked them all out."""
    sums = tuple(layout.__dict__.get(name) for name in HASHES)
    needs = layout.__dict__.get("_needs")
    if not all(isinstance(x, str) for x in sums):
        return None
    return (*sums, needs.plain()) if isinstance(needs, ops.Needs) else sums


def restore_facts(layout: ops.CardLayout, facts: Any) -> bool:
    """`facts_of` put back onto a side from the cache; False if `facts` is not what it makes."""
    if not (isinstance(facts, tuple) and len(facts) in (len(HASHES), len(HASHES) + 1)
            and all(isinstance(h, str) for h in facts[:len(HASHES)])):
        return False
    needs = None
    if len(facts) > len(HASHES):
        needs = ops.Needs.from_plain(facts[-1])
        if needs is None:
            return False
        layout.__dict__["_needs"] = needs
    layout.__dict__.update(zip(HASHES, facts))
    return True

# One cached side: (anchor, deps, events, encoded ops (`pack_ops`), stamp[, facts]).  `anchor`: b"" where
# there are no events (never compared); `deps`: what its
# layout looked up (`Trace`); `events`: what it reported, ("w", file, line, col, cell, message,
# code, group, card) for a warning and ("o", element index, what, where) for an element off the card.
Dep = tuple[str, str, str, str, str, str]


class LayoutCache(CacheFile):
    NAME = "layout.bin"

    def __init__(self, path: FilePath | None = None) -> None:
        super().__init__(path)
        self.hashes: dict[str, list] = {}        # file hashes (`DigestCache` entries), from the file
        self.digests = DigestCache()
        self.laid_out = 0          # card sides laid out (not found), since this process opened it
        self.reused = 0            # card sides found and used
        self.fresh: dict[bytes, ops.CardLayout] = {}     # sides laid out since saved, by key

    @classmethod
    def of(cls, folder: FilePath) -> LayoutCache:
        """The cache of an output folder (`<folder>/.cache/layout.bin`), one per process."""
        return cls.open_in(folder, _open)

    def accept(self, data: Any) -> bool:
        if not (isinstance(data, tuple) and len(data) == 3 and data[0] == FORMAT
                and isinstance(data[1], dict) and isinstance(data[2], dict)):
            return False
        self.entries = {k: v for k, v in data[1].items() if isinstance(k, bytes) and isinstance(v, tuple)}
        self.hashes = {k: v for k, v in data[2].items()
                       if isinstance(k, str) and isinstance(v, list) and len(v) == 4
                       and all(isinstance(x, int) for x in (v[0], v[1], v[3])) and isinstance(v[2], str)}
        return True

    def payload(self) -> Any:
        """The entries used, each side laid out since the last save (or reused without them)
        with what the build worked out for it (`facts_of`), so that the next build need not
        decode and hash the sides it reuses."""
        for key, layout in self.fresh.items():
            entry = self.entries.get(key)
            facts = facts_of(layout)
            if isinstance(entry, tuple) and len(entry) in (5, 6) and facts is not None:
                self.entries[key] = (*entry[:5], facts)
        self.fresh = {}
        return FORMAT, super().payload(), self.digests.entries

    def save(self) -> None:
        """Write the file if this process added entries, or worked out more of what it keeps
        for a side it reused (`facts_of`)."""
        for key, layout in self.fresh.items():
            entry, facts = self.entries.get(key), facts_of(layout)
            if facts is not None and isinstance(entry, tuple) and entry[5:] != (facts,):
                self._new = True
                break
        super().save()

    def begin(self) -> None:
        """A new layout of the game: the file hashes are checked again, and the entries the
        last one did not use are forgotten (a `--watch` session does not grow without end)."""
        self.load()
        if self.used:
            self.entries = {k: v for k, v in self.entries.items() if k in self.used}
            self.used = set()
        self.hashes.update(self.digests.entries)
        self.digests = DigestCache(self.hashes)


# -- drawing operations as plain tuples ------------------------------------------------------

def _path(value: Any) -> Any:
    return FilePath(os.fsdecode(value)) if isinstance(value, bytes) else value


def decode_ops(encoded: tuple) -> list[ops.Op]:
    """`encode_ops` undone.  Raises TypeError, IndexError or ValueError on data it did not write."""
    out: list[ops.Op] = []
    make_run: Any = ops.new_run      # (`Run(...)`, quicker)
    for t in encoded:
        cls: Any = _KINDS[t[0]]
        args = list(t[1:])
        if cls is ops.Text:
            args[_RUNS] = tuple(make_run(*r) if type(r[_CONTENT]) is str else
                                make_run(*r[:_CONTENT], _path(r[_CONTENT]), *r[_CONTENT + 1:]) for r in args[_RUNS])
        elif cls in _FILE:
            if not isinstance(args[_FILE[cls]], bytes):
                raise TypeError("a file path must be bytes")
            args[_FILE[cls]] = _path(args[_FILE[cls]])
        out.append(cls(*args))
    return out


def pack_ops(layout: list[ops.Op]) -> bytes:
    """Drawing operations as the cache keeps them: `encode_ops`, marshalled (`plain_bytes`:
    what `ops.layout_digest` hashes) and compressed (a third of the size: a 10,000-card build
    holds them all until the file is saved)."""
    return pack_dumped(dumped_ops(encode_ops(layout)))


def dumped_ops(encoded: tuple) -> bytes:
    """Encoded operations (`encode_ops`) marshalled as `pack_dumped` packs them and
    `ops.layout_digest` hashes them (`plain_bytes`); ValueError for what is not plain data."""
    dumped = plain_bytes(encoded)
    if dumped is None:
        raise ValueError("not plain data")
    return dumped


def pack_dumped(dumped: bytes) -> bytes:
    """`pack_ops` of operations already encoded and marshalled (`plain_bytes(encode_ops(...))`)."""
    # (copied: the bytes zstandard gives hold the room it set aside for the worst case, the size
    # of the input and more: a 10,000-card build held 30 MB more)
    return bytes(memoryview(_zstd().compress(dumped)))


_packers = threading.local()


def _zstd():
    """This thread's zstd compressor (level 3: a fifth of zlib's time at level 1, and smaller)."""
    packer = getattr(_packers, "zstd", None)
    if packer is None:
        import zstandard

        packer = _packers.zstd = zstandard.ZstdCompressor(level=3)
    return packer


def unpack_ops(packed: bytes) -> list[ops.Op]:
    """`pack_ops` undone.  Raises TypeError, IndexError, ValueError (zstd's errors too) or
    EOFError on data it did not write."""
    import zstandard

    try:
        return decode_ops(marshal.loads(zstandard.ZstdDecompressor().decompress(packed)))
    except zstandard.ZstdError as exc:
        raise ValueError(str(exc)) from None


# The decoded operations of at most `KEEP` packed sides are held at a time (the most recently
# decoded): a pass over every side (hashing them, drawing their forms) decodes each once and
# lets it go, so a 10,000-card build holds its sides packed (about 1.3 KB a side, against about
# 10 KB decoded).
KEEP = 64
_held: dict[int, PackedLayout] = {}         # by id, oldest first
_held_lock = threading.Lock()
decoded = 0                                 # sides decoded in this process (counted for the tests)


class PackedLayout(ops.CardLayout):
    """A card side held packed: its drawing operations (`encoded`: `pack_ops`) are decoded
    when asked for, and let go again once `KEEP` other sides have been decoded since (the
    packed bytes stay).  Made like a `CardLayout` otherwise (`dataclasses.replace` gives one
    with its operations decoded).  A side the build lays out is held so once laid out
    (`cardgen.layout.engine`); its operations must not be changed in place."""

    def __init__(self, width: float, height: float, bleed: float, ops: list | None = None, key: str = "",
                 shape: str = "rect", stamp: list[int] | None = None, *, encoded: bytes | None = None,
                 source: str = "", outline: tuple = ()) -> None:
        super().__init__(width, height, bleed, ops if ops is not None else [], key, shape,
                         stamp if stamp is not None else [], outline)
        if encoded is not None:
            del self.__dict__["ops"]
            self._encoded, self._source = encoded, source

    def __getattr__(self, name: str) -> Any:
        if name != "ops" or "_encoded" not in self.__dict__:
            raise AttributeError(name)
        global decoded
        try:
            done = unpack_ops(self._encoded)
        except (ValueError, TypeError, IndexError, EOFError):      # only a file made to look like cardgen's
            raise CardgenError(Loc(self._source or LayoutCache.NAME), f"card side {self.key}: the layout cache holds "
                                                              f"what cardgen did not write; delete the file and "
                                                              f"build again", code="cache") from None
        self.__dict__["ops"] = done
        with _held_lock:
            decoded += 1
            _held[id(self)] = self
            while len(_held) > KEEP:
                oldest = _held.pop(next(iter(_held)))
                oldest.__dict__.pop("ops", None)       # (whoever still uses the list keeps it)
        return done

    def __getstate__(self) -> dict:
        """Pickled packed (to a raster worker): the decoded operations are left out."""
        state = dict(self.__dict__)
        if "_encoded" in state:
            state.pop("ops", None)
        return state


def held_decoded() -> int:
    """How many packed sides hold their operations decoded now (at most `KEEP`)."""
    with _held_lock:
        return sum(1 for layout in _held.values() if "ops" in layout.__dict__)


class CachedLayout(PackedLayout):
    """A card side from the cache (`cardgen validate` never decodes its operations)."""


# -- keys ------------------------------------------------------------------------------------

_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_plain(value: Any) -> bool:
    if type(value) in _SCALARS:
        return True
    if isinstance(value, dict) and type(value).__repr__ is dict.__repr__:
        for k, v in value.items():
            if type(k) not in _SCALARS or (type(v) not in _SCALARS and not _is_plain(v)):
                return False
        return True
    if isinstance(value, (list, tuple)) and type(value).__repr__ in (list.__repr__, tuple.__repr__):
        return all(type(v) in _SCALARS or _is_plain(v) for v in value)
    return False


def plain(value: Any) -> str | None:
    """Data as exact text (a number and its text differ, so do `1` and `1.0` and `True`, and
    the order of a mapping's keys), or None if it holds anything but YAML's plain values."""
    return repr(value) if _is_plain(value) else None


def _loc(loc: Loc) -> tuple:
    return loc.file, loc.line, loc.col, loc.cell


def located(value: Any, places: bool = True) -> str:
    """A template's YAML as exact text; with `places`, with the place of every mapping, key,
    value and item (the messages a layout gives name those places)."""
    def at(loc: Any) -> tuple | None:
        return _loc(loc) if places and loc is not None else None

    def walk(v: Any) -> Iterator[Any]:
        if isinstance(v, dict):
            yield "{", at(getattr(v, "loc", None))
            for k, x in v.items():
                kl = v.key_loc(k) if hasattr(v, "key_loc") else None
                vl = v.value_loc(k) if hasattr(v, "value_loc") else None
                yield (type(k).__name__, repr(k), at(kl), at(vl))
                yield from walk(x)
            yield "}"
        elif isinstance(v, (list, tuple)):
            yield "[", at(getattr(v, "loc", None))
            for i, x in enumerate(v):
                yield at(v.item_loc(i)) if hasattr(v, "item_loc") else None
                yield from walk(x)
            yield "]"
        else:
            yield type(v).__name__, repr(v)
    return repr(list(walk(value)))


def key_of(*parts: Any) -> bytes:
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).digest()


def side_key(shared: bytes, *texts: str) -> bytes:
    """`key_of` for texts made by `plain` (which hold no NUL character: repr escapes it)
    after a key shared by many sides, without writing them out again."""
    return hashlib.sha256(shared + "\0".join(texts).encode("utf-8", "surrogatepass")).digest()


def anchor_of(loc: Loc | None, data: Mapping | None, template: bytes = b"") -> bytes:
    """Where a card and its template are: the card's place and the places of its own fields,
    and `template`, the hash of where every value of the template is (`located`): what the
    problems of its layout name.  No card (a deck's shared back): the template's alone."""
    if loc is None or data is None:
        return template
    places = [(repr(k), _loc(data.value_loc(k))) for k in data] if hasattr(data, "value_loc") else []
    return key_of(_loc(loc), places, template)


def settings_key(fonts: FontBook, typesetter: Typesetter | None = None) -> str:
    """What every side's layout reads besides its card and template: the fallback fonts, the
    limits on template expressions, and game.yaml's text settings (its named span styles,
    typographer's punctuation)."""
    text = (sorted(typesetter.styles.items()), typesetter.punctuation) if typesetter is not None else None
    return repr((fonts.fallbacks, sorted((k, v) for k, v in vars(limits).items() if k.startswith("MAX_")), text))


def template_reads(elements: list) -> dict[str, frozenset[str] | None]:
    """What a template's values may read of `deck` and `game` (`expr.data_read`), together."""
    from cardgen.layout import expr  # (here: the raster workers, which unpack sides, need no Jinja)

    out: dict[str, set[str] | None] = {}

    def add(read: dict[str, frozenset[str] | None]) -> None:
        for root, keys in read.items():
            have = out.setdefault(root, set())
            if keys is None:
                out[root] = None
            elif have is not None:
                have.update(keys)

    def strings(v: Any) -> Iterator[str]:
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            for x in v.values():
                yield from strings(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                yield from strings(x)

    for el in elements:
        for k, v in el.items():
            if k == "when" and isinstance(v, str):
                add(expr.data_read(v, condition=True))
            for s in strings(v):
                add(expr.data_read(s))
    return {k: (frozenset(v) if v is not None else None) for k, v in out.items()}


_ABSENT = ("<absent>",)


def context_part(ctx: Mapping, keys: frozenset[str] | None) -> str | None:
    """The part of a template context (`deck` or `game`) that `keys` names (None: all of
    it), as exact text; None if it holds anything but plain values."""
    if keys is None:
        return plain(dict(ctx))
    return plain([(k, ctx.get(k, _ABSENT)) for k in sorted(keys)])


# -- what a layout looked up -----------------------------------------------------------------

class Trace:
    """The fonts, icons and images this build's layouts looked up, each as a `Dep`: (kind,
    name, style, what it resolved to, why it was refused, SHA-256 of the file)."""

    def __init__(self, fonts: FontBook, find_icon: Callable[[str], Any], find_art: Callable[[str], Any],
                 digests: DigestCache) -> None:
        self.fonts, self.find_icon, self.find_art, self.digests = fonts, find_icon, find_art, digests
        self.known: dict[tuple[str, str, str], Dep] = {}
        self.side: dict[tuple[str, str, str], None] | None = None    # looked up by the side being laid out
        self._valid: dict[tuple, bool] = {}

    def _file(self, kind: str, name: str, path: FilePath | None, refusal: str | None) -> None:
        key = (kind, name, "")
        if key not in self.known:       # first looked up: hashed now, before the layout reads it
            sha = (self.digests.get(str(path)) or "") if path is not None else ""
            self.known[key] = (kind, name, "", str(path) if path is not None else "", refusal or "", sha)
        if self.side is not None:
            self.side[key] = None

    def icon(self, name: str, path: FilePath | None, refusal: str | None) -> None:
        """`IconBook.watch`: told of every icon looked up."""
        self._file("i", name, path, refusal)

    def art(self, src: str, path: FilePath | None, refusal: str | None) -> None:
        """`Resources.watch`: told of every image looked up."""
        self._file("a", src, path, refusal)

    def current(self, key: tuple[str, str, str]) -> Dep:
        """What `key` resolves to now (looked up if no layout of this build has)."""
        hit = self.known.get(key)
        if hit is not None:
            return hit
        kind, name, style = key
        if kind == "f":
            try:
                face = self.fonts.face(name, style)
            except FontError as exc:
                hit = (kind, name, style, "", str(exc), "")
            else:
                read = font_digest(face.name) or ""
                path = font_files().get(face.name)
                if read and path is not None and file_digest(path) != read:
                    read = "changed since read"     # a long session: a layout now would hash the new file
                hit = (kind, name, style, face.name, "", read)
            self.known[key] = hit
            return hit
        with contextlib.suppress(PathRefused):       # refused: the watcher was told why
            (self.find_icon if kind == "i" else self.find_art)(name)
        if key not in self.known:
            self._file(kind, name, None, "not looked up")
        return self.known[key]

    def deps(self, faces: Mapping[tuple[str, str], None], files: Mapping[tuple[str, str, str], None]) \
            -> tuple[Dep, ...]:
        """What a side's layout looked up: the fonts in the order it first asked for them
        (reusing the side asks for them again in that order, so that ReportLab names them as a
        layout would), then icons and images."""
        out = [self.current(("f", family, style)) for family, style in faces]
        out.extend(self.current(k) for k in files)
        return tuple(out)

    def valid(self, deps: tuple) -> bool:
        """Does every lookup of a cached side resolve as it did?"""
        for dep in deps:
            ok = self._valid.get(dep)
            if ok is None:
                ok = self._valid[dep] = (isinstance(dep, tuple) and len(dep) == 6
                                         and self.current((dep[0], dep[1], dep[2])) == dep)
            if not ok:
                return False
        return True
