"""The checks of a loaded game: every problem, not just the first.

Unresolved references (template, back, font, image, icon, `:icon:` in card text); field
names no template uses; the rulebook; every card laid out once; the card data held to the
rules' component list (`cardgen.check.components`).  The files' own schemas are checked when
the game loads (`cardgen.load.game`).  `run_checks` is called by one caller,
`cardgen.pipeline.check.check_game`, the path `cardgen validate` and `cardgen build` share.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from cardgen.check.components import check_counts
from cardgen.core.confusables import lookalike_icons, note, skeleton
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.core.paths import PathRefused, files_under
from cardgen.elements import ELEMENTS
from cardgen.layout import expr
from cardgen.layout.templates import TemplateFile, computed_for, element_problems, find_template
from cardgen.load.game import Game
from cardgen.load.yamlsrc import YDict, YList, load_file
from cardgen.resources.fonts import FontError
from cardgen.schema.core import suggest
from cardgen.text.markup import icon_names

if TYPE_CHECKING:
    from cardgen.check.readability import Settings
    from cardgen.layout.cache import LayoutCache
    from cardgen.layout.engine import Inspect, Rendered

def run_checks(game: Game, report: Report, cache: LayoutCache | None = None,
               readable: Settings | None = None) -> Rendered | None:
    """Every check of the game, and every card laid out (sides laid out by an earlier build
    taken from `cache`, `cardgen.layout.cache`), held to the readability check's `readable`
    settings (default: `settings_of(game)`).  `cardgen.pipeline.check.check_game` runs it."""
    from cardgen.check.readability import Inspector, colour_coding, settings_of
    from cardgen.layout.engine import Resources

    res = Resources(game)
    check_game_file(game, res, report)
    check_counts(game, report)
    check_cards(game, res, report)
    check_field_names(game, res, report)
    # The rulebook's problems are reported here; a build leaves out only the outputs made from
    # it while it has errors, so that a broken rules sentence never stops the cards printing.
    from cardgen.layout.rulebook import designer_notes, rulebook_problems
    report.extend(rulebook_problems(game, res.icons))
    report.extend(designer_notes(game))
    static_locs = check_templates(game, res, report)
    colour_coding(game, res, report)
    return check_layout(game, res, report, static_locs, cache, Inspector(readable or settings_of(game)))


# -- game.yaml -----------------------------------------------------------------------------

def check_game_file(game: Game, res, report: Report) -> None:
    """What game.yaml's declaration (`schema.files.GameFile`, checked when the game loads)
    cannot know: that every fallback font and every icon alias names one that exists."""
    from cardgen.schema.core import suggest
    fallbacks = game.data.get("fallback_fonts")
    if game.opts.fallback_fonts and isinstance(fallbacks, YList):
        for i, family in enumerate(game.opts.fallback_fonts):
            if res.fonts.has(family):
                try:
                    res.fonts.face(family)
                except FontError as exc:        # a damaged file: said here, not only where a card needs it
                    report.error(fallbacks.item_loc(i), f"`fallback_fonts`: {exc}", "font")
                continue
            found = ", ".join(sorted(res.fonts.families)) or "none"
            report.error(fallbacks.item_loc(i), res.fonts.refused.get(family) or
                         f"`fallback_fonts`: unknown font '{family}'{suggest(family, res.fonts.families)} (fonts "
                         f"found: {found}; add {family}-Regular.ttf to fonts/)", "unknown-font")
    icons = game.data.get("icons")
    if game.opts.icons is None or not isinstance(icons, YDict):
        return
    for alias, target in game.opts.icons.items():
        if str(alias) not in game.icon_aliases:
            continue        # refused when game.yaml loaded, and reported there
        refused = res.icons.refusal(str(alias))
        if refused:
            report.error(icons.value_loc(alias), f"icon alias '{alias}': {refused}", "path")
        elif res.icons.find(str(alias)) is None:
            report.error(icons.value_loc(alias), f"icon alias '{alias}' maps to '{target}', but there is no "
                                                 f"{target}.svg or {target}.png in art/icons/"
                                                 f"{suggest(target, res.icons.names())}", "unknown-icon")


# -- decks and cards -----------------------------------------------------------------------

def _strings(value, loc: Loc):
    """Every string in a card field (lists and mappings walked), with the best location."""
    if isinstance(value, str):
        yield value, loc
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, value.value_loc(k) if isinstance(value, YDict) else loc)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, value.item_loc(i) if isinstance(value, YList) else loc)


def check_cards(game: Game, res, report: Report) -> None:
    """Deck fields, `todo:` warnings and `:icon:` references in card text (each an error whose
    `dedupe` is ("unknown-icon", icon, card), so that laying the card out does not say it again)."""
    for deck in game.decks:
        # `vars:`, `description:` and the other deck keys: checked by `schema.files.DeckFile` on loading
        from_defaults = [c for c in deck.cards if "todo" in c.fields and "todo" not in c.data]
        if from_defaults:   # one warning for the deck's default `todo:`, naming its cards
            defaults = deck.data.get("defaults")
            loc = defaults.value_loc("todo") if isinstance(defaults, YDict) else deck.data.value_loc("defaults")
            names = ", ".join(f"'{c.name}'" for c in from_defaults)
            what = f"card {names} has" if len(from_defaults) == 1 else f"{len(from_defaults)} cards have"
            report.warn(loc, f"{deck.name}: {what} no text yet"
                             + (f" ({names})" if len(from_defaults) > 1 else "")
                             + f" (todo: {from_defaults[0].fields['todo']})", "todo")
        for card in deck.cards:
            # (a card unfinished in the source language is said once, at its `todo:`, not again
            # at each translation's `todo@de:`: docs/languages.md)
            if "todo" in card.data and not (game.translation and "todo" in (card.raw or {})):
                state = "is not finished yet" if str(card.fields.get("text") or "").strip() else "has no text yet"
                report.warn(card.field_loc("todo"), f"{deck.name}: card '{card.name}' {state} "
                                                    f"(todo: {card.fields['todo']})", "todo")
            for key, value in card.fields.items():
                if key in ("name", "count", "todo") or (":" not in value if isinstance(value, str)
                                                        else not isinstance(value, (dict, list))):
                    continue        # (no text in it with a `:name:`: its place is not looked up)
                base = card.field_loc(key) if key in card.data else deck.data.value_loc("defaults")
                for text, loc in _strings(value, base):
                    if ":" not in text:
                        continue
                    for written, _ in dict.fromkeys(lookalike_icons(text)):
                        hint = suggest(written, res.icons.names()) or note(written)
                        report.warn(loc, f"{deck.name}: card '{card.name}', `{key}:`: unknown icon ':{written}:', "
                                         f"printed as text{hint}", "lookalike")
                    if expr.is_dynamic(text):
                        continue
                    for icon in dict.fromkeys(icon_names(text)):
                        if res.icons.find(icon) is None:
                            report.extend([Diagnostic(
                                loc, f"{deck.name}: card '{card.name}', `{key}:`: unknown icon ':{icon}:'"
                                     f"{suggest(icon, res.icons.names())} (put {icon}.svg in art/icons/ or map it "
                                     f"under `icons:` in game.yaml)", "error", "unknown-icon",
                                dedupe=("unknown-icon", icon, card.name))])


_CARD_FIELD = re.compile(r"\bcard\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")
# Fields with a meaning of their own, or that the bundled games use as notes for people.
_NOT_FOR_TEMPLATES = {"name", "count", "back", "todo", "placeholder", "note", "notes", "comment"}


def _fields_used(tpl) -> set[str]:
    used = set(tpl.defaults) | set(tpl.computed)
    for el in tpl.elements:
        for value in el.values():
            if isinstance(value, str):
                used.update(a or b for a, b in _CARD_FIELD.findall(value))
    return used


def check_field_names(game: Game, res, report: Report) -> None:
    """A card field no template uses, close to one a template does use, is most likely a typo
    (`cots: 3` where the template reads `card.cost`): warn, with the likely name."""
    for deck in game.decks:
        used: set[str] = set()
        for ref in (deck.template, deck.back, deck.backs):
            if not ref:
                continue
            try:
                used |= _fields_used(res.templates.get(ref, deck.template_loc)) | set(computed_for(None, deck.data))
            except CardgenError:
                used = set()    # reported elsewhere; no guessing without the deck's templates
                break
        if not used:
            continue
        for card in deck.cards:
            for key in card.data:
                if key in used or key in _NOT_FOR_TEMPLATES or not isinstance(key, str):
                    continue
                import difflib  # (here: only a field no template uses needs it)

                close = difflib.get_close_matches(skeleton(key), sorted(used - set(card.data)), n=1, cutoff=0.75)
                if close:
                    report.warn(card.data.key_loc(key),
                                f"{deck.name}: card '{card.name}' has a field '{key}' that no template uses; "
                                f"did you mean '{close[0]}'?{note(key)}", "unused-field",
                                group=f"{deck.name}: field '{key}' that no template uses (did you mean "
                                      f"'{close[0]}'?{note(key)})", card=f"'{card.name}', {card.loc.brief}")


# -- templates -----------------------------------------------------------------------------

def template_refs(game: Game) -> list[tuple[str, Loc]]:
    """The templates the game's decks name, and every template file in its own folders (each
    with the place that names it)."""
    refs: list[tuple[str, Loc]] = []
    for deck in game.decks:
        refs.append((deck.template, deck.template_loc))
        for ref in (deck.back, deck.backs):
            if ref:
                refs.append((ref, deck.back_loc or deck.loc))
    # every template file in the game's own folders, referenced or not
    for base in (game.root / "templates", game.project / "templates" / game.slug):
        if base.is_dir():
            root = game.root / "templates" if base == game.root / "templates" else game.project / "templates"
            for p in files_under(base, ".yaml"):
                refs.append((str(p.relative_to(root).with_suffix("")), Loc(str(p), 1)))
    return refs


def _raw_template_problems(path: Path, report: Report) -> None:
    """A template that failed to load: report what can be seen in its own file."""
    try:
        data = load_file(path)
    except CardgenError:
        return
    if not isinstance(data, YDict):
        return
    report.extend(TemplateFile.diagnostics(data, f"template {path.stem}", Loc(str(path), 1)))
    own = data.get("elements")
    if isinstance(own, list):
        for el in own:
            if isinstance(el, YDict) and "type" in el:
                report.extend(element_problems(el))


def check_templates(game: Game, res, report: Report) -> set[Loc]:
    """Load every template the game uses and check what can be checked without a card (the
    loader checks every element against its declaration; here: fonts, icons and images the
    template names).  Returns the locations reported, so layout does not report them again."""
    done: set[str] = set()
    static_locs: set[Loc] = set()
    for ref, loc in template_refs(game):
        ref = str(ref).strip().removesuffix(".yaml")
        if ref in done:
            continue
        done.add(ref)
        try:
            tpl = res.templates.get(ref, loc)
        except CardgenError as exc:
            report.extend(exc.diagnostics)      # (a chain's problem: once, as the report keeps it)
            static_locs.update(d.loc for d in exc.diagnostics)
            try:
                path = find_template(ref, res.templates.dirs, res.templates.roots)
            except PathRefused:
                path = None     # reported just above
            if path is not None:
                raw = Report()
                _raw_template_problems(path, raw)
                told = {d.loc for d in exc.diagnostics}
                report.extend(d for d in raw.items if d.loc not in told)    # (one line a place)
                static_locs.update(d.loc for d in raw.items)
            continue
        for el in tpl.elements:
            cls = ELEMENTS[str(el.get("type"))]
            for key, message, code in cls.static_problems(el, res):
                d = Diagnostic(el.value_loc(key), f"element '{el.get('name', '?')}': {message}", "error", code)
                if code != "path-alias":        # said once already, where the alias is
                    report.extend([d])
                static_locs.add(d.loc)
            text = el.get("text")
            if isinstance(text, str) and ":" in text:
                for written, _ in dict.fromkeys(lookalike_icons(text)):
                    hint = suggest(written, res.icons.names()) or note(written)
                    report.warn(el.value_loc("text"), f"element '{el.get('name', '?')}': unknown icon ':{written}:', "
                                                      f"printed as text{hint}", "lookalike")
    return static_locs


# -- layout --------------------------------------------------------------------------------

def check_layout(game: Game, res, report: Report, static_locs: set[Loc],
                 cache: LayoutCache | None = None, inspect: Inspect | None = None) -> Rendered | None:
    """Lay out every card once; collect every card's problems (Jinja values, fields no card has)."""
    from cardgen.layout.engine import layout_game

    if not game.decks:
        return None
    try:
        return layout_game(game, report, res, cache, inspect)
    except CardgenError as exc:
        diags = exc.diagnostics
    said = {d.dedupe for d in report.items if d.dedupe}
    grouped: dict[tuple, list[Diagnostic]] = {}
    for d in diags:
        if d.loc in static_locs:
            continue        # the template value itself is wrong; already reported once
        if d.dedupe and d.dedupe in said:
            continue        # e.g. the card's own text names an unknown icon; already reported at the card
        key = (d.loc, d.code) if d.code == "missing-field" else (d.loc, d.message)
        grouped.setdefault(key, []).append(d)
    for group in grouped.values():
        d = group[0]
        if len(group) > 1:
            d = Diagnostic(d.loc, f"{d.message} ({len(group) - 1} more card{'s' if len(group) > 2 else ''} "
                                  f"the same)", d.severity, d.code)
        report.extend([d])
    return None
