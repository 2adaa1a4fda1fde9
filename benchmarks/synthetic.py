"""Make a synthetic game of N distinct poker cards (title, type line, coloured frame,
~25 words of text with an icon, shared back) for benchmarks."""
from __future__ import annotations

import random
from pathlib import Path

WORDS = ("draw discard gain lose attack defend shield coin card hand deck player opponent "
         "each round turn city abyss partner treasure reveal choose swap return power").split()

TEMPLATE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ card.color }}"}
  - {name: panel, type: rect, x: 3mm, y: 3mm, width: 57.5mm, height: 82.9mm, radius: 2.5mm, fill: "#faf6ec"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 9mm, text: "{{ card.name }}",
     font: Vollkorn, style: bold, size: 12, fit: shrink, min_size: 8, align: center, valign: middle}
  - {name: type, type: text, x: 5mm, y: 14mm, width: 53.5mm, height: 4mm, text: "{{ card.type }}",
     size: 7, style: bold, uppercase: true, align: center, color: "{{ card.color }}"}
  - {name: art, type: icon, icon: crystal-ball, x: 21.75mm, y: 21mm, width: 20mm, height: 20mm,
     color: "{{ card.color }}"}
  - {name: text, type: text, x: 6mm, y: 46mm, width: 51.5mm, height: 34mm, text: "{{ card.text }}",
     size: 9, fit: shrink, min_size: 6.5, align: center, valign: middle}
"""

BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#2d3a5a"}
  - {name: mark, type: icon, icon: crystal-ball, x: 16.75mm, y: 29.45mm, width: 30mm, height: 30mm, color: "#ffffff"}
"""


def make_game(root: Path, n: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "templates" / "bench").mkdir(parents=True, exist_ok=True)
    (root / "templates" / "bench" / "face.yaml").write_text(TEMPLATE, encoding="utf-8")
    (root / "templates" / "bench" / "back.yaml").write_text(BACK, encoding="utf-8")
    (root / "game.yaml").write_text("title: Benchmark\n", encoding="utf-8")
    lines = ["deck: Bench", "template: bench/face", "back: bench/back", "cards:"]
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(25)]
        words.insert(rng.randrange(25), ":coins:")
        text = " ".join(words).capitalize() + "."
        color = "#%02x%02x%02x" % (rng.randrange(40, 200), rng.randrange(40, 200), rng.randrange(40, 200))
        lines.append(f'  - {{name: "Card {i + 1:04d}", type: "Type {i % 7}", color: "{color}", text: "{text}"}}')
    (root / "deck.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root
