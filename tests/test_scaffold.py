"""`cardgen new`: a game that builds and validates at once, from any project folder."""
from __future__ import annotations

import os

from conftest import run_cli
from pypdf import PdfReader


def in_dir(path, *args):
    old = os.getcwd()
    os.chdir(path)
    try:
        return run_cli(*args)
    finally:
        os.chdir(old)


def test_new_game_builds_and_validates_in_an_empty_project(tmp_path):
    (tmp_path / "cards").mkdir()
    (tmp_path / "templates").mkdir()
    code, out, _ = in_dir(tmp_path, "new", "my-game", "--size", "tarot")
    assert code == 0
    assert "created cards/my-game/game.yaml" in out
    assert (tmp_path / "templates" / "my-game" / "card.yaml").is_file()

    code, out, err = in_dir(tmp_path, "build", "my-game", "--only", "print", "--only", "booklet", "--page", "a4")
    assert code == 0, err
    reader = PdfReader(tmp_path / "build" / "my-game" / "print-a4.pdf")
    assert len(reader.pages) == 4                        # tarot 2x2 on A4: 6 cards on 2 sheets, + backs
    assert "Scout Ahead" in reader.pages[0].extract_text()
    booklet = PdfReader(tmp_path / "build" / "my-game" / "rules.pdf")
    assert "The deck holds 6 cards" in " ".join(p.extract_text() for p in booklet.pages).replace("\n", " ")

    code, out, _ = in_dir(tmp_path, "validate", "my-game")
    assert code == 0
    assert out.splitlines()[-1] == "my-game: 0 errors, 1 warning"


def test_new_refuses_to_overwrite_and_bad_names(tmp_path):
    (tmp_path / "cards").mkdir()
    (tmp_path / "templates").mkdir()
    assert in_dir(tmp_path, "new", "dup")[0] == 0
    code, _, err = in_dir(tmp_path, "new", "dup")
    assert code == 1 and "cards/dup: error: already exists; choose another name or remove it first" in err
    code, _, err = in_dir(tmp_path, "new", "My Game")
    assert code == 1 and "is not a usable game folder name; use lower-case letters" in err
