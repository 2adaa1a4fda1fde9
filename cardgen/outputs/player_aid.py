"""`player-aid.pdf`: a poker-size player aid from rules.yaml's `player_aid:`, turn structure on
the front, end of game on the back, in the booklet's accent colour (`booklet: accent`)."""
from __future__ import annotations

from cardgen.outputs.base import Job, Output
from cardgen.outputs.booklet import Booklet, player_aid_pdf, rulebook_part


class PlayerAid(Output):
    name = "player-aid"
    summary = "A poker-size player aid: turn structure on the front, end of game on the back."
    files = "player-aid.pdf"
    uses_rulebook = True

    def make(self, job: Job) -> None:
        r = job.rendered
        accent = Booklet.resolve(r.game.data).accent
        with rulebook_part(job, False, accent) as book:
            data = player_aid_pdf(r, book, accent) if book is not None else None
            if data is not None:
                job.staging.add(job.out_dir / "player-aid.pdf", data)
