"""Rasterized pages: bleed colour outside the trim, text inside its box, icons on the baseline."""
from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from conftest import REPO, write

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

DPI = 100
PX = DPI / 25.4


def render(path, page=0):
    doc = pdfium.PdfDocument(str(path))
    return doc[page].render(scale=DPI / 72).to_pil().convert("RGB")


def px(img, x_mm, y_mm):
    return img.getpixel((round(x_mm * PX), round(y_mm * PX)))


def close(a, b, tol=12):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def nine_red():
    return "cards:\n  - {name: Red, color: '#ff0000', count: 9}\n"


def test_outer_bleed_shows_card_colour_and_paper_beyond(tiny_game, tmp_path):
    root = tiny_game(nine_red())
    build_game(root, REPO, BuildOptions(out=tmp_path, only=("print",), papers=("a4",)), Report())
    img = render(tmp_path / "tiny" / "print-a4.pdf")
    # A4: block trim from x=9.75 mm; the outer bleed runs to 6.575 mm.
    assert close(px(img, 8.2, 150), (255, 0, 0))          # inside the outer bleed
    assert close(px(img, 10.5, 150), (255, 0, 0))         # on the card
    assert close(px(img, 5.5, 150), (255, 255, 255))      # paper beyond the bleed
    # top edge: trim at 15.15 mm, bleed to 11.975 mm
    assert close(px(img, 40, 13.5), (255, 0, 0))
    assert close(px(img, 40, 10.5), (255, 255, 255))


def test_text_is_drawn_inside_its_box(tiny_game, tmp_path):
    root = tiny_game("cards:\n  - {name: WWWWWW, color: '#000000'}\n")
    build_game(root, REPO, BuildOptions(out=tmp_path, only=("cards",)), Report())
    img = render(tmp_path / "tiny" / "cards.pdf")
    b = 3.175
    # title box: x 5..58.5 mm, y 5..15 mm from the trim; white text on black
    inside = [px(img, b + x / 10, b + y / 10) for x in range(50, 585, 5) for y in range(50, 150, 5)]
    assert sum(1 for p in inside if p[0] > 200) > 20
    below = [px(img, b + x / 10, b + y / 10) for x in range(50, 585, 5) for y in range(160, 300, 5)]
    assert all(p[0] < 30 for p in below)


@pytest.mark.parametrize("flip", ["long", "short"])
def test_back_reads_upright_when_the_card_is_turned_like_a_book_page(tiny_game, tmp_path, flip):
    """The back's top edge lies behind the face's top edge, for either duplex flip."""
    root = tiny_game("cards:\n  - {name: A, color: '#ffffff'}\n")
    write(root / "templates" / "tiny" / "back.yaml", """
        elements:
          - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
          - {name: top-bar, type: rect, x: 0, y: 0, width: 100%, height: 10mm, fill: "#ff0000"}
    """)
    build_game(root, REPO, BuildOptions(out=tmp_path, only=("print",), papers=("a4",),
                                                     outputs={"print": {"flip": flip}}), Report())
    img = render(tmp_path / "tiny" / "print-a4.pdf", 1)
    # face: one card with its trim at x 9.75..73.25, y 15.15..104.05 mm (top-left of A4's grid)
    if flip == "long":
        x0, y0 = 210 - 9.75 - 63.5, 15.15          # mirrored left-right; the top stays on top
        assert close(px(img, x0 + 30, y0 + 3), (255, 0, 0))
        assert close(px(img, x0 + 30, y0 + 85), (255, 255, 255))
    else:
        x0, y0 = 9.75, 297 - 15.15 - 88.9           # mirrored top-bottom; the top is now below
        assert close(px(img, x0 + 30, y0 + 85), (255, 0, 0))
        assert close(px(img, x0 + 30, y0 + 3), (255, 255, 255))
