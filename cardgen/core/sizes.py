"""Card and paper sizes, in millimetres."""
from __future__ import annotations

from dataclasses import dataclass

CARD_SIZES_MM: dict[str, tuple[float, float]] = {
    "poker": (63.5, 88.9),
    "bridge": (57.15, 88.9),
    "tarot": (70.0, 120.0),
    "euro": (59.0, 92.0),
    "mini-euro": (44.0, 68.0),
    "mini-american": (41.0, 63.0),
    "square": (70.0, 70.0),
    "jumbo": (88.9, 139.7),
}

PAPER_SIZES_MM: dict[str, tuple[float, float]] = {
    "letter": (215.9, 279.4),
    "a4": (210.0, 297.0),
    "a5": (148.0, 210.0),
    "half-letter": (139.7, 215.9),
    "a6": (105.0, 148.0),
}

DEFAULT_BLEED_MM = 3.175  # 1/8 in, what US print services ask for


@dataclass(frozen=True)
class CardSize:
    """Trim size of a card in mm; `shape` is rect, round (a token of diameter width), hex-flat or
    hex-pointy (`cardgen.model.components.SHAPES`); `single`: given as one length (a token's
    width, a hex's flat-to-flat size), which the piece's shape turns into its box."""

    width: float
    height: float
    name: str = ""
    shape: str = "rect"
    single: bool = False
    outline: tuple = ()         # a `path` piece's outline (`cardgen.model.svgpath`), mm from its top-left

    @property
    def label(self) -> str:
        dims = f"{self.width:g}x{self.height:g} mm"
        return f"{self.name} ({dims})" if self.name else dims
