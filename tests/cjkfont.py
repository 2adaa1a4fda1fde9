"""A small CJK font for tests, made with fontTools' FontBuilder: no font with Chinese or
Japanese glyphs is bundled, and CI has none. Every character given gets a glyph of its own,
one em wide (as ideographs are): a square outline for a letter, a small square in the lower
left for punctuation (`、。`), a bracket shape for the brackets, so a rendered card shows
which is which."""
from __future__ import annotations

import unicodedata
from pathlib import Path

EM = 1000


def _shape(ch: str) -> list[tuple[int, int]]:
    """The outline of `ch`'s glyph: one closed contour (font units, the baseline at 0)."""
    cat = unicodedata.category(ch)
    if cat == "Ps":        # an opening bracket: its opening at the right
        return [(550, -100), (900, -100), (900, 0), (650, 0), (650, 700), (900, 700), (900, 800), (550, 800)]
    if cat == "Pe":        # a closing bracket: its opening at the left
        return [(100, -100), (450, -100), (450, 800), (100, 800), (100, 700), (350, 700), (350, 0), (100, 0)]
    if cat.startswith("P"):
        return [(100, 0), (300, 0), (300, 200), (100, 200)]
    if ch in "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮ":     # small kana: a smaller square
        return [(200, 0), (700, 0), (700, 500), (200, 500)]
    return [(80, -80), (920, -80), (920, 800), (80, 800)]


def make_font(path: Path, chars: str, family: str = "TestCJK") -> Path:
    """A TrueType font `family` Regular at `path` with a glyph for each of `chars` (and the
    space and the ideographic space, empty)."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    chars = "".join(dict.fromkeys(ch for ch in chars if ch not in " \u3000"))
    names = [".notdef", "space", "ideospace"] + [f"u{ord(ch):04X}" for ch in chars]
    fb = FontBuilder(EM, isTTF=True)
    fb.setupGlyphOrder(names)
    cmap = {0x20: "space", 0x3000: "ideospace"}
    cmap.update({ord(ch): f"u{ord(ch):04X}" for ch in chars})
    fb.setupCharacterMap(cmap)
    glyphs = {}
    for name in names:
        pen = TTGlyphPen(None)
        if name == ".notdef":
            for x0, y0, x1, y1 in ((50, 0, 450, 700), (100, 50, 400, 650)):
                pen.moveTo((x0, y0))
                pen.lineTo((x0, y1) if x0 == 50 else (x1, y0))
                pen.lineTo((x1, y1))
                pen.lineTo((x1, y0) if x0 == 50 else (x0, y1))
                pen.closePath()
        elif name.startswith("u"):
            points = _shape(chr(int(name[1:], 16)))
            pen.moveTo(points[0])
            for p in points[1:]:
                pen.lineTo(p)
            pen.closePath()
        glyphs[name] = pen.glyph()
    fb.setupGlyf(glyphs)
    glyf = fb.font["glyf"]
    fb.setupHorizontalMetrics({name: (250 if name == "space" else 500 if name == ".notdef" else EM,
                                      getattr(glyf[name], "xMin", 0)) for name in names})
    fb.setupHorizontalHeader(ascent=880, descent=-120)
    fb.setupNameTable({"familyName": family, "styleName": "Regular", "psName": f"{family}-Regular",
                       "uniqueFontIdentifier": f"{family}-Regular", "fullName": f"{family} Regular"})
    fb.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120, sCapHeight=700,
                sxHeight=500, ulUnicodeRange2=(1 << (48 - 32)) | (1 << (49 - 32)) | (1 << (59 - 32)))
    fb.setupPost()
    path.parent.mkdir(parents=True, exist_ok=True)
    fb.save(str(path))
    return path
