"""cardgen's own words in the language built (docs/languages.md#cardgens-own-words): the tuck
boxes', print sheets' and calibration sheet's notes, the gallery's labels, a callout's default
heading, read back from a German build; the words table itself; long words still fit."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pypdf import PdfReader
from test_languages import DECK, GAME, LABELLED
from vgame import make_game

from cardgen.core import words as W
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

RULES = """\
title: Rules
title@de: Regeln
sections:
  - title: Play
    title@de: Spielen
    body:
      - Take turns.
      - callout: {kind: example, text: Like this.}
    body@de:
      - Reihum spielen.
      - callout: {kind: example, text: So.}
"""
OUTPUTS = ("tuckboxes", "calibration", "print", "foldover", "gallery", "booklet", "tts")


def _text(pdf: Path) -> str:
    """The PDF's text without spaces (how pypdf versions join words differs)."""
    return "".join("".join(p.extract_text().split()) for p in PdfReader(pdf).pages)


def _flat(s: str) -> str:
    return "".join(s.split())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("words")
    root = make_game(tmp, game=GAME, decks={"actions.yaml": DECK.replace("description@de", "deck@de: Aktionen\n"
                                                                                         "description@de")},
                     templates={"face": LABELLED}, rules=RULES)
    out = tmp / "out"
    report = Report()
    build_game(root, tmp, BuildOptions(out=out, only=OUTPUTS, papers=("a4",)), report)
    return out / "g", report


def test_a_german_build_prints_cardgens_own_words_in_german(built):
    out, _ = built
    de, en = out / "de", out / "en"
    tuck = _text(de / "tuckboxes-a4.pdf")
    assert _flat("Testspiel · Aktionen: Schachtel für 12 Karten, innen 65.5 x 90.9 x 6.0 mm · durchgezogene Linien "
                 "schneiden, gestrichelte falzen · mit 100 % drucken") in tuck
    assert _flat("12 Karten · Testspiel") in tuck            # the template's count, on the box's front and back
    assert "cards" not in tuck and "cut" not in tuck
    cal = _text(de / "calibration-a4.pdf")
    assert _flat("Testspiel: Duplex-Kalibrierung, a4. Mit 100 % drucken (Originalgröße), beidseitig, an der langen "
                 "Kante wenden.") in cal
    assert _flat("Rückseite, gebaut mit --back-offset 0,0: die X,Y-Werte der Mitte dazuzählen und neu bauen") in cal
    assert "Hold" not in cal
    sheets = _text(de / "print-a4.pdf")
    assert _flat("Testspiel · Aktionen · Bogen 1 von 2 · Vorderseiten · mit 100 % drucken (Originalgröße)") in sheets
    fold = _text(de / "print-a4-foldover.pdf")
    assert "falzen" in fold and "fold" not in fold        # the word on the fold line
    assert "Beispiel" in _text(de / "rules.pdf") and "Example" in _text(en / "rules.pdf")
    html = (de / "index.html").read_text(encoding="utf-8")
    for said in ('<html lang="de">', "<title>Testspiel · Karten</title>", "12 Karten · 3 verschiedene · 1 Stapel",
                 'placeholder="Filter: Name, Stapel, Problem"', "Alle Stapel", "Normales Farbsehen",
                 "Protanopie (keine Rotzapfen)", 'data-words="{visible} von {total} gezeigt"',
                 "Mit cardgen gemacht.", "Graben (Vorderseite)", "schließen"):
        assert said in html, said
    assert "All decks" not in html and "distinct" not in html


def test_the_english_build_says_what_it_always_said(built):
    out, _ = built
    en = out / "en"
    assert _flat("Test game · Action: a box for 12 cards, inside 65.5 x 90.9 x 6.0 mm · cut the solid lines, fold "
                 "the dashed ones · print at 100 %") in _text(en / "tuckboxes-a4.pdf")
    cal = _text(en / "calibration-a4.pdf")
    assert _flat("Test game: duplex calibration, a4. Print at 100 % (Actual size), double-sided, flip on the long "
                 "edge.") in cal
    assert _flat("Hold to the light; read the back's scales where this side's lines fall "
                 "(see docs/printing.md).") in cal
    sheets = _text(en / "print-a4.pdf")
    assert _flat("Test game · Action · sheet 1 of 2 · fronts · print at 100 % (Actual size)") in sheets
    html = (en / "index.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in html and "12 cards · 3 distinct · 1 deck" in html and "All decks" in html


def test_the_tts_rules_object_is_named_in_the_language_built(built):
    out, _ = built
    names = {lang: [o["Nickname"] for o in json.loads((out / lang / "tts" / "g.json").read_text())["ObjectStates"]
                    if o.get("Name") == "Custom_PDF"] for lang in ("en", "de")}
    assert names == {"en": ["Test game rules"], "de": ["Testspiel: Spielregeln"]}


def test_every_text_has_its_words_in_every_bundled_language_with_its_placeholders():
    for text, words in W._WORDS.items():
        assert len(words) == len(W.BUNDLED), text
        for lang, said in zip(W.BUNDLED, words):
            assert said.strip() and W.fields(said) == W.fields(text), (lang, text, said)
    german = W.Words("de-AT")
    assert german("sheet {n} of {total}", n=2, total=9) == "Bogen 2 von 9"
    assert (german.count(1, "card"), german.count(3, "copy"), german.noun(2, "tile")) == ("1 Karte", "3 Exemplare",
                                                                                        "Plättchen")
    assert W.Words("ja")("sheet {n} of {total}", n=2, total=9) == "sheet 2 of 9"
    assert W.bundled("nl-BE") and W.bundled("en-GB") and not W.bundled("ja")


@pytest.mark.parametrize("lang", ["en", *W.BUNDLED])
def test_the_longest_words_fit_their_page(lang):
    """The tuck box note (6 pt, from the page's margin) and the calibration sheet's lines (8 pt,
    centred) of a long game title and a deck of 3-digit count fit an A4 page's width in every
    bundled language."""
    from cardgen.core.sizes import PAPER_SIZES_MM
    from cardgen.core.units import MM
    from cardgen.outputs.tuckboxes import PAGE_MARGIN, PIECE_1, PIECE_2
    from cardgen.resources.fonts import DEFAULT_FAMILY, FontBook

    fonts = FontBook([Path(__file__).resolve().parent.parent / "cardgen" / "data" / "fonts"])
    w = W.Words(lang)

    def width(text: str, size: float) -> float:
        return sum(fonts.run_width(t, f, size) for t, f in fonts.split(text, DEFAULT_FAMILY, "regular")) / MM

    pw = PAPER_SIZES_MM["a4"][0]
    box = w("a box for {count}, inside {w} x {h} x {d} mm", count=w.count(120, "card"), w="65.5", h="90.9", d="41.6")
    note = (f"Die Abenteuer im Abgrund · Ereigniskarten: {box} · {w('cut the solid lines, fold the dashed ones')} · "
            f"{w('print at 100 %')}")
    assert width(note, 6) <= pw - 2 * PAGE_MARGIN, note
    head = "Die Abenteuer im Abgrund: " + w("duplex calibration, {paper}. Print at 100 % (Actual size), double-sided, "
                                          "{flip}.", paper="letter", flip=w("flip on the short edge"))
    for line in (head, w("Hold to the light; read the back's scales where this side's lines fall "
                         "(see docs/printing.md)."),
                 w("back page, built with --back-offset {offset}: add the centre's X,Y readings to it and build again",
                   offset="-0.5,-0.5")):
        assert width(line, 8) <= pw - 20, line
    for label in (PIECE_1, PIECE_2):            # under a piece of a box in two: at least a poker box's two panels
        assert width(w(label), 5) <= 2 * 65.5 + 8, label



# -- a language cardgen has no words for: the warning, and the game's own words --------------

PT_GAME = "title: Test game\nlanguages: [en, pt]\n"


def _pt_build(tmp_path: Path, game: str, only: tuple[str, ...] = ("calibration",)) -> tuple[Path, Report]:
    root = make_game(tmp_path, game=game, decks={"actions.yaml": DECK.replace("@de", "@pt")},
                     templates={"face": LABELLED.replace("@de", "@pt")}, rules=None)
    report = Report()
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=only, papers=("a4",)), report)
    return root, report


def test_a_language_without_cardgens_words_is_warned_once_per_build(tmp_path):
    root, report = _pt_build(tmp_path, PT_GAME, ("calibration", "tuckboxes"))
    said = [d for d in report.items if d.code == "words"]
    assert [str(d) for d in said] == [
        f"{root / 'game.yaml'}:2:12: warning: cardgen has no Portuguese words of its own: what it prints itself in "
        "the Portuguese build (the booklet's headings, the print sheets' and tuck boxes' notes, the gallery's labels) "
        "will be in English; give them in game.yaml as `words@pt:` (`cardgen i18n words --lang pt` lists them, "
        "docs/languages.md#cardgens-own-words)"]
    assert "Print at 100 %" in " ".join(PdfReader(tmp_path / "out" / "g" / "pt" / "calibration-a4.pdf")
                                        .pages[0].extract_text().split())


def test_a_game_gives_its_own_words_for_a_language(tmp_path):
    game = PT_GAME + ('words@pt:\n  "sheet {n} of {total}": "folha {n} de {total}"\n  "{n} cards": "{n} cartas"\n'
                      '  "print at 100 %": "imprimir a 100 %"\n'
                      'words:\n  "fronts": "faces"\n')
    _, report = _pt_build(tmp_path, game, ("print", "tuckboxes"))
    out = tmp_path / "out" / "g"
    assert _flat("Test game · Action · folha 1 de 2 · fronts ·") in _text(out / "pt" / "print-a4.pdf")
    tuck = _text(out / "pt" / "tuckboxes-a4.pdf")
    assert _flat("a box for 12 cartas") in tuck and _flat("imprimir a 100 %") in tuck and "12cartas·Testgame" in tuck
    assert _flat("Test game · Action · sheet 1 of 2 · faces ·") in _text(out / "en" / "print-a4.pdf")
    assert "faces" not in _text(out / "pt" / "print-a4.pdf")      # (the source language's own words stay its own)
    warned = [d.message for d in report.items if d.code == "words"]
    assert len(warned) == 1 and f"{len(W.texts()) - 3} of the {len(W.texts())} texts it prints" in warned[0]


def test_the_games_words_are_checked_at_their_line(tmp_path):
    from cardgen.pipeline.validate import validate_game

    def errors(words: str, where: Path) -> list[str]:
        where.mkdir()
        root = make_game(where, game=PT_GAME + "words@pt:\n" + words,
                         decks={"actions.yaml": DECK.replace("@de", "@pt")}, templates={"face": LABELLED.replace("@de", "@pt")}, rules=None)
        return [str(d).replace(str(root / "game.yaml"), "game.yaml") for d in validate_game(root, where).diagnostics
                if d.severity == "error"]

    assert errors('  "Componets": "Componentes"\n', tmp_path / "a") == [
        "game.yaml:4:16: error: game.yaml: `words` 'Componets' is not one of cardgen's own texts; did you mean "
        "'Components'? (`cardgen i18n words` lists them)"]
    assert errors('  "sheet {n} of {total}": "folha {n}"\n', tmp_path / "b") == [
        "game.yaml:4:27: error: game.yaml: `words` 'sheet {n} of {total}': the words must have the same placeholders "
        "as the English text ({n}, {total})"]


def test_i18n_words_prints_a_block_to_paste_into_game_yaml():
    import yaml
    from click.testing import CliRunner

    from cardgen.cli.main import main

    got = CliRunner().invoke(main, ["i18n", "words", "--lang", "de"])
    assert got.exit_code == 0, got.output
    block = yaml.safe_load(got.output)["words@de"]
    assert block == W.Words("de").table() and set(block) == set(W.texts())
    assert block["Components"] == "Spielmaterial" and block["{n} cards"] == "{n} Karten"
    en = yaml.safe_load(CliRunner().invoke(main, ["i18n", "words"]).output)["words"]
    assert all(en[t] == t for t in W.texts())


@pytest.mark.parametrize("command", [["build"], ["serve"], ["i18n", "mark"], ["i18n", "export", "g"],
                                     ["i18n", "import", "g", "g-de.po"], ["i18n", "words"]])
def test_every_lang_flag_is_the_one_build_declares(command, tmp_path, monkeypatch):
    """`--lang` of `serve` and the i18n commands is BuildOptions.lang's flag (cardgen/cli/flags.py
    `declared`): a value that is no language code is refused by the flag itself, in build's words,
    before any game is looked for; each command keeps its own help for it. `serve --set` likewise."""
    from click.testing import CliRunner

    from cardgen.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "g-de.po").write_text("")
    got = CliRunner().invoke(main, [*command, "--lang", "../x"])
    assert got.exit_code == 2, got.output
    assert got.output.splitlines()[-1] == ("Error: Invalid value for '--lang': must be a language code such as en, "
                                           "en-GB, de or fr, got '../x'")
    helps = {"build": "Build only this language", "serve": "Preview the game in this language", "mark":
             "The language whose translations to mark", "export": "The language to translate into.", "import":
             "The language of the file (default: its header's).", "words": "The language (default: en)."}
    name = command[1] if command[0] == "i18n" else command[0]
    shown = " ".join(CliRunner().invoke(main, [*command[:2], "--help"]).output.split())
    assert f"--lang LANG {helps[name]}" in shown
    if command == ["serve"]:
        assert "--set KEY=VALUE Preview the game with this game.yaml value set" in shown
        got = CliRunner().invoke(main, ["serve", "--set", " "])
        assert got.exit_code == 2 and got.output.splitlines()[-1] == \
            "Error: Invalid value for '--set': item 1 must not be empty"


def test_the_changes_listing_is_in_the_language_built(tmp_path):
    """changes-<paper>.pdf (`--changed-since`): its listing in German, its sheets' notes too."""
    import shutil

    root = make_game(tmp_path, game=GAME, decks={"actions.yaml": "deck@de: Aktionen\n" + DECK},
                     templates={"face": LABELLED}, rules=None)
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("print",), papers=("a4",), lang="de"),
               Report())
    shutil.copytree(tmp_path / "out", tmp_path / "kept")
    deck = root / "actions.yaml"
    deck.write_text(deck.read_text().replace("Grabe ein Loch.", "Grabe ein tiefes Loch.")
                    .replace("count: 3\n  - name: Theft", "count: 5\n  - name: Theft"))
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("changes",), papers=("a4",), lang="de",
                                            changed_since=str(tmp_path / "kept" / "g" / "de")), Report())
    text = _text(tmp_path / "out" / "g" / "de" / "changes-a4.pdf")
    for said in ("Testspiel: was sich geändert hat", "1 geändert, 1 mit anderer Anzahl: 2 Karten drucken "
                 "(8 Exemplare); 6 Exemplare herausnehmen", "Drucken und in die Schachtel legen (8 Exemplare)",
                 "2 Exemplare mehr (3 → 5)", "Aus der Schachtel nehmen (6 Exemplare)", "die alte Fassung, Stempel r1",
                 "Die Druckbögen mit nur diesen Karten: 1 Bogen folgt; mit 100 % drucken und wie gewohnt schneiden.",
                 "Testspiel · Aktionen · Bogen 1 von 1 · Vorderseiten"):
        assert _flat(said) in text, said
    assert "copies" not in text and "changed" not in text
