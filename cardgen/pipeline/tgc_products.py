"""The Game Crafter's products a cardgen piece can be uploaded as: each product's identity, its
image size (300 dpi with 1/8 in bleed, portrait as TGC's templates are), and how the API makes
it (`cardgen.pipeline.tgc_sync`).  Plain data and arithmetic, no network.

Sizes: khenn/thegamecrafter-mcp's component profiles (read from TGC's `/tgc/products`), in
../shared/reference/tables-and-services-facts.md §5 and components-facts.md §1.  A piece
matches a product when its image (`png/tgc/`) is within `TOLERANCE_PX` of the product's in
both directions, either way round (a landscape card is uploaded turned a quarter turn); the
image is then scaled to the product's exact pixels (`cardgen.pipeline.tgc_plan`).
"""
from __future__ import annotations

from dataclasses import dataclass

# How far (px at 300 dpi, each way) a piece's image may be from a product's and still be
# uploaded as it, scaled: 12 px is 1 mm, so cardgen's tarot (70 x 120 mm: 902 x 1492 px)
# is TGC's TarotDeck (2.75 x 4.75 in: 900 x 1500 px), its square (70 mm) the EuroSquareDeck.
TOLERANCE_PX = 12


@dataclass(frozen=True)
class Family:
    """How a family of products is made through the API.

    `container`: the object made per cardgen deck (POST /<container>, `identity`, `game_id`);
    `relation`: the game's list of them (GET /game/{id}/<relation>); `member`: the object made
    per distinct piece (POST /<member> with `parent` = the container's id, `face_id`,
    `back_id`, `quantity`), listed by GET /<container>/{id}/<members>; no member: the
    container itself carries the face (a folding board).  `shared_back`: a deck's common back
    is set on the container (`back_id`)."""

    name: str                   # the container and its members, as said in the summary
    member_name: str
    container: str
    relation: str
    member: str | None
    parent: str
    members: str
    shared_back: bool
    two_sided: bool


DECK = Family("deck", "card", "deck", "decks", "card", "deck_id", "cards", True, True)
PUNCHOUT = Family("punchout set", "piece", "twosidedsluggedset", "twosidedsluggedsets", "twosidedslugged",
                  "set_id", "members", False, True)
BOARD = Family("board set", "board", "twosidedset", "twosidedsets", "twosided", "set_id", "members", False, True)
FOLDING = Family("folding board", "", "onesidedgloss", "onesidedglosses", None, "", "", False, False)


@dataclass(frozen=True)
class Product:
    """A product of The Game Crafter."""

    identity: str
    px: tuple[int, int]         # the image TGC wants, bleed included, portrait
    family: Family
    kinds: tuple[str, ...]      # cardgen kinds uploaded as it (`cardgen.schema.components.KINDS`)
    shapes: tuple[str, ...]     # and their shapes; the first product listed wins a tie


def _p(identity: str, w: int, h: int, family: Family, kinds: tuple[str, ...], shapes: tuple[str, ...]) -> Product:
    return Product(identity, (w, h), family, kinds, shapes)


_CARDS = ("card",)
_PIECES = ("token", "tile")
_RECT = ("rect",)
_ROUND = ("round",)
_HEX = ("hex-flat", "hex-pointy")

# In order of preference where sizes coincide: PokerDeck before EuroPokerDeck and TradingDeck
# (same 825 x 1125 px), BridgeDeck before USGameDeck and MintTinDeck, and so on.
PRODUCTS: tuple[Product, ...] = (
    _p("PokerDeck", 825, 1125, DECK, _CARDS, _RECT),
    _p("BridgeDeck", 750, 1125, DECK, _CARDS, _RECT),
    _p("TarotDeck", 900, 1500, DECK, _CARDS, _RECT),
    _p("JumboDeck", 1125, 1725, DECK, _CARDS, _RECT),
    _p("MiniDeck", 600, 825, DECK, _CARDS, _RECT),
    _p("MicroDeck", 450, 600, DECK, _CARDS, _RECT),
    _p("BusinessDeck", 675, 1125, DECK, _CARDS, _RECT),
    _p("DominoDeck", 600, 1125, DECK, _CARDS, _RECT),
    _p("DividerDeck", 975, 1125, DECK, _CARDS, _RECT),
    _p("SquareDeck", 1125, 1125, DECK, _CARDS, _RECT),
    _p("SmallSquareDeck", 825, 825, DECK, _CARDS, _RECT),
    _p("EuroSquareDeck", 900, 900, DECK, _CARDS, _RECT),
    _p("CircleDeck", 1125, 1125, DECK, _CARDS, _ROUND),
    _p("HexDeck", 1200, 1050, DECK, _CARDS, _HEX),
    # the same sizes in other stock: only when --product names them
    _p("EuroPokerDeck", 825, 1125, DECK, _CARDS, _RECT),
    _p("TradingDeck", 825, 1125, DECK, _CARDS, _RECT),
    _p("USGameDeck", 750, 1125, DECK, _CARDS, _RECT),
    _p("MintTinDeck", 750, 1125, DECK, _CARDS, _RECT),
    # tokens and tiles: pre-shaped punchouts (chipboard), sold as sets of pieces
    _p("SmallCircleChit", 225, 225, PUNCHOUT, _PIECES, _ROUND),
    _p("MediumCircleChit", 300, 300, PUNCHOUT, _PIECES, _ROUND),
    _p("LargeCircleChit", 375, 375, PUNCHOUT, _PIECES, _ROUND),
    _p("MiniCircleTile", 450, 450, PUNCHOUT, _PIECES, _ROUND),
    _p("SmallSquareChit", 225, 225, PUNCHOUT, _PIECES, _RECT),
    _p("MediumSquareChit", 300, 300, PUNCHOUT, _PIECES, _RECT),
    _p("LargeSquareChit", 375, 375, PUNCHOUT, _PIECES, _RECT),
    _p("MiniSquareTile", 450, 450, PUNCHOUT, _PIECES, _RECT),
    _p("SmallSquareTile", 675, 675, PUNCHOUT, _PIECES, _RECT),
    _p("MediumSquareTile", 825, 825, PUNCHOUT, _PIECES, _RECT),
    _p("LargeSquareTile", 1125, 1125, PUNCHOUT, _PIECES, _RECT),
    _p("MiniHexTile", 450, 450, PUNCHOUT, _PIECES, _HEX),
    _p("SmallHexTile", 675, 600, PUNCHOUT, _PIECES, _HEX),
    _p("MediumHexTile", 825, 750, PUNCHOUT, _PIECES, _HEX),
    _p("LargeHexTile", 1200, 1050, PUNCHOUT, _PIECES, _HEX),
    # boards: two-sided ones as sets of boards, folding ones printed on one side
    _p("QuarterBoard", 1575, 1575, BOARD, ("board",), _RECT),
    _p("SmallSquareBoard", 1275, 1275, BOARD, ("board",), _RECT),
    _p("SquareBoard", 2475, 2475, BOARD, ("board",), _RECT),
    _p("LargeSquareBoard", 3075, 3075, BOARD, ("board",), _RECT),
    _p("HalfBoard", 1575, 3075, BOARD, ("board",), _RECT),
    _p("DominoBoard", 1275, 2475, BOARD, ("board",), _RECT),
    _p("SkinnyBoard", 1275, 3075, BOARD, ("board",), _RECT),
    _p("StripBoard", 675, 3075, BOARD, ("board",), _RECT),
    _p("SliverBoard", 675, 2475, BOARD, ("board",), _RECT),
    _p("AccordionBoard", 2475, 4875, BOARD, ("board",), _RECT),
    _p("BiFoldBoard", 2775, 5475, FOLDING, ("board",), _RECT),
    _p("QuadFoldBoard", 5475, 5475, FOLDING, ("board",), _RECT),
    _p("LargeQuadFoldBoard", 6075, 6075, FOLDING, ("board",), _RECT),
    _p("MediumSixFoldBoard", 4875, 4875, FOLDING, ("board",), _RECT),
    _p("SixFoldBoard", 8175, 5475, FOLDING, ("board",), _RECT),
)
BY_IDENTITY = {p.identity: p for p in PRODUCTS}


@dataclass(frozen=True)
class Match:
    """The product an image is uploaded as, and how it fits it."""

    product: Product
    turned: bool            # the image is landscape, the product portrait (or the other way)
    scaled: bool            # the image is not the product's exact size


def _off(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _turns(px: tuple[int, int], want: tuple[int, int]) -> bool:
    """Whether an image of `px` is uploaded turned to a product of `want` (both near, the
    turned one nearer; a square product is never turned)."""
    return want[0] != want[1] and _off((px[1], px[0]), want) < _off(px, want)


def match(kind: str, shape: str, px: tuple[int, int], identity: str | None = None) -> Match | None:
    """The product a piece of `kind` and `shape` whose image is `px` is uploaded as: `identity`
    when given (any product of the piece's kind and shape, whatever its size: the caller says
    how far off it is), else the first product within TOLERANCE_PX; None if there is none."""
    if identity is not None:
        product = BY_IDENTITY.get(identity)
        if product is None or kind not in product.kinds:
            return None
        turned = _turns(px, product.px)
        got = (px[1], px[0]) if turned else px
        return Match(product, turned, got != product.px)
    for product in PRODUCTS:
        if kind not in product.kinds or shape not in product.shapes:
            continue
        for turned in (False, True):
            got = (px[1], px[0]) if turned else px
            if turned and product.px[0] == product.px[1]:
                continue
            if _off(got, product.px) <= TOLERANCE_PX:
                return Match(product, turned, got != product.px)
    return None


def nearest(kind: str, shape: str, px: tuple[int, int]) -> Product | None:
    """The product of `kind` nearest in size to `px` (for saying what would fit), or None."""
    fits = [p for p in PRODUCTS if kind in p.kinds and (shape in p.shapes or kind == "board")]
    if not fits:
        return None
    return min(fits, key=lambda p: min(_off(px, p.px), _off((px[1], px[0]), p.px)))


def identities(kind: str) -> list[str]:
    return [p.identity for p in PRODUCTS if kind in p.kinds]
