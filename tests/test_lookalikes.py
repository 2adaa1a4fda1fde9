"""Nothing silent about characters that read differently than they look: a bidirectional
control in a card's name or text is a warning at its line and is left out of every output (the
PDF, the gallery and Tabletop Simulator show the same text); a name written with a look-alike
letter of another script (or an invisible character), for an icon, a template, a field, says
which letter it holds and the name it looks like."""
from __future__ import annotations

import json

import pypdf
import pytest
from conftest import run_cli

from cardgen.core import confusables as C
from cardgen.schema.core import suggest

CYR_A = "\u0430"          # CYRILLIC SMALL LETTER A
CYR_O = "\u043e"          # CYRILLIC SMALL LETTER O
RLO = "\u202e"            # RIGHT-TO-LEFT OVERRIDE


@pytest.mark.parametrize("written, looks", [
    (f"tre{CYR_A}sure", "treasure"),
    (f"c{CYR_O}in", "coin"),
    ("\u0441\u043e\u0456n", "coin"),                  # Cyrillic es, o, dotted i
    ("\u03bfk", "ok"),                                # Greek omicron
    ("\uff43\uff4f\uff49\uff4e", "coin"),             # fullwidth
    ("\U0001d41c\U0001d428in", "coin"),               # mathematical bold
    ("co\u200bin", "coin"),                           # zero width space
    ("co\u202ein", "coin"),                           # a bidi override inside a name
])
def test_skeleton_folds_lookalikes(written, looks):
    assert C.skeleton(written) == looks
    assert C.lookalikes(written)
    assert suggest(written, ["treasure", "coin", "ok", "other"]).startswith(f"; did you mean '{looks}'? (the name "
                                                                           f"holds ")


def test_plain_names_and_other_scripts_are_left_alone():
    for word in ("treasure", "Zürich", "\u0442\u0435\u0441\u0442", "\u65e5\u672c", "caf\u00e9"):
        assert C.skeleton(word) == word or not C.skeleton(word).isascii()
    assert C.lookalikes("treasure") == [] and C.note("treasure") == ""
    assert suggest("tresure", ["treasure"]) == "; did you mean 'treasure'?"
    assert C.lookalike_icons(":coin: and :\u0442\u0435\u0441\u0442: and 10:30") == []


def test_note_names_each_letter():
    assert C.note(f"tre{CYR_A}sure") == " (the name holds a non-Latin look-alike letter U+0430 CYRILLIC SMALL LETTER A)"
    assert C.note(f"c{CYR_O}in{CYR_A}\u200b") == (
        " (the name holds non-Latin look-alike letters U+043E CYRILLIC SMALL LETTER O, U+0430 CYRILLIC SMALL LETTER "
        "A and an invisible character U+200B ZERO WIDTH SPACE)")
    assert C.lookalike_icons(f"gain :tre{CYR_A}sure: now, :coin:") == [(f"tre{CYR_A}sure", "treasure")]


@pytest.mark.parametrize("ch", sorted(C.BIDI_CONTROLS))
def test_every_bidi_control_is_found(ch):
    assert C.bidi_controls(f"a{ch}b{ch}") == [ch]
    assert C.without_bidi(f"a{ch}b") == "ab"


def test_bidi_controls_warn_at_their_line_and_every_output_shows_the_same_text(tiny_game, tmp_path):
    root = tiny_game(f"""
        cards:
          - {{name: "Alpha{RLO}Beta", color: "#ff0000"}}
          - {{name: Gamma, rules: ["ok", "left\u2067right\u2069"]}}
    """)
    code, stdout, _ = run_cli("validate", str(root))
    assert code == 0
    warnings = [ln for ln in stdout.splitlines() if ": warning: " in ln]
    assert warnings == [
        f"{root}/deck.yaml:5:12: warning: deck 'Things': card 'AlphaBeta', `name:` holds the bidirectional control "
        f"character U+202E RIGHT-TO-LEFT OVERRIDE, which would reorder the text in the gallery and Tabletop "
        f"Simulator but not in the PDF; cardgen leaves it out (write the text in the order it reads)",
        f"{root}/deck.yaml:6:33: warning: deck 'Things': card 'Gamma', `rules:` holds the bidirectional control "
        f"characters U+2067 RIGHT-TO-LEFT ISOLATE, U+2069 POP DIRECTIONAL ISOLATE, which would reorder the text in "
        f"the gallery and Tabletop Simulator but not in the PDF; cardgen leaves them out (write the text in the "
        f"order it reads)"]
    out = tmp_path / "out" / "tiny"
    code, _, stderr = run_cli("build", str(root), "--out", str(out.parent), "--only", "print", "--only", "tts",
                              "--only", "gallery", "--quiet")
    assert code == 0, stderr
    pdf_text = pypdf.PdfReader(out / "print-a4.pdf").pages[0].extract_text()
    assert "AlphaBeta" in pdf_text
    tts = json.loads((out / "tts" / "tiny.json").read_text())
    nicknames = json.dumps(tts, ensure_ascii=False)
    assert '"Nickname": "AlphaBeta"' in nicknames and RLO not in nicknames
    page = (out / "index.html").read_text()
    assert "AlphaBeta" in page and RLO not in page and "\\u202e" not in page
    assert (out / "gallery" / "things" / "001-alphabeta-face.png").is_file()


def test_lookalike_icon_in_card_text_is_a_warning(tiny_game):
    root = tiny_game(f"""
        cards:
          - {{name: Alpha, text: "Gain :tre{CYR_A}sure: now"}}
    """)
    (root / "art" / "icons").mkdir(parents=True)
    (root / "art" / "icons" / "treasure.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>')
    _, stdout, _ = run_cli("validate", str(root))
    assert f"{root}/deck.yaml:5:25: warning: Things: card 'Alpha', `text:`: unknown icon ':tre{CYR_A}sure:', printed " \
           f"as text; did you mean 'treasure'? (the name holds a non-Latin look-alike letter U+0430 CYRILLIC SMALL " \
           f"LETTER A)" in stdout.splitlines()


def test_lookalike_template_and_field_names_say_which_letter(tiny_game, tmp_path):
    root = tiny_game(deck_extra="")
    deck = (root / "deck.yaml").read_text().replace("template: tiny/face", f"template: tiny/f{CYR_A}ce")
    (root / "deck.yaml").write_text(deck)
    code, stdout, _ = run_cli("validate", str(root))
    assert code == 1
    assert any(f"unknown template 'tiny/f{CYR_A}ce'; did you mean 'tiny/face'? (the name holds a non-Latin "
               f"look-alike letter U+0430 CYRILLIC SMALL LETTER A)" in ln for ln in stdout.splitlines())

    template = """
        elements:
          - name: cost
            type: text
            width: 20mm
            height: 10mm
            text: "{{ card.cOst }}"
    """.replace("cOst", f"c{CYR_O}st")
    root = tiny_game("cards:\n  - {name: A, cost: 3}\n", template=template)
    code, stdout, stderr = run_cli("build", str(root), "--out", str(tmp_path / "o2"), "--only", "print", "--quiet")
    assert code == 1
    assert f"card 'A' (deck.yaml:5) has no field 'c{CYR_O}st'; did you mean 'cost'? (the name holds a non-Latin " \
           f"look-alike letter U+043E CYRILLIC SMALL LETTER O) (used by element 'cost')" in stdout + stderr


def test_lookalike_card_field_is_named(tiny_game):
    template = """
        elements:
          - name: cost
            type: text
            width: 20mm
            height: 10mm
            text: "{{ card.cost | default('') }}"
    """
    root = tiny_game(f"cards:\n  - {{name: A, c{CYR_O}st: 3}}\n", template=template)
    _, stdout, _ = run_cli("validate", str(root))
    assert f"{root}/deck.yaml:5:15: warning: Things: card 'A' has a field 'c{CYR_O}st' that no template uses; did " \
           f"you mean 'cost'? (the name holds a non-Latin look-alike letter U+043E CYRILLIC SMALL LETTER O)" \
           in stdout.splitlines()


def test_a_bidi_control_in_a_deck_name_is_left_out(tiny_game, tmp_path):
    root = tiny_game()
    (root / "deck.yaml").write_text((root / "deck.yaml").read_text().replace("deck: Things", f"deck: Thi{RLO}ngs"))
    code, stdout, _ = run_cli("validate", str(root))
    assert f"{root}/deck.yaml:1:7: warning: deck file deck.yaml, `deck:` holds the bidirectional control character " \
           f"U+202E RIGHT-TO-LEFT OVERRIDE, which would reorder the text in the gallery and Tabletop Simulator but " \
           f"not in the PDF; cardgen leaves it out (write the text in the order it reads)" in stdout.splitlines()
    out = tmp_path / "out" / "tiny"
    code, _, stderr = run_cli("build", str(root), "--out", str(out.parent), "--only", "tts", "--quiet")
    assert code == 0, stderr
    tts = (out / "tts" / "tiny.json").read_text(encoding="utf-8")
    assert '"Nickname": "Things"' in tts and RLO not in tts and "\\u202e" not in tts


def test_lookalike_icon_in_template_text_is_a_warning(tiny_game):
    template = f"""
        elements:
          - name: rule
            type: text
            width: 50mm
            height: 10mm
            text: "Pay :c{CYR_O}in: to draw"
    """
    root = tiny_game(template=template)
    (root / "art" / "icons").mkdir(parents=True)
    (root / "art" / "icons" / "coin.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>')
    _, stdout, _ = run_cli("validate", str(root))
    assert f"{root}/templates/tiny/face.yaml:6:11: warning: element 'rule': unknown icon ':c{CYR_O}in:', printed " \
           f"as text; did you mean 'coin'? (the name holds a non-Latin look-alike letter U+043E CYRILLIC SMALL " \
           f"LETTER O)" in stdout.splitlines()
