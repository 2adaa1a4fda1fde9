"""`print-<paper>-foldover.pdf`: fold-over sheets for printers without duplex: fronts on one
half of a single-sided page, their backs mirrored on the other half across a dashed fold line
(`cardgen.render.foldover`).  Takes `--mix-backs` and `--no-backs` from the print options."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardgen.outputs.base import Job
from cardgen.outputs.print_sheets import PrintSheets, SheetOutput, job_layout, sheet_inputs, sheets_pdf
from cardgen.schema.core import Decl, ListOf, Text, opt

SUFFIX = "-foldover"


@dataclass(frozen=True, kw_only=True)
class FoldoverOptions(Decl):
    """game.yaml's `foldover:` section."""

    __what__ = "fold-over sheet options"

    layout: tuple = opt(ListOf(Text(nonempty=True), max_items=50), "fold-over layouts to print, each into "
                                                                    "print-<layout>.pdf (-foldover added if the name "
                                                                    "lacks it): a preset (letter-foldover, "
                                                                    "a4-foldover) or your own layouts/<layout>.yaml "
                                                                    "with a `fold:`; repeatable", (),
                        default_doc="<paper>-foldover for each --page", cli="--foldover-layout")


def file_name(layout: str) -> str:
    """A fold-over file's name always ends in `-foldover.pdf` (it is printed single-sided)."""
    return f"print-{layout}.pdf" if layout.endswith(SUFFIX) else f"print-{layout}{SUFFIX}.pdf"


class Foldover(SheetOutput[FoldoverOptions]):
    summary = ("Fold-over sheets to print single-sided: fronts on one half, backs mirrored on the other; fold, "
               "glue and cut.")
    files = "print-<paper>-foldover.pdf"
    kind = "foldover"

    @classmethod
    def layout_names(cls, options: Any, papers: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(options.layout) or tuple(f"{p}{SUFFIX}" for p in papers)

    def make(self, job: Job[FoldoverOptions]) -> None:
        o = job.options_of(PrintSheets)
        for name in self.layout_names(job.options, job.build.papers):
            layout = job_layout(job, name, self.kind)
            part = job.part(name, o, *sheet_inputs(job, layout))
            if part.keep():
                continue
            with part:
                file = file_name(name).replace("{", "{{").replace("}", "}}")     # (a format: `sheets_pdfs`)
                pages, how, data = sheets_pdf(job, layout, name, o, assemble=file)
                job.staging.add(job.out_dir / file_name(name), data)
                job.report.note(f"{file_name(name)}: {len(pages)} sheets, single-sided; {how}")
