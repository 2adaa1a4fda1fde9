"""The build manifest (`build/<game>/manifest.json`): every card of a build, its copies, its
revision and the content hash of each side as laid out, so that the next build can number
revisions and `cardgen changes` can say what changed (docs/changes.md).

- A card is known from one build to the next by its deck and its `id:` field, or its name when
  it has none (`Card.ident`); a card whose identity is gone is matched to a new card of the
  same deck with the same data but its name (`Card.body_hash`): renamed.
- A side's content hash covers its drawing operations (`cardgen.model.ops`) with the files
  they draw (art, icons, fonts) by content, not by path, so a game laid out from a git
  archive in a temporary folder hashes the same.  The ops of the card's *stamp* (the elements
  that print `game.version` or `card.revision`) are left out: a new version does not make
  every card "changed".
- The revision counter rises when the card's data hash changes (`Card.data_hash`: its fields
  as loaded, templates left out), and only then.  The counters are kept beside the game, in
  the `revisions` section of its history file (`cardgen-history.json`, `cardgen.load.history`),
  so that they outlive the build folder; a manifest gives them only to a game that has no
  such file yet (the builds before there was one).
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring as _json_text
from pathlib import Path
from typing import Any, Protocol, TypeVar

from cardgen.core.errors import Report
from cardgen.layout.sidehash import HASH_LENGTH, SideHasher
from cardgen.load.game import Card, Game
from cardgen.load.history import History, bad_record
from cardgen.model import ops

MANIFEST = "manifest.json"
FORMAT = 1


class ManifestError(Exception):
    """A manifest that cannot be read: `where` it is and what is wrong (`reason`, one line)."""

    def __init__(self, where: str, reason: str):
        self.where, self.reason = where, reason
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True)
class Entry:
    """One card of a build, as the manifest keeps it."""

    deck: str
    name: str
    id: str | None          # the card's `id:` field, if it has one
    copies: int
    revision: int           # the counter (`Card.revision_number`)
    data: str               # hash of the card's data (`Card.data_hash`)
    body: str               # the same without the name (`Card.body_hash`), to see renames
    face: str               # content hash of the face as laid out
    back: str | None        # ... of its back (shared or its own), None without one

    @property
    def ident(self) -> str:
        return f"id:{self.id}" if self.id is not None else f"name:{self.name}"

    @property
    def label(self) -> str:
        return f"{self.deck}: {self.name}"


_TEXT, _MAYBE = (str,), (str, type(None))
_TYPES = {"deck": _TEXT, "name": _TEXT, "id": _MAYBE, "copies": (int,), "revision": (int,), "data": _TEXT,
          "body": _TEXT, "face": _TEXT, "back": _MAYBE}


_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(Entry))     # (plain values: `asdict` without copying)
_SORTED_FIELDS = tuple(sorted(_ENTRY_FIELDS))


def _json_value(value: str | int | None) -> str:
    if value is None:
        return "null"
    if type(value) is str:
        return _json_text(value)
    return int.__repr__(value)      # (an int: `json` writes an int as its repr)


def _entry_json(entry: Entry) -> str:
    """One card of the manifest as `json.dumps(..., sort_keys=True, indent=1, ensure_ascii=False)`
    writes it in the list of cards (two levels in): its fields in order, one a line."""
    return "  {\n" + ",\n".join(f'   "{k}": {_json_value(getattr(entry, k))}' for k in _SORTED_FIELDS) + "\n  }"


@dataclass
class Manifest:
    """What a build made (manifest.json): the game, its version, its cards and the build's `--set`."""

    game: str
    version: str
    cards: list[Entry]
    sets: dict[str, str] = dataclasses.field(default_factory=dict)     # the build's `--set`, KEY -> VALUE

    def dumps(self) -> str:
        """The manifest as JSON: sorted keys, cards in build order; the same build, the same bytes."""
        data = {"format": FORMAT, "game": self.game, "version": self.version,
                "cards": [{k: getattr(e, k) for k in _ENTRY_FIELDS} for e in self.cards]}
        if self.sets:       # (a build without --set writes what it always did)
            data["set"] = dict(self.sets)
        if not self.cards:
            return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
        # What `json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)` writes, its cards
        # each written here: with an indent, `json` encodes in Python (about 12 us a card; the
        # cards are flat mappings of texts, numbers and nulls, so each is its values joined).
        del data["cards"]
        rest = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)
        cards = ",\n".join(map(_entry_json, self.cards))
        return '{\n "cards": [\n' + cards + "\n ],\n" + rest[2:] + "\n"

    @classmethod
    def loads(cls, text: str, where: str) -> Manifest:
        bad = "is not a cardgen build manifest"
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ManifestError(where, f"{bad} (not JSON: {exc})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("cards"), list):
            raise ManifestError(where, f"{bad} (format {FORMAT}); build the game again to write a new one")
        names = [f.name for f in dataclasses.fields(Entry)]
        cards = []
        for i, item in enumerate(data["cards"]):
            if not isinstance(item, dict):
                raise ManifestError(where, f"{bad}: card #{i + 1} is not a mapping")
            missing = [n for n in names if n not in item]
            if missing:
                raise ManifestError(where, f"{bad}: card #{i + 1} lacks {', '.join(missing)}")
            wrong = [n for n in names if not isinstance(item[n], _TYPES[n]) or isinstance(item[n], bool)]
            if wrong:
                raise ManifestError(where, f"{bad}: card #{i + 1} has a wrong {', '.join(wrong)}")
            cards.append(Entry(**{n: item[n] for n in names}))
        sets = data.get("set")
        sets = {str(k): str(v) for k, v in sets.items()} if isinstance(sets, dict) else {}
        return cls(str(data.get("game", "")), str(data.get("version") or ""), cards, sets)


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of the build in `folder`, None if there is none; ManifestError if broken."""
    path = Path(folder) / MANIFEST
    if path.is_symlink() or not path.is_file():
        return None         # (a link is not a build's own record: never followed)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(str(path), f"cannot be read: {exc}") from None
    return Manifest.loads(text, str(path))


# -- pairing the cards of two builds ---------------------------------------------------------

Old = TypeVar("Old")
New = TypeVar("New")


def pair(old: Sequence[Old], new: Sequence[New], old_key: Callable[[Old], tuple[str, str, str]],
         new_key: Callable[[New], tuple[str, str, str]]) -> tuple[list[tuple[Old, New]], list[Old], list[New]]:
    """Match the cards of two builds; keys are (deck, identity, body hash).  Same deck and
    identity first; then what is left by deck and body hash (a card renamed).  Returns
    (pairs in `new`'s order, removed in `old`'s order, added in `new`'s order)."""
    free: dict[tuple[str, str], list[int]] = {}
    for i, o in enumerate(old):
        deck, ident, _ = old_key(o)
        free.setdefault((deck, ident), []).append(i)
    matched: dict[int, int] = {}            # new index -> old index
    for j, n in enumerate(new):
        deck, ident, _ = new_key(n)
        waiting = free.get((deck, ident))
        if waiting:
            matched[j] = waiting.pop(0)
    left: dict[tuple[str, str], list[int]] = {}
    first = set(matched.values())          # (a set: `in matched.values()` read them all for every card)
    for i, o in enumerate(old):
        if i not in first:
            deck, _, body = old_key(o)
            left.setdefault((deck, body), []).append(i)
    for j, n in enumerate(new):
        if j not in matched:
            deck, _, body = new_key(n)
            waiting = left.get((deck, body))
            if waiting:
                matched[j] = waiting.pop(0)
    pairs = [(old[matched[j]], n) for j, n in enumerate(new) if j in matched]
    taken = set(matched.values())
    return (pairs, [o for i, o in enumerate(old) if i not in taken],
            [n for j, n in enumerate(new) if j not in matched])


@dataclass(frozen=True)
class Counted:
    """A card's revision counter as last recorded: in the game's history file
    (`cardgen-history.json`, `load.history`) or, before there was one, a build's manifest."""

    deck: str
    ident: str              # `id:...` or `name:...` (`Card.ident`)
    revision: int
    data: str               # hash of the card's data (`Card.data_hash`), HASH_LENGTH digits
    body: str               # the same without the name (`Card.body_hash`), to see renames


def counted_in(manifest: Manifest) -> list[Counted]:
    return [Counted(e.deck, e.ident, e.revision, e.data, e.body) for e in manifest.cards]


def _counted_key(e: Counted) -> tuple[str, str, str]:
    return e.deck, e.ident, e.body


def assign_revisions(game: Game, previous: Sequence[Counted] | Manifest | None) -> None:
    """Each card's revision counter from the counters last recorded: the same data, the same
    number; changed data (or a rename), one more; a new card, 1."""
    cards = [(deck.name, card) for deck in game.decks for card in deck.cards]
    for _, card in cards:
        card.revision_number = 1
    if previous is None:
        return
    known = counted_in(previous) if isinstance(previous, Manifest) else list(previous)
    pairs, _, _ = pair(known, cards, _counted_key,
                       lambda dc: (dc[0], dc[1].ident, dc[1].body_hash[:HASH_LENGTH]))
    for before, (_, card) in pairs:
        same = before.data == card.data_hash[:HASH_LENGTH]
        card.revision_number = max(1, before.revision) + (0 if same else 1)


# -- the revisions section of the history file ---------------------------------------------

REVISIONS = "revisions"         # the section's name in cardgen-history.json
MAX_REVISION = 1_000_000_000
_HEX = frozenset("0123456789abcdef")


def revisions_record(game: Game) -> dict[str, list[dict[str, object]]]:
    """The section as the history file keeps it: per deck, a record per card in build order
    (its identity, counter and hashes), one line each."""
    out: dict[str, list[dict[str, object]]] = {}
    for deck in game.decks:
        out.setdefault(deck.name, []).extend(
            {"card": card.ident, "revision": card.revision_number, "data": card.data_hash[:HASH_LENGTH],
             "body": card.body_hash[:HASH_LENGTH]} for card in deck.cards)
    return out


def recorded_revisions(history: History, report: Report) -> list[Counted] | None:
    """The counters the history file records (None: it has none); a record that is not one
    is a warning at its line (`load.history`: the file is then neither read nor written)."""
    section = history.section(REVISIONS)
    if section is None:
        return None
    out: list[Counted] = []
    for deck, records in section.items():
        for i, rec in enumerate(records):
            problem = _record_problem(rec)
            if problem:
                bad_record(report, history, history.where(records, i),
                           f"revision record {i + 1} of deck '{str(deck)[:80]}' {problem}")
                return None
            out.append(Counted(str(deck), rec["card"], rec["revision"], rec["data"], rec["body"]))
    return out


def _record_problem(rec: Mapping[str, object]) -> str | None:
    keys = ("card", "revision", "data", "body")
    missing = [k for k in keys if k not in rec]
    if missing:
        return f"lacks {', '.join(missing)}"
    extra = sorted(str(k) for k in rec if k not in keys)
    if extra:
        return f"has unknown keys: {', '.join(extra)[:120]}"
    card = rec["card"]
    if not isinstance(card, str) or not card.startswith(("id:", "name:")) or len(card) > 2000:
        return "has a `card` that is not `id:...` or `name:...`"
    revision = rec["revision"]
    if isinstance(revision, bool) or not isinstance(revision, int) or not 1 <= revision <= MAX_REVISION:
        return f"has a `revision` that is not a whole number from 1 to {MAX_REVISION:,}"
    for k in ("data", "body"):
        value = rec[k]
        if not isinstance(value, str) or not 1 <= len(value) <= 64 or not set(value) <= _HEX:
            return f"has a `{k}` that is not a hash (hexadecimal digits)"
    return None


def entry(deck_name: str, card: Card, face: ops.CardLayout, back: ops.CardLayout | None,
          hasher: SideHasher | None = None) -> Entry:
    """The manifest's entry for one laid-out card."""
    hasher = hasher or SideHasher()
    kind, _, ident = card.ident.partition(":")
    return Entry(deck=deck_name, name=card.name, id=ident if kind == "id" else None, copies=card.count,
                 revision=card.revision_number, data=card.data_hash[:HASH_LENGTH],
                 body=card.body_hash[:HASH_LENGTH], face=hasher.side(face),
                 back=hasher.side(back) if back is not None else None)


class Laid(Protocol):
    """What the manifest reads of a laid-out game (`cardgen.layout.engine.Rendered`)."""

    game: Game
    faces: list[tuple[Any, Card, ops.CardLayout]]

    def back_of(self, deck: Any, card: Card) -> ops.CardLayout | None: ...


def manifest_of(rendered: Laid) -> Manifest:
    """The manifest of a laid-out game (every card, in build order)."""
    hasher = SideHasher()
    return Manifest(rendered.game.slug, rendered.game.version,
                    [entry(deck.name, card, face, rendered.back_of(deck, card), hasher)
                     for deck, card, face in rendered.faces], dict(rendered.game.sets))
