"""A game in several languages (docs/languages.md): `languages:` declared once, `FIELD@LANG`
beside its source in cards, decks, templates, rules.yaml and spreadsheet columns; every output
made per language into build/<game>/<lang>/, read back from the PDFs and the TTS save."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader
from vgame import make_game

from cardgen.core.errors import CardgenError, Report
from cardgen.load.translations import localize, split
from cardgen.pipeline.build import BuildOptions, build_game
from cardgen.pipeline.check import load_game
from cardgen.pipeline.validate import validate_game

GAME = "title: Test game\ntitle@de: Testspiel\nlanguages: [en, de]\n"
DECK = """\
deck: Action
template: g/face
description: Things to do
description@de: Was zu tun ist
cards:
  - name: Digging
    name@de: Graben
    text: Dig a hole.
    text@de: Grabe ein Loch.
    count: 6
  - name: Bribe
    name@de: Bestechung
    text: Pay someone.
    text@de: Bezahle jemanden.
    count: 3
  - name: Theft
    name@de: Diebstahl
    text: Take a card.
    text@de: Nimm eine Karte.
    count: 3
"""
LABELLED = """\
elements:
  - name: bg
    type: rect
    box: bleed
    fill: "#ffffff"
  - name: label
    type: text
    y: 2mm
    height: 6mm
    box: safe
    text: ACTION
    text@de: AKTION
  - name: title
    type: text
    y: 10mm
    height: 10mm
    text: "{{ card.name }}"
    box: safe
  - name: body
    type: text
    y: 25mm
    height: 40mm
    text: "{{ card.text }}"
    box: safe
"""


RULES_BOOK = "title: Rules\ntitle@de: Regeln\nintro: Play well.\nintro@de: Spiel gut.\nsections: []\n"


def _game(tmp_path: Path, game: str = GAME, deck: str = DECK, **kw) -> Path:
    return make_game(tmp_path, game=game, decks={"actions.yaml": deck}, templates={"face": LABELLED}, **kw)


def _words(pdf: Path) -> str:
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(pdf).pages)


def _nicknames(save: Path) -> list[str]:
    names: list[str] = []

    def walk(obj):
        if isinstance(obj, dict):
            if obj.get("Name") == "Card":
                names.append(obj["Nickname"])
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)
    walk(json.loads(save.read_text(encoding="utf-8")))
    return names


def test_split_reads_field_and_language_only_from_a_translated_key():
    assert split("text@de") == ("text", "de")
    assert split("name@pt-BR") == ("name", "pt-BR")
    assert split("text") is None
    assert split("mail@example.com") is None
    assert split("@de") is None
    assert split(3) is None


def test_localize_puts_the_translation_in_the_source_place_and_drops_the_others():
    data = {"name": "Digging", "name@de": "Graben", "text@fr": "Creuser", "n": [{"a": 1, "a@de": 2}]}
    assert localize(data, "de") == {"name": "Graben", "n": [{"a": 2}]}
    assert localize(data, None) == {"name": "Digging", "n": [{"a": 1}]}
    plain = {"name": "Digging"}
    assert localize(plain, "de") is plain


def test_two_languages_build_both_sets_with_their_texts(tmp_path):
    root = _game(tmp_path, rules=RULES_BOOK)
    out = tmp_path / "out"
    built = build_game(root, tmp_path, BuildOptions(out=out, only=("cards", "tts", "booklet"), papers=("a4",)),
                       Report())
    assert set(built.languages) == {"en", "de"}
    en, de = _words(out / "g" / "en" / "cards.pdf"), _words(out / "g" / "de" / "cards.pdf")
    for word in ("Digging", "Dig a hole.", "Pay someone.", "ACTION"):
        assert word in en and word not in de
    for word in ("Graben", "Grabe ein Loch.", "Bezahle jemanden.", "Diebstahl", "AKTION"):
        assert word in de and word not in en
    assert sorted(set(_nicknames(out / "g" / "en" / "tts" / "g.json"))) == ["Bribe", "Digging", "Theft"]
    assert sorted(set(_nicknames(out / "g" / "de" / "tts" / "g.json"))) == ["Bestechung", "Diebstahl", "Graben"]
    assert "Spiel gut." in _words(out / "g" / "de" / "rules.pdf")
    assert "Play well." in _words(out / "g" / "en" / "rules.pdf")
    assert not (out / "g" / "cards.pdf").exists()


def test_lang_builds_one_language_and_a_rebuild_is_up_to_date(tmp_path):
    root = _game(tmp_path)
    opts = BuildOptions(out=tmp_path / "out", only=("cards",), lang="de")
    built = build_game(root, tmp_path, opts, Report())
    assert list(built.languages) == ["de"] and not built.unchanged
    assert (tmp_path / "out" / "g" / "de" / "cards.pdf").is_file()
    assert not (tmp_path / "out" / "g" / "en").exists()
    assert build_game(root, tmp_path, opts, Report()).unchanged


def test_a_game_without_languages_builds_where_it_always_did(tmp_path):
    root = make_game(tmp_path, game="title: Test game\n", decks={"actions.yaml": "deck: Action\ntemplate: g/face\n"
                                                                                  "cards: [{name: Digging}]\n"})
    built = build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert not built.languages and (tmp_path / "out" / "g" / "cards.pdf").is_file()


def test_the_card_keeps_its_source_name_and_revision_in_every_language(tmp_path):
    root = _game(tmp_path)
    en, de = load_game(root, tmp_path, Report()), load_game(root, tmp_path, Report(), lang="de")
    a, b = en.decks[0].cards[0], de.decks[0].cards[0]
    assert (a.name, b.name, a.title, b.title) == ("Digging", "Digging", "Digging", "Graben")
    assert a.data_hash == b.data_hash and a.ident == b.ident == "name:Digging"
    assert de.decks[0].data["description"] == "Was zu tun ist" and de.title == "Testspiel"
    assert b.field_loc("text").line == 9       # the German text's own line


def test_undeclared_and_unknown_languages_are_said_at_their_keys(tmp_path):
    deck = DECK.replace("    text@de: Grabe ein Loch.\n", "    text@de: Grabe ein Loch.\n    text@fr: Creuser.\n"
                                                                "    text@xx: Was\n")
    root = _game(tmp_path, deck=deck)
    said = {(d.loc.line, d.loc.col, d.message) for d in validate_game(root, tmp_path).diagnostics}
    assert (10, 5, "deck 'Action': `text@fr`: fr (French) is not one of game.yaml's `languages:` (en, de); add "
                   "it there, or correct the code") in said
    assert any(line == 11 and "'xx' is not a language code cardgen knows" in m for line, _, m in said)


def test_a_translation_in_a_game_without_languages_says_what_to_add(tmp_path):
    root = _game(tmp_path, game="title: Test game\n")
    said = [str(d) for d in validate_game(root, tmp_path).diagnostics]
    assert any("actions.yaml:7:5: warning: deck 'Action': `name@de` is a German translation, but game.yaml "
               "declares no `languages:`" in s for s in said)


@pytest.mark.parametrize("value, message", [
    ("[en, klingon]", "item 2 must be a language code"),
    ("[en, xx]", "item 2 'xx' is not a language code cardgen knows"),
    ("[en, de, DE]", "item 3: 'DE' is listed twice (also item 2)"),
    ("[en, qps]", "item 2: qps is the pseudo-locale"),
])
def test_bad_languages_are_located_errors(tmp_path, value, message):
    root = _game(tmp_path, game=f"title: Test game\nlanguages: {value}\n")
    errors = [d for d in validate_game(root, tmp_path).diagnostics if d.severity == "error"]
    assert any(d.loc.line == 2 and message in d.message for d in errors), errors


def test_lang_not_declared_is_refused_at_languages(tmp_path):
    root = _game(tmp_path)
    with pytest.raises(CardgenError) as exc:
        build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",), lang="fr"), Report())
    assert str(exc.value.diagnostics[0]).endswith("game.yaml:3:12: error: --lang fr: not one of game.yaml's "
                                                  "`languages:` (en, de); add it there, or build --lang qps "
                                                  "(the pseudo-locale)")


def test_a_template_key_for_an_undeclared_language_is_an_error(tmp_path):
    root = make_game(tmp_path, game=GAME, decks={"actions.yaml": DECK},
                     templates={"face": LABELLED.replace("text@de: AKTION", "text@es: ACCION")})
    said = [d for d in validate_game(root, tmp_path).diagnostics if d.severity == "error"]
    assert any(d.loc.line == 12 and "`text@es`: es (Spanish) is not one of game.yaml's `languages:`" in d.message
               for d in said), said


def test_a_spreadsheet_column_text_at_de_is_the_german_text(tmp_path):
    deck = textwrap.dedent("""\
        deck: Action
        template: g/face
        cards: actions.csv
        """)
    root = _game(tmp_path, deck=deck, rules=None)
    (root / "actions.csv").write_text("name,Name@DE,text,text@de,count\nDigging,Graben,Dig.,Grab.,6\n")
    game = load_game(root, tmp_path, Report(), lang="de")
    card = game.decks[0].cards[0]
    assert (card.name, card.title, card.fields["text"]) == ("Digging", "Graben", "Grab.")


def _stale(root: Path, tmp_path: Path) -> list[str]:
    return [str(d) for d in validate_game(root, tmp_path).diagnostics if d.code == "stale-translation"]


def test_a_translation_is_stale_after_its_source_changes_and_not_before(tmp_path):
    from cardgen.pipeline.check import mark_translations

    root = _game(tmp_path)
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    history = json.loads((root / "cardgen-history.json").read_text())
    assert {(r["card"], r["field"]) for r in history["translations"]["Action"]} == {
        (f"name:{n}", f) for n in ("Digging", "Bribe", "Theft") for f in ("name", "text")} | {("deck", "description")}
    assert [(r["card"], r["field"]) for r in history["translations"]["game.yaml"]] == [("", "title")]
    assert [(r["card"], r["field"]) for r in history["translations"]["template g/face"]] == [("", "elements[label].text")]
    assert _stale(root, tmp_path) == []
    deck = root / "actions.yaml"
    deck.write_text(deck.read_text().replace("text: Dig a hole.", "text: Dig a deep hole."))
    assert _stale(root, tmp_path) == [
        f"{deck}:9:5: warning: German text of 'Digging' (`text@de`) was written for an older English text: the "
        f"`text:` it translates changed since; update it, or accept it as it is with `cardgen i18n mark g --lang de`"]
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert len(_stale(root, tmp_path)) == 1         # a build keeps the record of a stale translation
    deck.write_text(deck.read_text().replace("text@de: Grabe ein Loch.", "text@de: Grabe ein tiefes Loch."))
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    assert _stale(root, tmp_path) == []             # edited since: made from the current source
    deck.write_text(deck.read_text().replace("text: Pay someone.", "text: Pay anyone."))
    assert len(_stale(root, tmp_path)) == 1
    assert mark_translations(root, tmp_path, "de", Report()) == 9     # 6 card texts, the deck's, game.yaml's, the template's
    assert _stale(root, tmp_path) == []


def _magenta(pdf: Path, page: int) -> int:
    import pypdfium2 as pdfium

    img = pdfium.PdfDocument(pdf)[page].render(scale=50 / 72).to_pil().convert("RGB")
    px = img.tobytes()
    return sum(1 for i in range(0, len(px), 3) if px[i] > 200 and px[i + 1] < 60 and 100 < px[i + 2] < 190)


@pytest.mark.parametrize("marked", [True, False])
def test_a_missing_translation_prints_the_source_marked_and_is_warned(tmp_path, marked):
    deck = DECK.replace("    text@de: Bezahle jemanden.\n", "")
    game = GAME + ("" if marked else "mark_untranslated: false\n")
    root = _game(tmp_path, game=game, deck=deck)
    said = [str(d) for d in validate_game(root, tmp_path).diagnostics if d.code == "untranslated"]
    assert said == [f"{root / 'actions.yaml'}:13:11: warning: deck 'Action': card 'Bribe': no German `text@de`: "
                    f"the English text is printed"]
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    de, en = tmp_path / "out" / "g" / "de" / "cards.pdf", tmp_path / "out" / "g" / "en" / "cards.pdf"
    assert "Pay someone." in _words(de)
    assert (_magenta(de, 1) > 20) is marked         # Bestechung, printed with the English text
    assert _magenta(de, 0) == 0 and _magenta(en, 1) == 0


def test_overflow_warnings_name_the_language(tmp_path):
    long = "Grabe ein sehr tiefes Loch " * 30
    root = _game(tmp_path, deck=DECK.replace("text@de: Grabe ein Loch.", f"text@de: {long}"))
    said = [d.message for d in validate_game(root, tmp_path).diagnostics if d.code == "overflow"]
    assert len(said) == 1 and said[0].startswith("card 'Digging' (actions.yaml:6) in German, field `text` "
                                                 "(element 'body'"), said


def test_stretched_is_accented_and_about_a_third_longer():
    from cardgen.text.pseudo import stretched

    text = "Shuffle the Event cards into one face-down pile"
    out = stretched(text)
    letters = sum(ch.isalpha() for ch in text)
    assert sum(ch.isalpha() for ch in out) == letters + round(letters * 0.35)
    assert out[0] == "Š" and stretched("Dig") == "Ðîĝĝ"
    assert not any(ch in out for ch in "aeiouAEIOU")


def test_the_pseudo_locale_builds_without_a_translation_and_hides_no_text(tmp_path):
    root = make_game(tmp_path, game="title: Test game\n")      # no `languages:` at all
    report = Report()
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",), lang="qps"), report)
    assert not [d for d in report.items if d.code in ("missing-glyph", "overflow")]
    words = _words(tmp_path / "out" / "g" / "qps" / "cards.pdf")
    assert "[Ðîĝĝĝîñĝĝ]" in words and "Digging" not in words
    assert words.count("[") == words.count("]") == 3


def _export(root: Path, tmp_path: Path, lang: str = "de") -> str:
    from cardgen.pipeline.translation_files import export

    return export(load_game(root, tmp_path, Report()), lang, Report())


def _import(root: Path, tmp_path: Path, po: Path, lang: str | None = "de", report: Report | None = None) -> list:
    from cardgen.pipeline.translation_files import import_file

    return import_file(load_game(root, tmp_path, Report()), po, lang, report or Report())


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file()}


def test_export_then_import_round_trips_byte_for_byte(tmp_path):
    from cardgen.load.po import dumps, loads

    root = _game(tmp_path, deck=DECK.replace("    text@de: Bezahle jemanden.\n", ""))
    build_game(root, tmp_path, BuildOptions(out=tmp_path / "out", only=("cards",)), Report())
    before = _snapshot(root)
    text = _export(root, tmp_path)
    assert 'msgctxt "Action|name:Bribe|text"\nmsgid "Pay someone."\nmsgstr ""\n' in text
    assert '#: actions.yaml:8\nmsgctxt "Action|name:Digging|text"\nmsgid "Dig a hole."\nmsgstr "Grabe ein Loch."' \
        in text
    po = tmp_path / "de.po"
    po.write_text(text, encoding="utf-8")
    assert _import(root, tmp_path, po) == []
    assert _snapshot(root) == before
    assert _export(root, tmp_path) == text
    entries, header, _ = loads(text, "de.po")
    assert dumps(header, entries, text.splitlines()[0][2:]) == text


def test_imported_translations_are_written_beside_their_sources(tmp_path):
    deck = DECK.replace("    text: Pay someone.\n    text@de: Bezahle jemanden.\n    count: 3\n",
                        "    count: 3\n    text: Pay someone.\n\n    # a comment\n")
    root = _game(tmp_path, deck=deck)
    po = tmp_path / "de.po"
    text = _export(root, tmp_path)
    text = text.replace('msgid "Pay someone."\nmsgstr ""', 'msgid "Pay someone."\nmsgstr ""\n"Bezahle \\"ihn\\".\\n"\n'
                                                            '"Sofort: jetzt."')
    text = text.replace('msgstr "Grabe ein Loch."', 'msgstr "Grabe ein # tiefes Loch."')
    po.write_text(text, encoding="utf-8")
    assert _import(root, tmp_path, po) == [root / "actions.yaml"]
    deck = (root / "actions.yaml").read_text()
    assert '    text: Pay someone.\n    text@de: "Bezahle \\"ihn\\".\\nSofort: jetzt."\n\n    # a comment\n  - name: Theft' \
        in deck
    assert '    text@de: "Grabe ein # tiefes Loch."\n    count: 6\n' in deck
    cards = {c.name: c for c in load_game(root, tmp_path, Report(), lang="de").decks[0].cards}
    assert cards["Bribe"].fields["text"] == 'Bezahle "ihn".\nSofort: jetzt.'
    assert cards["Digging"].fields["text"] == "Grabe ein # tiefes Loch."
    assert _stale(root, tmp_path) == []
    po.write_text(_export(root, tmp_path), encoding="utf-8")
    before = _snapshot(root)
    assert _import(root, tmp_path, po) == [] and _snapshot(root) == before


def test_a_translation_imported_for_an_older_source_is_stale(tmp_path):
    root = _game(tmp_path, deck=DECK.replace("    text@de: Bezahle jemanden.\n", ""))
    po = tmp_path / "de.po"
    po.write_text(_export(root, tmp_path).replace('msgid "Pay someone."\nmsgstr ""',
                                                  'msgid "Pay someone."\nmsgstr "Bezahle jemanden."'))
    deck = root / "actions.yaml"
    deck.write_text(deck.read_text().replace("text: Pay someone.", "text: Pay anyone."))
    _import(root, tmp_path, po)
    said = _stale(root, tmp_path)
    assert len(said) == 1 and "warning: German text of 'Bribe' (`text@de`) was written for an older English text" \
        in said[0]


@pytest.mark.parametrize("body, message", [
    ('msgid "a\nmsgstr ""\n', "de.po:1:7: error: a PO string must be in double quotes on one line"),
    ('msgid "a"\nmsgtext "b"\n', "de.po:2:1: error: 'msgtext' is not a PO keyword (msgctxt, msgid, msgstr) or a "
                                 "comment"),
    ('msgstr "b"\n', "de.po:1:1: error: this PO entry has no msgid"),
    ('msgid "a"\n\nmsgid "b"\nmsgstr "c"\n', "de.po:1:1: error: this PO entry has no msgstr"),
    ('msgid "a"\nmsgstr "\\q"\n', "de.po:2:9: error: unknown escape \\q in a PO string"),
    ('"loose"\n', "de.po:1:1: error: a string with no msgid, msgstr or msgctxt before it"),
    ('msgid "a"\nmsgid_plural "as"\nmsgstr[0] ""\n', "de.po:2:1: error: plural forms are not used by cardgen"),
])
def test_a_broken_po_file_is_a_located_error(tmp_path, monkeypatch, body, message):
    root = _game(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("de.po").write_text('msgid ""\nmsgstr "Language: de\\n"\n\n' * 0 + body)
    before = _snapshot(root)
    with pytest.raises(CardgenError) as exc:
        _import(root, tmp_path, Path("de.po"))
    assert str(exc.value.diagnostics[0]).startswith(message), exc.value.diagnostics
    assert _snapshot(root) == before


def test_a_po_file_of_another_language_or_an_unknown_card_is_said(tmp_path):
    root = _game(tmp_path)
    po = tmp_path / "x.po"
    po.write_text('msgid ""\nmsgstr "Language: fr\\n"\n')
    with pytest.raises(CardgenError) as exc:
        _import(root, tmp_path, po)
    assert str(exc.value.diagnostics[0]).endswith("x.po:1: error: the PO file is a French (fr) translation, not "
                                                  "--lang de")
    po.write_text('msgid ""\nmsgstr "Language: de\\n"\n\nmsgctxt "Action|name:Gone|text"\nmsgid "x"\nmsgstr "y"\n')
    report = Report()
    assert _import(root, tmp_path, po, None, report) == []
    assert [str(d) for d in report.items] == [f"{po}:4:1: warning: no text 'Action|name:Gone|text' in the "
                                              f"game (renamed or removed since the export?); not imported"]


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(alphabet='msgidtrcx "\\\n#:,~[]0n', max_size=80))
def test_the_po_reader_ends_in_entries_or_its_own_located_error(text):
    from cardgen.load.po import loads

    try:
        loads(text, "x.po")
    except CardgenError as exc:
        assert exc.diagnostics and all(d.loc.file == "x.po" and d.loc.line >= 1 for d in exc.diagnostics)


def test_a_side_the_same_in_every_language_is_rasterized_once(tmp_path):
    deck = DECK.replace("    name@de: Diebstahl\n", "").replace("    text@de: Nimm eine Karte.\n", "")
    root = make_game(tmp_path, game=GAME + "mark_untranslated: false\n", decks={"actions.yaml": deck})
    out = tmp_path / "out"

    def bitmaps() -> list[Path]:
        return [p for p in out.rglob("*") if p.is_file() and p.parent.name == "raster" and p.name != "OWNER"]

    build_game(root, tmp_path, BuildOptions(out=out, only=("tts",), lang="en"), Report())
    one = len(bitmaps())
    assert one and all(p.parent == out / "g" / ".cache" / "raster" for p in bitmaps())
    build_game(root, tmp_path, BuildOptions(out=out, only=("tts",)), Report())
    # Theft reads the same in both languages: only the two translated faces are new
    assert len(bitmaps()) == one + 2 * one // 3


def test_a_deck_shows_its_translated_name_and_keeps_its_own(tmp_path):
    root = _game(tmp_path, deck=DECK + "deck@de: Aktionen\n",
                 rules=RULES_BOOK + "components:\n  - deck: Action\n    quote: \"6 Digging\"\n    cards: {Digging: 6}\n"
                                    "    others: 3\n")
    out = tmp_path / "out"
    report = Report()
    build_game(root, tmp_path, BuildOptions(out=out, only=("tts", "booklet"), papers=("a4",)), report)
    assert not report.errors, report.errors         # rules.yaml's counts still name the deck `Action`
    saves = {lang: json.loads((out / "g" / lang / "tts" / "g.json").read_text()) for lang in ("en", "de")}
    decks = {lang: [o["Nickname"] for o in s["ObjectStates"] if o["Name"] == "Deck"] for lang, s in saves.items()}
    assert decks == {"en": ["Action"], "de": ["Aktionen"]}
    assert "Aktionen" in _words(out / "g" / "de" / "rules.pdf") and "Aktionen" not in _words(out / "g" / "en" /
                                                                                            "rules.pdf")


def test_words_are_hyphenated_by_the_language_being_built(tmp_path):
    from cardgen.layout.engine import Resources
    from cardgen.text import breaks

    root = _game(tmp_path, game=GAME.replace("languages: [en, de]", "languages: [en, de, ja]"))
    hyphenators = {lang: Resources(load_game(root, tmp_path, Report(), lang=lang)).typesetter.hyphenator
                   for lang in ("en", "de", "ja", "qps")}
    assert hyphenators["en"] is breaks.dictionary("en") is not None
    assert hyphenators["de"] is breaks.dictionary("de") is not None and hyphenators["de"] is not hyphenators["en"]
    assert hyphenators["ja"] is None            # (pyphen has no Japanese patterns: not hyphenated)
    assert hyphenators["qps"] is hyphenators["en"]


def test_the_booklets_own_words_are_in_the_language_built(tmp_path):
    from cardgen.core.words import Words

    root = _game(tmp_path, rules=RULES_BOOK)
    out = tmp_path / "out"
    build_game(root, tmp_path, BuildOptions(out=out, only=("booklet",), papers=("a4",)), Report())
    de, en = _words(out / "g" / "de" / "rules.pdf"), _words(out / "g" / "en" / "rules.pdf")
    assert "Spielmaterial" in de and "12 Karten" in de and "Components" not in de
    assert "Components" in en and "12 cards" in en and "Spielmaterial" not in en
    assert (Words("ja")("Notes"), Words("pt-BR")("Notes"), Words("fr-CA")("Notes")) == ("Notes", "Notes", "Notes")
    assert (Words("de").count(1, "die"), Words("en").count(2, "die"), Words("ja").count(2, "card")) \
        == ("1 Würfel", "2 dice", "2 cards")


def test_game_yaml_without_languages_is_known_from_its_bytes(tmp_path):
    """A build reads game.yaml's `languages:` before anything else; when the file's bytes cannot
    hold the key it does not load YAML for it (a rebuild with nothing changed imports none):
    not when the word is there, nor a backslash (a double-quoted key's escapes), nor a NUL
    (UTF-16 text); those are loaded as before, and give the languages they give."""
    from cardgen.pipeline.build import _says_no_languages
    from cardgen.schema.languages import declared_languages

    game = tmp_path / "game.yaml"
    for text, says_none in (("title: T\n", True), ("title: T\nlanguages: [en, de]\n", False),
                            ('title: T\n"lang\\x75ages": [en, de]\n', False), ("title: 'no: languages'\n", False)):
        game.write_text(text, encoding="utf-8")
        assert _says_no_languages(game) is says_none, text
    game.write_bytes("title: T\n\"lang\\u0061ges\": [en]\n".encode("utf-16"))
    assert not _says_no_languages(game)
    assert not _says_no_languages(tmp_path / "missing.yaml")        # (the loader says why)
    from cardgen.load.yamlsrc import load_file

    game.write_text('title: T\n"lang\\x75ages": [en, de]\n', encoding="utf-8")
    assert declared_languages(load_file(game)) == ("en", "de")


def test_translated_keys_are_found_at_any_depth_as_before():
    """`translations._has_keys` and `translated` (every card asked, every build) pass over
    keys without `@` and values that hold nothing, and find what a walk of every key and
    value finds, on random nested data."""
    import random

    from cardgen.load import translations as tr

    def every(value):           # (the walk as it was: every key split, every value walked)
        out = []
        if isinstance(value, dict):
            for k, v in value.items():
                parts = tr.split(k)
                if parts is not None:
                    out.append((id(value), k, *parts))
                out += every(v)
        elif isinstance(value, list):
            for v in value:
                out += every(v)
        return out

    rng = random.Random(3)
    keys = ["text", "text@de", "name@pt-BR", "a@", "@de", "x@1", "t@de-", 3, None, True, 2.5, "e-mail@x.y", "z@zh_Hant"]

    def make(depth):
        kind = rng.random()
        if depth > 3 or kind < 0.4:
            return rng.choice(["a", "b@de", 1, None, 2.0, True])
        if kind < 0.7:
            return [make(depth + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(keys): make(depth + 1) for _ in range(rng.randint(0, 4))}

    found_some = 0
    for _ in range(600):
        value = make(0)
        want = every(value)
        assert [(id(m), k, f, lang) for m, k, f, lang in tr.translated(value)] == want
        assert tr._has_keys(value) == bool(want)
        found_some += bool(want)
    assert 50 < found_some < 550
