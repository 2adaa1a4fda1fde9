"""`stack`: other elements of the template set one below another as one block, by the heights
they are laid out at on each card, the block aligned in the stack's box as a whole.

A stack draws nothing itself: the layout engine places its items (`cardgen.layout.placement`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cardgen.elements.base import Box, LayoutContext
from cardgen.schema.core import Choice, Length, ListOf, Text, opt


@dataclass(frozen=True, kw_only=True)
class Stack(Box):
    """The `stack` element."""

    summary: ClassVar[str] = ("Elements named in `items` set one below another as one block, each as tall as it is "
                              "laid out on the card (a text's lines), the block placed in the stack's box as a "
                              "whole (`valign: middle` centres it); an item not drawn on a card takes no room.")

    items: tuple[str, ...] = opt(ListOf(Text(nonempty=True), min_items=1, max_items=100), "the names of the "
                                 "elements it sets, top to bottom; each takes the stack's x and width unless it "
                                 "gives its own, and gives no y or height", (), default_doc="required")
    valign: str = opt(Choice(("top", "middle", "bottom")), "where the block sits in the stack's box", "top",
                      dynamic=True)
    spacing: float = opt(Length(min=0, max=1000), "space between two items", 0.0, dynamic=True)

    def layout(self, lc: LayoutContext) -> None:
        """Nothing to draw: the items draw themselves where the engine placed them."""
