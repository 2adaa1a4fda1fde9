"""Templates through layout: inheritance, conditions, units, text fitting, icons, images, sandbox."""
from __future__ import annotations

import re

import pytest
from conftest import REPO, write
from pdfgeom import pdf_entry
from PIL import Image as PILImage

from cardgen.core.errors import CardgenError, Report
from cardgen.core.units import MM, color, length_pt
from cardgen.model import ops
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game


def lay(root, report=None):
    report = report if report is not None else Report()
    game = load_game(root, REPO, report)
    return layout_game(game, report), report


def face(rendered, i=0):
    return rendered.faces[i][2]


def by_type(layout, kind):
    return [op for op in layout.ops if isinstance(op, kind)]


def test_units():
    assert length_pt(10) == pytest.approx(10 * MM)
    assert length_pt("1in") == 72
    assert length_pt("12pt") == 12
    assert length_pt("50%", 200) == 100
    assert length_pt("-3mm") == pytest.approx(-3 * MM)
    with pytest.raises(ValueError, match="expected a length"):
        length_pt("3 furlongs")
    assert color("#f00") == (1.0, 0.0, 0.0, 1.0)
    assert color("#ff000080")[3] == pytest.approx(128 / 255)
    assert color("none") is None
    with pytest.raises(ValueError, match="unknown colour"):
        color("#12345")


def test_extends_overrides_by_name_and_adds_in_place(tiny_game):
    root = tiny_game("cards:\n  - {name: A, cost: 3}\n")
    write(root / "templates" / "tiny" / "child.yaml", """
        extends: tiny/face
        elements:
          - name: bg
            fill: "#00ff00"
          - name: cost
            type: text
            before: title
            text: "{{ card.cost }}"
    """)
    write(root / "deck.yaml", "deck: D\ntemplate: tiny/child\ncards:\n  - {name: A, cost: 3}\n")
    r, _ = lay(root)
    layout = face(r)
    rect = by_type(layout, ops.Rect)[0]
    assert rect.fill == (0.0, 1.0, 0.0, 1.0)
    texts = by_type(layout, ops.Text)
    assert [t.runs[0].content for t in texts] == ["3", "A"]        # cost inserted before title


def test_bleed_box_reaches_into_the_bleed_and_percent_units(tiny_game):
    root = tiny_game("cards:\n  - {name: A}\n", template="""
        elements:
          - {name: bg, type: rect, box: bleed, fill: red}
          - {name: half, type: rect, x: 50%, y: 25%, width: 50%, height: 10mm, fill: blue}
    """)
    r, _ = lay(root)
    bg, half = by_type(face(r), ops.Rect)
    b = 3.175 * MM
    assert (bg.x, bg.y) == pytest.approx((-b, -b))
    assert (bg.w, bg.h) == pytest.approx((63.5 * MM + 2 * b, 88.9 * MM + 2 * b))
    assert (half.x, half.y, half.w, half.h) == pytest.approx((31.75 * MM, 88.9 / 4 * MM, 31.75 * MM, 10 * MM))


def test_when_and_template_defaults(tiny_game):
    root = tiny_game("cards:\n  - {name: A, elite: true}\n  - {name: B}\n", template="""
        defaults: {elite: false}
        elements:
          - {name: star, type: rect, when: card.elite, fill: gold}
    """)
    r, _ = lay(root)
    assert len(by_type(face(r, 0), ops.Rect)) == 1
    assert len(by_type(face(r, 1), ops.Rect)) == 0


def test_shrink_fits_text_and_overflow_is_a_warning_naming_the_card(tiny_game):
    long = "word " * 60
    root = tiny_game(f"cards:\n  - {{name: Long, text: '{long}'}}\n", template="""
        elements:
          - {name: fits, type: text, x: 5mm, y: 5mm, width: 50mm, height: 30mm, text: "{{ card.text }}",
             size: 12, fit: shrink, min_size: 6}
          - {name: spills, type: text, x: 5mm, y: 40mm, width: 20mm, height: 8mm, text: "{{ card.text }}",
             size: 10}
    """)
    r, report = lay(root)
    fits, spills = by_type(face(r), ops.Text)
    assert 6 <= fits.size < 12 and not fits.overflow
    last = max(run.baseline for run in fits.runs)
    assert last <= (5 + 30) * MM
    assert spills.overflow
    warnings = [str(d) for d in report.warnings]
    assert len(warnings) == 1
    # at the card's `text:` (where the words come from), naming the element's line in the template
    assert "deck.yaml:1:" not in warnings[0] and "/deck.yaml:" in warnings[0]
    assert "warning: card 'Long' (deck.yaml:" in warnings[0]
    assert "field `text` (element 'spills', " in warnings[0] and "face.yaml:" in warnings[0]
    assert "): text does not fit its box" in warnings[0]


def test_inline_markup_and_icon_sit_on_the_baseline(tiny_game):
    root = tiny_game("cards:\n  - {name: A}\n", template="""
        elements:
          - {name: t, type: text, x: 0, y: 0, width: 60mm, height: 20mm, size: 10,
             text: "Pay **two** *coins* :coins: now"}
    """)
    r, _ = lay(root)
    (text,) = by_type(face(r), ops.Text)
    runs = text.runs
    fonts = {run.content: run.font for run in runs if run.kind == "text"}
    # (a font file registered from a second path in one process gets its path's digest after its name)
    assert [re.sub(r"-[0-9a-f]{6}$", "", fonts[w]).rpartition("-")[2] for w in ("two", "coins", "Pay")] == \
        ["Bold", "Italic", "Regular"]
    icon = next(run for run in runs if run.kind == "icon")
    assert icon.content.name == "coins.svg"
    assert icon.size == pytest.approx(10)                   # scales with the font size
    assert icon.baseline == pytest.approx(runs[0].baseline)  # drawn upwards from the text baseline
    now = next(run for run in runs if run.content == "now")
    assert icon.x < now.x and icon.x + icon.size <= now.x


def test_unknown_inline_icon_is_an_error(tiny_game):
    root = tiny_game("cards:\n  - {name: A}\n", template="""
        elements:
          - {name: t, type: text, text: "Pay :coinz:"}
    """)
    with pytest.raises(CardgenError, match=r"unknown icon ':coinz:'; did you mean 'coins'\?"):
        lay(root)


def test_icon_repeats_count_times_centred(tiny_game):
    root = tiny_game("cards:\n  - {name: A, power: 3}\n", template="""
        elements:
          - {name: pips, type: icon, icon: heart-plus, count: "{{ card.power }}", x: 10mm, y: 10mm,
             width: 40mm, height: 5mm, gap: 1mm}
    """)
    r, _ = lay(root)
    icons = by_type(face(r), ops.Icon)
    assert len(icons) == 3
    xs = [i.x / MM for i in icons]
    assert xs == pytest.approx([10 + (40 - 17) / 2 + k * 6 for k in range(3)])


@pytest.mark.parametrize("fit,expect", [
    ("contain", (0, 10, 40, 20)),      # 200x100 image in a 40x40 mm box
    ("cover", (-20, 0, 80, 40)),
    ("stretch", (0, 0, 40, 40)),
])
def test_image_fit(tiny_game, fit, expect):
    root = tiny_game("cards:\n  - {name: A}\n", template=f"""
        elements:
          - {{name: art, type: image, src: pic.png, x: 0, y: 0, width: 40mm, height: 40mm, fit: {fit}}}
    """)
    (root / "art").mkdir()
    PILImage.new("RGB", (200, 100), "red").save(root / "art" / "pic.png")
    r, _ = lay(root)
    (img,) = by_type(face(r), ops.Image)
    assert tuple(v / MM for v in (img.x, img.y, img.w, img.h)) == pytest.approx(expect)
    assert (img.clip is not None) == (fit == "cover")


def test_missing_image_with_placeholder_draws_a_labelled_box(tiny_game):
    root = tiny_game("cards:\n  - {name: A}\n", template="""
        elements:
          - {name: art, type: image, src: "{{ card.name }}.png", placeholder: "art to come"}
    """)
    r, _ = lay(root)
    (ph,) = by_type(face(r), ops.Placeholder)
    assert ph.label == "art to come"


def test_expressions_are_sandboxed(tiny_game):
    root = tiny_game("cards:\n  - {name: A}\n", template="""
        elements:
          - {name: t, type: text, text: "{{ card.__class__.__mro__ }}"}
    """)
    with pytest.raises(CardgenError, match=r"has no field '__class__'|not allowed"):
        lay(root)


def test_numbers_keep_their_type_and_fields_named_like_methods_work(tiny_game):
    root = tiny_game("cards:\n  - {name: A, items: 4, cost: 2}\n", template="""
        elements:
          - {name: t, type: text, text: "{{ card.items }}", size: "{{ card.cost * 4 }}"}
    """)
    r, _ = lay(root)
    (t,) = by_type(face(r), ops.Text)
    assert t.runs[0].content == "4" and t.size == 8


def test_png_jpeg_and_svg_art_reach_the_pdf_svg_as_vectors(tiny_game, tmp_path):
    from pypdf import PdfReader

    from cardgen.pipeline.build import BuildOptions, build_game

    root = tiny_game("cards:\n  - {name: A}\n", template="""
        elements:
          - {name: a, type: image, src: a.png, x: 0, y: 0, width: 20mm, height: 20mm}
          - {name: b, type: image, src: b.jpg, x: 20mm, y: 0, width: 20mm, height: 20mm}
          - {name: c, type: image, src: c.svg, x: 40mm, y: 0, width: 20mm, height: 20mm}
    """)
    (root / "art").mkdir()
    PILImage.new("RGB", (40, 40), "red").save(root / "art" / "a.png")
    PILImage.new("RGB", (40, 40), "blue").save(root / "art" / "b.jpg", quality=90)
    (root / "art" / "c.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                                        '<rect x="1" y="1" width="8" height="8" fill="#00ff00"/></svg>')
    build_game(root, REPO, BuildOptions(out=tmp_path, only=("cards",)), Report())
    reader = PdfReader(tmp_path / "tiny" / "cards.pdf")
    kinds = []

    def walk(res):
        for xo in pdf_entry(res, "/XObject").values():
            xo = xo.get_object()
            kinds.append((str(xo["/Subtype"]), str(xo.get("/Filter", ""))))
            if "/Resources" in xo:
                walk(xo["/Resources"].get_object())

    walk(reader.pages[0]["/Resources"].get_object())
    images = [k for k in kinds if k[0] == "/Image"]
    forms = [k for k in kinds if k[0] == "/Form"]
    assert len(images) == 2                       # the PNG and the JPEG
    assert any("DCTDecode" in f for _, f in images)   # the JPEG stays a JPEG
    assert len(forms) >= 2                        # the card, and the SVG as a vector form


def test_values_that_do_not_read_the_card_are_worked_out_once_per_deck(tiny_game, monkeypatch):
    from cardgen.layout import expr

    template = """
        elements:
          - {name: bg, type: rect, box: bleed, fill: "{{ game.palette.bg }}"}
          - {name: band, type: rect, x: 0, y: 0, width: "{{ deck.vars.band }}", height: 5mm, fill: "{{ card.color }}"}
          - {name: filler, type: text, x: 0, y: 10mm, width: 20mm, height: 20mm, text: "{{ lipsum(1) }}"}
    """
    root = tiny_game(template=template, game_extra="palette: {bg: '#102030'}\n", deck_extra="vars: {band: 12mm}\n")
    calls: dict[str, int] = {}
    real = expr.evaluate

    def counting(value, ctx):
        calls[value] = calls.get(value, 0) + 1
        return real(value, ctx)

    monkeypatch.setattr(expr, "evaluate", counting)
    rendered, _ = lay(root)
    assert calls == {"{{ game.palette.bg }}": 1, "{{ deck.vars.band }}": 1, "{{ card.color }}": 2,
                     "{{ lipsum(1) }}": 2}             # two cards: card and lipsum() each time
    bands = [by_type(face(rendered, i), ops.Rect)[1] for i in range(2)]
    assert [b.w for b in bands] == [pytest.approx(12 * MM)] * 2
    assert [b.fill for b in bands] == [color("#ff0000"), color("#00ff00")]
    assert all(by_type(face(rendered, i), ops.Rect)[0].fill == color("#102030") for i in range(2))
