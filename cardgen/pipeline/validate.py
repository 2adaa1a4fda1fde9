"""`cardgen validate`: every problem of each game, through the same check path as the build
(`cardgen.pipeline.check.check_game`), as text lines or JSON."""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cardgen.check.components import COUNT_CODES
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.load.game import resolve_games
from cardgen.pipeline.check import check_game


@dataclass
class GameResult:
    """One game's diagnostics from `validate`."""

    name: str
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")

    def summary(self) -> str:
        e, w = self.errors, self.warnings
        return f"{self.name}: {e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}"


def game_dirs(args: list[str], project: Path | None) -> list[Path]:
    """Game folders for the arguments: game names, game folders, or any file inside a game folder."""
    out: list[Path] = []
    rest: list[str] = []
    for a in args:
        p = Path(a)
        if p.is_file() and p.name != "game.yaml":
            for parent in p.resolve().parents:
                if (parent / "game.yaml").is_file():
                    out.append(parent)
                    break
            else:
                raise CardgenError(Loc(a), "this file is not inside a game folder (no game.yaml above it)")
        else:
            rest.append(a)
    if rest or not out:
        out.extend(resolve_games(rest, project))
    unique: list[Path] = []
    for p in out:
        if p.resolve() not in [q.resolve() for q in unique]:
            unique.append(p)
    return unique


def validate_game(path: Path, project: Path, deep: bool = False, sets: Sequence[str] = ()) -> GameResult:
    """Every problem of the game in `path`, in every language game.yaml declares (each checked
    as it is built: docs/languages.md; a problem of them all said once); `deep`: the checks
    measured on the rendered cards too; `sets`: game.yaml values set as `build --set` does."""
    report = Report()
    checked = check_game(path, project, report, deep=deep, sets=sets)
    for lang in checked.game.languages[1:] if checked.game is not None else ():
        check_game(path, project, report, deep=deep, lang=lang, sets=sets)
    return GameResult(path.resolve().name, report.said())


def validate(args: list[str], project: Path) -> list[GameResult]:
    return [validate_game(path, project) for path in game_dirs(args, project)]


def exit_code(results: list[GameResult], strict: bool) -> int:
    if any(r.errors for r in results):
        return 1
    if strict and any(r.warnings for r in results):
        return 1
    return 0


def as_text(results: list[GameResult]) -> str:
    lines: list[str] = []
    for r in results:
        lines.extend(str(d) for d in r.diagnostics)
    lines.extend(r.summary() for r in results)
    return "\n".join(lines)


def as_json(results: list[GameResult], strict: bool) -> str:
    doc = {
        "diagnostics": [{"game": r.name, **d.as_dict()} for r in results for d in r.diagnostics],
        "summary": {
            "games": [{"game": r.name, "errors": r.errors, "warnings": r.warnings} for r in results],
            "errors": sum(r.errors for r in results),
            "warnings": sum(r.warnings for r in results),
            "strict": strict,
            "exit_code": exit_code(results, strict),
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def count_errors(report: Report) -> list[Diagnostic]:
    """The count errors of a report (soft in a build)."""
    return [d for d in report.errors if d.code in COUNT_CODES]
