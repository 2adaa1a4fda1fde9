"""Tabletop Simulator export: atlas geometry, pixels in the right cells, the saved object."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
from PIL import Image

from cardgen.core.errors import CardgenError, Report
from cardgen.outputs import tts
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import load_game
from cardgen.render import raster

REPO = Path(__file__).resolve().parent.parent

FACE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ card.color }}"}
"""
BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#102030"}
"""


def colour(k: int) -> tuple[int, int, int]:
    """A colour of its own for each of 150 cards, far enough apart to tell after JPEG."""
    return (k % 6 * 40 + 30, (k // 6) % 5 * 50 + 20, k // 30 * 50 + 10)


def hexcol(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def local(uri: str) -> Path:
    """The file a `file:` URI names (and it must be one)."""
    parts = urlparse(uri)
    assert parts.scheme == "file" and parts.netloc == "", uri
    return Path(url2pathname(parts.path))


def make_game(root: Path, decks: dict, game_extra: str = "") -> Path:
    """decks: file stem -> (deck yaml header lines, [(name, count, colour)])."""
    game = root / "synth"
    (game / "templates").mkdir(parents=True, exist_ok=True)
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "templates" / "back.yaml").write_text(BACK)
    (game / "game.yaml").write_text("title: Synth\ncard_size: poker\n" + game_extra)
    for stem, (header, cards) in decks.items():
        lines = [header, "cards:"]
        for name, count, rgb, *text in cards:
            lines.append(f"  - {{name: \"{name}\", count: {count}, color: \"{hexcol(rgb)}\""
                         + (f", text: \"{text[0]}\"" if text else "") + "}")
        (game / f"{stem}.yaml").write_text("\n".join(lines) + "\n")
    return game


def build(game: Path, out: Path, **flags) -> list[Path]:
    """`flags`: tts options as the command line gives them (format="png", base_url=...)."""
    return build_game(game, REPO, BuildOptions(only=("tts",), out=out, outputs={"tts": flags}), Report())


# -- geometry ---------------------------------------------------------------------------------

POKER = (63.5, 88.9)


@pytest.mark.parametrize("n, hidden_back, grids", [
    (1, False, [(2, 1)]),
    (69, False, [(10, 7)]),
    (70, False, [(10, 7), (2, 1)]),
    (70, True, [(10, 7)]),
    (150, False, [(10, 7), (10, 7), (7, 2)]),          # 12 cards + hidden cell: 13 cells in 14
    (1, True, [(1, 1)]),
    (10, True, [(5, 2)]),                               # no empty cell (was 10 x 2 with 9 empty)
    (12, True, [(4, 3)]),                               # 4 x 3 gives larger cells than 6 x 2
    (150, True, [(10, 7), (10, 7), (5, 2)]),
])
def test_sheet_grids(n, hidden_back, grids):
    sheets = tts.plan_sheets(list(range(n)), *POKER, hidden_back)
    assert [(s.cols, s.rows) for s in sheets] == grids
    per = 70 if hidden_back else 69
    assert [len(s.entries) for s in sheets] == [min(per, n - i * per) for i in range(len(grids))]
    for s in sheets:
        assert s.cols <= 10 and s.rows <= 7
        w, h = s.size
        assert w <= 4096 and h <= 4096
        assert abs(s.cell_w / s.cell_h - POKER[0] / POKER[1]) < 0.003
        # cards plus the hidden cell fit the grid
        assert len(s.entries) + (0 if hidden_back else 1) <= s.cols * s.rows
    if grids[0] != (10, 7):
        assert (sheets[0].cell_w, sheets[0].cell_h) == (750, 1050)     # 300 dpi at most
    else:
        assert {(s.cell_w, s.cell_h) for s in sheets} == {(409, 573)}
        assert sheets[0].size == (4090, 4011)


def test_cell_size_landscape_and_square():
    w, h = tts.cell_size(10, 7, 88.9, 63.5)
    assert w * 10 <= 4096 and h * 7 <= 4096 and abs(w / h - 88.9 / 63.5) < 0.01
    assert tts.cell_size(10, 7, 70, 70) == (409, 409)


# -- a 150-card deck, built once --------------------------------------------------------------

@pytest.fixture(scope="module")
def big(tmp_path_factory):
    root = tmp_path_factory.mktemp("tts150")
    cards = [(f"Card {k:03d}", 1, colour(k), f"Gain **{k}** :coins: now") for k in range(150)]
    game = make_game(root, {
        "big": ("deck: Big\ntemplate: face\nback: back\ndescription: many cards\ntts: {back_is_hidden: false}", cards),
        "one": ("deck: Lonely\ntemplate: face\nback: back", [("Solo", 1, (200, 30, 30))]),
        "wide": ("deck: Wide\ntemplate: face\nsize: {width: 88.9mm, height: 63.5mm}\n"
                 "tts: {back_is_hidden: true}", [("W1", 2, (10, 200, 10)), ("W2", 1, (10, 10, 200))]),
        "tokens": ("deck: Tokens\ntemplate: face\nbacks: back\nsize: {diameter: 30mm}",
                   [("T1", 1, (90, 90, 0)), ("T2", 1, (0, 90, 90))]),
    }, "decks: [big, one, wide, tokens]\ntts: {format: png}\n")
    out = root / "build"
    raster.reset_stats()
    written = build(game, out)
    stats = dict(raster.STATS)
    save = json.loads((out / "synth" / "tts" / "synth.json").read_text())
    return {"game": game, "out": out, "written": written, "stats": stats, "save": save}


def _deck(save, nickname):
    return next(o for o in save["ObjectStates"] if o["Nickname"] == nickname)


def test_each_card_sits_in_its_own_cell(big):
    deck = _deck(big["save"], "Big")
    keys = list(deck["CustomDeck"])
    assert len(keys) == 3
    atlases = []
    for key in keys:
        entry = deck["CustomDeck"][key]
        im = Image.open(local(entry["FaceURL"]))
        assert im.mode == "RGB"
        assert im.size == (entry["NumWidth"] * 409, entry["NumHeight"] * 573)
        atlases.append(im.convert("RGB"))
    for k in range(150):
        sheet, idx = divmod(k, 69)
        ncols = list(deck["CustomDeck"].values())[sheet]["NumWidth"]
        col, row = idx % ncols, idx // ncols
        for fx, fy in ((0.5, 0.5), (0.1, 0.1), (0.9, 0.9)):
            px = atlases[sheet].getpixel((int((col + fx) * 409), int((row + fy) * 573)))
            assert px == colour(k), (k, sheet, idx, fx, fy, px)
    # the grid's last cell is the hidden-card image: here the shared back
    for im, entry in zip(atlases, deck["CustomDeck"].values()):
        cols, rows = entry["NumWidth"], entry["NumHeight"]
        last = cols * rows - 1
        assert im.getpixel((int((last % cols + 0.5) * 409), int((last // cols + 0.5) * 573))) == (16, 32, 48)


def test_saved_object_structure(big):
    save = big["save"]
    assert isinstance(save["ObjectStates"], list) and len(save["ObjectStates"]) == 4
    deck = _deck(save, "Big")
    assert deck["Name"] == "Deck"
    cards = deck["ContainedObjects"]
    assert len(cards) == 150
    assert deck["DeckIDs"] == [c["CardID"] for c in cards]
    assert [c["Nickname"] for c in cards] == [f"Card {k:03d}" for k in range(150)]
    assert cards[7]["Description"] == "Gain 7 coins now"
    keys = [int(k) for k in deck["CustomDeck"]]
    for k, c in enumerate(cards):
        key = keys[k // 69]
        assert c["Name"] == "Card"
        assert c["CardID"] == key * 100 + k % 69
        assert list(c["CustomDeck"]) == [str(key)]
        assert c["CustomDeck"][str(key)] == deck["CustomDeck"][str(key)]
        assert c["CardID"] < 2**31
    for entry in deck["CustomDeck"].values():
        for field in ("FaceURL", "BackURL", "NumWidth", "NumHeight", "BackIsHidden", "UniqueBack", "Type"):
            assert field in entry
        assert local(entry["FaceURL"]).is_absolute() and local(entry["FaceURL"]).is_file()
        assert local(entry["BackURL"]).is_file()
        assert entry["BackIsHidden"] is False and entry["UniqueBack"] is False and entry["Type"] == 0
        assert Image.open(local(entry["BackURL"])).size == (409, 573)
    t = deck["Transform"]
    assert (t["scaleX"], t["scaleY"], t["scaleZ"]) == (1.0, 1.0, 1.0)
    assert deck["Description"] == "many cards"
    # every CardID and key is unique across the save
    all_keys = [k for o in save["ObjectStates"] for k in o["CustomDeck"]]
    assert len(all_keys) == len(set(all_keys))


def test_single_card_deck_is_a_card(big):
    solo = _deck(big["save"], "Solo")
    assert solo["Name"] == "Card" and "ContainedObjects" not in solo
    (key, entry), = solo["CustomDeck"].items()
    assert solo["CardID"] == int(key) * 100
    assert (entry["NumWidth"], entry["NumHeight"]) == (1, 1) and entry["BackIsHidden"] is True
    assert Image.open(local(entry["FaceURL"])).size == (750, 1050)


def test_sideways_back_is_hidden_and_round_tokens(big):
    wide = _deck(big["save"], "Wide")
    (key, entry), = wide["CustomDeck"].items()
    assert wide["SidewaysCard"] is True and entry["BackIsHidden"] is True
    assert wide["DeckIDs"] == [int(key) * 100, int(key) * 100, int(key) * 100 + 1]   # copies share a cell
    assert (entry["NumWidth"], entry["NumHeight"]) == (2, 1)          # no hidden cell
    assert wide["Transform"]["scaleX"] == 1.0                         # short side 63.5 mm
    im = Image.open(local(entry["FaceURL"]))
    assert im.size == (2 * 1050, 750)                                 # 300 dpi cells, sideways
    assert [im.getpixel((int((i + 0.5) * 1050), 375)) for i in range(2)] == [(10, 200, 10), (10, 10, 200)]
    assert len({c["GUID"] for c in wide["ContainedObjects"]}) == 3
    tokens = _deck(big["save"], "Tokens")
    (_, tentry), = tokens["CustomDeck"].items()
    assert tentry["Type"] == 4 and tentry["UniqueBack"] is True
    assert Image.open(local(tentry["BackURL"])).size == Image.open(local(tentry["FaceURL"])).size
    assert tokens["Transform"]["scaleX"] == round(30 / 63.5, 4)


def test_thumbnail_and_hashed_names(big):
    tdir = big["out"] / "synth" / "tts"
    thumb = Image.open(tdir / "synth.png")
    assert thumb.size == (256, 256) and thumb.mode == "RGB"
    faces = sorted(p.name for p in tdir.glob("big-faces-*.png"))
    assert len(faces) == 3
    assert all(len(n.rsplit("-", 1)[1]) == len("0123456789.png") for n in faces)


def test_copies_share_a_cell_at_full_resolution(tmp_path):
    """Alter Ego's Hero deck: 50 cards, 5 faces; one sheet of 5 faces and the hidden cell, each
    cell 750 x 1050 px (300 dpi), each card's CardID repeated for its copies."""
    rgbs = [(200, 40, 40), (40, 200, 40), (40, 40, 200), (200, 200, 40), (40, 200, 200)]
    game = make_game(tmp_path, {"hero": ("deck: Hero\ntemplate: face\nback: back\ntts: {back_is_hidden: false}",
                                         [(f"H{k}", 10, rgb) for k, rgb in enumerate(rgbs)])},
                     "decks: [hero]\ntts: {format: png}\n")
    build(game, tmp_path / "out")
    save = json.loads((tmp_path / "out" / "synth" / "tts" / "synth.json").read_text())
    deck = _deck(save, "Hero")
    (key, entry), = deck["CustomDeck"].items()
    assert (entry["NumWidth"], entry["NumHeight"]) == (3, 2)           # 5 faces + the hidden cell
    im = Image.open(local(entry["FaceURL"])).convert("RGB")
    assert im.size == (3 * 750, 2 * 1050)
    for k, rgb in enumerate(rgbs):
        assert im.getpixel(((k % 3) * 750 + 375, (k // 3) * 1050 + 525)) == rgb
    assert im.getpixel((2 * 750 + 375, 1050 + 525)) == (16, 32, 48)   # the hidden cell: the back
    ids = [int(key) * 100 + k for k in range(5) for _ in range(10)]
    assert deck["DeckIDs"] == ids == [c["CardID"] for c in deck["ContainedObjects"]]
    assert [c["Nickname"] for c in deck["ContainedObjects"]] == [f"H{k}" for k in range(5) for _ in range(10)]
    assert len({c["GUID"] for c in deck["ContainedObjects"]} | {deck["GUID"]}) == 51
    # the thumbnail: the title in light letters on top, the five faces fanned below it
    thumb = Image.open(tmp_path / "out" / "synth" / "tts" / "synth.png").convert("RGB")
    band = [thumb.getpixel((x, y)) for x in range(256) for y in range(8, 36)]
    assert sum(1 for p in band if min(p) > 200) > 100
    seen = {thumb.getpixel((x, y)) for x in range(0, 256, 2) for y in range(60, 256, 2)}
    assert all(any(sum(abs(a - b) for a, b in zip(p, rgb)) < 12 for p in seen) for rgb in rgbs)


def test_rebuild_rasterizes_nothing_and_json_is_identical(big):
    # big: 150 faces + back; solo: face + back (bigger cells); wide: 2 faces (copies reuse);
    # tokens: 2 faces + their two identical backs, drawn once
    assert big["stats"]["rasterized"] == 150 + 1 + 2 + 2 + 2 + 1
    before = (big["out"] / "synth" / "tts" / "synth.json").read_bytes()
    raster.reset_stats()
    build(big["game"], big["out"])
    assert raster.STATS["rasterized"] == 0
    assert (big["out"] / "synth" / "tts" / "synth.json").read_bytes() == before



@pytest.mark.parametrize("here", [False, True])
def test_images_made_now_are_moved_into_place_and_match_the_cache(tmp_path, monkeypatch, here):
    """A deck image made by this build is also written, as it is, by whoever made it beside
    the cache and moved into tts/ (the build process reads none back from the cache); an
    image found in the cache is copied from it.  Either way the file is the cache entry's
    payload, on its own (no link), recorded with its sha256.  `here`: the images made by
    the build process after the sides are rasterized (a game of many cards)."""
    import hashlib

    from cardgen.core import atomic

    if here:
        monkeypatch.setattr(tts, "MOSAICS_IN_WORKERS", 0)
    game = small_game(tmp_path)
    moved = []
    real_put = atomic._put

    def put(path, src):
        moved.append((Path(path).suffix, isinstance(src, atomic.Ready)))
        return real_put(path, src)

    monkeypatch.setattr(atomic, "_put", put)
    out = tmp_path / "build"
    build(game, out)
    root = out / "synth"
    images = sorted((root / "tts").glob("*.jpg"))
    assert len(images) == 2 and [ready for ext, ready in moved if ext == ".jpg"] == [True, True]
    atlases = {p.read_bytes()[40:] for p in (root / ".cache" / "tts").rglob("*.jpg")}
    state = (root / ".cardgen" / "state.json").read_text()
    made = {}
    for f in images:
        made[f.name] = f.read_bytes()
        assert f.stat().st_nlink == 1 and made[f.name] in atlases
        assert hashlib.sha256(made[f.name]).hexdigest() in state
    assert list((root / ".cache" / "tts-ready").iterdir()) == []
    moved.clear()
    for f in images:
        f.unlink()                          # the next build makes them again: from the cache
    build(game, out)
    assert [ready for ext, ready in moved if ext == ".jpg"] == [False, False]
    assert {f.name: f.read_bytes() for f in (root / "tts").glob("*.jpg")} == made


# -- small games ----------------------------------------------------------------------------

def small_game(tmp_path, extra_deck="", game_extra=""):
    cards = [(f"C{k}", 2 if k == 0 else 1, colour(k * 7)) for k in range(5)]
    return make_game(tmp_path, {"d": ("deck: D\ntemplate: face\nback: back" + extra_deck, cards)}, game_extra)


def test_editing_one_card_rasterizes_one(tmp_path):
    game = small_game(tmp_path)
    out = tmp_path / "build"
    raster.reset_stats()
    build(game, out)
    assert raster.STATS["rasterized"] == 6            # 5 faces + the back
    old = {p.name for p in (out / "synth" / "tts").iterdir()}
    deck = game / "d.yaml"
    deck.write_text(deck.read_text().replace(hexcol(colour(14)), "#abcdef"))
    raster.reset_stats()
    build(game, out)
    assert raster.STATS["rasterized"] == 1
    new = {p.name for p in (out / "synth" / "tts").iterdir()}
    # the face atlas got a new name; the back kept its own; no stale atlas is left behind
    assert len(new) == len(old) and len(old - new) == 1 and any(n.startswith("d-faces-1-") for n in old - new)


def test_default_jpeg_and_hosted_urls(tmp_path):
    game = small_game(tmp_path)
    out = tmp_path / "build"
    build(game, out, base_url="https://example.org/decks/")
    save = json.loads((out / "synth" / "tts" / "synth.json").read_text())
    (_key, entry), = save["ObjectStates"][0]["CustomDeck"].items()
    assert entry["FaceURL"].startswith("https://example.org/decks/d-faces-1-")
    assert entry["FaceURL"].endswith(".jpg")
    name = entry["FaceURL"].rsplit("/", 1)[1]
    im = Image.open(out / "synth" / "tts" / name)
    # 6 cards, 5 faces, BackIsHidden: 5 x 1 without an empty cell, 300 dpi cells
    assert entry["BackIsHidden"] is True
    assert (entry["NumWidth"], entry["NumHeight"]) == (5, 1)
    assert im.format == "JPEG" and im.mode == "RGB" and im.size == (5 * 750, 1050)
    r, g, b = im.getpixel((2 * 750 + 375, 525))           # C2 follows C0 (both copies in one cell), C1
    assert max(abs(r - colour(14)[0]), abs(g - colour(14)[1]), abs(b - colour(14)[2])) <= 3


def test_tts_format_png_flag(tmp_path):
    game = small_game(tmp_path)
    build(game, tmp_path / "build", format="png")
    assert len(list((tmp_path / "build" / "synth" / "tts").glob("d-faces-1-*.png"))) == 1


def test_unknown_tts_option_is_one_line_error(tmp_path):
    game = small_game(tmp_path, extra_deck="\ntts: {back_hidden: true}")
    with pytest.raises(CardgenError) as exc:
        build(game, tmp_path / "build")
    assert [str(d) for d in exc.value.diagnostics] == [
        f"{game / 'd.yaml'}:4:7: error: D: tts: unknown key 'back_hidden'; did you mean 'back_is_hidden'?"]


# -- keys of the bundled games ----------------------------------------------------------------

def test_custom_deck_keys_unique_across_bundled_games():
    seen: dict[int, str] = {}
    games = sorted(p for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file())
    assert games
    for path in games:
        game = load_game(path, REPO, Report())
        taken: set[int] = set()
        for deck in game.decks:
            if deck.count == 0:
                continue
            n = len(tts.plan_sheets(list(range(deck.count)), deck.size.width, deck.size.height, False))
            for key in tts.deck_keys(game.slug, deck.slug, n, taken):
                assert key not in seen, f"{game.slug}/{deck.slug} collides with {seen[key]}"
                assert key >= 1 and key * 100 + 99 < 2**31
                seen[key] = f"{game.slug}/{deck.slug}"
    # stable: the same inputs give the same keys
    assert tts.deck_keys("game-601", "action", 2, set()) == tts.deck_keys("game-601", "action", 2, set())


def test_description_from_a_list_field_is_one_line_per_item():
    from cardgen.outputs.tts import _description

    card = SimpleNamespace(fields={"abilities": ["Pay **2** :coins:.", "Draw a card."], "text": "x"})

    assert _description(card, "abilities") == "Pay 2 coins.\nDraw a card."


# -- compared with the save format, addresses, the table, the rules -------------------------------

FIXTURE = REPO / "tests" / "fixtures" / "tts" / "deck-format.json"   # the fields a TTS save writes (its README)

# Fields TTS has written on every object since the saves that fixture follows were made (the Knowledge Base's save file
# format lists them); ours may carry these, and no field the save format does not explain.
NEWER_FIELDS = {"AltLookAngle", "DragSelectable", "GMNotes", "GridProjection", "Hands", "HideWhenFaceDown",
                "IgnoreFoW", "LayoutGroupSortIndex", "MeasureMovement", "Tags", "Value", "XmlUI"}


def _shape(value):
    """The JSON type of a value, as TTS's loader sees it (ints and floats are both numbers)."""
    return "number" if isinstance(value, (int, float)) and not isinstance(value, bool) else type(value).__name__


def _ids_tie_together(deck) -> None:
    """How a saved deck's ids refer to each other: DeckIDs are the cards' CardIDs in order, and a
    CardID is its sheet's CustomDeck key times 100 plus its cell, inside the sheet's grid."""
    assert deck["DeckIDs"] == [c["CardID"] for c in deck["ContainedObjects"]]
    for cid in deck["DeckIDs"]:
        entry = deck["CustomDeck"][str(cid // 100)]
        assert 0 <= cid % 100 < entry["NumWidth"] * entry["NumHeight"]


def test_deck_and_card_fields_match_a_tts_save(big):
    real = json.loads(FIXTURE.read_text(encoding="utf-8"))["ObjectStates"][0]
    ours = _deck(big["save"], "Big")
    assert real["Name"] == ours["Name"] == "Deck"
    real_card, our_card = real["ContainedObjects"][0], ours["ContainedObjects"][0]
    assert real_card["Name"] == our_card["Name"] == "Card"
    # a card in an older save carries an empty ContainedObjects; TTS now writes a card's own
    # CustomDeck entry on it, so that a card taken from the deck keeps its picture
    for theirs, mine, old, new in ((real, ours, set(), set()),
                                   (real_card, our_card, {"ContainedObjects"}, {"CustomDeck"})):
        missing = set(theirs) - set(mine) - old
        assert not missing, missing
        extra = set(mine) - set(theirs) - NEWER_FIELDS - new
        assert not extra, extra
        for key, value in theirs.items():
            if key in mine:
                assert _shape(mine[key]) == _shape(value), key
        assert set(mine["Transform"]) == set(theirs["Transform"])
        assert set(mine["ColorDiffuse"]) == set(theirs["ColorDiffuse"]) == {"r", "g", "b"}
    # the sheet entries: every field TTS wrote, with the same types (TTS has added Type since)
    (entry,) = real["CustomDeck"].values()
    for mentry in [*ours["CustomDeck"].values(), *our_card["CustomDeck"].values()]:
        assert set(mentry) - set(entry) == {"Type"}
        assert {k: _shape(mentry[k]) for k in entry} == {k: _shape(v) for k, v in entry.items()}
    # and the ids tie together the same way in both
    _ids_tie_together(real)
    _ids_tie_together(ours)
    assert list(our_card["CustomDeck"]) == [str(our_card["CardID"] // 100)]


def _table_game(root: Path) -> Path:
    game = make_game(root / "my game #1 – ünï", {
        "a": ("deck: Alpha\ntemplate: face\nback: back\ndefaults: {type: Action}\ntts: {face_up: true}",
              [("A1", 3, (200, 0, 0)), ("A2", 1, (0, 200, 0))]),
        "b": ("deck: Beta\ntemplate: face\nback: back", [(f"B{k}", 1, colour(k)) for k in range(10)]),
        "c": ("deck: Gamma\ntemplate: face\nback: back\nsize: tarot", [("G", 2, (9, 9, 9))]),
        "d": ("deck: Delta\ntemplate: face\nback: back\nsize: {width: 88.9mm, height: 63.5mm}",
              [("D", 2, (9, 9, 9))]),
        "e": ("deck: Eps\ntemplate: face\nback: back", [("E", 1, (9, 9, 9))]),
        "f": ("deck: Zeta\ntemplate: face\nback: back", [("Z", 2, (9, 9, 9))]),
    }, "decks: [a, b, c, d, e, f]\n")
    (game / "b.yaml").write_text((game / "b.yaml").read_text().replace(
        '{name: "B0", count: 1, color: "#1e140a"}',
        '{name: "B0", count: 1, color: "#1e140a", type: Hero, notes: "Playtest: too strong?"}'))
    (game / "rules.yaml").write_text("title: Synth rules\nsections:\n  - title: Play\n    body: Take turns.\n")
    return game


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    root = tmp_path_factory.mktemp("table")
    game = _table_game(root)
    out = root / "out dir #1 – ü"
    build(game, out)
    return json.loads(next((out / game.name / "tts").glob("*.json")).read_text()), out / game.name


def test_local_addresses_are_file_uris(table):
    save, folder = table
    urls = [e[k] for o in save["ObjectStates"] for e in o.get("CustomDeck", {}).values() for k in ("FaceURL", "BackURL")]
    urls.append(next(o for o in save["ObjectStates"] if o["Name"] == "Custom_PDF")["CustomPDF"]["PDFUrl"])
    assert urls
    for u in urls:
        assert u.startswith("file:///") and " " not in u and "#" not in u and u.isascii(), u
        assert "%20" in u and "%23" in u and "%C3%BC" in u
        path = local(u)
        assert path.is_absolute() and str(path).startswith(str(folder))
        if not u.endswith("rules.pdf"):
            assert path.is_file()
    assert local(urls[-1]) == folder / "rules.pdf"


def test_decks_lie_in_a_grid_without_overlapping(table):
    save, _ = table
    objs = save["ObjectStates"]
    sizes = {"Gamma": (70, 120), "Delta": (88.9, 63.5)}
    boxes = []
    for o in objs:
        t = o["Transform"]
        if o["Name"] == "Custom_PDF":
            w, d = tts.footprint(o)
        else:
            w, d = tts.footprint({**o, "_size_mm": sizes.get(o["Nickname"], POKER)})
        boxes.append((o["Nickname"], t["posX"] - w / 2, t["posZ"] - d / 2, t["posX"] + w / 2, t["posZ"] + d / 2))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            overlap = a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
            assert not overlap, (a, b)
    decks = [o for o in objs if o["Name"] != "Custom_PDF"]
    assert [o["Nickname"] for o in decks] == ["Alpha", "Beta", "Gamma", "Delta", "E", "Zeta"]   # one card: a Card
    # rows of five: the first five share a row, left to right; the sixth starts the next row nearer the players
    zs = [o["Transform"]["posZ"] for o in decks]
    xs = [o["Transform"]["posX"] for o in decks]
    assert len(set(zs[:5])) == 1 and zs[5] < zs[0]
    assert xs[:5] == sorted(xs[:5]) and xs[5] == min(xs)


def test_face_up_tags_notes_and_the_rules_pdf(table):
    save, _ = table
    by = {o["Nickname"]: o for o in save["ObjectStates"]}
    alpha, beta = by["Alpha"], by["Beta"]
    assert alpha["Transform"]["rotZ"] == 0.0 and beta["Transform"]["rotZ"] == 180.0
    assert all(c["Transform"]["rotZ"] == 0.0 for c in alpha["ContainedObjects"])
    assert alpha["Tags"] == ["Alpha", "Action"] and beta["Tags"] == ["Beta"]
    b0 = beta["ContainedObjects"][0]
    assert b0["Tags"] == ["Beta", "Hero"] and b0["GMNotes"] == "Playtest: too strong?"
    assert beta["ContainedObjects"][1]["GMNotes"] == "" and beta["ContainedObjects"][1]["Tags"] == ["Beta"]
    # a 10-card deck: 5 x 2, no empty cell, back hidden
    (entry,) = beta["CustomDeck"].values()
    assert (entry["NumWidth"], entry["NumHeight"], entry["BackIsHidden"]) == (5, 2, True)
    pdf = by["Synth rules"] if "Synth rules" in by else next(o for o in save["ObjectStates"] if o["Name"] == "Custom_PDF")
    assert pdf["Name"] == "Custom_PDF" and set(pdf["CustomPDF"]) == {"PDFUrl", "PDFPassword", "PDFPage", "PDFPageOffset"}
    assert pdf["CustomPDF"]["PDFUrl"].endswith("/rules.pdf")
    # every CardID fits 32 bits and names a cell of its own sheet; copies share a CardID, not a GUID
    cards = [c for o in save["ObjectStates"] for c in o.get("ContainedObjects", [o]) if "CardID" in c]
    ids = [c["CardID"] for c in cards]
    assert ids and max(ids) < 2**31 and len(ids) > len(set(ids))
    for c in cards:
        (key, entry), = c["CustomDeck"].items()
        assert c["CardID"] // 100 == int(key) and c["CardID"] % 100 < entry["NumWidth"] * entry["NumHeight"]
    assert len({c["GUID"] for c in cards}) == len(cards)


def test_hosted_rules_pdf_address(tmp_path):
    game = _table_game(tmp_path)
    out = tmp_path / "build"
    build(game, out, base_url="https://example.org/g/")
    save = json.loads(next((out / game.name / "tts").glob("*.json")).read_text())
    pdf = next(o for o in save["ObjectStates"] if o["Name"] == "Custom_PDF")
    assert pdf["CustomPDF"]["PDFUrl"] == "https://example.org/g/rules.pdf"


def test_icon_names_in_descriptions():
    assert tts.words(":ap: AP +5") == "AP +5"
    assert tts.words("Roll the :health-die:.") == "Roll the health die."
    assert tts.words("Gain **2** :coins:\nthen *draw*.") == "Gain 2 coins\nthen draw."


def test_descriptions_read_each_word_as_they_did():
    """`tts.words` takes a plain word as it is and works out only the others part by part:
    on random texts of words, icons (alone, inside words, named again after them), marked-up
    spans, forced breaks and paragraphs it says what working out every word did."""
    import random

    from cardgen.text.markup import BREAK, parse

    def every_word(text: str) -> str:           # (session 12's `words`, every word part by part)
        out = []
        for para in parse(text):
            flat = [("break", "") if item is BREAK else ("word", "") for item in para]
            frags = [[(f.kind, f.value) for f in item] if item is not BREAK else [] for item in para]
            texts = []
            for n, (kind, _) in enumerate(flat):
                if kind == "break":
                    texts.append("\n")
                    continue
                parts = []
                for i, (fk, fv) in enumerate(frags[n]):
                    if fk == "text":
                        parts.append(fv)
                        continue
                    name = fv.replace("-", " ").replace("_", " ")
                    after = "".join(v for k, v in frags[n][i + 1:] if k == "text")
                    after += " " + " ".join("".join(v for k, v in w if k == "text") for w in frags[n + 1:] if w)
                    if not after.strip().lower().startswith(name.lower()):
                        parts.append(name)
                if "".join(parts):
                    texts.append("".join(parts))
            out.append(" ".join(texts).replace(" \n ", "\n"))
        return "\n\n".join(out).strip()

    rng = random.Random(30)
    pieces = ["gain", "Coins", "AP", "+5", "health", "die", ":coins:", ":ap:", ":health-die:", "x:coins:y",
              ":a_b:", "**2**", "*draw*", "\n", "\n\n", "  ", "-", "coins", "\u00ad", "[red]hot[/red]", "é"]
    for _ in range(600):
        text = "".join(rng.choice(pieces) + rng.choice([" ", "", " ", "\n"]) for _ in range(rng.randint(0, 14)))
        assert tts.words(text) == every_word(text), text


def test_the_saved_object_is_encoded_in_parts_as_json_dumps_writes_it():
    """The saved object is encoded as it is made (`tts.json_bytes`, a few thousand pieces at a
    time, across many such parts here): the bytes `json.dumps` with the same settings gives."""
    import json

    from cardgen.outputs.tts import json_bytes

    save = {"SaveName": "", "ObjectStates": [{"Nickname": f"Kärte {i} \u2028 😀", "Value": i / 3, "On": i % 2 == 0,
                                              "Tags": [], "Lua": None, "Deck": {"a": [1, 2]}} for i in range(3000)]}
    assert json_bytes(save) == (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode()


def test_an_atlas_is_keyed_by_its_cells_file_names(tmp_path):
    """`_atlas_key`: a cell that is a cached bitmap counts by its file's name (the cache's
    folder is not part of it), as a string or a path; a colour or an empty cell by itself."""
    from cardgen.outputs.tts import _atlas_key

    name = "ab" * 32 + ".rgbz"
    args = (2, 1, 409, 573, "jpg", 92)
    key = _atlas_key([str(tmp_path / "a" / name), None], *args)
    assert key == _atlas_key([tmp_path / "b" / name, None], *args) == _atlas_key([f"c/{name}", None], *args)
    assert key != _atlas_key([str(tmp_path / ("cd" * 32 + ".rgbz")), None], *args)
    assert key != _atlas_key([str(tmp_path / name), (255, 255, 255)], *args)
