"""The outputs `cardgen build` makes: the one table that declares them (read through
`cardgen.outputs.OUTPUTS`, which says why start-up reads it).

Adding an output: one module with its `Output` subclass (`cardgen.outputs.base`) and one row
here; then `python -m cardgen.pipeline.reference --write` adds its section to docs/outputs.md
and its flags to the README.  The row is the one place that says the output's name (the
`--only` word), where its class is, its game.yaml section, whether a deck file may have that
section and whether a build makes it by default: the class reads them from its row when it is
made (`Output.__init_subclass__`) and declares none of them itself.  The order is the order
they are made in and listed in.  This module imports nothing (the outputs' base reads it).
"""
from __future__ import annotations


class Row:
    """One output in the table: its module (`.tts`: in this package) and class, its game.yaml
    section, whether a deck file may have the section too (the class then declares its
    `DeckOptions`), and whether a build makes it when `--only` is not given.  (A plain class:
    the table is read at every start-up.)"""

    __slots__ = ("cls", "deck", "default", "module", "section")

    def __init__(self, module: str, cls: str, section: str | None = None, *, deck: bool = False,
                 default: bool = True) -> None:
        self.module = "cardgen.outputs" + module if module.startswith(".") else module
        self.cls, self.section, self.deck, self.default = cls, section, deck, default


TABLE: dict[str, Row] = {
    "print": Row(".print_sheets", "PrintSheets", "print"),
    "foldover": Row(".foldover", "Foldover", "foldover"),
    "changes": Row(".changes", "ChangesPdf", default=False),
    "calibration": Row(".calibration", "Calibration"),
    "cards": Row(".cards_pdf", "CardsPdf"),
    "booklet": Row(".booklet", "Booklet", "booklet"),
    "player-aid": Row(".player_aid", "PlayerAid"),
    "tts": Row(".tts", "Tts", "tts", deck=True),
    "ttp": Row(".ttp", "Ttp", default=False),
    "tabletopia": Row(".tabletopia", "Tabletopia", default=False),
    "screentop": Row(".screentop", "Screentop", default=False),
    "png": Row(".png", "Png", "png", default=False),
    "pdfx": Row(".print_service", "PrintService", "pdfx"),
    "gallery": Row(".gallery", "Gallery", "gallery"),
    "images": Row(".images", "Images", "images", default=False),
    "tuckboxes": Row(".tuckboxes", "Tuckboxes", "tuckboxes"),
    "dice": Row(".dice", "Dice"),
}




def row_of(module: str, cls: str) -> tuple[str, Row] | None:
    """The output whose row names this class (`Output.__init_subclass__`), if any."""
    for name, row in TABLE.items():
        if row.cls == cls and row.module == module:
            return name, row
    return None
