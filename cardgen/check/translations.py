"""Missing and stale translations of a game with `languages:` (docs/languages.md).

**Missing**: a field is translatable when some card of the game has a translation of it in any
language (`text@de` makes `text` translatable everywhere); a card with a source value of such a
field and no translation into the language being built prints the source's, with a warning at
its line and (game.yaml `mark_untranslated`, on by default) a magenta corner on the card.

**Stale**: the game's history file (`cardgen-history.json`, `load.history`: a file beside the
game, committed with it) keeps, per deck, one record per translated card field:
`{"card": ident, "field": "text", "lang": "de", "source": H, "text": H}`, H the first 12 hex
digits of the SHA-256 of the source value and of the translation (as JSON).  A translation
whose own text is what the record says but whose source is not was written for an older
source: a warning at the translation's line.  A build records what it finds (a translation
new or edited since: from the current source; a stale one keeps its record, and its warning,
until it is edited or accepted with `cardgen i18n mark GAME --lang de`).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
    """The records of the history file by (deck, card, field, language)."""
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


def stale(game: Game, history: History | None, report: Report, lang: str
          ) -> Iterator[tuple[Card, str, str, Loc]]:
    """(card, field, language as written, the translation's place) of each translation into
    `lang` whose source changed since it was recorded while it did not."""
    recorded = _recorded(history, report)
    for deck in game.decks:
        for card in deck.cards:
            for field, code, source, text, loc in _translations(game, card):
                rec = recorded.get((deck.name, card.ident, field, norm(code)))
                if norm(code) == norm(lang) and rec is not None and rec["text"] == hashed(text) \
                        and rec["source"] != hashed(source):
                    yield card, field, code, loc


def check_stale(game: Game, history: History | None, report: Report) -> None:
    """A warning at each translation into the game's language whose source changed since it
    was recorded while it did not."""
    lang = game.translation
    if lang is None:
        return
    for card, field, code, loc in stale(game, history, report, lang):
        report.warn(loc, f"{name_of(lang)} text of '{card.name}' (`{field}@{code}`) was written for an older "
                         f"{name_of(game.source_language)} text: the `{field}:` it translates changed since; "
                         f"update it, or accept it as it is with `cardgen i18n mark {game.slug} --lang {lang}`",
                    "stale-translation")


def records(game: Game, history: History | None, accept: tuple[str, ...] = ()) -> dict[str, list[dict[str, str]]]:
    """The section as the history file keeps it after a build: every translation of every card,
    each recorded from the current source unless it is stale (its old record kept); the
    languages in `accept` recorded from the current source whatever they were."""
    recorded = _recorded(history, Report())
    accepted = {norm(a) for a in accept}
    out: dict[str, list[dict[str, str]]] = {}
    for deck in game.decks:
        group = out.setdefault(deck.name, [])
        for card in deck.cards:
            for field, code, source, text, _ in sorted(_translations(game, card), key=lambda t: (t[0], norm(t[1]))):
                now = {"card": card.ident, "field": field, "lang": code, "source": hashed(source), "text": hashed(text)}
                rec = recorded.get((deck.name, card.ident, field, norm(code)))
                if rec is not None and rec["text"] == now["text"] and norm(code) not in accepted:
                    now["source"] = rec["source"]
                group.append(now)
        if not group:
            del out[deck.name]
    return out
