"""Load a game folder: the YAML in `cards/<game>/` into `cardgen.model.game` objects.

A game is a folder with `game.yaml`, one YAML file per deck and optionally
`rules.yaml`; it may carry its own `templates/`, `art/` and `fonts/`, which are
searched before the project's.  Every value is converted and checked by the declarations
in `cardgen.schema.files`; every problem is reported at once, at its `file:line:col`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from cardgen.core import gitinfo, limits, words
from cardgen.core.confusables import bidi_controls, describe, without_bidi
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.core.names import slugify, unique_slugs
from cardgen.core.paths import PathRefused, too_deep
from cardgen.core.sizes import CardSize
from cardgen.load import overrides, refs
from cardgen.load.components import die_faces, piece_size
from cardgen.load.declared import file_diagnostics
from cardgen.load.declared import safe_key as _safe
from cardgen.load.project import find_project, game_project, resolve_games
from cardgen.load.rules import rules_from
from cardgen.load.translations import localize, scan, split
from cardgen.load.yamlsrc import YDict, YList, load_file
from cardgen.model.game import BUNDLED, Card, Deck, Game
from cardgen.model.refs import FileRef
from cardgen.schema.core import STATIC_ENV, Invalid
from cardgen.schema.files import CardKeys, CardSizeKind, DeckFile, GameFile
from cardgen.schema.languages import PSEUDO, declared_languages, name_of, norm

__all__ = ["BUNDLED", "Card", "Deck", "Game", "deck_files", "find_project", "game_project", "load_deck", "load_game",
           "parse_size", "resolve_games", "slugify"]

NON_DECK_FILES = {"game.yaml", "rules.yaml", "cardgen.yaml"}
GAME_FIXED = ("languages", "language", "decks")     # game.yaml keys never translated
DECK_FIXED = ("deck", "cards")          # a deck's name is how rules.yaml and the outputs name it
CARD_FIXED = ("count", "id")            # the same copies and identity in every language
DECK_SUFFIXES = (".yaml", ".yml")


def parse_size(value, loc: Loc) -> CardSize:
    """A card size as game.yaml's `card_size:` or a deck's `size:` takes it."""
    try:
        return CardSizeKind().convert(value, STATIC_ENV)
    except Invalid as exc:
        raise CardgenError(loc, f"card size {exc.message}") from None


def _mapping(value, loc: Loc, what: str) -> YDict:
    if not isinstance(value, YDict):
        raise CardgenError(loc, f"{what} must be a mapping of keys to values")
    return value


def _one_typo(a: str, b: str) -> bool:
    """`a` is `b` with one letter wrong, missing, extra, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def misspelt_reserved(key: Any) -> str | None:
    """The reserved card key (`name`, `count`, `back`) that `key` looks like a typo of."""
    if not isinstance(key, str) or key in CardKeys.options() or len(key) < 3:
        return None
    return _misspelt(key)


@cache
def _misspelt(key: str) -> str | None:      # (asked for every key of every card: a deck repeats them)
    for reserved in CardKeys.options():
        if _one_typo(key.lower(), reserved):
            return reserved
    return None


def _count(value: Any, loc: Loc, who: str) -> int:
    try:
        return CardKeys.options()["count"][1].kind.convert(value, STATIC_ENV)
    except Invalid as exc:
        raise CardgenError(loc, f"{who}: count {exc.message}", code="count") from None


def _sheet_cache(project: Path, slug: str) -> Path:
    from cardgen.load import sheets

    return sheets.cache_dir(project, slug)


def load_deck(path: Path, game_size: CardSize, game_bleed: float, report: Report,
              problems: list[Diagnostic] | None = None, sections: Mapping[str, str] | None = None,
              sheet_cache: Path | Callable[[], Path] | None = None,
              find: Callable[[str, Loc], Path] | None = None, lang: str | None = None,
              languages: tuple[str, ...] | None = None) -> Deck:
    """Load one deck file. Problems are collected: into `problems` if given (the deck is
    returned without what is broken), else raised together at the end.  Problems that leave
    no deck to speak of raise at once.  `sections`: output keys allowed in a deck file (none
    if not given).
    `sheet_cache`: where a deck whose cards are a Google Sheet keeps its fetched copy (or
    what works it out, asked only then).  `find`: a file the deck names (a path piece's
    .svg), found in the game's folders (`_finder`).  `lang`: the language to read it in (its
    `FIELD@LANG` values, `cardgen.load.translations`; None: the source), `languages`: game.yaml's."""
    collect = problems is not None
    if problems is None:
        problems = []
    data, opts, name, raw = _deck_file(path, report, problems, sections, lang, languages)
    raw_defaults = raw.get("defaults") if raw is not data and isinstance(raw.get("defaults"), dict) else None
    size = piece_size(opts, data, game_size, problems, find)     # a card's, a token's, a tile's or a board's
    defaults = opts.defaults or {}
    cards_data = _cards_data(data, path, name, report, sheet_cache)
    default_count = _default_count(data, defaults, name, problems)
    cards: list[Card] = []
    seen: dict[str, Loc] = {}
    for i, cd in enumerate(cards_data):
        cloc = cards_data.item_loc(i) if isinstance(cards_data, YList) else data.loc
        card = _card(cd, i, cloc, name, opts, default_count, seen, report, problems, lang, languages, raw_defaults)
        if card is not None:
            cards.append(card)
    die_faces(opts, data, cards, problems)      # a die's six faces, once per die
    if problems and not collect:
        raise CardgenError(None, diagnostics=problems)
    back_key = "back" if opts.back else ("backs" if opts.backs else None)
    return Deck(
        name=name, file=path, template=opts.template, template_loc=data.value_loc("template"),
        back=opts.back or None, backs=opts.backs or None,
        back_loc=data.value_loc(back_key) if back_key else None,
        size=size, bleed=opts.bleed if opts.bleed is not None else game_bleed, cards=cards,
        data=data, slug=slugify(name), opts=opts, shown=_shown_name(raw, lang), raw=raw,
    )


def _shown_name(raw: YDict, lang: str | None) -> str:
    """A deck's `deck@LANG` (docs/languages.md): its name as the outputs show it in `lang`; ""
    for none (its `deck:`, which stays how everything names it, in every language)."""
    for key, value in raw.items() if lang else ():
        parts = split(key)
        if parts is not None and parts[0] == "deck" and norm(parts[1]) == norm(lang or "") \
                and isinstance(value, (str, int, float)) and str(value).strip():
            return without_bidi(str(value))
    return ""


def _deck_file(path: Path, report: Report, problems: list[Diagnostic], sections: Mapping[str, str] | None,
               lang: str | None = None, languages: tuple[str, ...] | None = None
               ) -> tuple[YDict, DeckFile, str, YDict]:
    """The deck file's mapping (in language `lang`; its cards as written), its declared options,
    its name (bidirectional controls taken out) and its mapping with every language's values;
    what leaves no deck raises."""
    data = load_file(path)
    if data is None:
        raise CardgenError(Loc(str(path), 1), "empty deck file; a deck needs `deck:`, `template:` and `cards:`")
    data = _mapping(data, Loc(str(path), 1), "a deck file")
    what = f"deck file {path.name}"
    report.extend(scan({k: v for k, v in data.items() if k != "cards"}, languages, what, ("cards",)))
    raw = data
    data = localize(raw, lang, DECK_FIXED)
    unknown, wrong = file_diagnostics(DeckFile, data, what, sections)
    report.extend(unknown)
    fatal = [d for d in wrong if d.code == "missing-key"
             or any(d.loc == data.value_loc(k) for k in ("deck", "template", "cards") if k in data)]
    if fatal:
        raise CardgenError(None, diagnostics=fatal)
    opts = DeckFile.load_unchecked(data)
    name = _without_bidi(opts.deck, data.value_loc("deck"), f"{what}, `deck:`", report)
    if opts.back and opts.backs:
        raise CardgenError(data.key_loc("backs"), f"deck '{name}' has both `back:` (one shared back) and "
                                                  f"`backs:` (per-card backs); keep one")
    problems.extend(wrong)
    return data, opts, name, raw


def _cards_data(data: YDict, path: Path, name: str, report: Report,
                sheet_cache: Path | Callable[[], Path] | None) -> Any:
    """The deck's `cards:`: the list as written, or a spreadsheet's rows as cards (imported
    here: most games have none)."""
    cards_data = data["cards"]
    if isinstance(cards_data, list):
        return cards_data
    from cardgen.load import sheets

    cache = sheet_cache() if callable(sheet_cache) else sheet_cache
    return sheets.read_cards(cards_data, path, data.value_loc("cards"), report, cache, f"deck '{name}'")


def _default_count(data: YDict, defaults: Mapping, name: str, problems: list[Diagnostic]) -> int | None:
    """`defaults:`'s `count:`, or None (none given, or invalid: reported)."""
    if "count" not in defaults:
        return None
    try:
        return _count(defaults["count"], defaults.value_loc("count") if isinstance(defaults, YDict)
                      else data.value_loc("defaults"), f"deck '{name}': `defaults:`")
    except CardgenError as exc:
        problems.extend(exc.diagnostics)
        return None


def _warn_misspelt(cd: YDict, deck: str, label: str, report: Report) -> None:
    for key in cd:
        reserved = misspelt_reserved(key)
        if reserved and reserved not in cd:
            report.warn(cd.key_loc(key), f"deck '{deck}': {label}: unknown key '{key}'; did you mean "
                                         f"'{reserved}'? (cards may carry any fields for their templates, "
                                         f"but this looks like a misspelt `{reserved}:`, which cardgen "
                                         f"reads itself)", "card-key")


def _card_count(cd: YDict, cname: str, defaults: Mapping, default_count: int | None,
                problems: list[Diagnostic]) -> tuple[int, bool]:
    """The card's copies and whether its count is valid (an invalid one counts as 0)."""
    if "count" in cd:
        try:
            return _count(cd["count"], cd.value_loc("count"), f"card '{cname}'"), True
        except CardgenError as exc:
            problems.extend(exc.diagnostics)
            return 0, False
    if "count" in defaults:
        return (0, False) if default_count is None else (default_count, True)
    return 1, True


def _card(cd: Any, i: int, cloc: Loc, name: str, opts: DeckFile, default_count: int | None, seen: dict[str, Loc],
          report: Report, problems: list[Diagnostic], lang: str | None = None,
          languages: tuple[str, ...] | None = None, raw_defaults: Mapping | None = None) -> Card | None:
    """One card of deck `name`, or None (its problem reported); in language `lang` (None: the
    source).  `raw_defaults`: the deck's `defaults:` with every language's values."""
    defaults = opts.defaults or {}
    if raw_defaults is None:
        raw_defaults = defaults
    if not isinstance(cd, YDict):
        problems.append(Diagnostic(cloc, f"deck '{name}': card #{i + 1} must be a mapping with at least "
                                         f"`name:`", "error", "card"))
        return None
    raw = cd
    for d in scan(raw, languages, f"deck '{name}'", CARD_FIXED):
        report.warn(d.loc, d.message, d.code, group=d.message, card=f"#{i + 1}, {d.loc.brief}")
    cd = localize(raw, lang, CARD_FIXED)
    label = f"card '{cd['name']}'" if isinstance(cd.get("name"), (str, int, float)) else f"card #{i + 1}"
    _warn_misspelt(cd, name, label, report)
    if "name" not in cd or cd["name"] in (None, ""):
        problems.append(Diagnostic(cloc, f"deck '{name}': card #{i + 1} has no `name:`; every card needs one",
                                   "error", "card"))
        return None
    bad = {path[0]: msg for path, msg in CardKeys.problems(cd) if path}
    if "name" in bad:
        problems.append(Diagnostic(cd.value_loc("name"), f"deck '{name}': card #{i + 1}: {bad['name']}",
                                   "error", "card"))
        return None
    card_label = f"deck '{name}': card '{without_bidi(str(cd['name']))}'"
    # (a text in ASCII holds no control character: its place and label are not made)
    own = {key: value if _plain_ascii(value) else _without_bidi(value, cd.value_loc(key), f"{card_label}, `{key}:`",
                                                                report) for key, value in cd.items()}
    cname = str(own["name"])
    source = cname if raw is cd else without_bidi(str(raw.get("name")))
    count, count_ok = _card_count(cd, cname, defaults, default_count, problems)
    if source in seen:
        report.error(raw.value_loc("name"), f"deck '{name}': duplicate card name '{source}' "
                                            f"(also at line {seen[source].line}); give each card its own "
                                            f"name or raise the first one's count", "duplicate-card")
    seen.setdefault(source, raw.value_loc("name"))
    fields = dict(defaults)
    fields.update(own)
    fields["name"] = cname
    fields["count"] = count
    back_fields = None
    if "back" in cd:
        if "back" in bad:
            problems.append(Diagnostic(cd.value_loc("back"), f"card '{cname}': `back:` must be a mapping of "
                                                             f"keys to values", "error", "card"))
            return None
        if not opts.backs:
            report.error(cd.key_loc("back"), f"card '{cname}' has its own `back:` fields but deck '{name}' "
                                             f"has no `backs:` template to draw them; add `backs: <template>` "
                                             f"to the deck", "back-fields")
        back_fields = dict(fields)
        back_fields.update(own["back"])
    elif opts.backs:
        back_fields = dict(fields)
    every = _every_language(raw, cd, raw_defaults, defaults, opts, source, count)
    return Card(source, count, fields, cloc, i, cd, back_fields, count_ok, every_language=every,
                raw=raw if every is not None else None)


def _every_language(raw: YDict, cd: YDict, raw_defaults: Mapping, defaults: Mapping, opts: DeckFile, source: str,
                    count: int) -> tuple[dict, dict | None] | None:
    """A translated card's fields and back's fields with every language's values (what its
    revision follows, the same in every language's build); None for a card with no translation."""
    if raw is cd and raw_defaults is defaults:
        return None
    fields = {**raw_defaults, **raw, "name": source, "count": count}
    back = None
    if isinstance(raw.get("back"), dict):
        back = {**fields, **raw["back"]}
    elif opts.backs:
        back = dict(fields)
    return fields, back


def deck_files(root: Path) -> list[Path]:
    """Every deck file of a game folder: its `*.yaml` and `*.yml` files but game.yaml, rules.yaml
    and cardgen.yaml (either spelling), by name.  Subfolders (templates/, art/, build/) hold no decks;
    a folder named like a deck file (`x.yaml/`) is kept, so that loading it says what is wrong."""
    return sorted((p for p in root.iterdir()
                   if p.suffix in DECK_SUFFIXES and p.with_suffix(".yaml").name not in NON_DECK_FILES),
                  key=lambda p: p.name)


def deck_files_or_none(root: Path) -> list[Path]:
    try:
        return deck_files(root)
    except OSError:
        return []


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _listed_deck(root: Path, name: str) -> Path | None:
    """The file a `decks:` entry names: `name` as given if it ends in .yaml/.yml, else with either."""
    candidates = [root / name] if Path(name).suffix in DECK_SUFFIXES else [root / (name + s) for s in DECK_SUFFIXES]
    return next((p for p in candidates if p.is_file()), None)


def _check_names(root: Path) -> None:
    """The game folder's name and its deck files' names must be UTF-8 text."""
    for named in (root.resolve(), *deck_files_or_none(root)):
        if not _utf8(named.name):
            raise CardgenError(Loc(str(named)), "this name is not valid UTF-8 text (made on another system?); "
                                                "rename it", code="name")


def _game_file(root: Path, roots: tuple[Path, ...]) -> FileRef:
    """game.yaml, confined (a link pointing out of the game folder is refused)."""
    game_file = root / "game.yaml"
    if not game_file.is_file():
        raise CardgenError(Loc(str(root)), "not a game folder: no game.yaml here")
    deep = too_deep(root)
    if deep is not None:
        raise CardgenError(Loc(str(deep)), f"this folder is nested more than {limits.MAX_FOLDER_DEPTH} folders deep in "
                                           f"the game folder; move it out or flatten it (limit "
                                           f"CARDGEN_MAX_FOLDER_DEPTH)", code="too-deep")
    try:
        return refs.confined(game_file, roots, "game", "game.yaml", "game.yaml", loc=Loc(str(game_file), 1))
    except PathRefused as exc:
        raise CardgenError(Loc(str(game_file)), str(exc), code="path") from None


def _read_game_file(game_file: Path) -> YDict:
    data = load_file(game_file)
    if data is None:
        data = YDict()
        data.loc, data.key_locs, data.value_locs = Loc(str(game_file), 1), {}, {}
    return _mapping(data, Loc(str(game_file), 1), "game.yaml")


def _icon_aliases(game: Game, problems: list[Diagnostic]) -> None:
    """game.yaml's `icons:` aliases, checked as written (the files are looked up where an icon
    is drawn, `cardgen.resources.icons`)."""
    aliases = game.data.get("icons")
    if not isinstance(aliases, YDict):
        return
    for alias, target in aliases.items():
        if isinstance(target, str):
            try:
                refs.check_written(target, f"icon alias '{_safe(alias)}' file")
            except PathRefused as exc:
                problems.append(Diagnostic(aliases.value_loc(alias), str(exc), "error", "path"))
                continue
        game.icon_aliases[str(alias)] = FileRef("icon", None, str(target), aliases.value_loc(alias))


def _listed_decks(game: Game, found: list[Path], report: Report, problems: list[Diagnostic]) -> list[Path]:
    """The deck files game.yaml's `decks:` lists, in its order; a deck file it does not list is
    warned of."""
    root, listed = game.root, game.data["decks"]
    paths = []
    for i, name in enumerate(listed if isinstance(listed, list) else []):
        if not isinstance(name, (str, int, float)) or isinstance(name, bool) or not str(name).strip():
            continue        # reported above
        try:
            refs.check_written(str(name), "deck file")
        except PathRefused as exc:
            problems.append(Diagnostic(listed.item_loc(i), str(exc), "error", "path"))
            continue
        p = _listed_deck(root, str(name))
        if p is None:
            problems.append(Diagnostic(listed.item_loc(i), f"deck file '{name}' not found in {root.name}/",
                                       "error", "deck-file"))
            game.broken.append(root / str(name))
            continue
        paths.append(p)
    if isinstance(listed, list):
        for p in found:
            if p not in paths:
                report.warn(Loc(str(p), 1), f"deck file {p.name} is not built: game.yaml's `decks:` does not "
                                            f"list it; add '{p.stem}' to `decks:` (or move the file out of "
                                            f"{root.name}/)", "unlisted-deck")
    return paths


def _finder(game: Game) -> Callable[[str, Loc], Path]:
    """What finds a file a deck file names (a path piece's .svg): in the game's folder or its
    project's, confined to its roots, and kept in `game.files` (a change rebuilds)."""
    def find(ref: str, loc: Loc) -> Path:
        try:
            found = refs.find(ref, (game.root, game.project), game.roots, "shape", "path file", loc=loc)
        except PathRefused as exc:
            raise CardgenError(loc, str(exc), code="path") from None
        if found.path is None:
            raise CardgenError(loc, f"path file '{ref}' not found in the game folder", code="component")
        game.files.append(found)
        return found.path
    return find


def _load_decks(game: Game, paths: list[Path], report: Report, problems: list[Diagnostic], tolerant: bool,
                deck_sections: Mapping[str, str]) -> None:
    """Each deck file confined and loaded into `game.decks`; two decks may not share a name."""
    names: dict[str, Path] = {}
    for p in paths:
        try:
            game.files.append(refs.confined(p, game.roots, "deck", "deck file", p.name, Loc(str(p), 1)))
        except PathRefused as exc:
            problems.append(Diagnostic(Loc(str(p)), str(exc), "error", "path"))
            game.broken.append(p)
            continue
        try:
            deck = load_deck(p, game.opts.card_size, game.opts.bleed, report, problems if tolerant else None,
                             sections=deck_sections, sheet_cache=lambda: _sheet_cache(game.project, game.slug),
                             find=_finder(game), lang=game.translation, languages=game.opts.languages)
        except CardgenError as exc:
            problems.extend(exc.diagnostics)
            game.broken.append(p)
            continue
        if deck.name in names:
            problems.append(Diagnostic(deck.data.value_loc("deck"), f"two decks are named '{deck.name}' "
                                                                    f"(also {names[deck.name].name}); rename one",
                                       "error", "duplicate-deck"))
            continue
        names[deck.name] = p
        game.decks.append(deck)


def _check_copies(game: Game, problems: list[Diagnostic]) -> None:
    """Copies in all: each card's count is bounded, but 100 cards of 10,000 copies are a million."""
    total = 0
    for deck in game.decks:
        for card in deck.cards:
            total += card.count if isinstance(card.count, int) else 0
            if total > limits.MAX_COPIES:
                problems.append(Diagnostic(card.field_loc("count"), f"card '{card.name}' brings the game to more "
                                                                     f"than {limits.MAX_COPIES:,} copies in all; "
                                                                     f"lower the counts (limit CARDGEN_MAX_COPIES)",
                                           "error", "copies"))
                return


def _load_rules(game: Game, report: Report, problems: list[Diagnostic]) -> None:
    """rules.yaml, if the game has one, confined and read once into `game.rules`."""
    rules = game.root / "rules.yaml"
    if rules.exists() and not rules.is_file():
        problems.append(Diagnostic(Loc(str(rules)), "rules.yaml is not a file (a folder?); make it a YAML file "
                                                    "or remove it", "error", "rules-file"))
    elif rules.is_file():
        try:
            game.files.append(refs.confined(rules, game.roots, "rules", "rules.yaml", "rules.yaml",
                                            Loc(str(rules), 1)))
            data = load_file(rules)
            report.extend(scan(data, game.opts.languages, "rules.yaml"))
            game.rules = rules_from(localize(data, game.translation), rules, report)
            if game.rules is not None and isinstance(data, YDict):
                game.rules.raw = data
        except PathRefused as exc:
            problems.append(Diagnostic(Loc(str(rules)), str(exc), "error", "path"))
            game.broken.append(rules)
        except CardgenError as exc:
            problems.extend(exc.diagnostics)
            game.broken.append(rules)


def load_game(root: Path, project: Path, report: Report | None = None, tolerant: bool = False, *,
              sections: Mapping[str, str], deck_sections: Mapping[str, str], lang: str | None = None,
              sets: Sequence[str] = ()) -> Game:
    """Load a game folder. Problems raise CardgenError (all of them at once, not just the
    first); unknown keys and warnings go to `report`.  With `tolerant`, every problem goes to
    `report` and the game comes back with what could be loaded (the validator uses this to
    report everything); only a game.yaml that is not a mapping still raises.
    `sections` / `deck_sections`: the output sections (key -> one-line doc) game.yaml and deck
    files may carry, from the outputs' declarations (`cardgen.pipeline.check.sections`: the
    loader does not know the outputs); they are checked by the outputs' `section_problems`.
    Every file game.yaml names is resolved and confined here, once (`cardgen.load.refs`).
    `lang`: the language to read every file in, one of game.yaml's `languages:` or the
    pseudo-locale `qps` (docs/languages.md); default: the source language.  `sets`: the
    build's `--set KEY=VALUE` over game.yaml (`cardgen.load.overrides`; a bad one raises)."""
    report = report if report is not None else Report()
    root = Path(root)
    _check_names(root)
    roots = refs.roots_for(root, project)
    game_ref = _game_file(root, roots)
    game_file = root / "game.yaml"
    raw = _read_game_file(game_file)
    languages = declared_languages(raw)
    lang = _language(lang, languages, raw)
    report.extend(scan(raw, languages, "game.yaml", GAME_FIXED))
    data = localize(raw, lang if languages and lang and norm(lang) != norm(languages[0]) else None, GAME_FIXED)
    data, set_values = overrides.apply(data, sets)
    unknown, problems = file_diagnostics(GameFile, data, "game.yaml", sections)
    report.extend(unknown)
    opts = GameFile.load_unchecked(data)
    game = Game(slug=root.resolve().name, root=root, project=project, data=data, opts=opts, roots=roots,
                files=[game_ref], lang=lang, sets=set_values, raw=raw)
    _words_warning(game, raw, report)
    # game.yaml's `version:` (even empty), else what git says of the folder (`git describe`)
    game.version = (opts.version or "") if "version" in data else (gitinfo.describe(root) or "")
    _icon_aliases(game, problems)
    found = deck_files(root)
    paths = _listed_decks(game, found, report, problems) if "decks" in data else found
    _load_decks(game, paths, report, problems, tolerant, deck_sections)
    _check_copies(game, problems)
    # file names made from deck names: bounded, and `Action` and `ACTION!` stay two decks
    for deck, slug in zip(game.decks, unique_slugs([d.name for d in game.decks])):
        deck.slug = slug
    _load_rules(game, report, problems)
    if problems:
        if not tolerant:
            raise CardgenError(None, diagnostics=sorted(problems, key=Diagnostic.sort_key))
        report.extend(problems)
    return game


def _words_warning(game: Game, raw: YDict, report: Report) -> None:
    """Said once per language built: cardgen has no words of its own in the language (the
    booklet's headings, the sheets' notes: `cardgen.core.words`) and game.yaml gives not all of
    them, so those are printed in English."""
    lang = game.text_language
    if words.bundled(lang):
        return
    missing = [t for t in words.texts() if t not in game.words.own]
    if not missing:
        return
    key = "languages" if game.languages else "language"
    where = raw.value_loc(key) if key in raw else raw.loc
    own = "words" if not game.languages or norm(lang) == norm(game.languages[0]) else f"words@{lang}"
    some = "what" if len(missing) == len(words.texts()) else f"{len(missing)} of the {len(words.texts())} texts"
    report.warn(where, f"cardgen has no {name_of(lang)} words of its own: {some} it prints itself in the "
                       f"{name_of(lang)} build (the booklet's headings, the print sheets' and tuck boxes' notes, the "
                       f"gallery's labels) will be in English; give them in game.yaml as `{own}:` (`cardgen i18n "
                       f"words --lang {lang}` lists them, docs/languages.md#cardgens-own-words)", "words")


def _language(lang: str | None, languages: tuple[str, ...] | None, data: YDict) -> str | None:
    """The language a game is loaded in, as game.yaml spells it: `lang` (a build's `--lang`),
    else the source language; None for a game without `languages:` loaded in its own."""
    if lang is None:
        return languages[0] if languages else None
    if norm(lang) == PSEUDO:
        return PSEUDO
    for code in languages or ():
        if norm(code) == norm(lang):
            return code
    where = data.value_loc("languages") if "languages" in data else data.loc
    if not languages:
        raise CardgenError(where, f"--lang {lang}: game.yaml declares no `languages:`; add `languages: "
                                  f"[<source language>, {lang}]` ({name_of(lang)}) to translate the game, or build "
                                  f"--lang {PSEUDO} (the pseudo-locale) without a translation", code="language")
    raise CardgenError(where, f"--lang {lang}: not one of game.yaml's `languages:` ({', '.join(languages)}); "
                              f"add it there, or build --lang {PSEUDO} (the pseudo-locale)", code="language")


def diagnostics_of(exc: CardgenError) -> list[Diagnostic]:
    return exc.diagnostics


def _plain_ascii(value: Any) -> bool:
    """A value `_without_bidi` gives back as it is without looking: a text in ASCII (no control
    character is), a number, true or false, or null."""
    return (value.isascii() if isinstance(value, str) else
            value is None or type(value) is int or type(value) is float or type(value) is bool)


def _without_bidi(value, loc: Loc, what: str, report: Report):
    """`value` (a card field) with the bidirectional control characters (U+202A-202E,
    U+2066-2069, U+200E/U+200F) left out of its texts, each text that held one a warning at
    its line: the PDF draws characters in the order they are written, the gallery and Tabletop
    Simulator reorder them, so a right-to-left override would show two different texts.
    The value itself when it holds none."""
    if isinstance(value, str):
        found = bidi_controls(value) if not value.isascii() else None
        if not found:
            return value
        chars = ", ".join(describe(c) for c in found)
        report.warn(loc, f"{what} holds the bidirectional control character{'s' if len(found) > 1 else ''} "
                         f"{chars}, which would reorder the text in the gallery and Tabletop Simulator but not in "
                         f"the PDF; cardgen leaves {'them' if len(found) > 1 else 'it'} out (write the text in "
                         f"the order it reads)", "bidi-control")
        return without_bidi(value)
    if isinstance(value, dict):
        out = {k: _without_bidi(v, value.value_loc(k) if isinstance(value, YDict) else loc, what, report)
               for k, v in value.items()}
        return value if all(out[k] is v for k, v in value.items()) else out
    if isinstance(value, list):
        items = [_without_bidi(v, value.item_loc(i) if isinstance(value, YList) else loc, what, report)
                 for i, v in enumerate(value)]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value
