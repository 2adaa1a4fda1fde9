"""Is a build linear in the number of cards, and is its memory flat?

    python benchmarks/bench_scale.py [--only print,tts,png] [N ...]     (default: 1000 10000)

For each N, a synthetic game of N distinct poker cards (`synthetic.py`) is built in a fresh
process for each output: the print PDFs (`--only print`, Letter), the Tabletop Simulator
export (`--only tts`) and the print-service PNGs (`--only png`).  Printed per run: wall
time, time per card, the peak resident memory of the build process alone, and the peak of
the memory of the build process and all its worker processes together, sampled every 50 ms
from /proc: the sum of their resident set sizes (RSS: pages shared between processes count
once per process, so this is an upper bound) and the sum of their proportional set sizes
(PSS: shared pages divided among the processes sharing them, the fair "together" figure).
Targets (issue 11): a 10,000-card game builds its print PDFs under 300 MB and its TTS and
PNG outputs under 400 MB for all processes together.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from measure import memory, tree  # noqa: E402  (the process tree and its memory, as every benchmark counts them)

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
print(json.dumps({{"seconds": took, "self_mb": me}}))
"""


class Sampler(threading.Thread):
    """The peak of the summed memory of a process and its descendants."""

    def __init__(self, pid: int, every: float = 0.05):
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.rss = self.pss = 0.0
        self.procs = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            pids = tree(self.pid)
            mems = [memory(p) for p in pids]
            self.rss = max(self.rss, sum(m[0] for m in mems))
            self.pss = max(self.pss, sum(m[1] for m in mems))
            self.procs = max(self.procs, len(pids))
            self.done.wait(self.every)


def run(n: int, only: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        proc = subprocess.Popen([sys.executable, "-c", CHILD.format(here=str(HERE), repo=str(REPO)), str(n), only,
                                 tmp], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        sampler = Sampler(proc.pid)
        sampler.start()
        out, err = proc.communicate()
        sampler.done.set()
        sampler.join()
        if proc.returncode:
            raise SystemExit(f"{only} {n}: build failed:\n{err}")
    result = json.loads(out.strip().splitlines()[-1])
    result.update(all_rss_mb=sampler.rss, all_pss_mb=sampler.pss, processes=sampler.procs)
    return result


def main() -> None:
    args = sys.argv[1:]
    outputs = ("print", "tts", "png")
    if args and args[0] == "--only":
        outputs = tuple(args[1].split(","))
        args = args[2:]
    sizes = [int(a) for a in args] or [1000, 10000]
    print(f"{'cards':>6} {'output':>6} {'time':>8} {'ms/card':>8} {'build MB':>9} {'all RSS MB':>11} "
          f"{'all PSS MB':>11} {'procs':>6}")
    for n in sizes:
        for only in outputs:
            r = run(n, only)
            print(f"{n:>6} {only:>6} {r['seconds']:>7.1f}s {1000 * r['seconds'] / n:>8.2f} {r['self_mb']:>9.0f} "
                  f"{r['all_rss_mb']:>11.0f} {r['all_pss_mb']:>11.0f} {r['processes']:>6}", flush=True)


if __name__ == "__main__":
    main()
