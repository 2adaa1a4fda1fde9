"""The text engine's markup: text as paragraphs of words made of spans (`Frag`).

Markup: `**bold**`, `*italic*`, `:icon:` (an inline vector icon), `\\*` and `\\:` for
literal characters; a single newline breaks the line, a blank line starts a paragraph.
"""
from __future__ import annotations

import enum
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from cardgen.core.memo import Bounded
from cardgen.core.spans import Span, from_tag

_TOKEN = re.compile(r"(\\[*:\\\[<]|\*\*|\*|:[A-Za-z0-9_][A-Za-z0-9_+-]*:|\[/?[A-Za-z_][^\]\n]*\]|\[/\]"
                    r"|</?span\b[^>\n]*>|\n|[ \t]+|[^\s*:\\\[<]+|.)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
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
    span: Span | None = None   # colour, size, font, weight, letter spacing (`cardgen.core.spans`)

    @property
    def style(self) -> str:
        return ("bold" if self.bold else "") + ("italic" if self.italic else "") or "regular"


Word = list[Frag]
Paragraph = list[Word | _Break]                 # words and BREAKs


Styles = Mapping[str, Span]


def parse(text: str, styles: Styles | None = None, problems: list[str] | None = None) -> list[Paragraph]:
    """Text -> paragraphs; a paragraph is a list of words (lists of Frag) and BREAKs.
    `styles`: the named span styles (game.yaml `styles:`); what is wrong with a span (an
    unknown style or attribute, a bad value, a close with nothing open) is added to
    `problems`, and the span set as if that part were not written."""
    text = str(text).strip("\n")
    if _MARKED.search(text) is None:        # no bold, italic, escape, span or soft hyphen: most cards' text
        return [_plain_paragraph(ptext) for ptext in _PARA.split(text)]
    spans = _Spans(styles or {}, text, problems)
    return [_parse_paragraph(ptext, spans) for ptext in _PARA.split(text)]


_MARKED = re.compile(r"[*\\\[<\u00ad]")


def is_plain(text: str) -> bool:
    """No bold, italic, escape, span or soft hyphen in `text` (`_plain_paragraph` parses it):
    every run it is set in takes the text's own colour."""
    return _MARKED.search(text) is None

# a plain word or icon -> its Frag (frozen: every card's text shares the one of each word)
_plain_frags: Bounded[tuple[str, str], Frag] = Bounded(2048)


def _plain_paragraph(ptext: str) -> Paragraph:
    """`_parse_paragraph` of a paragraph of a text without markup but icons (`_MARKED` finds
    none): no span, tag, escape or mark, so each token is a word's part, an icon, a space or a
    forced break; the same paragraph, token for token."""
    items: Paragraph = []
    word: list[Frag] = []
    frags = _plain_frags
    for tok in _TOKEN.findall(ptext):
        first = tok[0]
        if first == "\n" or first == " " or first == "\t":
            if word:
                items.append(word)
                word = []
            if first == "\n":
                items.append(BREAK)
            continue
        kind = "icon" if len(tok) > 2 and first == ":" and tok[-1] == ":" else "text"
        frag = frags.get((kind, tok))
        if frag is None:
            frag = frags[(kind, tok)] = Frag(kind, tok[1:-1] if kind == "icon" else sys.intern(tok))
        word.append(frag)
    if word:
        items.append(word)
    return items


class _Spans:
    """The spans open while parsing, innermost last, each with the attributes it sets in
    full (its own over its outer span's); they go on across paragraphs."""

    def __init__(self, styles: Styles, text: str, problems: list[str] | None):
        self.styles = styles
        self.text = text
        self.problems = problems
        self.stack: list[Span] = []

    @property
    def top(self) -> Span | None:
        return self.stack[-1] if self.stack else None

    def note(self, message: str) -> None:
        if self.problems is not None and message not in self.problems:
            self.problems.append(message)

    def tag(self, tok: str) -> bool:
        """Open or close a span for a tag token; False: the token is plain text."""
        if tok in ("[/]", "</span>") or tok.startswith("[/"):
            if self.stack:
                self.stack.pop()
            else:
                self.note(f"'{tok}' closes no span")
            return True
        pango = tok.startswith("<")
        body = tok[5:-1] if pango else tok[1:-1]
        if not pango and "=" not in body:
            name = body.strip()
            found = self.styles.get(name)
            if found is None:
                if not _NAME.fullmatch(name) or f"[/{name}]" not in self.text:
                    return False       # `[X]`, `[1/2]`: words in brackets
                known = ", ".join(sorted(self.styles)) or "none declared"
                self.note(f"unknown style '{name}' in '{tok}' (styles in game.yaml `styles:`: {known})")
                found = Span()
            self.stack.append(found.over(self.top))
            return True
        span, problems = from_tag(body, pango)
        for problem in problems:
            self.note(f"{problem}, in '{tok}'")
        self.stack.append(span.over(self.top))
        return True


def _is_tag(tok: str) -> bool:
    return len(tok) > 2 and ((tok[0] == "[" and tok[-1] == "]") or tok.startswith(("<span", "</span")))


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


def _parse_paragraph(ptext: str, spans: _Spans) -> Paragraph:
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
        span = spans.top
        if n in literal:
            word.append(Frag("text", tok, bold, italic, span))
        elif _is_tag(tok) and spans.tag(tok):
            continue
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
            word.append(Frag("text", tok[1], bold, italic, span))
        elif len(tok) > 2 and tok[0] == ":" and tok[-1] == ":":
            word.append(Frag("icon", tok[1:-1], bold, italic, span))
        else:
            # one string object per distinct word: a 10,000-card game's runs share their words
            # (a soft hyphen marks where a word may break: never printed inside a line)
            word.append(Frag("text", sys.intern(tok.replace("\u00ad", "") if "\u00ad" in tok else tok), bold, italic,
                             span))
    end_word()
    return items


_ICON = re.compile(r":([A-Za-z0-9_][A-Za-z0-9_+-]*):")


def icon_names(text: str) -> list[str]:
    """The `:icon:` names in `text`, in order: what `parse` makes icons of (an icon is one
    token, whatever surrounds it; paragraph breaks are whitespace, which no icon holds).
    Without an escape, a tag or a span (no `\\`, `[` or `<`) no other token holds a colon, so
    the icons are what a search for `:name:` finds, left to right (every card's text is
    searched every build: `check.validate.check_cards`)."""
    text = str(text)
    if "\\" not in text and "[" not in text and "<" not in text:
        return _ICON.findall(text)
    return [t[1:-1] for t in _TOKEN.findall(text) if len(t) > 2 and t[0] == ":" and t[-1] == ":"]


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
