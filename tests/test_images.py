"""Card images (`cardgen render`, the `images` output): PNGs at exact pixel sizes, transparent
outside their rounded corners, a shadow that is half transparent beside the card, fans as
large as the cards they hold, SVGs of the same size holding the same pixels."""
from __future__ import annotations

import base64
import io
import math
import xml.etree.ElementTree as ET

import pytest
from conftest import in_dir, write
from PIL import Image

from cardgen.model import ops
from cardgen.outputs import card_images as ci

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"


def render(game, *args):
    code, _, err = in_dir(game.parent, "render", game.name, *args)
    assert code == 0, err
    return game / "build" / "images"


def png(path):
    with Image.open(path) as im:
        assert im.format == "PNG"
        return im.convert("RGBA")


def test_a_card_at_an_exact_width_transparent_outside_its_rounded_corners(tiny_game):
    game = tiny_game()
    img = png(render(game, "Alpha", "--width", "300", "--format", "png") / "things" / "alpha.png")
    assert img.size == (300, 420)                   # poker, 63.5 x 88.9 mm: 300 * 88.9 / 63.5
    alpha = img.getchannel("A")
    # 1/8 in corners: 300 / 63.5 * 3.175 = 15 px; (3, 3) is outside the arc about (15, 15)
    for corner in ((0, 0), (299, 0), (0, 419), (299, 419), (3, 3), (296, 416)):
        assert alpha.getpixel(corner) == 0, corner
    for inside in ((150, 210), (150, 0), (0, 210), (15, 4), (8, 8)):
        assert alpha.getpixel(inside) == 255, inside
    assert img.getpixel((150, 300))[:3] == pytest.approx((255, 0, 0), abs=3)
    assert not (game / "build" / "images" / "things" / "alpha.svg").exists()
    assert not (game / "build" / "images" / "things" / "beta.png").exists()


def test_every_card_at_the_default_150_dpi_and_a_corner_radius_of_ones_own(tiny_game):
    game = tiny_game()
    out = render(game, "--corner-radius", "0", "--format", "png", "--backs")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png")) == \
        ["things/alpha.png", "things/back.png", "things/beta.png"]
    img = png(out / "things" / "beta.png")
    assert img.size == (375, 525)
    assert img.getpixel((0, 0)) [3] == 255          # square corners
    assert png(out / "things" / "back.png").getpixel((187, 262))[:3] == pytest.approx((0xaa, 0x22, 0x22), abs=3)


def test_a_shadow_is_half_transparent_outside_the_card(tiny_game):
    game = tiny_game()
    img = png(render(game, "Alpha", "--width", "300", "--shadow", "--format", "png") / "things" / "alpha.png")
    lk = ci.look(300, 420, 3.175, 63.5, True)
    m = lk.margin
    assert m > 10
    assert img.size == (300 + 2 * m, 420 + 2 * m)
    alpha = img.getchannel("A")
    assert alpha.getpixel((m + 150, m + 210)) == 255                     # the card
    below = alpha.getpixel((m + 150, m + 420 + 3))                       # just under its bottom edge
    assert 10 < below < 200
    assert img.getpixel((m + 150, m + 420 + 3))[:3] == (0, 0, 0)
    assert alpha.getpixel((m + 150, 0)) < below                          # fading out above
    assert alpha.getpixel((0, 0)) == 0


def test_a_fan_is_as_large_as_its_turned_cards(tiny_game):
    game = tiny_game()
    img = png(render(game, "Beta", "--fan", "Alpha, Beta", "--width", "200", "--format", "png")
              / "fan-1.png")
    places, size = ci.fan_layout(["rect", "rect"], 200, 280, 10.0, 0)
    assert img.size == size
    assert 200 < img.width < 400 and 280 < img.height < 400
    # the cards touch every edge: nothing but them in the picture
    assert img.getchannel("A").point(lambda v: 255 if v > 128 else 0).getbbox() == \
        pytest.approx((0, 0, img.width, img.height), abs=1)
    # Alpha (red) on the left, turned anticlockwise; Beta (green) over it on the right, clockwise
    assert [p.angle for p in places] == [-5.0, 5.0]
    assert img.getpixel((12, img.height // 3))[:3] == pytest.approx((255, 0, 0), abs=8)
    assert img.getpixel((img.width - 12, img.height // 3))[:3] == pytest.approx((0, 255, 0), abs=8)
    assert img.getpixel((img.width // 2, img.height // 2))[:3] == pytest.approx((0, 255, 0), abs=8)
    # the hand spreads at the top: its outermost points are high up, its bottom corners tucked in
    alpha = img.getchannel("A")
    left = [y for y in range(img.height) if alpha.getpixel((1, y)) > 128]
    assert left and max(left) < img.height / 2
    bottom = [x for x in range(img.width) if alpha.getpixel((x, img.height - 2)) > 128]
    assert min(bottom) > 10 and max(bottom) < img.width - 10


def test_fan_geometry():
    one, size = ci.fan_layout(["rect"], 200, 280, 10.0, 0)
    assert size == (200, 280) and (one[0].cx, one[0].cy, one[0].angle) == (100, 140, 0)
    _, size = ci.fan_layout(["rect"], 200, 280, 10.0, 7)
    assert size == (214, 294)
    # a card turned 30 degrees: its box is w cos + h sin wide (less what its round corners cut off)
    a = math.radians(30)
    ex, ey = ci.extent("rect", 200, 280, 0.0, 30)
    assert (2 * ex, 2 * ey) == pytest.approx((200 * math.cos(a) + 280 * math.sin(a), 200 * math.sin(a) + 280 * math.cos(a)))
    assert 2 * ci.extent("rect", 200, 280, 10.0, 30)[0] < 2 * ex
    assert ci.extent("round", 100, 100, 0, 37) == pytest.approx((50, 50))
    assert ci.fan_angles(9) == pytest.approx([-24, -18, -12, -6, 0, 6, 12, 18, 24])     # at most 48 degrees


def test_svg_has_the_size_the_outline_and_the_cards_full_pixels(tiny_game):
    game = tiny_game()
    out = render(game, "Alpha", "--width", "300", "--fan", "Alpha,Beta")
    root = ET.parse(out / "things" / "alpha.svg").getroot()
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("300", "420", "0 0 300 420")
    rect = root.find(f"{SVG}defs/{SVG}clipPath/{SVG}rect")
    assert (rect.get("width"), rect.get("height"), rect.get("rx")) == ("300", "420", "15")
    image = root.find(f".//{SVG}image")
    href = image.get(XLINK)
    assert href.startswith("data:image/png;base64,")
    with Image.open(io.BytesIO(base64.b64decode(href.split(",", 1)[1]))) as pic:
        assert pic.size == (300, 420)
        assert pic.convert("RGB").getpixel((150, 300)) == pytest.approx((255, 0, 0), abs=3)
    assert "embedded" in root.find(f"{SVG}desc").text and root.find(f"{SVG}title").text == "Alpha"
    fan = ET.parse(out / "fan-1.svg").getroot()
    with Image.open(out / "fan-1.png") as im:
        assert (fan.get("width"), fan.get("height")) == tuple(str(v) for v in im.size)
    turns = [g.get("transform") for g in fan.findall(f"{SVG}g")]
    assert len(turns) == 2 and "rotate(-5)" in turns[0] and "rotate(5)" in turns[1]


def test_svg_shadow_is_a_blur_filter(tiny_game):
    game = tiny_game()
    root = ET.parse(render(game, "Beta", "--width", "300", "--shadow", "--format", "svg") / "things" / "beta.svg"
                    ).getroot()
    m = ci.look(300, 420, 3.175, 63.5, True).margin
    assert (root.get("width"), root.get("viewBox")) == (str(300 + 2 * m), f"0 0 {300 + 2 * m} {420 + 2 * m}")
    assert root.find(f"{SVG}defs/{SVG}filter/{SVG}feGaussianBlur") is not None
    assert not (game / "build" / "images" / "things" / "beta.png").exists()


def test_the_same_images_twice(tiny_game):
    game = tiny_game()
    out = render(game, "--fan", "Beta,Alpha", "--shadow")
    first = {p: p.read_bytes() for p in out.rglob("*.*")}
    write(game / "deck.yaml", (game / "deck.yaml").read_text() + "\n")      # built again, not kept
    out = render(game, "--fan", "Beta,Alpha", "--shadow")
    assert {p: p.read_bytes() for p in out.rglob("*.*")} == first


def test_an_unknown_card_says_where_and_what_was_meant(tiny_game):
    game = tiny_game()
    code, _, err = in_dir(game.parent, "render", game.name, "Alpah")
    assert code == 1
    assert "game.yaml: error: images: card 'Alpah' (given on the command line) is no card or deck of the game; " \
           "did you mean 'Alpha'?" in err
    code, _, err = in_dir(game.parent, "render", game.name, "--fan", "Alpha, Betta")
    assert code == 1 and "fan 1: card 'Betta' (given on the command line)" in err and "'Beta'?" in err
    game = tiny_game(game_extra="images:\n  cards: [Alpha, Gamma]\n")
    code, _, err = in_dir(game.parent, "build", game.name, "--only", "images")
    assert code == 1
    assert "game.yaml:3:18: error: images: card 'Gamma' is no card or deck of the game" in err


def test_round_pieces_keep_their_shape():
    layout = ops.CardLayout(62.4, 62.4, 0.0, [], shape="round")
    mask = ci.outline_mask(layout, (100, 100), 20)
    assert mask.getpixel((50, 50)) == 255 and mask.getpixel((50, 1)) > 128
    assert mask.getpixel((8, 8)) == 0           # outside the disc, inside any rounded square


def test_a_round_token_is_transparent_outside_its_disc_in_png_and_svg(tiny_game):
    game = tiny_game(deck_extra="kind: token\nsize: 22mm\n")
    out = render(game, "Alpha", "--width", "200")
    img = png(out / "things" / "alpha.png")
    assert img.size == (200, 200)
    alpha = img.getchannel("A")
    assert alpha.getpixel((100, 100)) == 255 and alpha.getpixel((100, 2)) == 255
    assert alpha.getpixel((20, 20)) == 0             # inside a rounded square, outside the disc
    root = ET.parse(out / "things" / "alpha.svg").getroot()
    ellipse = root.find(f"{SVG}defs/{SVG}clipPath/{SVG}ellipse")
    assert [ellipse.get(k) for k in ("cx", "cy", "rx", "ry")] == ["100", "100", "100", "100"]


def test_a_second_build_keeps_the_images_of_unchanged_cards(tiny_game):
    game = tiny_game()
    out = render(game, "Alpha", "--format", "png")
    before = (out / "things" / "alpha.png").stat().st_mtime_ns
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace('"#00ff00"', '"#00ee00"'))      # Beta changes, Alpha does not
    code, stdout, err = in_dir(game.parent, "render", game.name, "Alpha", "--format", "png")
    assert code == 0, err
    assert "images/" in stdout and "unchanged" in stdout
    assert (out / "things" / "alpha.png").stat().st_mtime_ns == before
    deck.write_text(deck.read_text().replace('"#ff0000"', '"#0000ff"'))      # Alpha changes
    img = png(render(game, "Alpha", "--format", "png") / "things" / "alpha.png")
    assert img.getpixel((187, 300))[:3] == pytest.approx((0, 0, 255), abs=3)


def test_screen_sizes_come_from_the_shared_render_larger_ones_are_rendered_at_their_size(tiny_game):
    """Up to the screen class (170 dpi) a card's pixels are scaled from the one render the gallery
    and TTS use; sharper ones are rasterized at their own size (`cardgen.render.raster`)."""
    from cardgen.render import raster

    game = tiny_game()
    raster.reset_stats()
    render(game, "Alpha", "--width", "300", "--format", "png")        # 120 dpi
    assert (raster.STATS["rasterized"], raster.STATS["scaled"]) == (1, 1)
    raster.reset_stats()
    render(game, "Alpha", "--dpi", "150", "--format", "png")          # the gallery's size: the same render
    assert (raster.STATS["rasterized"], raster.STATS["scaled"]) == (0, 1)
    raster.reset_stats()
    img = png(render(game, "Alpha", "--width", "900", "--format", "png") / "things" / "alpha.png")   # 360 dpi
    assert (raster.STATS["rasterized"], raster.STATS["scaled"]) == (1, 0)
    assert img.size == (900, 1260)


def test_images_of_one_render_stay_beside_the_next_ones(tiny_game):
    game = tiny_game()
    render(game, "Alpha", "--format", "png")
    out = render(game, "Beta", "--format", "png")
    assert sorted(p.name for p in (out / "things").iterdir()) == ["alpha.png", "beta.png"]
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("Alpha", "Gamma"))         # the game changes: Alpha is gone
    out = render(game, "Beta", "--format", "png")
    assert sorted(p.name for p in (out / "things").iterdir()) == ["beta.png"]
