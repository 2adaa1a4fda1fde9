"""Where a word may break across lines: after a hyphen or a dash between letters
("Insta-slaughter" after the hyphen), and at the hyphenation points of the text's language
(pyphen's dictionaries, the ones LibreOffice uses: "hy-phen-ation"), where the line then ends
with a hyphen.

`parts` cuts a word (its spans, `cardgen.text.markup`) into parts, each joined to the one
before it: `HARD` (after a hyphen or dash: breaks as it is) or `SOFT` (a hyphenation point:
a hyphen is added where it breaks). Line breaking (`cardgen.text.typeset`) measures the parts
and breaks inside a word only where it must or where the line would otherwise be left short.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from cardgen.text.markup import Frag

HARD, SOFT = 1, 2
DASHES = "-\u2010\u2013\u2014"
MIN_WORD = 6                 # letters: shorter words are not hyphenated
_dictionaries: dict[str, Any] = {}


def dictionary(language: str | None) -> Any:
    """pyphen's hyphenation dictionary for a language (`en`, `en-GB`, `de`), or None: no
    language, or none pyphen has (game.yaml's `language` is checked: `schema.core.Language`)."""
    if not language:
        return None
    if language not in _dictionaries:
        import pyphen

        found = pyphen.language_fallback(language.replace("-", "_"))
        _dictionaries[language] = pyphen.Pyphen(lang=found, left=2, right=3) if found else None
    return _dictionaries[language]


def _cuts(value: str, hyphenator: Any) -> list[tuple[int, int]]:
    """(position, HARD or SOFT) of each place `value` may break, in order."""
    cuts: list[tuple[int, int]] = []
    start = 0
    n = len(value)
    for i, ch in enumerate(value):
        if ch in DASHES and 0 < i < n - 1 and value[i - 1].isalnum() and value[i + 1].isalpha():
            cuts.extend(_soft(value, start, i, hyphenator))
            cuts.append((i + 1, HARD))
            start = i + 1
    cuts.extend(_soft(value, start, n, hyphenator))
    return cuts


def _soft(value: str, start: int, end: int, hyphenator: Any) -> list[tuple[int, int]]:
    """The hyphenation points of the letters of value[start:end] (punctuation around them aside)."""
    if hyphenator is None:
        return []
    while start < end and not value[start].isalpha():
        start += 1
    while end > start and not value[end - 1].isalpha():
        end -= 1
    letters = value[start:end]
    if len(letters) < MIN_WORD or not letters.isalpha():
        return []
    return [(start + p, SOFT) for p in hyphenator.positions(letters)]


def parts(word: list[Frag], hyphenator: Any) -> list[tuple[list[Frag], int]]:
    """A word as parts between the places it may break: [(spans, join)], the first part's
    join 0 (a space before it), the others' HARD or SOFT."""
    out: list[tuple[list[Frag], int]] = [([], 0)]
    for f in word:
        cuts = _cuts(f.value, hyphenator) if f.kind == "text" and len(f.value) > 2 else []
        at = 0
        for pos, join in cuts:
            out[-1][0].append(replace(f, value=f.value[at:pos]))
            out.append(([], join))
            at = pos
        out[-1][0].append(replace(f, value=f.value[at:]) if at else f)
    return out
