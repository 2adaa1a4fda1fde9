"""Tabletop Simulator export: `build/<game>/tts/`.

Per deck, the faces go on atlases ("deck sheets") of at most 10 x 7 cells and at most
4096 px a side, cells in the card's proportions, copies repeated, row-major.  The grid's
last cell is the hidden-card image unless the deck uses BackIsHidden.  A deck too big for
one sheet gets several `CustomDeck` entries.  A shared back is one image; per-card backs
are a back atlas with the same grid (`UniqueBack`).

`<game>.json` is a saved object (one Deck per deck, a Card for one-card decks) and
`<game>.png` its 256 x 256 thumbnail.  Image names carry a short content hash, because
TTS caches images by URL.

Deck YAML (or game.yaml, for every deck) may set:

    tts:
      back_is_hidden: true     # hidden cards show the back; 70 cards a sheet
      description: text        # the card field shown as the card's description
      shape: rounded           # rounded, rect, hex, rounded-hex, circle
      format: jpeg             # jpeg or png (game.yaml only; --tts-format wins)
      base_url: https://...    # hosted images (game.yaml only; --tts-base-url wins)
      jpeg_quality: 92         # 90-100 (game.yaml only)
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from cardgen.render import raster
from cardgen.core.errors import CardgenError, Loc
from cardgen.resources.richtext import plain

MAX_COLS, MAX_ROWS, MAX_PX = 10, 7, 4096
MAX_CELL_DPI = 300               # no point in cells sharper than print
KEY_MAX = (2**31 - 1) // 100 - 1  # key * 100 + 99 must fit a 32-bit int
POKER_WIDTH_MM = 63.5            # a TTS card at scale 1 is a poker card
HIDDEN_GREY = (64, 64, 64)
PLAIN_BACK = (96, 96, 96)
SHAPES = {"rounded": 0, "rect": 1, "rounded-hex": 2, "hex": 3, "circle": 4}
GAME_OPTIONS = {"back_is_hidden", "description", "shape", "format", "base_url", "jpeg_quality"}
DECK_OPTIONS = {"back_is_hidden", "description", "shape"}


# -- geometry --------------------------------------------------------------------------------

def grid_for(cells: int) -> tuple[int, int]:
    """Columns and rows for `cells` cells (at most 10 x 7): full rows of ten, fewer
    columns only when everything fits one row."""
    if cells < 1 or cells > MAX_COLS * MAX_ROWS:
        raise ValueError(f"a sheet holds 1 to {MAX_COLS * MAX_ROWS} cells, not {cells}")
    cols = min(MAX_COLS, cells)
    return cols, math.ceil(cells / cols)


def cell_size(cols: int, rows: int, width_mm: float, height_mm: float) -> tuple[int, int]:
    """Largest cell in the card's proportions so the sheet stays within 4096 px a side,
    and not sharper than 300 dpi."""
    aspect = width_mm / height_mm
    w = min(MAX_PX // cols, math.floor(MAX_PX // rows * aspect), round(width_mm / 25.4 * MAX_CELL_DPI))
    while True:
        h = max(1, round(w / aspect))
        if h * rows <= MAX_PX and h <= round(height_mm / 25.4 * MAX_CELL_DPI) + 1:
            return w, h
        w -= 1


@dataclass
class Sheet:
    """One atlas, one `CustomDeck` entry."""

    cols: int
    rows: int
    cell_w: int
    cell_h: int
    entries: list = field(default_factory=list)   # (card, face layout, back layout or None) per copy
    hidden: bool = True                            # last cell is the hidden-card image
    key: int = 0

    @property
    def size(self) -> tuple[int, int]:
        return self.cols * self.cell_w, self.rows * self.cell_h


def plan_sheets(entries: list, width_mm: float, height_mm: float, back_is_hidden: bool) -> list[Sheet]:
    """Split a deck's copies (in order) into sheets; every sheet of a deck has the same cell
    size (that of the first, largest grid)."""
    per = MAX_COLS * MAX_ROWS - (0 if back_is_hidden else 1)
    chunks = [entries[i:i + per] for i in range(0, len(entries), per)]
    if not chunks:
        return []
    hidden = 0 if back_is_hidden else 1
    cw, ch = cell_size(*grid_for(len(chunks[0]) + hidden), width_mm, height_mm)
    sheets = []
    for chunk in chunks:
        cols, rows = grid_for(len(chunk) + hidden)
        sheets.append(Sheet(cols, rows, cw, ch, chunk, not back_is_hidden))
    return sheets


def deck_keys(game_slug: str, deck_slug: str, n: int, taken: set[int]) -> list[int]:
    """Stable CustomDeck keys for a deck's sheets: a hash of game, deck and sheet number
    into 1..KEY_MAX (so key*100 + index fits 32 bits); a clash within the game moves on."""
    keys = []
    for i in range(n):
        h = int(hashlib.sha256(f"cardgen/{game_slug}/{deck_slug}/{i}".encode()).hexdigest(), 16)
        key = 1 + h % KEY_MAX
        while key in taken:
            key = 1 + key % KEY_MAX
        taken.add(key)
        keys.append(key)
    return keys


def _guid(*parts) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:6]


# -- options -------------------------------------------------------------------------------

def _options(game, deck) -> dict:
    opts = {"back_is_hidden": False, "description": "text", "shape": None}
    for data, allowed, where in ((game.data, GAME_OPTIONS, "game.yaml"), (deck.data if deck else None,
                                                                          DECK_OPTIONS, "deck")):
        if data is None or "tts" not in data:
            continue
        t = data["tts"]
        if not isinstance(t, dict):
            raise CardgenError(data.value_loc("tts"), "`tts:` must be a mapping of options, e.g. "
                                                      "`tts: {back_is_hidden: true}`")
        for k, v in t.items():
            loc = t.value_loc(k) if hasattr(t, "value_loc") else data.value_loc("tts")
            if k not in allowed:
                from cardgen.schema.keys import suggest
                raise CardgenError(t.key_loc(k) if hasattr(t, "key_loc") else loc,
                                   f"unknown `tts:` option '{k}' in {where}{suggest(k, allowed)} "
                                   f"(options: {', '.join(sorted(allowed))})")
            if k == "back_is_hidden" and not isinstance(v, bool):
                raise CardgenError(loc, "tts back_is_hidden must be true or false")
            if k == "shape" and v not in SHAPES:
                raise CardgenError(loc, f"unknown tts shape '{v}' (use {', '.join(SHAPES)})")
            if k == "format" and v not in ("jpeg", "png"):
                raise CardgenError(loc, f"tts format must be jpeg or png, not '{v}'")
            if k == "jpeg_quality" and (not isinstance(v, int) or isinstance(v, bool) or not 90 <= v <= 100):
                raise CardgenError(loc, f"tts jpeg_quality must be a whole number from 90 to 100, not {v!r}")
            opts[k] = v
    return opts


# -- images ----------------------------------------------------------------------------------

def _encode(img: Image.Image, fmt: str, quality: int) -> bytes:
    buf = io.BytesIO()
    if fmt == "png":
        img.save(buf, "PNG", compress_level=6)
    else:
        img.save(buf, "JPEG", quality=quality, subsampling=0, optimize=False)
    return buf.getvalue()


def assemble(out: str, cells: list, cols: int, rows: int, cw: int, ch: int, fmt: str, quality: int) -> str:
    """Make one atlas file from cached cell bitmaps (paths) or solid colours (RGB tuples),
    one cell at a time.  Runs in a worker process; returns the file written."""
    out = Path(out)
    if out.is_file():
        return str(out)
    atlas = Image.new("RGB", (cols * cw, rows * ch), (255, 255, 255))
    loaded: dict = {}
    for i, cell in enumerate(cells):
        x, y = (i % cols) * cw, (i // cols) * ch
        if cell is None:
            continue
        if isinstance(cell, tuple):
            atlas.paste(cell, (x, y, x + cw, y + ch))
            continue
        img = loaded.get(cell)
        if img is None:
            img = raster.open_image(cell)
            if img.size != (cw, ch):
                img = img.resize((cw, ch), Image.Resampling.LANCZOS)
            loaded.clear()          # copies are consecutive: keep just the last one
            loaded[cell] = img
        atlas.paste(img, (x, y))
    from cardgen.core.atomic import write_bytes
    write_bytes(out, _encode(atlas, fmt, quality))
    return str(out)


def _atlas_key(cells: list, cols, rows, cw, ch, fmt, quality) -> str:
    h = hashlib.sha256(f"atlas/{raster.RASTER_VERSION}/{cols}x{rows}/{cw}x{ch}/{fmt}/{quality}".encode())
    for c in cells:
        h.update((Path(c).name if isinstance(c, (str, Path)) else repr(c)).encode() + b";")
    return h.hexdigest()


# -- the output ------------------------------------------------------------------------------

@dataclass
class _Image:
    """An image file to make: cells on a grid (one cell for single images)."""

    name: str             # output name without hash and extension
    cells: list
    cols: int
    rows: int
    cw: int
    ch: int
    out_name: str = ""
    cache_path: Path | None = None


def _out_tts(r, opts, staging, report) -> None:
    game = r.game
    gopts = _options(game, None)
    fmt = opts.extra.get("tts_format") or gopts.get("format") or "jpeg"
    quality = int(gopts.get("jpeg_quality") or 92)
    base_url = opts.extra.get("tts_base_url") or gopts.get("base_url")
    ext = "png" if fmt == "png" else "jpg"
    tts_dir = (r.out_dir / "tts").resolve()
    cache = raster.Cache(r.out_dir / ".cache" / "raster")
    atlas_dir = r.out_dir / ".cache" / "tts"
    staging.own_dir(tts_dir)

    by_deck: dict[str, list] = {}
    for deck, card, face in r.faces:
        by_deck.setdefault(deck.slug, []).append((deck, card, face))

    plans = []              # (deck, options, sheets)
    requests = []           # (layout, spec) to rasterize
    taken: set[int] = set()
    for deck in game.decks:
        rows = by_deck.get(deck.slug, [])
        entries = [(card, face, r.back_of(deck, card)) for _, card, face in rows for _ in range(card.count)]
        if not entries:
            continue
        dopts = _options(game, deck)
        sheets = plan_sheets(entries, deck.size.width, deck.size.height, dopts["back_is_hidden"])
        for sheet, key in zip(sheets, deck_keys(game.slug, deck.slug, len(sheets), taken)):
            sheet.key = key
        plans.append((deck, dopts, sheets))
        spec = raster.Spec(sheets[0].cell_w, sheets[0].cell_h)
        for _, card, face in rows:
            requests.append((face, spec))
            back = r.back_of(deck, card)
            if back is not None:
                requests.append((back, spec))

    with raster.Pool() as pool:
        paths = iter(raster.rasterize(requests, cache, raster.font_dirs_of(r), pool))
        cell_of: dict[int, str] = {}
        for layout, _ in requests:
            cell_of[id(layout)] = str(next(paths))

        images: list[_Image] = []
        deck_images = []    # per plan: [(face image, back image, unique back)] per sheet
        for deck, dopts, sheets in plans:
            shared = r.backs.get((deck.slug, None)) if deck.back else None
            hidden_cell = cell_of[id(shared)] if shared is not None else HIDDEN_GREY
            per_sheet = []
            back_img = None
            s0 = sheets[0]
            if not deck.backs:
                back_cell = cell_of[id(shared)] if shared is not None else PLAIN_BACK
                back_img = _Image(f"{deck.slug}-back", [back_cell], 1, 1, s0.cell_w, s0.cell_h)
                images.append(back_img)
            for n, sheet in enumerate(sheets, 1):
                cells = [cell_of[id(face)] for _, face, _ in sheet.entries]
                if sheet.hidden:
                    cells += [None] * (sheet.cols * sheet.rows - len(cells) - 1) + [hidden_cell]
                face_img = _Image(f"{deck.slug}-faces-{n}", cells, sheet.cols, sheet.rows, sheet.cell_w, sheet.cell_h)
                images.append(face_img)
                sheet_back = back_img
                if deck.backs:
                    bcells = [cell_of[id(back)] if back is not None else PLAIN_BACK for _, _, back in sheet.entries]
                    if sheet.hidden:
                        bcells += [None] * (sheet.cols * sheet.rows - len(bcells) - 1) + [HIDDEN_GREY]
                    sheet_back = _Image(f"{deck.slug}-backs-{n}", bcells, sheet.cols, sheet.rows,
                                        sheet.cell_w, sheet.cell_h)
                    images.append(sheet_back)
                per_sheet.append((face_img, sheet_back, bool(deck.backs)))
            deck_images.append(per_sheet)

        calls = []
        for im in images:
            key = _atlas_key(im.cells, im.cols, im.rows, im.cw, im.ch, fmt, quality)
            im.cache_path = atlas_dir / key[:2] / f"{key}.{ext}"
            im.out_name = f"{im.name}-{key[:10]}.{ext}"
            if im.cache_path.is_file():
                os.utime(im.cache_path)        # used now: keeps it from being pruned
            else:
                calls.append(("call", (assemble, (str(im.cache_path), im.cells, im.cols, im.rows, im.cw, im.ch,
                                                  fmt, quality))))
        pool.map(calls)
    for im in images:
        staging.add_file(tts_dir / im.out_name, im.cache_path)

    def url(im: _Image) -> str:
        if base_url:
            return f"{base_url.rstrip('/')}/{im.out_name}"
        return str(tts_dir / im.out_name)

    objects = []
    x = 0.0
    for (deck, dopts, sheets), per_sheet in zip(plans, deck_images):
        objects.append(_deck_object(game, deck, dopts, sheets, per_sheet, url, x))
        x += 3.0 * _scale(deck)
    save = {
        "SaveName": "", "GameMode": "", "Date": "", "Table": "", "Sky": "", "Note": "", "Rules": "",
        "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "ObjectStates": objects, "TabStates": {},
        "VersionNumber": "",
    }
    staging.add(tts_dir / f"{game.slug}.json", (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode())
    staging.add(tts_dir / f"{game.slug}.png", _thumbnail(plans, cell_of))
    cache.prune()
    raster.Cache(atlas_dir).prune()


def _scale(deck) -> float:
    """TTS scale: a poker card's width is 1; the shorter side decides (sideways cards)."""
    return round(min(deck.size.width, deck.size.height) / POKER_WIDTH_MM, 4)


def _transform(x: float, scale: float, face_down: bool = True) -> dict:
    return {"posX": round(x, 4), "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0,
            "rotZ": 180.0 if face_down else 0.0, "scaleX": scale, "scaleY": 1.0, "scaleZ": scale}


def _description(card, field_name: str) -> str:
    """The card's field as plain words; a list field gives one line per item."""
    value = card.fields.get(field_name)
    if value is None or value == "":
        return ""
    if isinstance(value, list):
        return "\n".join(plain(str(v)).strip() for v in value if v not in (None, ""))
    return plain(str(value)).strip()


def _deck_object(game, deck, dopts, sheets, per_sheet, url, x) -> dict:
    scale = _scale(deck)
    sideways = deck.size.width > deck.size.height
    shape = SHAPES[dopts["shape"]] if dopts["shape"] else (4 if deck.size.shape == "round" else 0)
    custom = {}
    cards = []
    for sheet, (face_img, back_img, unique) in zip(sheets, per_sheet):
        entry = {"FaceURL": url(face_img), "BackURL": url(back_img), "NumWidth": sheet.cols,
                 "NumHeight": sheet.rows, "BackIsHidden": not sheet.hidden, "UniqueBack": unique, "Type": shape}
        custom[str(sheet.key)] = entry
        copy_no: dict[int, int] = {}
        for i, (card, _, _) in enumerate(sheet.entries):
            copy_no[card.index] = copy_no.get(card.index, 0) + 1
            cards.append({
                "GUID": _guid(game.slug, deck.slug, sheet.key, i),
                "Name": "Card",
                "Transform": _transform(x, scale),
                "Nickname": card.name,
                "Description": _description(card, dopts["description"]),
                "GMNotes": "",
                "ColorDiffuse": {"r": 0.713235259, "g": 0.713235259, "b": 0.713235259},
                "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True,
                "Tooltip": True, "Hands": True, "HideWhenFaceDown": True,
                "CardID": sheet.key * 100 + i,
                "SidewaysCard": sideways,
                "CustomDeck": {str(sheet.key): entry},
                "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
            })
    if len(cards) == 1:
        return cards[0]
    return {
        "GUID": _guid(game.slug, deck.slug),
        "Name": "Deck",
        "Transform": _transform(x, scale),
        "Nickname": deck.name,
        "Description": str(deck.data.get("description") or ""),
        "GMNotes": "",
        "ColorDiffuse": {"r": 0.713235259, "g": 0.713235259, "b": 0.713235259},
        "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
        "Hands": False, "HideWhenFaceDown": True, "SidewaysCard": sideways,
        "DeckIDs": [c["CardID"] for c in cards],
        "CustomDeck": custom,
        "ContainedObjects": cards,
        "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
    }


def _thumbnail(plans, cell_of) -> bytes:
    """256 x 256: the first card of up to three decks, fanned."""
    thumb = Image.new("RGB", (256, 256), (46, 52, 58))
    firsts = [sheets[0].entries[0][1] for _, _, sheets in plans if sheets][:3]
    n = len(firsts)
    for i, face in enumerate(firsts):
        img = raster.open_image(cell_of[id(face)])
        box = 200 if n == 1 else 176
        k = box / max(img.width, img.height)
        img = img.resize((max(1, round(img.width * k)), max(1, round(img.height * k))), Image.Resampling.LANCZOS)
        step = 0 if n == 1 else (256 - 16 - img.width) / (n - 1)
        x = round(8 + i * step) if n > 1 else (256 - img.width) // 2
        y = (256 - img.height) // 2 + (0 if n == 1 else (i - (n - 1) / 2) * 10)
        thumb.paste(img, (x, round(y)))
    buf = io.BytesIO()
    thumb.save(buf, "PNG", compress_level=9)
    return buf.getvalue()


def _register() -> None:
    from cardgen.pipeline.build import register_output
    register_output("tts", _out_tts)


_register()
