"""Images at the resolution they print (`cardgen.render.art`): a large picture is embedded at
its box's pixels, decoded once for every output, and a small one is warned about."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import write
from pdfgeom import image_placements
from pypdf import PdfReader

from cardgen.core.errors import CardgenError, Report, grouped
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import art

PHOTO = """
    elements:
      - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
      - {name: photo, type: image, src: "{{ card.art }}", x: 5mm, y: 5mm, width: 50.8mm, height: 25.4mm,
         fit: cover}
"""


def _photo(path: Path, w: int, h: int, seed: int = 1) -> Path:
    """An RGB PNG of noise (nothing a downsample could be mistaken for)."""
    from PIL import Image

    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.frombytes("RGB", (w, h), rng.randbytes(w * h * 3)).save(path)
    return path


def _game(root: Path, cards: str, game_extra: str = "") -> Path:
    write(root / "game.yaml", f"title: Photos\n{game_extra}")
    write(root / "templates" / "p" / "face.yaml", PHOTO)
    write(root / "deck.yaml", "deck: P\ntemplate: p/face\ncards:\n" + cards)
    return root


def _image_sizes(pdf: Path) -> set[tuple[int, int]]:
    """The pixel sizes (/Width, /Height) of the image XObjects the PDF's pages show (through
    the forms they place), soft masks left out."""
    sizes: set[tuple[int, int]] = set()
    seen: set[int] = set()

    def walk(resources) -> None:
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        for ref in (xobjects.get_object().values() if xobjects is not None else ()):
            if id(ref) in seen or getattr(ref, "idnum", None) in seen:
                continue
            seen.add(getattr(ref, "idnum", id(ref)))
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Image":
                sizes.add((int(obj["/Width"]), int(obj["/Height"])))
            elif obj.get("/Subtype") == "/Form":
                walk(obj.get("/Resources"))

    for page in PdfReader(pdf).pages:
        walk(page.get("/Resources"))
    return sizes


def _build(root: Path, out: Path, only: tuple[str, ...]) -> tuple[list[Path], Report]:
    report = Report()
    made = build_game(root, root, BuildOptions(out=out, only=only, papers=("a4",)), report)
    return made, report


def test_a_large_image_is_embedded_at_its_box_resolution_and_decoded_once(tmp_path):
    """A 1500 x 1000 px picture in a 2 x 1 inch box, cover: drawn at 2 x 1.33 inches (cover
    keeps its shape), 600 x 400 px at 300 dpi, of which the box shows 2 x 1 inches, rows 50 to
    350.  The PDFs hold that part and `art.MARGIN` (8) rows more each side: 600 x 316 px, drawn
    where those rows were (read back in mm), clipped to the box.  Two cards show it, in two
    outputs: it is decoded once."""
    root = _game(tmp_path / "g", '  - {name: A, art: big.png}\n  - {name: B, art: big.png}\n')
    _photo(root / "art" / "big.png", 1500, 1000)
    art.reset_stats()
    made, report = _build(root, tmp_path / "out", ("print", "cards"))
    assert art.STATS["decoded"] == 1
    pdfs = [p for p in made if p.suffix == ".pdf"]
    assert {p.name for p in pdfs} >= {"print-a4.pdf", "cards.pdf"}
    row = 2 * 25.4 / 600            # mm a row of the 600 x 400 px picture is drawn at
    for pdf in pdfs:
        assert _image_sizes(pdf) == {(600, 316)}, pdf.name
        shown = image_placements(PdfReader(pdf), 0)
        assert len(shown) == (2 if pdf.name == "print-a4.pdf" else 1), pdf.name
        for image in shown:
            x, y, w, h = image.rect
            cx, cy, cw, ch = image.clip
            assert (cw, ch) == pytest.approx((50.8, 25.4), abs=1e-6)
            assert (x, w) == pytest.approx((cx, 50.8), abs=1e-6)
            assert h == pytest.approx(316 * row, abs=1e-6)
            assert y + h == pytest.approx(cy + ch + 8 * row, abs=1e-6)      # row 42, 8 rows above the box's top
    assert not [w for w in report.warnings if w.code == "soft-image"]
    # a rebuild reads the copy the first build kept: nothing decoded, same bytes
    first = {p.name: p.read_bytes() for p in pdfs}
    art.reset_stats()
    next(p for p in pdfs if p.name == "print-a4.pdf").unlink()
    made, _ = _build(root, tmp_path / "out", ("print",))
    assert art.STATS["decoded"] == 0
    assert next(p for p in made if p.name == "print-a4.pdf").read_bytes() == first["print-a4.pdf"]


def test_the_print_resolution_is_settable(tmp_path):
    """At 150 dpi the box shows 300 x 150 px of the picture (300 x 200 px): with 8 rows more
    each side, 300 x 166."""
    root = _game(tmp_path / "g", '  - {name: A, art: big.png}\n', "image_dpi: 150\n")
    _photo(root / "art" / "big.png", 1500, 1000)
    made, _ = _build(root, tmp_path / "out", ("print",))
    assert _image_sizes(next(p for p in made if p.name == "print-a4.pdf")) == {(300, 166)}


def test_a_small_image_is_embedded_as_it_is_and_warned_about_at_the_cards_line(tmp_path):
    """300 x 200 px drawn 2 x 1.33 inches is 150 dpi: it prints soft; said once for the two
    cards that show it, at the first one's `art:`."""
    root = _game(tmp_path / "g", '  - {name: A, art: small.png}\n  - {name: B, art: small.png}\n')
    _photo(root / "art" / "small.png", 300, 200)
    art.reset_stats()
    made, report = _build(root, tmp_path / "out", ("print",))
    assert art.STATS["decoded"] == 0
    assert _image_sizes(next(p for p in made if p.name == "print-a4.pdf")) == {(300, 200)}
    soft = [w for w in grouped(report.warnings) if w.code == "soft-image"]
    assert len(soft) == 1, [str(w) for w in report.warnings]
    assert str(soft[0]) == (
        f"{root}/deck.yaml:4:20: warning: field `art` (element 'photo', {root}/templates/p/face.yaml:3:37): the "
        "image prints soft: "
        "300 x 200 px shown 50.8 x 33.9 mm is 150 dpi, where 300 dpi needs 600 x 400 px (use larger art, or set "
        "`image_dpi` in game.yaml) on 2 cards (first: 'A', deck.yaml:4:5)"), str(soft[0])


def test_the_copy_is_drawn_by_its_content_wherever_it_was_made(tmp_path):
    """Two builds into two output folders (their copies in two folders) give the same PDF."""
    root = _game(tmp_path / "g", '  - {name: A, art: big.png}\n')
    _photo(root / "art" / "big.png", 1500, 1000)
    one, _ = _build(root, tmp_path / "out1", ("print",))
    two, _ = _build(root, tmp_path / "out2", ("print",))
    a = next(p for p in one if p.name == "print-a4.pdf").read_bytes()
    b = next(p for p in two if p.name == "print-a4.pdf").read_bytes()
    assert a == b


def test_raster_outputs_draw_images_at_their_bitmaps_resolution(tmp_path):
    """A raster worker's page of a card side (`render.raster.jobs_pdf`) embeds its picture at
    the bitmap's pixels per inch: a 2 x 1 inch picture of 1500 x 750 px at 100 dpi is 200 x 100."""
    import io

    from cardgen.core.data import DATA
    from cardgen.model import ops
    from cardgen.render.raster import jobs_pdf
    from cardgen.resources.fonts import FontBook

    photo = _photo(tmp_path / "big.png", 1500, 750)
    layout = ops.CardLayout(180.0, 252.0, 9.0, [ops.Image(photo, 18.0, 18.0, 144.0, 72.0)])
    art.configure(tmp_path / "cache", 300)
    data = jobs_pdf([layout], FontBook([DATA / "fonts"]), [100.0])
    (tmp_path / "jobs.pdf").write_bytes(data)
    assert _image_sizes(tmp_path / "jobs.pdf") == {(200, 100)}
    data = jobs_pdf([layout], FontBook([DATA / "fonts"]), [800.0])        # more than it has: as it is
    assert _image_sizes(io.BytesIO(data)) == {(1500, 750)}
    art.configure(None)


def test_copies_a_game_folder_brings_are_never_drawn(tmp_path):
    """The copies' folder is claimed like the bitmap cache (`core.cachefile.claim_folder`): a
    copy shipped in the output folder (a game zipped with its build folder) under the very name
    the build would use is deleted, and the picture is drawn from the game's own art."""
    from PIL import Image

    root = _game(tmp_path / "g", '  - {name: A, art: big.png}\n')
    _photo(root / "art" / "big.png", 1500, 1000)
    out = tmp_path / "out"
    art._copies.clear()                         # (this process's memo of copies made into other folders)
    _build(root, out, ("print",))
    copies = out / "g" / ".cache" / "art"
    made = [p for p in copies.iterdir() if p.name != "OWNER" and not p.name.endswith(art.KEPT)]
    assert len(made) == 1
    name = made[0].name
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for p in copies.iterdir():                  # what a downloaded game's build folder would hold
        p.rename(shipped / p.name)
    (shipped / "OWNER").write_text("someone else's stamp")
    Image.new("RGB", (600, 400), "#ff00ff").save(shipped / name)          # a picture of its own
    (out / "g" / "print-a4.pdf").unlink()
    for p in shipped.iterdir():
        p.rename(copies / p.name)
    art._copies.clear()
    _build(root, out, ("print",))
    copy = copies / name
    assert copy.is_file()
    with Image.open(copy) as im:
        assert im.convert("RGB").getpixel((0, 0)) != (255, 0, 255)       # made again from the game's art
    assert (copies / "OWNER").read_text() != "someone else's stamp"


def test_each_copy_is_compressed_once_for_every_pdf_that_shows_it(tmp_path):
    """The first PDF that draws a copy keeps its image object beside it (`art.KEPT`); every
    other PDF takes that object as it is (counted: `reused`), and each PDF is the same bytes
    as one made with no kept object (each compressing the copy itself)."""
    root = _game(tmp_path / "g", '  - {name: A, art: big.png}\n  - {name: B, art: big.png}\n')
    _photo(root / "art" / "big.png", 1500, 1000)
    art.reset_stats()
    made, _ = _build(root, tmp_path / "out", ("print", "cards"))
    kept = list((tmp_path / "out" / "g" / ".cache" / "art").glob("*" + art.KEPT))
    assert len(kept) == 1
    assert art.STATS["reused"] >= 1                     # the second PDF did not compress it again
    pdfs = {p.name: p.read_bytes() for p in made if p.suffix == ".pdf"}
    assert len(pdfs) >= 2
    for name, data in pdfs.items():
        kept[0].unlink(missing_ok=True)                 # each PDF made alone, compressing the copy itself
        art.reset_stats()
        (tmp_path / "out" / "g" / name).unlink()
        again, _ = _build(root, tmp_path / "out", ("cards",) if name == "cards.pdf" else ("print",))
        assert art.STATS["made"] == 0 and kept[0].is_file()    # (the copy found, its object made again)
        assert next(p for p in again if p.name == name).read_bytes() == data, name


def _decodes(monkeypatch) -> list[tuple[str, str, int]]:
    """Every decode of a picture (`icons.decode_checked`) from now on: (file name, the
    thread's name, how many were being decoded at once as it started)."""
    import threading

    from cardgen.resources import icons

    seen: list[tuple[str, str, int]] = []
    busy = [0]
    lock = threading.Lock()
    real = icons.decode_checked

    def counted(path, then=None, drawn=None):
        with lock:
            busy[0] += 1
            seen.append((Path(path).name, threading.current_thread().name, busy[0]))
        try:
            return real(path, then, drawn)
        finally:
            with lock:
                busy[0] -= 1

    monkeypatch.setattr(icons, "decode_checked", counted)
    return seen


def test_pictures_are_decoded_ahead_of_the_layout_once_each_a_few_at_a_time(tmp_path, monkeypatch):
    """Before the cards are laid out, their pictures are decoded by the threads of
    `layout.ahead` (the layout's own thread decodes none), each once whatever the number of
    cards and outputs that show it, at most `THREADS` at once; their print copies come from
    those decodes.  A rebuild whose layouts come from the cache decodes nothing."""
    from cardgen.layout import ahead

    cards = "".join(f"  - {{name: C{i}, art: p{i % 4}.png}}\n" for i in range(8))
    root = _game(tmp_path / "g", cards)
    for i in range(4):
        _photo(root / "art" / f"p{i}.png", 1500, 1000, seed=i)
    decodes = _decodes(monkeypatch)
    art.reset_stats()
    made, report = _build(root, tmp_path / "out", ("print", "cards"))
    assert not report.errors
    assert sorted(name for name, _, _ in decodes) == ["p0.png", "p1.png", "p2.png", "p3.png"]
    assert {thread.split("_")[0] for _, thread, _ in decodes} == {"cardgen-decode"}
    assert max(busy for _, _, busy in decodes) <= ahead.THREADS
    assert art.STATS["decoded"] == 4 and art.STATS["derived"] == 0
    for pdf in (p for p in made if p.suffix == ".pdf"):
        assert _image_sizes(pdf) == {(600, 316)}, pdf.name
    decodes.clear()
    (tmp_path / "out" / "g" / "print-a4.pdf").unlink()
    _build(root, tmp_path / "out", ("print",))
    assert decodes == []


def test_the_look_ahead_works_out_one_side_of_a_template_that_shows_no_picture(tiny_game, monkeypatch):
    """Looking for the pictures to decode ahead, a deck's side whose template has no element
    that shows one is looked at once, not card by card (each card's fields worked out twice a
    build: 2,000 times for nothing at 2,000 cards); a template with pictures is looked at for
    every card, as its cards may show different ones."""
    from cardgen.layout import ahead
    from cardgen.layout.engine import Layouter, Resources
    from cardgen.pipeline.check import load_game

    root = tiny_game("cards:\n" + "".join(f"  - {{name: C{i}}}\n" for i in range(6)))
    game = load_game(root, root, Report())
    lay = Layouter(Resources(game), Report())
    asked: list[str] = []
    real = lay.source
    monkeypatch.setattr(lay, "source", lambda deck, card, side: asked.append(side) or real(deck, card, side))
    assert list(ahead.pictures(lay, game)) == []
    assert asked == ["back", "face"]

    cards = "".join(f"  - {{name: C{i}, art: p{i % 2}.png}}\n" for i in range(4))
    root = _game(root.parent / "g", cards)
    for i in range(2):
        _photo(root / "art" / f"p{i}.png", 60, 40, seed=i)
    game = load_game(root, root, Report())
    lay = Layouter(Resources(game), Report())
    asked.clear()
    real = lay.source
    monkeypatch.setattr(lay, "source", lambda deck, card, side: asked.append(side) or real(deck, card, side))
    assert sorted(p[0].name for p in ahead.pictures(lay, game)) == ["p0.png", "p1.png"]
    assert asked.count("face") == 4


def test_a_damaged_picture_decoded_ahead_is_said_at_its_cards_line(tmp_path, monkeypatch):
    """The error a picture's decode ahead of the layout meets is the layout's, at the card."""
    root = _game(tmp_path / "g", "  - {name: A, art: good.png}\n  - {name: B, art: cut.png}\n")
    _photo(root / "art" / "good.png", 1500, 1000)
    whole = _photo(tmp_path / "whole.png", 1500, 1000, seed=2).read_bytes()
    (root / "art" / "cut.png").write_bytes(whole[: len(whole) // 2])
    decodes = _decodes(monkeypatch)
    report = Report()
    try:
        build_game(root, root, BuildOptions(out=tmp_path / "out", only=("print",), papers=("a4",)), report)
    except CardgenError as exc:
        report.extend(exc.diagnostics)
    assert {(name, thread.split("_")[0]) for name, thread, _ in decodes} == {
        ("good.png", "cardgen-decode"), ("cut.png", "cardgen-decode")}
    assert len(report.errors) == 1, [str(e) for e in report.errors]
    said = str(report.errors[0])
    assert said.startswith(f"{root}/templates/p/face.yaml:3:37: error: card 'B' (deck.yaml:5), element 'photo': "
                           "cannot use image 'cut.png': cut.png is damaged or truncated ("), said
    assert said.endswith("); export it again"), said


def test_each_picture_is_read_for_its_hash_once_per_build(tmp_path, monkeypatch):
    """The build's hashes of a picture (the inputs of the incremental build, the layout cache's,
    its copies' name, the manifest's) share one reading of it (`core.digest.hashed_file`)."""
    import hashlib
    import os

    root = _game(tmp_path / "g", '  - {name: A, art: big.png}\n  - {name: B, art: big.png}\n')
    picture = _photo(root / "art" / "big.png", 1500, 1000).stat().st_ino
    read: list[int] = []
    real = hashlib.file_digest

    def counted(f, digest):
        read.append(os.fstat(f.fileno()).st_ino)
        return real(f, digest)

    monkeypatch.setattr(hashlib, "file_digest", counted)
    _build(root, tmp_path / "out", ("print", "cards"))
    assert read.count(picture) == 1


def test_every_copy_and_its_image_object_come_from_the_one_decode(tmp_path):
    """The threads decoding ahead (`art.copy_ahead`) make, from each picture's one decode, its
    print copy, the copy the raster outputs' screen class draws (a card side 2.5 inches wide
    rendered at 170 dpi: `render.raster.SCREEN_DPI`) and the image objects the PDFs hold of
    both (counted: `objects`).  A raster page then finds both, decoding and compressing
    nothing; the screen copy is the very file the raster side makes from the print copy when
    it has to (`fitted`), and its object ReportLab's."""
    import io

    from PIL import Image
    from reportlab.lib.utils import ImageReader

    from cardgen.core.data import DATA
    from cardgen.core.digest import file_digest
    from cardgen.model import ops
    from cardgen.render.pdfxcache import KeptImage
    from cardgen.render.raster import jobs_pdf
    from cardgen.render.rlcompat import CardCanvas
    from cardgen.resources.fonts import FontBook

    photo = _photo(tmp_path / "big.png", 1500, 1000)
    art.configure(tmp_path / "cache", 300, screen=True)
    art.reset_stats()
    with Image.open(photo) as im:
        im.load()
        art.copy_ahead(photo, file_digest(photo), im, (144.0, 96.0), 180.0)
    assert art.STATS["made"] == 2 and art.STATS["objects"] == 2
    layout = ops.CardLayout(180.0, 252.0, 9.0, [ops.Image(photo, 18.0, 18.0, 144.0, 96.0)])
    data = jobs_pdf([layout], FontBook([DATA / "fonts"]), [170.0])
    assert _image_sizes(io.BytesIO(data)) == {(340, 227)}
    assert art.STATS["made"] == 2 and art.STATS["derived"] == 0 and art.STATS["reused"] == 1
    screen = tmp_path / "cache" / f"{file_digest(photo)[:32]}-340x227-g2.png"
    art._make(tmp_path / "cache" / f"{file_digest(photo)[:32]}-600x400-g2.png", ((340, 227), None),
              tmp_path / "again.png", held=((600, 400), None))
    assert (tmp_path / "again.png").read_bytes() == screen.read_bytes()
    c = CardCanvas(io.BytesIO())
    c.drawImage(ImageReader(str(screen)), 0, 0, 10, 10, mask="auto")
    assert art.kept_image(screen) == KeptImage.of(c._doc.idToObject[c._doc.getXObjectName(c._formsinuse[-1])])
    art.configure(None)


def test_the_screen_copy_is_the_one_a_poker_sides_screen_render_draws(tmp_path):
    """A poker side's screen-class render is a full TTS sheet's cell (409 px wide, 164 dpi:
    `render.raster.screen_size`), not its trim at 170 dpi: the copy the threads decoding ahead
    make for the screen class is the one that render draws, nothing made again."""
    import io

    from PIL import Image

    from cardgen.core.data import DATA
    from cardgen.core.digest import file_digest
    from cardgen.model import ops
    from cardgen.render import raster
    from cardgen.resources.fonts import FontBook

    photo = _photo(tmp_path / "big.png", 1500, 1000)
    art.configure(tmp_path / "cache", 300, screen=True)
    art.reset_stats()
    with Image.open(photo) as im:
        im.load()
        art.copy_ahead(photo, file_digest(photo), im, (144.0, 96.0), 180.0, 252.0)
    layout = ops.CardLayout(180.0, 252.0, 9.0, [ops.Image(photo, 18.0, 18.0, 144.0, 96.0)])
    job = raster.Job(layout, raster.screen_spec(layout), tmp_path / "side.rgbz")
    assert job.spec == raster.Spec(409, 573)
    data = raster.jobs_pdf([layout], FontBook([DATA / "fonts"]), [raster.job_dpi(job)])
    assert _image_sizes(io.BytesIO(data)) == {(328, 219)}       # 144 x 96 pt at 409 px / 180 pt
    assert art.STATS["made"] == 2 and art.STATS["derived"] == 0 and art.STATS["reused"] == 1
    art.configure(None)


def test_an_image_object_made_without_reportlab_is_reportlabs(tmp_path):
    """`art.image_object` of an RGB and a grey picture is the object ReportLab makes of its
    PNG file (`CardCanvas.drawImage`), field for field; one with alpha is left to ReportLab."""
    import io

    from PIL import Image
    from reportlab.lib.utils import ImageReader

    from cardgen.render.pdfxcache import KeptImage
    from cardgen.render.rlcompat import CardCanvas

    rgb = Image.open(_photo(tmp_path / "a.png", 40, 30))
    grey = Image.open(_photo(tmp_path / "b.png", 40, 30, seed=2)).convert("L")
    grey.save(tmp_path / "b.png")
    for im, path in ((rgb, tmp_path / "a.png"), (grey, tmp_path / "b.png")):
        c = CardCanvas(io.BytesIO())
        c.drawImage(ImageReader(str(path)), 0, 0, 10, 10, mask="auto")
        made = KeptImage.of(c._doc.idToObject[c._doc.getXObjectName(c._formsinuse[-1])])
        assert art.image_object(im) == made
    assert art.image_object(rgb.convert("RGBA")) is None


def test_a_cover_pictures_copies_hold_the_pixels_of_the_whole_copies_where_its_box_shows(tmp_path):
    """A picture drawn 2 x 1.33 inches in a 2 x 0.89 inch `cover` box: each copy (print, and
    those made from it for raster outputs) holds the rows its box shows and a few more, and
    those are the very pixels (rounding aside: at most 1 of 255) the copy of the whole picture
    has there."""
    from PIL import Image, ImageChops

    from cardgen.core.images import shown

    photo = _photo(tmp_path / "big.png", 1500, 1000)
    art.configure(tmp_path / "cache", 300)
    drawn = shown(0.0, -16.0, 144.0, 96.0, (0.0, 0.0, 144.0, 64.0))
    assert drawn == (144.0, 96.0, 0.0, 16 / 96, 1.0, 80 / 96)
    for dpi in (300, 164, 130):
        whole = Image.open(art.fitted(photo, 144.0, 96.0, dpi))
        path, plan = art.copy_of(photo, drawn, dpi)
        (fw, fh), win = plan
        part = Image.open(path)
        assert whole.size == (fw, fh) and part.size == (fw, win[3] - win[1]) and win[0] == 0
        top, bottom = fh * 16 // 96, -(-fh * 80 // 96)          # the rows the box shows, in part or whole
        margin = art.MARGIN if dpi == 300 else art.EDGE
        assert (win[1], win[3]) == (top - margin, bottom + margin), dpi
        shows = ImageChops.difference(part.crop((0, margin, fw, margin + bottom - top)),
                                      whole.crop((0, top, fw, bottom)))
        assert max(hi for _, hi in shows.getextrema()) <= 1, dpi
    art.configure(None)


def test_a_cover_picture_is_decoded_down_to_the_last_row_its_copies_read(tmp_path, monkeypatch):
    """A PNG in a `cover` box is decoded from its top down to the last row its print copy reads
    (the 1500 x 1000 px picture's copy is rows 42 to 358 of 400: rows 905 and below are
    never read), and the PDF is the same bytes as when all of it is decoded.  A file damaged
    below those rows builds (one cut short does not: the rest of the file is read, not
    inflated); drawn whole as well (`contain`), it is decoded again, all of it, and the damage
    said at that element."""
    from cardgen.core import images

    whole = _photo(tmp_path / "whole.png", 1500, 1000).read_bytes()
    root = _game(tmp_path / "g", "  - {name: A, art: a.png}\n")
    (root / "art" / "a.png").parent.mkdir(parents=True, exist_ok=True)
    (root / "art" / "a.png").write_bytes(whole)
    decodes = _decodes(monkeypatch)
    made, report = _build(root, tmp_path / "out", ("print",))
    assert not report.errors and len(decodes) == 1
    assert images.rows_read((1500, 1000), images.shown(0.0, -12.0, 144.0, 96.0, (0.0, 0.0, 144.0, 72.0))) == 905
    part = next(p for p in made if p.name == "print-a4.pdf").read_bytes()
    monkeypatch.setattr(images, "ROWS", [])             # all of it decoded
    made, _ = _build(root, tmp_path / "out-all", ("print",))
    assert next(p for p in made if p.name == "print-a4.pdf").read_bytes() == part
    monkeypatch.undo()

    damaged = bytearray(whole)
    for i in range(len(whole) * 96 // 100, len(whole) * 96 // 100 + 4000):      # rows from about 960 on
        damaged[i] ^= 0x5A
    (root / "art" / "a.png").write_bytes(bytes(damaged))
    made, report = _build(root, tmp_path / "out-cut", ("print",))
    assert not report.errors
    assert next(p for p in made if p.name == "print-a4.pdf").read_bytes() == part
    write(root / "templates" / "p" / "face.yaml", PHOTO + "      - {name: all, type: image, src: \"{{ card.art }}\", "
          "x: 5mm, y: 40mm, width: 50.8mm, height: 25.4mm, fit: contain}\n")
    report = Report()
    try:
        build_game(root, root, BuildOptions(out=tmp_path / "out-cut2", only=("print",), papers=("a4",)), report)
    except CardgenError as exc:
        report.extend(exc.diagnostics)
    assert len(report.errors) == 1, [str(e) for e in report.errors]
    assert "element 'all': cannot use image 'a.png': a.png is damaged or truncated (" in str(report.errors[0])
