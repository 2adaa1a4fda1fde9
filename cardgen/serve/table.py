"""The preview's table (`/table`): every deck as a pile of its cards' copies, to shuffle, deal,
draw, flip and move about in the page, and the draw odds of each card and each kind of card.

The server only describes the game (`table_state`, served as /table.json): the cards' copies,
their pictures (the preview's own bitmaps, by content hash: nothing is drawn again) and their
kinds.  Everything that happens on the table happens in the page (cardgen/data/preview/table.js);
the odds are computed there too, exactly (BigInt binomials, docs/preview.md#the-table).

A *kind* is a field value several distinct cards of a deck share (`type: Attack` on three of
its cards), the cards a player counts together ("the chance to draw an Attack").
"""
from __future__ import annotations

from typing import Any

from cardgen.outputs import album as A

MAX_KIND_TEXT = 40       # longer values (rules text) are not kinds
MAX_KINDS = 24           # per deck: the most shared values first
SKIP_FIELDS = {"name", "count", "title", "text", "id"}


def table_state(snap) -> dict:
    """The newest check as the table needs it: each deck's cards with their copies, face and
    back pictures and field values, and the deck's kinds."""
    decks: list[dict[str, Any]] = []
    if snap.album is not None:
        for d in snap.album.decks:
            cards = []
            for c in d.cards:
                if c.count <= 0:
                    continue
                back = snap.backs.get(c.key)
                cards.append({"key": c.key, "name": A.clean(c.name), "count": c.count, "face": c.face.src,
                              "back": back.src if back is not None else "",
                              "width": c.face.width, "height": c.face.height})
            if cards:
                decks.append({"slug": d.slug, "name": A.clean(d.deck.name), "cards": cards,
                              "kinds": kinds([c for c in d.cards if c.count > 0])})
    return {"version": snap.version, "title": A.clean(snap.title), "decks": decks}


def _value(v: Any) -> str | None:
    if isinstance(v, bool) or v is None or isinstance(v, (dict, list, tuple)):
        return None
    text = str(v).strip()
    return text if text and len(text) <= MAX_KIND_TEXT and "\n" not in text else None


def kinds(cards: list) -> list[dict]:
    """The field values shared by two or more of `cards` (distinct cards), but not by all of
    them: [{field, value, cards: [keys], count: copies}], the most copies first, then by field
    and value (deterministic)."""
    groups: dict[tuple[str, str], list] = {}
    for c in cards:
        for k, v in c.card.fields.items():
            text = _value(v)
            if not isinstance(k, str) or k in SKIP_FIELDS or k.startswith("_") or "@" in k or text is None:
                continue
            groups.setdefault((k, text), []).append(c)
    out = [{"field": A.clean(k), "value": A.clean(v), "cards": [c.key for c in cs], "count": sum(c.count for c in cs)}
           for (k, v), cs in groups.items() if 2 <= len(cs) < len(cards)]
    out.sort(key=lambda g: (-g["count"], g["field"], g["value"]))
    return out[:MAX_KINDS]
