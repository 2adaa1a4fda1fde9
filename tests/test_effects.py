"""Fills and effects (gradients, opacity, drop shadows, text outlines), read back from the
pixels of rendered cards: a gradient's end colours, a shadow's offset and its soft edge, a
blended translucent colour, an outline's width; and the PDF/X keeping none of it live."""
from __future__ import annotations

import itertools

import pypdfium2 as pdfium
import pytest
from conftest import REPO

from cardgen.core import paint
from cardgen.core.errors import CardgenError, Report
from cardgen.pipeline.build import BuildOptions, build_game

DPI = 200
BLEED = 3.175
CARD = "cards:\n  - {name: One}\n"


def _card(tiny_game, tmp_path, elements: str, name: str = "out"):
    """The first card of a game whose face is a white card with `elements`, rendered."""
    tpl = "elements:\n  - {name: bg, type: rect, box: bleed, fill: \"#ffffff\"}\n" + elements
    root = tiny_game(CARD, template=tpl)
    report = Report()
    build_game(root, REPO, BuildOptions(out=tmp_path / name, only=("cards",)), report)
    assert not report.items, [str(i) for i in report.items]
    pdf = pdfium.PdfDocument((tmp_path / name / "tiny" / "cards.pdf").read_bytes())
    return pdf[0].render(scale=DPI / 72).to_pil().convert("RGB")


def px(image, x_mm: float, y_mm: float) -> tuple[int, int, int]:
    """The pixel at (x, y) mm from the trim's top-left."""
    k = DPI / 25.4
    return image.getpixel((round((x_mm + BLEED) * k), round((y_mm + BLEED) * k)))


def near(got, want, tol=6) -> bool:
    return all(abs(g - w) <= tol for g, w in zip(got, want, strict=True))


def test_css_and_mapping_gradients_parse_alike():
    css = paint.paint("linear-gradient(90deg, #fff, #c00 40%, #300)")
    assert css == paint.paint({"linear": ["#fff", "#c00 40%", "#300"], "angle": 90})
    assert [t for t, _ in css[3]] == [0.0, 0.4, 1.0]
    # stops without offsets spread between their neighbours, as in CSS
    assert [t for t, _ in paint.stops(["red", "lime 20%", "blue", "white", "black 80%"])] == \
        [0.0, 0.2, 0.4, 0.6, 0.8]
    assert paint.parse_css("linear-gradient(to right, red, blue)")[1] == 90.0
    assert paint.parse_css("radial-gradient(circle closest-side, red, blue)")[1:3] == ("circle", "closest-side")
    # a corner: the gradient line square to the diagonal, as CSS draws it
    g = paint.parse_css("linear-gradient(to bottom right, red, blue)")
    x0, y0, x1, y1 = paint.linear_ends(g, 0, 0, 200, 100)
    assert (x1 - x0) * 200 + (y1 - y0) * -100 == pytest.approx(0.0, abs=1e-6) or \
        (x1 - x0) * 100 == pytest.approx((y1 - y0) * 200)
    dx, dy, blur, colour = paint.shadow("1mm 2mm")
    assert (dx, dy, blur, colour) == (pytest.approx(72 / 25.4), pytest.approx(144 / 25.4), 0.0, (0.0, 0.0, 0.0, 0.5))
    assert paint.shadow({"x": "1pt", "y": "2pt", "blur": "3pt", "color": "#ff0000"}) == (1.0, 2.0, 3.0,
                                                                                        (1.0, 0.0, 0.0, 1.0))


def test_a_linear_gradient_runs_from_its_first_colour_to_its_last(tiny_game, tmp_path):
    image = _card(tiny_game, tmp_path, "  - {name: g, type: rect, x: 10mm, y: 10mm, width: 40mm, height: 20mm, "
                                       "fill: \"linear-gradient(90deg, #ff0000, #0000ff)\"}\n"
                                       "  - {name: v, type: rect, x: 10mm, y: 40mm, width: 40mm, height: 40mm, "
                                       "fill: {linear: [\"#00ff00\", \"#000000\"]}}\n")
    assert near(px(image, 10.3, 20), (255, 0, 0), 10)         # left end: the first colour
    assert near(px(image, 49.7, 20), (0, 0, 255), 10)         # right end: the last
    assert near(px(image, 30, 20), (128, 0, 128), 10)         # halfway: half of each
    assert near(px(image, 30, 40.3), (0, 255, 0), 10)         # the default runs downwards
    assert near(px(image, 30, 79.7), (0, 0, 0), 10)
    assert near(px(image, 30, 60), (0, 128, 0), 10)
    assert px(image, 9, 20) == (255, 255, 255)                # only inside the shape


def test_a_radial_gradient_in_an_ellipse(tiny_game, tmp_path):
    image = _card(tiny_game, tmp_path, "  - {name: g, type: ellipse, x: 10mm, y: 10mm, width: 40mm, height: 40mm, "
                                       "fill: \"radial-gradient(circle closest-side, #ffff00, #0000ff)\"}\n")
    assert near(px(image, 30, 30), (255, 255, 0), 10)         # the centre: the first colour
    assert near(px(image, 30, 10.4), (0, 0, 255), 12)         # the edge: the last
    mid = px(image, 40, 30)                                   # halfway out
    assert near(mid, (128, 128, 128), 12)
    assert px(image, 11, 11) == (255, 255, 255)               # outside the circle: nothing


def test_a_translucent_gradient_and_one_whose_opacity_varies(tiny_game, tmp_path):
    image = _card(tiny_game, tmp_path, "  - {name: g, type: rect, x: 10mm, y: 10mm, width: 40mm, height: 20mm, "
                                       "fill: \"linear-gradient(90deg, #ff0000, #0000ff)\", opacity: 0.5}\n")
    assert near(px(image, 10.5, 20), (255, 130, 130), 8)     # half red over white
    assert near(px(image, 49.5, 20), (130, 130, 255), 8)
    with pytest.raises(paint.PaintError, match="must all be as opaque as each other"):
        paint.paint("linear-gradient(#ff000000, #ff0000)")


def test_opacity_blends_with_what_is_under_it(tiny_game, tmp_path):
    image = _card(tiny_game, tmp_path, "  - {name: b, type: rect, x: 30mm, y: 10mm, width: 30mm, height: 30mm, "
                                       "fill: \"#0000ff\"}\n"
                                       "  - {name: r, type: rect, x: 10mm, y: 10mm, width: 30mm, height: 30mm, "
                                       "fill: \"#ff0000\", stroke: \"#000000\", opacity: 0.25}\n"
                                       "  - {name: t, type: text, x: 10mm, y: 50mm, width: 40mm, height: 30mm, "
                                       "text: \"■\", size: 60, color: \"#000000\", opacity: 0.5, font: DejaVuSans}\n")
    assert near(px(image, 20, 25), (255, 191, 191), 4)        # 25 % red over white
    assert near(px(image, 35, 25), (64, 0, 191), 4)           # 25 % red over blue
    blacks = [px(image, 10 + i * 0.5, 50 + j * 0.5) for i in range(60) for j in range(60)]
    assert min(sum(p) for p in blacks) == pytest.approx(3 * 127.5, abs=12)   # half-black text: grey


def test_a_shadow_is_offset_by_its_x_and_y(tiny_game, tmp_path):
    image = _card(tiny_game, tmp_path, "  - {name: r, type: rect, x: 10mm, y: 10mm, width: 20mm, height: 20mm, "
                                       "fill: \"#000000\", shadow: \"3mm 5mm #ff0000\"}\n")
    k = DPI / 25.4
    reds = [(x, y) for x in range(image.width) for y in range(image.height)
            if near(image.getpixel((x, y)), (255, 0, 0), 20)]
    xs, ys = [x for x, _ in reds], [y for _, y in reds]
    assert (max(xs) + 1) / k - BLEED == pytest.approx(33, abs=0.15)      # right edge: 30 mm + 3
    assert (max(ys) + 1) / k - BLEED == pytest.approx(35, abs=0.15)      # bottom edge: 30 mm + 5
    assert min(xs) / k - BLEED == pytest.approx(13, abs=0.15) and min(ys) / k - BLEED == pytest.approx(15, abs=0.15)
    assert near(px(image, 20, 20), (0, 0, 0))                 # the shape is over its shadow


def test_a_blurred_shadow_fades_out_over_its_blur(tiny_game, tmp_path):
    image = _card(tiny_game, tmp_path, "  - {name: r, type: rect, x: 10mm, y: 10mm, width: 20mm, height: 20mm, "
                                       "fill: \"#ffffff\", shadow: \"2mm 2mm 2mm #000000\"}\n")
    inside = px(image, 31, 20)                 # under the shadow's own box, 1 mm right of the shape
    ramp = [sum(px(image, 32 + d, 20)) for d in (0.2, 0.6, 1.0, 1.4, 1.8)]
    assert sum(inside) < 60                     # dark where the shape is (moved)
    assert all(a < b for a, b in itertools.pairwise(ramp))      # lighter and lighter beyond its edge
    assert ramp[0] < 100 and ramp[-1] > 650
    assert px(image, 34.5, 20) == (255, 255, 255)          # nothing beyond the blur


def test_text_outline_and_text_shadow(tiny_game, tmp_path):
    base = ("  - {name: t, type: text, x: 5mm, y: 10mm, width: 55mm, height: 20mm, size: 30, text: \"l\", "
            "color: \"#ffffff\", font: DejaVuSans")

    def ink(image, test):
        k = DPI / 25.4
        pts = [(x / k - BLEED, y / k - BLEED) for x in range(image.width) for y in range(image.height)
               if test(image.getpixel((x, y)))]
        return min(p[0] for p in pts), max(p[0] for p in pts)

    shown = _card(tiny_game, tmp_path, "  - {name: d, type: rect, box: bleed, fill: \"#808080\"}\n" + base + "}\n",
                  "plain")
    outlined = _card(tiny_game, tmp_path, "  - {name: d, type: rect, box: bleed, fill: \"#808080\"}\n" + base
                     + ", outline: \"#000000\", outline_width: 1mm}\n", "outlined")
    white = ink(shown, lambda p: min(p) > 192)             # (edges where a pixel is half covered)
    dark = ink(outlined, lambda p: max(p) < 64)
    assert white == ink(outlined, lambda p: min(p) > 192)                  # the letter is not covered
    assert white[0] - dark[0] == pytest.approx(1.0, abs=0.1)               # 1 mm outside it, either side
    assert dark[1] - white[1] == pytest.approx(1.0, abs=0.1)
    shadowed = _card(tiny_game, tmp_path, base + ", shadow: \"2mm 0mm #0000ff\"}\n", "shadow")
    blue = ink(shadowed, lambda p: p[2] > 192 and p[0] < 64)
    assert blue[1] - white[1] == pytest.approx(2.0, abs=0.1)               # the letter's shape, 2 mm right


def test_a_bad_gradient_or_shadow_is_an_error_at_its_line(tiny_game, tmp_path):
    tpl = "elements:\n  - {name: g, type: rect, fill: \"linear-gradient(#fff)\"}\n"
    root = tiny_game(CARD, template=tpl)
    with pytest.raises(CardgenError) as caught:
        build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    where = root / "templates" / "tiny" / "face.yaml"
    assert str(caught.value).startswith(f"{where}:2:33: error: element 'g' (rect): `fill` is not a valid gradient: "
                                        f"a gradient needs 2 to 32 colours, got 1")
    (where).write_text("elements:\n  - {name: g, type: rect, fill: red, shadow: \"1mm\"}\n")
    with pytest.raises(CardgenError) as caught:
        build_game(root, REPO, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert "`shadow` is not a valid shadow: '1mm' is not a shadow: write x and y offsets" in str(caught.value)


PDFX_FACE = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "linear-gradient(#ffffff, #808080)"}
      - {name: disc, type: ellipse, x: 10mm, y: 10mm, width: 30mm, height: 30mm,
         fill: "radial-gradient(#ffff00, #ff0000)", shadow: "1mm 1mm 1mm"}
      - {name: title, type: text, x: 6mm, y: 50mm, width: 51.5mm, height: 12mm, text: "{{ card.name }}",
         size: 20, color: "#ffffff", outline: "#00000080", outline_width: 0.5mm, shadow: "0.5mm 0.5mm"}
      - {name: veil, type: rect, x: 5mm, y: 70mm, width: 50mm, height: 10mm, fill: "#ff0000", opacity: 0.5}
"""


def test_the_pdfx_flattens_every_effect_and_keeps_text_as_text(tmp_path):
    """Soft shadows, a translucent outline and opacity become pictures in the PDF/X-1a (no
    transparency, nothing but CMYK), an opaque gradient stays a CMYK shading, the text over
    them stays text, and the page looks as cards.pdf does."""
    import re

    from pypdf import PdfReader
    from test_pdfx import _objects, _stream, build_pdfx, pdfx_game

    root = pdfx_game(tmp_path, cards="cards:\n  - {name: Glow, color: '#000000'}\n")
    (root / "templates" / "tiny" / "face.yaml").write_text(PDFX_FACE)
    out, _report = build_pdfx(root, tmp_path / "out")
    pdf = out / "print-service" / "things-pdfx.pdf"
    shadings = []
    for kind, o in _objects(PdfReader(pdf)):
        assert "DeviceRGB" not in repr(o), kind
        if kind == "gs":
            assert o.get("/ca", 1) == 1 and o.get("/CA", 1) == 1
        if kind in ("page", "/Form"):
            assert not re.search(rb"(^|\s)(rg|RG)(\s|$)", _stream(o)), kind
        if kind == "/Shading":
            shadings.append(o)
    assert sorted((s["/ShadingType"], s["/ColorSpace"]) for s in shadings) == [(2, "/DeviceCMYK"), (3, "/DeviceCMYK")]
    doc = pdfium.PdfDocument(pdf.read_bytes())
    face = next(i for i in range(len(doc)) if "Glow" in doc[i].get_textpage().get_text_bounded())
    assert doc[face].get_textpage().get_text_bounded().strip() == "Glow"      # the title is still text
    flat = doc[face].render(scale=DPI / 72).to_pil().convert("RGB")
    cards = pdfium.PdfDocument((out / "cards.pdf").read_bytes())
    live = cards[0].render(scale=DPI / 72).to_pil().convert("RGB")
    for x, y in ((25, 25), (39, 39), (30, 75), (20, 90), (30, 5)):      # disc, its shadow, the veil, the bg
        a, b = px(flat, x, y), px(live, x, y)
        assert near(a, b, 40), (x, y, a, b)      # (CMYK through the FOGRA39 profile: close, not equal)


TRANSLUCENT_SVGS = [
    '<rect width="4" height="4" opacity="0.5"/>',
    '<rect width="4" height="4" fill-opacity=".5"/>',
    '<rect width="4" height="4" style="fill:#000;stroke-opacity:0.5;stroke:#000"/>',
    '<rect width="4" height="4" fill="rgba(0,0,0,0.5)"/>',
    '<rect width="4" height="4" fill="#0008"/>',
    '<rect width="4" height="4" fill="#00000080"/>',
    '<image width="4" height="4" href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC"/>',
    '<linearGradient id="g"><stop offset="0" stop-color="#000" stop-opacity="0.2"/></linearGradient>'
    '<rect width="4" height="4" fill="url(#g)"/>',
]


def test_an_svg_is_called_opaque_unparsed_only_where_parsing_would_say_so(tmp_path):
    """The PDF/X flattening asks whether each SVG it draws may be translucent: one whose text
    names no opacity, alpha colour, image or other file is answered without svglib (a one-card
    edit's PDF/X imported it for that alone), the same answer as parsing it gives for every
    bundled icon; anything that may be translucent is parsed."""
    from cardgen.render import flatten

    icons = sorted((REPO / "cardgen" / "data" / "art" / "icons").glob("*.svg"))
    assert icons and all(flatten._plainly_opaque(p) for p in icons)
    assert not any(flatten._parsed_translucent(p) for p in icons)
    parsed = []
    for i, body in enumerate(TRANSLUCENT_SVGS):
        p = tmp_path / f"t{i}.svg"
        p.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">{body}</svg>', encoding="utf-8")
        assert not flatten._plainly_opaque(p), body
        parsed.append(flatten.svg_is_translucent(p))
    assert parsed[:-1] == [True] * 7       # (the gradient's stops: as the parsed drawing has them)
