"""Small games made in a temporary project, for the validator's tests."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

from cardgen.core.data import DATA

REPO = Path(__file__).resolve().parent.parent

FACE = """\
elements:
  - name: bg
    type: rect
    box: bleed
    fill: "#ffffff"
  - name: title
    type: text
    y: 5mm
    height: 10mm
    text: "{{ card.name }}"
    box: safe
  - name: body
    type: text
    when: card.text is defined
    y: 20mm
    height: 40mm
    text: "{{ card.text }}"
    box: safe
"""

ACTIONS = """\
deck: Action
template: g/face
cards:
  - name: Digging
    count: 6
  - name: Bribe
    count: 3
  - name: Theft
    count: 3
"""

RULES = """\
source: test document
components:
  - deck: Action
    quote: "6 Digging, 3 of each other"
    cards: {Digging: 6}
    others: 3
"""


def make_project(tmp_path: Path) -> Path:
    """A project folder (cards/, templates/) sharing the repository's fonts and icons."""
    (tmp_path / "cards").mkdir(exist_ok=True)
    (tmp_path / "templates").mkdir(exist_ok=True)
    for name in ("fonts", "art"):
        if not (tmp_path / name).exists():
            os.symlink(DATA / name, tmp_path / name)
    return tmp_path


def make_game(tmp_path: Path, files: dict[str, str] | None = None, *, slug: str = "g",
              templates: dict[str, str] | None = None, game: str = "title: Test game\n",
              rules: str | None = RULES, decks: dict[str, str] | None = None) -> Path:
    """A game `cards/<slug>/` with game.yaml, deck files and rules.yaml; templates in templates/<slug>/."""
    project = make_project(tmp_path)
    root = project / "cards" / slug
    root.mkdir(parents=True, exist_ok=True)
    (root / "game.yaml").write_text(game)
    for name, text in (decks if decks is not None else {"actions.yaml": ACTIONS}).items():
        (root / name).write_text(textwrap.dedent(text))
    if rules is not None:
        (root / "rules.yaml").write_text(textwrap.dedent(rules))
    tdir = project / "templates" / slug
    tdir.mkdir(parents=True, exist_ok=True)
    for name, text in (templates if templates is not None else {"face": FACE}).items():
        (tdir / f"{name}.yaml").write_text(textwrap.dedent(text))
    for name, text in (files or {}).items():
        p = project / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def said(root: Path, project: Path) -> list[str]:
    """What `cardgen validate` says of the game at `root`, its paths relative to `project`."""
    from cardgen.core.errors import Report
    from cardgen.pipeline.check import check_game

    report = Report()
    check_game(root, project, report)
    cwd = os.getcwd()
    os.chdir(project)
    try:
        return [str(d) for d in report.said()]
    finally:
        os.chdir(cwd)
