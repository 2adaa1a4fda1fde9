"""Benchmark: print-service PNGs (`--only png --target mpc`) against the floor, a bare
pypdfium2 render-and-encode loop of the same pages on the same cores.

For each size (default 500 and 2,000 distinct poker cards, `benchmarks/synthetic.py`, one
shared back) it prints, best of `--repeat` runs, build and floor taking turns:

- build: `cardgen build --only png --target mpc` into an empty output folder, in a fresh
  process each time (load, lay out, rasterize in worker processes, write the files),
  measured from the outside by `measure.py`: wall time, and the CPU time (user + system)
  and peak summed memory of the build process and every process it started (the workers'
  fork server and the workers, orphans included);
- floor: the same card sides drawn once into one PDF beforehand (not timed), then, in a
  fresh process measured the same way, one worker process per core renders its share of
  the pages at the same pixel size with pypdfium2 and writes each as a PNG (zlib level 1,
  as cardgen's), nothing else;
- the ratios build / floor of the wall-clock and of the CPU times (target, issue 30: at
  most 1.1): on a machine other work shares, the CPU times are the steadier comparison;
- on a line of its own, the CPU time of what the build does before it rasterizes and the
  floor leaves out (`cardgen validate` in a fresh process: imports, loading, checks, laying
  out the cards; `measure.before_rasterizing`), its share of the build, and the rest of the
  build against the floor;
- on a line of its own, the median and range of the run-by-run ratios, each build against
  the floor of its turn (`measure.paired_line`).

    PYTHONPATH=$PWD python benchmarks/bench_png.py [--cards 500 2000] [--repeat 2]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from measure import before_line, before_rasterizing, compiled, machine, measure, paired_line  # noqa: E402
from synthetic import make_game  # noqa: E402

from cardgen.core.errors import Report  # noqa: E402
from cardgen.layout.engine import layout_game  # noqa: E402
from cardgen.outputs.png import TARGETS  # noqa: E402
from cardgen.pipeline.check import load_game  # noqa: E402
from cardgen.render import raster  # noqa: E402

# One cold build in a fresh process (cardgen's modules imported as `cardgen build` imports
# them), measured from the outside by `measure.py`; it prints how many card sides it rasterized.
CHILD = r"""
import json, sys
from pathlib import Path
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import raster
game, out = Path(sys.argv[1]), Path(sys.argv[2])
raster.reset_stats()
build_game(game, game, BuildOptions(out=out, only=("png",), outputs={"png": {"targets": ("mpc",)}}), Report())
print(json.dumps({"rasterized": raster.STATS["rasterized"]}))
"""

# The floor in a fresh process too: PDFium and Pillow imported, then one worker process per core.
FLOOR = r"""
import multiprocessing as mp, os, sys
import pypdfium2 as pdfium
pdf, pages, scale, out, level = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])

def part(args):
    start, end = args
    doc = pdfium.PdfDocument(pdf)
    for i in range(start, end):
        page = doc[i]
        img = page.render(scale=scale).to_pil().convert("RGB")
        page.close()
        img.save(os.path.join(out, f"{i}.png"), "PNG", compress_level=level)
    doc.close()

cores = os.cpu_count() or 1
step = -(-pages // cores)
with mp.get_context("fork").Pool(cores) as pool:
    pool.map(part, [(s, min(pages, s + step)) for s in range(0, pages, step)], chunksize=1)
"""


def build(game: Path, out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    m = measure([sys.executable, "-c", CHILD, str(game), str(out)], env=env)
    if m.returncode:
        raise SystemExit(f"build failed:\n{m.stderr}")
    return {**json.loads(m.stdout.strip().splitlines()[-1]), "wall": m.wall, "cpu": m.cpu, "rss_mb": m.rss_mb}


def run_floor(pdf: Path, pages: int, scale: float, out: Path) -> dict:
    """The floor in a fresh process, measured by `measure.py`."""
    out.mkdir()
    m = measure([sys.executable, "-c", FLOOR, str(pdf), str(pages), str(scale), str(out), str(raster.PNG_LEVEL)])
    if m.returncode:
        raise SystemExit(f"floor failed:\n{m.stderr}")
    return {"wall": m.wall, "cpu": m.cpu, "rss_mb": m.rss_mb}


def run(n: int, repeat: int) -> tuple[dict, dict]:
    builds, floors, befores = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        game = make_game(Path(tmp) / "bench", n)
        # the floor's input: the same card sides, one PDF made beforehand
        r = layout_game(load_game(game, game, Report()), Report())
        faces, backs = r.printed()
        layouts = [*faces, *backs]
        pdf = Path(tmp) / "floor.pdf"
        pdf.write_bytes(raster.jobs_pdf(layouts, r.res.fonts))
        first = layouts[0]
        w, _ = TARGETS["mpc"].size(first.width / 72 * 25.4, first.height / 72 * 25.4)
        scale = w / (first.width + 2 * first.bleed)        # the cards have 1/8 in bleed, about mpc's
        for k in range(repeat):
            b = build(game, Path(tmp) / f"out{k}")          # a fresh output folder: an empty cache
            assert b["rasterized"] == len(layouts), (b, len(layouts))
            builds.append(b)
            floors.append(run_floor(pdf, len(layouts), scale, Path(tmp) / f"floor{k}"))
            befores.append(before_rasterizing(game, ROOT).cpu)
            print(f"# run {k + 1}: build / floor CPU {b['cpu']:.2f} / {floors[-1]['cpu']:.2f} s "
                  f"({b['cpu'] / floors[-1]['cpu']:.2f}), wall {b['wall']:.2f} / {floors[-1]['wall']:.2f} s "
                  f"({b['wall'] / floors[-1]['wall']:.2f}); before rasterizing {befores[-1]:.2f} s", flush=True)
    best = lambda runs: {"wall": min(x["wall"] for x in runs), "cpu": min(x["cpu"] for x in runs),  # noqa: E731
                         "rss_mb": max(x["rss_mb"] for x in runs)}
    pairs = [(x["cpu"], x["wall"]) for x in builds], [(x["cpu"], x["wall"]) for x in floors]
    return {**best(builds), "before": min(befores), "pairs": pairs}, best(floors)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, nargs="*", default=[500, 2000])
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(f"# {machine()}; {compiled(ROOT)}; best of {args.repeat}, build and floor taking turns; "
          f"target: build / floor at most 1.1")
    print(f"{'cards':>6} {'build s':>8} {'floor s':>8} {'ratio':>6} {'build CPU s':>12} {'floor CPU s':>12} "
          f"{'ratio':>6} {'build MB':>9} {'floor MB':>9}")
    for n in args.cards:
        b, f = run(n, args.repeat)
        print(f"{n:>6} {b['wall']:>8.2f} {f['wall']:>8.2f} {b['wall'] / f['wall']:>6.2f} {b['cpu']:>12.2f} "
              f"{f['cpu']:>12.2f} {b['cpu'] / f['cpu']:>6.2f} {b['rss_mb']:>9.0f} {f['rss_mb']:>9.0f}", flush=True)
        print(before_line(b["before"], b["cpu"], f["cpu"]), flush=True)
        print(paired_line(*b["pairs"]), flush=True)
    print(f"# {machine()}")


if __name__ == "__main__":
    main()
