"""Every translatable text of a game with its place (docs/languages.md): the one walk that stale
tracking (`check.translations`) and the PO files (`pipeline.translation_files`) read.

A *place* is a key of a mapping that has a `FIELD@LANG` beside it (or, for `export`, a key a
translator should see): a card's own field (`text`, or `back.text` in its `back:`), a deck file's
own text (`deck@de`, `description@de`, `vars:`' and `defaults:`' keys), game.yaml's, rules.yaml's
at any depth (a section's `title`, its whole `body`), and a template's (an element's `text`).
Each is named, the same from one build to the next, by a *group* (the deck's name for a deck
file; `game.yaml`, `rules.yaml`, `template REF`), an *ident* in it (a card's `name:NAME` or
`id:ID`, `deck` for the deck file's own text, "" elsewhere) and its *path* from there
(`text`, `back.text`, `sections[2].body`, a template's `elements[label].text`: an item of a
list whose items each have a `name:` of their own is named by it, not by its place).  A value
that is a list or a mapping (a section's `body`, a card's `abilities`) is tracked and
translated text by text (`leaves`): `body[1]`, `body[2].steps[0]`, each translated text paired
with the source text at the same path.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgen.core.errors import CardgenError, Loc
from cardgen.core.located import YDict, YList
from cardgen.core.paths import PathRefused
from cardgen.layout.templates import find_template
from cardgen.load.translations import split, translated
from cardgen.load.yamledit import Named, named_steps
from cardgen.load.yamlsrc import load_file
from cardgen.model.game import BUNDLED, Card, Deck, Game
from cardgen.schema.languages import norm

Step = str | int                 # a key of a mapping or an index of a list
NOT_TEXT = ("count", "id", "back")      # a card's keys that are not texts to translate
# the keys exported to translate in each kind of file, translated or not yet (beside those a file
# translates somewhere): a deck file's and game.yaml's at their top, rules.yaml's rulebook texts
# at any depth
DECK_TEXTS = ("deck", "description")
GAME_TEXTS = ("title", "subtitle")
RULES_TEXTS = ("title", "subtitle", "players", "play_time", "ages", "intro", "body", "turn", "end", "notes")


def path_name(steps: tuple[Step, ...]) -> str:
    """`sections[2].body`: the path of a value, as records and PO entries name it."""
    out = ""
    for s in steps:
        out += f"[{s}]" if isinstance(s, (int, Named)) else (f".{s}" if out else str(s))
    return out


@dataclass
class Place:
    """A translatable key of a mapping, with its `FIELD@LANG` keys beside it."""

    group: str                  # the deck's name, `game.yaml`, `rules.yaml` or `template REF`
    ident: str                  # the card's ident, `deck` for a deck file's own text, "" elsewhere
    at: tuple[Step, ...]        # the path from the ident's mapping to `mapping`
    mapping: YDict | dict       # the mapping as written, every language's keys in it
    field: str
    root: tuple[Step, ...] | None       # the path of the ident's mapping in its file; None: not in a YAML file's tree
    file: str                   # the file it is written in
    card: Card | None = None
    deck: Deck | None = None

    @property
    def name(self) -> str:
        """The value's path from the ident's mapping: `text`, `back.text`, `sections[2].body`."""
        return path_name((*self.at, self.field))

    @property
    def path(self) -> tuple[Step, ...] | None:
        """The path of `mapping` in its file (None: a spreadsheet's row)."""
        return None if self.root is None else (*self.root, *self.at)

    @property
    def source(self) -> Any:
        return self.mapping.get(self.field)

    def translation(self, lang: str) -> tuple[str | None, Any]:
        """(the key the translation into `lang` is written under, its value), or (None, None)."""
        for key, value in self.mapping.items():
            parts = split(key)
            if parts is not None and parts[0] == self.field and norm(parts[1]) == norm(lang):
                return str(key), value
        return None, None

    def translations(self, languages: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
        """(key, language as written, value) of each translation into one of `languages`."""
        wanted = {norm(code) for code in languages}
        for key, value in self.mapping.items():
            parts = split(key)
            if parts is not None and parts[0] == self.field and norm(parts[1]) in wanted:
                yield str(key), parts[1], value

    def key_loc(self, key: str) -> Loc:
        """Where `key` is said: at the key in a YAML file, at its cell in a spreadsheet's row."""
        if isinstance(self.mapping, YDict) and key in self.mapping:
            return self.mapping.key_loc(key) if self.root is not None else self.mapping.value_loc(key)
        return self.card.loc if self.card is not None else Loc(self.file)

    def what(self) -> str:
        """How messages name what the text belongs to."""
        if self.card is not None:
            return f"'{self.card.name}'"
        if self.ident == "deck":
            return f"deck '{self.group}'"
        return self.group


def leaves(value: Any, at: tuple[Step, ...] = ()) -> Iterator[tuple[tuple[Step, ...], Any, Loc | None]]:
    """Each text (scalar) of `value` with its path inside it and its place: the value itself
    (path (), no place of its own) when it is one."""
    if isinstance(value, dict):
        for k, v in value.items():
            if split(k) is None:
                yield from _leaves(v, (*at, str(k)), value, k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*at, i), value, i)
    else:
        yield at, value, None


def _leaves(value: Any, at: tuple[Step, ...], container: Any, key: Any) -> Iterator[tuple[tuple[Step, ...], Any,
                                                                                             Loc | None]]:
    if isinstance(value, (dict, list)):
        yield from leaves(value, at)
    else:
        loc = container.value_loc(key) if isinstance(container, YDict) else (
            container.item_loc(key) if isinstance(container, YList) else None)
        yield at, value, loc


def get(value: Any, at: tuple[Step, ...]) -> Any:
    """The value at path `at` inside `value`, or None."""
    for step in at:
        if isinstance(value, list) and isinstance(step, Named):
            value = next((v for v in value if isinstance(v, dict) and v.get("name") == step), None)
        elif isinstance(value, dict) and not isinstance(step, int):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and step < len(value):
            value = value[step]
        else:
            return None
    return value


@dataclass
class _Walk:
    """One file's (or one card's) mapping to walk: what names its places."""

    group: str
    ident: str
    root: tuple[Step, ...] | None
    file: str
    card: Card | None = None
    deck: Deck | None = None
    wanted: frozenset[str] = frozenset()    # keys that are places without a translation here (`export`)
    top: frozenset[str] = frozenset()       # ... at the top of the mapping walked
    prose: bool = False                     # ... and, at the top, every text with a space in it (a card's)


def _places(walk: _Walk, value: Any, at: tuple[Step, ...], skip: tuple[str, ...] = ()) -> Iterator[Place]:
    if isinstance(value, list):
        for step, v in zip(named_steps(value), value):
            yield from _places(walk, v, (*at, step))
        return
    if not isinstance(value, dict):
        return
    translated = {parts[0] for parts in map(split, value) if parts is not None}
    for key, v in value.items():
        if not isinstance(key, str) or split(key) is not None or key in skip:
            continue
        if key in translated or key in walk.wanted or (not at and (key in walk.top or (walk.prose and _prose(key, v)))):
            yield Place(walk.group, walk.ident, at, value, key, walk.root, walk.file, walk.card, walk.deck)
        else:
            yield from _places(walk, v, (*at, key))


def _prose(key: str, value: Any) -> bool:
    return key not in NOT_TEXT and isinstance(value, str) and " " in value.strip()


def _file_of(mapping: Any, default: str) -> str:
    loc = getattr(mapping, "loc", None)
    return loc.file if isinstance(loc, Loc) and loc.file not in ("?", "") else default


def _translated_keys(value: Any) -> set[str]:
    """The fields translated anywhere in `value`."""
    return {field for _, _, field, _ in translated(value)}


def _template_files(game: Game) -> list[tuple[str, Path, YDict]]:
    """(ref, file, mapping as written) of each template file the game uses and those they
    extend, once each; cardgen's own (bundled) templates and those that do not load are left
    out (their problems are said where templates are checked)."""
    from cardgen.check.validate import template_refs

    dirs = game.search_dirs("templates")
    seen: set[Path] = set()
    out: list[tuple[str, Path, YDict]] = []
    for ref, _ in template_refs(game):
        todo = [str(ref).strip().removesuffix(".yaml")]
        while todo and len(seen) < 10_000:
            cur = todo.pop()
            try:
                path = find_template(cur, dirs, game.roots)
                data = load_file(path) if path is not None and path not in seen else None
            except (PathRefused, CardgenError):
                continue
            if path is None or not isinstance(data, YDict):
                continue
            seen.add(path)
            if not path.resolve().is_relative_to(BUNDLED.resolve()):
                out.append((cur, path, data))
            if isinstance(data.get("extends"), str):
                todo.append(data["extends"].strip().removesuffix(".yaml"))
    return sorted(out, key=lambda t: t[0])


def places(game: Game, export: frozenset[str] | None = None) -> Iterator[Place]:
    """Every place of the game with a translation, in build order (the deck files' cards, then
    each deck file's own text; game.yaml, rules.yaml, the templates).  With `export` (a card's
    fields to translate: those some card translates, and its name), also the places a
    translator should see that have none yet: on a card, those fields and its other texts with
    a space in them; in a deck file's own text, its `deck` and `description`; in game.yaml,
    rules.yaml and the templates, a key the file translates somewhere, and the file's texts
    (`GAME_TEXTS`, `RULES_TEXTS`)."""
    cards_wanted = export or frozenset()
    for deck in game.decks:
        raw = deck.raw if deck.raw is not None else deck.data
        rows = raw.get("cards")
        for card in deck.cards:
            own = card.raw if card.raw is not None else card.data
            root = ("cards", card.index) if isinstance(rows, list) else None
            walk = _Walk(deck.name, card.ident, root, _file_of(own, str(deck.file)), card, deck, cards_wanted,
                         prose=export is not None)
            yield from _places(walk, own, ())
        deck_top = frozenset(DECK_TEXTS) if export is not None else frozenset()
        yield from _places(_Walk(deck.name, "deck", (), str(deck.file), None, deck, top=deck_top), raw, (),
                           ("cards",))
    files: list[tuple[str, Any, str, tuple[str, ...], tuple[str, ...]]] = [
        ("game.yaml", game.raw, str(game.file), (), GAME_TEXTS)]
    if game.rules is not None:
        files.append(("rules.yaml", game.rules.raw, str(game.rules.file), RULES_TEXTS, ()))
    files += [(f"template {ref}", data, str(path), (), ()) for ref, path, data in _template_files(game)]
    for group, data, file, texts, top in files:
        if isinstance(data, dict) and export is not None:
            walk = _Walk(group, "", (), file, wanted=frozenset(_translated_keys(data) | set(texts)),
                         top=frozenset(top))
            yield from _places(walk, data, ())
        elif isinstance(data, dict):
            yield from _places(_Walk(group, "", (), file), data, ())
