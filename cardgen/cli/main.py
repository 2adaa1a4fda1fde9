"""The `cardgen` command."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from cardgen import __version__
from cardgen.pipeline.build import PAPERS, SOFT_ERRORS, BuildOptions, build_game
from cardgen.core.errors import CardgenError, Diagnostic, Report, display_path, plural
from cardgen.load.game import find_project, load_game, resolve_games


def _print_diags(diags: list[Diagnostic]) -> None:
    for d in sorted(diags, key=Diagnostic.sort_key):
        click.echo(str(d), err=True)


# Warnings that remind of known gaps (a card's text to come, a count to be decided): a build
# folds them into one line; `cardgen validate` lists each.
REMINDER_CODES = {"todo", "tbd"}


def _summary(written: list[Path]) -> str:
    """`build/g/ print-letter.pdf, cards.pdf, tts/ (12 files)`: files at the top, folders counted."""
    if not written:
        return "nothing written"
    root = Path(os.path.commonpath([str(p.parent) for p in written]))
    top, folders = [], {}
    for p in written:
        rel = p.relative_to(root)
        if len(rel.parts) == 1:
            top.append(rel.name)
        else:
            folders[rel.parts[0]] = folders.get(rel.parts[0], 0) + 1
    parts = top + [f"{name}/ ({plural(n, 'file')})" for name, n in folders.items()]
    return f"{display_path(root)}/ " + ", ".join(parts)


def _offset(ctx, param, value):
    if value is None:
        return (0.0, 0.0)
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter("give X,Y in millimetres, e.g. 0.5,-1") from None
    return (x, y)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cardgen")
def main():
    """Print-and-play card generator: YAML cards to print-ready PDFs, rule booklets and
    Tabletop Simulator decks."""


@main.command()
@click.argument("games", nargs=-1, metavar="[GAME_OR_PATH]...")
@click.option("--page", "pages", multiple=True, type=click.Choice(PAPERS),
              help="Paper size of the print sheets; repeat for both (default: letter and a4).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: build/ in the project); each game goes in <out>/<game>/.")
@click.option("--gutter", is_flag=True, help="Space the cards apart so each keeps its full bleed, "
                                             "with crop marks at every card's corners.")
@click.option("--flip", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="How your printer turns the sheet for duplex printing; backs are mirrored to match.")
@click.option("--back-offset", callback=_offset, metavar="X,Y",
              help="Shift back pages by X,Y mm (x right, y down) to correct a printer's duplex drift.")
@click.option("--no-backs", is_flag=True, help="Leave out the back pages of the print sheets.")
@click.option("--only", multiple=True, type=click.Choice(["print", "cards", "booklet", "tts", "png"]),
              help="Make only this output; repeatable (default: all but png).")
@click.option("--strict", is_flag=True, help="Refuse to build while the validator reports any problem.")
@click.option("--booklet-page", type=click.Choice(["a5", "half-letter"]), default=None,
              help="Page size of the rules booklet (default: game.yaml's booklet.page, else a5).")
@click.option("--tts-base-url", metavar="URL",
              help="Tabletop Simulator: write image addresses as URL/<file> (where you upload build/<game>/tts/; "
                   "needed for multiplayer) instead of local file paths.")
@click.option("--tts-format", type=click.Choice(["jpeg", "png"]), default=None,
              help="Tabletop Simulator deck images as JPEG (default, quality 92) or PNG.")
@click.option("--target", multiple=True, type=click.Choice(["mpc", "tgc"]),
              help="Print service for `--only png`: mpc (MakePlayingCards, 822x1122 px poker) or tgc "
                   "(The Game Crafter, 825x1125 px poker); repeatable (default: both).")
@click.option("--watch", is_flag=True, help="Keep running: rebuild whenever a game file, template, font or "
                                            "art file changes (Ctrl-C to stop).")
def build(games, pages, out, gutter, flip, back_offset, no_backs, only, strict, watch, **extra):
    """Build print sheets, cards.pdf, booklets and TTS decks for GAMES (default: every game in cards/)."""
    project = find_project()
    opts = BuildOptions(papers=tuple(pages) or PAPERS, out=out, gutter=gutter, flip=flip,
                        back_offset=back_offset, backs=not no_backs, only=tuple(only), strict=strict,
                        extra=extra)
    try:
        paths = resolve_games(list(games), project)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    failed = _build_all(paths, project, opts)
    if not watch:
        sys.exit(1 if failed else 0)
    from cardgen.cli import watch as w
    from cardgen.load.game import BUNDLED

    def roots():
        dirs = [*paths, project / "templates", project / "fonts", project / "art"]
        return dirs + [BUNDLED / d for d in ("templates", "fonts", "art") if BUNDLED != project]

    def rebuild(changed_files):
        names = ", ".join(display_path(p) for p in changed_files[:3]) + (" ..." if len(changed_files) > 3 else "")
        click.echo(f"-- changed: {names}")
        touched = [g for g in paths if any(g.resolve() in p.resolve().parents for p in changed_files)]
        _build_all(touched or paths, project, opts)     # a template, font or icon: rebuild every game

    click.echo("watching for changes (Ctrl-C to stop)")
    try:
        w.watch(roots, rebuild)
    except KeyboardInterrupt:
        click.echo("stopped watching")


def _build_all(paths, project, opts) -> bool:
    """Build each game, printing its problems and a summary; True if any failed."""
    failed = False
    for path in paths:
        report = Report()
        start = time.perf_counter()
        try:
            written = build_game(path, project, opts, report)
        except CardgenError as exc:
            _print_diags(exc.diagnostics)
            click.echo(f"{path.name}: not built; the previous output is unchanged", err=True)
            failed = True
            continue
        except Exception as exc:  # a bug in cardgen, not in the game: say so in one line
            if os.environ.get("CARDGEN_DEBUG"):
                raise
            click.echo(f"{path.name}: internal error ({type(exc).__name__}: {exc}); the previous output is "
                       f"unchanged. This is a cardgen bug: please report it with CARDGEN_DEBUG=1 output", err=True)
            failed = True
            continue
        reminders = [d for d in report.items if d.severity == "warning" and d.code in REMINDER_CODES]
        _print_diags([d for d in report.items if d not in reminders])
        if reminders:
            click.echo(f"{path.name}: {plural(len(reminders), 'gap')} still open in the data (cards with text to "
                       f"come, counts to be decided); `cardgen validate {path.name}` lists them", err=True)
        took = time.perf_counter() - start
        click.echo(f"{path.name}: built in {took:.2f}s: {_summary(written)}")
        soft = [d for d in report.errors if d.code in SOFT_ERRORS]
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
def validate(games, strict, fmt):
    """Check GAMES (default: every game in cards/) without building: schema of every file,
    references, every card laid out, and card counts against rules.yaml.  A path to any file
    inside a game folder checks that game."""
    from cardgen.check import validate as v

    project = find_project()
    try:
        results = v.validate(list(games), project)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    click.echo(v.as_json(results, strict) if fmt == "json" else v.as_text(results))
    sys.exit(v.exit_code(results, strict))


@main.command()
@click.argument("name")
@click.option("--size", default="poker", show_default=True,
              help="Card size: poker, bridge, tarot, euro, mini-euro, mini-american, square or jumbo.")
def new(name, size):
    """Start a new game NAME: cards/NAME/ (game, one deck, rules) and templates/NAME/, ready to
    build, validate and edit."""
    from cardgen.cli.new import new_game

    project = find_project()
    try:
        written = new_game(project, name, size)
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)
    for path in written:
        click.echo(f"created {display_path(path)}")
    click.echo(f"next: cardgen build {name}   (then edit cards/{name}/cards.yaml and rebuild)")


@main.command("list")
@click.argument("games", nargs=-1, metavar="[GAME_OR_PATH]...")
def list_cmd(games):
    """List games, their decks and card counts."""
    project = find_project()
    try:
        paths = resolve_games(list(games), project)
        for path in paths:
            game = load_game(path, project, Report())
            total = sum(d.count for d in game.decks)
            click.echo(f"{game.slug}: {game.title} ({plural(total, 'card')})")
            for d in game.decks:
                click.echo(f"  {d.name}: {plural(d.count, 'card')}, {len(d.cards)} distinct, {d.size.label}"
                           f", template {d.template}")
    except CardgenError as exc:
        _print_diags(exc.diagnostics)
        sys.exit(1)


if __name__ == "__main__":
    main()
