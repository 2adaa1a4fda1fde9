"""The count checks (check/components.py) held message by message: each form of a rules.yaml
entry against card data that agrees and disagrees with it, at the exact file:line:col."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from cardgen.check.components import check_counts
from cardgen.core.errors import Report
from cardgen.pipeline.check import load_game


def counts(tmp_path: Path, rules: str, decks: dict[str, str]) -> list[str]:
    """`code: message` of every finding of loading the game and checking its counts."""
    root = tmp_path / "g"
    root.mkdir()
    (root / "game.yaml").write_text("title: G\n")
    for name, body in decks.items():
        (root / f"{name.lower()}.yaml").write_text(f"deck: {name}\ntemplate: t\n" + textwrap.dedent(body))
    (root / "rules.yaml").write_text(textwrap.dedent(rules))
    report = Report()
    game = load_game(root, tmp_path, report, tolerant=True)
    check_counts(game, report)
    return [f"{d.code}: {d}".replace(str(root) + "/", "") for d in report.items]


CASES = {    'total_mismatch_and_plural': (
        'components:\n  - deck: D\n    total: 3\n',
        {'D': 'cards:\n  - {name: A, count: 2}\n  - {name: B, count: 2}\n'},
        [
            'count-mismatch: rules.yaml:3:12: error: D: rules say 3 cards in all (rules.yaml:3), deck has 4 (d.yaml:1)',
        ]),
    'total_ok': (
        'components:\n  - deck: D\n    total: 4\n',
        {'D': 'cards:\n  - {name: A, count: 2}\n  - {name: B, count: 2}\n'},
        [
        ]),
    'at_least_ok_and_short': (
        'components:\n  - deck: D\n    total: "4+"\n  - deck: E\n    total: "5+"\n',
        {'D': 'cards:\n  - {name: A, count: 5}\n', 'E': 'cards:\n  - {name: A, count: 4}\n'},
        [
            'count-mismatch: rules.yaml:5:12: error: E: rules say at least 5 cards in all (rules.yaml:5), deck has 4 (e.yaml:1)',
        ]),
    'at_least_exact': (
        'components:\n  - deck: D\n    total: "5+"\n',
        {'D': 'cards:\n  - {name: A, count: 5}\n'},
        [
        ]),
    'each_types_parts': (
        'components:\n  - deck: D\n    total: 7\n    by: kind\n    each: 3\n    types: 2\n',
        {'D': 'cards:\n  - {name: A, count: 3, kind: x}\n  - {name: B, count: 3, kind: y}\n'},
        [
            'rules-total: rules.yaml:3:12: warning: D: the rules contradict themselves: total 7 (rules.yaml:3), but 2 kind groups of 3 make 6 (rules.yaml:5)',
        ]),
    'types_mismatch': (
        'components:\n  - deck: D\n    by: kind\n    each: 1\n    types: 3\n',
        {'D': 'cards:\n  - {name: A, kind: x}\n  - {name: B, kind: y}\n'},
        [
            'count-mismatch: rules.yaml:5:12: error: D: rules say 3 kind groups (rules.yaml:5), deck has 2: x, y (d.yaml:1)',
        ]),
    'cards_parts_contradict': (
        'components:\n  - deck: D\n    total: 5\n    cards: {A: 2, B: 2}\n',
        {'D': 'cards:\n  - {name: A, count: 2}\n  - {name: B, count: 2}\n'},
        [
            'rules-total: rules.yaml:3:12: warning: D: the rules contradict themselves: total 5 (rules.yaml:3), but its named cards add up to 4 (rules.yaml:4)',
        ]),
    'cards_parts_at_least': (
        'components:\n  - deck: D\n    total: "3+"\n    cards: {A: 2, B: 2}\n  - deck: E\n    total: "5+"\n    cards: {A: 2, B: 2}\n',
        {'D': 'cards:\n  - {name: A, count: 2}\n  - {name: B, count: 2}\n', 'E': 'cards:\n  - {name: A, count: 2}\n  - {name: B, count: 2}\n'},
        [
            'rules-total: rules.yaml:6:12: warning: E: the rules contradict themselves: total 5+ (rules.yaml:6), but its named cards add up to 4 (rules.yaml:7)',
        ]),
    'group_own_count_wins_over_each': (
        'components:\n  - deck: D\n    by: kind\n    each: 2\n    groups: {x: 3}\n',
        {'D': 'cards:\n  - {name: A, count: 3, kind: x}\n  - {name: B, count: 2, kind: y}\n  - {name: C, count: 1, kind: z}\n'},
        [
            'rules-total: rules.yaml:5:17: warning: D: the rules contradict themselves: 2 of each kind (rules.yaml:4), but 3 x x (rules.yaml:5)',
            'count-extra: d.yaml:5:31: error: D: deck has 2 cards with `kind: y` (d.yaml:5), a group the rules do not list (rules.yaml:5)',
            'count-extra: d.yaml:6:31: error: D: deck has 1 card with `kind: z` (d.yaml:6), a group the rules do not list (rules.yaml:5)',
            'count-mismatch: rules.yaml:4:11: error: D: rules say 2 of each kind (rules.yaml:4), deck has 1 x kind z (d.yaml:6)',
        ]),
    'each_and_group_disagree': (
        'components:\n  - deck: D\n    by: kind\n    each: 2\n    groups: {x: 3, y: 2}\n',
        {'D': 'cards:\n  - {name: A, count: 3, kind: x}\n  - {name: B, count: 2, kind: y}\n'},
        [
            'rules-total: rules.yaml:5:17: warning: D: the rules contradict themselves: 2 of each kind (rules.yaml:4), but 3 x x (rules.yaml:5)',
        ]),
    'tbd_everywhere': (
        'components:\n  - deck: D\n    total: tbd\n    by: kind\n    each: tbd\n    types: tbd\n    groups: {x: tbd}\n    cards: {A: tbd}\n    others: tbd\n',
        {'D': 'cards:\n  - {name: A, count: 3, kind: x}\n  - {name: B, count: 2, kind: y}\n'},
        [
            'tbd: rules.yaml:3:12: warning: D: the rules leave the total open (tbd); decide it and write the number',
            'tbd: rules.yaml:9:13: warning: D: the rules leave the count of every other card open (tbd); decide it and write the number',
            'tbd: rules.yaml:5:11: warning: D: the rules leave the count of each kind open (tbd); decide it and write the number',
            'tbd: rules.yaml:6:12: warning: D: the rules leave the number of kind groups open (tbd); decide it and write the number',
            'tbd: rules.yaml:8:16: warning: D: the rules leave the count of A open (tbd); decide it and write the number',
            'tbd: rules.yaml:7:17: warning: D: the rules leave the count of kind x open (tbd); decide it and write the number',
            'count-extra: d.yaml:5:31: error: D: deck has 2 cards with `kind: y` (d.yaml:5), a group the rules do not list (rules.yaml:7)',
        ]),
    'missing_group_tbd_and_not': (
        'components:\n  - deck: D\n    by: kind\n    groups: {x: tbd, w: 2, y: 1}\n',
        {'D': 'cards:\n  - {name: A, count: 1, kind: y}\n'},
        [
            'tbd: rules.yaml:4:17: warning: D: the rules leave the count of kind x open (tbd); decide it and write the number',
            'count-missing: rules.yaml:4:17: error: D: rules say some x kind x (rules.yaml:4), deck has no card with `kind: x` (d.yaml:1)',
            'count-missing: rules.yaml:4:25: error: D: rules say 2 x kind w (rules.yaml:4), deck has no card with `kind: w` (d.yaml:1)',
        ]),
    'silent_and_decks': (
        'components:\n  - deck: D\n    silent: "no counts"\n  - decks: [E, F]\n    total: 2\n',
        {'D': 'cards:\n  - {name: A, count: 9}\n', 'E': 'cards:\n  - {name: A, count: 2}\n', 'F': 'cards:\n  - {name: A, count: 3}\n'},
        [
            # `silent:` is no longer silent: a count nobody decided is said, with what is printed
            'count-silent: rules.yaml:3:13: warning: rules give no count for D; 9 copies printed',
            'count-mismatch: rules.yaml:5:12: error: F: rules say 2 cards in all (rules.yaml:5), deck has 3 (f.yaml:1)',
        ]),
    'malformed_count_skips_compare': (
        'components:\n  - deck: D\n    total: 1\n',
        {'D': 'cards:\n  - {name: A, count: many}\n  - {name: B, count: 2}\n'},
        [
            "count: d.yaml:4:22: error: card 'A': count must be a whole number (0 to 10000), got 'many'",
        ]),
    'item_count_ok': (
        'components:\n  - item: Tokens\n    count: 15\n  - item: Dice\n  - deck: D\n    silent: none\n',
        {'D': 'cards:\n  - {name: A}\n'},
        [
            # an item is made by the component file of its name, or marked `bought:` (docs/components.md)
            "component-missing: rules.yaml:2:11: warning: rules list Tokens (rules.yaml:2), which nothing in game g "
            "makes; add a component file for it (`deck: Tokens` with `kind: token`, `tile` or `board`), or mark it "
            "`bought:` (bought or taken from another game)",
            "component-missing: rules.yaml:4:11: warning: rules list Dice (rules.yaml:4), which nothing in game g "
            "makes; add a component file for it (`deck: Dice` with `kind: token`, `tile` or `board`), or mark it "
            "`bought:` (bought or taken from another game)",
            'count-silent: rules.yaml:4:11: warning: rules give no count for Dice; none printed',
            'count-silent: rules.yaml:6:13: warning: rules give no count for D; 1 copy printed',
        ]),
    'deck_suggestion': (
        'components:\n  - deck: Acton\n    total: 1\n',
        {'Action': 'cards:\n  - {name: A}\n'},
        [
            "count-deck: rules.yaml:2:11: error: rules name deck 'Acton' (rules.yaml:2), which game g does not have; did you mean 'Action'? (decks: Action)",
            "count-unlisted: action.yaml:1:7: error: deck 'Action' (action.yaml:1) is not in the rules' component list (rules.yaml:1); add an entry for it (with `silent:` if the document gives no count)",
        ]),
    'card_suggestion_and_group_suggestion': (
        'components:\n  - deck: D\n    cards: {Diging: 1}\n  - deck: E\n    by: kind\n    groups: {Hero: 1, Villain: 1}\n',
        {'D': 'cards:\n  - {name: Digging}\n', 'E': 'cards:\n  - {name: A, kind: Heros}\n  - {name: B, kind: Villain}\n'},
        [
            "count-missing: rules.yaml:3:21: error: D: rules say 1 x Diging (rules.yaml:3), deck has no card 'Diging' (d.yaml:1); did you mean 'Digging'?",
            "count-missing: rules.yaml:6:20: error: E: rules say 1 x kind Hero (rules.yaml:6), deck has no card with `kind: Hero` (e.yaml:1); did you mean 'Heros'?",
            "count-extra: e.yaml:4:21: error: E: deck has 1 card with `kind: Heros` (e.yaml:4), a group the rules do not list (rules.yaml:6); did you mean 'Hero'?",
        ]),
    'no_component_list': (
        'title: T\n',
        {'D': 'cards:\n  - {name: A}\n'},
        [
        ]),
    'same_card_name_twice': (
        'components:\n  - deck: D\n    cards: {A: 3}\n',
        {'D': 'cards:\n  - {name: A, count: 2}\n  - {name: A}\n'},
        [
            "duplicate-card: d.yaml:5:12: error: deck 'D': duplicate card name 'A' (also at line 4); give each card its own name or raise the first one's count",
        ]),
    'defaults_count': (
        'components:\n  - deck: D\n    cards: {A: 3}\n    others: 3\n',
        {'D': 'defaults: {count: 3}\ncards:\n  - {name: A}\n  - {name: B, count: 2}\n'},
        [
            'count-mismatch: rules.yaml:4:13: error: D: rules say 3 x each other card (rules.yaml:4), deck has 2 x B (d.yaml:6)',
        ]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_form_of_entry_reports_exactly_this(tmp_path, name):
    rules, decks, expected = CASES[name]
    assert counts(tmp_path, rules, decks) == expected
