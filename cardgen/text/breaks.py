"""Where a word may break across lines: after a hyphen or a dash between letters
("Insta-slaughter" after the hyphen), at the hyphenation points of the text's language
(pyphen's dictionaries, the ones LibreOffice uses: "hy-phen-ation"), where the line then ends
with a hyphen, and between the characters of Chinese and Japanese text (`cjk_breaks`).

Chinese and Japanese are written without spaces: a line may break before or after any
ideograph, kana or CJK punctuation mark (Unicode's line breaking, UAX #14, classes ID and CJ:
`_wide`), except by the Japanese rules of kinsoku shori, which Chinese follows too (UAX #14's
CL, CP, EX, IS, NS and OP classes, CJ taken as NS, its strict setting): no line starts with
closing punctuation, a small kana or the prolonged sound mark (`、。」』ーっゃ`: `NO_START`),
no line ends with an opening bracket or quote (`「『【`: `NO_END`), and `——` and `……` stay
whole. A Latin word or number inside such text is not broken or hyphenated (a line may break
before and after it). Korean is written with spaces between words and breaks at them, as
Latin does: Hangul is not in `_wide`.

`parts` cuts a word (its spans, `cardgen.text.markup`) into parts, each joined to the one
before it: `HARD` (after a hyphen or dash: breaks as it is) or `SOFT` (a hyphenation point:
a hyphen is added where it breaks). Line breaking (`cardgen.text.typeset`) measures the parts
and breaks inside a word only where it must or where the line would otherwise be left short.
"""
from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from cardgen.text.markup import Frag

HARD, SOFT = 1, 2
DASHES = "-\u2010\u2013\u2014"
MIN_WORD = 6                 # letters: shorter words are not hyphenated
_dictionaries: dict[str, Hyphenator | None] = {}


_FIRST_WIDE = "\u2e80"       # the first character `_wide` matches


@cache
def _wide() -> re.Pattern[str]:
    """Ideographs, kana, bopomofo, CJK punctuation and symbols, fullwidth and halfwidth forms
    (not Hangul: Korean breaks at its spaces); compiled when first asked for (6 ms), which text
    with no character from U+2E80 on (`_FIRST_WIDE`: all of Latin, Greek, Cyrillic, typographic
    quotes and dashes) never does."""
    return re.compile("[\u2e80-\u2fff\u3000-\u312f\u3190-\u31ff\u3200-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                      "\ufe30-\ufe4f\uff01-\uff9f\uffe0-\uffe6\U00020000-\U0003ffff]")


# a line never starts with these (closing brackets and quotes, CJK and Latin stops and commas,
# small kana, the prolonged sound mark, iteration marks, ellipses)
NO_START = frozenset("、。，．・：；？！‼⁇⁈⁉ー〜～…‥々〻ゝゞヽヾ゠〆゛゜\u3000"
                     "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿｧｨｩｪｫｬｭｮｯｰ"
                     "）」』】〕〉》〙〗｝］〟’”｣､｡･)]},.:;?!%‰℃°′″")
# ... and never ends with these (opening brackets and quotes)
NO_END = frozenset("（「『【〔〈《〘〖｛［〝‘“｢([{")
_PAIRED = frozenset("—―…‥")        # two of one never part (`——`, `……`)
_AN_IDEOGRAPH = "\u4e00"            # what an icon inside Chinese or Japanese breaks as


class Hyphenator:
    """Liang's hyphenation (TeX's, and LibreOffice's dictionaries that pyphen ships) over a
    language's patterns: `positions(word)`, the places a word may break, at least two letters
    from its start and three from its end."""

    def __init__(self, patterns: dict[str, bytes], left: int = 2, right: int = 3, maxlen: int | None = None):
        self.patterns = patterns        # letters -> bytes([offset, *values]) (`packed`)
        self.maxlen = max(map(len, patterns), default=0) if maxlen is None else maxlen
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
                        at = i + found[0]
                        for k in range(1, len(found)):
                            if found[k] > marks[at + k - 1]:
                                marks[at + k - 1] = found[k]
            hit = self.cache[word] = [i - 1 for i, m in enumerate(marks) if m % 2 and
                                      self.left <= i - 1 <= len(word) - self.right]
        return hit


PATTERNS_FORMAT = 2


def packed(patterns: Mapping[str, tuple[int, Sequence[int]]]) -> dict[str, bytes]:
    """pyphen's patterns (letters -> (offset, values)), each as `bytes([offset, *values])`:
    what the user cache keeps (with the longest pattern's length), read back by `marshal` in a
    third of the time a tuple of tuples takes (the English patterns: 14,000 of them, read by
    every process that lays out a card).  None of pyphen's offsets and values reaches 256."""
    return {key: bytes([offset, *values]) for key, (offset, values) in patterns.items()}


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
            kept = marshal.loads(body[len(head.encode()):])
            if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[0], int) and isinstance(kept[1], dict):
                return Hyphenator(kept[1], maxlen=kept[0]) if kept[1] else None
    import pyphen

    found = pyphen.language_fallback(language.replace("-", "_"))
    patterns = packed({key: (int(offset), [int(v) for v in values])
                       for key, (offset, values) in pyphen.Pyphen(lang=found).hd.patterns.items()}) if found else {}
    if entry is not None:
        from cardgen.core.atomic import write_bytes

        with contextlib.suppress(OSError):
            write_bytes(entry, seal(head.encode() + marshal.dumps((max(map(len, patterns), default=0), patterns))))
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


def wide(ch: str) -> bool:
    """Whether `ch` is an ideograph, a kana or CJK punctuation: a line breaks before or after it."""
    return bool(ch) and ch[0] >= _FIRST_WIDE and _wide().match(ch) is not None


def may_break(before: str, after: str) -> bool:
    """Whether a line may break between two characters of Chinese or Japanese text (one of
    them in `_wide`), by the kinsoku rules; never before a combining mark or a joiner."""
    if before in NO_END or after in NO_START or (before == after and before in _PAIRED):
        return False
    if not (wide(before) or wide(after)):
        return False
    return unicodedata.category(after)[0] != "M" and unicodedata.category(after) != "Cf" \
        and unicodedata.category(before) != "Cf"


def cjk_breaks(value: str, before: str = "") -> list[int]:
    """The places `value` may break as Chinese or Japanese text (`may_break`), `before` being
    the character before it in its word ("" at the word's start): 0 for a break before it."""
    out = []
    prev = before
    for i, ch in enumerate(value):
        if prev and may_break(prev, ch):
            out.append(i)
        prev = ch
    return out


def parts(word: list[Frag], hyphenator: Any) -> list[tuple[list[Frag], int]]:
    """A word as parts between the places it may break: [(spans, join)], the first part's
    join 0 (a space before it), the others' HARD or SOFT. A word holding Chinese or Japanese
    breaks between its characters (`cjk_breaks`), and is not hyphenated; an inline icon in it
    breaks as an ideograph would."""
    out: list[tuple[list[Frag], int]] = [([], 0)]
    wide = any(f.kind == "text" and f.value and max(f.value) >= _FIRST_WIDE and _wide().search(f.value)
               for f in word)
    prev = ""              # the last character of the text before, in this word
    for f in word:
        if f.kind != "text":
            cuts: list[tuple[int, int]] = [(0, HARD)] if wide and prev and may_break(prev, _AN_IDEOGRAPH) else []
        elif wide:           # (its dashes' breaks and its characters')
            cuts = sorted({**dict(_cuts(f.value, None)), **dict.fromkeys(cjk_breaks(f.value, prev), HARD)}.items())
        else:
            cuts = _cuts(f.value, hyphenator) if len(f.value) > 2 else []
        at = 0
        for pos, join in cuts:
            if pos:
                out[-1][0].append(replace(f, value=f.value[at:pos]))
            if pos or out[-1][0]:             # (0: a break before this span)
                out.append(([], join))
            at = pos
        out[-1][0].append(replace(f, value=f.value[at:]) if at else f)
        prev = f.value[-1:] if f.kind == "text" else _AN_IDEOGRAPH if wide else ""
    return out
