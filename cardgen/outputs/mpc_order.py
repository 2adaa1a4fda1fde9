"""`png/mpc/<deck>.xml`: a MakePlayingCards order per deck in the XML that the community's
mpc-autofill desktop tool reads (chilli-axe/mpc-autofill `desktop-tool/src/order.py`).

```xml
<order>
  <details><quantity>50</quantity><bracket>55</bracket><stock>(S30) Standard Smooth</stock>
           <foil>false</foil></details>
  <fronts><card><id>fronts/001-hero-strike-1of10.png</id><slots>0,1,...,9</slots>
          <name>001-hero-strike-1of10.png</name><query>strike</query>
          <sourceType>Local File</sourceType></card>...</fronts>
  <backs>...per-card backs: the slots whose back is not the cardback...</backs>
  <cardback>backs/hero-back.png</cardback>
</order>
```

Slots are 0-based, one per copy in deck order; each card's copies share its first copy's
image (MakePlayingCards identifies an image by its content).  Paths are relative to the XML
(the tool works in the XML's folder).  The tool picks the smallest bracket that holds the
quantity; `<bracket>` is written too, for older versions that read it.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import PurePosixPath

BRACKETS = (18, 36, 55, 72, 90, 108, 126, 144, 162, 180, 198, 216, 234, 396, 504, 612)
STOCKS = ("(S27) Smooth", "(S30) Standard Smooth", "(S33) Superior Smooth", "(M31) Linen", "(P10) Plastic")


@dataclass
class OrderCard:
    """A card of the deck: its name, its copies' front images and back images (relative to
    the XML; `backs` empty when the deck has one shared back or none)."""

    name: str
    fronts: list[str]
    backs: list[str] = field(default_factory=list)


def bracket(quantity: int) -> int | None:
    """The smallest MakePlayingCards bracket holding `quantity` cards; None above the largest."""
    return next((b for b in BRACKETS if b >= quantity), None)


def order_xml(cards: list[OrderCard], cardback: str | None, stock: str) -> bytes:
    """The order file for one deck (at most `BRACKETS[-1]` copies: `bracket` first)."""
    quantity = sum(len(c.fronts) for c in cards)
    size = bracket(quantity)
    if size is None:
        raise ValueError(f"{quantity} cards is more than MakePlayingCards' largest order ({BRACKETS[-1]})")
    order = ET.Element("order")
    details = ET.SubElement(order, "details")
    for tag, value in (("quantity", quantity), ("bracket", size), ("stock", stock), ("foil", "false")):
        ET.SubElement(details, tag).text = str(value)
    fronts = ET.SubElement(order, "fronts")
    backs = ET.Element("backs")
    slot = 0
    if cardback is None and cards and cards[0].backs:
        cardback = cards[0].backs[0]        # per-card backs: the first card's is the common one
    for card in cards:
        slots = list(range(slot, slot + len(card.fronts)))
        slot += len(card.fronts)
        if not slots:
            continue
        _card(fronts, card.fronts[0], slots, card.name)
        if card.backs and card.backs[0] != cardback:
            _card(backs, card.backs[0], slots, card.name)
    if len(backs):
        order.append(backs)
    if cardback is not None:
        ET.SubElement(order, "cardback").text = cardback
    ET.indent(order)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(order, encoding="utf-8") + b"\n"


def _card(parent: ET.Element, image: str, slots: list[int], name: str) -> None:
    card = ET.SubElement(parent, "card")
    ET.SubElement(card, "id").text = image
    ET.SubElement(card, "slots").text = ",".join(map(str, slots))
    ET.SubElement(card, "name").text = PurePosixPath(image).name
    ET.SubElement(card, "query").text = " ".join(name.lower().split())
    ET.SubElement(card, "sourceType").text = "Local File"
