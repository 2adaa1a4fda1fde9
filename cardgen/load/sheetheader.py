"""A spreadsheet's header row: which column gives which card field (`cardgen.load.sheets`
reads the rows; the rules are in its docstring and docs/spreadsheets.md).  A deck's
`columns:` (field: header, in any case) names the columns whose headers are not the fields."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.schema.files import SheetSource

COUNT_ALIASES = ("count", "qty", "quantity", "copies")
RESERVED = ("name", "count", "back")
Row = list[tuple[Any, Loc]]


def column_letters(n: int) -> str:
    """1 -> A, 27 -> AA."""
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def column_name(loc: Loc) -> str:
    """`column 3` (CSV) or `column C` (workbook), for messages."""
    return f"column {column_letters(loc.col)}" if loc.cell else f"column {loc.col}"


@dataclass
class Column:
    """One column of a spreadsheet's header: the card field it fills."""

    key: str              # the card field (`count` for every alias)
    header: str           # as written
    loc: Loc
    is_list: bool = False
    back: bool = False    # a `back.FIELD` column
    ignored: bool = False  # a second copy-count column (warned about)
    mapped: bool = False   # named by the deck's `columns:`


def read_header(row: Row, report: Report, where: str, mapping: dict[str, str] | None = None) -> list[Column | None]:
    """The columns a header row names (None for a column that gives no field); `mapping`: the
    deck's `columns:` as {header in lower case: field}."""
    columns: list[Column | None] = []
    seen: dict[tuple[bool, str], Column] = {}
    counts: list[Column] = []
    mapping = mapping or {}
    for raw, loc in row:
        text = "" if raw is None else str(raw).strip()
        if not text:
            columns.append(None)
            continue
        field = mapping.get(text.lower())
        back = field is None and text.lower().startswith("back.") and len(text) > 5
        key = text[5:].strip() if back else (field or text)
        is_list = key.endswith("[]") or (field is not None and text.endswith("[]"))
        if key.endswith("[]"):
            key = key[:-2].strip()
        field_of, at, lang = key.partition("@")
        if at and field_of.lower() in RESERVED and field is None:
            key = f"{field_of.lower()}@{lang}"     # (`Name@DE` translates `name`, docs/languages.md)
        std = "count" if key.lower() in COUNT_ALIASES else key.lower()
        if not back and field is None and std in RESERVED and std not in mapping.values():
            key = std           # (a field `columns:` gives another column keeps this one's header as written)
        col = Column(key, text, loc, is_list, back, mapped=field is not None)
        if not back and key == "count":
            counts.append(col)
            columns.append(col)
            continue
        if (back, key) in seen:
            first = seen[(back, key)]
            raise CardgenError(loc, f"{where}: column '{text}' appears twice (also {column_name(first.loc)}); "
                                    f"rename or remove one", code="sheet-header")
        seen[(back, key)] = col
        columns.append(col)
    if len(counts) > 1:
        used = next((c for c in counts if c.mapped), None) or \
            next((c for c in counts if c.header.lower() == "count"), counts[0])
        for c in counts:
            if c is not used:
                report.warn(c.loc, f"{where}: columns '{used.header}' and '{c.header}' both give the number of "
                                   f"copies; using '{used.header}' ({column_name(used.loc)}), ignoring "
                                   f"'{c.header}'", "count-alias")
                c.ignored = True
    return columns


def mapping_of(src: SheetSource) -> dict[str, str]:
    """The deck's `columns:` as {header in lower case: field}."""
    return {str(header).strip().lower(): field for field, header in (src.columns or {}).items()}


def check_mapped(src: SheetSource, columns: list[Column | None], where: str, locs: Any, loc: Loc) -> None:
    """A located error for a column `columns:` names that the header row does not have."""
    have = {c.header.lower() for c in columns if c is not None}
    for field, header in (src.columns or {}).items():
        if str(header).strip().lower() not in have:
            at = locs.value_loc(field) if hasattr(locs, "value_loc") else loc
            names = ", ".join(f"'{c.header}'" for c in columns if c is not None)
            raise CardgenError(at, f"{where}: `columns:` reads `{field}` from the column '{header}', which the "
                                   f"header row does not have (its columns: {names})", code="sheet-header")
