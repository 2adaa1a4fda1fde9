"""The outputs `cardgen build` makes: their registry, read from the one table that declares
them (`cardgen/outputs/table.py`, which says how to add an output).

Start-up.  `cardgen --help` imports none of this (the build command makes its flags and
epilog from the table when it is used: `cardgen.cli.main._Build`).  `cardgen validate`
imports the outputs whose section the game has (game.yaml's or a deck file's), to check it
against their `Options`, and the print-service output (its safe margin is the readability
check's); `build` imports those it makes, and all of them only when its command line names
an output's flag or asks for `--help` (their flags are made then); a rebuild with nothing
changed imports none.  So an output module keeps at its top level only its `Output` class and
its declarations, and imports the drawing, imaging and PDF code it uses inside `make()`
(tests/test_imports.py holds `validate` and the rebuild to that).  Importing them all cost a
small game's `validate` about 46 ms in session 6 (a loaded machine: a tenth of it), and a
rebuild with nothing changed a quarter of its time in session 7; the table says each output's
section and whether a build makes it by default, so that the others are not imported.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from cardgen.core.plugins import Plugins
from cardgen.outputs.table import TABLE, Row

if TYPE_CHECKING:
    from cardgen.outputs.base import Output  # noqa: F401 (in `Registry`'s base, as a string)

__all__ = ["OUTPUTS", "Registry", "Row"]


class Registry(Plugins["Row", "type[Output]"]):
    """Output name -> its class, each output's module imported when it is first asked for.
    `registry[name] = Row(...)` adds an output (a test's, whose module is anywhere).  (The
    table itself is kept: a row added here names its class to `row_of`.)"""

    def where(self, row: Row) -> tuple[str, str]:
        return row.module, row.cls

    def __setitem__(self, name: str, row: Row) -> None:
        self._table[name] = row
        self._classes.pop(name, None)

    def __delitem__(self, name: str) -> None:
        del self._table[name]
        self._classes.pop(name, None)

    def sections(self) -> dict[str, tuple[str, bool]]:
        """game.yaml section -> (the output's name, whether a deck file may have it), without
        importing any output."""
        return {row.section: (name, row.deck) for name, row in self._table.items() if row.section}

    def defaults(self) -> list[str]:
        """The outputs a build makes unless `--only` says which, in order, without importing
        any output."""
        return [name for name, row in self._table.items() if row.default]


OUTPUTS = Registry(TABLE)
"""The outputs' registry drives the `build` command, option resolution, the docs, and the one
check path that `cardgen validate` and `cardgen build` share."""
