"""A component file's size and shape: what `kind:` and `shape:` make of a deck file's `size:`
(docs/components.md).  The rest of a component file loads as a deck (`cardgen.load.game`)."""
from __future__ import annotations

from cardgen.core.errors import Diagnostic
from cardgen.core.located import YDict
from cardgen.core.sizes import CardSize
from cardgen.model.components import HEXES, KINDS, hex_box
from cardgen.schema.files import DeckFile


def piece_size(opts: DeckFile, data: YDict, game_size: CardSize, problems: list[Diagnostic]) -> CardSize:
    """The trim box and shape of the pieces a deck file makes.  A token, tile or board needs its
    own `size:` (the game's card size is no default for it); one length is a round or square
    piece's width and a hex's size across its flats; `{diameter}` is round unless `shape:` says
    otherwise.  Problems go to `problems` (the game's card size is used then)."""
    kind = KINDS[opts.kind]
    name = opts.deck
    size = opts.size
    if size is None:
        if kind.needs_size:
            problems.append(Diagnostic(data.key_loc("kind"), f"{kind.name} file '{name}' has no `size:`; give "
                                                             f"one, e.g. `size: 25mm`", "error", "component"))
        size = game_size
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
