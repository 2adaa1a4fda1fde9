"""Games, decks and cards as plain data: what the loader (`cardgen.load.game`) makes of the
YAML in `cards/<game>/`.

`data` attributes keep the YAML mappings as read (with their source locations; templates
see them), `opts` the declared options converted by `cardgen.schema.files`.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from cardgen.core.data import DATA
from cardgen.core.errors import Loc
from cardgen.core.located import YDict
from cardgen.core.sizes import CardSize
from cardgen.core.words import Words
from cardgen.model.refs import FileRef
from cardgen.model.rules import Rules
from cardgen.schema.files import DeckFile, GameFile

BUNDLED = DATA     # cardgen's own fonts/, art/icons/ and templates/basic/, shipped in the package
REVISION_HASH_LENGTH = 6     # hex digits of a card's data hash printed as `card.revision`


def _plain(value: Any) -> Any:
    """YAML data as JSON can hold it, mapping keys as text (a card's fields as loaded)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


# (`json.dumps` with these settings, made once: it makes an encoder on every call)
_encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def digest(value: Any) -> str:
    """SHA-256 (hex) of plain data, the same for the same data whatever its keys' order."""
    return _digest_plain(_plain(value))


def _digest_plain(plain: Any) -> str:
    return hashlib.sha256(_encode(plain).encode("utf-8")).hexdigest()


@dataclass
class Card:
    """One card of a deck, as loaded."""

    name: str
    count: int
    fields: dict            # every field, deck defaults merged under the card's own
    loc: Loc                # where the card starts
    index: int              # position in its deck
    data: YDict             # the card's own mapping, for locations
    back_fields: dict | None = None
    count_ok: bool = True   # False when `count:` was invalid (reported; counted as 0)
    revision_number: int = 1    # rises when the card's data changes (`cardgen.layout.manifest`)
    # with `languages:` (docs/languages.md): `fields` and `data` are the build language's (its
    # printed name is `fields["name"]`, `title`), `name` the source language's (the card's
    # identity in every language, and how messages name it); `every_language` its fields and
    # back's fields with every translation (what its revision follows)
    every_language: tuple[dict, dict | None] | None = None
    raw: YDict | None = None            # the card's own mapping with every language's keys (their places)
    untranslated: tuple[str, ...] = ()  # fields printed in the source language for want of a translation

    def field_loc(self, key) -> Loc:
        return self.data.value_loc(key) if key in self.data else self.loc

    def _data(self, *leave_out: str) -> list:
        sides = self.every_language or (self.fields, self.back_fields)
        return [{k: v for k, v in f.items() if k not in leave_out
                 and not (isinstance(k, str) and k.partition("@")[0] in leave_out)} if f is not None else None
                for f in sides]

    @cached_property
    def _plain_data(self) -> list:
        """`_data("count")` as `digest` hashes it (`_plain`: its keys as text), made once for
        both hashes."""
        return _plain(self._data("count"))

    @cached_property
    def data_hash(self) -> str:
        """SHA-256 of the card's data as loaded (deck defaults merged in, its own back's fields),
        copies left out: what its revision follows.  Templates are not part of it."""
        return _digest_plain(self._plain_data)

    @cached_property
    def body_hash(self) -> str:
        """The data hash without the name (and `id:`): a renamed card keeps it.  (`digest` of
        `_data("count", "name", "id")`: the same keys left out of the plain data, whose keys are
        text; a key that was not, a number, true or null, is never `name` or `id`.)"""
        return _digest_plain([{k: v for k, v in side.items() if k.partition("@")[0] not in ("name", "id")}
                              if side is not None else None for side in self._plain_data])

    @property
    def ident(self) -> str:
        """What identifies the card in its deck from one build to the next: its `id:` field when
        it has one (then renaming keeps it), else its name."""
        value = self.fields.get("id")
        return f"id:{value}" if isinstance(value, (str, int, float)) and not isinstance(value, bool) \
            and str(value) != "" else f"name:{self.name}"

    @property
    def title(self) -> str:
        """The card's name as printed in the language it was loaded in (`name` is the source's)."""
        value = self.fields.get("name")
        return self.name if value is None else str(value)

    @property
    def revision(self) -> str:
        """`r3 a1b2c3`: the revision counter and the start of the data hash."""
        return f"r{self.revision_number} {self.data_hash[:REVISION_HASH_LENGTH]}"

    def revision_fields(self) -> dict:
        """What templates see of the revision: `card.revision`, `card.revision_number`,
        `card.revision_hash`."""
        return {"revision": self.revision, "revision_number": self.revision_number,
                "revision_hash": self.data_hash[:REVISION_HASH_LENGTH]}


@dataclass
class Deck:
    """One deck file, as loaded."""

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
    shown: str = ""             # `deck@LANG` of the language loaded in (docs/languages.md), else ""
    raw: YDict | None = None    # the deck file's mapping with every language's values (their places)

    @property
    def title(self) -> str:
        """The deck's name as the outputs show it: its `deck@LANG` translation, else `name`."""
        return self.shown or self.name

    @property
    def loc(self) -> Loc:
        return self.data.loc

    @property
    def count(self) -> int:
        return sum(c.count for c in self.cards)

    @property
    def pieces(self) -> int:
        """What the rules count: the copies, or a die file's dice (its faces are printed once per die)."""
        if self.kind == "die":
            return (self.opts.count if self.opts and self.opts.count else 1) if self.cards else 0
        return self.count

    @property
    def die_edge(self) -> float:
        """A die file's edge in mm, its `size:` (its faces are laid out at the sticker's size,
        `size`); any other file's width."""
        return self.opts.size.width if self.kind == "die" and self.opts and self.opts.size else self.size.width

    @property
    def kind(self) -> str:
        """card, token, tile, board or die (`cardgen.schema.components.KINDS`)."""
        return self.opts.kind if self.opts else "card"

    @property
    def has_backs(self) -> bool:
        return bool(self.back or self.backs)

    def context(self) -> dict:
        """What templates see as `deck`."""
        return {
            "name": self.name,
            "title": self.title,
            "count": self.count,
            "distinct": len(self.cards),
            "size": {"name": self.size.name, "width": self.size.width, "height": self.size.height},
            "kind": self.kind,
            "shape": self.size.shape,
            "vars": dict((self.opts.vars if self.opts else self.data.get("vars")) or {}),
            "description": self.data.get("description", ""),
        }


@dataclass
class Game:
    """A game, as loaded: its decks, rules and settings."""

    slug: str                   # folder name, used for output paths
    root: Path                  # the game folder
    project: Path               # the project folder (templates/, art/, fonts/)
    data: YDict                 # game.yaml's mapping; templates read it as `game`
    decks: list[Deck] = field(default_factory=list)
    rules: Rules | None = None  # rules.yaml, loaded once (`cardgen.load.rules`)
    broken: list[Path] = field(default_factory=list)   # files that failed to load (tolerant loading)
    opts: GameFile = field(default_factory=GameFile)    # game.yaml's declared options, converted
    version: str = ""           # game.yaml's `version:`, else `git describe` (`cardgen.load.game`)
    # the folders this game may read files from, worked out once when it loads (`cardgen.load.refs`)
    roots: tuple[Path, ...] = ()
    # every file game.yaml names, resolved and confined when it loaded (`cardgen.load.refs`):
    # game.yaml itself, the deck files, rules.yaml; and icon aliases by alias, checked as written
    files: list[FileRef] = field(default_factory=list)
    icon_aliases: dict[str, FileRef] = field(default_factory=dict)
    # the language this game was loaded in (docs/languages.md): one of game.yaml's `languages:`
    # or the pseudo-locale; None for a game that declares no `languages:`
    lang: str | None = None
    sets: dict[str, str] = field(default_factory=dict)     # the build's `--set KEY=VALUE` (`load.overrides`)
    raw: YDict | None = None    # game.yaml's mapping with every language's values (their places), as written

    @property
    def languages(self) -> tuple[str, ...]:
        """game.yaml's `languages:`, the source language first; () when it declares none."""
        return tuple(self.opts.languages or ())

    @property
    def source_language(self) -> str:
        return self.languages[0] if self.languages else self.opts.language

    @property
    def translation(self) -> str | None:
        """The language whose `FIELD@LANG` values this game reads: None for the source language
        and the pseudo-locale (both read the source values)."""
        if self.lang is None or self.lang.lower() == "qps" or not self.languages \
                or self.lang.lower() == self.languages[0].lower():
            return None
        return self.lang

    @property
    def text_language(self) -> str:
        """The language the game's text is set in (its hyphenation): the build's, else `language:`."""
        if self.lang is None or self.lang.lower() == "qps":
            return self.source_language
        return self.lang

    @property
    def words(self) -> Words:
        """cardgen's own words in the language built (`cardgen.core.words`), game.yaml's over the
        bundled ones: `words@LANG:` in a translation (`words:` is the source language's own)."""
        own: dict | None = self.opts.words
        lang = self.translation
        if own and lang is not None and isinstance(self.raw, dict) \
                and not any(isinstance(k, str) and k.lower() == f"words@{lang}".lower() for k in self.raw):
            own = None
        return Words(self.text_language, own)

    @property
    def deck_titles(self) -> dict[str, str]:
        """Deck name -> the name the outputs show (its `deck@LANG`), for each deck that has one."""
        return {d.name: d.title for d in self.decks if d.title != d.name}

    @property
    def title(self) -> str:
        return self.opts.title or self.slug

    @property
    def file(self) -> Path:
        return self.root / "game.yaml"

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
        ctx["version"] = self.version
        ctx.setdefault("palette", {})
        ctx.setdefault("vars", {})
        if not isinstance(ctx["palette"], dict):    # reported on loading
            ctx["palette"] = {}
        if not isinstance(ctx["vars"], dict):
            ctx["vars"] = {}
        ctx["decks"] = {d.name: d.context() for d in self.decks}
        return ctx
