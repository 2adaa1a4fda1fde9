"""No marked cards: copies whose backs differ never share a butted edge on the sheets.

A miscut leaves a sliver of the neighbour's back on a card's edge; if the neighbour's back
is a different design (another faction, an Alien among Events), the card is marked.  So
copies are grouped by back design and each page is planned one of two ways, whichever
uses fewer sheets (a page per back design wins a tie, as it keeps every cut shared):

- **pages**: every back design starts a page of its own, cards butted;
- **gutter**: each design's full pages butted, and the left-over cards of all designs
  packed together on pages where every card keeps its full bleed (the gutter grid), so no
  two different backs touch.
"""
from __future__ import annotations

from dataclasses import dataclass

from cardgen.model.ops import CardLayout, Copy
from cardgen.render import impose

Page = tuple[impose.Frame, list[Copy]]


def _same_back(a: CardLayout | None, b: CardLayout | None) -> bool:
    if a is b:
        return True
    if a is None or b is None:
        return False
    digests = a.__dict__.get("_digest"), b.__dict__.get("_digest")
    if None not in digests:         # (`ops.layout_digest`, kept by the layout cache: no decoding)
        return digests[0] == digests[1]
    return (a.width, a.height, a.bleed, a.shape, a.ops) == (b.width, b.height, b.bleed, b.shape, b.ops)


def back_groups(copies: list[Copy]) -> list[list[Copy]]:
    """Copies grouped by back design (equal drawings are one design), in order of first appearance;
    copies without a back are a design of their own (a blank back marks a card too)."""
    groups: list[tuple[CardLayout | None, list[Copy]]] = []
    seen: dict[int, int] = {}            # id(back) -> group index
    for cp in copies:
        i = seen.get(id(cp.back))
        if i is None:
            i = next((k for k, (b, _) in enumerate(groups) if _same_back(b, cp.back)), len(groups))
            if i == len(groups):
                groups.append((cp.back, []))
            seen[id(cp.back)] = i
        groups[i][1].append(cp)
    return [g for _, g in groups]


def _chunks(items: list[Copy], n: int) -> list[list[Copy]]:
    return [items[i:i + n] for i in range(0, len(items), n)]


@dataclass(frozen=True)
class BackPlan:
    """The pages of one card size, and how different backs were kept apart."""

    pages: list[Page]
    strategy: str          # "one back", "mixed" (--mix-backs), "pages" or "gutter"
    designs: int           # distinct back designs among these copies
    saved: int = 0         # sheets the chosen strategy saves over a page per back design


def plan_size_group(group: list[Copy], grid: impose.Frame, mix_backs: bool, margin: float | None = None,
                    ) -> BackPlan:
    """Pages for copies of one size on `grid` (butted or gutter, as the user chose), the gutter
    alternative fitted where `grid` was (its margin or area).  Places a layout file lists
    (`impose.Spots`) have no gutter alternative: a page per back design, unless no two touch."""
    designs = back_groups(group)
    if mix_backs or len(designs) == 1 or grid.gutter:
        # A gutter grid already keeps every card's bleed: nothing is butted, order kept.
        pages = [(grid, page) for page in _chunks(group, grid.per_page)]
        return BackPlan(pages, "mixed" if mix_backs and len(designs) > 1 else "one back", len(designs))
    own = [(grid, page) for d in designs for page in _chunks(d, grid.per_page)]
    if not isinstance(grid, impose.Grid):
        return BackPlan(own, "pages", len(designs))
    try:
        gutter = impose.plan_grid(grid.paper_w, grid.paper_h, grid.card_w if not grid.rotated else grid.card_h,
                                  grid.card_h if not grid.rotated else grid.card_w, grid.bleed, True,
                                  grid.margin if margin is None else margin, grid.area)
    except impose.DoesNotFit:
        return BackPlan(own, "pages", len(designs))
    full: list[Page] = []
    rest: list[Copy] = []
    for d in designs:
        n = len(d) - len(d) % grid.per_page
        full += [(grid, page) for page in _chunks(d[:n], grid.per_page)]
        rest += d[n:]
    mixed = list(full)
    for page in _chunks(rest, gutter.per_page):
        one = len(back_groups(page)) == 1
        mixed.append((grid if one else gutter, page))
    if len(mixed) < len(own):
        return BackPlan(mixed, "gutter", len(designs), len(own) - len(mixed))
    return BackPlan(own, "pages", len(designs))


def describe(plans: list[BackPlan]) -> str:
    """One line for the build summary: how the backs were kept apart."""
    designs = sum(p.designs for p in plans)
    used = {p.strategy for p in plans}
    if "mixed" in used:
        return f"{designs} back designs mixed on the sheets (--mix-backs): cards may be marked by a miscut"
    if used <= {"one back"}:
        return "one back design per card size: cards butted"
    if "gutter" in used:
        saved = sum(p.saved for p in plans)
        return (f"{designs} back designs kept apart: left-over cards of different backs share pages with a "
                f"full-bleed gutter ({saved} sheet{'s' if saved != 1 else ''} fewer than a page per back design)")
    return f"{designs} back designs kept apart: a page per back design (the least paper)"
