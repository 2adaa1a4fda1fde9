"""Raster worker processes: forked from a fork server that imported what they need (they
hold only that and what they are sent, not a copy of the build process), fed bounded parts
of the card sides, and their bitmaps match an in-process rasterization pixel for pixel."""
from __future__ import annotations

import multiprocessing
import os
import sys

import pytest

from cardgen.core.data import DATA
from cardgen.core.units import MM
from cardgen.model import ops
from cardgen.render import raster

FONTS = [DATA / "fonts"]
pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="worker processes need two cores")



def probe() -> tuple[int, int, bool, bool, int]:
    """Run in a worker: its pid, its parent's, whether it has the modules the build process
    has, whether it found PDFium's module imported, and how many freed image blocks its
    Pillow keeps for reuse."""
    from PIL import Image

    return (os.getpid(), os.getppid(), "cardgen.pipeline.build" in sys.modules, "pypdfium2" in sys.modules,
            Image.core.get_blocks_max())


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_workers_come_from_a_fork_server_not_the_build_process():
    import cardgen.pipeline.build  # noqa: F401  (the build process has it; a worker does not)

    with raster.Pool() as pool:
        out = pool.map([("call", (probe, ())) for _ in range(4)])
    pids, parents = {o[0] for o in out}, {o[1] for o in out}
    assert os.getpid() not in pids
    assert not any(o[2] for o in out)
    assert parents != {os.getpid()} and len(parents) == 1      # all forked by the one fork server
    assert all(o[3] for o in out)                              # which imported PDFium for them, once
    # a worker's Pillow keeps freed blocks (a deck sheet's memory reused by the next); this process's does not
    from PIL import Image

    assert {o[4] for o in out} == {raster.WORKER_BLOCKS} and Image.core.get_blocks_max() == 0


def _layout(i: int) -> ops.CardLayout:
    w, h = 63.5 * MM, 88.9 * MM
    shade = (i * 7 % 256) / 255
    return ops.CardLayout(w, h, 9.0, [ops.Rect(-9.0, -9.0, w + 18, h + 18, fill=(shade, 0.2, 0.4, 1.0)),
                                      ops.Rect(10 * MM, 10 * MM, 5 * MM, 5 * MM, fill=(0.0, 1.0, 0.0, 1.0))],
                          f"w/{i}")


def test_parts_are_bounded_and_the_bitmaps_match_in_process(tmp_path, monkeypatch):
    sizes: list[int] = []
    chunks = raster._chunks

    def spy(items, n):
        out = chunks(items, n)
        sizes.extend(len(c) for c in out)
        return out

    monkeypatch.setattr(raster, "_chunks", spy)
    spec = raster.Spec(100, 140)
    requests = [(_layout(i), spec) for i in range(40)]
    with raster.Pool() as pool:
        paths = raster.rasterize(requests, raster.Cache(tmp_path / "a"), FONTS, pool)
    assert sum(sizes) == 40 and max(sizes) <= raster.CHUNK and len(sizes) >= 2
    here = raster.rasterize(requests, raster.Cache(tmp_path / "b"), FONTS)    # no pool: this process
    assert len(set(paths)) == 40
    for a, b in zip(paths, here):
        assert raster.open_image(a).tobytes() == raster.open_image(b).tobytes()


def test_without_a_fork_server_workers_are_spawned(monkeypatch):
    """A fork server that cannot start (it needs a socket in the temporary folder) is no
    error: the workers are spawned instead, still fresh."""
    from multiprocessing import forkserver

    def refuse():
        raise PermissionError(13, "Permission denied", "/tmp/pymp-x")

    monkeypatch.setattr(forkserver, "ensure_running", refuse)
    monkeypatch.setattr(raster, "_forkserver_failed", False)
    import cardgen.pipeline.build  # noqa: F401

    assert raster.start_early() is False
    with raster.Pool() as pool:
        out = pool.map([("call", (probe, ())) for _ in range(4)])
    assert {o[1] for o in out} == {os.getpid()}                 # our own children: spawned
    assert not any(o[2] for o in out)
