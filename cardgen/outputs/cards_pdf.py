"""`cards.pdf`: every distinct card once at trim + bleed, with TrimBox and BleedBox."""
from __future__ import annotations

from cardgen.outputs.base import Job, NoOptions, Output


class CardsPdf(Output[NoOptions]):
    summary = "Every distinct card once at trim + bleed, with TrimBox/BleedBox, for print services."
    files = "cards.pdf"

    def card_form_sides(self, job: Job[NoOptions]) -> list:
        """The printed faces and backs (`cards_pdf`'s)."""
        faces, backs = job.rendered.printed()
        return [*faces, *backs]

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.outputs.incremental import fonts_digest
        from cardgen.outputs.print_sheets import assembly
        from cardgen.render.formcache import FormCache
        from cardgen.render.pdf import cards_pdf

        r = job.rendered
        faces, backs = r.printed()
        part = job.part("", faces, backs, r.game.title, fonts_digest(r.res.fonts))
        if not part.keep():
            with part:
                job.staging.add(job.out_dir / "cards.pdf", cards_pdf(faces, backs, r.res.fonts, r.game.title,
                                                                     FormCache.of(job.out_dir),
                                                                     assembly(job, "", "cards.pdf")))
