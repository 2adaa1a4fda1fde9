"""Font families found in `fonts/` folders, registered with ReportLab on first use.

A family is a set of files `<Family>-Regular.ttf`, `-Bold.ttf`, `-Italic.ttf` and
`-BoldItalic.ttf`, and any other weight (`-Light.ttf`, `-ExtraBold.ttf`, `-BlackItalic.ttf`),
or a variable font instanced at each weight (`cardgen.resources.weights`); missing styles
fall back to the nearest one present.

Fallback fonts: a character the text's font has no glyph for is drawn in the first
fallback family that has one (game.yaml `fallback_fonts:`, then the bundled DejaVu Sans, then
every other family of the game's and the project's `fonts/`, by name: a font for a script
added there is found without being named);
`FontBook.split` cuts text into runs by font, and measuring and drawing both use its runs.
Characters that no font has are what `FontBook.missing` reports.

Every font file is checked before use: a file whose TrueType tables do not match their
checksums (a bit flipped in a download or on disk) is refused as damaged, even where
ReportLab would still parse it.

Measuring needs no ReportLab (start-up time: `cardgen validate` lays out every card but draws
nothing).  A font's metrics (its cap height and descent, the advance width of each character
and which characters it has) are what ReportLab's TrueType parser reads from the file, kept
in the user's cache (`~/.cache/cardgen/fonts/<sha256 of the file>.bin`, `core.digest.user_cache`)
sealed like every cache file and stamped with the installed ReportLab (its parser made them).
So a font is parsed (and its tables' checksums checked) once per machine, not once per run:
a cache entry exists only for a file that passed both, and it is found by the file's
content.  The fonts are handed to ReportLab when drawing starts (`use_in_reportlab`, called
by `render.draw.new_canvas`), under the names measuring gave them; widths come out equal to
the last bit to ReportLab's `stringWidth` (a test holds them to it).
"""
from __future__ import annotations

import array
import contextlib
import hashlib
import marshal
import struct
import sys
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardgen.core import limits
from cardgen.core.data import DATA
from cardgen.core.digest import file_digest, kept_digest, library_stamp, read_sealed, seal, user_cache
from cardgen.core.memo import Bounded
from cardgen.core.paths import PathRefused, read_problem, read_regular
from cardgen.load import refs
from cardgen.resources import features, kerning, shaping, weights

if TYPE_CHECKING:
    from reportlab.pdfbase.ttfonts import TTFont

DEFAULT_FAMILY = "Lato"
DEFAULT_FALLBACK = "DejaVuSans"   # bundled, a fallback of every game (symbols, Greek, Cyrillic, ...)
STYLES = ("regular", "bold", "italic", "bolditalic")
_SUFFIX = {"regular": "Regular", "bold": "Bold", "italic": "Italic", "bolditalic": "BoldItalic"}
_FALLBACK = {
    "regular": ("regular", "bold", "italic", "bolditalic"),
    "bold": ("bold", "regular", "bolditalic", "italic"),
    "italic": ("italic", "regular", "bolditalic", "bold"),
    "bolditalic": ("bolditalic", "bold", "italic", "regular"),
}

_registered: dict[Path, str] = {}   # font file -> its ReportLab font name (process-wide)
_digests: dict[str, str] = {}       # ReportLab font name -> SHA-256 of the file it was measured from


def font_files() -> dict[str, Path]:
    """ReportLab font name -> font file, of every font measured so far."""
    return {name: path for path, name in _registered.items()}


def font_digest(name: str) -> str | None:
    """SHA-256 of the file a registered font was read from, as it was read (a file changed
    since, in a long `--watch` session, is not what ReportLab measures and draws with)."""
    return _digests.get(name)


class FontError(Exception):
    pass


@dataclass(frozen=True)
class Face:
    """A font as laying out text measures it."""

    name: str        # ReportLab font name
    ascent: float    # cap-height-based ascent per point of size
    descent: float   # descent per point of size (positive)


_verified: Bounded[tuple[Path, int, int], str | None] = Bounded(256)   # (file, size, mtime) -> problem or None


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
        _verified[key] = table_problem(_read(path))
    problem = _verified[key]
    if problem:
        raise FontError(f"font file {path.name} is damaged ({problem}); download or copy it again")


@dataclass(frozen=True)
class Metrics:
    """What measuring text needs of a font: ReportLab's `TTFontFace` numbers, in 1/1000 of the size."""

    cap_height: float
    descent: float
    default_width: float              # of a character the font has no glyph for
    widths: dict[int, float]          # code point -> advance width
    chars: frozenset[int]             # the code points the font has a glyph for (its cmap)
    pairs: kerning.Table = ()         # its kerning pairs (`cardgen.resources.kerning`)

    @classmethod
    def of(cls, face: Any, kerns: kerning.Table = ()) -> Metrics:
        widths = dict(face.charWidths)
        return cls(getattr(face, "capHeight", 700), getattr(face, "descent", -200), face.defaultWidth, widths,
                   has_glyphs(face.charToGlyph) - blank_chars(face), kerns)

    def width(self, text: str) -> float:
        """The advance width of `text` at size 1, as ReportLab's `stringWidth` adds it up."""
        get, default = self.widths.get, self.default_width
        return 0.001 * sum([get(ord(ch), default) for ch in text])

    def packed(self) -> bytes:
        extra = sorted(self.chars.difference(self.widths))      # in the cmap, past the glyph count: no width
        blank = sorted(set(self.widths).difference(self.chars))   # mapped to no glyph (.notdef)
        return marshal.dumps((self.cap_height, self.descent, self.default_width, self.widths, extra, blank,
                              self.pairs))

    @classmethod
    def unpacked(cls, data: bytes) -> Metrics | None:
        with contextlib.suppress(ValueError, EOFError, TypeError):
            cap, desc, default, widths, extra, blank, kerns = marshal.loads(data)
            if all(isinstance(v, (int, float)) for v in (cap, desc, default)) and isinstance(widths, dict) \
                    and isinstance(extra, list) and isinstance(blank, list) and isinstance(kerns, tuple):
                return cls(cap, desc, default, widths, frozenset(widths).union(extra).difference(blank), kerns)
        return None


_FILLERS = {0x115F, 0x1160, 0x3164, 0xFFA0}      # Hangul fillers: letters that draw nothing by design


def _inkless(ch: str) -> bool:
    """A character whose glyph may well be empty: anything but a letter or a digit (spaces,
    marks, variation selectors, symbols such as the blank Braille pattern), and the fillers."""
    return unicodedata.category(ch)[0] not in "LN" or ord(ch) in _FILLERS


def blank_chars(face: Any) -> frozenset[int]:
    """The letters and digits a parsed TrueType font maps to a glyph that has no outline (an
    empty or broken entry of its `glyf` table): drawn with this font they would print as
    nothing, so they count as characters it lacks (a fallback font draws them, or they are
    reported missing)."""
    import struct

    table = getattr(face, "table", {}).get("glyf")
    pos = getattr(face, "glyphPos", None)
    data = getattr(face, "_ttf_data", None)
    if not table or not pos or data is None:
        return frozenset()
    start, size = int(table["offset"]), int(table["length"])
    known: dict[int, bool] = {}

    def outline(g: int) -> bool:
        hit = known.get(g)
        if hit is None:
            hit = False
            if 0 <= g < len(pos) - 1:
                at, length = pos[g], pos[g + 1] - pos[g]
                if length >= 10 and at + length <= size:
                    n, x0, y0, x1, y1 = struct.unpack_from(">hhhhh", data, start + at)
                    hit = (n > 0 or n == -1) and x0 <= x1 and y0 <= y1
            known[g] = hit
        return hit

    return frozenset(c for c, g in face.charToGlyph.items()
                     if g and 0 <= c < 0x110000 and not _inkless(chr(c)) and not outline(g))


def has_glyphs(char_to_glyph: dict[int, int]) -> frozenset[int]:
    """The code points a font draws: those its cmap maps to a glyph other than 0 (`.notdef`,
    the empty box a font draws for what it has not)."""
    return frozenset(c for c, g in char_to_glyph.items() if g)


METRICS_FORMAT = 4                    # of the cache entries: raise it when `Metrics` changes
_metrics: dict[str, Metrics] = {}     # ReportLab font name -> metrics (process-wide)
_parsed: dict[str, TTFont] = {}       # parsed here but not yet given to ReportLab
_in_reportlab: set[str] = set()       # the names ReportLab knows
_drawing = False                      # set by `use_in_reportlab`: name fonts into ReportLab at once


def _cache_head() -> bytes:
    return f"cardgen font metrics {METRICS_FORMAT}\n{sys.version}\n{library_stamp('reportlab')}\n".encode()


def _entry(folder: Path, key: str, head: bytes) -> Path:
    """A cache entry's file: by the font file's sha256 and by what the entry is stamped with
    (format, Python, ReportLab), so two installs of cardgen on one machine (two virtual
    environments, a test run's oldest versions) keep one entry each instead of overwriting
    each other's on every run and parsing the font again every time."""
    return folder / f"{key}-{hashlib.sha256(head).hexdigest()[:16]}.bin"


def _cached(key: str) -> Metrics | None:
    folder = user_cache("fonts")
    if folder is None:
        return None
    head = _cache_head()
    body = read_sealed(_entry(folder, key, head))
    if body is None:
        return None
    return Metrics.unpacked(body[len(head):]) if body.startswith(head) else None


def _keep(key: str, metrics: Metrics) -> None:
    folder = user_cache("fonts")
    if folder is None:
        return
    from cardgen.core.atomic import write_bytes

    with contextlib.suppress(OSError):     # a read-only home: measured again next time
        head = _cache_head()
        write_bytes(_entry(folder, key, head), seal(head + metrics.packed()))


def _read(path: Path) -> bytes:
    """A font file's bytes, read the one bounded way (`core.paths.read_regular`): a pipe, a
    link to itself or a file over CARDGEN_MAX_FILE_BYTES is a FontError."""
    try:
        return read_regular(path)
    except OSError as exc:
        raise FontError(read_problem(exc, path.name, "font file")) from None


def _parse(name: str, path: Path, check: bool = False) -> TTFont:
    """The font file parsed by ReportLab (FontError: why it cannot be used), from the bytes
    `_read` gives; a font with no glyphs, or more than CARDGEN_MAX_FONT_GLYPHS, or whose
    letters and digits have no outlines (broken glyph tables: it would print blank text),
    is refused."""
    import io

    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    data = io.BytesIO(_read(path))
    data.name = str(path)
    try:
        font = TTFont(name, data)
    except TTFError as exc:
        raise FontError(f"cannot use font file {path.name}: {exc} (only TrueType-outline .ttf fonts work)") from None
    except Exception as exc:  # a damaged file trips the parser anywhere (struct.error, IndexError, ...)
        raise FontError(f"cannot use font file {path.name}: the file is damaged ({type(exc).__name__}: {exc}); "
                        f"download or copy it again") from None
    count = int(getattr(font.face, "numGlyphs", 0) or 0)
    if count < 2:       # (glyph 0 is the empty box for what a font lacks)
        raise FontError(f"font file {path.name} has no glyphs; download or copy it again")
    if count > limits.MAX_FONT_GLYPHS:
        raise FontError(f"font file {path.name} has {count:,} glyphs, more than the {limits.MAX_FONT_GLYPHS:,} cardgen "
                        f"reads (limit CARDGEN_MAX_FONT_GLYPHS)")
    if check:
        _subsets(font, path)
    blank = blank_chars(font.face)
    letters = sorted(c for c in blank if c < 128 and chr(c).isalnum())
    if letters:
        shown = "".join(chr(c) for c in letters[:12])
        raise FontError(f"font file {path.name} has no outlines for letters it lists ({shown}...): its glyph tables "
                        f"are broken and it would print blank text; download or copy it again")
    return font


def _subsets(font: TTFont, path: Path) -> None:
    """Every character of the font put in a subset the way a PDF embeds it (255 at a time):
    a font whose glyph tables do not match its character map (a `loca` entry past the end of
    `glyf`, a glyph number past the glyph count) fails here, when it is first measured, not
    while a PDF is written.  Once per font file and machine (the metrics are cached)."""
    codes = sorted(font.face.charToGlyph)
    try:
        for k in range(0, len(codes), 255):
            font.face.makeSubset(codes[k:k + 255])
    except Exception as exc:  # struct.error, IndexError, TTFError ... from any table
        raise FontError(f"cannot use font file {path.name}: its glyph tables are damaged ({type(exc).__name__}: "
                        f"{exc}); download or copy it again") from None


_UNASKED: Any = object()            # (`FontBook.shaped`: not shaped in this book yet)
_shaper = shaping.Shaper(_read)     # HarfBuzz's fonts and the runs shaped (process-wide)


def recording_shaped() -> contextlib.AbstractContextManager[None]:
    """Within the block, the runs shaped are looked up in and added to the user's cache
    (`shaping.Shaper.recording`): the next `cardgen validate` of the same text neither imports
    HarfBuzz nor shapes.  Around checking a game (`pipeline.check.check_game`): the runs of
    its cards, not those a build shapes later (each print sheet's label: 56 labels were
    200 kB of a record)."""
    return _shaper.recording()


def _measure(name: str, path: Path) -> Metrics:
    """The metrics of a font file: from the cache by the file's content, else checked,
    parsed (kept in `_parsed` for drawing) and cached."""
    try:
        key = kept_digest(path, "fonts")
    except OSError:
        key = ""
    found = _cached(key) if len(key) == 64 else None
    if found is not None:
        return found
    try:
        verify(path)
    except OSError as exc:
        raise FontError(f"cannot read font file {path.name}: {exc.strerror or exc}") from None
    font = _parsed[name] = _parse(name, path, check=True)
    face = font.face
    metrics = Metrics.of(face, kerning.read(face._ttf_data, face.table, face.charToGlyph, face.unitsPerEm))
    if len(key) == 64:
        _keep(key, metrics)
    return metrics


def _check_file(path: Path) -> None:
    """A font file checked as `_measure` checks it (once per file version and machine: its
    metrics are cached, and their entry says it passed: not read again), for a font drawn
    through a font derived from it."""
    path, folder = path.resolve(), user_cache("fonts")
    key = kept_digest(path, "fonts")
    if folder is None or len(key) != 64 or not _entry(folder, key, _cache_head()).is_file():
        _measure(f"cardgen-check-{path.stem}", path)
        _parsed.pop(f"cardgen-check-{path.stem}", None)


def _register(path: Path, base: str | None = None) -> str:
    """The ReportLab font name of a font file, measured once per process (and handed to
    ReportLab at once if drawing has started); `base`: the name to give it (else its file
    name's stem)."""
    path = path.resolve()
    if path in _registered:
        return _registered[path]
    base = base or path.stem
    name = base
    rl = sys.modules.get("reportlab.pdfbase.pdfmetrics")      # a font someone else gave ReportLab
    if rl is not None and name in rl._fonts and name not in _registered.values():
        name = f"{base}-{hashlib.sha1(str(path).encode()).hexdigest()[:6]}"
    taken = set(_registered.values())
    if name in taken:
        name = f"{base}-{hashlib.sha1(str(path).encode()).hexdigest()[:6]}"
    _metrics[name] = _measure(name, path)
    if _drawing:
        _to_reportlab(name, path)
    _registered[path] = name
    _digests[name] = file_digest(path)      # what `_measure` measured (remembered by size and time)
    return name


FACE_FORMAT = 1                       # of the parsed fonts kept for drawing: raise it when `_face_state` changes


def _face_head() -> bytes:
    return f"cardgen font face {FACE_FORMAT}\n{sys.version}\n{library_stamp('reportlab')}\n".encode()


def _face_state(font: TTFont) -> bytes | None:
    """What ReportLab's parser made of a font file, as plain data (marshal), less the file's
    bytes; None if it holds anything else (another ReportLab may keep other things)."""
    from reportlab.pdfbase.ttfonts import TTFNameBytes

    face, names = {}, {}
    for key, value in font.face.__dict__.items():
        if key in ("_ttf_data", "_pdfScale", SHA256):
            continue
        if type(value) is TTFNameBytes:
            names[key] = bytes(value)
        else:
            face[key] = value
    top = {k: v for k, v in font.__dict__.items() if k not in ("fontName", "face", "encoding", "state")}
    try:
        return marshal.dumps((face, names, top))
    except ValueError:
        return None


def _face_of(name: str, path: Path, data: bytes, state: bytes) -> TTFont | None:
    """The font `_face_state` kept, for the file `path` whose bytes are `data`, named `name`."""
    from weakref import WeakKeyDictionary

    from reportlab.pdfbase.ttfonts import TTEncoding, TTFNameBytes, TTFont, TTFontFace

    try:
        face, names, top = marshal.loads(state)
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(face, dict) and isinstance(names, dict) and isinstance(top, dict)
            and isinstance(face.get("unitsPerEm"), int) and face["unitsPerEm"] > 0):
        return None
    parsed = TTFontFace.__new__(TTFontFace)
    parsed.__dict__.update(face)
    parsed.__dict__.update({k: TTFNameBytes(v) for k, v in names.items()})
    parsed._ttf_data, parsed.filename = data, str(path)
    upem = face["unitsPerEm"]
    if upem == 1000:            # (as ReportLab's parser scales the font's units to 1/1000 of the size)
        parsed._pdfScale = lambda x: x
    else:
        mult = 1000 / upem
        parsed._pdfScale = lambda x: x * mult
    font = TTFont.__new__(TTFont)
    font.__dict__.update(top)
    font.fontName, font.face, font.encoding, font.state = name, parsed, TTEncoding(), WeakKeyDictionary()
    return font


def _for_drawing(name: str, path: Path, parsed: TTFont | None = None) -> TTFont:
    """The font file parsed for ReportLab to draw with (`parsed`: already parsed, when it was
    measured in this process): once per file version and machine.  What the parser made is
    kept in the user's cache (`font-faces/<sha256 of the file>-<of the stamp>.bin`, sealed, stamped with the
    installed ReportLab), less the file's bytes, and put together again with them, unchecked:
    only a file that passed `_parse`'s checks is kept."""
    folder = user_cache("font-faces")
    if folder is None:
        return parsed or _parse(name, path)
    data = parsed.face._ttf_data if parsed is not None else _read(path)
    key = hashlib.sha256(data).hexdigest()
    head = _face_head()
    entry = _entry(folder, key, head)
    if parsed is None:
        body = read_sealed(entry)
        if body is not None and body.startswith(head):
            font = _face_of(name, path, data, body[len(head):])
            if font is not None:
                return _hashed(font, key)
        parsed = _parse(name, path)
        if hashlib.sha256(parsed.face._ttf_data).digest() != bytes.fromhex(key):
            return parsed           # (the file changed since it was read)
    elif entry.exists():
        return _hashed(parsed, key)
    state = _face_state(parsed)
    if state is not None:
        from cardgen.core.atomic import write_bytes

        with contextlib.suppress(OSError):     # a read-only home: parsed again next time
            write_bytes(entry, seal(head + state))
    return _hashed(parsed, key)


# The attribute of a parsed font's face holding the SHA-256 (hex) of its bytes (`_ttf_data`),
# where `_for_drawing` hashed them: a document names the font by it (`render.rlcompat`), and
# hashing the three fonts of a one-card edit's sheets again was 1.8 MB (not kept in the cache).
SHA256 = "_cardgen_sha256"


def _hashed(font: TTFont, key: str) -> TTFont:
    """`font`, its face marked with `key`, the SHA-256 of its bytes."""
    setattr(font.face, SHA256, key)
    return font


def data_sha256(font: Any) -> str:
    """The SHA-256 (hex) of a parsed font's bytes: as `_for_drawing` found it, else hashed."""
    face = font.face
    known = face.__dict__.get(SHA256)
    return known if known is not None else hashlib.sha256(face._ttf_data).hexdigest()


def _to_reportlab(name: str, path: Path) -> None:
    from reportlab.pdfbase import pdfmetrics

    if name not in pdfmetrics._fonts:
        if name not in _metrics:        # measured in another process: as it measured it (kerning and all)
            _metrics[name] = _measure(name, path)
        font = _for_drawing(name, path, _parsed.pop(name, None))
        other = pdfmetrics._dynFaceNames.get(font.face.name)
        if other is not None and other is not font and other.face._ttf_data != font.face._ttf_data:
            # ReportLab takes a font whose face name it has seen (another game's font file of the
            # same name, in this process) for that first font, and would draw this one with its
            # glyphs: it is registered on its own (a copy of the same file, as a game's font
            # renamed from a bundled one, is drawn as that one: two fonts of one face name in one
            # PDF would name their subsets' objects alike)
            pdfmetrics._fonts[name] = font
            pdfmetrics.registerFontFamily(name)
        else:
            pdfmetrics.registerFont(font)
    _in_reportlab.add(name)


def use_in_reportlab(names: Mapping[str, str | Path] | None = None) -> None:
    """Before drawing: give ReportLab every font measured so far, and from now on each font
    as it is first measured.  `names` (ReportLab font name -> file): fonts measured in
    another process, under its names (a worker process draws the layouts its parent made)."""
    global _drawing
    _drawing = True
    for name, file in (names or {}).items():
        path = Path(file).resolve()
        _registered.setdefault(path, name)
        _to_reportlab(name, path)
    for path, name in list(_registered.items()):
        if name not in _in_reportlab:
            _to_reportlab(name, path)


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


def _not_a_file(path: Path) -> str | None:
    """Why a font file found in a folder cannot be read at all (a pipe, a link to itself or
    to nothing), or None."""
    import errno
    import os
    import stat

    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"font file {path.name} is a link that leads back to itself; replace it with the font file"
        return f"font file {path.name} cannot be read ({exc.strerror or exc}); replace it with the font file"
    except ValueError:
        return f"font file {path.name} cannot be read; rename it"
    if not stat.S_ISREG(st.st_mode):
        return (f"font file {path.name} is not a regular file (a pipe, device or socket), so cardgen does not read "
                f"it; replace it with the font file")
    return None


def no_glyph_message(fonts: FontBook, font: str, chars: str) -> str:
    """What to say of `chars` that `font` (a ReportLab font name) and the fallback fonts lack."""
    chain = [f for f in fonts.fallbacks if f != fonts.family_of(font)]
    by = f"font {font}" + (f" and the fallback font{'s' if len(chain) > 1 else ''} {', '.join(chain)}"
                           if chain else "")
    them, they = ("them", "they print") if len(chars) > 1 else ("it", "it prints")
    return (f"{by} {'have' if chain else 'has'} no glyph for {describe_chars(chars)}; {they} blank or as a box "
            f"(add a font that has {them} to fonts/ and name it in game.yaml `fallback_fonts:`, or leave {them} out)")


class FontBook:
    """Font families in `dirs`.  With `roots` (`cardgen.core.paths`), a font file that resolves
    outside the allowed folders (a symbolic link pointing out) is not used; `refused` says why.
    `fallbacks`: families that draw the characters a text's font lacks, in order; the bundled
    DejaVu Sans comes after them when it is in `dirs`, then the other families of `dirs` that
    are not cardgen's own (the game's and the project's `fonts/`), by name."""

    def __init__(self, dirs: list[Path], roots: Sequence[Path] | None = None, fallbacks: Sequence[str] = ()):
        self.families: dict[str, dict[str, Path]] = {}
        self.refused: dict[str, str] = {}
        own: set[str] = set()          # the families of the folders that are not cardgen's
        bundled = (DATA / "fonts").resolve()
        for d in reversed(dirs):  # earlier dirs win
            if not d.is_dir():
                continue
            mine = d.resolve() != bundled
            for f in sorted(d.glob("*.ttf")):
                family, key = weights.file_key(f.stem)
                if key is None:
                    continue
                problem = _not_a_file(f)
                if problem:
                    self.refused[family] = problem
                    continue
                if roots is not None:
                    try:
                        f = refs.confined(f, roots, "font", "font file", f.name).path or f
                    except PathRefused as exc:
                        self.refused[family] = str(exc)
                        continue
                self.families.setdefault(family, {})[key] = f
                if mine:
                    own.add(family)
        self._faces: dict[tuple[str, str, tuple[str, ...]], Face] = {}
        # `face`'s arguments as given -> (the face, what `uses` records of it)
        self._asked: dict[tuple, tuple[Face, tuple[str, str]]] = {}
        self.features = features.effective(None)     # what a style that names none gets
        self._family: dict[str, str] = {}     # ReportLab font name -> family
        self._widths: dict[tuple[str, str], float] = {}
        self._kerns: dict[tuple[str, str], tuple[tuple[int, float], ...]] = {}
        chain = [f for f in dict.fromkeys([*fallbacks, DEFAULT_FALLBACK, *sorted(own)]) if f in self.families]
        self.fallbacks: tuple[str, ...] = tuple(chain)
        self._cmaps: dict[str, Collection[int]] = {}
        self._paths: dict[str, Path | None] = {}        # ReportLab font name -> the file drawn (None: not ours)
        self._splits: dict[tuple[str, str, str], tuple[list[tuple[str, str]], bool]] = {}   # -> runs, fell back
        # (text, font name) -> `shaped` (a font name's file is the same for the book's life: the
        # text engine asks for each run's shaping two or three times)
        self._ascii: dict[str, bool] = {}       # font name -> `draws_ascii`
        self._shaped: Bounded[tuple[str, str], shaping.Shaped | None] = Bounded(16_384)
        # (family, style) of every face asked for while set, in order (`cardgen.layout.cache`)
        self.uses: dict[tuple[str, str], None] | None = None

    def has(self, family: str) -> bool:
        return family in self.families

    def face(self, family: str | None, style: str = "regular", feats: tuple[str, ...] | None = None) -> Face:
        """The face of `family` in `style` with the OpenType features `feats` (as given by
        `features.effective`; None: the default ones) frozen in (`cardgen.resources.features`).
        `style` may carry them itself, as `uses` records them: `regular+lnum+smcp`."""
        asked = self._asked.get((family, style, feats))
        if asked is not None:       # (asked as before: every text set and every word measured asks)
            if self.uses is not None:
                self.uses[asked[1]] = None
            return asked[0]
        given = (family, style, feats)
        family = family or DEFAULT_FAMILY
        if "+" in style:
            style, *named = style.split("+")
            feats = tuple(n for n in named if n)
        feats = self.features if feats is None else feats
        key = (family, style, feats)
        used = (family, style if feats == self.features else style + (features.suffix(feats) or "+"))
        if self.uses is not None:
            self.uses[used] = None
        face = self._faces.get(key) or self._made_face(family, style, feats)
        self._asked[given] = (face, used)
        return face

    def _made_face(self, family: str, style: str, feats: tuple[str, ...]) -> Face:
        """`face` found and made (registered with ReportLab, measured) the first time it is asked."""
        key = (family, style, feats)
        files = self.families.get(family)
        if not files and family in self.refused:
            raise FontError(self.refused[family])
        if not files:
            known = ", ".join(sorted(self.families)) or "none"
            raise FontError(f"unknown font '{family}' (fonts found: {known}; add <Family>-Regular.ttf to fonts/)")
        if weights.parse_style(style) is None:
            raise FontError(f"unknown font style '{style}' (use regular, bold, italic or bolditalic)")
        # the style's file, else the variable font of its slant at its weight, else the nearest
        # weight of its slant, else (no file of its slant)
        # the regular for an italic, as ever, else the nearest of all
        path = (files.get(style) or weights.variable(files, style)
                or weights.nearest(files, style, same_slant=True)
                or next((files[s] for s in _FALLBACK.get(style, ()) if s in files), None)
                or weights.nearest(files, style) or weights.variable(files, style, any_slant=True))
        assert path is not None
        try:
            drawn = features.frozen(path, None, feats)
        except OSError as exc:
            raise FontError(f"cannot read font file {path.name}: {exc.strerror or exc}") from None
        # (the default features keep the file's name: `Vollkorn-Regular` is drawn with lining figures)
        stem = path.stem if path in files.values() else f"{family}-{style}"      # (a variable font's instance)
        label = stem if feats == self.features else stem + (features.suffix(feats) or "+none")
        if drawn != path:       # the file itself checked first: deriving a font can mend a damaged one silently
            _check_file(path)
        try:
            name = _register(drawn, label)
        except FontError as exc:    # a derived font is as damaged as its file: the message names the file
            if drawn == path:
                raise
            raise FontError(str(exc).replace(drawn.name, path.name)) from None
        m = _metrics[name]
        cap = m.cap_height or 700
        desc = abs(m.descent or -200)
        face = Face(name, min(cap / 1000.0 + 0.06, 0.9), min(desc / 1000.0, 0.3))
        self._faces[key] = face
        self._family[name] = family
        self._paths[name] = drawn.resolve()
        return face

    def width(self, text: str, font_name: str, size: float) -> float:
        key = (text, font_name)
        w = self._widths.get(key)
        if w is None:
            m = _metrics.get(font_name)
            if m is not None:
                w = m.width(text)
            else:        # a font cardgen did not measure (ReportLab's standard fonts)
                from reportlab.pdfbase.pdfmetrics import stringWidth

                w = stringWidth(text, font_name, 1.0)
            self._widths[key] = w
        return w * size

    def kerns(self, text: str, font_name: str) -> tuple[tuple[int, float], ...]:
        """The font's kerning in `text`: (index, adjustment in 1/1000 of the size) for each
        character moved from where the advance widths put it (`kerning.adjustments`)."""
        key = (text, font_name)
        hit = self._kerns.get(key)
        if hit is None:
            m = _metrics.get(font_name)
            hit = self._kerns[key] = kerning.adjustments(m.pairs, text) if m is not None else ()
        return hit

    def kerned_width(self, text: str, font_name: str, size: float) -> float:
        """The width of `text` set with the font's kerning (the text engine's measure)."""
        return self.width(text, font_name, size) + sum(v for _, v in self.kerns(text, font_name)) * 0.001 * size

    def shaped(self, text: str, font_name: str) -> shaping.Shaped | None:
        """`text` shaped by HarfBuzz in the font (`cardgen.resources.shaping`); None where
        shaping changes nothing but kerning, or for a font this book did not make."""
        if not text:
            return None
        key = (text, font_name)
        hit = self._shaped.get(key, _UNASKED)
        if hit is not _UNASKED:
            return hit
        if font_name not in self._paths:     # a font named by layouts made elsewhere (a worker, the layout cache)
            self._paths[font_name] = next((p for p, n in _registered.items() if n == font_name), None)
        path = self._paths[font_name]
        hit = self._shaped[key] = None if path is None else _shaper.shape(text, path, _digests.get(font_name, ""))
        return hit

    def run_width(self, text: str, font_name: str, size: float) -> float:
        """The width of a run of text as it is drawn: shaped (`shaped`), else kerned."""
        shaped = self.shaped(text, font_name)
        return shaped.width * 0.001 * size if shaped is not None else self.kerned_width(text, font_name, size)

    # -- glyph coverage -----------------------------------------------------------------
    def family_of(self, font_name: str) -> str | None:
        """The family of a registered font name (None if this book did not make it)."""
        return self._family.get(font_name)

    def is_fallback(self, font_name: str) -> bool:
        return self.family_of(font_name) in self.fallbacks

    def cmap(self, font_name: str) -> Collection[int]:
        """A measured font's characters (the code points it has a glyph for)."""
        hit = self._cmaps.get(font_name)
        if hit is None:
            m = _metrics.get(font_name)
            if m is not None:
                hit = m.chars
            else:
                from reportlab.pdfbase import pdfmetrics

                hit = has_glyphs(getattr(pdfmetrics.getFont(font_name).face, "charToGlyph", {}) or {})
            self._cmaps[font_name] = hit
        return hit

    def split(self, text: str, family: str | None, style: str = "regular",
              feats: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
        """`text` in the font of (family, style, OpenType features `feats`: `face`) as runs of
        (text, ReportLab font name): each character the font lacks goes to the first fallback
        family that has it.  Characters no font has stay in the text's font (they print as its
        empty-glyph box; `missing` names them); invisible ones no font has are dropped."""
        primary = self.face(family, style, feats).name
        key = (text, primary, style)
        hit = self._splits.get(key)
        if hit is not None:
            if hit[1] and self.uses is not None:
                self._fallback_faces(style, feats)     # (asked for again: what they lack depends on them too)
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
                    for name in self._fallback_faces(style, feats):
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

    def _fallback_faces(self, style: str, feats: tuple[str, ...] | None = None) -> list[str]:
        """The fallback fonts' names in `style`; a damaged one is left out (game.yaml's check
        reports it where it is named, not at every text that could have used it)."""
        out = []
        for fb in self.fallbacks:
            try:
                out.append(self.face(fb, style, feats).name)
            except FontError:
                continue
        return out

    def draws_ascii(self, font_name: str) -> bool:
        """Does the font draw every printable ASCII character but the space? (`missing` of
        printable ASCII text in it is then empty.)"""
        hit = self._ascii.get(font_name)
        if hit is None:
            cmap = self.cmap(font_name)
            hit = self._ascii[font_name] = all(c in cmap for c in range(0x21, 0x7F))
        return hit

    def missing(self, text: str, font_name: str) -> str:
        """The characters of `text` that the font `font_name` has no glyph for (whitespace
        and invisible format characters aside), each once, in order."""
        if text.isascii() and text.isprintable() and self.draws_ascii(font_name):
            return ""           # (plain text, most of it: told without a look-up a character)
        cmap = self.cmap(font_name)
        return "".join(dict.fromkeys(ch for ch in text if ord(ch) not in cmap and not ch.isspace()
                                     and not _ignorable(ch)))
