"""How long a designer waits: cold builds, rebuilds with nothing changed, rebuilds after one
edited card, the bare-ReportLab yardstick, and start-up times.

    python benchmarks/bench_incremental.py [N ...]        (default: 500 2000)
    python benchmarks/bench_incremental.py start-up      (the start-up figures only)

Every figure is a whole `cardgen` process (`python -m cardgen ...`, as a designer runs it),
the best of several runs: wall-clock seconds and, in brackets, the CPU seconds it used (user +
system; on a shared machine the CPU time is the steadier figure), with every process it
started: raster workers and their fork server, even those that end after it (they were not
counted before issue 30: TTS and gallery CPU was under-reported, 2.5 s shown for 6.8 s used).  For each N, a synthetic
game of N distinct poker cards (`synthetic.py`):

- cold print: `cardgen build --only print` into an empty output folder (both papers);
- bare ReportLab: `bare_reportlab.py` drawing the same cards as forms on the same sheets,
  and the ratio cold print / bare;
- no-op: `cardgen build` (every default output) again with nothing changed;
- one card: one card's text edited, then `cardgen build` (every default output: the print
  sheets and cards.pdf are remade, the rest kept) and `cardgen build --only print`;
- check stage: the CPU time of `check_game` (load, check and lay out the game: what `cardgen
  validate` does and every build does first) after one card's text was edited, in a process
  of its own as in a build, with the layout cache of the last build (`cardgen.layout.cache`)
  and without it; how many card sides it laid out; and the CPU time of the contrast check
  after it (`check_rendered`, which a build of the gallery runs next: it renders and measures
  the edited side).

Start-up: `cardgen --help`, `cardgen validate` of the game `cardgen new` makes (also its very
first run on a computer, when the fonts are parsed: `cardgen.resources.fonts`), and of the
bundled game cards/face-off.  Targets (issue 15), on the 2-core development machine: no-op
under 0.3 s (500 cards) and 1 s (2,000); one card under 0.5 s and 1.5 s to updated print PDFs;
cold print within 1.5x of bare ReportLab; `cardgen --help` under 0.1 s and `cardgen validate`
under 0.2 s.

The processes run as an installed cardgen does: with compiled bytecode (kept in a temporary
folder, `PYTHONPYCACHEPREFIX`, made by a first run that is not counted; a
`PYTHONDONTWRITEBYTECODE` in the environment would otherwise make every run compile
cardgen's sources again) and with a user cache of their own (`XDG_CACHE_HOME`, the fonts'
metrics).
"""
from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from measure import every_process  # noqa: E402
from synthetic import make_game  # noqa: E402

_SCRATCH = tempfile.mkdtemp(prefix="cardgen-bench-")    # bytecode and the user cache of the processes timed
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=os.path.join(_SCRATCH, "pycache"),
           XDG_CACHE_HOME=os.path.join(_SCRATCH, "cache"))


def run(args: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process and of every process it started, raster
    workers and their fork server included even when they outlive it (`measure.every_process`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with every_process():
        subprocess.run(args, cwd=cwd, env=env or ENV, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(times: list[tuple[float, float]]) -> tuple[float, float]:
    return min(t[0] for t in times), min(t[1] for t in times)


def show(label: str, t: tuple[float, float]) -> None:
    print(f"  {label:<44} {t[0]:6.2f} s  ({t[1]:.2f} s CPU)", flush=True)


def cardgen(*args: str) -> list[str]:
    return [sys.executable, "-m", "cardgen", *args]


def edit(deck: Path, k: int) -> None:
    """Change the text of card k (each call a new text)."""
    text = deck.read_text(encoding="utf-8")
    name = f'"Card {k:04d}"'
    start = text.index(name)
    end = text.index("\n", start)
    line = text[start:end]
    new = re.sub(r'text: "([^"]*)"', lambda m: f'text: "Edited {time.time_ns()}. {m.group(1)}"', line)
    deck.write_text(text[:start] + new + text[end:], encoding="utf-8")


CHECK = """
import json, sys, time
from pathlib import Path
from cardgen.core.errors import Report
from cardgen.pipeline.check import check_game, check_rendered
from cardgen.pipeline.incremental import code_version_of
if __name__ == "__main__":              # (the contrast check may start raster workers)
    game, out = Path(sys.argv[1]), Path(sys.argv[2])
    code_version_of(out / game.name)        # as a build has worked it out before it checks
    start = time.process_time()
    report = Report()
    checked = check_game(game, game, report, out)
    cpu = time.process_time() - start
    start = time.process_time()
    if sys.argv[3:] == ["contrast"]:
        check_rendered(checked, report, out / game.name)    # as a build of the gallery does next
    rendered = time.process_time() - start
    checked.layout_cache.save()             # as a build does when it is done
    r = checked.rendered
    print(json.dumps([cpu, r.laid_out, r.laid_out + r.reused, rendered]))
"""


def check_stage(game: Path, out: Path, k: int, contrast: bool = True) -> tuple[float, int, int, float]:
    """Edit card k, then `check_game` and (`contrast`) the contrast check in a process of its
    own: (CPU seconds, sides laid out, sides, CPU seconds of the contrast check)."""
    edit(game / "deck.yaml", k)
    done = subprocess.run([sys.executable, "-c", CHECK, str(game), str(out), *(["contrast"] if contrast else [])],
                          env=ENV, check=True, capture_output=True, text=True)
    cpu, laid_out, sides, rendered = json.loads(done.stdout)
    return cpu, laid_out, sides, rendered


def show_check(label: str, figures: list[tuple[float, int, int, float]], contrast: bool = True) -> None:
    cpu, laid_out, sides, _ = min(figures)
    then = f"; then the contrast check {min(f[3] for f in figures):.2f} s CPU" if contrast else ""
    print(f"  {label:<44} {cpu:6.2f} s CPU, {laid_out} of {sides} card sides laid out{then}", flush=True)


def game_figures(n: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        game = make_game(tmp_path / "bench", n)
        print(f"{n} cards", flush=True)
        cold = []
        for i in range(runs):
            cold.append(run(cardgen("build", str(game), "--only", "print", "--out", str(tmp_path / f"cold{i}")),
                            tmp_path))
        cold_t = best(cold)
        show("cold print (--only print)", cold_t)
        bare = best([run([sys.executable, str(HERE / "bare_reportlab.py"), str(game), str(tmp_path / f"bare{i}")],
                         tmp_path) for i in range(runs)])
        show("bare ReportLab, the same cards", bare)
        print(f"  {'ratio cold print / bare':<44} {cold_t[0] / bare[0]:6.2f} x  ({cold_t[1] / bare[1]:.2f} x CPU)")
        out = tmp_path / "out"
        full = ["build", str(game), "--out", str(out)]
        show("cold, every default output", run(cardgen(*full), tmp_path))
        show("no-op, every default output", best([run(cardgen(*full), tmp_path) for _ in range(runs + 2)]))
        edits = []
        for k in range(runs):
            edit(game / "deck.yaml", k + 1)
            edits.append(run(cardgen(*full), tmp_path))
        show("one card edited, every default output", best(edits))
        edits = []
        for k in range(runs):
            edit(game / "deck.yaml", k + 10)
            edits.append(run(cardgen(*full, "--only", "print"), tmp_path))
        show("one card edited, --only print", best(edits))
        show("no-op, --only print", best([run(cardgen(*full, "--only", "print"), tmp_path)
                                          for _ in range(runs + 2)]))
        show_check("check stage, one card edited", [check_stage(game, out, k + 20) for k in range(runs)])
        show_check("check stage, one card edited, no layout cache",
                   [check_stage(game, tmp_path / f"empty{k}", k + 30, contrast=False) for k in range(runs)], False)


def start_up(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        subprocess.run(cardgen("new", "small"), cwd=tmp_path, env=ENV, check=True, stdout=subprocess.DEVNULL)
        print("start-up", flush=True)
        show("python -c pass (the interpreter alone)", best([run([sys.executable, "-c", "pass"], tmp_path)
                                                             for _ in range(runs)]))
        show("cardgen --help", best([run(cardgen("--help"), tmp_path) for _ in range(runs)]))
        first_env = dict(ENV, XDG_CACHE_HOME=str(tmp_path / "first-cache"))
        show("cardgen validate small (fonts not cached)",
             run(cardgen("validate", "small"), tmp_path, first_env))
        show("cardgen validate small (made by cardgen new)",
             best([run(cardgen("validate", "small"), tmp_path) for _ in range(runs)]))
        show("cardgen validate cards/face-off (bundled)",
             best([run(cardgen("validate", "cards/face-off"), REPO) for _ in range(runs)]))


def warm_up() -> None:
    """Compile cardgen's and the libraries' bytecode and measure the bundled fonts once (not timed)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(cardgen("new", "small"), cwd=tmp, env=ENV, check=True, stdout=subprocess.DEVNULL)
        for args in (["--help"], ["validate", "small"], ["build", "small", "--only", "print"]):
            subprocess.run(cardgen(*args), cwd=tmp, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    only_start_up = sys.argv[1:] == ["start-up"]
    sizes = [] if only_start_up else [int(a) for a in sys.argv[1:]] or [500, 2000]
    try:
        warm_up()
        start_up(7)
        for n in sizes:
            game_figures(n, 3)
    finally:
        shutil.rmtree(_SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
