"""`cardgen serve [GAME]`: the live preview (`cardgen.serve`) from the command line."""
from __future__ import annotations

import errno
import os
import sys
import threading
from pathlib import Path

import click

from cardgen.cli.flags import Lazy, declared
from cardgen.core.errors import display_path, escape_controls, plural
from cardgen.load.project import find_project, game_project, resolve_games


def _declared() -> list[click.Parameter]:
    """`--set` and `--lang` as `cardgen build` declares them (BuildOptions: the same names,
    values and checks), in the preview's words."""
    from cardgen.pipeline.options import BuildOptions

    return [declared(BuildOptions, "sets", "Preview the game with this game.yaml value set, as `cardgen build "
                                           "--set` builds it; repeatable."),
            declared(BuildOptions, "lang", "Preview the game in this language, one of game.yaml's `languages:` "
                                           "(its texts and cardgen's own words), or `qps`, the pseudo-locale "
                                           "(docs/languages.md); default: the source language.")]


@click.command(cls=Lazy, later=_declared)
@click.argument("game", required=False, metavar="[GAME]")
@click.option("--port", type=int, default=0, metavar="N", callback=lambda ctx, param, value: _port(value),
              help="Port to listen on (default: a free one). Only this computer can connect: the server listens "
                   "on 127.0.0.1.")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the web browser.")
def serve(game, port, open_browser, sets, lang):
    """Preview GAME in the web browser while you edit it (default: the game the current folder
    is in, or the project's only game).  The page shows every card, faces and backs, by deck,
    with copies and the validator's problems beside each card (file:line); it updates by itself
    within a second of every saved change of the game's files, templates, fonts or art.  Click a
    card for its data and source lines, filter by deck, name or problem, zoom to full size.

    The first line printed is the page's address (http://127.0.0.1:PORT/).  Nothing leaves this
    computer: the page loads nothing from the internet.  Ctrl-C stops."""
    from cardgen.serve.server import Running

    paths = resolve_games([game] if game else [], find_project())     # CardgenError: its lines, exit 1
    if len(paths) > 1:
        click.echo(f"cardgen serve shows one game at a time; name it: cardgen serve NAME (games: "
                   f"{', '.join(p.name for p in paths)})", err=True)
        sys.exit(2)
    path = paths[0]
    try:
        running = Running(path, game_project(path), port, sets=sets, lang=lang)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            click.echo(f"port {port} is in use; choose another with --port N, or leave --port out for a free one",
                       err=True)
        else:
            click.echo(escape_controls(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"), err=True)
        sys.exit(1)
    click.echo(running.url)
    click.echo(escape_controls(f"previewing {display_path(path)}{f' in {lang}' if lang else ''} (Ctrl-C to stop)"))
    running.preview.on_refresh = _report
    if open_browser:
        import webbrowser

        webbrowser.open(running.url)
    try:
        running.wait()
    except KeyboardInterrupt:
        pass
    finally:
        ended = running.close()
    click.echo("stopped")
    if not ended or threading.active_count() > 1:
        # A thread still in a library's C++ code (a check drawing cards in PDFium, a request
        # being answered): Python's shutdown would end it there, and the process would abort
        # ("FATAL: exception not rethrown"). Nothing is left to save (the preview writes only
        # its bitmap cache, each file whole), so the process ends here.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _port(value: int) -> int:
    if not 0 <= value <= 65535:
        raise click.BadParameter(f"must be a port number from 1 to 65535 (or 0: a free one), got {value}")
    return value


def _report(snap, changed: list[Path]) -> None:
    """One line per check on the terminal; the errors that stop the cards, each on its line."""
    if changed:
        names = ", ".join(display_path(p) for p in changed[:3]) + (" ..." if len(changed) > 3 else "")
        click.echo(escape_controls(f"-- changed: {names}"))
    errors, warnings = snap.counts
    what = f"{plural(len(snap.cards), 'card')}, {plural(errors, 'error')}, {plural(warnings, 'warning')}"
    if snap.stale:
        what += "; showing the last cards that laid out"
    click.echo(f"checked in {snap.checked_in:.2f}s: {what}")
    for p in snap.errors:
        click.echo(escape_controls(p.text()), err=True)
