"""The count checks: the card data held to rules.yaml's component list (docs/rules-format.md,
part 1), and the list to itself.

The list is read once, when the game loads (`cardgen.load.rules`: `game.rules.components`,
malformed entries reported there).  `check_counts()` holds the card data to the entries
(errors) and the entries to themselves (warnings).  Every count problem has a code starting
with `count-`; the build treats those as soft errors (it builds anyway, unless --strict).
"""
from __future__ import annotations

from collections import Counter

from cardgen.core.errors import Loc, Report
from cardgen.load.game import Card, Deck, Game
from cardgen.load.rules import DECK_ONLY
from cardgen.model.rules import Count, Entry, most_players
from cardgen.schema.core import suggest

# Codes of findings about counts: soft errors in a build.
COUNT_CODES = {"count-mismatch", "count-missing", "count-extra", "count-deck", "count-unlisted", "count-field"}


def _copies(n: int) -> str:
    return f"{n} copy printed" if n == 1 else f"{n} copies printed"


def _made(deck: Deck) -> str:
    """What a component file prints: its copies, or a die file's dice."""
    if deck.kind == "die":
        return f"{deck.pieces} {'die' if deck.pieces == 1 else 'dice'} printed"
    return _copies(deck.count)


def _at(e: Entry, key: str) -> Loc:
    """Where the entry's `key:` value is (its `silent:` line, say), else where the entry starts."""
    return e.data.value_loc(key) if key in e.data else e.loc


def check_item(e: Entry, game: Game, report: Report) -> Deck | None:
    """An `item:` of the component list: made by the component file of its name (its count held
    to the rules like a deck's), or bought; the component file, if any."""
    item = e.item or ""
    deck = game.deck(item)
    if deck is None and game.rules is not None and game.rules.aid_item() == item:
        check_aid_item(e, game, report)
        return None
    if deck is None:
        if e.bought is None and not game.broken:
            report.warn(_at(e, "item"), f"rules list {item} ({_at(e, 'item').short}), which nothing in game "
                                        f"{game.slug} makes; add a component file for it (`deck: {item}` with "
                                        f"`kind: token`, `tile` or `board`), or mark it `bought:` (bought or taken "
                                        f"from another game)", "component-missing")
        if e.count is None:
            report.warn(_at(e, "silent" if e.silent is not None else "item"),
                        f"rules give no count for {item}; {'bought' if e.bought is not None else 'none printed'}",
                        "count-silent")
        return None
    if e.count is None:
        report.warn(_at(e, "silent" if e.silent is not None else "item"),
                    f"rules give no count for {item}; {_made(deck)}", "count-silent")
    elif not e.count.tbd and not _compare(e.count, deck.pieces) and all(c.count_ok for c in deck.cards):
        dloc = deck.data.value_loc("deck")
        report.error(e.count.loc, f"{item}: rules say {_said(e.count)} ({e.count.loc.short}), the {deck.kind} "
                                  f"file makes {deck.pieces} ({dloc.short})", "count-mismatch")
    return deck


def check_aid_item(e: Entry, game: Game, report: Report) -> None:
    """An item the player aid is (`player_aid: {item: ...}`): its count held to the aid's copies."""
    assert game.rules is not None
    aid = game.rules.data.get("player_aid")
    n = aid.get("count") if isinstance(aid, dict) else None
    made = n if isinstance(n, int) and not isinstance(n, bool) else most_players(game.opts.players)
    if e.count is None:
        report.warn(_at(e, "silent" if e.silent is not None else "item"),
                    f"rules give no count for {e.item}; {_copies(made)}", "count-silent")
    elif not e.count.tbd and not _compare(e.count, made):
        report.error(e.count.loc, f"{e.item}: rules say {_said(e.count)} ({e.count.loc.short}), the player aid "
                                  f"makes {made} (rules.yaml `player_aid:`)", "count-mismatch")


# -- the rules against themselves -------------------------------------------------------

def check_entry_itself(e: Entry, report: Report) -> None:
    """Warnings where the document contradicts itself, and for counts left open."""
    if e.item is not None:
        if e.count is not None and e.count.tbd:
            report.warn(e.count.loc, f"item '{e.item}': the rules leave the count open (tbd); decide it and "
                                     f"write the number", "tbd")
        return
    who = e.decks[0][0] if len(e.decks) == 1 else "/".join(d for d, _ in e.decks)
    named = [("the total", e.total), ("the count of every other card", e.others),
             (f"the count of each {e.by}", e.each), (f"the number of {e.by} groups", e.types),
             *((f"the count of {n}", c) for n, c in e.cards.items()),
             *((f"the count of {e.by} {g}", c) for g, c in e.groups.items())]
    for what, c in named:
        if c is not None and c.tbd:
            report.warn(c.loc, f"{who}: the rules leave {what} open (tbd); decide it and write the number",
                        "tbd")
    parts = None    # the sum of the itemized parts, when the document gives them all
    parts_how = ""
    if e.groups and all(not c.tbd for c in e.groups.values()):
        parts = sum(_n(c) for c in e.groups.values())
        parts_how = f"its {e.by} groups add up to {parts} ({_short(e.groups_loc)})"
    elif e.each is not None and e.types is not None and e.each.value is not None and e.types.value is not None:
        parts = e.each.value * e.types.value
        parts_how = f"{e.types.value} {e.by} groups of {e.each.value} make {parts} ({e.each.loc.short})"
    elif e.cards and e.others is None and not e.by and all(not c.tbd for c in e.cards.values()):
        parts = sum(_n(c) for c in e.cards.values())
        parts_how = f"its named cards add up to {parts} ({next(iter(e.cards.values())).loc.short})"
    if parts is not None and e.total is not None and e.total.value is not None:
        t = e.total
        if (t.at_least and parts < _n(t)) or (not t.at_least and parts != t.value):
            e.contradicted = True   # the data cannot match both; its parts are checked one by one
            report.warn(t.loc, f"{who}: the rules contradict themselves: total {t} ({t.loc.short}), but "
                               f"{parts_how}", "rules-total")
    if e.groups and e.types is not None and not e.types.tbd and len(e.groups) != e.types.value:
        report.warn(e.types.loc, f"{who}: the rules contradict themselves: {e.types.value} {e.by} groups "
                                 f"({e.types.loc.short}), but {len(e.groups)} are listed ({_short(e.groups_loc)})",
                    "rules-total")
    if e.groups and e.each is not None and not e.each.tbd:
        for g, c in e.groups.items():
            if not c.tbd and c.value != e.each.value:
                report.warn(c.loc, f"{who}: the rules contradict themselves: {e.each.value} of each {e.by} "
                                   f"({e.each.loc.short}), but {c.value} x {g} ({c.loc.short})", "rules-total")


# -- the data against the rules ---------------------------------------------------------

def _n(c: Count) -> int:
    """The number of a count that is not tbd (callers check `tbd` first)."""
    if c.value is None:
        raise ValueError(f"count at {c.loc} is tbd")
    return c.value


def _short(loc: Loc | None) -> str:
    return loc.short if loc is not None else "?"


def _n_cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _compare(rule: Count, have: int) -> bool:
    """True when the data agrees with the rule."""
    if rule.tbd:
        return True
    return have >= _n(rule) if rule.at_least else have == rule.value


def _said(rule: Count) -> str:
    return f"at least {rule.value}" if rule.at_least else str(rule.value)


def check_deck(e: Entry, deck: Deck, report: Report) -> None:
    """Errors where the deck's cards disagree with what the entry states."""
    if any(not c.count_ok for c in deck.cards):
        return          # a count is malformed (already reported); comparing would only add noise
    dloc = deck.data.value_loc("deck")
    if e.total is not None and not e.contradicted and not _compare(e.total, deck.count):
        report.error(e.total.loc, f"{deck.name}: rules say {_said(e.total)} cards in all ({e.total.loc.short}), "
                                  f"deck has {deck.count} ({dloc.short})", "count-mismatch")
    _check_cards(e, deck, report)
    if not e.by:
        return
    groups, first = _groups(e, deck, report)
    _check_groups(e, deck, groups, first, report)


def _where(cards: list[Card]) -> str:
    c = cards[0]
    return c.field_loc("count").short if "count" in c.data else c.loc.short


def _check_cards(e: Entry, deck: Deck, report: Report) -> None:
    """The entry's counts of named cards, and of each other card."""
    D = deck.name
    dloc = deck.data.value_loc("deck")
    by_name: dict[str, list] = {}
    for c in deck.cards:
        by_name.setdefault(c.name, []).append(c)
    for name, rule in e.cards.items():
        cards = by_name.get(name)
        if not cards:
            report.error(rule.loc, f"{D}: rules say {_said(rule) if not rule.tbd else 'some'} x {name} "
                                   f"({rule.loc.short}), deck has no card '{name}' ({dloc.short})"
                                   f"{suggest(name, by_name)}", "count-missing")
            continue
        have = sum(c.count for c in cards)
        if not _compare(rule, have):
            report.error(rule.loc, f"{D}: rules say {_said(rule)} x {name} ({rule.loc.short}), "
                                   f"deck has {have} ({_where(cards)})", "count-mismatch")
    if e.others is None or e.others.tbd:
        return
    for name, cards in by_name.items():
        if name in e.cards:
            continue
        have = sum(c.count for c in cards)
        if have != e.others.value:
            report.error(e.others.loc, f"{D}: rules say {e.others.value} x each other card "
                                       f"({e.others.loc.short}), deck has {have} x {name} ({_where(cards)})",
                         "count-mismatch")


def _groups(e: Entry, deck: Deck, report: Report) -> tuple[dict[str, int], dict[str, Card]]:
    """Copies in each group of the field the entry groups the deck by (`by:`), and each
    group's first card; a card without the field is reported."""
    groups: dict[str, int] = Counter()
    first: dict[str, Card] = {}
    for c in deck.cards:
        if e.by not in c.fields:
            report.error(c.loc, f"{deck.name}: card '{c.name}' has no `{e.by}:`, which the rules group the deck "
                                f"by ({_short(e.by_loc)}); add it to the card or to the deck's `defaults:`",
                         "count-field")
            continue
        v = str(c.fields[e.by])
        groups[v] += c.count
        first.setdefault(v, c)
    return groups, first


def _check_groups(e: Entry, deck: Deck, groups: dict[str, int], first: dict[str, Card], report: Report) -> None:
    """The entry's counts of groups: each group it names, groups it does not name, `each:`
    and the number of groups (`types:`)."""
    D = deck.name
    dloc = deck.data.value_loc("deck")
    for g, rule in e.groups.items():
        if g not in groups:
            report.error(rule.loc, f"{D}: rules say {_said(rule) if not rule.tbd else 'some'} x {e.by} {g} "
                                   f"({rule.loc.short}), deck has no card with `{e.by}: {g}` ({dloc.short})"
                                   f"{suggest(g, groups)}", "count-missing")
        elif not _compare(rule, groups[g]):
            report.error(rule.loc, f"{D}: rules say {_said(rule)} x {e.by} {g} ({rule.loc.short}), "
                                   f"deck has {groups[g]} ({first[g].loc.short})", "count-mismatch")
    if e.groups:
        for g, n in groups.items():
            if g not in e.groups:
                c = first[g]
                report.error(c.field_loc(e.by), f"{D}: deck has {_n_cards(n)} with `{e.by}: {g}` "
                                                f"({c.field_loc(e.by).short}), a group the rules do not list "
                                                f"({_short(e.groups_loc)}){suggest(g, e.groups)}",
                             "count-extra")
    if e.each is not None and not e.each.tbd:
        for g, n in groups.items():
            if n != e.each.value and not (g in e.groups and not e.groups[g].tbd):
                report.error(e.each.loc, f"{D}: rules say {e.each.value} of each {e.by} ({e.each.loc.short}), "
                                         f"deck has {n} x {e.by} {g} ({first[g].loc.short})", "count-mismatch")
    if e.types is not None and not e.types.tbd and len(groups) != e.types.value:
        names = ", ".join(sorted(groups)) or "none"
        report.error(e.types.loc, f"{D}: rules say {e.types.value} {e.by} groups ({e.types.loc.short}), "
                                  f"deck has {len(groups)}: {names} ({dloc.short})", "count-mismatch")


def check_counts(game: Game, report: Report) -> None:
    """Hold the game's card data to its rules.yaml component list, and the list to itself."""
    rules = game.rules
    if rules is None or rules.components is None:
        return
    mentioned: set[str] = set()
    for e in rules.components:
        check_entry_itself(e, report)
        if e.item is not None and not any(k in e.data for k in DECK_ONLY):     # (else reported on loading)
            made = check_item(e, game, report)
            if made is not None:
                mentioned.add(made.name)
        for name, loc in e.decks:
            mentioned.add(name)
            deck = game.deck(name)
            if deck is None:
                if game.broken:
                    continue        # the deck may be in a file that did not load (already reported)
                report.error(loc, f"rules name deck '{name}' ({loc.short}), which game {game.slug} does not have"
                                  f"{suggest(name, [d.name for d in game.decks])} "
                                  f"(decks: {', '.join(d.name for d in game.decks) or 'none'})", "count-deck")
                continue
            mentioned.add(deck.name)
            if e.silent is None:
                check_deck(e, deck, report)
            elif isinstance(e.data.get("silent"), str) and not any(k in e.data for k in DECK_ONLY):
                # (a malformed one, or one beside counts, is reported on loading)
                report.warn(_at(e, "silent"), f"rules give no count for {deck.name}; {_made(deck)}",
                            "count-silent")
    for deck in game.decks:
        if deck.name not in mentioned and deck.slug not in mentioned:
            loc = deck.data.value_loc("deck")
            what = "deck" if deck.kind == "card" else f"{deck.kind} file"
            report.error(loc, f"{what} '{deck.name}' ({loc.short}) is not in the rules' component list "
                              f"({_short(rules.components_loc)}); add an entry for it (with `silent:` if "
                              f"the document gives no count)", "count-unlisted")
