"""Is a build linear in the number of cards, and is its memory flat?

    python benchmarks/bench_scale.py [--only print,print-both,tts,png,all] [N ...]   (default: 1000 10000)

For each N, a synthetic game of N distinct poker cards (`synthetic.py`) is written (not
timed), then built by `cardgen build` in a fresh process into an empty folder, once per
output: the print PDFs on Letter (`print`), the print PDFs on both papers (`print-both`:
Letter and A4, the default), the Tabletop Simulator export (`tts`) and the print-service
PNGs of both targets (`png`), and every default output at once (`all`: `cardgen build` as a
designer first runs it; session 16 found its gallery holding 2.4 GB at 10,000 cards, which
no single output above showed).  Every run is measured by `measure.py`: wall time, CPU time
(user + system) of the build and of every process it started (raster workers and their
fork server included, orphans too), and the peak of the summed memory of all of them,
sampled every 50 ms from /proc: resident set sizes (RSS: pages shared between processes
count once per process, an upper bound) and proportional set sizes (PSS: shared pages
divided among the processes sharing them).

Targets (issue 30): a 10,000-card game builds its print PDFs (both papers) under 300 MB,
and its TTS export under 400 MB, all processes counted (summed RSS).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from measure import Measured, machine, measure  # noqa: E402
from synthetic import make_game  # noqa: E402

OUTPUTS = {
    "print": ["--only", "print", "--page", "letter"],
    "print-both": ["--only", "print"],
    "tts": ["--only", "tts"],
    "png": ["--only", "png"],
    "all": [],
}
TARGETS_MB = {"print": 300, "print-both": 300, "tts": 400}


def run(n: int, output: str) -> Measured:
    with tempfile.TemporaryDirectory() as tmp:
        game = make_game(Path(tmp) / "bench", n)
        env = dict(os.environ, PYTHONPATH=str(REPO))
        args = [sys.executable, "-m", "cardgen", "build", str(game), "--out", str(Path(tmp) / "out"), "--quiet",
                *OUTPUTS[output]]
        m = measure(args, cwd=tmp, env=env)
        if m.returncode:
            raise SystemExit(f"{output} {n}: build failed:\n{m.stderr}")
    return m


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="print,print-both,tts,png,all",
                    help="comma-separated, of: " + ", ".join(OUTPUTS))
    ap.add_argument("sizes", type=int, nargs="*", default=[1000, 10000])
    a = ap.parse_args()
    outputs = a.only.split(",")
    print(f"# {machine()}")
    print(f"{'cards':>6} {'output':>10} {'wall':>8} {'CPU':>8} {'CPU ms/card':>12} {'all RSS MB':>11} "
          f"{'all PSS MB':>11} {'procs':>6} {'target':>7}")
    for n in a.sizes:
        for output in outputs:
            m = run(n, output)
            target = TARGETS_MB.get(output)
            verdict = "" if target is None else ("met" if m.rss_mb < target else "NOT met")
            print(f"{n:>6} {output:>10} {m.wall:>7.1f}s {m.cpu:>7.1f}s {1000 * m.cpu / n:>12.2f} {m.rss_mb:>11.0f} "
                  f"{m.pss_mb:>11.0f} {m.procs:>6} {verdict:>7}", flush=True)
    print(f"# {machine()}")


if __name__ == "__main__":
    main()
