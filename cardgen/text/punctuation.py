"""Typographer's punctuation from plain typing: curly quotes and apostrophes (`"XX"` and
`rules'` get U+201C, U+201D and U+2019), dashes (`--` an en dash, `---` an em dash, a hyphen
standing alone between spaces an en dash), an ellipsis for `...`, and, in rulebook text, en
dashes for ranges (`2-4`).

`punctuate` works on parsed text (`cardgen.text.markup`): only the text of the spans changes,
never an icon's name or the markup, and a quote is opened or closed by what comes before it in
the paragraph across spans (`**"bold"**`). `smarten` does the same on a string with its
markup in it. On cards and in the booklet by default; game.yaml `smart_punctuation: false`
turns it off.
"""
from __future__ import annotations

import re
import sys
from dataclasses import replace

from cardgen.text.markup import BREAK, Frag, Paragraph

EN, EM, ELLIPSIS = "\u2013", "\u2014", "\u2026"
_OPEN_BEFORE = " \t\n([{\u2014\u2013/-\u00a0"
_RANGE = re.compile(r"(?<=\d)-(?=\d)")
_WORDLIKE = "\ue000"          # what an inline icon counts as before a quote: a word (`:coin:'s`)


def _dashes(text: str, ranges: bool) -> str:
    text = text.replace("---", EM).replace("--", EN).replace("...", ELLIPSIS)
    return _RANGE.sub(EN, text) if ranges else text


def _quotes(text: str, before: str, markup: bool = False) -> str:
    """Straight quotes in `text` curled, `before` being the character before it (a space at
    a paragraph's start). With `markup`, a quote right after `*` or `**` opens where the
    asterisks do."""
    out = []
    for i, ch in enumerate(text):
        if ch not in "\"'":
            out.append(ch)
            continue
        prev = text[i - 1] if i else before
        if markup and prev == "*":
            j = i - 1
            while j >= 0 and text[j] == "*":
                j -= 1
            prev = text[j] if j >= 0 else before
        opening = prev in _OPEN_BEFORE
        if ch == '"':
            out.append("\u201c" if opening else "\u201d")
        else:      # an apostrophe unless it opens a quote (not before a digit: '90s)
            out.append("\u2018" if opening and not (i + 1 < len(text) and text[i + 1].isdigit()) else "\u2019")
    return "".join(out)


def smarten(text: str, ranges: bool = True) -> str:
    """A string with markup in it (`**`, `*`, `:icon:` left as they are) with typographer's
    punctuation; `ranges`: an en dash in `2-4` too (rulebook text: not card data, where `2024-05-01`
    and `v1-2-g0c1d` are as typed)."""
    text = _dashes(text, ranges)
    text = re.sub(r"(?<= )-(?= )", EN, text)
    return _quotes(text, " ", markup=True)


def _touched(value: str) -> bool:
    return "'" in value or '"' in value or "--" in value or "..." in value or "-" in value


def punctuate(paragraphs: list[Paragraph], ranges: bool = False) -> list[Paragraph]:
    """Parsed text with typographer's punctuation in its text spans (`smarten`); icons and
    forced breaks as they were. A word that is a lone hyphen becomes an en dash."""
    out: list[Paragraph] = []
    for para in paragraphs:
        items: Paragraph = []
        prev = " "
        for item in para:
            if item is BREAK:
                items.append(item)
                prev = "\n"
                continue
            prev = " "
            word: list[Frag] = []
            for f in item:
                if f.kind != "text":
                    word.append(f)
                    prev = _WORDLIKE
                    continue
                value = f.value
                if _touched(value):
                    value = EN if value == "-" and len(item) == 1 else _quotes(_dashes(value, ranges), prev)
                    if value != f.value:
                        f = replace(f, value=sys.intern(value))
                word.append(f)
                prev = value[-1:] or prev
            items.append(word)
        out.append(items)
    return out
