"""JSON Schemas (draft 2020-12) of cardgen's files, made from the same declarations that
load and check them: `cardgen schema game|deck|template|rules|layout`.

Editors use them for completion and inline errors (docs/editor.md). They describe the shape
(keys, types, ranges, choices); the checks that need the whole game (references, counts)
stay with `cardgen validate`.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://cardgen.invalid/schema"


def _document(kind: str, body: dict[str, Any], title: str) -> dict[str, Any]:
    out: dict[str, Any] = {"$schema": DIALECT, "$id": f"{BASE_ID}/{kind}.json", "title": title}
    out.update({k: v for k, v in body.items() if k != "title"})
    return out


def template_schema() -> dict[str, Any]:
    from cardgen.elements import ELEMENTS  # (here: `cardgen --help` lists SCHEMAS quickly)
    from cardgen.layout.templates import TemplateFile

    body = TemplateFile.json_schema()
    branches = []
    for name, cls in ELEMENTS.items():
        then = cls.json_schema()
        then.pop("required", None)          # a child template may override an element by name only
        branches.append({"if": {"properties": {"type": {"const": name}}, "required": ["type"]}, "then": then})
    body["properties"]["elements"] = {
        "type": "array",
        "description": TemplateFile.options()["elements"][1].doc,
        "items": {
            "type": "object",
            "required": ["name"],
            "properties": {"type": {"enum": list(ELEMENTS)}},
            "allOf": branches,
        },
    }
    return _document("template", body, "cardgen layout template")


def _files() -> Any:
    from cardgen.schema import files
    return files


def _with_output_sections(body: dict[str, Any], attr: str) -> dict[str, Any]:
    """Each output's options under its key (`tts:`, `booklet:`): `Options` for game.yaml,
    `DeckOptions` for deck files."""
    from cardgen.outputs import OUTPUTS

    for out in OUTPUTS.values():
        decl = getattr(out, attr)
        if out.section and decl is not None:
            section = decl.json_schema()
            section["description"] = out.summary
            body["properties"][out.section] = section
    return body


def game_schema() -> dict[str, Any]:
    body = _with_output_sections(_files().GameFile.json_schema(), "Options")
    return _document("game", body, "cardgen game.yaml")


def deck_schema() -> dict[str, Any]:
    # `cards:` as CardList declares it: a list of cards (CardKeys) or a spreadsheet
    body = _with_output_sections(_files().DeckFile.json_schema(), "DeckOptions")
    return _document("deck", body, "cardgen deck file")


def rules_schema() -> dict[str, Any]:
    return _document("rules", _files().RulesFile.json_schema(), "cardgen rules.yaml")


def layout_schema() -> dict[str, Any]:
    from cardgen.schema.layouts import SheetLayoutFile

    return _document("layout", SheetLayoutFile.json_schema(), "cardgen sheet layout")


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "game": game_schema,
    "deck": deck_schema,
    "template": template_schema,
    "rules": rules_schema,
    "layout": layout_schema,
}


def dumps(kind: str) -> str:
    return json.dumps(SCHEMAS[kind](), indent=2, ensure_ascii=False) + "\n"
