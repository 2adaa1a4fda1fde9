"""Every generated part of the docs and the README, from the one declaration of every option
and the registries of elements and outputs: the one generator.

Each generated block in a Markdown file sits between `<!-- cardgen:NAME -->` and
`<!-- /cardgen:NAME -->` (`BLOCKS`: name -> file, relative to the repository, and what makes
it).  From the repository's folder:

    python -m cardgen.pipeline.reference --write    # rewrite every block from the declarations
    python -m cardgen.pipeline.reference --check    # exit 1, naming each block that differs (CI)

A test and CI (`.ci/run`) hold the committed files to it.
"""
from __future__ import annotations

import argparse
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


def _cell(text: str) -> str:
    """Text for a Markdown table cell: `|` escaped."""
    return text.replace("|", "\\|")


def _flag_value(o: Opt) -> str:
    """What follows a flag on the command line: `a|b` for a choice, a metavar, or nothing."""
    from cardgen.pipeline.options import metavar
    from cardgen.schema.core import Bool, Choice, ListOf

    kind = o.kind.item if isinstance(o.kind, ListOf) else o.kind
    if isinstance(kind, Bool):
        return ""
    choice = getattr(kind, "choice", kind)
    if isinstance(choice, Choice):
        return " " + "|".join(choice.choices)
    return " " + metavar(kind)


def _readme_flags() -> str:
    """README's table of `cardgen build`'s flags: the build-wide ones, then every output's."""
    from cardgen.outputs import OUTPUTS
    from cardgen.pipeline.options import BuildOptions
    from cardgen.schema.core import Bool, Decl, ListOf

    rows = ["| flag | meaning |", "|---|---|"]
    groups: list[tuple[str | None, type[Decl]]] = [(None, BuildOptions), *((n, o.Options) for n, o in OUTPUTS.items())]
    for name, decl in groups:
        for _, (_, o) in decl.options().items():
            if not o.cli:
                continue
            meaning = o.doc
            if name is not None:
                meaning = f"`{name}`: " + ("do not " + meaning if o.cli.startswith("--no-") else meaning)
            if not isinstance(o.kind, Bool):
                meaning += f" (default: {o.default_text()})"
            if isinstance(o.kind, ListOf) and "repeat" not in o.doc:
                meaning += "; repeatable"
            rows.append(f"| `{_cell(o.cli + _flag_value(o))}` | {_cell(meaning)} |")
    return "\n".join(rows) + "\n\nEach output's options, and the game.yaml keys they are also set by: " \
        "[outputs](docs/outputs.md)."


def _outputs() -> str:
    """docs/outputs.md: one section per output: what it writes, its summary, its options table
    and the command-line flags that set them."""
    from cardgen.outputs import OUTPUTS

    parts = []
    for name, o in OUTPUTS.items():
        lines = [f"## `{name}`: {o.files}", "", o.summary + ("" if o.default else
                                                            f" Made only when asked for: `--only {name}`."), ""]
        if o.section is None or not o.Options.options():
            lines.append("No options." if o.section is None else "")
        else:
            lines += [f"Options, in game.yaml under `{o.section}:`:", "", doc_table(o.Options)]
            flags = [(o_.cli, key) for key, (_, o_) in o.Options.options().items() if o_.cli]
            if flags:
                lines += ["", "On the command line (over game.yaml): "
                          + ", ".join(f"`{flag}` sets `{key}`" + (": false" if flag.startswith("--no-") else "")
                                      for flag, key in flags) + "."]
            if o.DeckOptions is not None:
                lines += ["", f"A deck file's own `{o.section}:` may set these for its deck (over game.yaml's):", "",
                          doc_table(o.DeckOptions)]
        parts.append("\n".join(lines).rstrip())
    return "\n\n".join(parts)


def _pdfx_options() -> str:
    """The print-service PDF's options, from `outputs.print_service.PdfxOptions`."""
    from cardgen.outputs.print_service import PdfxOptions

    return doc_table(PdfxOptions)


BLOCKS: dict[str, tuple[str, Callable[[], str]]] = {
    "build-flags": ("docs/outputs.md", _build_flags),
    "outputs": ("docs/outputs.md", _outputs),
    "readme-build-flags": ("README.md", _readme_flags),
    "layout-file": ("docs/printing.md", _layout_file),
    "layout-presets": ("docs/printing.md", _presets),
    "pdfx-options": ("docs/print-services.md", _pdfx_options),
    "game-file": ("docs/games.md", _files("GameFile")),
    "deck-file": ("docs/games.md", _files("DeckFile")),
    "card-keys": ("docs/games.md", _files("CardKeys")),
    "sheet-source": ("docs/spreadsheets.md", _files("SheetSource")),
    "rules-file": ("docs/rules-format.md", _files("RulesFile")),
    "component-entry": ("docs/rules-format.md", _files("ComponentEntry")),
    "rulebook-figure": ("docs/rules-format.md", _files("RulebookFigure")),
    "template-file": ("docs/templates.md", _template_file),
    "element-common": ("docs/templates.md", _element_common),
    "element-types": ("docs/templates.md", _element_types),
}
COMMAND = "python -m cardgen.pipeline.reference --write"


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- cardgen:{re.escape(name)} -->)(.*?)(<!-- /cardgen:{re.escape(name)} -->)", re.S)


def current(root: Path, name: str) -> str | None:
    """The block as the file under `root` (the repository's folder) has it now (None if the
    markers are missing)."""
    file, _ = BLOCKS[name]
    m = _pattern(name).search((root / file).read_text(encoding="utf-8"))
    return m.group(2).strip("\n") if m else None


def generated(name: str) -> str:
    return BLOCKS[name][1]()


def _fill(body: str) -> Callable[[re.Match[str]], str]:
    """A replacement that puts `body` between a block's opening and closing markers."""
    return lambda m: m.group(1) + "\n" + body + "\n" + m.group(3)


def _line_of(text: str, name: str) -> int:
    m = _pattern(name).search(text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def check(root: Path) -> list[str]:
    """One line for every block under `root` that is not what the declarations make (edited
    by hand, or a declaration changed without `--write`), naming its file and line."""
    problems = []
    for name, (file, make) in BLOCKS.items():
        path = root / file
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            problems.append(f"{file}: cannot read it ({exc.strerror or exc}); it holds <!-- cardgen:{name} -->")
            continue
        have = current(root, name)
        if have is None:
            problems.append(f"{file}: no <!-- cardgen:{name} --> ... <!-- /cardgen:{name} --> block; add the "
                            f"two markers where it goes, then run `{COMMAND}`")
        elif have != make():
            problems.append(f"{file}:{_line_of(text, name)}: generated block '{name}' differs from what the "
                            f"declarations make (edited by hand, or a declaration changed); run `{COMMAND}` "
                            f"(edit the declaration, not the table)")
    return problems


def write(root: Path) -> list[str]:
    """Rewrite every block under `root`; the blocks that changed (`file:name`)."""
    changed = []
    for name, (file, make) in BLOCKS.items():
        path = root / file
        text = path.read_text(encoding="utf-8")
        new, n = _pattern(name).subn(_fill(make()), text)
        if n != 1:
            raise SystemExit(f"{file}: no <!-- cardgen:{name} --> block")
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(f"{file}:{name}")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardgen.pipeline.reference",
                                     description="The generated parts of README.md and docs/*.md.")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="rewrite every generated block")
    what.add_argument("--check", action="store_true", help="exit 1 if a generated block is not current")
    parser.add_argument("root", nargs="?", type=Path, default=Path("."),
                        help="the repository's folder (default: the current folder)")
    args = parser.parse_args(argv)
    if args.write:
        print("\n".join(write(args.root)) or "docs are current")
    elif args.check:
        problems = check(args.root)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            return 1
        print(f"{len(BLOCKS)} generated blocks are current")
    else:
        for block in BLOCKS:
            print(generated(block), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
