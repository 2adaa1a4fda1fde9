"""cardgen as an installed tool: what it needs at run time ships in the package and is found
through importlib.resources; `--version`; the wheel's contents (slow: builds the wheel)."""
from __future__ import annotations

import fnmatch
import subprocess
import sys
import tomllib
import zipfile
from importlib.resources import files
from pathlib import Path

import pytest
from conftest import REPO, run_cli

import cardgen
from cardgen.core.data import DATA
from cardgen.resources.fonts import FontBook


def package_data() -> list[str]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["cardgen"]


def data_files() -> list[str]:
    root = Path(cardgen.__file__).parent
    return sorted(str(p.relative_to(root)) for p in (root / "data").rglob("*") if p.is_file()
                  and "__pycache__" not in p.parts)


def test_data_is_found_in_the_package_not_the_checkout():
    assert Path(str(files("cardgen") / "data")) == DATA
    assert DATA.parent == Path(cardgen.__file__).parent
    assert sorted(FontBook([DATA / "fonts"]).families) == ["CabinSketch", "DejaVuSans", "Lato", "LeckerliOne",
                                                           "TomsonTalks", "Vollkorn"]
    assert (DATA / "art" / "icons" / "coins.svg").is_file()
    assert (DATA / "templates" / "basic" / "card.yaml").is_file()
    for legal in ("fonts/README.md", "fonts/LICENSE-Lato.txt", "fonts/LICENSE-DejaVuSans.txt",
                  "art/icons/ATTRIBUTION.md"):
        assert (DATA / legal).is_file(), legal
    assert not (REPO / "fonts").exists() and not (REPO / "art").exists()     # one copy only


def test_every_bundled_icon_draws():
    """`check_art` trusts cardgen's own icons (so validating a game that uses only them does not
    import the SVG reader): each one must load and have a size."""
    from cardgen.resources.icons import check_art, load_svg

    icons = sorted((DATA / "art" / "icons").glob("*.svg"))
    assert len(icons) > 50
    for path in icons:
        drawing = load_svg(path)
        assert float(drawing.width) > 0 and float(drawing.height) > 0, path.name
        check_art(path)


def test_package_data_patterns_cover_every_data_file():
    patterns = package_data()
    missed = [f for f in data_files()
              if not any(fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in patterns)]
    assert missed == []
    assert len(data_files()) > 100


def test_version():
    code, out, _ = run_cli("--version")
    assert code == 0
    assert out == "cardgen, version 0.1.0\n"


@pytest.mark.slow
def test_the_wheel_holds_fonts_icons_and_templates(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
                   check=True, cwd=tmp_path)
    (wheel,) = tmp_path.glob("cardgen-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"cardgen/{f}" for f in data_files()} <= names
    assert not any(n.startswith(("cards/", "templates/", "fonts/", "art/")) for n in names)
