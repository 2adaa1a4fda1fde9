"""Pictures decoded ahead of the layout, on every core.

Laying out a card checks each PNG or JPEG its `image` elements show by decoding all of it
(`resources.icons.check_raster`), and the picture's print copy is made from that decode
(`render.art`): for a 3000 x 4000 px PNG about 0.6 s of CPU, one picture after the other in
the build's own thread while the other core waits.  So before the cards are laid out,
`decoding` works out which files their image elements will show and at what size (each
element's `src` and box, evaluated for each card side as the layout will: `pictures`), and
`THREADS` threads decode them in the cards' order, check them and write their print copies
while the layout goes on.  The layout's check of such a picture waits for its outcome (its
size, or the very error its decode met) instead of decoding it again.  Pillow lets go of the
interpreter while it decodes, scales and encodes, so the threads work on both cores; at most
`THREADS` originals are held at once (each let go as soon as its copy is written), however
many pictures the game has.

What the layout will take from its cache (`layout.cache`) is not decoded, nor a file whose
header cannot be read or that is larger than cardgen reads (the layout says what is wrong).
A guess that misses (a box placed by another element's size, a card that fails) costs only
its decode: the layout checks what it finds, as it would without this.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cardgen.core import limits
from cardgen.core.digest import file_digest
from cardgen.core.units import MM
from cardgen.elements.base import LayoutContext
from cardgen.layout import expr
from cardgen.resources import icons
from cardgen.schema.core import Env

if TYPE_CHECKING:
    from cardgen.elements.base import Element
    from cardgen.layout.templates import Template
    from cardgen.load.game import Card, Deck, Game


class Layouter(Protocol):
    """What is used of `layout.engine.Layouter` (not imported: it imports this)."""

    res: Any        # (`layout.engine.Resources`)

    def source(self, deck: Deck, card: Card | None, side: str) -> tuple[Template, dict]: ...
    def element(self, tpl: Template, el: Mapping, ctx: dict, env: Env, bleed: float) -> Element: ...
    def cached(self, deck: Deck, card: Card | None, side: str, tpl: Template, fields: dict) -> bool: ...
    def prepared(self, el: Mapping) -> Any: ...        # (`layout.engine.Prepared`)

THREADS = min(2, os.cpu_count() or 1)       # pictures decoded at once, besides the layout's own thread
# file, its pixels, the points it is drawn at and the part of it shown (`core.images.shown`)
Picture = tuple[Path, tuple[int, int], tuple[float, ...]]
Ahead = tuple[Path, tuple[int, int], tuple[float, ...], float, float]    # and the card side's size, points


@contextlib.contextmanager
def decoding(lay: Layouter, game: Game) -> Iterator[None]:
    """Around the layout of `game`'s cards by `lay`: their pictures decoded ahead."""
    with icons.decoding_ahead(_work(pictures(lay, game)), THREADS):
        yield


def _work(found: Iterator[Ahead]) -> Iterator[tuple[Path, Callable[[], tuple[int, int, int]]]]:
    """Each picture's check and copies, as one piece of work for a thread."""
    for path, pixels, drawn, width, height in found:
        from PIL import Image  # (here: a game with no pictures imports neither)

        from cardgen.render import art

        most = min(limits.MAX_IMAGE_PIXELS, Image.MAX_IMAGE_PIXELS or limits.MAX_IMAGE_PIXELS)
        if pixels[0] * pixels[1] > most or not icons.wanted(path):
            continue            # (too large: refused, or warned about, by the layout itself)
        digest = file_digest(path)      # (here: its memo is this thread's)

        def work(path: Path = path, digest: str = digest, drawn: tuple[float, ...] = drawn,
                 width: float = width, height: float = height) -> tuple[int, int, int]:
            return icons.decode_checked(path, lambda im: art.copy_ahead(path, digest, im, drawn, width, height),
                                        drawn)

        yield path, work


def pictures(lay: Layouter, game: Game) -> Iterator[Ahead]:
    """The pictures the layout of `game`'s card sides will decode, in the order it lays them
    out (each file once, at the first size it is drawn at, with the size of its side)."""
    seen: set[Path] = set()
    fixed: set[tuple[int, str, int]] = set()        # (deck, side, template) whose pictures read no card
    none: set[tuple[int, str]] = set()              # (deck, side) whose template shows no picture
    for deck in game.decks:
        for card, side in _sides(deck):
            if (id(deck), side) in none:
                continue        # (a deck's side has one template: the cards' fields are not worked out)
            for picture in _of_side(lay, deck, card, side, fixed, none):
                if picture[0] not in seen:
                    seen.add(picture[0])
                    yield picture


def _sides(deck: Deck) -> Iterator[tuple[Card | None, str]]:
    if deck.back:
        yield None, "back"
    for card in deck.cards:
        yield card, "face"
        if deck.backs:
            yield card, "backs"


def _of_side(lay: Layouter, deck: Deck, card: Card | None, side: str,
             fixed: set[tuple[int, str, int]], none: set[tuple[int, str]]) -> Iterator[Ahead]:
    """The pictures one card side's layout will decode (none if it will come from the cache);
    (deck, side) into `none` when its template has no element that shows a picture."""
    try:
        tpl, fields = lay.source(deck, card, side)
    except Exception:       # (what the layout reports)
        return
    shown = [el for el in tpl.elements if hasattr(lay.prepared(el).cls, "ahead")]
    if not shown:
        none.add((id(deck), side))
        return
    same = (id(deck), side, id(tpl))
    if same in fixed:
        return
    if lay.cached(deck, card, side, tpl, fields):
        return
    if not any(lay.prepared(el).dynamic or "when" in el for el in shown):
        fixed.add(same)     # (the same pictures on every card side: looked at once)
    w, h, bleed = deck.size.width * MM, deck.size.height * MM, deck.bleed * MM
    ctx = expr.context(fields, lay.res.deck_ctx(deck), lay.res.game_ctx)
    lc = LayoutContext(lay.res, w, h, bleed)
    for el in shown:
        try:
            if "when" in el and not expr.condition(el["when"], ctx):
                continue
            found = lay.element(tpl, el, ctx, Env(w, h), bleed).ahead(lc)    # type: ignore[attr-defined]
        except Exception:   # (what the layout reports)
            continue
        if found is not None:
            yield (*found, w, h)
