"""The reference tables in docs/, generated from the one declaration of every option.

Each generated block in a Markdown file sits between `<!-- cardgen:NAME -->` and
`<!-- /cardgen:NAME -->`.  `python -m cardgen.pipeline.reference --write` rewrites them
from the declarations; a test checks that the committed docs are current.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from cardgen.elements import ELEMENTS
from cardgen.elements.base import Box, Element
from cardgen.layout.templates import TemplateFile
from cardgen.schema.core import Opt, doc_table

_BASE = set(Element.options())
_BOX = set(Box.options()) - _BASE


def _template_file() -> str:
    return doc_table(TemplateFile)


def _element_common() -> str:
    return doc_table(Element) + "\n\nPosition and size, for every element:\n\n" + \
        doc_table(Box, lambda key, o: key in _BOX)


def _element_types() -> str:
    parts = []
    for name, cls in ELEMENTS.items():
        def own(key: str, o: Opt) -> bool:
            return key not in _BASE and key not in _BOX
        parts.append(f"### `{name}`\n\n{cls.summary}\n\n{doc_table(cls, own)}")
    return "\n\n".join(parts)


def _files(name: str) -> Callable[[], str]:
    def make() -> str:
        from cardgen.schema import files
        return doc_table(getattr(files, name))
    return make


def _layout_file() -> str:
    from cardgen.schema import layouts

    parts = [doc_table(layouts.SheetLayoutFile)]
    for decl, what in ((layouts.CardPosition, "Each of `cards:` positions"), (layouts.Area, "`area:`"),
                       (layouts.Registration, "`registration:`")):
        parts.append(f"{what}:\n\n{doc_table(decl)}")
    return "\n\n".join(parts)


def _presets() -> str:
    """The layouts that ship with cardgen, with their descriptions."""
    from cardgen.render.sheetlayout import PRESETS, load_layout, preset_names

    rows = ["| layout | what it is |", "|---|---|"]
    for name in preset_names():
        rows.append(f"| `{name}` | {load_layout(PRESETS / f'{name}.yaml').spec.description} |")
    return "\n".join(rows)


def _build_flags() -> str:
    """The build-wide flags, from `pipeline.options.BuildOptions`."""
    from cardgen.pipeline.options import BuildOptions

    rows = ["| flag | value | default | meaning |", "|---|---|---|---|"]
    for _, (_, o) in BuildOptions.options().items():
        if o.cli:
            rows.append(f"| `{o.cli}` | {o.kind.describe()} | {o.default_text()} | {o.doc} |")
    return "\n".join(rows)


def _pdfx_options() -> str:
    """The print-service PDF's options, from `outputs.print_service.PdfxOptions`."""
    from cardgen.outputs.print_service import PdfxOptions

    return doc_table(PdfxOptions)


BLOCKS: dict[str, tuple[str, Callable[[], str]]] = {
    "build-flags": ("outputs.md", _build_flags),
    "layout-file": ("printing.md", _layout_file),
    "layout-presets": ("printing.md", _presets),
    "pdfx-options": ("print-services.md", _pdfx_options),
    "game-file": ("games.md", _files("GameFile")),
    "deck-file": ("games.md", _files("DeckFile")),
    "card-keys": ("games.md", _files("CardKeys")),
    "sheet-source": ("spreadsheets.md", _files("SheetSource")),
    "rules-file": ("rules-format.md", _files("RulesFile")),
    "component-entry": ("rules-format.md", _files("ComponentEntry")),
    "template-file": ("templates.md", _template_file),
    "element-common": ("templates.md", _element_common),
    "element-types": ("templates.md", _element_types),
}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- cardgen:{re.escape(name)} -->)(.*?)(<!-- /cardgen:{re.escape(name)} -->)", re.S)


def current(docs: Path, name: str) -> str | None:
    """The block as the doc has it now (None if the markers are missing)."""
    file, _ = BLOCKS[name]
    m = _pattern(name).search((docs / file).read_text(encoding="utf-8"))
    return m.group(2).strip("\n") if m else None


def generated(name: str) -> str:
    return BLOCKS[name][1]()


def _fill(body: str) -> Callable[[re.Match[str]], str]:
    """A replacement that puts `body` between a block's opening and closing markers."""
    return lambda m: m.group(1) + "\n" + body + "\n" + m.group(3)


def write(docs: Path) -> list[str]:
    changed = []
    for name, (file, make) in BLOCKS.items():
        path = docs / file
        text = path.read_text(encoding="utf-8")
        new, n = _pattern(name).subn(_fill(make()), text)
        if n != 1:
            raise SystemExit(f"{path}: no <!-- cardgen:{name} --> block")
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(f"{file}:{name}")
    return changed


if __name__ == "__main__":
    root = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("docs")
    if sys.argv[1:2] == ["--write"]:
        print("\n".join(write(root)) or "docs are current")
    else:
        for block in BLOCKS:
            print(generated(block), end="\n\n")
