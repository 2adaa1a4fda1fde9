"""File references: everything a game names is resolved and confined by one module,
`cardgen.load.refs`; what game.yaml names becomes typed references (`FileRef`) when the game
loads.  Like tests/test_imports.py, the package's code is scanned with `ast` (nothing is
imported), so a new kind of file that calls the confinement functions itself fails here."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from conftest import write

from cardgen.core.errors import CardgenError, Loc
from cardgen.load import refs
from cardgen.model.refs import FileRef
from cardgen.pipeline.check import load_game

PKG = Path(__file__).resolve().parent.parent / "cardgen"
# the functions of cardgen.core.paths that decide whether a file may be read
CONFINING = {"allowed_roots", "check_ref", "confine", "find_confined", "svg_problem", "is_inside"}
# the module that keeps those rules, and the one resolver that calls them
ALLOWED = {"core/paths.py", "load/refs.py"}
WHERE = ("files may only come from the game folder, the project's templates/, art/, fonts/ and layouts/ folders, "
         "or cardgen's bundled ones")


def confinement_calls(path: Path) -> list[str]:
    """`line: what` for every way `path` reaches a confinement function of cardgen.core.paths:
    importing one by name, importing the module itself (then `paths.confine(...)` would go
    unseen), or importing it inside a function (counted the same)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "cardgen.core.paths":
            found += [f"{node.lineno}: imports {a.name}" for a in node.names if a.name in CONFINING or a.name == "*"]
        elif isinstance(node, ast.ImportFrom) and node.module == "cardgen.core":
            found += [f"{node.lineno}: imports cardgen.core.paths" for a in node.names if a.name == "paths"]
        elif isinstance(node, ast.ImportFrom) and node.level and node.module in ("paths", "core.paths"):
            found.append(f"{node.lineno}: imports paths relatively")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: imports {a.name}" for a in node.names if a.name == "cardgen.core.paths"]
    return found


def offenders(root: Path = PKG) -> dict[str, list[str]]:
    out = {}
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel not in ALLOWED and (calls := confinement_calls(p)):
            out[rel] = calls
    return out


def test_only_the_resolver_confines():
    assert offenders() == {}


def test_the_scan_finds_a_module_that_confines_by_itself(tmp_path):
    """The scan itself: each way of reaching a confinement function is found."""
    pkg = tmp_path / "cardgen"
    write(pkg / "load" / "refs.py", "from cardgen.core.paths import confine\n")
    write(pkg / "outputs" / "fonts_for_languages.py", """
        from cardgen.core.paths import PathRefused, read_regular

        def font(ref, roots):
            from cardgen.core.paths import find_confined
            return find_confined(ref, [], roots, "font")
        """)
    write(pkg / "render" / "art.py", "from cardgen.core import paths\n")
    write(pkg / "layout" / "art.py", "import cardgen.core.paths\n")
    write(pkg / "elements" / "ok.py", "from cardgen.core.paths import PathRefused, is_regular\n")
    assert offenders(pkg) == {"layout/art.py": ["1: imports cardgen.core.paths"],
                              "outputs/fonts_for_languages.py": ["4: imports find_confined"],
                              "render/art.py": ["1: imports cardgen.core.paths"]}


@pytest.fixture
def game(tmp_path: Path) -> Path:
    root = tmp_path / "g"
    write(root / "game.yaml", """
        title: G
        decks: [a, b]
        icons: {star: stars/gold, bad: ../../x}
        """)
    for name in "ab":
        write(root / f"{name}.yaml", f"deck: {name.upper()}\ntemplate: basic/solid\ncards:\n  - name: X\n")
    write(root / "rules.yaml", "components: []\n")
    return root


def test_what_game_yaml_names_is_resolved_once_at_load(game):
    with pytest.raises(CardgenError) as exc:
        load_game(game, game)
    assert [(d.loc.line, d.loc.col, d.message) for d in exc.value.diagnostics] == [
        (3, 32, "icon alias 'bad' file '../../x' climbs out of its folder with '..'; files may only come from the "
                "game folder, the project's templates/, art/, fonts/ and layouts/ folders, or cardgen's bundled "
                "ones")]
    write(game / "game.yaml", "title: G\ndecks: [a, b]\nicons: {star: stars/gold}\n")
    g = load_game(game, game)
    real = game.resolve()
    assert g.roots == refs.roots_for(game, game)
    assert g.roots[0] == real
    assert [(f.kind, f.path, f.as_written) for f in g.files] == [
        ("game", real / "game.yaml", "game.yaml"), ("deck", real / "a.yaml", "a.yaml"),
        ("deck", real / "b.yaml", "b.yaml"), ("rules", real / "rules.yaml", "rules.yaml")]
    assert [f.loc for f in g.files] == [Loc(str(game / n), 1) for n in ("game.yaml", "a.yaml", "b.yaml", "rules.yaml")]
    assert g.icon_aliases == {"star": FileRef("icon", None, "stars/gold", Loc(str(game / "game.yaml"), 3, 15))}


def test_a_deck_file_linked_from_inside_is_referenced_by_its_real_place(game):
    write(game / "game.yaml", "title: G\ndecks: [a, b]\n")
    (game / "decks").mkdir()
    os.replace(game / "b.yaml", game / "decks" / "b.yaml")
    (game / "b.yaml").symlink_to(Path("decks") / "b.yaml")
    g = load_game(game, game)
    deck = g.files[2]
    assert (deck.kind, deck.path, deck.found, deck.as_written) == (
        "deck", game.resolve() / "decks" / "b.yaml", game / "b.yaml", "b.yaml")
    assert g.decks[1].file == game / "b.yaml"       # messages still name the file as the game lists it


def test_the_resolver_refuses_and_finds(tmp_path):
    inside, outside = tmp_path / "in", tmp_path / "out"
    write(inside / "art" / "a.png", "x")
    write(outside / "s.png", "x")
    (inside / "art" / "link.png").symlink_to(outside / "s.png")
    roots = (inside.resolve(),)
    found = refs.find("a", [inside / "art"], roots, "art", "image", suffixes=(".svg", ".png"))
    assert (found.path, found.as_written, found.kind) == (inside.resolve() / "art" / "a.png", "a", "art")
    assert refs.find("none", [inside / "art"], roots, "art").path is None
    with pytest.raises(refs.PathRefused) as out:
        refs.find("link.png", [inside / "art"], roots, "art", "image")
    assert str(out.value) == f"image 'link.png' resolves outside the allowed folders; {WHERE}"
    with pytest.raises(refs.PathRefused) as out:
        refs.find("../out/s.png", [inside], None, "art", "image")     # without roots: still checked as written
    assert str(out.value) == f"image '../out/s.png' climbs out of its folder with '..'; {WHERE}"
    unconfined = refs.find("link", [inside / "art"], None, "art", suffixes=(".png",))
    assert unconfined.path == inside / "art" / "link.png"
    with pytest.raises(refs.PathRefused) as out:      # a game made without loading has no roots: nothing is read
        refs.find("a", [inside / "art"], (), "art", "image", suffixes=(".png",))
    assert str(out.value) == f"image 'a' resolves outside the allowed folders; {WHERE}"


def test_checking_a_game_checks_each_svg_icon_once(tmp_path, monkeypatch):
    # the new game's cards and its rules both show :coins:; the rulebook's icons are looked up
    # in the check's own book (`rulebook_problems(game, res.icons)`), so its SVG is read once
    from cardgen.cli.new import new_game
    from cardgen.core import paths
    from cardgen.core.errors import Report
    from cardgen.pipeline.check import check_game

    checked: list[str] = []
    real = paths.svg_problem

    def counting(path, roots, _seen=None):
        checked.append(Path(path).name)
        return real(path, roots, _seen)

    monkeypatch.setattr(paths, "svg_problem", counting)
    game = new_game(tmp_path, "demo")
    report = Report()
    check_game(game, tmp_path, report)
    assert not report.errors
    assert "coins.svg" in checked and sorted(checked) == sorted(set(checked))
