"""The pseudo-locale `qps` (`cardgen build --lang qps`, docs/languages.md): the source text as
a translation would stress it, before there is one.  Every letter accented (text keeps its
shape, and any character a font lacks shows), each word about 35 % longer (letters doubled at
even steps: a German or French text runs about that much longer than the English), and each
paragraph in brackets (a text cut off at either end shows).  Markup, icons and styles are kept:
it works on the parsed paragraphs, as the text engine sets them."""
from __future__ import annotations

import dataclasses

from cardgen.text.markup import BREAK, Frag, Paragraph, Word

GROWTH = 0.35
_PLAIN = "AaCcDdEeGgHhIiJjKkLlNnOoRrSsTtUuWwYyZz"
_ACCENTED = "ÅåÇçÐðÉéĜĝĤĥÎîĴĵĶķĻļÑñÖöŔŕŠšŢţÛûŴŵÝýŽž"
_ACCENTS = str.maketrans(_PLAIN, _ACCENTED)


def stretched(text: str) -> str:
    """`text` accented and about 35 % longer: of its n letters, round(0.35 n) doubled, spread evenly."""
    letters = sum(1 for ch in text if ch.isalpha())
    extra = round(letters * GROWTH)
    out, i = [], 0
    for ch in text:
        out.append(ch)
        if ch.isalpha():
            if extra and (i + 1) * extra // letters > i * extra // letters:
                out.append(ch)
            i += 1
    return "".join(out).translate(_ACCENTS)


def _word(word: Word) -> Word:
    return [dataclasses.replace(f, value=stretched(f.value)) if f.kind == "text" else f for f in word]


def _bracketed(word: Word, before: str, after: str) -> Word:
    """`word` with `before` joined to its first span and `after` to its last."""
    out = list(word)
    if before:
        out.insert(0, dataclasses.replace(out[0], kind="text", value=before) if out else Frag("text", before))
    if after:
        out.append(dataclasses.replace(out[-1], kind="text", value=after) if out else Frag("text", after))
    return out


def pseudo(paragraphs: list[Paragraph]) -> list[Paragraph]:
    """Paragraphs as the pseudo-locale sets them: each word stretched, each paragraph in brackets."""
    out: list[Paragraph] = []
    for para in paragraphs:
        items = [item if item is BREAK else _word(item) for item in para]
        words = [i for i, item in enumerate(items) if item is not BREAK]
        if words:
            first, last = words[0], words[-1]
            w = items[first]
            assert w is not BREAK
            items[first] = _bracketed(w, "[", "]" if first == last else "")
            if first != last:
                w = items[last]
                assert w is not BREAK
                items[last] = _bracketed(w, "", "]")
        out.append(items)
    return out
