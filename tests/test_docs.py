"""Every template option, file key and CLI flag is documented."""
from __future__ import annotations

import pathlib
import re

import click
import pytest
from conftest import REPO

from cardgen.cli.main import main
from cardgen.elements import ELEMENTS
from cardgen.pipeline import reference


def doc(name):
    return (REPO / "docs" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("block", sorted(reference.BLOCKS))
def test_generated_reference_is_current(block):
    """Every reference table in docs/ is exactly what the declarations say (regenerate with
    `python -m cardgen.pipeline.reference --write`)."""
    assert reference.current(REPO, block) == reference.generated(block)


@pytest.mark.parametrize("etype", sorted(ELEMENTS))
def test_every_element_option_has_a_row_with_its_default(etype):
    text = doc("templates.md").split(f"### `{etype}`", 1)[1].split("\n### ", 1)[0]
    common = doc("templates.md").split("<!-- cardgen:element-common -->", 1)[1].split("<!-- /cardgen", 1)[0]
    for key, (_, o) in ELEMENTS[etype].options().items():
        row = f"| `{key}` | "
        where = text if row in text else common
        assert row in where, f"{etype}.{key} has no row"
        line = where.split(row, 1)[1].split("\n", 1)[0]
        assert f"| {o.default_text()} | {o.doc} |" in line, line


def _flags():
    ctx = click.Context(main)
    for name in main.list_commands(ctx):        # (some commands' modules are imported when asked for)
        cmd = main.get_command(ctx, name)
        assert cmd is not None, name
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


def test_the_quick_subset_names_test_modules_that_exist():
    from conftest import QUICK

    here = pathlib.Path(__file__).resolve().parent
    assert QUICK and all((here / f"{name}.py").is_file() for name in QUICK)


def test_reference_check_fails_on_a_generated_block_edited_by_hand(tmp_path):
    """`python -m cardgen.pipeline.reference --check` (run by CI): 0 while every generated block
    of the README and docs/ is current; 1, naming the file, line and block, once one is edited."""
    import os
    import shutil
    import subprocess
    import sys

    shutil.copy(REPO / "README.md", tmp_path / "README.md")
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    env = dict(os.environ, PYTHONPATH=str(REPO))

    def check():
        r = subprocess.run([sys.executable, "-m", "cardgen.pipeline.reference", "--check"], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    assert check() == (0, f"{len(reference.BLOCKS)} generated blocks are current\n")
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    line = readme[:readme.index("<!-- cardgen:readme-build-flags -->")].count("\n") + 1
    (tmp_path / "README.md").write_text(readme.replace("| `--strict` |", "| `--strikt` |"), encoding="utf-8")
    assert check() == (1, f"README.md:{line}: generated block 'readme-build-flags' differs from what the "
                          f"declarations make (edited by hand, or a declaration changed); run `python -m "
                          f"cardgen.pipeline.reference --write` (edit the declaration, not the table)\n")
    text = (tmp_path / "docs" / "outputs.md").read_text(encoding="utf-8")
    (tmp_path / "docs" / "outputs.md").write_text(text.replace("<!-- /cardgen:outputs -->", ""), encoding="utf-8")
    code, out = check()
    assert code == 1 and "docs/outputs.md: no <!-- cardgen:outputs --> ... <!-- /cardgen:outputs --> block" in out
    (tmp_path / "docs" / "outputs.md").write_text(text, encoding="utf-8")
    assert reference.write(tmp_path) == ["README.md:readme-build-flags"]
    assert check() == (0, f"{len(reference.BLOCKS)} generated blocks are current\n")


def test_readme_flag_table_is_generated_and_has_every_build_flag():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = reference.current(REPO, "readme-build-flags")
    flags = [f for cmd, f in _flags() if cmd == "build"]
    assert flags and all(f"| `{f}" in table for f in flags), [f for f in flags if f"| `{f}" not in table]
    assert table in readme


def test_every_module_named_in_the_code_exists():
    """A `cardgen.x.y` named in a docstring or comment is a module of the package, or a name in one."""
    import importlib

    missing = []
    for path in sorted((REPO / "cardgen").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in re.findall(r"`(cardgen(?:\.\w+)+)", line):
                if name == "cardgen.yaml":          # (the project file, not a module)
                    continue
                parts = name.split(".")
                for k in range(len(parts), 0, -1):
                    try:
                        obj = importlib.import_module(".".join(parts[:k]))
                    except ImportError:
                        continue
                    for attr in parts[k:]:
                        obj = getattr(obj, attr, None)
                    break
                if obj is None:
                    missing.append(f"{path.relative_to(REPO)}:{number}: {name}")
    assert missing == []


def test_test_modules_import_their_helpers_as_plain_pytest_can():
    """The README's `pytest` puts tests/ on the path, not the project: a test module that
    imports `tests.something` stops the whole run at collection (it happened twice)."""
    import re
    from pathlib import Path

    here = Path(__file__).parent
    bad = [f"{p.name}:{i}" for p in sorted(here.glob("*.py"))
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if re.match(r"\s*(from tests[. ]|import tests\b)", line)]
    assert bad == []
