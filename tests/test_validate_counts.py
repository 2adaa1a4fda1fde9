"""Property test: random decks and component lists; a count problem is reported exactly when
the counts differ, once per differing item."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cardgen.check.components import COUNT_CODES, check_counts
from cardgen.core.errors import Report
from cardgen.pipeline.check import load_game

KINDS = ["A", "B", "C"]

cards_st = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(KINDS)), min_size=1, max_size=6)


@st.composite
def case(draw):
    cards = draw(cards_st)                      # card i is named Ci
    names = [f"C{i}" for i in range(len(cards))]
    form = draw(st.sampled_from(["total", "cards", "groups", "each"]))
    rule: dict = {}
    if form == "total":
        rule["total"] = draw(st.integers(0, 30))
    elif form == "cards":
        named = draw(st.lists(st.sampled_from([*names, "Ghost"]), unique=True, max_size=4))
        rule["cards"] = {n: draw(st.integers(0, 5)) for n in named}
        if draw(st.booleans()):
            rule["others"] = draw(st.integers(0, 5))
    elif form == "groups":
        listed = draw(st.lists(st.sampled_from(KINDS), unique=True, min_size=1))
        rule["groups"] = {k: draw(st.integers(0, 15)) for k in listed}
    else:
        rule["each"] = draw(st.integers(0, 6))
    return cards, rule


def expected_problems(cards, rule) -> int:
    """How many items differ, computed directly from the drawn numbers."""
    counts = {f"C{i}": n for i, (n, _) in enumerate(cards)}
    groups: dict[str, int] = {}
    for n, k in cards:
        groups[k] = groups.get(k, 0) + n
    if "total" in rule:
        return int(sum(counts.values()) != rule["total"])
    if "cards" in rule:
        bad = sum(1 for name, want in rule["cards"].items() if counts.get(name) != want)
        if "others" in rule:
            bad += sum(1 for name, have in counts.items() if name not in rule["cards"] and have != rule["others"])
        return bad
    if "groups" in rule:
        bad = sum(1 for k, want in rule["groups"].items() if groups.get(k) != want)
        return bad + sum(1 for k in groups if k not in rule["groups"])
    return sum(1 for have in groups.values() if have != rule["each"])


def yaml_map(d: dict) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"


@settings(max_examples=150, deadline=None)
@given(case())
def test_mismatch_reported_exactly_when_counts_differ(c):
    cards, rule = c
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "g"
        root.mkdir()
        (root / "game.yaml").write_text("title: G\n")
        (root / "d.yaml").write_text("deck: D\ntemplate: t\ncards:\n" + "".join(
            f"  - {{name: C{i}, count: {n}, kind: {k}}}\n" for i, (n, k) in enumerate(cards)))
        entry = "  - deck: D\n"
        for key, value in rule.items():
            entry += f"    {key}: {yaml_map(value) if isinstance(value, dict) else value}\n"
        if "groups" in rule or "each" in rule:
            entry += "    by: kind\n"
        (root / "rules.yaml").write_text("components:\n" + entry)
        report = Report()
        game = load_game(root, Path(tmp), report, tolerant=True)
        assert report.items == []
        check_counts(game, report)
    found = [d for d in report.items if d.code in COUNT_CODES]
    assert [d for d in report.items if d not in found] == []      # no rules contradictions in these forms
    assert len(found) == expected_problems(cards, rule), [str(d) for d in found]
