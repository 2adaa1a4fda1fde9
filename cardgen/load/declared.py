"""A declaration's problems with a file's YAML, as diagnostics at their file:line:col.

The loaders of game.yaml, the deck files and rules.yaml (`cardgen.load.game`,
`cardgen.load.rules`) check each file against its declaration (`cardgen.schema.files`) here.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardgen.core.errors import Diagnostic, Loc
from cardgen.load.yamlsrc import YDict, YList
from cardgen.schema.core import Decl, suggest


def safe_key(key: Any) -> str:
    """A key as a message may quote it: printable, at most 60 characters."""
    text = "".join(ch if ch.isprintable() else "?" for ch in str(key))
    return text if len(text) <= 60 else text[:57] + "..."


def _loc_at(data: Any, path: tuple, fallback: Loc) -> Loc:
    """Location of the value `path` leads to inside nested YAML mappings and lists."""
    loc, node = fallback, data
    for step in path:
        if isinstance(node, dict) and step in node:
            loc = node.value_loc(step) if isinstance(node, YDict) else loc
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            loc = node.item_loc(step) if isinstance(node, YList) else loc
            node = node[step]
        else:
            break
    return loc


def file_diagnostics(decl: type[Decl], data: YDict, what: str, extra: Mapping[str, str] | None = None,
                     code: str = "type", skip: tuple[str, ...] = ()) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """`decl`'s problems with `data` as located diagnostics: (unknown keys, the rest).
    Keys in `extra` (output sections, key -> doc) are allowed and left unchecked; the values
    of keys in `skip` are left for someone else to check."""
    extra = extra or {}
    allowed = [*decl.options(), *extra]
    unknown: list[Diagnostic] = []
    other: list[Diagnostic] = []
    for path, message in decl.problems(data, only=[k for k in decl.options() if k not in skip], allow=extra):
        if path[-1:] == ("<key>",):
            key = path[0]
            unknown.append(Diagnostic(data.key_loc(key), f"unknown key '{safe_key(key)}' in {what}"
                                                         f"{suggest(key, allowed)}", "error", "unknown-key"))
        elif not path:
            other.append(Diagnostic(data.loc, f"{what} {message}", "error", "missing-key"))
        else:
            other.append(Diagnostic(_loc_at(data, path, data.loc), f"{what}: {message}", "error", code))
    return unknown, other
