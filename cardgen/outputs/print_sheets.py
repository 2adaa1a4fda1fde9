"""`print-<paper>.pdf`: the cards on sheets to print at home, duplex, with crop marks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from cardgen.core.errors import CardgenError, Loc
from cardgen.outputs.base import Job, Output
from cardgen.schema.core import Bool, Choice, Decl, Env, Invalid, Kind, _finite_number, opt, show


@dataclass(frozen=True)
class Offset(Kind):
    """Two numbers in millimetres, x and y: `[0.5, -1]`, or `0.5,-1` as on the command line."""

    metavar: ClassVar[str] = "X,Y"

    def convert(self, value: Any, env: Env) -> Any:
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, (list, tuple)) or len(parts) != 2:
            raise Invalid(f"must be X,Y in millimetres, e.g. 0.5,-1, got {show(value)}")
        try:
            return tuple(_finite_number(p.strip() if isinstance(p, str) else p, "a number") for p in parts)
        except Invalid:
            raise Invalid(f"must be X,Y in millimetres, e.g. 0.5,-1, got {show(value)}") from None

    def describe(self) -> str:
        return "X,Y in mm"

    def json_schema(self) -> dict:
        return {"anyOf": [{"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                          {"type": "string", "pattern": r"^\s*[-+]?[\d.]+\s*,\s*[-+]?[\d.]+\s*$"}]}

    def show_default(self, default: Any) -> str:
        return f"{default[0]:g},{default[1]:g}"


@dataclass(frozen=True, kw_only=True)
class PrintOptions(Decl):
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


class PrintSheets(Output):
    name = "print"
    summary = "Sheets to print at home at 100 %, duplex, and cut along the crop marks."
    files = "print-<paper>.pdf"
    section = "print"
    Options = PrintOptions

    def make(self, job: Job) -> None:
        from cardgen.outputs.incremental import fonts_digest
        from cardgen.render import impose
        from cardgen.render.formcache import FormCache
        from cardgen.render.pdf import SheetOptions, plan_sheets, print_sheets

        r, o = job.rendered, job.options
        for paper in job.build.papers:
            so = SheetOptions(paper, o.gutter, o.flip, o.back_offset, o.backs, o.mix_backs)
            part = job.part(paper, r.copies, so, r.game.title, fonts_digest(r.res.fonts))
            if part.keep():
                continue
            with part:
                try:
                    pages, how = plan_sheets(r.copies, so)
                    data = print_sheets(r.copies, r.res.fonts, so, r.game.title, pages, FormCache.of(job.out_dir))
                except impose.DoesNotFit as exc:
                    raise CardgenError(Loc(str(r.game.file), 1), f"{exc}; use a larger --page or a smaller card") \
                        from None
                job.staging.add(job.out_dir / f"print-{paper}.pdf", data)
                job.report.note(f"print-{paper}.pdf: {len(pages)} sheets; {how}")
