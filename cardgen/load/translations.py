"""Translated values: `FIELD@LANG` beside its source (`text@de:` beside `text:`), read for one
language at a time (docs/languages.md).

A game declares its languages once, in game.yaml (`languages: [en, de]`, the source language
first).  Every file is read for the language being built: `localize` turns a mapping (at any
depth: a card, its `back:`, a template's element, rules.yaml's sections) into what that language
sees, `text@de`'s value as `text` (at `text@de`'s line, so a problem in the German text is said
there), every other `@` key left out.  The source language sees the source values.  `scan` finds
the translated keys of a file whose language is unknown or not declared, once, whatever the
language being built.
"""
from __future__ import annotations

import re
from typing import Any

from cardgen.core.errors import Diagnostic, Loc
from cardgen.core.located import YDict, YList
from cardgen.schema.languages import name_of, norm, problem

KEY = re.compile(r"(?P<field>[^@\s]+)@(?P<lang>[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)")


def split(key: Any) -> tuple[str, str] | None:
    """(field, language) of a translated key (`text@de` -> ('text', 'de')), else None."""
    if not isinstance(key, str) or "@" not in key:
        return None
    m = KEY.fullmatch(key)
    return (m["field"], m["lang"]) if m else None


def _has_keys(value: Any) -> bool:
    """Does `value` hold a translated key at any depth? (Most mappings do not: they come back as
    they are.  Every card is asked every build: a key without `@` and a value that is neither a
    mapping nor a list are passed over without a call.)"""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and "@" in k and split(k) is not None:
                return True
            if isinstance(v, (dict, list)) and _has_keys(v):
                return True
        return False
    if isinstance(value, list):
        return any(_has_keys(v) for v in value if isinstance(v, (dict, list)))
    return False


def localize(value: Any, lang: str | None, fixed: tuple[str, ...] = ()) -> Any:
    """`value` as language `lang` sees it: in every mapping at any depth, `FIELD@LANG` for `lang`
    in the place of `FIELD` (with its locations), every other translated key left out.  `lang`
    None (no `languages:`, or the source language): the source values.  `fixed`: keys of the
    top mapping that are never translated (a deck's `deck:`, how everything names it), their
    values left as they are (a deck's `cards:`, read card by card).  A value
    holding no translated key is returned as it is."""
    if not _has_keys(value):
        return value
    return _localize(value, norm(lang) if lang else None, fixed)


def _localize(value: Any, lang: str | None, fixed: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        return _mapping(value, lang, fixed)
    if isinstance(value, list):
        items = [_localize(v, lang) for v in value]
        if isinstance(value, YList):
            out = YList(items)
            out.loc, out.item_locs = getattr(value, "loc", Loc("?")), getattr(value, "item_locs", [])
            return out
        return items
    return value


def _mapping(value: dict, lang: str | None, fixed: tuple[str, ...]) -> dict:
    located = isinstance(value, YDict)
    own: dict[str, Any] = {}        # field -> the key its value comes from in this language
    for k in value:
        parts = split(k)
        if parts is not None and lang is not None and norm(parts[1]) == lang and parts[0] not in fixed:
            own[parts[0]] = k
    out: dict = YDict() if located else {}
    keys: dict = {}
    for k in value:
        if split(k) is not None:
            continue
        keys[k] = own.pop(k, k) if isinstance(k, str) else k
    keys.update((f, k) for f, k in own.items())       # a translation with no source value
    for field, k in keys.items():
        out[field] = value[k] if field in fixed else _localize(value[k], lang)
    if located:
        assert isinstance(value, YDict) and isinstance(out, YDict)
        out.loc = getattr(value, "loc", Loc("?"))
        out.key_locs = {f: value.key_loc(k) for f, k in keys.items()}
        out.value_locs = {f: value.value_loc(k) for f, k in keys.items()}
    return out


def translated(value: Any) -> list[tuple[YDict | dict, str, str, str]]:
    """Every translated key in `value` at any depth: (its mapping, the key, field, language)."""
    out: list[tuple[YDict | dict, str, str, str]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            parts = split(k) if isinstance(k, str) and "@" in k else None
            if parts is not None:
                out.append((value, k, *parts))
            if isinstance(v, (dict, list)):
                out += translated(v)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, (dict, list)):
                out += translated(v)
    return out


def scan(value: Any, languages: tuple[str, ...] | None, where: str, fixed: tuple[str, ...] = (),
         severity: str = "warning") -> list[Diagnostic]:
    """The translated keys of `value` that no build reads: an unknown language code, a language
    game.yaml does not declare (or no `languages:` at all), the source language's own
    (`text@en` where en is the source: the source is `text:` itself), a key of `fixed`; each at
    its key's line."""
    out = []
    declared = [norm(c) for c in languages or ()]
    for mapping, key, field, lang in translated(value):
        loc = mapping.key_loc(key) if isinstance(mapping, YDict) else Loc("?")
        why = problem(lang)
        if why is not None:
            message = f"{where}: `{key}`: {why}"
        elif not languages:
            message = (f"{where}: `{key}` is a {name_of(lang)} translation, but game.yaml declares no `languages:`; "
                       f"add `languages: [<source language>, {lang}]` to build it (docs/languages.md)")
        elif norm(lang) == declared[0]:
            message = (f"{where}: `{key}`: {lang} is the source language, whose text is `{field}:` itself; "
                       f"write it there")
        elif norm(lang) not in declared:
            message = (f"{where}: `{key}`: {lang} ({name_of(lang)}) is not one of game.yaml's `languages:` "
                       f"({', '.join(languages)}); add it there, or correct the code")
        elif field in fixed and mapping is value:
            message = f"{where}: `{key}`: `{field}:` is how the game names this; it is not translated"
        else:
            continue
        out.append(Diagnostic(loc, message, severity, "language"))
    return out
