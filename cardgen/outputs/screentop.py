"""Screentop.gg assets: `build/<game>/screentop/`, grid images to upload as Screentop Assets,
each cell a variant of a component (docs/tables.md says what to do there: Screentop has no
import file and no API, so the components are set up by hand from these).

```
screentop/<deck>-faces-<n>-<hash>.jpg   a grid of the deck's distinct faces, read from the top left
screentop/<deck>-back-<hash>.jpg        its one back, or <deck>-backs-<n>: its backs in the same grid
screentop/<die>-faces-1-<hash>.jpg      a die's faces, cell 1 to 6 (as Screentop's dice read a grid)
screentop/contents.csv                  each cell: its image, the grid, its number from 1, the card, copies
```

The grids are the Tabletop Simulator atlases (`cardgen.outputs.tts_atlas`: at most 10 x 7 cells
and 4096 px a side, one cell per distinct face, in the card's proportions), without TTS's
hidden-card cell, in the `tts:` section's image format.
"""
from __future__ import annotations

import os
from pathlib import Path

from cardgen.outputs.base import Job, NoOptions, Output

COLUMNS = ("image", "columns", "rows", "cell", "deck", "kind", "card", "copies", "back_image", "back_cell")


class Screentop(Output[NoOptions]):
    summary = ("Grid images of every deck, token, tile, board and die, and a list of their cells, to upload as "
               "Screentop.gg assets (images in the `tts:` format).")
    files = "screentop/*.jpg, screentop/contents.csv"
    rasterizes = True

    def make(self, job: Job[NoOptions]) -> None:
        from cardgen.outputs.tts import Tts, table_inputs

        topts = job.options_of(Tts)
        part = job.part("", topts.format, topts.jpeg_quality, table_inputs(job))
        if not part.keep():
            with part:
                _assets(job, topts.format, topts.jpeg_quality)


def _assets(job: Job, fmt: str, quality: int) -> None:
    from cardgen.outputs import tts
    from cardgen.outputs.tabletopia import csv_table
    from cardgen.render import raster

    r = job.rendered
    root = Path(os.path.abspath(job.out_dir / "screentop"))
    job.staging.own_dir(root)
    plans, requests = tts._plan_decks(job, lambda deck: job.deck_options_of(tts.Tts, deck),
                                      kinds=("card", "token", "tile", "board", "die"), hidden_cell=False)

    def plan_images(cell_of):
        return tts._deck_images(r, plans, cell_of)

    _, images, deck_images = tts.make_images(job, requests, plan_images, job.out_dir / ".cache" / "tts",
                                             "png" if fmt == "png" else "jpg", fmt, quality)
    used: set[str] = set()
    rows = []
    for (deck, _, sheets), per_sheet in zip(plans, deck_images):
        has_back = deck.back is not None or bool(deck.backs)
        for sheet, (face_img, back_img, unique) in zip(sheets, per_sheet):
            used.add(face_img.out_name)
            back_name = back_img.out_name if back_img is not None and has_back and deck.kind != "die" else ""
            if back_name:
                used.add(back_name)
            for i, ((card, _, _), count) in enumerate(zip(sheet.entries, sheet.counts)):
                copies = deck.pieces if deck.kind == "die" else count
                rows.append((face_img.out_name, sheet.cols, sheet.rows, i + 1, deck.name, deck.kind, card.title,
                             copies, back_name, (i + 1 if unique else 1) if back_name else ""))
    for im in images:
        if im.out_name in used:
            job.staging.add_file(root / im.out_name, im.cache_path, raster.read_payload)
    if rows:
        job.staging.add(root / "contents.csv", csv_table(COLUMNS, rows))
