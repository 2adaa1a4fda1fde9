"""Benchmark: a 2,000-row card sheet read as CSV, XLSX and ODS into located cards.

Each row has a name, a count, a cost, a sentence of text and a list column.  Prints the
time to read each file into cards (the best of a few runs); target: under 0.5 s each.

    PYTHONPATH=$PWD python benchmarks/bench_sheets.py [--rows 2000]
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from sheetfiles import write_ods, write_xlsx  # noqa: E402

from cardgen.core.errors import Loc, Report  # noqa: E402
from cardgen.load.sheets import read_cards  # noqa: E402

TARGET_S = 0.5


def rows(n: int) -> list[list]:
    out: list[list] = [["name", "qty", "cost", "type", "text", "tags[]"]]
    for i in range(n):
        out.append([f"Card {i:04d}", 1 + i % 3, i % 7, ("Action", "Event", "Item")[i % 3],
                    f"Draw {i % 4} cards, then discard one; gain {i % 5} coins.", "alpha;beta;gamma"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    data = rows(args.rows)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with open(folder / "cards.csv", "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(data)
        write_xlsx(folder / "cards.xlsx", {"Cards": data})
        write_ods(folder / "cards.ods", {"Cards": data})
        for name in ("cards.csv", "cards.xlsx", "cards.ods"):
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                cards = read_cards(name, folder / "deck.yaml", Loc("deck.yaml", 1, 1), Report())
                best = min(best, time.perf_counter() - start)
            assert len(cards) == args.rows
            worst = max(worst, best)
            print(f"{name}: {args.rows} rows in {best:.3f} s")
    print(f"slowest: {worst:.3f} s (target < {TARGET_S} s): {'ok' if worst < TARGET_S else 'TOO SLOW'}")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
