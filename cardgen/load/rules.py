"""rules.yaml, loaded once into typed data (`cardgen.model.rules.Rules`, kept on the game).

Its keys are checked against their declaration (`cardgen.schema.files.RulesFile`) once, here:
one message per unknown key.  The component list (docs/rules-format.md, part 1) is read into
`Entry` objects, each malformed part reported at its file:line:col and left out.  The
rulebook's own structure (sections, blocks, the player aid) is checked where it is rendered,
`cardgen.layout.rulebook`.
"""
from __future__ import annotations

from pathlib import Path

from cardgen.core.errors import Loc, Report
from cardgen.load.declared import file_diagnostics
from cardgen.load.yamlsrc import YDict, YList
from cardgen.model.rules import RULEBOOK_KEYS, Count, Entry, Rules
from cardgen.schema.core import STATIC_ENV, Invalid
from cardgen.schema.files import ComponentEntry, RuleCount, RulesFile

DECK_ONLY = ("total", "cards", "others", "by", "groups", "each", "types")


def rules_from(data, path: Path, report: Report) -> Rules | None:
    """rules.yaml's data as read (`load_file`) as `Rules`, every problem of its keys and its
    component list to `report`; None when the file is empty or not a mapping (said)."""
    if data is None:
        return None
    if not isinstance(data, YDict):
        report.error(Loc(str(path), 1), "rules.yaml must be a mapping with `components:` and the rulebook "
                                        "(see docs/rules-format.md)", "rules-schema")
        return None
    # `components:` is read below; the rulebook's keys are rendered (and their problems said) by
    # layout.rulebook, which a build runs when it makes the booklet, so that a broken rules
    # sentence never stops the cards from printing.
    unknown, wrong = file_diagnostics(RulesFile, data, "rules.yaml", code="rules-schema",
                                      skip=("components", *RULEBOOK_KEYS))
    report.extend([*unknown, *wrong])
    rules = Rules(path, data, RulesFile.load_unchecked({k: v for k, v in data.items() if k != "components"}))
    if "components" in data:
        rules.components_loc = data.key_loc("components")
        rules.components = parse_components(data, report)
    return rules


def _count(value, loc: Loc, what: str, report: Report, plus: bool = False) -> Count | None:
    """Parse a count of the component list (`ComponentEntry`'s kind); None (after reporting)
    when malformed."""
    try:
        number, at_least = RuleCount(plus).convert(value, STATIC_ENV)
    except Invalid as exc:
        report.error(loc, f"{what} {exc.message}", "rules-schema")
        return None
    return Count(number, loc, at_least)


def _count_map(entry: YDict, key: str, report: Report, what: str) -> dict[str, Count]:
    value = entry[key]
    if not isinstance(value, dict):
        report.error(entry.value_loc(key), f"`{key}:` must be a mapping of {what} to counts, "
                                           f"e.g. {{Digging: 6}}", "rules-schema")
        return {}
    out = {}
    for name, v in value.items():
        c = _count(v, value.value_loc(name) if isinstance(value, YDict) else entry.value_loc(key),
                   f"`{key}:` count of '{name}'", report)
        if c is not None:
            out[str(name)] = c
    return out


def parse_components(rules: YDict, report: Report) -> list[Entry] | None:
    """The `components:` list of rules.yaml as entries; malformed parts are reported and left out.
    None when there is no list (said, unless `components:` is left empty)."""
    comps = rules.get("components")
    if comps is None:
        return None
    if not isinstance(comps, list):
        report.error(rules.value_loc("components"), "`components:` must be a list of entries "
                                                    "(`- deck: NAME` ...); see docs/rules-format.md", "rules-schema")
        return None
    entries = []
    for i, raw in enumerate(comps):
        iloc = comps.item_loc(i) if isinstance(comps, YList) else rules.value_loc("components")
        if not isinstance(raw, YDict):
            report.error(iloc, f"component entry #{i + 1} must be a mapping starting with `deck:`, `decks:` "
                               f"or `item:`", "rules-schema")
            continue
        entry = _parse_entry(raw, report, i)
        if entry is not None:
            entries.append(entry)
    return entries


def _parse_entry(raw: YDict, report: Report, i: int) -> Entry | None:
    """One entry of the component list, or None when it names neither a deck nor an item."""
    if not _entry_keys(raw, report, i):
        return None
    e = Entry(raw)
    if "item" in raw:
        return _item(e, raw, report)
    if "deck" in raw:
        e.decks = [(str(raw["deck"]), raw.value_loc("deck"))]
    else:
        ds = raw["decks"]
        if not isinstance(ds, list) or not ds:
            report.error(raw.value_loc("decks"), "`decks:` must be a list of deck names, e.g. [Monsters, Ninjas]",
                         "rules-schema")
            return None
        e.decks = [(str(d), ds.item_loc(j) if isinstance(ds, YList) else raw.value_loc("decks"))
                   for j, d in enumerate(ds)]
    who = e.decks[0][0] if len(e.decks) == 1 else ", ".join(d for d, _ in e.decks)
    if "count" in raw:
        report.error(raw.key_loc("count"), f"{who}: `count:` is for items; a deck's number of cards is "
                                           f"`total:`", "rules-schema")
    if "bought" in raw:
        report.error(raw.key_loc("bought"), f"{who}: `bought:` is for items; a deck is printed", "rules-schema")
    if "silent" in raw:
        e.silent = str(raw["silent"])
        stated = [k for k in DECK_ONLY if k in raw]
        if stated:
            report.error(raw.key_loc(stated[0]), f"{who}: `silent:` says the document gives no counts, but the "
                                                 f"entry also has `{stated[0]}:`; keep one", "rules-schema")
        return e
    _deck_counts(e, raw, report, who)
    if not any(k in raw for k in DECK_ONLY):
        report.error(raw.loc, f"{who}: the entry states no count; give `total:`, `cards:`, `by:` with "
                              f"`groups:`/`each:`, or `silent:` when the document gives none", "rules-schema")
    return e


def _entry_keys(raw: YDict, report: Report, i: int) -> bool:
    """Unknown keys and the plain text values reported (the counts and lists are read one by
    one later); False when the entry has not exactly one of `deck:`, `decks:` and `item:`."""
    plain = ("deck", "item", "quote", "silent", "bought")
    unknown, wrong = file_diagnostics(ComponentEntry, raw, "a component entry",
                                      skip=tuple(k for k in ComponentEntry.options() if k not in plain))
    for d in [*unknown, *wrong]:
        report.error(d.loc, d.message, "rules-schema")
    if any(d.loc in (raw.value_loc("deck"), raw.value_loc("item")) for d in wrong if d.code != "missing-key"):
        return False
    heads = [k for k in ("deck", "decks", "item") if k in raw]
    if len(heads) != 1:
        what = "has none of" if not heads else "has more than one of"
        report.error(raw.loc, f"component entry #{i + 1} {what} `deck:`, `decks:` and `item:`; "
                              f"give exactly one", "rules-schema")
        return False
    return True


def _item(e: Entry, raw: YDict, report: Report) -> Entry:
    """An `item:` entry: a count only."""
    e.item = str(raw["item"])
    for key in DECK_ONLY:
        if key in raw:
            report.error(raw.key_loc(key), f"item '{e.item}': `{key}:` is for card decks; an item has "
                                           f"`count:` only", "rules-schema")
    if "count" in raw:
        e.count = _count(raw["count"], raw.value_loc("count"), f"item '{e.item}': count", report, plus=True)
    if "silent" in raw:
        e.silent = str(raw["silent"])
        if "count" in raw:
            report.error(raw.key_loc("count"), f"item '{e.item}': `silent:` says the document gives no count, "
                                               f"but the entry also has `count:`; keep one", "rules-schema")
    if "bought" in raw:
        e.bought = str(raw["bought"])
    return e


def _deck_counts(e: Entry, raw: YDict, report: Report, who: str) -> None:
    """A deck entry's counts: `total:`, `cards:`, `others:`, and the groups of `by:`."""
    if "total" in raw:
        e.total = _count(raw["total"], raw.value_loc("total"), f"{who}: total", report, plus=True)
    if "cards" in raw:
        e.cards = _count_map(raw, "cards", report, "card names")
    if "others" in raw:
        e.others = _count(raw["others"], raw.value_loc("others"), f"{who}: others", report)
    if "by" in raw:
        if not isinstance(raw["by"], str) or not raw["by"].strip():
            report.error(raw.value_loc("by"), f"{who}: `by:` must name a card field, e.g. type", "rules-schema")
        else:
            e.by, e.by_loc = raw["by"].strip(), raw.value_loc("by")
    for key in ("groups", "each", "types"):
        if key in raw and "by" not in raw:
            report.error(raw.key_loc(key), f"{who}: `{key}:` needs `by: FIELD` (the card field that makes the "
                                           f"groups)", "rules-schema")
    if "groups" in raw:
        e.groups = _count_map(raw, "groups", report, f"{e.by or 'field'} values")
        e.groups_loc = raw.value_loc("groups")
    if "each" in raw:
        e.each = _count(raw["each"], raw.value_loc("each"), f"{who}: each", report)
    if "types" in raw:
        e.types = _count(raw["types"], raw.value_loc("types"), f"{who}: types", report)
    if not e.by:
        e.groups, e.each, e.types = {}, None, None
