"""`cardgen build` runs the validator first: count errors build anyway (and say so), --strict
refuses, errors that make rendering impossible stop the build with nothing written."""
from __future__ import annotations

import os

from click.testing import CliRunner
from vgame import ACTIONS, make_game

from cardgen.cli.main import main


def build(tmp_path, *args):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(main, ["build", "g", "--only", "cards", *args])
    finally:
        os.chdir(old)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r.exit_code, r.output.splitlines()


MISMATCH = "cards/g/rules.yaml:5:22: error: Action: rules say 6 x Digging (rules.yaml:5), deck has 5 (actions.yaml:5)"


def test_count_error_builds_anyway(tmp_path):
    make_game(tmp_path, decks={"actions.yaml": ACTIONS.replace("count: 6", "count: 5")})
    code, out = build(tmp_path)
    assert code == 0
    assert out[0] == MISMATCH
    assert out[1].startswith("g: built in ")
    assert out[-1] == ("g: built despite 1 count error (designers print unfinished playtests); --strict refuses")
    assert (tmp_path / "build/g/cards.pdf").is_file()


def test_strict_refuses_count_errors(tmp_path):
    make_game(tmp_path, decks={"actions.yaml": ACTIONS.replace("count: 6", "count: 5")})
    code, out = build(tmp_path, "--strict")
    assert code == 1
    assert out == ["cards/g/game.yaml: error: --strict: not building while there are problems", MISMATCH,
                   "g: not built; the previous output is unchanged"]
    assert not (tmp_path / "build").exists()


def test_unrenderable_stops_the_build(tmp_path):
    make_game(tmp_path, decks={"actions.yaml": ACTIONS.replace("g/face", "g/fase").replace("count: 6", "count: 5")})
    code, out = build(tmp_path)
    assert code == 1
    assert out == [
        "cards/g/actions.yaml:2:11: error: unknown template 'g/fase'; did you mean 'g/face'?; create "
        "templates/g/fase.yaml",
        MISMATCH,
        "g: not built; the previous output is unchanged"]
    assert not (tmp_path / "build").exists()


def test_every_deck_problem_at_once(tmp_path):
    """The loader reports the problems of every deck file together, not just the first."""
    make_game(tmp_path, decks={"actions.yaml": ACTIONS.replace("count: 6", "count: six"),
                               "events.yaml": "deck: Event\ntemplate: g/face\ncards:\n  - {name: E, count: -2}\n"})
    code, out = build(tmp_path)
    assert code == 1
    assert out == [
        "cards/g/actions.yaml:5:12: error: card 'Digging': count must be a whole number (0 to 10000), got 'six'",
        # the build checks what `cardgen validate` checks, count errors included
        "cards/g/events.yaml:1:7: error: deck 'Event' (events.yaml:1) is not in the rules' component list "
        "(rules.yaml:2); add an entry for it (with `silent:` if the document gives no count)",
        "cards/g/events.yaml:4:22: error: card 'E': count must not be negative, got -2",
        "g: not built; the previous output is unchanged"]
