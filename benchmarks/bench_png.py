"""Benchmark: print-service PNGs (`--only png --target mpc`) against the floor, a bare
pypdfium2 render-and-encode loop of the same pages on the same cores.

For each size (default 500 and 2,000 distinct poker cards, `benchmarks/synthetic.py`, one
shared back) it prints:

- build: `cardgen build --only png --target mpc` from an empty cache, in a fresh process
  each time (as the command line runs it, cardgen's modules imported beforehand: load, lay
  out, rasterize in worker processes, write the files); its CPU time counts that process
  and every process it started (the workers' fork server and the workers, read from /proc);
- floor: the same card sides drawn once into one PDF beforehand (not timed), then one
  process per core renders its share of the pages at the same pixel size with pypdfium2
  and writes each as a PNG (zlib level 1, as cardgen's), nothing else;
- the ratio build / floor (target: at most 1.2), of the wall-clock times and of the CPU
  times: on a machine other work shares, the CPU times are the steadier comparison. Each is
  the best of `--repeat` runs, build and floor taking turns;
- the peak resident memory of the largest worker process (sampled from /proc every 20 ms):
  flat in the number of cards, since a worker gets at most `raster.CHUNK` card sides per task.

    PYTHONPATH=$PWD python benchmarks/bench_png.py [--cards 500 2000] [--repeat 2]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import os
import resource
import subprocess
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
from cardgen.outputs.png import TARGETS  # noqa: E402
from cardgen.pipeline.check import load_game  # noqa: E402
from cardgen.render import raster  # noqa: E402

# One cold build in a fresh process: prints wall seconds, CPU seconds of it and every process
# it started, the largest worker's peak memory and how many card sides were rasterized.
CHILD = r"""
import json, os, resource, sys, threading, time
from pathlib import Path
sys.path[:0] = [{root!r}, {bench!r}]
from bench_png import tree_cpu, peak_kb
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import raster
game, out = Path(sys.argv[1]), Path(sys.argv[2])
peak, spent, done = [0], [0.0], threading.Event()
def sample():                   # (its own CPU time is not the build's)
    while not done.wait(0.05):
        peak[0] = max(peak[0], peak_kb(os.getpid()))
    spent[0] = time.thread_time()
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
raster.reset_stats()
cpu, t = tree_cpu(os.getpid()), time.perf_counter()
build_game(game, game, BuildOptions(out=out, only=("png",), outputs={{"png": {{"targets": ("mpc",)}}}}), Report())
wall, cpu = time.perf_counter() - t, tree_cpu(os.getpid()) - cpu
done.set()
sampler.join()
cpu -= spent[0]
print(json.dumps({{"wall": wall, "cpu": cpu, "worker_mb": peak[0] / 1024, "rasterized": raster.STATS["rasterized"]}}))
"""

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _parents() -> dict[int, int]:
    """Every process's parent, from one pass over /proc."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                out[int(entry)] = int(_stat(int(entry))[1])
    return out


def _children(pid: int, parents: dict[int, int] | None = None) -> list[int]:
    return [p for p, parent in (parents or _parents()).items() if parent == pid]


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of this process, of its children that ended, and of each
    child still running with the children that it saw end (a fork server's workers)."""
    own, ended = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime
    for kid in _children(pid):
        try:
            utime, stime, cutime, cstime = (int(x) for x in _stat(kid)[11:15])
        except (OSError, ValueError):
            continue
        total += (utime + stime + cutime + cstime) / _TICK
    return total


def peak_kb(pid: int) -> int:
    """The largest peak resident memory (VmHWM) among the descendants of `pid`."""
    parents = _parents()
    best, todo = 0, _children(pid, parents)
    while todo:
        p = todo.pop()
        todo.extend(_children(p, parents))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        best = max(best, int(line.split()[1]))
        except OSError:
            pass
    return best


def build(game: Path, out: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    code = CHILD.format(root=str(ROOT), bench=str(ROOT / "benchmarks"))
    done = subprocess.run([sys.executable, "-c", code, str(game), str(out)], capture_output=True, text=True,
                          env=env, check=False)
    if done.returncode:
        raise SystemExit(f"build failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


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


def floor(pdf: bytes, pages: int, scale: float, out: Path) -> tuple[float, float]:
    """(wall, CPU) seconds for one process per core to render and encode `pages` pages of `pdf`."""
    global _PDF
    _PDF = pdf
    cores = os.cpu_count() or 1
    step = -(-pages // cores)
    parts = [(s, min(pages, s + step), scale, str(out)) for s in range(0, pages, step)]
    cpu, t = tree_cpu(os.getpid()), time.perf_counter()
    with mp.get_context("fork").Pool(cores) as pool:
        pool.map(_floor_part, parts, chunksize=1)
    return time.perf_counter() - t, tree_cpu(os.getpid()) - cpu


def run(n: int, repeat: int) -> tuple[dict, tuple[float, float]]:
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
            b = build(game, Path(tmp) / f"out{k}")          # a fresh output folder: an empty cache
            assert b["rasterized"] == len(layouts), (b, len(layouts))
            builds.append(b)
            (Path(tmp) / f"floor{k}").mkdir()
            floors.append(floor(pdf, len(layouts), scale, Path(tmp) / f"floor{k}"))
    best = {"wall": min(b["wall"] for b in builds), "cpu": min(b["cpu"] for b in builds),
            "worker_mb": max(b["worker_mb"] for b in builds)}
    return best, (min(f[0] for f in floors), min(f[1] for f in floors))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, nargs="*", default=[500, 2000])
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; best of {args.repeat}; target: build / floor at most 1.2")
    print(f"{'cards':>6} {'build s':>8} {'floor s':>8} {'ratio':>6} {'build CPU s':>12} {'floor CPU s':>12} "
          f"{'ratio':>6} {'worker MB':>10}")
    for n in args.cards:
        b, (fw, fc) = run(n, args.repeat)
        print(f"{n:>6} {b['wall']:>8.2f} {fw:>8.2f} {b['wall'] / fw:>6.2f} {b['cpu']:>12.2f} {fc:>12.2f} "
              f"{b['cpu'] / fc:>6.2f} {b['worker_mb']:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
