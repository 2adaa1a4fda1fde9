"""A deck sheet made again encodes only the rows of blocks whose cells changed and takes the
others' bytes from the sheet it replaces (`render.jpegrows`, `Mosaic(base=)`): the bytes are
those of the sheet encoded whole."""
from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image, ImageDraw
from test_mosaic import CELL, FONTS, _side

from cardgen.render import jpegrows, mosaic, raster


def _picture(w: int, h: int, seed: int) -> Image.Image:
    rng = random.Random(seed)
    im = Image.new("RGB", (w, h), (255, 255, 255))
    draw = ImageDraw.Draw(im)
    for _ in range(150):
        x, y = sorted(rng.randrange(w) for _ in "xx"), sorted(rng.randrange(h) for _ in "yy")
        draw.rectangle((x[0], y[0], x[1], y[1]), fill=tuple(rng.randrange(256) for _ in "rgb"))
    return im


def test_rows_encoded_alone_splice_into_the_bytes_of_a_whole_encode():
    w, h = 203, 157                                  # (neither a multiple of 8: edge blocks padded)
    old = _picture(w, h, 1)
    before = mosaic.encode(old, "jpeg", 92)
    for top, bottom in ((0, 20), (41, 90), (130, 157), (152, 157), (0, 157)):
        new = old.copy()
        ImageDraw.Draw(new).ellipse((10, top, 150, bottom - 1), fill=(0, 0, 255))
        first = top // jpegrows.ROW
        band = new.crop((0, first * 8, w, min(-(-bottom // 8) * 8, h)))
        made = jpegrows.splice(before, first, mosaic.encode(band, "jpeg", 92))
        assert made == mosaic.encode(new, "jpeg", 92) != before
    # another quality, a band that is not whole rows, a JPEG without the markers: not spliced
    assert jpegrows.splice(before, 0, mosaic.encode(old.crop((0, 0, w, 16)), "jpeg", 95)) is None
    assert jpegrows.splice(before, 0, mosaic.encode(old.crop((0, 0, w, 12)), "jpeg", 92)) is None
    plain = io.BytesIO()
    old.save(plain, "JPEG", quality=92, subsampling=0)
    assert jpegrows.parts(plain.getvalue()) is None
    assert jpegrows.splice(plain.getvalue(), 0, mosaic.encode(old.crop((0, 0, w, 16)), "jpeg", 92)) is None


def test_a_sheet_with_one_cell_changed_reads_and_encodes_its_row_alone(tmp_path, monkeypatch):
    cache = raster.Cache(tmp_path / "cache")
    plan = raster.plan([(_side(i), CELL) for i in range(13)], cache)
    raster.run(plan, cache, FONTS)
    cells = [str(p) for p in plan.paths[:12]]                 # 3 x 4 cells of 60 x 84 px: rows of 84 px
    grid = (3, 4, 60, 84, "jpeg", 92)
    mosaic.Mosaic(cells, *grid, str(tmp_path / "old.jpg")).make()
    edited = [*cells[:7], str(plan.paths[12]), *cells[8:]]     # the third row's middle cell
    mosaic.Mosaic(edited, *grid, str(tmp_path / "whole.jpg")).make()
    read: list[str] = []
    opened = raster.open_image
    monkeypatch.setattr(raster, "open_image", lambda path: read.append(str(path)) or opened(path))
    base = (str(tmp_path / "old.jpg"), [mosaic.cell_name(c) for c in cells])
    sheet = mosaic.Mosaic(edited, *grid, str(tmp_path / "new.jpg"), base=base)
    sheet.make()
    assert raster.read_payload(tmp_path / "new.jpg") == raster.read_payload(tmp_path / "whole.jpg")
    assert (sheet.top, sheet.bottom) == (168, 256)             # rows of blocks 21 to 31: pixels 168 to 255
    # the cells of rows 2 (168 to 251) and 3 (252 on: the last row of blocks begins in row 2), once each
    assert sorted(read) == sorted([cells[6], str(plan.paths[12]), *cells[8:12]])
    # a base that is not of the form expected (damaged, or another kind of file): made whole, the same bytes
    (tmp_path / "old.jpg").write_bytes(raster.seal(b"\xff\xd8 not a JPEG \xff\xd9"))
    mosaic.Mosaic(edited, *grid, str(tmp_path / "again.jpg"), base=base).make()
    assert raster.read_payload(tmp_path / "again.jpg") == raster.read_payload(tmp_path / "whole.jpg")
    (tmp_path / "old.jpg").write_bytes(b"damaged")
    mosaic.Mosaic(edited, *grid, str(tmp_path / "third.jpg"), base=base).make()
    assert raster.read_payload(tmp_path / "third.jpg") == raster.read_payload(tmp_path / "whole.jpg")


def test_the_sheet_an_image_replaces_is_its_last_build_one_of_the_same_kind(tmp_path):
    folder = tmp_path / ".cache" / "tts"
    kind = (3, 4, 60, 84, "jpeg", 92, False, "")
    first = mosaic.Sheets(tmp_path / "sheets.bin")
    assert first.base("d-faces-1", kind, folder / "ab" / "ab1.jpg", ["/x/c1.rgbz", None, ("/x/c2.rgbz", 180)]) is None
    first.save()
    later = mosaic.Sheets(tmp_path / "sheets.bin")
    assert later.base("d-faces-1", kind, folder / "cd" / "cd2.jpg", ["/y/c3.rgbz", None, None]) == \
        (str(folder / "ab" / "ab1.jpg"), ["c1.rgbz", None, "c2.rgbz@180"])
    assert later.base("d-faces-1", (*kind[:5], 95, False, ""), folder / "ef" / "ef3.jpg", [None] * 3) is None
    assert not mosaic.Sheets.entry_ok("k", ("not a grid", "ab1.jpg", ()))


def test_a_one_card_edit_encodes_the_rows_of_its_sheet_that_changed(tmp_path, monkeypatch):
    """Through the TTS output: the sheet made again after a one-card edit is based on the one
    it replaces (`Sheets`), encodes the rows of the edited card alone, and has the bytes of
    the same sheet encoded whole."""
    from test_incremental import build, make_game

    game = make_game(tmp_path)
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text() + "".join(f"  - {{name: Card {i}, text: 'Card {i}.'}}\n" for i in range(8, 10)))
    out = tmp_path / "build"
    build(game, out, only=("tts",))
    made: list[mosaic.Mosaic] = []
    heights: list[int] = []
    real_open, real_encode = mosaic.Mosaic.open, mosaic.encode
    monkeypatch.setattr(mosaic.Mosaic, "open", lambda self: made.append(self) or real_open(self))
    monkeypatch.setattr(mosaic, "encode", lambda img, fmt, q: heights.append(img.height) or real_encode(img, fmt, q))
    deck.write_text(deck.read_text().replace("text: 'Card 9.'", "text: 'Card nine, rewritten.'"))
    build(game, out, only=("tts",))
    assert len(made) == 1 and made[0].base is not None
    sheet = made[0]
    assert heights == [sheet.bottom - sheet.top] and 0 < sheet.bottom - sheet.top < sheet.rows * sheet.ch / 2
    whole = mosaic.Mosaic(sheet.cells, sheet.cols, sheet.rows, sheet.cw, sheet.ch, "jpeg", 92, str(tmp_path / "w.jpg"))
    whole.make()
    assert raster.read_payload(tmp_path / "w.jpg") == raster.read_payload(sheet.out)
    assert (tmp_path / "w.jpg").read_bytes() != raster.seal(raster.read_payload(Path(sheet.base[0])))
