"""Games, decks and cards as plain data: what the loader (`cardgen.load.game`) makes of the
YAML in `cards/<game>/`.

`data` attributes keep the YAML mappings as read (with their source locations; templates
see them), `opts` the declared options converted by `cardgen.schema.files`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cardgen.core.data import DATA
from cardgen.core.errors import Loc
from cardgen.core.located import YDict
from cardgen.core.paths import allowed_roots
from cardgen.core.sizes import CardSize
from cardgen.schema.files import DeckFile, GameFile

BUNDLED = DATA     # cardgen's own fonts/, art/icons/ and templates/basic/, shipped in the package


@dataclass
class Card:
    name: str
    count: int
    fields: dict            # every field, deck defaults merged under the card's own
    loc: Loc                # where the card starts
    index: int              # position in its deck
    data: YDict             # the card's own mapping, for locations
    back_fields: dict | None = None
    count_ok: bool = True   # False when `count:` was invalid (reported; counted as 0)

    def field_loc(self, key) -> Loc:
        return self.data.value_loc(key) if key in self.data else self.loc


@dataclass
class Deck:
    name: str
    file: Path
    template: str
    template_loc: Loc
    back: str | None            # shared back template
    backs: str | None           # per-card back template
    back_loc: Loc | None
    size: CardSize
    bleed: float                # mm
    cards: list[Card]
    data: YDict                 # the deck file's mapping
    slug: str = ""
    opts: DeckFile | None = None    # the deck file's declared options, converted

    @property
    def loc(self) -> Loc:
        return self.data.loc

    @property
    def count(self) -> int:
        return sum(c.count for c in self.cards)

    @property
    def has_backs(self) -> bool:
        return bool(self.back or self.backs)

    def context(self) -> dict:
        """What templates see as `deck`."""
        return {
            "name": self.name,
            "count": self.count,
            "distinct": len(self.cards),
            "size": {"name": self.size.name, "width": self.size.width, "height": self.size.height},
            "vars": dict((self.opts.vars if self.opts else self.data.get("vars")) or {}),
            "description": self.data.get("description", ""),
        }


@dataclass
class Game:
    slug: str                   # folder name, used for output paths
    root: Path                  # the game folder
    project: Path               # the project folder (templates/, art/, fonts/)
    data: YDict                 # game.yaml's mapping; templates read it as `game`
    decks: list[Deck] = field(default_factory=list)
    rules: dict | None = None   # rules.yaml's mapping (a YDict)
    broken: list[Path] = field(default_factory=list)   # files that failed to load (tolerant loading)
    opts: GameFile = field(default_factory=GameFile)    # game.yaml's declared options, converted

    @property
    def title(self) -> str:
        return self.opts.title or self.slug

    @property
    def file(self) -> Path:
        return self.root / "game.yaml"

    @property
    def roots(self) -> tuple[Path, ...]:
        """The folders this game may read files from (`cardgen.core.paths`)."""
        return allowed_roots(self.root, self.project, BUNDLED)

    def search_dirs(self, kind: str) -> list[Path]:
        """`templates`, `art` or `fonts` folders: the game's own first, then the project's (if the
        game is in one), then the ones that ship with cardgen (its fonts, icons and `basic/*`
        templates work from any folder)."""
        dirs = [self.root / kind, self.project / kind, BUNDLED / kind]
        out = []
        for d in dirs:
            if d not in out:
                out.append(d)
        return out

    def deck(self, name: str) -> Deck | None:
        for d in self.decks:
            if d.name == name or d.slug == name:
                return d
        return None

    def context(self) -> dict:
        """What templates see as `game`."""
        ctx = {k: v for k, v in self.data.items() if k not in ("decks",)}
        ctx.setdefault("title", self.slug)
        ctx["slug"] = self.slug
        ctx.setdefault("palette", {})
        ctx.setdefault("vars", {})
        if not isinstance(ctx["palette"], dict):    # reported on loading
            ctx["palette"] = {}
        if not isinstance(ctx["vars"], dict):
            ctx["vars"] = {}
        ctx["decks"] = {d.name: d.context() for d in self.decks}
        return ctx
