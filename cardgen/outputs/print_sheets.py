"""`print-<paper>.pdf`: the cards on sheets to print at home, duplex, with crop marks; with
`--layout NAME`, `print-NAME.pdf` on that sheet layout (`cardgen.render.sheetlayout`)."""
from __future__ import annotations

import contextlib
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, ClassVar

from cardgen.core.errors import CardgenError, Loc, plural
from cardgen.core.imports import importing
from cardgen.outputs.base import Job, Opts, Output
from cardgen.schema.core import Bool, Choice, Decl, Env, Invalid, Kind, Length, ListOf, Text, _finite_number, opt, show

MAX_OFFSET_MM = 50.0


@dataclass(frozen=True)
class Offset(Kind):
    """Two numbers in millimetres, x and y: `[0.5, -1]`, or `0.5,-1` as on the command line."""

    metavar: ClassVar[str] = "X,Y"

    def convert(self, value: Any, env: Env) -> Any:
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, (list, tuple)) or len(parts) != 2:
            raise Invalid(f"must be X,Y in millimetres, e.g. 0.5,-1, got {show(value)}")
        try:
            out = tuple(_finite_number(p.strip() if isinstance(p, str) else p, "a number") for p in parts)
        except Invalid:
            raise Invalid(f"must be X,Y in millimetres, e.g. 0.5,-1, got {show(value)}") from None
        if any(abs(v) > MAX_OFFSET_MM for v in out):
            raise Invalid(f"must be X,Y of at most {MAX_OFFSET_MM:g} mm either way (a printer's drift is a few "
                          f"millimetres; print the calibration sheet to measure it), got {show(value)}")
        return out

    def describe(self) -> str:
        return f"X,Y in mm, each from -{MAX_OFFSET_MM:g} to {MAX_OFFSET_MM:g}"

    def json_schema(self) -> dict:
        return {"anyOf": [{"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                          {"type": "string", "pattern": r"^\s*[-+]?[\d.]+\s*,\s*[-+]?[\d.]+\s*$"}]}

    def show_default(self, default: Any) -> str:
        return f"{default[0]:g},{default[1]:g}"


@dataclass(frozen=True, kw_only=True)
class PrintOptions(Decl):
    """game.yaml's `print:` section."""

    __what__ = "print sheet options"

    gutter: bool = opt(Bool(), "space the cards apart so each keeps its full bleed, with crop marks at every "
                               "card's corners", False, cli="--gutter")
    flip: str = opt(Choice(("long", "short")), "how your printer turns the sheet for duplex printing; backs "
                                               "are turned to match", "long", cli="--flip")
    back_offset: tuple = opt(Offset(), "shift the back pages by X,Y mm (x right, y down) to correct a printer's "
                                       "duplex drift", (0.0, 0.0), cli="--back-offset")
    backs: bool = opt(Bool(), "print the back pages of the print sheets", True, cli="--no-backs")
    mix_backs: bool = opt(Bool(), "lay copies out in deck order even where cards with different backs then share "
                                  "a cut line (a miscut can then mark a card by its neighbour's back)", False,
                          cli="--mix-backs")
    overlap: float = opt(Length(min=3, max=60, to="mm"), "how far the sheets of a board larger than the paper "
                                                       "overlap (docs/components.md)", 10.0, default_doc="10 mm",
                         cli="--overlap")
    layout: tuple = opt(ListOf(Text(nonempty=True), max_items=50), "sheet layouts to print, each into "
                                                                    "print-<layout>.pdf: a preset (letter, a4, "
                                                                    "letter-gutter, silhouette-letter, ...) or your "
                                                                    "own layouts/<layout>.yaml; repeatable", (),
                        default_doc="the preset named after each --page", cli="--layout")
    ink_saver: bool = opt(Bool(), "print the sheets with less ink: full-bleed backgrounds and panels lightened "
                                  "to a tint, shadows dropped, pictures in light grey, light text darkened to "
                                  "stay legible (docs/printing.md#ink-saver)", False, cli="--ink-saver")


class SheetOutput(Output[Opts]):
    """An output that prints the cards on sheet layouts named in its section's `layout:`."""

    kind: ClassVar[str] = "duplex"      # the sheet layouts it takes (`sheetlayout.kind_problem`)

    def card_form_sides(self, job: Job[Opts]) -> list:
        """The decks' sides and the extra components' (`_plan`'s copies; with ink saver, lightened
        from these, which keep the same text): what the sheets' fonts are named from."""
        from cardgen.outputs.extras import extra_copies
        from cardgen.render.pdf import _sides

        return _sides(job.rendered.copies + extra_copies(job))

    @classmethod
    def layout_names(cls, options: Any, papers: tuple[str, ...]) -> tuple[str, ...]:
        raise NotImplementedError

    @classmethod
    def section_problems(cls, game: Any) -> list:
        """The section's own problems, and those of every layout file it names."""
        out = super().section_problems(game)
        section = game.data.get(cls.section) if cls.section and isinstance(game.data, dict) else None
        if out or not isinstance(section, dict) or not isinstance(section.get("layout"), list):
            return out
        from cardgen.render.sheetlayout import layout_diagnostics  # (only when layouts are named: start-up)

        names = section["layout"]
        return layout_diagnostics([(str(n), names.item_loc(i) if hasattr(names, "item_loc") else Loc(str(game.file)))
                                   for i, n in enumerate(names)], game, cls.kind)


class PrintSheets(SheetOutput[PrintOptions]):
    summary = "Sheets to print at home at 100 %, duplex, and cut along the crop marks."
    files = "print-<paper>.pdf, print-<layout>.pdf"

    @classmethod
    def layout_names(cls, options: Any, papers: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(options.layout) or papers

    def make(self, job: Job[PrintOptions]) -> None:
        todo = []
        for name in self.layout_names(job.options, job.build.papers):
            layout = job_layout(job, name, self.kind)
            part = job.part(name, *sheet_inputs(job, layout))
            if not part.keep():
                todo.append((name, layout, part))
        with contextlib.closing(sheets_pdfs(job, [(name, layout) for name, layout, _ in todo], job.options,
                                            assemble="print-{}.pdf")) as made:
            for name, layout, part in todo:
                with part:
                    pages, how, data = next(made)
                    job.staging.add(job.out_dir / f"print-{name}.pdf", data)
                    job.report.note(f"print-{name}.pdf: {len(pages)} sheets; {how}")
                    if layout.spec.registration is not None:
                        cut_files(job, layout, name, pages)


def sheet_inputs(job: Job, layout: Any) -> tuple:
    """What a game's sheets on `layout` read besides the output's options, for `Job.part`:
    the copies (card sides by digest), the extra components, the layout, the title (the
    sheets' notes) and the fonts (the notes are set in the game's)."""
    with importing(freeze=False):
        from cardgen.outputs.extras import extra_copies
        from cardgen.outputs.incremental import fonts_digest

    r = job.rendered
    return r.copies, extra_copies(job), layout, r.game.title, fonts_digest(r.res.fonts)


def cut_files(job: Job, layout: Any, name: str, pages: list) -> None:
    """For a cutting machine: `print-<layout>-cut.svg`, the cut lines of the sheets' cards (one
    file per page arrangement when card sizes or spacings differ: `-cut-1.svg`, ...)."""
    from cardgen.render.sheetlayout import cut_svg

    frames: dict[Any, list[int]] = {}
    for n, (frame, page) in enumerate(pages, 1):       # shaped pieces: cut along their outline
        frames.setdefault((frame, page[0].face.shape, page[0].face.outline), []).append(n)
    for k, (key, numbers) in enumerate(frames.items(), 1):
        file = f"print-{name}-cut.svg" if len(frames) == 1 else f"print-{name}-cut-{k}.svg"
        job.staging.add(job.out_dir / file, cut_svg(layout, *key))
        if len(frames) > 1:
            job.report.note(f"{file}: the cut lines of sheets {', '.join(map(str, numbers))}")


def job_layout(job: Job, name: str, kind: str) -> Any:
    """The sheet layout `name` for this job's game, of the kind the output makes."""
    with importing(freeze=False):       # (the sheets' modules, as the build's own: `core.imports`)
        from cardgen.render.sheetlayout import kind_problem, resolve

    layout = resolve(name, job.game)
    problem = kind_problem(layout, kind)
    if problem:
        raise CardgenError(Loc(str(job.game.file), 1), problem, code="layout")
    return layout


def sheets_pdf(job: Job, layout: Any, name: str, o: Any, assemble: str = "") -> tuple[list, str, bytes]:
    """(pages, how the backs were kept apart, the PDF) of the game's decks and then its extra
    components (`outputs.extras`, each size on pages of its own) on `layout`: duplex print
    sheets, or fold-over sheets for a layout with a fold.  `assemble`: as `sheets_pdfs`'."""
    with contextlib.closing(sheets_pdfs(job, [(name, layout)], o, assemble)) as made:
        return next(made)


def sheets_pdfs(job: Job, wanted: list[tuple[str, Any]], o: Any,
                assemble: str = "") -> Generator[tuple[list, str, bytes], None, None]:
    """`sheets_pdf` of each (name, layout) in turn, every one planned before the first is made
    (a layout that does not fit is said before anything is drawn).  Card forms drawn for the
    first are in the form cache for the next.  `assemble`: the file name of each (`{}`: the
    name), whose objects the next build takes where only card forms changed (`render.assemble`)."""
    with importing(freeze=False):
        from cardgen.render import impose
        from cardgen.render.formcache import FormCache
        from cardgen.render.pdf import SheetWriter
        from cardgen.render.sheetlayout import LayoutProblem

    r = job.rendered
    cache = FormCache.of(job.out_dir)
    try:
        plans = [_plan(job, layout, name, o) for name, layout in wanted]
        for (name, _), (so, copies, pages, how) in zip(wanted, plans):
            if so.layout is not None and so.layout.foldover:
                from cardgen.render.foldover import foldover_sheets

                data = foldover_sheets(r.res.fonts, so, r.game.title, pages, cache=cache,
                                       assembly=assembly(job, name, assemble.format(name)) if assemble else None)
            else:
                data = SheetWriter(copies, r.res.fonts, so, r.game.title, pages, cache=cache,
                                   assembly=assembly(job, name, assemble.format(name)) if assemble else None).finish()
            yield pages, how, data
    except impose.DoesNotFit as exc:
        raise CardgenError(Loc(str(r.game.file), 1), f"{exc}; use a larger --page or a smaller card") from None
    except LayoutProblem as exc:
        raise exc.error() from None


def assembly(job: Job, key: str, file: str) -> Any:
    """What `render.assemble` needs to take `file` of the output folder from the last build
    where only card forms changed (None: not an incremental build): the output's options,
    fonts, code version and the words of the document information besides what the writer
    knows."""
    if job.ledger is None:
        return None
    from cardgen.core.digest import digest
    from cardgen.outputs.incremental import fonts_digest
    from cardgen.render.assemble import PdfCache
    from cardgen.render.docinfo import current

    base = digest(job.ledger.code, job.output, key, job.options, current(), fonts_digest(job.rendered.res.fonts))
    return PdfCache.of(job.out_dir), base, job.out_dir / file


def _plan(job: Job, layout: Any, name: str, o: Any) -> tuple[Any, list, list, str]:
    """(sheet options, copies, pages, how the backs were kept apart) of the game's sheets on
    `layout`, the extra components after the decks; then, where the layout allows, pages whose
    pieces fit into the free room of others are not printed (`render.packing`)."""
    with importing(freeze=False):
        from cardgen.outputs.extras import extra_copies
        from cardgen.render.packing import fill
        from cardgen.render.pdf import SheetOptions, one_sided_last, plan_sheets

    r = job.rendered
    so = SheetOptions(name, o.gutter, o.flip, o.back_offset, o.backs, o.mix_backs, layout, o.overlap, r.game.words,
                      r.game.deck_titles)
    base, extra = r.copies, extra_copies(job)
    if getattr(o, "ink_saver", False):
        base, extra = ink_saved(base), ink_saved(extra)
    pages, how = plan_sheets(base, so)
    if extra:
        pages = one_sided_last(pages + plan_sheets(extra, so)[0])      # the stickers and a board's sheets stay last
    saved = 0
    if so.packable():
        copies = base + extra
        pages, saved = fill(pages, so.margin, o.mix_backs or not (o.backs and any(cp.back for cp in copies)))
    if extra:
        ids = {id(cp) for cp in extra}
        own = sum(1 for _, page in pages if all(id(cp) in ids for cp in page))
        names = " and ".join(dict.fromkeys(cp.deck.lower() for cp in extra))
        where = f"on {plural(own, 'page')} of their own" if own else "in the free room of other sheets"
        how += f"; the {names} ({len(extra)} copies) {where}"
    if saved:
        how += f"; {plural(saved, 'sheet')} fewer: pieces fill the free room of other sheets"
    if getattr(o, "ink_saver", False):
        how += "; ink-saver: backgrounds lightened, pictures in light grey"
    return so, base + extra, pages, how


def ink_saved(copies: list) -> list:
    """`copies` with every side drawn with less ink (`cardgen.render.inksaver`); a side shared
    by several copies stays shared."""
    from dataclasses import replace

    from cardgen.render.inksaver import ink_saver

    done: dict[int, Any] = {}

    def side(layout: Any) -> Any:
        if layout is None:
            return None
        if id(layout) not in done:
            done[id(layout)] = ink_saver(layout)
        return done[id(layout)]

    return [replace(cp, face=side(cp.face), back=side(cp.back)) for cp in copies]
