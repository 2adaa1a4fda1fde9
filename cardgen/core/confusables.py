"""Characters that make a text read differently than it looks.

Look-alike letters: a name written with a Cyrillic a (U+0430) looks like `treasure` but is
another name, so an icon, template, font or field named with one is not found, or (an icon in
text, whose name must be Latin) is printed as text.  `skeleton` folds such letters (and the
fullwidth and mathematical forms NFKC folds, and invisible joiners) to the Latin letters they
look like; `note` says which letters a name holds, for the message that reports it.

Bidirectional controls (U+202A-202E, U+2066-2069, U+200E/U+200F) reorder the text around them
in a web page or in Tabletop Simulator but not in the PDF, which draws characters in the order
they are written: `without_bidi` leaves them out, so every output shows the same text.
"""
from __future__ import annotations

import re
import unicodedata

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
_BIDI_RE = re.compile("[" + "".join(sorted(BIDI_CONTROLS)) + "]")

# Letters of other scripts drawn like a Latin letter in common fonts (after NFKC).
_LOOKALIKE = {
    # Cyrillic
    "а": "a", "е": "e", "ѐ": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k",
    "ӏ": "l", "о": "o", "р": "p", "ԛ": "q", "с": "c", "ѕ": "s", "у": "y",
    "ԝ": "w", "х": "x", "ԁ": "d", "ɡ": "g", "ү": "y",
    "А": "A", "В": "B", "Е": "E", "Ѐ": "E", "Ё": "E", "Һ": "H", "І": "I", "Ї": "I", "Ј": "J", "К": "K",
    "Ӏ": "I", "М": "M", "Н": "H", "О": "O", "Р": "P", "Ԛ": "Q", "С": "C", "Ѕ": "S", "Т": "T", "У": "Y",
    "Ԝ": "W", "Х": "X", "Ү": "Y", "Ԁ": "D",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Armenian, Latin letters outside ASCII that look like ASCII ones
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ց": "g", "ı": "i", "ȷ": "j", "ɩ": "i", "ʏ": "y",
}
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad") | BIDI_CONTROLS


def _fold(ch: str) -> str:
    if ch.isascii():
        return ch
    if ch in _INVISIBLE:
        return ""
    if ch in _LOOKALIKE:
        return _LOOKALIKE[ch]
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch and folded.isascii():
        return folded
    return _LOOKALIKE.get(folded, ch)


def skeleton(text: str) -> str:
    """`text` with each look-alike letter replaced by the Latin letter it looks like and
    invisible characters left out (ASCII text is returned as it is)."""
    if text.isascii():
        return text
    return "".join(_fold(ch) for ch in text)


def lookalikes(text: str) -> list[str]:
    """The characters of `text` that look like Latin letters (or nothing) but are not."""
    return list(dict.fromkeys(ch for ch in text if not ch.isascii() and _fold(ch) != ch))


def describe(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" {name}" if name else "")


def note(word: str) -> str:
    """` (the name holds a non-Latin look-alike letter U+0430 CYRILLIC SMALL LETTER A)`, or ''."""
    chars = lookalikes(word)
    if not chars:
        return ""
    letters = [c for c in chars if _fold(c)]
    hidden = [c for c in chars if not _fold(c)]
    parts = []
    if letters:
        parts.append(("non-Latin look-alike letters " if len(letters) > 1 else "a non-Latin look-alike letter ")
                     + ", ".join(describe(c) for c in letters))
    if hidden:
        parts.append(("invisible characters " if len(hidden) > 1 else "an invisible character ")
                     + ", ".join(describe(c) for c in hidden))
    return f" (the name holds {' and '.join(parts)})"


def bidi_controls(text: str) -> list[str]:
    """The bidirectional control characters in `text`, each once, in order."""
    return list(dict.fromkeys(_BIDI_RE.findall(text)))


def without_bidi(text: str) -> str:
    return _BIDI_RE.sub("", text)


# An `:icon:` reference whose name holds letters of another script: the icon syntax takes
# Latin letters, digits, `_`, `+` and `-` only, so it is printed as text.
_ICONISH = re.compile(r":([^\s:*\\]{1,64}):")
_ICON_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_+-]*")


def lookalike_icons(text: str) -> list[tuple[str, str]]:
    """(as written, as it looks) for each `:name:` in `text` that is not an icon reference only
    because of look-alike letters or invisible characters in its name."""
    out = []
    for m in _ICONISH.finditer(text):
        name = m.group(1)
        if name.isascii():
            continue
        folded = skeleton(name)
        if folded != name and _ICON_NAME.fullmatch(folded):
            out.append((name, folded))
    return out
