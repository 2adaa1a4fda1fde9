"""Images at the resolution they print.

A card's picture is often a photo of 3000 x 4000 px or more, shown in a box a few centimetres
wide: embedded as it is, every PDF carries about 45 times the pixels its box can show, and
every output decodes and compresses it again (a 100-card photo game took 204 s and 10 GB for
its print PDFs).  So each PNG or JPEG drawn by an `image` element is drawn from a copy
downsampled to what its box needs at the output's resolution (`fitted`):

- the print PDFs at game.yaml `image_dpi` (300 by default: `configure`), the raster outputs
  (Tabletop Simulator, gallery, PNG) at their own pixel size (`render.raster`);
- an image with no more than `SLACK` times the pixels its box needs is drawn as it is (never
  enlarged: one with fewer pixels prints soft, which the layout says: `core.images.soft`);
- the copy is made once per image content (sha256) and size, decoded once (a JPEG at the
  reduced size its decoder can give directly, `draft`), never held whole longer than that,
  and kept as a file in the output folder's `.cache/art/` (`configure`), which every output
  and every raster worker of the build, and the next build, reads instead of decoding the
  original again.  Copies not used for `KEEP_DAYS` are deleted.  A process with no output
  folder (a library call, a test) keeps them in a temporary folder of its own.

The copy is drawn by its content (ReportLab's image name is a hash of its pixels, not of
where the copy is), so the PDF is the same whichever folder it was made in.
"""
from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cardgen.core.digest import file_digest
from cardgen.core.images import DECODED, pixels, print_dpi, set_print_dpi
from cardgen.core.memo import Bounded

SLACK = 1.1             # an image up to this many times the pixels its box needs is drawn as it is
# Pillow's `reducing_gap`: an original is first reduced by a whole factor (averaging blocks of
# pixels) to at least this many times the copy's size, then resampled (Lanczos); 3.0 took a
# third of a 3000 x 4000 px photo's decode again, 2.0 a tenth, no difference one can see in
# print.  Copies are named by it (`_target`): a copy made with another is never taken.
REDUCING_GAP = 2.0
KEEP_DAYS = 14
FITTED = (".png", ".jpg", ".jpeg")

# counted in this process: originals decoded, copies decoded (to make a smaller one), copies
# made, copies found (made before), image objects a PDF took as kept (not compressed again),
# image objects made by the threads decoding ahead (`copy_ahead`)
STATS = {"decoded": 0, "derived": 0, "made": 0, "found": 0, "reused": 0, "objects": 0}
_sizes: Bounded[tuple[str, str], tuple[int, int]] = Bounded(4096)     # (path, digest) -> pixel size
_copies: Bounded[tuple[str, int, int], Path] = Bounded(4096)          # (digest, w, h) -> copy
_settings: dict[str, object] = {"folder": None, "screen": False}
_lock = threading.Lock()        # (copies are made by the threads decoding ahead of the layout too)
_own_temp: list[Path] = []


def configure(folder: Path | None, dpi: float | None = None, owner: Path | None = None,
              screen: bool = False) -> None:
    """Where this process keeps copies (an output folder's `.cache/art`; None: a temporary
    folder) and, if given, the print PDFs' resolution (else the game's, set when it is laid
    out: `core.images.set_print_dpi`).  Old copies there are pruned.  `owner`: the output
    folder whose cache it is, claimed as cardgen's own (`core.cachefile.claim_folder`: copies
    a game folder brings are deleted, never drawn); the build's raster workers, configured
    after it, leave that to the build.  `screen`: the build rasterizes card sides (TTS, the
    gallery), so the threads decoding ahead make the screen class's copies too
    (`copy_ahead`)."""
    if folder is not None:
        from cardgen.core.cachefile import claim_folder
        from cardgen.core.paths import through_link

        folder = Path(folder)
        if through_link(folder, 3):
            folder = None           # (never written through a link)
        else:
            if owner is not None:
                claim_folder(folder, owner)
            prune(folder)
    _settings["folder"] = folder
    _settings["screen"] = screen
    if dpi is not None:
        set_print_dpi(dpi)


def folder() -> Path:
    """The folder copies are kept in (made on first use)."""
    where = _settings["folder"]
    if where is None:
        with _lock:
            if not _own_temp:
                _own_temp.append(Path(tempfile.mkdtemp(prefix="cardgen-art-")))
                atexit.register(shutil.rmtree, _own_temp[0], True)
        return _own_temp[0]
    return Path(str(where))


def prune(where: Path, now: float | None = None) -> int:
    """Delete copies not used for `KEEP_DAYS`; how many."""
    if not where.is_dir():
        return 0
    cut = (now or time.time()) - KEEP_DAYS * 86400
    gone = 0
    for entry in os.scandir(where):
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and entry.name != "OWNER" and entry.stat().st_mtime < cut:
                os.unlink(entry.path)
                gone += 1
    return gone


def source_size(path: Path) -> tuple[int, int]:
    """An image file's pixel size (read from its header, not decoded)."""
    from cardgen.core.images import open_path

    key = (str(path), file_digest(path))
    hit = _sizes.get(key)
    if hit is None:
        with open_path(path) as im:
            hit = _sizes[key] = (int(im.size[0]), int(im.size[1]))
    return hit


def fitted(path: Path | str, w_pt: float, h_pt: float, dpi: float | None = None) -> Path:
    """The file to draw for the image `path` drawn `w_pt` x `h_pt` points at `dpi` (the print
    resolution if None): `path` itself when it has no more pixels than the box needs (times
    `SLACK`) or is not a PNG or JPEG, else its downsampled copy (made on first use)."""
    path = Path(path)
    if path.suffix.lower() not in FITTED:
        return path
    try:
        iw, ih = source_size(path)
    except Exception:       # unreadable: drawn as it is (the layout said so already)
        return path
    tw, th = pixels(w_pt, h_pt, dpi or print_dpi())
    if iw <= tw * SLACK and ih <= th * SLACK:
        return path
    size = (min(iw, tw), min(ih, th))
    # a smaller copy (a raster output's) is made from the print copy, not from the original:
    # the original is decoded once, whichever output asks first
    pw, ph = pixels(w_pt, h_pt, print_dpi())
    master = fitted(path, w_pt, h_pt, print_dpi()) if size[0] < pw and size[1] < ph else path
    return _copy(path, size, master)


def _copy(path: Path, size: tuple[int, int], master: Path | None, decoded: Any = None) -> Path:
    """The copy of `path` at `size` (made from `master`, or from the image `decoded`)."""
    digest = file_digest(path)
    key = (digest, *size)
    hit = _copies.get(key)
    if hit is not None and hit.is_file():
        return hit
    target = _target(path, digest, size)
    if target.is_file():
        _count("found")
        with contextlib.suppress(OSError):
            os.utime(target)        # used now: kept from pruning
    elif decoded is not None:
        _write(decoded, size, target)
    else:
        assert master is not None
        _make(master, size, target, original=master == path)
    _copies[key] = target
    return target


def _target(path: Path, digest: str, size: tuple[int, int]) -> Path:
    """Where the copy of `path` (of content `digest`) at `size` is kept."""
    ext = ".jpg" if path.suffix.lower() in (".jpg", ".jpeg") else ".png"
    return folder() / f"{digest[:32]}-{size[0]}x{size[1]}-g{REDUCING_GAP:g}{ext}"


def _count(what: str) -> None:
    with _lock:
        STATS[what] += 1


def copy_ahead(path: Path, digest: str, im: Any, drawn: tuple[float, float], width: float = 0.0,
               height: float = 0.0) -> None:
    """From a thread decoding `path` (of content `digest`) ahead of the layout
    (`layout.ahead`), for a box drawn at `drawn` points on a card side `width` x `height` points,
    everything the outputs will draw of it, made from that one decode `im` (what is there
    already is not made again): its print copy and the image object the PDFs hold of it
    (`kept_image`: compressed once, here), and, when the build rasterizes card sides
    (`configure`), the screen class's copy (`core.atlascell.screen_size`) made from the print
    copy as `fitted` makes it, and its image object.  The first `fitted` of each finds the
    file, and every PDF and raster worker its object.  Touches no memo of this process; what
    it cannot write is made when first drawn.  zlib, Pillow's scaling and its encoders let
    go of the interpreter: this runs on both cores while the layout goes on."""
    size = _copy_size(path, im, drawn)
    if size is None:
        return
    target = _target(path, digest, size)
    if target.is_file():
        return
    with contextlib.suppress(OSError):
        small = _write(im, size, target)
        if target.suffix != ".png":
            return          # (a JPEG copy's pixels are those read back from it: drawn from the file)
        _keep_made(target, small)
        if _settings["screen"] and width > 0:
            for screen in _screen_sizes(im.size, drawn, width, height):
                copy = _target(path, digest, screen)
                if not copy.is_file():
                    _keep_made(copy, _write(small, screen, copy))


def _screen_sizes(pixels_of: tuple[int, int], drawn: tuple[float, float], width: float,
                  height: float = 0.0) -> list[tuple[int, int]]:
    """The sizes of the copies of a picture of `pixels_of` drawn at `drawn` points on a card
    side of `width` x `height` points that the screen class's render of the side
    (`core.atlascell.screen_size`: a full TTS sheet's cell, or its trim at `SCREEN_DPI`) draws,
    made from the print copy (`fitted`); none when it draws the original or the print copy."""
    from cardgen.core.atlascell import PT_PER_IN, screen_size

    dpi = screen_size(width, height)[0] * PT_PER_IN / width        # (`raster.job_dpi`)
    tw, th = pixels(drawn[0], drawn[1], dpi)
    iw, ih = pixels_of
    pw, ph = pixels(drawn[0], drawn[1], print_dpi())
    if iw <= tw * SLACK and ih <= th * SLACK:
        return []
    size = (min(iw, tw), min(ih, th))
    return [size] if size[0] < pw and size[1] < ph else []


def _from_check(path: Path, im: Any, drawn: tuple[float, float]) -> None:
    """The layout's check decoded `path` (drawn at `drawn` points): its print copy is made from
    that decode, not from another."""
    size = _copy_size(path, im, drawn)
    if size is not None:
        _copy(path, size, None, im)


def _copy_size(path: Path, im: Any, drawn: tuple[float, float]) -> tuple[int, int] | None:
    """The pixel size of the print copy of `path` (decoded as `im`) for a box drawn at `drawn`
    points, counted as a decode made for it; None when the picture is printed as it is."""
    if path.suffix.lower() not in FITTED:
        return None
    tw, th = pixels(drawn[0], drawn[1], print_dpi())
    iw, ih = im.size
    if iw <= tw * SLACK and ih <= th * SLACK:
        return None
    _count("decoded")
    return min(iw, tw), min(ih, th)


DECODED.append(_from_check)


def _make(path: Path, size: tuple[int, int], target: Path, original: bool = True) -> None:
    """Decode `path` (a JPEG at the smallest size its decoder gives that is at least `size`),
    downsample it to `size` and write it to `target` (atomically: raster workers may make the
    same copy at the same time).  `original`: `path` is the game's file, not a copy."""
    from cardgen.core.images import open_path

    with open_path(path) as im:
        _count("decoded" if original else "derived")
        if im.format == "JPEG" and im.mode in ("RGB", "L"):
            im.draft(im.mode, size)
        _write(im, size, target)


def _write(im: Any, size: tuple[int, int], target: Path) -> Any:
    """`im` downsampled to `size`, written to `target` (atomically); the downsampled image."""
    from PIL import Image

    icc = im.info.get("icc_profile")
    if im.mode not in ("RGB", "RGBA", "L", "LA") and not (im.mode == "CMYK" and target.suffix == ".jpg"):
        im = im.convert("RGBA" if (im.mode in ("P", "PA", "1") and "transparency" in im.info)
                        or im.mode.endswith("A") else "RGB")
    small = im.resize(size, Image.Resampling.LANCZOS, reducing_gap=REDUCING_GAP)
    extra: dict[str, object] = {"icc_profile": icc} if icc else {}
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.suffix == ".jpg":
            small.save(tmp, "JPEG", quality=92, subsampling=0, **extra)
        else:
            small.save(tmp, "PNG", compress_level=0, **extra)     # (a cache's: written fast, not small)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _count("made")
    return small


KEPT = ".pdf-image"      # beside a copy: the image object PDFs hold of it (`kept_image`)


def kept_image(copy: Path) -> Any:
    """The image object (`render.pdfxcache.KeptImage`: ReportLab's, compressed) a PDF holds of
    the copy `copy`, kept beside it by the first PDF that drew it (`keep_image`); None if
    there is none (or it is damaged, deleted, or made by another installation)."""
    from cardgen.core.digest import read_sealed
    from cardgen.render.pdfxcache import KeptImage

    side = Path(copy).with_name(Path(copy).name + KEPT)
    body = read_sealed(side) if side.is_file() else None
    hit = KeptImage.loads(body) if body is not None else None
    if hit is not None:
        _count("reused")
        with contextlib.suppress(OSError):
            os.utime(side)          # used now: kept from pruning
    return hit


def keep_image(copy: Path, made: Any) -> None:
    """Keep the image object ReportLab `made` of the copy `copy` for the next PDF that draws it
    (not one with a soft mask: made again each time)."""
    from cardgen.render.pdfxcache import KeptImage

    _keep_side(copy, KeptImage.of(made))


def _keep_side(copy: Path, kept: Any) -> None:
    from cardgen.core import atomic
    from cardgen.core.digest import seal

    side = Path(copy).with_name(Path(copy).name + KEPT)
    if kept is not None and not side.is_file():
        with contextlib.suppress(OSError):
            atomic.write_bytes(side, seal(kept.dumps()))


def image_object(im: Any) -> Any:
    """The image object (`render.pdfxcache.KeptImage`) ReportLab makes of a PNG (or, CMYK, a
    TIFF) file of the pixels `im` drawn with `mask="auto"` (`CardCanvas.drawImage`: no ASCII85): named by the MD5
    of its pixels and the mask, its pixels deflated; None for what it makes otherwise (alpha,
    a transparent colour, a mode it converts).  Made without ReportLab, whose settings are the
    process's (`rlcompat._without_a85`), so any thread may make it."""
    import zlib

    from cardgen.render.pdfxcache import KeptImage

    space = {"RGB": "DeviceRGB", "L": "DeviceGray", "CMYK": "DeviceCMYK"}.get(im.mode)
    if space is None or "transparency" in im.info:
        return None
    raw = im.tobytes()
    name = hashlib.md5(raw + b"auto", usedforsecurity=False).hexdigest()
    return KeptImage(name, int(im.size[0]), int(im.size[1]), 8, space, ("FlateDecode",), None, None, 0,
                     zlib.compress(raw))


def _keep_made(copy: Path, im: Any) -> None:
    """Keep the image object of the copy `copy`, just made as `im`."""
    made = image_object(im)
    if made is not None:
        _keep_side(copy, made)
        _count("objects")


def reset_stats() -> None:
    for k in STATS:
        STATS[k] = 0
    _copies.clear()
