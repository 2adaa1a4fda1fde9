"""`cardgen schema KIND`: JSON Schemas (draft 2020-12) from the declarations; every bundled
file validates against its schema, and a broken one does not."""
from __future__ import annotations

import json

import pytest
import yaml
from conftest import REPO, run_cli
from jsonschema import Draft202012Validator

from cardgen.pipeline import jsonschema as js

KINDS = sorted(js.SCHEMAS)


def bundled(kind):
    cards = sorted((REPO / "cards").glob("*/*.yaml"))
    if kind == "template":
        return sorted((REPO / "templates").rglob("*.yaml")) + sorted((REPO / "cardgen").rglob("templates/**/*.yaml"))
    if kind == "game":
        return [p for p in cards if p.name == "game.yaml"]
    if kind == "rules":
        return [p for p in cards if p.name == "rules.yaml"]
    if kind == "layout":
        return sorted((REPO / "cardgen" / "data" / "layouts").glob("*.yaml"))
    return [p for p in cards if p.name not in ("game.yaml", "rules.yaml")]


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_valid_draft_2020_12(kind):
    schema = js.SCHEMAS[kind]()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("kind", KINDS)
def test_every_bundled_file_validates(kind):
    validator = Draft202012Validator(js.SCHEMAS[kind]())
    files = bundled(kind)
    assert files, kind
    for path in files:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert errors == [], f"{path}: {errors}"


@pytest.mark.parametrize("element, path", [
    ({"name": "a", "type": "rect", "fill": 12}, ["elements", 0, "fill"]),
    ({"name": "a", "type": "text", "fit": "shrnk"}, ["elements", 0, "fit"]),
    ({"name": "a", "type": "polygon", "sides": 2}, ["elements", 0, "sides"]),
    ({"name": "a", "type": "rect", "filll": "red"}, ["elements", 0]),
    ({"name": "a", "type": "rectangle"}, ["elements", 0, "type"]),
])
def test_broken_template_element_is_caught(element, path):
    errors = list(Draft202012Validator(js.template_schema()).iter_errors({"elements": [element]}))
    assert [list(e.absolute_path) for e in errors] == [path]


def test_expression_accepted_where_an_option_may_be_one():
    doc = {"elements": [{"name": "a", "type": "text", "size": "{{ card.size }}", "fit": "{{ 'shrink' }}"}]}
    assert list(Draft202012Validator(js.template_schema()).iter_errors(doc)) == []


@pytest.mark.parametrize("kind", KINDS)
def test_cli_prints_the_schema(kind):
    code, out, _ = run_cli("schema", kind)
    assert code == 0
    assert json.loads(out) == js.SCHEMAS[kind]()


def test_editor_doc_names_every_kind_and_the_language_server_comment():
    text = (REPO / "docs" / "editor.md").read_text(encoding="utf-8")
    for kind in KINDS:
        assert f"cardgen schema {kind}" in text
    assert "# yaml-language-server: $schema=" in text
    assert '"yaml.schemas"' in text
