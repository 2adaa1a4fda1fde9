"""What changed between two builds of a game (two manifests, `cardgen.layout.manifest`):
cards added, changed, renamed, removed, and copies added or taken away; what to print and
what to take out of the box.  `cardgen changes` prints it, the `changes` output
(`changes-<paper>.pdf`) prints it on its first page."""
from __future__ import annotations

from dataclasses import dataclass, field

from cardgen.core.words import ENGLISH, Words
from cardgen.layout.manifest import Entry, Manifest, pair
from cardgen.model.game import REVISION_HASH_LENGTH

KINDS = ("added", "changed", "renamed", "removed", "copies")


@dataclass(frozen=True)
class Change:
    """One card that is not as it was: `kind` is one of KINDS; `old`/`new` the card before and
    after (None for added / removed)."""

    kind: str
    old: Entry | None
    new: Entry | None

    @property
    def reprint(self) -> bool:
        """Its printed sides are not what they were (or it is new)."""
        if self.old is None or self.new is None:
            return self.new is not None
        return (self.old.face, self.old.back) != (self.new.face, self.new.back)

    @property
    def to_print(self) -> int:
        """Copies to print: every copy of a new or reprinted card, else the extra copies."""
        if self.new is None:
            return 0
        if self.reprint or self.old is None:
            return self.new.copies
        return max(0, self.new.copies - self.old.copies)

    @property
    def to_remove(self) -> int:
        """Copies to take out of the box: every old copy of a reprinted or removed card, else
        the copies no longer wanted."""
        if self.old is None:
            return 0
        if self.new is None or self.reprint:
            return self.old.copies
        return max(0, self.old.copies - self.new.copies)

    @property
    def label(self) -> str:
        if self.kind == "renamed" and self.old and self.new:
            return f"{self.old.deck}: {self.old.name} → {self.new.name}"
        e = self.new or self.old
        assert e is not None
        return e.label

    @property
    def copies(self) -> str:
        if self.old is not None and self.new is not None and self.old.copies != self.new.copies:
            return f"×{self.old.copies} → ×{self.new.copies}"
        e = self.new or self.old
        assert e is not None
        return f"×{e.copies}"

    def line(self) -> str:
        """`changed  Pirates: Cannon  x2` (with the multiplication sign) and what to do about it."""
        todo = []
        if self.to_print:
            todo.append(f"print {self.to_print}")
        if self.to_remove:
            todo.append(f"take out {self.to_remove}")
        more = f" ({', '.join(todo)})" if self.kind in ("copies", "renamed") and todo else ""
        if self.kind == "renamed" and not self.reprint and not todo:
            more = " (prints the same)"
        return f"{self.kind:<8} {self.label}  {self.copies}{more}"


@dataclass
class Changes:
    """What changed in the cards since an earlier version of the game."""

    since: str                      # what was compared with, as the user named it
    old_version: str
    new_version: str
    items: list[Change] = field(default_factory=list)
    new: Manifest | None = None     # the manifest compared (its cards in build order)
    revisions: bool = True          # the old cards' revision counters are known (not from a git revision)

    def printed_as(self, e: Entry) -> str:
        """How a card of the old build is stamped (`card.revision`): `r2 a1b2c3`, or only the data
        hash when the old build's counters are not known."""
        short = e.data[:REVISION_HASH_LENGTH]
        return f"r{e.revision} {short}" if self.revisions else short

    def of(self, kind: str) -> list[Change]:
        return [c for c in self.items if c.kind == kind]

    @property
    def printed(self) -> list[Change]:
        return [c for c in self.items if c.to_print]

    @property
    def removed_from_box(self) -> list[Change]:
        return [c for c in self.items if c.to_remove]

    def counts(self, words: Words = ENGLISH) -> str:
        """`2 added, 1 changed` (kinds that occur, in KINDS order) or `no changes` (in `words`'
        language: the changes listing's)."""
        parts = [words(f"{{n}} {k if k != 'copies' else 'with other copies'}", n=len(self.of(k)))
                 for k in KINDS if self.of(k)]
        return ", ".join(parts) or words("no changes")

    def summary(self, words: Words = ENGLISH) -> str:
        """What to do: `print 3 cards (5 copies); take out 4 copies`."""
        printed, out = self.printed, self.removed_from_box
        if not printed and not out:
            return words("nothing to print, nothing to take out")
        parts = []
        if printed:
            copies = words.count(sum(c.to_print for c in printed), "copy")
            parts.append(words("print {cards} ({copies})", cards=words.count(len(printed), "card"), copies=copies))
        if out:
            parts.append(words("take out {copies}", copies=words.count(sum(c.to_remove for c in out), "copy")))
        return "; ".join(parts)

    def lines(self, game: str) -> list[str]:
        """What `cardgen changes` prints."""
        version = ""
        if self.old_version != self.new_version:
            version = f" (version {self.old_version or 'none'} → {self.new_version or 'none'})"
        head = f"{game}: since {self.since}{version}: {self.counts()}"
        return [head, *(f"  {c.line()}" for c in self.items), *([f"  {self.summary()}"] if self.items else [])]


def compare(old: Manifest, new: Manifest, since: str, revisions: bool = True) -> Changes:
    """Every card that differs between `old` and `new`, in the order: added, changed, renamed,
    removed, copies; within each, in build order."""
    pairs, removed, added = pair(old.cards, new.cards, lambda e: (e.deck, e.ident, e.body),
                                 lambda e: (e.deck, e.ident, e.body))
    found: list[Change] = [Change("added", None, e) for e in added]
    for before, after in pairs:
        c = Change("changed", before, after)
        if before.name != after.name:
            found.append(Change("renamed", before, after))
        elif c.reprint:
            found.append(c)
        elif before.copies != after.copies:
            found.append(Change("copies", before, after))
    found += [Change("removed", e, None) for e in removed]
    found.sort(key=lambda c: KINDS.index(c.kind))       # stable: build order within a kind
    return Changes(since, old.version, new.version, found, new, revisions)
