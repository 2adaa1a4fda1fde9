"""The card forms the raster workers draw, offered to the print documents (`raster.offer_forms`):
a first build of the default outputs renders every side for the contrast check, and the print
sheets, the fold-over sheets and cards.pdf then draw none of those sides again."""
from __future__ import annotations

from pathlib import Path

from conftest import write

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import raster
from cardgen.render.formcache import FormCache

FACE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#f4eedd"}
  - {name: title, type: text, x: 4mm, y: 4mm, width: 55mm, height: 10mm, text: "{{ card.name }}", style: bold,
     size: 12}
  - {name: text, type: text, x: 4mm, y: 20mm, width: 55mm, height: 40mm, text: "{{ card.text }}", style: italic,
     size: 10}
"""
BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#243b6b"}
  - {name: title, type: text, x: 4mm, y: 38mm, width: 55mm, height: 12mm, text: "Offered", style: bold, size: 16,
     color: "#ffffff", align: center}
"""
CARDS = 40
EARLY = "Attack the settlement."         # Lato Italic: the tt ligature, a glyph no character reaches
LATE = "Starting abilities, fitting."    # ti and fi ligatures: glyphs coded before the tt one (lower numbers)
PRINTED = ("print-letter.pdf", "print-a4.pdf", "print-letter-foldover.pdf", "print-a4-foldover.pdf", "cards.pdf")


def make_game(root: Path) -> Path:
    game = root / "offered"
    cards = "".join(f'  - {{name: "Card {i + 1:02d}", text: "{EARLY if i < CARDS // 2 else LATE}"}}\n'
                    for i in range(CARDS))
    for name, text in (("templates/face.yaml", FACE), ("templates/back.yaml", BACK),
                       ("game.yaml", "title: Offered\ncard_size: poker\n"),
                       ("words.yaml", "deck: Words\ntemplate: face\nback: back\ncards:\n" + cards)):
        write(game / name, text)
    return game


def test_the_print_documents_draw_no_side_the_raster_workers_drew(tmp_path):
    """Every side (40 faces, one back: enough for worker processes) is drawn once, by the
    worker that renders it for the contrast check; the five print documents take its form, and
    are byte for byte those of a build that renders nothing (where they draw every side).
    The workers' chunks each lack some of the ligatures (the first ones only the tt ligature,
    whose glyph number is higher than the others'): a worker codes the fonts as the print
    documents do all the same, so each form shows its own glyphs."""
    assert len(raster._chunks(list(range(CARDS + 1)), 2)[0]) <= CARDS // 2    # (a chunk of the first half only)
    game = make_game(tmp_path)
    build_game(game, game, BuildOptions(out=tmp_path / "all"), Report())
    cache = FormCache.of(tmp_path / "all" / "offered")
    # (drawn: the tuck boxes' 3 sides, front = back, side, lid = bottom, named for the box's faces too)
    assert (cache.offered, cache.drawn) == (CARDS + 1, 3)
    build_game(game, game, BuildOptions(out=tmp_path / "pdfs", only=("print", "foldover", "cards")), Report())
    alone = FormCache.of(tmp_path / "pdfs" / "offered")
    assert (alone.offered, alone.drawn) == (0, CARDS + 1)
    for name in PRINTED:
        made = (tmp_path / "all" / "offered" / name).read_bytes()
        assert made == (tmp_path / "pdfs" / "offered" / name).read_bytes(), name


def test_a_build_without_print_documents_offers_nothing(tmp_path):
    """`--only tts`: the workers draw the sides as they always did, and no form is offered."""
    game = make_game(tmp_path)
    build_game(game, game, BuildOptions(out=tmp_path / "out", only=("tts",)), Report())
    assert raster._offering == []
    assert FormCache.of(tmp_path / "out" / "offered").offered == 0


def test_past_so_many_characters_no_form_is_offered(tmp_path, monkeypatch):
    """A game setting more characters than `OFFER_MOST` (a script of thousands) has its forms
    drawn by the print documents: each worker's PDF would embed every one of them."""
    from cardgen.render import draw

    chars = {"Lato-Regular": {chr(0x4E00 + i) for i in range(raster.OFFER_MOST + 1)}}
    monkeypatch.setattr(draw, "text_chars", lambda sides, fonts: chars)
    cache = raster.Cache(tmp_path / ".cache" / "raster")
    raster.offer_forms(tmp_path, [object()], None)
    assert raster._offered_chars(cache) is None
    chars = {"Lato-Regular": {"a", "b"}}
    raster.offer_forms(tmp_path, [object()], None)
    assert raster._offered_chars(cache) == chars
    assert raster._offered_chars(raster.Cache(tmp_path / "elsewhere")) is None     # (another folder's bitmaps)
    raster.offer_forms(None)
    assert raster._offering == [] and raster._offered_chars(cache) is None


def test_an_offered_form_is_kept_only_if_a_document_took_it(tmp_path):
    """`FormCache.offer`: not counted as drawn or found; saved with the cache only once found."""
    folder = tmp_path / "game"
    (folder / ".cache").mkdir(parents=True)
    cache = FormCache(folder / ".cache" / FormCache.NAME)
    cache.offer("taken", ("q Q", [], (), [], None))
    cache.offer("left", ("q Q", [], (), [], None))
    cache.offer("taken", ("other", [], (), [], None))      # (the first offer stands)
    assert (cache.offered, cache.drawn, cache.reused) == (2, 0, 0)
    assert cache.get("taken") == ("q Q", [], (), [], None)
    assert cache.reused == 1
    cache.save()
    again = FormCache(folder / ".cache" / FormCache.NAME)
    assert again.has("taken") and not again.has("left")


def test_a_fonts_token_leaves_out_characters_it_cannot_code(tmp_path):
    """`CardCanvas.fix_resources`: a shaped glyph's code (`PSEUDO + glyph`) that this process
    has not made known to the font takes no code in the document (ReportLab skips it, and the
    characters after it take the codes it would have had), so it is not in the font's token:
    two documents with equal tokens code every character alike."""
    from reportlab.pdfbase.pdfmetrics import getFont

    from cardgen.core.data import DATA
    from cardgen.render.draw import new_canvas
    from cardgen.render.glyphs import register
    from cardgen.resources.fonts import FontBook
    from cardgen.resources.shaping import PSEUDO

    fonts = FontBook([DATA / "fonts"])
    glyph = chr(PSEUDO + 0x7AB)        # (a glyph no other test shapes: this process has not registered it)
    before = new_canvas(None, fonts).fix_resources({"Lato-Italic": {"é", glyph}})
    assert before["Lato-Italic"].endswith(":é")
    register(getFont("Lato-Italic"), glyph)
    after = new_canvas(None, fonts).fix_resources({"Lato-Italic": {"é", glyph}})
    assert after["Lato-Italic"].endswith(":é" + glyph)
