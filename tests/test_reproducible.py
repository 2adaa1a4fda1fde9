"""Reproducible builds: every output the same bytes whatever other outputs a build makes, its
PDF version the same in every file and enough for what it holds, and no date taken from the
clock or from the files' modification times (docs/performance.md#determinism)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, write
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.render import docinfo

GAMES = sorted(p.name for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file())


def _transparency(path) -> set[str]:
    """What in a PDF needs version 1.4: constant alpha below 1, soft masks, blend modes and
    transparency groups, looked for in every object (and every dictionary inside one)."""
    reader = PdfReader(path)
    found: set[str] = set()
    for generation in reader.xref.values():
        for num in generation:
            stack = [reader.get_object(IndirectObject(num, 0, reader))]
            while stack:
                obj = stack.pop()
                if isinstance(obj, ArrayObject):
                    stack += [x for x in obj if not isinstance(x, IndirectObject)]
                if not isinstance(obj, DictionaryObject):
                    continue
                stack += [v for v in obj.values() if not isinstance(v, IndirectObject)]
                for key in ("/ca", "/CA"):
                    if key in obj and float(obj[key]) < 1:
                        found.add(key)
                if obj.get("/SMask") not in (None, "/None"):
                    found.add("/SMask")
                if obj.get("/BM") not in (None, "/Normal", "/Compatible"):
                    found.add("/BM")
                if obj.get("/S") == "/Transparency":
                    found.add("group")
    return found


def _pdfs(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.pdf")}


def _outputs(folder) -> dict[str, bytes]:
    """Every file of an output folder but its caches and records (`.cache/`, `.cardgen/`, in a
    language's folder too: `de/.cache/`); the folder's own path (in the TTS object's `file://`
    links) as `<out>`."""
    files = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}
    return {rel: p.read_bytes().replace(str(folder).encode(), b"<out>") for rel, p in files.items()
            if not any(part.startswith(".") for part in rel.split("/"))}


# every output that writes PDFs, each made on its own (first in its build), against one build of
# every default output (both papers; tests/conftest.py `bundled_build`), where it comes after the
# others and reuses their card forms; for one game, the print-service files and the gallery too
ALONE = [("print", "tts"), ("cards",), ("foldover",), ("booklet", "player-aid", "calibration")]


@pytest.mark.parametrize("game", GAMES)
def test_every_output_is_the_same_whatever_else_the_build_makes(game, tmp_path, monkeypatch, bundled_build):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = REPO / "cards" / game
    full, _ = bundled_build(game)
    everything = _outputs(full)
    made = {name: data for name, data in everything.items() if name.endswith(".pdf")}
    pre = "en/" if game == "game-601" else ""           # (made in English and German: en/ and de/)
    assert f"{pre}print-letter.pdf" in made and f"{pre}print-a4.pdf" in made and f"{pre}cards.pdf" in made
    if pre:
        assert "de/print-letter.pdf" in made
    seen: set[str] = set()
    whole = game == "alien-conspiracy"
    for n, only in enumerate([*ALONE, ("pdfx", "gallery")] if whole else ALONE):
        out = tmp_path / f"alone{n}"
        build_game(root, REPO, BuildOptions(out=out, only=only, papers=("letter",)), Report())
        alone = _outputs(out / game)
        assert alone, only
        for name, data in alone.items():
            assert data == everything.get(name), \
                f"{game}: {name} made with --only {','.join(only)} differs from a full build"
            seen.add(name)
    assert {f"{pre}print-letter-foldover.pdf", f"{pre}manifest.json", f"{pre}tts/{game}.json"} <= seen
    if game == "alien-conspiracy":
        assert any(name.startswith("print-service/") for name in seen) and "index.html" in seen
    header = b"%PDF-1.4"
    assert header == docinfo.PDF_HEADER
    for name, data in made.items():
        assert data.startswith(header + b"\n"), f"{game}: {name} starts {data[:9]!r}"
    if game == "face-off":          # translucent panels on every face: in each PDF that shows a face
        for name in ("print-letter.pdf", "cards.pdf", "print-letter-foldover.pdf"):
            assert _transparency(full / name), name


def test_the_version_does_not_depend_on_the_outputs_made_before_in_the_process(tmp_path, monkeypatch,
                                                                              bundled_build):
    """Both papers (the second is made by a forked copy of the build replaying card forms) and a
    build whose form cache already holds every form: the same bytes, version 1.4."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    root = REPO / "cards" / "face-off"
    first, _ = bundled_build("face-off")        # every output, both papers
    again = tmp_path / "two"
    build_game(root, REPO, BuildOptions(out=again, only=("print",), papers=("a4",)), Report())
    build_game(root, REPO, BuildOptions(out=again, only=("cards", "print")), Report())   # forms from the cache
    two = _pdfs(again / "face-off")
    assert set(two) == {"cards.pdf", "print-letter.pdf", "print-a4.pdf"}
    one = _pdfs(first)
    for name in two:
        assert one[name] == two[name], name
        assert one[name].startswith(b"%PDF-1.4\n"), name
        assert _transparency(first / name), name


# a game with its own copy of the bundled Lato (as another name), then a game in the bundled Lato,
# in one process, as `cardgen build A B` and `serve` build them
IN_TURN = """
import sys
from pathlib import Path
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game
out = Path(sys.argv[1])
for game in sys.argv[2:]:
    build_game(Path(game), Path(game), BuildOptions(out=out, only=("print", "cards"), papers=("letter",)), Report())
"""


def test_a_game_is_the_same_whatever_game_the_process_built_before(tiny_game, tmp_path, monkeypatch):
    """ReportLab draws a font file it has met under another name as that first font, and
    cardgen names a second file of a name it has given otherwise: neither may change a game's
    bytes (the fonts' resource names come from their files' bytes, `rlcompat._font_ident`)."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    copy = tmp_path / "copy"
    write(copy / "game.yaml", "title: Copy\n")
    write(copy / "deck.yaml", "deck: Copied\ntemplate: face\nback: back\ncards:\n  - {name: Alpha}\n")
    face = "elements:\n  - {name: t, type: text, x: 5mm, y: 5mm, width: 50mm, height: 10mm, text: '{{ card.name }}', font: Plain}\n"
    write(copy / "templates" / "face.yaml", face)
    write(copy / "templates" / "back.yaml", face.replace("{{ card.name }}", "Back"))
    (copy / "fonts").mkdir()
    shutil.copy(REPO / "cardgen" / "data" / "fonts" / "Lato-Regular.ttf", copy / "fonts" / "Plain-Regular.ttf")
    root = tiny_game()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("SOURCE_DATE_EPOCH", None)
    for out, games in (("alone", [root]), ("after", [copy, root])):
        subprocess.run([sys.executable, "-c", IN_TURN, str(tmp_path / out), *map(str, games)], env=env,
                       check=True, capture_output=True, timeout=300)
    alone, after = _pdfs(tmp_path / "alone" / "tiny"), _pdfs(tmp_path / "after" / "tiny")
    assert set(alone) == {"cards.pdf", "print-letter.pdf"} == set(after)
    assert b"/BaseFont /AAAAAA+Lato-Regular" in alone["cards.pdf"]      # (the bundled Lato)
    for name in alone:
        assert after[name] == alone[name], name


# -- dates -------------------------------------------------------------------------------------

def test_print_service_files_of_two_copies_with_different_times_are_identical(tmp_path, monkeypatch):
    """Two copies of a game outside git, their files dated years apart: the same PDF/X bytes,
    dated 2000-01-01 (no `date:`, no commit, no SOURCE_DATE_EPOCH)."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    made = []
    for n, when in ((1, 1_000_000_000), (2, 1_700_000_000)):
        root = tmp_path / f"copy{n}" / "alien-conspiracy"
        shutil.copytree(REPO / "cards" / "alien-conspiracy", root)
        for path in [root, *root.rglob("*")]:
            os.utime(path, (when, when))
        out = tmp_path / f"out{n}"
        build_game(root, REPO, BuildOptions(out=out, only=("pdfx",), papers=("letter",)), Report())
        made.append(_pdfs(out / "alien-conspiracy"))
    assert made[0] and set(made[0]) == set(made[1])
    for name, data in made[0].items():
        assert data == made[1][name], name
        meta = PdfReader(tmp_path / "out1" / "alien-conspiracy" / name).metadata
        assert meta["/CreationDate"] == meta["/ModDate"] == "D:20000101000000+00'00'", name
        assert meta["/GTS_PDFXVersion"] == "PDF/X-1:2003"


def test_source_date_epoch_dates_the_print_service_files(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1714564800")
    out = tmp_path / "out"
    build_game(REPO / "cards" / "alien-conspiracy", REPO, BuildOptions(out=out, only=("pdfx",)), Report())
    pdfs = sorted((out / "alien-conspiracy" / "print-service").glob("*.pdf"))
    assert pdfs
    for pdf in pdfs:
        assert PdfReader(pdf).metadata["/CreationDate"] == "D:20240501120000+00'00'"
