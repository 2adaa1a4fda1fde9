"""Each card side is rasterized once per build and resolution class: the gallery and the TTS
deck sheets take their pixels from one render of each side (`raster.master_spec`), scaled to
their sizes; print-service PNGs (with their bleed, at 300 dpi) are a class of their own."""
from __future__ import annotations

from pathlib import Path

from PIL import Image

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import raster

REPO = Path(__file__).resolve().parent.parent
COLOURS = ["#c01010", "#10c010", "#1010c0", "#c0c010", "#10c0c0", "#c010c0", "#808080"]


def make_game(root: Path) -> Path:
    game = root / "once"
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(
        "elements:\n  - {name: bg, type: rect, box: bleed, fill: '{{ card.color }}'}\n"
        "  - {name: t, type: text, x: 5mm, y: 5mm, width: 40mm, height: 10mm, text: '{{ card.name }}'}\n")
    (game / "templates" / "back.yaml").write_text("elements:\n  - {name: bg, type: rect, box: bleed, fill: '#102030'}\n")
    (game / "game.yaml").write_text("title: Once\ndecks: [big]\n")
    cards = "".join(f"  - {{name: C{k}, count: {1 + k % 2}, color: '{c}'}}\n" for k, c in enumerate(COLOURS))
    # 7 distinct faces of 120 x 170 mm: TTS cells of 585 px (124 dpi), the gallery's at 150 dpi
    (game / "big.yaml").write_text("deck: Big\ntemplate: face\nback: back\nsize: {width: 120mm, height: 170mm}\n"
                                   "cards:\n" + cards)
    return game


def build(game: Path, out: Path, *only: str) -> None:
    report = Report()
    build_game(game, REPO, BuildOptions(only=only, out=out, outputs={"png": {"targets": ("tgc",)}}), report)
    assert not report.errors, report.errors


def test_gallery_tts_and_png_rasterize_each_side_once_per_class(tmp_path):
    game = make_game(tmp_path)
    raster.reset_stats()
    build(game, tmp_path / "all", "gallery", "tts", "png")
    sides = len(COLOURS) + 1                              # 7 faces and the shared back
    # one render per side for the screen class (gallery + TTS) and one for the PNGs' 300 dpi
    assert raster.STATS["rasterized"] == 2 * sides
    # the gallery's images are that render, encoded as PNG; TTS's cells are it, scaled as pasted
    assert raster.STATS["scaled"] == sides
    out = tmp_path / "all" / "once"
    gallery = sorted((out / "gallery").rglob("*.png"))
    assert len(gallery) == sides
    face = Image.open(next(p for p in gallery if p.name.startswith("1-") or "-c0-" in p.name))
    assert face.size == (round(120 / 25.4 * 170), round(170 / 25.4 * 170))      # (the trim at SCREEN_DPI)
    renders = [raster.open_image(p) for p in (out / ".cache" / "raster").glob("*.rgbz")]
    assert any(r.tobytes() == face.convert("RGB").tobytes() for r in renders)    # the render itself, not scaled
    r, g, b = face.convert("RGB").getpixel((face.width // 2, face.height - 5))
    assert abs(r - 0xc0) <= 2 and g <= 0x14 and b <= 0x14     # the card's own colour, scaled
    sheet = Image.open(next((out / "tts").glob("big-faces-1-*.jpg"))).convert("RGB")
    assert sheet.size[0] == 7 * 585
    for k, c in enumerate(COLOURS):                       # each cell is its card's colour
        want = tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
        got = sheet.getpixel((k * 585 + 292, sheet.height - 20))
        assert all(abs(x - y) <= 6 for x, y in zip(got, want)), (k, got, want)

    # the gallery alone, into another folder: the same bytes (its pixels do not depend on
    # which other outputs the build makes); a rebuild takes every side from the cache
    raster.reset_stats()
    build(game, tmp_path / "alone", "gallery")
    assert raster.STATS["rasterized"] == sides and raster.STATS["scaled"] == sides
    alone = sorted((tmp_path / "alone" / "once" / "gallery").rglob("*.png"))
    assert [p.read_bytes() for p in alone] == [p.read_bytes() for p in gallery]
    raster.reset_stats()
    build(game, tmp_path / "all", "gallery", "tts", "png")
    assert raster.STATS["rasterized"] == 0 and raster.STATS["scaled"] == 0


def test_master_spec_classes():
    from cardgen.model import ops
    from cardgen.outputs.tts_atlas import cell_size

    poker = ops.CardLayout(width=180.0, height=252.0, bleed=9.0, ops=[])
    # a poker card's screen-class render is a full TTS sheet's cell (164 dpi)
    assert raster.screen_spec(poker) == raster.Spec(*cell_size(10, 7, 63.5, 88.9)) == raster.Spec(409, 573)
    assert raster.master_spec(poker, raster.trim_spec(poker, 150)) == raster.Spec(409, 573)
    assert raster.master_spec(poker, raster.Spec(409, 573)) is None                      # the render itself
    assert raster.master_spec(poker, raster.trim_spec(poker, 170)) is None               # sharper: its own
    assert raster.master_spec(poker, raster.trim_spec(poker, 300)) is None
    assert raster.master_spec(poker, raster.Spec(822, 1122, 8.64, 300, "png")) is None   # with bleed
    # a card whose full sheet's cells are coarser than the gallery's (tarot: 124 dpi) or
    # sharper than the class (mini: 235 dpi): the trim at SCREEN_DPI
    for w, h in ((70, 120), (41, 63)):
        side = ops.CardLayout(width=w / 25.4 * 72, height=h / 25.4 * 72, bleed=9.0, ops=[])
        assert raster.screen_spec(side) == raster.Spec(round(w / 25.4 * 170), round(h / 25.4 * 170))


def test_a_poker_cell_is_the_render_the_gallery_is_scaled_from(tmp_path):
    """A full TTS sheet's poker cell and the gallery's image of the same side: one render, at
    the cell's size (kept as it is, not scaled), and the gallery's image scaled from it is the
    same bytes when the cell is not asked for."""
    from cardgen.core.data import DATA
    from cardgen.model import ops

    side = ops.CardLayout(width=180.0, height=252.0, bleed=9.0, ops=[
        ops.Rect(x=-9.0, y=-9.0, w=198.0, h=270.0, fill=(0.75, 0.06, 0.06, 1.0)),
        ops.Rect(x=20.0, y=20.0, w=60.0, h=30.0, fill=(0.06, 0.06, 0.75, 1.0))])
    cell, shown = raster.Spec(409, 573), raster.trim_spec(side, 150)
    raster.reset_stats()
    both = raster.rasterize([(side, cell), (side, shown)], raster.Cache(tmp_path / "both"), [DATA / "fonts"])
    assert (raster.STATS["rasterized"], raster.STATS["scaled"]) == (1, 1)
    assert raster.open_image(both[0]).size == (409, 573)
    assert raster.open_image(both[1]).size == (375, 525)
    raster.reset_stats()
    alone = raster.rasterize([(side, shown)], raster.Cache(tmp_path / "alone"), [DATA / "fonts"])
    assert (raster.STATS["rasterized"], raster.STATS["scaled"]) == (1, 1)
    assert raster.read_payload(alone[0]) == raster.read_payload(both[1])
