"""The outputs `cardgen build` makes: the one registry table.

Adding an output: one module with its `Output` subclass (`cardgen.outputs.base`), one line
here, and its section in docs/outputs.md (`cardgen.outputs.docs.options_markdown()`).
The order is the order they are made in and listed in.
"""
from __future__ import annotations

from cardgen.outputs.base import Output
from cardgen.outputs.booklet import Booklet
from cardgen.outputs.calibration import Calibration
from cardgen.outputs.cards_pdf import CardsPdf
from cardgen.outputs.changes import ChangesPdf
from cardgen.outputs.foldover import Foldover
from cardgen.outputs.gallery import Gallery
from cardgen.outputs.player_aid import PlayerAid
from cardgen.outputs.png import Png
from cardgen.outputs.print_service import PrintService
from cardgen.outputs.print_sheets import PrintSheets
from cardgen.outputs.tts import Tts

OUTPUTS: dict[str, type[Output]] = {o.name: o for o in (
    PrintSheets,
    Foldover,
    ChangesPdf,
    Calibration,
    CardsPdf,
    Booklet,
    PlayerAid,
    Tts,
    Png,
    PrintService,
    Gallery,
)}
