"""The outputs `cardgen build` makes: the one registry table.

Adding an output: one module with its `Output` subclass (`cardgen.outputs.base`) and one line
here; then `python -m cardgen.pipeline.reference --write` adds its section to docs/outputs.md
and its flags to the README.
The order is the order they are made in and listed in.

Start-up.  `cardgen --help` imports none of this (the build command makes its flags and
epilog from the table when it is used: `cardgen.cli.main._Build`).  `cardgen validate`
imports every output module, to check each output's section of game.yaml and of the deck
files against its `Options`.  So an output module keeps at its top level only what the table
needs, its `Output` class and its declarations, and imports the drawing, imaging and PDF code
it uses inside `make()` (tests/test_imports.py holds `validate` to that).  Importing all of
them cost `validate` about 12 ms of its 150 when this was written; in session 6 about 46 ms
on a loaded machine (the booklet's page composer, TTS and the tuck boxes the most), a tenth
of a small game's `validate` (docs/performance.md, "Start-up").  Splitting each output into a
declaration module and a module that makes it, or a table that imports an output only when a
game has its section, would save about half of that at the price of a second place to look;
neither is done, and a new output stays one module and one line here.
"""
from __future__ import annotations

from cardgen.outputs.base import Output
from cardgen.outputs.booklet import Booklet
from cardgen.outputs.calibration import Calibration
from cardgen.outputs.cards_pdf import CardsPdf
from cardgen.outputs.changes import ChangesPdf
from cardgen.outputs.dice import Dice
from cardgen.outputs.foldover import Foldover
from cardgen.outputs.gallery import Gallery
from cardgen.outputs.images import Images
from cardgen.outputs.player_aid import PlayerAid
from cardgen.outputs.png import Png
from cardgen.outputs.print_service import PrintService
from cardgen.outputs.print_sheets import PrintSheets
from cardgen.outputs.screentop import Screentop
from cardgen.outputs.tabletopia import Tabletopia
from cardgen.outputs.ttp import Ttp
from cardgen.outputs.tts import Tts
from cardgen.outputs.tuckboxes import Tuckboxes

OUTPUTS: dict[str, type[Output]] = {o.name: o for o in (
    PrintSheets,
    Foldover,
    ChangesPdf,
    Calibration,
    CardsPdf,
    Booklet,
    PlayerAid,
    Tts,
    Ttp,
    Tabletopia,
    Screentop,
    Png,
    PrintService,
    Gallery,
    Images,
    Tuckboxes,
    Dice,
)}
