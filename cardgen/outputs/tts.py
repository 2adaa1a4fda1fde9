"""Tabletop Simulator export: `build/<game>/tts/`.

Per deck, the faces go on atlases ("deck sheets", `cardgen.outputs.tts_atlas`) of at most
10 x 7 cells and at most 4096 px a side, cells in the card's proportions, one cell per
distinct face (copies share it: its CardID repeats), row-major.  The grid's last cell is the
hidden-card image unless the deck uses BackIsHidden.  A deck with too many distinct faces for
one sheet gets several `CustomDeck` entries.  A shared back is one image; per-card backs
are a back atlas with the same grid (`UniqueBack`).

`<game>.json` is a saved object (one Deck per deck, a Card for one-card decks; tokens, tiles
and boards as TTS tiles in bags, `cardgen.outputs.tts_objects`) and `<game>.png` its 256 x 256
thumbnail.  Image names carry a short content hash, because
TTS caches images by URL.

Options: game.yaml's `tts:` (`TtsOptions`, for every deck) and a deck file's `tts:`
(`TtsDeckOptions`: back_is_hidden, description, shape, supply, object) over it.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import math
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from cardgen.outputs import tts_objects as objs
from cardgen.outputs import tts_save
from cardgen.outputs.base import Job, Output
from cardgen.outputs.tts_atlas import cell_size, deck_keys, grid_for, plan_sheets  # noqa: F401 (tts.<name>)
from cardgen.outputs.tts_objects import COMMON, POKER_WIDTH_MM, UNITS_PER_MM
from cardgen.outputs.tts_objects import guid as _guid
from cardgen.outputs.tts_objects import transform as _transform
from cardgen.outputs.tts_save import json_bytes  # noqa: F401 (tts.json_bytes)
from cardgen.schema.core import Bool, Choice, Decl, Int, Text, opt

MOSAICS_IN_WORKERS = 3000  # card sides up to which the raster workers make the deck sheets (`make_images`)
HIDDEN_GREY = (64, 64, 64)
PLAIN_BACK = (96, 96, 96)
Cell = str | tuple[int, int, int] | None   # an atlas cell: a cached bitmap's path, a solid colour or empty
SHAPES = {"rounded": 0, "rect": 1, "rounded-hex": 2, "hex": 3, "circle": 4}


@dataclass(frozen=True)
class Url(Text):
    """An address such as https://example.org/my-game/tts."""

    metavar: ClassVar[str] = "URL"

    def describe(self) -> str:
        return "URL"


@dataclass(frozen=True, kw_only=True)
class TtsDeckOptions(Decl):
    """What a deck file's `tts:` may set (game.yaml's sets it for every deck)."""

    __what__ = "Tabletop Simulator deck options"

    back_is_hidden: bool = opt(Bool(), "hidden cards (in a hand, face down) show the card's back, so a sheet "
                                       "holds 70 cards; `false` draws a hidden-card image in the last cell", True)
    face_up: bool = opt(Bool(), "the deck lands face up on the table (a display or a supply)", False)
    description: str = opt(Text(nonempty=True), "the card field shown as each card's description in TTS", "text")
    shape: str | None = opt(Choice(tuple(SHAPES)), "card shape in TTS", None,
                            default_doc="`rounded`, `circle` for round cards")
    supply: bool = opt(Bool(), "a token or tile file's pieces are an unlimited supply (a bank): each kind is an "
                               "Infinite_Bag holding one, instead of one bag with every copy", False)
    object: str = opt(Choice(("tile", "token")), "a token or tile's TTS object: `tile`, a Custom_Tile of its "
                      "shape; `token`, a Custom_Token cut along its image's transparent outside", "tile")


@dataclass(frozen=True, kw_only=True)
class TtsOptions(TtsDeckOptions):
    """game.yaml's (or a deck file's) `tts:` section."""

    __what__ = "Tabletop Simulator options"

    format: str = opt(Choice(("jpeg", "png")), "image format of the deck sheets", "jpeg", cli="--tts-format")
    jpeg_quality: int = opt(Int(min=90, max=100), "JPEG quality of the deck sheets", 92)
    base_url: str | None = opt(Url(nonempty=True), "write image addresses as URL/<file> (where you upload "
                                                    "build/<game>/tts/; needed for multiplayer) instead of "
                                                    "local file paths", None, cli="--tts-base-url")


# -- geometry --------------------------------------------------------------------------------
# -- images ----------------------------------------------------------------------------------

def _atlas_key(cells: list, cols, rows, cw, ch, fmt, quality, turn: bool = False, mask: str = "") -> str:
    from cardgen.render import raster

    # ("rows": a JPEG with a marker after each row of blocks, `render.jpegrows`)
    h = hashlib.sha256(f"atlas/{raster.RASTER_VERSION}/rows/{cols}x{rows}/{cw}x{ch}/{fmt}/{quality}"
                       f"{'/turn' if turn else ''}{'/mask:' + mask if mask else ''}".encode())
    for c in cells:
        if isinstance(c, tuple) and len(c) == 2:       # a die's face turned over
            c = f"{Path(c[0]).name}@{c[1]}"
        # (a cell's file by its name: a bitmap cache path, whose name `basename` gives without
        # making a path of it: 2,000 cards' cells, a one-card edit)
        h.update((os.path.basename(c) if isinstance(c, str) else c.name if isinstance(c, Path) else repr(c)).encode()
                 + b";")
    return h.hexdigest()


# -- the output ------------------------------------------------------------------------------

@dataclass
class _Image:
    """An image file to make: cells on a grid (one cell for single images)."""

    name: str             # output name without hash and extension
    cells: list[Cell]
    cols: int
    rows: int
    cw: int
    ch: int
    out_name: str = ""
    cache_path: Path = Path()   # set once the atlas key is known
    turn: bool = False          # a piece's image turned a quarter (pointy-top hex)
    mask: str = ""              # a piece's shape, transparent outside (a PNG)
    kept: bool = False          # its file left in the output folder as the last build made it
    ready: tuple[Path, str] | None = None   # made now: its file to move into place, and its sha256


class Tts(Output[TtsOptions]):
    summary = "A Tabletop Simulator saved object with every deck, and its deck images."
    files = "tts/<game>.json, tts/<game>.png, tts/*.jpg"
    rasterizes = True
    DeckOptions = TtsDeckOptions

    def make(self, job: Job[TtsOptions]) -> None:
        from cardgen.layout.rulebook import has_rulebook

        r = job.rendered
        job.staging.own_dir(Path(os.path.abspath(job.out_dir / "tts")))
        part = job.part("", r.game.slug, r.game.title, has_rulebook(r.game), table_inputs(job))
        if not part.keep():
            with part:
                _out_tts(job)


def table_inputs(job: Job) -> tuple[list, list, list]:
    """What a virtual table's output is made from (this save, the Tabletop Playground package,
    Tabletopia's and Screentop's images): each deck as it is laid out and its `tts:` options,
    each card's sides, each deck's shared back."""
    r = job.rendered
    decks = [(deck.slug, deck.name, deck.kind, deck.size, deck.back, deck.backs, deck.pieces,
              deck.data.get("description"), job.deck_options_of(Tts, deck)) for deck in r.game.decks]
    cards = [(deck.slug, card.title, card.count, card.fields, face, r.back_of(deck, card))
             for deck, card, face in r.faces]
    return decks, cards, [r.backs.get((deck.slug, None)) for deck in r.game.decks]


def _out_tts(job: Job) -> None:
    """The TTS output in steps: plan each deck's sheets, rasterize every card side once, make
    the deck images (atlases, kept in the cache), then write the saved object."""
    from cardgen.render import raster

    r, staging = job.rendered, job.staging
    game = r.game
    fmt = job.options.format
    quality = job.options.jpeg_quality
    base_url = job.options.base_url
    ext = "png" if fmt == "png" else "jpg"
    tts_dir = Path(os.path.abspath(job.out_dir / "tts"))   # not resolved: a link there is replaced
    cache = raster.Cache.of(job.out_dir)
    atlas_dir = job.out_dir / ".cache" / "tts"
    staging.own_dir(tts_dir)

    plans, requests = _plan_decks(job)
    pplans, prequests = _plan_pieces(job)
    requests += prequests

    def plan_images(cell_of: dict[int, str]) -> tuple[list[_Image], tuple[list, list]]:
        images, deck_images = _deck_images(r, plans, cell_of)
        return images, (deck_images, _piece_images(pplans, cell_of, images))

    cell_of, images, (deck_images, piece_images) = make_images(
        job, requests, plan_images, atlas_dir, ext, fmt, quality, tts_dir,
        ready={id(face) for face, _ in _fan(plans, pplans)[0]},      # (the thumbnail's, if it is made again)
        ready_dir=job.ready_folder("tts-ready"))
    for im in images:
        stage_image(job, tts_dir, im)

    def url(im: _Image) -> str:
        return address(im.out_name, tts_dir, base_url)

    objects = []
    for (deck, dopts, sheets), per_sheet in zip(plans, deck_images):
        objects.append(_deck_object(game, deck, dopts, sheets, per_sheet, url))
    rules = _rules_object(job, base_url)
    if rules is not None:
        objects.append(rules)
    for (deck, dopts, rows), imgs in zip(pplans, piece_images):
        pieces = [(_piece(deck, dopts, card, front, back, url), card.count) for (card, _, _), (front, back)
                  in zip(rows, imgs)] if deck.kind != "die" else [(_die_piece(deck, dopts, rows, imgs[0][0], url),
                                                                    deck.pieces)]
        objects += objs.component_objects(game.slug, deck.slug, deck.name, str(deck.data.get("description") or ""),
                                          pieces, dopts.supply, objs.tint(_deck_vars(deck).get("color")), game.words)
    table_layout(objects)
    save = {
        "SaveName": "", "GameMode": "", "Date": "", "Table": "", "Sky": "", "Note": "", "Rules": "",
        "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "ObjectStates": objects, "TabStates": {},
        "VersionNumber": "",
    }
    saved = tts_dir / f"{game.slug}.json"
    staging.add(saved, tts_save.encode(save, tts_save.SaveCache.of(job.out_dir), saved.name, saved))
    _stage_thumbnail(job, tts_dir / f"{game.slug}.png", game.title or game.slug, plans, pplans, cell_of)
    cache.tidy()
    raster.Cache(atlas_dir).tidy()


def make_images(job: Job, requests: list, plan_images, atlas_dir: Path, ext: str, fmt: str,
                quality: int, folder: Path | None = None, ready: Collection[int] = (),
                ready_dir: Path | None = None) -> tuple[dict[int, str], list[_Image], Any]:
    """Name the cached bitmap of every card side of `requests` (`cell_of`: a layout's id ->
    its file in the bitmap cache), plan the images made of them (`plan_images(cell_of)` ->
    (images, anything)), and make the images not in the cache yet, nor (`folder`: where they
    go) left intact in the output folder by the last build (`stage_image` keeps those),
    rasterizing once each the sides they show that the cache lacks.  Only those sides' bitmaps
    (and those of the layouts whose ids `ready` holds, which the caller reads itself) are
    checked: a one-card edit reads one sheet's, not every card's.  `ready_dir`: each image
    made now is also written there, as it is, by whoever makes it (`im.ready`, for
    `stage_image`: the commit moves it into place instead of reading it back from the cache
    and hashing it, about 5 ms a 3.4 MB deck sheet; `Job.ready_folder`, emptied
    first).  The Tabletop Playground and Screentop outputs make theirs the same way."""
    from cardgen.render import raster

    # a cell of the screen class is its side's one render for it, shared with the gallery
    # (`raster.master_spec`), scaled to the cell as it is pasted (`render.mosaic`)
    cache = raster.Cache.of(job.out_dir)
    fonts = raster.registered_fonts()
    wanted: dict[str, tuple] = {}       # each bitmap named: the side and what it is rendered to
    cell_of: dict[int, str] = {}
    named: dict[tuple[int, raster.Spec], str] = {}    # (a side asked for again: a shared back)
    for layout, spec in requests:
        path = named.get((id(layout), spec))
        if path is None:
            made = raster.master_spec(layout, spec) or spec
            path = named[(id(layout), spec)] = str(cache.path(raster.side_key(layout, made, fonts), made.ext))
            wanted[path] = (layout, made)
        cell_of[id(layout)] = path
    images, more = plan_images(cell_of)
    # An image is up to 4096 x 4096 pixels (64 MB in memory as Pillow holds it).  In a game of
    # up to `MOSAICS_IN_WORKERS` card sides each is made by a raster worker, two at once: it
    # renders the sides only that image shows and pastes them as they come (they are written
    # to the bitmap cache, not read back from it), then encodes it.  A larger game's build
    # process holds every card while the workers rasterize, so there they hold no image: the
    # images are made here after them, one at a time (made by the workers in every game, a
    # 10,000-card game's build and its processes peaked at 578 MB in session 4, RSS).
    calls = _atlas_calls(images, atlas_dir, ext, fmt, quality, job, folder)
    from cardgen.render import mosaic

    if ready_dir is not None:
        readies = {args[7]: str(ready_dir / Path(args[7]).name) for args in calls}     # (one an image file)

    sheets = mosaic.Sheets.of(job.out_dir)     # (what each image replaces: a JPEG encodes the rows that changed)
    bases = {str(im.cache_path): sheets.base(im.name, (im.cols, im.rows, im.cw, im.ch, fmt, quality, im.turn, im.mask),
                                             im.cache_path, im.cells) for im in images}
    calls = [(*args, bases.get(args[7]), readies.pop(args[7], None) if ready_dir is not None else None)
             for args in calls]
    shown = {cell if isinstance(cell, str) else cell[0] for args in calls for cell in args[0]
             if isinstance(cell, str) or (isinstance(cell, tuple) and len(cell) == 2)}
    shown.update(cell_of[i] for i in ready)
    plan = raster.plan([asked for path, asked in wanted.items() if path in shown], cache)
    here = len(requests) > MOSAICS_IN_WORKERS
    with raster.Pool() as pool:
        made = dict(raster.run(plan, cache, raster.font_dirs_of(job.rendered), pool,
                               groups=None if here else [(args[0], mosaic.made, (args,)) for args in calls]))
    for args in calls if here else ():
        sheet = mosaic.Mosaic(*args)
        sheet.make()
        if sheet.made is not None:
            made[sheet.made[0]] = sheet.made[1]
    first: dict[str, _Image] = {}         # (an image file staged twice is moved once, then copied)
    for im in images:
        first.setdefault(str(im.cache_path), im)
    for args in calls:
        if args[-1] in made:
            first[args[7]].ready = (Path(args[-1]), made[args[-1]])
    return cell_of, images, more


def _plan_decks(job: Job, options_of=None, kinds: tuple[str, ...] = ("card",),
                hidden_cell: bool = True) -> tuple[list, list]:
    """Each deck's sheets (`plans`: deck, its options, its sheets) and the card sides to
    rasterize once each (`requests`: layout, spec).  Other tables plan their card sheets here
    too: `options_of(deck)` gives a deck's `TtsDeckOptions`, `kinds` the component kinds
    planned as decks, `hidden_cell=False` no hidden-card cell (their hidden cards show the back)."""
    from cardgen.render import raster

    r = job.rendered
    options_of = options_of or (lambda deck: job.deck_options(deck, TtsDeckOptions))
    by_deck: dict[str, list] = {}
    for deck, card, face in r.faces:
        by_deck.setdefault(deck.slug, []).append((deck, card, face))
    plans = []              # (deck, options, sheets)
    requests = []           # (layout, spec) to rasterize
    taken: set[int] = set()
    for deck in r.game.decks:
        if deck.kind not in kinds:
            continue                       # tokens, tiles, boards: `_plan_pieces`
        rows = by_deck.get(deck.slug, [])
        entries = [(card, face, r.back_of(deck, card)) for _, card, face in rows if card.count > 0]
        if not entries:
            continue
        dopts = options_of(deck)
        sheets = plan_sheets(entries, deck.size.width, deck.size.height, dopts.back_is_hidden or not hidden_cell,
                             [card.count for card, _, _ in entries])
        for sheet, key in zip(sheets, deck_keys(r.game.slug, deck.slug, len(sheets), taken)):
            sheet.key = key
        plans.append((deck, dopts, sheets))
        spec = raster.Spec(sheets[0].cell_w, sheets[0].cell_h)
        for _, card, face in rows:
            requests.append((face, spec))
            back = r.back_of(deck, card)
            if back is not None:
                requests.append((back, spec))
    return plans, requests


def _plan_pieces(job: Job) -> tuple[list, list]:
    """Each component file's pieces (`plans`: deck, its options, (card, face, back) per entry)
    and their sides to rasterize (`requests`), each at the piece's own size (its trim box)."""
    from cardgen.render import raster

    r = job.rendered
    plans = []
    requests = []
    for deck in r.game.decks:
        if deck.kind == "card":
            continue
        rows = [(card, face, r.back_of(deck, card)) for d, card, face in r.faces if d is deck and card.count > 0]
        if not rows:
            continue
        plans.append((deck, job.deck_options(deck, TtsDeckOptions), rows))
        spec = raster.Spec(*objs.piece_px(deck.size.width, deck.size.height))
        for _, face, back in rows:
            requests += [(side, spec) for side in (face, back) if side is not None]
    return plans, requests


def _piece_images(pplans: list, cell_of: dict[int, str], images: list[_Image]) -> list:
    """Per component file, (front image, back image or None) per entry, added to `images`
    once each (a shared back is one image)."""
    made: dict[tuple, _Image] = {}
    out: list[list] = []
    for deck, dopts, rows in pplans:
        if deck.kind == "die":
            out.append([(_die_image(deck, rows, cell_of, images), None)])
            continue
        w, h = objs.piece_px(deck.size.width, deck.size.height)
        turn, mask = objs.turned(deck.size.shape), (deck.size.shape if dopts.object == "token" else "")
        sides = []
        for i, (_, face, back) in enumerate(rows, 1):
            pair: list[_Image | None] = []
            for layout, name in ((face, f"{deck.slug}-{i}"), (back, f"{deck.slug}-{i}-back")):
                if layout is not None and deck.size.shape == "path":    # a token of its side's own outline
                    mask = objs.path_mask(layout.outline)
                key = (cell_of[id(layout)], turn, mask) if layout is not None else None
                if key is not None and key not in made:
                    made[key] = _Image(name, [key[0]], 1, 1, w, h, turn=turn, mask=mask)
                    images.append(made[key])
                pair.append(made[key] if key is not None else None)
            sides.append(tuple(pair))
        out.append(sides)
    return out


def _die_image(deck, rows: list, cell_of: dict[int, str], images: list[_Image]) -> _Image:
    """A die file's image as TTS lays out a custom d6 (`tts_objects.D6_CELLS`), added to `images`."""
    faces = [cell_of[id(face)] for _, face, _ in rows]
    cells: list = [None if c is None or c[0] > len(faces) else (faces[c[0] - 1], 180) if c[1] else faces[c[0] - 1]
                   for c in objs.D6_CELLS]
    w, _ = objs.piece_px(deck.size.width, deck.size.height)
    img = _Image(f"{deck.slug}-die", cells, 3, 3, w, w)
    images.append(img)
    return img


def _die_piece(deck, dopts, rows: list, image: _Image, url) -> objs.Piece:
    """A die file as a TTS piece: its faces' values (`value`, else the pips, the label, the name)."""
    values = [face_value(card) for card, _, _ in rows]
    edge = deck.die_edge
    return objs.Piece("die", "rect", (edge, edge), deck.name, str(deck.data.get("description") or ""),
                      _tags(deck, [c for c, _, _ in rows]), url(image), "",
                      tint=objs.tint(_deck_vars(deck).get("color")), values=tuple(values))


def face_value(card) -> int | float | str:
    """A die face's value: its `value`, else the pips, the label, the name (a number stays one)."""
    f = card.fields
    value = next((f[k] for k in ("value", "pips", "label") if f.get(k) not in (None, "")), card.title)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _piece(deck, dopts, card, front: _Image, back: _Image | None, url) -> objs.Piece:
    """A component file's entry as a TTS piece: its name, its description (the `description`
    field's words, else its label and value, and its back's), its images."""
    text = _description(card, dopts.description)
    if not text:
        sides = [card.fields, card.back_fields or {}]
        said = [" ".join(str(f[k]) for k in ("value", "label") if f.get(k) not in (None, "")) for f in sides]
        text = " / ".join(s for s in said if s)
    return objs.Piece(deck.kind, deck.size.shape, (deck.size.width, deck.size.height), card.title, text,
                      _tags(deck, [card]), url(front), url(back) if back is not None else "",
                      as_token=dopts.object == "token" or deck.size.shape == "path",
                      tint=objs.tint(card.fields.get("color")), notes=_notes(card))


def _deck_vars(deck) -> dict:
    return dict((deck.opts.vars if deck.opts else deck.data.get("vars")) or {})


def _deck_images(r, plans: list, cell_of: dict[int, str]) -> tuple[list[_Image], list]:
    """Every deck image (`images`, in the order they are made) and, per plan, (face image,
    back image, unique back) per sheet."""
    images: list[_Image] = []
    deck_images = []
    for deck, _dopts, sheets in plans:
        shared = r.backs.get((deck.slug, None)) if deck.back else None
        back_img = None
        if not deck.backs:
            back_cell = cell_of[id(shared)] if shared is not None else PLAIN_BACK
            back_img = _Image(f"{deck.slug}-back", [back_cell], 1, 1, sheets[0].cell_w, sheets[0].cell_h)
            images.append(back_img)
        hidden_cell = cell_of[id(shared)] if shared is not None else HIDDEN_GREY
        deck_images.append([_sheet_images(deck, n, sheet, back_img, hidden_cell, cell_of, images)
                            for n, sheet in enumerate(sheets, 1)])
    return images, deck_images


def _sheet_images(deck, n: int, sheet, back_img: _Image | None, hidden_cell: Cell, cell_of: dict[int, str],
                  images: list[_Image]) -> tuple[_Image, _Image | None, bool]:
    """One sheet's face image and its back image (the deck's one back, or the sheet's backs),
    added to `images`."""
    cells: list[Cell] = [cell_of[id(face)] for _, face, _ in sheet.entries]
    if sheet.hidden:
        cells += [None] * (sheet.cols * sheet.rows - len(cells) - 1) + [hidden_cell]
    face_img = _Image(f"{deck.slug}-faces-{n}", cells, sheet.cols, sheet.rows, sheet.cell_w, sheet.cell_h)
    images.append(face_img)
    sheet_back = back_img
    if deck.backs:
        bcells: list[Cell] = [cell_of[id(back)] if back is not None else PLAIN_BACK for _, _, back in sheet.entries]
        if sheet.hidden:
            bcells += [None] * (sheet.cols * sheet.rows - len(bcells) - 1) + [HIDDEN_GREY]
        sheet_back = _Image(f"{deck.slug}-backs-{n}", bcells, sheet.cols, sheet.rows, sheet.cell_w, sheet.cell_h)
        images.append(sheet_back)
    return face_img, sheet_back, bool(deck.backs)


def _atlas_calls(images: list[_Image], atlas_dir: Path, ext: str, fmt: str, quality: int, job: Job | None = None,
                 folder: Path | None = None) -> list[tuple]:
    """Name each image by its content (its atlas in the cache, its file in tts/); the atlases
    not in the cache yet, nor kept in `folder` (`Ledger.keep_file`: the last build's file of
    that name, intact), as the arguments of `render.mosaic.Mosaic` to make them."""
    from cardgen.render import raster

    calls = []
    for im in images:
        f, e = ("png", "png") if im.mask else (fmt, ext)
        digest = _atlas_key(im.cells, im.cols, im.rows, im.cw, im.ch, f, quality, im.turn, im.mask)
        im.cache_path = atlas_dir / digest[:2] / f"{digest}.{e}"
        im.out_name = f"{im.name}-{digest[:10]}.{e}"
        if (job is not None and job.ledger is not None and folder is not None
                and job.ledger.keep_file(job.staging, folder / im.out_name)):
            im.kept = True
            with contextlib.suppress(OSError):
                os.utime(im.cache_path)    # (still used: kept from being pruned)
        elif im.cache_path.is_file() and raster.is_intact(im.cache_path):
            os.utime(im.cache_path)        # used now: keeps it from being pruned
        else:
            calls.append((im.cells, im.cols, im.rows, im.cw, im.ch, f, quality, str(im.cache_path),
                          objs.finish if im.turn or im.mask else None, im.turn, im.mask))
    return calls


def stage_image(job: Job, folder: Path, im: _Image) -> None:
    """Stage the file of an image made by `make_images` in `folder` (nothing to do if it was
    kept there)."""
    from cardgen.render import raster

    if im.ready is not None:
        job.staging.add_ready(folder / im.out_name, *im.ready)
    elif not im.kept:
        job.staging.add_file(folder / im.out_name, im.cache_path, raster.read_payload)


def address(name: str, folder: Path, base_url: str | None) -> str:
    """Where TTS finds a file: `base_url/name`, or the file's `file:` URI (what TTS itself
    writes for local files; spaces, `#` and non-ASCII are escaped)."""
    if base_url:
        return f"{base_url.rstrip('/')}/{name}"
    return (folder / name).resolve().as_uri()


def _scale(deck) -> float:
    """TTS scale: a poker card's width is 1; the shorter side decides (sideways cards)."""
    return round(min(deck.size.width, deck.size.height) / POKER_WIDTH_MM, 4)


# -- the table -------------------------------------------------------------------------------

PDF_FOOTPRINT = (8.5, 11.0)           # a Custom_PDF object at scale 1 (width, depth), generous
TABLE_GAP = 1.5                       # between objects, in table units
PER_ROW = 5                           # decks per row
GROUPS = ("deck", "board", "piece")   # each starts a row of its own (`tts_objects` sets `_group`)


def footprint(obj: dict) -> tuple[float, float]:
    """Width (x) and depth (z) an object covers on the table, in table units, from its
    kind, size and scale (what `table_layout` spaces objects by, and tests check)."""
    t = obj["Transform"]
    if obj["Name"] == "Custom_PDF":
        return PDF_FOOTPRINT[0] * t["scaleX"], PDF_FOOTPRINT[1] * t["scaleZ"]
    w, h = obj.get("_size_mm", (POKER_WIDTH_MM, 88.9))
    return w * UNITS_PER_MM, h * UNITS_PER_MM


def table_layout(objects: list[dict]) -> None:
    """Place the objects on the table in reading order: decks in rows of five from the far
    side towards the players, left to right, then the boards and mats on rows of their own,
    then the bags and single pieces; the rules to the left of them all; no two footprints
    overlap.  Sets posX/posZ and drops the helper keys."""
    rows = []
    for group in GROUPS:
        these = [o for o in objects if o["Name"] != "Custom_PDF" and o.get("_group", "deck") == group]
        rows += [these[i:i + PER_ROW] for i in range(0, len(these), PER_ROW)]
    widths = [[footprint(o)[0] for o in row] for row in rows]
    depths = [max((footprint(o)[1] for o in row), default=0.0) for row in rows]
    total_w = max((sum(w) + TABLE_GAP * (len(w) - 1) for w in widths), default=0.0)
    total_d = sum(depths) + TABLE_GAP * max(0, len(rows) - 1)
    z = total_d / 2
    for row, ws, d in zip(rows, widths, depths):
        x = -total_w / 2
        for obj, w in zip(row, ws):
            obj["Transform"]["posX"] = round(x + w / 2, 4)
            obj["Transform"]["posZ"] = round(z - d / 2, 4)
            x += w + TABLE_GAP
        z -= d + TABLE_GAP
    for obj in objects:
        if obj["Name"] == "Custom_PDF":
            w, _ = footprint(obj)
            obj["Transform"]["posX"] = round(-total_w / 2 - TABLE_GAP * 2 - w / 2, 4)
            obj["Transform"]["posZ"] = 0.0
        obj.pop("_size_mm", None)
        obj.pop("_group", None)


def words(text: str) -> str:
    """Card text as words for TTS: markup dropped, each icon as its name (`:health-die:`
    gives "health die"), left out where the text after it already says it (`:ap: AP +5`)."""
    from cardgen.text.markup import BREAK, parse

    out = []
    for para in parse(text):
        texts = []
        for n, item in enumerate(para):
            if item is BREAK:
                texts.append("\n")
            elif len(item) == 1 and item[0].kind == "text":     # (a plain word: most of them)
                if item[0].value:
                    texts.append(item[0].value)
            else:
                word = _word(item, para, n)
                if word:
                    texts.append(word)
        out.append(" ".join(texts).replace(" \n ", "\n"))
    return "\n\n".join(out).strip()


def _word(item: list, para: list, n: int) -> str:
    """Word `n` of paragraph `para` (`item`, its spans) as `words` says it."""
    from cardgen.text.markup import BREAK

    parts = []
    for i, frag in enumerate(item):
        if frag.kind == "text":
            parts.append(frag.value)
            continue
        name = frag.value.replace("-", " ").replace("_", " ")
        after = "".join(f.value for f in item[i + 1:] if f.kind == "text")
        after += " " + " ".join("".join(f.value for f in w if f.kind == "text") for w in para[n + 1:]
                                if w is not BREAK and w)
        if not after.strip().lower().startswith(name.lower()):
            parts.append(name)
    return "".join(parts)


def _described(card, field_name: str) -> str | tts_save.Described:
    """The card's field as plain words (a list field: one line per item), worked out when
    the card's object is encoded (`tts_save`: not for a card the last build's file holds)."""
    value = card.fields.get(field_name)
    if value is None or value == "":
        return ""
    if isinstance(value, list):
        return tts_save.Described(tuple(str(v) for v in value if v not in (None, "")), words)
    return tts_save.Described(str(value), words)


def _description(card, field_name: str) -> str:
    """The card's field as plain words; a list field gives one line per item."""
    return tts_save.plain(_described(card, field_name))


def _tags(deck, cards: list) -> list[str]:
    """TTS tags: the deck's name and the cards' `type` field, when every one of `cards`
    has the same (a card's own tags: pass just that card)."""
    tags = [deck.name]
    kinds = {str(c.fields.get("type") or "").strip() for c in cards}
    if len(kinds) == 1 and (kind := kinds.pop()) and kind not in tags:
        tags.append(kind)
    return tags


def _notes(card) -> str:
    """GMNotes: the card's `notes` field, if it has one."""
    value = card.fields.get("notes")
    if isinstance(value, list):
        return "\n".join(str(v) for v in value if v not in (None, ""))
    return str(value) if value not in (None, "") else ""


def _deck_object(game, deck, dopts, sheets, per_sheet, url) -> dict:
    scale = _scale(deck)
    sideways = deck.size.width > deck.size.height
    shape = SHAPES[dopts.shape] if dopts.shape else (4 if deck.size.shape == "round" else 0)
    face_down = not dopts.face_up
    custom = {}
    cards: list[tts_save.Made] = []
    ids = []
    for sheet, (face_img, back_img, unique) in zip(sheets, per_sheet):
        entry = {"FaceURL": url(face_img), "BackURL": url(back_img), "NumWidth": sheet.cols,
                 "NumHeight": sheet.rows, "BackIsHidden": not sheet.hidden, "UniqueBack": unique, "Type": shape}
        custom[str(sheet.key)] = entry
        # (what each card's object is made from, besides its place and its fields: `tts_save.Made`)
        made_from = repr((game.slug, deck.slug, deck.name, sheet.key, scale, face_down, sideways, dopts.description,
                          entry))
        for i, copy in sheet.copies():
            card = sheet.entries[i][0]
            f = card.fields
            key = repr((made_from, i, copy, card.title, f.get(dopts.description), f.get("notes"), f.get("type")))
            cards.append(tts_save.Made(key.encode(), _card_object(game, deck, dopts, sheet, entry, i, copy, scale,
                                                                  face_down, sideways)))
            ids.append(sheet.key * 100 + i)
    size = (deck.size.width, deck.size.height)
    if len(cards) == 1:
        card_obj = cards[0].make()
        return {**card_obj, "Description": tts_save.plain(card_obj["Description"]), "_size_mm": size}
    return {
        "GUID": _guid(game.slug, deck.slug),
        "Name": "Deck",
        "Transform": _transform(scale, face_down),
        "Nickname": deck.title,
        "Description": str(deck.data.get("description") or ""),
        "GMNotes": "",
        **COMMON,
        "Tags": _tags(deck, [card for sheet in sheets for card, _, _ in sheet.entries]),
        "HideWhenFaceDown": True, "Hands": False, "SidewaysCard": sideways,
        "DeckIDs": ids,
        "CustomDeck": custom,
        "ContainedObjects": cards,
        "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
        "_size_mm": size,
    }


def _card_object(game, deck, dopts, sheet, entry: dict, i: int, copy: int, scale: float, face_down: bool,
                 sideways: bool) -> Callable[[], dict]:
    """What makes the object of copy `copy` of the card in cell `i` of `sheet` (`tts_save.Made`)."""
    def make() -> dict:
        card = sheet.entries[i][0]
        return {
            "GUID": _guid(game.slug, deck.slug, sheet.key, i, *([copy] if copy > 1 else [])),
            "Name": "Card",
            "Transform": _transform(scale, face_down),
            "Nickname": card.title,
            "Description": _described(card, dopts.description),
            "GMNotes": _notes(card),
            **COMMON,
            "Tags": _tags(deck, [card]),
            "HideWhenFaceDown": True, "Hands": True,
            "CardID": sheet.key * 100 + i,
            "SidewaysCard": sideways,
            "CustomDeck": {str(sheet.key): entry},
            "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
        }
    return make


def _rules_object(job: Job, base_url: str | None) -> dict | None:
    """The rules booklet as a Custom_PDF object, when the game has a rulebook: `rules.pdf`
    next to the tts folder (made by the booklet output), or `base_url/rules.pdf`."""
    from cardgen.layout.rulebook import has_rulebook

    game = job.game
    if not has_rulebook(game):
        return None
    return {
        "GUID": _guid(game.slug, "rules.pdf"),
        "Name": "Custom_PDF",
        "Transform": _transform(1.0, face_down=False),
        "Nickname": game.words("{title} rules", title=game.title) if getattr(game, "title", None)
        else game.words("Rules"),
        "Description": "", "GMNotes": "",
        **COMMON,
        "Tags": ["Rules"],
        "HideWhenFaceDown": False, "Hands": False,
        "CustomPDF": {"PDFUrl": address("rules.pdf", job.out_dir, base_url), "PDFPassword": "",
                      "PDFPage": 0, "PDFPageOffset": 0},
        "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
    }


THUMB = 256
THUMB_BG = (46, 52, 58)


def _stage_thumbnail(job: Job, path: Path, title: str, plans, pplans, cell_of) -> None:
    """Stage the thumbnail; the last build's is kept (its SHA-256 checked) when it was made
    from the same title and the same bitmaps (`tts_save.SaveCache` holds what it was made from)."""
    fan, cards = _fan(plans, pplans)
    made_from = repr((THUMB, title, cards, [(Path(cell_of[id(face)]).name, shape) for face, shape in fan]))
    cache = tts_save.SaveCache.of(job.out_dir)
    kept = (cache.get(("thumbnail", path.name)) == made_from and job.ledger is not None
            and job.ledger.keep_file(job.staging, path))
    if not kept:
        job.staging.add(path, _thumbnail(title, plans, pplans, cell_of))
    cache.put(("thumbnail", path.name), made_from)


def _fan(plans, pplans) -> tuple[list, bool]:
    """The thumbnail's fan: up to five cards (each deck's first face, then their others), or
    in a game without cards, its first pieces (each file's first, then their others), each
    with its shape; and whether they are cards."""
    faces = [[(entry[1], "rect") for entry in sheets[0].entries] for _, _, sheets in plans if sheets]
    pieces = [[(face, objs.path_mask(face.outline) if deck.size.shape == "path" else deck.size.shape)
               for _, face, _ in rows] for deck, _, rows in pplans]
    groups = faces or pieces
    return ([g[0] for g in groups] + [f for g in groups for f in g[1:]])[:5], bool(faces)


def _thumbnail(title: str, plans, pplans, cell_of) -> bytes:
    """256 x 256: the game's title over a fan of up to five cards (`_fan`), pieces cut to
    their shape."""
    from PIL import Image

    from cardgen.render import raster

    thumb = Image.new("RGB", (THUMB, THUMB), THUMB_BG)
    fan, cards = _fan(plans, pplans)                 # (pieces: smaller, fanned wider, as they are squarer)
    top = _thumb_title(thumb, title)
    n = len(fan)
    box = min(150 if cards else 112, THUMB - top - 30)       # the cards' longer side
    spread = min(40.0, 10.0 * (n - 1)) if cards else min(60.0, 30.0 * (n - 1))   # first to last, degrees
    radius = box * (0.8 if cards else 1.3)           # they turn about a point below the middle one
    pivot_y = top + 4 + box / 2 + radius
    for i, (face, shape) in enumerate(fan):
        img = raster.open_image(cell_of[id(face)])
        k = box / max(img.width, img.height)
        # (scaled as RGB, then given its alpha: the pixels an RGBA copy scaled gives, its alpha all opaque)
        img = img.resize((max(1, round(img.width * k)), max(1, round(img.height * k))), Image.Resampling.LANCZOS)
        img.putalpha(objs.shape_mask(shape, img.size) if shape != "rect" else Image.new("L", img.size, 255))
        angle = 0.0 if n == 1 else spread / 2 - spread * i / (n - 1)
        turned = img.rotate(angle, Image.Resampling.BICUBIC, expand=True)
        cx = THUMB / 2 - math.sin(math.radians(angle)) * radius
        cy = pivot_y - math.cos(math.radians(angle)) * radius
        thumb.paste(turned, (round(cx - turned.width / 2), round(cy - turned.height / 2)), turned)
    buf = io.BytesIO()
    thumb.save(buf, "PNG", compress_level=9)
    return buf.getvalue()


def _thumb_title(thumb, title: str) -> int:
    """Draw the title centred on one or two lines at the top, as large as fits; returns the
    height it takes."""
    from PIL import ImageDraw, ImageFont

    from cardgen.core.data import DATA

    fonts = DATA / "fonts"
    font_file = fonts / ("Lato-Bold.ttf" if all(ord(c) < 0x250 for c in title) else "DejaVuSans.ttf")
    draw = ImageDraw.Draw(thumb)
    title = " ".join(title.split()) or "Untitled"
    for size in range(30, 11, -2):
        font = ImageFont.truetype(str(font_file), size)
        lines = _wrap(draw, title, font, THUMB - 16)
        if len(lines) <= 2 and all(draw.textlength(line, font=font) <= THUMB - 16 for line in lines):
            break
    lines = lines[:2]
    y = 8
    for line in lines:
        draw.text((THUMB / 2, y), line, font=font, fill=(245, 240, 225), anchor="ma")
        y += round(size * 1.15)
    return y + 2


def _wrap(draw, text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and draw.textlength(lines[-1] + " " + word, font=font) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
