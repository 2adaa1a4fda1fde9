"""Benchmark: print-service PNGs (`--only png --target mpc`) against the floor, a bare
pypdfium2 render-and-encode loop of the same pages on the same cores.

For each size (default 500 and 2,000 distinct poker cards, `benchmarks/synthetic.py`, one
shared back) it prints:

- build: `cardgen build --only png --target mpc` from an empty cache, in this process (as
  the command line runs it: load, lay out, rasterize in worker processes, write the files);
- floor: the same card sides drawn once into one PDF beforehand (not timed), then one
  process per core renders its share of the pages at the same pixel size with pypdfium2
  and writes each as a PNG (zlib level 1, as cardgen's), nothing else;
- the ratio build / floor (target: at most 1.2), of the wall-clock times and of the CPU
  times (this process and its workers, `resource.getrusage`): on a machine other work
  shares, the CPU times are the steadier comparison. Each is the best of `--repeat` runs,
  build and floor taking turns;
- the peak resident memory of the largest worker process so far (`ru_maxrss` of the
  children): flat in the number of cards, since a worker gets at most `raster.CHUNK` card
  sides per task.

    PYTHONPATH=$PWD python benchmarks/bench_png.py [--cards 500 2000]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic import make_game  # noqa: E402

from cardgen.core.errors import Report  # noqa: E402
from cardgen.layout.engine import layout_game  # noqa: E402
from cardgen.load.game import load_game  # noqa: E402
from cardgen.outputs.png import TARGETS  # noqa: E402
from cardgen.pipeline.build import BuildOptions, build_game  # noqa: E402
from cardgen.render import raster  # noqa: E402

_PDF: bytes = b""


def _floor_part(args: tuple[int, int, float, str]) -> int:
    import pypdfium2 as pdfium

    start, end, scale, out = args
    doc = pdfium.PdfDocument(_PDF)
    for i in range(start, end):
        page = doc[i]
        img = page.render(scale=scale).to_pil().convert("RGB")
        page.close()
        img.save(os.path.join(out, f"{i}.png"), "PNG", compress_level=raster.PNG_LEVEL)
    doc.close()
    return end - start


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def floor(pdf: bytes, pages: int, scale: float, out: Path) -> float:
    """Seconds for `cores` processes to render and encode `pages` pages of `pdf`."""
    global _PDF
    _PDF = pdf
    cores = os.cpu_count() or 1
    step = -(-pages // cores)
    parts = [(s, min(pages, s + step), scale, str(out)) for s in range(0, pages, step)]
    t = time.perf_counter()
    with mp.get_context("fork").Pool(cores) as pool:
        pool.map(_floor_part, parts, chunksize=1)
    return time.perf_counter() - t


def timed(fn, *args) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process and its workers) of fn(*args)."""
    c, t = _cpu(), time.perf_counter()
    fn(*args)
    return time.perf_counter() - t, _cpu() - c


def run(n: int, repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:
    builds, floors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        game = make_game(Path(tmp) / "bench", n)
        # the floor's input: the same card sides, one PDF made beforehand
        r = layout_game(load_game(game, game, Report()), Report())
        faces, backs = r.printed()
        layouts = [*faces, *backs]
        pdf = raster.jobs_pdf(layouts, r.res.fonts)
        first = layouts[0]
        w, _ = TARGETS["mpc"].size(first.width / 72 * 25.4, first.height / 72 * 25.4)
        scale = w / (first.width + 2 * first.bleed)        # the cards have 1/8 in bleed, about mpc's
        for k in range(repeat):
            out = Path(tmp) / f"out{k}"                     # a fresh output folder: an empty cache
            raster.reset_stats()
            builds.append(timed(build_game, game, game, BuildOptions(
                out=out, only=("png",), outputs={"png": {"targets": ("mpc",)}}), Report()))
            assert raster.STATS["rasterized"] == len(layouts), (raster.STATS, len(layouts))
            (Path(tmp) / f"floor{k}").mkdir()
            floors.append(timed(floor, pdf, len(layouts), scale, Path(tmp) / f"floor{k}"))
    best = (min(b[0] for b in builds), min(b[1] for b in builds))
    bare = (min(f[0] for f in floors), min(f[1] for f in floors))
    return best, bare


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, nargs="*", default=[500, 2000])
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; best of {args.repeat}")
    print(f"{'cards':>6} {'build s':>8} {'floor s':>8} {'ratio':>6} {'build CPU s':>12} {'floor CPU s':>12} "
          f"{'ratio':>6} {'worker MB':>10}")
    for n in args.cards:
        (bw, bc), (fw, fc) = run(n, args.repeat)
        mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"{n:>6} {bw:>8.2f} {fw:>8.2f} {bw / fw:>6.2f} {bc:>12.2f} {fc:>12.2f} {bc / fc:>6.2f} {mb:>10.0f}",
              flush=True)


if __name__ == "__main__":
    main()
