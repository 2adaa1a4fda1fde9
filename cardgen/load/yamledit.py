"""Values written into a YAML file in place (`cardgen i18n import`: docs/languages.md): a text
replaced where it is, or a new key written after another key's value, everything else in the
file (comments, blank lines, the other values and their layout) kept byte for byte.

Where a value starts and ends is read from the file's YAML nodes (their marks), so any layout
works: a plain, quoted or block (`>-`, `|`) scalar, a block or a flow mapping (`{name: X}`), a
text inside a list.  What is written is a double-quoted YAML string (JSON's escapes, which YAML
reads the same), or for a new list or mapping its block form under the new key.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from cardgen.core.errors import CardgenError, Loc

Step = str | int


class Named(str):
    """A path's step to the item of a list whose `name:` it is (a template's element), rather
    than to a position that an item inserted above would change."""


def named_steps(items: list) -> list[Step]:
    """The steps to each item of `items`: its `Named` name when every item is a mapping with a
    `name:` text of its own (unique in the list), else its position."""
    names = [v.get("name") if isinstance(v, dict) else None for v in items]
    if names and all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names):
        return [Named(n) for n in names]
    return list(range(len(items)))


def _named(node: yaml.Node, name: str) -> yaml.Node | None:
    for item in node.value:
        if isinstance(item, yaml.MappingNode) and any(
                isinstance(k, yaml.ScalarNode) and k.value == "name" and isinstance(v, yaml.ScalarNode)
                and v.value == name for k, v in item.value):
            found: yaml.Node = item
            return found
    return None


@dataclass(frozen=True)
class Change:
    """`key` of the mapping at `path` set to `value`: when the mapping has `key`, its value (or
    the text at `inside` it) is replaced; else `key` is written after `after`'s value."""

    path: tuple[Step, ...]
    key: str
    value: Any
    after: str = ""
    inside: tuple[Step, ...] = ()


def _child(node: yaml.Node, step: Step) -> yaml.Node | None:
    if isinstance(node, yaml.SequenceNode) and isinstance(step, Named):
        return _named(node, step)
    if isinstance(node, yaml.MappingNode) and not isinstance(step, int):
        return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == step), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
        node_at: yaml.Node = node.value[step]
        return node_at
    return None


def _find(node: yaml.Node, path: tuple[Step, ...], file: str) -> yaml.Node:
    for step in path:
        found = _child(node, step)
        if found is None:
            raise CardgenError(Loc(file, node.start_mark.line + 1, node.start_mark.column + 1),
                               f"cannot find `{step}` here to write into (the file changed while it was read?)",
                               code="po-import")
        node = found
    return node


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _block(key: str, value: Any, indent: int) -> str:
    """`key:` and `value` in block form under it, each line indented `indent` spaces."""
    if not isinstance(value, (dict, list)):
        return " " * indent + f"{key}: {_scalar(value)}\n"
    body = yaml.safe_dump(value, allow_unicode=True, default_flow_style=False, sort_keys=False, width=4096)
    return " " * indent + f"{key}:\n" + "".join(" " * (indent + 2) + line + "\n" for line in body.splitlines())


def _splice(text: str, root: yaml.Node, change: Change, file: str) -> tuple[int, int, str]:
    """(start, end, what goes there) in `text` for `change`."""
    mapping = _find(root, change.path, file)
    if not isinstance(mapping, yaml.MappingNode):
        raise CardgenError(Loc(file, mapping.start_mark.line + 1, mapping.start_mark.column + 1),
                           "not a mapping: cannot write a key into it", code="po-import")
    current = _child(mapping, change.key)
    if current is not None:
        node = _find(current, change.inside, file)
        if not isinstance(node, yaml.ScalarNode):
            raise CardgenError(Loc(file, node.start_mark.line + 1, node.start_mark.column + 1),
                               "a list or a mapping where a text was expected: write the text here in the YAML",
                               code="po-import")
        start, end = node.start_mark.index, node.end_mark.index
        span = text[start:end]
        return start, end, _scalar(change.value) + span[len(span.rstrip()):]
    pair = next(((k, v) for k, v in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == change.after),
                None)
    if pair is None:
        raise CardgenError(Loc(file, mapping.start_mark.line + 1, mapping.start_mark.column + 1),
                           f"no `{change.after}:` here to write `{change.key}:` after", code="po-import")
    key, value = pair
    if mapping.flow_style:
        flow = json.dumps(change.value, ensure_ascii=False)
        return value.end_mark.index, value.end_mark.index, f", {change.key}: {flow}"
    span = text[value.start_mark.index:value.end_mark.index]
    end = text.find("\n", value.start_mark.index + len(span.rstrip()))
    line = _block(change.key, change.value, key.start_mark.column)
    if end < 0:
        return len(text), len(text), "\n" + line.removesuffix("\n")
    return end + 1, end + 1, line


def apply(text: str, changes: list[Change], file: str) -> str:
    """`text` (a YAML file's, at `file`) with `changes` made, the rest of it as it was."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise CardgenError(Loc(file), f"cannot be read to write into ({exc})", code="po-import") from None
    if root is None:
        raise CardgenError(Loc(file), "is empty: nothing to write into", code="po-import")
    splices = sorted((_splice(text, root, c, file) for c in changes), key=lambda s: (s[0], s[1]), reverse=True)
    for start, end, new in splices:
        text = text[:start] + new + text[end:]
    return text
