"""Scripts on a card, read back from the PDF: Chinese and Japanese break between characters
by the kinsoku rules (no line starts with 。 or 」, none ends with 「), Korean at its spaces,
a Latin word inside Japanese whole; `align: start` and `end` follow the text's direction
(`start` is flush right in Hebrew), `direction:` sets it. The CJK font is made for the test
(`cjkfont.py`): none is bundled, and CI has none."""
from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from cjkfont import make_font
from conftest import BACK_TEMPLATE, REPO, write

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.text import breaks
from cardgen.text.markup import parse

JA = "あいうえおか。きくけこさしすせそ「たちつてと」なにぬねのはひふへほ"
# 6 ideographs a line (60 pt at 10 pt): broken anywhere, line 1 would be `あいうえおか` and line 2
# would start with 。; line 3 would end with 「 and line 5 start with 」
JA_LINES = ["あいうえお", "か。きくけこ", "さしすせそ", "「たちつて", "と」なにぬね", "のはひふへほ"]
ZH = "我们的游戏（卡牌）很好玩，大家一起来玩吧。请阅读规则！"
KO = "한국어 문장은 띄어쓰기 단위로 나뉩니다"
MIX = "これはCardgenのテストです"
HEBREW = "שלום עולם"
CARDS = f'cards:\n  - {{name: One, ja: "{JA}", zh: "{ZH}", ko: "{KO}", mix: "{MIX}", he: "{HEBREW}"}}\n'
COLUMN = "x: 4mm, width: 21.3mm, size: 10"      # 60.4 pt: six ideographs at 10 pt
BOX = "x: 4mm, width: 55mm, height: 5mm, size: 10"
TEMPLATE = f"""
elements:
  - {{name: bg, type: rect, box: bleed, fill: "#ffffff"}}
  - {{name: ja, type: text, {COLUMN}, y: 4mm, height: 25mm, text: "{{{{ card.ja }}}}"}}
  - {{name: zh, type: text, x: 30mm, y: 4mm, width: 21.3mm, height: 25mm, size: 10, text: "{{{{ card.zh }}}}"}}
  - {{name: ko, type: text, {COLUMN}, y: 30mm, height: 21mm, text: "{{{{ card.ko }}}}"}}
  - {{name: mix, type: text, x: 30mm, y: 30mm, width: 21.3mm, height: 21mm, size: 10, text: "{{{{ card.mix }}}}"}}
  - {{name: left, type: text, {BOX}, y: 52mm, text: "Left", align: left}}
  - {{name: right, type: text, {BOX}, y: 57mm, text: "Right", align: right}}
  - {{name: hestart, type: text, {BOX}, y: 62mm, text: "{{{{ card.he }}}}", align: start}}
  - {{name: heend, type: text, {BOX}, y: 67mm, text: "{{{{ card.he }}}}", align: end}}
  - {{name: enstart, type: text, {BOX}, y: 72mm, text: "Start", align: start}}
  - {{name: enrtl, type: text, {BOX}, y: 77mm, text: "Rtl", align: start, direction: rtl}}
"""


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """The card built once (its PDF), in a game whose fonts/ has the CJK test font, named in
    `fallback_fonts:`."""
    root = tmp_path_factory.mktemp("cjk") / "tiny"
    make_font(root / "fonts" / "TestCJK-Regular.ttf", JA + ZH + KO + MIX)
    write(root / "game.yaml", "title: Tiny\nfallback_fonts: [TestCJK]\n")
    write(root / "templates" / "tiny" / "face.yaml", TEMPLATE)
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + CARDS)
    report = Report()
    out = root.parent / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("cards",)), report)
    assert not report.items, "\n".join(d.message for d in report.items)      # (every character has a font)
    return out / "tiny" / "cards.pdf"


def _chars(pdf, index: int = 0) -> list[tuple[str, float, float, float]]:
    """Each printed character of a page with its box's left and right and its origin's y (points)."""
    import ctypes

    import pypdfium2.raw as raw

    text = pdfium.PdfDocument(str(pdf))[index].get_textpage()
    out = []
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if ch.strip():
            left, _, right, _ = text.get_charbox(i)
            x, y = ctypes.c_double(), ctypes.c_double()
            raw.FPDFText_GetCharOrigin(text.raw, i, ctypes.byref(x), ctypes.byref(y))
            out.append((ch, left, right, round(y.value, 1)))
    return out


def _lines(pdf, text: str) -> list[str]:
    """The printed lines of a text (its characters in order, spaces aside), top to bottom."""
    return _lines_on(pdf, 0, text)


def _lines_on(pdf, index: int, text: str) -> list[str]:
    chars = _chars(pdf, index)
    joined = "".join(ch for ch, *_ in chars)
    want = text.replace(" ", "")
    at = joined.index(want)
    rows: dict[float, str] = defaultdict(str)
    for ch, _, _, y in chars[at:at + len(want)]:
        rows[y] += ch
    return [rows[y] for y in sorted(rows, reverse=True)]


def test_japanese_breaks_between_characters_by_the_kinsoku_rules(printed):
    lines = _lines(printed, JA)
    assert lines == JA_LINES
    assert all(ln[0] not in breaks.NO_START and ln[-1] not in breaks.NO_END for ln in lines)


def test_chinese_breaks_between_characters_never_before_its_closing_punctuation(printed):
    lines = _lines(printed, ZH)
    assert len(lines) >= 4 and "".join(lines) == ZH
    assert all(len(ln) <= 6 for ln in lines)         # no line wider than its box
    assert all(ln[0] not in "，。！）" and ln[-1] != "（" for ln in lines), lines


def test_korean_breaks_at_its_spaces_only(printed):
    lines = _lines(printed, KO)
    words = KO.split()
    assert len(lines) >= 3
    assert all(any(ln == "".join(words[a:b]) for a in range(len(words)) for b in range(a + 1, len(words) + 1))
               for ln in lines), lines


def test_a_latin_word_inside_japanese_stays_whole(printed):
    lines = _lines(printed, MIX)
    assert "".join(lines) == MIX and len(lines) >= 2
    assert any("Cardgen" in ln for ln in lines), lines
    assert lines[0] == "これは"          # (the line breaks before the word: it does not fit after これは)


def _edges(pdf, text: str) -> tuple[float, float]:
    """The left of the first character and the right of the last of a text printed once."""
    chars = _chars(pdf)
    joined = "".join(ch for ch, *_ in chars)
    want = text.replace(" ", "")
    at = joined.index(want)
    mine = chars[at:at + len(want)]
    return min(c[1] for c in mine), max(c[2] for c in mine)


def test_align_start_is_flush_right_in_hebrew_and_end_flush_left(printed):
    left, _ = _edges(printed, "Left")
    _, right = _edges(printed, "Right")
    assert right - left > 140              # (the box is 156 pt wide)
    he_start, he_end = _all_edges(printed, HEBREW.replace(" ", ""))    # (PDFium reads it as typed)
    assert he_start[1] == pytest.approx(right, abs=1.0) and he_start[0] > left + 80
    assert he_end[0] == pytest.approx(left, abs=1.0) and he_end[1] < right - 80
    assert _edges(printed, "Start")[0] == pytest.approx(left, abs=1.0)     # English: start is the left
    assert _edges(printed, "Rtl")[1] == pytest.approx(right, abs=1.0)      # `direction: rtl`: the right


def _all_edges(pdf, text: str) -> list[tuple[float, float]]:
    return _all_edges_on(pdf, 0, text)


def _all_edges_on(pdf, index: int, text: str) -> list[tuple[float, float]]:
    """The left of the first character and the right of the last of each place `text` is printed."""
    chars = _chars(pdf, index)
    joined = "".join(ch for ch, *_ in chars)
    out = []
    at = joined.find(text)
    while at >= 0:
        mine = chars[at:at + len(text)]
        out.append((min(c[1] for c in mine), max(c[2] for c in mine)))
        at = joined.find(text, at + 1)
    return out


def _cut(text: str) -> list[str]:
    """A word's parts, where a line may break."""
    (word,) = parse(text)[0]
    return ["".join(f.value for f in fs) for fs, _ in breaks.parts(word, breaks.dictionary("en"))]


@pytest.mark.parametrize(("text", "parts"), [
    ("ちょっと待って", ["ちょっ", "と", "待っ", "て"]),            # no line starts with a small kana
    ("ゲームです", ["ゲー", "ム", "で", "す"]),                     # ... nor with the prolonged sound mark
    ("「はい」と言った。", ["「は", "い」", "と", "言っ", "た。"]),   # nor a closing bracket or stop; no opening one ends it
    ("中文——测试……好", ["中", "文", "——", "测", "试……", "好"]),   # dashes and ellipses in pairs stay whole
    ("人々", ["人々"]),                                             # an iteration mark goes with its character
    ("遊ぶCardgenで", ["遊", "ぶ", "Cardgen", "で"]),               # a Latin word whole, not hyphenated
    ("カード(3枚)", ["カー", "ド", "(3", "枚)"]),                   # ASCII brackets too
    ("한국어문장", ["한국어문장"]),                                  # Hangul: at spaces only
    ("hyphenation", ["hy", "phen", "a", "tion"]),                       # Latin as before
])
def test_where_a_word_may_break(text, parts):
    assert _cut(text) == parts


def test_the_wide_characters_pattern_is_compiled_only_for_text_that_may_hold_one(monkeypatch):
    """Latin text with accents, typographic quotes and dashes (below U+2E80) never compiles the
    large pattern of `_wide` (a few ms of every start-up); the first character it matches does."""
    breaks._wide.cache_clear()
    (word,) = parse("«naïve»—“Straße”…ÆØÅ")[0]
    assert len(breaks.parts(word, breaks.dictionary("en"))) >= 1 and not breaks.wide("é") and not breaks.wide("—")
    assert breaks._wide.cache_info().currsize == 0
    assert breaks.wide("\u2e80") and breaks._wide.cache_info().currsize == 1
    assert not breaks.wide("\u2e7f") and not breaks.wide("\uac00")      # (Hangul: not wide)


def test_an_icon_inside_japanese_breaks_as_an_ideograph_would():
    (word,) = parse("カードを:coin:２枚。「:coin:」")[0]
    got = [["".join(f.value if f.kind == "text" else f":{f.value}:" for f in fs)] for fs, _ in breaks.parts(word, None)]
    assert got == [["カー"], ["ド"], ["を"], [":coin:"], ["２"], ["枚。"], ["「:coin:」"]]
    (word,) = parse("go:coin:now")[0]             # (in Latin text, as before: the word whole)
    assert len(breaks.parts(word, None)) == 1


def test_a_break_between_spans_of_one_word():
    (word,) = parse("漢字**重要**です")[0]
    got = [("".join(f.value for f in fs), join) for fs, join in breaks.parts(word, None)]
    assert got == [("漢", 0), ("字", breaks.HARD), ("重", breaks.HARD), ("要", breaks.HARD), ("で", breaks.HARD),
                   ("す", breaks.HARD)]
    (word,) = parse("**「**重要")[0]            # an opening bracket in a span of its own stays with what follows
    assert ["".join(f.value for f in fs) for fs, _ in breaks.parts(word, None)] == ["「重", "要"]


def test_a_font_in_fonts_is_found_unnamed_and_what_no_font_has_is_warned_at_the_cards_line(tmp_path):
    from pdffonts import pdf_fonts

    root = tmp_path / "tiny"
    make_font(root / "fonts" / "TestCJK-Regular.ttf", "漢字")          # (not named in fallback_fonts)
    write(root / "game.yaml", "title: Tiny\n")
    write(root / "templates" / "tiny" / "face.yaml",
          "elements:\n  - {name: body, type: text, x: 5mm, y: 5mm, width: 50mm, height: 20mm, text: \"{{ card.text }}\"}\n")
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\ncards:\n  - name: One\n"
                              "    text: 漢字と中\n")
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert [(Path(d.loc.file).name, d.loc.line, d.loc.col, d.code, d.message) for d in report.items] == [
        ("deck.yaml", 6, 11, "missing-glyph",
         "card 'One' (deck.yaml:5), element 'body' (field `text`): font Lato-Regular and the fallback fonts "
         "DejaVuSans, TestCJK have no glyph for U+3068 HIRAGANA LETTER TO, U+4E2D CJK UNIFIED IDEOGRAPH-4E2D; they "
         "print blank or as a box (add a font that has them to fonts/ and name it in game.yaml `fallback_fonts:`, "
         "or leave them out)")]
    assert any("TestCJK" in name for name in pdf_fonts(tmp_path / "out" / "tiny" / "cards.pdf"))


def test_a_justified_line_of_japanese_is_spread_between_its_characters(tmp_path):
    from cardgen.core.data import DATA
    from cardgen.resources.fonts import FontBook
    from cardgen.text.typeset import TextStyle, Typesetter

    make_font(tmp_path / "fonts" / "TestCJK-Regular.ttf", JA)
    ts = Typesetter(FontBook([tmp_path / "fonts", DATA / "fonts"]), lambda name: Path(name))
    runs, _, overflow = ts.set(parse(JA), TextStyle("TestCJK", size=10, align="justify"), 0, 0, 60.4, 200)
    lines: dict[float, list] = defaultdict(list)
    for r in runs:
        lines[r.baseline].append(r)
    set_lines = [lines[b] for b in sorted(lines)]
    assert not overflow and ["".join(str(r.content) for r in ln) for ln in set_lines] == JA_LINES
    for ln in set_lines[:-1]:            # each full line from edge to edge, its characters evenly apart
        assert ln[0].x == 0 and ln[-1].x + ln[-1].width == pytest.approx(60.4)
        steps = {round(b.x - a.x - a.width, 6) for a, b in pairwise(ln)}
        assert len(steps) == 1 and steps.pop() > 0, [(r.content, r.x) for r in ln]
    last = set_lines[-1]                 # the paragraph's last line as it is
    assert [r.x for r in last] == [0] and last[0].width == pytest.approx(60)


RULES_JA = ("「探検」カードを使うと、山札から２枚引く。そのうち１枚を手札に加え、残りは山札の下に置く（順番は自由）。"
            "ちょっと待って！ゲームのルールをよく読んでください。") * 3


def test_a_booklet_breaks_japanese_by_the_same_rules(tmp_path):
    root = tmp_path / "tiny"
    make_font(root / "fonts" / "TestCJK-Regular.ttf", RULES_JA + "規則")
    write(root / "game.yaml", "title: Tiny\nfallback_fonts: [TestCJK]\n")
    write(root / "templates" / "tiny" / "face.yaml", "elements:\n  - {name: bg, type: rect, box: bleed, fill: \"#ffffff\"}\n")
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\ncards:\n  - name: One\n")
    write(root / "rules.yaml", f"sections:\n  - title: 規則\n    body:\n      - \"{RULES_JA}\"\n")
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("booklet",)), report)
    assert not [d for d in report.items if d.code == "missing-glyph"], [d.message for d in report.items]
    pdf = next((tmp_path / "out" / "tiny").glob("rules*.pdf"))
    pages = pdfium.PdfDocument(str(pdf))
    for index in range(len(pages)):
        try:
            lines = _lines_on(pdf, index, RULES_JA)
        except ValueError:
            continue
        assert len(lines) >= 3 and "".join(lines) == RULES_JA
        assert all(ln[0] not in breaks.NO_START and ln[-1] not in breaks.NO_END for ln in lines), lines
        break
    else:
        pytest.fail("the paragraph is not on one page")


def test_two_games_fonts_of_one_name_each_print_their_own_glyphs(tmp_path):
    """Two font files with the same face name (TestCJK-Regular) in one process, one per game:
    ReportLab would take the second for the first (and print its characters blank)."""
    for n, chars in enumerate(("あいう", "漢字")):
        root = tmp_path / f"g{n}" / "tiny"
        make_font(root / "fonts" / "TestCJK-Regular.ttf", chars)
        write(root / "game.yaml", "title: Tiny\n")
        write(root / "templates" / "tiny" / "face.yaml", "elements:\n  - {name: body, type: text, x: 5mm, y: 5mm, "
                                                         "width: 50mm, height: 20mm, text: \"{{ card.text }}\"}\n")
        write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
        write(root / "deck.yaml", f"deck: Things\ntemplate: tiny/face\nback: tiny/back\ncards:\n  - name: One\n"
                                  f"    text: {chars}\n")
        report = Report()
        build_game(root, REPO, BuildOptions(out=root.parent / "out", only=("cards",)), report)
        assert not report.items
        assert "".join(ch for ch, *_ in _chars(root.parent / "out" / "tiny" / "cards.pdf")) == chars


def test_a_hebrew_paragraph_of_a_booklet_is_flush_right(tmp_path):
    root = tmp_path / "tiny"
    write(root / "game.yaml", "title: Tiny\n")
    write(root / "templates" / "tiny" / "face.yaml", "elements:\n  - {name: bg, type: rect, box: bleed, fill: \"#ffffff\"}\n")
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\ncards:\n  - name: One\n")
    long, short = "שלום עולם גדול ויפה", "שלום"
    write(root / "rules.yaml", f"sections:\n  - title: Rules\n    body:\n      - \"{long}\"\n      - \"{short}\"\n"
                               "      - Play well.\n      - Play the game well.\n")
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("booklet",)), Report())
    pdf = next((tmp_path / "out" / "tiny").glob("rules*.pdf"))
    for index in range(len(pdfium.PdfDocument(str(pdf)))):
        chars = "".join(ch for ch, *_ in _chars(pdf, index))
        if "Playwell" in chars:
            break
    edges = {}
    for text in (long, short, "Play well.", "Play the game well."):
        edges[text] = _all_edges_on(pdf, index, text.replace(" ", ""))[0]
    assert edges[long][1] == pytest.approx(edges[short][1], abs=0.5)            # Hebrew: flush right
    assert edges[short][0] > edges[long][0] + 20
    assert edges["Play well."][0] == pytest.approx(edges["Play the game well."][0], abs=0.5)   # English: left
    assert edges[long][1] > edges["Play the game well."][1] + 20
