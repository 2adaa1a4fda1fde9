"""Spreadsheet headers read in any case: a column `Text` of a deck whose template reads
`card.text` gives the field `text` (said once per deck, at the header), instead of every card
printing an empty text box, or warning card by card about a field no template uses.

The sheet loader (`cardgen.load.sheets`) keeps headers as written (a template may read
`card.Type`); only here, with the deck's templates known, is a header that matches a field
they read in another case taken as that field.  `cardgen.pipeline.check.check_game` runs
this right after loading, before anything reads the cards' fields.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.core.located import YDict
from cardgen.load.game import Deck, Game

_CARD_FIELD = re.compile(r"\bcard\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")


def _reads(value: object, out: set[str]) -> None:
    if isinstance(value, str):
        out.update(a or b for a, b in _CARD_FIELD.findall(value))
    elif isinstance(value, Mapping):
        for v in value.values():
            _reads(v, out)
    elif isinstance(value, list):
        for v in value:
            _reads(v, out)


def template_fields(game: Game, deck: Deck) -> set[str] | None:
    """The card fields the deck's templates read (and give defaults for); None if a template
    cannot be loaded (reported by the template checks)."""
    from cardgen.layout.templates import TemplateBook, computed_for

    book = TemplateBook(game.search_dirs("templates"), game.roots, game.translation, game.opts.languages)
    used: set[str] = set(computed_for(None, deck.data))
    for ref in (deck.template, deck.back, deck.backs):
        if not ref:
            continue
        try:
            tpl = book.get(ref, deck.template_loc)
        except CardgenError:
            return None
        used.update(str(k) for k in (*tpl.defaults, *tpl.computed))
        for el in tpl.elements:
            _reads(dict(el), used)
    return used


def _from_sheet(deck: Deck) -> bool:
    return "cards" in deck.data and not isinstance(deck.data.get("cards"), list)


def _rename(data: YDict, old: str, new: str) -> None:
    """`old` becomes `new` in a located mapping, keeping its order and places."""
    items = list(data.items())
    key_loc, value_loc = data.key_locs.get(old), data.value_locs.get(old)
    data.clear()
    for k, v in items:
        data[new if k == old else k] = v
    for locs, loc in ((data.key_locs, key_loc), (data.value_locs, value_loc)):
        locs.pop(old, None)
        if loc is not None:
            locs[new] = loc


def recognise_header_case(game: Game, report: Report) -> None:
    """In each deck whose cards are a spreadsheet: a column whose header is a field the deck's
    templates read, in another case (`Text` for `text`), gives that field; one warning per
    deck, at the first such header, naming them all."""
    for deck in game.decks:
        if not _from_sheet(deck) or not deck.cards:
            continue
        used = template_fields(game, deck)
        if not used:
            continue
        by_lower: dict[str, list[str]] = {}
        for u in sorted(used):
            by_lower.setdefault(u.lower(), []).append(u)
        said: dict[str, str] = {}
        first: Loc | None = None
        for card in deck.cards:
            for key in list(card.data):
                if not isinstance(key, str) or key in used or key in ("back",):
                    continue
                matches = by_lower.get(key.lower(), [])
                if len(matches) != 1 or matches[0] in card.data:
                    continue
                new = matches[0]
                header: Loc = card.data.key_locs.get(key, card.loc)
                _rename(card.data, key, new)
                for fields in (card.fields, card.back_fields):
                    if fields is not None and key in fields:
                        fields[new] = fields.pop(key)
                if key not in said:
                    said[key] = new
                    first = first or header
        if said and first is not None:
            _say(report, first, deck.name, said)


def _say(report: Report, at: Loc, deck: str, said: dict[str, str]) -> None:
    """One warning per deck, at the first such header, naming every column read so."""
    pairs = ", ".join(f"'{k}' as `{v}`" for k, v in said.items())
    plural = "s" if len(said) > 1 else ""
    report.warn(at, f"deck '{deck}': column{plural} {pairs} read as the field{plural} its template reads "
                    f"(headers match fields in any case; write them as the template does, or map them with "
                    f"`columns:`, to say so)", "sheet-header-case")
