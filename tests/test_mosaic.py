"""TTS deck sheets made as their sides are rendered (`render.mosaic`, `raster.run(groups=)`):
a side only one sheet shows is pasted from its render, not read back from the bitmap cache;
a side two sheets show is rendered first; and the sheet's bytes are those of one made from
the cache alone, in this process or in the raster workers."""
from __future__ import annotations

import io
import os

import pytest
from PIL import Image

from cardgen.core.data import DATA
from cardgen.core.units import MM
from cardgen.model import ops
from cardgen.render import mosaic, raster

FONTS = [DATA / "fonts"]
CELL = raster.Spec(409, 573)     # a poker card's screen-class render, scaled as pasted


def _side(i: int) -> ops.CardLayout:
    w, h = 63.5 * MM, 88.9 * MM
    return ops.CardLayout(w, h, 9.0, [ops.Rect(-9.0, -9.0, w + 18, h + 18, fill=((i * 37 % 256) / 255, 0.3, 0.5, 1.0)),
                                      ops.Rect(0.0, 0.0, 20 * MM, 20 * MM, fill=(0.0, 1.0, 0.0, 1.0))], f"m/{i}")


def _sheets(tmp_path, paths):
    p = [str(x) for x in paths]
    first = ([p[0], p[1], (p[2], 180), (200, 10, 10), None, p[4]], 3, 2, 60, 84, "jpeg", 92, str(tmp_path / "a.jpg"))
    second = ([p[3], p[4]], 2, 1, 60, 84, "png", 92, str(tmp_path / "b.png"))
    return [first, second]


def _groups(sheets):
    return [(args[0], mosaic.made, (args,)) for args in sheets]


def test_sheets_take_their_own_sides_as_rendered_and_equal_sheets_made_from_the_cache(tmp_path, monkeypatch):
    assert raster.screen_spec(_side(0)) == CELL   # (so each cell is a side's render itself)
    cache = raster.Cache(tmp_path / "cache")
    plan = raster.plan([(_side(i), CELL) for i in range(5)], cache)
    sheets = _sheets(tmp_path, plan.paths)
    read: list[str] = []
    opened = raster.open_image
    monkeypatch.setattr(raster, "open_image", lambda path: read.append(str(path)) or opened(path))
    raster.reset_stats()
    raster.run(plan, cache, FONTS, groups=_groups(sheets))
    assert raster.STATS["rasterized"] == 5
    assert read == [str(plan.paths[4])] * 2       # only the side both sheets show, once for each
    made = [(tmp_path / "a.jpg").read_bytes(), (tmp_path / "b.png").read_bytes()]
    for f in ("a.jpg", "b.png"):
        (tmp_path / f).unlink()
    for args in sheets:                           # every cell from the cache
        mosaic.Mosaic(*args).make()
    assert [(tmp_path / "a.jpg").read_bytes(), (tmp_path / "b.png").read_bytes()] == made
    img = Image.open(io.BytesIO(raster.read_payload(tmp_path / "b.png"))).convert("RGB")
    assert img.getpixel((5, 5)) == (0, 255, 0)    # the green square at the top left, as rendered
    sheet = Image.open(io.BytesIO(raster.read_payload(tmp_path / "a.jpg"))).convert("RGB")
    r, g, b = sheet.getpixel((120 + 55, 80))      # the third cell turned over: its square at the bottom right
    assert g > 200 and r < 60 and b < 60
    assert sheet.getpixel((120 + 5, 5))[1] < 120
    r, g, b = sheet.getpixel((30, 84 + 40))       # the colour cell
    assert r > 180 and g < 60 and b < 60
    assert min(sheet.getpixel((60 + 30, 84 + 40))) > 245      # the empty one, white


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="worker processes need two cores")
def test_sheets_made_by_the_workers_are_the_same_bytes(tmp_path):
    plans = []
    for name in ("here", "workers"):
        cache = raster.Cache(tmp_path / name)
        plan = raster.plan([(_side(i), CELL) for i in range(2 * raster.SMALL_JOB + 5)], cache)
        (tmp_path / name / "s").mkdir(parents=True)
        sheets = _sheets(tmp_path / name / "s", plan.paths)
        if name == "here":
            raster.run(plan, cache, FONTS, groups=_groups(sheets))
        else:
            with raster.Pool() as pool:
                raster.run(plan, cache, FONTS, pool, groups=_groups(sheets))
                assert pool.size >= 2
        plans.append(plan)
    for f in ("a.jpg", "b.png"):
        assert (tmp_path / "here" / "s" / f).read_bytes() == (tmp_path / "workers" / "s" / f).read_bytes()
    for a, b in zip(*(p.paths for p in plans)):
        assert raster.read_payload(a) == raster.read_payload(b)
