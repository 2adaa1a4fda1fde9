"""The build-wide options of `cardgen build`, declared once: the `build` command's flags are
made from this declaration and every output's `Options` (`cardgen.cli.main`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cardgen.outputs import OUTPUTS
from cardgen.schema.core import Bool, Choice, Decl, Env, Invalid, Kind, ListOf, Text, opt, show
from cardgen.schema.languages import LanguageCode

PAPERS = ("letter", "a4")


@dataclass(frozen=True)
class Folder(Kind):
    """A folder on disk."""

    metavar: ClassVar[str] = "DIR"

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, Path):
            return value
        if not isinstance(value, str) or not value.strip():
            raise Invalid(f"must be a folder name, got {show(value)}")
        return Path(value)

    def describe(self) -> str:
        return "folder"

    def json_schema(self) -> dict:
        return {"type": "string"}


@dataclass(frozen=True)
class Setting(Text):
    """A game.yaml value given on the command line (`--set KEY=VALUE`)."""

    metavar: ClassVar[str] = "KEY=VALUE"
    nonempty: bool = True


@dataclass(frozen=True)
class Since(Text):
    """A build folder or a git revision to compare with (docs/changes.md)."""

    metavar: ClassVar[str] = "BUILD_OR_REF"
    nonempty: bool = True

    def describe(self) -> str:
        return "build folder or git revision"


@dataclass(frozen=True)
class OutputName(Kind):
    """The name of an output: one of the registry's (`cardgen.outputs.OUTPUTS`), read when
    asked, so that an output added to it is a choice of `--only` at once."""

    @property
    def choice(self) -> Choice:
        return Choice(tuple(OUTPUTS))

    def convert(self, value: Any, env: Env) -> Any:
        return self.choice.convert(value, env)

    def describe(self) -> str:
        return self.choice.describe()

    def json_schema(self) -> dict:
        return self.choice.json_schema()


def metavar(kind: Kind) -> str:
    """How `--help` and the README show a flag's value: the kind's own `metavar`, else the
    first words of its description (`NUMBER`, `TEXT`)."""
    return getattr(kind, "metavar", None) or kind.describe().split(",")[0].split(" (")[0].upper().replace(" ", "_")


@dataclass(frozen=True, kw_only=True)
class BuildOptions(Decl):
    """What `cardgen build` makes and where; the outputs' own options come from game.yaml and,
    over them, `outputs` (output name -> attribute -> value given on the command line)."""

    __what__ = "build options"

    papers: tuple = opt(ListOf(Choice(PAPERS), min_items=1), "paper size of the print sheets and booklets; "
                                                             "repeat for both", PAPERS,
                        default_doc="both", cli="--page", key="page")
    out: Path | None = opt(Folder(), "output folder; each game goes in <out>/<game>/", None,
                           default_doc="build/ in the project, or in a game folder outside any project", cli="--out")
    only: tuple = opt(ListOf(OutputName()), "make only these outputs; repeatable or comma-separated (`print,tts`)", (),
                      default_doc="every output but " + ", ".join(n for n in OUTPUTS if n not in OUTPUTS.defaults()),
                      cli="--only")
    strict: bool = opt(Bool(), "refuse to build while the validator reports any problem", False, cli="--strict")
    watch: bool = opt(Bool(), "keep running: rebuild whenever a game file, template, font or art file changes "
                              "(the build's own output never counts; Ctrl-C to stop)", False, cli="--watch")
    quiet: bool = opt(Bool(), "show no progress bars (they show only on a terminal, for stages longer than "
                              "about a second)", False, cli="--quiet")
    refresh: bool = opt(Bool(), "fetch every Google Sheet a deck reads now, even if the cached copy is recent",
                        False, cli="--refresh")
    changed_since: str | None = opt(Since(), "also make changes-<paper>.pdf: what changed since this build "
                                             "folder or git revision, and print sheets of only the added and "
                                             "changed cards (docs/changes.md)", None, default_doc="none",
                                    cli="--changed-since")
    lang: str | None = opt(LanguageCode(), "build only this language, one of game.yaml's `languages:`, or "
                                           "qps: the pseudo-locale, the source text accented, about 35 % longer "
                                           "and bracketed, to see what a translation will break "
                                           "(docs/languages.md)", None,
                           default_doc="every language game.yaml declares", cli="--lang")
    sets: tuple = opt(ListOf(Setting(), max_items=100), "set a game.yaml value for this build, KEY=VALUE: "
                      "a dotted KEY reaches into a mapping (`vars.art=art/bw`, `palette.accent=#336699`); checked "
                      "as game.yaml's own values, recorded in the manifest; repeatable", (), default_doc="none",
                      cli="--set", key="set")
    outputs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def wanted(self) -> list[str]:
        """The outputs to make, in registry order (`--changed-since` adds `changes`)."""
        extra = {"changes"} if self.changed_since is not None else set()
        if self.only:
            return [n for n in OUTPUTS if n in self.only or n in extra]
        made = OUTPUTS.defaults()
        return [n for n in OUTPUTS if n in made or n in extra]
