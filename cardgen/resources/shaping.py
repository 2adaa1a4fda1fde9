"""Shaping: a run of text in one font set by HarfBuzz, and the direction of text.

HarfBuzz (uharfbuzz) applies the font's OpenType layout as a browser does: ligatures (`fi`),
contextual forms, Arabic joining (each letter's initial, medial, final or isolated form),
Hebrew and Arabic right to left, the reordering and stacking of Devanagari and Thai, mark
positioning, kerning. A run is shaped in the font file it is drawn with, so the features
frozen into a derived font (`cardgen.resources.features`: lining figures, small capitals)
come with it.

Most text is plain: every character drawn with the glyph the font's character map gives it,
one after the other, moved only by kerning. `shape` says so (None), and such a run is
measured and drawn as before, character by character with the kerning of
`cardgen.resources.kerning` (the same bytes in the PDF); only a run that shaping changes
(a ligature, a joining form, a mark moved, right to left) is drawn glyph by glyph
(`cardgen.render.glyphs`). Both answers are kept per font and text.

Direction (`strong`, `segments`): a run's direction is that of its strong characters
(Unicode's bidirectional classes: Hebrew and Arabic letters are right to left); a word is
cut where it changes (`سعر 12` keeps its digits left to right). Where the runs go on a line
(visual order) is the text engine's part (`cardgen.text.bidi`).
"""
from __future__ import annotations

import contextlib
import hashlib
import marshal
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from cardgen.core.digest import file_digest, keep_sealed, library_stamp, read_sealed, user_cache
from cardgen.core.imports import importing
from cardgen.core.memo import Bounded

RTL_CLASSES = frozenset(("R", "AL"))
PSEUDO = 0x100000       # glyph n drawn as the code point PSEUDO + n (Unicode's private use plane 16)


@dataclass(frozen=True, slots=True)
class Shaped:
    """A run as HarfBuzz set it, in visual order (left to right, also for right-to-left
    text): each glyph's id, the index in the text of the first character of its cluster,
    its advance and offsets in 1/1000 of the size, and the run's width (the advances'
    sum)."""

    glyphs: tuple[int, ...]
    clusters: tuple[int, ...]
    advances: tuple[float, ...]
    dx: tuple[float, ...]
    dy: tuple[float, ...]
    width: float
    rtl: bool
    codes: str          # the characters that draw the glyphs: its own for a character's glyph, else PSEUDO + id

    @property
    def extra(self) -> str:
        """The codes of the glyphs that no character of the run draws (sorted, each once)."""
        return "".join(sorted({ch for ch in self.codes if ord(ch) >= PSEUDO}))

    def cluster_text(self, text: str) -> list[str]:
        """The characters each glyph stands for: its cluster's for the first glyph of a
        cluster (a ligature stands for all of them), "" for the others."""
        starts = sorted(set(self.clusters))
        end = {s: (starts[k + 1] if k + 1 < len(starts) else len(text)) for k, s in enumerate(starts)}
        seen: set[int] = set()
        out = []
        for c in (self.clusters if not self.rtl else reversed(self.clusters)):
            out.append("" if c in seen else text[c:end[c]])
            seen.add(c)
        return out if not self.rtl else out[::-1]


def strong(text: str) -> str:
    """The direction of `text`'s first strong character: "R" (Hebrew, Arabic, ...), "L", or
    "" (none: digits, punctuation, spaces)."""
    if text.isascii():
        return "L" if any(ch.isalpha() for ch in text) else ""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return "L"
        if kind in RTL_CLASSES:
            return "R"
    return ""


def char_kind(ch: str) -> str:
    """A character's part in cutting a word by direction: R, L, number (N) or neutral ("")."""
    kind = unicodedata.bidirectional(ch)
    if kind in RTL_CLASSES:
        return "R"
    if kind == "L":
        return "L"
    return "N" if kind in ("EN", "AN") else ""


def segments(text: str) -> list[str]:
    """`text` cut where its direction changes: between right-to-left letters and left-to-right
    letters or digits (neutral characters stay with what comes before them). Text with no
    right-to-left letter is one segment."""
    if text.isascii() or not any(unicodedata.bidirectional(ch) in RTL_CLASSES for ch in text):
        return [text]
    out: list[str] = []
    cur, side = "", ""
    for ch in text:
        kind = char_kind(ch)
        now = "R" if kind == "R" else ("L" if kind in ("L", "N") else side)
        if cur and now != side and side:
            out.append(cur)
            cur = ""
        cur += ch
        side = now or side
    if cur:
        out.append(cur)
    return out


_UNSHAPED: Any = object()       # (what `Shaper._runs` answers for a run not shaped yet)
RECORD_FORMAT = 1
KEPT_RUNS = 10_000      # runs a font file's record keeps, the newest (about 90 kB, read in 0.7 ms)


def _digest_like(version: str) -> bool:
    return len(version) == 64 and all(ch in "0123456789abcdef" for ch in version)


@cache
def _record_head() -> bytes:
    """What a record starts with: its format and the installed HarfBuzz (another version may
    shape otherwise), found without importing it."""
    return f"cardgen shaping {RECORD_FORMAT}\n{library_stamp('uharfbuzz')}\n".encode()


def _record_file(version: str) -> Path | None:
    """The record of the font file of SHA-256 `version` (None: no user cache, or no digest:
    `FontBook` knows one for every font it measured), one per HarfBuzz installation."""
    folder = user_cache("shaping")
    if folder is None or not _digest_like(version):
        return None
    return folder / f"{version}-{hashlib.sha256(_record_head()).hexdigest()[:16]}.bin"


def _newest(record: dict[str, Any]) -> None:
    """Keep the `KEPT_RUNS` runs last added to a record (those read from the file come first)."""
    if len(record) > KEPT_RUNS:
        newest = list(record.items())[-KEPT_RUNS:]
        record.clear()
        record.update(newest)


def _unpacked(entry: Any) -> Any:
    """A recorded run's `Shaped` (`_UNSHAPED` if the entry has not the shape `astuple` gives it)."""
    if not (isinstance(entry, tuple) and len(entry) == 8):
        return _UNSHAPED
    glyphs, clusters, advances, dx, dy, width, rtl, codes = entry
    n = len(glyphs) if isinstance(glyphs, tuple) else -1
    if not (all(isinstance(t, tuple) and len(t) == n for t in (clusters, advances, dx, dy))
            and all(type(v) is int for t in (glyphs, clusters) for v in t)
            and all(type(v) is float for t in (advances, dx, dy) for v in t)
            and type(width) is float and type(rtl) is bool and isinstance(codes, str) and len(codes) == n):
        return _UNSHAPED
    return Shaped(glyphs, clusters, advances, dx, dy, width, rtl, codes)


_hb: Any = None                 # (uharfbuzz, once imported: `_harfbuzz`)


def _harfbuzz() -> Any:
    """uharfbuzz, imported when first needed (not at each run shaped), while the collector
    waits (`core.imports`)."""
    global _hb
    if _hb is None:
        with importing(freeze=False):
            import uharfbuzz
        _hb = uharfbuzz
    return _hb


class Shaper:
    """HarfBuzz fonts by font file, and the runs shaped in them (both kept, bounded); `read`
    gives a font file's bytes (`cardgen.resources.fonts` reads every font file)."""

    def __init__(self, read: Callable[[Path], bytes]) -> None:
        self.read = read
        self._fonts: Bounded[tuple[Path, str], Any] = Bounded(64)
        self._runs: Bounded[tuple[str, Path, str], Shaped | None] = Bounded(200_000)
        self._kept: dict[str, dict[str, Any]] = {}     # font file's digest -> its record (`kept`)
        self._new: set[str] = set()                     # the records this process added runs to
        self._changed: set[tuple[Path, str]] = set()    # files whose bytes are no longer their digest's
        self._recording = False                         # within `recording`

    def font(self, path: Path, version: str = "") -> Any:
        """HarfBuzz's font of a font file (`version`: its digest, so that a file changed in a
        `--watch` session is read again)."""
        hb_font = self._fonts.get((path, version))
        if hb_font is None:
            hb = _harfbuzz()
            if _digest_like(version) and file_digest(path) != version:
                self._changed.add((path, version))      # (changed since measured: its runs not recorded)
            hb_font = self._fonts[(path, version)] = hb.Font(hb.Face(hb.Blob(self.read(path))))
        return hb_font

    @contextmanager
    def recording(self) -> Iterator[None]:
        """Within the block (a game checked: `pipeline.check.check_game`), runs are looked up in
        and added to the records (`kept`), which are written when it ends without an error and
        then let go (what a build shapes later, a print sheet's label, is not recorded, and
        the records hold no memory while it draws)."""
        if self._recording:
            yield
            return
        self._recording = True
        try:
            yield
            self.save()
        finally:
            self._recording = False
            self._kept.clear()
            self._new.clear()

    def kept(self, version: str) -> dict[str, Any] | None:
        """The record of the runs shaped in the font file of digest `version` by earlier
        processes (`user_cache("shaping")`): text -> None (plain) or `Shaped`'s fields as a
        tuple (or, added by this process, the `Shaped`); None outside `recording`, without a
        digest or without a user cache.  Read once a block, sealed, and made for the installed
        HarfBuzz (`_record_file`); each entry's shape is checked when used."""
        if not self._recording:
            return None
        record = self._kept.get(version)
        if record is None:
            file = _record_file(version)
            if file is None:
                return None
            record = {}
            body = read_sealed(file)
            head = _record_head()
            if body is not None and body.startswith(head):
                with contextlib.suppress(ValueError, EOFError, TypeError):
                    data = marshal.loads(body[len(head):])
                    if isinstance(data, dict):
                        record = data
            self._kept[version] = record
        return record

    def save(self) -> None:
        """Write the records this process added runs to (at most `KEPT_RUNS` each, the newest)."""
        for version in sorted(self._new):
            record, file = self._kept[version], _record_file(version)
            _newest(record)
            if file is not None:
                plain = {t: astuple(v) if isinstance(v, Shaped) else v for t, v in record.items()}
                keep_sealed(file, _record_head() + marshal.dumps(plain))
        self._new.clear()

    def shape(self, text: str, path: Path, version: str = "") -> Shaped | None:
        """`text` shaped in the font file `path` with the font's default features (ligatures,
        kerning, a script's forms; the text's own `features:` are frozen into the file it is
        drawn with); None where shaping changes nothing but kerning (`plain`). Right to left
        where its first strong character is. The answer depends on the text and the file
        alone, so a process that draws layouts made in another shapes them alike."""
        key = (text, path, version)
        hit = self._runs.get(key, _UNSHAPED)
        if hit is not _UNSHAPED:
            return hit
        record = self.kept(version)
        if record is not None:
            entry = record.get(text, _UNSHAPED)
            found = entry if entry is None or isinstance(entry, Shaped) else _unpacked(entry)
            if found is not _UNSHAPED:
                self._runs[key] = found
                return found
        rtl = strong(text) == "R"
        hb = _harfbuzz()
        hb_font = self.font(path, version)
        buf = hb.Buffer()
        buf.add_str(text)
        buf.guess_segment_properties()
        buf.direction = "rtl" if rtl else "ltr"
        hb.shape(hb_font, buf, {})
        infos, positions = buf.glyph_infos, buf.glyph_positions
        glyphs = tuple(int(i.codepoint) for i in infos)
        shaped: Shaped | None = None
        if not _plain(text, glyphs, [p.x_offset or p.y_offset for p in positions], hb_font, rtl):
            k = 1000.0 / hb_font.face.upem
            adv = tuple(p.x_advance * k for p in positions)
            clusters = tuple(int(i.cluster) for i in infos)
            shaped = Shaped(glyphs, clusters, adv, tuple(p.x_offset * k for p in positions),
                            tuple(p.y_offset * k for p in positions), sum(adv), rtl, "")
            nominal = hb_font.get_nominal_glyph
            codes = "".join(chars if len(chars) == 1 and (nominal(ord(chars)) or 0) == g else chr(PSEUDO + g)
                            for g, chars in zip(glyphs, shaped.cluster_text(text), strict=True))
            shaped = replace(shaped, codes=codes)
        self._runs[key] = shaped
        if record is not None and (path, version) not in self._changed:
            record[text] = shaped       # (as a tuple when saved)
            self._new.add(version)
            if len(record) > 2 * KEPT_RUNS:     # (a big build: bounded in this process too)
                _newest(record)
        return shaped


def _plain(text: str, glyphs: tuple[int, ...], moved: list[int], hb_font: Any, rtl: bool) -> bool:
    """Shaping changed nothing but the spacing: left to right, one glyph per character, each
    the one the font's character map gives it, none moved off its place."""
    if rtl or len(glyphs) != len(text) or any(moved):
        return False
    nominal = hb_font.get_nominal_glyph
    return all(g == (nominal(ord(ch)) or 0) for g, ch in zip(glyphs, text, strict=True))
