"""Read cardgen's card pages (the gallery's index.html, the preview's HTML) back as a tree,
with the standard library's HTML parser: elements by tag, class and id, and their text."""
from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from conftest import write

# A small game for the page tests: a deck with a shared back (a card with a misspelt key, one
# parked, one with a hostile name) and one with per-card backs.
EVIL = '<script>alert(1)</script>\x1b[31m'

FACE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ card.color | default('#6699ee') }}"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 10mm, text: "{{ card.name }}", size: 12,
     fit: shrink}
"""
BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ card.color | default('#aa2222') }}"}
"""


def make_game(root: Path, game_extra: str = "") -> Path:
    game = root / "gal"
    write(game / "game.yaml", "title: Gallery <Test>\n" + game_extra)
    write(game / "templates" / "face.yaml", FACE)
    write(game / "templates" / "back.yaml", BACK)
    write(game / "things.yaml", """
        deck: Things
        template: face
        back: back
        cards:
          - {name: Alpha, color: "#ff0000", count: 2}
          - {name: Beta, color: "#00ff00"}
          - name: Gamma
            cuont: 3
          - {name: "<script>alert(1)</script>\\e[31m", color: "#aaaaaa"}
          - {name: Parked, count: 0}
    """)
    write(game / "tokens.yaml", """
        deck: Tokens
        template: face
        backs: back
        cards:
          - {name: Sun, color: "#ffff00", count: 3, back: {color: "#0000ff"}}
          - {name: Moon, color: "#ffffff"}
    """)
    return game


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [n for n in self.iter() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)]

    def by_id(self, ident: str) -> Node:
        hits = [n for n in self.iter() if n.attrs.get("id") == ident]
        assert len(hits) == 1, f"{len(hits)} elements with id {ident!r}"
        return hits[0]


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return
        raise AssertionError(f"</{tag}> closes nothing")

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    b = _Builder()
    b.feed(html)
    b.close()
    assert len(b.stack) == 1, f"unclosed: {[n.tag for n in b.stack[1:]]}"
    return b.root


def card_tiles(root: Node) -> list[Node]:
    """The tiles of the cards (not of shared backs), in page order."""
    return root.find_all("article", "tile")


def grid_images(root: Node) -> list[Node]:
    """The card images of the grid (each distinct side once; the gallery's large views repeat them)."""
    return [img for grid in root.find_all("div", "grid") for img in grid.find_all("img", "side")]
