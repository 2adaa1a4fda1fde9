"""Shaping read back from what is printed: Arabic and Hebrew typed in logical order come out
joined and right to left (glyph origins from the PDF), numbers and Latin inside them in their
own order, a ligature where the font has one, every font embedded and subset; and the
engine's ordering of a line (`cardgen.text.bidi`)."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BACK_TEMPLATE, REPO, write
from pdffonts import pdf_fonts
from test_typography import glyph_origins

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game, layout_game
from cardgen.pipeline.check import load_game
from cardgen.text import bidi

ARABIC = "مرحبا بالعالم"      # "hello world": every letter joins its neighbours but alef and the last ones
HEBREW = "שלום עולם 123"
TEMPLATE = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: ar, type: text, x: 4mm, y: 4mm, width: 55mm, height: 15mm, size: 20, text: "{{ card.ar }}"}
  - {name: he, type: text, x: 4mm, y: 20mm, width: 55mm, height: 15mm, size: 20, text: "{{ card.he }}"}
  - {name: mix, type: text, x: 4mm, y: 36mm, width: 55mm, height: 15mm, size: 14, text: "{{ card.mix }}"}
  - {name: lig, type: text, x: 4mm, y: 52mm, width: 55mm, height: 15mm, size: 24, font: Vollkorn, text: office}
"""
CARDS = f'cards:\n  - {{name: One, ar: "{ARABIC}", he: "{HEBREW}", mix: "السعر 12 نقطة and more"}}\n'


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """The card built once for the tests that read it back: (PDF, the fonts, the game folder)."""
    root = tmp_path_factory.mktemp("shaping") / "tiny"
    write(root / "game.yaml", "title: Tiny\n")
    write(root / "templates" / "tiny" / "face.yaml", TEMPLATE)
    write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + CARDS)
    report = Report()
    out = root.parent / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("cards",)), report)
    assert not report.items, [d.message for d in report.items]      # (no warning about right-to-left text)
    fonts = layout_game(load_game(root, REPO, Report()), Report()).res.fonts
    return out / "tiny" / "cards.pdf", fonts, root


def _line(origins: list[tuple[str, float, float]], text: str) -> list[tuple[str, float]]:
    """The characters of one printed line (PDFium reads them in logical order) with their x."""
    chars = [(ch, x) for ch, x, _ in origins if ch not in "\r\n"]
    joined = "".join(ch for ch, _ in chars)
    at = joined.index(text)
    return chars[at:at + len(text)]


def test_hebrew_and_arabic_print_right_to_left_and_arabic_joined(printed):
    pdf, fonts, _ = printed
    origins = glyph_origins(pdf)
    face = fonts.face("DejaVuSans").name
    for text in (ARABIC, HEBREW[:9]):
        line = _line(origins, text)         # the characters read back in the order they were typed
        letters = [(ch, x) for ch, x in line if ch != " "]
        xs = [x for _, x in letters]
        assert xs == sorted(xs, reverse=True) and len(set(xs)) == len(xs), line    # each left of the one before
    # joined: each letter's advance is its joining form's (HarfBuzz's), not its isolated form's
    word = ARABIC.split()[0]
    shaped = fonts.shaped(word, face)
    assert shaped is not None and shaped.rtl
    import uharfbuzz as hb
    hb_font = hb.Font(hb.Face(hb.Blob(fonts._paths[face].read_bytes())))
    isolated = [hb_font.get_nominal_glyph(ord(ch)) for ch in word]
    assert all(g != i for g, i in zip(shaped.glyphs[::-1][:4], isolated[:4], strict=True))    # initial, medial forms
    line = _line(origins, word)
    drawn = line[0][1] - line[-1][1]                   # from the last letter's origin to the first's (20 pt)
    assert drawn == pytest.approx((shaped.width - shaped.advances[-1]) * 0.020, abs=0.05)
    isolated_w = sum(fonts.width(ch, face, 20) for ch in word[1:])
    assert abs(drawn - isolated_w) > 1.0              # isolated forms would sit over a point further apart
    # the number inside Hebrew reads left to right, left of the words before it
    x1, x2, x3 = (x for _, x in _line(origins, "123"))
    assert x1 < x2 < x3 < min(x for _, x in _line(origins, HEBREW[:9]))


def test_numbers_and_latin_inside_arabic_keep_their_own_order(printed):
    pdf, _, _ = printed
    x = {ch: x for ch, x, _ in glyph_origins(pdf)}      # (these characters are printed once each)
    # "السعر 12 نقطة and more": an Arabic paragraph, its first word rightmost, then the number
    # (itself left to right), then the next word, and the English at its left end, left to right
    assert x["س"] > x["2"] > x["1"] > x["ق"] > x["m"] > x["d"] > x["n"] > x["a"]


def test_a_ligature_is_drawn_where_the_font_has_one_and_copies_as_its_letters(printed):
    pdf, fonts, _ = printed
    origins = glyph_origins(pdf)
    line = _line(origins, "office")         # the ligature's glyph reads back as the letters it stands for
    xo, xf1, xf2, xi, xc, _ = (x for _, x in line)
    assert xo < xf1 == xf2 == xi < xc            # one glyph (Vollkorn's ffi) for three letters
    shaped = fonts.shaped("office", fonts.face("Vollkorn").name)
    assert shaped is not None and len(shaped.glyphs) == 4
    assert xc - xf1 == pytest.approx(shaped.advances[1] * 0.024, abs=0.03)     # the ligature's advance, at 24 pt


def test_every_font_embedded_and_subset_and_the_same_bytes_twice(printed, tmp_path):
    pdf, _, root = printed
    fonts = pdf_fonts(pdf)
    assert any("DejaVuSans" in name for name in fonts) and any("Vollkorn" in name for name in fonts)
    assert all(fonts.values()) and all("+" in name for name in fonts)
    again = tmp_path / "again"
    build_game(root, REPO, BuildOptions(out=again, only=("cards",)), Report())
    assert (again / "tiny" / "cards.pdf").read_bytes() == pdf.read_bytes()


@pytest.mark.parametrize(("kinds", "base", "order"), [
    (["L", "", "L"], 0, [0, 1, 2]),                     # English
    (["R", "", "R"], 1, [2, 1, 0]),                     # Hebrew
    (["R", "", "R", "", "N"], 1, [4, 3, 2, 1, 0]),      # Hebrew then a number: the number leftmost
    (["L", "", "R", "", "R", "", "L"], 0, [0, 1, 4, 3, 2, 5, 6]),    # two Hebrew words inside English
    (["R", "", "N", "", "R", "", "L", "", "L"], 1, [6, 7, 8, 5, 4, 3, 2, 1, 0]),   # English at an Arabic line's end
    (["L", "", "N"], 0, [0, 1, 2]),                     # a number after English stays after it
])
def test_runs_in_visual_order(kinds, base, order):
    assert bidi.visual_order(bidi.levels(kinds, base)) == order


def test_paragraph_direction_is_its_first_strong_letter_or_the_style():
    assert bidi.paragraph_level(["12", "שלום", "abc"]) == 1
    assert bidi.paragraph_level(["12", "abc", "שלום"]) == 0
    assert bidi.paragraph_level(["שלום"], "ltr") == 0 and bidi.paragraph_level(["abc"], "rtl") == 1


def test_the_engine_places_a_right_to_left_line_right_to_left():
    from cardgen.resources.fonts import FontBook
    from cardgen.text.markup import parse
    from cardgen.text.typeset import TextStyle, Typesetter

    ts = Typesetter(FontBook([REPO / "cardgen" / "data" / "fonts"]), lambda name: Path(name))
    runs, _, _ = ts.set(parse(HEBREW), TextStyle("Lato", size=10, align="start"), 0, 0, 100, 20)
    assert [r.content for r in runs] == ["123", "עולם", "שלום"]           # left to right on the page
    assert runs[-1].x + runs[-1].width == pytest.approx(100)             # `start` is the right edge
    assert [r.x for r in runs] == sorted(r.x for r in runs)


def test_a_line_of_cardgens_own_text_in_hebrew_is_set_right_to_left(tmp_path):
    """`draw_line` (a sheet's margin note with the game's title) shapes and orders as the cards do."""
    from cardgen.render.draw import draw_line, new_canvas
    from cardgen.resources.fonts import FontBook

    fonts = FontBook([REPO / "cardgen" / "data" / "fonts"])
    pdf = tmp_path / "note.pdf"
    c = new_canvas(str(pdf), fonts)
    draw_line(c, fonts, "משחק · sheet 1", 12, 50, 400)
    c.showPage()
    c.save()
    x = {ch: x for ch, x, _ in glyph_origins(pdf)}
    # a Hebrew paragraph: the title at the right, read right to left; the Latin at the left
    assert x["מ"] > x["ש"] > x["ח"] > x["ק"] > x["1"] > x["t"] > x["s"]


def test_punctuation_round_a_number_goes_where_the_bidirectional_rules_put_it():
    """`(2).` at the end of a Hebrew sentence: the brackets face the right way round the number
    and the full stop ends the line at its left; `more.` in an English phrase at the end of a
    Hebrew paragraph has its full stop at the far left too."""
    from cardgen.resources.fonts import FontBook
    from cardgen.text.markup import parse
    from cardgen.text.typeset import TextStyle, Typesetter

    ts = Typesetter(FontBook([REPO / "cardgen" / "data" / "fonts"]), lambda name: Path(name))

    def drawn(text: str) -> list[str]:
        runs, _, _ = ts.set(parse(text), TextStyle("Lato", size=10), 0, 0, 200, 20)
        assert [r.x for r in runs] == sorted(r.x for r in runs)
        return [str(r.content) for r in runs]

    assert drawn("נקודות (2).") == [".(", "2", ")", "נקודות"]
    assert drawn("שלום and more.") == [".", "and", "more", "שלום"]
    assert drawn("Hello שלום.") == ["Hello", "שלום", "."]


def _synthetic_font(path: Path) -> Path:
    """A TrueType font of plain bars (a game's own font): Devanagari KA (600 units wide) and
    the vowel sign I (300), Thai KO KAI, SARA AM, NIKHAHIT and SARA AA; no OpenType tables, so
    what changes is HarfBuzz's shaping of the scripts themselves."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    widths = {".notdef": 500, "space": 250, "ka": 600, "iMatra": 300, "koKai": 550, "saraAm": 450,
              "nikhahit": 200, "saraAa": 350}

    def bar(w: int):
        pen = TTGlyphPen(None)
        if w != 250:
            pen.moveTo((20, 0))
            pen.lineTo((20, 600))
            pen.lineTo((w - 20, 600))
            pen.lineTo((w - 20, 0))
            pen.closePath()
        return pen.glyph()

    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(list(widths))
    fb.setupCharacterMap({0x20: "space", 0x915: "ka", 0x93F: "iMatra", 0xE01: "koKai", 0xE33: "saraAm",
                          0xE4D: "nikhahit", 0xE32: "saraAa"})
    fb.setupGlyf({n: bar(w) for n, w in widths.items()})
    fb.setupHorizontalMetrics({n: (w, 20) for n, w in widths.items()})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Synth", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200, sCapHeight=700)
    fb.setupPost()
    path.parent.mkdir(parents=True, exist_ok=True)
    fb.save(str(path))
    return path


def test_devanagari_and_thai_are_shaped_in_a_games_own_font(tiny_game, tmp_path):
    import pypdfium2 as pdfium

    template = ('elements:\n  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}\n'
                '  - {name: t, type: text, x: 4mm, y: 4mm, width: 55mm, height: 20mm, size: 40, font: Synth, '
                'text: "{{ card.text }}"}\n')
    root = tiny_game('cards:\n  - {name: One, text: "कि"}\n  - {name: Two, text: "กำ"}\n', template=template)
    _synthetic_font(root / "fonts" / "Synth-Regular.ttf")
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items, [d.message for d in report.items]
    pdf = pdfium.PdfDocument(str(tmp_path / "out" / "tiny" / "cards.pdf"))
    # Devanagari: the vowel sign I, typed after KA, is drawn before it (to its left)
    image = pdf[0].render(scale=2).to_pil().convert("L")
    row = image.crop((0, 0, image.width // 2, image.height)).point(lambda v: 255 if v < 128 else 0)
    y = row.getbbox()[1] + 5
    line = [row.getpixel((x, y)) for x in range(row.width)]
    bars, x = [], 0
    while x < len(line):
        if line[x]:
            start = x
            while x < len(line) and line[x]:
                x += 1
            bars.append((x - start) / 2)          # points
        x += 1
    assert bars == [pytest.approx(0.26 * 40, abs=1), pytest.approx(0.56 * 40, abs=1)]   # I's bar, then KA's
    # Thai: SARA AM is drawn as NIKHAHIT and SARA AA (three glyphs for two characters), and the
    # text still reads as typed
    fonts = layout_game(load_game(root, REPO, Report()), Report()).res.fonts
    thai = fonts.shaped("กำ", fonts.face("Synth").name)
    assert thai is not None and len(thai.glyphs) == 3
    texts = [pdf[k].get_textpage().get_text_bounded().replace("\u200b", "") for k in range(2)]   # (a card a page)
    assert texts == ["कि", "กำ"]


def test_a_font_book_that_measured_nothing_shapes_what_layouts_made_elsewhere_name():
    """A worker process, or a build whose sides all come from the layout cache, draws runs in
    fonts its own book never looked up: they are shaped alike all the same."""
    from cardgen.resources.fonts import FontBook

    made = FontBook([REPO / "cardgen" / "data" / "fonts"])
    name = made.face("Vollkorn").name
    fresh = FontBook([REPO / "cardgen" / "data" / "fonts"])
    assert fresh.shaped("office", name) == made.shaped("office", name) is not None
    assert fresh.shaped("office", "Helvetica") is None         # (a font cardgen did not register)


# -- the runs shaped, kept in the user's cache (`Shaper.kept`) ---------------------------------
RUNS = ("office", "plain", ARABIC.split()[0], "12", "fi fl ffi", "Ünïcödé", "\u05e9\u05dc\u05d5\u05dd")


def _fonts_dir() -> Path:
    return REPO / "cardgen" / "data" / "fonts"


def test_a_run_shaped_before_is_read_back_without_harfbuzz(tmp_path, monkeypatch):
    """What one process shaped (plain or not, left to right or right to left) a later one reads
    from the user's cache, equal to HarfBuzz's answer, and neither imports nor calls HarfBuzz."""
    import hashlib

    from cardgen.resources import shaping

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fonts = [_fonts_dir() / "Vollkorn-Regular.ttf", _fonts_dir() / "DejaVuSans.ttf"]
    versions = [hashlib.sha256(f.read_bytes()).hexdigest() for f in fonts]
    first = shaping.Shaper(Path.read_bytes)
    with first.recording():
        shaped = {(t, f): first.shape(t, f, v) for t in RUNS for f, v in zip(fonts, versions, strict=True)}
    assert any(s is None for s in shaped.values()) and any(s is not None and s.rtl for s in shaped.values())
    assert shaped["office", fonts[0]] is not None                   # (the ligature)
    assert len(list((tmp_path / "cardgen" / "shaping").iterdir())) == 2
    assert first.kept(versions[0]) is None                          # (outside the block: none read or added)

    def no_harfbuzz() -> None:
        raise AssertionError("HarfBuzz asked for")
    monkeypatch.setattr(shaping, "_harfbuzz", no_harfbuzz)
    later = shaping.Shaper(Path.read_bytes)
    with later.recording():
        assert {(t, f): later.shape(t, f, v) for t in RUNS for f, v in zip(fonts, versions, strict=True)} == shaped
        with pytest.raises(AssertionError, match="HarfBuzz"):       # (a run not shaped before is)
            later.shape("another", fonts[0], versions[0])
    with pytest.raises(AssertionError, match="HarfBuzz"):           # (outside the block: HarfBuzz)
        shaping.Shaper(Path.read_bytes).shape("office", fonts[0], versions[0])


def test_a_damaged_or_foreign_record_is_shaped_again(tmp_path, monkeypatch):
    """A record damaged on disk (its seal), an entry of another shape, or a run shaped in a file
    that changed after it was measured (its bytes not its digest's) is never trusted."""
    import hashlib

    from cardgen.core.digest import keep_sealed
    from cardgen.resources import shaping

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    font = _fonts_dir() / "Vollkorn-Regular.ttf"
    version = hashlib.sha256(font.read_bytes()).hexdigest()
    first = shaping.Shaper(Path.read_bytes)
    with first.recording():
        expected = {t: first.shape(t, font, version) for t in RUNS}
    record = shaping._record_file(version)
    assert record is not None and record.is_file()
    data = bytearray(record.read_bytes())
    data[-3] ^= 1
    record.write_bytes(bytes(data))
    again = shaping.Shaper(Path.read_bytes)
    with again.recording():
        assert again.kept(version) == {}                            # (damaged: deleted, shaped again)
        assert {t: again.shape(t, font, version) for t in RUNS} == expected
    # entries of another shape: ignored, the run shaped again
    office = expected["office"]
    assert office is not None
    bad = {"office": (office.glyphs, office.clusters, office.advances, office.dx, office.dy, 1, False, office.codes),
           "plain": ("not", "a", "run")}
    keep_sealed(record, shaping._record_head() + __import__("marshal").dumps(bad))
    third = shaping.Shaper(Path.read_bytes)
    with third.recording():
        assert third.shape("office", font, version) == office and third.shape("plain", font, version) is None
    # a file whose bytes are not its digest's (changed since measured): shaped, not recorded
    record.unlink()
    other = "0" * 64
    fourth = shaping.Shaper(Path.read_bytes)
    with fourth.recording():
        assert fourth.shape("office", font, other) == office
    assert shaping._record_file(other) is not None and not shaping._record_file(other).exists()
    assert not record.exists()


def test_a_record_keeps_the_runs_last_shaped(tmp_path, monkeypatch):
    import hashlib

    from cardgen.resources import shaping

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(shaping, "KEPT_RUNS", 3)
    font = _fonts_dir() / "Vollkorn-Regular.ttf"
    version = hashlib.sha256(font.read_bytes()).hexdigest()
    first = shaping.Shaper(Path.read_bytes)
    with first.recording():
        for text in ("one", "two", "three", "four", "five", "six", "seven"):    # (over twice the bound: trimmed)
            first.shape(text, font, version)
        assert list(first.kept(version) or {}) == ["five", "six", "seven"]
        first.shape("eight", font, version)
    later = shaping.Shaper(Path.read_bytes)
    with later.recording():
        assert list(later.kept(version) or {}) == ["six", "seven", "eight"]


def test_a_run_coded_again_in_its_font_changes_nothing_and_is_not_worked_again(tmp_path, monkeypatch):
    """`glyph_codes` of a run a font coded before (the same `Shaped`, as the font book keeps it)
    leaves the font's glyph map, widths and ToUnicode text as they were and does not walk the
    run again (the print-service file names the glyphs of every side it keeps); the same text
    shaped anew is worked again; and a font that coded other runs in between ends as one that
    coded each once."""
    import hashlib

    from reportlab.pdfbase.ttfonts import TTFont

    from cardgen.render.glyphs import glyph_codes
    from cardgen.resources import shaping

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = _fonts_dir() / "Vollkorn-Regular.ttf"
    version = hashlib.sha256(path.read_bytes()).hexdigest()
    shaper = shaping.Shaper(Path.read_bytes)
    office, offer = shaper.shape("office", path, version), shaper.shape("offer", path, version)
    assert office is not None and offer is not None

    def state(font) -> tuple:
        return dict(font.face.charToGlyph), dict(font.face.charWidths), dict(font._cardgen_text)

    once = TTFont("once", str(path))
    glyph_codes(once, "office", office)
    glyph_codes(once, "offer", offer)
    again = TTFont("again", str(path))
    assert glyph_codes(again, "office", office) == office.codes
    glyph_codes(again, "offer", offer)
    walked = []
    real = shaping.Shaped.cluster_text
    monkeypatch.setattr(shaping.Shaped, "cluster_text", lambda self, text: walked.append(text) or real(self, text))
    assert glyph_codes(again, "office", office) == office.codes and walked == []
    assert state(again) == state(once) and any(ord(ch) >= shaping.PSEUDO for ch in office.codes)
    anew = shaping.Shaper(Path.read_bytes).shape("office", path, version)
    walked.clear()
    assert anew is not office and glyph_codes(again, "office", anew) == office.codes and walked == ["office"]
    assert state(again) == state(once)
