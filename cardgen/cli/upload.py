"""`cardgen upload tgc [GAME]`: the game's print-service images to The Game Crafter
(`cardgen.pipeline.tgc_sync`), or with `--dry-run` the plan of what would be uploaded."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from cardgen.core.errors import CardgenError, Report, display_path, escape_controls, grouped
from cardgen.load.project import find_project, game_project, output_dir, resolve_games

CREDENTIALS = ("TGC_USERNAME", "TGC_PASSWORD", "TGC_API_KEY_ID")


@click.group()
def upload():
    """Upload a game to a print service: `cardgen upload tgc GAME` (The Game Crafter)."""


def _products(ctx, param, values) -> dict[str, str]:
    out = {}
    for v in values:
        deck, sep, identity = v.partition("=")
        if not sep or not deck.strip() or not identity.strip():
            raise click.BadParameter(f"{v!r}: give DECK=IDENTITY, e.g. actions=EuroPokerDeck")
        out[deck.strip()] = identity.strip()
    return out


@upload.command("tgc")
@click.argument("game", required=False, metavar="[GAME]")
@click.option("--dry-run", is_flag=True, help="Print the plan (each deck, its product, cards and copies, the image "
                                              "files) and connect to nothing.")
@click.option("--proofed", is_flag=True, help="Mark every uploaded image as proofed (you have checked the images in "
                                              "build/<game>/png/tgc/); without it, proof them on the site.")
@click.option("--designer", metavar="NAME", default=None,
              help="The designer (of your account) the game belongs to (default: the account's first).")
@click.option("--product", "products", multiple=True, metavar="DECK=IDENTITY", callback=_products,
              help="Upload deck DECK (its file's name or the deck's name) as this product, e.g. "
                   "actions=EuroPokerDeck (default: the product of the deck's size); repeatable.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="The output folder, as given to `cardgen build --out` (default: build/ in the project).")
@click.option("--lang", metavar="CODE", default=None,
              help="For a game with `languages:`, the language to upload (each is a game of its own at The Game "
                   "Crafter); needed when it declares more than one.")
def tgc(game, dry_run, proofed, designer, products, out, lang):
    """Upload GAME to The Game Crafter (default: the game the current folder is in): build its
    print-service images (`--only png --target tgc`), sign in with TGC_USERNAME, TGC_PASSWORD
    and TGC_API_KEY_ID from the environment, upload the images into a folder named after the
    game, make the game, a deck per card size (PokerDeck, BridgeDeck, ...), tokens, tiles and
    boards as their products, every card with its copies; print a price quote.  Running it
    again updates the game: nothing is made twice (docs/print-services.md)."""
    from cardgen.pipeline import tgc_api

    paths = resolve_games([game] if game else [], find_project())     # CardgenError: its lines, exit 1
    if len(paths) > 1:
        click.echo(f"cardgen upload tgc uploads one game at a time; name it: cardgen upload tgc NAME (games: "
                   f"{', '.join(p.name for p in paths)})", err=True)
        sys.exit(2)
    path = paths[0]
    target = _Target(path, out, _language(path, lang), products)
    missing = [n for n in CREDENTIALS if not os.environ.get(n)]
    try:
        if not dry_run:
            tgc_api.base_url()
    except tgc_api.TgcError as exc:
        _fail(str(exc))
    if missing and not dry_run:
        _fail(f"set {', '.join(missing)} in the environment (your The Game Crafter user name, password and API "
              f"key id from thegamecrafter.com/account/apikeys); see docs/print-services.md, The Game Crafter")
    if dry_run:
        _dry_run(target)
        return
    client = tgc_api.Client()
    try:            # (first: a wrong password is said before a long build)
        session = client.sign_in(*(os.environ[n] for n in CREDENTIALS))
    except tgc_api.TgcError as exc:
        _fail(str(exc))
    try:
        quote = _upload(client, str(session.get("user_id") or ""), target, proofed, designer)
    except tgc_api.TgcError as exc:
        _fail(f"{exc}; what was done so far is remembered: run the same command again to continue")
    finally:
        client.sign_out()
    for line in quote:
        click.echo(escape_controls(line))
    click.echo(f"game uploaded ({client.calls} requests); still to do on the site: "
               + ("" if proofed else "proof every image (or run again with --proofed), ")
               + "check each deck's 3D preview, add a box, rules and parts, then order a copy")


@dataclass(frozen=True)
class _Target:
    """What to upload: the game folder, the output folder given, the language, `--product`."""

    path: Path
    out: Path | None
    lang: str | None
    products: dict[str, str]


def _language(path: Path, lang: str | None) -> str | None:
    """The language to upload: `--lang`, else a game's only one; a game declaring several
    without `--lang` is refused (each language is a game of its own at The Game Crafter)."""
    from cardgen.pipeline.build import build_languages
    from cardgen.pipeline.options import BuildOptions

    try:
        found = build_languages(path, BuildOptions(lang=lang))
    except CardgenError as exc:
        for d in grouped(exc.diagnostics):
            click.echo(str(d), err=True)
        sys.exit(1)
    if found is None or lang is not None:
        return lang
    if len(found) > 1:
        _fail(f"{path.name} is in {len(found)} languages ({', '.join(found)}): choose the one to upload with "
              f"--lang (each is a game of its own at The Game Crafter)")
    return found[0] if found else None


def _dry_run(target: _Target) -> None:
    from cardgen.pipeline import tgc_plan, tgc_sync

    out_dir, plan = _build(target)
    digests = {img: tgc_plan.digest(tgc_plan.prepared(plan, img, item))
               for item in plan.uploadable for img in item.images()}
    for line in plan.lines(tgc_sync.known_files(_state_path(out_dir)), digests):
        click.echo(escape_controls(line))
    click.echo(f"dry run: {tgc_sync.summary(plan)}; nothing was sent")


def _state_path(out_dir: Path) -> Path:
    return out_dir / ".cache" / "tgc" / "state.json"


def _upload(client, user_id: str, target: _Target, proofed: bool, designer: str | None) -> list[str]:
    from cardgen.pipeline import tgc_plan, tgc_sync

    out_dir, plan = _build(target)
    for item in plan.items:
        if item.match is None:
            click.echo(escape_controls(f"tgc: {tgc_plan.KIND_WORDS.get(item.kind, item.kind)} '{item.name}' not "
                                       f"uploaded: {item.reason}"), err=True)
    if not plan.uploadable:
        _fail("nothing to upload")
    sync = tgc_sync.Sync(plan, client, tgc_sync.State.load(_state_path(out_dir), user_id), proofed, designer,
                         say=lambda s: click.echo(escape_controls(s)))
    return sync.run()


def _fail(message: str) -> None:
    click.echo(escape_controls(f"tgc: {message}"), err=True)
    sys.exit(1)


def _build(target: _Target):
    """Build the game's The Game Crafter images; (its output folder, the plan)."""
    from cardgen.pipeline.build import build_game
    from cardgen.pipeline.options import BuildOptions
    from cardgen.pipeline.tgc_plan import read_plan

    path, out = target.path, target.out
    project = game_project(path)
    report = Report()
    opts = BuildOptions(only=("png",), out=out, quiet=True, lang=target.lang, outputs={"png": {"targets": ("tgc",)}})
    try:
        built = build_game(path, project, opts, report)
    except CardgenError as exc:
        for d in grouped(exc.diagnostics):
            click.echo(str(d), err=True)
        click.echo(f"{path.name}: not built, nothing uploaded", err=True)
        sys.exit(1)
    for d in [d for d in report.said() if d.severity != "note"]:
        click.echo(str(d), err=True)
    out_dir = output_dir(path, project, out, target.lang) if target.lang else built.out_dir
    png = out_dir / "png" / "tgc"
    click.echo(escape_controls(f"{path.name}: images in {display_path(png)}"))
    try:
        return out_dir, read_plan(png, target.products)
    except CardgenError as exc:
        for d in grouped(exc.diagnostics):
            click.echo(str(d), err=True)
        sys.exit(1)
