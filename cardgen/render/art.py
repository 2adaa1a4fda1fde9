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
import math
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cardgen.core.digest import file_digest
from cardgen.core.images import DECODED, ROWS, pixels, print_dpi, set_print_dpi, shown, whole_size
from cardgen.core.memo import Bounded

SLACK = 1.1             # an image up to this many times the pixels its box needs is drawn as it is
# Pillow's `reducing_gap`: an original is first reduced by a whole factor (averaging blocks of
# pixels) to at least this many times the copy's size, then resampled (Lanczos); 3.0 took a
# third of a 3000 x 4000 px photo's decode again, 2.0 a tenth, no difference one can see in
# print.  Copies are named by it (`_target`): a copy made with another is never taken.
REDUCING_GAP = 2.0
KEEP_DAYS = 14
# around the part of a picture its box shows (`cover`), the pixels its copies keep too
# (`window`): the print copy `MARGIN` (what the smaller copies made from it resample, 3 of
# their pixels, comes from it, for ratios up to about 2.3: 300 to 130 dpi), the others `EDGE`
# (where a viewer's smoothing reaches); the box's edge is never where a copy ends
MARGIN = 8
EDGE = 2
FITTED = (".png", ".jpg", ".jpeg")

# counted in this process: originals decoded, copies decoded (to make a smaller one), copies
# made, copies found (made before), image objects a PDF took as kept (not compressed again),
# image objects made by the threads decoding ahead (`copy_ahead`)
STATS = {"decoded": 0, "derived": 0, "made": 0, "found": 0, "reused": 0, "objects": 0}
_sizes: Bounded[tuple[str, str], tuple[int, int]] = Bounded(4096)     # (path, digest) -> pixel size
_copies: Bounded[tuple[Any, ...], Path] = Bounded(4096)    # (digest, w, h, window) -> copy
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


Window = tuple[int, int, int, int]     # the part of a copy kept: its pixels left, top, right, bottom
Plan = tuple[tuple[int, int], Window | None]      # a copy: the whole copy's pixel size, the part kept


def _plan(iw: int, ih: int, drawn: tuple[float, ...], dpi: float) -> Plan | None:
    """The copy a drawing at `dpi` draws of an `iw` x `ih` picture drawn at `drawn` (points,
    then the part of it its box shows: `core.images.shown`): the pixel size of the picture
    scaled to its box at `dpi`, and the part of that kept (`window`; None: all of it); None
    when the picture is drawn as it is (no more pixels than its box needs, times `SLACK`:
    never enlarged)."""
    tw, th = pixels(drawn[0], drawn[1], dpi)
    if iw <= tw * SLACK and ih <= th * SLACK:
        return None
    full = (min(iw, tw), min(ih, th))
    return full, window(full, drawn, MARGIN if dpi == print_dpi() else EDGE)


def window(full: tuple[int, int], drawn: tuple[float, ...], margin: int) -> Window | None:
    """The pixels of a picture scaled to `full` pixels and drawn at `drawn` (its points, then
    the part its box shows) that its copy keeps: those its box shows, in part or whole, and
    `margin` more around them; None for all of it.  Cut from the scaled picture's own pixel
    grid: each pixel kept is the very pixel the whole scaled picture has there (`_scaled`),
    drawn at the very place (`placed`)."""
    if len(drawn) != 6:
        return None
    (fw, fh), part = full, drawn[2:]
    x0, y0 = max(0, math.floor(part[0] * fw) - margin), max(0, math.floor(part[1] * fh) - margin)
    x1, y1 = min(fw, math.ceil(part[2] * fw) + margin), min(fh, math.ceil(part[3] * fh) + margin)
    if (x0, y0, x1, y1) == (0, 0, fw, fh) or x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def fitted(path: Path | str, w_pt: float, h_pt: float, dpi: float | None = None) -> Path:
    """The file to draw for all of the image `path` drawn `w_pt` x `h_pt` points at `dpi`
    (the print resolution if None): `path` itself when it has no more pixels than the box
    needs (times `SLACK`) or is not a PNG or JPEG, else its downsampled copy (made on first
    use)."""
    return copy_of(path, (w_pt, h_pt), dpi)[0]


def copy_of(path: Path | str, drawn: tuple[float, ...], dpi: float | None = None) -> tuple[Path, Plan | None]:
    """The file to draw for the image `path` drawn at `drawn` (its points, and the part of it
    shown: `core.images.shown`) at `dpi` (the print resolution if None), and what it holds
    (`_plan`; None: `path` itself, when it has no more pixels than the box needs, times
    `SLACK`, or is not a PNG or JPEG); else its copy, downsampled, of the part its box shows
    (made on first use)."""
    path = Path(path)
    if path.suffix.lower() not in FITTED:
        return path, None
    try:
        iw, ih = source_size(path)
    except Exception:       # unreadable: drawn as it is (the layout said so already)
        return path, None
    plan = _plan(iw, ih, drawn, dpi or print_dpi())
    if plan is None:
        return path, None
    # a smaller copy (a raster output's) is made from the print copy, not from the original:
    # the original is decoded once, whichever output asks first
    pw, ph = pixels(drawn[0], drawn[1], print_dpi())
    if plan[0][0] < pw and plan[0][1] < ph:
        master, held = copy_of(path, drawn, print_dpi())
        if held is not None:
            return _copy(path, plan, master, held=held), plan
    return _copy(path, plan, path), plan


def placed(op: Any, dpi: float | None = None) -> tuple[Path, tuple[float, float, float, float]]:
    """The file to draw for the image operation `op` (`model.ops.Image`) at `dpi` (the print
    resolution if None), and where (x, y, w, h points, y down, as `op` says it): `copy_of`
    the part of it its clip shows, drawn where that part was, so every pixel shown is where
    it would be if all of it were drawn."""
    where = (float(op.x), float(op.y), float(op.w), float(op.h))
    src, plan = copy_of(op.path, shown(*where, op.clip), dpi)
    if plan is None or plan[1] is None:
        return src, where
    (fw, fh), (x0, y0, x1, y1) = plan[0], plan[1]
    x, y, w, h = where
    return src, (x + x0 / fw * w, y + y0 / fh * h, (x1 - x0) / fw * w, (y1 - y0) / fh * h)


def _copy(path: Path, plan: Plan, master: Path | None, decoded: Any = None, held: Plan | None = None) -> Path:
    """The copy `plan` of `path`, made from `master` (the original, or the copy `held` of it),
    or from the original decoded as `decoded`."""
    digest = file_digest(path)
    key = (digest, *plan)
    hit = _copies.get(key)
    if hit is not None and hit.is_file():
        return hit
    target = _target(path, digest, plan)
    if target.is_file():
        _count("found")
        with contextlib.suppress(OSError):
            os.utime(target)        # used now: kept from pruning
    elif decoded is not None:
        _write(decoded, plan, target)
    else:
        assert master is not None
        _make(master, plan, target, held)
    _copies[key] = target
    return target


def _target(path: Path, digest: str, plan: Plan) -> Path:
    """Where the copy `plan` of `path` (of content `digest`) is kept."""
    ext = ".jpg" if path.suffix.lower() in (".jpg", ".jpeg") else ".png"
    (w, h), win = plan
    part = "" if win is None else "-w{}.{}.{}.{}".format(*win)
    return folder() / f"{digest[:32]}-{w}x{h}{part}-g{REDUCING_GAP:g}{ext}"


def _count(what: str) -> None:
    with _lock:
        STATS[what] += 1


def copy_ahead(path: Path, digest: str, im: Any, drawn: tuple[float, ...], width: float = 0.0,
               height: float = 0.0) -> None:
    """From a thread decoding `path` (of content `digest`) ahead of the layout
    (`layout.ahead`), for a box drawn at `drawn` (points, and the part shown:
    `core.images.shown`) on a card side `width` x `height` points, everything the outputs will
    draw of it, made from that one decode `im` (what is there already is not made again): its
    print copy and the image object the PDFs hold of it (`kept_image`: compressed once, here),
    and, when the build rasterizes card sides (`configure`), the screen class's copy
    (`core.atlascell.screen_size`) made from the print copy as `copy_of` makes it, and its
    image object.  The first `copy_of` of each finds the file, and every PDF and raster worker
    its object.  Touches no memo of this process; what it cannot write is made when first
    drawn.  zlib, Pillow's scaling and its encoders let go of the interpreter: this runs on
    both cores while the layout goes on."""
    plan = _print_plan(path, im, drawn)
    if plan is None:
        return
    target = _target(path, digest, plan)
    if target.is_file():
        return
    with contextlib.suppress(OSError):
        small = _write(im, plan, target)
        if target.suffix != ".png":
            return          # (a JPEG copy's pixels are those read back from it: drawn from the file)
        _keep_made(target, small)
        if _settings["screen"] and width > 0:
            for screen in _screen_plans(whole_size(im), drawn, width, height):
                copy = _target(path, digest, screen)
                if not copy.is_file():
                    _keep_made(copy, _write(small, screen, copy, plan))


def _screen_plans(pixels_of: tuple[int, int], drawn: tuple[float, ...], width: float,
                  height: float = 0.0) -> list[Plan]:
    """The copies of a picture of `pixels_of` drawn at `drawn` on a card side of `width` x
    `height` points that the screen class's render of the side (`core.atlascell.screen_size`: a
    full TTS sheet's cell, or its trim at `SCREEN_DPI`) draws, made from the print copy
    (`copy_of`); none when it draws the original or the print copy."""
    from cardgen.core.atlascell import PT_PER_IN, screen_size

    dpi = screen_size(width, height)[0] * PT_PER_IN / width        # (`raster.job_dpi`)
    plan = _plan(int(pixels_of[0]), int(pixels_of[1]), drawn, dpi)
    pw, ph = pixels(drawn[0], drawn[1], print_dpi())
    return [plan] if plan is not None and plan[0][0] < pw and plan[0][1] < ph else []


def _from_check(path: Path, im: Any, drawn: tuple[float, ...]) -> None:
    """The layout's check decoded `path` (drawn at `drawn`): its print copy is made from that
    decode, not from another."""
    plan = _print_plan(path, im, drawn)
    if plan is not None:
        _copy(path, plan, None, im)


def _print_plan(path: Path, im: Any, drawn: tuple[float, ...]) -> Plan | None:
    """The print copy of `path` (decoded as `im`) for a box drawn at `drawn` (`_plan`), counted
    as a decode made for it; None when the picture is printed as it is."""
    if path.suffix.lower() not in FITTED:
        return None
    plan = _plan(*whole_size(im), drawn, print_dpi())
    if plan is not None:
        _count("decoded")
    return plan


def _rows_read(size: tuple[int, int], drawn: tuple[float, ...]) -> int:
    """The rows from the top of a picture of `size` drawn at `drawn` that its print copy is
    made from (`_scaled`: down to the part's last row, and as far as the resampling reaches
    below it, in whole blocks), the copies made from it reading none of the picture; all
    of them when the copy holds all of it.  What a check decodes of a PNG
    (`core.images.rows_read`)."""
    plan = _plan(int(size[0]), int(size[1]), drawn, print_dpi())
    if plan is None or plan[1] is None:
        return int(size[1])
    sy = size[1] / plan[0][1]
    fy = int(sy / REDUCING_GAP) or 1
    end = math.ceil(plan[1][3] * sy + 3 * sy + 1)
    return min(int(size[1]), -(-end // fy) * fy + fy)


DECODED.append(_from_check)
ROWS.append(_rows_read)


def _make(path: Path, plan: Plan, target: Path, held: Plan | None = None) -> None:
    """Decode `path`, the original (a JPEG at the smallest size its decoder gives that is at
    least the copy's whole size) or its copy `held`, scale it to the copy `plan` and write that
    to `target` (atomically: raster workers may make the same copy at the same time)."""
    from cardgen.core.images import open_path

    with open_path(path) as im:
        _count("decoded" if held is None else "derived")
        if held is None and im.format == "JPEG" and im.mode in ("RGB", "L"):
            im.draft(im.mode, plan[0])
        _write(im, plan, target, held)


def _scaled(im: Any, plan: Plan, held: Plan | None = None, whole: tuple[int, int] | None = None) -> Any:
    """The part `plan[1]` (None: all) of the picture `im` scaled to `plan[0]` pixels, or of the
    picture `im` is the part `held` of (a copy).  The part of the original is the very pixels
    (rounding aside) the whole picture scaled by Pillow has there: blocks of it averaged from
    its top left (`reducing_gap`), then resampled across, then down (`_across_then_down`),
    each over the pixels the part's resampling reaches.  `whole`: the original's size when `im`
    is its top rows only (`core.images.decode_rows`)."""
    from PIL import Image

    (fw, fh), win = plan
    if win is None and held is None:
        return im.resize((fw, fh), Image.Resampling.LANCZOS, reducing_gap=REDUCING_GAP)
    win = win or (0, 0, fw, fh)
    whole, origin = (whole or im.size, (0, 0)) if held is None else (held[0], (held[1] or (0, 0))[:2])
    sx, sy = whole[0] / fw, whole[1] / fh
    size = (win[2] - win[0], win[3] - win[1])
    box = (win[0] * sx - origin[0], win[1] * sy - origin[1], win[2] * sx - origin[0], win[3] * sy - origin[1])
    fx, fy = int(sx / REDUCING_GAP) or 1, int(sy / REDUCING_GAP) or 1
    if fx > 1 or fy > 1:
        if held is not None:        # (a copy of a copy at a quarter of its pixels or less: edges as Pillow's)
            return im.resize(size, Image.Resampling.LANCZOS, box=box, reducing_gap=REDUCING_GAP)
        reach_x, reach_y = 3 * sx + 1, 3 * sy + 1
        x0 = max(0, math.floor(box[0] - reach_x) // fx * fx)
        y0 = max(0, math.floor(box[1] - reach_y) // fy * fy)
        x1 = min(im.size[0], -(-math.ceil(box[2] + reach_x) // fx) * fx)
        y1 = min(im.size[1], -(-math.ceil(box[3] + reach_y) // fy) * fy)
        im = im.reduce((fx, fy), box=(x0, y0, x1, y1))
        box = ((box[0] - x0) / fx, (box[1] - y0) / fy, (box[2] - x0) / fx, (box[3] - y0) / fy)
        sy /= fy
    return _across_then_down(im, size, box, sy)


def _across_then_down(im: Any, size: tuple[int, int], box: tuple[float, float, float, float], sy: float) -> Any:
    """The window `box` of `im` scaled to `size` (`sy` of its rows a row) in two passes, across
    then down, as Pillow scales a whole picture to a size of its shape (scaling a window of
    few rows, it may go down first: other roundings), over the rows the second reaches."""
    from PIL import Image

    reach = 3 * max(sy, 1.0) + 1        # (Lanczos: 3 rows of the result)
    r0, r1 = max(0, math.floor(box[1] - reach)), min(im.size[1], math.ceil(box[3] + reach))
    rows = im.crop((0, r0, im.size[0], r1)) if (r0, r1) != (0, im.size[1]) else im
    across = rows.resize((size[0], r1 - r0), Image.Resampling.LANCZOS, box=(box[0], 0, box[2], r1 - r0))
    return across.resize(size, Image.Resampling.LANCZOS, box=(0, box[1] - r0, size[0], box[3] - r0))


def _write(im: Any, plan: Plan, target: Path, held: Plan | None = None) -> Any:
    """The copy `plan` made of `im` (the original, or its copy `held`: `_scaled`), written to
    `target` (atomically); the copy's pixels."""
    icc = im.info.get("icc_profile")
    whole = whole_size(im)
    if im.mode not in ("RGB", "RGBA", "L", "LA") and not (im.mode == "CMYK" and target.suffix == ".jpg"):
        im = im.convert("RGBA" if (im.mode in ("P", "PA", "1") and "transparency" in im.info)
                        or im.mode.endswith("A") else "RGB")
    small = _scaled(im, plan, held, whole)
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
