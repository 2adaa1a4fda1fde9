"""No marked cards: how copies with different backs are planned onto pages (render/backs.py),
held page by page and card by card."""

from cardgen.model.ops import CardLayout, Copy, Rect
from cardgen.render import backs, impose

POKER = (63.5, 88.9, 3.0)


def side(colour: str, key: str = "") -> CardLayout:
    return CardLayout(63.5, 88.9, 3.0, [Rect(0, 0, 10, 10, fill=colour)], key=key)


def copies(*spec: tuple[CardLayout | None, int], deck: str = "d") -> list[Copy]:
    out = []
    for back, n in spec:
        out += [Copy(side("#fff", f"face{len(out)}"), back, deck, *POKER) for _ in range(n)]
    return out


def letter_grid(gutter: bool = False) -> impose.Grid:
    return impose.plan_grid(215.9, 279.4, 63.5, 88.9, 3.0, gutter)


def layout(plan: backs.BackPlan) -> list[tuple[bool, list[int]]]:
    """Each page as (gutter grid?, the backs' index on it)."""
    return [(frame.gutter, [id(c.back) for c in page]) for frame, page in plan.pages]


def test_equal_drawings_are_one_design_and_a_missing_back_is_its_own():
    red, red2, blue = side("#f00"), side("#f00"), side("#00f")
    cs = copies((red, 2), (blue, 1), (red2, 1), (None, 2))
    groups = backs.back_groups(cs)
    assert [len(g) for g in groups] == [3, 1, 2]
    assert [c.back for c in groups[0]] == [red, red, red2]
    assert groups[1][0].back is blue and all(c.back is None for c in groups[2])


def test_same_back_compares_digests_when_the_cache_kept_them():
    a, b = side("#f00"), side("#00f")
    a.__dict__["_digest"], b.__dict__["_digest"] = "x", "x"
    assert backs._same_back(a, b)               # the digests say equal, whatever the ops
    b.__dict__["_digest"] = "y"
    c = side("#f00")
    c.__dict__["_digest"] = "z"
    assert not backs._same_back(a, c)           # different digests: different, though drawn alike
    assert backs._same_back(None, None) and not backs._same_back(a, None) and not backs._same_back(None, a)
    # a side of another size or shape with the same ops is another design
    d = CardLayout(63.5, 88.9, 3.0, list(side("#f00").ops))
    assert backs._same_back(side("#f00"), d)
    assert not backs._same_back(side("#f00"), CardLayout(63.5, 88.9, 3.0, list(d.ops), shape="round"))
    assert not backs._same_back(side("#f00"), CardLayout(63.5, 88.9, 2.0, list(d.ops)))
    assert not backs._same_back(side("#f00"), CardLayout(63.5, 89.0, 3.0, list(d.ops)))
    assert not backs._same_back(side("#f00"), CardLayout(64.0, 88.9, 3.0, list(d.ops)))


def test_one_back_design_is_butted_in_order():
    grid = letter_grid()
    assert grid.per_page == 9
    red = side("#f00")
    cs = copies((red, 20))
    plan = backs.plan_size_group(cs, grid, mix_backs=False)
    assert plan.strategy == "one back" and plan.designs == 1 and plan.saved == 0
    assert [len(p) for _, p in plan.pages] == [9, 9, 2]
    assert [c for _, p in plan.pages for c in p] == cs
    assert backs.describe([plan]) == "one back design per card size: cards butted"


def test_mixing_backs_is_said_to_mark_cards():
    grid = letter_grid()
    cs = copies((side("#f00"), 4), (side("#00f"), 4))
    plan = backs.plan_size_group(cs, grid, mix_backs=True)
    assert plan.strategy == "mixed" and plan.designs == 2
    assert [len(p) for _, p in plan.pages] == [8]
    assert backs.describe([plan]) == ("2 back designs mixed on the sheets (--mix-backs): cards may be marked by "
                                      "a miscut")
    one = backs.plan_size_group(copies((side("#f00"), 3)), grid, mix_backs=True)
    assert one.strategy == "one back"


def test_a_page_per_back_design_when_that_uses_no_more_paper():
    grid = letter_grid()
    red, blue = side("#f00"), side("#00f")
    cs = copies((red, 9), (blue, 9))            # full pages each: nothing to pack
    plan = backs.plan_size_group(cs, grid, mix_backs=False)
    assert plan.strategy == "pages" and plan.saved == 0
    assert [[c.back for c in p] for _, p in plan.pages] == [[red] * 9, [blue] * 9]
    assert backs.describe([plan]) == "2 back designs kept apart: a page per back design (the least paper)"


def test_left_overs_share_a_gutter_page_when_that_saves_sheets():
    grid, gutter = letter_grid(), letter_grid(gutter=True)
    assert gutter.per_page == 6 and gutter.rotated    # every card keeps its bleed: fewer fit, turned
    red, blue, green = side("#f00"), side("#00f"), side("#0f0")
    cs = copies((red, 10), (blue, 1), (green, 1))     # own pages: 2 + 1 + 1 = 4; packed: 1 + 1 = 2
    plan = backs.plan_size_group(cs, grid, mix_backs=False)
    assert plan.strategy == "gutter" and plan.designs == 3 and plan.saved == 2
    frames = [frame for frame, _ in plan.pages]
    assert frames[0] is grid and frames[1].gutter and frames[1].per_page == 6
    assert [[c.back for c in p] for _, p in plan.pages] == [[red] * 9, [red, blue, green]]
    assert backs.describe([plan]) == ("3 back designs kept apart: left-over cards of different backs share pages "
                                      "with a full-bleed gutter (2 sheets fewer than a page per back design)")
    one_saved = backs.BackPlan([], "gutter", 2, 1)
    assert backs.describe([one_saved]) == ("2 back designs kept apart: left-over cards of different backs share "
                                           "pages with a full-bleed gutter (1 sheet fewer than a page per back design)")


def test_a_left_over_page_of_one_back_stays_butted():
    grid = letter_grid()
    designs = [side(f"#{i}{i}{i}") for i in range(7)]
    cs = copies(*((d, 1) for d in designs))
    plan = backs.plan_size_group(cs, grid, mix_backs=False)
    assert plan.strategy == "gutter" and plan.saved == 5        # 7 pages against 2
    (f1, p1), (f2, p2) = plan.pages
    assert f1.gutter and len(p1) == 6 and f2 is grid and [c.back for c in p2] == [designs[6]]


def test_a_gutter_grid_is_kept_as_it_is():
    gutter = letter_grid(gutter=True)
    cs = copies((side("#f00"), 3), (side("#00f"), 3))
    plan = backs.plan_size_group(cs, gutter, mix_backs=False)
    assert plan.strategy == "one back" and plan.designs == 2
    assert [len(p) for _, p in plan.pages] == [6]
    plan = backs.plan_size_group(copies((side("#f00"), 5), (side("#00f"), 3)), gutter, mix_backs=False)
    assert [len(p) for _, p in plan.pages] == [6, 2]


def test_places_from_a_layout_get_a_page_per_design():
    spots = impose.Spots(215.9, 279.4, 63.5, 88.9, 3.0, ((10, 10, 0), (80, 10, 0), (150, 10, 0)))
    red, blue = side("#f00"), side("#00f")
    cs = copies((red, 2), (blue, 2))
    plan = backs.plan_size_group(cs, spots, mix_backs=False)
    assert plan.strategy == "pages" and plan.designs == 2 and plan.saved == 0
    assert [[c.back for c in p] for _, p in plan.pages] == [[red, red], [blue, blue]]


def test_the_gutter_alternative_uses_the_grid_margin_or_the_one_given():
    big = impose.plan_grid(215.9, 279.4, 63.5, 88.9, 3.0, False, margin=5.0)
    red, blue = side("#f00"), side("#00f")
    cs = copies((red, 1), (blue, 1))
    # with a margin so wide that no gutter grid fits, a page per design
    plan = backs.plan_size_group(cs, big, mix_backs=False, margin=80.0)
    assert plan.strategy == "pages" and len(plan.pages) == 2
    plan = backs.plan_size_group(cs, big, mix_backs=False)
    assert plan.strategy == "gutter" and len(plan.pages) == 1 and plan.saved == 1


def test_turned_cards_plan_their_gutter_alternative_the_same_way_up():
    # jumbo cards on Letter lie turned; the gutter grid is fitted from the card's own size
    grid = impose.plan_grid(215.9, 279.4, 120.0, 70.0, 3.0, False)
    cs = [Copy(side("#fff"), b, "d", 120.0, 70.0, 3.0) for b in (side("#f00"), side("#00f"))]
    plan = backs.plan_size_group(cs, grid, mix_backs=False)
    for frame, _ in plan.pages:
        assert (frame.card_w, frame.card_h) == (grid.card_w, grid.card_h) or frame.rotated


def test_describing_several_card_sizes():
    one = backs.BackPlan([], "one back", 1)
    pages = backs.BackPlan([], "pages", 2)
    gutter = backs.BackPlan([], "gutter", 3, 2)
    assert backs.describe([one, one]) == "one back design per card size: cards butted"
    assert backs.describe([one, pages]) == "3 back designs kept apart: a page per back design (the least paper)"
    assert backs.describe([pages, gutter]).startswith("5 back designs kept apart: left-over cards")
    assert "(2 sheets fewer" in backs.describe([pages, gutter, one])


def test_the_gutter_alternative_stays_inside_a_layouts_area():
    area = (10.0, 20.0, 150.0, 200.0)
    grid = impose.plan_grid(215.9, 279.4, 63.5, 88.9, 3.0, False, area=area)
    red, blue = side("#f00"), side("#00f")
    plan = backs.plan_size_group(copies((red, 1), (blue, 1)), grid, mix_backs=False)
    assert plan.strategy == "gutter" and plan.designs == 2
    (frame, page), = plan.pages
    assert frame.gutter and frame.area == area and len(page) == 2
    for i in range(frame.per_page):
        x, y = frame.cell(i)
        assert x - 3.0 >= area[0] - 1e-9 and x + frame.card_w + 3.0 <= area[0] + area[2] + 1e-9
        assert y - 3.0 >= area[1] - 1e-9 and y + frame.card_h + 3.0 <= area[1] + area[3] + 1e-9
