"""The Tabletop Simulator saved object after a one-card edit: the objects of the cards that did
not change are taken from the last build's file, and the file is byte for byte a clean
build's (issue 30)."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import write

from cardgen.core.errors import Report
from cardgen.outputs import tts, tts_save
from cardgen.pipeline.build import BuildOptions, build_game

FACE = """
elements:
  - {name: bg, type: rect, box: bleed, fill: "#f4efe0"}
  - {name: title, type: text, x: 5mm, y: 5mm, width: 53.5mm, height: 10mm, text: "{{ card.name }}", size: 12}
"""


def make_game(root: Path) -> Path:
    game = root / "two"
    write(game / "game.yaml", "title: Two decks\n")
    write(game / "templates" / "face.yaml", FACE)
    for deck in ("Red", "Blue"):
        lines = [f"  - {{name: {deck} {i}, text: 'Gain :coins: {i} coins, then *draw*.', notes: n{i}}}"
                 for i in range(1, 5)]
        write(game / f"{deck.lower()}.yaml", f"deck: {deck}\ntemplate: face\ncards:\n" + "\n".join(lines) + "\n")
    return game


def build(game: Path, out: Path) -> bytes:
    report = Report()
    build_game(game, game, BuildOptions(out=out, only=("tts",)), report)
    assert not [d for d in report.items if d.severity == "error"], [d.message for d in report.items]
    return (out / "two" / "tts" / "two.json").read_bytes()


def test_a_one_card_edit_encodes_only_its_decks_cards_and_makes_a_clean_builds_bytes(tmp_path, monkeypatch):
    game = make_game(tmp_path)
    out = tmp_path / "out"
    build(game, out)
    red = game / "red.yaml"
    red.write_text(red.read_text().replace("Gain :coins: 2 coins", "Lose :coins: 2 coins"))
    worded: list[str] = []
    real = tts.words

    def counted(text: str) -> str:
        worded.append(text)
        return real(text)

    monkeypatch.setattr(tts, "words", counted)
    whole: list[bytes] = []            # the save encoded whole, as a clean build does
    encode = tts_save.encode

    def both(save, *args):
        got = encode(save, *args)
        worded.append("(encoded)")
        whole.append(tts.json_bytes(tts_save.plain(save)))
        return got

    monkeypatch.setattr(tts_save, "encode", both)
    before = dict(tts_save.STATS)
    edited = build(game, out)
    # the edited card's object is encoded (its words worked out), the seven others are the last
    # file's bytes (its face does not show the text: every sheet keeps its name)
    assert tts_save.STATS["encoded"] - before["encoded"] == 1
    assert tts_save.STATS["reused"] - before["reused"] == 7
    assert worded[:worded.index("(encoded)")] == ["Lose :coins: 2 coins, then *draw*."]
    assert whole and edited == whole[0]
    assert "Lose coins 2 coins, then draw." in edited.decode()


def test_a_changed_or_damaged_last_file_is_not_taken(tmp_path):
    cache = tts_save.SaveCache(None)
    cache._loaded = True
    saved = tmp_path / "s.json"
    save = {"ObjectStates": [{"Name": "Deck", "ContainedObjects": [
        {"Name": "Card", "Description": tts_save.Described(("a :b-c: d", "e"), str.upper), "Tags": [], "X": {}},
        {"Name": "Card", "Description": "", "Tags": ["a", "b"], "v": [1, 2.5, None, True, "é"]}]},
        {"Name": "Card", "Description": "x"}, {"Name": "Bag", "ContainedObjects": []}], "TabStates": {}}
    whole = tts.json_bytes(tts_save.plain(save))
    assert json.loads(whole)["ObjectStates"][0]["ContainedObjects"][0]["Description"] == "A :B-C: D\nE"
    saved.write_bytes(tts_save.encode(save, cache, "s.json", saved))
    assert saved.read_bytes() == whole
    before = dict(tts_save.STATS)
    assert tts_save.encode(save, cache, "s.json", saved) == whole
    assert tts_save.STATS["reused"] - before["reused"] == 2
    saved.write_bytes(whole.replace(b'"a"', b'"A"'))            # changed since: not taken
    before = dict(tts_save.STATS)
    assert tts_save.encode(save, cache, "s.json", saved) == whole
    assert tts_save.STATS["reused"] == before["reused"] and tts_save.STATS["encoded"] - before["encoded"] == 2
    # a value of the game's that reads as an object's mark: the save encoded whole, the same bytes
    save["ObjectStates"][1]["Tags"] = [tts_save.MARK.format(0)]
    assert tts_save.encode(save, cache, "s.json", saved) == tts.json_bytes(tts_save.plain(save))
