"""Custom dice (docs/components.md, "Dice"): the net that folds, read back from the PDF in mm,
the stickers on the print sheets, and the die file's checks at their lines."""
from __future__ import annotations

import itertools
import re
import textwrap

import pytest
from conftest import REPO, write
from pdfgeom import page_items
from pypdf import PdfReader

from cardgen.core.errors import CardgenError, Report
from cardgen.model.dice import FACE_CELLS, DieNet, fold, handedness
from cardgen.pipeline.build import BuildOptions, build_game

COLOURS = ["#ff0000", "#00ff00", "#0000ff", "#ffff00", "#ff00ff", "#00ffff"]
B = 3.175                       # the default bleed
RGB = [tuple(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)) for c in COLOURS]

FACE = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "{{ card.color }}"}
"""


def die_file(count=1, extra="", faces=6) -> str:
    cards = "\n".join(f"  - {{name: F{i + 1}, color: '{COLOURS[i % 6]}'}}" for i in range(faces))
    return f"deck: Dice\nkind: die\nsize: 16mm\ntemplate: t/face\ncount: {count}\n{extra}cards:\n{cards}\n"


def game(tmp_path, files: dict[str, str]):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: Dice\n")
    write(root / "templates" / "t" / "face.yaml", FACE)
    for name, text in files.items():
        write(root / name, textwrap.dedent(text).lstrip("\n"))
    return root


def build(root, tmp_path, only=("dice",)):
    out = tmp_path / "out"
    build_game(root, REPO, BuildOptions(out=out, only=only, papers=("letter",)), Report())
    return out / root.name


def face_of(reader, page, placement) -> int:
    """Which face (1-6) a placed form draws: the colour its background is filled with."""
    xo = reader.pages[page]["/Resources"]["/XObject"][placement.name].get_object()
    m = re.search(rb"([\d.]+) ([\d.]+) ([\d.]+) rg", xo.get_data())
    assert m, placement.name
    rgb = tuple(float(v) for v in m.groups())
    return next(i + 1 for i, c in enumerate(RGB) if all(abs(a - b) < 0.01 for a, b in zip(c, rgb)))


# -- the net, as arithmetic ------------------------------------------------------------------

def test_the_cross_folds_into_a_right_handed_die_whose_opposite_faces_sum_to_seven():
    folded = fold(FACE_CELLS)
    for a in range(1, 7):
        for b in range(1, 7):
            dot = sum(x * y for x, y in zip(folded[a].normal, folded[b].normal))
            assert dot == pytest.approx(-1 if a + b == 7 else 1 if a == b else 0), (a, b)
    assert handedness(folded) == "right"
    # the centres are the six face centres of a unit cube
    centres = sorted(tuple(round(v * 2) for v in f.centre) for f in folded.values())
    xs = {c for ctr in centres for c in ctr}
    assert len(centres) == 6 and xs <= {-1, 0, 1, 2}
    # the art's top: round the column (2, 1, 5, 6) each face's top points to the face before it;
    # the arms' tops point where face 1's top does
    for face, before in ((1, 2), (5, 1), (6, 5), (2, 6)):
        assert folded[face].up == pytest.approx(folded[before].normal), face
    assert folded[3].up == pytest.approx(folded[1].up) and folded[4].up == pytest.approx(folded[1].up)
    # a net whose arms are swapped makes the mirror die
    swapped = dict(FACE_CELLS)
    swapped[3], swapped[4] = FACE_CELLS[4], FACE_CELLS[3]
    assert handedness(fold(swapped)) == "left"


def test_every_glue_tab_folds_onto_the_face_it_is_glued_under_and_every_joint_has_one():
    net = DieNet.for_edge(16)
    a = net.edge
    folded = fold(FACE_CELLS)
    joints = set()
    for tab in net.tabs():
        x, y, _, _ = net.square(tab.face)
        _col, _row = FACE_CELLS[tab.face]
        (bx1, by1, bx2, by2) = tab.base
        dc = round((bx1 + bx2 - 2 * x) / a - 1)            # which side of the square: -1, 0 or 1
        dr = round((by1 + by2 - 2 * y) / a - 1)
        beyond = folded[tab.face].neighbour(dc, dr)       # the tab folded like a face would be
        partner = folded[tab.partner]
        n = partner.normal
        for px, py in tab.points:
            u, v = (px - x) / a - dc, (py - y) / a - dr   # the point in the folded tab's square
            p = beyond.at(u, v)
            # in the partner face's plane (just inside the die) and within its square
            assert sum((p[i] - partner.centre[i]) * n[i] for i in range(3)) == pytest.approx(0, abs=1e-9)
            assert all(abs(p[i] - partner.centre[i]) <= 0.5 + 1e-9 for i in range(3)), (tab, (px, py))
        joints.add(frozenset((tab.face, tab.partner, dc, dr)))
    assert len(net.tabs()) == 7 and len(joints) == 7
    # 14 outer edges: each tab's base is one, the other seven are plain cuts of its partners
    plain = [s for s in net.cuts() if (s[0] == s[2] or s[1] == s[3]) and abs(abs(s[0] - s[2]) + abs(s[1] - s[3])
                                                                              - a) < 1e-9]
    assert len(plain) == 7


# -- the net, read back from the PDF ---------------------------------------------------------

def test_dice_nets_fold_read_back_from_the_pdf_in_mm(tmp_path):
    root = game(tmp_path, {"dice.yaml": die_file(count=2)})
    reader = PdfReader(build(root, tmp_path) / "dice-letter.pdf")
    assert len(reader.pages) == 1
    placed, segments = page_items(reader, 0)
    assert len(placed) == 12                                # two dice of six faces
    net = DieNet.for_edge(16)
    for die in (placed[:6], placed[6:]):
        faces = {face_of(reader, 0, p): p for p in die}
        assert sorted(faces) == [1, 2, 3, 4, 5, 6]
        for p in faces.values():
            cx, _cy, w, h = p.clip
            assert (w, h) == pytest.approx((16, 16), abs=0.01)     # each face's square is the die's edge
            a, b, c, d = p.matrix[:4]
            assert b == pytest.approx(0) and c == pytest.approx(0) and a > 0 and d > 0   # upright, unmirrored
            # the face's trim (13 mm sticker) scaled to fill the square
            bleed_pt = (p.bbox[2] - 13 * 72 / 25.4) / 2
            assert (p.matrix[4] / 72 * 25.4 + bleed_pt * a / 72 * 25.4) == pytest.approx(cx, abs=0.01)
        left = min(p.clip[0] for p in faces.values())
        top = max(p.clip[1] + p.clip[3] for p in faces.values())
        cells = {f: (round((p.clip[0] - left) / 16), round((top - p.clip[1] - p.clip[3]) / 16))
                 for f, p in faces.items()}
        folded = fold(cells)
        assert len(folded) == 6                             # every face joined to the others
        for f in range(1, 7):
            opposite = folded[7 - f].normal
            assert folded[f].normal == pytest.approx(tuple(-v for v in opposite))
        assert handedness(folded) == "right"
        # the cut lines, solid 0.6 pt, are the model's, where the PDF put the net
        ox, oy = left, top + net.tab                        # the net's top-left (its top tab above face 2)
        cuts = {tuple(round(v, 2) for v in (s.x1, s.y1, s.x2, s.y2)) for s in segments
                if abs(s.width - 0.6) < 1e-6 and s.gray == 0 and ox - 0.1 <= min(s.x1, s.x2) <= ox + 48.1
                and abs(min(s.y1, s.y2) - (oy - 34)) < 35}
        want = {tuple(round(v, 2) for v in (ox + x1, oy - y1, ox + x2, oy - y2)) for x1, y1, x2, y2 in net.cuts()}
        assert cuts == want
        folds = [s for s in segments if abs(s.width - 0.5) < 1e-6 and s.gray == 0
                 and ox - 0.1 <= min(s.x1, s.x2) <= ox + 48.1 and abs(min(s.y1, s.y2) - (oy - 34)) < 35]
        assert len(folds) == 12                             # 5 between faces, 7 tab bases


# -- the stickers on the print sheets --------------------------------------------------------

def test_stickers_are_the_face_less_the_inset_one_set_per_die_on_the_cards_grid(tmp_path):
    root = game(tmp_path, {"dice.yaml": die_file(count=3), "big.yaml": die_file(count=1).replace(
        "deck: Dice", "deck: Big dice").replace("size: 16mm", "size: 25mm\ninset: 1mm")})
    reader = PdfReader(build(root, tmp_path, only=("print",)) / "print-letter.pdf")
    assert len(reader.pages) == 1       # no backs; the big dice's stickers below the small ones (render/packing.py)
    placed = [p for p in page_items(reader, 0)[0] if ".card" in p.name]
    mm = 25.4 / 72
    trim = [(p.bbox[2] * mm - 2 * B, p.bbox[3] * mm - 2 * B) for p in placed]     # bleed both sides
    stickers = [p for p, (w, h) in zip(placed, trim) if (w, h) == pytest.approx((13, 13), abs=0.01)]
    big = [p for p, (w, h) in zip(placed, trim) if (w, h) == pytest.approx((23, 23), abs=0.01)]
    assert len(stickers) == 18 and len(big) == 6 and len(placed) == 24
    # butted in the cards' grid: 13 mm apart (in each row: the stickers may fill two rooms of the sheet)
    for y in {round(p.y, 3) for p in stickers}:
        xs = sorted(round(p.x, 3) for p in stickers if round(p.y, 3) == y)
        assert [b - a for a, b in itertools.pairwise(xs)] == pytest.approx([13] * (len(xs) - 1), abs=0.01)
    # in reading order: face 1 to 6 of the first die, then of the second, ...
    rows = sorted(stickers, key=lambda p: (-round(p.y, 1), p.x))
    assert [face_of(reader, 0, p) for p in rows] == [1, 2, 3, 4, 5, 6] * 3


def test_stickers_print_one_sided_after_every_duplex_sheet_and_before_a_boards_sheets(tmp_path):
    root = game(tmp_path, {
        "dice.yaml": die_file(count=2),
        "cards.yaml": "deck: Cards\ntemplate: t/face\nback: t/back\ncards:\n  - {name: C, count: 12, color: '#808080'}\n",
        "map.yaml": "deck: Map\nkind: board\nsize: {width: 420mm, height: 297mm}\ntemplate: t/face\n"
                    "cards:\n  - {name: City, color: '#202020'}\n",
    })
    write(root / "templates" / "t" / "back.yaml", "elements:\n  - {name: bg, type: rect, box: bleed, fill: '#102030'}\n")
    reader = PdfReader(build(root, tmp_path, only=("print",)) / "print-letter.pdf")
    texts = [page.extract_text() for page in reader.pages]
    kinds = []
    for t in texts:
        if "stickers" not in t and "sticker paper" in t:
            kinds.append("stickers")
        elif "· backs" in t:
            kinds.append("back")
        elif "(row" in t:
            kinds.append("board")
        else:
            kinds.append("front")
    # 12 poker cards: 2 sheets, each front followed by its back; then the stickers, one page, no
    # back page; then the board's 4 sheets (one-sided)
    assert kinds == ["front", "back", "front", "back", "stickers", "board", "board", "board", "board"], kinds
    assert "Dice · sheet 3 of 7 · one-sided: print this page alone, on sticker paper" in texts[4]


def test_on_fold_over_sheets_a_sticker_page_has_no_fold(tmp_path):
    root = game(tmp_path, {"dice.yaml": die_file(count=2),
                           "cards.yaml": "deck: Cards\ntemplate: t/face\ncards:\n  - {name: C, color: '#808080'}\n"})
    reader = PdfReader(build(root, tmp_path, only=("foldover",)) / "print-letter-foldover.pdf")
    texts = [page.extract_text() for page in reader.pages]
    assert len(texts) == 2
    assert "fold on the dashed line" in texts[0] and texts[0].splitlines().count("fold") == 2   # the fold's labels
    assert "Dice · sheet 2 of 2 · stickers: print this page on sticker paper, 100 %, and cut; no fold" in texts[1]
    assert "fold on the dashed line" not in texts[1] and "fold" not in texts[1].splitlines()


# -- the die file's checks --------------------------------------------------------------------

def test_a_die_file_that_is_not_a_die_is_an_error_at_its_line(tmp_path):
    root = game(tmp_path, {
        "five.yaml": die_file(faces=5).replace("deck: Dice", "deck: Five"),
        "counted.yaml": die_file().replace("deck: Dice", "deck: Counted").replace(
            "  - {name: F2,", "  - {count: 2, name: F2,"),
        "backed.yaml": die_file(extra="back: t/face\n").replace("deck: Dice", "deck: Backed"),
        "oblong.yaml": die_file().replace("deck: Dice", "deck: Oblong").replace("size: 16mm",
                                                                                 "size: {width: 16mm, height: 18mm}"),
        "tiny.yaml": die_file(extra="inset: 6mm\n").replace("deck: Dice", "deck: Tiny"),
        "token.yaml": "deck: Chips\nkind: token\nsize: 20mm\ntemplate: t/face\ncount: 4\ncards:\n  - {name: C}\n",
    })
    with pytest.raises(CardgenError) as info:
        build(root, tmp_path)
    said = str(info.value)
    assert (f"{root / 'five.yaml'}:6:1: error: die file 'Five' has 5 faces; a die has 6, faces 1 to 6 in order "
            f"(face i opposite face 7 - i)") in said
    assert (f"{root / 'counted.yaml'}:8:6: error: die file 'Counted': a face has no count of its own (each is "
            f"printed once per die); give the number of dice as the file's `count:`") in said
    assert (f"{root / 'backed.yaml'}:6:1: error: die file 'Backed': a die has no backs (its stickers and its net "
            f"are printed on one side); remove `back:`") in said
    assert (f"{root / 'oblong.yaml'}:3:7: error: die file 'Oblong': `size:` is the die's edge, one length such as "
            f"16mm; got 16x18 mm") in said
    assert (f"{root / 'tiny.yaml'}:6:8: error: die file 'Tiny': a 16 mm die with an inset of 6 mm leaves a 4 mm "
            f"sticker; the smallest is 3 mm") not in said          # 4 mm is allowed
    assert (f"{root / 'token.yaml'}:5:1: error: token file 'Chips': `count:` is for a die file (`kind: die`); a "
            f"card's copies are its own `count:`") in said


def test_a_sticker_smaller_than_the_least_is_an_error_at_the_inset(tmp_path):
    root = game(tmp_path, {"dice.yaml": die_file(extra="inset: 7mm\n")})
    with pytest.raises(CardgenError) as info:
        build(root, tmp_path)
    assert (f"{root / 'dice.yaml'}:6:8: error: die file 'Dice': a 16 mm die with an inset of 7 mm leaves a 2 mm "
            f"sticker; the smallest is 3 mm") in str(info.value)


def test_the_rules_count_dice_not_faces(tmp_path):
    from cardgen.check.components import check_counts
    from cardgen.pipeline.check import load_game

    root = game(tmp_path, {"dice.yaml": die_file(count=2), "rules.yaml": "components:\n  - item: Dice\n    count: 3\n"})

    def said() -> list[str]:
        report = Report()
        check_counts(load_game(root, tmp_path, report, tolerant=True), report)
        return [str(d).replace(str(root) + "/", "") for d in report.items]

    assert said() == ["rules.yaml:3:12: error: Dice: rules say 3 (rules.yaml:3), the die file makes 2 (dice.yaml:1)"]
    write(root / "rules.yaml", "components:\n  - item: Dice\n    silent: no count\n")
    assert said() == ["rules.yaml:3:13: warning: rules give no count for Dice; 2 dice printed"]
