"""`cardgen new NAME --from cards.xlsx`: a new game from an existing spreadsheet.

One deck per sheet (a CSV file is one sheet), each reading its sheet where it is
(`cards: {file: cards.xlsx, sheet: Actions}`), and per deck a template that prints every
column as a labelled line in the basic card's text box, to rearrange from there.
"""
from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import yaml

from cardgen.core.atomic import write_text
from cardgen.core.errors import CardgenError, Loc, Report
from cardgen.load import sheets
from cardgen.load.game import slugify
from cardgen.schema.files import SHEET_SUFFIXES

GAME = """\
# {title}: made by `cardgen new --from {source}`. Format: docs/games.md
title: {title}
card_size: {size}          # poker, bridge, tarot, euro, mini-euro, mini-american, square, jumbo
decks: [{decks}]
{skipped}"""

DECK = """\
# The cards are the rows of {where}; the header row names the fields (docs/spreadsheets.md).
deck: {deck}
template: {slug}/{deck_slug}       # templates/{slug}/{deck_slug}.yaml
back: {slug}/back
cards: {cards}
"""

BACK = "extends: basic/back\n"

COLOURS = ("#35506b", "#1d6a72", "#7a4b1e", "#6b2d5c", "#3f6b2d", "#8a3324")


def _sheet_names(path: Path) -> list[str | None]:
    """The sheets to make decks of (None: the file is one sheet)."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return [None]
    sheets._check_workbook(path, Loc(str(path)))        # (before a reader opens it: sizes, entities)
    try:
        if suffix == ".ods":
            import python_calamine as pc

            return list(pc.load_workbook(str(path)).sheet_names)
        import openpyxl

        wb = openpyxl.load_workbook(path, read_only=True)
        try:
            return list(wb.sheetnames)
        finally:
            wb.close()
    except BaseException as exc:   # any reader's "cannot read" (a Rust panic too): one line, no traceback
        if not sheets._library_failure(exc):
            raise
        raise CardgenError(Loc(str(path)), f"cannot read {path.name} as a workbook ({type(exc).__name__}: "
                                           f"{exc})") from None


NAME_GUESSES = ("name", "title", "card")
COUNT_GUESSES = ("count", "qty", "quantity", "copies")


def _guess(path: Path, sheet: str | None) -> dict[str, str]:
    """`columns:` for a sheet whose header has no `name` column: the first of Title, Card (any
    case) as the name, and Qty, Quantity, Copies as the count; {} where the header says it."""
    loc, report = Loc(str(path)), Report()
    suffix = path.suffix.lower()
    rows = sheets.read_csv(path, "utf-8", report, loc) if suffix in (".csv", ".tsv") else \
        sheets.read_xlsx(path, sheet, loc) if suffix in (".xlsx", ".xlsm") else sheets.read_ods(path, sheet, loc)
    header = next((row for row in rows if any(sheets.cell_value(raw) is not None for raw, _ in row)
                   and not sheets._is_comment(row[0][0])), [])
    texts = [str(raw).strip() for raw, _ in header if raw is not None and str(raw).strip()]
    chosen: dict[str, str] = {}
    for field, guesses in (("name", NAME_GUESSES), ("count", COUNT_GUESSES)):
        found = next((t for g in guesses for t in texts if t.lower() == g), None)
        if found is not None and found.lower() != field:
            chosen[field] = found
    return chosen


def _columns(path: Path, sheet: str | None) -> tuple[list[tuple[str, bool]], dict[str, str]]:
    """The fields a sheet's header names, (field, is a list), without name and count, and the
    `columns:` guessed for its name and count; raises if the sheet has no cards."""
    report = Report()
    mapping = _guess(path, sheet)
    value: dict = {"file": path.name, **({"sheet": sheet} if sheet is not None else {}),
                   **({"columns": mapping} if mapping else {})}
    cards = sheets.read_cards(value, path.parent / "deck.yaml", Loc(str(path)), report)
    if not cards:
        raise CardgenError(Loc(str(path)), "no cards")
    fields: dict[str, bool] = {}
    for card in cards:
        for key, v in card.items():
            if key not in ("name", "count", "back"):
                fields.setdefault(key, isinstance(v, list))
    return list(fields.items()), mapping


def _template(fields: list[tuple[str, bool]], colour: str) -> str:
    lines = []
    for key, is_list in fields:
        if any(ch in key for ch in "{}%#") or not key.isprintable():   # (line breaks: \n, U+2028, U+0085)
            continue                     # not a name a template line can hold; add it by hand
        ref = f"card[{key!r}]"
        value = f"{ref} | join(', ')" if is_list else ref
        lines += [f"  {{% if {ref} is defined %}}**{key}:** {{{{ {value} }}}}", "  {% endif %}"]
    text = "\n".join(lines) if lines else "  {{ card.name }}"
    return f"""\
# Every column of the sheet, one line each, in the basic card's text box. Move them into
# elements of their own as the design settles. Every option: docs/templates.md
extends: basic/card
defaults: {{type: ""}}
elements:
  - {{name: background, fill: "{colour}"}}
  - {{name: title-band, fill: "{colour}"}}
  - name: text
    when: true
    align: left
    valign: top
    size: 8
    min_size: 5
    text: |-
{textwrap.indent(text, "    ")}
"""


def new_game_from_sheet(cwd: Path, name: str, source: Path, size: str = "poker",
                        said: list[str] | None = None) -> Path:
    """Write the game `name` (the spreadsheet copied in, game.yaml, one deck file per sheet and
    a template for each in its own templates/) into `cwd/name/`, or `cards/name/` of the project
    `cwd` is in, as `cardgen new` does; refuse to overwrite.  Returns the game folder."""
    from cardgen.cli.new import new_game_dir

    source = Path(source)
    if not source.is_file():
        raise CardgenError(Loc(str(source)), "file not found")
    if source.suffix.lower() not in SHEET_SUFFIXES:
        raise CardgenError(Loc(str(source)), f"not a spreadsheet cardgen reads ({', '.join(SHEET_SUFFIXES)})")
    game_dir = new_game_dir(cwd, name, size)
    tpl_dir = game_dir / "templates" / name
    decks: list[tuple[str | None, list[tuple[str, bool]], dict[str, str]]] = []
    skipped: list[str] = []
    for sheet in _sheet_names(source):
        try:
            decks.append((sheet, *_columns(source, sheet)))
        except CardgenError:
            skipped.append(sheet or source.name)     # no header with a name column, or no rows
    if not decks:
        looked = ", ".join(g.title() for g in NAME_GUESSES)
        raise CardgenError(Loc(str(source)), f"no sheet has a header row with a name column ({looked}, in any "
                                             f"case) and cards under it; name the column in a deck's `columns:` "
                                             f"(docs/spreadsheets.md)")
    title = " ".join(w.capitalize() for w in name.split("-"))
    files: dict[Path, str] = {}
    slugs: list[str] = []
    for i, (sheet, fields, mapping) in enumerate(decks):
        deck = sheet or re.sub(r"[-_]+", " ", source.stem).strip().title() or "Cards"
        deck_slug = slugify(deck)
        while deck_slug in slugs or deck_slug in ("game", "rules", "back"):
            deck_slug += "-deck"
        slugs.append(deck_slug)
        spec: dict = {"file": source.name, **({"sheet": sheet} if sheet is not None else {}),
                      **({"columns": mapping} if mapping else {})}
        cards = source.name if len(spec) == 1 else \
            yaml.safe_dump(spec, default_flow_style=True, width=1000, sort_keys=False).strip()
        if mapping and said is not None:
            said.append(f"deck '{deck}': " + ", ".join(f"{field} from the column '{header}'"
                                                         for field, header in mapping.items()))
        where = source.name if sheet is None else f"the sheet '{sheet}' of {source.name}"
        files[game_dir / f"{deck_slug}.yaml"] = DECK.format(where=where, deck=yaml.safe_dump(deck).strip()
                                                            .removesuffix("\n...").strip(), slug=name,
                                                            deck_slug=deck_slug, cards=cards)
        files[tpl_dir / f"{deck_slug}.yaml"] = _template(fields, COLOURS[i % len(COLOURS)])
    note = f"# Not made into decks (no header row with a name column, or no cards): {', '.join(skipped)}\n" \
        if skipped else ""
    files[game_dir / "game.yaml"] = GAME.format(title=title, size=size, source=source.name, decks=", ".join(slugs),
                                                skipped=note)
    files[tpl_dir / "back.yaml"] = BACK
    game_dir.mkdir(parents=True)
    copy = game_dir / source.name
    shutil.copyfile(source, copy)
    for path, text in files.items():
        write_text(path, text)
    return game_dir
