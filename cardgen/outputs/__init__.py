"""The outputs `cardgen build` makes: the one registry table.

Adding an output: one module with its `Output` subclass (`cardgen.outputs.base`) and one line
here; then `python -m cardgen.pipeline.reference --write` adds its section to docs/outputs.md
and its flags to the README.
The order is the order they are made in and listed in.

Start-up.  `cardgen --help` imports none of this (the build command makes its flags and
epilog from the table when it is used: `cardgen.cli.main._Build`).  `cardgen validate`
imports the outputs whose section the game has (game.yaml's or a deck file's), to check it
against their `Options`, and the print-service output (its safe margin is the readability
check's); `build` imports those it makes, and all of them only when its command line names
an output's flag or asks for `--help` (their flags are made then); a rebuild with nothing
changed imports none.  So an output module keeps at its top level only what the table needs,
its `Output` class and its declarations, and imports the drawing, imaging and PDF code it
uses inside `make()` (tests/test_imports.py holds `validate` and the rebuild to that).
Importing them all cost a small game's `validate` about 46 ms in session 6 (a loaded machine:
a tenth of it), and a rebuild with nothing changed a quarter of its time in session 7; the
table says each output's section and whether a build makes it by default, so that the others
are not imported.
"""
from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module

from cardgen.outputs.base import Output

# name: (module, class, its game.yaml section, whether a deck file may have the section too,
# whether a build makes it when `--only` is not given), in the order the outputs are made in
# and listed in.  A module is imported when its class is first asked for (`OUTPUTS[name]`):
# `cardgen validate` imports only the outputs whose section a game has, and `cardgen build
# --only print` only the print sheets' (`BuildOptions` reads the last column)
# (tests/test_outputs_registry.py holds this table to the classes).
_TABLE: dict[str, tuple[str, str, str | None, bool, bool]] = {
    "print": ("print_sheets", "PrintSheets", "print", False, True),
    "foldover": ("foldover", "Foldover", "foldover", False, True),
    "changes": ("changes", "ChangesPdf", None, False, False),
    "calibration": ("calibration", "Calibration", None, False, True),
    "cards": ("cards_pdf", "CardsPdf", None, False, True),
    "booklet": ("booklet", "Booklet", "booklet", False, True),
    "player-aid": ("player_aid", "PlayerAid", None, False, True),
    "tts": ("tts", "Tts", "tts", True, True),
    "ttp": ("ttp", "Ttp", None, False, False),
    "tabletopia": ("tabletopia", "Tabletopia", None, False, False),
    "screentop": ("screentop", "Screentop", None, False, False),
    "png": ("png", "Png", "png", False, False),
    "pdfx": ("print_service", "PrintService", "pdfx", False, True),
    "gallery": ("gallery", "Gallery", "gallery", False, True),
    "images": ("images", "Images", "images", False, False),
    "tuckboxes": ("tuckboxes", "Tuckboxes", "tuckboxes", False, True),
    "dice": ("dice", "Dice", None, False, True),
}


class Registry(MutableMapping[str, type[Output]]):
    """Output name -> its class, each output's module imported when it is first asked for."""

    def __init__(self, table: dict[str, tuple[str, str, str | None, bool, bool]]) -> None:
        self._table = dict(table)
        self._classes: dict[str, type[Output]] = {}

    def __getitem__(self, name: str) -> type[Output]:
        cls = self._classes.get(name)
        if cls is None:
            module, attr, _, _, _ = self._table[name]
            cls = self._classes[name] = getattr(import_module(f"cardgen.outputs.{module}"), attr)
        return cls

    def __setitem__(self, name: str, cls: type[Output]) -> None:
        """An output given as its class (a test's, say)."""
        self._table[name] = (cls.__module__, cls.__name__, cls.section, cls.DeckOptions is not None, cls.default)
        self._classes[name] = cls

    def __delitem__(self, name: str) -> None:
        del self._table[name]
        self._classes.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def sections(self) -> dict[str, tuple[str, bool]]:
        """game.yaml section -> (the output's name, whether a deck file may have it), without
        importing any output."""
        return {section: (name, deck) for name, (_, _, section, deck, _) in self._table.items() if section}

    def defaults(self) -> list[str]:
        """The outputs a build makes unless `--only` says which (`Output.default`), in order,
        without importing any output."""
        return [name for name, row in self._table.items() if row[4]]


OUTPUTS = Registry(_TABLE)
