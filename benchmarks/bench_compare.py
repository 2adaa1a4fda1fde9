"""Cold and one-card-edit build times of two checkouts of cardgen, measured in turn.

    python benchmarks/bench_compare.py BEFORE AFTER [--cards N] [--rounds R]

BEFORE and AFTER are checkouts of cardgen (git worktrees: `git worktree add --detach
/tmp/before <commit>`). Each round runs the same figures for BEFORE, then for AFTER, so that a
busy machine (other jobs come and go) weighs on both alike; the figures printed are medians
over the rounds: wall-clock seconds and CPU seconds (user + system of the process and of every
process it waited for; on a shared machine the steadier figure). The figures, on a synthetic
game of N distinct poker cards (`synthetic.py`, the same game for both), are
`bench_incremental.py`'s:

- cold print: `cardgen build --only print` into an empty output folder (both papers);
- with --full, cold, every default output: `cardgen build` into an empty output folder;
- one card edited: one card's text changed, then `cardgen build` (every default output) and
  `cardgen build --only print`, into the output folder of the last build;
- in process: `bench_build.py` (build_game, both print papers, in one process) and the
  seconds it prints.

Each checkout runs as `python -m cardgen` with PYTHONPATH set to it, with its own compiled
bytecode (made by a first run that is not counted) and user cache.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_incremental  # noqa: E402
from bench_incremental import edit, run  # noqa: E402
from synthetic import make_game  # noqa: E402

FIGURES = ("cold print (--only print)", "one card edited, every default output", "one card edited, --only print",
           "bench_build.py process", "bench_build.py build_game", "cold, every default output")


class Checkout:
    def __init__(self, label: str, tree: Path, scratch: Path, cards: int):
        self.label, self.tree = label, tree
        self.work = scratch / label
        self.game = make_game(self.work / "bench", cards)
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(self.work / "pycache"),
                        XDG_CACHE_HOME=str(self.work / "cache"))
        self.out = self.work / "out"
        self.edits = 0
        self.times: dict[str, list[tuple[float, float]]] = {f: [] for f in FIGURES}
        self.cards = cards
        self.full = False

    def cardgen(self, *args: str) -> tuple[float, float]:
        return run([sys.executable, "-m", "cardgen", *args], self.work, self.env)

    def warm_up(self) -> None:
        """Bytecode, fonts and the output folder of the edit figures, not counted."""
        self.cardgen("build", str(self.game), "--out", str(self.out))

    def round(self, k: int) -> None:
        game, t = str(self.game), self.times
        t["cold print (--only print)"].append(self.cardgen("build", game, "--only", "print",
                                                           "--out", str(self.work / f"cold{k}")))
        if self.full:
            t["cold, every default output"].append(self.cardgen("build", game, "--out", str(self.work / f"full{k}")))
        for figure, extra in (("one card edited, every default output", ()),
                              ("one card edited, --only print", ("--only", "print"))):
            self.edits += 1
            edit(self.game / "deck.yaml", self.edits)
            t[figure].append(self.cardgen("build", game, "--out", str(self.out), *extra))
        for old in (self.work / f"cold{k}", self.work / f"full{k}"):
            shutil.rmtree(old, ignore_errors=True)
        self._bench_build()
        print(f"  {self.label} round {k + 1}: " + ", ".join(f"{f} {v[-1][0]:.2f} s ({v[-1][1]:.2f} s CPU)"
                                                         for f, v in t.items() if v), flush=True)

    def _bench_build(self) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(self.tree / "benchmarks" / "bench_build.py"), str(self.cards)],
                              cwd=self.work, env=self.env, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.times["bench_build.py process"].append((wall, cpu))
        m = re.search(r": ([\d.]+) s, peak memory", done.stdout)
        self.times["bench_build.py build_game"].append((float(m.group(1)) if m else float("nan"), float("nan")))


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--cards", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--full", action="store_true", help="also a cold build of every default output each round")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="cardgen-compare-"))
    try:
        sides = [Checkout("before", args.before.resolve(), scratch, args.cards),
                 Checkout("after", args.after.resolve(), scratch, args.cards)]
        for side in sides:
            side.full = args.full
            side.warm_up()
        for k in range(args.rounds):
            for side in sides:
                side.round(k)
            print(f"round {k + 1} of {args.rounds} done; load average {os.getloadavg()[0]:.1f}", flush=True)
        print(f"{args.cards} cards, medians of {args.rounds} rounds: wall s (CPU s)")
        print(f"  {'':<40} {'before':>16} {'after':>16} {'after/before':>14}")
        for figure in FIGURES[:-1] + (FIGURES[-1:] if args.full else ()):
            b, a = sides[0].times[figure], sides[1].times[figure]
            bw, bc = median([x[0] for x in b]), median([x[1] for x in b])
            aw, ac = median([x[0] for x in a]), median([x[1] for x in a])
            cpu = f"({ac / bc:.2f})" if bc == bc and bc else ""
            print(f"  {figure:<40} {bw:6.2f} ({bc:5.2f}) {aw:7.2f} ({ac:5.2f}) {aw / bw:7.2f} {cpu}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(bench_incremental._SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
