"""`cardgen new`: a new game that builds and validates at once, to edit from there.

The game is self-contained (its templates are in its own `templates/`, extending the bundled
`basic/card` and `basic/back`), so it builds from anywhere, moved or zipped."""
from __future__ import annotations

import re
from pathlib import Path

from cardgen.core.atomic import write_text
from cardgen.core.errors import CardgenError, Loc
from cardgen.core.sizes import CARD_SIZES_MM
from cardgen.load.project import find_project

GAME = """\
# {title}: game-wide settings. Format: docs/games.md
title: {title}
subtitle: A new game
designer: ""
version: "0.1"
players: 2-4
play_time: 30 min
card_size: {size}          # poker, bridge, tarot, euro, mini-euro, mini-american, square, jumbo
# decks: [cards]          # the decks in print order; leave out to build every deck file here, by name
booklet:
  accent: "#35506b"
"""

DECK = """\
# One deck. Every card has a name and any fields you like; `count` is the number of copies.
deck: Cards
description: The main deck.
template: card              # templates/card.yaml in this folder
back: back                  # templates/back.yaml
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
    font: Vollkorn            # Lato, Vollkorn, CabinSketch, LeckerliOne, or a family in this game's fonts/
"""

BACK_TEMPLATE = """\
extends: basic/back
"""


def slug_ok(name: str) -> bool:
    return bool(re.fullmatch(r"[a-z0-9][a-z0-9-]*", name))


def new_game_dir(cwd: Path, name: str, size: str) -> Path:
    """Where `cardgen new NAME` writes: `cwd/NAME/`, or `cards/NAME/` of the project `cwd` is in;
    refuses a bad name, an unknown size, or a folder that exists."""
    if not slug_ok(name):
        raise CardgenError(Loc(name), f"'{name}' is not a usable game folder name; use lower-case letters, "
                                      f"digits and dashes, e.g. my-game")
    if size not in CARD_SIZES_MM:
        raise CardgenError(Loc(name), f"unknown card size '{size}' (named sizes: {', '.join(CARD_SIZES_MM)})")
    project = find_project(cwd)
    game_dir = (project / "cards" if project is not None else cwd) / name
    if game_dir.exists():
        raise CardgenError(Loc(str(game_dir)), "already exists; choose another name or remove it first")
    return game_dir


def new_game(cwd: Path, name: str, size: str = "poker") -> Path:
    """Write the game `name` into `cwd/name/`, or `cards/name/` of the project `cwd` is in;
    refuse to overwrite.  Returns the game folder."""
    game_dir = new_game_dir(cwd, name, size)
    title = " ".join(w.capitalize() for w in name.split("-"))
    files = {
        game_dir / "game.yaml": GAME.format(title=title, size=size),
        game_dir / "cards.yaml": DECK.format(),
        game_dir / "rules.yaml": RULES.format(title=title),
        game_dir / "templates" / "card.yaml": CARD_TEMPLATE,
        game_dir / "templates" / "back.yaml": BACK_TEMPLATE,
    }
    for path, text in files.items():
        write_text(path, text)
    return game_dir
