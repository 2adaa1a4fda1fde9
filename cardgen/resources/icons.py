"""Icons (`:name:` in text, `icon` elements) and SVG art, loaded once and kept as vectors.

Icons are SVG (or PNG) files in `art/icons/`, the game's own first, then the
project's.  `icons:` in game.yaml maps extra names to files there.
Black in an icon is drawn in the colour asked for (the text colour inline).
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cardgen.core import limits
from cardgen.core.data import DATA
from cardgen.core.memo import Bounded
from cardgen.core.paths import PathRefused, is_regular, read_regular
from cardgen.load import refs

if TYPE_CHECKING:
    from concurrent.futures import Future

    from PIL import Image
    from reportlab.graphics.shapes import Drawing

FileKey = tuple[Path, int, int]
_OWN_ART = (DATA / "art").resolve()   # path, modification time (ns), size

_svg_cache: Bounded[FileKey, Drawing] = Bounded(256)    # the versions of SVGs read


class IconError(Exception):
    def __init__(self, message: str, unknown: str | None = None):
        super().__init__(message)
        self.unknown = unknown      # the icon name, when no icon has it


def file_key(path: Path) -> FileKey:
    """A cache key that changes when the file does (a `--watch` session runs for hours)."""
    st = path.stat()
    return path, st.st_mtime_ns, st.st_size


def _harden_svglib() -> None:
    """svglib, asked for a font family it does not know (`<text font-family="...">`), runs
    the system's `fc-match` and reads whatever font file it names: never (a game's SVG runs
    nothing and reads no file outside the allowed folders: docs/security.md); such text is
    drawn in svglib's default font.  Its raster images are read only by the decoders
    `cardgen.core.images` keeps."""
    from cardgen.core.images import restrict

    restrict()
    try:
        from svglib import fonts as svg_fonts
    except ImportError:         # (an svglib without its font map asks no fontconfig either)
        return
    font_map = getattr(svg_fonts, "FontMap", None)
    method = getattr(font_map, "use_fontconfig", None)
    if font_map is not None and method is not None and not getattr(method, "_cardgen", False):
        def no_fontconfig(self: object, font_name: str, weight: str = "normal",
                          style: str = "normal") -> tuple[None, bool]:
            return None, False

        no_fontconfig._cardgen = True    # type: ignore[attr-defined]
        font_map.use_fontconfig = no_fontconfig


def load_svg(path: Path) -> Drawing:
    path = Path(path).resolve()
    key = file_key(path)
    drawing = _svg_cache.get(key)
    if drawing is None:
        import logging

        from svglib.svglib import SvgRenderer, load_svg_file  # here, not at start-up: `cardgen --help` stays quick

        from cardgen.resources.svgopacity import gradient_opacity, push_opacity

        _harden_svglib()

        logging.getLogger("svglib").setLevel(logging.CRITICAL)
        try:
            # (svglib's svg2rlg, with `opacity` given to the shapes first: `svgopacity`)
            root = load_svg_file(str(path))
            if root is not None:
                push_opacity(root)
            drawing = SvgRenderer(str(path), font_map=_svg_font_map()).render(root) if root is not None else None
            if drawing is not None:
                gradient_opacity(drawing)
        except Exception as exc:  # svglib raises assorted errors on bad files
            raise IconError(f"cannot read SVG {path.name}: {exc}") from None
        if drawing is None:
            raise IconError(f"cannot read SVG {path.name}: not a valid SVG file")
        bad = _not_finite(drawing)
        if bad:
            raise IconError(f"SVG {path.name} has a size, position or transform that is not a finite number "
                            f"({bad}); fix it in the SVG")
        if not (float(drawing.width) > 0 and float(drawing.height) > 0):
            raise IconError(f"SVG {path.name} has no size (width or height 0); give its <svg> a width, height "
                            f"or viewBox")
        bad = _out_of_scale(drawing)
        if bad:
            raise IconError(f"SVG {path.name} {bad}; fix it in the SVG")
        bad = _not_finite(drawing, large=True)
        if bad:
            raise IconError(f"SVG {path.name} has a number too large to draw ({bad}); fix it in the SVG")
        _svg_cache[key] = drawing
    return drawing


# -- text in SVG art --------------------------------------------------------------------------
#
# svglib finds the fonts an SVG's text names itself: ReportLab's standard fonts (which a PDF
# names but does not embed), font files guessed by name, the computer's fonts through
# fontconfig.  cardgen gives it a font map of its own instead: every font an SVG names becomes
# a stand-in ("svgfont:<family>:<style>", Helvetica's widths, never written to a PDF), and the
# renderer draws each stand-in in an embedded font of the game (`svg_font_face`): the family
# if the game has it, else its base font.  The layout warns about a family the game lacks
# (`svg_text_fonts`).

SVG_FONT = "svgfont:"
_STANDARD = {"regular": "Helvetica", "bold": "Helvetica-Bold", "italic": "Helvetica-Oblique",
             "bolditalic": "Helvetica-BoldOblique"}


def svg_style(weight: str, style: str) -> str:
    """cardgen's style name for an SVG font-weight and font-style."""
    bold = str(weight).strip().lower() in ("bold", "bolder", "600", "700", "800", "900")
    italic = str(style).strip().lower() in ("italic", "oblique")
    return ("bold" if bold else "") + ("italic" if italic else "") or "regular"


class _SvgFontMap:
    """svglib's font map: every family a stand-in font (see above); nothing is looked up."""

    def find_font(self, font_name: str, weight: str = "normal", style: str = "normal") -> tuple[str, bool]:
        from reportlab.pdfbase import pdfmetrics

        family = " ".join(str(font_name).strip().strip("'\"").split())[:100] or "sans-serif"
        st = svg_style(weight, style)
        name = f"{SVG_FONT}{family}:{st}"
        if name not in pdfmetrics._fonts:
            pdfmetrics.registerFont(pdfmetrics.Font(name, _STANDARD[st], "WinAnsiEncoding"))
        return name, True


_font_map: _SvgFontMap | None = None


def _svg_font_map() -> _SvgFontMap:
    global _font_map
    if _font_map is None:
        _font_map = _SvgFontMap()
    return _font_map


def svg_text_fonts(drawing: Drawing) -> dict[str, set[str]]:
    """The fonts an SVG's text asks for: family -> styles."""
    out: dict[str, set[str]] = {}
    stack: list[object] = [drawing]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "contents", None) or [])
        name = getattr(node, "_cardgen_font", None) or getattr(node, "fontName", None)
        if isinstance(name, str) and name.startswith(SVG_FONT) and hasattr(node, "text"):
            family, _, st = name[len(SVG_FONT):].rpartition(":")
            out.setdefault(family, set()).add(st)
    return out


def svg_font_face(fonts, name: str, base: str) -> str:
    """The embedded font (ReportLab name) a stand-in `name` is drawn in: the family in the
    game's `fonts` (a `FontBook`) if it has it, else the family `base`, in the style asked."""
    family, _, st = name[len(SVG_FONT):].rpartition(":")
    match = next((f for f in fonts.families if f.lower() == family.lower()), None)
    return fonts.face(match or base, st).name


# -- what svglib does not draw -------------------------------------------------------------

_unsupported: dict[FileKey, list[str]] = {}
_URL_REF = re.compile(r"url\(\s*['\"]?#([^'\")\s]+)")


def svg_unsupported(path: Path) -> list[str]:
    """What in the SVG file cardgen does not draw as the file says, each as a short phrase:
    pattern fills (not drawn), gradient outlines (not drawn), filters and masks (left out),
    gradient transforms (drawn untransformed).  Gradient fills are drawn."""
    path = Path(path).resolve()
    key = file_key(path)
    hit = _unsupported.get(key)
    if hit is not None:
        return hit
    from lxml import etree  # type: ignore[import-untyped]

    out: list[str] = []
    try:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
        root = etree.fromstring(read_regular(path, limits.MAX_SVG_BYTES, "CARDGEN_MAX_SVG_BYTES"), parser)
    except (etree.XMLSyntaxError, OSError, ValueError, PathRefused):
        _unsupported[key] = out
        return out      # (unreadable: said by the SVG reader)
    kinds: dict[str, str] = {}
    for el in root.iter():
        if isinstance(el.tag, str) and el.get("id"):
            kinds[el.get("id")] = etree.QName(el).localname
    found: dict[str, None] = {}
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = etree.QName(el).localname
        style = dict(part.split(":", 1) for part in (el.get("style") or "").split(";") if ":" in part)
        style = {k.strip(): v.strip() for k, v in style.items()}

        def attr(name: str, el=el, style=style) -> str:
            return style.get(name) or el.get(name) or ""

        for prop in ("fill", "stroke"):
            m = _URL_REF.search(attr(prop))
            kind = kinds.get(m.group(1), "") if m else ""
            if kind == "pattern":
                found["pattern fills (not drawn)"] = None
            elif kind.endswith("Gradient") and prop == "stroke":
                found["gradient outlines (not drawn)"] = None
        if attr("filter") and attr("filter") != "none":
            found["filters such as blurs and shadows (left out)"] = None
        if attr("mask") and attr("mask") != "none":
            found["masks (left out: what they hide shows)"] = None
        if tag.endswith("Gradient") and el.get("gradientTransform"):
            found["gradient transforms (the gradient is drawn untransformed)"] = None
    out = list(found)
    _unsupported[key] = out
    return out


def own_art(path: Path) -> bool:
    """Is `path` one of cardgen's own icons? Told from the path itself where it is one as the
    icon finder gives it (every card's icon asks: resolving took a system call a folder), else
    from where it leads."""
    return _own_by_name(str(path)) or path.resolve().is_relative_to(_OWN_ART)


# path name -> whether the name alone says it is cardgen's own art (asked for each icon of each card side)
_own_names: Bounded[str, bool] = Bounded(1024)


def _own_by_name(name: str) -> bool:
    """An absolute path under cardgen's art folder, without `..`: told by its name alone."""
    hit = _own_names.get(name)
    if hit is None:
        path = Path(name)
        hit = _own_names[name] = path.is_absolute() and ".." not in path.parts and path.is_relative_to(_OWN_ART)
    return hit


def svg_warnings(path: Path, fonts) -> list[tuple[str, str]]:
    """(message, code) for what of the SVG art at `path` prints otherwise than the file says:
    features cardgen does not draw (`svg_unsupported`) and text in fonts the game (`fonts`, a
    `FontBook`) does not have.  cardgen's own icons draw as they are: nothing to say."""
    if _own_by_name(str(path)):         # (before a Path is made: every card's icons ask)
        return []
    path = Path(path)
    if path.suffix.lower() != ".svg" or own_art(path):
        return []
    out: list[tuple[str, str]] = []
    lacking = svg_unsupported(path)
    if lacking:
        out.append((f"SVG {path.name} has what cardgen cannot draw: {'; '.join(lacking)}; simplify it in the "
                    f"drawing program or export it as a PNG", "svg-unsupported"))
    try:
        drawing = load_svg(path)
    except IconError:
        return out          # (said where the art is read)
    asked = svg_text_fonts(drawing)
    known = {f.lower() for f in fonts.families}
    from cardgen.resources.fonts import DEFAULT_FAMILY, describe_chars

    base = DEFAULT_FAMILY if fonts.has(DEFAULT_FAMILY) else next(iter(fonts.families), "?")
    for family in sorted(f for f in asked if f.lower() not in known):
        out.append((f"SVG {path.name} sets text in the font '{family}', which this game does not have; it prints "
                    f"in {base} (add {family}-Regular.ttf to fonts/, or turn the text into outlines in the "
                    f"drawing program)", "svg-font"))
    no_glyph: dict[str, str] = {}       # font -> characters of the SVG's text it has no glyph for
    stack: list[object] = [drawing]
    while stack:
        node = stack.pop()
        stack.extend(getattr(node, "contents", None) or [])
        name = getattr(node, "_cardgen_font", None) or getattr(node, "fontName", None)
        text = getattr(node, "text", None)
        if isinstance(name, str) and name.startswith(SVG_FONT) and isinstance(text, str):
            face = svg_font_face(fonts, name, base)
            gone = fonts.missing(text, face)
            if gone:
                no_glyph[face] = no_glyph.get(face, "") + "".join(ch for ch in gone if ch not in no_glyph.get(face, ""))
    for face, chars in sorted(no_glyph.items()):
        out.append((f"SVG {path.name} has text the font {face} has no glyph for ({describe_chars(chars)}); it "
                    f"prints as boxes (use a font in fonts/ that has {'them' if len(chars) > 1 else 'it'}, or turn "
                    f"the text into outlines in the drawing program)", "missing-glyph"))
    return out


def _out_of_scale(drawing: Drawing) -> str | None:
    """A drawing too large or too small to draw (sides beyond MIN_SVG_SIDE..MAX_SVG_SIDE
    points), or with a transform that scales by more than a million times either way (its
    shapes would be nothing or everything), or None."""
    from cardgen.core.paths import MAX_SVG_SIDE, MIN_SVG_SIDE

    w, h = float(drawing.width), float(drawing.height)
    if not (MIN_SVG_SIDE <= w <= MAX_SVG_SIDE and MIN_SVG_SIDE <= h <= MAX_SVG_SIDE):
        return (f"is {w:g} x {h:g} points; cardgen draws SVGs from {MIN_SVG_SIDE:g} to {MAX_SVG_SIDE:,.0f} points "
                f"a side")
    stack: list[object] = [drawing]
    while stack:
        node = stack.pop()
        t = getattr(node, "transform", None)
        if isinstance(t, (list, tuple)) and len(t) == 6:
            det = abs(float(t[0]) * float(t[3]) - float(t[1]) * float(t[2]))
            if not det:
                return "has a transform that flattens its shapes to nothing (such as scale(0))"
            if not 1e-12 <= det <= 1e12:
                return "has a transform (or viewBox) that scales its shapes by more than a million times"
        stack.extend(getattr(node, "contents", None) or [])
    return None


MAX_SVG_NUMBER = 1e9      # any coordinate, size or width of an SVG's shapes, in its units


def _not_finite(drawing: Drawing, large: bool = False) -> str | None:
    """The first number in a drawing that is not finite (`NaN`, `inf`, `1e400` in the SVG), as
    `attribute=value`, or None; with `large`, also one beyond MAX_SVG_NUMBER (finite, but it
    overflows on its way to the page: `r="1e308"`).  Every shape's numbers are looked at: the drawing's own size,
    transforms, points, coordinates, widths."""
    import math

    def bad(value: object) -> bool:
        if isinstance(value, float):
            return not math.isfinite(value)
        if isinstance(value, (list, tuple)) and len(value) < 100_000:
            return any(bad(v) for v in value if isinstance(v, (float, list, tuple)))
        return False

    def huge(value: object) -> bool:          # (finite, but too large to draw: 1e308 overflows on the way)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return abs(value) > MAX_SVG_NUMBER
        if isinstance(value, (list, tuple)) and len(value) < 100_000:
            return any(huge(v) for v in value if isinstance(v, (int, float, list, tuple)))
        return False

    stack: list[object] = [drawing]
    while stack:
        node = stack.pop()
        for name, value in vars(node).items():
            if name == "contents" and isinstance(value, list):
                stack.extend(value)
            elif bad(value):
                return f"{name}={value if not isinstance(value, (list, tuple)) else '...'}"
            elif large and huge(value):
                return (f"{name}={value if not isinstance(value, (list, tuple)) else '...'}, beyond "
                        f"{MAX_SVG_NUMBER:,.0f}")
    return None


_raster_sizes: Bounded[FileKey, tuple[int, int, int]] = Bounded(4096)     # size, rows checked
# pictures being decoded ahead of the layout (`layout.ahead`): file -> the outcome of its check
# to come (its size, or the IconError it raises); set and taken by the layout's thread only
_ahead: dict[FileKey, Future[tuple[int, int, int]]] = {}


def check_raster(path: Path, drawn: tuple[float, ...] | None = None) -> tuple[int, int]:
    """Pixel size of a PNG or JPEG after decoding it once (a truncated or corrupt file fails
    here, with a message, instead of deep inside a PDF writer). Images beyond Pillow's
    `Image.MAX_IMAGE_PIXELS` safety limit (decompression bombs) are refused.  `drawn`: the
    points it is drawn at and the part of it shown (`core.images.shown`), for the copy made
    from this decode (`core.images.DECODED`), and how much of a PNG is decoded: down to the
    last row anything made of it reads (`core.images.rows_read`: a `cover` box's), all of
    it when None.  A picture being decoded ahead (`decoding_ahead`) is not decoded again:
    its outcome is waited for; one decoded to fewer rows than this needs is decoded again."""
    import warnings

    from PIL import Image

    from cardgen.core.images import DECODED, rows_read

    key = file_key(Path(path))
    got = _raster_sizes.get(key)
    if got is not None and got[2] >= rows_read(got[:2], drawn):
        return got[0], got[1]
    pending = _ahead.pop(key, None)
    if pending is not None and not pending.cancelled():
        got = pending.result()          # (the error its decode met raised here, as if met now)
    if got is None or got[2] < rows_read(got[:2], drawn):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            got = decode_checked(path, (lambda im: [hook(Path(path), im, drawn) for hook in DECODED])
                                 if drawn is not None else None, drawn)
    _raster_sizes[key] = got
    return got[0], got[1]


def decode_checked(path: Path, then: Callable[[Image.Image], object] | None = None,
                   drawn: tuple[float, ...] | None = None) -> tuple[int, int, int]:
    """Decode the PNG or JPEG `path` (IconError, said in one line, if it is not a regular file,
    has more pixels than cardgen reads, is damaged or not the kind its name says): all of it,
    or, for a PNG drawn at `drawn`, its rows down to the last one anything made of it reads
    (`core.images.rows_read`, `decode_rows`); call `then` with the decoded image, and let go
    of it.  Its pixel size and the rows decoded."""
    from PIL import Image

    from cardgen.core.images import WrongKind, decode_rows, open_path, rows_read, whole_size

    name = Path(path).name
    if not is_regular(path):
        raise IconError(f"{name} is not a regular file (a pipe, device or socket); replace it with an image")
    try:
        with open_path(path) as im:
            limit = limits.MAX_IMAGE_PIXELS
            if im.size[0] * im.size[1] > limit:
                raise IconError(f"{name} is {im.size[0]} x {im.size[1]} pixels, more than the {limit:,} cardgen "
                                f"reads; scale it down (limit CARDGEN_MAX_IMAGE_PIXELS)")
            if drawn is not None:
                decode_rows(im, rows_read(im.size, drawn))
            im.load()
            size, rows = whole_size(im), im.size[1]
            if then is not None:
                then(im)
    except Image.DecompressionBombError as exc:
        raise IconError(f"{name} is too large to read safely ({exc}); scale it down") from None
    except WrongKind as exc:
        raise IconError(str(exc)) from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise IconError(f"{name} is damaged or truncated ({exc}); export it again") from None
    return int(size[0]), int(size[1]), int(rows)


def wanted(path: Path) -> bool:
    """Whether `path` is neither checked already nor being decoded ahead."""
    try:
        key = file_key(Path(path))
    except OSError:
        return False
    return key not in _raster_sizes and key not in _ahead


@contextlib.contextmanager
def decoding_ahead(pictures: Iterable[tuple[Path, Callable[[], tuple[int, int, int]]]], threads: int
                   ) -> Iterator[None]:
    """While in this block, `pictures` (each a file and the work that checks it, as
    `decode_checked`: its size or an IconError) are worked through by `threads` threads, in
    order, and `check_raster` of one of them waits for its outcome instead of decoding it.
    Leaving the block drops what was not started and waits for what was (at most `threads`
    pictures)."""
    mine: list[FileKey] = []
    pool = None
    try:
        for path, work in pictures:
            key = file_key(Path(path))
            if key not in _ahead and key not in _raster_sizes:
                if pool is None:        # (on the first: a game with no pictures imports nothing more)
                    from concurrent.futures import ThreadPoolExecutor

                    pool = ThreadPoolExecutor(threads, thread_name_prefix="cardgen-decode")
                _ahead[key] = pool.submit(work)
                mine.append(key)
        yield
    finally:
        for key in mine:
            _ahead.pop(key, None)
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def check_art(path: Path) -> None:
    """Raise IconError if the art file (SVG, PNG or JPEG) cannot be drawn.  cardgen's own
    icons are known to draw (tests/test_package.py loads every one): not loaded here, so a
    `cardgen validate` of a game that uses only them does not import the SVG reader."""
    if own_art(Path(path)):
        return
    if Path(path).suffix.lower() == ".svg":
        load_svg(path)
    else:
        check_raster(path)


class IconBook:
    """Icons by name. With `roots` (`cardgen.core.paths`), an icon or alias that leaves the
    allowed folders is refused: `find` gives None and `require`/`refusal` say why."""

    def __init__(self, art_dirs: list[Path], aliases: dict | None = None, roots: Sequence[Path] | None = None):
        self.dirs = [d / "icons" for d in art_dirs]
        self.aliases = {str(k): str(v) for k, v in (aliases or {}).items()}
        self.roots = tuple(roots) if roots is not None else None
        self._paths: dict[str, Path | None] = {}
        self._refused: dict[str, str] = {}
        self._checked: set[Path] = set()
        # told of every icon looked up: its name, the file or None, why it was refused or None
        # (`cardgen.layout.cache`), before the file is read
        self.watch: Callable[[str, Path | None, str | None], None] | None = None

    def find(self, name: str) -> Path | None:
        found = self._find(name)
        if self.watch is not None:
            self.watch(name, found, self._refused.get(name))
        return found

    def _find(self, name: str) -> Path | None:
        if name in self._paths:
            return self._paths[name]
        target = self.aliases.get(name, name)
        found = None
        try:
            found = refs.find(target, self.dirs, self.roots, "icon", suffixes=(".svg", ".png"), svg=True).path
        except PathRefused as exc:
            self._refused[name] = str(exc)
            found = None
        self._paths[name] = found
        return found

    def refusal(self, name: str) -> str | None:
        """Why icon `name` was refused (outside the allowed folders), or None."""
        self.find(name)
        return self._refused.get(name)

    def names(self) -> list[str]:
        out = set(self.aliases)
        for d in self.dirs:
            if d.is_dir():
                out.update(p.stem for p in d.iterdir() if p.suffix in (".svg", ".png"))
        return sorted(out)

    def require(self, name: str) -> Path:
        p = self.find(name)
        if name in self._refused:
            raise IconError(self._refused[name])
        if p is None:
            from cardgen.schema.core import suggest
            raise IconError(f"unknown icon ':{name}:'{suggest(name, self.names())} "
                            f"(put {name}.svg in art/icons/ or map it under `icons:` in game.yaml)", name)
        if p not in self._checked:
            try:
                check_art(p)
            except IconError as exc:
                raise IconError(f"icon ':{name}:': {exc}") from None
            self._checked.add(p)
        return p
