"""The renderer and the print-service PNGs: exact sizes, names, counts, cache."""
from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from cardgen.core.data import DATA
from cardgen.core.errors import Report
from cardgen.outputs import png
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import raster

REPO = Path(__file__).resolve().parent.parent

# A card whose bleed is red, trim area blue, and a green square 10 mm in from the top-left.
FACE = """\
elements:
  - {name: bleed, type: rect, box: bleed, fill: "#ff0000"}
  - {name: trim, type: rect, x: 0, y: 0, width: 100%, height: 100%, fill: "{{ card.color }}"}
  - {name: mark, type: rect, x: 10mm, y: 10mm, width: 5mm, height: 5mm, fill: "#00ff00"}
"""
BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#102030"}
"""


def make_game(root: Path, extra: str = "") -> Path:
    game = root / "printme"
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "templates" / "back.yaml").write_text(BACK)
    (game / "game.yaml").write_text("title: Print Me\ndecks: [action, tarot, dual]\n")
    (game / "action.yaml").write_text(
        "deck: Action\ntemplate: face\nback: back\ncards:\n"
        "  - {name: Digging, count: 6, color: '#0000ff'}\n"
        "  - {name: Bribe, count: 2, color: '#0000fe'}\n" + extra)
    (game / "tarot.yaml").write_text(
        "deck: Big Cards\ntemplate: face\nsize: tarot\ncards:\n  - {name: Sun, color: '#0000ff'}\n")
    (game / "dual.yaml").write_text(
        "deck: Dual\ntemplate: face\nbacks: back\ncards:\n"
        "  - {name: Hero, count: 2, color: '#0000ff'}\n  - {name: Villain, color: '#0000ff'}\n")
    return game


def build_png(game: Path, out: Path, *targets: str, report: Report | None = None) -> list[Path]:
    return build_game(game, REPO, BuildOptions(only=("png",), out=out,
                                                       outputs={"png": {"targets": targets}} if targets else {}),
                      report or Report())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("png")
    game = make_game(root)
    out = root / "build"
    raster.reset_stats()
    written = build_png(game, out, "mpc", "tgc")
    return {"game": game, "out": out / "printme" / "png", "written": written, "stats": dict(raster.STATS),
            "root": root}


@pytest.mark.parametrize("target, poker, tarot", [
    ("mpc", (822, 1122), (899, 1489)),     # round(mm / 25.4 * 300) + 2 * 36
    ("tgc", (825, 1125), (902, 1492)),     # ... + 2 * 37.5
])
def test_exact_sizes_per_target(built, target, poker, tarot):
    fronts = sorted((built["out"] / target / "fronts").iterdir())
    sizes = {}
    for p in fronts:
        with Image.open(p) as im:
            sizes[p.name] = im.size
    for name, size in sizes.items():
        assert size == (tarot if "big-cards" in name else poker), name
    with Image.open(fronts[0]) as im:
        assert im.mode == "RGB" and round(im.info["dpi"][0]) == 300
    with Image.open(built["out"] / target / "backs" / "action-back.png") as im:
        assert im.size == poker


def test_rule_gives_the_services_numbers():
    assert png.TARGETS["mpc"].size(63.5, 88.9) == (822, 1122)
    assert png.TARGETS["tgc"].size(63.5, 88.9) == (825, 1125)


def test_one_file_per_copy_named_in_order(built):
    names = sorted(p.name for p in (built["out"] / "tgc" / "fronts").iterdir())
    assert names == [
        "001-action-digging-1of6.png", "002-action-digging-2of6.png", "003-action-digging-3of6.png",
        "004-action-digging-4of6.png", "005-action-digging-5of6.png", "006-action-digging-6of6.png",
        "007-action-bribe-1of2.png", "008-action-bribe-2of2.png", "009-big-cards-sun-1of1.png",
        "010-dual-hero-1of2.png", "011-dual-hero-2of2.png", "012-dual-villain-1of1.png",
    ]
    backs = sorted(p.name for p in (built["out"] / "tgc" / "backs").iterdir())
    # a shared back once per deck; per-card backs numbered like their fronts; no back, no file
    assert backs == ["010-dual-hero-1of2.png", "011-dual-hero-2of2.png", "012-dual-villain-1of1.png",
                     "action-back.png"]


def test_copies_reuse_one_bitmap(built):
    # per target: the blue poker face (Digging, Hero and Villain look the same), Bribe, the
    # back (shared by Action and every Dual card, all identical) and the tarot face
    assert built["stats"]["rasterized"] == 2 * 4
    a = (built["out"] / "tgc" / "fronts" / "001-action-digging-1of6.png").read_bytes()
    assert a == (built["out"] / "tgc" / "fronts" / "006-action-digging-6of6.png").read_bytes()


def read_order(xml: Path) -> dict:
    """An order file read the way mpc-autofill's desktop tool reads it (`desktop-tool/src/order.py`):
    details, then each card's image, 0-based slots and source; the common back."""
    import xml.etree.ElementTree as ET

    root = ET.parse(xml).getroot()
    assert root.tag == "order"
    assert [e.tag for e in root] in (["details", "fronts", "cardback"], ["details", "fronts", "backs", "cardback"],
                                     ["details", "fronts"])
    details = {e.tag: e.text for e in root.find("details")}
    assert list(details) == ["quantity", "bracket", "stock", "foil"]
    assert details["stock"] in ("(S27) Smooth", "(S30) Standard Smooth", "(S33) Superior Smooth", "(M31) Linen",
                                "(P10) Plastic") and details["foil"] in ("true", "false")

    def cards(tag: str) -> list[dict]:
        out = []
        for card in root.find(tag) if root.find(tag) is not None else []:
            assert card.tag == "card" and [e.tag for e in card] == ["id", "slots", "name", "query", "sourceType"]
            fields = {e.tag: e.text for e in card}
            assert fields["sourceType"] == "Local File" and fields["name"] == Path(fields["id"]).name
            out.append({**fields, "slots": [int(n) for n in fields["slots"].split(",")]})
        return out

    back = root.find("cardback")
    return {"quantity": int(details["quantity"]), "bracket": int(details["bracket"]), "stock": details["stock"],
            "fronts": cards("fronts"), "backs": cards("backs"), "cardback": back.text if back is not None else None}


@pytest.mark.parametrize("deck, quantity, fronts, backs, cardback", [
    ("action", 8, [("fronts/001-action-digging-1of6.png", [0, 1, 2, 3, 4, 5]),
                   ("fronts/007-action-bribe-1of2.png", [6, 7])], [], "backs/action-back.png"),
    ("big-cards", 1, [("fronts/009-big-cards-sun-1of1.png", [0])], [], None),
    ("dual", 3, [("fronts/010-dual-hero-1of2.png", [0, 1]), ("fronts/012-dual-villain-1of1.png", [2])],
     [("backs/012-dual-villain-1of1.png", [2])], "backs/010-dual-hero-1of2.png"),
])
def test_mpc_order_file_per_deck(built, deck, quantity, fronts, backs, cardback):
    folder = built["out"] / "mpc"
    order = read_order(folder / f"{deck}.xml")
    assert order["quantity"] == quantity and order["bracket"] == 18 and order["stock"] == "(S30) Standard Smooth"
    assert [(c["id"], c["slots"]) for c in order["fronts"]] == fronts
    assert [(c["id"], c["slots"]) for c in order["backs"]] == backs
    assert order["cardback"] == cardback
    slots = sorted(n for c in order["fronts"] for n in c["slots"])
    assert slots == list(range(order["quantity"]))          # every slot filled once
    for image in [c["id"] for c in order["fronts"] + order["backs"]] + ([cardback] if cardback else []):
        assert (folder / image).is_file(), image
    assert not list((built["out"] / "tgc").glob("*.xml"))   # an order file is MakePlayingCards'


@pytest.mark.parametrize("quantity, size", [(1, 18), (18, 18), (19, 36), (55, 55), (56, 72), (234, 234),
                                            (235, 396), (505, 612), (612, 612), (613, None)])
def test_mpc_bracket_is_the_smallest_that_holds_the_deck(quantity, size):
    from cardgen.outputs import mpc_order

    assert mpc_order.bracket(quantity) == size
    assert size is None or all(b < quantity for b in mpc_order.BRACKETS if b < size)


def test_mpc_deck_over_the_largest_order_is_said(tmp_path):
    from types import SimpleNamespace

    from cardgen.outputs.mpc_order import OrderCard
    from cardgen.pipeline.check import load_game

    game = load_game(make_game(tmp_path), REPO, Report())
    deck = game.decks[0]
    written: list = []
    job = SimpleNamespace(report=Report(), options=png.PngOptions(),
                          staging=SimpleNamespace(add=lambda path, data: written.append(path)))
    many = OrderCard("Digging", [f"fronts/{n:03d}.png" for n in range(613)])
    png._mpc_orders(job, tmp_path, {deck.slug: (deck, [many], ["backs/action-back.png"])})
    assert written == []
    (d,) = job.report.warnings
    assert d.loc == deck.loc and d.loc.file.endswith("action.yaml") and d.loc.line == 1 and d.code == "mpc-order"
    assert d.message == ("deck 'Action' has 613 cards, more than a MakePlayingCards order holds (612): no "
                         "png/mpc/action.xml was written; split the deck into files of at most 612 cards")
    png._mpc_orders(job, tmp_path, {deck.slug: (deck, [OrderCard("Digging", ["fronts/001.png"] * 612)], [])})
    assert written == [tmp_path / "action.xml"]


def test_bleed_and_trim_land_on_exact_pixels(built):
    # TGC: 37.5 px of bleed; the card's own bleed is 1/8 in, so the trim starts at pixel 37/38
    im = Image.open(built["out"] / "tgc" / "fronts" / "001-action-digging-1of6.png").convert("RGB")
    assert im.getpixel((20, 500)) == (255, 0, 0)
    assert im.getpixel((36, 500)) == (255, 0, 0)
    assert im.getpixel((39, 500)) == (0, 0, 255)
    assert im.getpixel((825 - 37, 500)) == (255, 0, 0)
    assert im.getpixel((825 - 40, 500)) == (0, 0, 255)
    # the green mark: 10 mm = 118.1 px inside the trim
    assert im.getpixel((37 + 121, 37 + 121)) == (0, 255, 0)
    assert im.getpixel((37 + 115, 37 + 121)) == (0, 0, 255)
    # MPC: 36 px of bleed, cut from the card's 37.5
    im = Image.open(built["out"] / "mpc" / "fronts" / "001-action-digging-1of6.png").convert("RGB")
    assert im.getpixel((34, 500)) == (255, 0, 0)
    assert im.getpixel((38, 500)) == (0, 0, 255)
    assert im.getpixel((36 + 121, 36 + 121)) == (0, 255, 0)


def test_rebuild_rasterizes_nothing_and_removes_stale_files(built, tmp_path):
    raster.reset_stats()
    build_png(built["game"], built["out"].parent.parent, "tgc")
    assert raster.STATS["rasterized"] == 0
    deck = built["game"] / "action.yaml"
    deck.write_text(deck.read_text().replace("count: 6", "count: 5").replace("'#0000fe'", "'#0000fd'"))
    raster.reset_stats()
    build_png(built["game"], built["out"].parent.parent, "tgc")
    assert raster.STATS["rasterized"] == 1            # only Bribe changed
    names = sorted(p.name for p in (built["out"] / "tgc" / "fronts").iterdir())
    assert len(names) == 11 and "006-action-digging-6of6.png" not in names
    assert names[5] == "006-action-bribe-1of2.png"


def test_pngs_made_now_are_moved_into_place_and_match_the_cache(tmp_path, monkeypatch):
    """A PNG rasterized by this build is written by its worker beside the cache and moved
    into the output (no copy out of the cache); a copy of the same card, and a card found in
    the cache, are copied from it. Either way the file is the cache entry's payload, on its
    own (no link to the cache), recorded with its sha256 (the next build keeps it)."""
    import hashlib

    from cardgen.core import atomic

    game = make_game(tmp_path)
    copied = []
    real_put = atomic._put

    def put(path, src):
        copied.append(not isinstance(src, atomic.Ready))
        return real_put(path, src)

    monkeypatch.setattr(atomic, "_put", put)
    build_png(game, tmp_path / "build", "mpc")
    root = tmp_path / "build" / "printme"
    files = sorted((root / "png" / "mpc").rglob("*.png"))
    # 4 distinct sides (blue face, Bribe, the back, the tarot face) moved; the other 12 copied
    assert len(files) == 16 and copied.count(False) == 4 and copied.count(True) == 16 - 4 + 1 + 3   # + the manifest, the 3 orders
    cache = {p.read_bytes()[40:] for p in (root / ".cache" / "raster").iterdir()}
    state = (root / ".cardgen" / "state.json").read_text()
    for f in files:
        assert f.stat().st_nlink == 1 and f.read_bytes() in cache
        assert hashlib.sha256(f.read_bytes()).hexdigest() in state
    assert list((root / ".cache" / "png-ready").iterdir()) == []
    raster.reset_stats()
    (files[0]).write_bytes(b"edited")                      # the next build makes it again...
    build_png(game, tmp_path / "build", "mpc")
    assert raster.STATS["rasterized"] == 0                 # ... from the cache
    assert all(f.read_bytes() in cache for f in files)


def test_thin_bleed_is_extended_with_a_warning(tmp_path):
    game = make_game(tmp_path)
    (game / "game.yaml").write_text("title: Print Me\nbleed: 1mm\ndecks: [action]\n")
    report = Report()
    build_png(game, tmp_path / "build", "tgc", report=report)
    assert any("has 1 mm bleed but The Game Crafter wants 3.17 mm" in d.message for d in report.items)
    im = Image.open(tmp_path / "build" / "printme" / "png" / "tgc" / "fronts" / "001-action-digging-1of6.png")
    assert im.size == (825, 1125)
    assert im.convert("RGB").getpixel((2, 500)) == (255, 0, 0)       # edge stretched outwards


def test_render_page_is_exact_for_awkward_sizes(tmp_path):
    """PDFium rounds bitmap sizes: every requested size must come out exact."""
    import pypdfium2 as pdfium

    from cardgen.model.ops import CardLayout, Rect
    from cardgen.resources.fonts import FontBook

    fonts = FontBook([DATA / "fonts"])
    lay = CardLayout(180.0, 252.0, 9.0, [Rect(-9, -9, 198, 270, fill=(1, 0, 0, 1)),
                                         Rect(0, 0, 180, 252, fill=(0, 0, 1, 1))])
    doc = pdfium.PdfDocument(raster.jobs_pdf([lay], fonts))
    for w, h, bleed in ((409, 573, 0), (825, 1125, 9), (822, 1122, 8.64), (101, 141, 0), (826, 1126, 9)):
        packed: list[bytes] = []
        img = raster._render_page(doc[0], lay, raster.Spec(w, h, bleed), packed)
        assert img.size == (w, h) and img.mode == "RGB"
        if packed:      # the cache entry made from PDFium's bitmap (rows with padding) reads back as the image
            entry = tmp_path / f"{w}.rgbz"
            raster._save(img, raster.Job(lay, raster.Spec(w, h, bleed), entry), packed[0])
            assert raster.open_image(entry).tobytes() == img.tobytes()
        if bleed == 0:
            assert img.getpixel((0, 0)) == (0, 0, 255) and img.getpixel((w - 1, h - 1)) == (0, 0, 255)


def test_raw_entries_of_any_zstandard_level_read_back(tmp_path):
    """A raw cell is written at `RAW_LEVEL` by one compressor a process; one written before at
    level 1 (session 10's) reads back the same pixels, and both are the image's exact bytes."""
    import struct

    import zstandard
    from PIL import Image

    img = Image.effect_noise((97, 61), 40).convert("RGB")
    img.paste((200, 30, 30), (10, 10, 60, 40))
    rows = img.tobytes()
    for payload in (raster._packed(rows, 97, 61, 97 * 3), raster._packed(rows, 97, 61, 97 * 3),
                    raster._RAW_MAGIC + struct.pack("<III", 97, 61, 97 * 3)
                    + zstandard.ZstdCompressor(level=1).compress(rows)):
        entry = tmp_path / "cell.rgbz"
        entry.write_bytes(raster.seal(payload))
        assert raster.open_image(entry).tobytes() == rows


def test_render_page_gives_pdfiums_own_pixels(tmp_path):
    """Only the wanted pixels are rendered, yet they are exactly those of PDFium's whole-page
    render (`PdfPage.render`, cut to the same place): anti-aliased edges at fractional
    positions show any shift of the pixel grid."""
    import pypdfium2 as pdfium

    from cardgen.model.ops import CardLayout, Ellipse, Rect
    from cardgen.resources.fonts import FontBook

    lay = CardLayout(180.0, 252.0, 9.0, [Rect(-9, -9, 198, 270, fill=(1, 0, 0, 1)),
                                         Rect(0.3, 0.7, 179.1, 250.9, fill=(0, 0, 1, 1)),
                                         Ellipse(20.2, 30.6, 101.3, 77.7, fill=(0, 1, 0, 1), stroke=(0, 0, 0, 1),
                                                 stroke_width=0.4),
                                         Rect(-8.7, 120.1, 197.3, 0.3, fill=(1, 1, 0, 1))])
    doc = pdfium.PdfDocument(raster.jobs_pdf([lay], FontBook([DATA / "fonts"])))
    page = doc[0]
    compared = 0
    for w, h, bleed in ((825, 1125, 9), (822, 1122, 8.64), (826, 1126, 9), (409, 573, 0), (400, 560, 4.5),
                        (1000, 1400, 2)):
        spec = raster.Spec(w, h, bleed)
        scale = max(w / (180 + 2 * bleed), h / (252 + 2 * bleed))
        margin = min(9 - bleed, 1.0)
        c = 9 - bleed - margin
        whole = page.render(scale=scale, crop=(c, c, c, c)).to_pil().convert("RGB")
        off = round(margin * scale)
        if off + w > whole.width or off + h > whole.height:
            continue                            # PDFium's rounding left too few pixels: resampled
        assert raster._render_page(page, lay, spec).tobytes() == whole.crop((off, off, off + w, off + h)).tobytes()
        compared += 1
    assert compared >= 5


def test_cache_prunes_bitmaps_unused_for_two_weeks(tmp_path):
    import os
    import time

    from cardgen.render.raster import Cache

    cache = Cache(tmp_path)
    old, fresh = cache.path("aa" + "0" * 62), cache.path("bb" + "1" * 62)
    for p in (old, fresh):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x")
    # entries of the earlier layout (a folder per key prefix) are pruned alike, and their
    # folders once empty
    legacy_old, legacy_fresh = tmp_path / "cc" / ("cc" + "2" * 62 + ".png"), tmp_path / "dd" / ("dd" + "3" * 62 + ".png")
    for p in (legacy_old, legacy_fresh):
        p.parent.mkdir()
        p.write_bytes(b"x")
    month_ago = time.time() - 30 * 86400
    for p in (old, legacy_old):
        os.utime(p, (month_ago, month_ago))
    assert cache.prune() == 2
    assert not old.exists() and fresh.exists()
    assert not legacy_old.parent.exists() and legacy_fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, "dd"])


def test_pruning_the_cache_never_follows_a_link_to_a_folder(tmp_path):
    """A link in the bitmap cache to a folder elsewhere: nothing there is deleted, however old,
    nor the link; the cache's own old files, debris and empty prefix folders go."""
    import os
    import time

    from cardgen.render.raster import Cache

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    theirs = elsewhere / ("ee" + "4" * 62 + ".png")
    theirs.write_bytes(b"theirs")
    cache = Cache(tmp_path / "raster")
    cache.dir.mkdir()
    (cache.dir / "ff").symlink_to(elsewhere, target_is_directory=True)
    (cache.dir / "gg").mkdir()
    old, fresh, hidden = cache.path("aa" + "0" * 62), cache.path("bb" + "1" * 62), cache.dir / ".x.rgbz"
    for p in (old, fresh, hidden):
        p.write_bytes(b"x")
    month_ago = time.time() - 30 * 86400
    for p in (old, hidden, theirs):
        os.utime(p, (month_ago, month_ago))
    assert cache.prune() == 2
    assert theirs.read_bytes() == b"theirs" and (cache.dir / "ff").is_symlink()
    assert sorted(p.name for p in cache.dir.iterdir()) == sorted([fresh.name, "ff"])
    assert Cache(tmp_path / "missing").prune() == 0


def test_the_bitmap_cache_is_one_flat_folder(built):
    cache = built["out"].parent / ".cache" / "raster"
    entries = [e for e in cache.iterdir() if e.name != raster.Cache.OWNER]   # (and its owner's stamp)
    assert len(entries) >= built["stats"]["rasterized"] == 8           # (later tests may add some)
    assert all(e.is_file() and e.suffix == ".png" and len(e.stem) == 64 for e in entries)


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    import struct

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, i = [], 8
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        out.append((data[i + 4:i + 8], data[i + 8:i + 8 + n]))
        i += 12 + n
    return out


def test_pngs_carry_the_srgb_profile_and_fast_compression(built):
    import io
    import zlib

    from PIL import ImageCms

    for target in ("mpc", "tgc"):
        for f in sorted((built["out"] / target).rglob("*.png")):
            chunks = _png_chunks(f.read_bytes())
            kinds = [k for k, _ in chunks]
            assert kinds.index(b"iCCP") < kinds.index(b"IDAT"), f.name
            assert b"sRGB" not in kinds and b"gAMA" not in kinds, f.name     # the profile says it all
            body = dict(chunks)[b"iCCP"]
            _name, rest = body.split(b"\0", 1)
            assert rest[0] == 0                                              # zlib-compressed profile
            profile = zlib.decompress(rest[1:])
            assert profile == (DATA / "icc" / "sRGB.icc").read_bytes()
            desc = ImageCms.ImageCmsProfile(io.BytesIO(profile)).profile.profile_description
            assert desc == "sRGB" and profile[16:20] == b"RGB "
            idat = b"".join(d for k, d in chunks if k == b"IDAT")
            assert idat[1] >> 6 == 0, f.name         # zlib header FLEVEL 0: the fastest levels (1)


def test_workers_get_bounded_chunks_of_cards_shrinking_towards_the_end():
    jobs = list(range(2000))
    parts = raster._chunks(jobs, 2)
    sizes = [len(p) for p in parts]
    assert [j for p in parts for j in p] == jobs                 # every job once, in order
    assert max(sizes) == raster.CHUNK                            # bounded: memory stays flat
    assert sizes == sorted(sizes, reverse=True)                  # never growing
    # full chunks until the last few: each at most a quarter of what is left (2 workers)
    assert sum(s for s in sizes if s == raster.CHUNK) >= 2000 - 4 * raster.CHUNK
    left = 2000
    for s in sizes:
        assert s <= max(2, -(-left // 4))
        left -= s
    assert sizes[-2:] == [2, 1] or sizes[-2:] == [2, 2]          # the last tasks are tiny: workers end together
    small = [len(p) for p in raster._chunks(list(range(40)), 2)]
    assert small[0] == 10 and sum(small) == 40 and small[-1] == 2


def test_raster_workers_take_the_builds_hashes_of_the_pictures(tmp_path, monkeypatch):
    """A raster worker is given the hashes the build made of the pictures its sides show
    (`_pictures_known`): it does not read and hash a photo again (each worker drew each of
    the photo game's 20 MB pictures it showed), and one changed since is hashed again."""
    import os

    from PIL import Image

    from cardgen.core import digest, memo
    from cardgen.model import ops
    from cardgen.render import raster

    pic, icon = tmp_path / "photo.png", tmp_path / "icon.png"
    Image.new("RGB", (8, 8), "red").save(pic)
    Image.new("RGB", (4, 4), "blue").save(icon)
    layout = ops.CardLayout(100, 100, 0, [ops.Image(pic, 0, 0, 10, 10), ops.Icon(icon, 0, 0, 5, 5)], "s")
    units = [raster.Unit(layout, raster.Job(layout, raster.Spec(10, 10), tmp_path / "x"), []),
             raster.Unit(layout, None, [], tmp_path / "y")]
    monkeypatch.setattr(digest, "_file_digests", memo.Bounded(100))       # (the build's)
    monkeypatch.chdir(tmp_path)
    want = digest.file_digest(Path("photo.png")), digest.file_digest(icon)     # (a game folder given relative)
    known = raster._pictures_known(units)
    assert known == {pic: digest._file_digests[Path("photo.png")], icon: digest._file_digests[icon]}
    assert {p: hit[2] for p, hit in known.items()} == {pic: want[0], icon: want[1]}
    monkeypatch.setattr(digest, "_file_digests", memo.Bounded(100))       # (a worker's: nothing hashed yet)
    digest.remember(known)
    read: list[str] = []
    real = digest.open_regular
    monkeypatch.setattr(digest, "open_regular", lambda path, *a: read.append(path.name) or real(path, *a))
    assert (digest.file_digest(pic), digest.file_digest(icon)) == want and read == []
    Image.new("RGB", (8, 8), "green").save(pic)
    os.utime(pic, ns=(1, 1))
    assert digest.file_digest(pic) != want[0] and read == ["photo.png"]


def test_a_workers_next_chunks_replay_the_icons_it_drew_with_the_same_pixels(monkeypatch):
    """A raster worker keeps the SVG forms it drew (`raster._svg_forms`): its next chunk's PDF
    replays an icon's operators instead of reading and drawing the SVG again, and its pages
    render to the same pixels as pages drawn afresh."""
    import pypdfium2 as pdfium

    from cardgen.model.ops import CardLayout, Icon, Rect, Run, Text
    from cardgen.render import draw
    from cardgen.resources.fonts import FontBook

    fonts = FontBook([DATA / "fonts"])
    art = DATA / "art" / "icons"
    sides = [CardLayout(180.0, 252.0, 9.0, [
        Rect(-9, -9, 198, 270, fill=(0.9, 0.8, 0.7, 1)),
        Icon(art / "coins.svg", 40.0, 40.0, 100.0, 100.0, color=(0.5, 0.1, 0.2 + k / 10, 1)),
        Text(10, 170, 160, 40, (Run(20.0, 190.0, "text", f"Card {k}", "Lato-Regular", 12.0, (0, 0, 0, 1), 50.0),
                                Run(80.0, 182.0, "icon", art / "shield.svg", "", 10.0, (0.1, 0.3, 0.6, 1), 10.0)),
             12.0)]) for k in range(3)]
    fonts.face("Lato")
    loaded: list[Path] = []
    load = draw.load_svg
    monkeypatch.setattr(draw, "load_svg", lambda path: loaded.append(path) or load(path))
    monkeypatch.setattr(raster, "_svg_forms", raster._SvgForms(8))

    def pixels(pdf: bytes) -> list[bytes]:
        doc = pdfium.PdfDocument(pdf)
        return [raster._render_page(doc[i], sides[i], raster.Spec(409, 573, 0)).tobytes() for i in range(len(doc))]

    first = raster.jobs_pdf(sides, fonts)
    assert sorted(p.name for p in loaded) == ["coins.svg", "shield.svg"]
    again = raster.jobs_pdf(sides, fonts)
    assert len(loaded) == 2                             # replayed: neither read nor drawn again
    monkeypatch.setattr(raster, "_svg_forms", None)     # (as a worker's first chunk, every time)
    fresh = raster.jobs_pdf(sides, fonts)
    assert len(loaded) == 4
    assert pixels(first) == pixels(again) == pixels(fresh)
    assert len(set(pixels(fresh))) == 3


def test_icon_forms_kept_in_the_users_cache_are_replayed_by_the_next_process_without_svglib(tmp_path, monkeypatch):
    """With the build's code version (`raster._SvgForms.stamp`), each SVG form a worker draws is
    also kept in the user's cache: a new process replays it from there, without reading the SVG
    or importing svglib, to the same pixels; an entry damaged, of another shape or of another
    code version is not used (the icon is drawn again)."""
    import marshal
    import os
    import subprocess
    import sys

    import pypdfium2 as pdfium

    from cardgen.core.digest import seal, user_cache
    from cardgen.model.ops import CardLayout, Icon, Rect
    from cardgen.render import draw
    from cardgen.resources.fonts import FontBook

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fonts = FontBook([DATA / "fonts"])
    fonts.face("Lato")
    art = DATA / "art" / "icons"
    sides = [CardLayout(180.0, 252.0, 9.0, [Rect(-9, -9, 198, 270, fill=(0.9, 0.8, 0.7, 1)),
                                            Icon(art / name, 40.0, 40.0, 100.0, 100.0, color=(0.5, 0.1, 0.3, 1))])
             for name in ("coins.svg", "shield.svg")]
    loaded: list[Path] = []
    load = draw.load_svg
    monkeypatch.setattr(draw, "load_svg", lambda path: loaded.append(path) or load(path))

    def drawn(stamp: str) -> list[bytes]:
        forms = raster._SvgForms(8)         # (a new worker's)
        forms.stamp = stamp
        monkeypatch.setattr(raster, "_svg_forms", forms)
        doc = pdfium.PdfDocument(raster.jobs_pdf(sides, fonts))
        return [raster._render_page(doc[i], sides[i], raster.Spec(409, 573, 0)).tobytes() for i in range(len(doc))]

    first = drawn("v1")
    kept = sorted((user_cache("svg-forms") or tmp_path).glob("*.bin"))
    assert len(loaded) == 2 and len(kept) == 2
    assert drawn("v1") == first and len(loaded) == 2            # replayed from the user's cache
    assert drawn("v2") == first and len(loaded) == 4            # another code version: drawn again
    kept[0].write_bytes(kept[0].read_bytes()[:-1] + b"x")       # damaged: deleted, drawn again
    kept[1].write_bytes(seal(marshal.dumps(("q", [], (1.0,), []), 2)))     # not a form
    assert drawn("v1") == first and len(loaded) == 6
    assert drawn("v1") == first and len(loaded) == 6            # (both kept again, as drawn)
    script = (f"import sys; from pathlib import Path; from cardgen.render import raster; "
              f"from cardgen.model.ops import CardLayout, Icon; from cardgen.resources.fonts import FontBook; "
              f"f = FontBook([Path({str(DATA / 'fonts')!r})]); f.face('Lato'); raster._svg_forms.stamp = 'v1'; "
              f"raster.jobs_pdf([CardLayout(180.0, 252.0, 9.0, [Icon(Path({str(art / 'coins.svg')!r}), "
              f"40.0, 40.0, 100.0, 100.0, color=(0.5, 0.1, 0.3, 1))])], f); "
              f"print(sorted(m for m in ('svglib', 'reportlab.graphics.renderPDF') if m in sys.modules))")
    # (in new processes: the name a process's ReportLab gives the base font, which the key holds,
    # depends on the fonts it registered before)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "fresh")}).stdout.strip()
            for _ in range(2)]
    assert runs == ["['reportlab.graphics.renderPDF', 'svglib']", "[]"]


def test_a_build_prunes_the_cache_at_most_once_a_day(tmp_path):
    import os
    import time

    from cardgen.render.raster import Cache

    cache = Cache(tmp_path / "raster")
    old = cache.path("aa" + "0" * 62)
    old.parent.mkdir(parents=True)
    month_ago = time.time() - 30 * 86400

    def unused() -> None:
        old.write_bytes(b"x")
        os.utime(old, (month_ago, month_ago))

    unused()
    assert cache.tidy() == 1 and not old.exists()            # never pruned: pruned now
    stamp = tmp_path / "raster.pruned"
    assert stamp.is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["raster", "raster.pruned"]
    unused()
    assert cache.tidy() == 0 and old.exists()                # pruned within the day: not again
    os.utime(stamp, (time.time() - 86400 - 60,) * 2)
    assert cache.tidy() == 1 and not old.exists()            # a day later: again
