"""Drawing shaped text glyph by glyph, in ReportLab's embedded and subset TrueType fonts.

ReportLab embeds a TrueType font as subsets of at most 256 glyphs, each glyph reached through
a character of the font's character map. A shaped run (`cardgen.resources.shaping`) draws
glyphs the character map does not reach (a ligature, an Arabic letter's joining form, a
Devanagari conjunct): each such glyph n is given the code point `PSEUDO + n` (Unicode's
private use plane 16, which no text of a card uses) in the font's map, with the glyph's
advance as its width, so ReportLab subsets and embeds it as any other (`glyph_codes`). The
subset's ToUnicode map then gives each such glyph the characters it stands for (a ligature
all of its characters, a joining form its letter; the later glyphs of a cluster drawn with
several, as Thai SARA AM, a zero-width space), so text copied or searched in the PDF reads
as it was typed, in logical order (`_text_map`).

A run is written as TJ arrays (`shaped_out`): after each glyph, the number that moves the
next one from where its width in the PDF would put it to where HarfBuzz placed it (kerning,
a mark's offset); a glyph raised or lowered (a mark above a letter) is set with the text
rise (Ts). So the glyphs land where the text engine measured them, left to right, for
right-to-left text as well.
"""
from __future__ import annotations

from typing import Any

from cardgen.resources.shaping import PSEUDO, Shaped

__all__ = ["glyph_codes", "register", "shaped_out"]

_MORE = "\u200b"     # what the second and later glyphs of a cluster read as (its first one reads as all of it)


def register(font: Any, codes: str) -> None:
    """The glyph codes (`PSEUDO + glyph`) among `codes` added to the ReportLab TrueType font's
    map, each with its glyph's advance as its width; before the document codes them
    (`CardCanvas.fix_resources`) or draws them."""
    face = font.face
    to_glyph = face.charToGlyph
    for ch in codes:
        code = ord(ch)
        if code >= PSEUDO and code not in to_glyph:
            gid = code - PSEUDO
            to_glyph[code] = gid
            face.charWidths[code] = face._pdfScale(face.hmetrics[gid][0]) if gid < len(face.hmetrics) \
                else face.defaultWidth


def glyph_codes(font: Any, text: str, shaped: Shaped) -> str:
    """The characters that draw the glyphs of `shaped` (`text` shaped in the ReportLab
    TrueType font `font`) through the font's subsets (`Shaped.codes`: a glyph that is its
    character's own is that character, any other its code point `PSEUDO + glyph`), registered
    with the font, with the characters each glyph stands for (its ToUnicode entry).  Done
    once a font for each run (`shaped` as the font book keeps it for `text`): a second time
    changes nothing, and the print-service file names the glyphs of every side it keeps
    (`Drawer._name_glyphs`: 2,000 sides, most of them the same few words with a ligature)."""
    done: dict[str, Shaped] | None = getattr(font, "_cardgen_coded", None)
    if done is None:
        done = font._cardgen_coded = {}
    elif done.get(text) is shaped:
        return shaped.codes
    register(font, shaped.extra)
    names = _text_map(font)
    for ch, chars in zip(shaped.codes, shaped.cluster_text(text), strict=True):
        code = ord(ch)
        if code >= PSEUDO and ((chars and names.get(code, _MORE) == _MORE) or code not in names):
            names[code] = chars or _MORE
    done[text] = shaped
    return shaped.codes


def shaped_out(t: Any, font_name: str, size: float, text: str, shaped: Shaped) -> None:
    """`shaped` (the run `text` shaped) written into the text object `t` at its current point:
    each glyph where HarfBuzz placed it, the point left at the run's end."""
    from reportlab.lib.rl_accel import fp_str
    from reportlab.pdfbase.pdfmetrics import getFont

    font = getFont(font_name)
    codes = glyph_codes(font, text, shaped)
    doc = t._canvas._doc
    escape = t._canvas._escape
    width = font.face.getCharWidth
    code: list[str] = []
    items: list[str] = []
    pen = 0.0           # where the PDF's pen is (1/1000 of the size, from the run's start)
    at = 0.0            # where HarfBuzz's pen is
    rise = 0.0
    k = 0

    def flush() -> None:
        if items:
            code.append(f"[{' '.join(items)}] TJ")
            items.clear()

    for subset, chunk in font.splitString(codes, doc):
        if subset != t._curSubset:
            flush()
            code.append(f"{font.getSubsetInternalName(subset, doc)} {fp_str(size)} Tf {fp_str(t._leading)} TL")
            t._curSubset = subset
        for byte in chunk:
            dy = shaped.dy[k] * 0.001 * size
            if dy != rise:
                flush()
                code.append(f"{fp_str(dy)} Ts")
                rise = dy
            move = pen - (at + shaped.dx[k])
            if abs(move) > 1e-6:
                items.append(fp_str(move))        # a TJ number moves the next glyph left by 1/1000 em
            items.append(f"({escape(bytes([byte]))})")
            pen = at + shaped.dx[k] + width(ord(codes[k]))
            at += shaped.advances[k]
            k += 1
    if abs(pen - at) > 1e-6:
        items.append(fp_str(pen - at))
    flush()
    if rise:
        code.append("0 Ts")
    t._code.append(" ".join(code))


def _text_map(font: Any) -> dict[int, str]:
    """The characters each glyph code of `font` stands for (`glyph_codes`), written into the
    ToUnicode map of each subset that draws one, once per font: its `addObjects` wrapped."""
    names: dict[int, str] | None = getattr(font, "_cardgen_text", None)
    if names is not None:
        return names
    names = font._cardgen_text = {}
    original = font.addObjects

    def add_objects(doc: Any) -> None:
        from reportlab.pdfbase.ttfonts import SUBSETN

        state = font.state.get(doc)
        subsets = [list(s) for s in state.subsets] if state is not None else []
        original(doc)
        face = font.face
        for n, subset in enumerate(subsets):
            if any(c >= PSEUDO for c in subset):
                base = (b"".join((SUBSETN(n), b"+", face.name, face.subfontNameX))).decode("pdfdoc")
                stream = doc.idToObject.get("toUnicodeCMap:" + base)
                if stream is not None:
                    stream.content = _cmap(base, subset, names)

    font.addObjects = add_objects
    return names


def _utf16(text: str) -> str:
    return text.encode("utf-16-be").hex().upper()


def _cmap(name: str, subset: list[int], names: dict[int, str]) -> str:
    """A subset's ToUnicode CMap (as ReportLab's `makeToUnicodeCMap`), each code mapped to its
    character, or a glyph code to the characters it stands for (none: left out)."""
    entries = []
    for i, v in enumerate(subset):
        chars = names.get(v, "") if v >= PSEUDO else chr(v)
        if chars:
            entries.append(f"<{i:02X}> <{_utf16(chars)}>")
    return "\n".join([
        "/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap", "/CIDSystemInfo",
        f"<< /Registry ({name})", f"/Ordering ({name})", "/Supplement 0", ">> def", f"/CMapName /{name} def",
        "/CMapType 2 def", "1 begincodespacerange", f"<00> <{len(subset) - 1:02X}>", "endcodespacerange",
        f"{len(entries)} beginbfchar", *entries, "endbfchar", "endcmap",
        "CMapName currentdict /CMap defineresource pop", "end", "end"])
