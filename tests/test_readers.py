"""Every reader of a game's files is bounded while it reads and turns whatever a bad file does
into one located error (docs/security.md, "Limits" and "Readers"): spreadsheets (CSV, XLSX,
ODS), YAML, fonts, SVG and images."""
from __future__ import annotations

import os
import sys
import tracemalloc
import zipfile
from pathlib import Path

import fontfiles
import pytest
from conftest import write
from sheetfiles import MANIFEST, write_ods, write_xlsx

from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.load import sheets

DECK_LOC = Loc("d.yaml", 3, 8)


def read(folder: Path, value, report: Report | None = None):
    return sheets.read_cards(value, folder / "d.yaml", DECK_LOC, report or Report())


def message(folder: Path, value) -> str:
    with pytest.raises(CardgenError) as info:
        read(folder, value)
    return str(info.value).replace(str(folder) + os.sep, "")


# -- CSV: the sheet limits, kept while reading ---------------------------------------------------

def test_a_csv_past_the_column_limit_is_refused_at_the_cell(tmp_path):
    write(tmp_path / "wide.csv", "name,text\n" + "A," + ",".join(["x"] * 5000) + "\n")
    assert message(tmp_path, "wide.csv") == (
        "wide.csv:2:5001: error: wide.csv has a value in column 5001 (more than 1,000 columns; limit "
        "CARDGEN_MAX_SHEET_COLUMNS); cardgen reads at most 50,000 rows, 1,000 columns and 2,000,000 cells: delete "
        "what the cards do not need (empty rows and columns far out count too)")


def test_a_csv_past_the_row_and_text_limits_stops_there(tmp_path, monkeypatch):
    monkeypatch.setattr(sheets, "MAX_SHEET_ROWS", 100)
    write(tmp_path / "long.csv", "name\n" + "".join(f"c{i}\n" for i in range(10_000)))
    assert message(tmp_path, "long.csv").startswith(
        "long.csv:101:1: error: long.csv has more than 100 rows (limit CARDGEN_MAX_SHEET_ROWS); ")
    monkeypatch.setattr(sheets, "MAX_SHEET_TEXT", 1000)
    write(tmp_path / "text.csv", "name,text\n" + "".join(f"c{i},{'y' * 100}\n" for i in range(100)))
    assert message(tmp_path, "text.csv") == (
        "text.csv:11:2: error: text.csv has more than 1,000 characters of text in its cells (limit "
        "CARDGEN_MAX_SHEET_TEXT); shorten them")


def test_trailing_empty_csv_cells_do_not_count_as_columns(tmp_path):
    write(tmp_path / "commas.csv", "name,text" + "," * 3000 + "\nA,b" + "," * 3000 + "\n")
    assert [dict(c) for c in read(tmp_path, "commas.csv")] == [{"name": "A", "text": "b"}]


@pytest.mark.parametrize("encoding", ["rot13", "zlib_codec", "base64", "hex", "unicode_escape", "bz2", "nonsense"])
def test_only_text_encodings_are_accepted_for_a_csv(tmp_path, encoding):
    write(tmp_path / "c.csv", "name\nA\n")
    assert message(tmp_path, {"file": "c.csv", "encoding": encoding}) == (
        f"d.yaml:3:8: error: unknown encoding '{encoding}' for c.csv: write a text encoding such as utf-8, utf-16, "
        f"cp1252 or latin-1")


@pytest.mark.parametrize("encoding, data", [
    ("utf-16", "name,text\nÄ,é\n".encode("utf-16")),
    ("cp1252", "name,text\nÄ,é\n".encode("cp1252")),
    ("latin-1", "name,text\nÄ,é\n".encode("latin-1")),
    ("Windows-1252", "name,text\nÄ,é\n".encode("cp1252")),
    ("utf-8-sig", "name,text\nÄ,é\n".encode("utf-8-sig")),
])
def test_text_encodings_are_read(tmp_path, encoding, data):
    (tmp_path / "c.csv").write_bytes(data)
    assert [dict(c) for c in read(tmp_path, {"file": "c.csv", "encoding": encoding})] == [{"name": "Ä", "text": "é"}]


def test_a_csv_that_is_a_pipe_or_a_loop_is_one_line(tmp_path):
    os.mkfifo(tmp_path / "pipe.csv")
    (tmp_path / "loop.csv").symlink_to(tmp_path / "loop.csv")
    (tmp_path / "nothing.csv").symlink_to(tmp_path / "gone.csv")
    (tmp_path / "folder.csv").mkdir()
    assert message(tmp_path, "pipe.csv") == ("d.yaml:3:8: error: spreadsheet 'pipe.csv' is not a regular file (a "
                                             "pipe, device or socket), so cardgen does not read it")
    assert message(tmp_path, "loop.csv") == ("d.yaml:3:8: error: spreadsheet 'loop.csv' is a link that leads back to "
                                             "itself; replace it with the file")
    assert message(tmp_path, "nothing.csv") == ("d.yaml:3:8: error: spreadsheet 'nothing.csv' is a link to nothing; "
                                                "replace it with the file")
    assert message(tmp_path, "folder.csv") == "d.yaml:3:8: error: spreadsheet 'folder.csv' is a folder, not a file"
    assert message(tmp_path, "none.csv") == "d.yaml:3:8: error: spreadsheet 'none.csv' not found next to d.yaml"


# -- workbooks -----------------------------------------------------------------------------------

def _xlsx_with(tmp_path: Path, name: str, replace: dict[str, bytes], extra: dict[str, tuple[bytes, int]] | None = None):
    """A workbook written by openpyxl, with some parts replaced (or added, with a compression)."""
    src = tmp_path / "src.xlsx"
    write_xlsx(src, {"Cards": [["name", "text"], ["A", "a"], ["B", "b"]]})
    out = tmp_path / name
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.get(info.filename, zin.read(info)))
        for part, (data, level) in (extra or {}).items():
            zout.writestr(zipfile.ZipInfo(part), data, zipfile.ZIP_DEFLATED, compresslevel=level)
    return out


def test_shared_strings_that_inflate_are_refused_before_opening(tmp_path):
    huge = b'<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' + \
        b"<si><t>" + b"x" * 50_000_000 + b"</t></si></sst>"
    _xlsx_with(tmp_path, "bomb.xlsx", {}, {"xl/sharedStrings.xml": (huge, 9)})
    tracemalloc.start()
    try:
        text = message(tmp_path, "bomb.xlsx")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.startswith("d.yaml:3:8: error: bomb.xlsx has a part (xl/sharedStrings.xml) that unpacks to "
                           "50,000,")
    assert "more than 200 times its packed size (limit CARDGEN_MAX_ZIP_RATIO)" in text
    assert peak < 5_000_000


def test_a_shared_string_shown_in_many_cells_counts_each_time(tmp_path, monkeypatch):
    monkeypatch.setattr(sheets, "MAX_SHEET_TEXT", 100_000)
    write_xlsx(tmp_path / "many.xlsx", {"Cards": [["name", "text"]] + [[f"c{i}", "y" * 1000] for i in range(200)]})
    assert message(tmp_path, "many.xlsx") == (
        "many.xlsx: Cards!B101: error: many.xlsx has more than 100,000 characters of text in its cells (limit "
        "CARDGEN_MAX_SHEET_TEXT); shorten them")


def test_entities_behind_a_long_comment_are_refused(tmp_path):
    hidden = (b'<?xml version="1.0"?><!--' + b"x" * 70_000 + b'--><!DOCTYPE sst [<!ENTITY a "aaaa">]>'
              b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&a;</t></si></sst>')
    _xlsx_with(tmp_path, "ent.xlsx", {}, {"xl/sharedStrings.xml": (hidden, 6)})
    assert message(tmp_path, "ent.xlsx") == (
        "d.yaml:3:8: error: ent.xlsx has a part (xl/sharedStrings.xml) that does not start its XML within the first "
        "64 KB (a DOCTYPE could hide after that); save the file again")


def test_entities_in_a_workbook_are_refused(tmp_path):
    laughs = (b'<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
              b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&b;</t></si></sst>')
    _xlsx_with(tmp_path, "ent.xlsx", {}, {"xl/sharedStrings.xml": (laughs, 6)})
    assert message(tmp_path, "ent.xlsx") == (
        "d.yaml:3:8: error: ent.xlsx has a part (xl/sharedStrings.xml) that declares a DOCTYPE or XML entities, which "
        "cardgen does not read; save the file again")


@pytest.mark.parametrize("part, data", [
    ("xl/workbook.xml", b"<workbook"),
    ("xl/worksheets/sheet1.xml", b"<worksheet xmlns='http://schemas.openxmlformats.org/spreadsheetml/2006/main'>"
                                 b"<sheetData><row><c r='A1' t='s'><v>99</v></c></row></sheetData></worksheet>"),
    ("xl/worksheets/sheet1.xml", b"\x00\x01garbage"),
    ("[Content_Types].xml", b"<Types/>"),
])
def test_a_malformed_workbook_is_a_located_error(tmp_path, part, data):
    _xlsx_with(tmp_path, "bad.xlsx", {part: data})
    text = message(tmp_path, "bad.xlsx")
    assert text.startswith("d.yaml:3:8: error: cannot read bad.xlsx as an Excel workbook (")
    assert text.endswith("); save it again as .xlsx")


def test_a_formula_without_a_saved_value_is_a_warning_at_its_cell(tmp_path):
    write_xlsx(tmp_path / "f.xlsx", {"Cards": [["name", "power"], ["A", "=1+1"], ["B", 3]]})
    report = Report()
    cards = read(tmp_path, "f.xlsx", report)
    assert [dict(c) for c in cards] == [{"name": "A"}, {"name": "B", "power": 3}]
    assert [str(d).replace(str(tmp_path) + os.sep, "") for d in report.items] == [
        "f.xlsx: Cards!B2: warning: f.xlsx: this cell has a formula but no saved value (the file was not saved by a "
        "spreadsheet program that calculates), so cardgen reads it as empty; open the file in Excel or LibreOffice "
        "and save it again"]


ODS_HEAD = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
            'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
            'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
            'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
            '<table:table table:name="Cards"><table:table-row><table:table-cell office:value-type="string">'
            '<text:p>name</text:p></table:table-cell></table:table-row>')
ODS_TAIL = '</table:table></office:spreadsheet></office:body></office:document-content>'


def _ods(path: Path, rows: str, compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("META-INF/manifest.xml", MANIFEST)
        z.writestr("content.xml", ODS_HEAD + rows + ODS_TAIL)
    return path


@pytest.mark.parametrize("rows, why", [
    # valued cells with no text (a number in an attribute), repeated: 40 million cells
    ('<table:table-row table:number-rows-repeated="40000"><table:table-cell office:value-type="float" '
     'office:value="1" table:number-columns-repeated="1000"/></table:table-row>',
     "has more than 2,000,000 cells (limit CARDGEN_MAX_SHEET_CELLS)"),
    # empty rows far down, then one value: the reader holds the whole rectangle
    ('<table:table-row table:number-rows-repeated="1000000"><table:table-cell/></table:table-row>'
     '<table:table-row><table:table-cell office:value-type="float" office:value="1"/></table:table-row>',
     "has a value in row 1,000,002 (more than 50,000 rows; limit CARDGEN_MAX_SHEET_ROWS)"),
    ('<table:table-row><table:table-cell table:number-columns-repeated="16000"/><table:table-cell '
     'office:value-type="float" office:value="1"/></table:table-row>',
     "has a value in column 16,001 (more than 1,000 columns; limit CARDGEN_MAX_SHEET_COLUMNS)"),
    # a negative repeat count does not subtract cells
    ('<table:table-row table:number-rows-repeated="-5"><table:table-cell office:value-type="float" '
     'office:value="1" table:number-columns-repeated="-7"/></table:table-row>'
     '<table:table-row table:number-rows-repeated="40000"><table:table-cell office:value-type="float" '
     'office:value="1" table:number-columns-repeated="100"/></table:table-row>',
     "has more than 2,000,000 cells (limit CARDGEN_MAX_SHEET_CELLS)"),
])
def test_ods_repeats_are_counted_before_the_reader_expands_them(tmp_path, monkeypatch, rows, why):
    import python_calamine

    _ods(tmp_path / "rep.ods", rows)
    monkeypatch.setattr(python_calamine, "load_workbook", lambda *a: pytest.fail("the reader was reached"))
    assert message(tmp_path, "rep.ods").startswith(f"d.yaml:3:8: error: rep.ods {why}")


def test_ods_text_repeated_counts_each_time(tmp_path, monkeypatch):
    monkeypatch.setattr(sheets, "MAX_SHEET_TEXT", 1_000_000)
    _ods(tmp_path / "t.ods", '<table:table-row table:number-rows-repeated="1000"><table:table-cell '
                             'office:value-type="string" table:number-columns-repeated="2"><text:p>' + "x" * 1000 +
                             '</text:p></table:table-cell></table:table-row>')
    assert message(tmp_path, "t.ods") == (
        "d.yaml:3:8: error: t.ods has more than 1,000,000 characters of text in its cells, repeated cells counted "
        "each time (limit CARDGEN_MAX_SHEET_TEXT); shorten them")


def test_a_panic_in_the_ods_reader_is_a_located_error(tmp_path, monkeypatch):
    """pyo3's PanicException derives from BaseException, not Exception."""
    import python_calamine

    class PanicException(BaseException):
        pass

    def panic(*a):
        raise PanicException("called `Result::unwrap()` on an `Err` value")

    write_ods(tmp_path / "p.ods", {"Cards": [["name"], ["A"]]})
    monkeypatch.setattr(python_calamine, "load_workbook", panic)
    assert message(tmp_path, "p.ods") == (
        "d.yaml:3:8: error: cannot read p.ods as an OpenDocument spreadsheet (PanicException: called "
        "`Result::unwrap()` on an `Err` value); save it again as .ods or .xlsx")

    def interrupt(*a):
        raise KeyboardInterrupt

    monkeypatch.setattr(python_calamine, "load_workbook", interrupt)
    with pytest.raises(KeyboardInterrupt):
        read(tmp_path, "p.ods")


def test_entities_in_an_ods_are_refused(tmp_path):
    content = ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>' + ODS_HEAD.split("?>", 1)[1]
               + "<table:table-row><table:table-cell office:value-type='string'><text:p>&a;</text:p>"
               "</table:table-cell></table:table-row>" + ODS_TAIL)
    with zipfile.ZipFile(tmp_path / "e.ods", "w") as z:
        z.writestr("content.xml", content)
    assert message(tmp_path, "e.ods") == (
        "d.yaml:3:8: error: e.ods has a part (content.xml) that declares a DOCTYPE or XML entities, which cardgen "
        "does not read; save the file again")


# -- cardgen new --from ------------------------------------------------------------------------------

def test_new_from_a_header_with_a_line_separator_writes_a_template_that_parses(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from vgame import make_project

    from cardgen.cli.main import main
    from cardgen.pipeline.check import check_game

    (tmp_path / "p").mkdir()
    project = make_project(tmp_path / "p")
    src = write(tmp_path / "mine.csv", "name,odd\u2028field,next\u0085one,cost\nDig,x,y,2\n")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["new", "mine", "--from", str(src)])
    assert result.exit_code == 0, result.output
    root = project / "cards" / "mine"
    tpl = (root / "templates" / "mine" / "mine.yaml").read_text()
    assert "**cost:**" in tpl and "\u2028" not in tpl and "\u0085" not in tpl
    report = Report()
    check_game(root, project, report)
    assert report.items == []


# -- fonts ---------------------------------------------------------------------------------------

def _font_game(tmp_path: Path) -> Path:
    root = tmp_path / "g"
    write(root / "game.yaml", "title: F\n")
    write(root / "deck.yaml", "deck: D\ntemplate: g/face\ncards:\n  - {name: Alpha}\n")
    write(root / "templates" / "g" / "face.yaml",
          'elements:\n  - {name: t, type: text, x: 5mm, y: 5mm, width: 50mm, height: 10mm, text: "{{ card.name }}", '
          'font: Broken, size: 12}\n')
    (root / "fonts").mkdir()
    return root


def _both(root: Path, out: Path) -> list[str]:
    """What validate and build say (each line of errors), once each: they must agree."""
    from conftest import run_cli

    said = []
    for args in (("validate", str(root)), ("build", str(root), "--out", str(out), "--only", "cards")):
        code, stdout, stderr = run_cli(*args)
        assert code == 1, stdout + stderr
        said.append([line.replace(str(root) + os.sep, "") for line in (stdout + stderr).splitlines()
                     if ": error: " in line])
    assert said[0] == said[1]
    assert not (out / "g" / "cards.pdf").exists()
    return said[0]


@pytest.mark.parametrize("make, why", [
    (lambda p: fontfiles.changed(p, maxp=fontfiles.no_glyphs),
     "font file Broken-Regular.ttf has no glyphs; download or copy it again"),
    (lambda p: fontfiles.changed(p, glyf=fontfiles.blank_glyf),
     "font file Broken-Regular.ttf has no outlines for letters it lists (0123456789AB...): its glyph tables are "
     "broken and it would print blank text; download or copy it again"),
    (lambda p: fontfiles.changed(p, loca=lambda b: b[:8] + b"\xff" * 4 + b[12:]),
     "cannot use font file Broken-Regular.ttf: its glyph tables are damaged (TTFError: unpack requires a buffer of "
     "2 bytes); download or copy it again"),
])
def test_a_font_that_would_draw_nothing_is_an_error_in_validate_and_build(tmp_path, make, why):
    root = _font_game(tmp_path)
    make(root / "fonts" / "Broken-Regular.ttf")
    assert _both(root, tmp_path / "out") == [
        f"templates/g/face.yaml:2:101: error: card 'Alpha' (deck.yaml:4), element 't': {why}"]


@pytest.mark.parametrize("make, why", [
    (lambda p: p.symlink_to(p.name), "is a link that leads back to itself; replace it with the font file"),
    (lambda p: os.mkfifo(p), "is not a regular file (a pipe, device or socket), so cardgen does not read it; "
                             "replace it with the font file"),
])
def test_a_font_that_is_a_loop_or_a_pipe_is_an_error_in_validate_and_build(tmp_path, make, why):
    root = _font_game(tmp_path)
    make(root / "fonts" / "Broken-Regular.ttf")
    assert _both(root, tmp_path / "out") == [
        f"templates/g/face.yaml:2:101: error: element 't': font file Broken-Regular.ttf {why}"]


def test_a_letter_without_an_outline_counts_as_missing_from_the_font(tmp_path):
    """One glyph's outline emptied (checksums right): that letter falls back to another font."""
    from reportlab.pdfbase.ttfonts import TTFontFile

    from cardgen.resources.fonts import FontBook

    face = TTFontFile(str(fontfiles.LATO))
    g = face.charToGlyph[ord("é")]
    start, end = face.glyphPos[g], face.glyphPos[g + 1]
    path = fontfiles.changed(tmp_path / "Broken-Regular.ttf",
                             glyf=lambda glyf: glyf[:start] + bytes(end - start) + glyf[end:])
    book = FontBook([tmp_path, fontfiles.LATO.parent])
    name = book.face("Broken").name
    assert ord("é") not in book.cmap(name) and ord("e") in book.cmap(name)
    assert [font for _, font in book.split("café", "Broken")] == [name, book.face("DejaVuSans").name]
    assert path.is_file()


# -- SVG -----------------------------------------------------------------------------------------

def _svg_game(tmp_path: Path, svg_attrs: str) -> Path:
    root = tmp_path / "g"
    write(root / "game.yaml", "title: S\n")
    write(root / "deck.yaml", "deck: D\ntemplate: g/face\ncards:\n  - {name: Alpha}\n")
    write(root / "templates" / "g" / "face.yaml",
          "elements:\n  - {name: i, type: image, x: 5mm, y: 5mm, width: 30mm, height: 30mm, src: x.svg}\n")
    write(root / "art" / "x.svg", f"<svg xmlns='http://www.w3.org/2000/svg' {svg_attrs}><rect width='5' height='5' "
                                  f"fill='red'/></svg>")
    return root


@pytest.mark.parametrize("attrs, why", [
    ("width='10' height='10' viewBox='0 0 0 0'",
     "SVG x.svg has a viewBox of zero or negative size ('0 0 0 0'), so it draws nothing; fix it in the SVG"),
    ("width='10' height='10' viewBox='0 0 1e30 1e30'",
     "SVG x.svg has a viewBox of 1e+30 x 1e+30 units ('0 0 1e30 1e30'); cardgen draws SVGs from 0.001 to 1,000,000 "
     "units a side: fix it in the SVG"),
    ("viewBox='0 0 1e-30 1e-30'",
     "SVG x.svg has a viewBox of 1e-30 x 1e-30 units ('0 0 1e-30 1e-30'); cardgen draws SVGs from 0.001 to "
     "1,000,000 units a side: fix it in the SVG"),
])
def test_a_zero_or_enormous_viewbox_is_refused_in_validate_and_build(tmp_path, attrs, why):
    root = _svg_game(tmp_path, attrs)
    lines = _both(root, tmp_path / "out")
    assert len(lines) == 1 and lines[0].endswith(why), lines
    assert lines[0].startswith("templates/g/face.yaml:2:")


@pytest.mark.parametrize("attrs, why", [
    # (svglib's units differ between versions: 7.5e+29, 1e+30 or 1.25e+30 points)
    ("width='1e30pt' height='1e30pt'", r"SVG x.svg is [0-9.]+e\+[0-9]+ x [0-9.]+e\+[0-9]+ points; cardgen draws SVGs "
                                       r"from 0\.001 to 1,000,000 points a side; fix it in the SVG"),
    ("width='10' height='10'><g transform='scale(1e9)'",
     r"SVG x.svg has a transform \(or viewBox\) that scales its shapes by more than a million times; fix it in the "
     r"SVG"),
])
def test_an_svg_too_large_or_scaled_beyond_reason_is_refused(tmp_path, attrs, why):
    import re

    root = _svg_game(tmp_path, attrs)
    if "<g" in attrs:
        (root / "art" / "x.svg").write_text((root / "art" / "x.svg").read_text().replace("</svg>", "</g></svg>"))
    lines = _both(root, tmp_path / "out")
    assert len(lines) == 1 and (lines[0].endswith(why) or re.search(why + "$", lines[0])), lines


# -- folders ---------------------------------------------------------------------------------------

def _nest(top: Path, levels: int) -> Path:
    path = top
    for _ in range(levels):
        path = path / "a"
    path.mkdir(parents=True)
    return path


def test_deeply_nested_folders_are_one_located_error_in_validate_and_build(tmp_path):
    root = _font_game(tmp_path)
    (root / "templates" / "g" / "face.yaml").write_text(
        'elements:\n  - {name: t, type: text, x: 5mm, y: 5mm, width: 50mm, height: 10mm, text: "{{ card.name }}"}\n')
    _nest(root / "deep", 60)
    _nest(root / "templates" / "deep", 60)
    assert _both(root, tmp_path / "out") == [
        "deep/" + "a/" * 31 + "a: error: this folder is nested more than 32 folders deep in the game folder; move it "
        "out or flatten it (limit CARDGEN_MAX_FOLDER_DEPTH)"]


def test_folder_walks_do_not_recurse_with_the_depth(tmp_path):
    """A tree deeper than Python's recursion allows is walked (and found too deep) without
    recursion: here 300 levels under a recursion limit 120 frames above the test's own."""
    import inspect
    import sys

    from cardgen.core.digest import walk_files
    from cardgen.core.paths import files_under, too_deep

    (_nest(tmp_path / "t", 300) / "x.yaml").write_text("a: 1\n")
    (tmp_path / "t" / "top.yaml").write_text("a: 1\n")
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 120)
    try:
        deep = too_deep(tmp_path / "t")
        files = files_under(tmp_path / "t", ".yaml")
        walked = walk_files(tmp_path / "t")
    finally:
        sys.setrecursionlimit(old)
    assert deep == tmp_path / "t" / Path(*["a"] * 33)
    assert files == [tmp_path / "t" / "top.yaml"] and walked == [str(tmp_path / "t" / "top.yaml")]


def test_an_ods_formula_without_a_saved_value_is_a_warning_at_its_cell(tmp_path, monkeypatch):
    head = ODS_HEAD.replace("<text:p>name</text:p></table:table-cell>", "<text:p>name</text:p></table:table-cell>"
                            '<table:table-cell office:value-type="string"><text:p>power</text:p></table:table-cell>')
    monkeypatch.setattr(sys.modules[__name__], "ODS_HEAD", head)
    _ods(tmp_path / "f.ods", '<table:table-row><table:table-cell office:value-type="string"><text:p>A</text:p>'
                             '</table:table-cell><table:table-cell table:formula="of:=1+1"/></table:table-row>'
                             '<table:table-row><table:table-cell office:value-type="string"><text:p>B</text:p>'
                             '</table:table-cell><table:table-cell table:formula="of:=1+2" office:value-type="float" '
                             'office:value="3"><text:p>3</text:p></table:table-cell></table:table-row>')
    report = Report()
    cards = read(tmp_path, "f.ods", report)
    assert [dict(c) for c in cards] == [{"name": "A"}, {"name": "B", "power": 3}]
    assert [str(d).replace(str(tmp_path) + os.sep, "") for d in report.items] == [
        "f.ods: Cards!B2: warning: f.ods: this cell has a formula but no saved value (the file was not saved by a "
        "spreadsheet program that calculates), so cardgen reads it as empty; open the file in Excel or LibreOffice "
        "and save it again"]


def test_every_limit_is_in_the_one_table_of_docs_security():
    from cardgen.core import limits

    table = (Path(__file__).parents[1] / "docs" / "security.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`") for line in table.splitlines() if line.startswith("| `CARDGEN_")}
    assert set(limits.NAMES) <= rows
    for name in limits.NAMES:
        assert hasattr(limits, name.removeprefix("CARDGEN_")), name


# -- the one bounded reader ------------------------------------------------------------------------

def test_a_yaml_file_over_the_file_limit_is_refused_before_reading(tmp_path, monkeypatch):
    from cardgen.core import limits
    from cardgen.load.yamlsrc import load_file

    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 1000)
    write(tmp_path / "big.yaml", "a: " + "x" * 2000 + "\n")
    with pytest.raises(CardgenError) as info:
        load_file(tmp_path / "big.yaml")
    assert str(info.value) == (f"{tmp_path / 'big.yaml'}: error: this file is larger than 1,000 bytes (limit "
                               f"CARDGEN_MAX_FILE_BYTES); split it into smaller files")


def test_a_file_read_whole_asks_for_its_size_not_the_limit(tmp_path, monkeypatch):
    """`read_regular` asks the system for the file's size (and a byte), not for the limit's
    100 MB, which a memory limit (`ulimit -v`) refused for every font and YAML file; a file
    that grows while it is read is read on, up to the limit, and refused past it."""
    import tracemalloc

    from cardgen.core import limits
    from cardgen.core.paths import TooLarge, read_regular

    small = tmp_path / "small.yaml"
    small.write_bytes(b"a: 1\n" * 200)
    tracemalloc.start()
    try:
        assert read_regular(small) == b"a: 1\n" * 200
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert limits.MAX_FILE_BYTES >= 10**7 and peak < 10**6, peak

    import cardgen.core.paths as paths

    real_fstat = os.fstat
    grown = tmp_path / "grown.yaml"
    grown.write_bytes(b"x" * 3000)
    # (the size seen before reading is smaller than what is read: the file grew in between)
    monkeypatch.setattr(paths.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 1000, *real_fstat(fd)[7:])))
    assert read_regular(grown) == b"x" * 3000
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 2000)
    with pytest.raises(TooLarge):
        read_regular(grown)


def test_memory_run_out_is_said_as_a_problem_of_the_computer(tmp_path, monkeypatch):
    """A MemoryError (the computer's memory, or `ulimit -v`) is said in one line as a problem
    of the computer, with what to do, not as a cardgen bug; exit 1, nothing written."""
    from click.testing import CliRunner

    from cardgen.cli.main import main
    from cardgen.pipeline import check

    def no_memory(*a, **k):
        raise MemoryError()

    write(tmp_path / "g" / "game.yaml", "title: G\n")
    monkeypatch.setattr(check, "load_game", no_memory)     # (what `validate` and `build` load the game with)
    for args in (["validate", str(tmp_path / "g")], ["build", str(tmp_path / "g"), "--out", str(tmp_path / "out")]):
        got = CliRunner().invoke(main, args)
        assert got.exit_code == 1, got.output
        lines = got.output.splitlines()
        assert lines[0] == ("cardgen: ran out of memory (the computer's, or a limit set for it: ulimit -v); close "
                            "other programs or raise the limit, and run cardgen again"), got.output
        assert "internal error" not in got.output and "Traceback" not in got.output
    assert lines[1:] == ["g: not built; the previous output is unchanged"]
    made = tmp_path / "out" / "g"
    assert [p.name for p in made.rglob("*") if p.is_file() and not p.relative_to(made).parts[0].startswith(".")] == []


def test_a_huge_sparse_file_in_a_game_is_never_read_by_the_scan(tmp_path):
    """A 20 GB sparse file (no disk used) is known by its size, time and inode, not hashed."""
    import time

    from cardgen.core.digest import DigestCache, file_digest

    with open(tmp_path / "huge.bin", "wb") as f:
        f.truncate(20 * 1024**3)
    write(tmp_path / "small.txt", "x")
    cache = DigestCache()
    start = time.process_time()
    try:
        key = cache.get(str(tmp_path / "huge.bin"))
        assert key is not None and key.startswith("large:21474836480:") and file_digest(tmp_path / "huge.bin") == key
        assert time.process_time() - start < 1 and cache.hashed == 0
    finally:
        (tmp_path / "huge.bin").unlink()
    assert cache.get(str(tmp_path / "small.txt")) == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"


@pytest.mark.parametrize("body, why", [
    ("<g transform='matrix(0 0 0 0 0 0)'><rect width='5' height='5'/></g>",
     "SVG x.svg has a transform that flattens its shapes to nothing (such as scale(0)); fix it in the SVG"),
    ("<circle r='1e308'/>", "SVG x.svg has a number too large to draw (r=1e+308, beyond 1,000,000,000); fix it in the "
                            "SVG"),
])
def test_svg_shapes_the_pdf_writer_cannot_draw_are_refused_before_drawing(tmp_path, body, why):
    """Found by tests/test_fuzz.py: the PDF writer divided by zero, or overflowed."""
    root = _svg_game(tmp_path, "viewBox='0 0 10 10'")
    (root / "art" / "x.svg").write_text(f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 10 10'>{body}</svg>")
    lines = _both(root, tmp_path / "out")
    assert len(lines) == 1 and lines[0].endswith(why), lines


@pytest.mark.parametrize("rows, why", [
    ("<table:table-row><table:table-cell/></table:table-row>" * 30_000,
     "has more than 1,000 rows (limit CARDGEN_MAX_SHEET_ROWS)"),
    ("<table:table-row>" + "<table:table-cell/>" * 30_000 + "</table:table-row>",
     "has more than 100 columns (limit CARDGEN_MAX_SHEET_COLUMNS)"),
])
def test_ods_rows_and_cells_written_out_one_by_one_stop_the_scan(tmp_path, monkeypatch, rows, why):
    """Empty rows or cells, each written out: the scan holds one at a time and stops early
    (at twice the row limit, twenty times the column limit: here 1,000 rows and 100 columns)."""
    import python_calamine

    monkeypatch.setattr(sheets, "MAX_SHEET_ROWS", 1000)
    monkeypatch.setattr(sheets, "MAX_SHEET_COLUMNS", 100)

    _ods(tmp_path / "many.ods", rows, zipfile.ZIP_STORED)     # (deflated, the packing ratio alone refuses it)
    monkeypatch.setattr(python_calamine, "load_workbook", lambda *a: pytest.fail("the reader was reached"))
    tracemalloc.start()
    try:
        text = message(tmp_path, "many.ods")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.startswith(f"d.yaml:3:8: error: many.ods {why}")
    assert peak < 5_000_000


def test_an_xlsx_row_of_empty_cells_written_out_is_refused_before_parsing(tmp_path):
    sheet = (b"<worksheet xmlns='http://schemas.openxmlformats.org/spreadsheetml/2006/main'><sheetData><row r='1'>"
             + b"<c/>" * 30_000 + b"</row></sheetData></worksheet>")
    _xlsx_with(tmp_path, "wide.xlsx", {"xl/worksheets/sheet1.xml": sheet})
    assert message(tmp_path, "wide.xlsx").startswith(
        "d.yaml:3:8: error: wide.xlsx has a row of more than 1,000 columns (limit CARDGEN_MAX_SHEET_COLUMNS); ")


def test_a_deck_file_linked_to_itself_is_one_located_error(tmp_path):
    root = _font_game(tmp_path)
    (root / "templates" / "g" / "face.yaml").write_text(
        'elements:\n  - {name: t, type: text, x: 5mm, y: 5mm, width: 50mm, height: 10mm, text: "{{ card.name }}"}\n')
    (root / "loop.yaml").symlink_to("loop.yaml")
    assert _both(root, tmp_path / "out") == ["loop.yaml: error: a link that leads back to itself; replace it with "
                                             "the file"]
