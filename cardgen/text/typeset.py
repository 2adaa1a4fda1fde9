"""Setting text: measured words broken into lines, fitted, aligned and placed as runs.

`Typesetter.set` sets text in a box (a card's text element): the size that fits (`fit:
shrink`), the lines aligned in the box, an overflow reported. `Typesetter.set_lines` sets
text at its size for a flow (a booklet's paragraph, a player aid's item): the lines are
placed one below the other from the top and kept apart, so that `cardgen.text.flow` can
split them across frames and pages. Both go through the same steps, in this order:

    measure (`cardgen.text.measure`: the only step that knows fonts and glyphs)
    -> break into lines at a size (`_lines`: greedy, at the spaces and forced breaks)
    -> choose the size (`_fits`: the largest on a 0.1 pt grid, for `fit: shrink`)
    -> place (`_place`: alignment, justification, each run's position and baseline).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from math import copysign
from pathlib import Path

from cardgen.core.memo import Bounded
from cardgen.model.ops import Run, new_run
from cardgen.resources.fonts import FontBook
from cardgen.text import bidi, breaks
from cardgen.text.markup import BREAK, Frag, Paragraph, Styles, _Break, is_plain, parse
from cardgen.text.measure import Measured, glyphs, measure_word, scaled, space_width
from cardgen.text.pseudo import pseudo
from cardgen.text.punctuation import punctuate

Piece = tuple[Frag, float, str, float]          # span, width, font name ("" for icons), size
LineItem = tuple[list[Piece], float, int]       # a word's part: pieces, width, join (0: a space before it; HARD, SOFT)
Line = tuple[list[LineItem], float, bool]       # parts, width, ends its paragraph
Parts = list[tuple[Measured, int]]              # a word measured, in the parts it may break between
# a text as `Typesetter.set_text` keeps it: runs, size, overflow, block, span problems, faces
# asked (None: not recorded), icons asked and the colour it was set in
_SetText = tuple[tuple[Run, ...], float, bool, tuple[float, float], tuple[str, ...], tuple | None, tuple[str, ...],
                 tuple | None]
_SLACK = 0.01                                   # points: what counts as fitting exactly
# a line this full (of its measure) is not hyphenated: the next word goes to the next line whole;
# centred and right-aligned text only where a word is wider than the measure
_HYPHENATE_BELOW = {"justify": 0.92, "center": 0.0, "right": 0.0, "end": 0.0}
_HYPHENATE_BELOW_DEFAULT = 0.8
# `start` and `end` by the paragraph's direction (0: left to right, 1: right to left)
_ALIGN = {("start", 0): "left", ("start", 1): "right", ("end", 0): "right", ("end", 1): "left"}


@dataclass
class TextStyle:
    """How a text is set: its font (family and base style; spans add bold and italic), size
    (points), line height and paragraph gap (in sizes), colour, alignment in its column and
    (in a box) vertically, and the height of its inline icons."""

    family: str | None = None
    style: str = "regular"        # base style: regular, bold, italic, bolditalic
    size: float = 9.0
    leading: float = 1.2
    color: tuple | None = (0, 0, 0, 1)
    align: str = "left"           # left, center, right, justify; start, end (by the direction)
    valign: str = "top"           # top, middle, bottom
    icon_scale: float = 1.0       # inline icon height in font sizes
    paragraph_gap: float = 0.45   # extra space between paragraphs, in font sizes
    # OpenType features frozen into the fonts (`cardgen.resources.features.effective`); None: the defaults
    features: tuple[str, ...] | None = None
    # the paragraphs' direction: `auto` (their first strong letter's: Hebrew and Arabic are
    # right to left), `ltr` or `rtl` (`cardgen.text.bidi`)
    direction: str = "auto"
    # each paragraph's own attributes (`Para`, from the spans it starts in), filled in when set
    paras: tuple[Para, ...] = ()


@dataclass(frozen=True)
class Para:
    """A paragraph's own setting, from the paragraph attributes of the span it starts in
    (`cardgen.core.spans`): alignment, space before and after, first-line indent (in sizes of
    the text) and line height; None: the text's."""

    align: str | None = None
    before: float = 0.0
    after: float = 0.0
    indent: float = 0.0
    leading: float | None = None


_PLAIN = Para()


def _paras(paragraphs: list[Paragraph], st: TextStyle) -> TextStyle:
    """`st` with each paragraph's `Para`: the paragraph attributes of its first span."""
    out = []
    for para in paragraphs:
        first = next((item[0] for item in para if item is not BREAK and item), None)
        span = first.span if isinstance(first, Frag) else None
        if span is None or (span.align is None and span.leading is None and span.space_before is None
                            and span.space_after is None and span.indent is None):
            out.append(_PLAIN)
            continue
        out.append(Para(span.align, span.ems("space_before", st.size), span.ems("space_after", st.size),
                        span.ems("indent", st.size), span.leading))
    return replace(st, paras=tuple(out)) if any(p is not _PLAIN for p in out) else st


def _para(st: TextStyle, k: int) -> Para:
    return st.paras[k] if k < len(st.paras) else _PLAIN


def _between_wide(items: list[LineItem]) -> frozenset[int]:
    """The parts of a line that join the part before them between two characters of Chinese or
    Japanese (`breaks.wide`): where a justified line is spread, as between its words."""
    out = []
    for k in range(1, len(items)):
        if items[k][2] != breaks.HARD:
            continue
        before, after = items[k - 1][0][-1][0], items[k][0][0][0]
        if before.kind == "text" and after.kind == "text" and (breaks.wide(before.value[-1:])
                                                               or breaks.wide(after.value[:1])):
            out.append(k)
    return frozenset(out)


@dataclass(slots=True)
class SetLine:
    """One line as set: its runs (page positions), its baseline, its width and whether it ends
    its paragraph. A line holding only a forced break has no runs."""

    runs: list[Run]
    baseline: float
    width: float
    para_end: bool


@dataclass(frozen=True)
class SetText:
    """Text set at one size for a flow: its lines (the first one's top at 0) and what a flow
    needs to cut them apart: the size, the line height (`leading`, in sizes) and the font's
    ascent and descent (in sizes)."""

    lines: list[SetLine]
    size: float
    leading: float
    ascent: float
    descent: float
    too_wide: bool                # a word is wider than the measure


class Typesetter:
    """Breaks parsed text into positioned runs, in a box or for a flow."""

    def __init__(self, fonts: FontBook, icon_path: Callable[[str], Path]):
        self.fonts = fonts
        self.icon_path = icon_path    # name -> Path (raises on unknown)
        # typographer's punctuation (`cardgen.text.punctuation`) on cards and in the booklet:
        # game.yaml `smart_punctuation`
        self.punctuation = True
        # the named span styles, game.yaml `styles:` (`cardgen.text.markup.parse`)
        self.styles: Styles = {}
        # when a dict: what is wrong with the spans of an output's own text (the rulebook), each
        # with the tag it is about, for the output to warn at its place
        self.span_problems: dict[str, str] | None = None
        # pyphen's dictionary of the game's language (`breaks.dictionary`), or None: no
        # hyphenation (a word still breaks after a hyphen or a dash)
        self.hyphenator: object | None = None
        # when a dict: every character set that no font has, by the font it is set in (an
        # output that sets text of its own, the rulebook, collects them to warn; cards are
        # checked by the layout)
        self.lacking: dict[str, str] | None = None
        # the pseudo-locale (`--lang qps`): every text stretched and accented (`text.pseudo`)
        self.pseudo = False
        # words measured (`_word`): (word, family, style, features, size) -> (parts, faces asked);
        # at most 4,096 (about 4 MB: a 10,000-card game's card names are words of their own)
        self._words: Bounded[tuple, tuple[Parts, tuple]] = Bounded(4096)
        self._words_of: tuple[FontBook, object | None] | None = None
        # a run's `glyphs` (`_glyphs`) by its text and font, while the fonts stay (at most 4,096,
        # then forgotten at once): a word's run asked its shaping again on every card
        self._extras: dict[tuple[str, str], str] = {}
        # texts set in a box (`set_text`): (text, style, box, fit) -> (runs, size, overflow, block,
        # span problems, faces asked, icons asked); at most 4,096 runs held (under 1 MB), the
        # texts used last kept: a card's type line, or a rule many cards repeat, set once
        self._texts: Bounded[tuple, _SetText] = Bounded(1024, 4096, lambda v: len(v[0]) + 1)
        self._texts_of: tuple = ()

    def _note_lacking(self, measured: Measured) -> None:
        """Remember the characters of a measured word that no font has (`lacking`)."""
        assert self.lacking is not None
        for piece, unit, font_name in measured:
            if unit is None:
                continue
            gone = self.fonts.missing(str(piece.value), font_name)
            if gone:
                had = self.lacking.get(font_name, "")
                self.lacking[font_name] = had + "".join(ch for ch in gone if ch not in had)

    def _measure(self, paragraphs: list[Paragraph], st: TextStyle) -> list[list[Parts | _Break]]:
        """Every word's runs with their width at 1 pt (an icon's: None), in the parts it may
        break between (`breaks.parts`), measured once for all the sizes `fit: shrink` tries:
        widths are proportional to the size."""
        out: list[list[Parts | _Break]] = []
        for para in paragraphs:
            items: list[Parts | _Break] = []
            for item in para:
                if item is BREAK:
                    items.append(BREAK)
                    continue
                word = self._word(item, st)
                if self.lacking is not None:
                    for measured, _ in word:
                        self._note_lacking(measured)
                items.append(word)
            out.append(items)
        return out

    def _word(self, item: list[Frag], st: TextStyle) -> Parts:
        """One word measured in its parts (`_measure`), once per word, style and size while
        the fonts and the hyphenation stay (most words of a game's cards recur: measuring one
        split it by font, cut it by direction and looked up its shaping, about 10 µs). The
        faces measuring it asked for are asked again (`FontBook.uses`, in order: what a
        cached side depends on), the answer is shared and never changed."""
        fonts = self.fonts
        if self._words_of != (fonts, self.hyphenator):
            self._words.clear()
            self._extras.clear()
            self._words_of = (fonts, self.hyphenator)
        key = (tuple(item), st.family, st.style, st.features, st.size)
        hit = self._words.get(key)
        if hit is not None:
            if fonts.uses is not None:
                fonts.uses.update(hit[1])
            return hit[0]
        uses, fonts.uses = fonts.uses, {}
        try:
            word: Parts = [(measure_word(fonts, part, st.family, st.style, st.features, st.size), join)
                           for part, join in breaks.parts(item, self.hyphenator)]
            if len(word) > 1:
                word = self._joined(word)
        finally:
            asked, fonts.uses = fonts.uses, uses
        if uses is not None:
            uses.update(asked)
        self._words[key] = (word, tuple(asked.items()))
        return word

    def _joined(self, word: Parts) -> Parts:
        """A word's parts with the kerning between them (the pair at each place it may break)
        added to the part before: unbroken, they measure as the whole word kerned."""
        out: Parts = []
        for k, (measured, join) in enumerate(word):
            if k + 1 < len(word) and measured and word[k + 1][0]:
                (f, unit, font), (g, _, font2) = measured[-1], word[k + 1][0][0]
                if unit is not None and font == font2 and f.value and g.value:
                    kern = sum(v for _, v in self.fonts.kerns(f.value[-1] + g.value[0], font))
                    if kern:
                        measured = [*measured[:-1], (f, unit + kern * 0.001, font)]
            out.append((measured, join))
        return out

    @staticmethod
    def _sized(pieces: Measured, st: TextStyle, size: float) -> tuple[list[Piece], float]:
        """One word's pieces at `size`: (fragment, width, font name, size) and the word's width."""
        out: list[Piece] = []
        total = 0.0
        for f, unit, name in pieces:
            span = f.span
            scale = 1.0 if span is None else span.scale(st.size)      # (`scaled`)
            if unit is None:
                h = size * st.icon_scale * scale
                w = h + size * scale * 0.08
                out.append((f, w, "", h))
            else:
                w = unit * size
                out.append((f, w, name, size * scale))
            total += w
        return out, total

    def _lines(self, measured: list[list[Parts | _Break]], st: TextStyle, size: float,
               width: float, widows: bool = False, wide: bool = True) -> tuple[list[Line], bool, float]:
        """Greedy line breaking at the spaces, after hyphens and dashes, and at hyphenation
        points where a line would otherwise be left short (`_fit_parts`). With `widows`, a
        paragraph's last line holding a single word takes the word before it along when that
        fits (`_no_widow`). With `wide` false, a word wider than the measure is not hyphenated
        (`fit: shrink` makes it smaller first). Returns (lines, too_wide, space); a line is
        (items, width, para_end)."""
        lines: list[Line] = []
        too_wide = False
        space = space_width(self.fonts, st.family, st.style, size, st.features)
        for k, para in enumerate(measured):
            first = len(lines)
            wrapped: set[int] = set()       # the lines ended by wrapping (not by a forced break)
            cur: list[LineItem] = []
            cur_w = _para(st, k).indent * size        # (a line's width includes its indent)
            for item in para:
                if item is BREAK:
                    lines.append((cur, cur_w, False))
                    cur, cur_w = [], 0.0
                    continue
                cur, cur_w, over = self._fit_parts(item, cur, cur_w, lines, wrapped, st, size, width, space, wide)
                too_wide = too_wide or over
            lines.append((cur, cur_w, True))
            if widows and len(lines) - first >= 2 and len(lines) - 2 in wrapped:
                self._no_widow(lines, width, space)
        return lines, too_wide, space

    def _fit_parts(self, item: Parts, cur: list[LineItem], cur_w: float, lines: list[Line], wrapped: set[int],
                   st: TextStyle, size: float, width: float, space: float,
                   wide: bool = True) -> tuple[list[LineItem], float, bool]:
        """One word added to the line being filled (`cur`, `cur_w` wide), lines ended into
        `lines` as it needs; returns the line being filled then and whether a part of the
        word is wider than the measure."""
        if len(item) == 1:          # (most words: one part, and it fits)
            measured, join = item[0]
            pieces, w = self._sized(measured, st, size)
            lead = space if cur and join == 0 else 0.0
            if cur_w + lead + w <= width + _SLACK:
                cur.append((pieces, w, join))
                return cur, cur_w + (lead + w), False
            parts: list[LineItem] = [(pieces, w, join)]
        else:
            parts = []
            for measured, join in item:
                pieces, w = self._sized(measured, st, size)
                parts.append((pieces, w, join))
        return self._fit_sized(parts, cur, cur_w, lines, wrapped, st, width, space, wide)

    def _fit_sized(self, parts: list[LineItem], cur: list[LineItem], cur_w: float, lines: list[Line],
                   wrapped: set[int], st: TextStyle, width: float, space: float,
                   wide: bool) -> tuple[list[LineItem], float, bool]:
        """`_fit_parts` of a word's parts sized: the general way, broken across lines as it needs."""
        too_wide = False
        while parts:
            lead = space if cur and parts[0][2] == 0 else 0.0
            if cur_w + lead + sum(p[1] for p in parts) <= width + _SLACK:
                for p in parts:
                    cur_w += (space if cur and p[2] == 0 else 0.0) + p[1]
                    cur.append(p)
                break
            short = cur_w < _HYPHENATE_BELOW.get(st.align, _HYPHENATE_BELOW_DEFAULT) * width
            k, last = self._split(parts, cur_w + lead, width, allow_soft=(wide and not cur) or (bool(cur) and short))
            if k:
                for n, p in enumerate(parts[:k]):
                    p = last if n == k - 1 else p
                    cur_w += (space if cur and p[2] == 0 else 0.0) + p[1]
                    cur.append(p)
                parts = parts[k:]
            elif not cur:        # it breaks nowhere that fits a line: whole, too wide
                cur, cur_w = list(parts), sum(p[1] for p in parts)
                too_wide = True
                break
            wrapped.add(len(lines))
            lines.append((cur, cur_w, False))
            cur, cur_w = [], 0.0
        return cur, cur_w, too_wide

    def _split(self, parts: list[LineItem], at: float, width: float,
               allow_soft: bool) -> tuple[int, LineItem]:
        """How many of a word's parts fit from `at` on a line `width` wide, broken after the
        last of them (with a hyphen at a SOFT join), and that last part as it is then set."""
        best: tuple[int, LineItem] = (0, parts[0])
        for k in range(1, len(parts)):
            at += parts[k - 1][1]
            if at > width + _SLACK:
                break
            soft = parts[k][2] == breaks.SOFT
            if soft and not allow_soft:
                continue
            last = self._broken(parts[k - 1], soft)
            if last is not None and at - parts[k - 1][1] + last[1] <= width + _SLACK:
                best = (k, last)
        return best

    def _broken(self, part: LineItem, hyphen: bool) -> LineItem | None:
        """A part that ends a line: its last piece measured again on its own (without the
        kerning to the part after it), with a hyphen at a hyphenation point; None where a
        hyphen cannot be added (the part ends with an icon)."""
        pieces, w, join = part
        f, pw, font, size = pieces[-1]
        if not font:
            return None if hyphen else part
        value = f.value + ("-" if hyphen else "")
        spacing = (pw - self.fonts.run_width(f.value, font, size)) / glyphs(self.fonts, f.value, font) \
            if f.span is not None and f.span.tracking and f.value else 0.0      # letter spacing, a glyph
        nw = self.fonts.run_width(value, font, size) + spacing * glyphs(self.fonts, value, font)
        return ([*pieces[:-1], (Frag("text", value, f.bold, f.italic, f.span) if hyphen else f, nw, font, size)],
                w - pw + nw, join)

    @staticmethod
    def _no_widow(lines: list[Line], width: float, space: float) -> None:
        """A paragraph's last line holding one word, after a line of three or more: the
        previous line's last word moves down to it, if it fits there."""
        prev, prev_w, prev_end = lines[-2]
        last, last_w, last_end = lines[-1]
        if not last or last[0][2] != 0 or any(p[2] == 0 for p in last[1:]):
            return
        starts = [i for i, p in enumerate(prev) if p[2] == 0 or i == 0]
        if len(starts) < 3:
            return
        moved = prev[starts[-1]:]
        moved_w = sum(p[1] for p in moved)
        if moved_w + space + last_w > width + _SLACK:
            return
        lines[-2] = (prev[:starts[-1]], prev_w - space - moved_w, prev_end)
        lines[-1] = ([*moved, *last], moved_w + space + last_w, last_end)

    @staticmethod
    def _scale(line: Line, size: float) -> float:
        """How much taller than the text's size a line is set: its largest span's size over
        the text's (a line of smaller spans keeps the text's line height)."""
        best = 1.0
        for pieces, _w, _join in line[0]:
            for p in pieces:
                if p[2] and p[3] > size:        # (a piece no larger than the text's: at most 1.0)
                    best = max(best, p[3] / size)
        return best

    def _height(self, lines: list[Line], st: TextStyle, size: float, asc: float, desc: float) -> float:
        if not lines:
            return 0.0
        steps = self._steps(lines, st)
        scales = [self._scale(ln, size) for ln in lines]
        return (asc * scales[0] + sum(lead * sc + gap for (lead, gap, _), sc in zip(steps[1:], scales[1:], strict=True))
                + desc * scales[-1]) * size

    @staticmethod
    def _steps(lines: list[Line], st: TextStyle) -> list[tuple[float, float, Para]]:
        """Each line's line height and the space above it besides (a gap between paragraphs, their
        space after and before), in sizes, and its paragraph's `Para`."""
        out = []
        k, gap = 0, 0.0
        for ln in lines:
            para = _para(st, k)
            out.append((st.leading if para.leading is None else para.leading, gap, para))
            gap = 0.0
            if ln[2]:
                k += 1
                gap = st.paragraph_gap + para.after + _para(st, k).before
        return out

    def fits(self, paragraphs: list[Paragraph], st: TextStyle, size: float, w: float, h: float) -> bool:
        st = _paras(paragraphs, st)
        return self._fits(self._measure(paragraphs, st), st, size, w, h, {})

    def _fits(self, measured: list[list[Parts | _Break]], st: TextStyle, size: float, w: float, h: float,
              tried: dict[float, tuple[list[Line], bool, float]], wide: bool = True) -> bool:
        face = self.fonts.face(st.family, st.style, st.features)
        lines, too_wide, _ = tried[size] = self._lines(measured, st, size, w, True, wide)
        return not too_wide and self._height(lines, st, size, face.ascent, face.descent) <= h + _SLACK

    def _place(self, lines: list[Line], st: TextStyle, size: float, space: float, ascent: float,
               x: float, w: float, top: float, runs: list[Run]) -> list[tuple[int, float, float, bool]]:
        """The lines' runs placed, appended to `runs`: the first line's top at `top`, each line
        aligned in (x, w). A line holding right-to-left text, or in a right-to-left
        paragraph, has its runs in visual order (`_visual`). Returns each line's (index of its
        first run, baseline, width, ends its paragraph)."""
        baseline = top + ascent * size * (self._scale(lines[0], size) if lines else 1.0)
        out: list[tuple[int, float, float, bool]] = []
        # (a text all in ASCII, not set right to left: every line left to right, none in visual order)
        ascii_only = st.direction != "rtl" and all(p[0].value.isascii() for ln in lines for pieces, *_ in ln[0]
                                                   for p in pieces if p[2])
        bases = [0] * len(lines) if ascii_only else self._directions(lines, st)
        starts = True                   # the line starts a paragraph (is indented)
        for n, ((items, line_w, para_end), (lead, gap, para)) in enumerate(zip(lines, self._steps(lines, st),
                                                                              strict=True)):
            if n:
                baseline += (lead * self._scale(lines[n], size) + gap) * size
            out.append((len(runs), baseline, line_w, para_end))
            extra = 0.0
            gaps = sum(1 for p in items[1:] if p[2] == 0)
            align = para.align or st.align
            align = _ALIGN.get((align, bases[n]), align)
            visual = not ascii_only and (bases[n] or any(not p[0].value.isascii() and bidi.kind(p[0].value) == "R"
                                                         for pieces, *_ in items for p in pieces if p[2]))
            loose = frozenset() if visual or align != "justify" or para_end else _between_wide(items)
            if align == "center":
                cx = x + (w - line_w) / 2
            elif align == "right" or (align == "justify" and bases[n] and (para_end or not gaps)):
                cx = x + w - line_w
            else:
                cx = x
                if align == "justify" and not para_end and (gaps or loose):
                    extra = (w - line_w) / (gaps + len(loose))
            if starts and not bases[n]:          # (a right-to-left line's indent is at its right)
                cx += para.indent * size
            starts = para_end
            if visual:
                self._visual(items, st, size, space + extra, bases[n], cx, baseline, runs)
            else:
                self._forward(items, st, size, space + extra, cx, baseline, runs, loose, extra)
        return out

    @staticmethod
    def _look(frag: Frag, st: TextStyle, size: float) -> tuple[tuple | None, float]:
        """A text piece's run's colour and letter spacing (as `_run` sets them)."""
        span = frag.span
        if span is None:
            return st.color, 0.0
        return (span.color if span.color is not None else st.color), span.spacing(st.size) * size

    def _run(self, frag: Frag, pw: float, font_name: str, fsize: float, cx: float, baseline: float,
             st: TextStyle, size: float) -> Run:
        """One piece of a line placed at `cx`: text, or an icon."""
        span = frag.span
        color = span.color if span is not None and span.color is not None else st.color
        if frag.kind == "icon":
            return new_run(cx + size * 0.04, baseline, "icon", self.icon_path(frag.value), "", fsize, color, fsize)
        return new_run(cx, baseline, "text", frag.value, font_name, fsize, color, pw, scaled(frag, st.size)[1] * size,
                   self._glyphs(frag.value, font_name))

    def _glyphs(self, text: str, font_name: str) -> str:
        """`Run.glyphs` of a run: the codes of its shaped glyphs that no character draws (kept by
        text and font: `_extras`, cleared with the words measured when the fonts change)."""
        key = (text, font_name)
        hit = self._extras.get(key)
        if hit is None:
            shaped = self.fonts.shaped(text, font_name)
            hit = shaped.extra if shaped is not None else ""
            if len(self._extras) >= 4096:
                self._extras.clear()
            self._extras[key] = hit
        return hit

    def _forward(self, items: list[LineItem], st: TextStyle, size: float, gap: float, cx: float,
                 baseline: float, runs: list[Run], loose: frozenset[int] = frozenset(), spread: float = 0.0) -> None:
        """A left-to-right line's runs placed from `cx`, in order (`gap`: between words; `spread`
        more before each part in `loose`: a justified line of Chinese or Japanese)."""
        line_start = len(runs)
        for wi, (pieces, _ww, join) in enumerate(items):
            if wi and join == 0:
                cx += gap
            elif wi in loose:
                cx += spread
            for pi, (frag, pw, font_name, fsize) in enumerate(pieces):
                last = runs[-1] if wi and join and not pi and len(runs) > line_start and wi not in loose else None
                if last is not None and last.kind == "text" and frag.kind == "text" \
                        and (last.font, last.size, last.color, last.tracking) == \
                        (font_name, fsize, *self._look(frag, st, size)):
                    # a word's parts on one line are one run, as the word measured whole (the
                    # run `_run` would make, joined to the last: no Run made for the part alone)
                    text = str(last.content) + frag.value
                    runs[-1] = new_run(last.x, last.baseline, "text", text, last.font, last.size, last.color,
                                   last.width + pw, last.tracking, self._glyphs(text, last.font))
                else:
                    runs.append(self._run(frag, pw, font_name, fsize, cx, baseline, st, size))
                cx += pw

    def _visual(self, items: list[LineItem], st: TextStyle, size: float, gap: float, base: int, cx: float,
                baseline: float, runs: list[Run]) -> None:
        """A line's runs placed from `cx` in visual order (`cardgen.text.bidi`): a word's
        parts joined first (a right-to-left word is shaped whole), the spaces between words
        as neutral runs."""
        atoms: list[tuple[Frag | None, float, str, float]] = []     # (piece or None for a space, width, font, size)
        for wi, (pieces, _ww, join) in enumerate(items):
            if wi and join == 0:
                atoms.append((None, gap, "", 0.0))
            for pi, (frag, pw, font_name, fsize) in enumerate(pieces):
                prev = atoms[-1][0] if atoms else None
                if wi and join and not pi and prev is not None and prev.kind == "text" and frag.kind == "text" \
                        and (prev.span, prev.bold, prev.italic, atoms[-1][2], atoms[-1][3]) == \
                        (frag.span, frag.bold, frag.italic, font_name, fsize):
                    atoms[-1] = (Frag("text", prev.value + frag.value, frag.bold, frag.italic, frag.span),
                                 atoms[-1][1] + pw, font_name, fsize)
                else:
                    atoms.append((frag, pw, font_name, fsize))
        atoms = [part for atom in atoms for part in self._unwrapped(atom)]
        kinds = ["" if f is None or f.kind == "icon" else bidi.kind(f.value) for f, *_ in atoms]
        lv = bidi.levels(kinds, base)
        for k in bidi.visual_order(lv):
            atom, pw, font_name, fsize = atoms[k]
            if atom is not None:
                if lv[k] % 2 and not kinds[k] and atom.kind == "text":     # neutral, right to left: as drawn
                    atom = Frag("text", bidi.mirrored(atom.value), atom.bold, atom.italic, atom.span)
                runs.append(self._run(atom, pw, font_name, fsize, cx, baseline, st, size))
            cx += pw

    def _unwrapped(self, atom: tuple[Frag | None, float, str, float]) -> list[tuple[Frag | None, float, str, float]]:
        """A run with punctuation before or after its letters and digits (`(2).`, `שלום.`) as
        up to three runs, so that the punctuation goes where the bidirectional rules put it;
        each part's width its share of the run's."""
        frag, pw, font_name, fsize = atom
        if frag is None or frag.kind != "text":
            return [atom]
        parts = bidi.unwrap(frag.value)
        if len(parts) == 1:
            return [atom]
        widths = [self.fonts.run_width(p, font_name, fsize) for p in parts]
        total = sum(widths) or 1.0
        return [(Frag("text", p, frag.bold, frag.italic, frag.span), pw * w / total, font_name, fsize)
                for p, w in zip(parts, widths, strict=True)]

    def _directions(self, lines: list[Line], st: TextStyle) -> list[int]:
        """Each line's paragraph direction (`bidi.paragraph_level`): 0 left to right, 1 right
        to left."""
        out: list[int] = []
        for k, line in enumerate(lines):
            if line[2] or k == len(lines) - 1:
                para = lines[len(out):k + 1]
                texts = (str(p[0].value) for ln in para for pieces, *_ in ln[0] for p in pieces if p[2])
                out += [bidi.paragraph_level(texts, st.direction)] * len(para)
        return out

    def set_text(self, text: str, st: TextStyle, x: float, y: float, w: float, h: float, fit: str = "none",
                 min_size: float | None = None, wrap: bool = True, problems: list[str] | None = None
                 ) -> tuple[list[Run], float, bool, tuple[float, float]]:
        """A card's text (markup, `parse`) set in the box: `set_block`; what is wrong with its
        spans added to `problems` (before it is set). Kept per text, style and box while the
        fonts and settings stay (a type line is the same on many cards; one without markup but
        icons in whatever colour, as each of its runs takes the text's): a text set again asks
        the faces (`FontBook.uses`) and icons (`icon_path`) that setting it asked, in order, and
        gives the same runs (the faces are recorded only where `uses` is: a text kept without
        them is set again where they are)."""
        told: list[str] = [] if problems is None else problems
        if self.lacking is not None:
            return self._set_text(text, st, x, y, w, h, fit, min_size, wrap, told)
        of = (self.fonts, self.hyphenator, self.styles, self.punctuation, self.pseudo, self.icon_path)
        if self._texts_of != of:
            self._texts.clear()
            self._texts_of = of
        # (a text without markup but icons is set alike in any colour, each run in the text's: kept
        # without it, and its runs given the colour asked for when it is another; a text with markup
        # is kept with its colour, and set again in an equal one of other numbers' types or signs)
        colour = st.color
        plain = is_plain(text)
        key = (text, st.family, st.style, st.size, st.leading, None if plain else st.color, st.align, st.valign,
               st.icon_scale, st.paragraph_gap, st.features, st.direction, st.paras, x, y, w, h, fit, min_size,
               wrap, () if x and y and w and h else tuple(copysign(1.0, v) for v in (x, y, w, h) if not v))
        # (-0.0 and 0.0 are equal keys: their signs told apart)
        hit = self._texts.get(key)
        uses = self.fonts.uses
        if hit is not None and (uses is None or hit[5] is not None) and \
                (plain or hit[7] is colour or repr(hit[7]) == repr(colour)):
            self._texts[key] = hit      # (used last: kept longest)
            runs, size, overflow, block, said, faces, icons, was = hit
            told.extend(said)
            if uses is not None and faces:
                uses.update(faces)
            for name in icons:
                self.icon_path(name)
            if plain and was is not colour:
                return [new_run(r.x, r.baseline, r.kind, r.content, r.font, r.size, colour, r.width, r.tracking,
                                r.glyphs) for r in runs], size, overflow, block
            return list(runs), size, overflow, block
        start = len(told)
        if uses is not None:
            self.fonts.uses = {}
        path_of, asked = self.icon_path, []

        def icon(name: str) -> Path:
            found = path_of(name)
            asked.append(name)
            return found

        self.icon_path = icon
        try:
            out = self._set_text(text, st, x, y, w, h, fit, min_size, wrap, told)
        finally:
            self.icon_path, used, self.fonts.uses = path_of, self.fonts.uses, uses
            if uses is not None and used is not None:
                uses.update(used)
        self._texts[key] = (tuple(out[0]), *out[1:], tuple(told[start:]),
                            None if used is None else tuple(used.items()), tuple(asked), colour)
        return out

    def _set_text(self, text: str, st: TextStyle, x: float, y: float, w: float, h: float, fit: str,
                  min_size: float | None, wrap: bool, problems: list[str]
                  ) -> tuple[list[Run], float, bool, tuple[float, float]]:
        paragraphs = parse(text, self.styles, problems)
        if self.punctuation:
            paragraphs = punctuate(paragraphs)
        if self.pseudo:
            paragraphs = pseudo(paragraphs)
        return self.set_block(paragraphs, st, x, y, w, h, fit, min_size, wrap)

    def set(self, paragraphs: list[Paragraph], st: TextStyle, x: float, y: float, w: float, h: float,
            fit: str = "none", min_size: float | None = None, wrap: bool = True) -> tuple[list[Run], float, bool]:
        """Lay out text in the box (x, y, w, h); returns (runs, size_used, overflow)."""
        return self.set_block(paragraphs, st, x, y, w, h, fit, min_size, wrap)[:3]

    def set_block(self, paragraphs: list[Paragraph], st: TextStyle, x: float, y: float, w: float, h: float,
                  fit: str = "none", min_size: float | None = None, wrap: bool = True
                  ) -> tuple[list[Run], float, bool, tuple[float, float]]:
        """`set`, and the block of lines as set: (top, height), from the first line's ascent to
        the last one's descent (what an element placed `below:` this one follows)."""
        size = st.size
        st = _paras(paragraphs, st)
        measured = self._measure(paragraphs, st)      # once: every size tried scales it
        tried: dict[float, tuple[list[Line], bool, float]] = {}
        measure_w = w if wrap else 1e9
        if fit == "shrink":
            floor = min_size if min_size is not None else max(6.0, st.size * 0.5)
            # (a word wider than the box is made smaller before it is hyphenated)
            if not self._fits(measured, st, size, measure_w, h, tried, False) and floor < size:
                lo, hi = floor, size   # binary search on a 0.1 pt grid
                if self._fits(measured, st, lo, measure_w, h, tried, False):
                    while hi - lo > 0.1:
                        mid = (lo + hi) / 2
                        if self._fits(measured, st, mid, measure_w, h, tried, False):
                            lo = mid
                        else:
                            hi = mid
                size = round(lo - 0.049, 1) if lo > floor else floor
        face = self.fonts.face(st.family, st.style, st.features)
        hit = tried.get(size)      # the size chosen was laid out while trying it
        lines, too_wide, space = hit if hit is not None else self._lines(measured, st, size, measure_w, True)
        if too_wide and hit is not None:        # still too wide at the smallest size: hyphenated
            lines, too_wide, space = self._lines(measured, st, size, measure_w, True)
        total = self._height(lines, st, size, face.ascent, face.descent)
        overflow = too_wide or total > h + _SLACK or (not wrap and any(ln[1] > w + _SLACK for ln in lines))
        top = y + {"top": 0.0, "middle": (h - total) / 2, "bottom": h - total}.get(st.valign, 0.0)
        runs: list[Run] = []
        self._place(lines, st, size, space, face.ascent, x, w, top, runs)
        return runs, size, overflow, (top, total)

    def natural_width(self, paragraphs: list[Paragraph], st: TextStyle) -> float:
        """How wide the text is set at its size with no line broken but at its forced breaks:
        its widest line."""
        st = _paras(paragraphs, st)
        lines, _, _ = self._lines(self._measure(paragraphs, st), st, st.size, float("inf"))
        return max((ln[1] for ln in lines), default=0.0)

    def set_lines(self, paragraphs: list[Paragraph], st: TextStyle, x: float, w: float) -> SetText:
        """Text set at its size in a column `w` wide from `x`, for a flow: the lines from the top
        (0) down, as `set` would place them in a box as tall as they are."""
        face = self.fonts.face(st.family, st.style, st.features)
        st = _paras(paragraphs, st)
        lines, too_wide, space = self._lines(self._measure(paragraphs, st), st, st.size, w)
        runs: list[Run] = []
        placed = self._place(lines, st, st.size, space, face.ascent, x, w, 0.0, runs)
        ends = [at for at, *_ in placed[1:]] + [len(runs)]
        return SetText([SetLine(runs[at:end], baseline, line_w, para_end)
                        for (at, baseline, line_w, para_end), end in zip(placed, ends, strict=True)],
                       st.size, st.leading, face.ascent, face.descent, too_wide)
