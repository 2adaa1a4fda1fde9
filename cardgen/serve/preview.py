"""The preview's state: the game checked and laid out, its card images, and the page made
of them, remade after every saved change.

Each check gives a new `Snapshot` (immutable once published, numbered by `version`); the
web server reads the newest one and never waits for a check.  While the game does not lay
out (an error in a card, a template or game.yaml), the snapshot keeps the last cards that
did, marked as such, under today's errors; when the game is fixed its cards come back.
Only the images of the newest snapshot are served, by their content hash.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cardgen.core.errors import Diagnostic, Loc, Report
from cardgen.core.paths import drop_links
from cardgen.core.words import ENGLISH, Words
from cardgen.load.game import Game
from cardgen.load.project import output_dir
from cardgen.model import ops
from cardgen.outputs import album as A
from cardgen.pipeline import watch as w
from cardgen.pipeline.check import check_game
from cardgen.render import raster
from cardgen.schema.languages import PSEUDO, norm

FULL_DPI = 300              # the zoomed view: print resolution


@dataclass
class Snapshot:
    """What the preview shows of the game, version by version."""

    version: int
    title: str
    album: A.Album | None = None
    errors: list[A.Problem] = field(default_factory=list)     # what keeps the game from laying out or building
    stale: bool = False                                         # the cards are the last ones that laid out
    sides: dict[str, tuple[ops.CardLayout, Path]] = field(default_factory=dict)   # image id -> layout, bitmap
    cards: dict[str, A.CardView] = field(default_factory=dict)  # card key -> card
    backs: dict[str, A.Side] = field(default_factory=dict)      # card key -> its own or its deck's back
    game: Game | None = None                                    # the game the cards come from
    body: str = ""                                              # the page's changing part (cards_html)
    checked_in: float = 0.0                                     # seconds the last check took
    counts: tuple[int, int] = (0, 0)                            # errors, warnings

    @property
    def words(self) -> Words:
        """The page's own words: in the language previewed (`cardgen.core.words`)."""
        return self.game.words if self.game is not None else ENGLISH

    @property
    def lang(self) -> str:
        """The language shown, as game.yaml spells it (`qps`: the pseudo-locale); "" for a game
        without `languages:`."""
        return (self.game.lang or "") if self.game is not None else ""

    @property
    def languages(self) -> tuple[str, ...]:
        """What the page's language list offers: game.yaml's `languages:`, and the pseudo-locale."""
        return (*self.game.languages, PSEUDO) if self.game is not None and self.game.languages else ()

    def event(self) -> dict:
        """What the page is told on every change."""
        return {"version": self.version, "ok": not self.errors, "stale": self.stale, "errors": self.counts[0],
                "warnings": self.counts[1], "cards": len(self.cards), "sides": len(self.sides), "lang": self.lang}


def _internal(exc: Exception, where: Path) -> A.Problem:
    return A.Problem("error", where.name, f"internal error ({type(exc).__name__}: {exc}); this is a cardgen bug: "
                                          f"please report it with CARDGEN_DEBUG=1 output")


class Preview:
    """One game, kept checked.  `refresh()` checks it again and publishes a new snapshot;
    `watch()` does so after every saved change until `close()`."""

    def __init__(self, game: Path, project: Path, out: Path | None = None, sets: Sequence[str] = (),
                 lang: str | None = None):
        self.game_dir = Path(game)
        self.sets = tuple(sets)                 # `cardgen serve --set KEY=VALUE`: a build variant previewed
        self.lang = lang                        # `cardgen serve --lang de`: the language previewed (None: the source)
        self.project = Path(project)
        self.out_dir = output_dir(self.game_dir, self.project, out)
        drop_links(self.out_dir)
        self.cache = raster.Cache.of(self.out_dir)
        self.lock = threading.Lock()             # PDFium and ReportLab's font registry: one user at a time
        self.changed = threading.Condition()
        self.closing = threading.Event()
        self.snapshot = Snapshot(0, self.game_dir.resolve().name, body=A.cards_html(None, A.Page(live=True)))
        self._good: Snapshot | None = None        # the last snapshot whose cards laid out
        self._font_dirs: list[Path] = []
        self.on_refresh: Callable[[Snapshot, list[Path]], None] | None = None

    # -- checking ------------------------------------------------------------------------------
    def refresh(self, changed: list[Path] | None = None) -> Snapshot:
        start = time.perf_counter()
        with self.lock:
            try:
                snap = self._check()
            except Exception as exc:       # a bug in cardgen: shown on the page, the preview lives on
                if os.environ.get("CARDGEN_DEBUG"):
                    raise
                snap = self._keep_last([], [_internal(exc, self.game_dir)])
                snap.counts = (1, 0)
        snap.checked_in = time.perf_counter() - start
        self._publish(snap)
        if self.on_refresh is not None:
            self.on_refresh(self.snapshot, changed or [])
        return self.snapshot

    def _check(self) -> Snapshot:
        report = Report()
        snap = self._checked(report)
        said = report.said()        # (counted as `cardgen validate` prints them: a problem of many cards once)
        snap.counts = (sum(d.severity == "error" for d in said), sum(d.severity == "warning" for d in said))
        return snap

    def _checked(self, report: Report) -> Snapshot:
        checked = check_game(self.game_dir, self.project, report, lang=self.lang, sets=self.sets)
        game, rendered = checked.game, checked.rendered
        items = report.items
        if game is None:                           # game.yaml itself could not be read
            return self._keep_last(items, [A.Problem(d.severity, _shown(d.loc, self.game_dir), d.message, d.code,
                                                     d.loc) for d in sorted(report.errors, key=Diagnostic.sort_key)])
        blocking = sorted(checked.blocking(report), key=Diagnostic.sort_key)
        if rendered is None and game.decks:        # some card or template does not lay out
            return self._keep_last(items, A.problems_of(blocking or report.sorted(), game), game)
        errors = A.problems_of(blocking, game)     # shown above the cards: what stops a build
        if rendered is None:                       # no decks
            return self._page(Snapshot(0, game.title, A.bare(game, items), errors, game=game))
        al = A.album(rendered, items)
        lost = self._lost_decks(game)
        if lost:
            assert self._good is not None and self._good.album is not None
            al = A.restore_decks(al, self._good.album, lost, game, items)
        sides = self._images(al, raster.font_dirs_of(rendered))
        snap = self._page(Snapshot(0, al.title, al, errors, sides=sides, game=game))
        self._good = snap
        return snap

    def _lost_decks(self, game: Game) -> list[A.DeckView]:
        """The decks of the last good check whose files do not load now."""
        good = self._good.album if self._good is not None else None
        broken = {Path(os.path.abspath(p)) for p in game.broken}
        if good is None or not broken:
            return []
        return [d for d in good.decks if Path(os.path.abspath(d.deck.file)) in broken]

    def _keep_last(self, items: list[Diagnostic], errors: list[A.Problem], game=None) -> Snapshot:
        """The game does not lay out: today's errors over the last cards that did."""
        good = self._good
        if good is None or good.album is None:
            title = getattr(game, "title", None) or self.snapshot.title
            al = A.bare(game, [d for d in items if d.severity != "error"]) if game is not None else None
            return self._page(Snapshot(0, title, al, errors, game=game))
        assert good.game is not None
        al = A.replace_problems(good.album, good.game, items)
        return self._page(Snapshot(0, al.title, al, errors, stale=True, sides=good.sides, game=good.game))

    def _images(self, al: A.Album, font_dirs: list[Path]) -> dict[str, tuple[ops.CardLayout, Path]]:
        """Every side's bitmap (made now where the cache lacks it), by content hash."""
        self._font_dirs = list(font_dirs)
        sides = al.sides
        requests = [(s.layout, A.side_spec(s.layout)) for s in sides]
        with raster.Pool() as pool:             # worker processes only for many new images (the first check)
            paths = raster.rasterize(requests, self.cache, font_dirs, pool)
        out: dict[str, tuple[ops.CardLayout, Path]] = {}
        for s, (_, spec), path in zip(sides, requests, paths):
            ident = path.stem
            s.src, s.full, s.width, s.height = f"/img/{ident}.png", f"/full/{ident}.png", spec.px_w, spec.px_h
            out[ident] = (s.layout, path)
        return out

    def _page(self, snap: Snapshot) -> Snapshot:
        if snap.album is not None:
            for d in snap.album.decks:
                for c in d.cards:
                    snap.cards[c.key] = c
                    back = c.back or d.back
                    if back is not None:
                        snap.backs[c.key] = back
        snap.body = A.cards_html(snap.album, A.Page(live=True, errors=snap.errors, stale=snap.stale, words=snap.words))
        return snap

    def _publish(self, snap: Snapshot) -> None:
        with self.changed:
            old = self.snapshot
            same = snap.body == old.body and snap.title == old.title
            snap.version = old.version if same and old.version else old.version + 1
            self.snapshot = snap
            self.changed.notify_all()

    def wait_newer(self, version: int, timeout: float, stop: threading.Event | None = None) -> Snapshot:
        """The newest snapshot once it is newer than `version` (or after `timeout`, or once
        `stop` is set and `wake()` called)."""
        with self.changed:
            self.changed.wait_for(lambda: self.snapshot.version != version or self.closing.is_set()
                                  or (stop is not None and stop.is_set()), timeout)
            return self.snapshot

    def wake(self) -> None:
        """Every `wait_newer` looks again at what it waits for."""
        with self.changed:
            self.changed.notify_all()

    # -- images ------------------------------------------------------------------------------------
    def image(self, ident: str, full: bool = False) -> bytes | None:
        """The PNG of side `ident` of the newest snapshot (`full`: at print resolution), or None
        for an id it does not have."""
        hit = self.snapshot.sides.get(ident)
        if hit is None:
            return None
        layout, path = hit
        spec = A.side_spec(layout, FULL_DPI if full else None)
        if not full:
            try:
                return raster.read_payload(path)
            except OSError:
                pass                        # the cache entry is gone (pruned, or the cache cleared): make it again
        with self.lock:
            made = raster.rasterize([(layout, spec)], self.cache, self._font_dirs)[0]
        return raster.read_payload(made)

    # -- watching ----------------------------------------------------------------------------------
    def watch(self, debounce: float = 0.05) -> None:
        """Check now, then again after every saved change, until `close()`."""
        self.refresh()
        w.watch(lambda: w.game_roots([self.game_dir]), self._changed, ignore=[self.out_dir], stop=self.closing,
                debounce=debounce)

    def _changed(self, paths: list[Path]) -> None:
        self.refresh(paths)

    def switch(self, lang: str) -> str | None:
        """Show the game in `lang` from now on (the page's language list), checked again at once;
        None, or why not (a language game.yaml does not declare)."""
        offered = self.snapshot.languages
        code = next((c for c in offered if norm(c) == norm(lang)), None)
        if code is None:
            return f"'{lang[:20]}' is not one of the game's languages ({', '.join(offered) or 'none declared'})"
        self.lang = code
        self.refresh()
        return None

    def close(self) -> None:
        self.closing.set()
        with self.changed:
            self.changed.notify_all()


def _shown(loc: Loc, root: Path) -> str:
    """A place in a file as the page shows it, before the game could be read."""
    try:
        name = Path(loc.file).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        name = Path(loc.file).name
    return f"{name}:{loc.line}" if loc.line else name


