"""Measuring: a span of text becomes runs, each in one font, with its advance width.

This is the one place where text meets fonts and glyphs: a span is cut into runs by font
(fallback fonts for what the text's font lacks) and by direction (`shaping.segments`), and
each run is measured as it is drawn: shaped by HarfBuzz where shaping changes it (a
ligature, Arabic joining forms, right to left, marks: `FontBook.shaped`), else its
characters' advances with the font's kerning (`FontBook.kerned_width`). Line breaking,
fitting and placing only see the widths.

A measured run is `(span, width at 1 pt, font name)`: widths are proportional to the size,
so a text is measured once for every size `fit: shrink` tries. An icon's width depends on
the text style (`TextStyle.icon_scale`), not on a font: it is measured as None.
"""
from __future__ import annotations

from cardgen.resources import shaping
from cardgen.resources.fonts import FontBook
from cardgen.resources.weights import style_of
from cardgen.text.markup import Frag

MeasuredRun = tuple[Frag, float | None, str]   # span, width at 1 pt (icons: None), font name ("" for icons)
Measured = list[MeasuredRun]                   # one word's runs


def merge_style(base: str, frag: Frag) -> str:
    """The font style of a span set in a text whose own style is `base` (a span's `weight`
    and `style` set it over both: `w800` for ExtraBold; `**bold**` inside a span still makes
    it bold)."""
    bold = frag.bold or "bold" in base
    italic = frag.italic or "italic" in base
    span = frag.span
    if span is not None:
        if span.italic is not None:
            italic = frag.italic or span.italic
        if span.weight is not None:     # the family's file of that weight, or the nearest (`resources.weights`)
            return style_of(max(span.weight, 700) if frag.bold else span.weight, italic)
    return ("bold" if bold else "") + ("italic" if italic else "") or "regular"


def scaled(frag: Frag, base: float) -> tuple[float, float]:
    """A span's size and letter spacing in sizes of its text (set at `base` points)."""
    span = frag.span
    return (1.0, 0.0) if span is None else (span.scale(base), span.spacing(base))


def measure(fonts: FontBook, frag: Frag, family: str | None, base_style: str,
            feats: tuple[str, ...] | None = None) -> Measured:
    """One span as runs by font (what the text's font lacks comes from a fallback font),
    each with its width at 1 pt. `feats`: the OpenType features frozen into the fonts
    (`cardgen.resources.features`; None: the default ones, lining figures)."""
    return measure_word(fonts, [frag], family, base_style, feats)


def measure_word(fonts: FontBook, word: list[Frag], family: str | None, base_style: str,
                 feats: tuple[str, ...] | None = None, base: float = 9.0) -> Measured:
    """A word's spans measured (`measure`), in order: one call a word, as a text has many.
    A span's size and letter spacing (`cardgen.core.spans`) are in its width, as a scale of
    the text's size (`base` points)."""
    out: Measured = []
    for f in word:
        if f.kind == "icon":
            out.append((f, None, ""))
            continue
        scale, spacing = scaled(f, base)
        font = f.span.font if f.span is not None and f.span.font else family
        for whole, font_name in fonts.split(f.value, font, merge_style(base_style, f), feats):
            for part in shaping.segments(whole):        # (cut where the direction changes)
                piece = f if part == f.value else Frag("text", part, f.bold, f.italic, f.span)
                width = fonts.run_width(part, font_name, 1.0) * scale + spacing * glyphs(fonts, part, font_name)
                out.append((piece, width, font_name))
    return out


def glyphs(fonts: FontBook, text: str, font_name: str) -> int:
    """How many glyphs `text` is drawn with (letter spacing goes after each)."""
    shaped = fonts.shaped(text, font_name) if text else None
    return len(text) if shaped is None else len(shaped.glyphs)


def space_width(fonts: FontBook, family: str | None, style: str, size: float,
                feats: tuple[str, ...] | None = None) -> float:
    """The width of a space between words at `size`."""
    return fonts.width(" ", fonts.face(family, style, feats).name, size)
