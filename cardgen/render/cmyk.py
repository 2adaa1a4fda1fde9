"""CMYK for print services: every colour and image of a card turned into the inks of a CMYK
output profile, with Little CMS (Pillow's ImageCms), as `cardgen.render.pdfx` draws them.

- Vector colours go through ReportLab's own colour hook (`enforceColorSpace`, a function the
  canvas calls with every colour it is given, `Separation.enforce`), so the card drawing code,
  svglib's SVG shapes included, stays as it is. Pure black is 100 % K (text, lines, icons);
  a large black area (`Drawer.area_fill`) is rich black 60/40/40/100 when that is on.
- Raster art is converted file by file before drawing (`Separation.convert_art`): sRGB to
  the profile, greyscale to K only, CMYK art kept as it is.
- A "plate" separation draws the same card with each ink as a brightness (cyan, magenta and
  yellow as the red, green and blue of an RGB page, black as a grey page), so a plain RGB
  rasterizer measures where how much ink lands (`cardgen.render.pdfx.ink_peaks`).
- A spot colour (`spot`: the `CutContour` die line of a shaped piece) passes through as its
  own Separation colour space; on a plate it puts down no ink (it is not printed).

Transparency is gone before this runs (`cardgen.render.flatten`).
"""
from __future__ import annotations

import hashlib
import io
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PIL import Image, ImageCms
from reportlab.lib.colors import CMYKColor, CMYKColorSep, Color, toColor

from cardgen.core.data import DATA
from cardgen.core.digest import digest, file_digest
from cardgen.core.images import open_path, restrict
from cardgen.core.units import MM
from cardgen.model import ops
from cardgen.render import art
from cardgen.render.pdfxcache import KeptImage, PdfxCache, key
from cardgen.render.rlcompat import CardCanvas

restrict()      # (before ReportLab reads an image: cardgen.core.images)

ICC_DIR = DATA / "icc"
DEFAULT_PROFILE = ICC_DIR / "cardgen-FOGRA39-240.icc"
RICH_BLACK = (0.6, 0.4, 0.4, 1.0)
LARGE_AREA = 12.7 * MM      # a black fill at least this wide and high is a "large area" (1/2 in)
INTENT = ImageCms.Intent.PERCEPTUAL

CMYK = tuple[float, float, float, float]


@dataclass(frozen=True)
class Condition:
    """The printing condition an output profile describes, as a PDF/X output intent names it."""

    identifier: str             # OutputConditionIdentifier: a registered name, or "Custom"
    registry: str               # RegistryName
    condition: str              # OutputCondition, in words
    info: str                   # Info: the profile's description


BUNDLED = Condition("FOGRA39", "http://www.color.org",
                    "Offset printing, coated paper (ISO 12647-2:2004/Amd 1, FOGRA39), at most 240 % total ink",
                    "cardgen FOGRA39 coated, 240% total ink")


def spot(name: str, inks: CMYK = (0.0, 1.0, 0.0, 0.0)) -> CMYKColorSep:
    """A spot colour `name` at full tint (a Separation colour space of its own in the PDF),
    shown on screen as `inks` (its alternate colour)."""
    return CMYKColorSep(*inks, spotName=name, density=1, alpha=None)


def is_black(col: Any) -> bool:
    return tuple(round(v, 4) for v in tuple(col)[:3]) == (0.0, 0.0, 0.0)


def tac(cmyk: CMYK) -> float:
    """Total area coverage in percent."""
    return 100.0 * sum(cmyk)


KEPT_COLOURS = 4096        # colours kept for the next build at most (`Separation.keep_colours`)


def _colours_ok(kept: Any) -> bool:
    """Is `kept` the colours `Separation.keep_colours` keeps: sRGB (0-255 each) -> inks (0-1)?"""
    return isinstance(kept, dict) and len(kept) <= KEPT_COLOURS and all(
        type(rgb) is tuple and len(rgb) == 3 and all(type(v) is int and 0 <= v <= 255 for v in rgb)
        and type(inks) is tuple and len(inks) == 4 and all(type(v) is float and 0.0 <= v <= 1.0 for v in inks)
        for rgb, inks in kept.items())


@dataclass
class Separation:
    """sRGB to the inks of one CMYK output profile. `plate`: None for the real thing, "cmy"
    or "k" to draw ink amounts as brightness (see the module docstring). `cache`: converted
    images kept between builds."""

    profile: Path = DEFAULT_PROFILE
    rich_black: bool = True
    plate: str | None = None
    cache: PdfxCache | None = None
    _colours: dict = field(default_factory=dict)
    _art: dict = field(default_factory=dict)
    _early: dict = field(default_factory=dict)     # (path, None) -> what `convert_early` is making of it
    peak: float = 0.0            # highest total ink of any colour given since `reset_peak`

    def __post_init__(self) -> None:
        from cardgen.core.paths import read_regular

        self.icc = read_regular(self.profile)        # (a profile a game names: bounded, never a pipe)
        dest = ImageCms.ImageCmsProfile(io.BytesIO(self.icc))
        if dest.profile.xcolor_space.strip() != "CMYK":
            raise ValueError(f"{Path(self.profile).name} is not a CMYK output profile")
        self.description = dest.profile.profile_description or Path(self.profile).stem
        # what the separation of a card side depends on (with cardgen's code)
        self.icc_sha = hashlib.sha256(self.icc).hexdigest()
        self.key = digest(self.icc_sha, self.rich_black)
        self._dest = dest
        self._transform: Any = None
        # The colours a build before separated with this profile (and this code: the cache's),
        # kept: then Little CMS's transform (30 ms) is made only for a colour or picture not
        # kept.  Without them it is made now, so that a profile it cannot use is said here.
        kept: Any = self.cache.get(key("colours", self.key)) if self.cache is not None else None
        if _colours_ok(kept):
            for rgb, inks in kept.items():
                self._colours.setdefault(rgb, inks)
            self._known = len(self._colours)
        else:
            self._known = -1
            _ = self._to_cmyk

    @property
    def _to_cmyk(self) -> Any:
        """sRGB to the profile's inks (Little CMS): made when first needed."""
        if self._transform is None:
            self._transform = ImageCms.buildTransform(ImageCms.createProfile("sRGB"), self._dest, "RGB", "CMYK",
                                                      renderingIntent=INTENT)
        return self._transform

    def keep_colours(self) -> None:
        """Keep the colours separated so far in the cache (with those kept before), for the
        next build: call before saving it."""
        if self.cache is not None and len(self._colours) != self._known and len(self._colours) <= KEPT_COLOURS:
            self.cache.put(key("colours", self.key), dict(self._colours))
            self._known = len(self._colours)

    def deflated_profile(self) -> bytes:
        """The profile compressed for the PDF's output intent (zlib level 9: 35 ms, so kept in
        the cache for the next build)."""
        name = key("icc", self.icc_sha)
        found = self.cache.get(name) if self.cache is not None else None
        if isinstance(found, bytes) and zlib.decompress(found) == self.icc:
            return found
        data = zlib.compress(self.icc, 9)
        if self.cache is not None:
            self.cache.put(name, data)
        return data

    def for_plate(self, plate: str) -> Separation:
        """The same separation, drawing the inks of `plate` ("cmy" or "k") as brightness."""
        twin = replace(self, plate=plate, _colours=self._colours, _art={}, _early={})
        return twin

    # -- colours ------------------------------------------------------------------------------
    def cmyk(self, rgb: tuple[float, ...]) -> CMYK:
        """The inks for an sRGB colour (components 0-1): black is 100 % K, white no ink."""
        key = tuple(round(float(v) * 255) for v in rgb[:3])
        hit = self._colours.get(key)
        if hit is None:
            if key == (0, 0, 0):
                hit = (0.0, 0.0, 0.0, 1.0)
            elif key == (255, 255, 255):
                hit = (0.0, 0.0, 0.0, 0.0)
            else:
                px = ImageCms.applyTransform(Image.new("RGB", (1, 1), key), self._to_cmyk)
                assert px is not None
                hit = tuple(round(v / 255, 4) for v in px.getpixel((0, 0)))   # type: ignore[union-attr]
            self._colours[key] = hit
        return hit

    def enforce(self, colour: Any) -> Any:
        """ReportLab's colour hook: any colour in, a CMYK colour (or its plate) out."""
        c = colour if isinstance(colour, (Color, tuple, list)) else toColor(colour)
        if isinstance(c, CMYKColorSep) and c.spotName:      # a spot ink (the die line): its own plate
            return c if self.plate is None else Color(1, 1, 1, alpha=None)
        if isinstance(c, CMYKColor):
            inks: CMYK = (c.cyan * c.density, c.magenta * c.density, c.yellow * c.density, c.black * c.density)
        elif isinstance(c, Color):
            inks = self.cmyk((c.red, c.green, c.blue))
        elif len(c) == 4:
            inks = tuple(float(v) for v in c)          # type: ignore[assignment]
        else:
            inks = self.cmyk(tuple(c))
        self.peak = max(self.peak, tac(inks))
        return self._paint(inks)

    def _paint(self, inks: CMYK) -> Any:
        if self.plate == "cmy":
            return Color(1 - inks[0], 1 - inks[1], 1 - inks[2], alpha=None)
        if self.plate == "k":
            return Color(1 - inks[3], 1 - inks[3], 1 - inks[3], alpha=None)
        return CMYKColor(*inks, alpha=None)

    def area_fill(self, op: ops.Op, col: tuple[float, ...]) -> Any:
        """`Drawer.area_fill`: rich black for a large black area, the colour itself otherwise."""
        if self.rich_black and is_black(col) and min(_extent(op)) >= LARGE_AREA:
            return CMYKColor(*RICH_BLACK, alpha=None)
        return tuple(col[:3])

    def reset_peak(self) -> None:
        self.peak = 0.0

    # -- raster art ---------------------------------------------------------------------------
    def convert_image(self, im: Image.Image) -> Image.Image:
        """An opaque image in the profile's inks: RGB through the profile, grey as K only,
        CMYK as it is (alpha, which the flattener has already removed, against white)."""
        if im.mode == "CMYK":
            return im
        if im.mode in ("1", "L", "I", "I;16", "F"):
            grey = im.convert("L")
            blank = Image.new("L", grey.size, 0)
            return Image.merge("CMYK", (blank, blank, blank, grey.point(lambda v: 255 - v)))
        if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info):
            rgba = im.convert("RGBA")
            white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            im = Image.alpha_composite(white, rgba)
        out = ImageCms.applyTransform(im.convert("RGB"), self._to_cmyk)
        assert out is not None
        return out

    def convert_art(self, path: Path, folder: Path) -> tuple[Path, float]:
        """`path` converted (or as a plate) into `folder`: (the new file, its highest total ink)."""
        key = (Path(path), self.plate)
        hit = self._art.get(key)
        if hit is None and key in self._early:
            hit = self._art[key] = self._early_done(key, folder)
        if hit is None:
            hit = self._art[key] = self._kept_art(Path(path), folder) or self._convert_art(Path(path), folder)
        self.peak = max(self.peak, hit[1])
        return hit

    def _art_key(self, path: Path) -> str:
        return key("art", file_digest(path), self.icc_sha, self.plate)

    def _kept_art(self, path: Path, folder: Path) -> tuple[Path, float] | None:
        """The conversion of the same file kept by a build before, if intact: its file need not
        exist, `CmykCanvas` draws the image as it was kept."""
        if self.cache is None:
            return None
        found = self.cache.get(self._art_key(path))
        if not (isinstance(found, (list, tuple)) and len(found) == 2 and self.cache.image(str(found[0]))):
            return None
        return Path(folder) / f"{found[0]}.tif", float(found[1])

    def convert_ahead(self, layouts: list[ops.CardLayout], folder: Path, threads: int = 2) -> None:
        """Convert the raster files `layouts` show (as `art_in` will) on `threads` threads at
        once, before they are drawn one side after another: decoding, converting and
        compressing let go of the interpreter, so every core works.  What a build before kept
        is not converted; the outcomes are kept in the order the files are first shown."""
        todo: list[Path] = []
        for future in self._early.values():     # (what `convert_early` has not begun: made here, on every thread)
            if future is not None:
                future.cancel()
        for layout in layouts:
            for p in _raster_files(layout):
                if (p, self.plate) in self._early:
                    early = self._early_done((p, self.plate), folder)
                    if early is not None:
                        self._art[(p, self.plate)] = early
                if (p, self.plate) not in self._art:
                    self._art[(p, self.plate)] = self._kept_art(p, folder)     # (None: to convert)
                    if self._art[(p, self.plate)] is None:
                        todo.append(p)
        if len(todo) < 2:
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads, thread_name_prefix="cardgen-cmyk") as pool:
            for p, done in zip(todo, pool.map(self._converted, todo)):
                self._art[(p, self.plate)] = self._store(p, folder, *done)

    def convert_early(self, layouts: list[ops.CardLayout]) -> None:
        """Start converting the pictures `layouts` show (their copies at the size they print;
        opaque ones: a translucent one is flattened first) on one thread in the background,
        before the output that draws them is made: while the build draws its other outputs on
        one core (ReportLab), Little CMS and zlib, which let go of the interpreter, use the
        other.  What a build before kept is not converted;
        each conversion is kept as `convert_ahead` keeps it (in the cache, its object on the
        disk: no picture is held), and `convert_ahead` and `convert_art` wait for what is
        under way, and take back what is not begun.  Without a cache, nothing is done."""
        if self.cache is None or self.plate is not None:
            return
        todo: list[Path] = []
        for layout in layouts:
            for p in _opaque_pictures(layout):
                if (p, None) not in self._early and (p, None) not in self._art:
                    self._early[(p, None)] = None
                    if self._kept_art(p, p.parent) is None:
                        todo.append(p)
        if not todo:
            return
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(1, thread_name_prefix="cardgen-cmyk-early")
        for p in todo:
            self._early[(p, None)] = pool.submit(self._converted_kept, p)
        pool.shutdown(wait=False)      # (its thread ends once the last is done, or taken back)

    def _converted_kept(self, path: Path) -> tuple[str, float] | None:
        """`path` converted and kept in the cache (`_store`, any thread): its name and highest
        ink (None: its object could not be made, nor kept: converted when drawn)."""
        name, peak, out, made = self._converted(path)
        if made is None:
            return None
        self._store(path, path.parent, name, peak, out, made)
        return name, peak

    def _early_done(self, key: tuple[Path, str | None], folder: Path) -> tuple[Path, float] | None:
        """What `convert_early` made of `key`'s file (waited for), as `convert_art` gives it;
        None when it was not begun (then taken back) or the cache had it."""
        future = self._early.pop(key)
        if future is None:
            return self._kept_art(key[0], folder)
        done = None if future.cancel() else future.result()
        return (Path(folder) / f"{done[0]}.tif", done[1]) if done is not None else None

    def _convert_art(self, path: Path, folder: Path) -> tuple[Path, float]:
        return self._store(path, folder, *self._converted(path))

    def _converted(self, path: Path) -> tuple[str, float, Image.Image, KeptImage | None]:
        """The file `path` converted: its name (by its pixels), its highest total ink, its pixels
        and, with a cache to keep it in, the object the PDF holds of it.  Touches nothing of
        this separation (any thread may run it)."""
        with open_path(path) as im:
            im.load()
            cmyk = self.convert_image(im)
        peak = _image_peak(cmyk)
        out = self._plate_image(cmyk)
        name = hashlib.sha256(out.tobytes() + out.mode.encode() + repr(out.size).encode()).hexdigest()[:24]
        return name, peak, out, art.image_object(out) if self.cache is not None else None

    def _store(self, path: Path, folder: Path, name: str, peak: float, out: Image.Image,
               made: KeptImage | None) -> tuple[Path, float]:
        """Keep a conversion of `path` (`_converted`): its object in the cache (no file written
        and read back), else its file in `folder`."""
        target = Path(folder) / f"{name}.tif"
        if made is not None and self.cache is not None:
            self.cache.keep_image(name, made)
        elif not target.exists():
            out.save(target, "TIFF", compression="tiff_deflate")
        if self.cache is not None:
            self.cache.put(self._art_key(path), (name, peak))
        return target, peak

    def _plate_image(self, cmyk: Image.Image) -> Image.Image:
        if self.plate is None:
            return cmyk
        c, m, y, k = (ch.point(lambda v: 255 - v) for ch in cmyk.split())
        return Image.merge("RGB", (c, m, y)) if self.plate == "cmy" else k

    def art_in(self, layout: ops.CardLayout, folder: Path) -> tuple[ops.CardLayout, float]:
        """The layout with every raster file (images, raster icons, inline raster icons)
        replaced by its converted copy, and the highest total ink among them."""
        peak = 0.0
        out: list[ops.Op] = []

        def conv(p: Any) -> Path:
            nonlocal peak
            new, top = self.convert_art(Path(p), folder)
            peak = max(peak, top)
            return new

        for op in layout.ops:
            if isinstance(op, ops.Image) and not ops.is_svg(op.path):     # (at the size it prints: `render.art`)
                src, (x, y, w, h) = art.placed(op)      # (the part of it shown, where it was)
                op = replace(op, path=conv(src), x=x, y=y, w=w, h=h, box=ops.turn_box(op))
            elif isinstance(op, ops.Icon) and not ops.is_svg(op.path):
                op = replace(op, path=conv(op.path))
            elif isinstance(op, ops.Text) and any(r.kind == "icon" and not ops.is_svg(r.content) for r in op.runs):
                op = replace(op, runs=tuple(replace(r, content=conv(r.content))
                                            if r.kind == "icon" and not ops.is_svg(r.content) else r for r in op.runs))
            out.append(op)
        return replace(layout, ops=out), peak


class CmykCanvas(CardCanvas):
    """The canvas of CMYK files: an image file (always one `Separation.art_in` made, in a
    temporary folder, named by its pixels) is named in the PDF by its content, not by its
    path, so the same cards give the same bytes wherever they were built; with `kept`, each
    image is kept as the PDF holds it, and drawn from there by the next build (which then
    neither reads nor compresses it again)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown: list[str] = []          # the image files drawn, in order
        self.kept: PdfxCache | None = None

    def drawImage(self, image: Any, x: float, y: float, width: float | None = None, height: float | None = None,
                  mask: Any = None, preserveAspectRatio: bool = False, anchor: str = "c", **kwargs: Any) -> Any:
        from reportlab.lib.utils import ImageReader

        if not isinstance(image, (str, Path)):
            return super().drawImage(image, x, y, width, height, mask, preserveAspectRatio, anchor, **kwargs)
        self.shown.append(str(image))
        name = Path(image).stem
        kept = self.kept.image(name) if self.kept is not None else None
        if kept is not None and mask == "auto" and not kwargs:
            return self.draw_kept(kept, x, y, width, height, preserveAspectRatio, anchor)
        size = super().drawImage(ImageReader(str(image)), x, y, width, height, mask, preserveAspectRatio, anchor,
                                 **kwargs)
        made = self._doc.idToObject[self._doc.getXObjectName(self._formsinuse[-1])]
        found = KeptImage.of(made) if self.kept is not None and mask == "auto" else None
        if self.kept is not None and found is not None:
            self.kept.keep_image(name, found)
        return size


def _raster_files(layout: ops.CardLayout) -> list[Path]:
    """The raster files a layout shows that `Separation.art_in` converts, in order."""
    if not ops.needs(layout).rasters:
        return []           # (what the layout cache keeps: a side held packed is not decoded for none)
    out: list[Path] = []
    for op in layout.ops:
        if isinstance(op, ops.Image) and not ops.is_svg(op.path):
            out.append(art.placed(op)[0])
        elif isinstance(op, ops.Icon) and not ops.is_svg(op.path):
            out.append(Path(op.path))
        elif isinstance(op, ops.Text):
            out += [Path(r.content) for r in op.runs if r.kind == "icon" and not ops.is_svg(r.content)]
    return out


def _opaque_pictures(layout: ops.CardLayout) -> list[Path]:
    """The opaque raster pictures a layout's image elements show, as `_raster_files` gives
    them: the flattening for PDF/X leaves them as they are."""
    from cardgen.render.flatten import translucent

    if not ops.needs(layout).rasters:
        return []
    return [art.placed(op)[0] for op in layout.ops
            if isinstance(op, ops.Image) and not ops.is_svg(op.path) and not translucent(op)]


def _extent(op: ops.Op) -> tuple[float, float]:
    if isinstance(op, ops.Path):
        xs, ys = [p[0] for p in op.points], [p[1] for p in op.points]
        return (max(xs) - min(xs), max(ys) - min(ys)) if xs else (0.0, 0.0)
    w, h = getattr(op, "w", 0.0), getattr(op, "h", 0.0)
    return float(w), float(h)


def _image_peak(cmyk: Image.Image) -> float:
    """The highest C+M+Y+K of any pixel, in percent."""
    from PIL import ImageMath

    total = ImageMath.lambda_eval(lambda a: a["c"] + a["m"] + a["y"] + a["k"],
                                  c=cmyk.getchannel(0), m=cmyk.getchannel(1), y=cmyk.getchannel(2),
                                  k=cmyk.getchannel(3))
    lo_hi = total.getextrema()
    return float(lo_hi[1]) / 255 * 100
