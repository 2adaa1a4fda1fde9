"""Font families found in `fonts/` folders, registered with ReportLab on first use.

A family is a set of files `<Family>-Regular.ttf`, `-Bold.ttf`, `-Italic.ttf` and
`-BoldItalic.ttf`; missing styles fall back to the nearest one present.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cardgen.core.paths import PathRefused, confine

DEFAULT_FAMILY = "Lato"
STYLES = ("regular", "bold", "italic", "bolditalic")
_SUFFIX = {"regular": "Regular", "bold": "Bold", "italic": "Italic", "bolditalic": "BoldItalic"}
_FALLBACK = {
    "regular": ("regular", "bold", "italic", "bolditalic"),
    "bold": ("bold", "regular", "bolditalic", "italic"),
    "italic": ("italic", "regular", "bolditalic", "bold"),
    "bolditalic": ("bolditalic", "bold", "italic", "regular"),
}

_registered: dict[Path, str] = {}   # font file -> ReportLab font name (process-wide)


def font_files() -> dict[str, Path]:
    """ReportLab font name -> font file, of every font registered so far."""
    return {name: path for path, name in _registered.items()}


class FontError(Exception):
    pass


@dataclass(frozen=True)
class Face:
    name: str        # ReportLab font name
    ascent: float    # cap-height-based ascent per point of size
    descent: float   # descent per point of size (positive)


def _register(path: Path) -> str:
    path = path.resolve()
    if path in _registered:
        return _registered[path]
    from reportlab.pdfbase import pdfmetrics  # (ReportLab is imported on first use: start-up time)
    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    base = path.stem
    name = base
    if name in pdfmetrics._fonts and name not in _registered.values():
        name = f"{base}-{hashlib.sha1(str(path).encode()).hexdigest()[:6]}"
    taken = set(_registered.values())
    if name in taken:
        name = f"{base}-{hashlib.sha1(str(path).encode()).hexdigest()[:6]}"
    try:
        pdfmetrics.registerFont(TTFont(name, str(path)))
    except TTFError as exc:
        raise FontError(f"cannot use font file {path.name}: {exc} (only TrueType-outline .ttf fonts work)") from None
    except Exception as exc:  # a damaged file trips the parser anywhere (struct.error, IndexError, ...)
        raise FontError(f"cannot use font file {path.name}: the file is damaged ({type(exc).__name__}: {exc}); "
                        f"download or copy it again") from None
    _registered[path] = name
    return name


class FontBook:
    """Font families in `dirs`.  With `roots` (`cardgen.core.paths`), a font file that resolves
    outside the allowed folders (a symbolic link pointing out) is not used; `refused` says why."""

    def __init__(self, dirs: list[Path], roots: Sequence[Path] | None = None):
        self.families: dict[str, dict[str, Path]] = {}
        self.refused: dict[str, str] = {}
        for d in reversed(dirs):  # earlier dirs win
            if not d.is_dir():
                continue
            for f in sorted(d.glob("*.ttf")):
                family, _, style = f.stem.rpartition("-")
                if not family:
                    family, style = f.stem, "Regular"
                key = style.lower()
                if key not in STYLES:
                    continue
                if roots is not None:
                    try:
                        f = confine(f, roots, "font file", f.name)
                    except PathRefused as exc:
                        self.refused[family] = str(exc)
                        continue
                self.families.setdefault(family, {})[key] = f
        self._faces: dict[tuple[str, str], Face] = {}
        self._widths: dict[tuple[str, str], float] = {}

    def has(self, family: str) -> bool:
        return family in self.families

    def face(self, family: str | None, style: str = "regular") -> Face:
        family = family or DEFAULT_FAMILY
        key = (family, style)
        face = self._faces.get(key)
        if face is not None:
            return face
        files = self.families.get(family)
        if not files and family in self.refused:
            raise FontError(self.refused[family])
        if not files:
            known = ", ".join(sorted(self.families)) or "none"
            raise FontError(f"unknown font '{family}' (fonts found: {known}; add <Family>-Regular.ttf to fonts/)")
        if style not in STYLES:
            raise FontError(f"unknown font style '{style}' (use regular, bold, italic or bolditalic)")
        path = next(files[s] for s in _FALLBACK[style] if s in files)
        name = _register(path)
        from reportlab.pdfbase import pdfmetrics

        font = pdfmetrics.getFont(name)
        cap = getattr(font.face, "capHeight", 700) or 700
        desc = abs(getattr(font.face, "descent", -200) or -200)
        face = Face(name, min(cap / 1000.0 + 0.06, 0.9), min(desc / 1000.0, 0.3))
        self._faces[key] = face
        return face

    def width(self, text: str, font_name: str, size: float) -> float:
        key = (text, font_name)
        w = self._widths.get(key)
        if w is None:
            from reportlab.pdfbase.pdfmetrics import stringWidth

            w = stringWidth(text, font_name, 1.0)
            self._widths[key] = w
        return w * size
