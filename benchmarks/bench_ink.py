"""The ink `--ink-saver` saves on the bundled games: each game's print sheets (A4) built with and
without it, every page rasterized with PDFium at 30 dpi, and the mean coverage printed (ink of
each pixel = (C + M + Y) / 3 with C = 1 - red, ...; `cardgen.render.inksaver.coverage`).

    python benchmarks/bench_ink.py [GAME ...]      (default: every game in cards/)
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from cardgen.render.inksaver import coverage

REPO = Path(__file__).resolve().parent.parent


def sheets(game: Path, out: Path, *flags: str) -> bytes:
    subprocess.run([sys.executable, "-m", "cardgen", "build", str(game), "--only", "print", "--page", "a4",
                    "--out", str(out), "--quiet", *flags], check=True, capture_output=True)
    return (out / game.name / "print-a4.pdf").read_bytes()


def main(names: list[str]) -> None:
    games = [REPO / "cards" / n for n in names] or sorted(p for p in (REPO / "cards").iterdir()
                                                          if (p / "game.yaml").is_file())
    print("| game | pages | coverage | with --ink-saver | ink saved |")
    print("|---|---:|---:|---:|---:|")
    for game in games:
        with tempfile.TemporaryDirectory() as tmp:
            before = coverage(sheets(game, Path(tmp) / "a"))
            after = coverage(sheets(game, Path(tmp) / "b", "--ink-saver"))
        b, a = sum(before) / len(before), sum(after) / len(after)
        print(f"| {game.name} | {len(before)} | {b:.1%} | {a:.1%} | {1 - a / b:.0%} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
