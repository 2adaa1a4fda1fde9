"""The readability check: what a player cannot read, or a print service may cut off.

From the layout's geometry, in `cardgen validate` and `cardgen build` alike (no pixels, no
Pillow), each card side as it is laid out (`Inspector`, handed to the layout engine, so its
warnings are at the template element's line, kept by the layout cache and said once for
all the cards they are on):

- text under the minimum size (`min_text_size` in game.yaml, 6 pt by default);
- text or an icon inside the safe area along the trim (the print service's `safe_margin`,
  1/8 in by default), or across the trim into the bleed.

From the template's colours, evaluated card by card (`colour_coding`): an element whose
colour tells cards apart (the deck's colour of a band, a resource icon's colour) and nothing
else tells those cards apart, with two colours that look the same to a protanope, deuteranope
or tritanope (Machado 2009, severity 1.0), or that print as the same grey.

The contrast of text with what is drawn behind it is measured on the rendered card
(`cardgen.check.contrast`), in `cardgen build` and `cardgen validate --deep`.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cardgen.check.colours import MACHADO, hex_of, lab
from cardgen.core.errors import Report
from cardgen.core.units import MM
from cardgen.elements.base import SAFE_PT
from cardgen.layout import expr
from cardgen.layout.templates import computed_for
from cardgen.load.game import Game
from cardgen.model import ops, svgpath
from cardgen.model.components import HEXES, edge_distance, outline
from cardgen.schema.core import Colour, Env, Invalid

DISTINCT = 12.0         # CIE76 delta E: two colours closer than this are taken for one
SAME_GREY = 6.0         # L* (0-100): two colours whose lightness differs less print as one grey
# pairs of colours that look the same counted for one element's warning: past them it says "at
# least" (a 10,000-card deck in random colours had some 100,000, 4.7 s to count them all)
PAIRS_COUNTED = 1000


@dataclass(frozen=True)
class Settings:
    """What the check holds a game to: its smallest text size and the safe margin (pt)."""

    min_size: float = 6.0         # pt (game.yaml `min_text_size`)
    margin: float = SAFE_PT

    @property
    def key(self) -> str:
        """For the layout cache: a side's warnings depend on these."""
        return f"readability {self.min_size!r} {self.margin!r}"


def settings_of(game: Game, margin_mm: float | None = None) -> Settings:
    return Settings(float(game.opts.min_text_size), SAFE_PT if margin_mm is None else margin_mm * MM)


# -- geometry, per card side ------------------------------------------------------------------

def run_box(r: ops.Run) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) a run covers: text from its ascent to its descent, an icon its square."""
    if r.kind == "icon":
        return r.x, r.baseline - r.size, r.x + r.size, r.baseline
    return r.x, r.baseline - 0.75 * r.size, r.x + r.width, r.baseline + 0.2 * r.size


# sixteen points on the round an icon fills, as parts of its box's half sides from its corner
_ROUND = tuple((1 + math.cos(a * math.pi / 8), 1 + math.sin(a * math.pi / 8)) for a in range(16))


def _corners(op: ops.Text | ops.Icon) -> list[tuple[float, float]]:
    if isinstance(op, ops.Icon):      # (an icon's ink: the round it fills of its box, not the box's corners)
        pts = [(op.x + op.w / 2 * cx, op.y + op.h / 2 * cy) for cx, cy in _ROUND]
    else:
        boxes = [run_box(r) for r in op.runs if r.kind != "text" or str(r.content).strip()]
        pts = [(x, y) for x0, y0, x1, y1 in boxes for x in (x0, x1) for y in (y0, y1)]
    if op.rotate and pts:
        t = math.radians(op.rotate)
        bx, by, bw, bh = ops.turn_box(op)
        cx, cy = bx + bw / 2, by + bh / 2
        pts = [(cx + math.cos(t) * (x - cx) + math.sin(t) * (y - cy),
                cy - math.sin(t) * (x - cx) + math.cos(t) * (y - cy)) for x, y in pts]
    return pts


def trim_distance(op: ops.Text | ops.Icon, layout: ops.CardLayout) -> float | None:
    """How far inside the trim what `op` draws comes closest to it (pt; negative: across it);
    None if it draws nothing."""
    if not op.rotate and type(op) is ops.Text and layout.shape == "rect":
        return _box_distance(op.runs, layout.width, layout.height)
    pts = _corners(op)
    if not pts:
        return None
    if layout.shape == "round":
        rad = min(layout.width, layout.height) / 2
        return rad - max(math.hypot(x - layout.width / 2, y - layout.height / 2) for x, y in pts)
    polys = _trim_polygons(layout)
    if polys:                       # a hex's slanted edges, a path's outline: not the box round them
        return min(edge_distance(p, polys) for p in pts)
    return min(min(x, layout.width - x, y, layout.height - y) for x, y in pts)


def _box_distance(runs: tuple[ops.Run, ...], width: float, height: float) -> float | None:
    """`trim_distance` of a text that is not turned on a rectangular side (most): the
    nearest of the run boxes' edges (`run_box`) to the trim's, in one pass, not each box's four
    corners (the same value: `width - x` is least where x is most)."""
    xs: list[float] = []
    ys: list[float] = []
    for r in runs:
        x, base, size = r.x, r.baseline, r.size
        if r.kind == "icon":
            xs += (x, x + size)
            ys += (base - size, base)
        elif str(r.content).strip():
            xs += (x, x + r.width)
            ys += (base - 0.75 * size, base + 0.2 * size)
    if not xs:
        return None
    return min(min(xs), width - max(xs), min(ys), height - max(ys))


def _trim_polygons(layout: ops.CardLayout) -> list[list[tuple[float, float]]]:
    """The trim of a hex or `path` piece as polygons (pt, from the trim's top-left); [] for a
    rectangle."""
    if layout.shape in HEXES:
        return [outline(layout.shape, 0.0, 0.0, layout.width, layout.height)]
    if layout.shape == "path" and layout.outline:
        return [[(x * MM, y * MM) for x, y in poly] for poly in svgpath.polygons(layout.outline, 0.05)]
    return []


def text_near_trim(layout: ops.CardLayout, margin: float) -> list[tuple[str, float]]:
    """(element, distance to the trim in points, negative across it) of each text box whose
    runs come closer to the trim than `margin`; the closest distance per element."""
    out: dict[str, float] = {}
    for op in layout.ops:
        if isinstance(op, ops.Text):
            dist = trim_distance(op, layout)
            if dist is not None and dist < margin - 1e-6:
                name = op.element or "text"
                out[name] = min(dist, out.get(name, dist))
    return sorted(out.items(), key=lambda kv: kv[1])


class Inspector:
    """The geometry checks of one element on one card side: (option key or None, message,
    code) for each problem; called by the layout engine (`cardgen.layout.engine`) with what
    the element drew."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.key = settings.key

    def __call__(self, drawn: list, layout: ops.CardLayout) -> list[tuple[str | None, str, str]]:
        out: list[tuple[str | None, str, str]] = []
        s = self.settings
        sizes = [r.size for op in drawn if isinstance(op, ops.Text) for r in op.runs
                 if r.kind == "text" and str(r.content).strip()]
        if sizes and min(sizes) < s.min_size - 0.005:
            out.append(("size", f"text set at {min(sizes):g} pt, under the {s.min_size:g} pt a player can read "
                                f"(`min_text_size` in game.yaml); make it larger or shorten it", "small-text"))
        near = [d for op in drawn if isinstance(op, (ops.Text, ops.Icon))
                for d in [trim_distance(op, layout)] if d is not None]
        if near and min(near) < s.margin - 0.01:
            what = "text" if any(isinstance(op, ops.Text) and op.runs for op in drawn) else "icon"
            where = ("crosses the trim, into the bleed that is cut off" if min(near) < 0 else
                     f"comes closer to the trim than the {s.margin / MM:.2f} mm safe area a print service may cut "
                     f"into")
            out.append((None, f"{what} {where}; move it inwards", "safe-area"))
        return out


# -- colour coding, across cards ----------------------------------------------------------------

_COLOUR_KEYS = ("fill", "color", "stroke")
_TELL_KEYS = ("text", "icon", "src", "label")


def _colour(value: Any) -> tuple[float, ...] | None:
    return _colour_of(value) if isinstance(value, str) else _read_colour(value)


@lru_cache(maxsize=4096)
def _colour_of(value: str) -> tuple[float, ...] | None:
    """`_read_colour` of a text, read once (a colour-coded deck repeats each card's colour in
    several elements)."""
    return _read_colour(value)


def _read_colour(value: Any) -> tuple[float, ...] | None:
    try:
        c = Colour().convert(value, Env(100.0, 100.0)) if value not in (None, "") else None
    except Invalid:
        return None
    return c if c is not None and (len(c) < 4 or c[3] > 0.5) else None


def _coded(el: Mapping) -> list[str]:
    """The keys of `el` that give it a colour worked out per card or deck."""
    return [k for k in _COLOUR_KEYS if k in el and expr.is_dynamic(el[k])]


def _sides(game: Game, res) -> Iterable[tuple[Any, list, Any]]:
    """(template, [(card name, its context)], deck) for every deck whose face template has an
    element whose colour is worked out per card or deck."""
    for deck in game.decks:
        try:
            tpl = res.templates.get(deck.template, deck.template_loc)
        except Exception:       # (reported where the template is checked)
            continue
        if not any(_coded(el) for el in tpl.elements):
            continue
        contexts = []
        for card in deck.cards:
            fields = {**dict(tpl.defaults), **card.fields} if tpl.defaults else card.fields
            fields = {**card.revision_fields(), **fields}
            for name, (source, _) in computed_for(tpl, deck.data).items():     # (as the layout works them out)
                try:
                    fields[name] = expr.evaluate(source, expr.context(fields, res.deck_ctx(deck), res.game_ctx))
                except Exception:       # (reported by the layout)
                    break
            contexts.append((card.name, expr.context(fields, res.deck_ctx(deck), res.game_ctx)))
        yield tpl, contexts, deck


def _value(el: Mapping, key: str, ctx: dict, same: dict | None = None) -> Any:
    """What an element's `key` is on a card (its context `ctx`; None if it does not show or
    cannot be worked out).  `same`: what values without a condition gave on the cards whose
    contexts are alive, by their source and context (`{{ card.color }}` in three elements is
    worked out once a card)."""
    if same is not None and "when" not in el and isinstance(el.get(key), str):
        k = (el[key], id(ctx))
        if k not in same:
            same[k] = _value(el, key, ctx)
        return same[k]
    try:
        if "when" in el and not expr.condition(el["when"], ctx):
            return None
        v = el[key]
        return expr.evaluate(v, ctx) if expr.is_dynamic(v) else v
    except Exception:           # (every problem of a value is reported by the layout)
        return None


def _seen(c: tuple[float, ...]) -> tuple[tuple[float, ...], dict[str, tuple[float, ...]]]:
    """A colour's L*a*b*, as it is and as each colour-vision deficiency sees it: worked out
    once per colour, not once per pair (a deck of 200 colours has 19,900 pairs)."""
    from cardgen.check.colours import simulate

    return lab(c), {v: lab(simulate(c, v)) for v in MACHADO}


def _apart(p: tuple[float, ...], q: tuple[float, ...]) -> float:
    return math.dist(p, q)      # (CIE76, as `delta_e`)


def _collapses(a: tuple[float, ...], b: tuple[float, ...], seen: dict | None = None) -> list[str]:
    """The ways of seeing in which two colours that look different look the same (`seen`:
    each colour's `_seen`, kept by the caller)."""
    (la, sa), (lb, sb) = (seen[a], seen[b]) if seen is not None else (_seen(a), _seen(b))
    if _apart(la, lb) < DISTINCT:
        return []
    out = [v for v in MACHADO if _apart(sa[v], sb[v]) < DISTINCT]
    if abs(la[0] - lb[0]) < SAME_GREY:
        out.append("greyscale")
    return out


def colour_coding(game: Game, res, report: Report) -> None:
    """Warn at each template element whose colours tell cards apart, where nothing else the
    cards print does, and two of its colours collapse for a colour-vision deficiency or in
    greyscale."""
    groups: dict[tuple[int, str], tuple[Any, str, dict[tuple, list]]] = {}   # (a template element: a YDict)
    for tpl, contexts, deck in _sides(game, res):
        same: dict = {}         # (this deck's contexts are alive while it is looked at)
        for el in tpl.elements:
            for key in _coded(el):
                _, by_colour = groups.setdefault((id(el), key), (el, key, {}))[1:]
                for name, ctx in contexts:
                    c = _colour(_value(el, key, ctx, same))
                    if c is not None:
                        by_colour.setdefault(c[:3], []).append((deck, name, ctx))
    said: set[str] = set()
    # what each element shows on each card, worked out once for every colour-coded element (the
    # contexts are the same objects in every group; a fresh memo per element evaluated face-off's
    # 90 sides' conditions 23 times over: half of its `cardgen validate`)
    values: dict = {}
    seen_once: dict = {}        # (each colour's `_seen` once, whatever element shows it: a fill and a stroke)
    for el, key, by_colour in groups.values():
        if len(by_colour) < 2:
            continue
        found: list[tuple[tuple, tuple, list[str]]] = []
        tells = _Tells(res, values)
        colours = sorted(by_colour)
        pairs = tells.unsettled([by_colour[c] for c in colours])
        if pairs is not None and not pairs:
            continue            # (each card's own title, say: no pair need be looked at)
        seen_once.update((c, _seen(c)) for c in by_colour if c not in seen_once)
        for i, j in itertools.combinations(range(len(colours)), 2) if pairs is None else pairs:
            a, b = colours[i], colours[j]
            ways = _collapses(a, b, seen_once)
            if ways and not tells.apart(by_colour[a], by_colour[b]):
                found.append((a, b, ways))
                if len(found) == PAIRS_COUNTED:
                    break
        if not found:
            continue
        parts = []
        for a, b, ways in found[:4]:
            parts.append(f"{hex_of(a)} ({_who(by_colour[a])}) and {hex_of(b)} ({_who(by_colour[b])}) look the "
                         f"same {_ways(ways)}")
        least = "at least " if len(found) == PAIRS_COUNTED else ""
        more = f"; {least}{len(found) - 4} more pairs" if len(found) > 4 else ""
        if "; ".join(parts) in said:
            continue            # (another element of the template in the same colours: said there)
        said.add("; ".join(parts))
        report.warn(el.value_loc(key), f"element '{el.get('name')}': its `{key}` is all that tells these cards "
                                       f"apart, and {'; '.join(parts)}{more}; add a symbol or a word that differs, "
                                       f"or pick colours that differ in lightness", "colour-coding")


def _ways(ways: list[str]) -> str:
    people = [w.replace("opia", "ope") for w in ways if w != "greyscale"]
    said = f"to a {', '.join(people)}" if people else ""
    if "greyscale" in ways:
        said += (" and " if said else "") + "printed in greyscale"
    return said


def _who(members: list) -> str:
    decks = list(dict.fromkeys(d.name for d, _, _ in members))
    if len(decks) > 1:
        return "decks " + ", ".join(decks)
    if len(members) > 1:
        return f"{len(members)} cards of {decks[0]}, first '{members[0][1]}'"
    return f"'{members[0][1]}'"


def _told_apart(a: list, b: list, res, values: dict | None = None) -> bool:
    """Does anything else the cards print tell the two colours' cards apart: a value of an
    element of their templates that no card of one colour shares with a card of the other: an
    icon or an image (a shape), or a text that names a kind rather than one card (it comes from
    the deck or the game, not the card; or some cards share it; or each colour is one card's)?"""
    return _Tells(res, values).apart(a, b)


class _Tells:
    """`_told_apart` for the many pairs of one element's colours: what each colour's cards
    show of each element worked out once per colour (not once per pair: 500 colours make
    124,750 pairs), the templates' elements once per set of decks."""

    def __init__(self, res, values: dict | None = None) -> None:
        self.res = res
        self.values: dict = {} if values is None else values
        self.shown: dict[tuple[int, int, str], frozenset] = {}
        self.elements: dict[frozenset, list | None] = {}

    def _elements(self, a: list, b: list) -> list | None:
        decks = {id(deck): deck for deck, _, _ in a + b}
        key = frozenset(decks)
        if key not in self.elements:
            try:
                templates = {id(d): self.res.templates.get(d.template, d.template_loc) for d in decks.values()}
            except Exception:
                self.elements[key] = None
            else:
                self.elements[key] = list({id(e): e for tpl in templates.values() for e in tpl.elements}.values())
        return self.elements[key]

    def _set(self, members: list, el: Mapping, key: str) -> frozenset:
        k = (id(members), id(el), key)
        hit = self.shown.get(k)
        if hit is None:
            hit = self.shown[k] = frozenset(_shown(el, key, ctx, self.values) for _, _, ctx in members)
        return hit

    def apart(self, a: list, b: list) -> bool:
        elements = self._elements(a, b)
        if elements is None:
            return True
        for other in elements:
            for key in _TELL_KEYS:
                if key not in other:
                    continue
                va, vb = self._set(a, other, key), self._set(b, other, key)
                if not va.isdisjoint(vb):
                    continue
                if _names_kind(other, key) or len(va) + len(vb) < len(a) + len(b) or len(a) == len(b) == 1:
                    return True
        return False

    def every_pair_apart(self, groups: list[list]) -> bool:
        """Would `apart` say yes for every pair of `groups` (each colour's cards)?"""
        return self.unsettled(groups) == []

    def unsettled(self, groups: list[list]) -> list[tuple[int, int]] | _Pairs | None:
        """The pairs of `groups` (each colour's cards; by index, in order) that one element
        does not tell apart, worked out in time linear in the cards where every group's cards
        share one list of elements (their decks' templates give the same elements): an element
        no value of which two groups show tells every pair apart, but for pairs of groups
        whose cards all show values of their own, one of them of several cards (the count
        rule of `apart`).  [] (every pair told apart), or the pairs `apart` has to look at, in
        order, made as they are looked at (`_Pairs`: `bench_scale.py`'s 10,000-card deck in
        random colours, where some 45 colours are two cards', has about 450,000 such pairs in
        50 million), or None: every pair."""
        everyone = [m for g in groups for m in g]
        elements = self._elements(everyone, [])
        if elements is None:
            return []
        if any(self._elements(g, []) is not elements and self._elements(g, []) != elements for g in groups):
            return None
        best: _Pairs | None = None
        for other in elements:
            for key in _TELL_KEYS:
                if key not in other:
                    continue
                sets = [self._set(g, other, key) for g in groups]
                if sum(len(v) for v in sets) != len(frozenset().union(*sets)):
                    continue            # (a value two groups share)
                if _names_kind(other, key):
                    return []
                own = [i for i, (g, v) in enumerate(zip(groups, sets, strict=True)) if len(v) == len(g)]
                several = [i for i in own if len(groups[i]) > 1]
                if len(own) <= 1 or not several:
                    return []
                if best is None or len(several) * len(own) < len(best):
                    best = _Pairs(own, several)
        return best


class _Pairs:
    """The pairs (i, j), i < j, of the indices `own` of which one at least is in `several`
    (a subset of `own`), in order (`_Tells.unsettled`): made as they are looked at, not held
    (a 10,000-card deck in random colours: about 450,000 pairs)."""

    def __init__(self, own: list[int], several: list[int]) -> None:
        self.own, self.several = sorted(own), sorted(several)

    def __len__(self) -> int:
        s = len(self.several)
        return s * (len(self.own) - s) + s * (s - 1) // 2

    def __iter__(self) -> Iterator[tuple[int, int]]:
        from bisect import bisect_right

        mine = set(self.several)
        for k, i in enumerate(self.own):
            for j in self.own[k + 1:] if i in mine else self.several[bisect_right(self.several, i):]:
                yield i, j


def _names_kind(el: Mapping, key: str) -> bool:
    """An icon or image (a shape), or a text that does not come from the card (it names a kind)."""
    return key in ("icon", "src") or not (isinstance(el[key], str) and expr.reads_card(el[key]))


def _shown(el: Mapping, key: str, ctx: dict, values: dict | None) -> str:
    """What an element's `key` is on a card (its context `ctx`), worked out once per element
    and card however many pairs of colours ask (`values`)."""
    if values is None:
        return repr(_value(el, key, ctx))
    k = (id(el), key, id(ctx))
    hit = values.get(k)
    if hit is None:
        hit = values[k] = repr(_value(el, key, ctx))
    return hit
