"""Tokens, tiles and boards (docs/components.md): what is printed, read back from the PDF in mm."""
from __future__ import annotations

import itertools
import math
import textwrap

import pytest
from conftest import REPO, write
from pdfgeom import page_items, stroked_paths
from pypdf import PdfReader

from cardgen.core.errors import CardgenError, Report
from cardgen.model.components import SQRT3, hex_box, outline, tessellation
from cardgen.pipeline.build import BuildOptions, build_game

B = 3.175                       # the default bleed
PW, PH = 215.9, 279.4           # Letter

TOKEN = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "{{ card.color | default('#aa3322') }}"}
      - {name: t, type: text, x: 20%, y: 40%, width: 60%, height: 20%, text: "{{ card.name }}", size: 8}
"""


def game(tmp_path, files: dict[str, str]):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: Pieces\n")
    write(root / "templates" / "t" / "token.yaml", TOKEN)
    for name, text in files.items():
        write(root / name, textwrap.dedent(text).lstrip("\n"))
    return root


def build(root, tmp_path, papers=("letter",), **kw):
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("print",), papers=papers, outputs={"print": kw}), Report())
    return PdfReader(out / root.name / f"print-{papers[0]}.pdf")


def forms(reader, page):
    return [p for p in page_items(reader, page)[0] if ".card" in p.name]


def cuts(reader, page):
    return [p for p in stroked_paths(reader, page) if abs(p.width - 0.4) < 1e-6]


def bezier(curve, t):
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = curve
    u = 1 - t
    return (u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3,
            u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3)


# -- geometry ------------------------------------------------------------------------------

def test_hex_outline_is_regular_and_its_bleed_outline_is_bleed_further_out_across_the_flats():
    w, h = hex_box(50, "hex-flat")
    assert (w, h) == pytest.approx((100 / SQRT3, 50))
    pts = outline("hex-flat", 0, 0, w, h)
    sides = [math.dist(pts[i], pts[(i + 1) % 6]) for i in range(6)]
    assert sides == pytest.approx([50 / SQRT3] * 6)
    grown = outline("hex-flat", 0, 0, w, h, B)
    assert min(y for _, y in grown) == pytest.approx(-B) and max(y for _, y in grown) == pytest.approx(50 + B)
    pointy = outline("hex-pointy", 0, 0, *hex_box(50, "hex-pointy"))
    assert min(x for x, _ in pointy) == pytest.approx(0) and max(x for x, _ in pointy) == pytest.approx(50)
    px, py, stagger, axis = tessellation("hex-flat", w, h, B)
    assert (px, py, stagger, axis) == pytest.approx((0.75 * (w + 4 * B / SQRT3), 50 + 2 * B, 25 + B, "x"))


# -- round tokens -------------------------------------------------------------------------

def test_round_tokens_are_cut_along_a_circle_and_keep_their_own_bleed(tmp_path):
    root = game(tmp_path, {"coins.yaml": """
        deck: Coins
        kind: token
        size: 25mm
        template: t/token
        cards:
          - {name: Gold, count: 30}
    """})
    reader = build(root, tmp_path)
    placed = forms(reader, 0)
    circles = cuts(reader, 0)
    assert len(placed) == len(circles) == 30
    centres = sorted((round(p.center()[0], 3), round(p.center()[1], 3)) for p in placed)
    for c in circles:
        assert len(c.curves) == 4
        cx = sum(x for x, _ in c.points[3::3]) / len(c.points[3::3])
        cy = sum(y for _, y in c.points[3::3]) / len(c.points[3::3])
        near = min(centres, key=lambda p: math.dist(p, (cx, cy)))
        assert math.dist(near, (cx, cy)) < 0.1                  # the cut is around its token
        for curve in c.curves:
            for t in (0, 0.25, 0.5, 0.75, 1):
                assert math.dist(bezier(curve, t), near) == pytest.approx(12.5, abs=0.1)
    # each keeps its bleed ring: centres at least a token and two bleeds apart, and each form is
    # clipped to its bleed circle, not a square
    gaps = [math.dist(a, b) for i, a in enumerate(centres) for b in centres[:i]]
    assert min(gaps) == pytest.approx(25 + 2 * B, abs=0.01)
    content = reader.pages[0].get_contents().get_data().decode("latin-1")
    assert content.count(" c h W n") == 30


def test_a_token_without_a_size_or_a_round_token_not_square_is_an_error_at_its_line(tmp_path):
    root = game(tmp_path, {"coins.yaml": """
        deck: Coins
        kind: token
        template: t/token
        cards:
          - {name: Gold}
    """, "discs.yaml": """
        deck: Discs
        kind: token
        shape: round
        size: {width: 20mm, height: 30mm}
        template: t/token
        cards:
          - {name: Disc}
    """, "tiles.yaml": """
        deck: Tiles
        kind: tile
        shape: round
        size: 40mm
        template: t/token
        cards:
          - {name: Tile}
    """})
    with pytest.raises(CardgenError) as info:
        build(root, tmp_path)
    said = str(info.value)
    assert f"{root / 'coins.yaml'}:2:1: error: token file 'Coins' has no `size:`; give one, e.g. `size: 25mm`" in said
    assert (f"{root / 'discs.yaml'}:4:7: error: token file 'Discs': a round piece needs one size, got 20x30 mm; "
            f"give `size: 20mm`") in said
    assert (f"{root / 'tiles.yaml'}:3:8: error: tile file 'Tiles': a tile cannot be round (it can be hex-flat, "
            f"hex-pointy, rect)") in said


# -- hex tiles ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", ["hex-flat", "hex-pointy"])
def test_hex_tiles_tessellate_at_the_pitch_and_are_cut_along_the_hexagon(tmp_path, shape):
    root = game(tmp_path, {"tiles.yaml": f"""
        deck: Tiles
        kind: tile
        shape: {shape}
        size: 50mm
        template: t/token
        cards:
          - {{name: Forest, count: 30}}
    """})
    reader = build(root, tmp_path)
    placed = forms(reader, 0)
    hexes = cuts(reader, 0)
    assert len(placed) == len(hexes) > 6
    w, h = hex_box(50, shape)
    for c in hexes:
        assert len(c.points) == 6
        cx, cy = sum(x for x, _ in c.points) / 6, sum(y for _, y in c.points) / 6
        for p in c.points:          # every corner 50 / sqrt(3) from the centre: the hexagon's edge
            assert math.dist(p, (cx, cy)) == pytest.approx(50 / SQRT3, abs=0.1)
        xs, ys = [x for x, _ in c.points], [y for _, y in c.points]
        assert max(xs) - min(xs) == pytest.approx(w, abs=0.1) and max(ys) - min(ys) == pytest.approx(h, abs=0.1)
    # the pitch: neighbours' centres one bleed hex apart across their shared flat
    centres = [p.center() for p in placed]
    nearest = min(math.dist(a, b) for i, a in enumerate(centres) for b in centres[:i])
    assert nearest == pytest.approx(50 + 2 * B, abs=0.01)
    px, py, stagger, axis = tessellation(shape, w, h, B)
    xs = sorted({round(x, 2) for x, _ in centres})
    ys = sorted({round(y, 2) for _, y in centres})
    step_x, step_y = min(b - a for a, b in itertools.pairwise(xs)), min(b - a for a, b in itertools.pairwise(ys))
    if axis == "x":
        assert (step_x, step_y) == pytest.approx((px, stagger), abs=0.01)
    else:
        assert (step_x, step_y) == pytest.approx((stagger, py), abs=0.01)
    # the back page mirrors each tile behind its face (long-edge flip) and cuts it there too
    backs = cuts(reader, 1)
    assert len(backs) == len(hexes)


# -- boards larger than the paper ---------------------------------------------------------

def _to_form(p, x, y):
    """Page point (mm) -> the placed form's own coordinates (mm)."""
    a, b, c, d, e, f = p.matrix
    X, Y = x * 72 / 25.4 - e, y * 72 / 25.4 - f
    det = a * d - b * c
    return ((d * X - c * Y) / det * 25.4 / 72, (-b * X + a * Y) / det * 25.4 / 72)


def test_a_board_larger_than_the_paper_is_tiled_with_the_stated_overlap_and_crosses_that_meet(tmp_path):
    root = game(tmp_path, {"board.yaml": """
        deck: Board
        kind: board
        size: {width: 420mm, height: 297mm}
        template: t/token
        cards:
          - {name: Map}
    """})
    reader = build(root, tmp_path, overlap=12.0)
    assert len(reader.pages) == 4                   # 2 x 2 sheets of Letter, one-sided
    shown = []
    crosses = []
    for n in range(4):
        (p,) = forms(reader, n)
        cx, cy, cw, ch = p.clip
        corners = [_to_form(p, cx, cy), _to_form(p, cx + cw, cy + ch)]
        shown.append((min(x for x, _ in corners), min(y for _, y in corners),
                      max(x for x, _ in corners), max(y for _, y in corners)))
        segs = [s for s in page_items(reader, n)[1] if abs(s.width - 0.4) < 1e-6 and s.gray == 0]
        mids: list = []
        for s in segs:          # a cross is two lines with the same middle
            m = ((s.x1 + s.x2) / 2, (s.y1 + s.y2) / 2)
            if all(math.dist(m, o) > 0.05 for o in mids):
                mids.append(m)
        crosses.append(sorted((round(v[0], 2), round(v[1], 2)) for v in (_to_form(p, *m) for m in mids)))
        assert len(mids) == 4       # 2 crosses with each of the 2 neighbours
    # the sheets cover the board with its bleed: 426.35 x 303.35 mm (it lies turned on the sheet)
    assert min(s[0] for s in shown) == pytest.approx(0, abs=0.01)
    assert max(s[2] for s in shown) == pytest.approx(420 + 2 * B, abs=0.01)
    assert max(s[3] for s in shown) == pytest.approx(297 + 2 * B, abs=0.01)
    # neighbours overlap by exactly 12 mm, along the board's height (turned: columns of the sheet)
    by_y = sorted({(round(s[1], 2), round(s[3], 2)) for s in shown})
    by_x = sorted({(round(s[0], 2), round(s[2], 2)) for s in shown})
    assert by_y[0][1] - by_y[1][0] == pytest.approx(12, abs=0.01)
    assert by_x[0][1] - by_x[1][0] == pytest.approx(12, abs=0.01)
    # laid over each other, two neighbours' crosses meet (same board point within 0.1 mm)
    every = [c for page in crosses for c in page]
    for c in every:
        assert sum(1 for o in every if math.dist(o, c) < 0.1) == 2
    # the board's own cut line: on its trim (within 0.1 mm), all the way round across the sheets
    edges: dict = {}
    for n in range(4):
        (p,) = forms(reader, n)
        for s in page_items(reader, n)[1]:
            if abs(s.width - 0.4) < 1e-6 and abs(s.gray - 0.25) < 1e-6:
                (ax, ay), (bx, by) = _to_form(p, s.x1, s.y1), _to_form(p, s.x2, s.y2)
                if abs(ax - bx) < 0.1:          # along the board's height
                    edge = min((B, 420 + B), key=lambda e: abs(e - ax))
                    assert abs(ax - edge) < 0.1 and abs(bx - edge) < 0.1
                    edges.setdefault(("x", edge), []).append(sorted((ay, by)))
                else:
                    edge = min((B, 297 + B), key=lambda e: abs(e - ay))
                    assert abs(ay - edge) < 0.1 and abs(by - edge) < 0.1
                    edges.setdefault(("y", edge), []).append(sorted((ax, bx)))
    assert len(edges) == 4
    for (axis, _), spans in edges.items():
        spans.sort()
        reach = spans[0][0]
        assert reach == pytest.approx(B, abs=0.1)
        for a, b in spans:
            assert a <= reach + 0.1          # no gap in the line
            reach = max(reach, b)
        assert reach == pytest.approx((297 if axis == "x" else 420) + B, abs=0.1)


def test_a_board_on_a_layout_with_listed_places_still_says_it_does_not_fit(tmp_path):
    root = game(tmp_path, {"board.yaml": """
        deck: Board
        kind: board
        size: {width: 300mm, height: 300mm}
        template: t/token
        cards:
          - {name: Map}
    """})
    with pytest.raises(CardgenError, match=r"a 300x300 mm card does not fit"):
        build(root, tmp_path, layout=["silhouette-letter"])


def test_a_player_mat_too_large_for_a_fold_over_half_gets_a_whole_page_with_its_cut_line(tmp_path):
    root = game(tmp_path, {"mat.yaml": """
        deck: Mats
        kind: board
        size: {width: 250mm, height: 180mm}
        template: t/token
        cards:
          - {name: Mat, count: 2}
    """})
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("foldover",), papers=("letter",)), Report())
    reader = PdfReader(out / "g" / "print-letter-foldover.pdf")
    assert len(reader.pages) == 2                       # one mat a page, whole
    for n in range(2):
        assert len(forms(reader, n)) == 1
        trim = [s for s in page_items(reader, n)[1] if abs(s.width - 0.4) < 1e-6 and abs(s.gray - 0.25) < 1e-6]
        assert sorted(round(math.hypot(s.x2 - s.x1, s.y2 - s.y1), 1) for s in trim) == [180, 180, 250, 250]


def test_a_board_with_a_back_is_said_to_be_printed_one_sided(tmp_path):
    root = game(tmp_path, {"board.yaml": """
        deck: Board
        kind: board
        size: {width: 420mm, height: 297mm}
        template: t/token
        back: t/token
        cards:
          - {name: Map}
    """})
    out = tmp_path / "out"
    report = Report()
    build_game(root, REPO, BuildOptions(out=out, only=("print",), papers=("letter",)), report)
    notes = [n for n in report.notes if n.startswith("print-letter.pdf")]
    assert notes == ["print-letter.pdf: 4 sheets; 1 piece larger than the paper across 4 sheets each (10 mm "
                     "overlap, one-sided, last); their backs are not printed (print them from cards.pdf)"]
    assert len(PdfReader(out / "g" / "print-letter.pdf").pages) == 4


def test_the_booklet_lists_components_by_kind_and_bought_items_apart(tmp_path):
    root = game(tmp_path, {"coins.yaml": """
        deck: Coins
        kind: token
        shape: hex-pointy
        size: 25mm
        template: t/token
        cards:
          - {name: Gold, count: 12}
    """, "rules.yaml": """
        components:
          - item: Coins
            count: 12
          - item: Dice
            bought: two standard six-sided dice
        title: Pieces
        sections:
          - title: Play
            body: ["Take a coin."]
    """})
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("booklet",), papers=("letter",)), Report())
    reader = PdfReader(out / "g" / "rules.pdf")
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert "Coins — 12 tokens" in text
    assert "Bought or from another game" in text and "Dice: two standard six-sided dice" in text
    assert "Also needed" not in text                 # the coins are made: not listed again
    # the coins' thumbnail is clipped to a pointy-top hexagon: six corners
    comps = next(i for i, p in enumerate(reader.pages) if "Coins — 12 tokens" in " ".join(p.extract_text().split()))
    hexes = [p for p in stroked_paths(reader, comps) if len(p.points) == 6]
    assert len(hexes) == 1
    xs, ys = [x for x, _ in hexes[0].points], [y for _, y in hexes[0].points]
    assert (max(ys) - min(ys)) / (max(xs) - min(xs)) == pytest.approx(2 / SQRT3, abs=0.01)


def test_round_tokens_of_several_sizes_share_a_page_each_with_its_bleed_and_its_backs_mirrored(tmp_path):
    root = game(tmp_path, {"coins.yaml": """
        deck: Coins
        kind: token
        size: 20mm
        template: t/token
        backs: t/token
        cards:
          - {name: Gold, count: 20, back: {color: "#000000"}}
    """, "marker.yaml": """
        deck: Marker
        kind: token
        size: 30mm
        template: t/token
        cards:
          - {name: First}
    """})
    reader = build(root, tmp_path)
    assert len(reader.pages) == 2                   # one sheet: 20 coins and the marker, and its back
    placed = forms(reader, 0)
    circles = cuts(reader, 0)
    assert len(placed) == len(circles) == 21
    discs = []
    for c in circles:
        ends = c.points[3::3]
        cx, cy = sum(x for x, _ in ends) / 4, sum(y for _, y in ends) / 4
        discs.append((cx, cy, math.dist(ends[0], (cx, cy))))
    assert sorted(round(r, 2) for _, _, r in discs) == [10.0] * 20 + [15.0]
    for i, (x1, y1, r1) in enumerate(discs):      # no bleed ring on another: two bleeds between cuts
        for x2, y2, r2 in discs[:i]:
            assert math.dist((x1, y1), (x2, y2)) >= r1 + r2 + 2 * B - 0.01
    # the back page: each coin's back behind it (mirrored about the page's middle), cut there too
    backs = cuts(reader, 1)
    mirrored = sorted((round(PW - x, 2), round(y, 2)) for x, y, _ in discs)
    back_centres = []
    for c in backs:
        ends = c.points[3::3]
        back_centres.append((round(sum(x for x, _ in ends) / 4, 2), round(sum(y for _, y in ends) / 4, 2)))
    assert sorted(back_centres) == mirrored
    assert len(forms(reader, 1)) == 20             # the marker has no back


NOT_COUNTED = {     # what each bundled game's document gives no count for (silent:, tbd or no count:)
    "alien-conspiracy": ["Investigator", "Location", "Item", "Event", "Alien", "Player pieces"],
    "alter-ego": ["Henchmen", "Equipment", "Nemesis", "Teamwork tokens", "Money tokens"],
    "face-off": ["VP tokens"],
    "game-601": ["Identity", "Partner", "Event", "Treasure", "Player"],
    "vigilantes": ["Permanent Stickers", "Event", "Vigilante", "Villain", "Card Dividers", "Villain Ability",
                   "Vigilante Ability", "Vigilante Gadget", "Henchmen", "Enemy pieces", "Vigilante pieces",
                   "Objective tokens", "Item tokens", "Health dice", "Energy dice", "Charge tokens", "Attack dice",
                   "Reward"],
}


@pytest.mark.parametrize("name", sorted(NOT_COUNTED))
def test_validate_lists_exactly_the_counts_each_bundled_document_does_not_give(name):
    import re

    from cardgen.pipeline.check import check_game

    report = Report()
    check_game(REPO / "cards" / name, REPO, report)
    said = []
    for d in report.sorted():
        assert d.loc.file.endswith("rules.yaml") or d.code not in ("count-silent", "tbd")
        if d.code == "count-silent":
            said.append(re.match(r"rules give no count for (.+); ", d.message).group(1))
        elif d.code == "tbd":
            m = re.match(r"(?:item '(?P<item>.+)'|(?P<deck>.+)): the rules leave", d.message)
            said.append(m["item"] or m["deck"])
    assert said == NOT_COUNTED[name]


def test_round_tokens_on_fold_over_sheets_are_cut_along_circles_front_and_back(tmp_path):
    root = game(tmp_path, {"coins.yaml": """
        deck: Coins
        kind: token
        size: 25mm
        template: t/token
        backs: t/token
        cards:
          - {name: Gold, count: 6, back: {color: "#000000"}}
    """})
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=("foldover",), papers=("letter",)), Report())
    reader = PdfReader(out / "g" / "print-letter-foldover.pdf")
    circles = cuts(reader, 0)
    assert len(circles) == 12 and len(forms(reader, 0)) == 12           # 6 faces and their 6 backs
    for c in circles:
        ends = c.points[3::3]
        centre = (sum(x for x, _ in ends) / 4, sum(y for _, y in ends) / 4)
        assert all(math.dist(e, centre) == pytest.approx(12.5, abs=0.1) for e in ends)
    # no crop marks: a tick at a round token's corner would cut it square
    assert [s for s in page_items(reader, 0)[1] if abs(s.width - 0.3) < 1e-6] == []
