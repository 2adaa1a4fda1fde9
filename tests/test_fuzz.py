"""The readers of a game's files, fuzzed for a fixed budget (Hypothesis, derandomized: the same
inputs on every run, so CI is deterministic).  Every input ends in success or in the reader's
own error, which cardgen reports at its line (CardgenError; IconError and FontError become
one at the element that uses the file); never another exception, never a hang.  A crash
found here is kept below as an `@example` of its test.

`CARDGEN_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py` fuzzes for longer (the same seed)."""
from __future__ import annotations

import contextlib
import io
import os
import struct
import zipfile
from pathlib import Path

import fontfiles
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sheetfiles import write_xlsx

from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.load import sheets
from cardgen.load.yamlsrc import load_text

settings.register_profile("readers", max_examples=int(os.environ.get("CARDGEN_FUZZ_EXAMPLES", "60")),
                          derandomize=True, deadline=None, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
FUZZ = settings.get_profile("readers")
LOC = Loc("d.yaml", 3, 8)


# -- YAML ----------------------------------------------------------------------------------------

YAML_BITS = st.sampled_from(["[", "]", "{", "}", ":", ": ", ",", "- ", "&a ", "*a", "<<: ", "!!str ", "!!map ", "!x ",
                             "|\n", ">-\n", "'", '"', "#", "\n", "\n  ", "\t", "? ", "...", "---\n", "%YAML 1.1\n",
                             "~", "0x1f", "0o7", "1e400", ".inf", "9" * 30, "\\u2028", "\u2028", "\ufeff", "&b [*a]",
                             "a", "name", "\x85", "@"])


@FUZZ
@given(st.lists(YAML_BITS, max_size=60).map("".join) | st.text(max_size=200))
@example("a: &a {<<: *a}\n")
@example("<<: [*x]\n")
@example("a: !!merge 1\n")
@example("a: &a [*a]\n")
def test_yaml_loader(text):
    try:
        load_text(text, "x.yaml")
    except CardgenError as exc:
        assert exc.diagnostics[0].loc.file == "x.yaml"


# -- CSV -----------------------------------------------------------------------------------------

@FUZZ
@given(st.binary(max_size=400) | st.lists(st.sampled_from(["name", "count", "tags[]", "back.x", ",", ";", "\t",
                                                           "\n", "\r", '"', "#", "é", "\u2028", "\0", "9" * 20,
                                                           "1e999", "qty", "Name"]), max_size=40).map(
                                                               lambda parts: "".join(parts).encode()),
       st.sampled_from(["utf-8", "utf-16", "cp1252", "latin-1", "rot13", "base64", "zlib_codec", "utf-32",
                        "shift_jis", "idna", " utf-8 ", "punycode"]))
def test_csv_reader(tmp_path_factory, data, encoding):
    folder = tmp_path_factory.mktemp("csv")
    (folder / "c.csv").write_bytes(data)
    with contextlib.suppress(CardgenError):
        sheets.read_cards({"file": "c.csv", "encoding": encoding}, folder / "d.yaml", LOC, Report())


# -- workbooks -----------------------------------------------------------------------------------

def _xlsx_bytes() -> bytes:
    out = io.BytesIO()
    write_xlsx(out, {"Cards": [["name", "power", "tags[]"], ["A", 1, "x;y"], ["B", "=1+1", None]]})
    return out.getvalue()


XLSX = _xlsx_bytes()
XLSX_PARTS = {i.filename: zipfile.ZipFile(io.BytesIO(XLSX)).read(i) for i in zipfile.ZipFile(io.BytesIO(XLSX)).infolist()}
XML_BITS = st.sampled_from(['<c r="A1" t="s"><v>0</v></c>', '<c r="ZZZZZ1"><v>1</v></c>', '<c t="b"><v>7</v></c>',
                            '<c t="n"><v>1e999</v></c>', '<c r="A0"/>', "<row r='-1'>", "<row>", "</row>",
                            '<c t="d"><v>garbage</v></c>', '<c t="inlineStr"><is><t>x</t></is></c>', "<v>", "</v>",
                            "&amp;", "&bogus;", "<![CDATA[x]]>", "<?pi?>", "\x00", "é", '<c s="999999"><v>1</v></c>',
                            '<dimension ref="A1:XFD1048576"/>', "<f>1+1</f>", '<c r="A1" t="e"><v>#N/A</v></c>'])


def _rezip(parts: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return out.getvalue()


def _read_workbook(tmp_path_factory, name: str, data: bytes) -> None:
    folder = tmp_path_factory.mktemp("wb")
    (folder / name).write_bytes(data)
    with contextlib.suppress(CardgenError):
        sheets.read_cards(name, folder / "d.yaml", LOC, Report())


@FUZZ
@given(st.sampled_from(sorted(XLSX_PARTS)), st.lists(XML_BITS, max_size=30).map("".join),
       st.integers(0, 4000), st.booleans())
def test_xlsx_reader_parts(tmp_path_factory, part, xml, cut, wrap):
    """A part of a workbook replaced by XML-ish text (or the sheet's rows, or the start of the part)."""
    body = xml.encode()
    if wrap:
        body = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">'
                + body + b"</row></sheetData></worksheet>")
    elif not xml:
        body = XLSX_PARTS[part][:cut]
    _read_workbook(tmp_path_factory, "w.xlsx", _rezip({**XLSX_PARTS, part: body}))


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(XLSX) - 1), st.integers(0, 255)), max_size=8), st.integers(0, len(XLSX)))
def test_xlsx_reader_bytes(tmp_path_factory, flips, cut):
    """Bytes of a workbook changed or cut off (the zip reader's checks, then the XML's)."""
    data = bytearray(XLSX[:max(cut, 1)] if cut < 200 else XLSX)
    for at, value in flips:
        if at < len(data):
            data[at] = value
    _read_workbook(tmp_path_factory, "w.xlsx", bytes(data))


ODS_CELL = st.builds(
    lambda rep, kind, text, attr: f'<table:table-cell {attr}table:number-columns-repeated="{rep}" '
                                  f'office:value-type="{kind}" office:value="{text}"><text:p>{text}</text:p>'
                                  f'</table:table-cell>',
    st.sampled_from(["1", "2", "0", "-3", "x", "99999999999999999999", "1000", " 7"]),
    st.sampled_from(["string", "float", "date", "boolean", "percentage", "time", "currency", "bogus"]),
    st.sampled_from(["a", "1", "1e999", "NaN", "2024-13-45", "PT99999H", "true", "", "&amp;", "é"]),
    st.sampled_from(["", 'office:date-value="nonsense" ', 'office:boolean-value="maybe" ', 'table:formula="x" ',
                     'office:time-value="P" ', 'table:number-rows-repeated="3" ']))
ODS_ROW = st.builds(lambda rep, cells: f'<table:table-row table:number-rows-repeated="{rep}">{"".join(cells)}'
                                       f'</table:table-row>',
                    st.sampled_from(["1", "2", "0", "-1", "70000", "y"]), st.lists(ODS_CELL, max_size=4))


@FUZZ
@given(st.lists(ODS_ROW, max_size=6), st.booleans(), st.integers(0, 3000))
def test_ods_reader(tmp_path_factory, rows, cut_it, cut):
    from test_readers import ODS_HEAD, ODS_TAIL

    content = (ODS_HEAD + "".join(rows) + ODS_TAIL).encode()
    if cut_it:
        content = content[:cut]
    _read_workbook(tmp_path_factory, "w.ods", _rezip({"mimetype": b"application/vnd.oasis.opendocument.spreadsheet",
                                                      "content.xml": content}))


# -- SVG, fonts, images --------------------------------------------------------------------------

SVG_ATTR = st.sampled_from(["", "width='10'", "height='10'", "width='0'", "width='-5'", "width='1e30'", "width='10mm'",
                            "width='50%'", "viewBox='0 0 10 10'", "viewBox='0 0 0 0'", "viewBox='0 0 1e-30 1'",
                            "viewBox='a b c d'", "viewBox='0,0,10'", "viewBox='nan 0 1 1'", "height='1e400'",
                            "preserveAspectRatio='xMidYMid slice'", "transform='scale(0)'", "style='fill:url(#x)'"])
SVG_BODY = st.sampled_from(["<rect width='5' height='5'/>", "<circle r='1e308'/>", "<path d='M0 0 L 1e400 1 Z'/>",
                            "<path d='M 0 0 A 0 0 0 0 0 0 0'/>", "<g transform='matrix(0 0 0 0 0 0)'><rect/></g>",
                            "<text font-size='1e30'>x</text>", "<use href='#nope'/>", "<polygon points='1'/>",
                            "<linearGradient id='x'><stop offset='2'/></linearGradient>", "<rect x='nan'/>",
                            "<g transform='rotate(1e308)'><rect/></g>", "<path d='M'/>", "<image href='data:,x'/>",
                            "<style>rect{fill:red}</style>", "<ellipse rx='-1'/>", "<line x1='inf'/>", "<", "&x;"])


@FUZZ
@given(st.lists(SVG_ATTR, max_size=4), st.lists(SVG_BODY, max_size=5))
@example(["width='10'", "height='10'", "viewBox='0 0 0 0'"], [])
@example(["viewBox='0 0 10 10'"], ["<g transform='matrix(0 0 0 0 0 0)'><rect/></g>"])     # (ZeroDivisionError)
@example(["viewBox='0 0 10 10'"], ["<circle r='1e308'/>"])                                # (OverflowError)
def test_svg_reader(tmp_path_factory, attrs, body):
    from cardgen.core.paths import svg_problem
    from cardgen.resources.icons import IconError, load_svg

    folder = tmp_path_factory.mktemp("svg")
    path = folder / "x.svg"
    path.write_text(f"<svg xmlns='http://www.w3.org/2000/svg' {' '.join(attrs)}>{''.join(body)}</svg>")
    if svg_problem(path, [folder]) is None:
        try:
            drawing = load_svg(path)
        except IconError:
            return
        from reportlab.graphics import renderPDF
        from reportlab.pdfgen import canvas

        pdf = canvas.Canvas(io.BytesIO())       # (what validate let through is drawn)
        renderPDF.draw(drawing, pdf, 0, 0)
        pdf.save()


LATO_TABLES = fontfiles.tables(fontfiles.LATO.read_bytes())
SMALL_TABLES = sorted(t for t in LATO_TABLES if t not in (b"glyf", b"GPOS", b"GSUB", b"kern"))


@FUZZ
@given(st.sampled_from([*SMALL_TABLES, b"glyf", b"loca"]), st.lists(st.tuples(st.integers(0, 1 << 20),
                                                                              st.integers(0, 255)), min_size=1,
                                                                    max_size=6), st.booleans())
def test_font_reader(tmp_path_factory, tag, flips, drop):
    """A table of a font changed (its checksum made right again), or left out."""
    from cardgen.resources.fonts import FontBook, FontError

    parts = dict(LATO_TABLES)
    if drop:
        del parts[tag]
    else:
        data = bytearray(parts[tag])
        for at, value in flips:
            data[at % len(data)] = value
        parts[tag] = bytes(data)
    folder = tmp_path_factory.mktemp("font")
    (folder / "Fz-Regular.ttf").write_bytes(fontfiles.build(parts))
    book = FontBook([folder])
    try:
        name = book.face("Fz").name
    except FontError:
        return
    book.width("Hello", name, 10)
    runs = book.split("Héllo ★ ÿ", "Fz")
    from reportlab.pdfgen import canvas

    from cardgen.resources.fonts import use_in_reportlab

    use_in_reportlab()      # (a font that was measured is drawn: the PDF embeds a subset of it)
    pdf = canvas.Canvas(io.BytesIO())
    for text, font in runs:
        pdf.setFont(font, 10)
        pdf.drawString(10, 10, text)
    pdf.save()


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


PNG = _png()


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(PNG) - 1), st.integers(0, 255)), max_size=6),
       st.integers(8, len(PNG)), st.sampled_from([b"", struct.pack(">I", 0x7FFFFFFF), b"\xff" * 8]))
def test_image_reader(tmp_path_factory, flips, cut, tail):
    from cardgen.resources.icons import IconError, check_raster

    data = bytearray(PNG[:cut] + tail)
    for at, value in flips:
        if at < len(data):
            data[at] = value
    folder = tmp_path_factory.mktemp("png")
    (folder / "x.png").write_bytes(bytes(data))
    try:
        check_raster(Path(folder / "x.png"))
    except IconError:
        return
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(io.BytesIO())          # (what validate let through is drawn)
    pdf.drawImage(str(folder / "x.png"), 0, 0, 10, 10)
    pdf.save()


def test_the_profile_is_deterministic():
    assert FUZZ.derandomize and FUZZ.database is None


pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
