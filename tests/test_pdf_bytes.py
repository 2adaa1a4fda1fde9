"""A one-card edit rewrites one card: every other card's objects in the print sheets keep their
bytes (read back object by object), the sheets are byte for byte those of a clean build, and a
reused card side is not shaped again beyond what its PDF needs (issue 30)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import write
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from cardgen.core.digest import plain_digest
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import rlcompat

FACE = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#f4efe0"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 10mm, text: "{{ card.name }}", size: 12}
  - {name: text, type: text, x: 5mm, y: 20mm, width: 53.5mm, height: 40mm, text: "{{ card.text }}",
     font: Vollkorn, size: 11}
"""
BACK = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#224488"}
"""
CARDS = 12
EDITED = 7


def make_game(root: Path) -> Path:
    game = root / "dozen"
    write(game / "game.yaml", "title: Dozen\n")
    write(game / "templates" / "face.yaml", FACE)
    write(game / "templates" / "back.yaml", BACK)
    lines = [f"  - {{name: Card {i:02d}, text: 'The office of card {i} opens at dawn.'}}" for i in range(1, CARDS + 1)]
    write(game / "deck.yaml", "deck: Things\ntemplate: face\nback: back\ncards:\n" + "\n".join(lines) + "\n")
    return game


def build(game: Path, out: Path, only: tuple[str, ...] = ("print", "cards")) -> tuple[int, int]:
    """Build the print sheets and cards.pdf: (bytes of the PDFs taken as kept, bytes made)."""
    report = Report()
    before = list(rlcompat.WRITTEN)
    build_game(game, game, BuildOptions(out=out, only=only), report)
    assert not [d for d in report.items if d.severity == "error"], [d.message for d in report.items]
    return rlcompat.WRITTEN[0] - before[0], rlcompat.WRITTEN[1] - before[1]


def edit(game: Path) -> None:
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace(f"card {EDITED} opens at dawn", f"card {EDITED} closes at dusk"))


def raw_objects(pdf: Path) -> dict[int, bytes]:
    """Object number -> the bytes of that object as the file holds them (`N 0 obj` to
    `endobj`), found through pypdf's reading of the cross-reference table."""
    data = pdf.read_bytes()
    reader = PdfReader(pdf)
    out = {}
    for num, offset in reader.xref[0].items():
        end = data.index(b"endobj", offset)
        out[num] = data[offset:end]
    return out


def card_forms(pdf: Path) -> dict[int, str]:
    """Object number -> the text of each card form (the forms the pages place), as its
    content stream sets it (ASCII text keeps its own codes)."""
    reader = PdfReader(pdf)
    forms = {}
    for page in reader.pages:
        for ref in page["/Resources"]["/XObject"].values():
            form = ref.get_object()
            if form["/Subtype"] == "/Form":
                forms[ref.idnum] = "".join(m.decode("latin-1") for m in re.findall(rb"\((.*?)\)", form.get_data()))
    return forms


PDFS = ("print-letter.pdf", "print-a4.pdf", "cards.pdf")
WRITTEN: dict[str, tuple[int, int]] = {}     # (kept, made) bytes of the edit's build and of the clean build


@pytest.fixture
def edited(tmp_path):
    """(the print sheets before the edit, after it, a clean build's after it, the game)."""
    game = make_game(tmp_path)
    out = tmp_path / "out"
    build(game, out)
    before = {name: (out / "dozen" / name).read_bytes() for name in PDFS}
    kept = tmp_path / "before"
    kept.mkdir()
    for name, data in before.items():
        (kept / name).write_bytes(data)
    edit(game)
    WRITTEN["edit"] = build(game, out)
    fresh = tmp_path / "fresh"
    WRITTEN["clean"] = build(game, fresh)
    return kept, out / "dozen", fresh / "dozen", game


@pytest.mark.parametrize("name", ["print-letter.pdf", "cards.pdf"])
def test_a_one_card_edit_leaves_every_other_object_byte_identical(edited, name):
    before, after, fresh, _ = edited
    old, new = raw_objects(before / name), raw_objects(after / name)
    assert old.keys() == new.keys()
    changed = {num for num in old if old[num] != new[num]}
    forms = card_forms(after / name)
    edited_forms = {num for num, text in forms.items() if "closesatdusk" in text.replace(" ", "")}
    assert edited_forms, forms          # (the edited card's form, found by its new words)
    assert changed == edited_forms      # nothing else: no other card, page, font or resource
    assert (after / name).read_bytes() == (fresh / name).read_bytes()      # as a clean build makes it


def test_a_one_card_edit_makes_only_that_cards_objects_and_the_cross_reference(edited):
    """The PDFs after the edit are assembled from the last build's files: the bytes made anew
    (formatted, compressed) are the edited card's form objects and each file's cross-reference
    and trailer, counted; every other byte is taken as it was.  A clean build makes them all
    (but for card form streams it compressed for an earlier PDF of the same build)."""
    _, after, fresh, _ = edited
    expected = 0
    for name in PDFS:
        data = (after / name).read_bytes()
        objects = raw_objects(after / name)
        forms = card_forms(after / name)
        expected += sum(len(objects[num]) + len(b"endobj\n") for num, text in forms.items()
                        if "closesatdusk" in text.replace(" ", ""))
        at = data.rindex(b"startxref\n") + len(b"startxref\n")
        expected += len(data) - int(data[at:data.index(b"\n", at)])          # xref table, trailer
        assert data == (fresh / name).read_bytes()
    total = sum(len((after / name).read_bytes()) for name in PDFS)
    (kept, made), (clean_kept, clean_made) = WRITTEN["edit"], WRITTEN["clean"]
    assert kept + made == clean_kept + clean_made == total
    assert made == expected
    assert made * 20 < clean_made


def test_fold_over_sheets_are_assembled_from_the_last_files_too(tmp_path):
    game = make_game(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    build(game, out, ("foldover",))
    edit(game)
    _, made = build(game, out, ("foldover",))
    _, clean_made = build(game, fresh, ("foldover",))
    names = sorted(p.name for p in (out / "dozen").glob("*-foldover.pdf"))
    assert names == ["print-a4-foldover.pdf", "print-letter-foldover.pdf"]
    for name in names:
        assert (out / "dozen" / name).read_bytes() == (fresh / "dozen" / name).read_bytes()
    assert made * 20 < clean_made


def test_a_one_card_edit_makes_one_card_form_object_a_file(tmp_path, monkeypatch):
    """With the structure of each file as the last build's, only the forms whose reuse key
    changed are made (`render.assemble.deferred`): one form object for each of the three
    files, none for the other 12 sides each holds (counted), and the files are a clean
    build's.  The form cache still keeps the forms not made."""
    from cardgen.render import draw
    from cardgen.render.formcache import FormCache, _open

    def kept() -> set:
        """The form cache's entries as its file holds them."""
        _open.clear()
        cache = FormCache.of(out / "dozen")
        cache.load()
        return set(cache.entries)

    game = make_game(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    build(game, out)
    before = kept()
    edit(game)
    made: set[tuple[int, int]] = set()
    drawers: list = []      # (each kept, so that no other drawer is given its id)
    real = draw.Drawer.card_form

    def spy(self, layout):
        made.add((id(self), id(layout)))
        drawers.append(self)
        return real(self, layout)

    monkeypatch.setattr(draw.Drawer, "card_form", spy)
    build(game, out)
    assert len(made) == len(PDFS)
    after = kept()          # the forms not made still kept (used), the edited one's replaced
    assert len(after) == len(before) and len(after - before) == 1
    monkeypatch.setattr(draw.Drawer, "card_form", real)
    build(game, fresh)
    for name in PDFS:
        assert (out / "dozen" / name).read_bytes() == (fresh / "dozen" / name).read_bytes(), name


def test_a_file_a_build_kept_as_it_was_stays_assembled_by_the_next(tmp_path):
    from cardgen.render.formcache import _open

    """A build that keeps cards.pdf as it was (only the print sheets' options changed) keeps
    its entry in the cache too (`PdfCache.payload`: before, only the entries of the files it
    made): the next edit assembles cards.pdf from its last file, not writes it whole."""
    game = make_game(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    build(game, out)
    (game / "game.yaml").write_text("title: Dozen\nprint:\n  flip: short\n")
    _open.clear()           # (each build a process of its own: the caches read from their files)
    build(game, out)
    edit(game)
    _open.clear()
    _, made = build(game, out, ("cards",))
    _, clean_made = build(game, fresh, ("cards",))
    assert made * 20 < clean_made
    assert (out / "dozen" / "cards.pdf").read_bytes() == (fresh / "dozen" / "cards.pdf").read_bytes()


def test_a_deferred_file_that_cannot_be_assembled_is_made_again_whole(tmp_path, monkeypatch):
    """A file whose kept entry lacks the number of something the edited form refers to (here
    the fonts' dictionary: the entry says no names) is found out once that form is made: the
    document is made again from its start and written whole, a clean build's bytes (a form
    made first would otherwise have taken another object number)."""
    from cardgen.render import assemble

    game = make_game(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    monkeypatch.setattr(assemble, "_named", lambda doc, forms: [])
    build(game, out)
    edit(game)
    fallbacks = []
    real = assemble.Fallback.__init__

    def spy(self, *args):
        fallbacks.append(1)
        real(self, *args)

    monkeypatch.setattr(assemble.Fallback, "__init__", spy)
    build(game, out)
    assert len(fallbacks) == len(PDFS)
    build(game, fresh)
    for name in PDFS:
        assert (out / "dozen" / name).read_bytes() == (fresh / "dozen" / name).read_bytes(), name


@pytest.mark.parametrize("change", ["new letter", "damaged file"])
def test_the_last_files_are_not_taken_when_more_than_card_forms_changed(tmp_path, change):
    """A character no card set before (not ASCII: ASCII keeps its own codes) renumbers the
    font's codes (every form and the font change): nothing is taken from the last files.  A last file changed since it was written
    (its SHA-256 is checked) is not read either.  Both give a clean build's bytes."""
    game = make_game(tmp_path)
    out = tmp_path / "out"
    build(game, out)
    if change == "damaged file":
        path = out / "dozen" / "print-letter.pdf"
        data = bytearray(path.read_bytes())
        at = data.index(b"/Title (") + len(b"/Title (")
        data[at] ^= 0x20
        path.write_bytes(bytes(data))
        edit(game)
    else:
        deck = game / "deck.yaml"
        deck.write_text(deck.read_text().replace(f"card {EDITED} opens", f"card {EDITED} opens na\u00efvely"))
    _, made = build(game, out)
    fresh = tmp_path / "fresh"
    build(game, fresh)
    for name in PDFS:
        assert (out / "dozen" / name).read_bytes() == (fresh / "dozen" / name).read_bytes()
    letter = len((out / "dozen" / "print-letter.pdf").read_bytes())
    assert made > letter        # (the letter sheets at least made anew: with a new letter, every file)


GEM = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 10 10">'
       '<path d="M5 0 L10 5 L5 10 L0 5 Z" fill="{}"/></svg>')


def test_an_icon_file_changed_is_not_taken_from_the_last_files(tmp_path):
    """The cards show the game's own icon; its file changed (another colour) with a card's
    text: the structure key covers the SVG by content, so nothing is taken from the last files
    (the icon's form object is another), and each file is a clean build's."""
    game = make_game(tmp_path)
    face = game / "templates" / "face.yaml"
    face.write_text(FACE + "  - {name: gem, type: icon, icon: gem, x: 50mm, y: 70mm, width: 8mm, height: 8mm}\n")
    write(game / "art" / "icons" / "gem.svg", GEM.format("#cc2222"))
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    build(game, out)
    write(game / "art" / "icons" / "gem.svg", GEM.format("#2222cc"))
    edit(game)
    _, made = build(game, out)
    _, clean_made = build(game, fresh)
    assert made * 2 > clean_made        # written whole (assembled: under a twentieth)
    for name in PDFS:
        assert (out / "dozen" / name).read_bytes() == (fresh / "dozen" / name).read_bytes(), name


def test_a_reused_side_is_shaped_again_only_where_its_pdf_needs_glyphs(tmp_path, monkeypatch):
    """A card side taken from the form cache says to its font what each ligature glyph stands
    for (its ToUnicode text): only its runs drawn with such glyphs are shaped for it, once a
    process for both papers, not every word of it (a tenth of a rebuild's time).  A side the
    last file's form showed (the same `Drawer.side_ident`, the fonts named and coded alike)
    takes that form's reuse key: neither named nor keyed again; only the edited card is."""
    from cardgen.render import draw
    from cardgen.resources.fonts import FontBook

    game = make_game(tmp_path)
    out = tmp_path / "out"
    build(game, out)
    edit(game)
    shaped: list[str] = []
    naming = []
    real_shaped, real_name = FontBook.shaped, draw.Drawer._name_glyphs

    def spy_shaped(self, text, font_name):
        if naming:
            shaped.append(text)
        return real_shaped(self, text, font_name)

    def spy_name(self, layout):
        naming.append(1)
        try:
            return real_name(self, layout)
        finally:
            naming.pop()

    keyed = []
    real_key = draw.Drawer._reuse_key

    def spy_key(self, layout, tokens):
        keyed.append(layout)
        return real_key(self, layout, tokens)

    monkeypatch.setattr(FontBook, "shaped", spy_shaped)
    monkeypatch.setattr(draw.Drawer, "_name_glyphs", spy_name)
    monkeypatch.setattr(draw.Drawer, "_reuse_key", spy_key)
    build(game, out)
    # the edited face alone, its one run drawn with a ligature (Vollkorn's ffi), named and keyed
    # once for the two papers and cards.pdf
    assert shaped == ["office"] and len(keyed) == 1
    fresh = tmp_path / "fresh"
    build(game, fresh)
    for name in ("print-letter.pdf", "print-a4.pdf", "cards.pdf"):
        assert (out / "dozen" / name).read_bytes() == (fresh / "dozen" / name).read_bytes(), name


DRAW = """
import sys
from pathlib import Path
from reportlab.pdfbase import ttfonts
parsed = []
real = ttfonts.TTFontFace.__init__
def spy(self, *args, **kwargs):
    parsed.append(1)
    return real(self, *args, **kwargs)
ttfonts.TTFontFace.__init__ = spy
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import rlcompat
game, out = Path(sys.argv[1]), Path(sys.argv[2])
build_game(game, game, BuildOptions(out=out, only=("cards",)), Report())
print(len(parsed))
"""


def test_fonts_are_parsed_once_per_file_version_and_draw_the_same_bytes(tmp_path):
    """The fonts a PDF draws with are parsed by ReportLab once per font file version and
    machine (`fonts._for_drawing`, kept in the user's cache): a second process parses none,
    and its PDF is byte for byte the first one's (ligatures' widths scaled from the font's
    units as the parser scales them: Lato has 2,000 a size, Vollkorn 1,000)."""
    import os
    import subprocess
    import sys

    from conftest import REPO

    game = make_game(tmp_path)
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("name: Card", "name: Official"))     # (Lato's ffi)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "user-cache"), PYTHONPATH=str(REPO))

    def draw(out: str) -> int:
        done = subprocess.run([sys.executable, "-c", DRAW, str(game), str(tmp_path / out)], env=env, check=True,
                              capture_output=True, text=True)
        return int(done.stdout.split()[-1])

    assert draw("first") >= 2                   # Lato and Vollkorn, measured and drawn
    faces = list((tmp_path / "user-cache" / "cardgen" / "font-faces").iterdir())
    assert len(faces) >= 2
    assert draw("second") == 0
    first, second = ((tmp_path / out / "dozen" / "cards.pdf").read_bytes() for out in ("first", "second"))
    assert first == second and b"/ToUnicode" in first
    damaged = bytearray(faces[0].read_bytes())
    damaged[-3] ^= 0x01
    faces[0].write_bytes(bytes(damaged))
    assert draw("third") == 1                   # that one parsed again (and kept again)
    assert (tmp_path / "third" / "dozen" / "cards.pdf").read_bytes() == first
    assert draw("fourth") == 0


def test_a_drawn_font_is_named_by_the_hash_its_face_was_found_by(tmp_path):
    """`fonts._for_drawing` hashes each font's bytes to find its parsed face in the user's
    cache and marks the face with that SHA-256; a document names the font by it
    (`rlcompat._font_ident`) without hashing the bytes again (1.8 MB in a one-card edit of
    the print sheets).  The mark is the SHA-256 of the bytes ReportLab draws with, and the
    PDF's font resources carry it."""
    import hashlib

    from reportlab.pdfbase import pdfmetrics

    from cardgen.resources import fonts

    game = make_game(tmp_path)
    build_game(game, game, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    pdf = (tmp_path / "out" / "dozen" / "cards.pdf").read_bytes()
    marked = [f for f in pdfmetrics._fonts.values() if fonts.SHA256 in getattr(getattr(f, "face", None), "__dict__", {})]
    assert marked
    for font in marked:
        assert fonts.data_sha256(font) == hashlib.sha256(font.face._ttf_data).hexdigest()
    used = [f for f in marked if b"/F" + fonts.data_sha256(f)[:10].encode() in pdf]
    assert len(used) >= 2                       # (Lato and Vollkorn)


def test_the_pdfx_font_preflight_reads_font_objects_straight_from_the_bytes(tmp_path):
    """`pdfx.unembedded_fonts` finds a ReportLab file's fonts in its bytes, through its
    cross-reference table (a one-card rebuild need not read the whole PDF/X back with pypdf),
    with the answer pypdf's walk from the pages gives; a file it cannot read so is walked."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from cardgen.render import pdfx

    buf = io.BytesIO()
    c = Canvas(buf)
    c.setFont("Times-Italic", 10)
    c.drawString(10, 10, "x")
    c.beginForm("f")
    c.setFont("Courier", 10)
    c.drawString(10, 10, "y")
    c.endForm()
    c.doForm("f")
    c.save()
    plain = buf.getvalue()
    assert pdfx._font_objects(plain) == pdfx._unembedded_walked(plain) == ["Courier", "Helvetica", "Times-Italic"]
    game = make_game(tmp_path)
    report = Report()
    build_game(game, game, BuildOptions(out=tmp_path / "out", only=("pdfx",)), report)
    made = (tmp_path / "out" / "dozen" / "print-service" / "things-pdfx.pdf").read_bytes()
    assert b"/FontFile2" in made and pdfx._font_objects(made) == pdfx._unembedded_walked(made) == []
    # an embedded font's descriptor without its file: read as not embedded
    bare = made.replace(b"/FontFile2", b"/FontFileX", 1)
    assert len(pdfx._font_objects(bare) or []) == 1 and pdfx._font_objects(bare) == pdfx._unembedded_walked(bare)
    # no cross-reference table where the file says: not read from the bytes, walked
    moved = plain.replace(b"startxref\n", b"startxref\n1", 1)
    assert pdfx._font_objects(moved) is None
    assert pdfx.unembedded_fonts(moved) == ["Courier", "Helvetica", "Times-Italic"]



def test_a_one_card_edit_converts_one_side_and_makes_only_its_objects_of_the_pdfx_file(tmp_path, monkeypatch):
    """The print-service file keeps each card side's conversion (`pdfxcache.Piece`), for sides
    drawn with ligature glyphs too (each face here shows Vollkorn's ffi): after a one-card
    edit one side is converted.  And the file is assembled from the last build's like the
    print sheets: the bytes made anew are the edited face's form object and the
    cross-reference; every other object (the output intent and its profile, the fonts, the
    pages) is taken as it was, and the file is a clean build's, with its PDF/X keys and /ID."""
    from cardgen.render import formcache
    from cardgen.render.pdfxcache import PdfxCache

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    game = make_game(tmp_path)
    face = game / "templates" / "face.yaml"         # (an icon: each side's piece names the SVG forms it asks for)
    face.write_text(face.read_text() + "  - {name: mark, type: icon, icon: coins, x: 50mm, y: 75mm, width: 8mm, "
                                       "height: 8mm}\n")
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    name = "print-service/things-pdfx.pdf"
    build(game, out, ("pdfx",))
    assert PdfxCache.of(out / "dozen").converted == CARDS + 1          # every face and the back
    before = raw_objects(out / "dozen" / name)
    edit(game)
    monkeypatch.setattr(formcache, "_open", {})                        # another process, as `cardgen build` is
    settled = []                    # kept sides' forms encoded and compressed (`_Form.later`): none, not written
    settle, later = rlcompat._Form._settle, rlcompat._Form.later
    monkeypatch.setattr(rlcompat._Form, "_settle", lambda self: settled.append("_later" in self.__dict__)
                        or settle(self))
    monkeypatch.setattr(rlcompat._Form, "later", lambda self, parts: settled.append("later") or later(self, parts))
    kept, made = build(game, out, ("pdfx",))
    assert PdfxCache.of(out / "dozen").converted == 1
    assert settled.count("later") == 0 and settled.count(True) == 0    # no kept side's form made at all
    monkeypatch.setattr(rlcompat._Form, "_settle", settle)
    monkeypatch.setattr(rlcompat._Form, "later", later)
    build(game, fresh, ("pdfx",))
    path = out / "dozen" / name
    data = path.read_bytes()
    assert data == (fresh / "dozen" / name).read_bytes()
    after = raw_objects(path)
    changed = {num for num in after if before[num] != after[num]}
    assert changed == {num for num, text in card_forms(path).items() if "closesatdusk" in text.replace(" ", "")}
    assert len(changed) == 1
    at = data.rindex(b"startxref\n") + len(b"startxref\n")
    objects_made = sum(len(after[num]) + len(b"endobj\n") for num in changed)
    assert made == objects_made + len(data) - int(data[at:data.index(b"\n", at)])
    assert kept + made == len(data) and made * 20 < len(data)
    reader = PdfReader(path)
    assert reader.trailer["/Root"]["/OutputIntents"][0]["/S"] == "/GTS_PDFX"
    deck = game / "deck.yaml"                       # another card, in another process: assembled again
    deck.write_text(deck.read_text().replace("card 3 opens at dawn", "card 3 opens at noon"))
    monkeypatch.setattr(formcache, "_open", {})
    _, again = build(game, out, ("pdfx",))
    assert 0 < again * 20 < len(data)
    assert reader.metadata["/GTS_PDFXVersion"] == "PDF/X-1:2003" and "/ID" in reader.trailer


def test_a_pdfx_file_made_whole_from_kept_sides_is_a_clean_builds(tmp_path, monkeypatch):
    """A card added changes the print-service file's pages (it is not assembled from the
    last one), yet every other side is made from its kept piece, without drawing
    (`CardCanvas.add_form`): the file is a clean build's."""
    from cardgen.render import formcache
    from cardgen.render.cmyk import CmykCanvas
    from cardgen.render.pdfxcache import PdfxCache

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    game = make_game(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    name = "dozen/print-service/things-pdfx.pdf"
    build(game, out, ("pdfx",))
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text() + "  - {name: Card 13, text: 'The office of card 13 opens at dawn.'}\n")
    monkeypatch.setattr(formcache, "_open", {})
    added = []
    add_form = CmykCanvas.add_form
    monkeypatch.setattr(CmykCanvas, "add_form", lambda self, *a, **k: added.append(a[0]) or add_form(self, *a, **k))
    kept, _ = build(game, out, ("pdfx",))
    assert PdfxCache.of(out / "dozen").converted == 1 and kept == 0
    # every face but the new one, and the back; and the new one, drawn first (`DeckPdf.write`), made
    # again from its piece in the document made from its start (its pages changed: not assembled)
    assert len(added) == CARDS + 2
    monkeypatch.undo()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    build(game, fresh, ("pdfx",))
    assert (out / name).read_bytes() == (fresh / name).read_bytes()


def test_the_form_cache_keeps_operators_compressed_beside_a_kept_stream(tmp_path):
    """A card form kept with its compressed stream keeps its operators compressed too (memory
    at 10,000 cards): they decompress to exactly the operators that stream holds after its
    preamble, and a form without a kept stream keeps them as text."""
    import zlib

    from cardgen.render import formcache

    game = make_game(tmp_path)
    build(game, tmp_path / "out")
    cache = formcache.FormCache.of(tmp_path / "out" / "dozen")
    cards = [e for e in cache.entries.values() if len(e) > 4]
    assert len(cards) >= CARDS and sum(e[4] is not None for e in cards) >= CARDS
    for code, _forms, _size, _states, kept in cards:
        if kept is None:
            assert isinstance(code, str)
            continue
        preamble, packed = kept
        assert isinstance(code, bytes) and len(code) < len(rlcompat.operators(code))
        stream = zlib.decompress(packed).decode("latin-1")
        assert stream.startswith(preamble) and stream[len(preamble):].strip() == rlcompat.operators(code).strip()
    assert rlcompat.operators(rlcompat.squeezed("BT (caf\u00e9 \udcff) Tj ET")) == "BT (caf\u00e9 \udcff) Tj ET"


_PLAIN = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary(),
                      lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_PLAIN, _PLAIN)
def test_the_sheets_structure_key_tells_apart_what_its_repr_does(a, b):
    """`plain_digest` (the print sheets' structure, by marshal's format 2) gives two values one
    hash exactly when their `repr`s (what `digest` hashes) are equal: 0.0 and -0.0, 1, 1.0 and
    True, a list and a tuple all stay apart; what marshal does not keep exactly is not hashed."""
    assert (plain_digest(a) == plain_digest(b)) == (repr(a) == repr(b))
    for same in (0.0, -0.0, 1, 1.0, True, [1], (1,)):
        assert (plain_digest(a) == plain_digest(same)) == (repr(a) == repr(same))


def test_the_sheets_structure_key_is_none_for_what_is_not_plain():
    class Text(str):
        pass

    assert plain_digest(Text("a")) is None and plain_digest(("a", [Path("x")])) is None
    assert plain_digest(("a", [1.5, None])) == plain_digest(("a", [1.5, None]))


def test_every_assembled_files_structure_is_keyed_as_plain_data(tmp_path, monkeypatch):
    """cards.pdf, the fold-over sheets and the print-service file key their structure as the
    print sheets do, by `plain_digest` (marshal) of the sides and pages, not by their `repr`:
    a game's structures are plain data (a value that is not would be hashed by its `repr`,
    as before, and this would say so); a one-card edit is then assembled from the last files."""
    from cardgen.render import foldover, pdf, pdfx

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    keyed: list[tuple[str, bool]] = []
    for module in (foldover, pdf, pdfx):
        def counted(value, _name=module.__name__):
            got = plain_digest(value)
            keyed.append((_name, got is not None))
            return got
        monkeypatch.setattr(module, "plain_digest", counted)
    game = make_game(tmp_path)
    only = ("cards", "foldover", "pdfx")
    build(game, tmp_path / "out", only)
    edit(game)
    kept, made = build(game, tmp_path / "out", only)
    assert {name for name, _ in keyed} == {"cardgen.render.foldover", "cardgen.render.pdf", "cardgen.render.pdfx"}
    assert all(plain for _, plain in keyed), keyed
    assert made * 5 < kept


def test_a_pdfx_edit_that_changes_what_a_side_asks_for_is_a_clean_builds(tmp_path, monkeypatch):
    """What a side's form asks for (SVG forms, images, states: its `Piece`) is part of the
    print-service file's structure: an edit that gives the one card showing an icon its text
    without it (the icon's form leaves the file) or gives it back is not assembled from the
    last file's objects, and each file is a clean build's."""
    from cardgen.render import formcache

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    game = make_game(tmp_path)
    deck = game / "deck.yaml"
    name = "dozen/print-service/things-pdfx.pdf"
    out = tmp_path / "out"
    build(game, out, ("pdfx",))
    was = "card 7 opens at dawn"
    for n, now in enumerate(("card 7 opens at dawn :coins:", "card 7 opens at dusk :coins:", "card 7 opens at dusk")):
        deck.write_text(deck.read_text().replace(was, now))
        was = now
        monkeypatch.setattr(formcache, "_open", {})
        build(game, out, ("pdfx",))
        monkeypatch.setattr(formcache, "_open", {})
        build(game, tmp_path / f"fresh{n}", ("pdfx",))
        data = (out / name).read_bytes()
        assert data == (tmp_path / f"fresh{n}" / name).read_bytes(), now
        assert data.count(b"/Subtype /Form") == CARDS + 1 + (":coins:" in now), now    # (the icon's form)


def test_pdfs_an_only_print_build_removed_are_assembled_by_the_next_build(tmp_path, monkeypatch):
    """`--only print` after an edit removes cards.pdf and the print-service file (out of date,
    not made); their bytes are kept in the output folder's cache (`.cache/retired/`), so the
    next build that makes them assembles them from those (one card form object each made, the
    rest taken), a clean build's bytes; then the kept copies go."""
    from cardgen.render import formcache

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    game = make_game(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    every = ("print", "cards", "pdfx")
    names = ("cards.pdf", "print-service/things-pdfx.pdf")
    build(game, out, every)
    edit(game)
    monkeypatch.setattr(formcache, "_open", {})
    build(game, out, ("print",))
    retired = out / "dozen" / ".cache" / "retired"
    for name in names:
        assert not (out / "dozen" / name).exists() and (retired / name).is_file()
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("card 3 opens at dawn", "card 3 opens at noon"))
    monkeypatch.setattr(formcache, "_open", {})
    kept, made = build(game, out, ("cards", "pdfx"))
    monkeypatch.setattr(formcache, "_open", {})
    build(game, fresh, every)
    total = 0
    for name in names:
        data = (out / "dozen" / name).read_bytes()
        assert data == (fresh / "dozen" / name).read_bytes(), name
        assert not (retired / name).exists()
        total += len(data)
    assert kept + made == total and made * 10 < total       # (two card forms made in each, the rest taken)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.booleans()), min_size=1, max_size=40), st.data())
def test_a_file_rebuilt_from_runs_of_kept_objects_is_the_file_written_object_by_object(objects, data):
    """`assemble._rebuilt` copies the objects between two made ones as one run and keeps the
    old cross-reference's lines up to the first object that moved: the same bytes, places and
    counts as the file written object by object with its table made whole."""
    from cardgen.render.assemble import _rebuilt

    def table(places: list[int]) -> bytes:
        return b"xref\n0 %d\n0000000000 65535 f \n" % (len(places) + 1) + b"".join(b"%010d 00000 n \n" % o
                                                                              for o in places)

    def pdf(bodies: list[bytes]) -> tuple[bytes, list[int], int]:
        places, at = [], len(b"%PDF-1.4\n")
        for body in bodies:
            places.append(at)
            at += len(body)
        tail = table(places) + b"trailer\n<< /Size %d >>\nstartxref\n%d\n%%%%EOF\n" % (len(bodies) + 1, at)
        return b"%PDF-1.4\n" + b"".join(bodies) + tail, places, at

    old_bodies = [b"%d 0 obj\n" % n + b"x" * size + b"\nendobj\n" + (b"% after\n" if after else b"")
                  for n, (size, after) in enumerate(objects, 1)]
    changed = data.draw(st.dictionaries(st.integers(1, len(objects)), st.integers(0, 60), max_size=4))
    made = {n: b"%d 0 obj\n" % n + b"y" * size + b"\nendobj\n" for n, size in changed.items()}
    old, offsets, xref = pdf(old_bodies)
    new_bodies = [made[n] + body[body.index(b"endobj\n") + len(b"endobj\n"):] if n in made else body
                  for n, body in enumerate(old_bodies, 1)]
    before = list(rlcompat.WRITTEN)
    got = _rebuilt(old, offsets, xref, made)
    assert got == pdf(new_bodies)
    fresh = sum(len(new_bodies[n - 1]) for n in made) + len(got[0]) - got[2]
    assert [rlcompat.WRITTEN[0] - before[0], rlcompat.WRITTEN[1] - before[1]] == [len(got[0]) - fresh, fresh]
