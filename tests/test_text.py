"""The text engine's own contract (`cardgen.text`): line breaking, fitting, alignment, and a
flow split across frames that goes on exactly where it stopped. Widths are the fonts' own
(the bundled Lato), read back from the runs the engine places."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardgen.core.data import DATA
from cardgen.resources.fonts import FontBook
from cardgen.text.flow import Strip, flow, keep_lines, strips
from cardgen.text.markup import parse
from cardgen.text.typeset import TextStyle, Typesetter

FONTS = FontBook([DATA / "fonts"])
WORDS = ("The quick brown fox jumps over the lazy dog while seven wizards quietly hex "
         "a jovial bishop near the old mill and every player draws two cards at dawn")


def _no_icon(name: str) -> Path:
    raise AssertionError(f"no icon expected, got {name}")


TS = Typesetter(FONTS, _no_icon)
ST = TextStyle("Lato", "regular", 10.0, 1.2)


def _words(runs) -> list[str]:
    return [r.content for r in runs]


def _space(st: TextStyle = ST) -> float:
    return FONTS.width(" ", FONTS.face(st.family, st.style).name, st.size)


def _width(word: str, st: TextStyle = ST) -> float:
    """A word's width as the engine measures it: shaped (a ligature) or kerned."""
    return FONTS.run_width(word, FONTS.face(st.family, st.style).name, st.size)


@pytest.mark.parametrize("w", [60.0, 95.0, 150.0])
def test_greedy_line_breaking_fills_each_line_and_never_passes_the_measure(w):
    text = TS.set_lines(parse(WORDS), ST, 10.0, w)
    lines = text.lines
    assert [word for ln in lines for word in _words(ln.runs)] == WORDS.split()
    assert [ln.para_end for ln in lines] == [False] * (len(lines) - 1) + [True]
    for k, ln in enumerate(lines):
        first, last = ln.runs[0], ln.runs[-1]
        assert first.x == 10.0                                       # set left, from x
        assert last.x + last.width - first.x == pytest.approx(ln.width, abs=1e-9)
        assert ln.width <= w + 0.01
        if k + 1 < len(lines):     # the next line's first word did not fit on this one
            assert ln.width + _space() + _width(lines[k + 1].runs[0].content) > w + 0.01
    leading = ST.leading * ST.size
    assert [ln.baseline for ln in lines] == pytest.approx(
        [FONTS.face("Lato", "regular").ascent * ST.size + k * leading for k in range(len(lines))])


def test_forced_breaks_and_paragraphs():
    text = TS.set_lines(parse("one two\nthree\n\nfour"), ST, 0.0, 500.0)
    assert [(_words(ln.runs), ln.para_end) for ln in text.lines] == [
        (["one", "two"], False), (["three"], True), (["four"], True)]
    b = [ln.baseline for ln in text.lines]
    lead, gap = ST.leading * ST.size, ST.paragraph_gap * ST.size
    assert b[1] - b[0] == pytest.approx(lead) and b[2] - b[1] == pytest.approx(lead + gap)


@pytest.mark.parametrize("align", ["left", "center", "right", "justify"])
def test_alignment_in_the_measure(align):
    st = TextStyle("Lato", "regular", 10.0, 1.2, align=align)
    lines = TS.set_lines(parse(WORDS), st, 20.0, 120.0).lines
    for ln in lines[:-1]:
        left, right = ln.runs[0].x - 20.0, 20.0 + 120.0 - (ln.runs[-1].x + ln.runs[-1].width)
        expected = {"left": (0.0, None), "right": (None, 0.0), "justify": (0.0, 0.0),
                    "center": (None, None)}[align]
        if expected[0] is not None:
            assert left == pytest.approx(expected[0], abs=1e-6)
        if expected[1] is not None:
            assert right == pytest.approx(expected[1], abs=1e-6)
        if align == "center":
            assert left == pytest.approx(right, abs=1e-6) and left >= 0
    last = lines[-1]    # a justified paragraph's last line is set left
    if align == "justify":
        assert last.runs[0].x == 20.0 and last.runs[-1].x + last.runs[-1].width < 140.0 - 1


def test_shrink_fits_the_largest_size_on_the_grid_and_reports_what_does_not_fit():
    paras = parse(WORDS)
    runs, size, overflow = TS.set(paras, ST, 0.0, 0.0, 80.0, 40.0, fit="shrink", min_size=4.0)
    assert not overflow and 4.0 <= size < 10.0
    assert size == round(size, 1)
    assert TS.fits(paras, ST, size, 80.0, 40.0)
    assert not TS.fits(paras, ST, round(size + 0.2, 1), 80.0, 40.0)     # a grid step and a half larger
    assert {r.size for r in runs} == {size}
    assert max(r.baseline for r in runs) <= 40.0
    # not even at the smallest size allowed: set at it, and said
    _, size, overflow = TS.set(paras, ST, 0.0, 0.0, 30.0, 8.0, fit="shrink", min_size=5.0)
    assert size == 5.0 and overflow
    # `fit: none` keeps the size and says the text overflows
    _, size, overflow = TS.set(paras, ST, 0.0, 0.0, 80.0, 40.0)
    assert size == 10.0 and overflow


def test_a_word_wider_than_the_measure_overflows():
    _, _, overflow = TS.set(parse("Incomprehensibilities"), ST, 0.0, 0.0, 30.0, 100.0)
    assert overflow
    assert TS.set_lines(parse("Incomprehensibilities"), ST, 0.0, 30.0).too_wide


@pytest.mark.parametrize("valign", ["top", "middle", "bottom"])
def test_a_box_and_a_flow_set_the_same_lines(valign):
    """Cards (`set`, in a box) and booklets (`set_lines`, for a flow) share one engine: the same
    text at the same size breaks into the same lines with the same runs; the box only moves
    them down by its vertical alignment."""
    st = TextStyle("Lato", "regular", 10.0, 1.2, align="justify", valign=valign)
    paras = parse("**Setup.** " + WORDS + "\n\nThen *each* player " + WORDS)
    boxed, _, overflow = TS.set(paras, st, 5.0, 0.0, 110.0, 400.0)
    flowed = [r for ln in TS.set_lines(paras, st, 5.0, 110.0).lines for r in ln.runs]
    assert not overflow and len(boxed) == len(flowed)
    dy = boxed[0].baseline - flowed[0].baseline
    assert (dy == 0.0) == (valign == "top")
    for a, b in zip(boxed, flowed, strict=True):
        assert (a.x, a.content, a.font, a.size, a.width) == (b.x, b.content, b.font, b.size, b.width)
        assert a.baseline - b.baseline == pytest.approx(dy, abs=1e-9)


def _flow_words(frame) -> list[str]:
    return [r.content for _, s in frame for op in s.ops for r in op.runs]


def test_a_paragraph_split_across_two_frames_goes_on_exactly_where_it_stopped():
    text = TS.set_lines(parse(WORDS + " " + WORDS), ST, 0.0, 90.0)
    lines = strips(text, 0.0, 90.0)
    assert len(lines) >= 8
    first_h = sum(s.h for s in lines[:3]) + 0.5      # room for three lines, not four
    frames = flow(keep_lines(lines), [first_h, 1000.0])
    assert len(frames) == 2
    assert [len(f) for f in frames] == [3, len(lines) - 3]
    # the second frame starts at the line after the first frame's last, with nothing lost,
    # repeated or broken again: the same strips, in order, each at the top of where it goes
    assert [s for f in frames for _, s in f] == lines
    assert _flow_words(frames[0]) + _flow_words(frames[1]) == (WORDS + " " + WORDS).split()
    assert frames[1][0][0] == 0.0
    for f, height in zip(frames, (first_h, 1000.0), strict=True):
        y = 0.0
        for top, s in f:
            assert top == pytest.approx(y) and top + s.h <= height + 0.01
            y = top + s.h
    # each strip is one line, as tall as from its line's baseline to the next one's, its runs
    # on one baseline the same distance below every strip's top
    size = text.size
    below_top = text.ascent * size + (text.leading * size - (text.ascent + text.descent) * size) / 2
    for k, (s, ln) in enumerate(zip(lines, text.lines, strict=True)):
        (op,) = s.ops
        assert [r.content for r in op.runs] == [r.content for r in ln.runs]
        assert [r.baseline for r in op.runs] == pytest.approx([below_top] * len(op.runs), abs=1e-3)
        if k + 1 < len(lines):
            assert s.h == pytest.approx(text.lines[k + 1].baseline - ln.baseline, abs=1e-3)


def test_no_line_alone_at_the_foot_or_head_of_a_frame():
    lines = keep_lines(strips(TS.set_lines(parse(WORDS), ST, 0.0, 90.0), 0.0, 90.0))
    n = len(lines)
    assert n >= 4
    one = lines[0].h + 0.5                     # room for the first line only: it would be alone
    frames = flow(lines, [one, 1000.0])
    assert [len(f) for f in frames] == [0, n]   # the paragraph moved to the next frame...
    pre = Strip(1000.0 - sum(s.h for s in lines[:-1]) - 0.5)
    frames = flow([pre, *lines], 1000.0)       # ...and its last line does not go on alone
    assert [len(f) for f in frames] == [n - 1, 2]


def test_frame_heights_go_in_order_and_the_last_repeats():
    lines = strips(TS.set_lines(parse(WORDS * 3), ST, 0.0, 90.0), 0.0, 90.0)
    h = lines[0].h
    frames = flow(lines, [h * 2 + 0.1, h * 1 + 0.1, h * 3 + 0.1])
    sizes = [len(f) for f in frames]
    assert sizes[:3] == [2, 1, 3] and all(k == 3 for k in sizes[3:-1]) and sum(sizes) == len(lines)


def test_natural_width_is_the_widest_line_set_unbroken():
    paras = parse("one **two**\nthree four five\n\nsix")
    bold = TextStyle("Lato", "bold", 10.0, 1.2)
    first = _width("one") + _space() + _width("two", bold)
    second = _width("three") + _space() + _width("four") + _space() + _width("five")
    assert TS.natural_width(paras, ST) == pytest.approx(max(first, second), abs=1e-9)
    assert TS.natural_width(parse(""), ST) == 0.0
    # set in a column exactly that wide, no line breaks but the forced ones
    text = TS.set_lines(paras, ST, 0.0, TS.natural_width(paras, ST))
    assert [_words(ln.runs) for ln in text.lines] == [["one", "two"], ["three", "four", "five"], ["six"]]


def test_a_word_measured_before_asks_for_the_faces_it_asked_for_in_the_same_order():
    """Words are measured once per typesetter (`Typesetter._word`); the faces a layout asks
    for (`FontBook.uses`: what a cached side depends on, in order) are the same whether its
    words were measured before or not, and so are the runs."""
    text = "Fox **bold** 漢 Fox ★ *lean* fox"       # (漢 and ★ from fallback fonts)

    def asked(ts: Typesetter) -> tuple[list, list]:
        ts.fonts.uses = {}
        try:
            runs = ts.set(parse(text), ST, 0, 0, 60, 200)[0]
            return list(ts.fonts.uses), [(r.content, r.font, r.x, r.baseline) for r in runs]
        finally:
            ts.fonts.uses = None

    fresh = Typesetter(FontBook([DATA / "fonts"]), _no_icon)
    first = asked(fresh)
    assert len(first[0]) >= 4 and len(fresh._words) >= 5       # Lato regular, bold, italic and a fallback
    assert asked(fresh) == first                                # every word from the memo
    assert asked(Typesetter(FontBook([DATA / "fonts"]), _no_icon)) == first


def test_icon_names_are_the_icons_parse_makes_whatever_the_text():
    """`icon_names` (searched in every card's text every build, without the tokenizer when the
    text has no escape, tag or span) names the icons `parse` makes, in order: on texts of
    colons, names, stars, spaces, line breaks, and with escapes, tags and spans."""
    import random

    from cardgen.text.markup import _TOKEN, icon_names

    def by_tokens(text):
        return [t[1:-1] for t in _TOKEN.findall(text) if len(t) > 2 and t[0] == ":" and t[-1] == ":"]

    def parsed(text):
        return [f.value for para in parse(text) for item in para if item is not BREAK for f in item if f.kind == "icon"]

    from cardgen.text.markup import BREAK

    rng = random.Random(5)
    pieces = [":", "a", "b_1", "-", "+", "*", "**", " ", "\n", "\n\n", "x:y", ":coins:", "::", "é", "\t"]
    odd = ["\\:", "\\*", "[b]", "[/b]", "[color=#f00]", "<span class='a:b:'>", "</span>", "[", "<"]
    for i in range(1500):
        text = "".join(rng.choice(pieces + (odd if i % 3 == 0 else [])) for _ in range(rng.randint(0, 14)))
        assert icon_names(text) == by_tokens(text), repr(text)
        if i % 10 == 0:
            assert icon_names(text) == parsed(text), repr(text)
    assert icon_names("a:b:c :x::y: \\:z: [t:u:]") == ["b", "x", "y"]
