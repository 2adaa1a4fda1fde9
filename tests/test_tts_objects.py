"""Tokens, tiles, boards and dice in the Tabletop Simulator save (cardgen/outputs/tts_objects.py):
the object type each gets, the keys real saves have, their images and their size on the table."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from test_tts import local

from cardgen.core.errors import Report
from cardgen.model.components import hex_box
from cardgen.outputs import tts_objects as objs
from cardgen.outputs.tts import footprint
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import load_game

REPO = Path(__file__).resolve().parent.parent
UPM = objs.UNITS_PER_MM

FACE = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "{{ card.color }}"}
  - {name: band, type: rect, x: 0mm, y: 0mm, width: "{{ deck.size.width }}mm", height: "{{ deck.size.height * 0.2 }}mm", fill: "#ffffff"}
"""
BACK = """\
elements:
  - {name: bg, type: rect, box: bleed, fill: "#102030"}
"""
FILES = {
    "cards.yaml": "deck: Cards\ntemplate: face\nback: back\ncards:\n  - {name: C1, count: 2, color: '#808080'}\n",
    "hexes.yaml": ("deck: Hexes\nkind: tile\nsize: 40mm\ntemplate: face\nback: back\ncards:\n"
                   "  - {name: Forest, count: 3, color: '#1a7a1a'}\n  - {name: Lake, count: 1, color: '#1a1a9a'}\n"),
    "pointy.yaml": ("deck: Pointy\nkind: token\nshape: hex-pointy\nsize: 20mm\ntemplate: face\n"
                    "tts: {object: token}\ncards:\n  - {name: Spike, count: 2, color: '#c01010'}\n"),
    "coins.yaml": ("deck: Coins\nkind: token\nsize: 25mm\ntemplate: face\ntts: {supply: true}\ncards:\n"
                   "  - {name: Gold, count: 10, color: '#c0a010', label: Gold, notes: 'bank'}\n"
                   "  - {name: Copper, count: 0, color: '#b06020'}\n"
                   "  - {name: Silver, count: 5, color: '#a0a0a0'}\n"),
    "squares.yaml": ("deck: Squares\nkind: token\nshape: rect\nsize: 15mm\ntemplate: face\nbacks: back\n"
                     "cards:\n  - {name: Marker, count: 1, color: '#10a0a0'}\n"),
    "mat.yaml": ("deck: Mats\ndescription: One for each player.\nkind: board\nsize: {width: 200mm, height: 150mm}\ntemplate: face\ncards:\n"
                 "  - {name: Player mat, count: 2, color: '#303050'}\n"),
    "dice.yaml": ("deck: Dice\nkind: die\nsize: 16mm\ncount: 2\ntemplate: face\ncards:\n"
                  + "".join(f"  - {{name: F{i}, color: '{c}', {v}}}\n" for i, (c, v) in enumerate(
                      [("#ff0000", "pips: 1"), ("#00ff00", "label: Two"), ("#0000ff", "value: Three, label: x"),
                       ("#ffff00", "value: 4"), ("#ff00ff", "label: ''"), ("#00ffff", "pips: 6")], 1))),
}
DIE_COLOURS = {1: (255, 0, 0), 2: (0, 255, 0), 3: (0, 0, 255), 4: (255, 255, 0), 5: (255, 0, 255), 6: (0, 255, 255)}


def pieces_game(root: Path) -> Path:
    """The game of `FILES` (a deck, tokens, tiles, a board, dice) in `root`/pieces."""
    game = root / "pieces"
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "templates" / "back.yaml").write_text(BACK)
    for name, text in FILES.items():
        (game / name).write_text(text)
    (game / "game.yaml").write_text("title: Pieces\ncard_size: poker\ndecks: [" + ", ".join(
        n[:-5] for n in FILES) + "]\n")
    return game


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    root = tmp_path_factory.mktemp("ttsobj")
    game = pieces_game(root)
    out = root / "build"
    build_game(game, REPO, BuildOptions(only=("tts",), out=out), Report())
    first = (out / "pieces" / "tts" / "pieces.json").read_bytes()
    files = sorted(p.name for p in (out / "pieces" / "tts").iterdir())
    build_game(game, REPO, BuildOptions(only=("tts",), out=out), Report())
    # the same input gives the same save, byte for byte, and the same image files
    assert (out / "pieces" / "tts" / "pieces.json").read_bytes() == first
    assert sorted(p.name for p in (out / "pieces" / "tts").iterdir()) == files
    return json.loads(first)["ObjectStates"]


def _by_tag(states, tag):
    return [o for o in states if tag in o.get("Tags", [])]


def _image(url: str) -> Image.Image:
    return Image.open(local(url))


def test_hex_tiles_are_custom_tiles_in_a_bag_with_their_shared_back(synth):
    (bag,) = _by_tag(synth, "Hexes")
    assert bag["Name"] == "Bag" and bag["Bag"] == {"Order": 0}
    assert bag["Nickname"] == "Hexes" and "4 pieces: 3 Forest, 1 Lake" in bag["Description"]
    tiles = bag["ContainedObjects"]
    assert [t["Nickname"] for t in tiles] == ["Forest"] * 3 + ["Lake"]
    assert len({t["GUID"] for t in tiles} | {bag["GUID"]}) == 5           # each copy an object of its own
    for t in tiles:
        assert t["Name"] == "Custom_Tile"
        assert t["CustomImage"]["CustomTile"] == {"Type": 1, "Thickness": 0.1, "Stackable": True, "Stretch": True}
        assert t["Transform"]["rotY"] == 180.0 and t["Transform"]["rotZ"] == 0.0      # face up, flat-top
        # scale 1 is 2 units deep: the tile's depth (flat to flat) at the decks' mm per unit
        assert t["Transform"]["scaleX"] == t["Transform"]["scaleZ"] == round(40 * UPM / 2, 4)
    backs = {t["CustomImage"]["ImageSecondaryURL"] for t in tiles}
    assert len(backs) == 1 and _image(backs.pop()).getpixel((80, 80)) == (16, 32, 48)
    front = _image(tiles[0]["CustomImage"]["ImageURL"])
    w, h = hex_box(40, "hex-flat")                                          # the hex's box, 46.2 x 40 mm
    assert abs(front.width / front.height - w / h) < 0.01
    assert front.mode == "RGB"                                              # a tile needs no alpha


def test_a_pointy_token_is_a_custom_token_turned_to_ttss_flat_hex_with_alpha(synth):
    (bag,) = _by_tag(synth, "Pointy")
    tok = bag["ContainedObjects"][0]
    assert tok["Name"] == "Custom_Token"
    assert tok["CustomImage"]["CustomToken"] == {"Thickness": 0.1, "MergeDistancePixels": 15, "Stackable": True,
                                                 "StandUp": False}
    assert tok["Transform"]["rotY"] == 270.0
    framed = _image(tok["CustomImage"]["ImageURL"])
    assert framed.mode == "RGBA"
    # a transparent border all round (4 % of the height), the hex inside it
    x0, y0, x1, y1 = framed.getchannel("A").getbbox()
    pad = round((framed.height - (y1 - y0)) / 2)
    assert (x0, y0, framed.width - x1, framed.height - y1) == (pad, pad, pad, pad)
    assert abs(pad / (y1 - y0) - objs.TOKEN_BORDER) < 0.01
    img = framed.crop((x0, y0, x1, y1))
    w, h = hex_box(20, "hex-pointy")                                        # 20 x 23.1 mm, turned: 23.1 x 20
    assert abs(img.width / img.height - h / w) < 0.01
    assert img.getpixel((0, 0))[3] == 0 and img.getpixel((img.width - 1, img.height - 1))[3] == 0  # outside
    assert img.getpixel((img.width // 2, 2))[3] == 255                      # a flat edge at the top
    assert img.getpixel((3, img.height // 2))[3] == 255                     # a point at the left
    # turned counter-clockwise: the piece's top band lies along the left of the image
    assert img.getpixel((img.width // 10 + 2, img.height // 2))[:3] == (255, 255, 255)
    assert img.getpixel((img.width - img.width // 5, img.height // 2))[:3] == (192, 16, 16)
    # its depth once turned is 20 mm; the image is 8 % deeper with its border
    assert tok["Transform"]["scaleX"] == round(20 * (1 + 2 * objs.TOKEN_BORDER) * UPM / 2, 4)


def test_a_supply_is_an_infinite_bag_per_kind_holding_one(synth):
    bags = _by_tag(synth, "Coins")
    assert [b["Name"] for b in bags] == ["Infinite_Bag", "Infinite_Bag"]
    assert [b["Nickname"] for b in bags] == ["Gold", "Silver"]
    for b in bags:
        assert "Bag" not in b and b["MaterialIndex"] == -1 and b["MeshIndex"] == -1
        (coin,) = b["ContainedObjects"]
        assert coin["Name"] == "Custom_Tile" and coin["CustomImage"]["CustomTile"]["Type"] == 2
        img = _image(coin["CustomImage"]["ImageURL"])
        assert img.width == img.height                                      # a round piece's image is square
        assert coin["CustomImage"]["ImageSecondaryURL"] == ""               # one-sided: TTS shows the face
    assert bags[0]["ContainedObjects"][0]["Description"] == "Gold"
    assert bags[0]["ContainedObjects"][0]["GMNotes"] == "bank"
    # a parked entry (count: 0) makes no bag and no image
    folder = local(bags[0]["ContainedObjects"][0]["CustomImage"]["ImageURL"]).parent
    assert len(list(folder.glob("coins-*"))) == 2
    # each bag in its pieces' colour (#c0a010, #a0a0a0)
    assert [b["ColorDiffuse"] for b in bags] == [{"r": 0.7529, "g": 0.6275, "b": 0.0627},
                                                 {"r": 0.6275, "g": 0.6275, "b": 0.6275}]


def test_a_single_piece_lies_by_itself_and_boards_each_by_themselves(synth):
    (marker,) = _by_tag(synth, "Squares")
    assert marker["Name"] == "Custom_Tile" and marker["CustomImage"]["CustomTile"]["Type"] == 0
    assert marker["CustomImage"]["ImageSecondaryURL"] not in ("", marker["CustomImage"]["ImageURL"])
    mats = _by_tag(synth, "Mats")
    assert [m["Name"] for m in mats] == ["Custom_Tile", "Custom_Tile"]
    for m in mats:
        assert m["CustomImage"]["CustomTile"] == {"Type": 0, "Thickness": 0.1, "Stackable": False, "Stretch": True}
        img = _image(m["CustomImage"]["ImageURL"])
        assert abs(img.width / img.height - 200 / 150) < 0.002
        assert m["Transform"]["scaleX"] == round(150 * UPM / 2, 4)
        assert m["Description"] == "One for each player."          # the file's, as it has none of its own


def test_the_table_rows_decks_then_boards_then_pieces_none_overlapping(synth):
    placed = [o for o in synth if o["Name"] != "Custom_PDF"]
    rows = {"Deck": [], "Custom_Tile": [], "bags": []}
    for o in placed:
        key = "bags" if "Bag" in o["Name"] else o["Name"]
        if o["Name"] == "Custom_Tile" and "Mats" not in o["Tags"]:
            key = "bags"                                                    # the single marker
        rows[key].append(o["Transform"]["posZ"])
    assert min(rows["Deck"]) > max(rows["Custom_Tile"]) > max(rows["bags"])
    boxes = []
    for o in placed:
        size = {"Deck": (63.5, 88.9), "Custom_Tile": None}.get(o["Name"])
        if o["Name"] == "Custom_Tile" and "Mats" in o["Tags"]:
            size = (200, 150)
        elif o["Name"] != "Deck":
            size = (max(objs.BAG_SIZE_MM[0], 15), max(objs.BAG_SIZE_MM[1], 15))
        w, d = footprint({"Name": o["Name"], "Transform": o["Transform"], "_size_mm": size})
        x, z = o["Transform"]["posX"], o["Transform"]["posZ"]
        boxes.append((x - w / 2, z - d / 2, x + w / 2, z + d / 2))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert not any(k.startswith("_") for o in synth for k in o)


def test_dice_are_custom_d6s_in_a_bag_with_ttss_image_layout_and_rotations(synth):
    (bag,) = _by_tag(synth, "Dice")
    assert bag["Name"] == "Bag" and bag["Nickname"] == "Dice"
    dice = bag["ContainedObjects"]
    assert [d["Name"] for d in dice] == ["Custom_Dice"] * 2 and dice[0]["GUID"] != dice[1]["GUID"]
    die = dice[0]
    assert die["CustomImage"]["CustomDice"] == {"Type": 1} and die["CustomImage"]["ImageSecondaryURL"] == ""
    t = die["Transform"]
    assert t["scaleX"] == t["scaleY"] == t["scaleZ"] and t["rotX"] == t["rotZ"] == 0.0
    # each face's value (value, else pips, else label, else name) and the rotation that shows it on
    # top: SCED's saved d6 (components-facts.md)
    assert die["RotationValues"] == [
        {"Value": 1, "Rotation": {"x": -90.0, "y": 0.0, "z": 0.0}},
        {"Value": "Two", "Rotation": {"x": 0.0, "y": 0.0, "z": 0.0}},
        {"Value": "Three", "Rotation": {"x": 0.0, "y": 0.0, "z": -90.0}},
        {"Value": 4, "Rotation": {"x": 0.0, "y": 0.0, "z": 90.0}},
        {"Value": "F5", "Rotation": {"x": 0.0, "y": 0.0, "z": -180.0}},
        {"Value": 6, "Rotation": {"x": 90.0, "y": 0.0, "z": 0.0}}]
    # the image: 3 x 3 equal cells, the top row empty, then faces 2, 4, 5, then 1, 3, 6 with faces
    # 1 and 6 turned 180 degrees (their white band, the top of the face, at the cell's foot)
    img = _image(die["CustomImage"]["ImageURL"]).convert("RGB")
    assert img.width == img.height
    c = img.width / 3

    def at(col, row, fx, fy):
        return img.getpixel((int((col + fx) * c), int((row + fy) * c)))

    for col in range(3):
        assert at(col, 0, 0.5, 0.5) == (255, 255, 255)
    for (col, row), (face, over) in zip([(0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)],
                                        [(2, False), (4, False), (5, False), (1, True), (3, False), (6, True)]):
        colour = at(col, row, 0.5, 0.5)
        assert all(abs(a - b) < 12 for a, b in zip(colour, DIE_COLOURS[face])), (face, colour)
        top, foot = at(col, row, 0.5, 0.08), at(col, row, 0.5, 0.92)
        assert (foot if over else top) == pytest.approx((255, 255, 255), abs=12), face
        assert all(abs(a - b) < 12 for a, b in zip(top if over else foot, DIE_COLOURS[face])), face


# -- key by key with real saves ---------------------------------------------------------------
# The keys of real saved objects of each type, from the SCED (Arkham Horror LCG) mod,
# github.com/argonui/SCED at 70dd00c8560bad1b19f17289eaa187743560f0ed: Custom_Tile
# objects/Cluetokens.31fa39/Custom_Tile.a3fb6c.json (a clue token: circle, stackable, 0.1),
# Custom_Token objects/Damage.1f5a0a.json, Bag objects/TokenSource.124381.json, Infinite_Bag
# objects/Fan-MadeAccessories.aa8b38/DoomCounterBag.a82b88.json, Custom_Dice
# objects/ObjectSourceBag.830bd0/Custom_Dice.loladie.json.  SCED's repository splits a
# container's ContainedObjects into files (ContainedObjects_order/_path) and adds `Memo`: those
# are its tooling's, not TTS's.  Values: (JSON type) as there.
REAL_COMMON = {"AltLookAngle": "dict", "Autoraise": "bool", "ColorDiffuse": "dict", "Description": "str",
               "DragSelectable": "bool", "GMNotes": "str", "GUID": "str", "Grid": "bool", "GridProjection": "bool",
               "Hands": "bool", "HideWhenFaceDown": "bool", "IgnoreFoW": "bool", "LayoutGroupSortIndex": "number",
               "Locked": "bool", "LuaScript": "str", "LuaScriptState": "str", "MeasureMovement": "bool",
               "Name": "str", "Nickname": "str", "Snap": "bool", "Sticky": "bool", "Tooltip": "bool",
               "Transform": "dict", "Value": "number", "XmlUI": "str"}
REAL = {
    "Custom_Tile": {**REAL_COMMON, "CustomImage": "dict"},
    "Custom_Token": {**REAL_COMMON, "CustomImage": "dict"},
    "Bag": {**REAL_COMMON, "Bag": "dict", "MaterialIndex": "number", "MeshIndex": "number",
            "ContainedObjects": "list"},
    "Infinite_Bag": {**REAL_COMMON, "MaterialIndex": "number", "MeshIndex": "number", "Tags": "list",
                     "ContainedObjects": "list"},
    "Custom_Dice": {**REAL_COMMON, "CustomImage": "dict", "RotationValues": "list"},
}
REAL_IMAGE = {"ImageURL": "str", "ImageSecondaryURL": "str", "ImageScalar": "number", "WidthScale": "number"}
REAL_SHAPE = {"CustomTile": {"Type": "number", "Thickness": "number", "Stackable": "bool", "Stretch": "bool"},
              "CustomToken": {"Thickness": "number", "MergeDistancePixels": "number", "Stackable": "bool",
                              "StandUp": "bool"},
              "CustomDice": {"Type": "number"}}
REAL_ROTATION = {"Value": ("number", "str"), "Rotation": {"x": "number", "y": "number", "z": "number"}}
OURS_TOO = {"Tags"}           # TTS writes Tags on any object that has some (SCED's Infinite_Bag has them)


def _json_type(v) -> str:
    return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__


def _compare(obj: dict) -> None:
    real = REAL[obj["Name"]]
    assert set(obj) - set(real) <= OURS_TOO, set(obj) - set(real)
    assert set(real) <= set(obj), set(real) - set(obj)
    assert {k: _json_type(obj[k]) for k in real} == real
    if "CustomImage" in real:
        image = obj["CustomImage"]
        (shape,) = set(image) - set(REAL_IMAGE)
        assert {k: _json_type(image[k]) for k in REAL_IMAGE} == REAL_IMAGE
        assert {k: _json_type(v) for k, v in image[shape].items()} == REAL_SHAPE[shape]
    for rv in obj.get("RotationValues", []):
        assert set(rv) == set(REAL_ROTATION) and _json_type(rv["Value"]) in REAL_ROTATION["Value"]
        assert {k: _json_type(v) for k, v in rv["Rotation"].items()} == REAL_ROTATION["Rotation"]
    for inner in obj.get("ContainedObjects", []):
        _compare(inner)


def test_every_object_has_the_keys_of_a_real_save_of_its_type(synth):
    seen = set()
    for o in synth:
        if o["Name"] in REAL:
            _compare(o)
            seen |= {o["Name"], *(i["Name"] for i in o.get("ContainedObjects", []))}
    assert seen == set(REAL)


# -- the bundled games ------------------------------------------------------------------------

BUNDLED = sorted(p.name for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file())


@pytest.mark.parametrize("name", BUNDLED)
def test_each_bundled_component_is_on_the_table_as_its_kind(name, bundled_build):
    game = load_game(REPO / "cards" / name, REPO, Report())
    components = [d for d in game.decks if d.kind != "card" and d.count]
    if not components:
        pytest.skip(f"{name} has no tokens, tiles or boards")
    folder, _ = bundled_build(name)         # (its TTS save is the same whatever else the build makes)
    states = json.loads((folder / "tts" / f"{name}.json").read_text())["ObjectStates"]
    for deck in components:
        mine = _by_tag(states, deck.name)
        pieces = [i for o in mine for i in (o["ContainedObjects"] if "Bag" in o["Name"] else [o])]
        supply = (deck.data.get("tts") or {}).get("supply", False)
        if supply:
            assert {o["Name"] for o in mine} == {"Infinite_Bag"}
            assert len(pieces) == len([c for c in deck.cards if c.count])
        else:
            assert len(pieces) == deck.pieces, deck.name                # a die file: its dice
            if deck.kind != "board" and deck.pieces > 1:
                assert [o["Name"] for o in mine] == ["Bag"]
        for p in pieces:
            _compare(p)
            if deck.kind == "die":
                assert p["Name"] == "Custom_Dice" and len(p["RotationValues"]) == 6
                continue
            assert p["Name"] == "Custom_Tile"
            tile = p["CustomImage"]["CustomTile"]
            assert tile["Type"] == objs.TILE_TYPES[deck.size.shape] and tile["Stackable"] == (deck.kind != "board")
            img = _image(p["CustomImage"]["ImageURL"])
            assert abs(img.width / img.height - deck.size.width / deck.size.height) < 0.01
            assert p["Transform"]["scaleZ"] == round(deck.size.height * UPM / 2, 4)
            back = p["CustomImage"]["ImageSecondaryURL"]
            assert bool(back) == deck.has_backs and (not back or _image(back).size == img.size)


def test_a_game_of_tokens_alone_shows_them_in_its_thumbnail(tmp_path):
    game = tmp_path / "chits"
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(FACE)
    (game / "coins.yaml").write_text(FILES["coins.yaml"])
    (game / "game.yaml").write_text("title: Chits\ndecks: [coins]\n")
    build_game(game, REPO, BuildOptions(only=("tts",), out=tmp_path / "build"), Report())
    thumb = Image.open(tmp_path / "build" / "chits" / "tts" / "chits.png").convert("RGB")
    # the first coin (#c0a010) fanned with the second (#a0a0a0), below their white bands
    near = [thumb.getpixel((x, 150)) for x in range(256)]
    assert any(max(abs(a - b) for a, b in zip(p, (192, 160, 16))) < 12 for p in near)
    assert any(max(abs(a - b) for a, b in zip(p, (160, 160, 160))) < 12 for p in near)
    assert thumb.getpixel((12, 40)) == (46, 52, 58)            # round: the square's corner is not drawn
