"""Card data from spreadsheets (cardgen.load.sheets): CSV, XLSX, ODS and a published Google
Sheet give the same cards as YAML, and every message points at the cell."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
import sheetserver
from click.testing import CliRunner
from sheetfiles import write_ods, write_xlsx
from vgame import make_game as _make_game

from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.load import sheets
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import check_game, load_game

FACE = """\
defaults: {power: 0}
elements:
  - {name: bg, type: rect, box: bleed, fill: "#ffffff"}
  - {name: title, type: text, y: 5mm, height: 10mm, text: "{{ card.name }}", box: safe}
  - {name: cost, type: text, y: 15mm, height: 5mm, text: "{{ card.cost }} {{ card.type }} {{ card.power }}", box: safe}
  - {name: body, type: text, when: card.text is defined, y: 20mm, height: 30mm, text: "{{ card.text }}", box: safe}
  - {name: tags, type: text, when: card.tags is defined, y: 60mm, height: 8mm, text: "{{ card.tags | join(' / ') }}", box: safe}
"""

HEADER = ["name", "qty", "cost", "text", "tags[]", "power"]
ROWS = [
    ["Scout", 3, 1, "Draw 2, then discard 1.", "Move;Draw", None],
    ["# Flood", 9, 9, "commented out", None, None],
    ["No", 1, 0, "Cancel an action.", "React", 2.5],
    ["0012", 2, 2, "A number-like name.", None, None],
    [None, 1, 1, "a row without a name is skipped", None, None],
    ["Hold", 1, 3, None, "Keep", 1],
]

YAML_CARDS = """\
cards:
  - {name: Scout, count: 3, cost: 1, text: "Draw 2, then discard 1.", tags: [Move, Draw]}
  - {name: "No", count: 1, cost: 0, text: "Cancel an action.", tags: [React], power: 2.5}
  - {name: "0012", count: 2, cost: 2, text: "A number-like name."}
  - {name: Hold, count: 1, cost: 3, tags: [Keep], power: 1}
"""

DECK = "deck: Action\ntemplate: g/face\ndefaults: {type: Act}\n"
RULES = "source: t\ncomponents:\n  - deck: Action\n    quote: q\n    total: 7\n"


def make_game(tmp_path, **kw):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return _make_game(tmp_path, **kw)


NAME_FACE = """\
elements:
  - {name: title, type: text, y: 5mm, height: 10mm, text: "{{ card.name }}", box: safe}
"""


def _csv_text(rows, sep=","):
    def cell(v):
        if v is None:
            return ""
        text = str(v)
        return f'"{text}"' if sep in text or "\n" in text or '"' in text else text
    return "".join(sep.join(cell(v) for v in row) + "\n" for row in rows)


def _game(tmp_path, kind):
    if kind == "yaml":
        decks = {"action.yaml": DECK + YAML_CARDS}
    elif kind == "csv":
        decks = {"action.yaml": DECK + "cards: action.csv\n"}
    elif kind == "xlsx":
        decks = {"action.yaml": DECK + "cards: {file: cards.xlsx, sheet: Actions}\n"}
    else:
        decks = {"action.yaml": DECK + "cards: {file: cards.ods, sheet: Actions}\n"}
    root = make_game(tmp_path, decks=decks, templates={"face": FACE}, rules=RULES)
    if kind == "csv":
        (root / "action.csv").write_text(_csv_text([HEADER, *ROWS]), encoding="utf-8")
    elif kind == "xlsx":
        write_xlsx(root / "cards.xlsx", {"Other": [["nothing"]], "Actions": [HEADER, *ROWS]})
    elif kind == "ods":
        write_ods(root / "cards.ods", {"Other": [["nothing"]], "Actions": [HEADER, *ROWS]})
    return root


def _diags(root, project):
    report = Report()
    check_game(root, project, report)
    cwd = os.getcwd()
    os.chdir(project)
    try:
        return [str(d) for d in report.said()]      # (as printed: a problem of many cards once)
    finally:
        os.chdir(cwd)


# -- the same deck in every format ----------------------------------------------------------------

@pytest.mark.parametrize("kind", ["csv", "xlsx", "ods"])
def test_a_sheet_gives_the_cards_yaml_gives(tmp_path, kind):
    want = load_game(_game(tmp_path / "y", "yaml"), tmp_path / "y").decks[0]
    got = load_game(_game(tmp_path / kind, kind), tmp_path / kind).decks[0]
    assert [(c.name, c.count, c.fields) for c in got.cards] == [(c.name, c.count, c.fields) for c in want.cards]
    assert [c.fields["name"] for c in got.cards] == ["Scout", "No", "0012", "Hold"]
    assert got.cards[1].fields["power"] == 2.5 and got.cards[0].fields["cost"] == 1
    assert "text" not in got.cards[3].fields and got.cards[3].fields["type"] == "Act"     # empty cell, default
    assert got.count == 7


def test_same_deck_as_yaml_csv_xlsx_ods_gives_byte_identical_pdfs(tmp_path):
    pdfs = {}
    for kind in ("yaml", "csv", "xlsx", "ods"):
        root = _game(tmp_path / kind, kind)
        out = tmp_path / f"out-{kind}"
        build_game(root, tmp_path / kind, BuildOptions(out=out, only=("cards", "print"), papers=("letter",)),
                   Report())
        pdfs[kind] = [(out / "g" / name).read_bytes() for name in ("cards.pdf", "print-letter.pdf")]
    assert len(pdfs["yaml"][0]) > 1000
    for kind in ("csv", "xlsx", "ods"):
        assert pdfs[kind] == pdfs["yaml"], kind


# -- every message at its cell --------------------------------------------------------------------

BROKEN_FACE = """\
elements:
  - {name: title, type: text, y: 5mm, height: 10mm, text: "{{ card.name }}", box: safe}
  - {name: cost, type: text, y: 15mm, height: 5mm, text: "{{ card.cost }}", box: safe}
  - {name: body, type: text, when: card.text is defined, y: 20mm, height: 40mm, text: "{{ card.text }}", box: safe}
"""
BROKEN = [["name", "count", "cost", "txt"],
          ["Alpha", "two", 1, "hello"],
          ["Beta", 1, None, "x"],
          ["Alpha", 1, 1, "again"],
          ["Gamma", 2, 1, None]]
BROKEN_RULES = "source: t\ncomponents:\n  - deck: Action\n    quote: q\n    cards: {Gamma: 3}\n    others: 1\n"


def test_every_csv_message_names_line_and_column(tmp_path):
    root = make_game(tmp_path, decks={"actions.yaml": "deck: Action\ntemplate: g/face\ncards: actions.csv\n"},
                     templates={"face": BROKEN_FACE}, rules=BROKEN_RULES)
    text = _csv_text([["Beta\n(two lines)" if v == "Beta" else v for v in row] for row in BROKEN])
    (root / "actions.csv").write_text(text, encoding="utf-8")
    got = _diags(root, tmp_path)
    assert got == [
        "cards/g/actions.csv:1:4: warning: Action: field 'txt' that no template uses (did you mean 'text'?) on 3 "
        "cards (first: 'Alpha', actions.csv:2:1)",
        "cards/g/actions.csv:2:2: error: card 'Alpha': count must be a whole number (0 to 10000), got 'two'",
        "cards/g/actions.csv:5:1: error: deck 'Action': duplicate card name 'Alpha' (also at line 2); give each "
        "card its own name or raise the first one's count",
        "templates/g/face.yaml:3:58: error: card 'Beta\\n(two lines)' (actions.csv:3) has no field 'cost' (used by "
        "element 'cost'); add `cost:` to the card, or a default under `defaults:` in template g/face",
    ]


def test_every_workbook_message_names_sheet_and_cell(tmp_path):
    root = make_game(tmp_path, decks={"actions.yaml": "deck: Action\ntemplate: g/face\n"
                                                      "cards: {file: cards.xlsx, sheet: Actions}\n"},
                     templates={"face": BROKEN_FACE}, rules=BROKEN_RULES)
    write_xlsx(root / "cards.xlsx", {"Actions": BROKEN})
    got = _diags(root, tmp_path)
    assert got == [
        "cards/g/cards.xlsx: Actions!D1: warning: Action: field 'txt' that no template uses (did you mean "
        "'text'?) on 3 cards (first: 'Alpha', cards.xlsx Actions!A2)",
        "cards/g/cards.xlsx: Actions!B2: error: card 'Alpha': count must be a whole number (0 to 10000), got 'two'",
        "cards/g/cards.xlsx: Actions!A4: error: deck 'Action': duplicate card name 'Alpha' (also at line 2); give "
        "each card its own name or raise the first one's count",
        "templates/g/face.yaml:3:58: error: card 'Beta' (cards.xlsx Actions!A3) has no field 'cost' (used by "
        "element 'cost'); add `cost:` to the card, or a default under `defaults:` in template g/face",
    ]


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_counts_against_the_rules_name_the_cell(tmp_path, kind):
    cards = "actions.csv" if kind == "csv" else "{file: cards.xlsx, sheet: Actions}"
    root = make_game(tmp_path, decks={"actions.yaml": f"deck: Action\ntemplate: g/face\ncards: {cards}\n"},
                     templates={"face": NAME_FACE}, rules=BROKEN_RULES)
    rows = [["name", "copies"], ["Alpha", 1], ["Gamma", 2]]
    if kind == "csv":
        (root / "actions.csv").write_text(_csv_text(rows))
        where = "actions.csv:3"
    else:
        write_xlsx(root / "cards.xlsx", {"Actions": rows})
        where = "cards.xlsx Actions!B3"
    assert _diags(root, tmp_path) == [
        f"cards/g/rules.yaml:5:20: error: Action: rules say 3 x Gamma (rules.yaml:5), deck has 2 ({where})"]


def test_sheet_name_with_spaces_is_quoted_and_json_carries_the_cell(tmp_path):
    root = make_game(tmp_path, decks={"a.yaml": "deck: Action\ntemplate: g/face\n"
                                                "cards: {file: c.xlsx, sheet: My cards}\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    write_xlsx(root / "c.xlsx", {"My cards": [["name", "count", "cost"], ["A", -1, 1]]})
    report = Report()
    check_game(root, tmp_path, report)
    (d,) = report.errors
    assert d.loc == Loc(str(root / "c.xlsx"), 2, 2, "'My cards'!B2")
    assert str(d).endswith("c.xlsx: 'My cards'!B2: error: card 'A': count must not be negative, got -1")
    assert d.as_dict()["cell"] == "'My cards'!B2" and d.as_dict()["line"] == 2


def test_loc_with_a_cell_stays_ordered_and_hashable():
    a, b = Loc("f.xlsx", 2, 2, "S!B2"), Loc("f.xlsx", 2, 2)
    assert a != b and len({a, b, Loc("f.xlsx", 2, 2, "S!B2")}) == 2
    assert sorted([a, Loc("f.xlsx", 1, 9, "S!I1")])[0].line == 1
    assert str(Loc("cards.xlsx", 5, 2, "Actions!B5")) == "cards.xlsx: Actions!B5"
    assert str(Diagnostic(Loc("x.csv", 3, 2), "m")) == "x.csv:3:2: error: m"


def test_missing_sheet_and_missing_name_column(tmp_path):
    root = make_game(tmp_path, decks={"a.yaml": "deck: A\ntemplate: g/face\ncards: {file: c.xlsx, sheet: Actoins}\n",
                                      "b.yaml": "deck: B\ntemplate: g/face\ncards: b.csv\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    write_xlsx(root / "c.xlsx", {"Actions": [["name"], ["x"]], "Items": [["name"], ["y"]]})
    (root / "b.csv").write_text("title,cost\nx,1\n")
    assert _diags(root, tmp_path) == [
        "cards/g/a.yaml:3:8: error: c.xlsx has no sheet 'Actoins'; did you mean 'Actions'? (sheets: Actions, Items)",
        "cards/g/b.csv:1:1: error: deck 'B': the header row has no `name` column; the first row names the "
        "fields and every card needs a name",
    ]


# -- the reading rules ------------------------------------------------------------------------------

def _cards(tmp_path, text, *, name="d.csv", raw=None, deck_extra=""):
    root = make_game(tmp_path, decks={"d.yaml": f"deck: D\ntemplate: g/face\n{deck_extra}cards: {name}\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    if raw is not None:
        (root / name).write_bytes(raw)
    else:
        (root / name).write_text(text, encoding="utf-8")
    report = Report()
    game = load_game(root, tmp_path, report)
    return game.decks[0].cards, report


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("-2", -2), ("+4", 4), ("0", 0), ("1.5", 1.5), (".5", 0.5), ("2e3", 2000.0), ("1.", 1.0),
    ("0012", "0012"), ("No", "No"), ("true", "true"), ("1,000", "1,000"), ("inf", "inf"), (".nan", ".nan"),
    ("1e999", "1e999"), ("0x1F", "0x1F"), ("3 cards", "3 cards"), ("e3", "e3"), ("-", "-"), ("00.5", "00.5"),
])
def test_a_cell_is_a_number_only_where_yaml_reads_one(text, value):
    got = sheets.typed(text)
    assert got == value and type(got) is type(value)


def test_count_aliases_and_which_one_wins(tmp_path):
    for header in ("qty", "Quantity", "COPIES", "Count"):
        cards, report = _cards(tmp_path / header, f"Name,{header}\nA,4\n")
        assert [(c.name, c.count) for c in cards] == [("A", 4)] and not report.items
    cards, report = _cards(tmp_path / "two", "name,qty,text,count\nA,4,x,2\n")
    assert cards[0].count == 2
    assert [d.message for d in report.warnings] == [
        "deck 'D': columns 'count' and 'qty' both give the number of copies; using 'count' (column 4), "
        "ignoring 'qty'"]
    assert report.warnings[0].loc.line == 1 and report.warnings[0].loc.col == 2
    cards, report = _cards(tmp_path / "three", "name,qty,copies\nA,4,5\n")
    assert cards[0].count == 4 and "using 'qty' (column 2), ignoring 'copies'" in report.warnings[0].message


def test_empty_cells_comments_skipped_rows_and_lists(tmp_path):
    text = ("# notes above the header\n"
            "name,text,tags[],cost\n"
            "A,,x; y ;;3,\n"
            "#B,commented,,\n"
            ",no name,,\n"
            ",,,\n"
            "C,  spaced  ,,7\n")
    cards, report = _cards(tmp_path, text, deck_extra="defaults: {cost: 1}\n")
    assert [c.name for c in cards] == ["A", "C"]
    assert cards[0].fields == {"cost": 1, "name": "A", "tags": ["x", "y", 3], "count": 1}
    assert cards[1].fields == {"cost": 7, "name": "C", "text": "spaced", "count": 1}
    assert cards[0].data.value_loc("tags") == Loc(str(tmp_path / "cards/g/d.csv"), 3, 3)
    assert not report.items


def test_list_separator_and_back_fields(tmp_path):
    cards, _ = _cards(tmp_path, "name,tags[],back.text\nA,x|y,Secret\n",
                      deck_extra="backs: g/face\n")
    assert cards[0].fields["tags"] == ["x|y"]
    assert cards[0].back_fields["text"] == "Secret"
    root = make_game(tmp_path / "sep", decks={"d.yaml": "deck: D\ntemplate: g/face\n"
                                                        "cards: {file: d.csv, separator: '|'}\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    (root / "d.csv").write_text("name,tags[]\nA,x|y\n")
    assert load_game(root, tmp_path / "sep").decks[0].cards[0].fields["tags"] == ["x", "y"]


def test_header_problems(tmp_path):
    with pytest.raises(CardgenError) as exc:
        _cards(tmp_path / "dup", "name,text,text\nA,x,y\n")
    assert exc.value.diagnostics[0].message == "deck 'D': column 'text' appears twice (also column 2); rename or " \
                                               "remove one"
    assert exc.value.diagnostics[0].loc.col == 3
    cards, report = _cards(tmp_path / "blank", "name,,text\nA,lost,x\nB,lost too,y\n")
    assert [d.message for d in report.warnings] == [
        "deck 'D': column 2 has no header; its cells are ignored (give it a name in the header row)"]
    assert cards[0].fields == {"name": "A", "text": "x", "count": 1}


@pytest.mark.parametrize("text, delimiter", [
    ("name;cost;text\nA;1;Draw, then discard.\n", ";"),
    ("name\tcost\ttext\nA\t1\tDraw, then discard.\n", "\t"),
    ("name,cost,text\nA,1,\"Draw; then, discard.\"\n", ","),
    ("name|cost|text\nA|1|Draw, then discard.\n", "|"),
])
def test_delimiter_is_sniffed(tmp_path, text, delimiter):
    cards, _ = _cards(tmp_path, text)
    assert cards[0].fields["cost"] == 1
    assert cards[0].fields["text"] in ("Draw, then discard.", "Draw; then, discard.")


def test_single_column_csv(tmp_path):
    cards, _ = _cards(tmp_path, "name\nA\nB, with a comma\n".replace("B, with a comma", '"B, with a comma"'))
    assert [c.name for c in cards] == ["A", "B, with a comma"]


def test_bom_and_not_utf8(tmp_path):
    cards, report = _cards(tmp_path / "bom", "", raw="\ufeffname,text\nCafé,ü\n".encode())
    assert cards[0].name == "Café" and not report.items
    cards, report = _cards(tmp_path / "cp", "", raw="name,text\nCafé,10 €\n".encode("cp1252"))
    assert cards[0].name == "Café" and cards[0].fields["text"] == "10 €"
    assert [d.message for d in report.warnings] == [
        "d.csv is not UTF-8 text (byte 14); read it as Windows-1252 (cp1252); save it as \"CSV UTF-8\" or set "
        "`encoding:` in the deck's `cards:` if letters look wrong"]
    root = make_game(tmp_path / "enc", decks={"d.yaml": "deck: D\ntemplate: g/face\n"
                                                        "cards: {file: d.csv, encoding: latin-1}\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    (root / "d.csv").write_bytes("name\nNaïve\n".encode("latin-1"))
    report = Report()
    assert load_game(root, tmp_path / "enc", report).decks[0].cards[0].name == "Naïve" and not report.items


def test_bad_cards_values_are_one_line_errors(tmp_path):
    root = make_game(tmp_path, decks={"d.yaml": "deck: D\ntemplate: g/face\ncards: {file: d.csv, url: x}\n",
                                      "e.yaml": "deck: E\ntemplate: g/face\ncards: e.txt\n",
                                      "f.yaml": "deck: F\ntemplate: g/face\ncards: nothere.xlsx\n",
                                      "h.yaml": "deck: H\ntemplate: g/face\ncards: broken.xlsx\n",
                                      "i.yaml": "deck: I\ntemplate: g/face\ncards: https://x.test/a.csv\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    (root / "broken.xlsx").write_text("not a zip")
    got = _diags(root, tmp_path)
    assert got == [
        "cards/g/d.yaml:3:8: error: deck file d.yaml: `cards` needs either `file:` (a spreadsheet next to the "
        "deck file) or `url:` (a published Google Sheet), not both",
        "cards/g/e.yaml:3:8: error: deck file e.yaml: `cards` must be a list of cards (`- name: ...`) or a "
        "spreadsheet file (.csv, .tsv, .xlsx, .xlsm, .ods), got 'e.txt'",
        "cards/g/f.yaml:3:8: error: spreadsheet 'nothere.xlsx' not found next to f.yaml",
        "cards/g/h.yaml:3:8: error: cannot read broken.xlsx as an Excel workbook (BadZipFile: File is not a zip "
        "file); save it again as .xlsx",
        "cards/g/i.yaml:3:8: error: deck file i.yaml: `cards` is a link; a Google Sheet's link goes under `url:`: "
        "cards: {url: \"https://x.test/a.csv\"}",
    ]


def test_workbook_values(tmp_path):
    import datetime as dt

    root = make_game(tmp_path, decks={"d.yaml": "deck: D\ntemplate: g/face\ncards: {file: c.xlsx}\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    write_xlsx(root / "c.xlsx", {"First": [["name", "n", "f", "b", "d", "t"],
                                           ["A", 3.0, 2.25, True, dt.datetime(2025, 3, 1), " 0012 "]],
                                 "Second": [["name"], ["ignored"]]})
    (card,) = load_game(root, tmp_path).decks[0].cards
    assert card.fields == {"name": "A", "n": 3, "f": 2.25, "b": True, "d": "2025-03-01", "t": "0012", "count": 1}
    assert type(card.fields["n"]) is int


# -- Google Sheets ------------------------------------------------------------------------------------

WEB = "https://sheets.example.test"        # (reached, in the tests, at a server on this computer: sheetserver)


@pytest.fixture
def server(monkeypatch):
    srv = sheetserver.start()
    sheetserver.route(monkeypatch, srv)
    yield srv
    sheetserver.stop(srv)


def _web_game(tmp_path, url, extra=""):
    return make_game(tmp_path, decks={"d.yaml": f"deck: D\ntemplate: g/face\ncards: {{url: \"{url}\"{extra}}}\n"},
                     templates={"face": NAME_FACE}, rules=None)


def _load(root, project, out, **kw):
    report = Report()
    with sheets.settings(sheets.SheetSettings(out=out, **kw)):
        try:
            game = load_game(root, project, report)
        except CardgenError as exc:
            return None, [d.message for d in exc.diagnostics]
    return game, [d.message for d in report.items]


def test_google_sheet_fetched_and_cached(server, tmp_path):
    url = f"{WEB}/ok.csv"
    root = _web_game(tmp_path, url)
    game, msgs = _load(root, tmp_path, tmp_path / "out")
    assert msgs == [] and [(c.name, c.count, c.fields["text"]) for c in game.decks[0].cards] == \
        [("A", 2, "From the web"), ("B", 1, "Again")]
    cached = sorted(p.suffix for p in (tmp_path / "out" / "g" / ".cache" / "sheets").iterdir())
    assert cached == [".sheet"]
    assert game.decks[0].cards[1].loc == Loc(f"{root / 'd.yaml'} (Google Sheet)", 3, 1, "A3")
    _load(root, tmp_path, tmp_path / "out")                     # a recent copy: not fetched again
    assert len(sheetserver.Handler.hits) == 1
    _load(root, tmp_path, tmp_path / "out", refresh=True)       # --refresh: fetched now
    assert len(sheetserver.Handler.hits) == 2


def test_google_sheet_errors(server, tmp_path):
    cases = {
        "missing": (f"{WEB}/missing", "could not fetch the sheet (the server answered 404 Not "
                    "Found; is the sheet published (File > Share > Publish to web)?) and no copy of it is cached yet"),
        "slow": (f"{WEB}/slow", "could not fetch the sheet (no complete answer within 0.2 s (limit CARDGEN_MAX_FETCH_SECONDS)) and no copy "
                 "of it is cached yet"),
        "html": (f"{WEB}/html", "could not fetch the sheet (the link gives a web page, not CSV; "
                 "publish the sheet as CSV (File > Share > Publish to web, choose the sheet and \"Comma-separated "
                 "values\")) and no copy of it is cached yet"),
        "http": ("http://example.com/x.csv", "cannot fetch 'http://example.com/x.csv': only https:// links can be "
                 "fetched (File > Share > Publish to web gives one)"),
    }
    for name, (url, message) in cases.items():
        root = _web_game(tmp_path / name, url)
        start = time.perf_counter()
        game, msgs = _load(root, tmp_path / name, tmp_path / name / "out", timeout=0.2)
        assert game is None and msgs == [message], name
        assert time.perf_counter() - start < 4, name     # /slow answers after 5 s


def test_google_sheet_offline_with_and_without_cache(tmp_path, monkeypatch):
    srv = sheetserver.start()
    sheetserver.route(monkeypatch, srv)
    url = f"{WEB}/ok.csv"
    root = _web_game(tmp_path / "a", url)
    game, msgs = _load(root, tmp_path / "a", tmp_path / "out")
    assert len(game.decks[0].cards) == 2
    sheetserver.stop(srv)                                         # offline from here on
    game, msgs = _load(root, tmp_path / "a", tmp_path / "out", refresh=True, timeout=0.5)
    assert [c.name for c in game.decks[0].cards] == ["A", "B"]
    assert len(msgs) == 1 and msgs[0].startswith("could not fetch the sheet (cannot reach the server (")
    assert re.search(r"\); using the copy fetched [01] s ago$", msgs[0])
    game, msgs = _load(root, tmp_path / "a", tmp_path / "elsewhere", refresh=True, timeout=0.5)
    assert game is None and len(msgs) == 1 and msgs[0].endswith("and no copy of it is cached yet")


def test_build_refresh_flag_reaches_the_fetch(server, tmp_path):
    url = f"{WEB}/ok.csv"
    root = _web_game(tmp_path, url, ", refresh_after: 60")
    for refresh in (False, False, True):
        build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",), refresh=refresh), Report())
    assert len(sheetserver.Handler.hits) == 2
    assert (tmp_path / "out" / "g" / "cards.pdf").is_file()
    from cardgen.cli.main import main
    assert "--refresh" in CliRunner().invoke(main, ["build", "--help"]).output


# -- cardgen new --from ---------------------------------------------------------------------------------

def test_new_from_a_workbook(tmp_path, monkeypatch):
    from vgame import make_project

    from cardgen.cli.main import main

    (tmp_path / "p").mkdir()
    project = make_project(tmp_path / "p")
    src = tmp_path / "mine.xlsx"
    write_xlsx(src, {"Actions": [["Name", "Qty", "cost", "tags[]", "Flavor Text"], ["Dig", 2, 1, "a;b", "Deep."],
                                 ["Run", 1, None, None, "Fast."]],
                     "Notes": [["just notes"]],
                     "Items": [["name", "power"], ["Rope", 1]]})
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["new", "mine", "--from", str(src)])
    assert result.exit_code == 0, result.output
    root = project / "cards" / "mine"
    assert sorted(p.name for p in root.iterdir()) == ["actions.yaml", "game.yaml", "items.yaml", "mine.xlsx",
                                                      "templates"]
    assert "cards: {file: mine.xlsx, sheet: Actions, columns: {count: Qty}}" in (root / "actions.yaml").read_text()
    assert "Notes" in (root / "game.yaml").read_text()
    tpl = (root / "templates" / "mine" / "actions.yaml").read_text()     # self-contained
    for key in ("cost", "tags", "Flavor Text"):
        assert f"**{key}:**" in tpl
    report = Report()
    check_game(root, project, report)
    assert report.items == []
    written = build_game(root, project, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    from pypdf import PdfReader
    text = PdfReader(str(written[0])).pages[0].extract_text()
    assert "Deep." in text and "a, b" in text and "Flavor Text:" in text


# -- speed ------------------------------------------------------------------------------------------------

def test_two_thousand_rows_load(tmp_path):
    """2,000 rows of CSV and XLSX read whole (their speed is measured by benchmarks/bench_sheets.py,
    not here: a timed test fails on a busy machine)."""
    rows = [["name", "count", "cost", "text", "tags[]"]] + \
        [[f"Card {i}", 1 + i % 3, i % 7, f"Text of card {i}, with a comma.", "a;b"] for i in range(2000)]
    root = make_game(tmp_path, decks={"d.yaml": "deck: D\ntemplate: g/face\ncards: d.csv\n",
                                      "e.yaml": "deck: E\ntemplate: g/face\ncards: e.xlsx\n"},
                     templates={"face": BROKEN_FACE}, rules=None)
    (root / "d.csv").write_text(_csv_text(rows), encoding="utf-8")
    write_xlsx(root / "e.xlsx", {"S": rows})
    for name in ("d.csv", "e.xlsx"):
        cards = sheets.read_cards(name, root / "d.yaml", Loc("d.yaml", 3, 8), Report())
        assert len(cards) == 2000, name
        assert cards[1999]["name"] == "Card 1999" and cards[1999]["text"] == "Text of card 1999, with a comma.", name


def test_sheet_files_are_watched(tmp_path):
    from test_watch import Watcher

    root = _game(tmp_path, "xlsx")
    with Watcher([root]) as watcher:
        write_xlsx(root / "cards.xlsx", {"Actions": [HEADER, *ROWS[:1]]})
        calls = watcher.wait_for(1)
    assert calls and (root / "cards.xlsx").resolve() in calls[0]


def test_bundled_sheet_demo_reads_csv_and_xlsx():
    from conftest import REPO

    game = load_game(REPO / "cards" / "sheet-demo", REPO)
    by = {d.name: d for d in game.decks}
    assert {n: (d.count, len(d.cards)) for n, d in by.items()} == {"Actions": (9, 5), "Items": (6, 4),
                                                                    "Events": (4, 3)}
    assert by["Actions"].cards[3].name == "No" and by["Items"].cards[3].name == "0012"
    assert by["Actions"].cards[0].fields["tags"] == ["Move", "Draw"]
    assert Path(by["Items"].cards[0].loc.file).name == "cards.xlsx"
