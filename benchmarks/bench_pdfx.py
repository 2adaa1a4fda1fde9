"""The print-service PDF/X file after one edited card: what it costs inside a rebuild of every
default output, and how many card sides it converts.

    python benchmarks/bench_pdfx.py [N ...]        (default: 500)

For each N, a synthetic game of N distinct poker cards (`synthetic.py`), and one of N / 5
cards each with a picture of its own (800 x 400 px), built once with every default output;
then, the best of several runs, each after one card's text was edited:

- pdfx part, every default output: the CPU seconds of the print-service output's `make` (the
  deck's PDF/X file, its counts and the preflight) inside `cardgen build`, measured in the
  build's own process, and the CPU seconds of the whole build (`build_game`);
- card sides converted: how many the print-service output flattened, separated and drew
  (the rest are made from `<output>/.cache/pdfx.bin`, `cardgen.render.pdfxcache`);
- one card, --only pdfx: a whole `cardgen build --only pdfx` process (wall and CPU seconds).
"""
from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_incremental import ENV, best, cardgen, edit, run, show  # noqa: E402
from synthetic import make_game  # noqa: E402

# A build in this process, with the CPU time of the print-service output's `make` and of the
# whole build, and the card sides it converted, printed as JSON.
TIMED = """
import json, sys, time
from pathlib import Path
from cardgen.core.errors import Report
from cardgen.outputs import print_service
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render.pdfxcache import PdfxCache

spent = [0.0]
make = print_service.PrintService.make
def timed(self, job):
    start = time.process_time()
    try:
        return make(self, job)
    finally:
        spent[0] += time.process_time() - start
print_service.PrintService.make = timed
game, out = Path(sys.argv[1]), Path(sys.argv[2])
start = time.process_time()
build_game(game, game, BuildOptions(out=out), Report())
whole = time.process_time() - start
print(json.dumps({"pdfx": spent[0], "build": whole, "converted": PdfxCache.of(out / game.name).converted}))
"""


def timed_build(game: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", TIMED, str(game), str(out)], env=ENV, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def make_art_game(root: Path, n: int) -> Path:
    """`make_game` whose cards each show a picture of their own instead of the icon."""
    from PIL import Image, ImageDraw

    game = make_game(root, n)
    face = game / "templates" / "bench" / "face.yaml"
    face.write_text(re.sub(r"  - \{name: art, type: icon.*?\}\n",
                           '  - {name: art, type: image, src: "{{ card.pic }}", x: 6mm, y: 19mm, width: 51.5mm, '
                           'height: 26mm, fit: cover}\n', face.read_text(), flags=re.S))
    rng = random.Random(3)
    (game / "art").mkdir()
    lines = []
    for line in (game / "deck.yaml").read_text().splitlines():
        if line.startswith('  - {name: "Card '):
            k = int(line.split('"Card ')[1][:4])
            im = Image.new("RGB", (800, 400), tuple(rng.randrange(256) for _ in range(3)))
            draw = ImageDraw.Draw(im)
            for _ in range(60):
                x, y = rng.randrange(800), rng.randrange(400)
                draw.ellipse((x, y, x + rng.randrange(20, 200), y + rng.randrange(20, 200)),
                             fill=tuple(rng.randrange(256) for _ in range(3)))
            im.save(game / "art" / f"p{k}.png")
            line = line[:-1] + f", pic: p{k}.png}}"
        lines.append(line)
    (game / "deck.yaml").write_text("\n".join(lines) + "\n")
    return game


def figures(n: int, runs: int, art: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        game = (make_art_game if art else make_game)(tmp_path / "bench", n)
        out = tmp_path / "out"
        print(f"{n} cards" + (", each with its own picture" if art else ""), flush=True)
        show("cold, every default output", run(cardgen("build", str(game), "--out", str(out)), tmp_path))
        got = []
        for k in range(runs):
            edit(game / "deck.yaml", k + 1)
            got.append(timed_build(game, out))
        pdfx, whole = min(g["pdfx"] for g in got), min(g["build"] for g in got)
        print(f"  {'one card edited: pdfx part, every default output':<52} {pdfx:6.2f} s CPU "
              f"(of {whole:.2f} s CPU in build_game)")
        print(f"  {'card sides converted (each run)':<52} {', '.join(str(g['converted']) for g in got)}")
        edits = []
        for k in range(runs):
            edit(game / "deck.yaml", k + 20)
            edits.append(run(cardgen("build", str(game), "--out", str(out), "--only", "pdfx"), tmp_path))
        show("one card edited, --only pdfx", best(edits))


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [500]
    for n in sizes:
        figures(n, 5)
        figures(max(1, n // 5), 5, art=True)


if __name__ == "__main__":
    main()
