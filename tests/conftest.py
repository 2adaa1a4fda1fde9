"""Shared test helpers: small games written into tmp folders, and PDF geometry read back."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


SOLID_TEMPLATE = """
    description: a solid card in the card's colour, with its name
    elements:
      - name: bg
        type: rect
        box: bleed
        fill: "{{ card.color | default('#3366cc') }}"
      - name: title
        type: text
        x: 5mm
        y: 5mm
        width: 53.5mm
        height: 10mm
        text: "{{ card.name }}"
        size: 12
        color: "#ffffff"
"""

BACK_TEMPLATE = """
    elements:
      - name: bg
        type: rect
        box: bleed
        fill: "#aa2222"
"""


@pytest.fixture(autouse=True, scope="session")
def _user_cache(tmp_path_factory):
    """cardgen's user cache (font metrics, `core.digest.user_cache`) in a folder of the test
    session, for the tests and the processes they start, not in ~/.cache."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))


@pytest.fixture
def tiny_game(tmp_path):
    """A game folder with its own templates: one deck of poker cards."""

    def make(cards_yaml: str | None = None, template: str = SOLID_TEMPLATE, deck_extra: str = "", game_extra: str = ""):
        root = tmp_path / "tiny"
        write(root / "game.yaml", f"title: Tiny\n{game_extra}")
        write(root / "templates" / "tiny" / "face.yaml", template)
        write(root / "templates" / "tiny" / "back.yaml", BACK_TEMPLATE)
        cards_yaml = cards_yaml or """
            cards:
              - {name: Alpha, color: "#ff0000", count: 2}
              - {name: Beta, color: "#00ff00"}
        """
        write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + deck_extra
              + textwrap.dedent(cards_yaml).lstrip("\n"))
        return root

    return make


def run_cli(*args, cwd=None):
    """Run the CLI in-process; returns (exit_code, stdout, stderr)."""
    from click.testing import CliRunner

    from cardgen.cli.main import main

    runner = CliRunner()
    result = runner.invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def in_dir(path, *args):
    """`run_cli(*args)` with `path` as the current folder."""
    old = os.getcwd()
    os.chdir(path)
    try:
        return run_cli(*args)
    finally:
        os.chdir(old)
