"""Sheets used well, on the bundled games: the sheets each paper needs before the free room of
sheets is filled (`render.packing`) and after, exactly, read from the PDFs built; and the build
summary's note says how many sheets that saves."""
from __future__ import annotations

import pytest
from conftest import REPO
from pypdf import PdfReader

import cardgen.outputs.print_sheets as print_sheets
import cardgen.render.packing as packing
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render.pdf import one_sided

# game: {layout: (sheets before, sheets after)}, duplex (print-) and fold-over sheets; Vigilantes' include
# its map's 4 sheets (A3 across Letter or A4) and its dice's sticker sheet; Game 601 is built in English and
# German (`languages:`), each language's sheets in its own folder ("de/letter": build/game-601/de/print-letter.pdf)
SHEETS = {
    "alien-conspiracy": {"letter": (5, 3), "a4": (4, 3), "letter-foldover": (6, 5), "a4-foldover": (6, 5)},
    "alter-ego": {"letter": (25, 24), "a4": (24, 23), "letter-foldover": (48, 46), "a4-foldover": (48, 44)},
    "face-off": {"letter": (25, 24), "a4": (25, 24), "letter-foldover": (57, 54), "a4-foldover": (56, 53)},
    "game-601": {f"{lang}/{name}": sheets for lang in ("en", "de") for name, sheets in
                 {"letter": (8, 8), "a4": (8, 7), "letter-foldover": (16, 16), "a4-foldover": (15, 15)}.items()},
    "sheet-demo": {"letter": (4, 3), "a4": (4, 3), "letter-foldover": (6, 6), "a4-foldover": (6, 6)},
    "vigilantes": {"letter": (11, 8), "a4": (11, 8), "letter-foldover": (17, 11), "a4-foldover": (16, 10)},
}


@pytest.mark.parametrize("game", sorted(SHEETS))
def test_bundled_games_need_fewer_sheets(game, tmp_path, monkeypatch):
    before: list[int] = []
    seen: dict[str, tuple[int, int]] = {}
    tails: dict[str, int] = {}          # one-sided pages at the end (dice's stickers, a board's sheets)
    fill, plan = packing.fill, print_sheets._plan

    def counting_fill(pages, *args, **kw):
        before.append(len(pages))
        return fill(pages, *args, **kw)

    def recording_plan(job, layout, name, o):
        so, copies, pages, how = plan(job, layout, name, o)
        if job.out_dir != out / game:        # a language's folder
            name = f"{job.out_dir.name}/{name}"
        seen[name] = (before.pop(), len(pages))
        tails[name] = len(pages) - next((i + 1 for i in reversed(range(len(pages))) if not one_sided(*pages[i])), 0)
        saved = seen[name][0] - seen[name][1]
        assert (f"{saved} sheet{'s' if saved > 1 else ''} fewer: pieces fill the free room of other sheets" in how) \
            is (saved > 0), how
        return so, copies, pages, how

    monkeypatch.setattr(packing, "fill", counting_fill)
    monkeypatch.setattr(print_sheets, "_plan", recording_plan)
    out = tmp_path / "out"
    build_game(REPO / "cards" / game, REPO, BuildOptions(out=out, only=("print", "foldover")), Report())
    assert seen == SHEETS[game]
    for name, (_, after) in SHEETS[game].items():
        lang, _, paper = name.rpartition("/")
        pages = len(PdfReader(out / game / lang / f"print-{paper}.pdf").pages)
        assert pages == (after if name.endswith("foldover") else 2 * after - tails[name]), name
