"""The layout cache (`cardgen.layout.cache`): a check lays out again exactly the card sides
whose inputs changed, takes the others from `<out>/<game>/.cache/layout.bin`, and reports the
same problems, at the same places and in the same order, as a check that lays out everything."""
from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, write
from PIL import Image

from cardgen.core import digest
from cardgen.core.data import DATA
from cardgen.core.digest import seal
from cardgen.core.errors import CardgenError, Report
from cardgen.layout import cache
from cardgen.layout.expr import data_read
from cardgen.model import ops
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import check_game

STAMPED = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ card.color | default('#ffffff') }}"}
  - {name: title, type: text, x: 4mm, y: 4mm, width: 55mm, height: 10mm, text: "{{ card.name }}", font: Mine,
     size: 12}
  - {name: body, type: text, x: 4mm, y: 20mm, width: 55mm, height: 40mm, text: "{{ card.text }}", size: 9}
  - {name: version, type: text, x: 4mm, y: 80mm, width: 55mm, height: 4mm, text: "v{{ game.version }}", size: 6}
"""
STAMPED_BACK = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#223344"}
  - {name: name, type: text, x: 4mm, y: 40mm, width: 55mm, height: 8mm, text: "{{ card.name }}", color: "#ffffff"}
"""
PICTURED = """
defaults:
  art: later.png
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: pic, type: image, src: pic.png, x: 4mm, y: 4mm, width: 30mm, height: 30mm}
  - {name: art, type: image, src: "{{ card.art }}", placeholder: true, x: 34mm, y: 4mm, width: 25mm, height: 30mm}
  - {name: body, type: text, x: 4mm, y: 40mm, width: 55mm, height: 40mm,
     text: "{{ card.text }} :abyss: ({{ deck.count }} in the deck)", size: 9}
"""
BACK = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#2d3a5a"}
  - {name: mark, type: icon, icon: gem, x: 16mm, y: 29mm, width: 30mm, height: 30mm, color: "#ffffff"}
"""
GEM = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M5 0 L10 5 L5 10 L0 5 Z"/></svg>'

# card sides of the test game: 3 faces and 3 own backs (Stamped), 4 faces and a shared back (Pictured)
SIDES = 11


def _png(path: Path, size: tuple[int, int], colour: str) -> None:
    """A picture of `size`'s proportions, 40 times as many pixels each way: enough for its box
    at 300 dpi (a smaller one is warned about as printing soft, and a side that warned is laid
    out again when its template's lines move)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (size[0] * 40, size[1] * 40), colour).save(path)


@pytest.fixture
def game(tmp_path: Path) -> Path:
    root = tmp_path / "cached"
    write(root / "game.yaml", 'title: Cached\nversion: "1.0"\n')
    (root / "fonts").mkdir()
    shutil.copy(DATA / "fonts" / "Vollkorn-Regular.ttf", root / "fonts" / "Mine-Regular.ttf")
    _png(root / "art" / "pic.png", (40, 20), "#cc3311")
    write(root / "art" / "icons" / "gem.svg", GEM)
    write(root / "templates" / "t" / "stamped.yaml", STAMPED)
    write(root / "templates" / "t" / "stamped-back.yaml", STAMPED_BACK)
    write(root / "templates" / "t" / "pictured.yaml", PICTURED)
    write(root / "templates" / "t" / "back.yaml", BACK)
    write(root / "stamped.yaml", """
        deck: Stamped
        template: t/stamped
        backs: t/stamped-back
        cards:
          - {name: One, text: The first card.}
          - {name: Two, text: The second card.}
          - {name: Three, text: The third card.}
    """)
    write(root / "pictured.yaml", """
        deck: Pictured
        template: t/pictured
        back: t/back
        cards:
          - {name: Red, text: Red things.}
          - {name: Green, text: Green things.}
          - {name: Blue, text: Blue things.}
          - {name: Grey, text: Grey things.}
    """)
    return root


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    """Each check reads the cache file as a new process would (no entries kept in memory)."""
    monkeypatch.setattr(cache, "_open", {})


def check(root: Path, out: Path, report: Report | None = None, project: Path | None = None):
    """`check_game` as a build runs it, the cache saved after it as a successful build does."""
    cache._open.clear()
    report = report if report is not None else Report()
    checked = check_game(root, project or root, report, out)
    assert checked.rendered is not None and checked.layout_cache is not None
    checked.layout_cache.save()
    return checked.rendered


def counts(root: Path, out: Path) -> tuple[int, int]:
    r = check(root, out)
    return r.laid_out, r.reused


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def sides(rendered) -> list[ops.CardLayout]:
    return [face for _, _, face in rendered.faces] + list(rendered.backs.values())


def laid_out_names(rendered) -> list[str]:
    """The faces a check laid out (not taken from the cache)."""
    return [card.name for _, card, face in rendered.faces if not isinstance(face, cache.CachedLayout)]


# -- what is laid out again ------------------------------------------------------------------

def test_nothing_changed_lays_out_nothing(game, tmp_path):
    out = tmp_path / "out"
    assert counts(game, out) == (SIDES, 0)
    assert (out / "cached" / ".cache" / "layout.bin").is_file()
    assert counts(game, out) == (0, SIDES)
    assert counts(game, out) == (0, SIDES)


def test_one_card_edited_lays_out_that_cards_sides(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    replace_in(game / "stamped.yaml", "The second card.", "The second card, edited.")
    r = check(game, out)
    assert (r.laid_out, r.reused) == (2, SIDES - 2)         # its face and its own back
    assert laid_out_names(r) == ["Two"]
    replace_in(game / "pictured.yaml", "Blue things.", "Blue things, edited.")
    r = check(game, out)
    assert (r.laid_out, r.reused) == (1, SIDES - 1)         # its face (the deck's back is shared)
    assert laid_out_names(r) == ["Blue"]


def test_a_card_moved_down_by_an_added_card_is_not_laid_out_again(game, tmp_path):
    """A side's entry does not depend on where the card is in its deck or file (it reported no
    problem): a card added above others lays out that card alone."""
    out = tmp_path / "out"
    check(game, out)
    replace_in(game / "stamped.yaml", "cards:\n", "cards:\n  - {name: Zero, text: A new first card.}\n")
    r = check(game, out)
    assert (r.laid_out, r.reused) == (2, SIDES)
    assert laid_out_names(r) == ["Zero"]
    assert [face.key for deck, _, face in r.faces if deck.name == "Stamped"] == \
        ["stamped/0/face", "stamped/1/face", "stamped/2/face", "stamped/3/face"]


def test_a_template_edited_lays_out_the_cards_that_use_it(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    replace_in(game / "templates" / "t" / "pictured.yaml", "y: 40mm", "y: 42mm")
    r = check(game, out)
    assert (r.laid_out, r.reused) == (4, SIDES - 4)
    assert laid_out_names(r) == ["Red", "Green", "Blue", "Grey"]


def test_a_comment_or_line_added_to_a_template_lays_out_nothing_again(game, tmp_path):
    """The key holds the template's values, not where they are: lines moved by a comment (or
    a blank line) change no card, so no side is laid out again and the print is the same.  (The
    missing `later.png` is put in first: a side that warned names its template's lines, and is
    laid out again when they move.)"""
    out = tmp_path / "out"
    _png(game / "art" / "later.png", (10, 10), "#00aa00")
    check(game, out)
    tpl = game / "templates" / "t" / "pictured.yaml"
    tpl.write_text("# art on the left, the deck's total under the text\n\n" + tpl.read_text())
    r = check(game, out)
    assert (r.laid_out, r.reused) == (0, SIDES)
    tpl.write_text(tpl.read_text().replace("  - {name: pic,", "  # the picture\n  - {name: pic,"))
    r = check(game, out)
    assert (r.laid_out, r.reused) == (0, SIDES)


def test_an_image_changed_lays_out_the_cards_that_show_it(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    _png(game / "art" / "pic.png", (20, 40), "#1133cc")        # another shape: fitted differently
    r = check(game, out)
    assert (r.laid_out, r.reused) == (4, SIDES - 4)
    assert laid_out_names(r) == ["Red", "Green", "Blue", "Grey"]
    image = next(op for _, _, face in r.faces for op in face.ops if isinstance(op, ops.Image))
    assert (round(image.w, 3), round(image.h, 3)) == (round(15 * 72 / 25.4, 3), round(30 * 72 / 25.4, 3))


def test_an_image_added_later_is_found(game, tmp_path):
    """`later.png` was missing (a placeholder was drawn): once it is there, the cards that
    name it are laid out again and show it."""
    out = tmp_path / "out"
    r = check(game, out)
    assert sum(isinstance(op, ops.Placeholder) for _, _, face in r.faces for op in face.ops) == 4
    _png(game / "art" / "later.png", (10, 10), "#00aa00")
    r = check(game, out)
    assert (r.laid_out, r.reused) == (4, SIDES - 4)
    assert not any(isinstance(op, ops.Placeholder) for _, _, face in r.faces for op in face.ops)


def test_an_icon_changed_lays_out_the_sides_that_show_it(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    write(game / "art" / "icons" / "gem.svg", GEM.replace("L10 5", "L9 5"))
    r = check(game, out)
    assert (r.laid_out, r.reused) == (1, SIDES - 1)          # the Pictured deck's shared back
    assert laid_out_names(r) == []


def test_a_new_version_lays_out_the_cards_that_show_it(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    replace_in(game / "game.yaml", 'version: "1.0"', 'version: "1.1"')
    r = check(game, out)
    assert (r.laid_out, r.reused) == (3, SIDES - 3)          # the Stamped faces; backs and Pictured do not show it
    assert laid_out_names(r) == ["One", "Two", "Three"]
    texts = [run.content for _, _, face in r.faces for op in face.ops if isinstance(op, ops.Text)
             and op.element == "version" for run in op.runs]
    assert texts == ["v1.1"] * 3


def test_a_count_lays_out_the_cards_whose_template_reads_the_decks_total(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    replace_in(game / "pictured.yaml", "{name: Grey, text: Grey things.}", "{name: Grey, text: Grey things., count: 2}")
    r = check(game, out)
    assert (r.laid_out, r.reused) == (4, SIDES - 4)          # `deck.count` is printed on every Pictured face


FRESH = """
import json, sys
from pathlib import Path
from cardgen.core.errors import Report
from cardgen.model import ops
from cardgen.pipeline.check import check_game
game = Path(sys.argv[1])
checked = check_game(game, game, Report(), Path(sys.argv[2]))
checked.layout_cache.save()
r = checked.rendered
print(json.dumps({"laid_out": r.laid_out, "reused": r.reused,
                  "names": [card.name for _, card, face in r.faces if type(face).__name__ != "CachedLayout"],
                  "runs": [[(run.content, run.font) for op in face.ops if isinstance(op, ops.Text)
                            for run in op.runs if run.kind == "text"] for _, _, face in r.faces]}))
"""


def fresh_check(root: Path, out: Path) -> dict:
    """`check_game` in a new process, as the next `cardgen build` runs it (a process reads a
    font file once: a font changed since is what the next process sees)."""
    done = subprocess.run([sys.executable, "-c", FRESH, str(root), str(out)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    return json.loads(done.stdout)


def test_a_font_file_changed_lays_out_the_cards_set_in_it(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    shutil.copy(DATA / "fonts" / "Vollkorn-Bold.ttf", game / "fonts" / "Mine-Regular.ttf")
    got = fresh_check(game, out)
    assert (got["laid_out"], got["reused"], got["names"]) == (3, SIDES - 3, ["One", "Two", "Three"])  # titles in Mine
    got = fresh_check(game, out)
    assert (got["laid_out"], got["reused"], got["names"]) == (0, SIDES, [])


def test_a_fallback_font_changed_lays_out_every_card_that_needed_it(tmp_path):
    """Both cards need the fallback font for the same star; the second one's text is measured
    from what the first one's found (a font book remembers it): its layout still depends on
    the fallback font, and is laid out again when the font changes."""
    root = tmp_path / "stars"
    write(root / "game.yaml", "title: Stars\nfallback_fonts: [Sym]\n")
    (root / "fonts").mkdir()
    shutil.copy(DATA / "fonts" / "DejaVuSans.ttf", root / "fonts" / "Sym-Regular.ttf")
    write(root / "templates" / "s.yaml", """
        elements:
          - {name: title, type: text, x: 4mm, y: 4mm, width: 55mm, height: 20mm, text: "{{ card.name }}", size: 20}
    """)
    write(root / "deck.yaml", 'deck: Stars\ntemplate: s\ncards:\n  - {name: "One \u2605"}\n  - {name: "Two \u2605"}\n')
    out = tmp_path / "out"
    check(root, out)
    assert fresh_check(root, out)["laid_out"] == 0
    shutil.copy(DATA / "fonts" / "Lato-Regular.ttf", root / "fonts" / "Sym-Regular.ttf")     # no star in it
    got = fresh_check(root, out)
    assert (got["laid_out"], got["names"]) == (2, ["One \u2605", "Two \u2605"])
    assert [dict(runs)["\u2605"] for runs in got["runs"]] == ["DejaVuSans", "DejaVuSans"]   # the last fallback


# -- the same layouts, the same problems -----------------------------------------------------

@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file()))
def test_a_warm_layout_equals_a_cold_one_for_every_bundled_game(name, tmp_path):
    root = REPO / "cards" / name
    out = tmp_path / "out"
    cold_report, warm_report = Report(), Report()
    cold = check(root, out, cold_report, REPO)
    warm = check(root, out, warm_report, REPO)
    assert (cold.laid_out, cold.reused) == (len(sides(cold)), 0)
    assert (warm.laid_out, warm.reused) == (0, len(sides(cold)))
    for a, b in zip(sides(cold), sides(warm), strict=True):
        assert isinstance(b, cache.CachedLayout) and not isinstance(a, cache.CachedLayout)
        assert (b.width, b.height, b.bleed, b.shape, b.key, b.stamp) == (a.width, a.height, a.bleed, a.shape, a.key,
                                                                          a.stamp)
        assert b.ops == a.ops
        assert [type(x) for x in b.ops] == [type(x) for x in a.ops]
        assert repr(b.ops) == repr(a.ops)       # exactly: an int stays an int, a path a path
    assert warm_report.items == cold_report.items


NOISY = """
elements:
  - {name: title, type: text, x: 4mm, y: 4mm, width: 55mm, height: 10mm, text: "{{ card.name }}"}
  - {name: body, type: text, x: 4mm, y: 20mm, width: 20mm, height: 5mm, text: "{{ card.text }}", size: 9}
  - {name: stray, type: rect, when: card.stray is defined, x: 100mm, y: 4mm, width: 5mm, height: 5mm,
     fill: "#000000"}
"""
NOISY_DECK = """
deck: Noisy
template: n/face
cards:
  - name: Quiet
    text: Short.
  - name: Wordy
    text: A great many words that cannot possibly fit in so small a box at this size.
  - name: "Tofu \\ue000"
    text: Fine.
  - name: Hebrew
    text: "\\u05e9\\u05dc\\u05d5\\u05dd"
  - name: Stray
    stray: yes
    text: Fine.
  - name: Stray Two
    stray: yes
    text: Fine.
"""


def _lines(report: Report) -> list[str]:
    return [f"{d.loc}: {d.severity}: {d.message} [{d.code}]" for d in report.items]


def test_problems_are_reported_again_in_the_same_places_and_order(tmp_path):
    root = tmp_path / "noisy"
    write(root / "game.yaml", "title: Noisy\n")
    write(root / "templates" / "n" / "face.yaml", NOISY)
    write(root / "deck.yaml", NOISY_DECK)
    out = tmp_path / "out"
    cold = Report()
    check(root, out, cold)
    codes = {d.code for d in cold.items}
    assert {"overflow", "missing-glyph", "off-card"} <= codes
    assert any("and 1 more card" in d.message for d in cold.items if d.code == "off-card")
    warm = Report()
    r = check(root, out, warm)
    assert (r.laid_out, r.reused) == (0, 6)
    assert _lines(warm) == _lines(cold)

    # a line added above every card: the cards that reported problems are laid out again, so
    # that their problems name their new lines; the quiet ones are reused
    replace_in(root / "deck.yaml", "cards:\n", "cards:\n  # a note for the designer\n")
    fresh = _moved_down_a_line(root, out, tmp_path, cold, "deck.yaml")
    again = Report()
    check(root, out, again)
    assert _lines(again) == _lines(fresh)


def test_a_line_added_to_a_template_lays_out_again_the_sides_whose_problems_name_it(tmp_path):
    """Problems name places in the template too (the text that does not fit, the element off
    the card): after a comment moves its lines, the sides that reported problems are laid out
    again and name the new lines; the quiet sides are reused."""
    root = tmp_path / "noisy"
    write(root / "game.yaml", "title: Noisy\n")
    face = root / "templates" / "n" / "face.yaml"
    write(face, NOISY)
    write(root / "deck.yaml", NOISY_DECK)
    out = tmp_path / "out"
    cold = Report()
    check(root, out, cold)
    face.write_text("# noisy cards\n" + face.read_text())
    _moved_down_a_line(root, out, tmp_path, cold, "face.yaml")


def _moved_down_a_line(root: Path, out: Path, tmp_path: Path, cold: Report, moved_file: str) -> Report:
    """Check again after a line was added at the top of `moved_file`: the four noisy sides are
    laid out again, the quiet ones reused, the problems are those of a check without the cache,
    and those naming `moved_file` name the next line.  Returns the check without the cache."""
    moved = Report()
    r = check(root, out, moved)
    assert (r.laid_out, r.reused) == (4, 2)      # (Hebrew is shaped right to left: a quiet side too)
    assert laid_out_names(r) == ["Wordy", "Tofu \ue000", "Stray", "Stray Two"]
    fresh = Report()
    check(root, tmp_path / "fresh", fresh)
    assert _lines(moved) == _lines(fresh)
    before = [(d.loc.line, d.loc.col) for d in cold.items if d.loc.file.endswith(moved_file)]
    assert before and [(d.loc.line, d.loc.col) for d in moved.items if d.loc.file.endswith(moved_file)] == \
        [(line + 1, col) for line, col in before]
    return fresh


def test_validate_and_build_say_the_same_with_and_without_the_cache(tmp_path):
    from cardgen.pipeline.validate import validate_game

    root = tmp_path / "noisy"
    write(root / "game.yaml", "title: Noisy\n")
    write(root / "templates" / "n" / "face.yaml", NOISY)
    write(root / "deck.yaml", NOISY_DECK)
    before = [str(d) for d in validate_game(root, root).diagnostics]
    assert not (root / "build" / ".cache" / "layout.bin").exists()        # validate only reads the cache
    report = Report()
    build_game(root, root, BuildOptions(only=("cards",)), report)
    assert (root / "build" / ".cache" / "layout.bin").is_file()
    cache._open.clear()
    after = [str(d) for d in validate_game(root, root).diagnostics]
    assert after == before
    assert [str(d) for d in report.sorted()] == before
    cache._open.clear()
    again = Report()
    replace_in(root / "deck.yaml", "Short.", "Short, edited.")
    build_game(root, root, BuildOptions(only=("cards",)), again)
    assert [str(d) for d in again.sorted()] == before


# -- the file --------------------------------------------------------------------------------

def test_a_damaged_cache_file_is_deleted_and_everything_laid_out(game, tmp_path):
    out = tmp_path / "out"
    check(game, out)
    path = out / "cached" / ".cache" / "layout.bin"
    blob = bytearray(path.read_bytes())
    blob[-10] ^= 0x40
    path.write_bytes(bytes(blob))
    cache._open.clear()
    checked = check_game(game, game, Report(), out)
    assert checked.rendered is not None and (checked.rendered.laid_out, checked.rendered.reused) == (SIDES, 0)
    assert not path.exists()


def test_a_cache_made_by_another_installation_is_not_read(game, tmp_path, monkeypatch):
    out = tmp_path / "out"
    check(game, out)
    monkeypatch.setattr(digest, "_code", [("another installation", {})])
    assert counts(game, out) == (SIDES, 0)


def test_a_cache_file_of_another_shape_is_ignored(game, tmp_path):
    """Sealed and of this installation, but not what this version writes: nothing is used."""
    out = tmp_path / "out"
    check(game, out)
    path = out / "cached" / ".cache" / "layout.bin"
    head = digest.own_stamp(out / "cached").encode() + b"\n"
    for payload in ({"not": "entries"}, (cache.FORMAT, {b"k": b"not an entry"}, {}), (cache.FORMAT + 1, {}, {})):
        path.write_bytes(seal(head + marshal.dumps(payload)))
        assert counts(game, out) == (SIDES, 0)
    entries = marshal.loads(digest.read_payload(path)[len(head):])[1]
    for garbage in ((1, 2), (b"", ("f",), (), b"", ()), (b"", (), (("w", 1),), b"", ()), (b"", (), (), None, ())):
        path.write_bytes(seal(head + marshal.dumps((cache.FORMAT, dict.fromkeys(entries, garbage), {}))))
        assert counts(game, out) == (SIDES, 0), garbage


def test_drawing_operations_cardgen_did_not_write_are_an_error_not_a_crash(game, tmp_path):
    """Only a file made to look like this installation's gets this far: an entry of the right
    shape whose drawing operations do not decode is reused (they are decoded when drawn), and
    drawing it says what to do instead of failing with a traceback."""
    out = tmp_path / "out"
    check(game, out)
    path = out / "cached" / ".cache" / "layout.bin"
    head = digest.own_stamp(out / "cached").encode() + b"\n"
    entries = marshal.loads(digest.read_payload(path)[len(head):])[1]
    forged = (b"", (), (), b"\xffnot marshal", ())
    path.write_bytes(seal(head + marshal.dumps((cache.FORMAT, dict.fromkeys(entries, forged), {}))))
    r = check(game, out)
    assert r.reused == SIDES
    with pytest.raises(CardgenError) as caught:
        _ = r.faces[0][2].ops
    (d,) = caught.value.diagnostics
    assert d.loc.file == str(path) and d.message == (
        "card side pictured/0/face: the layout cache holds what cardgen did not write; delete the file and build "
        "again")


# -- the parts -------------------------------------------------------------------------------

def test_drawing_operations_come_back_exactly():
    icon, art = Path("/x/art/icons/gem.svg"), Path("art/pic.png")
    layout = [
        ops.Rect(1, 2.5, 3, 4, (1.0, 0.0, 0.0, 1.0), None, 0.5, 2.0, (1.0, 2.0), 15),
        ops.Ellipse(0.0, 0.0, 10.0, 5.0, None, (0, 0, 0, 1), 1.0),
        ops.Line(0, 0, 10.5, 3, (0.2, 0.2, 0.2, 1.0), 0.3, (), -2.5),
        ops.Path(((0.0, 0.0), (1.0, 2.0), (3, 1)), False, None, (0, 0, 1, 1), 0.7, (), 0.0, (0.0, 0.0, 3.0, 2.0)),
        ops.Text(1, 2, 30, 10, (ops.Run(1.0, 9.0, "text", "Héllo", "Lato-Regular", 9.0, (0, 0, 0, 1), 20.5),
                               ops.Run(22.0, 9.0, "icon", icon, "", 9.0, None, 9.0)), 9.0, True, 0.0, "body"),
        ops.Image(art, 1.0, 2.0, 3.0, 4.0, (0.0, 0.0, 5.0, 5.0), 0.0, (0.0, 0.0, 5.0, 5.0)),
        ops.Image(art, 1.0, 2.0, 3.0, 4.0, None, 90.0, ()),
        ops.Icon(icon, 1, 2, 3, 4, (1.0, 1.0, 1.0, 1.0), 45.0),
        ops.Placeholder(0.0, 0.0, 20.0, 20.0, "art to come", 0.0),
    ]
    back = cache.decode_ops(marshal.loads(marshal.dumps(cache.encode_ops(layout))))
    assert back == layout
    assert repr(back) == repr(layout)
    assert {type(op) for op in layout} == set(cache._KINDS)      # every kind of operation
    lazy = cache.CachedLayout(10.0, 20.0, 3.0, None, "d/0/face", "rect", [2],
                              encoded=cache.pack_ops(layout))
    assert "ops" not in vars(lazy)
    assert (lazy.width, lazy.height, lazy.bleed, lazy.ops, lazy.key, lazy.shape, lazy.stamp) == \
        (10.0, 20.0, 3.0, layout, "d/0/face", "rect", [2])


def test_a_packed_side_holds_no_more_memory_than_its_bytes():
    """A side is held packed (a 10,000-card build holds them all): the memory its packed bytes
    take is about their length, not the room the compressor set aside (about the size of the
    operations unpacked), and they unpack to the same operations."""
    import tracemalloc

    runs = tuple(ops.Run(1.0 + i, 9.0, "text", f"word{i % 7}", "Lato-Regular", 9.0, (0.0, 0.0, 0.0, 1.0), 20.5)
                 for i in range(60))
    layout = [ops.Text(1.0, 2.0, 30.0, 10.0, runs, 9.0)]
    raw = len(marshal.dumps(cache.encode_ops(layout), 2))
    cache.pack_ops(layout)          # (the compressor made, outside what is measured)
    tracemalloc.start()
    try:
        packed = [cache.pack_ops(layout) for _ in range(200)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = sum(map(len, packed))
    assert size < 200 * raw / 3                     # (they are compressed)
    assert held < size + 200 * 100                  # (their bytes and an object's header each)
    assert cache.unpack_ops(packed[0]) == layout


def test_what_a_template_value_may_read_of_deck_and_game():
    assert data_read("{{ game.version }}") == {"game": frozenset({"version"})}
    assert data_read("v{{ game['version'] }} of {{ deck.count }}") == {"game": frozenset({"version"}),
                                                                       "deck": frozenset({"count"})}
    assert data_read("{{ game.decks[deck.name].count }}") == {"game": frozenset({"decks"}),
                                                             "deck": frozenset({"name"})}
    assert data_read("deck.count > 3", condition=True) == {"deck": frozenset({"count"})}
    assert data_read("{{ card.cost }}") == {} and data_read("plain text") == {}
    # the whole mapping: passed to a filter, looped over, looked up by a computed key, renamed
    for whole in ("{{ game | tojson }}", "{% for k in game %}{{ k }}{% endfor %}", "{{ game[card.key] }}",
                  "{% set g = game %}{{ g.version }}", "{{ game|attr('version') }}"):
        assert data_read(whole) == {"game": None}, whole
    assert data_read("{{ broken") == {"deck": None, "game": None}


def test_icon_names_are_the_icons_parse_finds():
    """`icon_names` (what the validator checks in every card's text) finds its icons without
    parsing the text into words: the same names, in the same order, as `parse`."""
    import random

    from cardgen.text.markup import BREAK, icon_names, parse

    def parsed(text: str) -> list[str]:
        return [f.value for para in parse(text) for item in para if item is not BREAK for f in item
                if f.kind == "icon"]

    assert icon_names("Gain :coins::coins: and \\:not: or *:star:* **x:y:**\n\n:a-b+c:") == \
        ["coins", "coins", "star", "y", "a-b+c"]
    pieces = ["a", ":", "\\", "*", "**", " ", "\t", "\n", "\n \n", "_", "-", "+", "é", ":coins:", "\\:", "::",
              "\x1c", "\u2028"]
    rng = random.Random(15)
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
        assert icon_names(text) == parsed(text), repr(text)


def test_a_rebuild_takes_the_sides_hashes_from_the_cache_and_records_what_a_clean_build_does(game, tmp_path,
                                                                                             monkeypatch):
    """The content hashes a build works out for each side (its drawing's, for card forms and
    output parts; the manifest's) and what drawing it needs (`ops.needs`: its characters, by
    font, and its files) are kept with the side: a rebuild after one edit hashes only the edited
    card's sides and decodes none of the others (the edited card's, held packed once laid out,
    are decoded to be drawn), and its manifest and output files are those of
    a build without the cache, byte for byte."""
    out = tmp_path / "out"
    only = ("print", "cards")
    build_game(game, game, BuildOptions(out=out, only=only), Report())
    cold = tmp_path / "cold"                    # the same output with no cache: the same revisions
    shutil.copytree(out, cold, symlinks=True)
    shutil.rmtree(cold / "cached" / ".cache")
    replace_in(game / "stamped.yaml", "The first card.", "The first card, edited.")
    hashed: list[str] = []
    real_digest, real_decode = digest.digest, cache.decode_ops
    monkeypatch.setattr(ops, "digest", lambda *v: hashed.append("x") or real_digest(*v))
    decoded: list[str] = []
    monkeypatch.setattr(cache, "decode_ops", lambda e: decoded.append("x") or real_decode(e))
    cache._open.clear()
    build_game(game, game, BuildOptions(out=out, only=only), Report())
    assert len(hashed) == 2            # the edited card's face and its own back
    assert 1 <= len(decoded) <= 2      # only those, laid out anew and held packed, decoded to be drawn
    monkeypatch.undo()
    cache._open.clear()
    build_game(game, game, BuildOptions(out=cold, only=only), Report())
    for name in ("manifest.json", "print-letter.pdf", "print-a4.pdf", "cards.pdf"):
        assert (out / "cached" / name).read_bytes() == (cold / "cached" / name).read_bytes(), name


def test_a_cache_without_what_drawing_needs_gets_it_from_the_next_build(game, tmp_path, monkeypatch):
    """Entries kept without `ops.needs` (by a build that drew nothing, or an older cache) are
    decoded once, when a build draws them, and kept with it from then on."""
    out = tmp_path / "out"
    only = ("print",)
    build_game(game, game, BuildOptions(out=out, only=only), Report())
    path = out / "cached" / ".cache" / "layout.bin"
    head = digest.own_stamp(out / "cached").encode() + b"\n"
    fmt, entries, hashes = marshal.loads(digest.read_payload(path)[len(head):])
    assert {len(e[5]) for e in entries.values()} == {3}         # two hashes and the needs
    stripped = {k: (*e[:5], e[5][:2]) for k, e in entries.items()}
    path.write_bytes(seal(head + marshal.dumps((fmt, stripped, hashes))))
    real_decode = cache.decode_ops
    decoded: list[str] = []
    monkeypatch.setattr(cache, "decode_ops", lambda e: decoded.append("x") or real_decode(e))
    # (and each time the edited face, laid out anew, held packed, decoded to be drawn)
    for n, expected in ((1, SIDES - 2 + 1), (2, 1)):
        replace_in(game / "stamped.yaml", "The first card", f"The first card ({n})")
        decoded.clear()
        cache._open.clear()
        build_game(game, game, BuildOptions(out=out, only=only), Report())
        assert len(decoded) == expected


def test_sides_laid_out_are_held_packed_and_decoded_a_few_at_a_time(game, tmp_path, monkeypatch):
    """A side the build lays out is held packed (`cache.PackedLayout`: its operations as the
    cache keeps them), with its hashes and what drawing it needs worked out while its
    operations were at hand, equal to those of the same side laid out without a cache; its
    operations decode to exactly the layout's, and a pass over every side holds at most
    `cache.KEEP` of them decoded at a time."""
    from cardgen.layout.engine import Layouter
    from cardgen.layout.sidehash import SideHasher
    from cardgen.resources.fonts import font_files

    packed = sides(check(game, tmp_path / "out"))
    with monkeypatch.context() as m:
        m.setattr(Layouter, "_packed", lambda self, layout, packed, encoded, dumped: layout)
        plain = sides(check(game, tmp_path / "plain"))
    assert all(type(s) is cache.PackedLayout and "ops" not in vars(s) for s in packed)
    assert not any(isinstance(s, cache.PackedLayout) for s in plain)
    monkeypatch.setattr(cache, "KEEP", 2)
    hasher = SideHasher()
    before = cache.decoded
    for a, b in zip(packed, plain, strict=True):
        assert (a._digest, a._side_hash, a._needs) == (ops.layout_digest(b, font_files()), hasher.side(b),
                                                       ops.needs(b))
        assert repr(a.ops) == repr(b.ops) and a.ops == b.ops   # (decoded once: kept while among the last 2)
        assert cache.held_decoded() <= 2
    assert cache.decoded - before == len(packed)
    assert sum("ops" in vars(s) for s in packed) == 2
