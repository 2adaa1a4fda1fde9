"""History beside the game (`cardgen-history.json`, cardgen/load/history.py): card revision
counters that outlive the build folder and travel with the game (docs/changes.md)."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from test_changes import build, edit, make_game, manifest, page_texts, revisions

from cardgen.core import limits

HISTORY = "cardgen-history.json"
BETA_OLD, BETA_NEW = 'name: Beta, color: "#00aa00"', 'name: Beta, color: "#007755"'


def stamp(root: Path, card: int, folder: str = "build") -> str:
    """The revision printed on a card of cards.pdf (`r2 1a2b3c`)."""
    text = page_texts(root / folder / "cards.pdf")[card]
    found = re.search(r"r\d+ [0-9a-f]{6}$", text)
    assert found, text
    return found.group(0)


def history(root: Path) -> dict:
    return json.loads((root / HISTORY).read_text(encoding="utf-8"))


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": warning: " in line]


def test_the_file_records_every_card_one_line_each_and_is_written_only_when_it_changes(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    data = {c["name"]: c for c in manifest(root)["cards"]}
    text = (root / HISTORY).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[:4] == ["{", ' "about": "cardgen\'s history of this game (card revisions): commit it with the game; '
                              'cardgen build keeps it",', ' "format": 1,', ' "revisions": {']
    assert lines[4:10] == ['  "Things": ['] + [
        f'   {{"card": "name:{n}", "revision": 1, "data": "{data[n]["data"]}", "body": "{data[n]["body"]}"}}'
        + ("," if n != "Delta" else "") for n in ("Alpha", "Beta", "Gamma", "Delta")] + ["  ]"]
    assert lines[10:] == [" }", "}"]
    assert json.loads(text)["revisions"]["Things"][1]["card"] == "name:Beta"
    before = os.stat(root / HISTORY)
    edit(root, 'name: Alpha, color: "#aa0000", count: 2', 'name: Alpha, color: "#aa0000", count: 5')
    build(root)                                     # copies are not the card's data: the file is not written
    after = os.stat(root / HISTORY)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    out = build(root)
    assert "up to date" in out                     # (the history is an input, unchanged)


def test_revisions_survive_deleting_the_build_folder(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, BETA_OLD, BETA_NEW)
    out = build(root)
    assert "up to date" not in out
    assert revisions(root) == {"Alpha": 1, "Beta": 2, "Gamma": 1, "Delta": 1}
    assert [r["revision"] for r in history(root)["revisions"]["Things"]] == [1, 2, 1, 1]
    assert "up to date" in build(root)             # writing the history does not make the next build redo it
    printed = stamp(root, 1)
    assert printed.startswith("r2 ")
    shutil.rmtree(root / "build")
    build(root)
    assert revisions(root) == {"Alpha": 1, "Beta": 2, "Gamma": 1, "Delta": 1}
    assert stamp(root, 1) == printed
    edit(root, BETA_NEW, 'name: Beta, color: "#0000ff"')     # and they go on counting from there
    shutil.rmtree(root / "build")
    build(root)
    assert revisions(root) == {"Alpha": 1, "Beta": 3, "Gamma": 1, "Delta": 1}


def test_a_copy_of_the_game_elsewhere_prints_the_same_revisions(tmp_path):
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, BETA_OLD, BETA_NEW)
    build(root)
    copy = tmp_path / "elsewhere" / "co-designer" / "tiny"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("build"))
    build(copy)
    assert revisions(copy) == {"Alpha": 1, "Beta": 2, "Gamma": 1, "Delta": 1}
    assert stamp(copy, 1) == stamp(root, 1)
    assert (copy / HISTORY).read_bytes() == (root / HISTORY).read_bytes()
    # a build into another output folder (--out) counts the same: the counters are the game's
    out = tmp_path / "other-out"
    build(root, "--out", str(out))
    assert json.loads((out / "tiny" / "manifest.json").read_text())["cards"][1]["revision"] == 2


def test_an_old_build_folder_gives_its_revisions_once(tmp_path):
    """A game built before the history file existed: the manifest in build/ gives the counters,
    the build writes them beside the game, and from then on the build folder is not needed."""
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, BETA_OLD, BETA_NEW)
    build(root)
    (root / HISTORY).unlink()                      # as an older cardgen left it: r2 only in build/
    assert revisions(root)["Beta"] == 2
    build(root)
    assert [r["revision"] for r in history(root)["revisions"]["Things"]] == [1, 2, 1, 1]
    shutil.rmtree(root / "build")
    build(root)
    assert revisions(root)["Beta"] == 2


def test_validate_reads_the_history_and_writes_nothing(tmp_path):
    root = make_game(tmp_path / "tiny")
    code, _, err = run_cli("validate", str(root))
    assert code == 0, err
    assert not (root / HISTORY).exists()


CONFLICT = """\
{
 "about": "x",
 "format": 1,
 "revisions": {
<<<<<<< HEAD
  "Things": []
=======
  "Things": [1]
>>>>>>> theirs
 }
}
"""


@pytest.mark.parametrize(("text", "where", "message"), [
    (CONFLICT, ":5:1", r"is not a cardgen history file \(not JSON: Expecting property name enclosed in double "
                       r"quotes\)"),
    ('{"format": 2, "revisions": {}}\n', ":1:12", "has format 2, not 1: it was written by another version of cardgen"),
    ('[1, 2]\n', ":1:1", r"is not a cardgen history file \(not a JSON object\)"),
    ('{"format": 1, "revisions": []}\n', ":1:28", "section `revisions` is not a mapping"),
    ('{"format": 1, "revisions": {"Things": {"a": 1}}}\n', ":1:39", "`revisions`: `Things` is not a list of records"),
    ('{"format": 1,\n "revisions": {"Things": [\n  {"card": "name:Beta", "revision": "two", "data": "ab", "body": "cd"}'
     ']}}\n', ":3:3", "revision record 1 of deck 'Things' has a `revision` that is not a whole number from 1 to "
                      "1,000,000,000"),
    ('{"format": 1,\n "revisions": {"Things": [\n  {"card": "Beta", "revision": 2, "data": "ab", "body": "cd"}'
     ']}}\n', ":3:3", r"revision record 1 of deck 'Things' has a `card` that is not `id:...` or `name:...`"),
    ('{"format": 1,\n "revisions": {"Things": [\n  {"card": "name:Beta", "revision": 2, "data": "xyz", "body": "cd"}'
     ']}}\n', ":3:3", r"revision record 1 of deck 'Things' has a `data` that is not a hash \(hexadecimal digits\)"),
    ('{"format": 1,\n "revisions": {"Things": [\n  {"card": "name:Beta", "revision": 2}]}}\n', ":3:3",
     "revision record 1 of deck 'Things' lacks data, body"),
])
def test_a_bad_history_file_is_a_located_warning_and_is_not_written_over(tmp_path, text, where, message):
    root = make_game(tmp_path / "tiny")
    build(root)
    edit(root, BETA_OLD, BETA_NEW)
    (root / HISTORY).write_text(text, encoding="utf-8")
    code, out, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0, err
    assert "Traceback" not in err
    assert warnings(err) == [line for line in warnings(err) if line.startswith(str(root / HISTORY))]
    [line] = warnings(err)
    assert re.fullmatch(re.escape(f"{root / HISTORY}{where}: warning: ") + message + re.escape(
        f"; cardgen reads nothing from {HISTORY} and does not write over it until it is fixed or deleted (card "
        f"revisions count from the last build, else from 1)"), line), line
    assert (root / HISTORY).read_text(encoding="utf-8") == text          # the designer's to resolve
    assert revisions(root)["Beta"] == 2                                 # from the last build's manifest
    code, out, _ = run_cli("validate", str(root))          # (validate reports on stdout)
    assert [x.split(": warning: ")[0] for x in warnings(out)] == [f"{root / HISTORY}{where}"]


def test_a_history_file_that_is_a_link_or_too_large_is_not_read(tmp_path, monkeypatch):
    root = make_game(tmp_path / "tiny")
    secret = tmp_path / "secret.json"
    secret.write_text('{"format": 1, "revisions": {}}', encoding="utf-8")
    (root / HISTORY).symlink_to(secret)
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0, err
    assert warnings(err)[0].startswith(f"{root / HISTORY}: warning: is a link; cardgen keeps its history in a file "
                                       f"of the game folder itself: replace the link with the file; ")
    assert (root / HISTORY).is_symlink() and secret.read_text() == '{"format": 1, "revisions": {}}'
    (root / HISTORY).unlink()
    edit(root, BETA_OLD, BETA_NEW)
    build(root)
    assert (root / HISTORY).stat().st_size > 100
    monkeypatch.setattr(limits, "MAX_HISTORY_BYTES", 100)
    edit(root, BETA_NEW, 'name: Beta, color: "#0000ff"')
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet")
    assert code == 0, err
    assert warnings(err)[0].startswith(f"{root / HISTORY}: warning: is larger than 100 bytes "
                                       f"(CARDGEN_MAX_HISTORY_BYTES); ")
    assert revisions(root)["Beta"] == 3             # from the last build's manifest


def test_a_game_folder_cardgen_cannot_write_into_is_a_warning(tmp_path, monkeypatch):
    from cardgen.core import atomic

    root = make_game(tmp_path / "tiny")
    out = tmp_path / "out"
    build(root, "--out", str(out))
    before = (root / HISTORY).read_bytes()
    edit(root, BETA_OLD, BETA_NEW)
    real = atomic.write_text

    def refuse(path, text):
        if Path(path).name == HISTORY:
            raise PermissionError(13, "Permission denied")
        return real(path, text)

    monkeypatch.setattr(atomic, "write_text", refuse)
    code, _, err = run_cli("build", str(root), "--only", "cards", "--page", "letter", "--quiet", "--out", str(out))
    assert code == 0, err
    assert warnings(err) == [f"{root / HISTORY}: warning: cannot be written (Permission denied): the card revisions "
                             f"of this build are kept only in the build folder; make the game folder writable so "
                             f"that {HISTORY} keeps them"]
    assert json.loads((out / "tiny" / "manifest.json").read_text())["cards"][1]["revision"] == 2
    assert (root / HISTORY).read_bytes() == before


def test_other_sections_are_kept_as_they_are(tmp_path):
    """A section another part of cardgen keeps (translations, say) is written back unchanged."""
    root = make_game(tmp_path / "tiny")
    build(root)
    data = history(root)
    data["translations"] = {"fr": [{"key": "Beta", "text": "Bêta"}]}
    (root / HISTORY).write_text(json.dumps(data), encoding="utf-8")
    edit(root, BETA_OLD, BETA_NEW)
    build(root)
    text = (root / HISTORY).read_text(encoding="utf-8")
    assert '  "fr": [\n   {"key": "Beta", "text": "Bêta"}\n  ]\n' in text
    assert history(root)["translations"] == {"fr": [{"key": "Beta", "text": "Bêta"}]}
    assert [r["revision"] for r in history(root)["revisions"]["Things"]] == [1, 2, 1, 1]


@pytest.mark.parametrize("game", sorted(p.name for p in (REPO / "cards").iterdir() if (p / "game.yaml").is_file()))
def test_the_bundled_games_history_files_are_current(game):
    """Each bundled game carries its history file as a build writes it (so building a bundled
    game never changes the repository), and every card of it is at its first revision; a game
    made in several languages (Game 601) with every translation recorded, none stale."""
    from cardgen.check.translations import SECTION, records
    from cardgen.core.errors import Report
    from cardgen.layout.manifest import REVISIONS, assign_revisions, recorded_revisions, revisions_record
    from cardgen.load.history import dumps, read_history
    from cardgen.pipeline.check import load_game

    report = Report()
    loaded = load_game(REPO / "cards" / game, REPO, report)
    record = read_history(loaded.root, report)
    assign_revisions(loaded, recorded_revisions(record, report))
    assert not [d for d in report.items if d.code == "history"]
    translated = records(loaded, record)
    assert (game == "game-601") is bool(translated)
    assert (loaded.root / HISTORY).read_text(encoding="utf-8") == \
        dumps({REVISIONS: revisions_record(loaded), **({SECTION: translated} if translated else {})})
    assert {card.revision_number for deck in loaded.decks for card in deck.cards} == {1}


def _places(node, out: list) -> list:
    """Every mapping's and list's places, depth first."""
    if isinstance(node, dict):
        out.append((node.loc, node.key_locs, node.value_locs))
        for v in node.values():
            _places(v, out)
    elif isinstance(node, list):
        out.append((node.loc, node.item_locs))
        for v in node:
            _places(v, out)
    return out


@pytest.mark.parametrize("game", ["face-off", "game-601"])
def test_a_file_as_cardgen_writes_it_is_read_with_json_and_its_places_as_yaml_gives_them(game):
    """A history file that is what `dumps` writes is read by `json` (the YAML loader works out
    its places only when one is asked for): the same data, in the same order, and the same
    place for every key, value and item as the YAML loader gives; a file edited by hand (a
    space added) is read by the YAML loader."""
    from cardgen.load.history import _as_written, _ReadDict
    from cardgen.load.yamlsrc import load_text

    text = (REPO / "cards" / game / HISTORY).read_text(encoding="utf-8")
    fast, slow = _as_written(json.loads(text), text, "h.json"), load_text(text, "h.json")
    assert isinstance(fast, _ReadDict) and "_places" in fast.__dict__       # (no place worked out yet)
    assert fast == slow and json.dumps(fast) == json.dumps(slow)
    assert _places(fast, []) == _places(slow, [])
    edited = text.replace('"format": 1', '"format":  1')
    assert _as_written(json.loads(edited), edited, "h.json") is None


def test_a_bad_record_in_a_file_as_cardgen_writes_it_is_said_at_its_place(tmp_path):
    """A record no owner can use, in a file that is otherwise as cardgen writes it (read with
    `json`): the warning names the record's line and column, as for a file the YAML loader read."""
    from cardgen.load.history import dumps

    root = make_game(tmp_path / "tiny")
    text = dumps({"revisions": {"Things": [{"card": "name:Alpha", "revision": 1, "data": "ab", "body": "cd"},
                                           {"card": "name:Bêta", "revision": "two", "data": "ab", "body": "cd"}]}})
    (root / HISTORY).write_text(text, encoding="utf-8")
    _, out, _ = run_cli("validate", str(root))
    assert [line.split(": warning: ")[0] for line in warnings(out)] == [f"{root / HISTORY}:7:4"]


@pytest.mark.parametrize("name, by_json", [("Bêta ✓ 😀", True), ("Beta\u00a0\u3000", True), ("Beta\x80", False),
                                           ("Beta\x85", False), ("Beta\u2028", False), ("Beta\ufeff", False)])
def test_what_yaml_reads_otherwise_is_left_to_the_yaml_loader(name, by_json):
    """A file as cardgen writes it whose text YAML reads otherwise than JSON (a character the YAML
    reader refuses, a line break YAML folds: NEL, LS) or a number JSON alone reads (NaN) is read
    by the YAML loader, which says what it says of it; any other is read with `json`, the same data."""
    from cardgen.core.errors import CardgenError
    from cardgen.load.history import _as_written, dumps
    from cardgen.load.yamlsrc import load_text

    text = dumps({"revisions": {"Things": [{"card": f"name:{name}", "revision": 1, "data": "ab", "body": "cd"}]}})
    fast = _as_written(json.loads(text), text, "h.json")
    assert (fast is not None) == by_json
    if by_json:
        assert fast == load_text(text, "h.json") and _places(fast, []) == _places(load_text(text, "h.json"), [])
    nan = text.replace('"revision": 1', '"revision": NaN')
    assert _as_written(json.loads(nan), nan, "h.json") is None
    with pytest.raises(CardgenError) if name.endswith("\x80") else contextlib.nullcontext():
        load_text(text, "h.json")


def test_ascii_text_is_judged_as_the_whole_character_class_judges_it():
    """`_yaml_refuses` reads ASCII text with a small pattern (the whole class costs 5 ms to
    compile): the same answer for every ASCII character, alone or in a line, as the whole class."""
    from cardgen.load import history

    for code in range(128):
        for text in (chr(code), f'{{"a": "x{chr(code)}y"}}\n'):
            assert history._yaml_refuses(text) is (history._not_yaml().search(text) is not None), code
    assert history._yaml_refuses("caf\u00e9\x85") and not history._yaml_refuses("caf\u00e9")
