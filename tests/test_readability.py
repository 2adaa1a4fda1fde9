"""The readability check (docs/validation.md): text too small, text or icons in the safe area
or the bleed, colour coding that collapses for colour-blind players or in greyscale, and (in a
build, measured on the rendered card) text without contrast against what is behind it.  Each
is said once, at its template line, and a well-made card gets none of them."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, write

from cardgen.check.colours import MACHADO, contrast, delta_e, simulate
from cardgen.core.errors import Report
from cardgen.pipeline.check import check_game

CODES = ("small-text", "safe-area", "colour-coding", "contrast")

GEM = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M5 0 L10 5 L5 10 L0 5 Z"/></svg>'

# A card made to fail: 4 pt text (line 14), a title the colour of its band (line 29), a
# resource icon told apart by red and green alone (line 38), text in the bleed (line 39).
BAD = """\
elements:
  - name: paper
    type: rect
    box: bleed
    fill: "#fbf6ea"
  - name: fine-print
    type: text
    x: 8mm
    y: 70mm
    width: 40mm
    height: 5mm
    text: "{{ card.name }} small print"
    color: "#222222"
    size: 4
  - name: band
    type: rect
    x: 5mm
    y: 5mm
    width: 53.5mm
    height: 10mm
    fill: "#8a2be2"
  - name: title
    type: text
    x: 6mm
    y: 6mm
    width: 51mm
    height: 8mm
    text: "{{ card.name }}"
    color: "#8a2be2"
    size: 12
  - name: resource
    type: icon
    icon: gem
    x: 24mm
    y: 30mm
    width: 15mm
    height: 15mm
    color: "{{ card.colour }}"
  - name: corner
    type: text
    x: -1mm
    y: 80mm
    width: 20mm
    height: 6mm
    text: "{{ card.name }}"
    color: "#222222"
    size: 8
"""

# The same information, well made.
GOOD = """\
elements:
  - name: paper
    type: rect
    box: bleed
    fill: "#fbf6ea"
  - name: fine-print
    type: text
    x: 8mm
    y: 70mm
    width: 40mm
    height: 5mm
    text: "{{ card.name }} small print"
    color: "#222222"
    size: 7
  - name: band
    type: rect
    x: 5mm
    y: 5mm
    width: 53.5mm
    height: 10mm
    fill: "#4b1d7a"
  - name: title
    type: text
    x: 6mm
    y: 6mm
    width: 51mm
    height: 8mm
    text: "{{ card.name }}"
    color: "#ffffff"
    size: 12
  - name: resource
    type: icon
    icon: "{{ card.kind }}"
    x: 24mm
    y: 30mm
    width: 15mm
    height: 15mm
    color: "{{ card.colour }}"
  - name: corner
    type: text
    x: 5mm
    y: 78mm
    width: 20mm
    height: 6mm
    text: "{{ card.name }}"
    color: "#222222"
    size: 8
"""

CARDS = """\
deck: Mines
template: t/face
cards:
  - {name: Ruby Mine, colour: "#d62728", kind: gem}
  - {name: Ruby Pit, colour: "#d62728", kind: gem}
  - {name: Emerald Mine, colour: "#2ca02c", kind: leaf}
  - {name: Emerald Pit, colour: "#2ca02c", kind: leaf}
"""


def game(tmp_path, template: str, extra: str = "") -> tuple:
    root = tmp_path / "g"
    write(root / "game.yaml", "title: G\n" + extra)
    (root / "templates" / "t").mkdir(parents=True)
    (root / "templates" / "t" / "face.yaml").write_text(template, encoding="utf-8")
    (root / "mines.yaml").write_text(CARDS, encoding="utf-8")
    for name in ("gem", "leaf"):
        write(root / "art" / "icons" / f"{name}.svg", GEM if name == "gem" else GEM.replace("L10 5", "L9 2"))
    return root, root / "templates" / "t" / "face.yaml"


def found(root, deep: bool = False) -> list:
    report = Report()
    check_game(root, root, report, deep=deep)
    return [d for d in report.said() if d.code in CODES]


def test_each_problem_is_said_once_at_its_template_line(tmp_path):
    root, tpl = game(tmp_path, BAD)
    said = found(root)
    assert [(d.code, d.loc.file, d.loc.line) for d in said] == [
        ("small-text", str(tpl), 14), ("colour-coding", str(tpl), 38), ("safe-area", str(tpl), 39)]
    small, coding, safe = said
    assert small.message == ("element 'fine-print': text set at 4 pt, under the 6 pt a player can read "
                             "(`min_text_size` in game.yaml); make it larger or shorten it on 4 cards (first: "
                             "'Ruby Mine', mines.yaml:4:5)")
    assert coding.message == ("element 'resource': its `color` is all that tells these cards apart, and #2ca02c "
                              "(2 cards of Mines, first 'Emerald Mine') and #d62728 (2 cards of Mines, first "
                              "'Ruby Mine') look the same to a deuteranope; add a symbol or a word that differs, "
                              "or pick colours that differ in lightness")
    assert safe.message.startswith("element 'corner': text crosses the trim, into the bleed that is cut off; "
                                   "move it inwards on 4 cards")


def test_a_well_made_card_passes(tmp_path):
    root, _ = game(tmp_path, GOOD)
    assert found(root) == []


def test_the_minimum_size_is_the_games_to_set(tmp_path):
    root, _ = game(tmp_path, GOOD, "min_text_size: 8\n")
    assert [(d.code, d.loc.line) for d in found(root)] == [("small-text", 14)]
    root, _ = game(tmp_path / "b", BAD.replace("size: 4", "size: 4.5"), "min_text_size: 4.5\n")
    assert "small-text" not in [d.code for d in found(root)]


def test_the_print_services_safe_margin_is_the_checks(tmp_path):
    near = GOOD.replace("x: 5mm\n    y: 78mm", "x: 1.5mm\n    y: 78mm")
    root, _ = game(tmp_path, near)
    (d,) = found(root)
    assert (d.code, d.loc.line) == ("safe-area", 39)
    assert "closer to the trim than the 3.17 mm safe area" in d.message
    root, _ = game(tmp_path / "b", near, "pdfx: {safe_margin: 1.5mm}\n")
    assert found(root) == []
    # (a game without a `pdfx:` section is checked against the elements' safe area, without
    # importing the output: the output's default is the same)
    from cardgen.elements.base import SAFE_MM
    from cardgen.outputs.print_service import PdfxOptions

    assert PdfxOptions().safe_margin == SAFE_MM


def test_machado_matrices_and_contrast_are_the_published_ones():
    # white stays white (each row sums to 1), and WCAG's own examples
    for m in MACHADO.values():
        assert all(abs(sum(row) - 1) < 1e-3 for row in m)
    assert contrast((1, 1, 1), (0, 0, 0)) == pytest.approx(21)
    assert contrast((1, 1, 1), (0x77 / 255,) * 3) == pytest.approx(4.48, abs=0.01)
    red, green = (0xd6 / 255, 0x27 / 255, 0x28 / 255), (0x2c / 255, 0xa0 / 255, 0x2c / 255)
    assert delta_e(red, green) > 100
    assert delta_e(simulate(red, "deuteranopia"), simulate(green, "deuteranopia")) < 12


def test_the_bundled_games_pass_the_geometry_checks():
    for game_dir in sorted((REPO / "cards").iterdir()):
        if (game_dir / "game.yaml").is_file():
            assert [str(d) for d in found(game_dir)] == [], game_dir.name


def test_contrast_is_measured_on_the_rendered_card(tmp_path):
    root, tpl = game(tmp_path, BAD)
    said = [d for d in found(root, deep=True) if d.code == "contrast"]
    assert [(d.loc.file, d.loc.line) for d in said] == [(str(tpl), 29)]
    assert said[0].message == ("element 'title': text contrast with what is drawn behind it under 4.5:1 (measured "
                               "on the rendered card); darken or lighten the text or what is behind it on 4 cards "
                               "(first: 'Ruby Mine', mines.yaml:4:5)")
    root, _ = game(tmp_path / "b", GOOD)
    assert found(root, deep=True) == []


def test_a_single_card_names_the_colours_measured(tmp_path):
    root, _ = game(tmp_path, BAD)
    (root / "mines.yaml").write_text(CARDS.split("  - {name: Ruby Pit")[0], encoding="utf-8")
    (d,) = [d for d in found(root, deep=True) if d.code == "contrast"]
    assert d.message.startswith("card 'Ruby Mine' (mines.yaml:4), element 'title': text contrast")
    assert d.message.endswith(":1)") and "#8a2be2 on #8" in d.message      # the band's own purple behind it


def test_the_player_aids_text_is_inside_the_safe_area():
    """The player aid's header (its title and heading in the coloured band) and every other
    glyph keep 1/8 in from its trim, read back from the PDF's characters."""
    import pypdfium2 as pdfium

    from cardgen.core.units import MM
    from cardgen.outputs.player_aid import AID_BLEED, make_player_aid

    for name in ("game-601", "vigilantes"):
        checked = check_game(REPO / "cards" / name, REPO, Report())
        doc = pdfium.PdfDocument(make_player_aid(checked.rendered))
        for page in doc:
            w, h = page.get_size()
            chars = page.get_textpage()
            boxes = [chars.get_charbox(i) for i in range(chars.count_chars())
                     if chars.get_text_range(i, 1).strip()]
            b = AID_BLEED * MM
            closest = min(min(x0 - b, w - b - x1, y0 - b, h - b - y1) for x0, y0, x1, y1 in boxes)
            assert closest >= 3.175 * MM, (name, closest / MM)
            top = min(h - b - y1 for _, _, _, y1 in boxes)
            assert top < 5 * MM                   # (the header is there, at the top)


def test_validate_measures_contrast_only_with_deep(tmp_path):
    from conftest import in_dir

    root, _ = game(tmp_path, BAD)
    _, plain, _ = in_dir(root, "validate")
    code, deep, _ = in_dir(root, "validate", "--deep")
    assert "contrast" not in plain and "text set at 4 pt" in plain
    assert code == 0 and "element 'title': text contrast with what is drawn behind it under 4.5:1" in deep
    assert not (root / "build").exists()            # (a game never built: its bitmaps left no trace)


def test_build_strict_refuses_a_card_whose_only_problem_is_contrast(tmp_path):
    from cardgen.core.errors import CardgenError
    from cardgen.pipeline.build import BuildOptions, build_game

    root, _ = game(tmp_path, GOOD.replace('color: "#ffffff"\n    size: 12', 'color: "#4b1d7a"\n    size: 12'))
    assert found(root) == []                                    # (nothing the layout alone can see)
    with pytest.raises(CardgenError) as exc:
        build_game(root, root, BuildOptions(out=tmp_path / "out", only=("cards",), strict=True), Report())
    assert {d.code for d in exc.value.diagnostics} == {"contrast", "strict"}
    assert not (tmp_path / "out" / "g" / "cards.pdf").exists()
    report = Report()
    build_game(root, root, BuildOptions(out=tmp_path / "out", only=("cards", "gallery")), report)
    assert [d.code for d in report.said() if d.code in CODES] == ["contrast"]
    report = Report()                   # a build without the gallery does not rasterize the cards for it
    build_game(root, root, BuildOptions(out=tmp_path / "out2", only=("cards",)), report)
    assert [d.code for d in report.said() if d.code in CODES] == []


PIECE = """\
elements:
  - {name: paper, type: rect, box: bleed, fill: "#fbf6ea"}
  - {name: label, type: text, x: X, y: Y, width: 8mm, height: 4mm, text: "Go", color: "#222222", size: 8}
"""


@pytest.mark.parametrize("shape, size, place, said", [
    # a flat-top hex 30 mm across its flats (34.6 mm point to point): near its box's top-left
    # corner (4 mm from the box's edges, more than the 3.17 mm safe margin) is outside the hex,
    # a label at the box's middle is well inside it
    ("shape: hex-flat", "size: 30mm", ("4mm", "4mm"), True),
    ("shape: hex-flat", "size: 30mm", ("13mm", "13mm"), False),
    # a star: its box's top-left, 4 mm from the box's edges, is between two of its points
    ("shape: path\npath: \"M 15 0 L 19 10 L 30 11 L 21.5 18 L 24 29 L 15 23 L 6 29 L 8.5 18 L 0 11 L 11 10 Z\"", "",
     ("4mm", "4mm"), True),
    ("shape: path\npath: \"M 15 0 L 19 10 L 30 11 L 21.5 18 L 24 29 L 15 23 L 6 29 L 8.5 18 L 0 11 L 11 10 Z\"", "",
     ("13mm", "13mm"), False)])
def test_the_safe_area_follows_a_hex_or_path_pieces_outline_not_its_box(tmp_path, shape, size, place, said):
    """Text inside a piece's box but past its slanted or cut-in edges is said (it is cut off);
    the same text at the piece's middle is not."""
    root = tmp_path / "g"
    write(root / "game.yaml", "title: G\n")
    write(root / "templates" / "t" / "piece.yaml", PIECE.replace("X", place[0]).replace("Y", place[1]))
    write(root / "pieces.yaml", f"deck: Pieces\nkind: token\n{shape}\n{size}\ntemplate: t/piece\n"
                                "cards: [{name: P, count: 2}]\n")
    codes = [(d.code, d.loc.line) for d in found(root)]
    assert codes == ([("safe-area", 3)] if said else [])


def test_cards_told_apart_by_their_own_titles_are_not_compared_pair_by_pair(tmp_path, monkeypatch):
    """A deck of many colours whose cards each show a title of their own (the benchmark deck: 500
    colours, 124,750 pairs) is passed by one look at the title, in time linear in the cards: no
    pair of colours is compared.  With two cards of one colour (their titles differ: the colour
    is then what groups them) the pairs the title does not settle are compared, those of these
    two colours with every other (not all 1,770: a 10,000-card deck in random colours has a few
    colours of two cards, and 50 million pairs), and what collapses is said, as comparing every
    pair says it."""
    import cardgen.check.readability as readability

    compared = []
    real = readability._collapses
    monkeypatch.setattr(readability, "_collapses", lambda *a: compared.append(a) or real(*a))
    colours = [f"#{40 + 3 * i:02x}{200 - 2 * i:02x}{90 + i:02x}" for i in range(60)]
    root = tmp_path / "g"
    write(root / "game.yaml", "title: G\n")
    write(root / "templates" / "t" / "face.yaml",
          'elements:\n  - {name: bg, type: rect, box: bleed, fill: "{{ card.colour }}"}\n'
          '  - {name: title, type: text, x: 5mm, y: 5mm, width: 50mm, height: 8mm, text: "{{ card.name }}", size: 10}\n')
    cards = "".join(f'  - {{name: "Card {i}", colour: "{c}"}}\n' for i, c in enumerate(colours))
    write(root / "deck.yaml", "deck: D\ntemplate: t/face\ncards:\n" + cards)
    assert found(root) == [] and compared == []
    write(root / "deck.yaml", "deck: D\ntemplate: t/face\ncards:\n" + cards
          + f'  - {{name: "Card 0b", colour: "{colours[0]}"}}\n  - {{name: "Card 1b", colour: "{colours[1]}"}}\n')
    said = found(root)
    assert len(compared) == 59 + 58
    assert [d.code for d in said] == ["colour-coding"] and "2 cards of D, first 'Card 0'" in said[0].message
    compared.clear()
    monkeypatch.setattr(readability._Tells, "unsettled", lambda self, groups: None)      # every pair
    assert [(d.code, d.loc, d.message) for d in found(root)] == [(d.code, d.loc, d.message) for d in said]
    assert len(compared) == 60 * 59 // 2


def test_the_pairs_left_unsettled_come_in_order_as_they_are_looked_at():
    """`_Pairs`: the pairs of `own` with one at least in `several`, each once, in order (what the
    old code sorted from a set of them all), and their count worked out without making them."""
    import random

    from cardgen.check.readability import _Pairs

    rng = random.Random(7)
    for _ in range(200):
        own = sorted(rng.sample(range(60), rng.randint(2, 40)))
        several = sorted(rng.sample(own, rng.randint(1, len(own))))
        pairs = _Pairs(own, several)
        mine = set(several)
        expected = sorted({(min(i, j), max(i, j)) for i in several for j in own if j != i and (j not in mine or i < j)})
        assert list(pairs) == expected and len(pairs) == len(expected)


def test_the_pairs_of_colours_that_look_the_same_are_counted_up_to_a_bound(tmp_path, monkeypatch):
    """Past `PAIRS_COUNTED` pairs that look the same, the warning says "at least" and no more
    pair is compared (a 10,000-card deck in random colours had 100,000 of them); the pairs it
    names are those a full count names first."""
    import cardgen.check.readability as readability

    compared = []
    real = readability._collapses
    monkeypatch.setattr(readability, "_collapses", lambda *a: compared.append(a) or real(*a))
    # colours of one lightness (L* 53 to 57) and hues apart: every pair looks the same in greyscale
    colours = ["#009078", "#0090a8", "#0090d8", "#4878f0", "#489000", "#609060", "#7878c0"]
    root = tmp_path / "g"
    write(root / "game.yaml", "title: G\n")
    write(root / "templates" / "t" / "face.yaml",
          'elements:\n  - {name: bg, type: rect, box: bleed, fill: "{{ card.colour }}"}\n')
    cards = "".join(f'  - {{name: "Card {i}", colour: "{c}"}}\n' for i, c in enumerate(colours))
    write(root / "deck.yaml", "deck: D\ntemplate: t/face\ncards:\n" + cards)
    every = found(root)
    assert [d.code for d in every] == ["colour-coding"]
    all_pairs = len(compared)
    monkeypatch.setattr(readability, "PAIRS_COUNTED", 6)
    compared.clear()
    bounded = found(root)
    assert len(compared) < all_pairs
    assert "; at least 2 more pairs;" in bounded[0].message
    named = every[0].message.split("; ")[:4]
    assert bounded[0].message.split("; ")[:4] == named and f"; {all_pairs - 4} more pairs;" in every[0].message


def test_the_colour_behind_text_is_the_commonest_one_not_the_inks():
    """`behind` counts a line box's pixels (RGB bytes) at 32 levels a channel: the most common
    colour not close to the ink's; of two as common, the one met first; the ink's own when it
    fills most of the box."""
    from cardgen.check.contrast import behind

    red, blue, black = bytes((250, 0, 0)), bytes((0, 0, 250)), bytes((3, 4, 2))
    level = tuple((v >> 3) * 8 / 255 + 4 / 255 for v in (250, 0, 0))
    assert behind(black * 5 + red * 3 + bytes((252, 6, 1)) + blue * 4, (0.0, 0.0, 0.0, 1.0)) == level
    assert behind(blue * 2 + red * 2 + black * 3, (0.0, 0.0, 0.0, 1.0)) == tuple(
        (v >> 3) * 8 / 255 + 4 / 255 for v in (0, 0, 250))
    assert behind(black * 9 + red, (0.0, 0.0, 0.0, 1.0)) == tuple((v >> 3) * 8 / 255 + 4 / 255 for v in (3, 4, 2))


def test_the_colour_behind_text_is_counted_alike_from_an_image_and_from_its_bytes():
    """`behind` takes a line box as a Pillow image (what the check crops) or as its RGB bytes,
    and finds the same colour either way, ties going to the colour met first in the rows."""
    from PIL import Image

    from cardgen.check.contrast import behind

    red, blue, black, grey = bytes((250, 0, 0)), bytes((0, 0, 250)), bytes((3, 4, 2)), bytes((128, 128, 128))
    rows = [blue * 3 + red * 3, red * 3 + blue * 3, black * 2 + grey * 2 + red + blue, black * 6]
    for data in rows:
        for ink in ((0.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)):
            img = Image.frombytes("RGB", (3, len(data) // 9), data)
            assert behind(img, ink) == behind(data, ink)
    level = tuple((v >> 3) * 8 / 255 + 4 / 255 for v in (0, 0, 250))
    assert behind(Image.frombytes("RGB", (3, 2), rows[0]), (0.0, 0.0, 0.0, 1.0)) == level       # (blue first)
    assert behind(Image.frombytes("RGB", (2, 3), rows[1]), (0.0, 0.0, 0.0, 1.0)) != level       # (red first)


def test_a_first_check_measures_each_side_where_its_bitmap_is_made(tmp_path, monkeypatch):
    """A side's contrast is measured on its bitmap as it is made (`raster.Probe`), not read back
    from the cache; a bitmap made before (by the gallery, say) is read back, and measures the same."""
    from cardgen.check import contrast
    from cardgen.pipeline.check import check_rendered
    from cardgen.render import raster

    root, _ = game(tmp_path, BAD)
    out = tmp_path / "out"
    read: list[str] = []
    real = raster.open_image

    def counted(path):
        read.append(Path(path).suffix)
        return real(path)

    def check() -> list[str]:
        report = Report()
        checked = check_game(root, root, report, out)
        check_rendered(checked, report, out)
        return [str(d) for d in report.said() if d.code == "contrast"]

    monkeypatch.setattr(raster, "open_image", counted)
    raster.reset_stats()
    said = check()
    assert raster.STATS["rasterized"] == 4 and read == []
    assert said and "on 4 cards (first: 'Ruby Mine', mines.yaml:4:5)" in said[0]
    assert said == [str(d) for d in found(root, deep=True) if d.code == "contrast"]
    (out / ".cache" / "contrast.bin").unlink()          # (measured again, from the bitmaps in the cache)
    contrast._open.clear()
    raster.reset_stats()
    assert check() == said and raster.STATS["rasterized"] == 0 and read == [".png"] * 4


def test_an_edit_measures_the_contrast_of_the_edited_card_alone(tmp_path, monkeypatch):
    """What each side measured is kept in one file (`.cache/contrast.bin`): a rebuild after one
    card's edit measures that card alone and says exactly what a cold `validate --deep` says;
    an icon file replaced measures again the cards that show it, and no other."""
    from cardgen.check import contrast
    from cardgen.pipeline.check import check_rendered

    root, _ = game(tmp_path, BAD)
    out = tmp_path / "out"
    measured: list[str] = []
    real = contrast.measure_image

    def counted(img, layout, spec):
        measured.append(layout.key)
        return real(img, layout, spec)

    monkeypatch.setattr(contrast, "measure_image", counted)

    def build() -> list[str]:
        report = Report()
        checked = check_game(root, root, report, out)
        check_rendered(checked, report, out)          # (as `cardgen build` does)
        return [str(d) for d in report.said() if d.code == "contrast"]

    def cold() -> list[str]:        # (a game never built: every side measured, not counted)
        n = len(measured)
        said = [str(d) for d in found(root, deep=True) if d.code == "contrast"]
        del measured[n:]
        return said

    assert build() != [] and len(measured) == 4
    assert (out / ".cache" / "contrast.bin").is_file()
    assert not list((out / ".cache" / "raster").glob("*.contrast"))
    measured.clear()
    cards = root / "mines.yaml"
    cards.write_text(CARDS.replace("Ruby Mine", "Ruby Shaft"), encoding="utf-8")
    said = build()
    assert measured == ["mines/0/face"]
    measured.clear()
    assert said == cold() and "(first: 'Ruby Shaft', mines.yaml:4:5)" in said[0]
    write(root / "art" / "icons" / "leaf.svg", GEM.replace("L0 5", "L1 4"))     # (no card shows it)
    assert build() == said and measured == []
    write(root / "art" / "icons" / "gem.svg", GEM.replace("L0 5", "L1 4"))      # (every card shows it)
    assert build() == said
    assert sorted(measured) == [f"mines/{i}/face" for i in range(4)]
    # a file of this installation that does not hold what it writes is not read: every side
    # measured again, the same lines (a damaged one is deleted: `core.cachefile`)
    import marshal

    from cardgen.core import digest

    path = out / ".cache" / "contrast.bin"
    head = digest.own_stamp(out).encode() + b"\n"
    keys = marshal.loads(digest.read_payload(path)[len(head):])
    path.write_bytes(digest.seal(head + marshal.dumps({k: [["title", "1.0", 4.5, [0.0] * 3, [0.0] * 3]] for k in keys})))
    measured.clear()
    contrast._open.clear()
    assert build() == said and len(measured) == 4


def test_the_trim_distance_of_an_unturned_text_is_its_run_boxes_corners():
    """On a rectangular side, an unturned text's distance to the trim is worked out from its run
    boxes' edges in one pass: the same value as the nearest of each box's four corners (icons'
    squares, text from ascent to descent, blank runs left out), on random texts."""
    import math
    import random
    from pathlib import Path

    from cardgen.check.readability import _corners, trim_distance
    from cardgen.model import ops

    rng = random.Random(13)
    for _ in range(400):
        runs = []
        for _ in range(rng.randrange(0, 8)):
            kind = rng.choice(("text", "text", "icon"))
            content = Path("a.svg") if kind == "icon" else rng.choice(("Go", " ", "", "word", "\t"))
            runs.append(ops.new_run(rng.uniform(-30, 200), rng.uniform(-30, 260), kind, content, "Lato-Regular",
                                    rng.choice((4, 6.5, rng.uniform(1, 30))), None, rng.uniform(0, 120)))
        op = ops.Text(rng.uniform(-20, 150), rng.uniform(-20, 200), 80.0, 40.0, tuple(runs), 9.0)
        side = ops.CardLayout(rng.choice((178.58, 180.0)), rng.choice((249.45, 252.0)), 9.0)
        pts = _corners(op)
        want = min(min(x, side.width - x, y, side.height - y) for x, y in pts) if pts else None
        got = trim_distance(op, side)
        assert got == want and (got is None or not math.isnan(got))
