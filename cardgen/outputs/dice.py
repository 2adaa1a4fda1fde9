"""`dice-<paper>.pdf`: each die of the game's die files (`kind: die`) as a net to cut out, fold
and glue (docs/components.md, "Dice").  Their stickers are on the print sheets, with the cards."""
from __future__ import annotations

from cardgen.core.errors import plural
from cardgen.outputs.base import Job, NoOptions, Output


class Dice(Output[NoOptions]):
    summary = "Each custom die as a net to cut out, fold and glue (games with die files only)."
    files = "dice-<paper>.pdf"

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.model.dice import DieNet
        from cardgen.outputs.incremental import fonts_digest
        from cardgen.render.dice import Die, dice_pdf
        from cardgen.render.formcache import FormCache

        r = job.rendered
        decks = [d for d in r.game.decks if d.kind == "die" and d.pieces > 0]
        if not decks:
            return
        faces = {deck.name: [face for d, _, face in r.faces if d is deck] for deck in decks}
        dice = [Die(d.name, d.die_edge, faces[d.name], d.pieces) for d in decks]
        for paper in job.build.papers:
            part = job.part(paper, [(d.name, d.edge, d.count) for d in dice], [f for d in dice for f in d.faces],
                            r.game.title, fonts_digest(r.res.fonts))
            if part.keep():
                continue
            with part:
                data, pages = dice_pdf(r.res.fonts, FormCache.of(job.out_dir), r.game.title, dice, paper,
                                       r.game.words)
                job.staging.add(job.out_dir / f"dice-{paper}.pdf", data)
                n = sum(d.count for d in dice)
                job.report.note(f"dice-{paper}.pdf: {plural(n, 'die', 'dice')} on {plural(pages, 'sheet')} "
                                f"(a {DieNet.for_edge(dice[0].edge).width:g} mm wide net each)")
