"""Inline spans and named styles (`[color=#c00 size=8pt]...[/]`, `[prereq]...[/prereq]`,
Pango's `<span foreground=...>`), read back from what is printed: colours sampled from the
pixels of a rendered card, sizes and positions from the PDF's text."""
from __future__ import annotations

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from conftest import REPO

from cardgen.core.errors import CardgenError, Report
from cardgen.core.spans import Span
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.text.markup import parse

DPI = 300
STYLES = 'styles:\n  prereq: {color: "#cc0000", size: 8pt}\n'
CARD = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: body, type: text, x: 4mm, y: 10mm, width: 55mm, height: 40mm, size: 12, align: center,
     text: "{{ card.text }}"}
"""


def frags(text, styles=None, problems=None):
    return [f for para in parse(text, styles, problems) for word in para if word is not None and isinstance(word, list)
            for f in word]


def test_spans_parse_with_their_attributes():
    got = frags("a [color=#c00 size=8pt font=Vollkorn]b <span weight='800' letter_spacing=\"1024\">c</span>[/] d")
    assert [f.value for f in got] == ["a", "b", "c", "d"]
    assert got[0].span is None and got[3].span is None
    assert got[1].span == Span(color=(0.8, 0.0, 0.0, 1.0), size=(8.0, "pt"), font="Vollkorn")
    # nested: the outer span's attributes go on, Pango's letter spacing is in 1/1024 pt
    assert got[2].span == Span(color=(0.8, 0.0, 0.0, 1.0), size=(8.0, "pt"), font="Vollkorn", weight=800,
                               tracking=(1.0, "pt"))


def test_brackets_that_are_no_span_stay_text():
    got = frags(r"Roll [X] or [1/2], \[b] and a<b")
    assert "".join(f.value for f in got) == "Roll[X]or[1/2],[b]anda<b"
    assert all(f.span is None for f in got)


def test_a_named_style_and_a_relative_size():
    styles = {"prereq": Span(color=(1.0, 0.0, 0.0, 1.0), size=(8.0, "pt"))}
    got = frags("[prereq]Needs [size=50%]X[/][/prereq] done", styles)
    assert got[0].span == styles["prereq"] and got[1].span.size == (4.0, "pt") and got[2].span is None


def test_what_is_wrong_with_a_span_is_said():
    problems: list[str] = []
    frags("[bogus]x[/bogus] [colr=red]y[/] [color=nope]z[/] [/]", {"prereq": Span()}, problems)
    assert problems == [
        "unknown style 'bogus' in '[bogus]' (styles in game.yaml `styles:`: prereq)",
        "unknown span attribute 'colr' (use color, size, font, weight, style, letter_spacing, align, space_before, space_after, indent, leading), in '[colr=red]'",
        "unknown colour 'nope'; use #rrggbb, a CSS colour name or none, in '[color=nope]'",
        "'[/]' closes no span",
    ]


def _chars(pdf: bytes, index: int = 0):
    """Each printed character of a page with its box (points, from the top) and its font size."""
    page = pdfium.PdfDocument(pdf)[index]
    _, page_h = page.get_size()
    text = page.get_textpage()
    out = []
    for i in range(text.count_chars()):
        ch = text.get_text_range(i, 1)
        if ch.strip():
            left, bottom, right, top = text.get_charbox(i)
            out.append((ch, (left, page_h - top, right, page_h - bottom), pdfium_c.FPDFText_GetFontSize(text.raw, i)))
    return page, out


def _ink(image, box):
    """The mean colour of the dark pixels in a box (points)."""
    s = DPI / 72
    crop = image.crop(tuple(round(v * s) for v in box))
    data = crop.tobytes()
    dark = [p for p in zip(data[0::3], data[1::3], data[2::3], strict=True) if sum(p) < 600]
    assert dark
    return tuple(sum(c[k] for c in dark) / len(dark) for k in range(3))


def test_a_red_prerequisite_line_above_a_description_centred_together(tiny_game, tmp_path):
    root = tiny_game('cards:\n  - {name: One, text: "[prereq]Prerequisite: Scout[/prereq]\\nDraw two cards."}\n',
                     template=CARD, game_extra=STYLES)
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    page, chars = _chars((tmp_path / "out" / "tiny" / "cards.pdf").read_bytes())
    image = page.render(scale=DPI / 72).to_pil().convert("RGB")
    text = "".join(c for c, _, _ in chars)
    assert text.startswith("Prerequisite:ScoutDrawtwocards.")
    first, second = chars[:18], chars[18:31]
    assert {round(size, 2) for _, _, size in first} == {8.0}        # the style's size
    assert {round(size, 2) for _, _, size in second} == {12.0}      # the text's own
    r, g, b = _ink(image, first[0][1])
    assert r > 150 and g < 90 and b < 90                            # red
    r, g, b = _ink(image, second[0][1])
    assert max(r, g, b) < 90                                        # black
    # one above the other, each centred on the same axis
    centre = lambda cs: (cs[0][1][0] + cs[-1][1][2]) / 2            # noqa: E731
    assert first[0][1][3] < second[0][1][1]
    assert centre(first) == pytest.approx(centre(second), abs=1.0)


def test_pango_spans_colour_and_letter_spacing(tiny_game, tmp_path):
    text = '<span foreground=\\"#0000ff\\" letter_spacing=\\"3072\\">WIDE</span> WIDE'
    root = tiny_game(f'cards:\n  - {{name: One, text: "{text}"}}\n', template=CARD.replace("center", "left"))
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    page, chars = _chars((tmp_path / "out" / "tiny" / "cards.pdf").read_bytes())
    image = page.render(scale=DPI / 72).to_pil().convert("RGB")
    assert "".join(c for c, _, _ in chars).startswith("WIDEWIDE")
    spaced = chars[1][1][0] - chars[0][1][0]
    plain = chars[5][1][0] - chars[4][1][0]
    assert spaced - plain == pytest.approx(3.0, abs=0.1)             # 3072/1024 pt between letters
    r, g, b = _ink(image, chars[0][1])
    assert b > 150 and r < 90 and g < 90


def test_an_unknown_style_is_warned_at_its_line(tiny_game, tmp_path):
    root = tiny_game('cards:\n  - {name: One, text: "[prereqs]Needs X[/prereqs] then"}\n', template=CARD,
                     game_extra=STYLES)
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    msgs = [str(i) for i in report.items]
    assert len(msgs) == 1 and "unknown style 'prereqs' in '[prereqs]' (styles in game.yaml `styles:`: prereq)" \
        in msgs[0]
    assert msgs[0].startswith(f"{root / 'deck.yaml'}:5:23: warning: card 'One'")      # the card's text, in its file


def test_a_bad_style_in_game_yaml_is_an_error_at_its_line(tiny_game, tmp_path):
    root = tiny_game(game_extra='styles:\n  prereq: {color: "#cc0000", sise: 8pt}\n')
    with pytest.raises(CardgenError) as caught:
        build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert str(caught.value) == (f"{root / 'game.yaml'}:3:36: error: game.yaml: `styles` 'prereq' is not a valid "
                                 f"style: unknown span attribute 'sise' (use color, size, font, weight, style, letter_spacing, align, space_before, space_after, indent, leading)")


def test_a_style_changed_in_game_yaml_lays_the_cards_out_again(tiny_game, tmp_path):
    root = tiny_game('cards:\n  - {name: One, text: "[prereq]Needs[/prereq] it"}\n', template=CARD, game_extra=STYLES)
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("cards",)), Report())
    (root / "game.yaml").write_text("title: Tiny\n" + STYLES.replace("#cc0000", "#0000cc"))
    build_game(root, REPO, BuildOptions(out=out, only=("cards",)), Report())
    page, chars = _chars((out / "tiny" / "cards.pdf").read_bytes())
    r, g, b = _ink(page.render(scale=DPI / 72).to_pil().convert("RGB"), chars[0][1])
    assert b > 150 and r < 90 and g < 90                   # the new colour, not the cached layout's


def test_weights_from_a_font_folder(tiny_game, tmp_path):
    """`weight: 800` prints the family's ExtraBold file, 300 its Light, 600 the nearest
    heavier one it has (Bold), an italic 800 the nearest italic (BoldItalic: it has no
    ExtraBoldItalic)."""
    from pdffonts import pdf_fonts

    fonts = REPO / "cardgen" / "data" / "fonts"
    text = ("Plain [weight=800]Heavy[/] [weight=light]Thin[/] [weight=600]Semi[/] "
            "[weight=800 style=italic]Slant[/]")
    root = tiny_game(f'cards:\n  - {{name: One, text: "{text}"}}\n',
                     template=CARD.replace("size: 12,", "size: 12, font: Fam,"))
    (root / "fonts").mkdir()
    for src, dst in (("Lato-Regular", "Fam-Regular"), ("Vollkorn-Bold", "Fam-ExtraBold"),
                     ("CabinSketch-Regular", "Fam-Light"), ("Lato-Bold", "Fam-Bold"),
                     ("Lato-BoldItalic", "Fam-BoldItalic")):
        (root / "fonts" / f"{dst}.ttf").write_bytes((fonts / f"{src}.ttf").read_bytes())
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    pdf = tmp_path / "out" / "tiny" / "cards.pdf"
    page = pdfium.PdfDocument(pdf.read_bytes())[0]
    textpage = page.get_textpage()
    printed = []
    for i in range(textpage.count_chars()):
        ch = textpage.get_text_range(i, 1)
        buf = bytes(256)
        n = pdfium_c.FPDFText_GetFontInfo(textpage.raw, i, buf, len(buf), None)
        if ch.strip():
            printed.append((ch, buf[:max(n - 1, 0)].decode("latin-1").split("+")[-1]))
    assert "".join(c for c, _ in printed) == "PlainHeavyThinSemiSlant"
    fonts_of = [printed[k][1] for k in (0, 5, 10, 14, 18)]
    # (the PDF names each font by its own name: the files were copied from the bundled fonts)
    assert fonts_of == ["Lato-Regular", "Vollkorn-Bold", "CabinSketch-Regular", "Lato-Bold", "Lato-BoldItalic"]
    embedded = pdf_fonts(pdf)
    assert embedded and all(embedded.values())          # every font embedded and subset


def _variable_font(path):
    """A tiny variable font: 'A' and 'B' bars whose width grows with wght (100-900)."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib.tables.TupleVariation import TupleVariation

    fb = FontBuilder(1000, isTTF=True)
    order = [".notdef", "A", "B", "space"]
    fb.setupGlyphOrder(order)
    fb.setupCharacterMap({65: "A", 66: "B", 32: "space"})

    def rect(x0, x1):
        pen = TTGlyphPen(None)
        pen.moveTo((x0, 0))
        for point in ((x0, 700), (x1, 700), (x1, 0)):
            pen.lineTo(point)
        pen.closePath()
        return pen.glyph()
    empty = TTGlyphPen(None).glyph()
    fb.setupGlyf({".notdef": rect(50, 450), "A": rect(50, 150), "B": rect(50, 150), "space": empty})
    fb.setupHorizontalMetrics({".notdef": (500, 50), "A": (200, 50), "B": (200, 50), "space": (250, 0)})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Varia", "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200, sCapHeight=700)
    fb.setupPost()
    fb.setupFvar([("wght", 100, 400, 900, "Weight")], [])
    # at wght 900: the bar 400 units wider and the advance too (the right edge points, the
    # advance's phantom point); at 100: 80 narrower
    wide = [(0, 0), (0, 0), (400, 0), (400, 0), (0, 0), (400, 0), (0, 0), (0, 0)]
    thin = [(0, 0), (0, 0), (-80, 0), (-80, 0), (0, 0), (-80, 0), (0, 0), (0, 0)]
    deltas = [TupleVariation({"wght": (0, 1.0, 1.0)}, wide), TupleVariation({"wght": (-1.0, -1.0, 0)}, thin)]
    fb.setupGvar({"A": deltas, "B": deltas})
    fb.save(path)


def test_a_variable_font_instanced_at_the_weight_asked(tiny_game, tmp_path):
    """A family that is one variable font (`Varia[wght].ttf`): each weight printed with the
    font instanced at it (fontTools), embedded and subset; the 'A' bar 100 units wide at 400,
    420 at 800 and 20 at 100 (of 1000 a size)."""
    from pdffonts import pdf_fonts

    text = "A [weight=800]A[/] [weight=thin]A[/] [weight=800 style=italic]B[/]"
    root = tiny_game(f'cards:\n  - {{name: One, text: "{text}"}}\n',
                     template=CARD.replace("size: 12,", "size: 12, font: Varia,").replace("center", "left"))
    (root / "fonts").mkdir()
    _variable_font(root / "fonts" / "Varia[wght].ttf")
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), report)
    assert not report.items
    pdf = tmp_path / "out" / "tiny" / "cards.pdf"
    _, chars = _chars(pdf.read_bytes())
    assert "".join(c for c, _, _ in chars) == "AAAB"
    widths = [box[2] - box[0] for _, box, _ in chars]
    assert widths == pytest.approx([1.2, 5.04, 0.24, 5.04], abs=0.05)     # (no italic file: the upright one)
    embedded = pdf_fonts(pdf)
    assert len(embedded) == 3 and all(embedded.values())


def test_spans_in_the_booklet_and_their_problems_at_the_rules_line(tiny_game, tmp_path):
    root = tiny_game(game_extra=STYLES)
    (root / "rules.yaml").write_text("sections:\n  - title: Setup\n    body:\n      - \"[prereq]Needs a table.[/prereq]\"\n"
                                     "      - \"Then [prereqs]shuffle[/prereqs].\"\n")
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("booklet",)), report)
    msgs = [str(i) for i in report.items]
    assert msgs == [f"{root / 'rules.yaml'}:5:9: warning: rulebook text: unknown style 'prereqs' in '[prereqs]' "
                    f"(styles in game.yaml `styles:`: prereq)"]
    pdf = (tmp_path / "out" / "tiny" / "rules.pdf").read_bytes()
    pages = [_chars(pdf, k) for k in range(len(pdfium.PdfDocument(pdf)))]
    page, chars = next(p for p in pages if "Needsatable." in "".join(c for c, _, _ in p[1]))
    at = "".join(c for c, _, _ in chars).index("Needsatable.")
    assert round(chars[at][2], 2) == 8.0                 # the style's size
    r, g, b = _ink(page.render(scale=DPI / 72).to_pil().convert("RGB"), chars[at][1])
    assert r > 150 and g < 90 and b < 90                  # and colour
