"""Build variants: `cardgen build --set KEY=VALUE` overrides a value of game.yaml for one build
(an art folder in `vars:`, a colour of the `palette:`), checked as game.yaml's own values are.

KEY is a game.yaml key, or a dotted path into one of its mappings (`vars.art`,
`palette.accent`); VALUE is read as a YAML scalar (`3mm`, `true`, `12`, `#c00` stays text).
Templates see the result as they see game.yaml (`{{ game.vars.art }}`); the build's manifest
records what was set (`Game.sets`), and the incremental build counts `--set` among its options.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.core.located import YDict
from cardgen.schema.core import STATIC_ENV, Invalid, MapOf, suggest
from cardgen.schema.files import FreeMap, GameFile

MAX_SETS = 100
MAX_DEPTH = 8
# keys whose value shapes what is loaded rather than what is drawn: not a variant's to change
_FIXED = frozenset({"decks", "languages"})


def parse(item: str) -> tuple[str, Any]:
    """`KEY=VALUE` as (KEY, VALUE read as a YAML scalar); CardgenError if it is not that."""
    key, eq, text = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise _error(item, "write KEY=VALUE, e.g. vars.art=art/bw or palette.accent=#336699")
    value: Any = text
    if text.strip() and not text.lstrip().startswith("#"):
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            value = text
        if isinstance(value, (dict, list)) or value is None:
            value = text            # (a scalar only: `[1, 2]` is the text as written)
    return key, value


def _error(item: str, message: str) -> CardgenError:
    return CardgenError(None, diagnostics=[Diagnostic(Loc(f"--set {item}"), message, "error", "set")])


def _check(item: str, path: list[str], value: Any) -> None:
    """A value for game.yaml's `path` checked as game.yaml's own would be."""
    options = GameFile.options()
    top = path[0]
    if top not in options or top in _FIXED:
        names = [k for k in options if k not in _FIXED]
        raise _error(item, f"game.yaml has no value '{top}' a build can set{suggest(top, names)} (keys: "
                           f"{', '.join(names)}; a dotted key reaches into a mapping, e.g. vars.art)")
    kind = options[top][1].kind
    if len(path) > MAX_DEPTH or any(not part for part in path):
        raise _error(item, f"a key has at most {MAX_DEPTH} parts, none of them empty")
    if len(path) > 1:
        if isinstance(kind, MapOf) and len(path) == 2:
            kind = kind.value
        elif isinstance(kind, FreeMap):
            return
        else:
            raise _error(item, f"`{top}` is not a mapping of names (write --set {top}=VALUE)")
    try:
        kind.convert(value, STATIC_ENV)
    except Invalid as exc:
        raise _error(item, f"`{'.'.join(path)}` {exc.message}") from None


def apply(data: YDict, sets: Sequence[str]) -> tuple[YDict, dict[str, str]]:
    """game.yaml's `data` with each KEY=VALUE of `sets` in place (the last of a key wins),
    and what was set (KEY -> VALUE as given), for the manifest.  CardgenError, said as the
    `--set` it is about, for a key game.yaml has no place for or a value that does not fit."""
    if not sets:
        return data, {}
    if len(sets) > MAX_SETS:
        raise _error(sets[MAX_SETS], f"at most {MAX_SETS} --set per build")
    out = _copy(data)
    said: dict[str, str] = {}
    for item in sets:
        key, value = parse(item)
        path = [p.strip() for p in key.split(".")]
        _check(item, path, value)
        here = out
        for part in path[:-1]:
            inner = here.get(part)
            if not isinstance(inner, dict):
                inner = YDict()
                inner.loc = Loc(f"--set {item}")
            here[part] = inner = _copy(inner)
            here = inner
        here[path[-1]] = value
        if not hasattr(here, "value_locs"):
            here.value_locs = {}
        here.value_locs[path[-1]] = Loc(f"--set {item}")
        said[".".join(path)] = item.partition("=")[2]
    return out, dict(sorted(said.items()))


def _copy(d: Mapping) -> YDict:
    """A shallow copy of a mapping keeping where its values came from (the loaded file is not
    changed: it may be cached)."""
    out = YDict(d)
    for attr in ("loc", "key_locs", "value_locs"):
        if hasattr(d, attr):
            value = getattr(d, attr)
            setattr(out, attr, dict(value) if isinstance(value, dict) else value)
    if not hasattr(out, "loc"):
        out.loc = Loc("--set")
    return out

