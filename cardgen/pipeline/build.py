"""Run the pipeline for one game: check it (`cardgen.pipeline.check`, the path `cardgen
validate` takes too), make each wanted output from the one layout of every card, then move
all outputs into place together.  What did not change since the last build is not made
again (`cardgen.pipeline.incremental`)."""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardgen.core.atomic import Staging, exclusive, recover
from cardgen.core.envfail import OutputProblem
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report, display_path
from cardgen.core.imports import building, hold, importing
from cardgen.core.paths import drop_links, read_regular
from cardgen.core.progress import stage
from cardgen.load.project import output_dir
from cardgen.outputs import OUTPUTS
from cardgen.outputs.base import Job, Output
from cardgen.outputs.incremental import Ledger
from cardgen.pipeline import incremental
from cardgen.pipeline.options import PAPERS, BuildOptions
from cardgen.render import art, formcache
from cardgen.resources import fonts

if TYPE_CHECKING:     # (imported when a game is built: a rebuild with nothing changed never loads them)
    from cardgen.layout.engine import Rendered, layout_game
    from cardgen.load.game import Game
    from cardgen.render import docinfo

__all__ = ["PAPERS", "BuildOptions", "Built", "Rendered", "build_game", "layout_game"]


def __getattr__(name: str) -> Any:
    if name in ("Rendered", "layout_game"):
        from cardgen.layout import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _refuse(report: Report, *extra: Diagnostic) -> CardgenError:
    return CardgenError(None, diagnostics=sorted({*report.items, *extra}, key=Diagnostic.sort_key))


class Built(list[Path]):
    """The files a build wrote (a list), the game they were made from (None when nothing
    changed: it was not loaded) and, for the summary, the output folder, the files kept from
    the last build, the number of cards, whether the print sheets are double-sided, and the
    outputs of earlier builds that were not made now: still right and left in place
    (`earlier`) or out of date and removed (`removed`; docs/outputs.md)."""

    def __init__(self, files: list[Path], game: Game | None, out_dir: Path, kept: list[Path] | None = None,
                 cards: int = 0, duplex: bool = False, unchanged: bool = False, earlier: list[Path] | None = None,
                 removed: list[Path] | None = None) -> None:
        super().__init__(files)
        self.game = game
        self.out_dir = out_dir
        self.kept = kept or []
        self.cards = cards
        self.duplex = duplex
        self.unchanged = unchanged      # nothing changed since the last build: nothing was done
        self.earlier = earlier or []    # outputs of an earlier build not made now, still right: they stay
        self.removed = removed or []    # outputs of an earlier build not made now, out of date: removed
        # a game with `languages:` (docs/languages.md): each language's build, by language
        self.languages: dict[str, Built] = {}


def _assembled_files(out_dir: Path) -> set[str]:
    """The files of the output folder a later build may assemble from (`render.assemble`)."""
    from cardgen.render.assemble import PdfCache

    return PdfCache.of(out_dir).files()


def _duplex(game: Game, opts: BuildOptions) -> bool:
    """Are the print sheets double-sided (backs printed, and some deck has backs)?"""
    backs = OUTPUTS["print"].resolve(game.data, opts.outputs.get("print")).backs
    return bool(backs) and any(d.has_backs for d in game.decks)


def game_docinfo(game: Game) -> docinfo.DocInfo:
    """What every PDF of the game says about it: its designer, and its `date:` (if any)."""
    from cardgen.render import docinfo

    date = game.opts.date
    return docinfo.DocInfo(author=game.opts.designer or None,
                           epoch=docinfo.epoch_of_date(date) if date else None)


def _own_output(game: Path, project: Path, out_dir: Path) -> None:
    """The default output folder (`build/` in the game or project folder) must be a folder
    there, not a link to somewhere else: a game folder may come with `build -> ~/Documents`."""
    owner = Path(os.path.abspath(game if Path(project).resolve() == Path(game).resolve() else project))
    p = out_dir
    while p != owner and owner in p.parents:
        if p.is_symlink():
            raise CardgenError(Loc(display_path(p)), "the output folder is a link to another place; cardgen writes "
                                                     "a game's output only into a folder of its own: remove the "
                                                     "link, or choose where the output goes with --out",
                               code="output-link")
        p = p.parent


def build_languages(path: Path, opts: BuildOptions) -> list[str] | None:
    """The languages a build makes, as game.yaml spells them (docs/languages.md): `--lang`'s,
    else every one game.yaml's `languages:` declares; None for a game that declares none built
    without `--lang` (its outputs stay in build/<game>/)."""
    from cardgen.schema.languages import declared_languages, norm

    data = None if _says_no_languages(Path(path) / "game.yaml") else _read_game_yaml(Path(path) / "game.yaml")
    declared = declared_languages(data) or ()
    if opts.lang is None:
        return list(declared) or None
    return [next((code for code in declared if norm(code) == norm(opts.lang)), opts.lang)]


def _read_game_yaml(file: Path) -> Any:
    from cardgen.load.yamlsrc import load_file

    try:
        return load_file(file)
    except (CardgenError, OSError):
        return None                 # (said by the build itself)


def _says_no_languages(file: Path) -> bool:
    """Whether game.yaml cannot have a `languages:` key, seen in its bytes without loading YAML
    (a rebuild with nothing changed does not import it): the word is not there, and nor is a
    backslash (a double-quoted key's escapes) or a NUL (UTF-16 or UTF-32 text)."""
    try:
        raw = read_regular(file)
    except OSError:                 # (TooLarge, NotRegular: OSErrors too; loaded, they are said)
        return False
    return not any(b in raw for b in (b"languages", b"\\", b"\0"))


def build_game(path: Path, project: Path, opts: BuildOptions, report: Report) -> Built:
    """Build one game; raises CardgenError (nothing written) on errors.  A game with
    `languages:` is built once per language, each into its own folder (build/<game>/<lang>/;
    `Built.languages`).  One build of an output folder at a time (`atomic.exclusive`)."""
    import dataclasses

    languages = build_languages(path, opts)
    if languages is None:
        return _build_in(path, project, opts, report, None)
    built = {lang: _build_in(path, project, dataclasses.replace(opts, lang=lang), report, lang)
             for lang in languages}
    first = next(iter(built.values()))
    out = Built([f for b in built.values() for f in b], first.game, first.out_dir.parent,
                [f for b in built.values() for f in b.kept], first.cards, first.duplex,
                all(b.unchanged for b in built.values()), [f for b in built.values() for f in b.earlier],
                [f for b in built.values() for f in b.removed])
    out.languages = built
    return out


def _build_in(path: Path, project: Path, opts: BuildOptions, report: Report, lang: str | None) -> Built:
    """Build one game in one language (None: a game without `languages:`)."""
    out_dir = Path(os.path.abspath(output_dir(Path(path), project, opts.out, lang)))

    def waiting() -> None:
        print(f"{display_path(out_dir)}: another cardgen build is writing here; waiting for it to finish",
              file=sys.stderr, flush=True)

    with exclusive(out_dir, waiting):
        try:
            recover(out_dir.resolve() if out_dir.is_symlink() and out_dir.is_dir() else out_dir)
        except OSError as exc:          # (completes a commit a killed build left half done)
            raise OutputProblem(exc.filename or out_dir, exc, "cannot finish the last build's move into place") \
                from None
        made = _first_missing(out_dir)
        try:
            with building():
                return _build_game(path, project, opts, report, out_dir)
        except CardgenError:
            if made is not None:    # a refused first build leaves no folder (its caches' folders)
                _forget_caches(out_dir, made)
            raise


def _first_missing(out_dir: Path) -> Path | None:
    """The outermost of `out_dir` and its parents that does not exist yet (None: it exists)."""
    if out_dir.exists() or out_dir.is_symlink():
        return None
    top = out_dir
    while not (top.parent.exists() or top.parent.is_symlink()) and top.parent != top:
        top = top.parent
    return top


def _forget_caches(out_dir: Path, made: Path) -> None:
    """The output folder a refused first build made, when all it holds is caches, and the
    folders above it the build made (`made`: the outermost), when they are empty or hold only
    caches."""
    import shutil

    try:
        if out_dir.is_dir() and not out_dir.is_symlink() and {p.name for p in out_dir.iterdir()} <= {".cache"}:
            shutil.rmtree(out_dir)
        here = out_dir.parent
        # (empty, or holding only the caches a game's languages share: build/<game>/.cache)
        while made in (here, *here.parents) and here.is_dir() and {p.name for p in here.iterdir()} <= {".cache"}:
            shutil.rmtree(here)
            here = here.parent
    except OSError:
        pass                        # (a cache left behind costs nothing)


def _buildable(checked: Any, opts: BuildOptions, report: Report) -> tuple[Any, Any]:
    """(the game, its laid-out cards) of a checked game that may be built; else the build is
    refused with the report's problems."""
    from cardgen.layout.engine import layout_game

    game = checked.game
    if game is None or checked.blocking(report):
        raise _refuse(report)
    if opts.strict and any(d.severity != "note" for d in report.items):
        raise _refuse(report, Diagnostic(Loc(str(game.file)), "--strict: not building while there are problems",
                                         "error", "strict"))
    rendered = checked.rendered
    if rendered is None:            # no decks: nothing was laid out
        try:
            rendered = layout_game(game, report)
        except CardgenError as exc:
            raise CardgenError(None, diagnostics=sorted({*report.items, *exc.diagnostics},
                                                        key=Diagnostic.sort_key)) from None
    return game, rendered


def _make_outputs(jobs: list[tuple[Output, Job]], staging: Staging, ledger: Ledger) -> None:
    """Make each output, one after another, once each but the first has begun what it does
    in the background (`Output.ahead`: while the outputs before it are made)."""
    with stage("writing", len(jobs)) as advance:
        for maker, job in jobs[1:]:
            maker.ahead(job)
        for maker, job in jobs:
            advance(0, maker.name)
            before = len(staging.files)
            maker.make(job)
            ledger.loose(maker.name, staging.staged_since(before))
            advance(1)


def _offer_forms(jobs: list[tuple[Output, Job]], out_dir: Path) -> None:
    """The card sides the raster workers render drawn as the first output that draws them into
    PDF forms will draw them, and their forms offered to it (`Output.card_form_sides`,
    `raster.offer_forms`: a first build's contrast check renders every side, so each is drawn
    once); none if no output does.  Not imported by a build that rasterizes nothing."""
    if not any(maker.rasterizes for maker, _ in jobs):
        return
    from cardgen.render import raster

    sides = next((found for maker, job in jobs if (found := maker.card_form_sides(job))), None)
    raster.offer_forms(out_dir if sides else None, sides, jobs[0][1].rendered.res.fonts)


def _build_game(path: Path, project: Path, opts: BuildOptions, report: Report, out_dir: Path) -> Built:
    if opts.out is None:
        _own_output(Path(path), project, out_dir)
    for link in drop_links(out_dir):
        report.warn(Loc(display_path(link)), "was a link; removed (cardgen keeps its caches and records in the "
                                             "output folder itself; what the link pointed at is unchanged)", "link")
    state = incremental.State.load(out_dir)
    inputs = incremental.scan(Path(path), project, out_dir, opts, opts.wanted(), state)
    done = incremental.up_to_date(inputs, state, Path(path), out_dir, opts, report)
    if done is not None:
        return Built([], None, out_dir, done.files, done.cards, done.duplex, unchanged=True)
    if not state.outputs(inputs.code) and any(OUTPUTS[name].rasterizes for name in opts.wanted()):
        from cardgen.render import raster

        # A first build (or the first of this code): the raster workers' fork server imports
        # while the cards are laid out.  A rebuild starts it only if its sides are many enough
        # for workers (`raster.Pool.get`): importing what it preloads cost a one-card edit of
        # every output a tenth of its CPU, for no worker.  What this process imports next anyway
        # and the workers need too (setting text, packed layouts, ReportLab's PDF objects) is
        # imported first: a server forked from this process (`raster._fork_server`) has it then,
        # and does not import it again (about 0.02 s of its CPU).  Not the rest (loading,
        # checking): the server and each worker would count it in their memory.
        with importing():
            from cardgen.layout import cache as _layouts  # noqa: F401
            from cardgen.render import docinfo as _docinfo  # noqa: F401
        raster.start_early()
    # (`load.sheetfetch`, not `load.sheets`: only a deck of a spreadsheet reads one)
    with importing():
        from cardgen.layout.manifest import MANIFEST, manifest_of
        from cardgen.load import sheetfetch
        from cardgen.pipeline.check import check_game, check_rendered, keep_history
        from cardgen.render import docinfo

    # images at the size they print (checks draw too); a game's languages share them
    shared = out_dir.parent if opts.lang else out_dir
    art.configure(shared / ".cache" / "art", owner=shared,
                  screen=any(OUTPUTS[name].rasterizes for name in opts.wanted()))
    if opts.lang:
        from cardgen.render import raster

        raster.share(out_dir, shared)       # (card bitmaps too: a back the same in every language made once)
    with sheetfetch.settings(sheetfetch.SheetSettings(out=opts.out, refresh=opts.refresh)):
        checked = check_game(path, project, report, opts.out, lang=opts.lang, sets=opts.sets)
    game, rendered = _buildable(checked, opts, report)
    rendered.out_dir = out_dir
    wanted = [OUTPUTS[name] for name in opts.wanted()]
    if checked.rulebook & set(report.errors):
        skipped = [o.name for o in wanted if o.uses_rulebook]
        wanted = [o for o in wanted if not o.uses_rulebook]
        if not wanted:
            raise _refuse(report)
        if skipped:
            where = game.root / "rules.yaml"
            report.warn(Loc(str(where if where.is_file() else game.file)),
                        f"{', '.join(skipped)} not made while the rulebook has errors", "not-made")
    manifest = manifest_of(rendered)
    changes = None
    if any(o.name == "changes" for o in wanted):     # (`pipeline.changes` imported for it alone)
        with importing():
            from cardgen.pipeline.changes import changes_since
        changes = changes_since(opts.changed_since, game, manifest, checked.previous)
    staging = Staging(out_dir)
    ledger = Ledger(out_dir, inputs.code, state.parts, fonts.font_files, outputs=state.outputs(inputs.code),
                    hashes=state.hashes(out_dir, inputs.code))
    # the outputs' options, typed (command line > game.yaml > default): each output gets its
    # own as `job.options`, and another's through `job.options_of` (resolved when asked for, so
    # that `--only print` imports no other output's module)
    resolved = {o.name: o.resolve(game.data, opts.outputs.get(o.name)) for o in wanted}
    jobs = [(output(), Job(rendered, resolved[output.name], opts, staging, report, out_dir, output.DeckOptions,
                           output.section, changes=changes, output=output.name, ledger=ledger, resolved=resolved))
            for output in wanted]
    _offer_forms(jobs, out_dir)
    said = len(report.items)
    if opts.strict or "gallery" in opts.wanted():
        # (once the build goes ahead; it measures the gallery's own bitmaps, so it rasterizes
        # nothing more; a build without the gallery (`--only`) would rasterize every side for it)
        check_rendered(checked, report, out_dir)
    if opts.strict and any(d.severity != "note" for d in report.items[said:]):
        raise _refuse(report, Diagnostic(Loc(str(game.file)), "--strict: not building while there are problems",
                                         "error", "strict"))
    hold()      # (the laid-out, checked game lives until the build ends: the outputs' collections skip it)
    with docinfo.using(game_docinfo(game)):
        _make_outputs(jobs, staging, ledger)
    manifest_bytes = manifest.dumps().encode("utf-8")
    staging.add(out_dir / MANIFEST, manifest_bytes)
    if keep_history(checked, report):       # (cardgen-history.json beside the game: an input of the next build)
        inputs = incremental.scan(Path(path), project, out_dir, opts, opts.wanted(), state)
    source = incremental.source_of(inputs, manifest_bytes)
    earlier = incremental.earlier_parts(state, ledger.parts, source, out_dir, ledger.sha256)
    # an earlier build's outputs, out of date, not made now: they go; a PDF the next build can
    # assemble from (`render.assemble`) is kept in the cache until then
    assembled = _assembled_files(out_dir) if earlier.stale else set()
    for rel in earlier.stale:
        staging.retire(out_dir / rel, keep=str(out_dir / rel) in assembled)
    made = len(report.items)
    files = staging.commit(report)
    formcache.save_all()
    if checked.layout_cache is not None:
        with contextlib.suppress(OSError):
            checked.layout_cache.save()
    ledger.committed(staging.digests)
    cards, duplex = sum(d.count for d in game.decks), _duplex(game, opts)
    incremental.record(out_dir, inputs, ledger, earlier, source, staging.digests, report.items[:made],
                       report.notes, game, opts, cards, duplex)
    still = sorted({out_dir / rel for part in earlier.current.values() for rel in part["files"]
                    if (out_dir / rel).is_file()})
    return Built(files, game, out_dir, staging.kept, cards, duplex, earlier=still, removed=staging.removed)
