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

import contextlib
from dataclasses import replace
from typing import Any

from cardgen.text.markup import Frag

HARD, SOFT = 1, 2
DASHES = "-\u2010\u2013\u2014"
MIN_WORD = 6                 # letters: shorter words are not hyphenated
_dictionaries: dict[str, Hyphenator | None] = {}


class Hyphenator:
    """Liang's hyphenation (TeX's, and LibreOffice's dictionaries that pyphen ships) over a
    language's patterns: `positions(word)`, the places a word may break, at least two letters
    from its start and three from its end."""

    def __init__(self, patterns: dict[str, tuple[int, tuple[int, ...]]], left: int = 2, right: int = 3):
        self.patterns = patterns
        self.maxlen = max((len(k) for k in patterns), default=0)
        self.left, self.right = left, right
        self.cache: dict[str, list[int]] = {}

    def positions(self, word: str) -> list[int]:
        word = word.lower()
        hit = self.cache.get(word)
        if hit is None:
            dotted = f".{word}."
            marks = [0] * (len(dotted) + 1)
            for i in range(len(dotted) - 1):
                for j in range(i + 1, min(i + self.maxlen, len(dotted)) + 1):
                    found = self.patterns.get(dotted[i:j])
                    if found:
                        offset, values = found
                        for k, v in enumerate(values):
                            if v > marks[i + offset + k]:
                                marks[i + offset + k] = v
            hit = self.cache[word] = [i - 1 for i, m in enumerate(marks) if m % 2 and
                                      self.left <= i - 1 <= len(word) - self.right]
        return hit


PATTERNS_FORMAT = 1


def dictionary(language: str | None) -> Hyphenator | None:
    """The hyphenation of a language (`en`, `en-GB`, `de`), or None: no language, or none
    pyphen has (game.yaml's `language` is checked: `schema.core.Language`). pyphen parses a
    dictionary in about 0.3 s: the patterns it reads are kept in the user's cache
    (`hyphenation/`, by language and the installed pyphen), so `cardgen validate` does not
    even import it again."""
    if not language:
        return None
    if language not in _dictionaries:
        _dictionaries[language] = _load(language)
    return _dictionaries[language]


def _load(language: str) -> Hyphenator | None:
    import hashlib
    import marshal

    from cardgen.core.digest import library_stamp, read_sealed, seal, user_cache

    head = f"cardgen hyphenation {PATTERNS_FORMAT}\n{language}\n{library_stamp('pyphen')}\n"
    folder = user_cache("hyphenation")
    entry = folder / f"{hashlib.sha256(head.encode()).hexdigest()}.bin" if folder is not None else None
    body = read_sealed(entry) if entry is not None else None
    if body is not None and body.startswith(head.encode()):
        with contextlib.suppress(ValueError, EOFError, TypeError):
            patterns = marshal.loads(body[len(head.encode()):])
            if isinstance(patterns, dict):
                return Hyphenator(patterns) if patterns else None
    import pyphen

    found = pyphen.language_fallback(language.replace("-", "_"))
    patterns = {}
    if found:
        for key, (offset, values) in pyphen.Pyphen(lang=found).hd.patterns.items():
            patterns[key] = (int(offset), tuple(int(v) for v in values))
    if entry is not None:
        from cardgen.core.atomic import write_bytes

        with contextlib.suppress(OSError):
            write_bytes(entry, seal(head.encode() + marshal.dumps(patterns)))
    return Hyphenator(patterns) if patterns else None


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
