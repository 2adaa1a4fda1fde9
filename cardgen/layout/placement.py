"""Placement that follows content: an element placed by another one as that one is laid out on
the card in hand (`below:`, `above:`, `right_of:`, `left_of:`, `inside:` and `gap:`, declared
on `cardgen.elements.base.Box`), and stacks of elements set one below another as one block
(`cardgen.elements.stack`).  Also the template's `origin: bleed` (coordinates measured from the
bleed's corner, as Squib measures).

What places what is worked out once per template (`links`: unknown names and cycles are errors
at the template's line); for each card side `resolve` lays out, in an order where every element
comes after the ones it is placed by, the elements others need, to measure them, and gives back
each placed element with its box set.  The engine then draws every element in the template's
order as usual: placement never changes what is drawn over what.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from cardgen.core.errors import CardgenError, Diagnostic
from cardgen.core.units import MM
from cardgen.elements.base import Box, Element
from cardgen.load.yamlsrc import YDict
from cardgen.model import ops
from cardgen.model.ops import extent

if TYPE_CHECKING:    # (the stack's module is imported for a template with a stack: `cardgen.elements`)
    from cardgen.elements.stack import Stack

PLACE_KEYS = ("below", "above", "right_of", "left_of", "inside")
# what each placement sets, so that the element may not set it too
_SETS = {"below": ("y",), "right_of": ("x",), "inside": ("x", "y", "width", "height")}
_AXIS = {"below": "v", "above": "v", "right_of": "h", "left_of": "h", "inside": "hv"}
_WORDS = {"below": "below", "above": "above", "right_of": "right of", "left_of": "left of", "inside": "inside"}
COORDINATES = ("x", "y", "x2", "y2")        # what `origin: bleed` measures from the bleed's corner
_SLACK = 0.01                               # points a stack's items may exceed its box by, rounding

Extent = tuple[float, float, float, float, bool]     # x0, y0, x1, y1 (points), and "nothing drawn"


@dataclass(frozen=True)
class Links:
    """What places what in one template (element indices)."""

    anchors: dict[int, tuple[str, int]]     # element -> (its placement key, the element it is placed by)
    stacks: dict[int, tuple[int, ...]]      # stack -> its items, top to bottom
    order: tuple[int, ...]                  # elements and stacks to work out, each after what it needs
    measured: frozenset[int]                # elements another one is placed by

    def member(self, index: int) -> bool:
        return any(index in items for items in self.stacks.values())


def _is_stack(el: Mapping) -> bool:
    """Whether the element is a stack, by its `type:` word (importing no element type)."""
    return el.get("type") == "stack"


def _problem(el: YDict, key: str, message: str) -> Diagnostic:
    loc = el.value_loc(key) if key in el else el.loc
    return Diagnostic(loc, f"element '{el.get('name')}': {message}", "error", "placement")


def _own_problems(el: YDict, names: Mapping[str, int]) -> list[Diagnostic]:
    """An element's placement keys that name nothing or contradict each other or its box."""
    out: list[Diagnostic] = []
    keys = [k for k in PLACE_KEYS if el.get(k)]
    for key in keys:
        if not isinstance(el[key], str) or el[key] not in names:
            from cardgen.schema.core import suggest

            out.append(_problem(el, key, f"`{key}:` names no element of the template: {el[key]!r}"
                                         f"{suggest(str(el[key]), names)}"))
        elif el[key] == el.get("name"):
            out.append(_problem(el, key, f"`{key}:` names the element itself"))
    for a, b in ((a, b) for i, a in enumerate(keys) for b in keys[i + 1:]):
        if set(_AXIS[a]) & set(_AXIS[b]):
            out.append(_problem(el, b, f"`{b}:` and `{a}:` both place it; give one"))
    for key in keys:
        both = [k for k in _SETS.get(key, ()) if el.get(k) is not None]
        if key == "above" and el.get("y") is not None and el.get("height") is not None:
            both = ["y` and `height"]
        if key == "left_of" and el.get("x") is not None and el.get("width") is not None:
            both = ["x` and `width"]
        if both:
            out.append(_problem(el, both[0].split("`")[0], f"`{both[0]}` and `{key}:` both place it; "
                                                           f"give one"))
    return out


def _stack_problems(el: YDict, index: int, elements: Sequence[YDict], names: Mapping[str, int],
                    member_of: dict[int, int]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    items = el.get("items")
    for name in items if isinstance(items, list) else ():
        j = names.get(name) if isinstance(name, str) else None
        if j is None:
            from cardgen.schema.core import suggest

            out.append(_problem(el, "items", f"`items:` names no element of the template: {name!r}"
                                             f"{suggest(str(name), names)}"))
            continue
        item = elements[j]
        own = [k for k in ("y", "height", *PLACE_KEYS) if item.get(k) is not None and item[k] != ""]
        if j == index or _is_stack(item):
            out.append(_problem(el, "items", f"`items:` names '{name}', a stack; a stack sets other elements"))
        elif j in member_of:
            out.append(_problem(el, "items", f"'{name}' is already an item of stack "
                                             f"'{elements[member_of[j]].get('name')}'"))
        elif own:
            out.append(_problem(item, own[0], f"it is an item of stack '{el.get('name')}' "
                                              f"({el.loc.brief}), "
                                              f"which sets its `y` and `height`; remove its `{own[0]}`"))
        else:
            member_of[j] = index
    return out


def overridden(parent: Mapping, child: Mapping) -> set[str]:
    """The keys of an inherited element that a child template's placement replaces: a child
    that places it `below:` another drops the parent's `y` (and its `inside:` ...), one that
    gives `y` drops the parent's `below:`; so that overriding never makes a contradiction."""
    drop: set[str] = set()
    for key in PLACE_KEYS:
        if child.get(key):
            drop |= {k for k in PLACE_KEYS if k != key and set(_AXIS[k]) & set(_AXIS[key])}
            drop |= set(_SETS.get(key, ()))
    for key in PLACE_KEYS:
        if any(k in child for k in _SETS.get(key, ())) or (key == "inside" and any(
                k in child for k in ("x", "y", "width", "height"))):
            drop.add(key)
    return {k for k in drop if k in parent and k not in child}


def links(elements: Sequence[YDict]) -> Links | None:
    """What places what among a template's (merged) elements; None when nothing is placed by
    another element.  CardgenError (every problem, at its line) for a name that is no element,
    contradicting keys, and elements placed by each other in a cycle."""
    placed = [i for i, el in enumerate(elements) if any(el.get(k) for k in PLACE_KEYS)
              or _is_stack(el)]
    if not placed:
        return None
    names = {str(el.get("name")): i for i, el in enumerate(elements)}
    problems: list[Diagnostic] = []
    anchors: dict[int, tuple[str, int]] = {}
    member_of: dict[int, int] = {}
    for i in placed:
        el = elements[i]
        own = _own_problems(el, names)
        problems += own
        key = next((k for k in PLACE_KEYS if el.get(k)), None)
        if key is not None and not own:
            anchors[i] = (key, names[el[key]])
        if _is_stack(el):
            problems += _stack_problems(el, i, elements, names, member_of)
    if problems:
        raise CardgenError(None, diagnostics=problems)
    ordered = {s: tuple(names[n] for n in elements[s]["items"]) for s in set(member_of.values())}
    return Links(anchors, ordered, _order(elements, anchors, member_of, ordered),
                 frozenset(a for _, a in anchors.values()))


def _order(elements: Sequence[YDict], anchors: dict[int, tuple[str, int]], member_of: dict[int, int],
           stacks: Mapping[int, tuple[int, ...]]) -> tuple[int, ...]:
    """The elements and stacks to work out (an item is worked out with its stack), each after
    the one it is placed by; a cycle is an error at its first element's line."""
    def unit(i: int) -> int:
        return member_of.get(i, i)

    todo = list(dict.fromkeys([unit(i) for i in anchors] + [unit(a) for _, a in anchors.values()] + list(stacks)))
    done: dict[int, None] = {}
    for start in todo:
        path: list[int] = []
        u: int | None = start
        while u is not None and u not in done:
            if u in path:
                raise _cycle(elements, anchors, member_of, path[path.index(u):])
            path.append(u)
            u = unit(anchors[u][1]) if u in anchors else None
        for u in reversed(path):
            done[u] = None
    return tuple(done)


def _cycle(elements: Sequence[YDict], anchors: dict[int, tuple[str, int]], member_of: dict[int, int],
           units: list[int]) -> CardgenError:
    steps = []
    for u in units:
        key, a = anchors[u]
        step = f"'{elements[u].get('name')}' is placed {_WORDS[key]} '{elements[a].get('name')}'"
        if a in member_of:
            step += f", an item of stack '{elements[member_of[a]].get('name')}'"
        steps.append(step)
    first = elements[units[0]]
    return CardgenError(None, diagnostics=[_problem(first, anchors[units[0]][0], "placed in a cycle: "
                                                    + ", ".join(steps) + "; place one of them by x and y")])


# -- for each card side ---------------------------------------------------------------------

def shown(drawn: Sequence[ops.Op]) -> tuple[float, float, float, float] | None:
    """Where what an element drew shows (x0, y0, x1, y1), None if it drew nothing: an image
    cropped to its box (`fit: cover`) within the box."""
    boxes = [(op.clip[0], op.clip[1], op.clip[0] + op.clip[2], op.clip[1] + op.clip[3])
             if isinstance(op, ops.Image) and op.clip and not op.rotate else extent(op) for op in drawn]
    if not boxes:
        return None
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


class Unplaced(Exception):
    """What keeps an element from being placed on a card: said at element `index`'s `key`."""

    def __init__(self, index: int, key: str, message: str):
        super().__init__(message)
        self.index, self.key, self.message = index, key, message


@dataclass
class Frame:
    """What `resolve` asks of the engine for one card side."""

    elements: Sequence[YDict]
    # element index -> the element for this card, None when `when` is false; with `anyway`, the
    # element even so (None if it cannot be made)
    build: Callable[[int, bool], Element | None]
    # the element laid out aside: where what it draws lies (x0, y0, x1, y1), None if nothing
    measure: Callable[[int, Element], tuple[float, float, float, float] | None]
    rect: Callable[[Box], tuple[float, float, float, float]]


def resolve(lk: Links, frame: Frame) -> tuple[dict[int, Element | None], list[tuple[int, str, str, str]]]:
    """Each placed element (and stack item) with its box set for the card (None: not drawn),
    and warnings (element index, key, message, code)."""
    placed: dict[int, Element | None] = {}
    extents: dict[int, Extent] = {}
    absent: set[int] = set()        # elements that draw nothing on this card (their extent stands in)
    notes: list[tuple[int, str, str, str]] = []
    for u in lk.order:
        anchor = lk.anchors.get(u)
        e = frame.build(u, False)
        if e is not None and anchor is not None:
            ext = extents[anchor[1]]
            # inside what is not there: nothing (a panel around a text a card does not have)
            nothing = anchor[0] == "inside" and (anchor[1] in absent or ext[4])
            e = None if nothing else _placed(e, anchor[0], ext, frame)
        placed[u] = e
        if u in lk.stacks:
            extents[u] = _stack(u, e, lk.stacks[u], frame, placed, extents, notes)
            absent.update(j for j in (u, *lk.stacks[u]) if extents[j][4])
            continue
        if u not in lk.measured:
            continue
        got = frame.measure(u, e) if isinstance(e, Box) else None
        if got is not None:
            extents[u] = (*got, False)
            continue
        absent.add(u)
        if anchor is not None:
            extents[u] = extents[anchor[1]]      # not drawn: what it is placed by stands in for it
        else:
            extents[u] = _empty(u, e, frame)
    return placed, notes


def _empty(u: int, e: Element | None, frame: Frame) -> Extent:
    """Where an element placed by nothing and drawing nothing on this card is: its box's
    top-left corner (an element below it goes where it would have been)."""
    e = e if e is not None else frame.build(u, True)
    if not isinstance(e, Box):
        raise Unplaced(u, "when", "is not drawn on this card and its place cannot be worked out (an element is "
                                  "placed by it); give it x and y that do not read the card")
    x, y, _, _ = frame.rect(e)
    return x, y, x, y, True


def _placed(e: Element, key: str, ext: Extent, frame: Frame) -> Element:
    """`e` with its box set by the element it is placed by (`ext`, as laid out)."""
    assert isinstance(e, Box)
    x0, y0, x1, y1, empty = ext
    gap = 0.0 if empty else e.margin
    changes: dict[str, Any]
    if key == "below":
        changes = {"y": y1 + gap}
    elif key == "right_of":
        changes = {"x": x1 + gap}
    elif key == "inside":
        changes = {"x": x0 + gap, "y": y0 + gap, "width": max(0.0, x1 - x0 - 2 * gap),
                   "height": max(0.0, y1 - y0 - 2 * gap)}
    elif key == "above":
        if e.height is not None:
            changes = {"y": y0 - gap - e.height}
        else:
            top = frame.rect(e)[1]
            changes = {"y": top, "height": max(0.0, y0 - gap - top)}
    else:   # left_of
        if e.width is not None:
            changes = {"x": x0 - gap - e.width}
        else:
            left = frame.rect(e)[0]
            changes = {"x": left, "width": max(0.0, x0 - gap - left)}
    return dataclasses.replace(e, **changes)


def _stack(u: int, stack: Element | None, items: tuple[int, ...], frame: Frame, placed: dict[int, Element | None],
           extents: dict[int, Extent], notes: list[tuple[int, str, str, str]]) -> Extent:
    """The items of stack `u` placed one below another, the block aligned in the stack's box;
    the extent of what they draw."""
    from cardgen.elements import ELEMENTS

    stack_type = cast("type[Stack]", ELEMENTS["stack"])
    if not isinstance(stack, stack_type):       # the stack is not drawn: nor are its items
        hidden = _empty(u, stack, frame)
        for j in items:
            placed[j], extents[j] = None, hidden
        return hidden
    sx, sy, sw, sh = frame.rect(stack)
    laid: list[tuple[int, Box, tuple[float, float, float, float]]] = []
    for j in items:
        e = frame.build(j, False)
        placed[j] = e
        if not isinstance(e, Box):
            continue
        x = sx if e.x is None else e.x
        e = dataclasses.replace(e, x=x, width=(sx + sw - x) if e.width is None else e.width, y=sy, height=sh)
        if hasattr(e, "valign"):
            e = dataclasses.replace(e, valign="top")       # type: ignore[call-arg]
        got = frame.measure(j, e)
        if got is not None:
            laid.append((j, e, got))
        placed[j] = e
    total = sum(got[3] - sy for _, _, got in laid) + stack.spacing * max(0, len(laid) - 1)
    if total > sh + _SLACK:
        total = _shrink(laid, stack, sy, sh, total, frame)
    if total > sh + _SLACK:
        notes.append((u, "items", f"its items are {total / MM:.1f} mm tall together, its box {sh / MM:.1f} mm: "
                                  f"they overflow it; shorten them or enlarge the box", "overflow"))
    top = sy + {"middle": (sh - total) / 2, "bottom": sh - total}.get(stack.valign, 0.0)
    x0 = x1 = sx
    for n, (j, e, got) in enumerate(laid):
        tall = got[3] - sy
        placed[j] = dataclasses.replace(e, y=top, height=tall)
        extents[j] = (got[0], top + got[1] - sy, got[2], top + tall, False)
        x0, x1 = (got[0], got[2]) if n == 0 else (min(x0, got[0]), max(x1, got[2]))
        top += tall + stack.spacing
    for j in items:         # an item not drawn: where the block starts (what it would have led)
        extents.setdefault(j, (sx, sy if not laid else extents[laid[0][0]][1], sx,
                               sy if not laid else extents[laid[0][0]][1], True))
    if not laid:
        return sx, sy, sx, sy, True
    return x0, extents[laid[0][0]][1], x1, extents[laid[-1][0]][3], False


def _shrink(laid: list[tuple[int, Box, tuple[float, float, float, float]]], stack: Stack, sy: float, sh: float,
            total: float, frame: Frame) -> float:
    """Items with `fit: shrink` of a stack too tall for its box made smaller together: each
    given a share of the room the others leave, in proportion to its height; the new total."""
    flexible = [n for n, (_, e, _) in enumerate(laid) if getattr(e, "fit", "") == "shrink"]
    tall = sum(laid[n][2][3] - sy for n in flexible)
    if not flexible or tall <= 0:
        return total
    room = max(0.0, sh - (total - tall))
    for n in flexible:
        j, e, got = laid[n]
        fitted = dataclasses.replace(e, height=(got[3] - sy) * room / tall)
        again = frame.measure(j, fitted)
        if again is not None:
            laid[n] = (j, fitted, again)
    return sum(got[3] - sy for _, _, got in laid) + stack.spacing * max(0, len(laid) - 1)


def shifted(e: Element, keys: frozenset[str], by: float) -> Element:
    """`e` with the coordinates in `keys` measured from the bleed's corner (`origin: bleed`):
    moved up and left by the bleed `by` (points)."""
    changes = {k: getattr(e, k) - by for k in keys if getattr(e, k, None) is not None}
    return dataclasses.replace(e, **changes) if changes else e
