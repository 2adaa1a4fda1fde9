"""The package's import graph: no cycles, and each stage imports only from stages before it.

Every module of `cardgen` is parsed with `ast` (nothing is imported), so imports inside
functions count as much as those at the top of a file.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import SOLID_TEMPLATE

PKG = Path(__file__).resolve().parent.parent / "cardgen"

# Stage sub-packages, earliest first: a module may import its own sub-package and those to
# its left, never one to its right.
LAYERS = ["core", "schema", "model", "load", "resources", "text", "render", "elements", "layout", "check",
          "outputs", "pipeline", "serve", "cli"]
# The top-level modules (`cardgen/__init__.py`, `cardgen/__main__.py`) sit above every stage.
TOP_RANK = len(LAYERS)


def module_name(path: Path, root: Path = PKG) -> str:
    """cardgen/render/draw.py -> cardgen.render.draw; a package's __init__.py -> the package."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover(root: Path = PKG) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def imports_of(module: str, path: Path, modules: set[str]) -> dict[str, int]:
    """The package modules `module` imports, each with the line of its first import.
    `import a.b.c` and `from a.b import c` name the deepest of a.b.c / a.b that is a module
    of the package; `from cardgen import x` names cardgen.x when that is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        while name and name not in modules:   # `import cardgen.a.b` where b is a name in a
            name = name.rpartition(".")[0]
        if name and name != module:
            found.setdefault(name, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "cardgen":
                    add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = (_resolve_relative(module, is_package, node.level, node.module) if node.level
                    else node.module or "")
            if base.split(".")[0] != "cardgen":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                add(sub if sub in modules else base, node.lineno)
    return found


def import_graph(root: Path = PKG) -> tuple[dict[str, dict[str, int]], dict[str, Path]]:
    paths = discover(root)
    names = set(paths)
    return {m: imports_of(m, p, names) for m, p in paths.items()}, paths


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One import cycle as a path [a, b, ..., a], or None. Deterministic: modules in name order."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        colour[m] = GREY
        stack.append(m)
        for dep in sorted(graph.get(m, {})):
            if colour.get(dep, BLACK) == GREY:
                return [*stack[stack.index(dep):], dep]
            if colour.get(dep) == WHITE:
                cycle = visit(dep)
                if cycle:
                    return cycle
        stack.pop()
        colour[m] = BLACK
        return None

    for m in sorted(graph):
        if colour[m] == WHITE:
            cycle = visit(m)
            if cycle:
                return cycle
    return None


def rank(module: str) -> int:
    """The layer of a module: its stage's index in LAYERS; top-level modules rank above all."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("__main__",):
        return TOP_RANK
    if parts[1] not in LAYERS:
        raise AssertionError(f"{module}: cardgen.{parts[1]} is in no layer; add it to LAYERS in {__file__}")
    return LAYERS.index(parts[1])


def layer_violations(graph: dict[str, dict[str, int]], paths: dict[str, Path], root: Path = PKG) -> list[str]:
    """`file:line: a imports b (...)` for every import of a later stage, in module order."""
    out = []
    for m in sorted(graph):
        for dep, line in sorted(graph[m].items()):
            if rank(dep) > rank(m):
                where = paths[m].relative_to(root.parent)
                out.append(f"{where}:{line}: {m} imports {dep} "
                           f"({_layer(dep)} comes after {_layer(m)})")
    return out


def _layer(module: str) -> str:
    r = rank(module)
    return "the top level" if r == TOP_RANK else f"cardgen.{LAYERS[r]}"


# -- the package ----------------------------------------------------------------------
def test_no_import_cycles():
    graph, _ = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_stages_import_only_earlier_stages():
    graph, paths = import_graph()
    problems = layer_violations(graph, paths)
    assert not problems, f"{len(problems)} import(s) against the layering {' < '.join(LAYERS)}:\n" + "\n".join(
        problems)


def test_every_subpackage_has_a_layer():
    stages = sorted(p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert [s for s in stages if s not in LAYERS] == []


# -- the checker itself, on a small package made here ---------------------------------
def _write(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "cardgen"
    for rel, text in files.items():
        f = pkg / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return pkg


def test_checker_resolves_every_import_form(tmp_path):
    pkg = _write(tmp_path, {
        "__init__.py": "",
        "core/__init__.py": "",
        "core/units.py": "X = 1\n",
        "core/errors.py": "",
        "render/__init__.py": "",
        "render/draw.py": (
            "from cardgen.core.units import X\n"      # from package.module import name
            "from cardgen.core import errors\n"       # from package import module
            "import cardgen.core.units as u\n"        # import package.module
            "def f():\n"
            "    from ..layout import engine\n"       # relative, inside a function
            "    from . import pdf\n"                 # relative sibling
        ),
        "render/pdf.py": "",
        "layout/__init__.py": "",
        "layout/engine.py": "",
    })
    graph, _ = import_graph(pkg)
    assert graph["cardgen.render.draw"] == {
        "cardgen.core.units": 1, "cardgen.core.errors": 2, "cardgen.layout.engine": 5,
        "cardgen.render.pdf": 6,
    }


def test_checker_reports_cycle_path_and_lazy_layer_breach(tmp_path):
    pkg = _write(tmp_path, {
        "__init__.py": "",
        "core/__init__.py": "",
        "core/a.py": "import cardgen.core.b\n",
        "core/b.py": "def g():\n    from cardgen.core import c\n",
        "core/c.py": "from cardgen.core.a import thing\n",
        "render/__init__.py": "",
        "render/draw.py": "def late():\n    import cardgen.pipeline.build\n",
        "pipeline/__init__.py": "",
        "pipeline/build.py": "from cardgen.render import draw\n",
    })
    graph, paths = import_graph(pkg)
    assert find_cycle(graph) == ["cardgen.core.a", "cardgen.core.b", "cardgen.core.c", "cardgen.core.a"]
    assert layer_violations(graph, paths, pkg) == [
        "cardgen/render/draw.py:2: cardgen.render.draw imports cardgen.pipeline.build"
        " (cardgen.pipeline comes after cardgen.render)"]


@pytest.mark.parametrize("module, expected", [("cardgen", TOP_RANK), ("cardgen.__main__", TOP_RANK),
                                              ("cardgen.core.units", 0), ("cardgen.cli.main", LAYERS.index("cli"))])
def test_rank(module, expected):
    assert rank(module) == expected


HEAVY = ("reportlab", "PIL", "pypdfium2", "pypdf", "jinja2", "svglib", "yaml", "openpyxl", "watchfiles")


def test_start_up_imports_no_heavy_library():
    """`cardgen --help` (which makes the build command's flags from every output's options)
    imports none of the drawing, imaging, template or YAML libraries: they cost start-up time
    and are imported where they are used."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from click.testing import CliRunner\n"
            "from cardgen.cli.main import main\n"
            "result = CliRunner().invoke(main, ['build', '--help'])\n"
            "assert result.exit_code == 0 and '--only' in result.output, result.output\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PKG.parent)
    assert out.stdout.strip() == "[]"


# -- what start-up keeps out (docs/design.md, "Start-up") --------------------------------------
# Libraries and cardgen modules that `cardgen validate` never needs for a game like the one
# `cardgen new` makes: drawing, imaging, PDF reading, SVG, spreadsheets, watching, the
# renderer, the build, atomic writes, the preview server, the progress bars; git (subprocess: a
# game that says its `version:`) and the bundled data found through importlib.resources (zipfile);
# the outputs whose section the game has not (the new game has a `booklet:` section); the element
# types its templates do not use (theirs are rect, text and image: `cardgen.elements`), the
# translation checks (a game in one language), the close-match search (no misspelt field); and
# HarfBuzz, once a process has shaped the game's text (the runs kept in the user's cache); and
# `xml.etree` (its SVG icons' references read with expat alone: `core.paths._parsed_svg`).
VALIDATE_KEEPS_OUT = ("fontTools", "pyphen", "uharfbuzz", "reportlab", "PIL", "pypdfium2", "pypdf", "svglib", "lxml", "openpyxl", "python_calamine",
                      "watchfiles", "logging", "csv", "ctypes", "subprocess", "zipfile", "importlib.resources",
                      "cardgen.render", "cardgen.load.sheets", "cardgen.outputs.tts", "cardgen.outputs.tuckboxes",
                      "cardgen.outputs.png", "cardgen.outputs.images",
                      "cardgen.pipeline.build", "cardgen.core.atomic", "cardgen.serve", "cardgen.cli.terminal",
                      "cardgen.outputs.album", "cardgen.model.dice",     # (a game without dice: not a die's net)
                      "cardgen.outputs.print_service",      # (nor a `pdfx:` section: its safe area the default)
                      "cardgen.elements.ellipse", "cardgen.elements.line", "cardgen.elements.polygon",
                      "cardgen.elements.icon", "cardgen.elements.stack", "cardgen.check.translations", "difflib",
                      "xml.etree")
# `cardgen --help` lists the commands: nor templates, YAML, fonts, layout, the outputs or the
# declarations (`cardgen.schema`: a flag made from one is made when its command is used) either.
HELP_KEEPS_OUT = (*VALIDATE_KEEPS_OUT, "jinja2", "yaml", "cardgen.outputs", "cardgen.pipeline.options", "cardgen.schema",
                  "cardgen.load.game", "cardgen.model", "cardgen.resources", "cardgen.text", "cardgen.elements", "cardgen.layout",
                  "cardgen.check")


def _imported(tmp_path: Path, *args: str, cache: Path) -> set[str]:
    """The modules a `cardgen ARGS` process (run in `tmp_path`, with `cache` as its user
    cache) has imported when it is done."""
    import os
    import subprocess
    import sys

    listing = tmp_path / "modules.txt"
    code = ("import sys\n"
            "from cardgen.cli.main import main\n"
            "try:\n"
            "    main(sys.argv[2:], standalone_mode=False)\n"
            "except SystemExit:\n"
            "    pass\n"
            "open(sys.argv[1], 'w').write('\\n'.join(sorted(sys.modules)))\n")
    env = dict(os.environ, PYTHONPATH=str(PKG.parent), XDG_CACHE_HOME=str(cache))
    subprocess.run([sys.executable, "-c", code, str(listing), *args], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    return set(listing.read_text().split("\n"))


def _kept_out(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of `modules` that are (or are inside) one of `names`."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_validate_imports_nothing_it_does_not_need(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(PKG.parent))
    subprocess.run([sys.executable, "-m", "cardgen", "new", "small"], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    cache = tmp_path / "cache"
    first = _imported(tmp_path, "validate", "small", cache=cache)
    assert "cardgen.check.validate" in first and "cardgen.layout.engine" in first       # it did check
    assert "uharfbuzz" in first             # (it shaped the game's text, and kept the runs)
    # a font measured for the first time on this computer is parsed by ReportLab's TrueType
    # parser (`cardgen.resources.fonts`), and nothing else of ReportLab is imported
    assert _kept_out(first, ("reportlab",)) and "reportlab.pdfbase.ttfonts" in first
    assert _kept_out(first, ("reportlab.pdfgen", "reportlab.graphics", "reportlab.platypus")) == []
    again = _imported(tmp_path, "validate", "small", cache=cache)
    assert "cardgen.check.validate" in again and "cardgen.elements.text" in again
    assert _kept_out(again, VALIDATE_KEEPS_OUT) == []
    # the commands `validate` is not (imported when used, or listed by `--help`: `cli.main._Main`)
    assert _kept_out(again, ("cardgen.cli.serve", "cardgen.cli.upload")) == []


def test_help_imports_no_library_and_no_output(tmp_path):
    found = _imported(tmp_path, "--help", cache=tmp_path / "cache")
    assert "click" in found
    assert _kept_out(found, HELP_KEEPS_OUT) == []


# A rebuild with nothing changed reads the last build's record and hashes the inputs: it loads
# no game, checks nothing, draws nothing, and imports no output's module (the build-wide flags
# alone are made when the command line names no output's flag), nor YAML or templates.
NOOP_KEEPS_OUT = ("yaml", "jinja2", "reportlab", "PIL", "uharfbuzz", "pypdfium2", "pypdf", "cardgen.load.game",
                  "cardgen.load.yamlsrc", "cardgen.check", "cardgen.pipeline.check", "cardgen.pipeline.validate",
                  "cardgen.layout", "cardgen.elements", "cardgen.text", "cardgen.model.ops", "cardgen.render.raster",
                  "cardgen.layout.manifest")


def test_rebuild_with_nothing_changed_imports_no_output_and_no_check(tmp_path, tiny_game):
    import os

    from cardgen.core.errors import Report
    from cardgen.load.project import game_project
    from cardgen.outputs.table import TABLE
    from cardgen.pipeline.build import BuildOptions, build_game

    game, out, elsewhere = tiny_game(), tmp_path / "out", tmp_path / "elsewhere"
    assert build_game(game, game_project(game), BuildOptions(out=out, only=("print",), papers=("a4",)), Report())
    elsewhere.mkdir()
    found = _imported(elsewhere, "build", str(game), "--only", "print", "--out", str(out), "--page=a4", "--",
                      cache=Path(os.environ["XDG_CACHE_HOME"]))     # (the build's: the same fonts' metrics)
    assert "cardgen.pipeline.build" in found and "cardgen.outputs" in found
    assert _kept_out(found, NOOP_KEEPS_OUT) == []
    assert _kept_out(found, tuple(row.module for row in TABLE.values())) == []
    # a card edited: the print sheets of a game without a player aid, and no other output (nor
    # the booklet's pages, which the player aid is drawn with)
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("Beta", "Gamma"))
    found = _imported(elsewhere, "build", str(game), "--only", "print", "--out", str(out), "--page=a4",
                      cache=Path(os.environ["XDG_CACHE_HOME"]))
    assert "cardgen.outputs.print_sheets" in found and "cardgen.pipeline.check" in found       # (it built)
    assert _kept_out(found, ("cardgen.outputs.booklet", "cardgen.outputs.player_aid", "cardgen.outputs.rulebook_pages",
                             "cardgen.outputs.tts", "cardgen.outputs.gallery", "cardgen.outputs.print_service")) == []
    # nor what only the `changes` output reads (the changes since a build or a git commit)
    assert _kept_out(found, ("cardgen.pipeline.changes", "cardgen.layout.changes")) == []


def test_an_edit_of_a_game_whose_templates_read_fields_imports_no_jinja(tmp_path, tiny_game):
    """A template value that only reads a field (`{{ card.color }}`) is evaluated, and judged
    for what it reads (`expr.reads_card`, `expr.data_read`), by its pattern: a one-card edit of
    a game whose templates have no other expression imports no Jinja (`layout.exprenv`); one
    with a filter (`| default(...)`) does."""
    import os

    from cardgen.core.errors import Report
    from cardgen.load.project import game_project
    from cardgen.pipeline.build import BuildOptions, build_game

    cache = Path(os.environ["XDG_CACHE_HOME"])
    for template, jinja in ((SOLID_TEMPLATE.replace(" | default('#3366cc')", ""), False), (SOLID_TEMPLATE, True)):
        game, out = tiny_game(template=template), tmp_path / f"out-{jinja}"
        assert build_game(game, game_project(game), BuildOptions(out=out, only=("print",), papers=("a4",)), Report())
        deck = game / "deck.yaml"
        deck.write_text(deck.read_text().replace("Beta", "Gamma"))
        found = _imported(tmp_path, "build", str(game), "--only", "print", "--out", str(out), "--page=a4", cache=cache)
        assert "cardgen.layout.expr" in found and "cardgen.outputs.print_sheets" in found      # (it built)
        assert bool(_kept_out(found, ("jinja2", "cardgen.layout.exprenv"))) is jinja


def test_an_edit_of_a_cards_colour_with_the_gallery_imports_no_jinja(tmp_path, tiny_game):
    """The gallery's page around its cards is kept (`album.gallery_page`), and a card whose
    colour changed keeps its tile and lightbox (they name its image by its place): its page is
    made without Jinja; a card renamed makes its tile again, with Jinja."""
    import os

    from cardgen.core.errors import Report
    from cardgen.load.project import game_project
    from cardgen.pipeline.build import BuildOptions, build_game

    cache = Path(os.environ["XDG_CACHE_HOME"])
    game, out = tiny_game(template=SOLID_TEMPLATE.replace(" | default('#3366cc')", "")), tmp_path / "out"
    assert build_game(game, game_project(game), BuildOptions(out=out, only=("gallery",)), Report())
    deck = game / "deck.yaml"
    for old, new, jinja in (("#00ff00", "#00ff01", False), ("Beta", "Gamma", True)):
        deck.write_text(deck.read_text().replace(old, new))
        found = _imported(tmp_path, "build", str(game), "--only", "gallery", "--out", str(out), cache=cache)
        assert "cardgen.outputs.gallery" in found and "cardgen.pipeline.check" in found        # (it built)
        assert bool(_kept_out(found, ("jinja2",))) is jinja, old


def test_importing_holds_off_the_collector_and_freezes_what_it_imported(tmp_path, monkeypatch):
    """`core.imports.importing()`: no cyclic collection during the block; the objects that exist
    after it imported a module are frozen (never walked again), and a block that imports
    nothing new freezes nothing (a second build in `--watch`); the collector runs again after."""
    import gc
    import sys

    from cardgen.core.imports import importing

    (tmp_path / "fresh_module_for_importing.py").write_text("VALUE = [object() for _ in range(1000)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    gc.unfreeze()
    try:
        with importing():
            assert not gc.isenabled()
            import fresh_module_for_importing
        assert gc.isenabled() and gc.get_freeze_count() > 1000
        gc.unfreeze()
        with importing():
            import fresh_module_for_importing  # noqa: F401
        assert gc.isenabled() and gc.get_freeze_count() == 0
        gc.disable()
        with importing():
            pass
        assert not gc.isenabled()       # (as it was)
        gc.enable()
        # an import made while a game is loaded freezes nothing (what is alive then may become garbage)
        (tmp_path / "fresh_module_mid_build.py").write_text("VALUE = [object() for _ in range(1000)]\n")
        with importing(freeze=False):
            assert not gc.isenabled()
            import fresh_module_mid_build  # noqa: F401
        assert gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
        gc.unfreeze()
        sys.modules.pop("fresh_module_for_importing", None)
        sys.modules.pop("fresh_module_mid_build", None)


def test_a_builds_own_imports_wait_for_the_collector(tmp_path, tiny_game):
    """A one-card edit's `cardgen build --only print` imports cardgen's modules within
    `importing()` (no collection runs; dataclasses' methods made quickly): the declarations the
    command line reads, the build's, the output's and the print sheets' drawing and PDF modules,
    the element types.  (Before `importing` exists: the package and `core.imports` alone.)"""
    import os
    import subprocess
    import sys

    from cardgen.core.errors import Report
    from cardgen.load.project import game_project
    from cardgen.pipeline.build import BuildOptions, build_game

    game, out = tiny_game(), tmp_path / "out"
    assert build_game(game, game_project(game), BuildOptions(out=out, only=("print",), papers=("a4",)), Report())
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("Beta", "Gamma"))
    listing = tmp_path / "outside.txt"
    code = ("import gc, runpy, sys\n"
            "outside = []\n"
            "class Watch:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if gc.isenabled() and name.startswith('cardgen') and name not in sys.modules:\n"
            "            outside.append(name)\n"
            "sys.meta_path.insert(0, Watch())\n"
            "listing, sys.argv = sys.argv[1], ['cardgen', *sys.argv[2:]]\n"
            "try:\n"
            "    runpy.run_module('cardgen', run_name='__main__', alter_sys=True)\n"
            "except SystemExit:\n"
            "    pass\n"
            "open(listing, 'w').write(' '.join(outside))\n")
    env = dict(os.environ, PYTHONPATH=str(PKG.parent))
    subprocess.run([sys.executable, "-c", code, str(listing), "build", str(game), "--only", "print", "--out", str(out),
                    "--page=a4"], cwd=tmp_path, env=env, check=True, capture_output=True)
    outside = listing.read_text().split()
    assert outside and set(outside) <= {"cardgen", "cardgen.__main__", "cardgen.core", "cardgen.core.imports"}, outside


def test_the_booklets_page_arithmetic_imports_no_pdf_reader():
    """The booklet works out its page count (`impose_booklet.padded`) on every build, also one
    that keeps the booklet as it was: importing pypdf for it cost a one-card edit of every
    output about 7 % of its CPU.  pypdf comes with imposing."""
    import subprocess
    import sys

    code = ("import sys; from cardgen.render.impose_booklet import padded; "
            "print(padded(5), 'pypdf' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["8", "False"]


ICON_TEMPLATE = SOLID_TEMPLATE + """
      - {name: mark, type: icon, icon: crystal-ball, x: 20mm, y: 40mm, width: 20mm, height: 20mm, color: "#ffffff"}
"""


def test_an_edit_draws_kept_icons_without_svglib(tmp_path, tiny_game):
    """The SVG forms the print-service file and the contrast check's renders drew are kept in
    the output folder: once an edit has kept them, the next edit of a card that shows an icon
    imports neither svglib nor ReportLab's graphics (a tenth of a second), for any output."""
    import os

    game, out = tiny_game(template=ICON_TEMPLATE), tmp_path / "out"
    args = ("build", str(game), "--only", "pdfx,gallery", "--out", str(out))
    cache = Path(os.environ["XDG_CACHE_HOME"])
    deck = game / "deck.yaml"
    for i, name in enumerate(("Gamma", "Delta", "Epsilon")):
        deck.write_text(deck.read_text().replace(("Beta", "Gamma", "Delta")[i], name))
        found = _imported(tmp_path, *args, cache=cache)
        assert "cardgen.outputs.print_service" in found and "cardgen.outputs.gallery" in found
    assert _kept_out(found, ("svglib", "reportlab.graphics")) == []
    assert (out / "tiny" / "print-service" / "things-pdfx.pdf").is_file()


def test_every_dataclass_has_a_docstring():
    """Python 3.11 words a docstring for a dataclass without one from its `__init__`'s signature
    when the class is made: `__init__` is then compiled at once (with `inspect.signature`),
    where a class with one has it compiled when first called, if ever (`core.dataclassfns`)."""
    missing = []
    for path in discover().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None and any(
                    ast.unparse(d).split("(")[0] in ("dataclass", "dataclasses.dataclass") for d in node.decorator_list):
                missing.append(f"{path.relative_to(PKG.parent)}:{node.lineno}: {node.name}")
    assert missing == []


def test_a_build_freezes_its_checked_game_while_the_outputs_are_made_and_unfreezes_it_after(tiny_game, tmp_path,
                                                                                             monkeypatch):
    """`core.imports.hold`: once the game is laid out and checked, what exists is frozen (in no
    generation the collector walks), so the outputs' full collections do not walk it again;
    `building()` unfreezes it when the build ends (a process that goes on collects the
    build's garbage), and a refused build freezes nothing it keeps."""
    import gc

    from cardgen.core.errors import CardgenError, Report
    from cardgen.pipeline import build as B

    game = tiny_game()
    walked: list[bool] = []
    made = B._make_outputs

    def watched(jobs, staging, ledger):
        decks = jobs[0][1].rendered.game.decks
        walked.append(any(obj is decks for obj in gc.get_objects()))
        made(jobs, staging, ledger)

    monkeypatch.setattr(B, "_make_outputs", watched)
    gc.unfreeze()
    B.build_game(game, game, B.BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert walked == [False] and gc.get_freeze_count() == 0
    (game / "deck.yaml").write_text("deck: [\n")
    with pytest.raises(CardgenError):
        B.build_game(game, game, B.BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert walked == [False] and gc.get_freeze_count() == 0
