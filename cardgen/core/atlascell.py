"""The cell of a Tabletop Simulator deck sheet: its size for a card size and grid.

A sheet is at most 10 x 7 cells and 4096 px a side, cells in the card's proportions and at
most 300 dpi (`cardgen.outputs.tts_atlas` plans the sheets).  Here, below the renderer and the outputs,
because the screen class's render of a card side is a full sheet's cell when that is about
screen resolution (`cardgen.render.raster.screen_spec`): those cells are then that render as
it is, never scaled.
"""
from __future__ import annotations

import math

MAX_COLS, MAX_ROWS, MAX_PX = 10, 7, 4096
MAX_CELL_DPI = 300               # no point in cells sharper than print


def cell_size(cols: int, rows: int, width_mm: float, height_mm: float) -> tuple[int, int]:
    """Largest cell in the card's proportions so the sheet stays within 4096 px a side,
    and not sharper than 300 dpi."""
    aspect = width_mm / height_mm
    w = min(MAX_PX // cols, math.floor(MAX_PX // rows * aspect), round(width_mm / 25.4 * MAX_CELL_DPI))
    while True:
        h = max(1, round(w / aspect))
        if h * rows <= MAX_PX and h <= round(height_mm / 25.4 * MAX_CELL_DPI) + 1:
            return w, h
        w -= 1
