"""What every output is: a class with a name, a one-line summary, and its options declared
once (`cardgen.schema.core`), which give the game.yaml section's checks, the command-line
flags of `cardgen build` and the docs tables.

The boundary is typed, as MkDocs' `BasePlugin[Config]`: an output subclasses
`Output[ItsOptions]`, which sets its `Options`, and its `make(job: Job[ItsOptions])` gets
them as that declared dataclass (`job.options`).  What it reads of another output's options
comes typed too (`job.options_of(PrintSheets)`), and per-deck options by their declaration
(`job.deck_options(deck, TtsDeckOptions)`); no output reads a section of game.yaml itself.

Options resolve as: command-line flag > the game.yaml section > the declared default.
Per-deck options (`DeckOptions`) resolve as: the deck file's section > game.yaml's > default.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast, get_args, get_origin

from cardgen.core.digest import digest
from cardgen.core.errors import Diagnostic, Loc, Report
from cardgen.outputs.incremental import Ledger, Part
from cardgen.outputs.table import row_of
from cardgen.schema.core import Decl, show

if TYPE_CHECKING:      # (not imported at start-up: `cardgen --help` makes its flags from the outputs)
    from cardgen.core.atomic import Staging
    from cardgen.layout.changes import Changes
    from cardgen.layout.engine import Rendered
    from cardgen.load.game import Deck, Game
    from cardgen.resources.fonts import FontBook


@dataclass(frozen=True, kw_only=True)
class NoOptions(Decl):
    """An output without options."""

    __what__ = "options"


class BuildWide(Protocol):
    """What an output may read of the build-wide options (`cardgen.pipeline.options`)."""

    @property
    def papers(self) -> tuple[str, ...]: ...

    @property
    def outputs(self) -> Mapping[str, Mapping[str, Any]]: ...


def _section(data: Mapping | None, key: str | None) -> Mapping:
    if data is None or key is None:
        return {}
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


Opts = TypeVar("Opts", bound=Decl)      # an output's own options
P = TypeVar("P", bound=Decl)         # another output's options
D = TypeVar("D", bound=Decl)         # per-deck options


@dataclass
class Job(Generic[Opts]):
    """One output to make for one laid-out game."""

    rendered: Rendered
    options: Opts                    # the output's resolved `Options`, as declared
    build: BuildWide                 # the build-wide options (papers, ...)
    staging: Staging
    report: Report
    out_dir: Path
    deck_decl: type[Decl] | None = None
    section: str | None = None
    changes: Changes | None = None   # with `--changed-since`: what changed (`cardgen.pipeline.changes`)
    output: str = ""                 # the output's name
    ledger: Ledger | None = None     # what the previous build made (None: make everything)
    resolved: Mapping[str, Decl] = field(default_factory=dict)     # every output's options, by name
    _decks: dict = field(default_factory=dict)
    _common: str | None = None      # what every part's fingerprint reads besides its own inputs (`part`)

    @property
    def game(self) -> Game:
        return self.rendered.game

    def ready_folder(self, name: str) -> Path:
        """`.cache/<name>` in the output folder, emptied (of what a build that failed left): the
        images the raster workers make now are also written there, as they are, and the commit
        moves them into place (`Staging.add_ready`) instead of copying each out of the cache."""
        import shutil

        folder = self.out_dir / ".cache" / name
        shutil.rmtree(folder, ignore_errors=True)
        return folder

    def part(self, key: str, *inputs: Any) -> Part:
        """A part of this output (`key`: e.g. the paper) that reads `inputs` besides the
        output's options (`cardgen.outputs.incremental`): keep it if they did not change."""
        name = f"{self.output}:{key}" if key else self.output
        ledger = self.ledger
        fingerprint = ""
        if ledger is not None:
            if self._common is None:    # (once a job: the gallery has a part per card side)
                from cardgen.render.docinfo import current  # what every PDF says of the game

                # (cardgen's own words, which any output may print: their language, and game.yaml's `words:`)
                words = self.game.words
                self._common = digest(ledger.code, self.options, str(self.out_dir), current(), words.lang,
                                      sorted(words.own.items()) if words.own else None)
            fingerprint = digest(self._common, name, ledger.value(inputs))
        return Part(ledger, name, fingerprint, self.staging, self.report)

    def options_of(self, output: type[Output[P]]) -> P:
        """Another output's resolved options (command line > game.yaml > default), as declared:
        the calibration sheet prints with print's `flip`, the player aid in the booklet's accent."""
        got = self.resolved.get(output.name)
        if got is None:
            got = output.resolve(self.game.data, self.build.outputs.get(output.name))
        return cast(P, got)

    def option_loc(self, key: str, index: int | None = None) -> Loc:
        """Where game.yaml sets this output's option `key` (its item `index`, for a list)
        (game.yaml itself if it does not)."""
        section = self.game.data.get(self.section) if self.section and self.game.data is not None else None
        if isinstance(section, Mapping) and key in section and hasattr(section, "value_loc"):
            items = section[key]
            if index is not None and isinstance(items, list) and hasattr(items, "item_loc") and index < len(items):
                return items.item_loc(index)
            return section.value_loc(key)
        return Loc(str(self.game.file))

    def deck_options(self, deck: Deck, decl: type[D]) -> D:
        """The output's per-deck options for `deck` (`decl`: its `DeckOptions`): the deck
        file's section over game.yaml's."""
        if self.deck_decl is None or decl is not self.deck_decl:
            raise TypeError(f"this output's per-deck options are {self.deck_decl}, not {decl}")
        return cast(D, self._deck_section(deck, decl, self.section))

    def deck_options_of(self, output: type[Output], deck: Deck) -> Decl:
        """Another output's per-deck options for `deck` (the Tabletop Playground package reads a
        deck's `tts:` back_is_hidden and shape)."""
        if output.DeckOptions is None:
            raise TypeError(f"output {output.name} has no per-deck options")
        return self._deck_section(deck, output.DeckOptions, output.section)

    def _deck_section(self, deck: Deck, decl: type[Decl], section: str | None) -> Decl:
        got = self._decks.get((section, deck.slug))
        if got is None:
            keys = decl.options()
            merged = {k: v for k, v in _section(self.game.data, section).items() if k in keys}
            merged.update(_section(deck.data, section))
            got = self._decks[(section, deck.slug)] = decl.load_unchecked(merged)
        return got


class Output(Generic[Opts]):
    """Base of every output.  A subclass names its options' declaration as the type argument
    (`class Tts(Output[TtsOptions])`: that sets `Options`), sets its summary and `make()`.
    Its name, section and whether a build makes it by default are its row's in the registry
    table (`cardgen/outputs/table.py`), set here when the class is made: the class does not
    declare them (start-up reads them from the table without importing the output)."""

    # from the class's row in the registry table:
    name: ClassVar[str]                         # the `--only` word
    default: ClassVar[bool] = True              # made when --only is not given
    section: ClassVar[str | None] = None        # the game.yaml (and deck) key holding its options
    # the class's own:
    summary: ClassVar[str]                      # one line, for --help and the docs
    files: ClassVar[str] = ""                   # what it writes, for the docs
    Options: ClassVar[type[Decl]] = NoOptions
    DeckOptions: ClassVar[type[Decl] | None] = None
    uses_rulebook: ClassVar[bool] = False       # not made while rules.yaml's rulebook has errors
    rasterizes: ClassVar[bool] = False          # rasterizes card sides in worker processes (`raster.Pool`)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin, args = get_origin(base), get_args(base)
            if isinstance(origin, type) and issubclass(origin, Output) and args and isinstance(args[0], type):
                if not issubclass(args[0], Decl):
                    raise TypeError(f"{cls.__name__}: its options {args[0].__name__} are not a declaration (Decl)")
                if "Options" in cls.__dict__ and cls.__dict__["Options"] is not args[0]:
                    raise TypeError(f"{cls.__name__}: Options is {cls.__dict__['Options'].__name__} but the "
                                    f"class is Output[{args[0].__name__}]; name them once, as the type argument")
                cls.Options = args[0]
        _from_table(cls)

    @classmethod
    def resolve(cls: type[Output[P]], game_data: Mapping | None, cli: Mapping[str, Any] | None = None) -> P:
        """The typed options: `cli` (attribute -> value already converted, only flags that were
        given) over the game.yaml section over the defaults.  The section is assumed checked
        (`section_problems`); values that do not convert take the default."""
        opts = cls.Options.load_unchecked(_section(game_data, cls.section))
        return cast(P, replace(opts, **dict(cli)) if cli else opts)

    @classmethod
    def section_problems(cls, game: Game) -> list[Diagnostic]:
        """Every problem of this output's section in game.yaml and in each deck file."""
        if cls.section is None:
            return []
        out: list[Diagnostic] = []
        key = cls.section
        places: list[tuple[Any, type[Decl], str]] = [(game.data, cls.Options, key)]
        if cls.DeckOptions is not None:     # (deck files without them: the loader's unknown key)
            places += [(deck.data, cls.DeckOptions, f"{deck.name}: {key}") for deck in game.decks]
        for data, decl, where in places:
            if data is None or key not in data or data[key] is None:
                continue
            value = data[key]
            loc = data.value_loc(key) if hasattr(data, "value_loc") else Loc(str(game.file))
            if not isinstance(value, Mapping):
                out.append(Diagnostic(loc, f"{where}: must be a mapping of options, e.g. "
                                           f"`{key}: {{{_example(decl)}}}`, got {show(value)}", "error", "schema"))
                continue
            out.extend(decl.diagnostics(value, where, loc))
        return out

    def ahead(self, job: Job[Opts]) -> None:
        """Begin, in the background, work `make` will want (called on the same object with the
        same job before any output of the build is made; nothing by default).  Never a
        problem of its own: what it cannot do, `make` does, or says."""

    def card_form_sides(self, job: Job[Opts]) -> list:
        """If this output draws card sides into PDF forms whose fonts it names from the sides
        it shows (`Drawer.prepare`): those sides, so that the raster workers draw the sides
        they render as it will and offer it their forms (`render.raster.offer_forms`: drawn
        once a build).  None by default: []."""
        return []

    def make(self, job: Job[Opts]) -> None:
        raise NotImplementedError



def _from_table(cls: type[Output]) -> None:
    """Set an output class's name, section and default from its row in the registry table (a
    class no row names, such as a base of outputs, keeps the base's)."""
    found = row_of(cls.__module__, cls.__name__)
    if found is not None:
        name, row = found
        said = [attr for attr in ("name", "section", "default") if attr in cls.__dict__]
        if said:
            raise TypeError(f"{cls.__name__}: {', '.join(said)}: said by its row in the outputs' table "
                            f"(cardgen/outputs/table.py); remove it from the class")
        if row.deck != (cls.DeckOptions is not None):      # (the table says it without importing the class)
            raise TypeError(f"{cls.__name__}: " + ("the outputs' table says deck files may have its section: "
                                                  "declare its DeckOptions" if row.deck else
                                                  "it has DeckOptions: say `deck=True` in its row of the "
                                                  "outputs' table"))
        cls.name, cls.section, cls.default = name, row.section, row.default


def _example(decl: type[Decl]) -> str:
    for key, (_, o) in decl.options().items():
        if o.default is not None and isinstance(o.default, (bool, int, float, str)):
            shown = ("true" if o.default else "false") if isinstance(o.default, bool) else o.default
            return f"{key}: {shown}"
    return "..."


def where_chars(game: Game, chars: str, whole: bool = False) -> Loc:
    """Where the first of `chars` (`whole`: `chars` as one piece of text) is in the game's
    data: a string of rules.yaml, else of a card (its field), else game.yaml."""
    def find(value: Any, loc: Loc) -> Loc | None:
        if isinstance(value, str):
            return loc if (chars in value if whole else any(ch in value for ch in chars)) else None
        if isinstance(value, dict):
            for k, v in value.items():
                hit = find(v, value.value_loc(k) if hasattr(value, "value_loc") else loc)
                if hit is not None:
                    return hit
        elif isinstance(value, list):
            for i, v in enumerate(value):
                hit = find(v, value.item_loc(i) if hasattr(value, "item_loc") else loc)
                if hit is not None:
                    return hit
        return None

    if game.rules is not None:
        hit = find(game.rules.data, Loc(str(game.rules.file), 1))
        if hit is not None:
            return hit
    for deck in game.decks:
        for card in deck.cards:
            hit = find(card.data, card.loc)
            if hit is not None:
                return hit
    return Loc(str(game.file), 1)


def glyph_warning(game: Game, chars: str, font: str, fonts: FontBook, what: str) -> tuple[Loc, str, str]:
    """A warning (place, message, code) for characters an output's own text (`what`: "rulebook
    text") sets in `font` that no font has, at the first place in the game's data they are."""
    from cardgen.resources.fonts import no_glyph_message

    return where_chars(game, chars), f"{what}: {no_glyph_message(fonts, font, chars)}", "missing-glyph"
