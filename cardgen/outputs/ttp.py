"""Tabletop Playground package: `build/<game>/ttp/`, a folder to copy into Tabletop
Playground's package folder (docs/tables.md).

```
ttp/Manifest.json                 {"Name", "Version", "GUID"}
ttp/Templates/<deck>.json         a card sheet per deck (a template per sheet: "Deck (2 of 2)")
ttp/Templates/<tokens>.json       tokens and tiles: card sheets too, shaped (Model Round, Hexagonal, ...);
                                  pointy-top hexes turned a quarter (Tabletop Playground's hex is flat-top)
ttp/Templates/<board>-<n>.json    each board or mat: a one-cell card of its size, not held in hands
ttp/Templates/<dice>.json         a d6 per die file (Type "Dice", the D6 mesh, its six faces named)
ttp/Textures/*.jpg|png            the sheets and backs (the TTS atlases: `cardgen.outputs.tts`)
```

The sheets are planned and made as the Tabletop Simulator output's (`tts_atlas`: one cell per
distinct face, copies repeat its index in `Indices`, as real packages do), without the hidden-card
cell: Tabletop Playground shows a hidden card's back (`HiddenIndex` -3), or with
`tts: {back_is_hidden: false}` its blur (-1).  Keys and values follow the template schema
(plasticity-studios/tabletop-playground-schemas `src/templates.ts`) and the card templates of a
public package (visnup/arcs-ttpg `assets/Templates/`); docs/tables.md lists each difference.
The image format and JPEG quality are the `tts:` section's (`format`, `jpeg_quality`).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from cardgen.core.errors import plural
from cardgen.outputs.base import Job, NoOptions, Output

MM_PER_CM = 10.0
CARD_THICKNESS_CM = 0.05           # the schema's default
PIECE_THICKNESS_CM = 0.165         # chipboard tokens and tiles (components-facts: 1.651 mm)
# the cells of a d6 texture (3 x 3, row by row) holding faces 1 to 6 (ttpg-darrell `create-d6.ts`)
D6_CELLS = (None, 1, None, 2, 3, 6, 5, 4, None)
# the direction from the die's centre to each face, faces 1 to 6 (ttpg-darrell `d6-template.data.ts`)
D6_FACES = ((0, 0, 1), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (1, 0, 0), (0, 0, -1))
D6_MESH = "StaticMesh'/Game/Meshes/Dice/Dice_D6.Dice_D6'"
MODELS = {"rect": "Square", "round": "Round", "hex-flat": "Hexagonal", "hex-pointy": "Hexagonal"}
CARD_MODELS = {"rounded": "Rounded", "rect": "Square", "rounded-hex": "Hexagonal", "hex": "Hexagonal",
               "circle": "Round"}
WHITE = {"R": 255, "G": 255, "B": 255}
BLACK = {"R": 0, "G": 0, "B": 0}
ZERO = {"X": 0, "Y": 0, "Z": 0}
ONE = {"X": 1, "Y": 1, "Z": 1}


class Ttp(Output[NoOptions]):
    summary = ("A Tabletop Playground package folder: card-sheet, token, board and dice templates with their "
               "textures, to copy into Tabletop Playground's package folder (images in the `tts:` format; a "
               "deck's `tts:` shape and back_is_hidden apply).")
    files = "ttp/Manifest.json, ttp/Templates/*.json, ttp/Textures/*"
    rasterizes = True

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.outputs.tts import Tts, table_inputs

        r = job.rendered
        topts = job.options_of(Tts)
        part = job.part("", r.game.slug, r.game.title, topts.format, topts.jpeg_quality, table_inputs(job))
        if not part.keep():
            with part:
                _package(job, topts.format, topts.jpeg_quality)


def template_guid(game_slug: str, name: str) -> str:
    """A template's GUID: 32 upper-case hex digits hashed from the game and the template's file
    name (as ttpg-darrell hashes the template's path), so a rebuild keeps it."""
    return hashlib.sha256(f"cardgen/{game_slug}/{name}".encode()).hexdigest()[:32].upper()


def _package(job: Job, fmt: str, quality: int) -> None:
    from cardgen.outputs import tts
    from cardgen.render import raster

    r, staging = job.rendered, job.staging
    game = r.game
    root = Path(os.path.abspath(job.out_dir / "ttp"))
    staging.own_dir(root)
    ext = "png" if fmt == "png" else "jpg"
    atlas_dir = job.out_dir / ".cache" / "tts"          # the same atlas is the same file as TTS's

    def options_of(deck):
        return job.deck_options_of(tts.Tts, deck)

    plans, requests = tts._plan_decks(job, options_of, kinds=("card", "token", "tile", "board"), hidden_cell=False)
    plans = [(deck, dopts, _board_sheets(sheets) if deck.kind == "board" else sheets)
             for deck, dopts, sheets in plans]
    dice, drequests = _plan_dice(job)

    def plan_images(cell_of):
        images, deck_images = tts._deck_images(r, plans, cell_of)
        _turn_pointy(plans, deck_images)
        die_images = [_die_image(deck, rows, cell_of, images) for deck, rows in dice]
        return images, (deck_images, die_images)

    _, images, (deck_images, die_images) = tts.make_images(job, requests + drequests, plan_images, atlas_dir,
                                                           ext, fmt, quality)
    used: set[str] = set()
    templates: dict[str, dict] = {}

    def add(name: str, template: dict) -> None:
        base, n = name, 1
        while name in templates:        # (a deck "big-1" beside the first sheet of a deck "big")
            n += 1
            name = f"{base}-{n}"
        templates[name] = {**template, "GUID": template_guid(game.slug, name)}

    for (deck, dopts, sheets), per_sheet in zip(plans, deck_images):
        for name, template in _card_templates(game, deck, dopts, sheets, per_sheet):
            add(name, template)
            used.update(t for t in (template["FrontTexture"], template["BackTexture"]) if t)
    for (deck, rows), image in zip(dice, die_images):
        add(deck.slug, _die_template(game, deck, rows, image))
        used.add(image.out_name)
    for im in images:
        if im.out_name in used:
            staging.add_file(root / "Textures" / im.out_name, im.cache_path, raster.read_payload)
    for name, template in templates.items():
        staging.add(root / "Templates" / f"{name}.json", _json(template))
    manifest = {"Name": game.title or game.slug, "Version": "1", "GUID": template_guid(game.slug, "package")}
    staging.add(root / "Manifest.json", _json(manifest))
    job.report.note(f"ttp/: {plural(len(templates), 'template')}, {plural(len(used), 'texture')}; copy the folder "
                    f"into Tabletop Playground's package folder (docs/tables.md)")


def _turn_pointy(plans: list, deck_images: list) -> None:
    """Pointy-top hex pieces' sheets are turned a quarter: Tabletop Playground's hexagonal card is
    flat-top (`turned_index` says where each cell goes)."""
    for (deck, _, _), per_sheet in zip(plans, deck_images):
        if deck.size.shape == "hex-pointy":
            for face_img, back_img, _ in per_sheet:
                for im in (face_img, back_img):
                    if im is not None:
                        im.turn = True


def _json(data: dict) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def _board_sheets(sheets: list) -> list:
    """A board file's sheets split into one sheet per board: each board its own template."""
    from cardgen.outputs.tts_atlas import Sheet

    return [Sheet(1, 1, s.cell_w, s.cell_h, [entry], hidden=False, counts=[count])
            for s in sheets for entry, count in zip(s.entries, s.counts)]


def _plan_dice(job: Job) -> tuple[list, list]:
    """Each die file's faces (deck, (card, face) per face) and their sides to rasterize, square."""
    from cardgen.outputs import tts_objects as objs
    from cardgen.render import raster

    r = job.rendered
    dice, requests = [], []
    for deck in r.game.decks:
        if deck.kind != "die":
            continue
        rows = [(card, face) for d, card, face in r.faces if d is deck and card.count > 0]
        if not rows:
            continue
        dice.append((deck, rows))
        w, _ = objs.piece_px(deck.die_edge, deck.die_edge)
        requests += [(face, raster.Spec(w, w)) for _, face in rows]
    return dice, requests


def _die_image(deck, rows: list, cell_of: dict[int, str], images: list):
    """A die file's texture: 3 x 3 cells, its faces where the D6 mesh shows them (`D6_CELLS`)."""
    from cardgen.outputs import tts_objects as objs
    from cardgen.outputs.tts import Cell, _Image

    faces = [cell_of[id(face)] for _, face in rows]
    cells: list[Cell] = [faces[n - 1] if n is not None and n <= len(faces) else None for n in D6_CELLS]
    w, _ = objs.piece_px(deck.die_edge, deck.die_edge)
    img = _Image(f"{deck.slug}-die", cells, 3, 3, w, w)
    images.append(img)
    return img


def _base(game, name: str, title: str, kind: str, tags: list[str]) -> dict:
    """The keys every template has, in the order Tabletop Playground writes them."""
    return {"Type": kind, "GUID": template_guid(game.slug, name), "Name": title, "Metadata": "",
            "CollisionType": "Regular", "Friction": 0.7, "Restitution": 0, "Density": 0.5,
            "SurfaceType": "Cardboard", "Roughness": 1, "Metallic": 0, "PrimaryColor": dict(WHITE),
            "SecondaryColor": dict(BLACK), "Flippable": True, "AutoStraighten": False, "ShouldSnap": True,
            "ScriptName": "", "Blueprint": "", "Models": [], "Collision": [], "Lights": [],
            "SnapPointsGlobal": False, "SnapPoints": [], "ZoomViewDirection": dict(ZERO),
            "GroundAccessibility": "Nothing", "Tags": tags}


def card_model(deck, dopts) -> str:
    """The card shape: a card deck's `tts: shape` (or round cards), a piece's own shape."""
    if deck.kind == "card":
        if dopts.shape:
            return CARD_MODELS[dopts.shape]
        return "Round" if deck.size.shape == "round" else "Rounded"
    return MODELS.get(deck.size.shape, "Square")


def _card_templates(game, deck, dopts, sheets: list, per_sheet: list) -> list[tuple[str, dict]]:
    """A deck's (or a token, tile or board file's) card templates, one per sheet: name, template."""
    from cardgen.outputs.tts import _description, _tags

    out = []
    pieces = deck.kind != "card"
    turn = deck.size.shape == "hex-pointy"
    size = (deck.size.height, deck.size.width) if turn else (deck.size.width, deck.size.height)
    for n, (sheet, (face_img, back_img, unique)) in enumerate(zip(sheets, per_sheet), 1):
        def cell(i: int, sheet=sheet) -> int:
            return turned_index(i, sheet.cols, sheet.rows) if turn else i

        several = len(sheets) > 1 or deck.kind == "board"
        name = f"{deck.slug}-{n}" if several else deck.slug
        if deck.kind == "board":
            title = sheet.entries[0][0].title
        else:
            title = f"{deck.name} ({n} of {len(sheets)})" if several else deck.name
        one_sided = back_img is not None and not unique and deck.back is None and pieces
        template = _base(game, name, title, "Card", _tags(deck, [c for c, _, _ in sheet.entries]))
        template.update({
            "FrontTexture": face_img.out_name,
            "BackTexture": "" if one_sided or back_img is None else back_img.out_name,
            "HiddenTexture": "",
            "BackIndex": -1 if one_sided or back_img is None else (-3 if unique else -2),
            "HiddenIndex": -3 if dopts.back_is_hidden or pieces else -1,
            "NumHorizontal": sheet.rows if turn else sheet.cols, "NumVertical": sheet.cols if turn else sheet.rows,
            "Width": round(size[0] / MM_PER_CM, 4), "Height": round(size[1] / MM_PER_CM, 4),
            "Thickness": PIECE_THICKNESS_CM if pieces else CARD_THICKNESS_CM,
            "HiddenInHand": not pieces, "UsedWithCardHolders": not pieces, "CanStack": True,
            "UsePrimaryColorForSide": False, "FrontTextureOverrideExposed": False, "AllowFlippedInStack": False,
            "MirrorBack": True, "EmissiveFront": False,
            "Model": card_model(deck, dopts),
            "Indices": [cell(i) for i, _ in sheet.copies()],
            "CardNames": {str(cell(i)): card.title for i, (card, _, _) in enumerate(sheet.entries)},
            "CardMetadata": {str(cell(i)): text for i, (card, _, _) in enumerate(sheet.entries)
                             if (text := _description(card, dopts.description))},
            "CardTags": {str(cell(i)): _tags(deck, [card]) for i, (card, _, _) in enumerate(sheet.entries)},
        })
        out.append((name, template))
    return out


def turned_index(i: int, cols: int, rows: int) -> int:
    """Where cell `i` of a `cols` x `rows` sheet is once the sheet is turned a quarter
    counter-clockwise (`tts_objects.finish`): a sheet of `rows` x `cols` cells."""
    c, r = i % cols, i // cols
    return (cols - 1 - c) * rows + r


def _die_template(game, deck, rows: list, image) -> dict:
    """A die file as a d6 template: the D6 mesh with its texture, each face named by its value
    (`value`, else the pips, the label, the card's name), as TTS's RotationValues are."""
    from cardgen.outputs.tts import _tags, face_value

    template = _base(game, deck.slug, deck.name, "Dice", _tags(deck, [c for c, _ in rows]))
    template.update({"Restitution": 0.5, "Density": 1, "SurfaceType": "Plastic", "Roughness": 0.2,
                     "Flippable": False})
    template["Models"] = [{"Model": D6_MESH, "Offset": dict(ZERO), "Scale": dict(ONE), "Rotation": dict(ZERO),
                           "Texture": image.out_name, "NormalMap": "", "ExtraMap": "", "ExtraMap2": "",
                           "IsTransparent": False, "CastShadow": True, "IsTwoSided": False, "UseOverrides": True,
                           "SurfaceType": "Plastic"}]
    template["Faces"] = [{"X": x, "Y": y, "Z": z, "Name": str(face_value(card)), "Metadata": ""}
                         for (card, _), (x, y, z) in zip(rows, D6_FACES)]
    return template
