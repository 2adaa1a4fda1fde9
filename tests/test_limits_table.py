"""docs/security.md has one table of cardgen's limits, sorted by name: every limit of
cardgen/core/limits.py has its row with its environment variable and its default, and every
row is a limit cardgen has."""
from __future__ import annotations

import os
import re

from conftest import REPO

from cardgen.core import limits


def _rows() -> list[list[str]]:
    text = (REPO / "docs" / "security.md").read_text()
    tables = list(re.finditer(r"^\| variable \| default \|.*$", text, re.M))
    assert len(tables) == 1, "one table of limits"
    rows = []
    for line in text[tables[0].end():].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_every_limit_has_one_row_sorted_with_its_default():
    rows = _rows()
    names = [r[0].strip("`") for r in rows]
    assert names == sorted(names)
    assert sorted(names) == sorted(limits.NAMES)
    for name, default in ((r[0].strip("`"), r[1]) for r in rows):
        if name in os.environ:       # raised for this run: limits.py holds the raised value
            continue
        assert str(getattr(limits, name.removeprefix("CARDGEN_"))) == default, name
