"""rules.yaml is read once into typed data (`cardgen.model.rules.Rules`, on the loaded game),
and every reader (the count checks, the rulebook, the booklet, the outputs) reads that object."""
from __future__ import annotations

from conftest import in_dir
from vgame import RULES, make_game

from cardgen.core.errors import Report
from cardgen.model.rules import Count, Rules
from cardgen.pipeline.check import check_game, load_game

RULEBOOK = RULES + """\
title: Test game
intro: Dig for {{ components.Action.cards.Digging }} treasures.
sections:
  - title: Set-up
    body:
      - Shuffle the {{ decks.Action.count }} actions.
player_aid:
  turn: [Dig]
  end: [Stop]
"""


def _errors(root, project) -> list[str]:
    report = Report()
    check_game(root, project, report)
    return [str(d).split("cards/g/", 1)[-1] for d in report.sorted() if d.severity == "error"]


def test_an_unknown_key_of_rules_yaml_is_said_once_with_a_rulebook(tmp_path):
    root = make_game(tmp_path, rules=RULEBOOK.replace("intro:", "intor:"))
    assert _errors(root, tmp_path) == [
        "rules.yaml:8:1: error: unknown key 'intor' in rules.yaml; did you mean 'intro'?"]
    root = make_game(tmp_path, rules=RULEBOOK.replace("source:", "sorce:"))
    assert _errors(root, tmp_path) == [
        "rules.yaml:1:1: error: unknown key 'sorce' in rules.yaml; did you mean 'source'?"]


def test_rules_yaml_is_typed_data_on_the_game(tmp_path):
    root = make_game(tmp_path, rules=RULEBOOK)
    game = load_game(root, tmp_path, Report())
    rules = game.rules
    assert isinstance(rules, Rules) and rules.has_rulebook and rules.opts.source == "test document"
    (entry,) = rules.components
    assert entry.names == ["Action"] and entry.cards["Digging"].value == 6 and entry.others.value == 3
    assert isinstance(entry.others, Count) and entry.others.loc.line == 6
    assert list(rules.component_names()) == ["Action"] and rules.items() == []


def test_a_build_reads_rules_yaml_once_and_renders_the_rulebook_once(tmp_path, monkeypatch):
    import cardgen.layout.rulebook as rulebook
    import cardgen.load.game as loader

    root = make_game(tmp_path, rules=RULEBOOK)
    reads, renders = [], []
    real_load, real_render = loader.load_file, rulebook._Parser.rulebook

    def counting_load(path, *a, **k):
        if path.name == "rules.yaml":
            reads.append(path)
        return real_load(path, *a, **k)

    def counting_render(self):
        renders.append(self)
        return real_render(self)

    monkeypatch.setattr(loader, "load_file", counting_load)
    monkeypatch.setattr(rulebook._Parser, "rulebook", counting_render)
    code, _, err = in_dir(tmp_path, "build", str(root), "--only", "booklet", "--only", "player-aid", "--only", "tts",
                           "--quiet")
    assert code == 0, err
    assert {"rules.pdf", "player-aid.pdf"} <= {p.name for p in tmp_path.rglob("*.pdf")}
    assert len(reads) == 1 and len(renders) == 1
