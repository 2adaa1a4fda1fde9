"""`cardgen new`: a self-contained game that builds and validates at once, in an empty folder
or inside a project, and keeps building after it is moved."""
from __future__ import annotations

import shutil

from conftest import in_dir
from pypdf import PdfReader


def test_new_game_in_an_empty_folder_builds_validates_and_moves(tmp_path):
    work = tmp_path / "empty"
    work.mkdir()
    code, out, err = in_dir(work, "new", "demo")
    assert code == 0, err
    assert out == ("created demo/ (game.yaml, cards.yaml, rules.yaml, templates/card.yaml and back.yaml); "
                   "next: cardgen build demo\n")
    assert sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file()) == [
        "demo/cards.yaml", "demo/game.yaml", "demo/rules.yaml", "demo/templates/back.yaml", "demo/templates/card.yaml"]

    code, out, _ = in_dir(work, "validate", "demo")
    assert code == 0
    assert out.splitlines()[-1] == "demo: 0 errors, 1 warning"          # the card with text to come

    code, out, err = in_dir(work, "build", "demo", "--only", "print", "--page", "a4")
    assert code == 0, err
    pdf = work / "demo" / "build" / "print-a4.pdf"                     # a game on its own: <game>/build/
    assert len(PdfReader(pdf).pages) == 4               # 6 poker cards: one sheet, + backs; 4 player aids: one more
    assert "Scout Ahead" in PdfReader(pdf).pages[0].extract_text()
    assert "Your turn" in PdfReader(pdf).pages[2].extract_text()
    assert out.splitlines()[0].startswith("demo: built in ")
    assert out.splitlines()[0].endswith(": 6 cards into demo/build/")
    assert out.splitlines()[1].split() == ["print-a4.pdf", "4", "pages,", "2", "sheets", "double-sided"]
    assert sorted(p.name for p in work.iterdir()) == ["demo"]          # nothing written beside it

    moved = tmp_path / "elsewhere" / "build" / "renamed"               # moved, renamed, under a `build` folder
    moved.parent.mkdir(parents=True)
    shutil.move(work / "demo", moved)
    shutil.rmtree(moved / "build")
    code, out, err = in_dir(tmp_path, "build", str(moved), "--only", "print", "--page", "a4")
    assert code == 0, err
    assert len(PdfReader(moved / "build" / "print-a4.pdf").pages) == 4
    code, out, err = in_dir(moved / "templates", "build", "--only", "cards")   # no argument: the game we are in
    assert code == 0, err
    assert (moved / "build" / "cards.pdf").is_file()


def test_new_game_inside_a_project_goes_to_cards(tmp_path):
    (tmp_path / "cardgen.yaml").write_text("")
    sub = tmp_path / "docs" / "notes"
    sub.mkdir(parents=True)
    code, out, err = in_dir(sub, "new", "my-game", "--size", "tarot")
    assert code == 0, err
    assert out.endswith("next: cardgen build my-game\n")
    assert (tmp_path / "cards" / "my-game" / "templates" / "card.yaml").is_file()
    code, out, err = in_dir(sub, "build", "my-game", "--only", "print", "--only", "booklet", "--page", "a4")
    assert code == 0, err
    reader = PdfReader(tmp_path / "build" / "my-game" / "print-a4.pdf")
    assert len(reader.pages) == 4       # tarot 2x2 on A4: 6 cards on 2 sheets, + backs; the player aids below the last 2
    booklet = PdfReader(tmp_path / "build" / "my-game" / "rules.pdf")
    assert "The deck holds 6 cards" in " ".join(p.extract_text() for p in booklet.pages).replace("\n", " ")


def test_new_refuses_to_overwrite_and_bad_names(tmp_path):
    assert in_dir(tmp_path, "new", "dup")[0] == 0
    code, _, err = in_dir(tmp_path, "new", "dup")
    assert code == 1 and err == ("dup: error: already exists; choose another name or remove it first\n")
    code, _, err = in_dir(tmp_path, "new", "My Game")
    assert code == 1 and "is not a usable game folder name; use lower-case letters" in err
