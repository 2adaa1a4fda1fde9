"""Other virtual tables (cardgen/outputs/ttp.py, tabletopia.py, screentop.py): the Tabletop
Playground package's templates against a real package's keys, their textures (exist, grid,
pixel size, the right face in each cell), Tabletopia's one image per face at 10 px/mm, and
Screentop's grids and their list."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from PIL import Image
from test_tts_objects import DIE_COLOURS, pieces_game

from cardgen.core.errors import Report
from cardgen.outputs import OUTPUTS
from cardgen.outputs.tabletopia import face_px
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.options import BuildOptions as Opts

REPO = Path(__file__).resolve().parent.parent

# The keys of a real Tabletop Playground card template (visnup/arcs-ttpg
# `assets/Templates/cards/action.json`, a card sheet saved by the editor) and of ttpg-darrell's d6
# template (`src/lib-ext/template/d6-template/d6-template.data.ts`), in their order.
REAL_CARD_KEYS = [
    "Type", "GUID", "Name", "Metadata", "CollisionType", "Friction", "Restitution", "Density", "SurfaceType",
    "Roughness", "Metallic", "PrimaryColor", "SecondaryColor", "Flippable", "AutoStraighten", "ShouldSnap",
    "ScriptName", "Blueprint", "Models", "Collision", "Lights", "SnapPointsGlobal", "SnapPoints",
    "ZoomViewDirection", "GroundAccessibility", "Tags", "FrontTexture", "BackTexture", "HiddenTexture",
    "BackIndex", "HiddenIndex", "NumHorizontal", "NumVertical", "Width", "Height", "Thickness", "HiddenInHand",
    "UsedWithCardHolders", "CanStack", "UsePrimaryColorForSide", "FrontTextureOverrideExposed",
    "AllowFlippedInStack", "MirrorBack", "EmissiveFront", "Model", "Indices", "CardNames", "CardMetadata",
    "CardTags"]
REAL_DICE_KEYS = [*REAL_CARD_KEYS[:REAL_CARD_KEYS.index("FrontTexture")], "Faces"]
REAL_MODEL_KEYS = ["Model", "Offset", "Scale", "Rotation", "Texture", "NormalMap", "ExtraMap", "ExtraMap2",
                   "IsTransparent", "CastShadow", "IsTwoSided", "UseOverrides", "SurfaceType"]
MODELS = {"Rounded", "Square", "Round", "Hexagonal"}      # the schema's CardModel

# What plasticity-studios/tabletop-playground-schemas (`schema.json`, `src/*.ts`) requires of a card
# and a dice template, restated: required keys, enums and ranges.  (Its `Color` says 0 to 1, while
# the editor's own templates write 0 to 255, as cardgen does: colours are left out here.)
_UNIT = {"type": "number", "minimum": 0, "maximum": 1}
_COMMON = {
    "Type": {"enum": ["Card", "Card Holder", "Cardboard Figure", "Container", "Dice", "Generic",
                      "Multistate Object"]},
    "GUID": {"type": "string"}, "Name": {"type": "string"}, "Metadata": {"type": "string"},
    "CollisionType": {"enum": ["Ground", "Penetrable", "Regular", "Static"]},
    "SurfaceType": {"enum": ["Plastic", "Wood", "Metal", "Cardboard", "Cloth", "Glass", "Silent"]},
    "Friction": _UNIT, "Restitution": _UNIT, "Density": _UNIT, "Roughness": _UNIT, "Metallic": _UNIT,
    "Models": {"type": "array"}, "Tags": {"type": "array", "items": {"type": "string"}},
    "Flippable": {"type": "boolean"}, "AutoStraighten": {"type": "boolean"}, "ShouldSnap": {"type": "boolean"},
    "ScriptName": {"type": "string"}, "Blueprint": {"type": "string"}, "SnapPointsGlobal": {"type": "boolean"},
}
_REQUIRED = ["CollisionType", "GUID", "Metadata", "Models", "Name", "SurfaceType", "Tags", "Type"]
_GRID = {"type": "integer", "minimum": 1, "maximum": 128}
_BY_INDEX = {"type": "object", "propertyNames": {"pattern": "^[0-9]+$"}}
SCHEMA = {"Card": {"type": "object", "required": [*_REQUIRED, "BackIndex", "CardMetadata", "CardNames", "CardTags",
                                                  "FrontTexture", "HiddenIndex", "Indices"],
                   "properties": {**_COMMON, "FrontTexture": {"type": "string"}, "BackTexture": {"type": "string"},
                                  "HiddenTexture": {"type": "string"},
                                  "BackIndex": {"type": "integer", "minimum": -3},
                                  "HiddenIndex": {"type": "integer", "minimum": -3},
                                  "NumHorizontal": _GRID, "NumVertical": _GRID,
                                  "Width": {"type": "number", "minimum": 0.1},
                                  "Height": {"type": "number", "minimum": 0.1},
                                  "Thickness": {"type": "number", "minimum": 0.01},
                                  "Indices": {"type": "array", "minItems": 1,
                                              "items": {"type": "integer", "minimum": 0}},
                                  "CardNames": {**_BY_INDEX, "additionalProperties": {"type": "string"}},
                                  "CardMetadata": {**_BY_INDEX, "additionalProperties": {"type": "string"}},
                                  "CardTags": {**_BY_INDEX, "additionalProperties": {
                                      "type": "array", "items": {"type": "string"}}},
                                  "Model": {"enum": sorted(MODELS)}}},
          "Dice": {"type": "object", "required": [*_REQUIRED, "Faces"],
                   "properties": {**_COMMON, "Faces": {"type": "array", "minItems": 1, "items": {
                       "type": "object", "required": ["Name", "X", "Y", "Z"],
                       "properties": {"Name": {"type": "string"}, "X": {"type": "number"}, "Y": {"type": "number"},
                                      "Z": {"type": "number"}}}}}}}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tables")
    game = pieces_game(root)
    out = root / "build"
    build_game(game, REPO, BuildOptions(only=("ttp", "tabletopia", "screentop"), out=out), Report())
    return out / "pieces"


def _templates(built: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((built / "ttp" / "Templates").glob("*.json"))}


def _centre(img: Image.Image, col: int, row: int, cw: int, ch: int) -> tuple:
    return img.convert("RGB").getpixel((col * cw + cw // 2, row * ch + ch // 2))


def _near(a, b, tol=24) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_opt_in_outputs_in_the_registry():
    for name in ("ttp", "tabletopia", "screentop"):
        assert name in OUTPUTS and not OUTPUTS[name].default
        assert name not in Opts().wanted()
        assert name in Opts(only=(name,)).wanted()


def test_ttp_package_files_and_manifest(built):
    root = built / "ttp"
    assert sorted(p.name for p in root.iterdir()) == ["Manifest.json", "Templates", "Textures"]
    manifest = json.loads((root / "Manifest.json").read_text())
    assert list(manifest) == ["Name", "Version", "GUID"] and manifest["Name"] == "Pieces"
    assert set(_templates(built)) == {"cards", "hexes", "pointy", "coins", "squares", "mats-1", "dice"}
    guids = [t["GUID"] for t in _templates(built).values()] + [manifest["GUID"]]
    assert all(re.fullmatch(r"[0-9A-F]{32}", g) for g in guids) and len(set(guids)) == len(guids)
    # every texture is used by a template, and every template's texture is there
    named = set()
    for t in _templates(built).values():
        named |= {t.get("FrontTexture"), t.get("BackTexture")} | {m["Texture"] for m in t.get("Models", [])}
    named.discard("")
    named.discard(None)
    assert named == {p.name for p in (root / "Textures").iterdir()}


def test_ttp_templates_meet_the_schema(built):
    import jsonschema

    for name, t in _templates(built).items():
        jsonschema.validate(t, SCHEMA[t["Type"]])
        cells = t.get("NumHorizontal", 1) * t.get("NumVertical", 1)
        assert all(i < cells for i in t.get("Indices", [])), name        # every index a cell of the sheet
        assert all(int(k) < cells for k in t.get("CardNames", {})), name
    with pytest.raises(jsonschema.ValidationError):        # (the restatement does catch a bad one)
        jsonschema.validate({**_templates(built)["cards"], "NumHorizontal": 0}, SCHEMA["Card"])


def test_ttp_card_templates_have_a_real_templates_keys(built):
    for name, t in _templates(built).items():
        if t["Type"] == "Dice":
            assert list(t) == REAL_DICE_KEYS, name
            assert [list(m) for m in t["Models"]] == [REAL_MODEL_KEYS]
            continue
        assert t["Type"] == "Card"
        assert list(t) == REAL_CARD_KEYS, name
        assert t["Model"] in MODELS
        assert t["BackIndex"] in (-1, -2, -3) and t["HiddenIndex"] in (-1, -3)
        assert all(isinstance(i, int) and i >= 0 for i in t["Indices"])


@pytest.mark.parametrize("name, grid, size_cm, model, back_index, counts", [
    ("cards", (1, 1), (6.35, 8.89), "Rounded", -2, {"C1": 2}),
    ("hexes", (2, 1), (4.6188, 4.0), "Hexagonal", -2, {"Forest": 3, "Lake": 1}),
    ("coins", (2, 1), (2.5, 2.5), "Round", -1, {"Gold": 10, "Silver": 5}),
    ("squares", (1, 1), (1.5, 1.5), "Square", -3, {"Marker": 1}),
    ("pointy", (1, 1), (2.3094, 2.0), "Hexagonal", -1, {"Spike": 2}),      # turned to a flat-top hex
    ("mats-1", (1, 1), (20.0, 15.0), "Square", -1, {"Player mat": 2}),
])
def test_ttp_sheet_grid_size_and_copies(built, name, grid, size_cm, model, back_index, counts):
    t = _templates(built)[name]
    assert (t["NumHorizontal"], t["NumVertical"]) == grid
    assert (t["Width"], t["Height"]) == pytest.approx(size_cm, abs=1e-3)
    assert t["Model"] == model and t["BackIndex"] == back_index
    # copies repeat their cell's index (as real packages do), one cell per distinct face
    got = {t["CardNames"][str(i)]: t["Indices"].count(i) for i in set(t["Indices"])}
    assert got == counts
    front = Image.open(built / "ttp" / "Textures" / t["FrontTexture"])
    cols, rows = grid
    assert front.width % cols == 0 and front.height % rows == 0
    cw, ch = front.width // cols, front.height // rows
    assert cw / ch == pytest.approx(size_cm[0] / size_cm[1], abs=0.01)      # cells in the piece's proportions
    assert cw <= round(size_cm[0] * 10 / 25.4 * 300) + 1                   # and at most 300 dpi
    if back_index == -3:        # a back sheet with the same grid
        assert Image.open(built / "ttp" / "Textures" / t["BackTexture"]).size == front.size
    elif back_index == -2:      # one back, one cell's size
        assert Image.open(built / "ttp" / "Textures" / t["BackTexture"]).size == (cw, ch)
    else:
        assert t["BackTexture"] == ""


def test_ttp_cells_hold_their_faces(built):
    t = _templates(built)["hexes"]
    img = Image.open(built / "ttp" / "Textures" / t["FrontTexture"])
    cw, ch = img.width // 2, img.height
    assert _near(_centre(img, 0, 0, cw, ch), (0x1a, 0x7a, 0x1a)) and t["CardNames"]["0"] == "Forest"
    assert _near(_centre(img, 1, 0, cw, ch), (0x1a, 0x1a, 0x9a)) and t["CardNames"]["1"] == "Lake"
    back = Image.open(built / "ttp" / "Textures" / t["BackTexture"])
    assert _near(_centre(back, 0, 0, back.width, back.height), (0x10, 0x20, 0x30))


def test_ttp_die_texture_and_faces(built):
    t = _templates(built)["dice"]
    assert t["Models"][0]["Model"] == "StaticMesh'/Game/Meshes/Dice/Dice_D6.Dice_D6'"
    assert [f["Name"] for f in t["Faces"]] == ["1", "Two", "Three", "4", "F5", "6"]
    assert [(f["X"], f["Y"], f["Z"]) for f in t["Faces"]] == [(0, 0, 1), (-1, 0, 0), (0, 1, 0), (0, -1, 0),
                                                                (1, 0, 0), (0, 0, -1)]
    img = Image.open(built / "ttp" / "Textures" / t["Models"][0]["Texture"])
    assert img.width == img.height and img.width % 3 == 0
    c = img.width // 3
    # the cell (column, row) where the D6 mesh shows each face (ttpg-darrell's create-d6)
    for face, (col, row) in {1: (1, 0), 2: (0, 1), 3: (1, 1), 4: (1, 2), 5: (0, 2), 6: (2, 1)}.items():
        assert _near(_centre(img, col, row, c, c), DIE_COLOURS[face]), face
    for col, row in ((0, 0), (2, 0), (2, 2)):
        assert _near(_centre(img, col, row, c, c), (255, 255, 255))


def test_tabletopia_one_image_per_face_at_10_px_per_mm(built):
    root = built / "tabletopia"
    rows = list(csv.DictReader((root / "contents.csv").open()))
    files = {p.relative_to(root).as_posix() for p in root.rglob("*.png")}
    listed = {r["file"] for r in rows} | {r["back"] for r in rows if r["back"]}
    assert listed == files
    by = {(r["deck"], r["card"]): r for r in rows}
    assert int(by[("Coins", "Gold")]["copies"]) == 10 and int(by[("Hexes", "Forest")]["copies"]) == 3
    assert sum(1 for r in rows if r["deck"] == "Dice") == 6
    assert {r["scale"] for r in rows} == {"1"}
    for r in rows:
        w, h = float(r["width_mm"]), float(r["height_mm"])
        size = Image.open(root / r["file"]).size
        assert size == (int(r["width_px"]), int(r["height_px"])) == face_px(w, h)
        assert max(size) <= 4000
        if r["back"]:       # both faces the same pixel size
            assert Image.open(root / r["back"]).size == size
    assert Image.open(root / "cards" / "01-c1-x2.png").size == (635, 889)
    assert Image.open(root / "mats" / "01-player-mat-x2.png").size == (2000, 1500)
    assert _near(Image.open(root / "hexes" / "02-lake-x1.png").convert("RGB").getpixel((231, 200)),
                 (0x1a, 0x1a, 0x9a), 3)
    # round and hex pieces are transparent outside their outline, square ones opaque
    for file in ("coins/01-gold-x10.png", "hexes/02-lake-x1.png", "hexes/back.png", "pointy/01-spike-x2.png"):
        img = Image.open(root / file)
        assert img.mode == "RGBA", file
        w, h = img.size
        assert [img.getpixel(xy)[3] for xy in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1))] == [0] * 4, file
        assert img.getpixel((w // 2, h // 2))[3] == 255, file
    assert Image.open(root / "coins" / "01-gold-x10.png").getpixel((125, 125))[:3] == (0xc0, 0xa0, 0x10)
    assert Image.open(root / "squares" / "01-marker-x1.png").mode == "RGB"


def test_tabletopia_caps_at_4000_px():
    assert face_px(600, 300) == (4000, 2000)
    assert face_px(63.5, 88.9) == (635, 889)


def test_screentop_grids_and_their_cells(built):
    root = built / "screentop"
    rows = list(csv.DictReader((root / "contents.csv").open()))
    images = {r["image"] for r in rows} | {r["back_image"] for r in rows if r["back_image"]}
    assert images == {p.name for p in root.iterdir() if p.suffix == ".jpg"}
    for r in rows:
        cols, nrows, cell = int(r["columns"]), int(r["rows"]), int(r["cell"])
        assert 1 <= cell <= cols * nrows
    dice = [r for r in rows if r["deck"] == "Dice"]
    assert [int(r["cell"]) for r in dice] == [1, 2, 3, 4, 5, 6]
    img = Image.open(root / dice[0]["image"])
    cols, nrows = int(dice[0]["columns"]), int(dice[0]["rows"])
    cw, ch = img.width // cols, img.height // nrows
    for n in range(6):      # cell n + 1, read from the top left, is face n + 1
        assert _near(_centre(img, n % cols, n // cols, cw, ch), DIE_COLOURS[n + 1]), n + 1
    coins = [r for r in rows if r["deck"] == "Coins"]
    assert [(r["card"], r["cell"], r["copies"]) for r in coins] == [("Gold", "1", "10"), ("Silver", "2", "5")]


def _small_game(game: Path, game_yaml: str, files: dict[str, str]) -> Path:
    """A game of one plain template (`face`) and the deck files `files` (stem -> text)."""
    (game / "templates").mkdir(parents=True)
    (game / "templates" / "face.yaml").write_text(
        "elements:\n  - {name: bg, type: rect, box: bleed, fill: \"#204060\"}\n")
    for stem, text in files.items():
        (game / f"{stem}.yaml").write_text(text)
    (game / "game.yaml").write_text(game_yaml)
    return game


def test_tabletopia_big_board_and_the_free_plan(tmp_path, monkeypatch):
    """A board over 400 mm is scaled to 4000 px and the build says by how much; images over the
    free plan's 200 MB are a warning at game.yaml (the limit lowered to see it)."""
    from cardgen.outputs import tabletopia

    game = _small_game(tmp_path / "big", "title: Big\ndecks: [board]\n", {
        "board": "deck: Map\nkind: board\nsize: {width: 600mm, height: 300mm}\ntemplate: face\n"
                 "cards:\n  - {name: World, count: 1}\n"})
    monkeypatch.setattr(tabletopia, "FREE_PLAN_BYTES", 1)
    report = Report()
    build_game(game, REPO, BuildOptions(only=("tabletopia",), out=tmp_path / "build"), report)
    img = Image.open(tmp_path / "build" / "big" / "tabletopia" / "map" / "01-world-x1.png")
    assert img.size == (4000, 2000)
    [row] = csv.DictReader((tmp_path / "build" / "big" / "tabletopia" / "contents.csv").open())
    assert (row["width_px"], row["width_mm"], row["scale"]) == ("4000", "600.0", "1.5")
    assert "tabletopia/map/: Map is 4000 px on its longer side, Tabletopia's most; scale it to 1.5x in the " \
           "Workshop" in report.notes
    [warning] = [d for d in report.warnings if d.code == "tabletopia-size"]
    assert (Path(warning.loc.file).name, warning.loc.line) == ("game.yaml", 1)
    assert re.fullmatch(r"tabletopia/: 1 image of \d+ MB, more than Tabletopia's free plan holds \(200 MB\)",
                        warning.message)


def test_ttp_deck_over_one_sheet_gets_a_template_per_sheet():
    """71 distinct faces: two sheets (70 cells, then 1), two templates named "(1 of 2)", "(2 of 2)",
    each with its own cells' indices and names."""
    from types import SimpleNamespace as NS

    from cardgen.outputs.ttp import _card_templates
    from cardgen.outputs.tts import TtsDeckOptions, _Image
    from cardgen.outputs.tts_atlas import plan_sheets

    deck = NS(slug="big", name="Big", kind="card", back="back", backs=None,
              size=NS(width=63.5, height=88.9, shape="rect"))
    cards = [NS(name=f"C{i}", title=f"C{i}", fields={"type": "x"}, count=2) for i in range(71)]
    sheets = plan_sheets([(c, None, None) for c in cards], 63.5, 88.9, True, [2] * 71)
    per_sheet = [(_Image(f"big-faces-{n}", [], s.cols, s.rows, s.cell_w, s.cell_h, out_name=f"f{n}.jpg"),
                  _Image("big-back", [], 1, 1, s.cell_w, s.cell_h, out_name="b.jpg"), False)
                 for n, s in enumerate(sheets, 1)]
    game = NS(slug="g")
    made = _card_templates(game, deck, TtsDeckOptions(), sheets, per_sheet)
    assert [(name, t["Name"], t["NumHorizontal"], t["NumVertical"]) for name, t in made] == [
        ("big-1", "Big (1 of 2)", 10, 7), ("big-2", "Big (2 of 2)", 1, 1)]
    first, second = made[0][1], made[1][1]
    assert len(first["Indices"]) == 140 and max(first["Indices"]) == 69 and first["CardNames"]["69"] == "C69"
    assert second["Indices"] == [0, 0] and second["CardNames"] == {"0": "C70"}
    assert first["GUID"] != second["GUID"] and first["BackTexture"] == "b.jpg" and first["BackIndex"] == -2


def test_a_turned_sheets_cells():
    """A pointy-top hex sheet is turned a quarter counter-clockwise (as the TTS output turns its
    pieces): each cell's index on the turned sheet is where its pixels went."""
    from cardgen.outputs.ttp import turned_index
    from cardgen.outputs.tts_objects import finish

    cols, rows, cw, ch = 3, 2, 30, 20
    sheet = Image.new("RGB", (cols * cw, rows * ch))
    for i in range(cols * rows):
        sheet.paste((40 * i, 255 - 40 * i, 100), ((i % cols) * cw, (i // cols) * ch, (i % cols + 1) * cw,
                                                 (i // cols + 1) * ch))
    turned = finish(sheet, True, "")
    assert turned.size == (rows * ch, cols * cw)
    for i in range(cols * rows):
        j = turned_index(i, cols, rows)       # on a rows x cols sheet of ch x cw cells
        assert _centre(turned, j % rows, j // rows, ch, cw) == (40 * i, 255 - 40 * i, 100), i
    assert sorted(turned_index(i, cols, rows) for i in range(6)) == list(range(6))


def test_ttp_template_names_never_clash(tmp_path):
    """A board file's first board is `<file>-1`; a deck whose own name gives the same file keeps
    its template too (the second is numbered on), each with a GUID of its own."""
    game = _small_game(tmp_path / "clash", "title: Clash\ncard_size: poker\ndecks: [mats, cards]\n", {
        "mats": "deck: Mats\nkind: board\nsize: {width: 100mm, height: 80mm}\ntemplate: face\n"
                "cards:\n  - {name: Mat, count: 1}\n",
        "cards": "deck: Mats 1\ntemplate: face\ncards:\n  - {name: C, count: 3}\n"})
    build_game(game, REPO, BuildOptions(only=("ttp",), out=tmp_path / "build"), Report())
    templates = {p.stem: json.loads(p.read_text())
                 for p in (tmp_path / "build" / "clash" / "ttp" / "Templates").glob("*.json")}
    assert {name: t["Name"] for name, t in templates.items()} == {"mats-1": "Mat", "mats-1-2": "Mats 1"}
    assert len({t["GUID"] for t in templates.values()}) == 2
