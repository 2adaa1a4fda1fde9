"""Every declared option of game.yaml, deck files, cards, rules.yaml and component entries,
fed a wrong type, a value out of range (where it has a range) and a misspelled key, through
real files on disk: the exact message at the exact `file:line:col`.

The table is checked against `Decl.options()`: a newly declared option without cases here
fails `test_every_option_has_cases`.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO
from vgame import make_project

from cardgen.core.data import DATA
from cardgen.core.errors import CardgenError, Report
from cardgen.pipeline.check import check_game, load_game
from cardgen.schema.files import (
    CardKeys,
    ComponentEntry,
    DeckFile,
    GameFile,
    PlayerAid,
    RulebookCallout,
    RulebookSection,
    RulebookTable,
    RulesFile,
)

FACE = "elements:\n  - {name: t, type: text, text: \"{{ card.name }}\"}\n"
DECK = "deck: D\ntemplate: g/face\ncards:\n  - name: A\n"
RULES = "components:\n  - deck: D\n    total: 1\n"

# (decl, key) -> {"wrong": (yaml, message, at), "range": (yaml, message, at) or None}
# `at`: the text on the tested line where the problem is located (default: the value).
G, D, C, R, E = GameFile, DeckFile, CardKeys, RulesFile, ComponentEntry
MAPPING = "{a: 1}"


def _text(what, key):
    return {"wrong": (MAPPING, f"{what}: `{key}` must be text, got a mapping", None), "range": None}


CASES: dict[tuple[type, str], dict] = {
    **{(G, k): _text("game.yaml", k) for k in ("title", "subtitle", "designer", "version", "players",
                                               "play_time", "ages")},
    (G, "card_size"): {
        "wrong": ("true", "game.yaml: `card_size` must be a card size name such as poker, one length such as 25mm, "
                          "or a mapping with width and height (or diameter), got true", None),
        "range": ("{width: 2000, height: 88}", "game.yaml: `card_size` width must be a length from 5 to 1000 mm, "
                                               "got 2000", "2000")},
    (G, "bleed"): {
        "wrong": ("lots", "game.yaml: `bleed` must be a length such as 5mm, 0.25in or 10pt, got 'lots'", None),
        "range": ("25mm", "game.yaml: `bleed` must be a length from 0 to 20 mm, got '25mm'", None)},
    (G, "decks"): {"wrong": ("5", "game.yaml: `decks` must be a list (text each), got 5", None), "range": None},
    (G, "fallback_fonts"): {
        "wrong": ("Lato", "game.yaml: `fallback_fonts` must be a list (text each), got 'Lato'", None),
        "range": ("[" + ", ".join(["Lato"] * 17) + "]", "game.yaml: `fallback_fonts` has 17 items; at most 16 are "
                                                        "allowed", None)},
    (G, "icons"): {"wrong": ("5", "game.yaml: `icons` must be a mapping of alias: text, got 5", None),
                   "range": None},
    (G, "language"): {
        "wrong": ("[en]", "game.yaml: `language` must be a language code such as en, en-GB, de or fr, got a list",
                  None),
        "range": ("xx", "game.yaml: `language` has no hyphenation dictionary for 'xx'; use a language code such as "
                        "en, en-GB, de, fr, es, it, nl, pt, pl or sv", "xx")},
    (G, "languages"): {
        "wrong": ("de", "game.yaml: `languages` must be a list of language codes, the source language first, such "
                        "as [en, de], got 'de'", None),
        "range": ("[en, xx]", "game.yaml: `languages` item 2 'xx' is not a language code cardgen knows (ISO 639-1: "
                              "en, de, fr, ...)", "xx")},
    (G, "words"): {
        "wrong": ("5", "game.yaml: `words` must be a mapping of cardgen's English text: text, got 5", None),
        "range": ("{Componets: Teile}", "game.yaml: `words` 'Componets' is not one of cardgen's own texts; did you "
                                        "mean 'Components'? (`cardgen i18n words` lists them)", "Teile")},
    (G, "mark_untranslated"): {
        "wrong": ("maybe", "game.yaml: `mark_untranslated` must be true or false, got 'maybe'", None), "range": None},
    (G, "hyphenate"): {
        "wrong": ("maybe", "game.yaml: `hyphenate` must be true or false, got 'maybe'", None), "range": None},
    (G, "image_dpi"): {
        "wrong": ("fine", "game.yaml: `image_dpi` must be a whole number from 72 to 2400, got 'fine'", None),
        "range": ("20", "game.yaml: `image_dpi` must be a whole number from 72 to 2400, got 20", None)},
    (G, "smart_punctuation"): {
        "wrong": ("maybe", "game.yaml: `smart_punctuation` must be true or false, got 'maybe'", None), "range": None},
    (G, "palette"): {
        "wrong": ("5", "game.yaml: `palette` must be a mapping of colour name: colour, got 5", None),
        "range": ("{ink: inky}", "game.yaml: `palette` 'ink' must be a colour such as #1d6a72, a CSS colour name "
                                 "or none, got 'inky'", "inky")},
    (G, "date"): {
        "wrong": ("May 2024", "game.yaml: `date` must be a date written YYYY-MM-DD, e.g. 2024-05-01, got "
                              "'May 2024'", None),
        "range": ("2024-02-30", "game.yaml: `date` must be a date written YYYY-MM-DD, e.g. 2024-05-01, got "
                                "'2024-02-30'", None)},
    (G, "vars"): {"wrong": ("5", "game.yaml: `vars` must be a mapping of name: value, got 5", None), "range": None},
    (G, "styles"): {
        "wrong": ("5", "game.yaml: `styles` must be a mapping of style name: span attributes (color, size, font, "
                       "weight, style, letter_spacing, align, space_before, space_after, indent, leading), got 5", None),
        "range": ("{prereq: {size: 900pt}}", "game.yaml: `styles` 'prereq' is not a valid style: size '900pt' is out "
                                             "of range", "900pt")},
    (G, "min_text_size"): {
        "wrong": ("small", "game.yaml: `min_text_size` must be a number, got 'small'", None),
        "range": ("0.5", "game.yaml: `min_text_size` must be a number from 1 to 72, got 0.5", None)},

    **{(D, k): _text("deck file d.yaml", k) for k in ("deck", "description", "designer_note", "template", "back",
                                                                 "backs", "path")},
    (D, "size"): {
        "wrong": ("[1, 2]", "deck file d.yaml: `size` must be a card size name such as poker, one length such as "
                            "25mm, or a mapping with width and height (or diameter), got a list", None),
        "range": ("{diameter: -3}", "deck file d.yaml: `size` diameter must be a length from 5 to 1000 mm, "
                                    "got -3", "-3")},
    (D, "kind"): {
        "wrong": ("5", "deck file d.yaml: `kind` must be one of card, token, tile, board, die, got 5", None),
        "range": ("tokn", "deck file d.yaml: `kind` must be one of card, token, tile, board, die, got 'tokn'; did you "
                          "mean 'token'?", None)},
    (D, "shape"): {
        "wrong": ("5", "deck file d.yaml: `shape` must be one of rect, round, hex-flat, hex-pointy, path, got 5",
                  None),
        "range": ("hexagon", "deck file d.yaml: `shape` must be one of rect, round, hex-flat, hex-pointy, path, got "
                             "'hexagon'", None)},
    (D, "bleed"): {
        "wrong": ("true", "deck file d.yaml: `bleed` must be a length such as 5mm, 0.25in or 10pt, got true", None),
        "range": (".inf", "deck file d.yaml: `bleed` must be a finite number, got inf", None)},
    (D, "defaults"): {"wrong": ("5", "deck file d.yaml: `defaults` must be a mapping of card fields to values, "
                                     "got 5", None), "range": None},
    (D, "cards"): {"wrong": ("5", "deck file d.yaml: `cards` must be a list of cards (`- name: ...`) or a spreadsheet, got 5", None),
                   "range": None},
    (D, "vars"): {"wrong": ("5", "deck file d.yaml: `vars` must be a mapping of name: value, got 5", None),
                  "range": None},
    (D, "computed"): {"wrong": ("5", "deck file d.yaml: `computed` must be a mapping of name: expression, got 5",
                                None), "range": None},
    (D, "count"): {"wrong": ("x", "deck file d.yaml: `count` must be a whole number from 1 to 1000, got 'x'", None),
                   "range": ("0", "deck file d.yaml: `count` must be a whole number from 1 to 1000, got 0", None)},
    (D, "inset"): {"wrong": ("true", "deck file d.yaml: `inset` must be a length such as 5mm, 0.25in or 10pt, got "
                                     "true", None),
                   "range": ("25mm", "deck file d.yaml: `inset` must be a length from 0 to 20 mm, got '25mm'", None)},

    (C, "name"): {"wrong": (MAPPING, "deck 'D': card #1: `name` must be text, got a mapping", None), "range": None},
    (C, "count"): {
        "wrong": ("many", "card 'A': count must be a whole number (0 to 10000), got 'many'", None),
        "range": ("-1", "card 'A': count must not be negative, got -1", None)},
    (C, "back"): {"wrong": ("5", "card 'A': `back:` must be a mapping of keys to values", None), "range": None},

    (R, "source"): _text("rules.yaml", "source"),
    # the rulebook's keys are read (and reported) by layout.rulebook
    **{(R, k): {"wrong": (MAPPING, f"{k} must be text, not a mapping", None), "range": None}
       for k in ("title", "subtitle", "players", "play_time", "ages", "intro")},
    (R, "components"): {"wrong": ("5", "`components:` must be a list of entries (`- deck: NAME` ...); see "
                                       "docs/rules-format.md", None), "range": None},
    (R, "sections"): {"wrong": ("5", "`sections:` must be a list of sections", None), "range": None},
    (R, "player_aid"): {"wrong": ("5", "`player_aid:` must be a mapping with `turn:` and `end:`", None),
                        "range": None},

    **{(E, k): _text("a component entry", k) for k in ("deck", "item", "quote", "silent", "bought")},
    (E, "decks"): {
        "wrong": ("5", "`decks:` must be a list of deck names, e.g. [Monsters, Ninjas]", None),
        "range": ("[]", "`decks:` must be a list of deck names, e.g. [Monsters, Ninjas]", None)},
    (E, "total"): {
        "wrong": ("three", "D: total must be a whole number, \"N+\" or tbd, got 'three'", None),
        "range": ("20000", "D: total 20000 is more than 10000; is a digit too many?", None)},
    (E, "cards"): {
        "wrong": ("5", "`cards:` must be a mapping of card names to counts, e.g. {Digging: 6}", None),
        "range": ("{A: -1}", "`cards:` count of 'A' must be a whole number or tbd, got -1", "-1")},
    (E, "others"): {
        "wrong": ("3+", "D: others must be a whole number or tbd, got '3+'", None),
        "range": ("-2", "D: others must be a whole number or tbd, got -2", None)},
    (E, "by"): {"wrong": (MAPPING, "D: `by:` must name a card field, e.g. type", None), "range": None},
    (E, "groups"): {
        "wrong": ("5", "`groups:` must be a mapping of kind values to counts, e.g. {Digging: 6}", None),
        "range": ("{x: 20001}", "`groups:` count of 'x' 20001 is more than 10000; is a digit too many?", "20001")},
    (E, "each"): {
        "wrong": ("[1]", "D: each must be a whole number or tbd, got a list", None),
        "range": ("-1", "D: each must be a whole number or tbd, got -1", None)},
    (E, "types"): {
        "wrong": ("true", "D: types must be a whole number or tbd, got true", None),
        "range": ("10001", "D: types 10001 is more than 10000; is a digit too many?", None)},
    (E, "count"): {
        "wrong": ("some", "item 'Dice': count must be a whole number, \"N+\" or tbd, got 'some'", None),
        "range": ("-5", "item 'Dice': count must be a whole number, \"N+\" or tbd, got -5", None)},
}

WHAT = {G: "game.yaml", D: "deck file d.yaml", R: "rules.yaml", E: "a component entry"}
FILE = {G: "game.yaml", D: "d.yaml", C: "d.yaml", R: "rules.yaml", E: "rules.yaml"}


def _files(decl: type, key: str, line_text: str) -> tuple[dict[str, str], str, int]:
    """game.yaml, d.yaml and rules.yaml with `line_text` (`key: value`) in the right place:
    (files, the file it is in, its line number)."""
    files = {"game.yaml": "title: G\n", "d.yaml": DECK, "rules.yaml": RULES}
    if decl is G:
        files["game.yaml"] = line_text + "\n"
        return files, "game.yaml", 1
    if decl is D:
        base = [ln for ln in DECK.splitlines() if not ln.startswith(f"{key}:")]
        if key == "cards":
            base = base[:2]
        files["d.yaml"] = "\n".join([line_text, *base]) + "\n"
        return files, "d.yaml", 1
    if decl is C:
        others = "" if key == "name" else "    name: A\n"
        files["d.yaml"] = f"deck: D\ntemplate: g/face\ncards:\n  - x: 1\n    {line_text}\n{others}"
        return files, "d.yaml", 5
    if decl is R:
        files["rules.yaml"] = line_text + "\n" + ("" if key == "components" else RULES)
        return files, "rules.yaml", 1
    # a component entry
    if key in ("deck", "decks"):
        files["rules.yaml"] = f"components:\n  - {line_text}\n    total: 1\n"
        return files, "rules.yaml", 2
    if key in ("item", "count", "bought"):
        head = "  - item: Dice\n" if key in ("count", "bought") else ""
        files["rules.yaml"] = f"components:\n  - deck: D\n    total: 1\n{head}  - {line_text}\n" if not head \
            else f"components:\n  - deck: D\n    total: 1\n{head}    {line_text}\n"
        return files, "rules.yaml", 4 if not head else 5
    extra = "    by: kind\n" if key in ("groups", "each", "types") else ""
    files["rules.yaml"] = f"components:\n  - deck: D\n    {line_text}\n{extra}"
    if key not in ("total", "cards", "groups", "each", "types", "silent"):
        files["rules.yaml"] += "    total: 1\n"
    return files, "rules.yaml", 3


def _diagnostics(tmp_path: Path, files: dict[str, str]) -> list[str]:
    project = make_project(tmp_path)
    root = project / "cards" / "g"
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text)
    (project / "templates" / "g").mkdir(parents=True)
    (project / "templates" / "g" / "face.yaml").write_text(FACE)
    report = Report()
    check_game(root, project, report)
    return [str(d) for d in report.sorted()]


def _misspelt(key: str) -> str:
    return key[0] + key[2] + key[1] + key[3:] if len(key) > 2 else key + key[-1]


def _located(tmp_path: Path, decl: type, key: str, value: str, at: str | None, *, misspelt: bool = False):
    written = _misspelt(key) if misspelt else key
    line_text = f"{written}: {value}"
    files, file, line = _files(decl, key, line_text)
    full = files[file].splitlines()[line - 1]
    col = full.index(written) + 1 if misspelt else full.index(at or value, full.index(":") + 1) + 1
    return _diagnostics(tmp_path, files), f"cards/g/{file}:{line}:{col}", file, line


def _on_line(out: list[str], file: str, line: int) -> list[str]:
    return [d for d in out if f"cards/g/{file}:{line}:" in d]


def _rel(out: list[str], tmp_path: Path) -> list[str]:
    return [d.replace(str(tmp_path) + "/", "") for d in out]


OPTIONS = [(decl, key) for decl in (G, D, C, R, E) for key in decl.options()]


def _id(p) -> str:
    return f"{p[0].__name__}.{p[1]}"


def test_every_option_has_cases():
    assert set(CASES) == set(OPTIONS)


def _cases(which: str):
    out = []
    for decl, key in OPTIONS:
        case = CASES.get((decl, key), {}).get(which)
        if case is not None:
            out.append(pytest.param(decl, key, *case, id=_id((decl, key))))
    return out


@pytest.mark.parametrize("decl, key, value, message, at", _cases("wrong"))
def test_wrong_type(tmp_path, monkeypatch, decl, key, value, message, at):
    monkeypatch.chdir(tmp_path)
    out, loc, file, line = _located(tmp_path, decl, key, value, at)
    assert _on_line(_rel(out, tmp_path), file, line) == [f"{loc}: error: {message}"]


@pytest.mark.parametrize("decl, key, value, message, at", _cases("range"))
def test_out_of_range(tmp_path, monkeypatch, decl, key, value, message, at):
    monkeypatch.chdir(tmp_path)
    out, loc, file, line = _located(tmp_path, decl, key, value, at)
    assert _on_line(_rel(out, tmp_path), file, line) == [f"{loc}: error: {message}"]


GOOD = {"name": "B", "count": "2", "back": "{x: 1}"}


@pytest.mark.parametrize("decl, key", [pytest.param(d, k, id=_id((d, k))) for d, k in OPTIONS])
def test_misspelled_key(tmp_path, monkeypatch, decl, key):
    monkeypatch.chdir(tmp_path)
    value = GOOD.get(key, "x") if decl is C else "x"
    out, loc, file, line = _located(tmp_path, decl, key, value, None, misspelt=True)
    written = _misspelt(key)
    if decl is C:
        expected = (f"{loc}: warning: deck 'D': card '{'A' if key != 'name' else '#1'}': unknown key '{written}'; "
                    f"did you mean '{key}'? (cards may carry any fields for their templates, but this looks like "
                    f"a misspelt `{key}:`, which cardgen reads itself)")
        expected = expected.replace("card '#1'", "card #1")
    else:
        expected = f"{loc}: error: unknown key '{written}' in {WHAT[decl]}; did you mean '{key}'?"
    assert expected in _on_line(_rel(out, tmp_path), file, line)


# -- numbers that are not finite, and other located errors of the loader ---------------------

def _game(tmp_path: Path, game: str = "title: G\n", deck: str = DECK) -> Path:
    project = make_project(tmp_path)
    root = project / "cards" / "g"
    root.mkdir(parents=True)
    (root / "game.yaml").write_text(game)
    (root / "d.yaml").write_text(deck)
    return root


def _load_errors(root: Path) -> list[str]:
    with pytest.raises(CardgenError) as exc:
        load_game(root, root.parents[1], Report())
    return [str(d).replace(str(root) + "/", "") for d in exc.value.diagnostics]


@pytest.mark.parametrize("game, expected", [
    ("card_size: {width: .nan, height: 88}\n",
     "game.yaml:1:20: error: game.yaml: `card_size` width must be a finite number, got nan"),
    ("card_size: {height: 88}\n",
     "game.yaml:1:12: error: game.yaml: `card_size` has no width; a card size needs width and height (or diameter "
     "for a round token)"),
    ("card_size: {width: 60, heigth: 88}\n",
     "game.yaml:1:32: error: game.yaml: `card_size` has an unknown key 'heigth'; did you mean 'height'?"),
    ("card_size: pokr\n",
     "game.yaml:1:12: error: game.yaml: `card_size` is not a card size: 'pokr'; did you mean 'poker'? (named "
     "sizes: poker, bridge, tarot, euro, mini-euro, mini-american, square, jumbo; or give width and height)"),
    ("bleed: .inf\n", "game.yaml:1:8: error: game.yaml: `bleed` must be a finite number, got inf"),
    ("title: {a: 1}\n", "game.yaml:1:8: error: game.yaml: `title` must be text, got a mapping"),
])
def test_game_yaml_values_are_located_errors_of_the_build(tmp_path, game, expected):
    assert _load_errors(_game(tmp_path, game)) == [expected]


@pytest.mark.parametrize("count, expected", [
    ("-1", "d.yaml:4:22: error: card 'A': count must not be negative, got -1"),
    ("1.0e+9", "d.yaml:4:22: error: card 'A': count 1000000000 is more than 10000 copies; is a digit too many?"),
    (".nan", "d.yaml:4:22: error: card 'A': count must be a whole number (0 to 10000), got nan"),
])
def test_counts_out_of_range(tmp_path, count, expected):
    deck = f"deck: D\ntemplate: g/face\ncards:\n  - {{name: A, count: {count}}}\n"
    assert _load_errors(_game(tmp_path, deck=deck)) == [expected]


def test_every_problem_at_once_and_tolerant_loading_keeps_the_rest(tmp_path):
    root = _game(tmp_path, "bleed: 30\ncard_size: {width: 0, height: 88}\n",
                 "deck: D\ntemplate: g/face\ncards:\n  - {name: A, count: -1}\n  - {name: B}\n")
    assert _load_errors(root) == [
        "d.yaml:4:22: error: card 'A': count must not be negative, got -1",
        "game.yaml:1:8: error: game.yaml: `bleed` must be a length from 0 to 20 mm, got 30",
        "game.yaml:2:20: error: game.yaml: `card_size` width must be a length from 5 to 1000 mm, got 0"]
    report = Report()
    game = load_game(root, root.parents[1], report, tolerant=True)
    assert len(report.errors) == 3
    assert [c.name for c in game.decks[0].cards] == ["A", "B"]
    assert game.opts.bleed == pytest.approx(3.175) and game.opts.card_size.name == "poker"


def test_misspelt_reserved_key_is_a_warning_and_free_fields_are_not(tmp_path):
    root = _game(tmp_path, deck="deck: D\ntemplate: g/face\ncards:\n  - name: A\n    coutn: 6\n    cost: 3\n"
                                "    names: x\n")
    report = Report()
    game = load_game(root, root.parents[1], report)
    assert [(str(d).replace(str(root) + "/", ""), d.code) for d in report.items] == [
        ("d.yaml:5:5: warning: deck 'D': card 'A': unknown key 'coutn'; did you mean 'count'? (cards may carry "
         "any fields for their templates, but this looks like a misspelt `count:`, which cardgen reads itself)",
         "card-key")]
    assert game.decks[0].cards[0].count == 1


def test_output_sections_are_declared_by_the_caller(tmp_path):
    import inspect

    from cardgen.load import game as loader

    # the loader knows no outputs: the caller names the sections, there is no fallback
    params = inspect.signature(loader.load_game).parameters
    assert params["sections"].default is params["deck_sections"].default is inspect.Parameter.empty
    root = _game(tmp_path, "title: G\ntts: {a: 1}\nprint: {gutter: true}\n", DECK + "tts: {c: 3}\n")
    report = Report()
    game = load_game(root, root.parents[1], report)     # (every output's section: `print:` is valid)
    assert report.items == []
    assert game.data["tts"] == {"a": 1} and game.decks[0].data["tts"] == {"c": 3}
    assert game.data["print"] == {"gutter": True}
    report = Report()
    game = loader.load_game(root, root.parents[1], report, sections={"tts": "TTS"}, deck_sections={})
    assert [str(d).replace(str(root) + "/", "") for d in report.sorted()] == [
        "d.yaml:5:1: error: unknown key 'tts' in deck file d.yaml",
        "game.yaml:3:1: error: unknown key 'print' in game.yaml"]


def test_typed_options_and_plain_data_agree(tmp_path):
    root = _game(tmp_path, "title: G\ncard_size: {diameter: 30mm, name: token}\nbleed: 2\n"
                           "palette: {ink: '#1d6a72'}\n",
                 "deck: D\ntemplate: g/face\nsize: bridge\ncards:\n  - {name: A, count: 2.0}\n")
    game = load_game(root, root.parents[1], Report())
    assert game.opts.card_size.shape == "round" and game.opts.card_size.width == pytest.approx(30)
    assert game.context()["palette"] == {"ink": "#1d6a72"}          # templates see the text as written
    deck = game.decks[0]
    assert deck.opts.size.name == "bridge" and deck.size.width == pytest.approx(57.15)
    assert deck.bleed == pytest.approx(2) and deck.cards[0].count == 2


def test_loader_is_reexported_for_other_modules():
    from cardgen.load import game as load
    from cardgen.model import game as model
    assert load.Card is model.Card and load.Deck is model.Deck and load.Game is model.Game
    assert load.BUNDLED == DATA == REPO / "cardgen" / "data"
    assert load.parse_size("tarot", None).height == 120


# -- the rulebook's own mappings (read by layout.rulebook) -----------------------------------

RULEBOOK = {
    RulebookSection: ("a section", "sections:\n  - title: S\n    {line}\n", 3),
    RulebookTable: ("a table", "sections:\n  - title: S\n    body:\n      - table:\n          {line}\n", 5),
    RulebookCallout: ("a callout", "sections:\n  - title: S\n    body:\n      - callout:\n          {line}\n", 5),
    PlayerAid: ("player_aid", "player_aid:\n  {line}\n", 2),
}


@pytest.mark.parametrize("decl, key", [pytest.param(d, k, id=f"{d.__name__}.{k}")
                                       for d in RULEBOOK for k in d.options()])
def test_misspelled_rulebook_key(tmp_path, monkeypatch, decl, key):
    monkeypatch.chdir(tmp_path)
    what, text, line = RULEBOOK[decl]
    written = _misspelt(key)
    rules = text.format(line=f"{written}: x")
    col = rules.splitlines()[line - 1].index(written) + 1
    out = _rel(_diagnostics(tmp_path, {"game.yaml": "title: G\n", "d.yaml": DECK, "rules.yaml": rules}), tmp_path)
    allowed = ", ".join(decl.options())
    assert (f"cards/g/rules.yaml:{line}:{col}: error: unknown key '{written}' in {what}; did you mean '{key}'? "
            f"(allowed: {allowed})") in _on_line(out, "rules.yaml", line)


def test_a_bad_default_count_is_reported_once_at_the_default(tmp_path):
    deck = "deck: D\ntemplate: g/face\ndefaults: {count: -3}\ncards:\n  - name: A\n  - name: B\n"
    assert _load_errors(_game(tmp_path, deck=deck)) == [
        "d.yaml:3:19: error: deck 'D': `defaults:`: count must not be negative, got -3"]
