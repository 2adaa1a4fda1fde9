"""Copy icons from the game-icons.net set into cardgen/data/art/icons/ (the icons that ship
with cardgen) as standalone SVG files.

The set is published on the npm registry as @iconify-json/game-icons (CC BY 3.0).
Usage:
    npm pack @iconify-json/game-icons && tar xzf iconify-json-game-icons-*.tgz
    python tools/game_icons.py package/icons.json crystal-ball coins ...
    python tools/game_icons.py package/icons.json --as ap=coins ...   # save under another name

Each icon is written with a black fill; cardgen draws black parts of an icon in the
colour of the surrounding text, so one file serves every colour.  The attribution
file cardgen/data/art/icons/ATTRIBUTION.md is rewritten to list every game-icons file present.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parent.parent / "cardgen" / "data" / "art" / "icons"
MARK = "<!-- game-icons.net, CC BY 3.0 -->"


def write_icon(data: dict, source: str, target: str) -> None:
    icon = data["icons"][source]
    w = icon.get("width", data.get("width", 512))
    h = icon.get("height", data.get("height", 512))
    body = icon["body"].replace("currentColor", "#000000")
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
           f'width="{w}" height="{h}">{MARK}<!-- source: {source} -->{body}</svg>\n')
    (ICON_DIR / f"{target}.svg").write_text(svg, encoding="utf-8")


def write_attribution() -> None:
    rows = []
    for path in sorted(ICON_DIR.glob("*.svg")):
        text = path.read_text(encoding="utf-8")
        if MARK in text:
            source = text.split("<!-- source: ", 1)[1].split(" -->", 1)[0]
            rows.append(f"| `{path.name}` | {source} |")
    (ICON_DIR / "ATTRIBUTION.md").write_text(
        "# Icon attribution\n\n"
        "The icons listed here come from game-icons.net (https://game-icons.net), by Lorc,\n"
        "Delapouite and the other game-icons.net contributors, under the Creative Commons\n"
        "Attribution 3.0 licence (https://creativecommons.org/licenses/by/3.0/). They were\n"
        "taken from the `@iconify-json/game-icons` package and recoloured to black; nothing\n"
        "else was changed. Icons not listed were drawn for cardgen and share its licence.\n\n"
        "| file | game-icons.net name |\n|---|---|\n" + "\n".join(rows) + "\n",
        encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    data = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    ICON_DIR.mkdir(parents=True, exist_ok=True)
    args = argv[1:]
    i = 0
    while i < len(args):
        if args[i] == "--as":
            target, source = args[i + 1].split("=", 1)
            i += 2
        else:
            target = source = args[i]
            i += 1
        if source not in data["icons"]:
            print(f"unknown icon: {source}", file=sys.stderr)
            return 1
        write_icon(data, source, target)
    write_attribution()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
