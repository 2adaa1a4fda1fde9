"""Components that are not decks but are printed like cards, with their own size: the player
aid (rules.yaml's `player_aid:`, the same front and back as player-aid.pdf).  The print
sheets, the fold-over sheets and the print-service PNGs take them after the decks, on pages
of their own.  (Tokens and boards are decks with their own `size:`, a `{diameter}` for a
round token; they are printed with every other deck.)
"""
from __future__ import annotations

from dataclasses import dataclass

from cardgen.core.errors import CardgenError
from cardgen.core.units import MM
from cardgen.layout.rulebook import has_rulebook, load_rulebook
from cardgen.model import ops
from cardgen.model.ops import CardLayout, Copy
from cardgen.model.rules import most_players
from cardgen.outputs.base import Job
from cardgen.text.flow import shift

PLAYER_AID = "Player aid"
DRAWN = (ops.Rect, ops.Ellipse, ops.Line, ops.Path, ops.Text, ops.Image, ops.Icon, ops.Placeholder)


@dataclass(frozen=True)
class Extra:
    """A component printed like a card: its sides and how many copies."""

    name: str
    slug: str
    face: CardLayout
    back: CardLayout | None
    count: int
    width: float         # mm
    height: float        # mm
    bleed: float         # mm

    def copies(self) -> list[Copy]:
        return [Copy(self.face, self.back, self.name, self.width, self.height, self.bleed) for _ in range(self.count)]




def _side(page_ops: list, width: float, height: float, bleed: float, key: str) -> CardLayout:
    """A booklet page (ops from its bleed corner, points) as a card side (ops from the trim);
    the booklet's own marks (bookmarks, links) are not drawing and stay behind."""
    drawn = [op for op in page_ops if isinstance(op, DRAWN)]
    return CardLayout(width, height, bleed, [shift(op, -bleed, -bleed) for op in drawn], key=key)


def extras(job: Job) -> list[Extra]:
    """The extra components of a laid-out game: its player aid, if rules.yaml has one (a
    rulebook with errors gives none here; the booklet output reports them), in the booklet's
    accent colour."""
    r = job.rendered
    game = r.game
    if not has_rulebook(game):
        return []
    try:
        book = load_rulebook(game)
    except CardgenError:
        return []
    aid = book.player_aid if book is not None else None
    if book is None or aid is None or not (aid.turn or aid.end or aid.notes):
        return []
    count = aid.count if aid.count is not None else most_players(game.opts.players)
    if count <= 0:
        return []
    # (here: the print sheets of a game without a player aid import neither the booklet nor its pages)
    from cardgen.outputs.booklet import Booklet
    from cardgen.outputs.player_aid import AID_BLEED, AID_SIZE, player_aid_pages
    from cardgen.outputs.rulebook_pages import accent_or_default

    front, back = player_aid_pages(r, book, accent_or_default(job.options_of(Booklet).accent))
    w, h, b = AID_SIZE[0] * MM, AID_SIZE[1] * MM, AID_BLEED * MM
    return [Extra(game.words(PLAYER_AID), "player-aid", _side(front.ops, w, h, b, "player-aid:face"),
                  _side(back.ops, w, h, b, "player-aid:back"), count, AID_SIZE[0], AID_SIZE[1], AID_BLEED)]


def extra_copies(job: Job) -> list[Copy]:
    """The extra components' copies, worked out once per laid-out game (each output that
    prints them, and its fingerprint, get the same card sides)."""
    r = job.rendered
    done = r.__dict__.get("_extra_copies")
    if done is None:
        done = r.__dict__["_extra_copies"] = [cp for e in extras(job) for cp in e.copies()]
    return list(done)
