"""Load and check one game: the one code path `cardgen validate` and `cardgen build` share.

Both load the game tolerantly (every file's problems, not just the first), run every check
over the same typed model, and lay out every card once.  `validate` prints what was found;
`build` stops on blocking errors and hands the laid-out game to the outputs.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cardgen.check.validate import run_checks
from cardgen.core.errors import CardgenError, Report
from cardgen.layout.engine import Rendered
from cardgen.load.game import Game, load_game


@dataclass
class Checked:
    game: Game | None            # None when game.yaml itself could not be read
    rendered: Rendered | None    # None when some card could not be laid out


def check_game(path: Path, project: Path, report: Report, sections: Mapping | None = None,
               deck_sections: Mapping | None = None) -> Checked:
    """Every problem of the game at `path` goes to `report`.  `sections`: the options each
    output reads from game.yaml (key -> declaration), `deck_sections` likewise for decks."""
    try:
        game = load_game(path, project, report, tolerant=True)
    except CardgenError as exc:
        report.extend(exc.diagnostics)
        return Checked(None, None)
    rendered = run_checks(game, report)
    return Checked(game, rendered)
