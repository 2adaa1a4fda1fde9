"""The text engine's markup: text as paragraphs of words made of spans (`Frag`).

Markup: `**bold**`, `*italic*`, `:icon:` (an inline vector icon), `\\*` and `\\:` for
literal characters; a single newline breaks the line, a blank line starts a paragraph.
"""
from __future__ import annotations

import enum
import re
import sys
from dataclasses import dataclass
from typing import Final

_TOKEN = re.compile(r"(\\[*:\\]|\*\*|\*|:[A-Za-z0-9_][A-Za-z0-9_+-]*:|\n|[ \t]+|[^\s*:\\]+|.)")
_PARA = re.compile(r"\n[ \t]*\n\s*")

class _Break(enum.Enum):
    BREAK = "break"


BREAK: Final = _Break.BREAK   # a forced line break inside a paragraph


@dataclass(frozen=True)
class Frag:
    """A span: a piece of a word in one style, or an inline icon."""

    kind: str      # "text" or "icon"
    value: str     # text, or icon name
    bold: bool = False
    italic: bool = False

    @property
    def style(self) -> str:
        return ("bold" if self.bold else "") + ("italic" if self.italic else "") or "regular"


Word = list[Frag]
Paragraph = list[Word | _Break]                 # words and BREAKs


def parse(text: str) -> list[Paragraph]:
    """Text -> paragraphs; a paragraph is a list of words (lists of Frag) and BREAKs."""
    return [_parse_paragraph(ptext) for ptext in _PARA.split(str(text).strip("\n"))]


def _literal_marks(tokens: list[str]) -> set[int]:
    """Which `*` and `**` tokens are plain asterisks, not markup: one standing alone between
    spaces (`2 * 3`), and the last of an odd number (`costs 5*`), which would otherwise set
    the rest of the paragraph in italic or bold."""
    literal: set[int] = set()
    for mark in ("*", "**"):
        at = [i for i, t in enumerate(tokens) if t == mark]
        for i in at:
            before = tokens[i - 1] if i > 0 else " "
            after = tokens[i + 1] if i + 1 < len(tokens) else " "
            if before[0] in " \t\n" and after[0] in " \t\n":
                literal.add(i)
        left = [i for i in at if i not in literal]
        if len(left) % 2:
            literal.add(left[-1])
    return literal


def _parse_paragraph(ptext: str) -> Paragraph:
    bold = italic = False
    items: Paragraph = []
    word: list[Frag] = []
    tokens = _TOKEN.findall(ptext)
    literal = _literal_marks(tokens) if "*" in ptext else set()

    def end_word() -> None:
        nonlocal word
        if word:
            items.append(word)
            word = []

    for n, tok in enumerate(tokens):
        if n in literal:
            word.append(Frag("text", tok, bold, italic))
        elif tok == "**":
            bold = not bold
        elif tok == "*":
            italic = not italic
        elif tok == "\n":
            end_word()
            items.append(BREAK)
        elif tok[0] in " \t":
            end_word()
        elif tok.startswith("\\") and len(tok) == 2:
            word.append(Frag("text", tok[1], bold, italic))
        elif len(tok) > 2 and tok[0] == ":" and tok[-1] == ":":
            word.append(Frag("icon", tok[1:-1], bold, italic))
        else:
            # one string object per distinct word: a 10,000-card game's runs share their words
            # (a soft hyphen marks where a word may break: never printed inside a line)
            word.append(Frag("text", sys.intern(tok.replace("\u00ad", "") if "\u00ad" in tok else tok), bold, italic))
    end_word()
    return items


def icon_names(text: str) -> list[str]:
    """The `:icon:` names in `text`, in order: what `parse` makes icons of (an icon is one
    token, whatever surrounds it; paragraph breaks are whitespace, which no icon holds)."""
    return [t[1:-1] for t in _TOKEN.findall(str(text)) if len(t) > 2 and t[0] == ":" and t[-1] == ":"]


def plain(text: str) -> str:
    """The text without markup; icons become their names in brackets."""
    out = []
    for para in parse(text):
        words = []
        for item in para:
            if item is BREAK:
                words.append("\n")
            else:
                words.append("".join(f.value if f.kind == "text" else f"[{f.value}]" for f in item))
        out.append(" ".join(words).replace(" \n ", "\n"))
    return "\n\n".join(out)
