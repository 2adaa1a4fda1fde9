"""File names made from deck and card names: bounded in length and unique.

`Action` and `ACTION!` both slugify to `action`; written as two TTS decks or two PNG files
they would overwrite each other.  `unique_slugs` gives every name that clashes a short hash
of its original spelling, and `bounded` cuts a long name (a 300-character deck name would be
"file name too long") to at most `limit` bytes of UTF-8, keeping it unique with a hash.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

NAME_LIMIT = 80       # bytes of UTF-8 in one file name made from data (hash included)
SLUG_LIMIT = 48       # bytes of a deck's slug: it is one part of longer file names
_HASH = 8


def slugify(name: object) -> str:
    """`Dark Forest!` -> `dark-forest`: lower case, letters and digits, single dashes."""
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in str(name))
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-") or "deck"


def short_hash(text: str, n: int = _HASH) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def bounded(stem: str, limit: int = NAME_LIMIT, key: str | None = None) -> str:
    """`stem` if it fits `limit` bytes of UTF-8, else its start and a hash of `key` (default:
    the whole stem), so two long names with the same start stay apart."""
    raw = stem.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return stem
    cut = raw[: max(1, limit - _HASH - 1)].decode("utf-8", "ignore").rstrip("-")
    return f"{cut}-{short_hash(key if key is not None else stem)}"


def unique_slugs(names: Sequence[object], limit: int = SLUG_LIMIT) -> list[str]:
    """A slug per name, each at most `limit` bytes, no two equal (names that slugify alike
    get a hash of their exact spelling; a name given twice, a counter)."""
    slugs = [bounded(slugify(n), limit, str(n)) for n in names]
    clash = Counter(slugs)
    out: list[str] = []
    seen: set[str] = set()
    for n, s in zip(names, slugs):
        if clash[s] > 1:
            s = f"{bounded(s, limit - _HASH - 1)}-{short_hash(str(n))}"
        base, i = s, 2
        while s in seen:
            s = f"{bounded(base, limit - 4)}-{i}"
            i += 1
        seen.add(s)
        out.append(s)
    return out
