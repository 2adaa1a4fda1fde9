"""The keys each kind of file accepts, and helpers to check them.

One table for the loader (which stops on what makes building impossible) and the
validator (which reports everything).
"""
from __future__ import annotations

import difflib

from cardgen.core.errors import Diagnostic
from cardgen.load.yamlsrc import YDict

GAME_KEYS = {
    "title": "the game's name as printed",
    "subtitle": "a line under the title (booklet cover)",
    "designer": "who made the game",
    "version": "the rules or playtest version",
    "players": "player count, e.g. 2-4",
    "play_time": "play time, e.g. 30-45 min",
    "ages": "suggested ages, e.g. 12+",
    "card_size": "default card size for every deck: a name (poker, tarot, ...) or {width, height} or {diameter}",
    "bleed": "bleed around every card, default 1/8 in (3.175 mm)",
    "decks": "deck files in the order to build them (default: every other .yaml file, sorted by name)",
    "icons": "icon aliases: name -> icon file name in art/icons (without .svg)",
    "palette": "named colours, available in templates as game.palette.<name>",
    "vars": "anything else game-wide, available in templates as game.vars.<name>",
    "tts": "Tabletop Simulator export options",
    "booklet": "rule booklet options",
}

DECK_KEYS = {
    "deck": "the deck's name (required)",
    "description": "a line about the deck, shown in listings",
    "template": "layout template for the faces, e.g. game-601/action (required)",
    "back": "layout template for one shared back",
    "backs": "layout template for per-card backs (double-sided cards); a card's `back:` fields override its own",
    "size": "card size for this deck (overrides the game's card_size)",
    "bleed": "bleed for this deck (overrides the game's)",
    "defaults": "field values every card in the deck gets unless it sets its own",
    "cards": "the list of cards (required)",
    "vars": "anything else deck-wide, available in templates as deck.vars.<name>",
    "tts": "Tabletop Simulator options for this deck",
}

CARD_RESERVED = {
    "name": "the card's name (required, unique in its deck)",
    "count": "number of copies, a whole number from 0 to 10000 (default 1); 0 parks a card: kept in the data, not printed",
    "back": "fields for this card's own back (with a deck `backs:` template)",
}

MAX_COUNT = 10000


def suggest(word: str, choices) -> str:
    match = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{match[0]}'?" if match else ""


def unknown_keys(mapping: YDict, allowed: dict, what: str) -> list[Diagnostic]:
    out = []
    for key in mapping:
        if key not in allowed:
            out.append(Diagnostic(mapping.key_loc(key),
                                  f"unknown key '{key}' in {what}{suggest(key, allowed)}",
                                  "error", "unknown-key"))
    return out
