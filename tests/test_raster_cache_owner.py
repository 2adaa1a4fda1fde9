"""The bitmap cache of an output folder (`.cache/raster/`) is cardgen's own: bitmaps shipped
with a game, or copied from another output folder, are never used for a card."""
import os
import shutil

from cardgen.core.digest import own_stamp
from cardgen.render import raster


def test_a_shipped_cache_is_emptied_before_use(tmp_path):
    out = tmp_path / "build" / "game"
    shipped = out / ".cache" / "raster"
    shipped.mkdir(parents=True)
    (shipped / ("0" * 64 + ".rgbz")).write_bytes(b"a bitmap the game brought")
    (shipped / "OWNER").write_text("someone else's stamp")
    cache = raster.Cache.of(out)
    assert cache.dir == shipped
    assert sorted(p.name for p in shipped.iterdir()) == ["OWNER"]
    assert (shipped / "OWNER").read_text() == own_stamp(out)
    # its own, next time: kept
    (shipped / ("1" * 64 + ".rgbz")).write_bytes(b"made here")
    raster.Cache.of(out)
    assert sorted(p.name for p in shipped.iterdir()) == ["1" * 64 + ".rgbz", "OWNER"]


def test_a_cache_copied_from_another_output_folder_is_not_trusted(tmp_path):
    first = tmp_path / "a" / "game"
    raster.Cache.of(first)
    (first / ".cache" / "raster" / ("2" * 64 + ".rgbz")).write_bytes(b"made for a")
    second = tmp_path / "b" / "game"
    shutil.copytree(first, second)
    raster.Cache.of(second)
    assert sorted(p.name for p in (second / ".cache" / "raster").iterdir()) == ["OWNER"]
    assert (first / ".cache" / "raster" / ("2" * 64 + ".rgbz")).exists()


def test_a_cache_reached_through_a_link_is_never_used(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ("3" * 64 + ".rgbz")).write_bytes(b"outside")
    out = tmp_path / "build" / "game"
    (out / ".cache").mkdir(parents=True)
    os.symlink(elsewhere, out / ".cache" / "raster")
    cache = raster.Cache.of(out)
    assert cache.dir != out / ".cache" / "raster" and not cache.dir.exists()
    assert sorted(p.name for p in elsewhere.iterdir()) == ["3" * 64 + ".rgbz"]       # untouched
