"""Games, decks and cards: the YAML in `cards/<game>/` as plain data.

A game is a folder with `game.yaml`, one YAML file per deck and optionally
`rules.yaml`; it may carry its own `templates/`, `art/` and `fonts/`, which are
searched before the project's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cardgen.schema import keys as schema
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.core.sizes import CARD_SIZES_MM, DEFAULT_BLEED_MM, CardSize
from cardgen.core.units import UnitError, length_mm
from cardgen.load.yamlsrc import YDict, YList, load_file

NON_DECK_FILES = {"game.yaml", "rules.yaml"}
BUNDLED = Path(__file__).resolve().parents[2]  # where cardgen's own fonts/, art/, templates/ live


@dataclass
class Card:
    name: str
    count: int
    fields: dict            # every field, deck defaults merged under the card's own
    loc: Loc                # where the card starts
    index: int              # position in its deck
    data: YDict             # the card's own mapping, for locations
    back_fields: dict | None = None
    count_ok: bool = True   # False when `count:` was invalid (reported; counted as 0)

    def field_loc(self, key) -> Loc:
        return self.data.value_loc(key) if key in self.data else self.loc


@dataclass
class Deck:
    name: str
    file: Path
    template: str
    template_loc: Loc
    back: str | None            # shared back template
    backs: str | None           # per-card back template
    back_loc: Loc | None
    size: CardSize
    bleed: float                # mm
    cards: list[Card]
    data: YDict
    slug: str = ""

    @property
    def loc(self) -> Loc:
        return self.data.loc

    @property
    def count(self) -> int:
        return sum(c.count for c in self.cards)

    @property
    def has_backs(self) -> bool:
        return bool(self.back or self.backs)

    def context(self) -> dict:
        """What templates see as `deck`."""
        return {
            "name": self.name,
            "count": self.count,
            "distinct": len(self.cards),
            "size": {"name": self.size.name, "width": self.size.width, "height": self.size.height},
            "vars": dict(self.data.get("vars") or {}),
            "description": self.data.get("description", ""),
        }


@dataclass
class Game:
    slug: str                   # folder name, used for output paths
    root: Path                  # the game folder
    project: Path               # the project folder (templates/, art/, fonts/)
    data: YDict
    decks: list[Deck] = field(default_factory=list)
    rules: YDict | None = None
    broken: list[Path] = field(default_factory=list)   # files that failed to load (tolerant loading)

    @property
    def title(self) -> str:
        return str(self.data.get("title") or self.slug)

    @property
    def file(self) -> Path:
        return self.root / "game.yaml"

    def search_dirs(self, kind: str) -> list[Path]:
        """`templates`, `art` or `fonts` folders: the game's own first, then the project's, then
        the ones that come with cardgen (its fonts and icons work from any project)."""
        dirs = [self.root / kind, self.project / kind, BUNDLED / kind]
        out = []
        for d in dirs:
            if d not in out:
                out.append(d)
        return out

    def deck(self, name: str) -> Deck | None:
        for d in self.decks:
            if d.name == name or d.slug == name:
                return d
        return None

    def context(self) -> dict:
        """What templates see as `game`."""
        ctx = {k: v for k, v in self.data.items() if k not in ("decks",)}
        ctx.setdefault("title", self.slug)
        ctx["slug"] = self.slug
        ctx.setdefault("palette", {})
        ctx.setdefault("vars", {})
        ctx["decks"] = {d.name: d.context() for d in self.decks}
        return ctx


def slugify(name: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in str(name))
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-") or "deck"


def parse_size(value, loc: Loc) -> CardSize:
    if isinstance(value, str):
        key = value.strip().lower()
        if key not in CARD_SIZES_MM:
            raise CardgenError(loc, f"unknown card size '{value}'{schema.suggest(key, CARD_SIZES_MM)} "
                                    f"(named sizes: {', '.join(CARD_SIZES_MM)}; or give width and height)")
        w, h = CARD_SIZES_MM[key]
        return CardSize(w, h, key)
    if isinstance(value, dict):
        try:
            if "diameter" in value:
                d = length_mm(value["diameter"])
                size = CardSize(d, d, str(value.get("name", "")), "round")
            else:
                if "width" not in value or "height" not in value:
                    raise CardgenError(loc, "a card size needs width and height (or diameter for a round token)")
                size = CardSize(length_mm(value["width"]), length_mm(value["height"]), str(value.get("name", "")))
        except UnitError as exc:
            raise CardgenError(loc, f"card size: {exc}") from None
        if size.width <= 0 or size.height <= 0:
            raise CardgenError(loc, "a card size must be larger than zero")
        return size
    raise CardgenError(loc, "card size must be a name such as poker or a mapping with width and height")


def parse_bleed(value, loc: Loc) -> float:
    try:
        bleed = length_mm(value)
    except UnitError as exc:
        raise CardgenError(loc, f"bleed: {exc}") from None
    if bleed < 0 or bleed > 20:
        raise CardgenError(loc, f"bleed must be between 0 and 20 mm, got {value!r}")
    return bleed


def parse_count(value, loc: Loc, card: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise CardgenError(loc, f"card '{card}': count must be a whole number (0 to {schema.MAX_COUNT}), "
                                    f"got {value!r}", code="count")
    if value < 0:
        raise CardgenError(loc, f"card '{card}': count must not be negative, got {value}", code="count")
    if value > schema.MAX_COUNT:
        raise CardgenError(loc, f"card '{card}': count {value} is more than {schema.MAX_COUNT} copies; "
                                f"is a digit too many?", code="count")
    return value


def _mapping(value, loc: Loc, what: str) -> YDict:
    if not isinstance(value, dict):
        raise CardgenError(loc, f"{what} must be a mapping of keys to values")
    return value


def load_deck(path: Path, game_size: CardSize, game_bleed: float, report: Report,
              problems: list[Diagnostic] | None = None) -> Deck:
    """Load one deck file. Problems with single cards are collected: into `problems` if given
    (the deck is returned without the broken cards), else raised together at the end.
    Problems that leave no deck to speak of raise at once."""
    collect = problems is not None
    problems = problems if collect else []
    data = load_file(path)
    if data is None:
        raise CardgenError(Loc(str(path), 1), "empty deck file; a deck needs `deck:`, `template:` and `cards:`")
    data = _mapping(data, Loc(str(path), 1), "a deck file")
    report.extend(schema.unknown_keys(data, schema.DECK_KEYS, f"deck file {path.name}"))
    missing = [key for key in ("deck", "template", "cards") if key not in data]
    if missing:
        raise CardgenError(None, diagnostics=[
            Diagnostic(data.loc, f"deck file {path.name} has no `{key}:` ({schema.DECK_KEYS[key]})",
                       "error", "missing-key") for key in missing])
    name = str(data["deck"])
    if data.get("back") and data.get("backs"):
        raise CardgenError(data.key_loc("backs"), f"deck '{name}' has both `back:` (one shared back) and "
                                                  f"`backs:` (per-card backs); keep one")
    size = parse_size(data["size"], data.value_loc("size")) if "size" in data else game_size
    bleed = parse_bleed(data["bleed"], data.value_loc("bleed")) if "bleed" in data else game_bleed
    defaults = data.get("defaults") or {}
    if defaults:
        _mapping(defaults, data.value_loc("defaults"), "`defaults:`")
    cards_data = data["cards"]
    if not isinstance(cards_data, list):
        raise CardgenError(data.value_loc("cards"), f"deck '{name}': `cards:` must be a list of cards")
    cards: list[Card] = []
    seen: dict[str, Loc] = {}
    for i, cd in enumerate(cards_data):
        cloc = cards_data.item_loc(i) if isinstance(cards_data, YList) else data.loc
        if not isinstance(cd, dict):
            problems.append(Diagnostic(cloc, f"deck '{name}': card #{i + 1} must be a mapping with at least "
                                             f"`name:`", "error", "card"))
            continue
        if "name" not in cd or cd["name"] in (None, ""):
            problems.append(Diagnostic(cloc, f"deck '{name}': card #{i + 1} has no `name:`; every card needs one",
                                       "error", "card"))
            continue
        cname = str(cd["name"])
        count_ok = True
        count = 1
        if "count" in cd:
            try:
                count = parse_count(cd["count"], cd.value_loc("count"), cname)
            except CardgenError as exc:
                problems.extend(exc.diagnostics)
                count, count_ok = 0, False
        elif "count" in defaults:
            try:
                count = parse_count(defaults["count"], defaults.value_loc("count")
                                    if isinstance(defaults, YDict) else data.value_loc("defaults"), cname)
            except CardgenError as exc:
                problems.extend(exc.diagnostics)
                count, count_ok = 0, False
        if cname in seen:
            report.error(cd.value_loc("name"), f"deck '{name}': duplicate card name '{cname}' "
                                               f"(also at line {seen[cname].line}); give each card its own "
                                               f"name or raise the first one's count", "duplicate-card")
        seen.setdefault(cname, cd.value_loc("name"))
        fields = dict(defaults)
        fields.update(cd)
        fields["name"] = cname
        fields["count"] = count
        back_fields = None
        if "back" in cd:
            if not isinstance(cd["back"], dict):
                problems.append(Diagnostic(cd.value_loc("back"), f"card '{cname}': `back:` must be a mapping of "
                                                                 f"keys to values", "error", "card"))
                continue
            back = cd["back"]
            if not data.get("backs"):
                report.error(cd.key_loc("back"), f"card '{cname}' has its own `back:` fields but deck '{name}' "
                                                 f"has no `backs:` template to draw them; add `backs: <template>` "
                                                 f"to the deck", "back-fields")
            back_fields = dict(fields)
            back_fields.update(back)
        elif data.get("backs"):
            back_fields = dict(fields)
        cards.append(Card(cname, count, fields, cloc, i, cd, back_fields, count_ok))
    if problems and not collect:
        raise CardgenError(None, diagnostics=problems)
    back_key = "back" if data.get("back") else ("backs" if data.get("backs") else None)
    return Deck(
        name=name, file=path, template=str(data["template"]), template_loc=data.value_loc("template"),
        back=str(data["back"]) if data.get("back") else None,
        backs=str(data["backs"]) if data.get("backs") else None,
        back_loc=data.value_loc(back_key) if back_key else None,
        size=size, bleed=bleed, cards=cards, data=data, slug=slugify(name),
    )


def load_game(root: Path, project: Path, report: Report | None = None, tolerant: bool = False,
              sections: dict | None = None, deck_sections: dict | None = None) -> Game:
    """Load a game folder. Fatal problems raise CardgenError (all of them at once, not just the
    first); others go to `report`.  With `tolerant`, problems in single deck files and in
    rules.yaml go to `report` too and the game comes back without what could not be loaded
    (the validator uses this to report everything); only a broken game.yaml still raises."""
    report = report if report is not None else Report()
    root = Path(root)
    game_file = root / "game.yaml"
    if not game_file.is_file():
        raise CardgenError(Loc(str(root)), "not a game folder: no game.yaml here")
    data = load_file(game_file)
    if data is None:
        data = YDict()
        data.loc, data.key_locs, data.value_locs = Loc(str(game_file), 1), {}, {}
    data = _mapping(data, Loc(str(game_file), 1), "game.yaml")
    report.extend(schema.unknown_keys(data, schema.GAME_KEYS, "game.yaml"))
    size = parse_size(data["card_size"], data.value_loc("card_size")) if "card_size" in data \
        else CardSize(*CARD_SIZES_MM["poker"], "poker")
    bleed = parse_bleed(data["bleed"], data.value_loc("bleed")) if "bleed" in data else DEFAULT_BLEED_MM
    game = Game(slug=root.resolve().name, root=root, project=project, data=data)
    problems: list[Diagnostic] = []

    if "decks" in data:
        listed = data["decks"]
        if not isinstance(listed, list):
            raise CardgenError(data.value_loc("decks"), "`decks:` must be a list of deck file names")
        paths = []
        for i, name in enumerate(listed):
            p = root / str(name)
            if p.suffix != ".yaml":
                p = p.with_suffix(".yaml")
            if not p.is_file():
                problems.append(Diagnostic(listed.item_loc(i), f"deck file '{name}' not found in {root.name}/",
                                           "error", "deck-file"))
                game.broken.append(p)
                continue
            paths.append(p)
    else:
        paths = sorted(p for p in root.glob("*.yaml") if p.name not in NON_DECK_FILES)
    names: dict[str, Path] = {}
    for p in paths:
        try:
            deck = load_deck(p, size, bleed, report, problems if tolerant else None)
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
    rules = root / "rules.yaml"
    if rules.is_file():
        try:
            game.rules = load_file(rules)
        except CardgenError as exc:
            problems.extend(exc.diagnostics)
            game.broken.append(rules)
    if problems:
        if not tolerant:
            raise CardgenError(None, diagnostics=sorted(problems, key=Diagnostic.sort_key))
        report.extend(problems)
    return game


def find_project(start: Path | None = None) -> Path:
    """The project folder: the nearest folder upwards with `cards/` or `templates/`,
    else the folder the cardgen package was installed from."""
    here = (start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if (p / "cards").is_dir() and (p / "templates").is_dir():
            return p
    return BUNDLED


def resolve_games(names: list[str], project: Path) -> list[Path]:
    """Game folders for CLI arguments: names under cards/ or paths to game folders."""
    if not names:
        cards = project / "cards"
        games = sorted(p for p in cards.iterdir() if (p / "game.yaml").is_file()) if cards.is_dir() else []
        if not games:
            raise CardgenError(Loc(str(cards)), "no games found (a game is a folder with a game.yaml)")
        return games
    out = []
    for name in names:
        p = Path(name)
        if p.is_file() and p.name == "game.yaml":
            p = p.parent
        if (p / "game.yaml").is_file():
            out.append(p)
        elif (project / "cards" / name / "game.yaml").is_file():
            out.append(project / "cards" / name)
        else:
            known = sorted(q.name for q in (project / "cards").glob("*") if (q / "game.yaml").is_file())
            raise CardgenError(Loc(name), f"no game called '{name}'{schema.suggest(name, known)} "
                                          f"(games: {', '.join(known) or 'none'}; or give a path to a game folder)")
    return out


def diagnostics_of(exc: CardgenError) -> list[Diagnostic]:
    return exc.diagnostics
