"""Declarations of the files a game is made of: game.yaml, deck files, cards, rules.yaml.

One `Decl` per kind of file (and per nested mapping in it).  The loader
(`cardgen.load.game`) converts and checks with them; the docs tables and the JSON Schema
come from them.  Output options (`tts:`, `booklet:`, ...) are not declared here: each
output declares its own, and the loader leaves those mappings raw.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cardgen.core import spans
from cardgen.core.sizes import CARD_SIZES_MM, DEFAULT_BLEED_MM, CardSize
from cardgen.schema.components import KINDS, SHAPES, STICKER_INSET
from cardgen.schema.core import (
    Bool,
    Choice,
    Colour,
    Decl,
    Env,
    Int,
    Invalid,
    Kind,
    Language,
    Length,
    ListOf,
    MapOf,
    Number,
    OneOf,
    Text,
    opt,
    show,
    suggest,
)
from cardgen.schema.languages import LanguageList

MAX_COUNT = 10000           # copies of one card
MAX_CARD_MM = 1000.0        # the longest side of a card
MIN_CARD_MM = 5.0           # the shortest (a card smaller than this has no room to print on)


# -- kinds of value particular to these files ------------------------------------------------

_SIDE = Length(min=MIN_CARD_MM, max=MAX_CARD_MM, to="mm")


def named_size(value: str, table: dict[str, tuple[float, float]], what: str) -> tuple[float, float, str]:
    """(width, height, name) of a size `table` names, e.g. `poker`; Invalid with the names."""
    key = value.strip().lower()
    if key not in table:
        raise Invalid(f"is not a {what} size: '{show(value)[1:-1]}'{suggest(key, table)} "
                      f"(named sizes: {', '.join(table)}; or give width and height)")
    w, h = table[key]
    return w, h, key


class CardSizeKind(Kind):
    """A card size: a name (poker, bridge, ...), `{width, height, name?}` or `{diameter, name?}`
    for a round token; converts to `core.sizes.CardSize` (mm)."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, (int, float, str)) and not isinstance(value, bool) and _is_length(value):
            d = _SIDE.convert(value, env)       # one length: a token's width, a hex tile's flat-to-flat size
            return CardSize(d, d, "", "rect", single=True)
        if isinstance(value, str):
            return CardSize(*named_size(value, CARD_SIZES_MM, "card"))
        if not isinstance(value, dict):
            raise Invalid(f"must be a card size name such as poker, one length such as 25mm, or a mapping "
                          f"with width and height (or diameter), got {show(value)}")
        allowed = ("diameter", "name") if "diameter" in value else ("width", "height", "name")
        for k in value:
            if k not in allowed:
                hint = suggest(k, allowed) or (" (a round token has only diameter and name)"
                                                 if "diameter" in value else "")
                raise Invalid(f"has an unknown key '{k}'{hint}", (k,))
        name = ""
        if "name" in value:
            try:
                name = Text().convert(value["name"], env)
            except Invalid as exc:
                raise Invalid(f"name {exc.message}", ("name",)) from None
        if "diameter" in value:
            d = self._side(value, "diameter", env)
            return CardSize(d, d, name, "round")
        missing = [k for k in ("width", "height") if k not in value]
        if missing:
            raise Invalid(f"has no {' and no '.join(missing)}; a card size needs width and height "
                          f"(or diameter for a round token)")
        return CardSize(self._side(value, "width", env), self._side(value, "height", env), name)

    @staticmethod
    def _side(value: dict, key: str, env: Env) -> float:
        try:
            return _SIDE.convert(value[key], env)
        except Invalid as exc:
            raise Invalid(f"{key} {exc.message}", (key,)) from None

    def describe(self) -> str:
        return (f"card size: a name ({', '.join(CARD_SIZES_MM)}), one length (a token's width, a hex's "
                f"flat-to-flat size) or {{width, height}} or {{diameter}}")

    def json_schema(self) -> dict:
        length = _SIDE.json_schema()
        return {"anyOf": [
            {"enum": list(CARD_SIZES_MM)}, length,
            {"type": "object", "properties": {"width": length, "height": length, "name": {"type": "string"}},
             "required": ["width", "height"], "additionalProperties": False},
            {"type": "object", "properties": {"diameter": length, "name": {"type": "string"}},
             "required": ["diameter"], "additionalProperties": False}]}

    def show_default(self, default: Any) -> str:
        return default.name if isinstance(default, CardSize) else super().show_default(default)


_LENGTH = re.compile(r"^\s*[+]?(\d+(\.\d*)?|\.\d+)\s*(mm|cm|in|pt)?\s*$", re.IGNORECASE)


def _is_length(value: Any) -> bool:
    """A size given as one length (`25mm`, `1in`, 25) rather than a name."""
    return not isinstance(value, str) or bool(_LENGTH.match(value))


_PLUS = re.compile(r"^\s*(\d+)\s*\+\s*$")


@dataclass(frozen=True)
class CopyCount(Int):
    """How many copies of a card: a whole number from 0 to 10000."""

    min: int | None = 0
    max: int | None = MAX_COUNT

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(f"must be a whole number (0 to {MAX_COUNT}), got {show(value)}")
        if value < 0:
            raise Invalid(f"must not be negative, got {value}")
        if value > MAX_COUNT:
            raise Invalid(f"{value} is more than {MAX_COUNT} copies; is a digit too many?")
        return value


@dataclass(frozen=True)
class RuleCount(Kind):
    """A count as a rules document states it: a whole number, `tbd` (to be decided) and, where
    `plus`, `"N+"` (at least N).  Converts to (number or None, at_least)."""

    plus: bool = False

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, str) and value.strip().lower() == "tbd":
            return (None, False)
        if self.plus and isinstance(value, str):
            m = _PLUS.match(value)
            if m:
                return (int(m.group(1)), True)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            forms = 'a whole number, "N+" or tbd' if self.plus else "a whole number or tbd"
            raise Invalid(f"must be {forms}, got {show(value)}")
        if value > MAX_COUNT:
            raise Invalid(f"{value} is more than {MAX_COUNT}; is a digit too many?")
        return (value, False)

    def describe(self) -> str:
        return 'whole number, "N+" (at least N) or tbd' if self.plus else "whole number or tbd"

    def json_schema(self) -> dict:
        alts: list[dict] = [{"type": "integer", "minimum": 0, "maximum": MAX_COUNT}, {"const": "tbd"}]
        if self.plus:
            alts.append({"type": "string", "pattern": r"^\s*\d+\s*\+\s*$"})
        return {"anyOf": alts}


@dataclass(frozen=True)
class FreeMap(Kind):
    """A mapping of free keys to any values (`vars:`, `defaults:`, a card's `back:`)."""

    what: str = "keys to values"

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, dict):
            raise Invalid(f"must be a mapping of {self.what}, got {show(value)}")
        return value

    def describe(self) -> str:
        return f"mapping of {self.what}"

    def json_schema(self) -> dict:
        return {"type": "object"}


@dataclass(frozen=True)
class FreeList(Kind):
    """A list whose items someone else reads (the rulebook's `sections:`)."""

    what: str = "items"

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, list):
            raise Invalid(f"must be a list of {self.what}, got {show(value)}")
        return value

    def describe(self) -> str:
        return f"list of {self.what}"

    def json_schema(self) -> dict:
        return {"type": "array"}


SHEET_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm", ".ods")


class CardList(Kind):
    """The cards of a deck: a list of mappings (each checked by `CardKeys`), or a spreadsheet
    that holds them: a file name (`actions.csv`) or a `SheetSource` mapping (`{file: cards.xlsx,
    sheet: Actions}`, `{url: ...}`).  Kept as given: the loader reads the sheet and checks
    each card itself, to report every card's problems."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, list):
            return value
        if isinstance(value, str):
            if value.strip().lower().startswith(("https://", "http://")):
                raise Invalid(f"is a link; a Google Sheet's link goes under `url:`: "
                              f"cards: {{url: \"{value.strip()}\"}}")
            if not value.strip().lower().endswith(SHEET_SUFFIXES):
                raise Invalid(f"must be a list of cards (`- name: ...`) or a spreadsheet file "
                              f"({', '.join(SHEET_SUFFIXES)}), got {show(value)}")
            return value
        if isinstance(value, dict):
            problems = SheetSource.problems(value, env)
            if problems:
                path, message = problems[0]
                raise Invalid(f"has an {message}" if path[-1:] == ("<key>",) else f"(spreadsheet) {message}")
            src = SheetSource.load_unchecked(value, env)
            if (src.file is None) == (src.url is None):
                raise Invalid("needs either `file:` (a spreadsheet next to the deck file) or `url:` "
                              "(a published Google Sheet), not both")
            if src.file is not None and not src.file.strip().lower().endswith(SHEET_SUFFIXES):
                raise Invalid(f"(spreadsheet) `file` must be a .csv, .tsv, .xlsx, .xlsm or .ods file, "
                              f"got {show(src.file)}")
            return value
        raise Invalid(f"must be a list of cards (`- name: ...`) or a spreadsheet, got {show(value)}")

    def describe(self) -> str:
        return "list of cards, or a spreadsheet: a file name or a mapping"

    def json_schema(self) -> dict:
        return {"anyOf": [{"type": "array", "items": CardKeys.json_schema()},
                          {"type": "string", "pattern": r"(?i)\.(" + "|".join(x[1:] for x in SHEET_SUFFIXES) + r")$"},
                          SheetSource.json_schema()]}


class ComponentList(Kind):
    """rules.yaml's `components:`: a list of entries, each checked by `ComponentEntry`
    (`cardgen.check.components` reads them)."""

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, list):
            raise Invalid("must be a list of entries (`- deck: NAME` ...); see docs/rules-format.md")
        return value

    def describe(self) -> str:
        return "list of component entries"

    def json_schema(self) -> dict:
        return {"type": "array", "items": ComponentEntry.json_schema()}


_TEXT = Text()


class DateKind(Kind):
    """A calendar date written `YYYY-MM-DD` (as text; a YAML date value is taken as well)."""

    def convert(self, value: Any, env: Env) -> Any:
        import datetime

        if isinstance(value, datetime.date):
            return value.strftime("%Y-%m-%d")
        text = str(value).strip() if isinstance(value, str) else None
        try:
            if text is None or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                raise ValueError
            datetime.date.fromisoformat(text)
        except ValueError:
            raise Invalid(f"must be a date written YYYY-MM-DD, e.g. 2024-05-01, got {show(value)}") from None
        return text

    def describe(self) -> str:
        return "date (YYYY-MM-DD)"

    def json_schema(self) -> dict:
        return {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}


class SpanStyleKind(Kind):
    """A named span style of game.yaml's `styles:`: span attributes (`cardgen.core.spans`)."""

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, dict):
            raise Invalid(f"must be a mapping of span attributes ({', '.join(spans.NAMES)}), got {show(value)}")
        out = spans.Span()
        for key, v in value.items():
            try:
                out = spans.attribute(out, str(key), v)
            except spans.SpanError as exc:
                raise Invalid(f"is not a valid style: {exc}", (key,)) from None
        return out

    def describe(self) -> str:
        return f"span attributes ({', '.join(spans.NAMES)})"

    def json_schema(self) -> dict:
        return {"type": "object", "propertyNames": {"enum": [*spans.NAMES, *spans.ALIASES]}}


# -- game.yaml ------------------------------------------------------------------------------

@dataclass(frozen=True)
class WordsMap(Kind):
    """game.yaml's `words:`: cardgen's English texts (`cardgen.core.words`) -> the game's words,
    each with the same placeholders (`{n}`)."""

    def convert(self, value: Any, env: Env) -> Any:
        from cardgen.core import words as W

        out = MapOf(Text(), "cardgen's English text").convert(value, env)
        known = W.texts()
        for k, v in out.items():
            if k not in known:
                raise Invalid(f"'{k}' is not one of cardgen's own texts{suggest(k, known)} "
                              f"(`cardgen i18n words` lists them)", (k,))
            if W.fields(v) != W.fields(k):
                want = ", ".join(f"{{{f}}}" for f in sorted(W.fields(k))) or "none"
                raise Invalid(f"'{k}': the words must have the same placeholders as the English text ({want})", (k,))
        return out

    def describe(self) -> str:
        return "mapping of cardgen's English text: the game's words"

    def json_schema(self) -> dict:
        return {"type": "object", "additionalProperties": {"type": "string"}}


@dataclass(frozen=True, kw_only=True)
class GameFile(Decl):
    """The keys of game.yaml."""

    __what__ = "game.yaml"
    __doc_title__ = "game.yaml"

    title: str | None = opt(_TEXT, "the game's name as printed", None, default_doc="the folder's name")
    subtitle: str | None = opt(_TEXT, "a line under the title (booklet cover)", None)
    designer: str | None = opt(_TEXT, "who made the game", None)
    version: str | None = opt(_TEXT, "the game's version, e.g. playtest 3; templates show it as game.version "
                                     "(docs/changes.md)", None,
                              default_doc="`git describe --tags --always --dirty` in a git repository, else none")
    date: str | None = opt(DateKind(), "the date of this version, YYYY-MM-DD: the creation date written into "
                                       "every PDF (the SOURCE_DATE_EPOCH environment variable, when set, wins)",
                           None, default_doc="none: the PDFs carry no date")
    players: str | None = opt(_TEXT, "player count, e.g. 2-4", None)
    play_time: str | None = opt(_TEXT, "play time, e.g. 30-45 min", None)
    ages: str | None = opt(_TEXT, "suggested ages, e.g. 12+", None)
    card_size: CardSize = opt(CardSizeKind(), "default card size for every deck: a name (poker, tarot, ...) "
                                              "or {width, height} or {diameter}",
                              CardSize(*CARD_SIZES_MM["poker"], "poker"))
    bleed: float = opt(Length(min=0, max=20, to="mm"), "bleed around every card", DEFAULT_BLEED_MM,
                       default_doc="1/8 in (3.175 mm)")
    decks: tuple[str, ...] | None = opt(ListOf(Text(nonempty=True)), "deck files in the order to build them",
                                        None, default_doc="every other .yaml file, sorted by name")
    icons: dict = opt(MapOf(Text(nonempty=True), "alias"),
                      "icon aliases: name -> icon file name in art/icons (without .svg)", None, default_doc="none")
    fallback_fonts: tuple[str, ...] = opt(ListOf(Text(nonempty=True), max_items=16),
                                          "font families (in fonts/) that draw the characters a text's font has "
                                          "no glyph for, tried in order; then the bundled DejaVuSans (symbols, "
                                          "Greek, Cyrillic, Hebrew, Arabic), then every other family in the game's "
                                          "and the project's fonts/, by name", (),
                                          default_doc="DejaVuSans only")
    language: str = opt(Language(), "the language of the game's text, as a code (en, en-GB, de, fr, ...): words are "
                        "hyphenated by its rules (with `languages:`, each build's language instead)", "en")
    languages: tuple[str, ...] | None = opt(LanguageList(), "the languages the game is made in, the source language "
                                            "first, e.g. [en, de]: a translated value sits beside its source as "
                                            "`FIELD@LANG` (`text@de:`), and `cardgen build` makes every output "
                                            "for each language in build/<game>/<lang>/ (docs/languages.md)", None,
                                            default_doc="one language, `language:`; outputs in build/<game>/")
    words: dict = opt(WordsMap(), "cardgen's own words (the booklet's headings, the tuck boxes' and print sheets' "
                                  "notes, the gallery's labels) as this game wants them, by their English text: "
                                  "`words@LANG:` for a language cardgen has no words for (docs/languages.md"
                                  "#cardgens-own-words)", None, default_doc="cardgen's, in the language built")
    mark_untranslated: bool = opt(Bool(), "with `languages:`, a magenta corner on each card printed with "
                                          "source-language text for want of a translation (docs/languages.md); "
                                          "false for a print run", True)
    hyphenate: bool = opt(Bool(), "hyphenate words at the ends of lines where a line would otherwise be left short "
                                  "or a word is wider than its box; false breaks only at spaces, hyphens and dashes",
                          True)
    smart_punctuation: bool = opt(Bool(), "typographer's punctuation on the cards and in the booklet: curly "
                                  "quotes and apostrophes (`\"X\"` -> “X”, `rules'` -> rules’), `--` -> an en dash, "
                                  "`---` -> an em dash, ` - ` -> ` – `, `...` -> …; false prints text as typed",
                                  True)
    styles: dict = opt(MapOf(SpanStyleKind(), "style name"),
                       "named text styles, used in any text (cards, booklet, player aid) as `[name]...[/name]`: "
                       "color, size (`8pt`, `120%`), font, weight (100-900 or bold, extrabold, ...), style (italic) "
                       "and letter_spacing; and for the paragraphs that start inside it, align, space_before, "
                       "space_after, indent and leading (docs/templates.md)", None, default_doc="none")
    min_text_size: float = opt(Number(min=1, max=72, unit="pt"),
                               "the smallest text the readability check lets by, in points (docs/validation.md)",
                               6.0)
    image_dpi: int = opt(Int(min=72, max=2400), "pixels per inch the print PDFs embed images at: larger "
                         "art is downsampled to what its box shows at this resolution (docs/performance.md); "
                         "art with fewer pixels than 80 % of it is warned about (it prints soft)", 300)
    palette: dict = opt(MapOf(Colour(), "colour name"),
                        "named colours, available in templates as game.palette.<name> (as written)", None,
                        default_doc="none")
    vars: dict = opt(FreeMap("name: value"), "anything else game-wide, available in templates as "
                                               "game.vars.<name>", None, default_doc="none")


# -- deck files and cards -------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class DeckFile(Decl):
    """The keys of a deck file."""

    __what__ = "deck file"
    __doc_title__ = "deck file"

    deck: str = opt(Text(nonempty=True), "the deck's name")
    description: str = opt(_TEXT, "a line about the deck, shown in listings", "", default_doc="none")
    designer_note: str | None = opt(_TEXT, "a note for the designer (a doubt, an erratum of the source): "
                                           "`validate` and `build` show it; rules.pdf prints it only with "
                                           "`booklet: {designer_notes: true}`", None)
    kind: str = opt(Choice(tuple(KINDS)), "what the file makes: " + "; ".join(f"`{k.name}`, {k.summary}"
                                                                           for k in KINDS.values())
                    + " (docs/components.md)", "card")
    shape: str | None = opt(Choice(tuple(SHAPES)), "the pieces' outline, which the print sheets cut along: "
                                                  + "; ".join(f"`{k}`, {v}" for k, v in SHAPES.items()), None,
                            default_doc="the kind's: rect for cards and boards, round for tokens, hex-flat for "
                                        "tiles (round for a size given as {diameter})")
    path: str | None = opt(Text(nonempty=True), "for `shape: path`: the outline, as SVG path data in mm from the "
                                                "piece's top-left (`M 0 10 L 10 0 L 20 10 Z`), or an .svg file in "
                                                "the game folder whose first `<path>` gives it; scaled to `size:` when "
                                                "that is given, else the path's own box is the piece's size", None,
                            default_doc="none")
    template: str = opt(Text(nonempty=True), "layout template for the faces, e.g. game-601/action")
    back: str | None = opt(_TEXT, "layout template for one shared back", None)
    backs: str | None = opt(_TEXT, "layout template for per-card backs (double-sided cards); a card's "
                                   "`back:` fields override its own", None)
    size: CardSize | None = opt(CardSizeKind(), "card size for this deck (overrides the game's card_size)",
                                None, default_doc="the game's card_size")
    bleed: float | None = opt(Length(min=0, max=20, to="mm"), "bleed for this deck (overrides the game's)",
                              None, default_doc="the game's bleed")
    defaults: dict | None = opt(FreeMap("card fields to values"),
                                "field values every card in the deck gets unless it sets its own", None,
                                default_doc="none")
    cards: list | str | dict = opt(CardList(), "the list of cards, or the spreadsheet that holds them "
                                                           "(docs/spreadsheets.md)")
    computed: dict | None = opt(FreeMap("name: expression"), "named values worked out once per card from its "
                                                              "fields, read as `card.NAME`; after (and over) the "
                                                              "template's `computed:` (docs/templates.md)", None,
                                default_doc="none")
    vars: dict | None = opt(FreeMap("name: value"), "anything else deck-wide, available in templates as "
                                                      "deck.vars.<name>", None, default_doc="none")
    count: int | None = opt(Int(min=1, max=1000), "a die file's number of dice (`kind: die`): each of its six "
                                                       "faces is printed once per die", None, default_doc="1 die")
    inset: float | None = opt(Length(min=0, max=20, to="mm"), "a die file's sticker inset (`kind: die`): how far "
                                                             "each sticker's edge stays inside the die's face",
                              None, default_doc=f"{STICKER_INSET:g} mm")


@dataclass(frozen=True, kw_only=True)
class CardKeys(Decl):
    """The keys of a card that mean something to cardgen; every other key is a free field."""

    __what__ = "card"
    __doc_title__ = "card"
    __extra__ = "keep"

    name: str = opt(Text(nonempty=True), "the card's name (required, unique in its deck)")
    count: int = opt(CopyCount(), "number of copies, a whole number from 0 to 10000; 0 parks a card: kept in "
                                  "the data, not printed", 1)
    back: dict | None = opt(FreeMap("keys to values"), "fields for this card's own back (with a deck "
                                                         "`backs:` template)", None, default_doc="none")


class SheetRef(Kind):
    """A workbook's sheet: its name, or its position counted from 1 (`2`, or `"#2"` written as
    text; a sheet actually named `#2` is that sheet)."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            if not 1 <= value <= 10_000:
                raise Invalid(f"must be a sheet's name or its position from 1 (`2` or \"#2\"), got {value}")
            return value
        return Text(nonempty=True).convert(value, env)

    def describe(self) -> str:
        return "sheet name, or position from 1 (2 or \"#2\")"

    def json_schema(self) -> dict:
        return {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 10_000}, {"type": "string", "minLength": 1}]}


@dataclass(frozen=True, kw_only=True)
class SheetSource(Decl):
    """A deck's `cards:` read from a spreadsheet (docs/spreadsheets.md)."""

    __what__ = "a spreadsheet source"
    __doc_title__ = "spreadsheet source"

    file: str | None = opt(Text(nonempty=True), "a .csv, .tsv, .xlsx, .xlsm or .ods file, relative to the deck "
                                                "file", None)
    sheet: str | int | None = opt(SheetRef(), "the workbook's sheet (tab) to read: its name, or its position "
                                              "counted from 1 (`2`, or `\"#2\"`)", None,
                                  default_doc="the first sheet")
    url: str | None = opt(Text(nonempty=True), "a published Google Sheet's CSV link (`https://...output=csv`)",
                          None)
    columns: dict | None = opt(MapOf(Text(nonempty=True), "field"), "which column gives which field, where the "
                               "headers are not the field names: `{name: Title, count: Qty, text: Description}` "
                               "(field: header, headers in any case)", None, default_doc="none")
    separator: str = opt(Text(nonempty=True, max_length=5), "splits the cells of list columns (a header "
                                                           "ending in `[]`, e.g. `tags[]`)", ";")
    encoding: str = opt(Text(nonempty=True), "a CSV file's encoding when it is not UTF-8 (e.g. cp1252, latin-1, "
                        "utf-16; text encodings only)",
                        "utf-8")
    refresh_after: float = opt(Number(min=0, max=100_000), "minutes a fetched Google Sheet is reused before "
                                                            "it is fetched again (`--refresh` fetches now)", 5.0,
                               default_doc="5")


# -- rules.yaml -----------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class ComponentEntry(Decl):
    """One entry of rules.yaml's `components:` (docs/rules-format.md, part 1)."""

    __what__ = "a component entry"
    __doc_title__ = "component entry"

    deck: str | None = opt(_TEXT, "the deck this entry is about (its deck file's `deck:` name)", None)
    decks: tuple | None = opt(ListOf(_TEXT, min_items=1), "several decks that each have this same breakdown",
                              None)
    item: str | None = opt(_TEXT, "a component that is not a card deck (tokens, dice, boards): made by the "
                                  "component file of that name (docs/components.md), else marked `bought:`", None)
    quote: str | None = opt(_TEXT, "the rules document's own wording", None)
    total: tuple | None = opt(RuleCount(plus=True), "the deck's cards in all: N, \"N+\" (at least N) or tbd",
                              None)
    cards: dict | None = opt(MapOf(RuleCount(), "card name"), "named cards and their counts: {NAME: N, ...}",
                             None)
    others: tuple | None = opt(RuleCount(), "copies of every card not named under `cards:`", None)
    by: str | None = opt(Text(nonempty=True), "the card field that groups the deck's cards (type, kind, ...)",
                         None)
    groups: dict | None = opt(MapOf(RuleCount(), "field value"), "with `by:`, copies per group: {VALUE: N, ...}",
                              None)
    each: tuple | None = opt(RuleCount(), "with `by:`, copies in every group", None)
    types: tuple | None = opt(RuleCount(), "with `by:`, how many groups there are", None)
    count: tuple | None = opt(RuleCount(plus=True), "for an `item:`, how many", None)
    silent: str | None = opt(_TEXT, "the document gives no counts for this deck or item; say so here (`validate` "
                                    "warns at it, with the count printed)", None)
    bought: str | None = opt(_TEXT, "for an `item:`: bought or taken from another game (standard dice, pawns, "
                                    "cubes): listed, not printed; say what to get", None)


@dataclass(frozen=True, kw_only=True)
class RulesFile(Decl):
    """The keys of rules.yaml."""

    __what__ = "rules.yaml"
    __doc_title__ = "rules.yaml"

    source: str | None = opt(_TEXT, "which document the counts come from", None)
    components: list | None = opt(ComponentList(), "the component list as the rules document states it "
                                                   "(docs/rules-format.md, part 1)", None)
    title: str | None = opt(_TEXT, "the booklet's title", None, default_doc="game.yaml's title")
    subtitle: str | None = opt(_TEXT, "a line under the title", None, default_doc="game.yaml's subtitle")
    players: str | None = opt(_TEXT, "player count, e.g. 2-4", None, default_doc="game.yaml's")
    play_time: str | None = opt(_TEXT, "play time, e.g. 30-45 min", None, default_doc="game.yaml's")
    ages: str | None = opt(_TEXT, "suggested ages, e.g. 12+", None, default_doc="game.yaml's")
    intro: str | None = opt(_TEXT, "one paragraph: what the game is about", None)
    sections: list | None = opt(FreeList("sections"), "the rules, a list of sections with `title:` and `body:`",
                                None)
    player_aid: dict | None = opt(FreeMap("turn, end, notes, count and item"), "the one-card player aid: "
                                                                                    "`turn:`, `end:`, `notes:`; "
                                                                                    "`count:` copies on the print "
                                                                                    "sheets (one per player); "
                                                                                    "`item:` the component it is",
                                  None)


RULES_PART1 = ("source", "components")       # the component list; the other keys make the rulebook

# The rulebook's own mappings (read by `cardgen.layout.rulebook`, which reports their problems).

_TEXTS = OneOf((_TEXT, ListOf(_TEXT)), "must be text or a list of texts, got {value}")


@dataclass(frozen=True, kw_only=True)
class RulebookSection(Decl):
    """A section of the rulebook."""

    __what__ = "a section"
    __doc_title__ = "rulebook section"

    title: str = opt(_TEXT, "the section's heading")
    body: list | None = opt(FreeList("blocks"), "a list of blocks: paragraphs (text), `steps:`, `bullets:`, "
                                                "`table:`, `callout:`, `figure:` or a nested `section:`", None)


@dataclass(frozen=True, kw_only=True)
class RulebookTable(Decl):
    """A table of the rulebook."""

    __what__ = "a table"
    __doc_title__ = "rulebook table"

    header: tuple | None = opt(ListOf(_TEXT), "the column headings", None)
    rows: list | None = opt(FreeList("rows (lists)"), "the rows, each a list of cells", None)


CALLOUT_KINDS = ("example", "tip", "note")


@dataclass(frozen=True, kw_only=True)
class RulebookCallout(Decl):
    """A callout of the rulebook."""

    __what__ = "a callout"
    __doc_title__ = "rulebook callout"

    kind: str = opt(Choice(CALLOUT_KINDS), "example, tip or note", "note")
    title: str | None = opt(_TEXT, "a heading for the box", None, default_doc="the kind, capitalised")
    text: str = opt(_TEXT, "the box's text", "", default_doc="none")


FIGURE_KINDS = ("card", "hand", "component")


@dataclass(frozen=True, kw_only=True)
class RulebookFigure(Decl):
    """A figure of the rulebook: a card, a hand or a component drawn as it prints."""

    __what__ = "a figure"
    __doc_title__ = "rulebook figure"

    card: str | None = opt(_TEXT, "a card's (or a piece's) name: that card, drawn as it prints", None)
    hand: tuple | None = opt(ListOf(_TEXT, min_items=1, max_items=20), "cards' names: the cards fanned out as a "
                             "hand holds them, the first on the left", None)
    component: str | None = opt(_TEXT, "a deck's or component file's name (`deck:`): its cards or pieces side by "
                                "side (8 at most)", None)
    deck: str | None = opt(_TEXT, "the deck the names are looked up in (where two decks have a card of the same "
                           "name)", None, default_doc="the first card of that name, in deck order")
    back: bool = opt(Bool(), "draw the card's back instead of its face (`card:` and `hand:`)", False)
    width: float | None = opt(Length(min=5, max=200, to="mm"), "each card's width in the booklet", None,
                              default_doc="38 mm for a card, 30 mm in a hand, up to 25 mm in a component's row; "
                                          "smaller if it does not fit the column")
    caption: str | None = opt(_TEXT, "a line under the figure (markup and `{{ }}` as in any rules text)", None)


@dataclass(frozen=True, kw_only=True)
class PlayerAid(Decl):
    """The player aid in rules.yaml."""

    __what__ = "player_aid"
    __doc_title__ = "player aid"

    turn: tuple | None = opt(_TEXTS, "the turn, in order (front)", None)
    end: tuple | None = opt(_TEXTS, "how the game ends (back)", None)
    notes: tuple | None = opt(_TEXTS, "reminders (back)", None)
    count: int | None = opt(Int(min=0, max=MAX_COUNT), "copies on the print sheets and in the print-service PNGs; "
                                                       "0 leaves it off them", None,
                            default_doc="one per player: the largest number in game.yaml's `players` (4 for 2-4), "
                                        "else 1")
    item: str | None = opt(_TEXT, "the component-list `item:` this aid is (a summary card the document lists): "
                                  "`validate` counts that item as made by the player aid", None)
