"""A game in four languages (docs/languages.md): what building every language costs.

    python benchmarks/bench_languages.py [N] [--only OUTPUT ...]     (default: 500 cards, print)

The synthetic game of N distinct poker cards (`synthetic.py`) once as it is (one language) and
once with `languages: [en, de, fr, es]` and every card's text translated.  Printed, as
`bench_incremental.py` prints them (whole `cardgen` processes, wall-clock seconds and the CPU
seconds of every process they started):

- cold: `cardgen build --only ...` into an empty output folder;
- one card: one card's source text edited, then the same build again (in four languages: one
  card laid out and drawn again per language, the other languages' outputs of it stale);
- no-op: the same build with nothing changed.

The target (issue 27): a one-card edit in four languages costs about four one-card edits of
the one-language game, not four builds.  Say the machine's load with the figures.
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_incremental import cardgen, edit, run, show  # noqa: E402
from synthetic import make_game  # noqa: E402

LANGUAGES = ("en", "de", "fr", "es")


def translate(game: Path) -> None:
    """Every card's text translated (the source's words in reverse order, tagged), `languages:` declared."""
    deck = game / "deck.yaml"
    lines = []
    for line in deck.read_text(encoding="utf-8").splitlines():
        m = re.search(r'text: "([^"]*)"', line)
        if m:
            words = m.group(1).split()
            extra = "".join(f', text@{code}: "{code.upper()} {" ".join(reversed(words))}"' for code in LANGUAGES[1:])
            line = line[:m.end()] + extra + line[m.end():]
        lines.append(line)
    deck.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (game / "game.yaml").write_text(f"title: Benchmark\nlanguages: [{', '.join(LANGUAGES)}]\n", encoding="utf-8")


def figures(game: Path, out: Path, only: list[str], label: str) -> None:
    args = ["build", str(game), "--out", str(out), "--quiet", *(a for o in only for a in ("--only", o))]
    print(label, flush=True)
    show("cold", run(cardgen(*args), game))
    edit(game / "deck.yaml", 7)
    show("one card edited", run(cardgen(*args), game))
    show("nothing changed", run(cardgen(*args), game))


def main() -> None:
    argv = sys.argv[1:]
    only = [argv[i + 1] for i, a in enumerate(argv) if a == "--only"] or ["print"]
    numbers = [int(a) for i, a in enumerate(argv) if a.isdigit() and (i == 0 or argv[i - 1] != "--only")]
    n = numbers[0] if numbers else 500
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        one = make_game(tmp_path / "one", n)
        run(cardgen("build", str(one), "--out", str(tmp_path / "warm"), "--quiet", "--only", only[0]), one)
        # (not counted: the first run compiles cardgen's modules and measures the fonts)
        figures(one, tmp_path / "out-one", only, f"{n} cards, one language (--only {' '.join(only)})")
        four = make_game(tmp_path / "four", n)
        translate(four)
        figures(four, tmp_path / "out-four", only, f"{n} cards, {len(LANGUAGES)} languages")


if __name__ == "__main__":
    main()
