"""Load and check one game: the one code path `cardgen validate` and `cardgen build` share.

Both load the game tolerantly (every file's problems, not just the first), check every
output's options (game.yaml's and the decks' sections, from the outputs' declarations), run
every check over the same typed model, and lay out every card once.  `validate` prints what
was found; `build` stops on blocking errors and hands the laid-out game to the outputs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cardgen.check.components import COUNT_CODES
from cardgen.check.glyphs import check_printed_names
from cardgen.check.headers import recognise_header_case
from cardgen.check.readability import settings_of
from cardgen.check.validate import run_checks
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.layout.cache import LayoutCache
from cardgen.layout.engine import Rendered
from cardgen.layout.manifest import Manifest, ManifestError, assign_revisions, read_manifest, recorded_revisions
from cardgen.layout.rulebook import rulebook_problems
from cardgen.load import game as loader
from cardgen.load.game import Game
from cardgen.load.history import History, read_history
from cardgen.load.project import output_dir
from cardgen.outputs import OUTPUTS
from cardgen.resources.fonts import recording_shaped


@dataclass
class Checked:
    """A game loaded, checked and laid out (`check_game`)."""

    game: Game | None            # None when game.yaml itself could not be read
    rendered: Rendered | None    # None when some card could not be laid out
    rulebook: frozenset[Diagnostic] = field(default_factory=frozenset)   # the rulebook's own problems
    previous: Manifest | None = None     # the manifest of the game's last build (docs/changes.md)
    layout_cache: LayoutCache | None = None      # card sides laid out by earlier builds (saved by a build)
    history: History | None = None       # the game's history file (`load.history`; updated by a build)

    def blocking(self, report: Report) -> list[Diagnostic]:
        """The errors that stop a build: all but count errors (designers print unfinished
        playtests) and the rulebook's (they stop only the outputs made from it)."""
        return [d for d in report.errors if d.code not in COUNT_CODES and d not in self.rulebook]


def sections() -> dict[str, str]:
    """game.yaml keys that hold output options -> the output's name (no output imported)."""
    return {section: name for section, (name, _) in OUTPUTS.sections().items()}


def deck_sections() -> dict[str, str]:
    """Deck file keys that hold output options -> the output's name."""
    return {section: name for section, (name, deck) in OUTPUTS.sections().items() if deck}


def used_sections(game: Game) -> list[str]:
    """The outputs whose section game.yaml or a deck file has (a section another has not cannot
    have a problem: `Output.section_problems`), in the registry's order."""
    found = []
    for section, (name, deck) in OUTPUTS.sections().items():
        places = [game.data, *(d.data for d in game.decks)] if deck else [game.data]
        if any(isinstance(data, dict) and data.get(section) is not None for data in places):
            found.append(name)
    return found


def load_game(path: Path, project: Path, report: Report | None = None, tolerant: bool = False,
              lang: str | None = None, sets: Sequence[str] = ()) -> Game:
    """`cardgen.load.game.load_game` with the sections of every output (`sections()`,
    `deck_sections()`) allowed in game.yaml and the deck files: how every caller loads a game."""
    return loader.load_game(path, project, report, tolerant, sections=sections(), deck_sections=deck_sections(),
                            lang=lang, sets=sets)


def previous_build(game: Game, out: Path | None, report: Report, counted: bool = False) -> Manifest | None:
    """The manifest of the game's last build into its output folder (`--out`), if any; a
    broken one is a warning (without `counted`, the revisions the history file keeps, they
    count from 1 again)."""
    folder = output_dir(game.root, game.project, out, game.lang)
    try:
        return read_manifest(folder)
    except ManifestError as exc:
        lost = "there is no last build to compare with" if counted else "card revisions count from 1 again"
        report.warn(Loc(str(folder / "manifest.json")), f"{exc.reason}; {lost}", "manifest")
        return None


def check_game(path: Path, project: Path, report: Report, out: Path | None = None, deep: bool = False,
               lang: str | None = None, sets: Sequence[str] = ()) -> Checked:
    """Every problem of the game at `path` goes to `report`.  The cards' revisions continue
    from the game's history file (`cardgen-history.json`); a game without one continues from
    its last build into `out` (as `cardgen build --out`; default: the usual place).  `deep`
    (`cardgen validate --deep`): also the checks measured on the rendered cards, as
    `check_rendered` (their bitmaps kept only where the game has been built).  `lang`: the
    language to check the game in (docs/languages.md; default: its source language).  `sets`:
    the build's `--set KEY=VALUE` over game.yaml (`cardgen.load.overrides`)."""
    try:
        game = load_game(path, project, report, tolerant=True, lang=lang, sets=sets)
    except CardgenError as exc:
        report.extend(exc.diagnostics)
        return Checked(None, None)
    recognise_header_case(game, report)     # (before anything reads the cards' fields)
    check_printed_names(game, report)
    used = used_sections(game)
    for name in used:                       # (the others are not imported: start-up)
        report.extend(OUTPUTS[name].section_problems(game))
    history = read_history(game.root, report)
    if game.translation is not None:        # (a game in its own language: the checks not imported)
        from cardgen.check.translations import check_missing, check_stale

        check_missing(game, report)         # (before laying out: a card printed untranslated is marked)
        check_stale(game, history, report)
    recorded = recorded_revisions(history, report)
    previous = previous_build(game, out, report, counted=recorded is not None)
    assign_revisions(game, recorded if recorded is not None else previous)
    folder = output_dir(game.root, game.project, out, game.lang)
    cache = LayoutCache.of(folder)
    if (folder / ".cache" / LayoutCache.NAME).is_file():
        from cardgen.pipeline.incremental import code_version_of

        code_version_of(folder)     # (what the cache file starts with, worked out quickly)
    # the print service's safe area, when game.yaml sets its section (its default is the
    # elements' `SAFE_MM`, `settings_of`'s: the output is not imported for it)
    margin = getattr(OUTPUTS["pdfx"].resolve(game.data), "safe_margin", None) if "pdfx" in used else None
    with recording_shaped():
        rendered = run_checks(game, report, cache=cache, readable=settings_of(game, margin))
    checked = Checked(game, rendered, frozenset(rulebook_problems(game)), previous, cache, history)
    if deep and not checked.blocking(report):
        check_rendered(checked, report, folder, keep=False)
    return checked


def check_rendered(checked: Checked, report: Report, out_dir: Path, keep: bool = True) -> None:
    """The checks measured on the rendered cards (`cardgen.check.contrast`): `cardgen build`
    runs them once it goes ahead (the bitmaps kept in `out_dir`'s cache, for its gallery and
    the next build), `cardgen validate --deep` through `check_game` (`keep` False: a game never
    built leaves nothing behind)."""
    if checked.rendered is None:
        return
    from cardgen.check.contrast import check_contrast

    check_contrast(checked.rendered, report, out_dir, keep=keep)


def keep_history(checked: Checked, report: Report) -> bool:
    """After a build: the cards' revision counters into the game's history file, when they
    change it (`load.history`: atomically, and never over a file with a problem).  True when
    the file was written; a folder cardgen cannot write into is a warning."""
    from cardgen.layout.manifest import REVISIONS, revisions_record
    from cardgen.load.history import FILE, update

    game, history = checked.game, checked.history
    if game is None or history is None:
        return False
    try:
        written = update(history, REVISIONS, revisions_record(game))
        if game.languages:
            from cardgen.check import translations

            written = update(history, translations.SECTION, translations.records(game, history)) or written
        return written
    except OSError as exc:
        report.warn(Loc(str(history.path)), f"cannot be written ({exc.strerror or exc}): the card revisions of this "
                                            f"build are kept only in the build folder; make the game folder "
                                            f"writable so that {FILE} keeps them", "history")
        return False


def mark_translations(path: Path, project: Path, lang: str | None, report: Report) -> int:
    """`cardgen i18n mark`: record every translation into `lang` (None: every language) as made
    from the current source text, in the game's history file (docs/languages.md): its stale
    warnings end.  The number of translations so recorded."""
    from cardgen.check import translations
    from cardgen.load.history import update

    game = load_game(path, project, report, lang=lang)
    if not game.languages:
        raise CardgenError(Loc(str(game.file)), "game.yaml declares no `languages:`: there are no translations "
                                                "to mark", code="language")
    accept = (game.lang,) if lang is not None and game.lang is not None else game.languages[1:]
    history = read_history(game.root, report)
    recorded = translations.records(game, history, accept=accept)
    update(history, translations.SECTION, recorded)
    from cardgen.schema.languages import norm

    return sum(1 for group in recorded.values() for rec in group if norm(rec["lang"]) in {norm(a) for a in accept})
