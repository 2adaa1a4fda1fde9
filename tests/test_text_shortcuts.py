"""The text engine's shortcuts give what its general paths give: plain text parsed without the
span machinery (`markup._plain_paragraph`), a word's parts joined on a line without a run made
for each part (`Typesetter._forward`), cardgen's own icons told by name (`icons._own_by_name`),
a text set again taken from `Typesetter.set_text`'s memo."""
from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from cardgen.core.data import DATA
from cardgen.resources import icons
from cardgen.resources.fonts import FontBook
from cardgen.text import breaks, markup
from cardgen.text.markup import _PARA, _parse_paragraph, _Spans, parse
from cardgen.text.typeset import TextStyle, Typesetter

PLAIN = ["draw", "card", "Characteristically", "unbelievable", "x:y", ":", "::", ":coins:", ":a_b-1:", "é", "漢",
         " ", "  ", "\t", "\n", "\n\n", "\n \n", "\r", "\u00a0", "2", "-", "—", "(2).", "fi", "office", "שלום"]
MARKED = ["*", "**", "\\:", "\\*", "[b]", "[/b]", "[color=#c00 tracking=0.1em]", "[/]", "<span size='8pt'>",
          "</span>", "[", "<", "soft\u00adhyphen", "[size=7pt]",
          "[size=13pt]"]


def _texts(seed: int, n: int, marked: bool) -> list[str]:
    rng = random.Random(seed)
    pieces = PLAIN + (MARKED if marked else [])
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))) for _ in range(n)]


def _slow_parse(text: str) -> list:
    text = text.strip("\n")
    spans = _Spans({}, text, [])
    return [_parse_paragraph(p, spans) for p in _PARA.split(text)]


def test_plain_text_parses_as_the_general_parser_parses_it():
    fast = 0
    for text in _texts(7, 3000, marked=False):
        assert markup._MARKED.search(text) is None
        assert parse(text) == _slow_parse(text), repr(text)
        fast += 1
    assert fast == 3000
    # with markup the general parser runs: what it finds is still found
    problems: list[str] = []
    assert [f.bold for f in parse("**a** b", None, problems)[0][0]] == [True]
    parse("a [/] b", None, problems)
    assert problems == ["'[/]' closes no span"]


def _forward_one_run_a_part(self, items, st, size, gap, cx, baseline, runs, loose=frozenset(), spread=0.0):
    """`Typesetter._forward` as it was: a run made for each part, then joined to the last."""
    line_start = len(runs)
    for wi, (pieces, _ww, join) in enumerate(items):
        if wi and join == 0:
            cx += gap
        elif wi in loose:
            cx += spread
        for pi, (frag, pw, font_name, fsize) in enumerate(pieces):
            run = self._run(frag, pw, font_name, fsize, cx, baseline, st, size)
            last = runs[-1] if len(runs) > line_start else None
            if wi and join and wi not in loose and not pi and last is not None and last.kind == "text" \
                    and run.kind == "text" \
                    and (last.font, last.size, last.color, last.tracking) == (run.font, run.size, run.color,
                                                                             run.tracking):
                text = str(last.content) + frag.value
                runs[-1] = replace(last, content=text, width=last.width + pw, glyphs=self._glyphs(text, last.font))
            else:
                runs.append(run)
            cx += pw


def test_a_words_parts_join_on_a_line_as_runs_made_part_by_part(monkeypatch):
    """Hyphenated words, spans of other colours and letter spacing inside words, icons, fallback
    fonts, ligatures, justified and centred lines, several measures: the same runs, whether each
    part is made a run first or not."""
    fonts = FontBook([DATA / "fonts"])
    ts = Typesetter(fonts, lambda name: Path(f"/icons/{name}.svg"))
    ts.hyphenator = breaks.dictionary("en")
    cases = []
    for k, text in enumerate(_texts(11, 100, marked=True)):
        st = TextStyle("Lato", ("regular", "bold")[k % 2], 9.0, align=("left", "justify", "center", "right")[k % 4])
        cases.append((text, st, (40.0, 70.0, 120.0)[k % 3]))
    cases.append(("Characteristically[color=#c00]unbelievable[/]office [tracking=0.1em]office[/]fi", TextStyle(
        "Lato"), 40.0))

    def set_all():
        return [ts.set(parse(text), st, 0, 0, w, 400, "shrink" if w > 100 else "none") for text, st, w in cases]

    fast = set_all()
    monkeypatch.setattr(Typesetter, "_forward", _forward_one_run_a_part)
    slow = set_all()
    assert fast == slow
    joined = [r for runs, *_ in fast for r in runs if r.kind == "text" and len(r.content) > 12]
    assert joined            # (long runs: parts of a hyphenated word set on one line)


def test_own_art_told_by_name_as_by_the_path():
    own = next((DATA / "art").rglob("*.svg"))
    names = [own, str(own), Path(str(own).replace("/art/", "/art/../art/")), Path("art/x.svg"),
             Path("/tmp/x.svg"), DATA / "art", Path(str(DATA / "art") + "x/y.svg")]
    for p in names:
        path = Path(p)
        by_path = path.is_absolute() and ".." not in path.parts and path.is_relative_to(icons._OWN_ART)
        assert icons._own_by_name(str(p)) == by_path, p
        assert icons._own_by_name(str(p)) == by_path, p       # (from the memo)
    assert icons.own_art(own) and icons.svg_warnings(own, None) == []


def _fit_parts_general(self, item, cur, cur_w, lines, wrapped, st, size, width, space, wide=True):
    """`Typesetter._fit_parts` without its shortcut for a word of one part that fits."""
    parts = [(*self._sized(measured, st, size), join) for measured, join in item]
    return self._fit_sized(parts, cur, cur_w, lines, wrapped, st, width, space, wide)


def test_a_word_of_one_part_is_added_to_a_line_as_the_general_path_adds_it(monkeypatch):
    """Lines broken, sizes fitted and widths summed alike with and without the shortcut, at
    measures from narrower than a word to wide, set left, justified and in spans."""
    fonts = FontBook([DATA / "fonts"])
    ts = Typesetter(fonts, lambda name: Path(f"/icons/{name}.svg"))
    ts.hyphenator = breaks.dictionary("en")
    cases = [(text, TextStyle("Lato", "regular", 9.0, align=("left", "justify")[k % 2]), w)
             for k, text in enumerate(_texts(13, 60, marked=True)) for w in (15.0, 55.0, 160.0)]

    def set_all():
        return [ts.set_block(parse(text), st, 0, 0, w, 90, ("none", "shrink")[int(w) % 2]) for text, st, w in cases]

    fast = set_all()
    monkeypatch.setattr(Typesetter, "_fit_parts", _fit_parts_general)
    assert set_all() == fast
    assert any(overflow for _, _, overflow, _ in fast) and any(size < 9 for _, size, _, _ in fast)


def test_a_lines_scale_is_its_largest_pieces_over_the_texts_size():
    """`Typesetter._scale` (asked for each line as it is fitted and placed) against its formula, on
    lines of pieces smaller, as large as, a hair larger than and much larger than the text, and icons."""
    rng = random.Random(3)
    for _ in range(3000):
        size = rng.choice([9.0, 6.5, 7.3, 12.0])
        line = ([([(None, 1.0, rng.choice(["", "Lato-Regular"]),
                    rng.choice([size, size * 0.8, size * 1.0000001, size * rng.uniform(0.5, 2.0), 20.0]))
                   for _ in range(rng.randint(1, 3))], 1.0, 0) for _ in range(rng.randint(0, 4))], 1.0, True)
        assert Typesetter._scale(line, size) == max([1.0] + [p[3] / size for pieces, *_ in line[0]
                                                          for p in pieces if p[2]])


def test_a_text_set_again_is_set_as_the_first_time_and_asks_the_same():
    """`Typesetter.set_text` keeps what it set: a text set again (any of 150 random texts with
    spans, bad spans, icons, fallback fonts, in several styles and boxes, shrunk or not) gives
    the runs, size, overflow, block and span problems that parsing and setting it gives, and
    asks the same faces (`FontBook.uses`, in order) and icons, also where the faces were not
    recorded the first time."""
    from cardgen.text.punctuation import punctuate

    fonts = FontBook([DATA / "fonts"])
    asked: list[str] = []

    def icon(name: str) -> Path:
        asked.append(name)
        return Path(f"/icons/{name}.svg")

    ts = Typesetter(fonts, icon)
    ts.hyphenator = breaks.dictionary("en")
    cases = []
    for k, text in enumerate([*_texts(17, 150, marked=True), "a [nope]b[/] :coins: c", "[size=x]a[/]"]):
        st = TextStyle(("Lato", "Vollkorn")[k % 2], ("regular", "bold")[k % 3 == 0], (9.0, 12.0)[k % 2],
                       align=("left", "justify", "center")[k % 3], valign=("top", "middle")[k % 2])
        cases.append((text, st, (3.0, 5.0)[k % 2], 7.0, (40.0, 70.0, 120.0)[k % 3], (20.0, 90.0)[k % 2],
                      ("none", "shrink")[k % 2], (None, 6.0)[k % 4 == 1]))

    def general(text, st, x, y, w, h, fit, least):
        problems: list[str] = []
        paragraphs = punctuate(parse(text, ts.styles, problems))
        fresh = Typesetter(fonts, icon)
        fresh.hyphenator = ts.hyphenator
        return fresh.set_block(paragraphs, st, x, y, w, h, fit, least), problems

    made = []
    plain_set = ts._set_text
    ts._set_text = lambda *a: made.append(a[0]) or plain_set(*a)
    had_icons = had_problems = 0
    distinct = len({(c[0], repr(c[1]), *c[2:]) for c in cases})
    for recorded, sets in ((False, distinct), (True, distinct), (True, 0)):
        made.clear()
        for case in cases:
            fonts.uses = {}
            asked.clear()
            want, want_problems = general(*case)
            want_uses, want_icons = fonts.uses, list(asked)
            fonts.uses = {} if recorded else None
            asked.clear()
            problems: list[str] = ["before"]
            assert ts.set_text(*case, problems=problems) == want, case
            assert problems == ["before", *want_problems]
            assert asked == want_icons
            if recorded:
                assert list(fonts.uses) == list(want_uses)
            had_icons += bool(want_icons)
            had_problems += bool(want_problems)
        # set the first time; again where the faces were not recorded; then kept
        assert len(made) == sets
    assert had_icons and had_problems
    fonts.uses = None


def test_a_plain_text_set_again_in_another_colour_is_set_as_in_that_colour():
    """A text without markup but icons is kept by `Typesetter.set_text` whatever its colour:
    set again in another colour (any of 60 random texts, in five colours, equal ones of other
    types and signs among them), it gives what setting it fresh in that colour gives, run for
    run, the colours' types and signs included; a text with markup (a span of its own colour)
    is kept per colour, as before."""
    from cardgen.model import ops

    fonts = FontBook([DATA / "fonts"])
    ts = Typesetter(fonts, lambda name: Path(f"/icons/{name}.svg"))
    colours = [(0, 0, 0, 1), (0.0, 0.0, 0.0, 1.0), (-0.0, 0.0, 0.0, 1.0), (0.8, 0.0, 0.0, 1.0), None]
    texts = [*_texts(23, 40, marked=False), *_texts(29, 20, marked=True), "a [color=#cc0000]b[/] c"]
    made: list[str] = []
    plain_set = ts._set_text
    ts._set_text = lambda *a: made.append(a[0]) or plain_set(*a)
    rng = random.Random(3)
    cases = [(text, colour) for text in texts for colour in colours]
    rng.shuffle(cases)
    for text, colour in cases:
        st = TextStyle("Lato", size=9.0, color=colour, align="justify")
        fresh = Typesetter(fonts, lambda name: Path(f"/icons/{name}.svg"))
        want = fresh.set_text(text, st, 3.0, 7.0, 60.0, 40.0, "shrink")
        got = ts.set_text(text, st, 3.0, 7.0, 60.0, 40.0, "shrink")
        assert got == want and repr(got) == repr(want), (text, colour)
        assert ops.encode_ops([ops.Text(0.0, 0.0, 1.0, 1.0, tuple(got[0]), 9.0)]) == \
            ops.encode_ops([ops.Text(0.0, 0.0, 1.0, 1.0, tuple(want[0]), 9.0)])
    plain = [t for t in texts if markup.is_plain(t)]
    assert 30 < len(plain) < len(texts)
    assert sorted(made) == sorted([*set(plain), *(t for t in texts if not markup.is_plain(t) for _ in colours)])


def test_a_text_all_in_ascii_is_set_left_to_right_without_asking():
    """`Typesetter._place` sets a text whose pieces are all ASCII (not `rtl`) left to right without
    working out each paragraph's direction and each line's order: what `bidi` says of any ASCII
    (letters, digits, punctuation, spaces: 2,000 random runs), in `auto` and `ltr`."""
    from cardgen.text import bidi

    rng = random.Random(11)
    alphabet = [chr(c) for c in range(0x20, 0x7F)] + ["\t", "\n"]
    for _ in range(2000):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(1, 4))]
        assert all(t.isascii() for t in texts)
        for direction in ("auto", "ltr"):
            assert bidi.paragraph_level(texts, direction) == 0
        assert all(bidi.kind(t) != "R" for t in texts)
