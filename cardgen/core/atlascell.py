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
# The screen class (`render.raster`): a card side wanted at up to this many dpi without bleed
# (the gallery's 150, a poker deck's TTS cells at 164, `cardgen serve`'s grid, the contrast
# check) is rendered once (`screen_size`), and each size wanted is scaled from that render.
SCREEN_DPI = 170
SCREEN_MIN_DPI = 150      # a full sheet's cell at least this sharp is the screen class's render
PT_PER_IN = 72.0


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


def screen_size(width: float, height: float) -> tuple[int, int]:
    """The pixels of the screen class's one render of a card side `width` x `height` points
    (`render.raster.screen_spec`): a full sheet's cell (10 x 7; a poker card's is 409 x 573,
    164 dpi) when that is between `SCREEN_MIN_DPI` and `SCREEN_DPI`, so the cells of such
    sheets are that render as it is; else the trim at `SCREEN_DPI` (so too for a height of
    0, not known).  A function of the side's size alone."""
    mm = 25.4 / PT_PER_IN
    if width > 0 and height > 0:
        w, h = cell_size(MAX_COLS, MAX_ROWS, width * mm, height * mm)
        if SCREEN_MIN_DPI <= w * PT_PER_IN / width <= SCREEN_DPI:
            return w, h
    return max(1, round(width / PT_PER_IN * SCREEN_DPI)), max(1, round(height / PT_PER_IN * SCREEN_DPI))
