"""Where cardgen finds its work (`cardgen.load.project`), and which deck files a game builds."""
from __future__ import annotations

import shutil

import pytest
from conftest import in_dir, write

from cardgen.core.data import DATA
from cardgen.core.errors import CardgenError, Report
from cardgen.load.project import find_project, game_project, output_dir, resolve_games
from cardgen.pipeline.check import load_game

GAME = "title: G\n"
DECK = "deck: {name}\ntemplate: basic/card\ncards:\n  - {{name: A, count: 2}}\n"


def game(root, decks=("a",), game_yaml=GAME):
    write(root / "game.yaml", game_yaml)
    for d in decks:
        write(root / f"{d}.yaml", DECK.format(name=d.upper()))
    return root


def test_a_project_is_found_upwards_by_cardgen_yaml_or_cards_and_templates(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "cardgen.yaml").write_text("")
    deep = tmp_path / "p" / "build" / "x" / "build"          # folders named build change nothing
    deep.mkdir(parents=True)
    assert find_project(deep) == (tmp_path / "p").resolve()
    old = tmp_path / "q"
    (old / "cards").mkdir(parents=True)
    (old / "templates").mkdir()
    assert find_project(old / "cards") == old.resolve()
    (tmp_path / "r" / "cards").mkdir(parents=True)          # cards/ alone is not a project
    assert find_project(tmp_path / "r") in (None, *tmp_path.resolve().parents)


def test_a_games_project_and_output_folder(tmp_path):
    p = tmp_path / "p"
    (p / "templates").mkdir(parents=True)
    inside = game(p / "cards" / "g")
    assert game_project(inside) == p.resolve()
    assert output_dir(inside, game_project(inside)) == p.resolve() / "build" / "g"
    alone = game(tmp_path / "build" / "alone")                # a game on its own, under a `build` folder
    assert game_project(alone) == alone.resolve()
    assert output_dir(alone, game_project(alone)) == alone / "build"
    assert output_dir(alone, alone, tmp_path / "out") == tmp_path / "out" / "alone"
    beside = game(p / "games" / "h")                        # beside cards/, not in it: not the project's
    assert game_project(beside) == beside.resolve()
    (p / "cardgen.yaml").write_text("")                      # ... unless the project says so
    assert game_project(beside) == p.resolve()


def test_resolve_games_inside_a_project_a_game_folder_and_outside(tmp_path):
    p = tmp_path / "p"
    (p / "templates").mkdir(parents=True)
    g1, g2 = game(p / "cards" / "g1"), game(p / "cards" / "g2")
    assert resolve_games([], p, cwd=p) == [g1, g2]                      # the project: every game
    assert resolve_games([], p, cwd=g2 / "templates") == [g2.resolve()]  # inside a game: that game
    assert resolve_games(["g1"], p, cwd=p) == [g1]
    alone = game(tmp_path / "alone")
    assert resolve_games([str(alone)], None, cwd=tmp_path) == [alone]   # a bare game path
    assert resolve_games([str(alone / "game.yaml")], p, cwd=p) == [alone]
    with pytest.raises(CardgenError) as exc:
        resolve_games([], None, cwd=tmp_path)
    assert str(exc.value.diagnostics[0]) == (f"{tmp_path}: error: no game here (a game is a folder with a game.yaml); "
                                             f"give a game folder, or start one with `cardgen new NAME`")
    with pytest.raises(CardgenError) as exc:
        resolve_games(["g11"], p, cwd=p)
    assert "no game called 'g11'; did you mean 'g1'? (games: g1, g2; or give a path to a game folder)" in str(
        exc.value.diagnostics[0])


def test_a_project_game_moved_out_builds_on_its_own(tmp_path):
    p = tmp_path / "p"
    (p / "templates" / "shared").mkdir(parents=True)
    write(p / "templates" / "shared" / "face.yaml", "extends: basic/card\n")
    g = game(p / "cards" / "g")
    write(g / "a.yaml", "deck: A\ntemplate: own/face\ncards: [{name: X}]\n")
    write(g / "templates" / "own" / "face.yaml", "extends: basic/card\n")
    assert in_dir(p, "build", "g", "--only", "cards")[0] == 0
    assert (p / "build" / "g" / "cards.pdf").is_file()
    moved = tmp_path / "build" / "zip" / "g"
    shutil.copytree(g, moved)
    code, _, err = in_dir(tmp_path, "build", str(moved), "--only", "cards")
    assert code == 0, err
    assert (moved / "build" / "cards.pdf").is_file()
    assert not (DATA / "build").exists() and not (DATA.parent / "cards").exists()   # nothing in the installation


def test_every_yaml_and_yml_deck_file_is_found_in_name_order(tmp_path):
    root = game(tmp_path / "g", decks=("b", "a"))
    write(root / "c.yml", DECK.format(name="C"))
    write(root / "rules.yml", "components: []\n")           # not decks: game, rules, cardgen files
    write(root / "cardgen.yaml", "")
    write(root / "templates" / "t.yaml", "elements: []\n")  # subfolders hold no decks
    write(root / "build" / "old.yaml", "x: 1\n")
    g = load_game(root, root, Report())
    assert [d.name for d in g.decks] == ["A", "B", "C"]


def test_an_unlisted_deck_file_is_a_warning_naming_it(tmp_path):
    root = game(tmp_path / "g", decks=("a", "b", "c"), game_yaml="title: G\ndecks: [c, a.yaml]\n")
    report = Report()
    g = load_game(root, root, report)
    assert [d.name for d in g.decks] == ["C", "A"]
    assert [str(d) for d in report.items] == [
        f"{root / 'b.yaml'}:1: warning: deck file b.yaml is not built: game.yaml's `decks:` does not list it; "
        f"add 'b' to `decks:` (or move the file out of g/)"]
    code, out, _ = in_dir(root, "validate")
    assert code == 0
    assert "b.yaml:1: warning: deck file b.yaml is not built" in out
