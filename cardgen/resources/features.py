"""OpenType features frozen into a font: the font's own substitute glyphs put in its character
map, so that measuring, drawing, embedding and subsetting go on as for any font file.

A feature such as `lnum` (lining figures) is a list of substitutions in the font's GSUB table
(`one` -> `one.lf`). Text set with it must show the substitute glyphs; ReportLab draws a
character with the glyph the font's character map gives it, so the font is derived once with
fontTools: the character map sends each character to the glyph the features substitute for
it (single substitutions, and the first of alternate ones; what depends on the neighbouring
letters, such as ligatures, is not frozen). The derived font is kept in the user's cache
(`~/.cache/cardgen/font-features/<key>.ttf`, the key from the font file's content, the
features and the installed fontTools), so fontTools runs once per font and machine; a
font in which the features change nothing is used as it is (remembered by a `<key>.same`
entry). Text copied out of a PDF keeps its characters: '1' is still '1'.

`lnum` is on by default wherever a font has it (Vollkorn's default figures are old-style:
"1 AP" would read "I AP"); `onum` asks for the old-style ones (`effective`).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cardgen.core.digest import kept_digest, library_stamp, user_cache
from cardgen.core.memo import Bounded
from cardgen.core.paths import read_regular

FORMAT = 1                       # of the derived fonts: raise it when `freeze` changes
DEFAULT = ("lnum",)              # on unless a style turns it off (`effective`)
TAG = re.compile(r"[a-zA-Z0-9]{4}")
# what turns the default off: another figure style, or `-lnum`
_INSTEAD = {"lnum": ("onum",)}
_tmp: list[Path] = []            # where derived fonts go without a user cache (one folder a process)


class Unreadable(Exception):
    """A font file fontTools cannot read."""


def effective(requested: Iterable[str] | None) -> tuple[str, ...]:
    """The features to apply for a style asking for `requested`: those, plus the defaults it
    does not turn off (`onum` turns off `lnum`; `-lnum` turns it off alone), sorted (worked
    out once for each tuple asked: every text of every card asks)."""
    kept = requested is None or type(requested) is tuple
    if kept:
        hit = _effective.get(requested)       # type: ignore[arg-type]
        if hit is not None:
            return hit
    asked = [str(f) for f in (requested or ())]
    off = {f[1:] for f in asked if f.startswith("-")}
    on = {f for f in asked if not f.startswith("-")}
    for tag in DEFAULT:
        if tag not in off and not any(x in on for x in _INSTEAD.get(tag, ())):
            on.add(tag)
    out = tuple(sorted(on - off))
    if kept:
        _effective[requested] = out             # type: ignore[index]
    return out


_effective: Bounded[tuple | None, tuple[str, ...]] = Bounded(256)


def suffix(features: tuple[str, ...]) -> str:
    """What a derived font's name gets: `+lnum+smcp`."""
    return "".join("+" + f for f in features)


def _folder() -> Path:
    folder = user_cache("font-features")
    if folder is None:
        if not _tmp:
            _tmp.append(Path(tempfile.mkdtemp(prefix="cardgen-fonts-")))
        folder = _tmp[0]
    return folder


def frozen(path: Path, data: bytes | None, features: tuple[str, ...]) -> Path:
    """The font file that draws `path`'s font with `features` applied: a derived file in the
    cache, or `path` itself when they change nothing. `data`: the file's bytes if already
    read (else read only when the derived font is made)."""
    if not features:
        return path
    # (by the file's place too: two families made of one file keep their own names)
    head = (f"cardgen frozen font {FORMAT}\n{kept_digest(path, 'fonts')}\n{path.resolve()}\n{' '.join(features)}\n"
            f"{library_stamp('fontTools')}")
    key = hashlib.sha256(head.encode()).hexdigest()
    folder = _folder()
    out, same = folder / f"{key}.ttf", folder / f"{key}.same"
    if same.is_file():
        return path
    if out.is_file():
        return out
    if data is None:
        data = read_regular(path)     # (OSError: the caller says why the font cannot be read)
    try:
        derived = freeze(data, features)
    except Unreadable:
        return path               # (ReportLab's parser says what is wrong with it; nothing is kept)
    from cardgen.core.atomic import write_bytes

    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes(same if derived is None else out, derived or b"")
    if derived is None:
        return path
    if not out.is_file():            # a read-only cache: the derived font in a folder of this process
        out = Path(tempfile.mkdtemp(prefix="cardgen-fonts-")) / f"{key}.ttf"
        out.write_bytes(derived)
    return out


def substitutions(font, features: tuple[str, ...]) -> dict[str, str]:
    """glyph -> substitute glyph, for the single and alternate substitutions of `features`
    in a fontTools font's GSUB table, applied in lookup order."""
    gsub = font.get("GSUB")
    table = getattr(gsub, "table", None)
    if table is None or table.FeatureList is None or table.LookupList is None:
        return {}
    wanted = set(features)
    lookups = sorted({i for rec in table.FeatureList.FeatureRecord if rec.FeatureTag in wanted
                      for i in rec.Feature.LookupListIndex})
    subst: dict[str, str] = {}
    for index in lookups:
        lookup = table.LookupList.Lookup[index]
        step: dict[str, str] = {}
        for sub in lookup.SubTable:
            kind = lookup.LookupType
            if kind == 7:
                kind, sub = sub.ExtensionLookupType, sub.ExtSubTable
            if kind == 1:
                for a, b in sub.mapping.items():
                    step.setdefault(a, b)
            elif kind == 3:
                for a, alts in sub.alternates.items():
                    if alts:
                        step.setdefault(a, alts[0])
        if step:
            glyphs = set(font.getGlyphOrder())
            subst = {a: step.get(b, b) for a, b in subst.items()} | {a: b for a, b in step.items() if a not in subst}
            subst = {a: b for a, b in subst.items() if b in glyphs}
    return subst


def freeze(data: bytes, features: tuple[str, ...]) -> bytes | None:
    """The font file `data` with its character map sending every character to the glyph
    `features` substitute for it. The default features (every text's unless it asks for
    others) keep the font's name, and give None when they change no character's glyph;
    others always give a font, its PostScript name marked with them. Unreadable if fontTools
    cannot read it."""
    from fontTools.ttLib import TTFont

    try:
        font = TTFont(io.BytesIO(data), recalcTimestamp=False)
        subst = substitutions(font, features)
        cmap = font["cmap"]
    except Exception as exc:       # a damaged file trips fontTools anywhere
        raise Unreadable(str(exc)) from None
    changed = False
    for table in cmap.tables:
        if not table.isUnicode() or not hasattr(table, "cmap"):
            continue
        for code, glyph in list(table.cmap.items()):
            new = subst.get(glyph)
            if new is not None and new != glyph:
                table.cmap[code] = new
                changed = True
    if features == effective(None):      # the default: the font keeps its name (`Lato-Regular` in a PDF)
        return _saved(font) if changed else None
    # other features: always a font of its own name, even where they change nothing (ReportLab
    # takes two fonts of one PostScript name for one, and the default one may be derived)
    mark = "-" + ("-".join(features) or "plain")
    for rec in font["name"].names:
        if rec.nameID in (3, 4, 6):
            with contextlib.suppress(UnicodeError):
                text = rec.toUnicode()
                rec.string = (text.replace(" ", "") if rec.nameID == 6 else text)[:63 - len(mark)] + mark
    return _saved(font)


def _saved(font: Any) -> bytes:
    out = io.BytesIO()
    font.save(out, reorderTables=False)
    return out.getvalue()
