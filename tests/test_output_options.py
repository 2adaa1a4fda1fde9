"""Every declared option of every output, in game.yaml's section and in a deck file's, fed a
wrong type, an out-of-range value and a misspelling: the exact message at its file:line:col,
from `cardgen validate` (the same check the build runs first)."""
from __future__ import annotations

import pytest
from test_elements import out_of_range, wrong_type
from test_validate import run
from vgame import ACTIONS, make_game

from cardgen.outputs import OUTPUTS
from cardgen.schema.core import Kind, Text


def wrong(kind: Kind) -> tuple[str, str] | None:
    if type(kind).__name__ == "Offset":
        return "sideways", "must be X,Y in millimetres, e.g. 0.5,-1, got 'sideways'"
    if isinstance(kind, Text) and kind.nonempty:
        return "''", "must not be empty"
    return wrong_type(kind)


def cases():
    for name, out in OUTPUTS.items():
        for where, decl in (("game", out.Options), ("deck", out.DeckOptions)):
            if decl is None or not out.section:
                continue
            for key, (_, o) in decl.options().items():
                for label, make in (("type", wrong), ("range", out_of_range)):
                    case = make(o.kind)
                    if case is not None:
                        yield pytest.param(where, out.section, key, *case, id=f"{name}-{where}-{key}-{label}")


def _write(tmp_path, where: str, section: str, body: str):
    """(file, line of the option, what the message starts with: a deck's names the deck)"""
    if where == "game":
        make_game(tmp_path, game=f"title: Test game\n{section}:\n{body}")
        return "cards/g/game.yaml", 3, f"{section}: "
    make_game(tmp_path, decks={"actions.yaml": ACTIONS + f"{section}:\n{body}"})
    return "cards/g/actions.yaml", ACTIONS.count("\n") + 2, f"Action: {section}: "


@pytest.mark.parametrize("where,section,key,value,message", list(cases()))
def test_every_output_option_wrong_value(tmp_path, where, section, key, value, message):
    file, line, who = _write(tmp_path, where, section, f"  {key}: {value}\n")
    col = len(key) + 5 + (1 if message.startswith("item ") else 0)
    assert run(tmp_path, "g") == (1, [f"{file}:{line}:{col}: error: {who}`{key}` {message}",
                                      "g: 1 error, 0 warnings"])


def test_every_output_option_has_a_case():
    covered = {(p.values[0], p.values[1], p.values[2]) for p in cases()}
    for out in OUTPUTS.values():
        for where, decl in (("game", out.Options), ("deck", out.DeckOptions)):
            if decl is not None and out.section:
                for key in decl.options():
                    assert (where, out.section, key) in covered, f"{out.name} {where} {key}"


@pytest.mark.parametrize("where,section,key", sorted({(p.values[0], p.values[1], p.values[2]) for p in cases()}))
def test_misspelled_output_option(tmp_path, where, section, key):
    typo = key + key[-1]
    file, line, who = _write(tmp_path, where, section, f"  {typo}: 1\n")
    code, out = run(tmp_path, "g")
    assert code == 1
    assert out[0] == f"{file}:{line}:3: error: {who}unknown key '{typo}'; did you mean '{key}'?"
