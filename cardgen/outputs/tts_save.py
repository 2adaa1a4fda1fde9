"""The Tabletop Simulator saved object's bytes (`tts/<game>.json`), reusing the last build's.

The saved object is `json.dumps(save, indent=2, ensure_ascii=False) + "\\n"`.  Most of it is
the cards inside the decks (`ContainedObjects`), one object each, and a one-card edit
changes a few of them: the edited card, and the cards of its deck sheet, whose image has a
new name.  So each object inside a deck or bag is encoded on its own, at its depth, and
placed in the file around the rest (`encode`): the same bytes as encoding the save whole
(`json_bytes`; tests/test_tts_save.py compares them).  An object's encoded bytes are known
by a digest of its value (`repr`: types, keys in order, every value) and depth; a card's
description is such a value as the card's field says it (`Described`), so that its words
(`tts.words`, the larger part of a card's cost) are worked out only for an object not found.
A deck's card is not even made where the last file has it (`Made`): it is known by a digest
of what it is made from (its sheet's entry, its place, its fields), not of its value.

What is kept (`<output>/.cache/tts-save.bin`, sealed as every cache file, for this code
version only): for each saved object's file, its SHA-256 and where each object's bytes are
in it, by digest.  The bytes are read from the file itself, in the output folder, and used
only if the file still has that SHA-256.  Nothing else: the file holds the object's text,
and the cache a few numbers per card.
"""
from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgen.core.cachefile import CacheFile

ENCODER = json.JSONEncoder(ensure_ascii=False, indent=2)
MARK = "\x00tts-object {}\x00"          # stands for an object inside a deck or bag while the rest is encoded
_MARKED = re.compile(rb'\n( *)"\\u0000tts-object (\d+)\\u0000"')
STATS = {"encoded": 0, "reused": 0}     # objects encoded and taken from the last file (this process; for tests)


@dataclass(frozen=True)
class Described:
    """A card's `Description`: the card's field as it is (a list field: its items), turned
    into words (`text`) only when the card's object is encoded."""

    value: str | tuple[str, ...]
    words: Callable[[str], str]

    def text(self) -> str:
        if isinstance(self.value, tuple):
            return "\n".join(self.words(v) for v in self.value)
        return self.words(self.value)

    def __repr__(self) -> str:
        return f"Described({self.value!r})"


@dataclass(frozen=True)
class Made:
    """An object inside a deck, made (`make()`) only where the last file does not hold it:
    `key` says everything its value is made from (`tts._deck_object`), so that equal keys
    make equal values (with this code: the cache is for this code version only)."""

    key: bytes
    make: Callable[[], dict]


class SaveCache(CacheFile):
    """Where each object's bytes are in the saved object files the last build wrote (module
    docstring): file name -> (its SHA-256, {digest: (start, end)}); and ("thumbnail", file
    name) -> what the thumbnail was made from (`tts._stage_thumbnail`)."""

    NAME = "tts-save.bin"

    @classmethod
    def of(cls, folder: Path) -> SaveCache:
        from cardgen.render.formcache import _open  # (saved with the form caches: `save_all`)

        return cls.open_in(folder, _open)

    def accept(self, data: Any) -> bool:
        if not isinstance(data, dict) or not all(
                isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], dict)
                if isinstance(k, str) else isinstance(k, tuple) and isinstance(v, str) for k, v in data.items()):
            return False
        self.entries = data
        return True


def json_bytes(value: Any) -> bytes:
    """`json.dumps(value, indent=2, ensure_ascii=False) + "\\n"` in UTF-8, encoded as it is
    made, a few thousand pieces at a time: the pieces of a 10,000-card save (about a million
    strings) are never all held at once, as `json.dumps` holds them before joining them."""
    out = io.BytesIO()
    _write(out, value)
    out.write(b"\n")
    return out.getvalue()


def _write(out: io.BytesIO, value: Any) -> None:
    parts: list[str] = []
    for part in ENCODER.iterencode(value):
        parts.append(part)
        if len(parts) >= 4096:
            out.write("".join(parts).encode())
            parts.clear()
    out.write("".join(parts).encode())


def plain(obj: Any) -> Any:
    """`obj` with each `Described` turned into its text (what is encoded)."""
    if isinstance(obj, Described):
        return obj.text()
    if isinstance(obj, Made):
        return plain(obj.make())
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    return obj


def encode(save: dict, cache: SaveCache | None = None, name: str = "", previous: Path | None = None) -> bytes:
    """The saved object's bytes (`json_bytes` of it with each `Described` as its text); with
    a `cache`, each object inside a deck or bag taken from the file `previous` (the last
    build's, `name` in the cache) where that file holds it, and where this file holds each
    object kept for the next build."""
    inner: list[dict | Made] = []
    objects = []
    for obj in save.get("ObjectStates", []):
        contained = obj.get("ContainedObjects") if isinstance(obj, dict) else None
        if isinstance(contained, list) and all(isinstance(c, (dict, Made)) for c in contained):
            marks = [MARK.format(len(inner) + i) for i in range(len(contained))]
            inner += contained
            obj = {**obj, "ContainedObjects": marks}
        objects.append(obj)
    skeleton = io.BytesIO()
    _write(skeleton, plain({**save, "ObjectStates": objects}))
    skeleton.write(b"\n")
    text = skeleton.getvalue()
    found = list(_MARKED.finditer(text))
    if [int(m.group(2)) for m in found] != list(range(len(inner))):
        return json_bytes(plain(save))     # (a value of the game's that reads as a mark: encoded whole)
    old, where = _previous(cache, name, previous)
    out = io.BytesIO()
    at = 0
    kept: dict[bytes, tuple[int, int]] = {}
    for m, obj in zip(found, inner):
        indent = m.group(1)
        out.write(text[at:m.end(1)])
        key = hashlib.blake2b(b"%d;" % len(indent) + (b"made;" + obj.key if isinstance(obj, Made) else
                                                       repr(obj).encode()), digest_size=16).digest()
        start = out.tell()
        span = where.get(key)
        if span is not None and old is not None:
            out.write(old[span[0]:span[1]])
            STATS["reused"] += 1
        else:
            out.write(ENCODER.encode(plain(obj)).encode().replace(b"\n", b"\n" + indent))
            STATS["encoded"] += 1
        kept[key] = (start, out.tell())
        at = m.end()
    out.write(text[at:])
    data = out.getvalue()
    if cache is not None:
        cache.put(name, (hashlib.sha256(data).hexdigest(), kept))
    return data


def _previous(cache: SaveCache | None, name: str, previous: Path | None) -> tuple[bytes | None, dict]:
    """The last build's file and where its objects are, if the cache knows it and the file
    still has the SHA-256 it had then (else nothing)."""
    got = cache.get(name) if cache is not None else None
    if got is None or previous is None:
        return None, {}
    try:
        old = previous.read_bytes()
    except OSError:
        return None, {}
    if hashlib.sha256(old).hexdigest() != got[0]:
        return None, {}
    return old, got[1]
