"""Every card of a game as a web page: the static gallery (`cardgen.outputs.gallery`,
`build/<game>/index.html`) and the live preview (`cardgen serve`) share this model and its
HTML.

An `Album` is the laid-out game seen card by card: decks in order, each card with its face,
its own back (per-card backs) or the deck's shared back, its copies, where it is written and
the validator's problems that belong to it.  `place_problems` decides where a problem
belongs: to the cards its message names, else to the card whose lines hold it, else to the
deck whose file or name it gives, else to the game.

The pages come from Jinja templates in `cardgen/data/preview/`, autoescaped; every text
from the game (card names, messages, field values) is also cleared of control characters
(`clean`), so a card name can neither inject markup nor hide itself.
"""
from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from cardgen.core.data import DATA
from cardgen.core.errors import Diagnostic, Loc, escape_controls, plural
from cardgen.core.located import YDict, YList
from cardgen.core.paths import read_regular
from cardgen.core.words import ENGLISH, Words
from cardgen.layout.engine import Rendered
from cardgen.load.game import Card, Deck, Game
from cardgen.model import ops
from cardgen.render.raster import PT_PER_IN, Spec, screen_png_spec, trim_spec

PAGES = DATA / "preview"
MAX_SOURCE_LINES = 200       # a card's source lines shown in the preview, at most


def clean(text: object) -> str:
    """`text` without raw control characters (newlines and tabs kept): each shown as `\\x1b`."""
    s = str(text)
    if s.isprintable():
        return s
    return "\n".join(escape_controls(line.replace("\t", "    ")) for line in s.split("\n"))


def side_spec(layout: ops.CardLayout, dpi: int | None = None) -> Spec:
    """The bitmap a page shows of a card side: its trim (no bleed) at `dpi`, as a PNG; by
    default the screen class's one render of it (`raster.screen_png_spec`: a poker card's is
    409 x 573 px, 164 dpi, as its TTS cell; sharp at twice the size a tile shows it), so that
    the gallery, the grid of `cardgen serve`, the contrast check and TTS share one render,
    not scaled (scaling it to 150 dpi cost more than rendering it)."""
    return screen_png_spec(layout) if dpi is None else trim_spec(layout, dpi)


# -- the model ---------------------------------------------------------------------------------

@dataclass
class Side:
    """One distinct card side: its layout and, once the page maker knows them, its image's
    address and pixel size."""

    layout: ops.CardLayout
    what: str                     # "face" or "back"
    src: str = ""
    width: int = 0
    height: int = 0
    full: str = ""                # the preview: its full-size image

    @property
    def width_mm(self) -> float:
        return round(self.layout.width / PT_PER_IN * 25.4, 2)

    @property
    def round(self) -> bool:
        return self.layout.shape != "rect"


@dataclass(frozen=True)
class Problem:
    """A diagnostic as the page shows it."""

    severity: str                 # "error" or "warning"
    where: str                    # `file:line` as the page shows it
    message: str
    code: str = ""
    loc: Loc = field(default_factory=lambda: Loc(""))

    def text(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


@dataclass
class CardView:
    """One card as the page shows it: its sides and its problems."""

    deck: Deck
    card: Card
    face: Side
    back: Side | None             # its own back (a deck with `backs:`); a shared back is the deck's
    problems: list[Problem] = field(default_factory=list)
    where: str = ""

    @property
    def name(self) -> str:
        """The card's name as printed in the language built (`Card.title`)."""
        return self.card.title

    @property
    def count(self) -> int:
        return self.card.count

    @property
    def key(self) -> str:
        """Stable while the card keeps its place in its deck: `<deck slug>~<index>`."""
        return f"{self.deck.slug}~{self.card.index}"

    @property
    def anchor(self) -> str:
        return f"card-{self.deck.slug}-{self.card.index}"

    @property
    def severity(self) -> str:
        return "error" if any(p.severity == "error" for p in self.problems) else "warning"

    def search_text(self) -> str:
        """What the filter box matches: name, deck and problems (and the source names, which
        messages use, in a translated build)."""
        names = dict.fromkeys([self.name, self.card.name, self.deck.title, self.deck.name])
        return " ".join([*names, *(p.text() for p in self.problems)]).lower()


@dataclass
class DeckView:
    """One deck as the page shows it."""

    deck: Deck
    cards: list[CardView]
    back: Side | None             # the shared back, shown once
    problems: list[Problem] = field(default_factory=list)
    where: str = ""
    stale: bool = False           # the preview: its file no longer loads; these are its last cards

    @property
    def name(self) -> str:
        """The deck's name as the language built shows it (`Deck.title`)."""
        return self.deck.title

    @property
    def slug(self) -> str:
        return self.deck.slug

    @property
    def copies(self) -> int:
        return sum(c.count for c in self.cards)

    @property
    def problem_count(self) -> int:
        return len(self.problems) + sum(len(c.problems) for c in self.cards)


@dataclass
class Album:
    """What the gallery and the preview show of a game."""

    title: str
    decks: list[DeckView]
    problems: list[Problem]       # the game's own (not a card's, not a deck's)
    errors: int = 0
    warnings: int = 0

    @property
    def sides(self) -> list[Side]:
        """Every distinct side, each once: faces, per-card backs and shared backs."""
        out: list[Side] = []
        for d in self.decks:
            if d.back is not None:
                out.append(d.back)
            for c in d.cards:
                out.append(c.face)
                if c.back is not None:
                    out.append(c.back)
        return out

    @property
    def cards(self) -> list[CardView]:
        return [c for d in self.decks for c in d.cards]

    def summary(self, words: Words = ENGLISH) -> str:
        copies = sum(d.copies for d in self.decks)
        distinct = sum(len(d.cards) for d in self.decks)
        return f"{words.count(copies, 'card')} · {words('{n} distinct', n=distinct)} · " \
               f"{words.count(len(self.decks), 'deck')}"


# -- where a file is, as the page shows it -------------------------------------------------------

def shown_path(path: str | os.PathLike, game: Game) -> str:
    """A file as the page names it: relative to the game folder, else to the project, else
    one of cardgen's own (`cardgen:templates/basic/card.yaml`); never the computer's full path
    (the gallery is sent to other people)."""
    return _shown(os.fspath(path), os.fspath(game.root), os.fspath(game.project), os.getcwd())


@lru_cache(maxsize=4096)
def _shown(path: str, root: str, project: str, cwd: str) -> str:
    """`shown_path` (worked out once a process for each file: the gallery names every card's
    deck file, and a problem's, at each card; `cwd`: what relative paths are relative to)."""
    p = Path(os.path.abspath(path))
    for base, prefix in ((root, ""), (project, ""), (DATA, "cardgen:")):
        try:
            return prefix + p.relative_to(Path(os.path.abspath(base))).as_posix()
        except ValueError:
            continue
    return p.name


def shown_loc(loc: Loc, game: Game) -> str:
    """`cards.yaml:12` (a spreadsheet: `cards.xlsx: Actions!B5`)."""
    if not loc.file or loc.file.startswith("<"):
        return loc.file or "?"
    out = shown_path(loc.file, game)
    if loc.cell:
        return f"{out}: {loc.cell}"
    return f"{out}:{loc.line}" if loc.line else out


# -- where a problem belongs -----------------------------------------------------------------------

def _max_line(value: Any) -> int:
    """The last line any key or value of a YAML mapping or list starts on."""
    best = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, YDict):
            locs = [*getattr(v, "key_locs", {}).values(), *getattr(v, "value_locs", {}).values()]
            best = max([best, *(loc.line for loc in locs)])
            stack.extend(v.values())
        elif isinstance(v, YList):
            best = max([best, *(loc.line for loc in getattr(v, "item_locs", []))])
            stack.extend(v)
    return best


def card_spans(deck: Deck) -> list[tuple[int, int, Card]]:
    """(first line, last line, card) of each card written in the deck file itself: from its
    `- ` to the line before the next card (the last card: up to the deck's next key)."""
    mine: dict[str, bool] = {}          # (each file named once, not once a card)
    here = Path(deck.file)

    def in_file(file: str) -> bool:
        hit = mine.get(file)
        if hit is None:
            hit = mine[file] = Path(file) == here
        return hit

    own = sorted((c for c in deck.cards if in_file(c.loc.file) and c.loc.line and not c.loc.cell),
                 key=lambda c: c.loc.line)
    if not own:
        return []
    first = own[0].loc.line
    after = [loc.line for loc in getattr(deck.data, "key_locs", {}).values() if loc.line > first]
    last = min(after) - 1 if after else max(_max_line(own[-1].data), own[-1].loc.line) + 10_000
    out = []
    for c, nxt in zip(own, [*own[1:], None]):
        out.append((c.loc.line, nxt.loc.line - 1 if nxt else last, c))
    return out


def _names_card(message: str, name: str) -> bool:
    return (f"card '{name}'" in message or f"('{name}'," in message or f" '{name}'," in message
            or f" '{name}')" in message or f"('{name}')" in message)


def _named_in(message: str, names: Mapping[str, object]) -> set[str]:
    """The names n of `names` for which `card 'n'` is in `message`: every quote after a
    `card '` tried as the end of a name (a name may hold quotes), not every card tried."""
    found = set()
    start = message.find("card '")
    while start >= 0:
        at = start + len("card '")
        end = message.find("'", at)
        while end >= 0:
            if message[at:end] in names:
                found.add(message[at:end])
            end = message.find("'", end + 1)
        start = message.find("card '", start + 1)
    return found


@dataclass
class Placed:
    """The diagnostics of a build, each with the card, deck or game it is about."""

    cards: dict[tuple[str, int], list[Diagnostic]] = field(default_factory=dict)
    decks: dict[str, list[Diagnostic]] = field(default_factory=dict)
    game: list[Diagnostic] = field(default_factory=list)


def place_problems(decks: Iterable[Deck], diagnostics: Iterable[Diagnostic]) -> Placed:
    """Each problem to the cards it belongs to: in a deck file, the cards its message names
    (`card 'X'`, or a list `('X', 'Y')`), else the card whose lines hold it, else the deck; in
    another file (a template, rules.yaml), the cards named `card 'X'` in the message, else the
    deck whose name starts the message, else the game."""
    decks = list(decks)
    by_file = {Path(os.path.abspath(d.file)): d for d in decks}
    spans = {d.slug: card_spans(d) for d in decks}
    by_name: dict[str, list[tuple[int, Deck, Card]]] = {}     # (in the decks' order)
    for at, (deck_of, card) in enumerate((d, c) for d in decks for c in d.cards):
        by_name.setdefault(card.name, []).append((at, deck_of, card))
    placed = Placed()
    of_file: dict[str, Deck | None] = {}       # (each file looked up once: 1,193 warnings of one template)
    for diag in sorted(diagnostics, key=Diagnostic.sort_key):
        deck = None
        if diag.loc.file:
            if diag.loc.file not in of_file:
                of_file[diag.loc.file] = by_file.get(Path(os.path.abspath(diag.loc.file)))
            deck = of_file[diag.loc.file]
        if deck is not None:
            named = [c for c in deck.cards if _names_card(diag.message, c.name)]
            if not named:
                named = [c for first, last, c in spans[deck.slug] if first <= diag.loc.line <= last]
            if named:
                for c in named:
                    placed.cards.setdefault((deck.slug, c.index), []).append(diag)
            else:
                placed.decks.setdefault(deck.slug, []).append(diag)
            continue
        hits = [(d, c) for _, d, c in sorted(x for name in _named_in(diag.message, by_name) for x in by_name[name])]
        if hits:
            for d, c in hits:
                placed.cards.setdefault((d.slug, c.index), []).append(diag)
            continue
        owner = next((d for d in decks if diag.message.startswith(f"{d.name}:")
                      or diag.message.startswith(f"deck '{d.name}'")), None)
        if owner is not None:
            placed.decks.setdefault(owner.slug, []).append(diag)
        else:
            placed.game.append(diag)
    return placed


def problems_of(diags: Iterable[Diagnostic], game: Game) -> list[Problem]:
    return [Problem(d.severity, shown_loc(d.loc, game), d.message, d.code, d.loc) for d in diags]


def album(rendered: Rendered, diagnostics: Iterable[Diagnostic]) -> Album:
    """The laid-out game card by card, each problem beside what it belongs to."""
    game = rendered.game
    diags = list(diagnostics)
    placed = place_problems(game.decks, diags)
    faces: dict[tuple[str, int], ops.CardLayout] = {(d.slug, c.index): f for d, c, f in rendered.faces}
    decks = []
    for deck in game.decks:
        shared = rendered.backs.get((deck.slug, None)) if deck.back else None
        cards = []
        for card in deck.cards:
            face = faces.get((deck.slug, card.index))
            if face is None:
                continue
            own = rendered.backs.get((deck.slug, card.index)) if deck.backs else None
            cards.append(CardView(deck, card, Side(face, "face"), Side(own, "back") if own is not None else None,
                                  problems_of(placed.cards.get((deck.slug, card.index), []), game),
                                  shown_loc(card.loc, game)))
        decks.append(DeckView(deck, cards, Side(shared, "back") if shared is not None else None,
                              problems_of(placed.decks.get(deck.slug, []), game), shown_path(deck.file, game)))
    return Album(game.title, decks, problems_of(placed.game, game),
                 sum(1 for d in diags if d.severity == "error"), sum(1 for d in diags if d.severity == "warning"))


def bare(game: Game, diagnostics: Iterable[Diagnostic]) -> Album:
    """A game with no cards laid out (none yet, or no deck): its problems only."""
    diags = list(diagnostics)
    return Album(game.title, [], problems_of(diags, game), sum(1 for d in diags if d.severity == "error"),
                 sum(1 for d in diags if d.severity == "warning"))


def replace_problems(old: Album, game: Game, diagnostics: Iterable[Diagnostic]) -> Album:
    """`old`'s cards with today's problems placed on them (the game no longer lays out: the
    page keeps showing its last good cards, marked as such, under the errors)."""
    diags = list(diagnostics)
    placed = place_problems([d.deck for d in old.decks], diags)
    decks = []
    for d in old.decks:
        cards = [CardView(c.deck, c.card, c.face, c.back, problems_of(placed.cards.get((d.slug, c.card.index), []),
                                                                     game), c.where) for c in d.cards]
        decks.append(DeckView(d.deck, cards, d.back, problems_of(placed.decks.get(d.slug, []), game), d.where,
                              d.stale))
    return Album(old.title, decks, problems_of(placed.game, game),
                 sum(1 for d in diags if d.severity == "error"), sum(1 for d in diags if d.severity == "warning"))


def restore_decks(al: Album, old: Album, lost: list[DeckView], game: Game,
                  diagnostics: Iterable[Diagnostic]) -> Album:
    """`al` with the decks `lost` of `old` put back where they were, marked stale (their files
    no longer load: a deck does not vanish from the page while its file is being edited), and
    today's problems placed again over all of them."""
    decks = list(al.decks)
    for d in lost:
        decks.insert(min(old.decks.index(d), len(decks)), DeckView(d.deck, d.cards, d.back, [], d.where, True))
    return replace_problems(Album(al.title, decks, []), game, diagnostics)


# -- a card's data and source lines (the preview's detail panel) -----------------------------------

def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {clean(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return clean(value)
    return value


def field_text(value: Any) -> str:
    """A field's value as the detail panel shows it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return clean(value)
    return json.dumps(_plain(value), ensure_ascii=False, default=str)


def source_lines(card: Card, deck: Deck) -> tuple[int, list[str]]:
    """(first line number, the lines) where `card` is written in its deck file."""
    path = Path(card.loc.file)
    spans = [s for s in card_spans(deck) if s[2] is card]
    if not spans or not path.is_file():
        return 0, []
    first, last, _ = spans[0]
    try:
        lines = read_regular(path).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return 0, []
    chunk = lines[first - 1:min(last, first - 1 + MAX_SOURCE_LINES)]
    while chunk and not chunk[-1].strip():
        chunk.pop()
    return first, [clean(line) for line in chunk]


def card_detail(view: CardView, game: Game, back: Side | None) -> dict:
    """What the preview shows of a card when it is clicked; `back`: its own or its deck's."""
    first, lines = source_lines(view.card, view.deck)
    marked = sorted({p.loc.line for p in view.problems if p.loc.file and p.loc.line
                     and Path(p.loc.file) == Path(view.card.loc.file)})
    return {
        "key": view.key,
        "name": clean(view.name),
        "deck": clean(view.deck.title),
        "count": view.count,
        "where": clean(view.where),
        "sides": [{"what": s.what, "src": s.src, "full": s.full, "width_mm": s.width_mm}
                  for s in (view.face, back) if s is not None],
        "fields": [[clean(k), field_text(v)] for k, v in view.card.fields.items()],
        "source": {"file": clean(shown_path(view.card.loc.file, game)), "first": first, "lines": lines,
                   "marked": marked},
        "problems": [{"severity": p.severity, "where": clean(p.where), "message": clean(p.message)}
                     for p in view.problems],
    }


# -- HTML -----------------------------------------------------------------------------------------

def _finalize(value: Any) -> Any:
    from markupsafe import Markup

    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    return clean(value)


@cache
def _env():
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(PAGES)), autoescape=True, finalize=_finalize,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.bytecode_cache = _compiled(env)
    env.globals["plural"] = plural
    env.globals["visions"] = visions
    env.globals["live_words"] = live_words
    return env


PAGES_FORMAT = 1       # what a compiled page's file holds (`_compiled`)


def _compiled(env):
    """The pages' templates as Jinja compiled them, kept in the user's cache
    (`pages/<digest>.bin`: sealed, one file per template, Python, Jinja and settings), so a
    build does not compile the same template text again (about 0.07 s for the gallery's
    three).  Only what this cardgen compiled from its own templates is written there, and a
    file is taken only for the template text it was compiled from (Jinja's checksum of it,
    kept in the file).  Never in an output folder: a game folder cannot ship one.  None
    without a home folder."""
    import hashlib
    import marshal
    import sys
    import types

    import jinja2

    from cardgen.core.digest import read_sealed, seal, user_cache

    where = user_cache("pages")
    if where is None:
        return None
    folder: Path = where
    settings = (env.autoescape, env.trim_blocks, env.lstrip_blocks, env.keep_trailing_newline, env.newline_sequence,
                env.optimized, env.undefined.__name__, getattr(env.finalize, "__qualname__", None),
                sorted(env.extensions), env.block_start_string, env.block_end_string, env.variable_start_string,
                env.variable_end_string, env.comment_start_string, env.comment_end_string,
                env.line_statement_prefix, env.line_comment_prefix)
    head = f"cardgen pages {PAGES_FORMAT}\n{sys.version}\njinja2 {jinja2.__version__}\n{PAGES}\n{settings!r}\n".encode()

    class Compiled(jinja2.BytecodeCache):
        def _path(self, bucket) -> Path:
            return folder / f"{hashlib.sha256(head + bucket.key.encode()).hexdigest()[:32]}.bin"

        def load_bytecode(self, bucket) -> None:
            body = read_sealed(self._path(bucket))
            mine = head + bucket.checksum.encode() + b"\n"
            if body is None or not body.startswith(mine):
                return
            with contextlib.suppress(ValueError, EOFError, TypeError):
                code = marshal.loads(body[len(mine):])
                if isinstance(code, types.CodeType):
                    bucket.code = code

        def dump_bytecode(self, bucket) -> None:
            from cardgen.core.atomic import write_bytes

            with contextlib.suppress(OSError):      # (a read-only home: compiled again next time)
                folder.mkdir(parents=True, exist_ok=True)
                write_bytes(self._path(bucket),
                            seal(head + bucket.checksum.encode() + b"\n" + marshal.dumps(bucket.code)))

    return Compiled()


VISION_NAMES = {"protanopia": "Protanopia (no red cones)", "deuteranopia": "Deuteranopia (no green cones)",
                "tritanopia": "Tritanopia (no blue cones)", "greyscale": "Greyscale print"}


def visions() -> list[tuple[str, str, str]]:
    """(id, label, feColorMatrix values) of each way of seeing the page can show the cards in:
    the readability check's own matrices (`cardgen.check.colours`: Machado 2009 at severity
    1.0, in linear RGB, which is where an SVG filter works by default)."""
    from cardgen.check.colours import VISIONS

    out = []
    for name, m in VISIONS.items():
        values = " ".join(" ".join(f"{v:g}" for v in row) + " 0 0" for row in m) + " 0 0 0 1 0"
        out.append((name, VISION_NAMES[name], values))
    return out


def asset(name: str) -> str:
    """One of the pages' own files (CSS, JavaScript)."""
    return (PAGES / name).read_text(encoding="utf-8")


@dataclass
class Page:
    """What varies between the gallery and the preview."""

    live: bool = False                        # the preview: live updates, detail panel, zoom
    errors: list[Problem] = field(default_factory=list)   # blocking errors shown above the cards
    stale: bool = False                       # the cards are the last ones that laid out
    version: int = 0
    inline: Callable[[str], str] = asset      # gallery: CSS and script inlined
    words: Words = ENGLISH                    # the page's own words: the language of the game shown
    lang: str = ""                            # the preview: the language shown, and those it offers
    languages: tuple[str, ...] = ()


LIVE_WORDS = ("live", "no problems", "errors: showing the last good cards", "reconnecting…", "Zoom to full size",
              "Problems", "Data", "Source", "face", "back", "{n} error", "{n} errors", "{n} warning", "{n} warnings")


def live_words(words: Words) -> dict[str, str]:
    """What the preview's script says itself (its status line, the card panel), in the page's
    language: English text -> words, for `live.js`."""
    table = words.table()
    return {t: table[t] for t in LIVE_WORDS}


# -- each card's tile and lightbox, kept as made --------------------------------------------------

@dataclass(frozen=True)
class SideData:
    """What a page shows of a card side (`Side`, without its layout)."""

    what: str
    round: bool
    src: str
    width: int
    height: int
    full: str
    width_mm: float

    @classmethod
    def of(cls, s: Side | None) -> SideData | None:
        return None if s is None else cls(s.what, s.round, s.src, s.width, s.height, s.full, s.width_mm)


@dataclass(frozen=True)
class CardData:
    """Everything a card's tile and lightbox show (`card.html`), as plain values: with the
    page's words, what the HTML is made from, and so what `Fragments` finds it by."""

    anchor: str
    key: str
    name: str
    count: int
    where: str
    search: str
    severity: str
    problems: tuple[Problem, ...]
    face: SideData | None
    back: SideData | None            # its own back
    lightbox_back: SideData | None   # its own back, else the deck's
    deck_name: str

    @classmethod
    def of(cls, c: CardView, d: DeckView) -> CardData:
        return cls(c.anchor, c.key, c.name, c.count, c.where, c.search_text(), c.severity, tuple(c.problems),
                   SideData.of(c.face), SideData.of(c.back), SideData.of(c.back or d.back), d.name)

    @staticmethod
    def shown(c: CardView, d: DeckView) -> tuple:
        """`of(c, d)` as plain values, made without it (`dataclasses.astuple` of it: a test
        holds them equal): what `Fragments` finds a card's HTML by, a fifth of making it and
        its `repr` (2,000 cards of a one-card edit)."""
        return (c.anchor, c.key, c.name, c.count, c.where, c.search_text(), c.severity, _problems_shown(c.problems),
                _side_shown(c.face), _side_shown(c.back), _side_shown(c.back or d.back), d.name)


def _side_shown(s: Side | None) -> tuple | None:
    """A side's image as plain values (`SideData`'s fields: `CardData.shown`, `skeleton_data`)."""
    return None if s is None else (s.what, s.round, s.src, s.width, s.height, s.full, s.width_mm)


def _problems_shown(items: Iterable[Problem]) -> tuple:
    """Problems as plain values (`CardData.shown`, `skeleton_data`)."""
    return tuple((p.severity, p.where, p.message, p.code, tuple(p.loc)) for p in items)


class Fragments:
    """`fragment(kind, card, deck)` in `cards.html`: a card's tile or lightbox (`card.html`),
    made from its `CardData`; with a `cache` (`GalleryCache`), taken from the last build's
    when its data and the page's words are the same (a one-card edit makes one card's)."""

    def __init__(self, words: Words, cache: Any = None) -> None:
        self.words, self.cache = words, cache
        self.made = 0
        self._words_key = repr((words.lang, sorted(words.own.items()))).encode("utf-8", "surrogatepass")
        # (a card's tile and lightbox: its view, its key, its data once made)
        self._data: dict[tuple[int, int], list] = {}

    def __call__(self, kind: str, c: CardView, d: DeckView) -> Any:
        from markupsafe import Markup

        got = self._data.get((id(c), id(d)))
        if got is None or got[0] is not c:
            got = self._data[(id(c), id(d))] = [c, self._key(c, d) if self.cache is not None else b"", None]
        if self.cache is None:
            return self._make(kind, self._card(got, d))
        import hashlib

        key = hashlib.blake2b(kind.encode() + b";" + got[1], digest_size=16).digest()
        hit = self.cache.get(key)
        if hit is None:
            hit = str(self._make(kind, self._card(got, d)))
            self.cache.put(key, hit)
        return Markup(hit)

    def deck(self, kind: str, d: DeckView, between: str) -> Any:
        """Every card's of deck `d`, with `between` between them (one call of the page's,
        not one a card)."""
        from markupsafe import Markup

        return Markup(between.join([self(kind, c, d) for c in d.cards]))

    @staticmethod
    def _card(got: list, d: DeckView) -> CardData:
        if got[2] is None:
            got[2] = CardData.of(got[0], d)
        return got[2]

    def _key(self, c: CardView, d: DeckView) -> bytes:
        """What a card's HTML is found by: its `CardData` (as plain values, by `marshal`, else
        by `repr`: a string of a subclass) and the page's words."""
        import hashlib
        import marshal

        shown = CardData.shown(c, d)
        try:
            data = b"m" + marshal.dumps(shown, 2)
        except ValueError:
            data = b"r" + repr(shown).encode("utf-8", "surrogatepass")
        return hashlib.blake2b(self._words_key + b";" + data, digest_size=32).digest()

    def _make(self, kind: str, data: CardData) -> Any:
        self.made += 1
        return getattr(_env().get_template("card.html").module, kind)(data, self.words)


# -- the gallery's page around its cards, kept as made -------------------------------------------

HOLE = "\x00"      # (around each of a skeleton's holes: a control character, which no shown text keeps: `clean`)


class _Holes:
    """`fragment` of a skeleton: each deck's tiles or lightboxes one hole, `HOLE kind HOLE
    deck HOLE between HOLE`, filled from `Fragments.deck` (`gallery_page`)."""

    def __init__(self, decks: list[DeckView]) -> None:
        self.at = {id(d): i for i, d in enumerate(decks)}
        self.holes = 0
        self.other = False          # asked for something else: no skeleton

    def __call__(self, kind: str, c: CardView, d: DeckView) -> str:
        self.other = True
        return ""

    def deck(self, kind: str, d: DeckView, between: str) -> Any:
        from markupsafe import Markup

        if id(d) not in self.at or HOLE in kind + between:
            self.other = True
            return ""
        self.holes += 1
        return Markup(HOLE.join(["", kind, str(self.at[id(d)]), between, ""]))


def skeleton_data(al: Album, page: Page, title: str) -> tuple:
    """What `page.html` and `cards.html` show besides each deck's tiles and lightboxes, as
    plain values (with the page's words and cardgen's code and templates, which the cache
    holding the skeleton is for: what it is kept by).  `tests/test_gallery.py` holds the
    attributes the two templates read to those listed here."""
    decks = tuple((d.name, d.slug, d.copies, d.problem_count, d.stale, d.deck.size.label, d.where,
                   _problems_shown(d.problems), _side_shown(d.back), len(d.cards)) for d in al.decks)
    words = page.words
    return (title, words.lang, tuple(sorted(words.own.items())), page.live, _problems_shown(page.errors), page.stale,
            page.version, page.lang, tuple(page.languages), al.summary(words), _problems_shown(al.problems),
            al.errors, al.warnings, decks)


def gallery_page(al: Album, page: Page, title: str, fragments: Fragments) -> str:
    """`page_html` of the gallery, made from the page around the cards as the last build made
    it (its skeleton, kept in `fragments.cache` by `skeleton_data`) and each deck's tiles
    and lightboxes (`Fragments.deck`): the same text, and no Jinja where no card's HTML is
    made (a one-card edit of a card's text: its tile names its image, by the card's place)."""
    if fragments.cache is None or page.inline is not asset:
        return page_html(al, page, title, fragments=fragments)
    import hashlib
    import marshal

    try:
        data = marshal.dumps(skeleton_data(al, page, title), 2)
    except ValueError:      # (a value of a subclass: made whole)
        return page_html(al, page, title, fragments=fragments)
    key = hashlib.blake2b(b"page;" + data, digest_size=16).digest()
    skeleton = fragments.cache.get(key)
    if skeleton is None:
        made = _Holes(al.decks)
        skeleton = page_html(al, page, title, fragments=made)     # type: ignore[arg-type]
        if made.other or skeleton.count(HOLE) != 4 * made.holes:
            return page_html(al, page, title, fragments=fragments)
        fragments.cache.put(key, skeleton)
    parts = skeleton.split(HOLE)
    holes = [parts[at:at + 3] for at in range(1, len(parts), 4)]
    if len(parts) % 4 != 1 or not all(kind in ("tile", "lightbox") and deck.isdigit() and int(deck) < len(al.decks)
                                      for kind, deck, _ in holes):
        return page_html(al, page, title, fragments=fragments)
    out = [parts[0]]
    for (kind, deck, between), after in zip(holes, parts[4::4], strict=True):
        out += [str(fragments.deck(kind, al.decks[int(deck)], between)), after]
    return "".join(out)


def cards_html(al: Album | None, page: Page, fragments: Fragments | None = None) -> str:
    """The part of the page that changes: errors, the game's problems and every deck."""
    return _env().get_template("cards.html").render(album=al, page=page, w=page.words,
                                                    fragment=fragments or Fragments(page.words))


def page_html(al: Album | None, page: Page, title: str, body: str | None = None,
              fragments: Fragments | None = None) -> str:
    """A whole page: the gallery's index.html, or the preview's first answer (`body`: its
    `cards_html`, if made already)."""
    from markupsafe import Markup

    return _env().get_template("page.html").render(
        album=al, page=page, title=title, w=page.words,
        body=Markup(cards_html(al, page, fragments) if body is None else body))
