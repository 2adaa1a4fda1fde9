"""Icons (`:name:` in text, `icon` elements) and SVG art, loaded once and kept as vectors.

Icons are SVG (or PNG) files in `art/icons/`, the game's own first, then the
project's.  `icons:` in game.yaml maps extra names to files there.
Black in an icon is drawn in the colour asked for (the text colour inline).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cardgen.core import limits
from cardgen.core.data import DATA
from cardgen.core.memo import Bounded
from cardgen.core.paths import PathRefused, check_ref, find_confined, is_regular, svg_problem

if TYPE_CHECKING:
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

        from svglib.svglib import svg2rlg  # here, not at start-up: `cardgen --help` stays quick

        _harden_svglib()

        logging.getLogger("svglib").setLevel(logging.CRITICAL)
        try:
            drawing = svg2rlg(str(path))
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


_raster_sizes: Bounded[FileKey, tuple[int, int]] = Bounded(4096)


def check_raster(path: Path) -> tuple[int, int]:
    """Pixel size of a PNG or JPEG after decoding all of it once (a truncated or corrupt file
    fails here, with a message, instead of deep inside a PDF writer). Images beyond Pillow's
    `Image.MAX_IMAGE_PIXELS` safety limit (decompression bombs) are refused."""
    import warnings

    from PIL import Image

    from cardgen.core.images import WrongKind, open_path

    key = file_key(Path(path))
    size = _raster_sizes.get(key)
    if size is not None:
        return size
    name = Path(path).name
    if not is_regular(path):
        raise IconError(f"{name} is not a regular file (a pipe, device or socket); replace it with an image")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with open_path(path) as im:
                limit = limits.MAX_IMAGE_PIXELS
                if im.size[0] * im.size[1] > limit:
                    raise IconError(f"{name} is {im.size[0]} x {im.size[1]} pixels, more than the {limit:,} cardgen "
                                    f"reads; scale it down (limit CARDGEN_MAX_IMAGE_PIXELS)")
                im.load()
                size = im.size
    except Image.DecompressionBombError as exc:
        raise IconError(f"{name} is too large to read safely ({exc}); scale it down") from None
    except WrongKind as exc:
        raise IconError(str(exc)) from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise IconError(f"{name} is damaged or truncated ({exc}); export it again") from None
    _raster_sizes[key] = size
    return size


def check_art(path: Path) -> None:
    """Raise IconError if the art file (SVG, PNG or JPEG) cannot be drawn.  cardgen's own
    icons are known to draw (tests/test_package.py loads every one): not loaded here, so a
    `cardgen validate` of a game that uses only them does not import the SVG reader."""
    if Path(path).resolve().is_relative_to(_OWN_ART):
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
            if self.roots is None:
                check_ref(target, "icon")
                for d in self.dirs:
                    for ext in (".svg", ".png"):
                        p = d / f"{target}{ext}"
                        if p.is_file():
                            found = p
                            break
                    if found:
                        break
            else:
                found = find_confined(target, self.dirs, self.roots, "icon", (".svg", ".png"))
                if found is not None and found.suffix.lower() == ".svg":
                    problem = svg_problem(found, self.roots)
                    if problem:
                        raise PathRefused(problem)
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
