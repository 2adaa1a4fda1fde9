"""Run the pipeline for one game: load, lay out every card once, make each output,
then move all outputs into place together."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cardgen.render import impose
from cardgen.core.atomic import Staging
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.layout.engine import Rendered, Resources, layout_game  # noqa: F401
from cardgen.load.game import Card, Deck, Game, load_game
from cardgen.model.ops import CardLayout
from cardgen.render.pdf import SheetOptions, cards_pdf, print_sheets

PAPERS = ("letter", "a4")


@dataclass
class BuildOptions:
    papers: tuple = PAPERS
    out: Path | None = None          # default: <project>/build
    gutter: bool = False
    flip: str = "long"
    back_offset: tuple = (0.0, 0.0)
    backs: bool = True
    only: tuple = ()                 # outputs to make; empty: the defaults
    strict: bool = False
    extra: dict = field(default_factory=dict)   # options of later stages (tts, png, booklet)




def _out_print(r: Rendered, opts: BuildOptions, staging: Staging, report: Report) -> None:
    for paper in opts.papers:
        so = SheetOptions(paper, opts.gutter, opts.flip, opts.back_offset, opts.backs)
        try:
            data = print_sheets(r.copies, r.res.fonts, so, r.game.title)
        except impose.DoesNotFit as exc:
            raise CardgenError(Loc(str(r.game.file), 1), f"{exc}; use a larger --page or a smaller card") from None
        staging.add(r.out_dir / f"print-{paper}.pdf", data)


def _out_cards(r: Rendered, opts: BuildOptions, staging: Staging, report: Report) -> None:
    faces, backs = r.printed()
    data = cards_pdf(faces, backs, r.res.fonts, r.game.title)
    staging.add(r.out_dir / "cards.pdf", data)


# Output name -> maker. Later stages register themselves here.
OUTPUTS: dict[str, Callable] = {"print": _out_print, "cards": _out_cards}
DEFAULT_OUTPUTS = ["print", "cards", "booklet", "tts"]   # png only when asked for


def register_output(name: str, maker: Callable, default: bool = True) -> None:
    OUTPUTS[name] = maker
    if default and name not in DEFAULT_OUTPUTS:
        DEFAULT_OUTPUTS.append(name)


def _load_stages() -> None:
    """Import optional stages so they register their outputs."""
    import importlib

    _register_validator()
    for mod in ("cardgen.outputs.tts", "cardgen.outputs.booklet", "cardgen.render.raster"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name != mod:
                raise


def checks(game: Game, report: Report) -> None:
    """Validation run before building (the validator registers itself here)."""
    for check in CHECKS:
        check(game, report)


CHECKS: list[Callable] = []


def build_game(path: Path, project: Path, opts: BuildOptions, report: Report) -> list[Path]:
    """Build one game; raises CardgenError (nothing written) on errors."""
    _load_stages()
    game = load_game(path, project, report)
    checks(game, report)
    blocking = [d for d in report.errors if d.code not in SOFT_ERRORS]
    if blocking:
        raise CardgenError(None, diagnostics=report.sorted())
    if opts.strict and report.items:
        raise CardgenError(None, diagnostics=[*report.sorted(),
                                              Diagnostic(Loc(str(game.file)), "--strict: not building while "
                                                         "there are problems", "error", "strict")])
    try:
        rendered = layout_game(game, report)
    except CardgenError as exc:     # show what the checks found too, not only the layout's errors
        raise CardgenError(None, diagnostics=sorted({*report.items, *exc.diagnostics},
                                                    key=Diagnostic.sort_key)) from None
    rendered.out_dir = (opts.out or project / "build") / game.slug
    staging = Staging()
    wanted = list(opts.only) if opts.only else [o for o in DEFAULT_OUTPUTS if o in OUTPUTS]
    for name in wanted:
        if name not in OUTPUTS:
            raise CardgenError(Loc(str(game.file)), f"output '{name}' is not available in this version")
        OUTPUTS[name](rendered, opts, staging, report)
    return staging.commit()


# Errors that do not stop a build (count mismatches: designers print unfinished playtests).
SOFT_ERRORS: set[str] = set()


def _register_validator() -> None:
    from cardgen.check.components import COUNT_CODES
    from cardgen.check.validate import build_check

    if build_check not in CHECKS:
        CHECKS.append(build_check)
    SOFT_ERRORS.update(COUNT_CODES)
