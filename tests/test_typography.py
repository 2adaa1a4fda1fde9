"""Typography read back from what is printed: lining figures by default where the font has
them (Vollkorn's own figures are old-style: "1 AP" read "I AP"), old-style ones on request,
OpenType features per text (`features:`), every font embedded and subset."""
from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import REPO
from pdffonts import pdf_fonts

from cardgen.core.errors import Report
from cardgen.layout.rulebook import load_rulebook
from cardgen.load.rules import rules_from
from cardgen.load.yamlsrc import load_text
from cardgen.model import ops
from cardgen.outputs import booklet
from cardgen.pipeline.build import BuildOptions, build_game, layout_game
from cardgen.pipeline.check import load_game

DPI = 300
FIGURES = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: lining, type: text, x: 4mm, y: 4mm, width: 55mm, height: 25mm, font: Vollkorn, size: 48, text: "1AP"}
  - {name: oldstyle, type: text, x: 4mm, y: 34mm, width: 55mm, height: 25mm, font: Vollkorn, size: 48, text: "1AP",
     features: [onum]}
  - {name: caps, type: text, x: 4mm, y: 64mm, width: 55mm, height: 20mm, font: Vollkorn, size: 36, text: "xy",
     features: "smcp"}
"""


def glyph_heights(pdf: bytes, page_index: int = 0) -> list[tuple[str, float]]:
    """Each character printed on a page with its ink height in points, measured on the page
    rasterized at 300 dpi: across the character's box as PDFium gives it (less 8 % each side, so that a
    neighbour's overhang is not counted), from its line's top to its bottom."""
    page = pdfium.PdfDocument(pdf)[page_index]
    _, page_h = page.get_size()
    image = page.render(scale=DPI / 72).to_pil().convert("L")
    text = page.get_textpage()
    s = DPI / 72
    out = []
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if not ch.strip():
            continue
        left, _, right, _ = text.get_charbox(i)
        _, bottom, _, top = text.get_charbox(i, loose=True)       # the line's height
        inset = (right - left) * 0.08
        box = (round((left + inset) * s), round((page_h - top) * s), round((right - inset) * s),
               round((page_h - bottom) * s))
        ink = image.crop(box).point(lambda v: 255 if v < 128 else 0).getbbox()
        out.append((ch, (ink[3] - ink[1]) / s if ink else 0.0))
    return out


def test_figures_are_lining_by_default_and_old_style_on_request(tiny_game, tmp_path):
    root = tiny_game('cards:\n  - {name: One}\n', template=FIGURES)
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    pdf = (tmp_path / "out" / "tiny" / "cards.pdf").read_bytes()
    found = glyph_heights(pdf)
    assert "".join(ch for ch, _ in found).startswith("1AP1APxy")       # the characters kept (copy and paste)
    lining, cap, old = found[0][1], found[1][1], found[3][1]
    assert cap == pytest.approx(0.66 * 48, rel=0.08)      # Vollkorn's capitals at 48 pt
    assert lining == pytest.approx(cap, rel=0.04)          # a lining '1' is as tall as the 'A' beside it
    assert old < 0.8 * cap                                 # `features: [onum]`: the font's old-style '1'
    # `smcp`: small capitals, taller than the lowercase x they replace, shorter than capitals
    x_small = found[6][1]
    assert 0.5 * 0.66 * 36 < x_small < 0.9 * 0.66 * 36
    # every font embedded and subset (the derived fonts too), none of the standard 14
    fonts = pdf_fonts(tmp_path / "out" / "tiny" / "cards.pdf")
    assert fonts and all(fonts.values())
    assert all("+" in name and name.split("+")[1].startswith("Vollkorn") for name in fonts if "Vollkorn" in name)


def test_the_booklet_heading_reads_1_not_I(tmp_path):
    game = load_game(REPO / "cards" / "game-601", REPO, Report())
    path = REPO / "cards" / "game-601" / "rules.yaml"
    game.rules = rules_from(load_text("sections:\n  - title: \"1. Income\"\n    body:\n      - 'Take 10 AP.'\n",
                                      str(path)), path, Report())
    assert load_rulebook(game).sections[0].title == "1. Income"
    rules = booklet.make_booklet(layout_game(game, Report()), "a5")
    for index in range(len(pdfium.PdfDocument(rules))):
        found = glyph_heights(rules, index)
        text = "".join(ch for ch, _ in found)
        at = text.find("1.Income")
        if at >= 0:
            break
    else:
        raise AssertionError("no page has the heading")
    one, cap_i = found[at][1], found[at + 2][1]
    assert one == pytest.approx(cap_i, rel=0.05)             # '1' as tall as the 'I' of Income
    assert found[at + 5][0] == "o" and found[at + 5][1] < 0.8 * cap_i     # (an "o" is not)
    body = text.find("10AP")
    assert found[body][1] == pytest.approx(found[body + 2][1], rel=0.05)     # in the body too ('1' and 'A')
    (tmp_path / "rules.pdf").write_bytes(rules)
    assert all(pdf_fonts(tmp_path / "rules.pdf").values())


# -- typographer's punctuation ----------------------------------------------------------

def _texts(rendered, card: str) -> list[str]:
    face = next(f for f in rendered.faces if f[1].name == card)[2]
    return ["".join(str(r.content) for r in op.runs if r.kind == "text") for op in face.ops if isinstance(op, ops.Text)]


def test_a_bundled_card_prints_curly_apostrophes():
    game = load_game(REPO / "cards" / "face-off", REPO, Report())
    game.decks = [d for d in game.decks if d.name == "Cowboys"]
    assert "rules' example" in game.decks[0].cards[0].fields["todo"]          # typed straight
    texts = _texts(layout_game(game, Report()), "Billy the Kid")
    assert any("rules\u2019example" in t for t in texts)                        # printed curly
    assert not any("'" in t or '"' in t for t in texts)


def test_quotes_and_dashes_on_cards_and_off_per_game(tiny_game):
    template = ('elements:\n  - {name: t, type: text, x: 3mm, y: 3mm, width: 57mm, height: 80mm, size: 9, '
                'text: "{{ card.text }}"}\n')
    cards = "cards:\n  - {name: A, text: \"Say \\\"go\\\" -- it's 2024-05-01 - and 'the end'...\"}\n"
    root = tiny_game(cards, template=template)
    typed = "Say \"go\" -- it's 2024-05-01 - and 'the end'..."
    curled = "Say \u201cgo\u201d \u2013 it\u2019s 2024-05-01 \u2013 and \u2018the end\u2019\u2026"
    assert " ".join(_texts(layout_game(load_game(root, REPO, Report()), Report()), "A")) == curled.replace(" ", "")
    root = tiny_game(cards, template=template, game_extra="smart_punctuation: false\n")
    assert " ".join(_texts(layout_game(load_game(root, REPO, Report()), Report()), "A")) == typed.replace(" ", "")


def test_punctuation_leaves_icons_and_markup_alone():
    from cardgen.text.markup import parse
    from cardgen.text.punctuation import punctuate

    (para,) = punctuate(parse("**\"Hit\"** :arrow--up:'s *x* -- 'a' - b"))
    values = [[(f.kind, f.value, f.bold) for f in w] for w in para]
    assert values == [[("text", "\u201cHit\u201d", True)], [("icon", "arrow--up", False), ("text", "\u2019s", False)],
                      [("text", "x", False)], [("text", "\u2013", False)], [("text", "\u2018a\u2019", False)],
                      [("text", "\u2013", False)], [("text", "b", False)]]


# -- kerning ------------------------------------------------------------------------------

def glyph_origins(pdf: Path, page_index: int = 0) -> list[tuple[str, float, float]]:
    """Each character of a page with the origin PDFium places its glyph at (points)."""
    import ctypes

    import pypdfium2.raw as raw

    page = pdfium.PdfDocument(str(pdf))[page_index]
    text = page.get_textpage()
    out = []
    for i in range(text.count_chars()):
        x, y = ctypes.c_double(), ctypes.c_double()
        raw.FPDFText_GetCharOrigin(text.raw, i, ctypes.byref(x), ctypes.byref(y))
        out.append((text.get_text_range(i, 1), x.value, y.value))
    return out


@pytest.mark.parametrize("font", ["Lato", "Vollkorn"])
def test_kerned_pairs_are_measured_and_drawn_closer(tiny_game, tmp_path, font):
    template = ('elements:\n  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}\n'
                f'  - {{name: t, type: text, x: 4mm, y: 4mm, width: 55mm, height: 30mm, size: 40, font: {font}, '
                'text: "{{ card.name }}"}\n')
    root = tiny_game("cards:\n  - {name: AV To}\n", template=template)
    game = load_game(root, REPO, Report())
    fonts = layout_game(game, Report()).res.fonts
    face = fonts.face(font).name
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    (a, ax, _), (v, vx, _), _, (t, tx, _), (o, ox, _) = glyph_origins(tmp_path / "out" / "tiny" / "cards.pdf")
    assert a + v + t + o == "AVTo"
    for (left, x0), (right, x1) in (((a, ax), (v, vx)), ((t, tx), (o, ox))):
        kern = dict(fonts.kerns(left + right, face)).get(1, 0.0) * 0.040       # at 40 pt
        assert kern < -1.0                                       # the font kerns the pair by over 1 pt
        # the second glyph stands where the first one's advance and the kerning put it (within
        # the PDF's widths, whole thousandths of the size: 0.02 pt at 40 pt)
        assert x1 - x0 == pytest.approx(fonts.width(left, face, 40) + kern, abs=0.021)
    # measured as drawn: the word is as wide as its kerned glyphs
    assert fonts.kerned_width("AV", face, 40) == pytest.approx(vx - ax + fonts.width("V", face, 40), abs=0.021)


# -- line breaks: hyphens, hyphenation, widows ------------------------------------------

def _pdf_lines(pdf: Path) -> list[str]:
    """The text lines of a card's page, as PDFium reads them (it joins a word hyphenated at a
    line's end, marking the hyphen U+FFFE, or U+0002 in the PDFium of pypdfium2 4.30: split again)."""
    page = pdfium.PdfDocument(str(pdf))[0]
    text = page.get_textpage().get_text_bounded().replace("\r", "").replace("\ufffe", "-\n").replace("\x02", "-\n")
    return [ln.strip() for ln in text.split("\n") if ln.strip()]


def _box(width_mm: float, size: float = 12) -> str:
    return ('elements:\n  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}\n'
            f'  - {{name: t, type: text, x: 4mm, y: 4mm, width: {width_mm}mm, height: 60mm, size: {size}, '
            'text: "{{ card.text }}"}\n')


def _build(root: Path, out: Path) -> list[str]:
    report = Report()
    build_game(root, REPO, BuildOptions(out=out, only=("cards",)), report)
    assert not report.items, [d.message for d in report.items]
    return _pdf_lines(out / "tiny" / "cards.pdf")


def test_a_line_breaks_after_a_hyphen(tiny_game, tmp_path):
    """"Insta-slaughter" overflowed a box it does not fit whole: it breaks after its hyphen."""
    cards = "cards:\n  - {name: A, text: \"Deal Insta-slaughter damage\"}\n"
    root = tiny_game(cards, template=_box(26), game_extra="hyphenate: false\n")
    assert _build(root, tmp_path / "a") == ["Deal Insta-", "slaughter", "damage"]


def test_a_word_is_hyphenated_where_pyphen_says(tiny_game, tmp_path):
    import pyphen

    word = "characteristically"
    cards = f"cards:\n  - {{name: A, text: \"The {word} odd\"}}\n"
    lines = _build(tiny_game(cards, template=_box(24)), tmp_path / "a")
    assert lines[0].startswith("The ") and lines[0].endswith("-")          # hyphenated, not pushed down
    head = lines[0][4:-1]
    assert head + lines[1].split()[0] == word
    assert len(head) in pyphen.Pyphen(lang="en_US").positions(word)      # at one of the dictionary's points
    # `hyphenate: false`: the word goes to the next line whole (and, wider than the box, overflows)
    root = tiny_game(cards, template=_box(24), game_extra="hyphenate: false\n")
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "b", only=("cards",)), report)
    assert [d.code for d in report.items] == ["overflow"]
    assert _pdf_lines(tmp_path / "b" / "tiny" / "cards.pdf")[:2] == ["The", word]


def test_german_is_hyphenated_by_german_rules(tiny_game, tmp_path):
    import pyphen

    word = "Donaudampfschifffahrt"
    cards = f"cards:\n  - {{name: A, text: \"Die {word}\"}}\n"
    lines = _build(tiny_game(cards, template=_box(30), game_extra="language: de\n"), tmp_path / "a")
    assert lines[0].endswith("-") and len(lines[0][4:-1]) in pyphen.Pyphen(lang="de_DE").positions(word)


def test_hyphenation_read_back_from_the_user_cache_breaks_where_pyphen_does(monkeypatch, tmp_path):
    """The patterns kept in the user cache (packed as bytes, with the longest one's length)
    give, read back without pyphen, the points pyphen gives (but the last two letters, which
    cardgen keeps together), for English and German words."""
    import pyphen

    from cardgen.text import breaks

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    words = {"en": ["characteristically", "hyphenation", "instantaneously", "Representatives", "unbelievable",
                    "accommodation", "extraordinary", "discard", "encyclopaedia", "Battlefield"],
             "de": ["Donaudampfschifffahrt", "Kartenspiel", "Spielbrett", "Handkarten", "Ablagestapel"]}
    for lang in ("en", "de"):
        made = breaks._load(lang)                   # from pyphen, then kept
        assert made is not None and list((tmp_path / "cardgen" / "hyphenation").iterdir())
        with monkeypatch.context() as m:            # (read back: pyphen does not parse it again)
            m.setattr(pyphen, "Pyphen", None)
            read = breaks._load(lang)
        assert read is not None and read.patterns == made.patterns and read.maxlen == made.maxlen
        for word in words[lang]:
            want = [p for p in pyphen.Pyphen(lang=pyphen.language_fallback(lang)).positions(word)
                    if 2 <= p <= len(word) - 3]
            assert read.positions(word) == made.positions(word) == want, word


def test_no_single_word_alone_on_a_card_texts_last_line(tiny_game, tmp_path):
    from cardgen.core.data import DATA
    from cardgen.resources.fonts import FontBook

    text = "Draw two cards then discard one now"
    fonts = FontBook([DATA / "fonts"])
    face = fonts.face("Lato").name
    # a box that the greedy break fills up to "now", which it would leave alone on the last line
    first = "Draw two cards then discard one"
    width = (fonts.kerned_width(first.replace(" ", ""), face, 9) + 5 * fonts.width(" ", face, 9) + 0.5) / 72 * 25.4
    assert width < 54                                # (inside the card's safe area)
    root = tiny_game(f"cards:\n  - {{name: A, text: \"{text}\"}}\n", template=_box(round(width, 2), size=9),
                     game_extra="hyphenate: false\n")
    assert _build(root, tmp_path / "a") == ["Draw two cards then discard", "one now"]


def test_fit_shrink_makes_a_long_word_smaller_before_hyphenating_it():
    from cardgen.core.data import DATA
    from cardgen.resources.fonts import FontBook
    from cardgen.text import breaks
    from cardgen.text.markup import parse
    from cardgen.text.typeset import TextStyle, Typesetter

    ts = Typesetter(FontBook([DATA / "fonts"]), lambda name: Path(name))
    ts.hyphenator = breaks.dictionary("en")
    st = TextStyle("Lato", "bold", 20.0)
    runs, size, overflow = ts.set(parse("Characteristically"), st, 0, 0, 120, 60, "shrink")
    assert [r.content for r in runs] == ["Characteristically"] and size < 20 and not overflow     # a title
    runs, size, overflow = ts.set(parse("Characteristically"), st, 0, 0, 120, 60)                  # no shrinking
    assert [r.content for r in runs] == ["Characterist-", "ically"] and size == 20 and not overflow
    # still too wide at the smallest size allowed: hyphenated there rather than overflowing
    runs, size, overflow = ts.set(parse("Characteristically"), st, 0, 0, 60, 60, "shrink", 12)
    assert size == 12 and len(runs) == 2 and runs[0].content.endswith("-") and not overflow


def test_centred_text_is_hyphenated_only_where_a_word_is_too_wide():
    from cardgen.core.data import DATA
    from cardgen.resources.fonts import FontBook
    from cardgen.text import breaks
    from cardgen.text.markup import parse
    from cardgen.text.typeset import TextStyle, Typesetter

    ts = Typesetter(FontBook([DATA / "fonts"]), lambda name: Path(name))
    ts.hyphenator = breaks.dictionary("en")
    text = "No Family card: penalty. Two penalties: take a Family card"
    left = [r.content for r in ts.set(parse(text), TextStyle("Lato", "regular", 9.0), 0, 0, 80, 200)[0]]
    centred = [r.content for r in ts.set(parse(text), TextStyle("Lato", "regular", 9.0, align="center"),
                                         0, 0, 80, 200)[0]]
    assert any(c.endswith("-") for c in left)             # set left, a short line takes part of the next word
    assert not any(c.endswith("-") for c in centred)      # centred, words stay whole
