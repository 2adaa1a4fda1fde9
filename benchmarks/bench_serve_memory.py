"""Memory of a long `cardgen serve` session: does it stay flat while a designer edits?

    python benchmarks/bench_serve_memory.py [--minutes 30] [--cards 200] [--pace 1.0]

A synthetic game (`synthetic.py`) with its own SVG art is previewed as `cardgen serve` does
(`cardgen.serve.preview.Preview`); every `--pace` seconds one card's text is edited and the
art file saved as a new drawing, the preview checks the game again and the edited card's
zoomed image is asked for (as the page does). The resident memory of the process and of every
process it started (the raster workers and their fork server) is sampled after each edit and
printed once a minute; at the end, the mean of the first and last fifths of the session
after the first minute (warm-up), and the growth between them. Flat means a growth within the
noise of a few MB: every process-wide memo is bounded (`cardgen/core/memo.py`).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from synthetic import WORDS, make_game  # noqa: E402

SVG = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">
<rect x="0" y="0" width="100" height="100" fill="#{c:06x}"/><circle cx="{x}" cy="{y}" r="{r}" fill="#fff"/></svg>
"""


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def family_rss_mb() -> float:
    """This process and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += rss_mb(pid)
        todo += children.get(pid, [])
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--cards", type=int, default=200)
    ap.add_argument("--pace", type=float, default=1.0, help="seconds between two saved edits")
    args = ap.parse_args()

    from cardgen.serve.preview import Preview

    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="cardgen-serve-bench-") as tmp:
        game = make_game(Path(tmp) / "game", args.cards)
        (game / "art").mkdir()
        art = game / "art" / "picture.svg"
        art.write_text(SVG.format(c=0x336699, x=50, y=50, r=20), encoding="utf-8")
        template = game / "templates" / "bench" / "face.yaml"
        template.write_text(template.read_text(encoding="utf-8") + "  - {name: pic, type: image, src: picture.svg, "
                            "x: 44mm, y: 20mm, width: 14mm, height: 14mm}\n", encoding="utf-8")
        deck = game / "deck.yaml"
        lines = deck.read_text(encoding="utf-8").splitlines()
        preview = Preview(game, game)
        preview.refresh()
        if preview.snapshot.errors:
            sys.exit(f"the benchmark game does not check: {preview.snapshot.errors[0].text()}")
        start = time.monotonic()
        samples: list[tuple[float, float]] = []
        edits, next_print = 0, 60.0
        print(f"{args.cards} cards, an edit every {args.pace:g} s for {args.minutes:g} min")
        print(f"{'minute':>6} {'edits':>6} {'RSS MB (all processes)':>24}")
        while (elapsed := time.monotonic() - start) < args.minutes * 60:
            i = rng.randrange(args.cards)
            words = " ".join(rng.choice(WORDS) for _ in range(20))
            row = 4 + i
            head, _, _rest = lines[row].partition(' text: "')
            lines[row] = f'{head} text: "{words.capitalize()} {edits}."}}'
            deck.write_text("\n".join(lines) + "\n", encoding="utf-8")
            art.write_text(SVG.format(c=rng.randrange(1 << 24), x=rng.randrange(20, 80), y=rng.randrange(20, 80),
                                      r=rng.randrange(5, 30)), encoding="utf-8")
            snap = preview.refresh([deck, art])
            for ident in list(snap.sides)[i * 1:i * 1 + 1]:
                preview.image(ident, full=True)
            edits += 1
            samples.append((elapsed, family_rss_mb()))
            if elapsed >= next_print:
                print(f"{elapsed / 60:6.1f} {edits:6d} {samples[-1][1]:24.1f}", flush=True)
                next_print += 60.0
            time.sleep(max(0.0, args.pace - (time.monotonic() - start - elapsed)))
        preview.close()
    warm = [mb for t, mb in samples if t >= min(60.0, args.minutes * 60 / 5)]
    if len(warm) < 10:
        sys.exit("too short to say: run for longer (--minutes)")
    fifth = max(1, len(warm) // 5)
    first, last = sum(warm[:fifth]) / fifth, sum(warm[-fifth:]) / fifth
    print(f"edits: {edits}; RSS after warm-up, first fifth {first:.1f} MB, last fifth {last:.1f} MB, "
          f"growth {last - first:+.1f} MB ({(last - first) / first:+.1%}); peak {max(warm):.1f} MB")


if __name__ == "__main__":
    main()
