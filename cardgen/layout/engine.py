"""Lay out one side of a card: its template's elements, evaluated for the card, become
positioned drawing operations (`cardgen.model.ops`).

Each element's options are converted by its declaration (`cardgen.elements`): values that
are plain YAML once per template and card size, Jinja expressions once per card.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardgen.core import progress
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report, plural
from cardgen.core.paths import PathRefused, find_confined, svg_problem
from cardgen.core.units import MM
from cardgen.elements import ELEMENTS
from cardgen.elements.base import Element, ElementError, LayoutContext
from cardgen.layout import expr
from cardgen.layout.templates import TemplateBook
from cardgen.load.game import Card, Deck, Game
from cardgen.model import ops
from cardgen.model.ops import extent
from cardgen.resources.fonts import FontBook, describe_chars, is_emoji
from cardgen.resources.icons import IconBook
from cardgen.resources.richtext import Typesetter
from cardgen.schema.core import Anything, Colour, Env, Invalid, Kind, Text

_RTL = "\0right-to-left"     # key in a card side's `said`: right-to-left text reported


class Resources:
    """Templates, fonts, icons and art of one game: found once, shared by every card."""

    def __init__(self, game: Game):
        self.game = game
        self.roots = game.roots
        self.templates = TemplateBook(game.search_dirs("templates"), self.roots)
        self.fonts = FontBook(game.search_dirs("fonts"), self.roots, game.opts.fallback_fonts or ())
        self.icons = IconBook(game.search_dirs("art"), game.opts.icons or {}, self.roots)
        self.art_dirs = game.search_dirs("art")
        self.typesetter = Typesetter(self.fonts, self.icons.require)
        self.game_ctx = game.context()
        self._deck_ctx: dict[int, dict] = {}

    def deck_ctx(self, deck: Deck) -> dict:
        """What templates see as `deck`, made once per deck (its total is a sum over its cards:
        per card, that made a build quadratic in the number of cards)."""
        ctx = self._deck_ctx.get(id(deck))
        if ctx is None:
            ctx = self._deck_ctx[id(deck)] = deck.context()
        return ctx

    def find_art(self, src: str) -> Path | None:
        """The art file `src` names (in art/, the game folder or the project), confined to the
        game's allowed folders: PathRefused for an absolute path, a `..` escape, a symbolic link
        pointing outside or an SVG referring to outside files."""
        path = find_confined(str(src), (*self.art_dirs, self.game.root, self.game.project), self.roots,
                             "image")
        if path is not None and path.suffix.lower() == ".svg":
            problem = svg_problem(path, self.roots)
            if problem:
                raise PathRefused(problem)
        return path


def _key_using(el, field: str) -> str | None:
    """The element key whose expression mentions `field` (for the error's location)."""
    pattern = re.compile(rf"\.{re.escape(field)}\b|\[\s*['\"]{re.escape(field)}['\"]\s*\]")
    for k, v in el.items():
        if isinstance(v, str) and (expr.is_dynamic(v) or k == "when") and pattern.search(v):
            return k
    return None


# Values that print the game's version or the card's revision: the ops they make are the card's
# "stamp", left out of its content hash (`cardgen.layout.manifest`), so that a new version or
# revision does not count as a change of every card.
_STAMP = re.compile(r"\b(game\s*\.\s*version|card\s*\.\s*revision\w*)\b"
                    r"|\b(game|card)\s*\[\s*['\"](version|revision\w*)['\"]\s*\]")


def _shows_stamp(el: Mapping) -> bool:
    return any(isinstance(v, str) and (expr.is_dynamic(v) or k == "when") and _STAMP.search(v)
               for k, v in el.items())


def _empty_means_default(kind: Kind) -> bool:
    return not isinstance(kind, (Text, Colour, Anything))


class Prepared:
    """One template element ready for many cards: its declaration, the plain values converted
    once (per card size), the keys whose values are expressions, and of those the values
    that do not read the card (`expr.reads_card`) worked out once per deck."""

    def __init__(self, el: Mapping):
        self.el = el
        self.cls: type[Element] = ELEMENTS[str(el.get("type"))]
        opts = self.cls.options()
        self.dynamic = [k for k in opts if k in el and k not in Element.META and expr.is_dynamic(el[k])]
        self.static = {k: el[k] for k in opts if k in el and k not in Element.META and k not in self.dynamic}
        self.per_deck = {k for k in self.dynamic if not expr.reads_card(el[k])}
        self._by_env: dict[Env, dict[str, Any]] = {}
        self._whole: dict[Env, Element] = {}
        # (key, env, deck data id, game data id) -> (converted value, the data, kept so ids stay unique)
        self._deck_values: dict[tuple, tuple[Any, tuple]] = {}
        self.stamp = _shows_stamp(el)

    def _convert(self, key: str, value: Any, env: Env) -> tuple[str, Any] | None:
        attr, o = self.cls.options()[key]
        if value is None or (value == "" and _empty_means_default(o.kind)):
            return None
        try:
            return attr, o.kind.convert(value, env)
        except Invalid as exc:
            raise ElementError(key, f"`{key}` {exc.message}", "template-value") from None

    def element(self, ctx: dict, env: Env) -> Element:
        """The typed element for one card (expressions evaluated in `ctx`)."""
        if not self.dynamic:
            hit = self._whole.get(env)
            if hit is None:
                hit = self._whole[env] = self.cls(name=str(self.el.get("name")), **self._static(env))
            return hit
        kwargs = dict(self._static(env))
        for key in self.dynamic:
            if key in self.per_deck:
                data = (ctx["deck"]._data, ctx["game"]._data)
                once = (key, env, id(data[0]), id(data[1]))
                known = self._deck_values.get(once)
                if known is None:
                    known = self._deck_values[once] = (self._evaluate(key, ctx, env), data)
                done = known[0]
            else:
                done = self._evaluate(key, ctx, env)
            if done is not None:
                kwargs[done[0]] = done[1]
        return self.cls(name=str(self.el.get("name")), **kwargs)

    def _evaluate(self, key: str, ctx: dict, env: Env) -> tuple[str, Any] | None:
        try:
            value = expr.evaluate(self.el[key], ctx)
        except expr.ExprError as exc:
            raise ElementError(key, str(exc), "expression") from None
        return self._convert(key, value, env)

    def _static(self, env: Env) -> dict[str, Any]:
        hit = self._by_env.get(env)
        if hit is None:
            hit = {}
            for key, value in self.static.items():
                done = self._convert(key, value, env)
                if done is not None:
                    hit[done[0]] = done[1]
            self._by_env[env] = hit
        return hit


class Layouter:
    def __init__(self, res: Resources, report: Report):
        self.res = res
        self.report = report
        self._prepared: dict[int, Prepared] = {}
        self._off: dict[int, list] = {}     # template element -> [element, more cards, message head, where]

    def prepared(self, el: Mapping) -> Prepared:
        p = self._prepared.get(id(el))
        if p is None or p.el is not el:
            p = self._prepared[id(el)] = Prepared(el)
        return p

    # -- public -------------------------------------------------------------
    def card_side(self, deck: Deck, card: Card | None, side: str) -> ops.CardLayout:
        """Lay out `side` ("face", "back" or "backs") of a card (card None: the deck's shared back)."""
        if side == "face" and card is not None:
            ref, loc = deck.template, deck.template_loc
            fields = card.fields
        elif side == "back" and deck.back and deck.back_loc:
            ref, loc = deck.back, deck.back_loc
            fields = {"name": f"{deck.name} back"}
        elif side == "backs" and card is not None and deck.backs and deck.back_loc:
            ref, loc = deck.backs, deck.back_loc
            fields = card.back_fields or card.fields
        else:
            raise ValueError(f"deck '{deck.name}' has no {side} to lay out")
        tpl = self.res.templates.get(ref, loc)
        if tpl.defaults:
            merged = dict(tpl.defaults)
            merged.update(fields)
            fields = merged
        if card is not None:
            fields = {**card.revision_fields(), **fields}
        ctx = expr.context(fields, self.res.deck_ctx(deck), self.res.game_ctx)
        bleed = deck.bleed * MM
        w, h = deck.size.width * MM, deck.size.height * MM
        layout = ops.CardLayout(w, h, bleed, [], f"{deck.slug}/{card.index if card else 'back'}/{side}",
                                deck.size.shape)
        who = f"card '{card.name}'" if card else f"deck '{deck.name}' back"
        where = f" ({card.loc.short})" if card else ""
        env = Env(w, h)
        said: dict[str, set[str]] = {}      # font -> characters already reported for this card side
        for el in tpl.elements:
            def warn(key: str | None, message: str, code: str, el=el) -> None:
                self.report.warn(el.value_loc(key) if key and key in el else el.loc, message, code)

            lc = LayoutContext(self.res, w, h, bleed, layout.ops, who, warn)
            try:
                if "when" in el and not expr.condition(el["when"], ctx):
                    continue
                prepared, start = self.prepared(el), len(layout.ops)
                prepared.element(ctx, env).layout(lc)
                if prepared.stamp:
                    layout.stamp.extend(range(start, len(layout.ops)))
                if len(layout.ops) > start:
                    drawn = layout.ops[start:]
                    self._text_problems(drawn, el, card, f"{who}{where}, element '{el.get('name')}'", said)
                    self._off_card(drawn, el, tpl.ref, layout, card, who + where)
            except ElementError as exc:
                eloc = el.value_loc(exc.key) if exc.key and exc.key in el else el.loc
                raise CardgenError(eloc, f"{who}{where}, element '{el.get('name')}': {exc.message}",
                                   code=exc.code) from None
            except expr.ExprError as exc:
                raise CardgenError(el.value_loc("when"), f"{who}{where}, element '{el.get('name')}': {exc}",
                                   code="expression") from None
            except expr.MissingField as exc:
                key = _key_using(el, exc.name)
                eloc = el.value_loc(key) if key else el.loc
                raise CardgenError(eloc, f"{who}{where} has no field '{exc.name}' (used by element "
                                         f"'{el.get('name')}'); add `{exc.name}:` to the card, or a default "
                                         f"under `defaults:` in template {tpl.ref}", code="missing-field") from None
        return layout


    # -- what the drawing would get silently wrong ---------------------------------------
    def _text_problems(self, drawn: list, el, card: Card | None, who: str, said: dict[str, set[str]]) -> None:
        """Warn (once per card side and font) about characters that no font has and about
        emoji a fallback font draws in black and white; and (once per card side) about
        right-to-left text, which is drawn left to right (there is no shaping engine)."""
        fonts = self.res.fonts
        missing: dict[str, str] = {}
        mono: dict[str, str] = {}
        rtl = ""
        for op in drawn:
            if not isinstance(op, ops.Text):
                continue
            for r in op.runs:
                if r.kind != "text":
                    continue
                text = str(r.content)
                seen = said.setdefault(r.font, set())
                lacking = "".join(ch for ch in fonts.missing(text, r.font) if ch not in seen)
                if fonts.is_fallback(r.font):
                    mono[r.font] = mono.get(r.font, "") + "".join(
                        ch for ch in dict.fromkeys(text) if is_emoji(ch) and ch not in seen and ch not in lacking)
                    seen.update(mono[r.font])
                if lacking:
                    seen.update(lacking)
                    missing[r.font] = missing.get(r.font, "") + lacking
                if _RTL not in said and not rtl:
                    rtl = "".join(ch for ch in text if unicodedata.bidirectional(ch) in ("R", "AL"))
        for font, chars in missing.items():
            key, loc = self._source_of(chars, el, card)
            chain = [f for f in fonts.fallbacks if f != fonts.family_of(font)]
            by = f"font {font}" + (f" and the fallback font{'s' if len(chain) > 1 else ''} {', '.join(chain)}"
                                   if chain else "")
            them, they = ("them", "they print") if len(chars) > 1 else ("it", "it prints")
            self.report.warn(loc, f"{who}{key}: {by} {'have' if chain else 'has'} no glyph for "
                                  f"{describe_chars(chars)}; {they} blank or as a box (add a font that has {them} "
                                  f"to fonts/ and name it in game.yaml `fallback_fonts:`, or leave {them} out)",
                             "missing-glyph")
        for font, chars in mono.items():
            if chars:
                key, loc = self._source_of(chars, el, card)
                self.report.warn(loc, f"{who}{key}: emoji {describe_chars(chars)} drawn in black and white by the "
                                      f"fallback font {font} (cardgen prints no colour emoji; for a coloured symbol "
                                      f"use an :icon:)", "emoji")
        if rtl:
            said[_RTL] = set()
            key, loc = self._source_of(rtl, el, card)
            self.report.warn(loc, f"{who}{key}: right-to-left text ({describe_chars(rtl[:1])}, ...) is drawn left "
                                  f"to right without shaping: letters come out in reverse order and Arabic letters "
                                  f"unjoined (cardgen has no shaping engine; put such text in as an image)",
                             "right-to-left")

    @staticmethod
    def _source_of(chars: str, el, card: Card | None) -> tuple[str, Loc]:
        """Where characters came from: the first of the card's own fields holding one of them
        (` (field `name`)` and its location), else the element's `text`."""
        if card is not None:
            for key, value in card.data.items():
                stack = [value]
                while stack:
                    v = stack.pop()
                    if isinstance(v, str):
                        if any(ch in v for ch in chars):
                            return f" (field `{key}`)", card.field_loc(key)
                    elif isinstance(v, dict):
                        stack.extend(v.values())
                    elif isinstance(v, list):
                        stack.extend(v)
        return "", el.value_loc("text") if "text" in el else el.loc

    def _off_card(self, drawn: list, el, tpl_ref: str, layout: ops.CardLayout, card: Card | None, who: str) -> None:
        """Remember an element that lies wholly outside the card and its bleed (reported once
        per element by `finish`, naming the first card)."""
        B = layout.bleed
        boxes = [extent(op) for op in drawn]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        if x1 > -B and y1 > -B and x0 < layout.width + B and y0 < layout.height + B:
            return
        hit = self._off.get(id(el))
        if hit is not None:
            hit[1] += 1
            return
        where = (f"it spans x {x0 / MM:.1f} to {x1 / MM:.1f} mm, y {y0 / MM:.1f} to {y1 / MM:.1f} mm; the card "
                 f"with its bleed spans x {-B / MM:.1f} to {(layout.width + B) / MM:.1f} mm, y {-B / MM:.1f} to "
                 f"{(layout.height + B) / MM:.1f} mm")
        self._off[id(el)] = [el, 0, f"element '{el.get('name')}' of template {tpl_ref} lies entirely off the card "
                                    f"on {who}", where]

    def finish(self) -> None:
        """Report what was remembered while laying out every card."""
        for el, more, head, where in self._off.values():
            others = f" and {plural(more, 'more card')}" if more else ""
            self.report.warn(el.loc, f"{head}{others} ({where}); it is not printed (check its x, y and units)",
                             "off-card")
        self._off.clear()


@dataclass
class Rendered:
    """A game laid out: every distinct card side once, and the copies in print order."""

    game: Game
    res: Resources
    faces: list[tuple[Deck, Card, ops.CardLayout]]
    backs: dict[tuple[str, int | None], ops.CardLayout]   # (deck slug, card index or None for shared)
    copies: list[ops.Copy]
    out_dir: Path

    def back_of(self, deck: Deck, card: Card) -> ops.CardLayout | None:
        if deck.backs:
            return self.backs.get((deck.slug, card.index))
        if deck.back:
            return self.backs.get((deck.slug, None))
        return None

    def distinct_backs(self) -> list[ops.CardLayout]:
        return list(self.backs.values())

    def printed(self) -> tuple[list[ops.CardLayout], list[ops.CardLayout]]:
        """Distinct faces and backs of the cards that have copies (a `count: 0` card is parked)."""
        faces: list[ops.CardLayout] = []
        backs: list[ops.CardLayout] = []
        for deck, card, face in self.faces:
            if card.count <= 0:
                continue
            faces.append(face)
            back = self.back_of(deck, card)
            if back is not None and all(b is not back for b in backs):
                backs.append(back)
        return faces, backs


def layout_game(game: Game, report: Report, res: Resources | None = None) -> Rendered:
    res = res or Resources(game)
    lay = Layouter(res, report)
    errors: list[Diagnostic] = []
    faces: list[tuple[Deck, Card, ops.CardLayout]] = []
    backs: dict[tuple[str, int | None], ops.CardLayout] = {}
    copies: list[ops.Copy] = []
    bar = progress.start("laying out", sum(len(d.cards) for d in game.decks))
    for deck in game.decks:
        back_shared = None
        if deck.back:
            try:
                back_shared = lay.card_side(deck, None, "back")
                backs[(deck.slug, None)] = back_shared
            except CardgenError as exc:
                errors.extend(exc.diagnostics)
        for card in deck.cards:
            bar.advance(1, None)
            try:
                face = lay.card_side(deck, card, "face")
            except CardgenError as exc:
                errors.extend(exc.diagnostics)
                continue
            faces.append((deck, card, face))
            back = back_shared
            if deck.backs:
                try:
                    back = lay.card_side(deck, card, "backs")
                    backs[(deck.slug, card.index)] = back
                except CardgenError as exc:
                    errors.extend(exc.diagnostics)
            for _ in range(card.count):
                copies.append(ops.Copy(face, back, deck.name, deck.size.width, deck.size.height, deck.bleed))
    bar.close()
    lay.finish()
    if errors:
        raise CardgenError(None, diagnostics=errors)
    return Rendered(game, res, faces, backs, copies, Path())
