"""A component file's size and shape: what `kind:` and `shape:` make of a deck file's `size:`
(docs/components.md).  The rest of a component file loads as a deck (`cardgen.load.game`)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.core.located import YDict
from cardgen.core.sizes import CardSize
from cardgen.model import svgpath
from cardgen.model.components import HEXES, KINDS, hex_box
from cardgen.model.game import Card
from cardgen.schema.files import DeckFile

Finder = Callable[[str, Loc], Path]      # a file a game names, found under its roots (or CardgenError)


def piece_size(opts: DeckFile, data: YDict, game_size: CardSize, problems: list[Diagnostic],
               find: Finder | None = None) -> CardSize:
    """The trim box and shape of the pieces a deck file makes.  A token, tile or board needs its
    own `size:` (the game's card size is no default for it); one length is a round or square
    piece's width and a hex's size across its flats; `{diameter}` is round unless `shape:` says
    otherwise.  Problems go to `problems` (the game's card size is used then)."""
    kind = KINDS[opts.kind]
    name = opts.deck
    size = opts.size
    if opts.shape == "path" and "path" in kind.shapes:
        return _path_size(opts, data, problems, find)
    if opts.path is not None:
        problems.append(Diagnostic(data.key_loc("path"), f"{kind.name} file '{name}': `path:` is for `shape: path`; "
                                                         f"add that, or remove `path:`", "error", "component"))
    if size is None:
        if kind.needs_size:
            problems.append(Diagnostic(data.key_loc("kind"), f"{kind.name} file '{name}' has no `size:`; give "
                                                             f"one, e.g. `size: 25mm`", "error", "component"))
        size = game_size
    if kind.name == "die":
        return _die_size(opts, data, size, problems)
    shape = opts.shape or (size.shape if size.shape != "rect" else kind.default_shape)
    if shape not in kind.shapes:
        problems.append(Diagnostic(data.value_loc("shape") if "shape" in data else data.key_loc("kind"),
                                   f"{kind.name} file '{name}': a {kind.name} cannot be {shape} "
                                   f"(it can be {', '.join(kind.shapes)})", "error", "component"))
        shape = kind.default_shape
    if shape in HEXES and (size.single or size.shape == "round"):
        w, h = hex_box(size.width, shape)     # one length (or a diameter): the size across the flats
        return CardSize(w, h, size.name, shape)
    if shape == "round" and abs(size.width - size.height) > 1e-6:
        problems.append(Diagnostic(data.value_loc("size") if "size" in data else data.key_loc("shape"),
                                   f"{kind.name} file '{name}': a round piece needs one size, got "
                                   f"{size.width:g}x{size.height:g} mm; give `size: {size.width:g}mm`",
                                   "error", "component"))
    return CardSize(size.width, size.height, size.name, shape)


def _path_size(opts: DeckFile, data: YDict, problems: list[Diagnostic], find: Finder | None) -> CardSize:
    """A `shape: path` piece's box and outline: its path fitted to `size:` when given, else the
    path's own box (docs/components.md#path-shapes).  A problem gives a plain square piece."""
    name, size = opts.deck, opts.size
    fallback = CardSize(size.width, size.height, size.name) if size is not None else CardSize(25.0, 25.0)
    if opts.path is None:
        problems.append(Diagnostic(data.value_loc("shape"), f"token file '{name}': `shape: path` needs `path:`, the "
                                                            f"outline as SVG path data in mm (`path: \"M 0 10 L 10 0 "
                                                            f"L 20 10 Z\"`) or an .svg file", "error", "component"))
        return fallback
    loc = data.value_loc("path")
    try:
        d, what = _path_data(opts.path, loc, find)
        outline = svgpath.parse(d)
    except CardgenError as exc:
        problems.extend(exc.diagnostics)
        return fallback
    except svgpath.PathSyntax as exc:
        shown = d[max(0, exc.at - 12):exc.at + 12].replace("\n", " ").strip()
        if not what:
            loc = _char_loc(loc, d, exc.at)
        problems.append(Diagnostic(loc, f"token file '{name}': bad SVG path{what} at character {exc.at + 1} "
                                        f"(...{shown}...): {exc.message}", "error", "component"))
        return fallback
    x0, y0, x1, y1 = svgpath.bounds(outline)
    if x1 - x0 < 1 or y1 - y0 < 1:
        problems.append(Diagnostic(loc, f"token file '{name}': the path{what} is {x1 - x0:.2g}x{y1 - y0:.2g} mm; a "
                                        f"piece is at least 1 mm each way", "error", "component"))
        return fallback
    outline, w, h = svgpath.fitted(outline, size.width if size else None, size.height if size else None)
    return CardSize(w, h, size.name if size else "", "path", outline=outline)


def _path_data(ref: str, loc: Loc, find: Finder | None) -> tuple[str, str]:
    """The path data `path:` gives (its text, or the `d` of the first `<path>` of the .svg file it
    names) and, for a file, ' in <file>' for messages."""
    text = ref.strip()
    if not text.lower().endswith(".svg") or any(ch.isspace() for ch in text):
        return ref, ""
    import xml.etree.ElementTree as ET

    from cardgen.core.paths import read_regular

    if find is None:
        raise CardgenError(loc, f"path file '{text}': no game folder to find it in", code="component")
    file = find(text, loc)
    try:
        root = ET.fromstring(read_regular(file))
    except (OSError, ET.ParseError) as exc:
        raise CardgenError(loc, f"path file '{text}' cannot be read: {exc}", code="component") from None
    for el in root.iter():
        if el.tag.rsplit("}", 1)[-1] == "path" and el.get("d"):
            return el.get("d", ""), f" in {text}"
    raise CardgenError(loc, f"path file '{text}' has no <path> with a `d`", code="component")


def _char_loc(loc: Loc, text: str, at: int) -> Loc:
    """The place of character `at` of `text`, a value written on one line at `loc` (plain or
    quoted, without escapes); `loc` itself when the file shows it otherwise."""
    from cardgen.core.paths import read_regular

    try:
        line = read_regular(loc.file).decode("utf-8").splitlines()[loc.line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return loc
    start = loc.col - 1 + (1 if line[loc.col - 1:loc.col] in ("'", '"') else 0)
    return Loc(loc.file, loc.line, start + at + 1) if line[start:start + len(text)] == text else loc


def _die_size(opts: DeckFile, data: YDict, size: CardSize, problems: list[Diagnostic]) -> CardSize:
    """A die's stickers: its edge (`size:`, one length) less the inset on each side."""
    from cardgen.model.dice import MIN_STICKER, sticker_side  # (a die's net: only for a game with dice)

    name = opts.deck
    at = data.value_loc("size") if "size" in data else data.key_loc("kind")
    if abs(size.width - size.height) > 1e-6 or size.shape != "rect":
        problems.append(Diagnostic(at, f"die file '{name}': `size:` is the die's edge, one length such as 16mm; "
                                       f"got {size.label}", "error", "component"))
    side = sticker_side(size.width, opts.inset)
    if side < MIN_STICKER - 1e-9:
        problems.append(Diagnostic(data.value_loc("inset") if "inset" in data else at,
                                   f"die file '{name}': a {size.width:g} mm die with an inset of "
                                   f"{(size.width - side) / 2:g} mm leaves a {side:g} mm sticker; the smallest is "
                                   f"{MIN_STICKER:g} mm", "error", "component"))
        side = size.width
    return CardSize(side, side, size.name, "rect")


def die_faces(opts: DeckFile, data: YDict, cards: list[Card], problems: list[Diagnostic]) -> None:
    """A die file's checks once its entries are read: exactly six faces, none with a count of its
    own (each face is printed once per die: the file's `count:`), no backs; and no die keys
    (`count:`, `inset:`) in a file of another kind."""
    name = opts.deck
    if opts.kind != "die":
        for key, hint in (("count", "; a card's copies are its own `count:`"), ("inset", "")):
            if key in data and getattr(opts, key) is not None:     # (a wrong value is said where it is read)
                problems.append(Diagnostic(data.key_loc(key), f"{opts.kind} file '{name}': `{key}:` is for a die "
                                                              f"file (`kind: die`){hint}", "error", "component"))
        return
    from cardgen.model.dice import DIE_FACES

    dice = opts.count or 1
    entries = data.get("cards")
    n = len(entries) if isinstance(entries, list) else len(cards)     # (a spreadsheet: its rows)
    if n != DIE_FACES:
        problems.append(Diagnostic(data.key_loc("cards"), f"die file '{name}' has {n} "
                                                            f"{'face' if n == 1 else 'faces'}; a die has "
                                                            f"{DIE_FACES}, faces 1 to {DIE_FACES} in order (face i "
                                                            f"opposite face {DIE_FACES + 1} - i)", "error",
                                   "component"))
    for key in ("back", "backs"):
        if key in data:
            problems.append(Diagnostic(data.key_loc(key), f"die file '{name}': a die has no backs (its stickers and "
                                                          f"its net are printed on one side); remove `{key}:`",
                                       "error", "component"))
    defaults = data.get("defaults")
    if isinstance(defaults, YDict) and "count" in defaults:
        problems.append(Diagnostic(defaults.key_loc("count"), _face_count(name), "error", "component"))
    for card in cards:
        if "count" in card.data:
            problems.append(Diagnostic(card.data.key_loc("count"), _face_count(name), "error", "component"))
        card.count = dice
        card.fields["count"] = dice


def _face_count(name: str) -> str:
    return (f"die file '{name}': a face has no count of its own (each is printed once per die); give the number "
            f"of dice as the file's `count:`")
