"""What shaping costs on Latin text: every bundled game's cards laid out (no layout cache),
with HarfBuzz asked about every run as cardgen does, and with `FontBook.shaped` answering
None at once (the engine before shaping: characters' advances and kerning only).

Prints CPU seconds per game for both (the best of `--repeat` runs, each in this process with
the fonts' metrics already cached) and how many runs shaping changed. Figures only; the
machine's load average is printed with them, as it moves them.

    python benchmarks/bench_shaping.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from cardgen.core.errors import Report
from cardgen.pipeline.build import layout_game
from cardgen.pipeline.check import load_game
from cardgen.resources import fonts as fonts_module
from cardgen.resources.fonts import FontBook

REPO = Path(__file__).resolve().parent.parent


def _lay_out(game: Path) -> tuple[float, int]:
    """CPU seconds to load and lay out `game` (a fresh run: no layout cache), and how many of
    its text runs shaping changed."""
    loaded = load_game(game, REPO, Report())
    start = time.process_time()
    rendered = layout_game(loaded, Report())
    spent = time.process_time() - start
    changed = sum(1 for _, _, face in rendered.faces for op in face.ops for r in getattr(op, "runs", ())
                  if r.kind == "text" and r.glyphs)
    return spent, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    real = FontBook.shaped
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'game':<20} {'shaped (s)':>11} {'unshaped (s)':>13} {'runs changed':>13}")
    for game in sorted(p for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file()):
        times: dict[str, float] = {}
        changed = 0
        for mode in ("shaped", "unshaped"):
            FontBook.shaped = real if mode == "shaped" else (lambda self, text, font_name: None)  # type: ignore[method-assign]
            best = float("inf")
            for _ in range(args.repeat):
                fonts_module._shaper._runs.clear()     # (shaped afresh each run, as a new process would)
                spent, runs = _lay_out(game)
                best = min(best, spent)
                changed = runs if mode == "shaped" else changed
            times[mode] = best
        FontBook.shaped = real  # type: ignore[method-assign]
        print(f"{game.name:<20} {times['shaped']:>11.2f} {times['unshaped']:>13.2f} {changed:>13}")


if __name__ == "__main__":
    main()
