"""`player-aid.pdf`: a poker-size player aid from rules.yaml's `player_aid:`, turn structure on
the front, end of game on the back, in the booklet's accent colour (`booklet: accent`). The
same two sides are printed with the cards (`cardgen.outputs.extras`)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from cardgen.core.sizes import CARD_SIZES_MM
from cardgen.core.units import MM
from cardgen.layout.rulebook import Rulebook
from cardgen.model import ops
from cardgen.outputs.base import Job, NoOptions, Output
from cardgen.outputs.booklet import Booklet, rulebook_part, the_rulebook
from cardgen.outputs.rulebook_pages import WHITE, Composer, Page, Styles, accent_or_default, on_colour, render_pages
from cardgen.text.flow import Strip, shift

if TYPE_CHECKING:    # (the layout engine is imported when used: start-up time)
    from cardgen.layout.engine import Rendered

AID_SIZE = CARD_SIZES_MM["poker"]
AID_BLEED = 3.175
AID_MAX_SIZE, AID_MIN_SIZE = 11.0, 5.0     # text sizes of the player aid (points)
AID_BALANCE = 1.2                          # the larger side's text at most this times the other's


def player_aid_pages(r: Rendered, book: Rulebook, accent: tuple) -> list[Page]:
    """The player aid's front (the turn) and back (the end of the game, reminders). Each side's
    text is set as large as fits (up to AID_MAX_SIZE) and the room left is shared out between
    the items and around them, so that both sides fill the card. The reminders go on the front
    when that balances the two sides better."""
    aid = book.player_aid
    assert aid is not None, "player_aid_pages() needs a rulebook with a player aid"
    fonts, ts = r.res.fonts, r.res.typesetter
    B = AID_BLEED * MM
    w, h = AID_SIZE[0] * MM, AID_SIZE[1] * MM
    inner = 4.5 * MM
    cw = w - 2 * inner
    band = 12.5 * MM      # (the title and heading in it, both inside the 1/8 in safe area)
    avail = h - band - inner - 4 * MM
    ink = on_colour(accent)

    def compose(parts: Sequence[tuple[str | None, list[str], bool]], largest: float = AID_MAX_SIZE
                ) -> tuple[float, list[Strip], Composer]:
        base = largest
        while True:   # the largest text size at which everything fits
            comp = Composer(ts, fonts, Styles(fonts, accent, base), cw)
            strips: list[Strip] = []
            for sub, items, numbered in parts:
                if not items:
                    continue
                if sub:
                    hs = comp.heading(sub, 3)
                    strips.append(hs)
                strips += comp.items(items, numbered)
            if strips:
                strips[0].space = 0.0
            total = sum(s.h + s.space for s in strips)
            if total <= avail or base <= AID_MIN_SIZE:
                return base, strips, comp
            base = round(base - 0.25, 2)

    def side(heading: str, base: float, strips: list[Strip], comp: Composer) -> Page:
        p = Page()
        p.ops.append(ops.Rect(0, 0, w + 2 * B, h + 2 * B, WHITE))
        p.ops.append(ops.Rect(0, 0, w + 2 * B, B + band, accent))
        p.ops.append(ops.Rect(B + 2 * MM, B + 2 * MM, w - 4 * MM, h - 4 * MM, None, accent, 0.8, 2.5 * MM))
        head = Styles(fonts, accent, 8)
        for s in comp.lines(book.title.upper(), replace(head.small, size=6.5, color=ink, align="center",
                                                         style="bold"), cw, B + inner):
            p.ops += [shift(op, 0, B + 3.4 * MM) for op in s.ops]
        for s in comp.lines(heading, replace(head.h[1], size=12.5, color=ink, align="center"), cw, B + inner):
            p.ops += [shift(op, 0, B + 6.2 * MM) for op in s.ops]
        # the room left: shared between the items (up to a line's worth each), the rest above and below
        spare = avail - sum(s.h + s.space for s in strips)
        gaps = [k for k, s in enumerate(strips) if k and s.space > 0]
        each = min(spare / len(gaps), base * 1.1) if gaps and spare > 0 else 0.0
        y = B + band + 3 * MM + max(0.0, spare - each * len(gaps)) / 2
        for k, s in enumerate(strips):
            y += s.space + (each if k in gaps else 0.0)
            p.ops += [shift(op, B + inner, y) for op in s.ops]
            y += s.h
        return p

    Part = tuple[str | None, list[str], bool]
    words = r.game.words
    remember = words("Remember")
    parts: list[tuple[list[Part], list[Part]]] = [
        ([(None, aid.turn, True)], [(None, aid.end, False), (remember, aid.notes, False)])]
    if aid.notes and aid.end:
        parts.append(([(None, aid.turn, True), (remember, aid.notes, False)], [(None, aid.end, False)]))
    options = [(compose(f), compose(b)) for f, b in parts]
    # the larger of the two sides' smaller text sizes; then the closer sizes
    best = max(range(len(options)), key=lambda i: (min(options[i][0][0], options[i][1][0]),
                                                    -abs(options[i][0][0] - options[i][1][0])))
    front, back = options[best]
    front_parts, back_parts = parts[best]
    # the two sides of one card in about the same type: neither more than AID_BALANCE x the other
    if back[0] > front[0] * AID_BALANCE:
        back = compose(back_parts, round(front[0] * AID_BALANCE * 4) / 4)
    elif front[0] > back[0] * AID_BALANCE:
        front = compose(front_parts, round(back[0] * AID_BALANCE * 4) / 4)
    fh, bh = words("Your turn"), words("End of the game")
    return [side(fh, *front), side(bh, *back)]


def player_aid_pdf(r: Rendered, book: Rulebook, accent: tuple | None) -> bytes | None:
    """player-aid.pdf, or None when the rulebook has no player aid."""
    if not (book.player_aid and (book.player_aid.turn or book.player_aid.end or book.player_aid.notes)):
        return None
    B = AID_BLEED * MM
    w, h = AID_SIZE[0] * MM, AID_SIZE[1] * MM
    return render_pages(player_aid_pages(r, book, accent_or_default(accent)), (w + 2 * B, h + 2 * B),
                        r.res.fonts, f"{book.title}: {r.game.words('player aid')}", trim=(B, B, B + w, B + h))


def make_player_aid(r: Rendered, accent: tuple | None = None) -> bytes | None:
    """player-aid.pdf for a laid-out game with a rulebook (None when it has no player aid);
    `accent`: default game.yaml's `booklet: accent`."""
    book = the_rulebook(r)
    if accent is None:
        options = Booklet.resolve(r.game.data)
        accent = options.accent
    return player_aid_pdf(r, book, accent)


class PlayerAid(Output[NoOptions]):
    summary = "A poker-size player aid: turn structure on the front, end of game on the back."
    files = "player-aid.pdf"
    uses_rulebook = True

    def make(self, job: Job[NoOptions]) -> None:
        r = job.rendered
        accent = job.options_of(Booklet).accent
        with rulebook_part(job, False, accent) as book:
            data = player_aid_pdf(r, book, accent) if book is not None else None
            if data is not None:
                job.staging.add(job.out_dir / "player-aid.pdf", data)
