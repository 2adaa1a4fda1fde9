"""`cardgen build --ink-saver`: print sheets with less ink (`cardgen.render.inksaver`): the
coverage of the rasterized sheets measured lower, the text the same and still readable (the
readability check's contrast on the rasterized sides), the art grey, the normal build as it was."""
from __future__ import annotations

import io
from pathlib import Path

from conftest import run_cli, write
from PIL import Image
from pypdf import PdfReader

from cardgen.check.colours import contrast, luminance
from cardgen.check.contrast import worst_line
from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.outputs.album import side_spec
from cardgen.pipeline.check import check_game
from cardgen.render import raster
from cardgen.render.inksaver import PANEL, TEXT_LUMINANCE, coverage, darken, ink_saver, lighten

FACE = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#1d3557"}
  - {name: art, type: image, x: 6mm, y: 16mm, width: 51.5mm, height: 36mm, src: "art/pic.png", fit: cover}
  - {name: panel, type: rect, x: 4mm, y: 58mm, width: 55.5mm, height: 24mm, fill: "#e63946", radius: 2mm}
  - {name: title, type: text, x: 5mm, y: 4mm, width: 53.5mm, height: 9mm, text: "{{ card.name }}", size: 14,
     color: "#f1faee"}
  - {name: rules, type: text, x: 6mm, y: 60mm, width: 51.5mm, height: 20mm, text: "{{ card.rules }}", size: 9,
     color: "#ffffff"}
"""
BACK = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#457b9d"}
  - {name: mark, type: text, x: 5mm, y: 40mm, width: 53.5mm, height: 10mm, text: "INK", size: 20, align: center,
     color: "#a8dadc"}
"""


def ink_game(root: Path) -> Path:
    game = root / "ink"
    write(game / "game.yaml", "title: Ink\n")
    write(game / "templates" / "face.yaml", FACE)
    write(game / "templates" / "back.yaml", BACK)
    write(game / "deck.yaml", "deck: Spells\ntemplate: face\nback: back\ncards:\n"
          "  - {name: Firestorm, rules: Deal three damage to every enemy., count: 4}\n"
          "  - {name: Frost Nova, rules: Freeze all enemies until your next turn., count: 5}\n")
    (game / "art").mkdir()
    Image.new("RGB", (400, 280), (200, 40, 30)).save(game / "art" / "pic.png")   # a saturated red picture
    return game


def build(game: Path, out: Path, *flags: str) -> Path:
    code, _, err = run_cli("build", str(game), "--only", "print", "--page", "a4", "--out", str(out), *flags)
    assert code == 0, err
    return out / game.name / "print-a4.pdf"


def test_ink_saver_sheets_use_less_ink_and_keep_their_text(tmp_path):
    game = ink_game(tmp_path)
    normal = build(game, tmp_path / "normal")
    saver = build(game, tmp_path / "saver", "--ink-saver")
    before, after = coverage(normal.read_bytes()), coverage(saver.read_bytes())
    assert len(before) == len(after) == 2                       # 9 cards: one sheet, duplex
    for b, a in zip(before, after):
        assert b > 0.4 and a < b / 3, (before, after)           # dark full-bleed cards: most of the ink gone
    texts = [[p.extract_text() for p in PdfReader(f).pages] for f in (normal, saver)]
    assert texts[0] == texts[1] and "Frost Nova" in texts[1][0] and "Freeze all enemies" in texts[1][0]
    # the normal build is untouched by the option's existence: the same bytes again
    assert build(game, tmp_path / "again").read_bytes() == normal.read_bytes()


def test_ink_saver_text_passes_the_readability_contrast(tmp_path):
    game = ink_game(tmp_path)
    checked = check_game(game, game, Report())
    assert checked.rendered is not None
    faces = [f for _, _, f in checked.rendered.faces]
    layouts = faces + list(checked.rendered.backs.values())
    cache = raster.Cache(tmp_path / "raster")
    for layout in layouts:
        saved = ink_saver(layout)
        spec = side_spec(saved, 150)
        (path,) = raster.rasterize([(saved, spec)], cache, raster.font_dirs_of(checked.rendered))
        img = Image.open(io.BytesIO(raster.read_payload(path))).convert("RGB")
        texts = [op for op in saved.ops if isinstance(op, ops.Text)]
        assert texts
        for op in texts:
            assert worst_line(op, img, spec.px_w / saved.width) is None, op.element
        # the art is grey and light: the picture's middle, sampled on the face
        if layout in faces:
            r, g, b = img.getpixel((img.width // 2, int(img.height * 0.37)))
            assert abs(r - g) <= 2 and abs(g - b) <= 2 and r > 170


def test_ink_saver_colours():
    # a full-bleed background keeps a faint tint; text lighter than the limit darkened in its hue
    assert lighten((0.0, 0.0, 0.0, 1.0), 0.12) == (0.88, 0.88, 0.88, 1.0)
    gold = darken((0.9, 0.7, 0.1, 1.0))
    assert abs(luminance(gold) - TEXT_LUMINANCE) < 0.002 and gold[0] > gold[1] > gold[2]
    assert darken((0.1, 0.1, 0.1, 1.0)) == (0.1, 0.1, 0.1, 1.0)          # dark already: kept
    # the worst case: text at the limit on the darkest panel tint (black lightened) still reads at 4.5:1
    assert contrast(lighten((0.0, 0.0, 0.0, 1.0), PANEL)[:3], darken((1.0, 1.0, 1.0, 1.0))[:3]) >= 4.5
    grad = ("linear", 90.0, "", ((0.0, (0.0, 0.0, 0.0, 1.0)), (1.0, (1.0, 0.0, 0.0, 1.0))))
    assert lighten(grad, 0.5) == ("linear", 90.0, "", ((0.0, (0.5, 0.5, 0.5, 1.0)), (1.0, (1.0, 0.5, 0.5, 1.0))))


def test_coverage_measures_ink():
    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(200, 100))
    c.rect(0, 0, 100, 100, stroke=0, fill=1)           # half the page black
    c.showPage()
    c.setFillColorRGB(1, 0, 0)
    c.rect(0, 0, 200, 100, stroke=0, fill=1)           # all red: magenta and yellow, two of three inks
    c.showPage()
    c.save()
    black, red = coverage(buf.getvalue(), dpi=72)
    assert abs(black - 0.5) < 0.01 and abs(red - 2 / 3) < 0.01
