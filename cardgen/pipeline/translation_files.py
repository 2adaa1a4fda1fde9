"""`cardgen i18n export` and `cardgen i18n import`: a game's texts as a gettext PO file for
translators who work in their own tools, and their translations read back into the game's
files as `FIELD@LANG` (docs/languages.md).

One entry per text to translate, as `check.texts` walks them (a card's fields and its `back:`'s,
a deck file's own text, game.yaml, rules.yaml, the templates; a list or a mapping text by
text): `msgctxt` `GROUP|IDENT|PATH` (what names the text's translation record,
`check.translations`), `msgid` the source text, `msgstr` the translation (empty: none yet), a
`#:` reference to the source's line, and `#, fuzzy` on a stale translation.  Import writes
only what changed, each text where it is (a new `FIELD@LANG:` after its source's value) as a
double-quoted YAML string (`load.yamledit`: the rest of each file byte for byte as it was),
and records the source each translation was made from (the file's `msgid`), so a translation
made for an older source is stale.  Exporting, then importing the file unchanged, changes no
byte; exporting again gives the same file.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgen.check import translations
from cardgen.check.texts import Place, Step, get, leaves, path_name, places
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.load.history import read_history, update
from cardgen.load.po import Entry, dumps, loads
from cardgen.load.yamledit import Change, apply
from cardgen.model.game import Game
from cardgen.schema.languages import PSEUDO, name_of, norm


@dataclass
class Target:
    """A text a PO entry translates: the text at `at` inside `place`'s source value."""

    place: Place
    at: tuple[Step, ...]
    source: str
    loc: Loc                    # the source text's place

    @property
    def name(self) -> str:
        return path_name((*self.place.at, self.place.field, *self.at))

    @property
    def ctx(self) -> str:
        return f"{self.place.group}|{self.place.ident}|{self.name}"

    @property
    def positional(self) -> bool:
        """Is the text named by its position in a list (it may be another text after an edit)?"""
        return any(isinstance(s, int) for s in (*self.place.at, *self.at))

    def current(self, lang: str) -> tuple[str | None, Any]:
        """(the key the translation into `lang` is written under, its text at `at`), or (None, None)."""
        key, value = self.place.translation(lang)
        return key, get(value, self.at) if key is not None else None


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


_MARKUP = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|:[A-Za-z0-9_-]+:", re.S)


def _words(text: str) -> bool:
    """Has `text` a word of its own outside its `{{ ... }}` expressions, `{% ... %}` statements
    and `:icon:`s (a template's `{{ card.text }}` has none)?"""
    return any(ch.isalpha() for ch in _MARKUP.sub("", text))


def _wanted(place: Place, at: tuple[Step, ...], text: str, languages: tuple[str, ...]) -> bool:
    """Is the source text `text` at `at` in `place` one to translate?  A value as the walk found
    it (on a card, every one; elsewhere, one not translated yet only when it has words of its
    own); a text inside a list or a mapping when some language translates it differently, or
    when it is prose (a space in it) with words of its own (a callout's `kind: tip` is neither)."""
    if any(step == "figure" and at[i + 1:i + 2] != ("caption",) for i, step in enumerate(at)):
        return False        # a rulebook figure's card names are the cards' (source) names: not translated
    there = [get(v, at) for _, _, v in place.translations(languages)]
    if not at:
        return place.card is not None or any(isinstance(t, str) for t in there) or _words(text)
    return any(isinstance(t, str) and t != text for t in there) or (" " in text.strip() and _words(text))


def targets(game: Game) -> dict[str, Target]:
    """Every text to translate, by its `msgctxt`, in build order."""
    languages = game.languages[1:]
    out: dict[str, Target] = {}
    for place in places(game, export=frozenset(translations.translatable(game) | {"name"})):
        for at, text, loc in leaves(place.source):
            if isinstance(text, str) and text.strip() and _wanted(place, at, text, languages):
                t = Target(place, at, text, loc or place.key_loc(place.field))
                out.setdefault(t.ctx, t)
    return out


def export(game: Game, lang: str, report: Report) -> str:
    """The PO file of the game's texts and their translations into `lang`."""
    lang = _language(game, lang)
    history = read_history(game.root, report)
    stale = {unit.record for unit in translations.stale(game, history, report, lang)}
    entries = []
    for ctx, t in targets(game).items():
        _, text = t.current(lang)
        text = text if isinstance(text, str) else ""
        where = os.path.relpath(t.loc.file, game.root).replace(os.sep, "/")
        record = (t.place.group, t.place.ident, t.name, norm(lang))
        entries.append(Entry(t.source, text, ctx, [f"{where}:{t.loc.line}"], ["fuzzy"] if record in stale and text
                             else []))
    header = {"Project-Id-Version": game.slug, "Language": lang, "MIME-Version": "1.0",
              "Content-Type": "text/plain; charset=UTF-8", "Content-Transfer-Encoding": "8bit",
              "X-Generator": "cardgen", "X-Source-Language": game.source_language}
    return dumps(header, entries, f"{game.title}: {name_of(lang)} translation (cardgen i18n export)")


@dataclass
class _Import:
    """What a PO file's entries make: each file's changes, the texts so translated (their
    `msgid`, by record), the problems (errors: nothing written) and the translations of lists
    and mappings not yet written (by place, text by text)."""

    path: str
    lang: str
    changes: dict[str, list[Change]] = field(default_factory=dict)
    made: dict[tuple[str, str, str], str] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)
    whole: dict[int, tuple[Place, dict[tuple[Step, ...], tuple[Entry, Target]]]] = field(default_factory=dict)

    def change(self, t: Target, e: Entry, change: Change) -> None:
        self.changes.setdefault(t.place.file, []).append(change)
        self.made[(t.place.group, t.place.ident, t.name)] = e.msgid

    def say(self, e: Entry, message: str, severity: str = "warning") -> None:
        self.problems.append(Diagnostic(Loc(self.path, e.line, 1), message, severity, "po-import"))


def _entry(job: _Import, t: Target, e: Entry) -> None:
    """What entry `e` (a changed translation of `t`) changes, or why it cannot."""
    place, code = t.place, job.lang
    key, _ = t.current(code)
    if place.path is None:
        deck = place.deck.name if place.deck is not None else place.group
        job.say(e, f"deck '{deck}' reads its cards from a spreadsheet: add a column `{place.field}@{code}` there "
                   f"(not imported)", "error")
    elif t.positional and e.msgid != t.source:
        job.say(e, f"'{e.msgctxt}' is now another text (`{t.source[:40]}`): the lists it is in changed since the "
                   f"export; export again (not imported)")
    elif key is not None and (not t.at or isinstance(get(place.translation(code)[1], t.at), (str, int, float))):
        job.change(t, e, Change(place.path, key, e.msgstr, inside=t.at))
    elif key is not None:
        job.say(e, f"the {name_of(code)} `{key}` has no text at `{path_name(t.at)}` (it is not laid out as "
                   f"`{place.field}` is): write it there in the YAML (not imported)")
    elif not t.at:
        job.change(t, e, Change(place.path, f"{place.field}@{code}", e.msgstr, after=place.field))
    else:
        job.whole.setdefault(id(place), (place, {}))[1][t.at] = (e, t)


def _wholes(job: _Import, known: dict[str, Target]) -> None:
    """A list or mapping translated for the first time: written whole (the source's, each of its
    texts to translate in the file's translation) once every one of them is translated."""
    for place, done in job.whole.values():
        assert place.path is not None
        needed = [t.at for t in known.values() if t.place is place]
        first = min((e for e, _ in done.values()), key=lambda e: e.line)
        if len(done) < len(needed):
            job.say(first, f"`{place.field}@{job.lang}` is written once all {len(needed)} texts of `{place.name}` "
                           f"are translated (the file translates {len(done)}): not imported")
            continue
        value = _copy(place.source)
        for at, (e, t) in done.items():
            value = _put(value, at, e.msgstr)
            job.made[(place.group, place.ident, t.name)] = e.msgid
        job.changes.setdefault(place.file, []).append(Change(place.path, f"{place.field}@{job.lang}", value,
                                                             after=place.field))


def _copy(value: Any) -> Any:
    """Plain lists and dicts (what is written), translated keys left out."""
    if isinstance(value, dict):
        return {str(k): _copy(v) for k, v in value.items() if "@" not in str(k)}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _put(value: Any, at: tuple[Step, ...], text: str) -> Any:
    if not at:
        return text
    value[at[0]] = _put(value[at[0]], at[1:], text)
    return value


def import_file(game: Game, path: Path, lang: str | None, report: Report) -> list[Path]:
    """Read the PO file at `path` into the game's files; the files changed.  A broken file
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
    job = _Import(shown, _language(game, lang or said))
    known = targets(game)
    seen: set[str] = set()
    for e in entries:
        t = known.get(e.msgctxt or "")
        if t is None:
            job.say(e, f"no text '{e.msgctxt}' in the game (renamed or removed since the export?); not imported")
            continue
        if t.ctx in seen:
            job.say(e, f"'{t.ctx}' is in the file twice: the first is imported, not this one")
            continue
        seen.add(t.ctx)
        _, current = t.current(job.lang)
        if e.msgstr and e.msgstr != current and not (e.fuzzy and current is not None):
            _entry(job, t, e)
    _wholes(job, known)
    errors = [d for d in job.problems if d.severity == "error"]
    if errors:
        raise CardgenError(None, diagnostics=errors)
    report.extend(job.problems)
    return _apply(game, job)


def _apply(game: Game, job: _Import) -> list[Path]:
    """Each file's changes (`load.yamledit`), written atomically once every file's are worked
    out; then the translations' records, from the source the translator saw."""
    from cardgen.core import atomic
    from cardgen.pipeline.check import load_game

    written = {}
    for file, changes in sorted(job.changes.items()):
        original = Path(file).read_text(encoding="utf-8")
        written[file] = apply(original, changes, file)
    for file, text in written.items():
        atomic.write_text(Path(file), text)
    if written:
        again = load_game(game.root, game.project, Report())
        history = read_history(again.root, Report())
        recorded = translations.records(again, history)
        for group, records in recorded.items():
            for rec in records:
                seen = job.made.get((group, rec["card"], rec["field"]))
                if seen is not None and norm(rec["lang"]) == norm(job.lang):
                    rec["source"] = translations.hashed(seen)
        update(history, translations.SECTION, recorded)
    return [Path(f) for f in written]
