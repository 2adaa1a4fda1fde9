"""`cardgen new`: a new game that builds and validates at once, to edit from there."""
from __future__ import annotations

import re
from pathlib import Path

from cardgen.core.atomic import write_text
from cardgen.core.errors import CardgenError, Loc
from cardgen.core.sizes import CARD_SIZES_MM

GAME = """\
# {title}: game-wide settings. Format: docs/games.md
title: {title}
subtitle: A new game
designer: ""
version: "0.1"
players: 2-4
play_time: 30 min
card_size: {size}          # poker, bridge, tarot, euro, mini-euro, mini-american, square, jumbo
decks: [cards]
booklet:
  accent: "#35506b"
"""

DECK = """\
# One deck. Every card has a name and any fields you like; `count` is the number of copies.
deck: Cards
description: The main deck.
template: {slug}/card       # templates/{slug}/card.yaml
back: {slug}/back
vars: {{color: "#35506b"}}
cards:
  - name: Scout Ahead
    type: Action
    count: 3
    text: "Draw 2 cards, then discard 1.\\nGain 1 :coins:."
  - name: Storm
    type: Event
    text: "**Everyone** discards a card. The first player loses 1 :heart-plus:."
  - name: Secret Plan
    type: Action
    count: 2
    todo: Write this card's text (the card prints a "text to come" box until then).
"""

RULES = """\
# What your rules say about the components (the validator checks the cards against it), and
# the rules summary printed as a booklet. Format: docs/rules-format.md
source: "{title} rules, draft 0.1"
components:
  - deck: Cards
    quote: "6 cards"
    total: 6

intro: "One paragraph: what the game is about and how you win."
sections:
  - title: Overview
    body:
      - "The deck holds {{{{ decks.Cards.count }}}} cards. Say here what players do and how they win."
  - title: Set-up
    body:
      - steps: ["Shuffle the deck.", "Deal 3 cards to each player."]
  - title: A turn
    body:
      - steps: ["Draw a card.", "Play a card and do what it says.", "Pass to the left."]
      - callout: {{kind: tip, text: "Write examples in call-outs like this one."}}
  - title: End of the game
    body:
      - "The game ends when the deck runs out; the player with the most :coins: wins."
player_aid:
  turn: ["Draw a card.", "Play a card.", "Pass to the left."]
  end: ["The deck runs out: most :coins: wins."]
"""

CARD_TEMPLATE = """\
# The card face: starts from the basic layout; override any element by its name,
# or add new ones. Every option: docs/templates.md
extends: basic/card
elements:
  - name: title
    font: Vollkorn            # any family in fonts/
"""

BACK_TEMPLATE = """\
extends: basic/back
"""


def slug_ok(name: str) -> bool:
    return bool(re.fullmatch(r"[a-z0-9][a-z0-9-]*", name))


def new_game(project: Path, name: str, size: str = "poker") -> list[Path]:
    """Write cards/<name>/ and templates/<name>/ in the project; refuse to overwrite."""
    if not slug_ok(name):
        raise CardgenError(Loc(name), f"'{name}' is not a usable game folder name; use lower-case letters, "
                                      f"digits and dashes, e.g. my-game")
    if size not in CARD_SIZES_MM:
        raise CardgenError(Loc(name), f"unknown card size '{size}' (named sizes: {', '.join(CARD_SIZES_MM)})")
    game_dir = project / "cards" / name
    tpl_dir = project / "templates" / name
    for d in (game_dir, tpl_dir):
        if d.exists():
            raise CardgenError(Loc(str(d)), "already exists; choose another name or remove it first")
    title = " ".join(w.capitalize() for w in name.split("-"))
    files = {
        game_dir / "game.yaml": GAME.format(title=title, size=size),
        game_dir / "cards.yaml": DECK.format(slug=name),
        game_dir / "rules.yaml": RULES.format(title=title),
        tpl_dir / "card.yaml": CARD_TEMPLATE,
        tpl_dir / "back.yaml": BACK_TEMPLATE,
    }
    for path, text in files.items():
        write_text(path, text)
    return list(files)
