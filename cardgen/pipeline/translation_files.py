"""`cardgen i18n export` and `cardgen i18n import`: a game's card texts as a gettext PO file for
translators who work in their own tools, and their translations read back into the deck files
as `FIELD@LANG` (docs/languages.md).

One entry per card field to translate: `msgctxt` `DECK|CARD|FIELD` (the card's identity, as
its revisions know it), `msgid` the source text, `msgstr` the translation (empty: none yet), a
`#:` reference to the source's line, and `#, fuzzy` on a stale translation.  Exported: each
card's own fields that some card of the game translates, its name, and its other texts with a
space in them (prose, not a file name or a keyword).  Import writes only what changed, each
value where its key is (a new `FIELD@LANG:` on the line after its source's value), as a
double-quoted YAML string, and records the source each translation was made from (the file's
`msgid`), so a translation made for an older source is stale.  Exporting, then importing the
file unchanged, changes no byte; exporting again gives the same file.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from cardgen.check import translations
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.core.located import YDict, YList
from cardgen.load.history import read_history, update
from cardgen.load.po import Entry, dumps, loads
from cardgen.load.translations import split
from cardgen.model.game import Card, Deck, Game
from cardgen.schema.languages import PSEUDO, name_of, norm


@dataclass
class Target:
    """A card field a PO entry translates."""

    deck: Deck
    card: Card
    field: str
    raw: YDict          # the card's own mapping as written, every language's keys in it
    source: str
    lang: str = ""      # the language imported into, as game.yaml spells it

    def current(self, lang: str) -> tuple[str | None, str | None]:
        """(the key the translation into `lang` is written under, its value), or (None, None)."""
        for key, value in self.raw.items():
            parts = split(key)
            if parts is not None and parts[0] == self.field and norm(parts[1]) == norm(lang):
                return str(key), None if value is None else str(value)
        return None, None


def _language(game: Game, lang: str) -> str:
    """`lang` as game.yaml spells it; not a translated language of the game: an error."""
    for code in game.languages[1:]:
        if norm(code) == norm(lang):
            return code
    where = game.data.value_loc("languages") if "languages" in game.data else Loc(str(game.file))
    raise CardgenError(where, f"--lang {lang}: not one of the languages game.yaml's `languages:` translates into "
                              f"({', '.join(game.languages[1:]) or 'none'})" + (
                                  f"; {PSEUDO} needs no translation" if norm(lang) == PSEUDO else ""),
                       code="language")


def targets(game: Game) -> dict[str, Target]:
    """Every card field to translate, by its `msgctxt`, in build order."""
    wanted = translations.translatable(game) | {"name"}
    out: dict[str, Target] = {}
    for deck in game.decks:
        for card in deck.cards:
            raw = card.raw if card.raw is not None else card.data
            for key, value in raw.items():
                if not isinstance(key, str) or split(key) is not None or not isinstance(value, str) or not value:
                    continue
                if key in wanted or (" " in value.strip() and key not in ("count", "id", "back")):
                    out[f"{deck.name}|{card.ident}|{key}"] = Target(deck, card, key, raw, value)
    return out


def export(game: Game, lang: str, report: Report) -> str:
    """The PO file of the game's card texts and their translations into `lang`."""
    lang = _language(game, lang)
    history = read_history(game.root, report)
    stale = {unit.record for unit in translations.stale(game, history, report, lang)}
    entries = []
    for ctx, t in targets(game).items():
        _, text = t.current(lang)
        loc = t.raw.key_loc(t.field)
        where = os.path.relpath(loc.file, game.root).replace(os.sep, "/")
        entries.append(Entry(t.source, text or "", ctx, [f"{where}:{loc.line}"],
                             ["fuzzy"] if (t.deck.name, t.card.ident, t.field, norm(lang)) in stale and text else []))
    header = {"Project-Id-Version": game.slug, "Language": lang, "MIME-Version": "1.0",
              "Content-Type": "text/plain; charset=UTF-8", "Content-Transfer-Encoding": "8bit",
              "X-Generator": "cardgen", "X-Source-Language": game.source_language}
    return dumps(header, entries, f"{game.title}: {name_of(lang)} translation of the cards (cardgen i18n export)")


def _value_end(lines: list[str], raw: YDict, key: str, stop: int) -> int:
    """The last line (1-based) of `key`'s value in its block mapping: before the next key of
    the mapping, else before `stop` (the next card's or the deck's next key's line), blank and
    comment lines at its end left out."""
    start = raw.key_loc(key).line
    later = [raw.key_loc(k).line for k in raw if raw.key_loc(k).line > start]
    end = (min(later) if later else stop) - 1
    while end > start and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def _card_stop(deck: Deck, card: Card, count: int) -> int:
    """The line after a card's mapping: the next card's, else the deck file's next key's, else past the end."""
    cards = deck.data.get("cards")
    if isinstance(cards, YList) and card.index + 1 < len(cards):
        return cards.item_loc(card.index + 1).line
    below = deck.data.key_loc("cards").line
    after = [deck.data.key_loc(k).line for k in deck.data if deck.data.key_loc(k).line > below]
    return min(after) if after else count + 1


def _edit(lines: list[str], t: Target, key: str | None, value: str) -> tuple[int, int, str]:
    """Where `value` goes as `t.field@lang` in the deck file's `lines` (as read): (first line,
    last line, the line in their place), lines 1-based; an empty range (last = first - 1) is a
    new line.  `key`: the key the translation is written under now, or None: a new key after
    the source's value."""
    scalar = json.dumps(value, ensure_ascii=False)
    stop = _card_stop(t.deck, t.card, len(lines))
    if key is not None:
        vloc, end = t.raw.value_loc(key), _value_end(lines, t.raw, key, stop)
        return vloc.line, end, lines[vloc.line - 1][:vloc.col - 1] + scalar
    kloc = t.raw.key_loc(t.field)
    end = _value_end(lines, t.raw, t.field, stop)
    return end + 1, end, " " * (kloc.col - 1) + f"{t.field}@{t.lang}: {scalar}"


def _writable(t: Target, entry: Entry, path: str) -> Diagnostic | None:
    """Why a translation cannot be written into the card's file, or None."""
    if not isinstance(t.deck.data.get("cards"), list):
        return Diagnostic(Loc(path, entry.line, 1), f"deck '{t.deck.name}' reads its cards from a spreadsheet: add a "
                                                     f"column `{t.field}@{t.lang}` there (not imported)", "error",
                          "po-import")
    loc = t.raw.loc
    text = Path(loc.file).read_text(encoding="utf-8").splitlines()
    if loc.line and text[loc.line - 1][loc.col - 1:loc.col] == "{":
        return Diagnostic(Loc(path, entry.line, 1), f"card '{t.card.name}' is written as a flow mapping "
                                                     f"({{...}}, {loc.short}); write it as a block mapping to import "
                                                     f"into it (not imported)", "error", "po-import")
    return None


def import_file(game: Game, path: Path, lang: str | None, report: Report) -> list[Path]:
    """Read the PO file at `path` into the game's deck files; the files changed.  A broken file
    raises (nothing written)."""
    from cardgen.core.paths import read_regular

    shown = str(path)
    try:
        text = read_regular(path).decode("utf-8")
    except UnicodeDecodeError:
        raise CardgenError(Loc(shown), "is not UTF-8 text: save the PO file as UTF-8", code="po") from None
    except OSError as exc:
        raise CardgenError(Loc(shown), f"cannot be read: {exc.strerror or exc}", code="po") from None
    entries, header, warnings = loads(text, shown)
    report.extend(warnings)
    said = header.get("Language", "")
    if lang is None and not said:
        raise CardgenError(Loc(shown, 1), "the PO file names no Language in its header; give --lang", code="po")
    if lang is not None and said and norm(said) != norm(lang):
        raise CardgenError(Loc(shown, 1), f"the PO file is a {name_of(said)} ({said}) translation, not --lang "
                                          f"{lang}", code="po")
    code = _language(game, lang or said)
    known = targets(game)
    edits: dict[str, list[tuple[Target, str | None, str]]] = {}
    made: dict[tuple[str, str, str], str] = {}
    problems: list[Diagnostic] = []
    for e in entries:
        t = known.get(e.msgctxt or "")
        if t is None:
            report.warn(Loc(shown, e.line, 1), f"no card field '{e.msgctxt}' in the game (renamed or removed since "
                                               f"the export?); not imported", "po-import")
            continue
        t.lang = code
        key, current = t.current(code)
        if not e.msgstr or e.msgstr == current or (e.fuzzy and current is not None):
            continue
        why = _writable(t, e, shown)
        if why is not None:
            problems.append(why)
            continue
        edits.setdefault(t.raw.loc.file, []).append((t, key, e.msgstr))
        made[(t.deck.name, t.card.ident, t.field)] = e.msgid
    if problems:
        raise CardgenError(None, diagnostics=problems)
    return _apply(game, edits, made, code, report)


def _apply(game: Game, edits: dict[str, list[tuple[Target, str | None, str]]],
           made: dict[tuple[str, str, str], str], code: str, report: Report) -> list[Path]:
    """Each deck file's edits, from its last line up (the lines above stay where they are),
    written atomically; then the translations' records, from the source the translator saw."""
    from cardgen.core import atomic
    from cardgen.pipeline.check import load_game

    changed = []
    for file, todo in sorted(edits.items()):
        original = Path(file).read_text(encoding="utf-8")
        lines = original.splitlines()
        for first, last, line in sorted((_edit(lines, t, key, value) for t, key, value in todo), reverse=True):
            lines[first - 1:last] = [line]      # (from the last line up: the lines above stay where they are)
        atomic.write_text(Path(file), "\n".join(lines) + ("\n" if original.endswith("\n") else ""))
        changed.append(Path(file))
    if changed:
        again = load_game(game.root, game.project, Report())
        history = read_history(again.root, report)
        recorded = translations.records(again, history)
        for deck, group in recorded.items():
            for rec in group:
                seen = made.get((deck, rec["card"], rec["field"]))
                if seen is not None and norm(rec["lang"]) == norm(code):
                    rec["source"] = translations.hashed(seen)
        update(history, translations.SECTION, recorded)
    return changed
