"""Every template option, file key and CLI flag is documented."""
from __future__ import annotations

import re

import click
import pytest

from cardgen.cli.main import main
from cardgen.schema.keys import CARD_RESERVED, DECK_KEYS, GAME_KEYS
from cardgen.layout.templates import COMMON_KEYS, TEMPLATE_KEYS, TYPE_KEYS
from conftest import REPO


def doc(name):
    return (REPO / "docs" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("key", sorted(set(TEMPLATE_KEYS) | set(COMMON_KEYS)
                                       | {k for keys in TYPE_KEYS.values() for k in keys}))
def test_template_option_documented(key):
    assert f"`{key}`" in doc("templates.md")


@pytest.mark.parametrize("key", sorted(set(GAME_KEYS) | set(DECK_KEYS) | set(CARD_RESERVED)))
def test_game_and_deck_keys_documented(key):
    assert f"`{key}`" in doc("games.md")


def _flags():
    for name, cmd in main.commands.items():
        for param in cmd.params:
            if isinstance(param, click.Option):
                for opt in param.opts:
                    if opt.startswith("--"):
                        yield name, opt


@pytest.mark.parametrize("command,flag", sorted(set(_flags())))
def test_cli_flag_documented(command, flag):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    docs = "".join(p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md"))
    assert re.search(rf"`{re.escape(flag)}\b", readme + docs), f"cardgen {command} {flag} is not documented"


def test_readme_quick_start_is_two_commands_and_ci_runs_the_test_one():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [ln for ln in block.strip().splitlines() if ln.strip()]
    assert len(commands) == 2
    assert "cardgen build" in commands[0] and "pytest" in commands[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci and commands[0] in ci
