"""Benchmark: 500 distinct poker cards to Tabletop Simulator atlases.

Each card has a title, a type line, a coloured frame, about 25 words of text with an
inline icon, and the deck shares one back.  Prints the cold build time (empty cache),
the rebuild time (nothing changed), and the peak memory of this process plus its
largest worker.  Target on the 2-core dev machine: < 5 s and < 400 MB.

    PYTHONPATH=$PWD python benchmarks/bench_tts.py [--cards 500]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardgen.render import raster  # noqa: E402
from cardgen.pipeline.build import BuildOptions, build_game  # noqa: E402
from cardgen.core.errors import Report  # noqa: E402

FACE = """\
elements:
  - {name: frame, type: rect, box: bleed, fill: "{{ card.color }}"}
  - {name: panel, type: rect, x: 3mm, y: 3mm, width: 57.5mm, height: 82.9mm, radius: 2.5mm, fill: "#f7f0df"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 9mm, text: "{{ card.name }}",
     font: Vollkorn, style: bold, size: 13, min_size: 8, fit: shrink, align: center, valign: middle,
     color: "{{ card.color }}"}
  - {name: type, type: text, x: 5mm, y: 15mm, width: 53.5mm, height: 4mm, text: "{{ card.kind }}",
     style: bold, size: 7, uppercase: true, align: center, color: "#555555"}
  - {name: art, type: icon, x: 21.75mm, y: 22mm, width: 20mm, height: 20mm, icon: "{{ card.icon }}",
     color: "{{ card.color }}"}
  - {name: box, type: rect, x: 5mm, y: 48mm, width: 53.5mm, height: 34mm, radius: 1.5mm, fill: "#ffffff",
     stroke: "{{ card.color }}", stroke_width: 0.6pt}
  - {name: text, type: text, x: 7mm, y: 50mm, width: 49.5mm, height: 30mm, text: "{{ card.text }}",
     size: 9, min_size: 6, fit: shrink, align: center, valign: middle, color: "#1f1b16"}
"""

BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#243b6b"}
  - {name: frame, type: rect, x: 4mm, y: 4mm, width: 55.5mm, height: 80.9mm, radius: 2.5mm, stroke: "#ffffff",
     stroke_width: 1pt}
  - {name: title, type: text, x: 6mm, y: 38mm, width: 51.5mm, height: 12mm, text: "{{ game.title }}",
     font: Vollkorn, style: bold, size: 20, color: "#ffffff", align: center, valign: middle}
"""

WORDS = ("gain lose draw discard each player partner abyss city treasure card round move "
         "your team may instead when another until end of turn take give one two three").split()
ICONS = ["coins", "shield", "trophy", "cog", "treasure", "crystal-ball", "heart-plus", "puzzle"]
COLORS = ["#1d6a72", "#5a3a86", "#2e6e34", "#9a6a12", "#b5542c", "#243b6b", "#8a1c3b", "#3f5f1f"]


def make_game(folder: Path, n: int) -> Path:
    """A game of one deck of `n` distinct cards (written here, not shared with other benchmarks)."""
    game = folder / "bench-tts"
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "templates" / "back.yaml").write_text(BACK)
    (game / "game.yaml").write_text("title: TTS Bench\ncard_size: poker\n")
    lines = ["deck: Bench", "template: face", "back: back", "cards:"]
    for i in range(n):
        words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(24)]
        words.insert(5 + i % 10, f":{ICONS[(i + 3) % len(ICONS)]}:")
        text = " ".join(words).capitalize() + "."
        lines.append(f"  - name: Card {i + 1:03d}")
        lines.append(f"    kind: Type {i % 5 + 1}")
        lines.append(f"    color: \"{COLORS[i % len(COLORS)]}\"")
        lines.append(f"    icon: {ICONS[i % len(ICONS)]}")
        lines.append(f"    text: \"{text}\"")
    (game / "bench.yaml").write_text("\n".join(lines) + "\n")
    return game


def peak_mb() -> tuple[float, float]:
    """Peak RSS of this process and of its largest child, in MB (Linux reports KiB)."""
    unit = 1024 * 1024 if sys.platform == "darwin" else 1024
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit / 1e6
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * unit / 1e6
    return me, kids


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished workers."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        game = make_game(tmp, args.cards)
        opts = BuildOptions(only=("tts",), out=tmp / "build")
        raster.reset_stats()
        c0 = cpu_seconds()
        t0 = time.perf_counter()
        written = build_game(game, ROOT, opts, Report())
        cold = time.perf_counter() - t0
        cold_cpu = cpu_seconds() - c0
        n_rast = raster.STATS["rasterized"]
        raster.reset_stats()
        t0 = time.perf_counter()
        build_game(game, ROOT, BuildOptions(only=("tts",), out=tmp / "build"), Report())
        warm = time.perf_counter() - t0
        atlases = [p for p in written if "-faces-" in p.name]
        me, kids = peak_mb()
        print(f"{args.cards} distinct poker cards -> {len(atlases)} TTS face atlases")
        print(f"cold build:  {cold:.2f} s  ({n_rast} card sides rasterized; {cold_cpu:.2f} s CPU in all "
              f"processes; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        print(f"rebuild:     {warm:.2f} s  ({raster.STATS['rasterized']} rasterized)")
        print(f"peak memory: {me + kids:.0f} MB  (main process {me:.0f} MB + largest worker {kids:.0f} MB)")
        ok = cold < 5 and me + kids < 400
        print("target (< 5 s, < 400 MB):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
