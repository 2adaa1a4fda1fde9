"""The rulebook part of `rules.yaml` (docs/rules-format.md, Part 2) as plain data.

Every text is rendered through the sandboxed Jinja of `cardgen.layout.expr` with `game`,
`decks` and `components`; a reference to something that does not exist is an error
at the YAML value's file and line.  `rulebook_problems(game)` gives every problem
as diagnostics (for the validator); `load_rulebook(game)` raises CardgenError.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.core.located import YDict, loc_of, refine_loc
from cardgen.resources.icons import IconBook
from cardgen.schema.core import STATIC_ENV, Invalid, suggest
from cardgen.schema.files import (
    CALLOUT_KINDS,
    FIGURE_KINDS,
    RulebookCallout,
    RulebookFigure,
    RulebookSection,
    RulebookTable,
)
from cardgen.schema.files import PlayerAid as PlayerAidDecl
from cardgen.text import markup

if TYPE_CHECKING:      # (Jinja and the game loader are imported on first use: start-up time)
    from cardgen.layout import expr
    from cardgen.load.game import Game

# The keys, declared in cardgen.schema.files (rules.yaml's own: checked once, when it loads,
# `cardgen.load.rules`).
SECTION_KEYS = {k: o.doc for k, (_, o) in RulebookSection.options().items()}
TABLE_KEYS = {k: o.doc for k, (_, o) in RulebookTable.options().items()}
CALLOUT_KEYS = {k: o.doc for k, (_, o) in RulebookCallout.options().items()}
BLOCK_KINDS = ("steps", "bullets", "table", "callout", "figure", "designer_note", "open", "section")
AID_KEYS = {k: o.doc for k, (_, o) in PlayerAidDecl.options().items()}
MAX_DEPTH = 3


@dataclass
class Para:
    """A paragraph of the rulebook."""

    text: str
    loc: Loc


@dataclass
class ListBlock:
    """A list of the rulebook: steps or bullets."""

    kind: str                 # "steps" or "bullets"
    items: list[str]
    loc: Loc


@dataclass
class Table:
    """A table of the rulebook."""

    header: list[str]
    rows: list[list[str]]
    loc: Loc


@dataclass
class Callout:
    """A callout of the rulebook."""

    kind: str
    title: str
    text: str
    loc: Loc


@dataclass
class Figure:
    """Cards drawn in the booklet (`figure:`): a `card`, a `hand` of them fanned out, or a
    `component`'s (a deck's) cards or pieces side by side; `names` as written (checked: each
    names a card, or for a component a deck, of the game), `width` each card's, mm."""

    kind: str                 # card, hand or component
    names: list[str]
    deck: str | None
    back: bool
    width: float | None
    caption: str
    loc: Loc


@dataclass
class DesignerNote:
    """A note for the designer (an erratum, a doubt about the source): shown by `validate` and
    `build` at its file and line, printed in rules.pdf only with `booklet: {designer_notes: true}`."""

    text: str
    loc: Loc


@dataclass
class Section:
    """A section of the rulebook: its title and blocks."""

    title: str
    body: list
    level: int                # 1 for a top-level section
    loc: Loc


@dataclass
class PlayerAid:
    """The player aid: the turn's steps, the end, notes, copies."""

    turn: list[str] = field(default_factory=list)
    end: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    count: int | None = None        # copies to print; None: one per player


@dataclass
class Rulebook:
    """The game's rulebook, parsed from rules.yaml."""

    title: str
    subtitle: str
    players: str
    play_time: str
    ages: str
    intro: str
    sections: list[Section]
    player_aid: PlayerAid | None
    loc: Loc


def has_rulebook(game: Game) -> bool:
    return game.rules is not None and game.rules.has_rulebook


def component_names(game: Game) -> dict:
    """`components` for rules text: deck or item name -> its entry in rules.yaml, as written."""
    if game.rules is None:
        return {}
    return {name: dict(e.data) for name, e in game.rules.component_names().items()}


def jinja_context(game: Game) -> dict:
    from cardgen.layout import expr

    decks = {d.name: {"name": d.name, "count": d.count, "distinct": len(d.cards),
                      "cards": [dict(c.fields) for c in d.cards]} for d in game.decks}
    return {
        "game": expr.Record(game.context(), "game"),
        "decks": expr.Record(decks, "decks"),
        "components": expr.Record(component_names(game), "components"),
    }


class _Parser:
    def __init__(self, game: Game, icons: IconBook | None = None):
        self.game = game
        self.ctx = jinja_context(game)
        if icons is None:
            icons = IconBook(game.search_dirs("art"), game.opts.icons or {}, game.roots)
        self.icons = icons
        self.problems: list[Diagnostic] = []
        self.notes: list[Diagnostic] = []      # designer's notes (severity "note")

    def err(self, loc: Loc, message: str, code: str = "rulebook") -> None:
        d = Diagnostic(loc, message, "error", code)
        if d not in self.problems:
            self.problems.append(d)

    # -- text -----------------------------------------------------------------
    def text(self, value, loc: Loc, what: str) -> str:
        from cardgen.layout import expr

        if value is None:
            return ""
        if isinstance(value, (dict, list)):
            self.err(loc, f"{what} must be text, not a {'mapping' if isinstance(value, dict) else 'list'}")
            return ""
        try:
            out = expr.evaluate(value, self.ctx)
        except expr.MissingField as exc:
            if exc.owner == "decks" and self.game.broken:
                return ""       # the deck may be in a file that did not load (reported there)
            needle = f".{exc.name}"
            self.err(refine_loc(loc, needle) if isinstance(value, str) and needle in value else loc,
                     self._missing(exc, value), "rules-reference")
            return ""
        except expr.ExprError as exc:
            self.err(loc, f"{what}: {exc}", "rules-reference")
            return ""
        out = "" if out is None else str(out)
        for name in markup.icon_names(out):
            if self.icons.find(name) is None:
                self.err(loc, f"{what}: unknown icon ':{name}:'{suggest(name, self.icons.names())} "
                              f"(put {name}.svg in art/icons/ or map it under `icons:` in game.yaml)", "icon")
        return out

    def _missing(self, exc: expr.MissingField, source: str) -> str:
        owner = exc.owner
        refs = re.findall(r"\{\{(?:(?!\}\}).)*?\b" + re.escape(exc.name) + r"\b(?:(?!\}\}).)*\}\}", source, re.S)
        ref = refs[0] if refs else source.strip()
        if owner == "decks":
            names = [d.name for d in self.game.decks]
            return (f"rules text {ref!r} refers to deck '{exc.name}', which does not exist"
                    f"{suggest(exc.name, names)} (decks: {', '.join(names)})")
        if owner == "components":
            names = list(component_names(self.game))
            return (f"rules text {ref!r} refers to component '{exc.name}', which rules.yaml does not list"
                    f"{suggest(exc.name, names)} (components: {', '.join(names) or 'none'})")
        if owner.startswith("decks."):
            return (f"rules text {ref!r}: {owner} has no '{exc.name}' "
                    f"(a deck has count, distinct, cards and name)")
        if owner == "template":
            return (f"rules text {ref!r}: '{exc.name}' is not defined "
                    f"(rules text can use game, decks and components)")
        return f"rules text {ref!r}: {owner} has no field '{exc.name}'"

    def strings(self, value, loc: Loc, what: str) -> list[str]:
        if isinstance(value, (str, int, float)):
            value = [value]
        if not isinstance(value, list):
            self.err(loc, f"{what} must be a list of texts")
            return []
        return [self.text(v, loc_of(value, i), f"{what} item {i + 1}") for i, v in enumerate(value)]

    def unknown(self, mapping: YDict, allowed, what: str) -> None:
        for key in mapping:
            if key not in allowed:
                self.err(mapping.key_loc(key), f"unknown key '{key}' in {what}{suggest(key, allowed)} "
                                               f"(allowed: {', '.join(allowed)})", "unknown-key")

    # -- structure ------------------------------------------------------------
    def section(self, data, loc: Loc, level: int) -> Section | None:
        if not isinstance(data, YDict):
            self.err(loc, "a section must be a mapping with `title:` and `body:`")
            return None
        self.unknown(data, SECTION_KEYS, "a section")
        if "title" not in data:
            self.err(data.loc, "a section needs a `title:`")
        title = self.text(data.get("title", ""), data.value_loc("title"), "section title")
        body_data = data.get("body") or []
        if not isinstance(body_data, list):
            self.err(data.value_loc("body"), f"section '{title}': `body:` must be a list of blocks")
            body_data = []
        body = []
        for i, block in enumerate(body_data):
            b = self.block(block, loc_of(body_data, i), level, title)
            if b is not None:
                body.append(b)
        return Section(title, body, level, data.loc if hasattr(data, "loc") else loc)

    def block(self, block, loc: Loc, level: int, where: str):
        if isinstance(block, (str, int, float)):
            return Para(self.text(block, loc, f"section '{where}': paragraph"), loc)
        if not isinstance(block, YDict) or len(block) != 1:
            self.err(loc, f"section '{where}': a block is a paragraph (text) or a mapping with one of "
                          f"{', '.join(BLOCK_KINDS)}")
            return None
        kind, value = next(iter(block.items()))
        vloc = block.value_loc(kind)
        if kind not in BLOCK_KINDS:
            self.err(block.key_loc(kind), f"section '{where}': unknown block '{kind}'"
                                          f"{suggest(kind, BLOCK_KINDS)} (blocks: text, {', '.join(BLOCK_KINDS)})")
            return None
        if kind in ("steps", "bullets"):
            return ListBlock(kind, self.strings(value, vloc, f"section '{where}': {kind}"), vloc)
        if kind == "designer_note":
            if isinstance(value, (dict, list)):
                self.err(vloc, f"section '{where}': a designer_note is a text")
                return None
            note = DesignerNote(self.text(value, vloc, f"section '{where}': designer_note"), vloc)
            self.notes.append(designer_note(note.loc, note.text))
            return note
        if kind == "open":
            if isinstance(value, (dict, list)):
                self.err(vloc, f"section '{where}': an open question is a text")
                return None
            text = self.text(value, vloc, f"section '{where}': open")
            self.notes.append(open_question(vloc, text))
            return Callout("open", "Open question", text, vloc)
        if kind == "table":
            return self.table(value, vloc, where)
        if kind == "callout":
            return self.callout(value, vloc)
        if kind == "figure":
            return self.figure(value, vloc, where)
        if level >= MAX_DEPTH:
            self.err(vloc, f"sections nest at most {MAX_DEPTH} levels deep")
            return None
        return self.section(value, vloc, level + 1)

    def table(self, value, vloc: Loc, where: str) -> Table | None:
        if not isinstance(value, YDict):
            self.err(vloc, f"section '{where}': a table needs `header:` and `rows:`")
            return None
        self.unknown(value, TABLE_KEYS, "a table")
        header = self.strings(value.get("header") or [], value.value_loc("header"), "table header")
        rows_data = value.get("rows") or []
        rows = []
        if not isinstance(rows_data, list):
            self.err(value.value_loc("rows"), "table `rows:` must be a list of rows (lists)")
            rows_data = []
        for i, row in enumerate(rows_data):
            rloc = loc_of(rows_data, i)
            cells = self.strings(row, rloc, f"table row {i + 1}")
            if header and len(cells) != len(header):
                self.err(rloc, f"table row {i + 1} has {len(cells)} cells but the header has {len(header)}")
            rows.append(cells)
        return Table(header, rows, vloc)

    def callout(self, value, vloc: Loc) -> Callout | None:
        if isinstance(value, str):
            value_d = {"text": value}
            value_loc = lambda k: vloc  # noqa: E731
        elif isinstance(value, YDict):
            self.unknown(value, CALLOUT_KEYS, "a callout")
            value_d, value_loc = value, value.value_loc
        else:
            self.err(vloc, "a callout is a mapping with `kind:`, `title:` and `text:`")
            return None
        ckind = str(value_d.get("kind", "note"))
        if ckind not in CALLOUT_KINDS:
            self.err(value_loc("kind"), f"callout kind '{ckind}' is not one of {', '.join(CALLOUT_KINDS)}"
                                        f"{suggest(ckind, CALLOUT_KINDS)}")
            ckind = "note"
        title = self.text(value_d.get("title", self.game.words(ckind.capitalize())), value_loc("title"),
                          "callout title")
        return Callout(ckind, title, self.text(value_d.get("text", ""), value_loc("text"), "callout text"), vloc)

    def figure(self, value, vloc: Loc, where: str) -> Figure | None:
        what = f"section '{where}': figure"
        if not isinstance(value, YDict):
            self.err(vloc, f"{what}: a figure is a mapping with one of `card:`, `hand:` or `component:`, "
                           f"e.g. {{card: Digging, caption: \"...\"}}")
            return None
        diags = RulebookFigure.diagnostics(value, what, vloc)
        for d in diags:
            self.err(d.loc, d.message, d.code or "rulebook")
        kinds = [k for k in FIGURE_KINDS if value.get(k) is not None]
        if len(kinds) != 1:
            self.err(vloc, f"{what}: give one of `card:`, `hand:` or `component:`"
                           + (f", not {' and '.join(kinds)}" if kinds else ""))
            return None
        if diags:
            return None
        opts = RulebookFigure.load_unchecked(value)
        kind = kinds[0]
        names = [str(n) for n in opts.hand or ()] if kind == "hand" else [str(getattr(opts, kind))]
        where_names = value.value_loc(kind)
        self._check_names(kind, names, opts.deck, value, where_names)
        caption = self.text(value.get("caption"), value.value_loc("caption"), "figure caption")
        return Figure(kind, names, opts.deck, opts.back, opts.width, caption, vloc)

    def _check_names(self, kind: str, names: list[str], deck: str | None, value: YDict, loc: Loc) -> None:
        """Each name a card of the game (of `deck`), or for a component a deck: else an error
        at the name, with the nearest."""
        if self.game.broken:
            return          # (a deck file did not load: said there)
        decks = {d.name: d for d in self.game.decks}
        if deck is not None and deck not in decks:
            self.err(value.value_loc("deck"), f"figure: no deck '{deck}'{suggest(deck, decks)} "
                                              f"(decks: {', '.join(decks)})", "rules-reference")
            return
        if kind == "component":
            choices: list[str] = list(decks)
        else:
            choices = [c.name for d in ([decks[deck]] if deck else self.game.decks) for c in d.cards]
        items = value.get(kind)
        backless = {c.name for d in self.game.decks if not (d.back or d.backs) for c in d.cards}
        for i, name in enumerate(names):
            at = loc_of(items, i) if isinstance(items, list) else loc
            if name in choices:
                if value.get("back") is True and name in backless:
                    self.err(at, f"figure: card '{name}' has no back (its deck names no `back:` or `backs:`)",
                             "rules-reference")
                continue
            thing = "deck or component" if kind == "component" else "card"
            self.err(at, f"figure: no {thing} '{name}'" + (f" in deck '{deck}'" if deck else "")
                         + f"{suggest(name, choices)}", "rules-reference")

    def rulebook(self) -> Rulebook:
        assert self.game.rules is not None  # _parse() only runs when has_rulebook()
        rules = self.game.rules.data
        gd = self.game.data

        def meta(key, default=""):
            if key in rules:
                return self.text(rules[key], rules.value_loc(key), key)
            v = gd.get(key, default)
            return "" if v is None else str(v)

        sections = []
        sdata = rules.get("sections") or []
        if not isinstance(sdata, list):
            self.err(rules.value_loc("sections"), "`sections:` must be a list of sections")
            sdata = []
        for i, s in enumerate(sdata):
            sec = self.section(s, loc_of(sdata, i), 1)
            if sec is not None:
                sections.append(sec)
        aid = None
        if "player_aid" in rules:
            a = rules["player_aid"]
            if not isinstance(a, YDict):
                self.err(rules.value_loc("player_aid"), "`player_aid:` must be a mapping with `turn:` and `end:`")
            else:
                self.unknown(a, AID_KEYS, "player_aid")
                turn, end, notes = (self.strings(a.get(k) or [], a.value_loc(k), f"player_aid {k}")
                                    for k in ("turn", "end", "notes"))
                aid = PlayerAid(turn, end, notes)
                if a.get("count") is not None:
                    try:
                        aid.count = PlayerAidDecl.options()["count"][1].kind.convert(a["count"], STATIC_ENV)
                    except Invalid as exc:
                        self.err(a.value_loc("count"), f"player_aid `count` {exc.message}")
        return Rulebook(meta("title", self.game.title), meta("subtitle"), meta("players"), meta("play_time"),
                        meta("ages"), meta("intro"), sections, aid, rules.loc)


def _parse(game: Game, icons: IconBook | None = None) -> tuple[Rulebook | None, list[Diagnostic], list[Diagnostic]]:
    """The rulebook rendered, its problems and its designer's notes: once a loaded game (kept
    on `game.rules`; the check, the booklet, the player aid and the TTS output all ask).  Its
    icons are looked up in `icons` (the game's, when the check has them: each icon found and
    its SVG checked once) or in a book of its own."""
    if game.rules is None or not game.rules.has_rulebook:
        return None, [], []
    if game.rules.rendered is None:
        p = _Parser(game, icons)
        book = p.rulebook()
        game.rules.rendered = (book, tuple(p.problems), tuple(p.notes))
    book, problems, notes = game.rules.rendered
    return book, list(problems), list(notes)


def rulebook_problems(game: Game, icons: IconBook | None = None) -> list[Diagnostic]:
    """Every problem of the game's rulebook (bad structure, broken Jinja references,
    unknown icons), each at its YAML file:line:col. Empty when there is no rulebook.  `icons`:
    the book to look its icons up in (`_parse`)."""
    return _parse(game, icons)[1]


def designer_note(loc: Loc, text: str) -> Diagnostic:
    """A designer's note as the validator and the build show it (severity "note")."""
    return Diagnostic(loc, f"designer's note, not printed for players: {markup.plain(text)}", "note",
                      "designer-note")


def open_question(loc: Loc, text: str) -> Diagnostic:
    """An open question of the rules document (`open:` in a rulebook section), as the validator
    and the build show it: a warning, for the designer to decide (the booklet prints it too)."""
    return Diagnostic(loc, f"open question, the rules leave it undecided: {markup.plain(text)}", "warning",
                      "open-question")


def designer_notes(game: Game) -> list[Diagnostic]:
    """Every designer's note of the game: the rulebook's `designer_note:` blocks and the deck
    files' `designer_note:`, each at its file:line:col (severity "note"); and the rulebook's
    open questions (`open:`, warnings)."""
    out = list(_parse(game)[2])
    for deck in game.decks:
        text = deck.data.get("designer_note") if isinstance(deck.data, dict) else None
        if text and isinstance(text, (str, int, float)):      # (a note that is not text is an error)
            out.append(designer_note(deck.data.value_loc("designer_note"), str(text)))
    return out


def load_rulebook(game: Game) -> Rulebook | None:
    """The game's rulebook with every text rendered; None if rules.yaml has none.
    Raises CardgenError with every problem."""
    book, problems, _ = _parse(game)
    if problems:
        raise CardgenError(None, diagnostics=problems)
    return book


