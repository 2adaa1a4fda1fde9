"""The `cardgen` command."""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import click
from click.core import ParameterSource

from cardgen.cli.flags import Lazy, click_option, declared
from cardgen.core.envfail import at_output, describe, is_environment
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report, display_path, escape_controls, grouped, plural
from cardgen.core.imports import importing
from cardgen.core.progress import listening
from cardgen.load.project import find_project, game_project, output_dir, resolve_games
from cardgen.pipeline.jsonschema import SCHEMAS, dumps

if TYPE_CHECKING:     # (imported when `cardgen build` is used: `cardgen --help` and `validate` start quicker)
    from cardgen.pipeline.options import BuildOptions
    from cardgen.schema.core import Decl, Opt


def _print_diags(diags: list[Diagnostic]) -> None:
    for d in grouped(diags):
        click.echo(str(d), err=True)


# Warnings that remind of known gaps (a card's text to come, a count to be decided): a build
# folds them into one line; `cardgen validate` lists each.
REMINDER_CODES = {"todo", "tbd"}


class _Main(click.Group):
    """The command group: no command ever ends in a traceback.  A game's mistake is its
    located messages, a computer's problem (disk full, permissions) one line naming the path,
    anything else one line saying it is a cardgen bug (CARDGEN_DEBUG=1: the traceback).
    The commands of `LATER` are imported when they are used or listed (`--help`): start-up."""

    LATER: ClassVar[dict[str, str]] = {"serve": "cardgen.cli.serve", "upload": "cardgen.cli.upload"}  # name -> module

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.LATER})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:       # (a name of no command: all of them, for click's suggestion)
            from importlib import import_module

            for name in [cmd_name] if cmd_name in self.LATER else self.LATER:
                if name not in self.commands:
                    self.add_command(getattr(import_module(self.LATER[name]), name))
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context):
        try:
            os.getcwd()
        except FileNotFoundError:
            click.echo("cardgen: the current folder no longer exists (deleted or moved away); cd to a folder that "
                       "exists and run the command again", err=True)
            ctx.exit(1)
        import signal

        if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.default_int_handler) and \
                threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)    # (click has read the command line)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None   # (past click, which would say "Aborted!" and exit 1)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except CardgenError as exc:
            _print_diags(exc.diagnostics)
        except Exception as exc:
            _internal_error(ctx.invoked_subcommand or "cardgen", exc, "")
        ctx.exit(1)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardgen", prog_name="cardgen")
def main():
    """Print-and-play card generator: YAML cards to print-ready PDFs, rule booklets and
    Tabletop Simulator decks."""


class Interrupted(BaseException):
    """Ctrl-C during a command, carried past click to `run` (`cardgen.__main__` says it)."""


def run() -> None:
    """The `cardgen` command (`cardgen.__main__.run`: its console script and `python -m
    cardgen`, which says a Ctrl-C in one line): `main`, then the output flushed; a closed pipe
    (`cardgen ... | head`) ends it with status 1 and no message from Python as it exits."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    except Interrupted:
        raise KeyboardInterrupt from None
    else:
        code = 0
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            if stream is not None:          # (None: started with the stream closed, `cardgen ... >&-`)
                stream.flush()
        except (OSError, ValueError):       # (a closed pipe: nothing more can be said there)
            code = code or 1
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())       # (so Python's own flush at exit says nothing)
            except (OSError, ValueError):
                setattr(sys, name, None)
    import gc

    gc.freeze()     # (the process ends: Python's last collection as it exits walks nothing)
    sys.exit(code)


def _flags(wide_only: bool = False) -> list[tuple[str | None, str, Opt, click.Option]]:
    """Every flag of `cardgen build` (`wide_only`: the build-wide ones alone): (output name or
    None for the build-wide options, attribute, option, click option), from the declarations."""
    from cardgen.pipeline.options import BuildOptions

    out = []
    decls: list[tuple[str | None, type[Decl]]] = [(None, BuildOptions)]
    if not wide_only:
        from cardgen.outputs import OUTPUTS

        decls += [(o.name, o.Options) for o in OUTPUTS.values()]
    for group, decl in decls:
        for attr, o in decl.options().values():
            if o.cli:
                out.append((group, attr, o, click_option(o, o.cli.lstrip("-").replace("-", "_"))))
    return out


def _build_options(ctx: click.Context, values: dict) -> BuildOptions:
    """The flags given on the command line (only those) as BuildOptions."""
    from cardgen.pipeline.options import BuildOptions
    from cardgen.schema.core import Bool

    wide: dict = {}
    outputs: dict = {}
    for group, attr, o, param in _flags(getattr(ctx.command, "wide_only", False)):
        if ctx.get_parameter_source(param.name) != ParameterSource.COMMANDLINE:
            continue
        value = values[param.name]
        if isinstance(o.kind, Bool) and o.cli.startswith("--no-"):
            value = not value
        (wide if group is None else outputs.setdefault(group, {}))[attr] = value
    return BuildOptions(**wide, outputs=outputs)


def _build(games, **values):
    """Build print sheets, cards.pdf, booklets and TTS decks for GAMES (default: the game the
    current folder is in, else every game of the project)."""
    opts = _build_options(click.get_current_context(), values)
    project = find_project()
    try:
        paths = resolve_games(list(games), project)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    failed = _build_all(paths, opts)
    if not opts.watch:
        sys.exit(1 if failed else 0)
    from cardgen.pipeline import watch as w

    def roots() -> list[Path]:
        return w.game_roots(paths)

    def rebuild(changed_files: list[Path]) -> None:
        names = ", ".join(display_path(p) for p in changed_files[:3]) + (" ..." if len(changed_files) > 3 else "")
        click.echo(f"-- changed: {names}")
        touched = [g for g in paths if any(g.resolve() in p.resolve().parents for p in changed_files)]
        _build_all(touched or paths, opts)     # a template, font or icon: rebuild every game

    outputs = [output_dir(p, game_project(p), opts.out) for p in paths]
    click.echo("watching for changes (Ctrl-C to stop)")
    try:
        w.watch(roots, rebuild, ignore=outputs)
    except KeyboardInterrupt:
        click.echo("stopped watching")


class _Build(Lazy):
    """`cardgen build`, whose flags and epilog come from the declarations of every output: made
    when the command is used, so `cardgen --help` and `cardgen validate` (which list or check
    but never build) do not import the outputs' modules."""

    def __init__(self) -> None:
        super().__init__("build", _build)
        self.wide_only = False

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The outputs' flags are made (every output module imported: 0.1 to 0.2 s) only when
        the command line may name one: a build whose flags are all build-wide ones (`cardgen
        build --only print`) is parsed with those alone, which reads it the same way.  Anything
        else (an output's flag, an unknown one, `--help`, shell completion) is parsed with them all."""
        wide_only = not ctx.resilient_parsing and _all_wide(args)
        if wide_only != self.wide_only:
            self.wide_only, self._params = wide_only, None
        return super().parse_args(ctx, args)

    def make_params(self) -> list[click.Parameter]:
        return [click.Argument(["games"], nargs=-1, metavar="[GAME_OR_PATH]..."),
                *(f[3] for f in _flags(self.wide_only))]

    @property
    def epilog(self) -> str:
        from cardgen.outputs import OUTPUTS

        return "Outputs (--only): " + "; ".join(f"{n}: {o.summary.rstrip('.')}"
                                                + ("" if o.default else " (only when asked for)")
                                                for n, o in OUTPUTS.items()) + "."

    @epilog.setter
    def epilog(self, value: str | None) -> None:
        pass


def _all_wide(args: list[str]) -> bool:
    """Whether every flag in `args` (before a `--`) is a build-wide one (`--out DIR`, `--page=a4`):
    a value that starts with `-` counts as a flag, so that anything unsure is parsed with every flag."""
    with importing():       # (the first of the declarations' modules a build imports)
        from cardgen.pipeline.options import BuildOptions

    wide = {o.cli for _, o in BuildOptions.options().values() if o.cli}
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("-") and arg.split("=", 1)[0] not in wide:
            return False
    return True


build = _Build()
main.add_command(build)


PREFIX = "--image-"         # (`cardgen render`'s flags are the `images` options' without it)


def _render(game, cards, out, quiet, **values):
    """Write card images of GAME (a game folder or a game's name) into <out>/<game>/images/:
    each CARD named (a deck's name: all its cards; none: every card and piece) as PNG and SVG,
    transparent outside its rounded corners, and fanned hands (--fan)."""
    from cardgen.pipeline.options import BuildOptions

    ctx = click.get_current_context()
    given = {attr: values[param.name] for attr, param in _render_flags()
             if ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE}
    if cards:
        given["cards"] = tuple(cards)
    try:
        paths = resolve_games([game], find_project())
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    opts = BuildOptions(only=("images",), out=out, quiet=quiet, outputs={"images": given})
    sys.exit(1 if _build_all(paths, opts) else 0)


def _render_flags() -> list[tuple[str, click.Option]]:
    """(attribute, flag) for each option of the `images` output but `cards` (the arguments)."""
    from cardgen.outputs.images import ImagesOptions

    out = []
    for attr, o in ImagesOptions.options().values():
        if o.cli and attr != "cards":
            flag = "--" + o.cli[len(PREFIX):] if o.cli.startswith(PREFIX) else o.cli
            dest = "opt_" + flag.lstrip("-").replace("-", "_")
            param = click_option(o, dest)
            param.opts = [flag]
            out.append((attr, param))
    return out


class _Render(Lazy):
    """`cardgen render GAME [CARD]...`: card images for rules, shops and web pages, the `images`
    output (`cardgen.outputs.images`) made alone: `cardgen build GAME --only images --card CARD
    ...` in fewer words.  Its flags are the output's declared options, named without their
    `--image-` prefix (`--width`, `--dpi`, `--format`, `--backs`)."""

    def __init__(self) -> None:
        super().__init__("render", _render)

    def make_params(self) -> list[click.Parameter]:
        return [click.Argument(["game"], metavar="GAME_OR_PATH"),
                click.Argument(["cards"], nargs=-1, metavar="[CARD]..."),
                *(p for _, p in _render_flags()),
                click.Option(["--out"], type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                             help="Output folder; the game's goes in <out>/<game>/ (default: the project's build/)."),
                click.Option(["--quiet"], is_flag=True, help="Show no progress bars.")]


render = _Render()
main.add_command(render)


def _internal_error(name: str, exc: Exception, after: str) -> None:
    """A bug in cardgen, not in the game: say so in one line (CARDGEN_DEBUG=1: the traceback).
    A problem of the computer (disk full, permission denied, ...): one line naming the path."""
    if os.environ.get("CARDGEN_DEBUG"):
        raise exc
    if is_environment(exc):
        click.echo(escape_controls(describe(exc)), err=True)  # type: ignore[arg-type]
        if after:
            click.echo(f"{name}: not built{after}", err=True)
        return
    click.echo(f"{name}: internal error ({type(exc).__name__}: {exc}){after}. This is a cardgen bug: please "
               f"report it with CARDGEN_DEBUG=1 output", err=True)


def _count_errors(report: Report) -> list[Diagnostic]:
    from cardgen.pipeline.validate import count_errors  # (not for a rebuild with nothing changed: it checks nothing)

    return count_errors(report)


def _build_all(paths: list[Path], opts: BuildOptions) -> bool:
    """Build each game, printing its problems and a summary; True if any failed."""
    with importing():
        from cardgen.cli.terminal import bar_factory, game_summary
        from cardgen.pipeline.build import build_game  # (here, not at start-up: `cardgen --help` is quick)

    failed = False
    for path in paths:
        report = Report()
        start = time.perf_counter()
        try:
            with listening(bar_factory(opts.quiet)):
                written = build_game(path, game_project(path), opts, report)
        except CardgenError as exc:
            _print_diags(exc.diagnostics)
            click.echo(f"{path.name}: not built; the previous output is unchanged", err=True)
            failed = True
            continue
        except Exception as exc:  # a bug in cardgen, not in the game
            if isinstance(exc, OSError):
                exc = at_output(exc, output_dir(path, game_project(path), opts.out))
            after = "; the next build completes moving it into place" if getattr(exc, "committed", False) \
                else "; the previous output is unchanged"
            _internal_error(path.name, exc, after)
            failed = True
            continue
        reminders = [d for d in report.items if d.severity == "warning" and d.code in REMINDER_CODES]
        _print_diags([d for d in report.items if d not in reminders])
        if reminders:
            click.echo(f"{path.name}: {plural(len(reminders), 'gap')} still open in the data (cards with text to "
                       f"come, counts to be decided); `cardgen validate {path.name}` lists them", err=True)
        took = time.perf_counter() - start
        for name, built in ({f"{path.resolve().name} ({lang})": b for lang, b in written.languages.items()}
                            or {path.resolve().name: written}).items():
            for line in game_summary(name, built.cards, built, built.out_dir, took, built.duplex, built.kept,
                                     built.unchanged, built.earlier, built.removed):
                click.echo(line)
        soft = _count_errors(report) if report.errors else []
        if soft:
            n = len(soft)
            click.echo(f"{path.name}: built despite {n} count error{'s' if n != 1 else ''} (designers print "
                       f"unfinished playtests); --strict refuses", err=True)
    return failed


@main.command()
@click.argument("games", nargs=-1, metavar="[GAME_OR_PATH]...")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on warnings too.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: `path:line:col: severity: message` lines and a summary; json: for CI and editors.")
@click.option("--deep", is_flag=True, help="Also the checks measured on the rendered cards (text contrast), as "
                                           "`cardgen build` runs them: slower, the cards are rasterized.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Check the game with this game.yaml value set, as `cardgen build --set` builds it; repeatable.")
def validate(games, strict, fmt, deep, sets):
    """Check GAMES (default: the game the current folder is in, else every game of the project)
    without building: schema of every file, references, every card laid out, and card counts
    against rules.yaml.  A path to any file inside a game folder checks that game."""
    with importing():
        from cardgen.pipeline import validate as v

    project = find_project()
    try:
        paths = v.game_dirs(list(games), project)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    results, failed = [], False
    for path in paths:
        try:
            results.append(v.validate_game(path, game_project(path), deep, sets))
        except CardgenError as exc:
            if fmt == "json":       # (said in the JSON, which a CI job reads, not only on the terminal)
                results.append(v.GameResult(path.name, list(exc.diagnostics)))
            else:
                _print_diags(exc.diagnostics)
            failed = True
        except Exception as exc:  # a bug in cardgen, not in the game
            _internal_error(path.name, exc, "")
            if fmt == "json":
                results.append(v.GameResult(path.name, [Diagnostic(
                    Loc(str(path)), describe(exc) if is_environment(exc)  # type: ignore[arg-type]
                    else f"internal error ({type(exc).__name__}: {exc}); this is a cardgen bug",
                    "error", "environment" if is_environment(exc) else "internal")]))
            failed = True
    said = v.as_json(results, strict) if fmt == "json" else v.as_text(results)
    if said:                # (no game's result, every game having failed: no empty line)
        click.echo(said)
    sys.exit(1 if failed else v.exit_code(results, strict))


@main.command()
@click.argument("games", nargs=-1, metavar="[GAME_OR_PATH]...")
@click.option("--since", metavar="BUILD_OR_REF", default=None,
              help="A build folder (its manifest.json) or a git revision (tag, branch, commit) to compare with "
                   "(default: the game's last build).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="The output folder the game is built into, as given to `cardgen build --out` (default: "
                   "build/ in the project).")
def changes(games, since, out):
    """List the cards added, changed, renamed and removed in GAMES (default: the game the current
    folder is in, else every game of the project) since their last build, or since a build
    folder or git revision, with their copies: what to print and what to take out of the box
    (docs/changes.md).  `cardgen build --changed-since` prints them."""
    from cardgen.pipeline.changes import game_changes

    project = find_project()
    failed = False
    try:
        paths = resolve_games(list(games), project)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    for path in paths:
        report = Report()
        try:
            found = game_changes(path, game_project(path), since, out, report)
        except CardgenError as exc:
            _print_diags([d for d in exc.diagnostics if d.severity == "error"])
            failed = True
            continue
        for line in found.lines(path.resolve().name):
            click.echo(escape_controls(line))
    sys.exit(1 if failed else 0)


@main.command()
@click.argument("name")
@click.option("--size", default="poker", show_default=True,
              help="Card size: poker, bridge, tarot, euro, mini-euro, mini-american, square or jumbo.")
@click.option("--from", "source", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Start from a spreadsheet (.csv, .xlsx, .ods): one deck per sheet, a template showing every "
                   "column (docs/spreadsheets.md).")
def new(name, size, source=None):
    """Start a new game NAME: a folder ./NAME/ (inside a project: cards/NAME/) holding its
    game.yaml, one deck, rules.yaml and its own templates/, ready to build, validate and edit."""
    from cardgen.cli.new import new_game

    try:
        if source is not None:
            from cardgen.cli.new_from_sheet import new_game_from_sheet

            said: list[str] = []
            root = new_game_from_sheet(Path.cwd(), name, source, size, said)
            for line in said:
                click.echo(line)
        else:
            root = new_game(Path.cwd(), name, size)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    where = display_path(root)
    target = name if find_project() is not None else where     # in a project: by name, from anywhere in it
    made = f"from {source.name}" if source is not None else \
        "(game.yaml, cards.yaml, rules.yaml, templates/card.yaml and back.yaml)"
    click.echo(f"created {where}/ {made}; next: cardgen build {target}")


@main.group()
def i18n():
    """Translations of a game with `languages:` (docs/languages.md)."""


def _lang(help: str, **attrs) -> Callable[[], list[click.Parameter]]:
    """An i18n command's `--lang`: the one `cardgen build` declares (BuildOptions.lang, its value
    checked as a language code), in the command's own words."""
    def later() -> list[click.Parameter]:
        from cardgen.pipeline.options import BuildOptions

        return [declared(BuildOptions, "lang", help, **attrs)]

    return later


@i18n.command("mark", cls=Lazy,
              later=_lang("The language whose translations to mark (default: every translated language)."))
@click.argument("games", nargs=-1, metavar="[GAME_OR_PATH]...")
def i18n_mark(games, lang):
    """Accept the translations of GAMES as they are: record each as made from the current source
    text (in cardgen-history.json), so `validate` no longer calls it stale."""
    from cardgen.pipeline.check import mark_translations

    project = find_project()
    try:
        for path in resolve_games(list(games), project):
            report = Report()
            n = mark_translations(path, game_project(path), lang, report)
            _print_diags([d for d in report.items if d.severity == "error"])
            click.echo(f"{path.resolve().name}: {plural(n, 'translation')} marked as made from the current source")
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)


@i18n.command("export", cls=Lazy, later=_lang("The language to translate into.", required=True))
@click.argument("game", metavar="GAME_OR_PATH")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Where to write the PO file (default: GAME-LANG.po in the current folder).")
def i18n_export(game, lang, output):
    """Write the texts of GAME (cards, decks, game.yaml, rules.yaml, templates) and their LANG
    translations as a gettext PO file, for translators' tools (Poedit, Weblate, Crowdin, ...);
    `cardgen i18n import` reads it back."""
    from cardgen.core import atomic
    from cardgen.pipeline.check import load_game
    from cardgen.pipeline.translation_files import export

    try:
        path = resolve_games([game], find_project())[0]
        report = Report()
        text = export(load_game(path, game_project(path), report), lang, report)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    target = output or Path(f"{path.resolve().name}-{lang}.po")
    atomic.write_text(target, text)
    click.echo(f"{display_path(target)}: {plural(text.count(chr(10) + 'msgctxt '), 'text')} to translate")


@i18n.command("import", cls=Lazy, later=_lang("The language of the file (default: its header's)."))
@click.argument("game", metavar="GAME_OR_PATH")
@click.argument("po_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), metavar="FILE")
def i18n_import(game, po_file, lang):
    """Read the translations of a PO FILE (as `cardgen i18n export` wrote it) into GAME's files
    (deck files, game.yaml, rules.yaml, templates), as FIELD@LANG beside each source; only what
    changed is written."""
    from cardgen.pipeline.check import load_game
    from cardgen.pipeline.translation_files import import_file

    try:
        path = resolve_games([game], find_project())[0]
        report = Report()
        changed = import_file(load_game(path, game_project(path), report), po_file, lang, report)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    _print_diags([d for d in report.items if d.code.startswith("po")])
    click.echo(f"{path.resolve().name}: " + (", ".join(display_path(p) for p in changed) + " updated" if changed
                                              else "nothing to update"))


@i18n.command("words", cls=Lazy, later=_lang("The language (default: en).", default="en"))
def i18n_words(lang):
    """Print cardgen's own words (the booklet's headings, the print sheets' and tuck boxes' notes,
    the gallery's labels) in LANG, as a `words@LANG:` block to copy into game.yaml and edit: for
    a language cardgen has no words for, or to change some (docs/languages.md)."""
    import json

    from cardgen.core.words import Words

    click.echo(f"words@{lang}:" if lang.lower() != "en" else "words:")
    for text, said in Words(lang).table().items():
        click.echo(f"  {json.dumps(text, ensure_ascii=False)}: {json.dumps(said, ensure_ascii=False)}")


@main.command()
@click.argument("kind", type=click.Choice(list(SCHEMAS)))
def schema(kind):
    """Print the JSON Schema (draft 2020-12) of one kind of file: game (game.yaml), deck (a deck
    file), template (a layout template), rules (rules.yaml) or layout (a sheet layout,
    layouts/NAME.yaml). Editors use it for completion and inline errors: see docs/editor.md."""
    click.echo(dumps(kind), nl=False)


@main.command("list")
@click.argument("games", nargs=-1, metavar="[GAME_OR_PATH]...")
def list_cmd(games):
    """List games, their decks and card counts (default: the game the current folder is in,
    else every game of the project)."""
    from cardgen.pipeline.check import load_game

    project = find_project()
    try:
        paths = resolve_games(list(games), project)
        for path in paths:
            game = load_game(path, game_project(path), Report())
            total = sum(d.count for d in game.decks)
            click.echo(escape_controls(f"{game.slug}: {game.title} ({plural(total, 'card')})"))
            for d in game.decks:
                click.echo(escape_controls(f"  {d.name}: {plural(d.count, 'card')}, {len(d.cards)} distinct, "
                                           f"{d.size.label}, template {d.template}"))
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)


if __name__ == "__main__":
    main()


@main.group("import")
def import_():
    """Bring a layout made with another tool into a game (docs/templates.md, "Coming from Squib")."""


@import_.command("squib")
@click.argument("layout", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("data", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="The game folder to write into: templates/LAYOUT.yaml there (and with DATA, a deck file).")
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
@click.option("--deck", "deck_size", default=None,
              help="The deck's width x height as the script's Squib::Deck.new gives them (pixels, or with in, mm, "
                   "cm, pt): what `middle` and `deck` in the layout are half of and all of.  [default: the "
                   "--script's Deck.new width and height, else Squib's 825x1125]")
@click.option("--script", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The Squib script (.rb) that draws with LAYOUT: read (never run) for which call draws each entry "
                   "(text, rect, svg, png), in what order, and the column a `text str: data['Col']` prints.")
def import_squib_cmd(layout, data, out, force, deck_size, script):
    """A cardgen template from the Squib layout file LAYOUT (.yml), each entry an element with its box
    (`origin: bleed`); with DATA (.xlsx, .csv, ...), a deck reading it. Says what it could not carry over."""
    from cardgen.cli.import_squib import deck_size as read_deck_size
    from cardgen.cli.import_squib import import_squib

    said: list[str] = []
    try:
        written = import_squib(layout, data, out, force, said,
                               read_deck_size(deck_size) if deck_size else None, script)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    for line in said:
        click.echo(escape_controls(line))
    for path in written:
        click.echo(f"wrote {display_path(path)}")
