"""Card sides as bitmaps, for Tabletop Simulator and print services.

There is one drawing path: each card side is drawn into a small PDF by the same code
that makes the print sheets (`cardgen.render.draw.Drawer` on a `new_canvas`, as in cards.pdf)
and that PDF is rasterized with PDFium.  Bitmaps go to a content-addressed cache
(`<build>/<game>/.cache/raster/`): a card side whose drawing operations, font files,
art files and requested size are unchanged is never rasterized again.

PDFium is not thread-safe, so large jobs run in worker processes, forked from a fork server
that imported PDFium, ReportLab and the drawing code once (`start_early`); the cards go to
them in chunks of at most `CHUNK` sides, smaller towards the end so that the workers finish
together, and for each chunk a worker makes its own PDF, renders it and writes its own
cache files. Nothing but the layouts and file names travels between processes, and no
process holds more than one full-size bitmap at a time: PDFium renders each page straight
into RGB, and Pillow copies the exact pixels wanted out of that bitmap and encodes them
(a TTS deck sheet is made by the worker that renders its sides: `run`'s `groups`).

A card side is rendered once per resolution class: bitmaps without bleed up to about
`SCREEN_DPI` (the gallery's, TTS deck sheets' cells, `cardgen serve`'s grid, the contrast
check's) are scaled from one render of the side (`screen_spec`: a full TTS deck sheet's cell
when that is between 150 dpi and `SCREEN_DPI`, so those cells need no scaling, else the trim
at `SCREEN_DPI`), cached like the rest, whatever output asks first; anything else
(print-service PNGs with their bleed, sharper cells) is rendered at its own size.

The outputs that use it: `cardgen.outputs.tts` (deck sheets), `cardgen.outputs.gallery`,
`cardgen.outputs.png` (print-service PNGs), and `cardgen.check.contrast`.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import math
import os
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard
from PIL import Image

from cardgen.core import atomic

# the screen class (`screen_spec`), in `core.atlascell`: `render.art` makes pictures' copies for it too
from cardgen.core.atlascell import SCREEN_DPI, SCREEN_MIN_DPI, screen_size  # noqa: F401 (raster.<name>)
from cardgen.core.cachefile import CacheFile
from cardgen.core.digest import CorruptCache, file_digest, read_payload, seal, seal_parts
from cardgen.core.images import open_own, restrict
from cardgen.core.memo import Bounded
from cardgen.model import ops
from cardgen.resources.fonts import font_files as registered_fonts

restrict()      # (before any image is read, here and in the workers: cardgen.core.images)

# Bump when the way bitmaps are made changes in a way the hashed inputs do not show.
RASTER_VERSION = "5"     # 2: cache entries sealed with a checksum; 3: PNG level 1 with an sRGB profile;
                          # 4: screen-size bitmaps scaled from one render (`master_spec`);
                          # 5: that render a full TTS sheet's cell where it can be (`screen_spec`)
SMALL_JOB = 24            # fewer jobs than this: no worker processes (their startup costs more)
CHUNK = 32                # card sides a worker rasterizes per task: memory stays flat on any deck size
PNG_LEVEL = 1             # zlib level of print-service PNGs: ~11 % larger than level 6, half the encode time
PT_PER_IN = 72.0
# The screen class (SCREEN_DPI, `core.atlascell`): a card side wanted at up to that many dpi
# without bleed is rendered once (`screen_spec`), and each size wanted is scaled from that one
# render (`master_spec`).  A function of the side alone, so a bitmap is the same whatever other
# outputs the build makes.

# Counters for tests and benchmarks: how many card sides were actually rasterized
# (cache misses) and how many were found in the cache.
# `scaled`: bitmaps made by scaling a side's one screen-class render (`master_spec`).
STATS = {"rasterized": 0, "cached": 0, "corrupt": 0, "scaled": 0}


def reset_stats() -> None:
    for k in STATS:
        STATS[k] = 0


# -- checksummed cache entries (`cardgen.core.digest.seal`) -------------------------------------

def is_intact(path: Path) -> bool:
    """True if `path` is a cache entry whose checksum matches; a damaged one is deleted."""
    try:
        read_payload(path)
        return True
    except CorruptCache:
        STATS["corrupt"] += 1
        with contextlib.suppress(OSError):
            Path(path).unlink()
        return False
    except OSError:
        return False


@dataclass(frozen=True)
class Spec:
    """What bitmap to make of a card side: exact pixel size, and how much of the area
    outside the trim to include on every side (pt).  `bleed` larger than the card's own
    bleed is made up by stretching the edge (with a warning from the caller)."""

    px_w: int
    px_h: int
    bleed: float = 0.0        # pt outside the trim, each side
    dpi: int = 0              # PNG files: dots per inch in their metadata
    kind: str = "raw"         # raw: internal, fast (atlas cells); png: a finished PNG file

    def token(self) -> str:
        return f"{self.px_w}x{self.px_h}+{self.bleed:.4f}@{self.dpi}/{self.kind}"

    @property
    def ext(self) -> str:
        return "png" if self.kind == "png" else "rgbz"


def trim_spec(layout: ops.CardLayout, dpi: int) -> Spec:
    """A card side's trim (no bleed) at `dpi`, as a PNG (the gallery at a resolution of its
    own, `cardgen serve`'s zoom; by default they show `screen_png_spec`'s)."""
    return Spec(max(1, round(layout.width / PT_PER_IN * dpi)), max(1, round(layout.height / PT_PER_IN * dpi)),
                0.0, dpi, "png")


def screen_png_spec(layout: ops.CardLayout) -> Spec:
    """The screen class's one render of a side as a PNG (`screen_spec`'s pixels, not scaled):
    what the gallery and `cardgen serve`'s grid show by default, and what the contrast check
    measures (`cardgen.check.contrast`), one bitmap for all; its dots per inch (in its
    metadata) its width's."""
    w, h = screen_size(layout.width, layout.height)
    return Spec(w, h, 0.0, round(w * PT_PER_IN / layout.width) if layout.width > 0 else SCREEN_DPI, "png")


def screen_spec(layout: ops.CardLayout) -> Spec:
    """The screen class's one render of a side (raw, no bleed): the cell of a full TTS deck
    sheet (10 x 7 cells within 4096 px, `core.atlascell`; a poker card's is 409 x 573 px,
    164 dpi) when that is between `SCREEN_MIN_DPI` and `SCREEN_DPI`, so the cells of such
    sheets are this render as it is (scaling a cell cost more than rendering it); else the
    side's trim at `SCREEN_DPI`.  A function of the side's size alone."""
    return Spec(*screen_size(layout.width, layout.height))


_screens: dict[tuple[float, float], Spec] = {}     # (`screen_spec` by a side's size)


def master_spec(layout: ops.CardLayout, spec: Spec) -> Spec | None:
    """The one render a bitmap of the screen class is scaled from (`screen_spec`); None for
    a bitmap rendered as it is (with bleed, larger than that render, or the render itself).
    It depends on the side and `spec` alone, so the pixels of one output do not depend on
    which others the build makes."""
    if spec.bleed or layout.width <= 0:
        return None
    master = _screens.get((layout.width, layout.height))
    if master is None:
        master = _screens[(layout.width, layout.height)] = screen_spec(layout)
    if spec.px_w > master.px_w or spec.px_h > master.px_h or master == spec:
        return None
    return master


# -- content hashes -------------------------------------------------------------------------

_code_digest: str | None = None


def code_digest() -> str:
    """The drawing code and libraries: a change to them invalidates every cached bitmap."""
    global _code_digest
    if _code_digest is None:
        import reportlab

        h = hashlib.sha256(RASTER_VERSION.encode())
        pkg = Path(__file__).resolve().parents[1]
        for name in ("render/draw.py", "render/pdf.py", "render/rlcompat.py", "render/raster.py", "model/ops.py"):
            h.update(file_digest(pkg / name).encode())
        h.update(reportlab.Version.encode())
        h.update(_pdfium_version())
        h.update(Image.__version__.encode() if hasattr(Image, "__version__") else b"")
        _code_digest = h.hexdigest()
    return _code_digest


def _pdfium_version() -> bytes:
    """The versions of pypdfium2 and of the PDFium it brings (the `version.json` each of its
    two packages is installed with), read without importing it: the build process renders
    nothing itself, and importing it cost 0.03 to 0.045 s there.  Imported if they are not
    found (another layout of the package)."""
    import importlib.util

    parts = []
    for name in ("pypdfium2", "pypdfium2_raw"):
        try:
            spec = importlib.util.find_spec(name)
            parts.append(Path(spec.origin).with_name("version.json").read_bytes())      # type: ignore[union-attr, arg-type]
        except (ImportError, ValueError, AttributeError, TypeError, OSError):
            import pypdfium2

            return str(getattr(pypdfium2, "__version__", "") or pypdfium2.version.PYPDFIUM_INFO).encode()
    return b"\0".join(parts)


def side_key(layout: ops.CardLayout, spec: Spec, font_files: dict | None = None) -> str:
    """Content hash of one card side rendered to `spec`: the drawing code, the size, and the
    side's drawing operations with every font, icon and image file they use
    (`ops.layout_digest`)."""
    font_files = font_files if font_files is not None else registered_fonts()
    code = code_digest()
    start = _key_starts.get((code, spec))
    if start is None:
        start = _key_starts[(code, spec)] = hashlib.sha256(code.encode() + spec.token().encode())
    h = start.copy()
    h.update(ops.layout_digest(layout, font_files).encode())
    return h.hexdigest()


_key_starts: dict[tuple[str, Spec], Any] = {}     # (a code digest and a spec: their hash, each key goes on from)


# -- rasterizing ------------------------------------------------------------------------------

_shared: dict[str, Path] = {}       # a language's output folder -> the game's, whose bitmaps it uses


def share(out_dir: Path, shared: Path) -> None:
    """The bitmaps of the output folder `out_dir` kept in `shared`'s cache instead: a game's
    languages (build/<game>/<lang>/, docs/languages.md) share theirs, so a side that is the same
    in every language (a back, most art) is rasterized once."""
    _shared[str(Path(out_dir))] = Path(shared)


class Cache:
    """Bitmaps by content hash, in one folder. A bitmap used by a build is touched; one not
    used for `KEEP_DAYS` is pruned, so editing a card a hundred times does not pile up files."""

    KEEP_DAYS = 14
    OWNER = "OWNER"         # the folder's stamp (`core.cachefile.claim_folder`): whose bitmaps these are
    PRUNE_EVERY = 86400     # seconds

    def __init__(self, folder: Path):
        self.dir = Path(folder)

    @classmethod
    def of(cls, out_dir: Path) -> Cache:
        """The bitmap cache of the output folder `out_dir` (`.cache/raster/`), trusted only as
        cardgen's own: a folder whose OWNER stamp is not this user's cardgen's for this output
        folder (shipped with a game, copied from elsewhere, made by another installation) is
        emptied before use, so no bitmap a game brings can stand in for a card it draws; one
        reached through a link is never used (every bitmap is made again, into memory)."""
        from cardgen.core.cachefile import claim_folder
        from cardgen.core.paths import through_link

        out_dir = _shared.get(str(Path(out_dir)), Path(out_dir))
        cache = cls(Path(out_dir) / ".cache" / "raster")
        if through_link(cache.dir, 3):
            return cls(Path(out_dir) / ".cache" / "raster-unused-link")   # (never made: nothing found)
        claim_folder(cache.dir, Path(out_dir))
        return cache

    def path(self, key: str, ext: str = "rgbz") -> Path:
        # One flat folder: a folder per key prefix cost a directory made in the new output and
        # one removed from the old each build (`atomic.Staging`), slow where freed disk
        # blocks are discarded at once, and a folder of a few ten thousand files is no problem.
        return self.dir / f"{key}.{ext}"

    def tidy(self) -> int:
        """`prune`, at most once a day (a stamp file beside the folder, `<folder>.pruned`, says
        when it last ran): listing and stating a cache of several thousand bitmaps after every
        edit cost 3 % of a 2,000-card one-card rebuild, to delete files two weeks unused a day
        sooner."""
        import time

        stamp = self.dir.with_name(self.dir.name + ".pruned")
        try:
            if time.time() - stamp.stat().st_mtime < self.PRUNE_EVERY:
                return 0
        except OSError:
            pass
        removed = self.prune()
        with contextlib.suppress(OSError):
            stamp.touch()
        return removed

    def prune(self, now: float | None = None) -> int:
        """Delete bitmaps unused for KEEP_DAYS (also those of the earlier layout, one folder
        per key prefix, and such folders left empty); returns how many.  Each file is listed
        and stated once (`os.scandir`: a first build's 500 bitmaps 7.9 -> 1.6 ms, where
        `Path.glob` and two `stat`s a file took); a link to a folder is not followed."""
        import time

        limit = (now if now is not None else time.time()) - self.KEEP_DAYS * 86400
        removed = 0
        try:
            with os.scandir(self.dir) as it:
                top = list(it)
        except OSError:
            return 0
        folders = [d for d in top if d.is_dir(follow_symlinks=False)]
        entries = [e for e in top if "." in e.name]
        for d in folders:
            with contextlib.suppress(OSError), os.scandir(d.path) as it:
                entries += [e for e in it if "." in e.name]
        for e in entries:
            try:
                if not e.is_file():
                    continue
                mtime = e.stat().st_mtime
                if (atomic.is_debris(e.name) and mtime < time.time() - 3600) or mtime < limit:
                    os.unlink(e.path)
                    removed += 1
            except OSError:
                pass
        for d in folders:
            with contextlib.suppress(OSError):
                os.rmdir(d.path)                    # only if empty
        return removed


@dataclass
class Job:
    """One card side to rasterize."""

    layout: ops.CardLayout
    spec: Spec
    out: Path
    ready: Path | None = None     # also write the bitmap, as it is, to this file (`rasterize`'s `ready`)
    probe: Probe | None = None    # also look at the bitmap while it is at hand (`rasterize`'s `probes`)


@dataclass(frozen=True)
class Probe:
    """What to find out of a bitmap by looking at it where it is made, instead of reading it
    back from the cache afterwards: `fn(image, layout, spec)` (a module's function: it travels
    to a worker by name), whose small, picklable answer `rasterize` gives back (`probes`)."""

    fn: Any


@dataclass(frozen=True)
class Probed:
    """A probe's answer about the bitmap `out`, on its way back from where it was made."""

    out: str
    value: Any


@dataclass(frozen=True)
class Formed:
    """A card side's form (`Drawer.card_form`'s form cache entry, under its key), drawn where
    the side was rendered, on its way to the print documents' form cache (`offer_forms`)."""

    key: str
    entry: tuple


@dataclass
class Unit:
    """One card side's work in a worker: render it (`render`: a bitmap of its own size, or the
    screen-class render `master_spec`) and scale the bitmaps `scaled` from that render, or,
    when the render is in the cache already, from its file `source`."""

    layout: ops.CardLayout
    render: Job | None
    scaled: list[Job]
    source: Path | None = None


def _render_page(page, layout: ops.CardLayout, spec: Spec, packed: list | None = None) -> Image.Image:
    """One PDF page (trim + the layout's bleed) to an RGB image of exactly spec's size.
    `packed`: a list to which the image as a raw cache entry is added (`_packed`), made from
    PDFium's bitmap as it is (its rows' padding included), not from a copy of the image."""
    B = layout.bleed
    want = spec.bleed
    have = min(want, B)
    scale = max(spec.px_w / (layout.width + 2 * want), spec.px_h / (layout.height + 2 * want))  # px per pt
    inner_w = min(round((layout.width + 2 * have) * scale), spec.px_w)
    inner_h = min(round((layout.height + 2 * have) * scale), spec.px_h)
    # PDFium rounds the page and the crop separately, so the bitmap can be a pixel off:
    # render up to 1 pt more on every side and take the exact pixels out of that.
    margin = min(B - have, 1.0)
    c = B - have - margin
    # PDFium writes RGB (not its usual BGR), so Pillow copies the pixels wanted as they are
    # (one copy, of those pixels only).
    bitmap = page.render(scale=scale, crop=(c, c, c, c), rev_byteorder=True, bitmap_maker=_bitmap)
    try:
        off = round(margin * scale)
        if off + inner_w <= bitmap.width and off + inner_h <= bitmap.height:
            img = _pixels(bitmap, off, off, inner_w, inner_h)
            if packed is not None and (inner_w, inner_h) == (spec.px_w, spec.px_h):
                start = off * bitmap.stride + off * 3
                end = start + (inner_h - 1) * bitmap.stride + inner_w * 3
                packed.append(_packed(memoryview(bitmap.buffer).cast("B")[start:end], inner_w, inner_h,
                                      bitmap.stride))
        else:
            img = _exact(_pixels(bitmap, 0, 0, bitmap.width, bitmap.height), inner_w, inner_h)
    finally:
        del bitmap          # (kept for the next page: `_bitmap`)
    if (inner_w, inner_h) != (spec.px_w, spec.px_h):
        # the card has less bleed than asked for: extend its edges outwards
        full = img.resize((spec.px_w, spec.px_h), Image.Resampling.BILINEAR)
        full.paste(img, ((spec.px_w - inner_w) // 2, (spec.px_h - inner_h) // 2))
        img = full
    return img


class _Held(threading.local):
    key: tuple | None = None
    bitmap: Any = None


_held = _Held()     # this thread's PDFium bitmap pages are rendered into, and its size and format


def _bitmap(width: int, height: int, format: int, rev_byteorder: bool = False):
    """PDFium's bitmap to render a page into (its `bitmap_maker`): one a thread, made again only
    for a page of another size, as PDFium fills it (white) before it renders a page.  A new
    bitmap a page cost a worker's first deck sheet about 40 ms (13,000 of its 32,000 page
    faults: fresh memory zeroed and mapped); the pixels are copied out of it before the next
    page (`_pixels`, `_packed`)."""
    import pypdfium2 as pdfium

    key = (width, height, format, rev_byteorder)
    if _held.key != key:
        if _held.bitmap is not None:
            _held.bitmap.close()
        _held.bitmap, _held.key = pdfium.PdfBitmap.new_native(width, height, format, rev_byteorder=rev_byteorder), key
    return _held.bitmap


def _pixels(bitmap, x: int, y: int, w: int, h: int) -> Image.Image:
    """The w x h pixels at (x, y) of an RGB PDFium bitmap, as a Pillow image of their own."""
    start = y * bitmap.stride + x * 3
    return Image.frombytes("RGB", (w, h), memoryview(bitmap.buffer).cast("B")[start:], "raw", "RGB",
                           bitmap.stride, 1)


def _exact(img: Image.Image, w: int, h: int) -> Image.Image:
    """PDFium rounds the bitmap size up: trim a stray pixel, or resample if off by more."""
    if img.size == (w, h):
        return img
    if 0 <= img.width - w <= 1 and 0 <= img.height - h <= 1:
        return img.crop((0, 0, w, h))
    return img.resize((w, h), Image.Resampling.LANCZOS)


# then width, height and bytes a row (with padding), and the rows, Zstandard: against zlib
# level 1 (CGRGBZ2, until session 8) a quarter of the time to write, a sixth to read, and 15 to
# 20 % smaller (measured on the TTS benchmark's cells and the bundled games'); its fast level -1
# (session 11) writes a cell in 15 % less time than level 1 and is as small, read as fast
_RAW_MAGIC = b"CGRGBZ3\n"
RAW_LEVEL = -1


_compressor: zstandard.ZstdCompressor | None = None     # (one a process: one made a cell cost 4 % more)


def _packed(pixels, w: int, h: int, stride: int) -> bytes:
    """A raw cache entry's payload: RGB rows of `stride` bytes (the last without padding)."""
    global _compressor
    if _compressor is None:
        _compressor = zstandard.ZstdCompressor(level=RAW_LEVEL)
    return _RAW_MAGIC + struct.pack("<III", w, h, stride) + _compressor.compress(pixels)


_srgb: bytes | None = None


def srgb_profile() -> bytes:
    """The sRGB ICC profile every PNG carries (`cardgen/data/icc/sRGB.icc`, 6.9 KB)."""
    global _srgb
    if _srgb is None:
        from cardgen.core.data import DATA

        _srgb = (DATA / "icc" / "sRGB.icc").read_bytes()
    return _srgb


def _save(img: Image.Image, job: Job, packed: bytes | None = None) -> tuple[str, str] | None:
    """Write a cached bitmap: a PNG (fast zlib level, sRGB profile), or for atlas cells raw
    RGB with fast Zstandard (`_packed`: these never leave the cache).
    With `job.ready`, the same bytes go to that file too: returns (that file, their sha256).
    `packed`: the raw entry's payload, made already (`_render_page`)."""
    spec = job.spec
    if spec.kind == "png":
        buf = io.BytesIO()
        img.save(buf, "PNG", compress_level=PNG_LEVEL, icc_profile=srgb_profile(),
                 **({"dpi": (spec.dpi, spec.dpi)} if spec.dpi else {}))
        data = buf.getvalue()
    else:
        data = packed or _packed(img.tobytes(), img.width, img.height, 3 * img.width)
    sealed = seal_parts(data)         # (its checksum is the sha256 `ready` wants: hashed once)
    atomic.write_parts(job.out, sealed)
    if job.ready is None:
        return None
    atomic.write_bytes(job.ready, data)
    return str(job.ready), sealed[1].hex()


def open_image(path) -> Image.Image:
    """A cached bitmap (either kind) as an RGB image."""
    path = Path(path)
    data = read_payload(path)
    if path.suffix == ".rgbz":
        if not data.startswith(_RAW_MAGIC):
            raise CorruptCache(path)
        w, h, stride = struct.unpack_from("<III", data, len(_RAW_MAGIC))
        try:
            rows = zstandard.ZstdDecompressor().decompress(data[len(_RAW_MAGIC) + 12:])
        except zstandard.ZstdError:
            raise CorruptCache(path) from None
        return Image.frombytes("RGB", (w, h), rows, "raw", "RGB", stride)
    with open_own(io.BytesIO(data)) as im:
        return im.convert("RGB")


_worker_fonts: Bounded = Bounded(8)     # (a worker's font books, by the game's font folders)


def _fontbook(font_dirs: tuple):
    from cardgen.resources.fonts import FontBook

    book = _worker_fonts.get(font_dirs)
    if book is None:
        book = _worker_fonts[font_dirs] = FontBook([Path(d) for d in font_dirs])
    return book


def _ensure_fonts(font_names: dict) -> None:
    """Make ReportLab know every font the layouts name, under the parent's names (a
    spawned worker starts empty; a forked one may predate a game's fonts)."""
    from cardgen.resources.fonts import use_in_reportlab

    use_in_reportlab(font_names)


class _SvgForms(Bounded):
    """The SVG forms a raster worker has drawn (`Drawer.vector_form`'s entries, by the file's
    content): each chunk's PDF replays an icon's operators instead of drawing its outlines again
    (a third of drawing a chunk of simple cards). Card forms are not kept: their entries hold
    five parts.  With `stamp` (cardgen's code version, `core.digest.code_version`, as the build
    gives it: `run`), each form is also kept in the user's cache (`user_cache("svg-forms")`,
    `_kept_form`), so that the next builds' workers replay it without importing svglib and
    ReportLab's graphics (a tenth of a second) or drawing it (4 ms an icon)."""

    stamp = ""

    def get(self, key: str, default: Any = None) -> Any:
        hit = super().get(key)
        if hit is None and self.stamp:
            hit = _kept_form(self.stamp, key)
            if hit is not None:
                self[key] = hit
        return hit if hit is not None else default

    def put(self, key: str, entry: tuple) -> None:
        if len(entry) == 4:
            self[key] = entry
            if self.stamp:
                _keep_form(self.stamp, key, entry)


def _form_file(stamp: str, key: str) -> Path | None:
    """Where the user's cache keeps an SVG form (None without a home folder): named by a hash
    of the code version and the form's key (the file's content, `themed`, base font, variant)."""
    from cardgen.core.digest import user_cache

    folder = user_cache("svg-forms")
    name = hashlib.sha256(f"{stamp}\0{key}".encode()).hexdigest()[:40]
    return folder / f"{name}.bin" if folder is not None else None


def _kept_form(stamp: str, key: str) -> tuple | None:
    """An SVG form kept in the user's cache, if its seal and its shape are right
    (`draw.svg_entry_ok`: plain data, read with `marshal`)."""
    import marshal

    from cardgen.core.digest import read_sealed
    from cardgen.render.draw import svg_entry_ok

    path = _form_file(stamp, key)
    body = read_sealed(path) if path is not None else None
    if body is None:
        return None
    try:
        entry = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    return entry if svg_entry_ok(entry) else None


def _keep_form(stamp: str, key: str, entry: tuple) -> None:
    import marshal

    path = _form_file(stamp, key)
    if path is not None:
        with contextlib.suppress(OSError, ValueError):     # (a read-only home: drawn again next time)
            atomic.write_bytes(path, seal(marshal.dumps(entry, 2)))


_svg_forms = _SvgForms(256, 16 << 20, lambda entry: len(entry[0]))     # (at most 16 MB of operators)


class _SvgFile(CacheFile):
    """`_svg_forms` kept for the next build of an output folder (`.cache/svg-forms.bin`,
    `core.cachefile`), for the sides this process renders itself (`run` without workers: a
    one-card edit's): drawing an icon afresh imports ReportLab's graphics and svglib, a tenth
    of a second, to draw one card again."""

    NAME = "svg-forms.bin"

    @staticmethod
    def entry_ok(key: Any, entry: Any) -> bool:
        from cardgen.render.draw import svg_entry_ok

        return isinstance(key, str) and svg_entry_ok(entry)

    def payload(self) -> Any:
        return dict(self.entries)       # (what `_svg_forms` holds: bounded as it is)

    @classmethod
    def around(cls, cache: Cache) -> contextlib.AbstractContextManager:
        """`_svg_forms` as the output folder of `cache` kept it, while this process renders
        sides; the forms it drew then kept."""
        if cache.dir.name != "raster" or cache.dir.parent.name != ".cache":
            return contextlib.nullcontext()     # (a temporary folder: `validate --deep`)
        return cls._around(cls.open_in(cache.dir.parent.parent, _svg_files))

    @staticmethod
    @contextlib.contextmanager
    def _around(kept: _SvgFile) -> Iterator[None]:
        kept.load()
        for key, entry in kept.entries.items():
            if key not in _svg_forms:
                _svg_forms.put(key, entry)
        yield
        new = [key for key in _svg_forms if key not in kept.entries]
        if new:
            for key in new:
                kept.put(key, _svg_forms[key])
            kept.entries = dict(_svg_forms)
            with contextlib.suppress(OSError):
                kept.save()


_svg_files: dict[Path, _SvgFile] = {}


def jobs_pdf(layouts: list[ops.CardLayout], fonts, dpis: list[float] | None = None,
             forms: tuple[dict[str, set[str]], list[Formed]] | None = None) -> bytes:
    """A PDF with one page per card side (trim + bleed), drawn by the same `Drawer` as the
    print sheets; uncompressed, since it is read back at once.  `dpis`: each side's pixels
    per inch, the resolution its images are drawn at (`render.art`).  `forms` = (chars,
    found): the fonts named and coded as the print documents do, whose sides set `chars`
    (`offer_forms`), and each side's form that such a document can take as it is (one
    without images: those are drawn at the print resolution there) added to `found`."""
    from cardgen.render.draw import Drawer, new_canvas
    from cardgen.render.rlcompat import squeezed

    buf = io.BytesIO()
    c = new_canvas(buf, fonts)
    c.setPageCompression(0)
    offered = _Offered(_svg_forms) if forms is not None else None
    drawer = Drawer(c, fonts, offered or _svg_forms)       # (an SVG's form from this process's last chunks)
    drawer.prepare(layouts, forms[0] if forms is not None else None)
    for i, layout in enumerate(layouts):
        B = layout.bleed
        c.setPageSize((layout.width + 2 * B, layout.height + 2 * B))
        drawer.image_dpi = dpis[i] if dpis else None
        name = drawer.card_form(layout)
        if offered is not None and forms is not None:
            key = drawer.keys.get(name)
            entry = offered.cards.pop(key, None) if key is not None else None
            if key is not None and entry is not None and not ops.needs(layout).rasters:
                code, used, size, states = entry[:4]
                forms[1].append(Formed(key, (squeezed(code), used, size, states, c.packed_stream(code))))
        c.doForm(name)
        c.showPage()
    c.save()
    return buf.getvalue()


class _Offered:
    """A raster worker's forms while it draws for the print documents too (`jobs_pdf`): SVG
    forms kept as always (`_svg_forms`), each card form put aside in `cards`."""

    def __init__(self, svgs: _SvgForms) -> None:
        self.svgs = svgs
        self.cards: dict[str, tuple] = {}

    def get(self, key: Any) -> Any | None:
        return self.svgs.get(key)

    def put(self, key: Any, entry: Any) -> None:
        if len(entry) == 4:
            self.svgs.put(key, entry)
        else:
            self.cards[key] = entry


@dataclass
class _Offer:
    """The print documents' sides whose card forms the raster workers draw and offer
    (`offer_forms`): the output folder, the sides and their font book, and once a plan needs
    them, the characters the sides set by font (`_offered_chars`; None: too many)."""

    folder: Path
    sides: list[ops.CardLayout] | None
    fonts: Any
    chars: dict[str, set[str]] | None = None


_offering: list[_Offer] = []       # (this build's, if it offers: `offer_forms`)
OFFER_MOST = 1024       # characters: past this many, each chunk's PDF would embed them all


def offer_forms(folder: Path | None, sides: list[ops.CardLayout] | None = None, fonts=None) -> None:
    """From now on, each card side rendered into the bitmap cache of the output folder
    `folder` is drawn with the fonts named and coded as the print documents of its card
    sides `sides` name them (`Drawer.prepare`: the print sheets, cards.pdf and the fold-over
    sheets), and its form goes to that folder's form cache (`FormCache.offer`), so those
    documents draw no side a worker drew: on a first build, the contrast check renders every
    side (the print sheets of 500 cards took 0.9 s of the build process, 0.3 s with the forms
    offered).  A side with images is not offered (drawn at the bitmap's resolution, not the
    print's), nor the sides of a plan that renders fewer than `SMALL_JOB` (a one-card edit's:
    its PDF would name and embed every character of the game for one side).  None: not (a
    build without those documents); nor past `OFFER_MOST` characters (a script of thousands:
    each worker's PDF would embed them all)."""
    _offering.clear()
    if folder is not None and sides:
        _offering.append(_Offer(Path(folder), sides, fonts))


def _offered_chars(cache: Cache) -> dict[str, set[str]] | None:
    """The characters to draw the sides of `cache`'s plans with (`offer_forms`), if offered:
    worked out when a plan first needs them (a one-card edit's does not, nor registers the
    fonts with ReportLab for them)."""
    offer = _offering[0] if _offering else None
    if offer is None or cache.dir != offer.folder / ".cache" / "raster":
        return None
    if offer.sides is not None:         # (worked out once, the sides then let go)
        from cardgen.render.draw import text_chars
        from cardgen.resources.fonts import use_in_reportlab

        use_in_reportlab()      # (as the print documents' canvas does: ReportLab's fonts code the characters)
        chars = text_chars(offer.sides, offer.fonts)
        offer.chars = chars if sum(len(c) for c in chars.values()) <= OFFER_MOST else None
        offer.sides = offer.fonts = None
    return offer.chars


def job_dpi(job: Job) -> float:
    """The pixels per inch of a job's bitmap (its images are drawn at that: `render.art`)."""
    return job.spec.px_w * 72 / max(job.layout.width + 2 * job.spec.bleed, 1e-6)


def _scaled(img: Image.Image, spec: Spec) -> Image.Image:
    """A screen-class render scaled to the size `spec` wants (the same image if it is that size)."""
    if img.size == (spec.px_w, spec.px_h):
        return img
    return img.resize((spec.px_w, spec.px_h), Image.Resampling.LANCZOS)


def _run_jobs(units: list[Unit], font_dirs: tuple, font_names: dict,
              art_at: tuple[str, float, str] | None = None, known: dict | None = None,
              sink=None, chars: dict[str, set[str]] | None = None) -> list:
    """Do units' work in this process: one PDF for the sides to render, one page each, and
    each scaled bitmap from its side's render.  Returns the files written for the jobs with
    `ready` and their sha256, the answers of the jobs' probes (`Probed`) and, with `chars`,
    the sides' forms for the print documents (`Formed`: `offer_forms`).  `art_at`: where
    the downsampled copies of images are kept and the print resolution (`render.art.configure`),
    and the code version SVG forms are kept in the user's cache under (`_SvgForms`); `known`:
    the hashes of the pictures the sides show, as the build knows them
    (`core.digest.remembered`: a photo of 20 MB is not read and hashed again by each worker
    that draws it)."""
    import pypdfium2 as pdfium

    from cardgen.core.digest import remember
    from cardgen.render import art

    if art_at is not None:
        art.configure(Path(art_at[0]), art_at[1])
        _svg_forms.stamp = art_at[2]
    if known:
        remember(known)
    renders = [u.render for u in units if u.render is not None]
    doc = None
    ready: list[tuple[str, str] | Probed | Formed | None] = []
    if renders:
        _ensure_fonts(font_names)
        fonts = _fontbook(font_dirs)
        formed: list[Formed] = []
        doc = pdfium.PdfDocument(jobs_pdf([j.layout for j in renders], fonts, [job_dpi(j) for j in renders],
                                          (chars, formed) if chars is not None else None))
        ready += formed
    page_no = 0
    try:
        for u in units:
            img = None
            if u.render is not None:
                assert doc is not None
                page = doc[page_no]
                page_no += 1
                packed: list[bytes] = []
                img = _render_page(page, u.render.layout, u.render.spec,
                                   packed if u.render.spec.kind == "raw" else None)
                page.close()
                ready.append(_save(img, u.render, packed[0] if packed else None))
                if u.render.probe is not None:
                    ready.append(Probed(str(u.render.out), u.render.probe.fn(img, u.render.layout, u.render.spec)))
                if sink is not None:
                    sink(u.render.out, img)
            if u.scaled:
                src = img if img is not None else open_image(u.source)
                for job in u.scaled:
                    scaled = _scaled(src, job.spec)
                    ready.append(_save(scaled, job))
                    if job.probe is not None:
                        ready.append(Probed(str(job.out), job.probe.fn(scaled, job.layout, job.spec)))
            del img
    finally:
        if doc is not None:
            doc.close()
    return [r for r in ready if r is not None]


def _worker(args):
    kind, payload = args
    if kind == "raster":
        return _run_jobs(*payload)
    fn, fargs = payload
    return fn(*fargs)


# Blocks of freed images a worker's Pillow keeps for the next image (none by default): each deck
# sheet (48 MB, three 16 MB blocks) and each render's copy then reuses memory already mapped,
# instead of the kernel mapping and zeroing fresh pages for it (37 ms -> 5 ms a sheet). A sheet's
# blocks are kept only until the next image takes them, so a worker's peak stays what it holds.
WORKER_BLOCKS = 4


def _worker_started() -> None:
    Image.core.set_blocks_max(WORKER_BLOCKS)


def _pool_size(n_jobs: int) -> int:
    return max(1, min(os.cpu_count() or 1, math.ceil(n_jobs / SMALL_JOB)))


# What every worker imports, once, in the process workers are forked from (the fork server).
# Besides drawing and rendering: the packed layouts' module (every side comes to a worker as
# a `layout.cache.PackedLayout`; about 0.05 s of CPU a worker).  Not what draws an SVG icon
# (svglib, ReportLab's graphics: about 0.1 s): an icon's form is kept in the user's cache
# (`_SvgForms`), so a worker imports them only for an icon no build of this code drew before.
_PRELOAD = ["cardgen.render.raster", "cardgen.render.draw", "pypdfium2", "PIL.PngImagePlugin",
            "reportlab.pdfbase.ttfonts", "cardgen.layout.cache"]


_forkserver_failed = False


def _context():
    """Workers are forked from a fork server, started once (`start_early`) before the cards
    are read: it has imported what they need and holds nothing of the build (no layouts: a
    worker holds only the modules and the share of the cards it is sent, however large the
    game); a fork of the `cardgen` command's process (`_fork_server`), else a new interpreter.  Where
    there is no fork server (Windows), or it could not start (it needs a socket in the
    temporary folder), they are spawned: the same, but each imports all itself."""
    import multiprocessing as mp

    if _forkserver_failed or "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


@contextlib.contextmanager
def _quiet_to_ctrl_c():
    """Start worker processes (and the fork server) ignoring Ctrl-C: the build's own process
    handles it (it ends them, `Pool.__exit__`, and says it in one line); a worker that took it
    too would print its traceback.  The children inherit SIGINT ignored (an ignored signal
    stays ignored through exec) and blocked; this process blocks it meanwhile, so a Ctrl-C
    pressed while they start is held, not lost, and arrives here as soon as they have
    started (Linux keeps a blocked signal pending even while it is ignored)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield           # (no signal masks on Windows: workers are spawned there, and say their own)
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def start_early() -> bool:
    """Start the fork server now, in the background (it takes a few tenths of a second to
    import): call it before the work that comes ahead of rasterizing, e.g. laying out the
    cards, so that the first workers start at once when they are needed.  False if there
    is none (workers will be spawned)."""
    global _forkserver_failed
    if _context().get_start_method() != "forkserver":
        return False
    from multiprocessing import forkserver

    try:
        with _quiet_to_ctrl_c():
            if not _fork_server():
                forkserver.ensure_running()
    except OSError:
        _forkserver_failed = True
        return False
    return True


def _fork_server() -> bool:
    """Start multiprocessing's fork server as a fork of this process, which has imported most
    of what the server preloads (Pillow, ReportLab, the drawing operations), instead of a new
    interpreter importing them all again: 0.23 -> 0.06 s of CPU.  Only in the `cardgen`
    command's own process (`core.imports.COMMAND`; not in a program or test that builds in its
    own process: its state would be the workers'), with no other thread (`serve`), on Linux and a Python whose
    fork server this knows (3.11 to 3.13: no key to authenticate its clients); called before
    the cards are read (`start_early`), so the server holds little more than the imports.
    False if not (it is then started as a new interpreter, as multiprocessing does)."""
    import sys
    from multiprocessing import forkserver

    from cardgen.core import imports

    fs = getattr(forkserver, "_forkserver", None)
    if (not imports.COMMAND or threading.active_count() > 1 or sys.platform != "linux"
            or sys.version_info >= (3, 14) or "authkey_r" in forkserver.main.__code__.co_varnames
            or fs is None or hasattr(fs, "_forkserver_authkey") or getattr(fs, "_forkserver_pid", 0) is not None
            or not hasattr(fs, "_forkserver_alive_fd") or not hasattr(fs, "_forkserver_address")):
        return False
    import socket
    from multiprocessing import connection, resource_tracker, util

    resource_tracker.ensure_running()           # (as multiprocessing does: its workers are given it)
    with socket.socket(socket.AF_UNIX) as listener:
        address = connection.arbitrary_address("AF_UNIX")      # type: ignore[attr-defined]
        listener.bind(address)
        if not util.is_abstract_socket_namespace(address):
            os.chmod(address, 0o600)
        listener.listen()
        alive_r, alive_w = os.pipe()            # (the server ends when this process has closed alive_w)
        try:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()              # (else what they hold is written again by the server's workers)
            pid = os.fork()
            if pid == 0:
                _serve(listener.fileno(), alive_r)
        except BaseException:
            os.close(alive_w)
            raise
        finally:
            os.close(alive_r)
    fs._forkserver_address = address
    fs._forkserver_alive_fd = alive_w
    fs._forkserver_pid = pid
    return True


def _serve(listener: int, alive_r: int) -> None:
    """The fork server, in the child `_fork_server` made: none of the build's files stay
    open here (not the output folder's lock, nor the end of the pipe that tells it to end),
    nothing of the build's is collected here (its objects are frozen: a file object of the
    build is never closed here, its number reused), and it never returns."""
    import gc
    from multiprocessing import forkserver

    code = 0
    try:
        gc.freeze()
        keep = sorted({0, 1, 2, listener, alive_r})
        for low, high in zip(keep, [*keep[1:], os.sysconf("SC_OPEN_MAX")]):
            os.closerange(low + 1, high)
        forkserver.main(listener, alive_r, _PRELOAD)
    except SystemExit:
        pass
    except BaseException:
        code = 1
    finally:
        os._exit(code)


WATCH = 1.0         # seconds between looks at the workers while waiting for their work


class Pool:
    """Worker processes, started on first need and shared by the steps of one output;
    use as a context manager so they end with it.  While their work is waited for, a worker
    that ended (killed, crashed) raises `WorkerLost` instead of leaving the wait for ever
    (`multiprocessing.Pool` starts another worker but never gives the lost work back)."""

    def __init__(self):
        self._pool = None
        self._procs: list = []      # every worker process this pool started
        self.size = 0

    def get(self, n_jobs: int):
        want = _pool_size(n_jobs)
        if want <= 1:
            return None
        if self._pool is None:
            self.size = os.cpu_count() or 1
            start_early()
            with _quiet_to_ctrl_c():
                self._pool = _context().Pool(self.size, initializer=_worker_started)
            self._known()           # (before any work: a worker that dies is replaced, and gone from the pool's list)
        return self._pool

    def map(self, items: list[tuple]) -> list:
        """Run ("call", (fn, args)) or ("raster", ...) items, in workers when worth it."""
        procs = self.get(len(items) * SMALL_JOB) if len(items) > 1 else None
        if procs is None:
            return [_worker(it) for it in items]
        return list(self.watched(procs.imap(_worker, items, chunksize=1)))

    def watched(self, results: Any) -> Iterator:
        """The results of `imap`/`imap_unordered` on this pool, as they come; `WorkerLost` if
        a worker ends while they are waited for."""
        import multiprocessing

        while True:
            try:
                yield results.next(timeout=WATCH)
            except StopIteration:
                return
            except multiprocessing.TimeoutError:
                self._look()

    def _known(self) -> None:
        workers = getattr(self._pool, "_pool", None)        # (the pool's worker processes)
        if isinstance(workers, list):
            self._procs.extend(p for p in workers if p not in self._procs)

    def _look(self) -> None:
        from cardgen.core.envfail import WorkerLost

        self._known()
        for p in self._procs:
            if p.exitcode is not None:
                raise WorkerLost(p.pid, p.exitcode)

    def __enter__(self):
        return self

    def __exit__(self, kind, *exc):
        if kind is not None and self._pool is not None:     # (Ctrl-C, an error: their work is not wanted)
            self._pool.terminate()
            self._pool.join()
            self._pool = None
        self.close()

    def close(self):
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None


def _chunks(items: list, n: int, most: int = CHUNK, least: int = 2) -> list[list]:
    """Contiguous chunks for n workers that take the next one when done with theirs: none
    longer than `most` (a bounded chunk keeps a worker's memory flat however large the deck),
    and none longer than a 2n-th of what is left, down to `least`, so they shrink towards the
    end and the workers finish together (no core left idle while another does a last long
    chunk).  Neighbouring cards, usually of one deck, stay together, so a worker embeds few
    fonts and icons."""
    out, start = [], 0
    while start < len(items):
        size = max(least, min(most, math.ceil((len(items) - start) / (2 * max(1, n)))))
        out.append(items[start:start + size])
        start += size
    return out


@dataclass
class Plan:
    """What `rasterize` will do: the cached file of each request (`paths`, in order), the
    bitmaps not in the cache (`jobs`) and the work they need, by the file of each side's
    render (`units`)."""

    paths: list[Path]
    jobs: list[Job]
    units: dict[Path, Unit]
    probed: dict[str, Any] = field(default_factory=dict)    # a bitmap's file -> its probe's answer, once run


def plan(requests: list[tuple[ops.CardLayout, Spec]], cache: Cache, ready_dir: Path | None = None,
         probes: dict[int, Probe] | None = None) -> Plan:
    """The cached file of each (layout, spec) and the work of those the cache lacks (see
    `rasterize`); nothing is rendered yet.  `probes`: by the index of a request, what to find
    out of its bitmap if it is made now."""
    font_files = registered_fonts()
    paths: list[Path] = []
    seen: set[Path] = set()
    jobs: list[Job] = []                # the bitmaps asked for and not in the cache
    units: dict[Path, Unit] = {}        # by the file of the side's render
    for k, (layout, spec) in enumerate(requests):
        path = cache.path(side_key(layout, spec, font_files), spec.ext)
        paths.append(path)
        if path in seen:
            continue
        seen.add(path)
        if _cached(path):
            continue
        job = Job(layout, spec, path, ready_dir / path.name if ready_dir else None, probes.get(k) if probes else None)
        jobs.append(job)
        ms = master_spec(layout, spec)
        if ms is None:
            if path not in units:       # (else: it is already some other bitmap's render)
                units[path] = Unit(layout, job, [])
            continue
        source = cache.path(side_key(layout, ms, font_files), ms.ext)
        unit = units.get(source)
        if unit is None:
            unit = units[source] = (Unit(layout, None, [], source) if source not in seen and _cached(source)
                                    else Unit(layout, Job(layout, ms, source), []))
        unit.scaled.append(job)
    return Plan(paths, jobs, units)


def rasterize(requests: list[tuple[ops.CardLayout, Spec]], cache: Cache, font_dirs, pool: Pool | None = None,
              ready: tuple[Path, dict[Path, tuple[Path, str]]] | None = None,
              probes: tuple[dict[int, Probe], dict[str, Any]] | None = None) -> list[Path]:
    """The cached bitmap file of each (layout, spec), rasterizing only what the cache
    lacks.  Equal requests (copies, or identical cards) are rasterized once, and every
    bitmap of the screen class (`master_spec`) is scaled from one render of its side, made
    once and kept in the cache, so the gallery, TTS and the contrast check share it.

    `ready` = (folder, found): each bitmap rasterized now is also written, as it is, to a
    file of its own in that folder (by the worker that made it, so nobody copies it out of
    the cache afterwards), and found[its cache file] = (that file, its sha256); for an output
    to move into place (`Staging.add_ready`).

    `probes` = (asked, answers): asked[k] is looked at in the bitmap of request k where it is
    made, if it is made now, and answers[that bitmap's file] is what it found (equal requests
    share it; a bitmap found in the cache is not looked at: its file is there to read)."""
    p = plan(requests, cache, ready[0] if ready else None, probes[0] if probes else None)
    run(p, cache, font_dirs, pool, ready[1] if ready else None)
    if probes:
        probes[1].update(p.probed)
    return p.paths


def run(p: Plan, cache: Cache, font_dirs, pool: Pool | None = None,
        found: dict[Path, tuple[Path, str]] | None = None, groups: list | None = None) -> list:
    """Do a plan's work (`found`: `rasterize`'s `ready`).  `groups`: (cells, fn, args) each, a
    piece of work on the bitmaps whose files `cells` lists (a TTS deck sheet: `render.mosaic`),
    done in one worker by fn(units, font_dirs, font_names, art_at, known, *args), which renders
    `units`, the sides only this group shows (`_run_jobs`), its own way; the other sides are
    rendered first, in chunks.  Returns the (file, sha256) of each file written to be moved
    into place: the jobs' with `ready`, and what the groups' functions return; the jobs'
    probes' answers go to `p.probed`."""
    font_dirs, font_files = tuple(str(d) for d in font_dirs), registered_fonts()
    made: list = []
    work = list(p.units.values())
    own = _own_units(work, [cells for cells, _, _ in groups or []])
    if work or groups:
        STATS["rasterized"] += sum(u.render is not None for u in p.units.values())
        STATS["scaled"] += sum(len(u.scaled) for u in p.units.values())
        # (the fonts of their text runs, from what drawing them needs: a side held packed is not decoded here)
        used = {font for u in p.units.values() if u.render is not None for font, _ in ops.needs(u.layout).chars}
        # (a few sides, a one-card edit's: drawn here, and quickly by the print documents too,
        # are not worth each small PDF naming and embedding every character of the game)
        renders = sum(u.render is not None for u in p.units.values())
        chars = _offered_chars(cache) if renders >= SMALL_JOB else None
        if chars is not None:
            used.update(chars)          # (the print documents' fonts, all named in each PDF: `offer_forms`)
        font_names = {n: str(f) for n, f in font_files.items() if n in used}
        # (two groups or more count their cells, rendered or read from the cache: a cold build
        # whose gallery rendered every side makes its deck sheets in the workers, two at once;
        # a one-card edit's one sheet is made here)
        cells = sum(len(c) for c, _, _ in groups) if groups and len(groups) > 1 else 0
        procs = pool.get(len(p.units) + cells) if pool else None
        from cardgen.render import art

        art_at = (str(cache.dir.parent / "art"), art.print_dpi(), _svg_stamp(p.units.values()))
        if procs is None:       # (this process keeps its copies where it was told: `art.configure`)
            _svg_forms.stamp = art_at[2]
            with _SvgFile.around(cache):
                made = _run_jobs(work, font_dirs, font_names, chars=chars)
                for units, (_, fn, args) in zip(own, groups or []):
                    made += fn(units, font_dirs, font_names, None, None, *args)
        else:
            assert pool is not None
            for items in (
                # generators: a chunk's layouts are pickled only when a worker is ready for them
                (("raster", (part, font_dirs, font_names, art_at, _pictures_known(part), None, chars))
                 for part in _chunks(work, _pool_size(len(work)))),
                (("call", (fn, (units, font_dirs, font_names, art_at, _pictures_known(units), *args)))
                 for units, (_, fn, args) in zip(own, groups or []))):
                for done in pool.watched(procs.imap_unordered(_worker, items)):
                    made.extend(done)
    if any(isinstance(m, Probed) for m in made):
        p.probed.update((m.out, m.value) for m in made if isinstance(m, Probed))
        made = [m for m in made if not isinstance(m, Probed)]
    if any(isinstance(m, Formed) for m in made):
        from cardgen.render.formcache import FormCache

        forms = FormCache.of(_offering[0].folder)
        for m in made:
            if isinstance(m, Formed):
                forms.offer(m.key, m.entry)
        made = [m for m in made if not isinstance(m, Formed)]
    if found is not None:
        by_file = dict(made)
        found.update((j.out, (j.ready, by_file[str(j.ready)])) for j in p.jobs if j.ready is not None)
    return made


def _svg_stamp(units) -> str:
    """The code version SVG forms are kept under in the user's cache (`_SvgForms`), if
    the sides `units` render draw any SVG ("" if not: nothing is kept nor looked up)."""
    from cardgen.core.digest import code_version

    return code_version() if any(ops.needs(u.layout).svgs for u in units if u.render is not None) else ""


def _own_units(work: list[Unit], groups: list[list]) -> list[list[Unit]]:
    """The units of `work` whose render only one group's cells show (a cell: a file, or
    (file, turn)), per group, taken out of `work`."""
    shown: dict[str, list[int]] = {}
    for k, cells in enumerate(groups):
        for cell in {c[0] if isinstance(c, tuple) and len(c) == 2 else c for c in cells}:
            if isinstance(cell, str | Path):
                shown.setdefault(str(cell), []).append(k)
    own: list[list[Unit]] = [[] for _ in groups]
    rest: list[Unit] = []
    for u in work:
        ks = shown.get(str(u.render.out)) if u.render is not None else None
        (own[ks[0]] if ks is not None and len(ks) == 1 else rest).append(u)
    work[:] = rest
    return own


def _pictures_known(units: list[Unit]) -> dict:
    """The hashes this process knows of the raster files the sides `units` render show
    (`core.digest.remembered`), for the worker that renders them."""
    from cardgen.core.digest import remembered

    return remembered({Path(f) for u in units if u.render is not None for f in ops.needs(u.layout).rasters})


def _cached(path: Path) -> bool:
    """True if the bitmap `path` is in the cache (and intact): marked used, counted."""
    if not (path.is_file() and is_intact(path)):
        return False
    STATS["cached"] += 1
    with contextlib.suppress(OSError):
        os.utime(path)           # used now: keeps it from being pruned
    return True


def font_dirs_of(rendered) -> list[Path]:
    return rendered.game.search_dirs("fonts")
