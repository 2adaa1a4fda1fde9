"""Missing and stale translations of a game with `languages:` (docs/languages.md).

**Missing**: a field is translatable when some card of the game has a translation of it in any
language (`text@de` makes `text` translatable everywhere); a card with a source value of such a
field and no translation into the language being built prints the source's, with a warning at
its line and (game.yaml `mark_untranslated`, on by default) a magenta corner on the card.

**Stale**: the game's history file (`cardgen-history.json`, `load.history`: a file beside the
game, committed with it) keeps one record per translated text of the game (`check.texts`: a
card's, its deck file's own, game.yaml's, rules.yaml's, a template's; a translated list text by
text), grouped by deck (then `game.yaml`, `rules.yaml`, `template REF`):
`{"card": ident, "field": "text", "lang": "de", "source": H, "text": H}`, H the first 12 hex
digits of the SHA-256 of the source value and of the translation (as JSON).  A translation
whose own text is what the record says but whose source is not was written for an older
source: a warning at the translation's line.  A build records what it finds (a translation
new or edited since: from the current source; a stale one keeps its record, and its warning,
until it is edited or accepted with `cardgen i18n mark GAME --lang de`).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cardgen.check.texts import Place, Step, get, leaves, path_name, places
from cardgen.core.errors import Loc, Report
from cardgen.load.history import History, bad_record
from cardgen.load.translations import split
from cardgen.model.game import Card, Game, digest
from cardgen.schema.languages import name_of, norm

SECTION = "translations"
HASH = 12
KEYS = ("card", "field", "lang", "source", "text")


def hashed(value: Any) -> str:
    return digest(value)[:HASH]


def _translations(game: Game, card: Card) -> Iterator[tuple[str, str, Any, Any, Loc]]:
    """(field, language, source value, translation, the translation's place) of a card's own
    and its deck's `defaults:` translations into the game's declared languages."""
    if card.every_language is None:
        return
    targets = {norm(code) for code in game.languages[1:]}
    fields = card.every_language[0]
    for key, value in fields.items():
        parts = split(key)
        if parts is not None and norm(parts[1]) in targets:
            raw = card.raw
            loc = raw.key_loc(key) if raw is not None and key in raw else card.loc
            yield parts[0], parts[1], fields.get(parts[0]), value, loc


def translatable(game: Game) -> set[str]:
    """The fields some card of the game translates, into any language."""
    return {field for deck in game.decks for card in deck.cards for field, *_ in _translations(game, card)}


def check_missing(game: Game, report: Report) -> None:
    """Each card's translatable fields with a source value and no translation into the game's
    language: a warning at the field (grouped), and the card's `untranslated`."""
    lang = game.translation
    if lang is None:
        return
    fields = translatable(game)
    name, source = name_of(lang), name_of(game.source_language)
    for deck in game.decks:
        for card in deck.cards:
            have = {f for f, code, *_ in _translations(game, card) if norm(code) == norm(lang)}
            values = card.every_language[0] if card.every_language else card.fields
            lacking = tuple(f for f in sorted(fields) if f not in have and values.get(f) not in (None, ""))
            card.untranslated = lacking
            for f in lacking:
                what = f"no {name} `{f}@{lang}`: the {source} text is printed"
                report.warn(card.field_loc(f), f"deck '{deck.name}': card '{card.name}': {what}", "untranslated",
                            group=f"deck '{deck.name}': {what}", card=f"'{card.name}', {card.loc.brief}")


def _recorded(history: History | None, report: Report) -> dict[tuple[str, str, str, str], dict]:
    """The records of the history file by (group, card, field, language)."""
    section = history.section(SECTION) if history is not None else None
    out: dict[tuple[str, str, str, str], dict] = {}
    if section is None or history is None:
        return out
    for deck, records in section.items():
        for i, rec in enumerate(records):
            if set(rec) != set(KEYS) or not all(isinstance(rec[k], str) for k in KEYS):
                bad_record(report, history, history.where(records, i),
                           f"translation record {i + 1} of deck '{str(deck)[:80]}' is not one: it needs "
                           f"{', '.join(KEYS)}, each text")
                return {}
            out[(str(deck), rec["card"], rec["field"], norm(rec["lang"]))] = dict(rec)
    return out


@dataclass
class Unit:
    """One translated text (a whole value, or one text of a list or mapping) and its source."""

    place: Place
    key: str                    # the translated key (`body@de`)
    lang: str                   # its language, as written
    at: tuple[Step, ...]        # the text's path inside the value (() for the value itself)
    source: Any
    text: Any
    loc: Loc

    @property
    def field(self) -> str:
        """The text's path from its card (or file): what its record names (`text`, `sections[1].body[2]`)."""
        return path_name((*self.place.at, self.place.field, *self.at))

    @property
    def record(self) -> tuple[str, str, str, str]:
        return self.place.group, self.place.ident, self.field, norm(self.lang)


def units(game: Game, languages: tuple[str, ...]) -> Iterator[Unit]:
    """Every translated text of the game into one of `languages` (`check.texts.places`), text
    by text: a translated list or mapping pairs each of its texts with the source's at the same
    path."""
    for place in places(game):
        for key, code, value in place.translations(languages):
            for at, text, loc in leaves(value):
                yield Unit(place, key, code, at, get(place.source, at), text, loc or place.key_loc(key))


def stale(game: Game, history: History | None, report: Report, lang: str) -> Iterator[Unit]:
    """Each translated text into `lang` whose source changed since it was recorded while it did not."""
    recorded = _recorded(history, report)
    for unit in units(game, (lang,)):
        rec = recorded.get(unit.record)
        if rec is not None and rec["text"] == hashed(unit.text) and rec["source"] != hashed(unit.source):
            yield unit


def check_stale(game: Game, history: History | None, report: Report) -> None:
    """A warning at each translated text into the game's language whose source changed since it
    was recorded while it did not."""
    lang = game.translation
    if lang is None:
        return
    for unit in stale(game, history, report, lang):
        place = unit.place
        shown = path_name((*place.at, unit.key, *unit.at))
        source = f"`{place.field}:`" if not unit.at else f"`{path_name((place.field, *unit.at))}`"
        report.warn(unit.loc, f"{name_of(lang)} text of {place.what()} (`{shown}`) was written for an older "
                              f"{name_of(game.source_language)} text: the {source} it translates changed since; "
                              f"update it, or accept it as it is with `cardgen i18n mark {game.slug} --lang {lang}`",
                    "stale-translation")


def records(game: Game, history: History | None, accept: tuple[str, ...] = ()) -> dict[str, list[dict[str, str]]]:
    """The section as the history file keeps it after a build: every translated text of the
    game, each recorded from the current source unless it is stale (its old record kept); the
    languages in `accept` recorded from the current source whatever they were.  A group's
    records: its deck file's own text (`deck`) and each card's, in build order, each one's by
    text and language."""
    recorded = _recorded(history, Report())
    accepted = {norm(a) for a in accept}
    blocks: dict[str, dict[str, list[tuple[tuple[str, str], dict[str, str]]]]] = {}
    for unit in units(game, game.languages[1:]):
        now = {"card": unit.place.ident, "field": unit.field, "lang": unit.lang, "source": hashed(unit.source),
               "text": hashed(unit.text)}
        rec = recorded.get(unit.record)
        if rec is not None and rec["text"] == now["text"] and norm(unit.lang) not in accepted:
            now["source"] = rec["source"]
        block = blocks.setdefault(unit.place.group, {}).setdefault(unit.place.ident, [])
        block.append(((unit.field, norm(unit.lang)), now))
    out: dict[str, list[dict[str, str]]] = {}
    for group, idents in blocks.items():
        for ident in sorted(idents, key=lambda i: i != "deck"):
            out.setdefault(group, []).extend(rec for _, rec in sorted(idents[ident], key=lambda t: t[0]))
    return out
