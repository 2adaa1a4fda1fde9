"""Card data from spreadsheets: CSV/TSV, XLSX (openpyxl), ODS (python-calamine) and a
published Google Sheet (fetched as CSV over HTTPS, cached).

A deck's `cards:` may name a spreadsheet instead of listing cards (`cards: actions.csv`,
`cards: {file: cards.xlsx, sheet: Actions}`, `cards: {url: ...}`; declared by
`cardgen.schema.files.CardList` and `SheetSource`).  The sheet becomes the same `YList` of
`YDict` cards the YAML loader makes, every value carrying the location of its cell, so the
deck loader and every check run unchanged on it and point at the cell:
`actions.csv:ROW:COL` for CSV (ROW the file's line, COL the column number) and
`cards.xlsx: Actions!B5` for workbooks.

The rules (docs/spreadsheets.md):

- the first row that is not empty and not a comment names the fields; `name`, `count` and
  `back` are recognised in any case, every other header is kept as written;
- `qty`, `quantity` and `copies` are aliases of `count`;
- a deck's `columns:` ({field: header}) names the columns whose headers are not their fields'
  names (`cardgen.load.sheetheader`); a sheet is named by name or position (`2`, `"#2"`);
- a header ending in `[]` (`tags[]`) is a list column: its cells are split at the separator
  (`;` unless the source says otherwise);
- a header `back.FIELD` gives the card's own back field FIELD (decks with `backs:`);
- a cell's text becomes a number where it reads as one in YAML (`3`, `-2`, `1.5`, `2e3`);
  anything else stays text as written (`No`, `true`, `0012`: a leading zero keeps text);
  surrounding spaces are dropped; an empty cell is an absent field;
- a row whose first cell starts with `#` is a comment; a row with no name is skipped.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardgen.core import limits
from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.core.paths import PathRefused, not_a_file, read_problem, read_regular
from cardgen.load import refs
from cardgen.load.sheetheader import (
    Column,
    check_mapped,
    column_letters,
    column_name,
    mapping_of,
    read_header,
)
from cardgen.load.yamlsrc import YDict, YList
from cardgen.schema.core import STATIC_ENV, suggest
from cardgen.schema.files import SheetSource

# A deck's spreadsheet, CSV or workbook: rows, columns, cells and their text in all
# (`core.limits`, raised with CARDGEN_MAX_SHEET_ROWS and the like).
MAX_SHEET_ROWS = limits.MAX_SHEET_ROWS
MAX_SHEET_COLUMNS = limits.MAX_SHEET_COLUMNS
MAX_SHEET_CELLS = limits.MAX_SHEET_CELLS
MAX_SHEET_TEXT = limits.MAX_SHEET_TEXT
FALLBACK_ENCODING = "cp1252"

Cell = tuple[Any, Loc]          # a cell's raw value and its location
Row = list[Cell]


from cardgen.load.sheetfetch import (  # noqa: E402  (settings and fetching: their own module)
    SheetSettings,
    cache_dir,
    fetch_sheet,
    settings,
)

__all__ = ["SheetSettings", "cache_dir", "settings"]


# -- cell values ----------------------------------------------------------------------------

_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


def typed(text: str) -> Any:
    """A cell's text as a card value: a number where it reads as a YAML number (without
    leading zeros: `0012` stays text), else the text itself."""
    if _INT.fullmatch(text):
        # (a number longer than YAML allows stays text: a code or an id, not arithmetic)
        return int(text) if len(text.lstrip("+-")) <= limits.MAX_INT_DIGITS else text
    if ("." in text or "e" in text or "E" in text) and _FLOAT.fullmatch(text) and any(c.isdigit() for c in text):
        value = float(text)
        return value if math.isfinite(value) else text
    return text


def cell_value(raw: Any) -> Any:
    """A cell as a card value, or None for an empty cell."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if not math.isfinite(raw):
            return str(raw)
        return int(raw) if raw.is_integer() and abs(raw) < 2**53 else raw
    if isinstance(raw, dt.datetime):
        return raw.date().isoformat() if raw.time() == dt.time() else raw.isoformat(sep=" ")
    if isinstance(raw, (dt.date, dt.time)):
        return raw.isoformat()
    if isinstance(raw, dt.timedelta):
        return str(raw)
    text = str(raw).strip()
    return typed(text) if text else None


def _is_comment(raw: Any) -> bool:
    return isinstance(raw, str) and raw.lstrip().startswith("#")


def _sheet_ref(name: str) -> str:
    """A sheet name as a cell reference writes it: `Actions`, `'My cards'`."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) else "'" + name.replace("'", "''") + "'"


# -- readers: every one gives rows of (raw value, location) --------------------------------------

# The encodings a CSV file may name: text encodings people save spreadsheets in (by the name
# Python's codec registry gives them), never a codec that is not one (`rot13`, `base64`,
# `zlib_codec`, `unicode_escape`).
TEXT_ENCODINGS = frozenset({
    "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "ascii",
    *(f"iso8859-{n}" for n in (*range(1, 12), 13, 14, 15, 16)), *(f"cp{n}" for n in range(1250, 1259)),
    "cp437", "cp850", "cp852", "cp866", "mac-roman", "mac-latin2", "mac-cyrillic", "koi8-r", "koi8-u",
    "shift_jis", "cp932", "euc_jp", "iso2022_jp", "euc_kr", "cp949", "gb2312", "gbk", "gb18030", "big5",
    "big5hkscs", "cp874", "tis-620",
})


def _codec(encoding: str, path: Path, loc: Loc) -> str:
    """The registry name of a CSV file's declared encoding, if it is a text encoding."""
    import codecs

    try:
        name = codecs.lookup(encoding.strip()).name
    except (LookupError, ValueError, TypeError):
        name = ""
    if name not in TEXT_ENCODINGS:
        raise CardgenError(loc, f"unknown encoding '{encoding[:40]}' for {path.name}: write a text encoding such "
                                f"as utf-8, utf-16, cp1252 or latin-1", code="sheet")
    return name


def _decode(raw: bytes, path: Path, encoding: str, report: Report, loc: Loc) -> str:
    enc = _codec(encoding, path, loc)
    if enc in ("utf-8", "utf-8-sig"):
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            report.warn(Loc(str(path)), f"{path.name} is not UTF-8 text (byte {exc.start + 1}); read it as "
                                        f"Windows-1252 ({FALLBACK_ENCODING}); save it as \"CSV UTF-8\" or set "
                                        f"`encoding:` in the deck's `cards:` if letters look wrong", "sheet-encoding")
            return raw.decode(FALLBACK_ENCODING, errors="replace")
    try:
        return raw.decode(enc)
    except UnicodeDecodeError as exc:
        raise CardgenError(loc, f"{path.name} is not {encoding} text (byte {exc.start + 1}); check `encoding:`",
                           code="sheet") from None


def _delimiter(text: str, default: str) -> str:
    """The CSV delimiter: the sniffer's answer if the header line has it, else the candidate the
    header line has most of (`,` on a tie or when it has none)."""
    sample = text[:4096]         # (the sniffer is quadratic on some text: 16 KB of `",` take 1.5 s)
    header = next((line for line in sample.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    candidates = (",", ";", "\t", "|")
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters="".join(candidates)).delimiter
    except csv.Error:
        sniffed = ""
    if sniffed and sniffed in header:
        return sniffed
    counts = {c: header.count(c) for c in candidates}
    best = max(candidates, key=lambda c: counts[c])
    return best if counts[best] else default


def read_csv_text(text: str, file: str, default_delimiter: str = ",") -> list[Row]:
    """Rows of a CSV text; a row's location is the file line it starts on.  The sheet limits
    (rows, columns, cells, characters) are kept while reading: a file past one stops there."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text, default_delimiter))
    name = Path(file).name
    limit = _Limits(name)
    rows: list[Row] = []
    line = 1
    try:
        for record in reader:
            while record and record[-1] == "":
                record.pop()
            limit.row(record, Loc(file, line, 1), lambda j, line=line: Loc(file, line, j + 1))
            rows.append([(v, Loc(file, line, j + 1)) for j, v in enumerate(record)])
            line = reader.line_num + 1
    except csv.Error as exc:
        raise CardgenError(Loc(file, reader.line_num), f"cannot read this CSV line: {exc}; check its quotes",
                           code="sheet") from None
    return rows


def read_csv(path: Path, encoding: str, report: Report, loc: Loc) -> list[Row]:
    raw = read_regular(path)
    text = _decode(raw, path, encoding, report, loc)
    return read_csv_text(text, str(path), "\t" if path.suffix.lower() == ".tsv" else ",")


def _pick_sheet(names: list[str], wanted: str | int | None, path: Path, loc: Loc) -> str:
    """The sheet `wanted` names: its name (in any case), or its position from 1 (`2`, or
    `"#2"` where no sheet is named so)."""
    if not names:
        raise CardgenError(loc, f"{path.name} has no sheets", code="sheet")
    if wanted is None:
        return names[0]
    if isinstance(wanted, str) and wanted not in names and re.fullmatch(r"#\s*[0-9]+", wanted.strip()):
        wanted = int(wanted.strip()[1:])
    if isinstance(wanted, int):
        if 1 <= wanted <= len(names):
            return names[wanted - 1]
        raise CardgenError(loc, f"{path.name} has no sheet {wanted}: it has {len(names)} "
                                f"(sheets: {', '.join(names)})", code="sheet")
    if wanted in names:
        return wanted
    folded = {n.lower(): n for n in names}
    if wanted.lower() in folded:
        return folded[wanted.lower()]
    raise CardgenError(loc, f"{path.name} has no sheet '{wanted}'{suggest(wanted, names)} "
                            f"(sheets: {', '.join(names)})", code="sheet")


def _too_large(path: Path | str, what: str, loc: Loc) -> CardgenError:
    name = Path(path).name
    return CardgenError(loc, f"{name} {what}; cardgen reads at most {MAX_SHEET_ROWS:,} rows, "
                             f"{MAX_SHEET_COLUMNS:,} columns and {MAX_SHEET_CELLS:,} cells: delete what the cards do "
                             f"not need (empty rows and columns far out count too)", code="sheet")


class _Limits:
    """The sheet limits kept while a sheet is read, row by row: rows, columns, cells and the
    characters of all its text (a workbook's shared string, or an ODS cell repeated, is read
    once but becomes text in every cell that shows it)."""

    def __init__(self, name: str, letters: bool = False) -> None:
        self.name, self.letters, self.rows, self.cells, self.text = name, letters, 0, 0, 0

    def row(self, record: list[Any], where: Loc, cell_loc: Any) -> None:
        self.rows += 1
        if len(record) > MAX_SHEET_COLUMNS:
            column = column_letters(len(record)) if self.letters else str(len(record))
            raise _too_large(self.name, f"has a value in column {column} (more than {MAX_SHEET_COLUMNS:,} columns; "
                                        f"limit CARDGEN_MAX_SHEET_COLUMNS)", cell_loc(len(record) - 1))
        if self.rows > MAX_SHEET_ROWS:
            raise _too_large(self.name, f"has more than {MAX_SHEET_ROWS:,} rows (limit CARDGEN_MAX_SHEET_ROWS)",
                             where)
        self.cells += len(record)
        if self.cells > MAX_SHEET_CELLS:
            raise _too_large(self.name, f"has more than {MAX_SHEET_CELLS:,} cells (limit CARDGEN_MAX_SHEET_CELLS)",
                             where)
        for j, v in enumerate(record):
            if isinstance(v, str):
                self.text += len(v)
                if self.text > MAX_SHEET_TEXT:
                    raise CardgenError(cell_loc(j), f"{self.name} has more than {MAX_SHEET_TEXT:,} characters of "
                                                    f"text in its cells (limit CARDGEN_MAX_SHEET_TEXT); shorten "
                                                    f"them", code="sheet")


def _grid(path: Path, sheet: str, values: Iterator[Any] | list[Any]) -> list[Row]:
    """The cells of a worksheet with their places; each row without its empty cells at the
    end, and the sheet within the limits, kept while the rows are read (a small file can
    describe millions of cells)."""
    rows: list[Row] = []
    ref = _sheet_ref(sheet)
    limit = _Limits(path.name, letters=True)
    for i, record in enumerate(values):
        record = list(record)
        while record and (record[-1] is None or record[-1] == ""):
            record.pop()
        where = Loc(str(path), i + 1, 1, f"{ref}!A{i + 1}")
        limit.row(record, where, lambda j, i=i: Loc(str(path), i + 1, j + 1, f"{ref}!{column_letters(j + 1)}{i + 1}"))
        rows.append([(v, Loc(str(path), i + 1, j + 1, f"{ref}!{column_letters(j + 1)}{i + 1}"))
                     for j, v in enumerate(record)])
    return rows


# -- workbooks: zip archives of XML parts, checked before a reader opens them -------------------

MAX_PARTS = 10_000                 # parts of one workbook (zip members)
_PROLOG = 65_536                   # bytes of an XML part looked at for a DOCTYPE


def _workbook_problem(path: Path) -> str | None:
    """Why the workbook (XLSX or ODS: a zip archive of XML parts) at `path` is not opened, or
    None: more parts than MAX_PARTS, parts unpacking to more than CARDGEN_MAX_WORKBOOK_BYTES
    together, a part unpacking to more than CARDGEN_MAX_ZIP_RATIO times its packed size (a
    small file whose shared strings inflate to gigabytes), or an XML part declaring a
    DOCTYPE (entities: the XML readers would expand them).  Sizes are those the archive
    declares; Python's zip reader never unpacks more than a part declares."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_PARTS:
                return f"has more than {MAX_PARTS:,} parts; save it again"
            total = 0
            for info in infos:
                total += info.file_size
                if total > limits.MAX_WORKBOOK_BYTES:
                    return (f"unpacks to more than {limits.MAX_WORKBOOK_BYTES:,} bytes (limit "
                            f"CARDGEN_MAX_WORKBOOK_BYTES); delete what the cards do not need")
                if info.file_size > 1_000_000 and info.file_size > limits.MAX_ZIP_RATIO * max(info.compress_size, 1):
                    return (f"has a part ({_clean(info.filename)}) that unpacks to {info.file_size:,} bytes from "
                            f"{info.compress_size:,}, more than {limits.MAX_ZIP_RATIO} times its packed size "
                            f"(limit CARDGEN_MAX_ZIP_RATIO): not a workbook a spreadsheet program writes")
            for info in infos:
                if not info.filename.lower().endswith((".xml", ".rels", ".vml")):
                    continue
                with z.open(info) as f:
                    head = f.read(_PROLOG)
                problem = _prolog_problem(head)
                if problem:
                    return f"has a part ({_clean(info.filename)}) that {problem}"
    except (zipfile.BadZipFile, zipfile.LargeZipFile):
        return None             # not a zip archive: the reader says what it is not
    except RuntimeError as exc:           # an encrypted part
        return f"cannot be read ({_clean(str(exc))}); save it again without a password"
    except Exception as exc:              # a damaged archive: zlib.error, a bad CRC, a cut-off part ...
        return f"is damaged ({type(exc).__name__}: {_clean(str(exc))}); save it again"
    return None


def _prolog_problem(head: bytes) -> str | None:
    """What is wrong with the start of an XML part: a DOCTYPE (and with it entities)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = head.decode("utf-16", errors="replace")
    else:
        text = head.decode("utf-8", errors="replace").replace("\0", "")
    lowered = text.lower()
    if "<!doctype" in lowered or "<!entity" in lowered:
        return "declares a DOCTYPE or XML entities, which cardgen does not read; save the file again"
    if len(head) >= _PROLOG and not re.search(r"<[A-Za-z_:]", re.sub(r"<!--.*?-->", "", text, flags=re.S)):
        return "does not start its XML within the first 64 KB (a DOCTYPE could hide after that); save the file again"
    return None


def _clean(text: str) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 80 else text[:77] + "..."


def _library_failure(exc: BaseException) -> bool:
    """True for what a reader library raises on a bad file: any Exception, and a panic of
    a Rust library (pyo3's PanicException derives from BaseException), but never Ctrl-C
    or an exit."""
    return not isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit))


def _ods_cells(path: Path, loc: Loc) -> dict[str, list[tuple[int, int]]]:
    """Refuse an OpenDocument file whose repeated rows and cells (`number-rows-repeated`,
    `number-columns-repeated`: an 800-byte file can describe 40 million cells) would make a
    sheet larger than cardgen reads, before the reader expands them: per table, the area up
    to its last valued cell (the reader holds that rectangle whole, empty cells and all), and
    the text of its valued cells as many times as they repeat.  A streaming scan (the DOCTYPE
    was refused before, so no entity is expanded).  Returns, by sheet name, the (row, column)
    of each formula cell without a saved value (a file written by a program that does not
    calculate: the reader gives those cells as empty)."""
    import xml.etree.ElementTree as ET
    import zipfile

    table = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
    office = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"

    def repeat(el: Any, attr: str) -> int:
        raw = el.get(f"{table}{attr}", "1") or "1"
        try:
            return max(1, int(raw.strip()))
        except ValueError:
            return 1

    formulas: dict[str, list[tuple[int, int]]] = {}
    unvalued: list[tuple[int, int]] = []
    try:
        with zipfile.ZipFile(path) as z, z.open("content.xml") as f:
            row_pos = last_row = max_col = text = 0
            open_elements: list[Any] = []
            elements = col = row_max = row_text = cells = 0
            for event, el in ET.iterparse(f, events=("start", "end")):
                if event == "start":
                    open_elements.append(el)
                    if el.tag == f"{table}table":
                        row_pos = last_row = max_col = text = elements = 0
                        unvalued = formulas.setdefault(el.get(f"{table}name", ""), [])
                    elif el.tag == f"{table}table-row":
                        col = row_max = row_text = cells = 0
                    continue
                open_elements.pop()
                parent = open_elements[-1] if open_elements else None
                if el.tag in (f"{table}table-cell", f"{table}covered-table-cell") and parent is not None and \
                        parent.tag == f"{table}table-row":
                    cols = repeat(el, "number-columns-repeated")
                    chars = sum(len(t) for t in el.itertext())
                    if el.get(f"{table}formula") is not None and not chars and len(unvalued) < 100 and \
                            not any(k.startswith(office) and k.endswith("value") for k in el.attrib):
                        unvalued.append((row_pos + 1, col + 1))
                    if len(el) or chars or any(k.startswith(office) for k in el.attrib):
                        row_max = col + cols
                        row_text += chars * cols
                    col += cols
                    cells += 1
                    parent.remove(el)                # (a cell read is dropped: memory stays one cell)
                    if cells > 20 * MAX_SHEET_COLUMNS:      # (empty cells written out one by one: time)
                        raise _too_large(path, f"has more than {MAX_SHEET_COLUMNS:,} columns (limit "
                                               f"CARDGEN_MAX_SHEET_COLUMNS)", loc)
                    continue
                if el.tag != f"{table}table-row":
                    continue
                if parent is not None:
                    parent.remove(el)                # (a row read is dropped too)
                elements += 1
                if elements > 2 * MAX_SHEET_ROWS:      # (empty rows written out one by one: time, not memory)
                    raise _too_large(path, f"has more than {MAX_SHEET_ROWS:,} rows (limit CARDGEN_MAX_SHEET_ROWS)",
                                     loc)
                rows = repeat(el, "number-rows-repeated")
                row_pos += rows
                if not row_max:
                    continue
                max_col = max(max_col, row_max)
                text += row_text * rows
                last_row = row_pos
                if last_row > MAX_SHEET_ROWS:
                    raise _too_large(path, f"has a value in row {last_row:,} (more than {MAX_SHEET_ROWS:,} rows; "
                                           f"limit CARDGEN_MAX_SHEET_ROWS)", loc)
                if max_col > MAX_SHEET_COLUMNS:
                    raise _too_large(path, f"has a value in column {max_col:,} (more than {MAX_SHEET_COLUMNS:,} "
                                           f"columns; limit CARDGEN_MAX_SHEET_COLUMNS)", loc)
                if last_row * max_col > MAX_SHEET_CELLS:
                    raise _too_large(path, f"has more than {MAX_SHEET_CELLS:,} cells (limit "
                                           f"CARDGEN_MAX_SHEET_CELLS)", loc)
                if text > MAX_SHEET_TEXT:
                    raise CardgenError(loc, f"{path.name} has more than {MAX_SHEET_TEXT:,} characters of text in "
                                            f"its cells, repeated cells counted each time (limit "
                                            f"CARDGEN_MAX_SHEET_TEXT); shorten them", code="sheet")
    except KeyError:
        raise CardgenError(loc, f"cannot read {path.name} as an OpenDocument spreadsheet (it has no content.xml); "
                                f"save it again as .ods or .xlsx", code="sheet") from None
    except zipfile.BadZipFile:
        return {}               # not a zip archive: the reader says what it is not
    except (ET.ParseError, ValueError, OSError, EOFError) as exc:
        raise CardgenError(loc, f"cannot read {path.name} as an OpenDocument spreadsheet ({_clean(str(exc))}); "
                                f"save it again as .ods or .xlsx", code="sheet") from None
    return formulas


def _check_workbook(path: Path, loc: Loc) -> None:
    problem = _workbook_problem(path)
    if problem:
        raise CardgenError(loc, f"{path.name} {problem}", code="sheet")


def read_xlsx(path: Path, sheet: str | int | None, loc: Loc, report: Report | None = None) -> list[Row]:
    """A worksheet's cached values (not formulas), read-only; a formula cell without a
    saved value (a file written by a program that does not calculate) is a warning at the
    cell, as its card would silently lack the field."""
    try:
        import openpyxl
    except ImportError:
        raise CardgenError(loc, "reading .xlsx files needs openpyxl, which is not installed: "
                                "pip install 'openpyxl>=3.1,<4' (or reinstall cardgen)", code="sheet") from None
    _check_workbook(path, loc)
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except BaseException as exc:
        if not _library_failure(exc):
            raise
        raise CardgenError(loc, f"cannot read {path.name} as an Excel workbook ({type(exc).__name__}: "
                                f"{_clean(str(exc))}); save it again as .xlsx", code="sheet") from None
    try:
        name = _pick_sheet(wb.sheetnames, sheet, path, loc)
        ws = wb[name]
        part = getattr(ws, "_worksheet_path", None)
        formulas = True
        if part and getattr(wb, "_archive", None) is not None:
            with wb._archive.open(part) as f:
                problem, formulas = _xml_cells_problem(f)
            if problem:
                raise _too_large(path, problem, loc)
        if hasattr(ws, "reset_dimensions"):
            ws.reset_dimensions()          # some writers store wrong dimensions
        rows = _grid(path, name, ws.iter_rows(values_only=True))
        if report is not None and formulas:
            _formulas_without_values(path, wb, ws, name, report)
        return rows
    except CardgenError:
        raise
    except BaseException as exc:
        if not _library_failure(exc):
            raise
        raise CardgenError(loc, f"cannot read {path.name} as an Excel workbook ({type(exc).__name__}: "
                                f"{_clean(str(exc))}); save it again as .xlsx", code="sheet") from None
    finally:
        wb.close()


_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(row|c|f)[\s/>]")


def _xml_cells_problem(f: Any) -> tuple[str | None, bool]:
    """What is wrong with a worksheet part's size, read as bytes before it is parsed: more row
    elements than twice the row limit, or a row with more cell elements than twenty times the
    column limit (the XML reader holds a whole row in memory: a row of ten million empty
    `<c/>` would take gigabytes), or more cell elements than the cell limit; or None.  And
    whether the sheet has formulas (`<f>`)."""
    rows = cells = in_row = 0
    formulas = False
    buf = b""
    while True:
        chunk = f.read(1 << 20)
        buf += chunk
        end = len(buf) if not chunk else max(0, len(buf) - 64)    # (a tag cut at the end: next time)
        for m in _TAG.finditer(buf):
            if m.start() >= end:
                break
            if m.group(1) == b"row":
                rows += 1
                in_row = 0
                if rows > 2 * MAX_SHEET_ROWS:
                    return f"has more than {MAX_SHEET_ROWS:,} rows (limit CARDGEN_MAX_SHEET_ROWS)", formulas
            elif m.group(1) == b"f":
                formulas = True
            else:
                cells += 1
                in_row += 1
                if in_row > 20 * MAX_SHEET_COLUMNS:
                    return (f"has a row of more than {MAX_SHEET_COLUMNS:,} columns (limit "
                            f"CARDGEN_MAX_SHEET_COLUMNS)", formulas)
                if cells > MAX_SHEET_CELLS:
                    return f"has more than {MAX_SHEET_CELLS:,} cells (limit CARDGEN_MAX_SHEET_CELLS)", formulas
        if not chunk:
            return None, formulas
        buf = buf[end:]


def _formulas_without_values(path: Path, wb: Any, ws: Any, name: str, report: Report) -> None:
    """Warn at each formula cell that has no saved value (at most a few, then how many)."""
    import xml.etree.ElementTree as ET

    ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    part = getattr(ws, "_worksheet_path", None)
    archive = getattr(wb, "_archive", None)
    if not part or archive is None:
        return
    found: list[str] = []
    with archive.open(part) as f:
        for _, el in ET.iterparse(f, events=("end",)):
            if el.tag != f"{ns}c":
                continue
            formula = el.find(f"{ns}f")
            value = el.find(f"{ns}v")
            if formula is not None and (value is None or not (value.text or "").strip()) and \
                    el.get("t") != "inlineStr":
                found.append(el.get("r") or "")
            el.clear()
    places = []
    for cell in found:
        m = re.fullmatch(r"([A-Z]+)([0-9]+)", cell)
        col = sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(m.group(1)))) if m else 0
        places.append((int(m.group(2)) if m else 0, col))
    _warn_formulas(path, name, places, report)


def _warn_formulas(path: Path, sheet: str, places: list[tuple[int, int]], report: Report) -> None:
    """A warning at each formula cell without a saved value (the first five, then how many)."""
    ref = _sheet_ref(sheet)
    for n, (row, col) in enumerate(places[:5]):
        more = f" ({len(places) - 5} more such cells)" if n == 4 and len(places) > 5 else ""
        report.warn(Loc(str(path), row, col, f"{ref}!{column_letters(col)}{row}"),
                    f"{path.name}: this cell has a formula but no saved value (the file was not saved by a "
                    f"spreadsheet program that calculates), so cardgen reads it as empty; open the file in Excel "
                    f"or LibreOffice and save it again{more}", "sheet-formula")


def read_ods(path: Path, sheet: str | int | None, loc: Loc, report: Report | None = None) -> list[Row]:
    """An OpenDocument spreadsheet's sheet, with python-calamine: the file is checked first
    (its parts and repeated cells, `_ods_cells`), and whatever the library raises, a Rust
    panic included, is a located error."""
    try:
        import python_calamine as pc
    except ImportError:
        raise CardgenError(loc, "reading .ods files needs python-calamine, which is not installed: "
                                "pip install 'python-calamine<1' (or reinstall cardgen), or save the sheet "
                                "as .xlsx", code="sheet") from None
    _check_workbook(path, loc)
    formulas = _ods_cells(path, loc)
    try:
        wb = pc.load_workbook(str(path))
        name = _pick_sheet(list(wb.sheet_names), sheet, path, loc)
        data = wb.get_sheet_by_name(name).to_python(skip_empty_area=False)
    except CardgenError:
        raise
    except BaseException as exc:   # calamine raises its own error types, and a Rust panic is a BaseException
        if not _library_failure(exc):
            raise
        raise CardgenError(loc, f"cannot read {path.name} as an OpenDocument spreadsheet "
                                f"({type(exc).__name__}: {_clean(str(exc))}); save it again as .ods or .xlsx",
                           code="sheet") from None
    rows = _grid(path, name, ([None if v == "" else v for v in record] for record in data))
    if report is not None:
        _warn_formulas(path, name, formulas.get(name, []), report)
    return rows


# -- rows to cards -------------------------------------------------------------------------------

def _ydict(loc: Loc) -> YDict:
    d = YDict()
    d.loc, d.key_locs, d.value_locs = loc, {}, {}
    return d


def rows_to_cards(rows: list[Row], src: SheetSource, report: Report, where: str, loc: Loc,
                  locs: Any = None) -> YList:
    """The cards of a sheet, as the YAML loader would give them (every value located);
    `locs`: the deck's `columns:` mapping as written (for its places)."""
    cards = YList()
    cards.loc, cards.item_locs = loc, []
    columns: list[Column | None] | None = None
    name_col: int | None = None
    warned_blank: set[int] = set()
    for row in rows:
        if not any(cell_value(raw) is not None for raw, _ in row):
            continue
        if _is_comment(row[0][0]):
            continue
        if columns is None:
            columns = read_header(row, report, where, mapping_of(src))
            check_mapped(src, columns, where, locs, loc)
            name_col = next((j for j, c in enumerate(columns) if c and c.key == "name" and not c.back), None)
            if name_col is None:
                raise CardgenError(row[0][1], f"{where}: the header row has no `name` column; the first row "
                                              f"names the fields and every card needs a name", code="sheet-header")
            continue
        assert name_col is not None
        if name_col >= len(row) or cell_value(row[name_col][0]) is None:
            continue                        # a row with no name is skipped
        card = _ydict(row[0][1])
        back: YDict | None = None
        for j, (raw, cloc) in enumerate(row):
            value = cell_value(raw)
            if value is None:
                continue
            col = columns[j] if j < len(columns) else None
            if col is None:
                if j not in warned_blank:
                    warned_blank.add(j)
                    report.warn(cloc, f"{where}: {column_name(cloc)} has no header; its cells are ignored "
                                      f"(give it a name in the header row)", "sheet-header")
                continue
            if col.ignored:
                continue
            if col.is_list:
                items = YList(cell_value(part) for part in str(raw).split(src.separator))
                items = YList(v for v in items if v is not None)
                items.loc, items.item_locs = cloc, [cloc] * len(items)
                value = items
            target = card
            if col.back:
                if back is None:
                    back = _ydict(cloc)
                    card["back"] = back
                    card.key_locs["back"], card.value_locs["back"] = col.loc, cloc
                target = back
            target[col.key] = value
            target.key_locs[col.key] = col.loc
            target.value_locs[col.key] = cloc
        cards.append(card)
        cards.item_locs.append(card.loc)
    return cards


# -- the one entry point ---------------------------------------------------------------------------

def source_of(value: Any) -> SheetSource:
    """The declared source for a deck's `cards:` value that is not a list."""
    if isinstance(value, str):
        return SheetSource(file=value.strip())
    return SheetSource.load_unchecked(value, STATIC_ENV)


def read_cards(value: Any, deck_path: Path, loc: Loc, report: Report, cache: Path | None = None,
               where: str = "cards") -> YList:
    """A deck's `cards:` spreadsheet as cards.  `loc`: the `cards:` value in the deck file;
    `cache`: where fetched Google Sheets are kept (None: not kept); `where` starts messages
    (`deck 'Actions'`)."""
    src = source_of(value)
    if src.url is not None:
        text = fetch_sheet(src.url, cache, src.refresh_after * 60, report, loc)
        rows = read_csv_text(text, f"{deck_path} (Google Sheet)")
        # Workbook-style places: `deck.yaml (Google Sheet): B5`.
        prefix = f"{_sheet_ref(str(src.sheet))}!" if src.sheet else ""
        rows = [[(v, Loc(c.file, c.line, c.col, f"{prefix}{column_letters(c.col)}{c.line}")) for v, c in row]
                for row in rows]
    else:
        assert src.file is not None
        path = deck_path.parent / src.file
        try:        # a spreadsheet lives with its deck, inside the game folder (docs/security.md)
            refs.check_written(src.file, "spreadsheet")
            if path.is_file():
                refs.confined(path, (deck_path.parent.resolve(),), "sheet", "spreadsheet", src.file, loc)
        except PathRefused as exc:
            raise CardgenError(loc, str(exc), code="path") from None
        if not path.is_file():
            why = not_a_file(path, "spreadsheet", src.file)
            raise CardgenError(loc, why or f"spreadsheet '{src.file}' not found next to {deck_path.name}",
                               code="sheet")
        suffix = path.suffix.lower()
        try:
            if suffix in (".csv", ".tsv"):
                rows = read_csv(path, src.encoding, report, loc)
            elif suffix in (".xlsx", ".xlsm"):
                rows = read_xlsx(path, src.sheet, loc, report)
            else:
                rows = read_ods(path, src.sheet, loc, report)
        except OSError as exc:
            raise CardgenError(loc, read_problem(exc, path.name, "spreadsheet"), code="sheet") from None
    locs = value.get("columns") if isinstance(value, dict) else None
    return rows_to_cards(rows, src, report, where, loc, locs)
