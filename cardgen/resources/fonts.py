"""Font families found in `fonts/` folders, registered with ReportLab on first use.

A family is a set of files `<Family>-Regular.ttf`, `-Bold.ttf`, `-Italic.ttf` and
`-BoldItalic.ttf`; missing styles fall back to the nearest one present.

Fallback fonts: a character the text's font has no glyph for is drawn in the first
fallback family that has one (game.yaml `fallback_fonts:`, then the bundled DejaVu Sans);
`FontBook.split` cuts text into runs by font, and measuring and drawing both use its runs.
Characters that no font has are what `FontBook.missing` reports.

Every font file is checked before use: a file whose TrueType tables do not match their
checksums (a bit flipped in a download or on disk) is refused as damaged, even where
ReportLab would still parse it.
"""
from __future__ import annotations

import array
import hashlib
import struct
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cardgen.core.paths import PathRefused, confine

DEFAULT_FAMILY = "Lato"
DEFAULT_FALLBACK = "DejaVuSans"   # bundled, the last fallback of every game (symbols, Greek, Cyrillic, ...)
STYLES = ("regular", "bold", "italic", "bolditalic")
_SUFFIX = {"regular": "Regular", "bold": "Bold", "italic": "Italic", "bolditalic": "BoldItalic"}
_FALLBACK = {
    "regular": ("regular", "bold", "italic", "bolditalic"),
    "bold": ("bold", "regular", "bolditalic", "italic"),
    "italic": ("italic", "regular", "bolditalic", "bold"),
    "bolditalic": ("bolditalic", "bold", "italic", "regular"),
}

_registered: dict[Path, str] = {}   # font file -> ReportLab font name (process-wide)
_digests: dict[str, str] = {}       # ReportLab font name -> SHA-256 of the file it was read from


def font_files() -> dict[str, Path]:
    """ReportLab font name -> font file, of every font registered so far."""
    return {name: path for path, name in _registered.items()}


def font_digest(name: str) -> str | None:
    """SHA-256 of the file a registered font was read from, as it was read (a file changed
    since, in a long `--watch` session, is not what ReportLab measures and draws with)."""
    return _digests.get(name)


class FontError(Exception):
    pass


@dataclass(frozen=True)
class Face:
    name: str        # ReportLab font name
    ascent: float    # cap-height-based ascent per point of size
    descent: float   # descent per point of size (positive)


_verified: dict[tuple[Path, int, int], str | None] = {}   # (file, size, mtime) -> problem or None


def table_problem(data: bytes) -> str | None:
    """What is wrong with a TrueType file's tables, or None: every table's checksum (the
    sum of its 32-bit words, `head` with its checkSumAdjustment as zero) must match the
    table directory, so a single flipped bit anywhere in a table is noticed."""
    if len(data) < 12:
        return "the file is too short to be a font"
    version, count = struct.unpack_from(">IH", data, 0)
    if version not in (0x00010000, 0x74727565):      # TrueType outlines; CFF and collections: ReportLab says
        return None
    if len(data) < 12 + 16 * count:
        return "the table directory is cut short"
    for i in range(count):
        tag, checksum, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        name = tag.decode("latin-1").strip()
        if offset + length > len(data):
            return f"table '{name}' runs past the end of the file"
        chunk = bytearray(data[offset:offset + length])
        chunk += bytes(-len(chunk) % 4)
        if tag == b"head" and len(chunk) >= 12:
            chunk[8:12] = bytes(4)
        words = array.array("I")
        words.frombytes(bytes(chunk))
        if sys.byteorder == "little":
            words.byteswap()
        if sum(words) & 0xFFFFFFFF != checksum:
            return f"table checksum mismatch in '{name}'"
    return None


def verify(path: Path) -> None:
    """FontError if the font file at `path` is damaged; each file is read once per process
    (remembered by size and modification time)."""
    st = path.stat()
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _verified:
        _verified[key] = table_problem(path.read_bytes())
    problem = _verified[key]
    if problem:
        raise FontError(f"font file {path.name} is damaged ({problem}); download or copy it again")


def _register(path: Path) -> str:
    path = path.resolve()
    if path in _registered:
        return _registered[path]
    from reportlab.pdfbase import pdfmetrics  # (ReportLab is imported on first use: start-up time)
    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    try:
        sha = hashlib.sha256(path.read_bytes()).hexdigest()     # before ReportLab reads it
        verify(path)
    except OSError as exc:
        raise FontError(f"cannot read font file {path.name}: {exc.strerror or exc}") from None
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
    _digests[name] = sha
    return name


def _ignorable(ch: str) -> bool:
    """Invisible characters that need no glyph: control characters (an escape sequence pasted
    into a name), format controls (joiners, bidi marks, soft hyphen), variation selectors."""
    return unicodedata.category(ch) in ("Cc", "Cf") or "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef"


_EMOJI = ((0x1F1E6, 0x1F1FF), (0x1F300, 0x1F64F), (0x1F680, 0x1F6FF), (0x1F900, 0x1F9FF), (0x1FA70, 0x1FAFF))


def is_emoji(ch: str) -> bool:
    """A pictograph that is shown as a colour emoji wherever people type it (the emoji blocks
    of Unicode: faces, animals, food, transport, flags); not the older text symbols ★ ♥ ✓."""
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _EMOJI)


def describe_chars(chars: str) -> str:
    """`U+2605 BLACK STAR, U+4E2D CJK UNIFIED IDEOGRAPH-4E2D`: characters named without
    printing them (they may be invisible, combining or reorder a terminal line)."""
    out = [f"U+{ord(ch):04X}" + (f" {unicodedata.name(ch)}" if unicodedata.name(ch, "") else "") for ch in chars]
    return ", ".join(out[:6]) + (f" and {len(out) - 6} more" if len(out) > 6 else "")


class FontBook:
    """Font families in `dirs`.  With `roots` (`cardgen.core.paths`), a font file that resolves
    outside the allowed folders (a symbolic link pointing out) is not used; `refused` says why.
    `fallbacks`: families that draw the characters a text's font lacks, in order; the bundled
    DejaVu Sans comes last when it is in `dirs`."""

    def __init__(self, dirs: list[Path], roots: Sequence[Path] | None = None, fallbacks: Sequence[str] = ()):
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
        self._family: dict[str, str] = {}     # ReportLab font name -> family
        self._widths: dict[tuple[str, str], float] = {}
        chain = [f for f in dict.fromkeys([*fallbacks, DEFAULT_FALLBACK]) if f in self.families]
        self.fallbacks: tuple[str, ...] = tuple(chain)
        self._cmaps: dict[str, dict[int, int]] = {}
        self._splits: dict[tuple[str, str, str], tuple[list[tuple[str, str]], bool]] = {}   # -> runs, fell back
        # (family, style) of every face asked for while set, in order (`cardgen.layout.cache`)
        self.uses: dict[tuple[str, str], None] | None = None

    def has(self, family: str) -> bool:
        return family in self.families

    def face(self, family: str | None, style: str = "regular") -> Face:
        family = family or DEFAULT_FAMILY
        key = (family, style)
        if self.uses is not None:
            self.uses[key] = None
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
        self._family[name] = family
        return face

    def width(self, text: str, font_name: str, size: float) -> float:
        key = (text, font_name)
        w = self._widths.get(key)
        if w is None:
            from reportlab.pdfbase.pdfmetrics import stringWidth

            w = stringWidth(text, font_name, 1.0)
            self._widths[key] = w
        return w * size

    # -- glyph coverage -----------------------------------------------------------------
    def family_of(self, font_name: str) -> str | None:
        """The family of a registered font name (None if this book did not make it)."""
        return self._family.get(font_name)

    def is_fallback(self, font_name: str) -> bool:
        return self.family_of(font_name) in self.fallbacks

    def cmap(self, font_name: str) -> dict[int, int]:
        """A registered font's characters (code point -> glyph)."""
        hit = self._cmaps.get(font_name)
        if hit is None:
            from reportlab.pdfbase import pdfmetrics

            hit = self._cmaps[font_name] = getattr(pdfmetrics.getFont(font_name).face, "charToGlyph", {}) or {}
        return hit

    def split(self, text: str, family: str | None, style: str = "regular") -> list[tuple[str, str]]:
        """`text` in the font of (family, style) as runs of (text, ReportLab font name): each
        character the font lacks goes to the first fallback family that has it.  Characters
        no font has stay in the text's font (they print as its empty-glyph box; `missing`
        names them); invisible ones no font has are dropped."""
        primary = self.face(family, style).name
        key = (text, primary, style)
        hit = self._splits.get(key)
        if hit is not None:
            if hit[1] and self.uses is not None:
                self._fallback_faces(style)     # (asked for again: what they lack depends on them too)
            return hit[0]
        cmap = self.cmap(primary)
        fell_back = not all(ord(ch) in cmap for ch in text)
        if not fell_back:
            runs = [(text, primary)]
        else:
            runs = []
            for ch in text:
                font = primary
                if ord(ch) not in cmap:
                    for name in self._fallback_faces(style):
                        if ord(ch) in self.cmap(name):
                            font = name
                            break
                    else:
                        if _ignorable(ch):
                            continue
                if runs and runs[-1][1] == font:
                    runs[-1] = (runs[-1][0] + ch, font)
                else:
                    runs.append((ch, font))
        self._splits[key] = (runs, fell_back)
        return runs

    def _fallback_faces(self, style: str) -> list[str]:
        """The fallback fonts' names in `style`; a damaged one is left out (game.yaml's check
        reports it where it is named, not at every text that could have used it)."""
        out = []
        for fb in self.fallbacks:
            try:
                out.append(self.face(fb, style).name)
            except FontError:
                continue
        return out

    def missing(self, text: str, font_name: str) -> str:
        """The characters of `text` that the font `font_name` has no glyph for (whitespace
        and invisible format characters aside), each once, in order."""
        cmap = self.cmap(font_name)
        return "".join(dict.fromkeys(ch for ch in text if ord(ch) not in cmap and not ch.isspace()
                                     and not _ignorable(ch)))
