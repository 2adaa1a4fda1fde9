"""Is a build linear in the number of cards, and is its memory flat?

    python benchmarks/bench_scale.py [N ...]        (default: 1000 10000)

For each N, a synthetic game of N distinct poker cards (`synthetic.py`) is built twice in a
fresh process each: the print PDFs (`--only print`, Letter) and the Tabletop Simulator export
(`--only tts`).  Printed per run: wall time, time per card, and peak resident memory of the
build process and of its worker processes (`resource.getrusage`, RUSAGE_SELF and
RUSAGE_CHILDREN: the largest child, so "all processes together" is at most self + workers x
largest child).  Targets (issue 11): a 10,000-card game builds its print PDFs under 300 MB
and its TTS output under 400 MB.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, {here!r})
from synthetic import make_game
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
n, only, tmp = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
root = make_game(tmp / "bench", n)
opts = BuildOptions(out=tmp / "out", only=(only,), papers=("letter",))
start = time.perf_counter()
build_game(root, Path({repo!r}), opts, Report())
took = time.perf_counter() - start
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({{"seconds": took, "self_mb": me, "child_mb": kids}}))
"""


def run(n: int, only: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        out = subprocess.run([sys.executable, "-c", CHILD.format(here=str(HERE), repo=str(REPO)), str(n), only, tmp],
                             capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10000]
    print(f"{'cards':>6} {'output':>6} {'time':>8} {'ms/card':>8} {'peak MB (build)':>16} {'largest worker MB':>18}")
    for n in sizes:
        for only in ("print", "tts"):
            start = time.perf_counter()
            r = run(n, only)
            _ = time.perf_counter() - start
            print(f"{n:>6} {only:>6} {r['seconds']:>7.1f}s {1000 * r['seconds'] / n:>8.2f} {r['self_mb']:>16.0f} "
                  f"{r['child_mb']:>18.0f}", flush=True)


if __name__ == "__main__":
    main()
