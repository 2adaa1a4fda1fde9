"""`player-aid.pdf`: a poker-size player aid from rules.yaml's `player_aid:`, turn structure on
the front, end of game on the back, in the booklet's accent colour (`booklet: accent`)."""
from __future__ import annotations

from cardgen.outputs.base import Job, Output
from cardgen.outputs.booklet import Booklet, job_rulebook, player_aid_pdf


class PlayerAid(Output):
    name = "player-aid"
    summary = "A poker-size player aid: turn structure on the front, end of game on the back."
    files = "player-aid.pdf"
    uses_rulebook = True

    def make(self, job: Job) -> None:
        r = job.rendered
        book = job_rulebook(job)
        if book is None:
            return
        data = player_aid_pdf(r, book, Booklet.resolve(r.game.data).accent)
        if data is not None:
            job.staging.add(job.out_dir / "player-aid.pdf", data)
