"""Lay out one side of a card: its template's elements, evaluated for the card, become
positioned drawing operations (`cardgen.model.ops`).

Each element's options are converted by its declaration (`cardgen.elements`): values that
are plain YAML once per template and card size, Jinja expressions once per card.  With a
`LayoutCache` (`cardgen.layout.cache`), a side laid out by an earlier build from the same
inputs is taken from it, with the problems it reported.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cardgen.core import images, limits, progress
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report, plural
from cardgen.core.paths import PathRefused
from cardgen.core.units import MM
from cardgen.elements import ELEMENTS
from cardgen.elements.base import Element, ElementError, LayoutContext
from cardgen.layout import ahead, expr, placement
from cardgen.layout.templates import Template, TemplateBook, computed_for
from cardgen.load import refs
from cardgen.load.game import Card, Deck, Game
from cardgen.model import ops, svgpath
from cardgen.model.ops import extent
from cardgen.resources.fonts import FontBook, describe_chars, is_emoji, no_glyph_message
from cardgen.resources.icons import IconBook, svg_warnings
from cardgen.schema.core import Anything, Colour, Env, Invalid, Kind, Text, suggest
from cardgen.schema.languages import PSEUDO, name_of
from cardgen.text import breaks
from cardgen.text.typeset import Typesetter

if TYPE_CHECKING:
    from cardgen.layout.cache import LayoutCache, Trace


_MISSING = re.compile(r"Record object' has no attribute '([^']+)'")   # a missing card field, compared

class Resources:
    """Templates, fonts, icons and art of one game: found once, shared by every card."""

    def __init__(self, game: Game):
        self.game = game
        self.roots = game.roots
        self.templates = TemplateBook(game.search_dirs("templates"), self.roots, game.translation, game.opts.languages)
        self.fonts = FontBook(game.search_dirs("fonts"), self.roots, game.opts.fallback_fonts or ())
        self.icons = IconBook(game.search_dirs("art"), game.opts.icons or {}, self.roots)
        self.art_dirs = game.search_dirs("art")
        self.image_dpi = float(game.opts.image_dpi)     # the print PDFs' images (`render.art`)
        images.set_print_dpi(self.image_dpi)
        self.typesetter = Typesetter(self.fonts, self.icons.require)
        self.typesetter.punctuation = game.opts.smart_punctuation
        self.typesetter.hyphenator = breaks.dictionary(game.text_language) if game.opts.hyphenate else None
        self.typesetter.styles = game.opts.styles or {}
        self.typesetter.pseudo = game.lang == PSEUDO
        self.game_ctx = game.context()
        self._deck_ctx: dict[int, dict] = {}
        # told of every image looked up: its `src`, the file or None, why it was refused or
        # None (`cardgen.layout.cache`), before the file is read
        self.watch: Callable[[str, Path | None, str | None], None] | None = None

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
        try:
            path = refs.find(str(src), (*self.art_dirs, self.game.root, self.game.project), self.roots, "art",
                             "image", svg=True).path
        except PathRefused as exc:
            if self.watch is not None:
                self.watch(src, None, str(exc))
            raise
        if self.watch is not None:
            self.watch(src, path, None)
        return path


def _key_using(el, field: str) -> str | None:
    """The element key whose expression mentions `field` (for the error's location)."""
    pattern = re.compile(rf"\.{re.escape(field)}\b|\[\s*['\"]{re.escape(field)}['\"]\s*\]")
    for k, v in el.items():
        if isinstance(v, str) and (expr.is_dynamic(v) or k == "when") and pattern.search(v):
            return k
    return None


_READS_FIELD = re.compile(r"\{\{\s*card\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])\s*\}\}")


def _card_field(value: Any, card: Card | Mapping | None) -> str | None:
    """The card's own field an element's value is, if it is just that (`{{ card.art }}`);
    `card`: the card, or the fields it is laid out with."""
    m = _READS_FIELD.fullmatch(value.strip()) if isinstance(value, str) and card is not None else None
    name = (m.group(1) or m.group(2)) if m else None
    data = card.data if isinstance(card, Card) else card
    return name if name is not None and data is not None and name in data else None


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
        # (key, text an expression gave, env) -> the value converted, for the kinds whose conversion
        # is more than a check (a colour, a length, a choice): many cards give the same text (at
        # most 1,024, then forgotten at once: a game whose every card has its own colour)
        self._converted: dict[tuple, tuple[str, Any] | None] = {}
        self._quick = {k for k in self.dynamic if not isinstance(opts[k][1].kind, (Text, Anything))}
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
        """The typed element for one card (expressions evaluated in `ctx`): the element of the
        plain values (made once per card size) with the card's values put in its place. A copy
        of its attributes, not a new `Element(...)`: a frozen dataclass's `__init__` sets each of
        a text element's 36 fields through `object.__setattr__` (elements declare no
        `__post_init__` and no field made otherwise: the copy is what `__init__` would make)."""
        whole = self._whole.get(env)
        if whole is None:
            whole = self._whole[env] = self.cls(name=str(self.el.get("name")), **self._static(env))
        if not self.dynamic:
            return whole
        values: dict[str, Any] = {}
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
                values[done[0]] = done[1]
        made = object.__new__(self.cls)
        fields = whole.__dict__.copy()
        fields.update(values)
        object.__setattr__(made, "__dict__", fields)
        return made

    def _evaluate(self, key: str, ctx: dict, env: Env) -> tuple[str, Any] | None:
        try:
            value = expr.evaluate(self.el[key], ctx)
        except expr.ExprError as exc:
            raise ElementError(key, str(exc), "expression", field=exc.field) from None
        quick = type(value) is str and key in self._quick
        if quick:
            hit = self._converted.get((key, value, env), _UNCONVERTED)
            if hit is not _UNCONVERTED:
                return hit
        try:
            done = self._convert(key, value, env)
        except ElementError as exc:     # a card's field of the wrong kind (a mapping for text): at the card
            fields = ctx["card"]._data
            exc.field = _card_field(self.el[key], fields) or next(
                (k for k, v in fields.items() if v is value and isinstance(v, (dict, list))), None)
            raise
        if quick:
            if len(self._converted) >= 1024:
                self._converted.clear()
            self._converted[(key, value, env)] = done
        return done

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


_UNCONVERTED: Any = object()


class Inspect(Protocol):
    """A check of what each element draws on each card side (`cardgen.check.readability`):
    (option key or None, message, code) for each problem, said at the element's line; `key`
    names what its findings depend on besides the side (part of the layout cache's keys)."""

    key: str

    def __call__(self, drawn: list, layout: ops.CardLayout) -> list[tuple[str | None, str, str]]: ...


class Layouter:
    def __init__(self, res: Resources, report: Report, cache: LayoutCache | None = None,
                 inspect: Inspect | None = None):
        self.res = res
        self.inspect = inspect
        self.report = report
        # the language a game with `languages:` is laid out in, as its warnings name it: ` in German`
        lang = res.game.lang
        self.in_lang = f" in {name_of(lang)}" if lang else ""
        self._prepared: dict[int, Prepared] = {}
        self._off: dict[int, list] = {}     # template element -> [element, more cards, message head, where]
        self.cache = cache
        self.laid_out = 0                   # card sides laid out
        self.reused = 0                     # card sides taken from the cache
        self._events: list[tuple] | None = None     # what the side being laid out reported (for the cache)
        self._trace: Trace | None = None
        self._keys: dict[tuple, tuple | None] = {}   # (deck, side, template) -> what their sides' keys share
        self._hasher: Any = None            # the content hashes of the sides laid out (`sidehash.SideHasher`)
        self._file_digests: dict[str, str] = {}     # (`ops.layout_digest`: each file looked at once a pass)
        # font -> whether it draws every printable ASCII character and is not a fallback (`_text_problems`)
        self._plain_fonts: dict[str, bool] = {}
        if cache is not None:
            from cardgen.layout.cache import Trace, settings_key

            cache.begin()
            self._trace = Trace(res.fonts, res.icons.find, res.find_art, cache.digests)
            self._settings = settings_key(res.fonts, res.typesetter) + (inspect.key if inspect is not None else "")
            res.icons.watch, res.watch = self._trace.icon, self._trace.art

    def close(self) -> None:
        """Stop recording what the layouts look up (the resources may be used again)."""
        if self._trace is not None:
            self.res.icons.watch = self.res.watch = None

    def prepared(self, el: Mapping) -> Prepared:
        p = self._prepared.get(id(el))
        if p is None or p.el is not el:
            p = self._prepared[id(el)] = Prepared(el)
        return p

    # -- public -------------------------------------------------------------
    def card_side(self, deck: Deck, card: Card | None, side: str) -> ops.CardLayout:
        """Lay out `side` ("face", "back" or "backs") of a card (card None: the deck's shared
        back), or take it from the cache; a face printed with source-language text for want of a
        translation with a magenta corner (game.yaml `mark_untranslated`, docs/languages.md)."""
        layout = self._card_side(deck, card, side)
        if side == "face" and card is not None and card.untranslated and self.res.game.opts.mark_untranslated:
            return untranslated_mark(layout)
        return layout

    def _card_side(self, deck: Deck, card: Card | None, side: str) -> ops.CardLayout:
        tpl, fields = self._source(deck, card, side)
        if self.cache is None or self._trace is None:
            self.laid_out += 1
            return self._lay(deck, card, side, tpl, fields)
        from cardgen.layout.cache import dumped_ops, pack_dumped

        key = self._key(deck, card, side, tpl, fields)
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                layout = self._reuse(hit, deck, card, side, tpl)
                if layout is not None:
                    self.reused += 1
                    self.cache.reused += 1
                    if "_needs" not in layout.__dict__:
                        self.cache.fresh[key] = layout      # what this build works out is kept
                    return layout
        self.laid_out += 1
        self.cache.laid_out += 1
        trace, fonts = self._trace, self.res.fonts
        faces: dict[tuple[str, str], None] = {}
        looked_up: dict[tuple[str, str, str], None] = {}
        fonts.uses, trace.side, self._events = faces, looked_up, []
        try:
            layout = self._lay(deck, card, side, tpl, fields)
        finally:
            events, fonts.uses, trace.side, self._events = self._events, None, None, None
        if key is not None and all(map(_plain_event, events)):
            try:
                # (an entry that reported nothing is used wherever the card has moved: its anchor
                # is never looked at, and not worked out)
                anchor = self._anchor(deck, card, side, tpl) if events else b""
                encoded = ops.encode_ops(layout.ops)
                dumped = dumped_ops(encoded)
                packed = pack_dumped(dumped)
                entry = (anchor, trace.deps(faces, looked_up), tuple(events), packed, tuple(layout.stamp))
            except ValueError:
                return layout           # something marshal cannot keep: laid out every time
            self.cache.put(key, entry)
            layout = self._packed(layout, packed, encoded, dumped)
            self.cache.fresh[key] = layout
        return layout

    def _packed(self, layout: ops.CardLayout, packed: bytes, encoded: tuple, dumped: bytes) -> ops.CardLayout:
        """A side just laid out, held packed from now on (`cache.PackedLayout`: a 10,000-card
        game's decoded sides were about 100 MB), with what the build works out from its
        operations (`cache.HASHES`, `ops.needs`) worked out now, while they are at hand, so
        that only drawing it decodes it again (`dumped`: its operations as packed, and hashed
        by `ops.layout_digest`)."""
        from cardgen.layout.cache import HASHES, PackedLayout
        from cardgen.layout.sidehash import SideHasher
        from cardgen.resources.fonts import font_files

        if self._hasher is None:
            self._hasher = SideHasher()
        ops.needs(layout)
        ops.layout_digest(layout, font_files(), self._file_digests, encoded, dumped)
        self._hasher.side(layout, shared=False)
        held = PackedLayout(layout.width, layout.height, layout.bleed, None, layout.key, layout.shape, layout.stamp,
                            encoded=packed, source=str(self.cache.path) if self.cache is not None else "",
                            outline=layout.outline)
        for name in (*HASHES, "_needs"):
            held.__dict__[name] = layout.__dict__[name]
        return held

    # -- what a side's layout will look at, worked out before it (`layout.ahead`) ----------
    def source(self, deck: Deck, card: Card | None, side: str) -> tuple[Template, dict]:
        return self._source(deck, card, side)

    def element(self, tpl: Template, el: Mapping, ctx: dict, env: Env, bleed: float) -> Element:
        return self._element(tpl, el, ctx, env, bleed)

    def cached(self, deck: Deck, card: Card | None, side: str, tpl: Template, fields: dict) -> bool:
        """Whether the cache has the side's layout (it will most likely be taken from it)."""
        if self.cache is None or self._trace is None:
            return False
        key = self._key(deck, card, side, tpl, fields)
        return key is not None and self.cache.has(key)

    def _source(self, deck: Deck, card: Card | None, side: str) -> tuple[Template, dict]:
        """The template of a side and the fields it is laid out with."""
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
        computed = computed_for(tpl, deck.data if card is not None else None)   # (a shared back: no card)
        if computed:
            fields = self._computed(deck, card, tpl, fields, computed)
        return tpl, fields

    def _computed(self, deck: Deck, card: Card | None, tpl: Template, fields: dict, computed: dict) -> dict:
        """`fields` with the template's and the deck's `computed:` values, worked out in order
        (each may read those before it as `card.NAME`); an error is located at the expression,
        with the card."""
        fields = dict(fields)
        who = f"card '{card.name}' ({card.loc.short})" if card else f"deck '{deck.name}' back"
        for name, (source, loc) in computed.items():
            ctx = expr.context(fields, self.res.deck_ctx(deck), self.res.game_ctx)
            try:
                fields[name] = expr.evaluate(source, ctx)
                continue
            except expr.ExprError as exc:
                missing = _MISSING.search(str(exc))
                if missing is None:
                    raise CardgenError(loc, f"{who}, computed `{name}`: {exc}", code="expression") from None
                field = missing.group(1)
            except expr.MissingField as exc:
                field = exc.name
            hint = suggest(field, fields)
            raise CardgenError(loc, f"{who} has no field '{field}'{hint} (used by computed `{name}`); add "
                                    f"`{field}:` to the card, or a default under `defaults:` in template "
                                    f"{tpl.ref}", code="missing-field")
        return fields

    def _key(self, deck: Deck, card: Card | None, side: str, tpl: Template, fields: dict) -> bytes | None:
        """The cache key of a side (`cardgen.layout.cache`), None if it holds what cannot be
        compared exactly."""
        from cardgen.layout.cache import context_part, key_of, located, plain, side_key, template_reads

        shared = (id(deck), side, id(tpl))
        if shared not in self._keys:
            reads = template_reads(tpl.elements)
            game = context_part(self.res.game_ctx, reads["game"]) if "game" in reads else ""
            deck_part = context_part(self.res.deck_ctx(deck), reads["deck"]) if "deck" in reads else ""
            self._keys[shared] = None if game is None or deck_part is None else (key_of(
                self._settings, side, deck.name, deck.size.width * MM, deck.size.height * MM, deck.bleed * MM,
                deck.size.shape, tpl.ref, [str(p) for p in tpl.chain], located(tpl.elements, places=False),
                located(tpl.defaults, places=False), game, deck_part,
                sorted((k, sorted(v)) for k, v in tpl.bleed_origin.items())),
                deck, tpl, key_of(located(tpl.elements), located(tpl.defaults)))
            # (the deck and template kept: their ids stay theirs; the places of the template's
            # values go into an entry's anchor, not its key: a line added to a template moves
            # them, and only the sides whose problems name them are laid out again)
        base = self._keys[shared]
        own = plain(fields)
        data = plain(card.data) if card is not None else ""
        if base is None or own is None or data is None:
            return None
        return side_key(base[0], own, data, repr(card.name if card is not None else None))

    def _anchor(self, deck: Deck, card: Card | None, side: str, tpl: Template) -> bytes:
        """Where what a side's problems name is: the card (`anchor_of`) and its template."""
        from cardgen.layout.cache import anchor_of

        base = self._keys.get((id(deck), side, id(tpl)))
        places = base[3] if base is not None else b""
        return anchor_of(card.loc, card.data, places) if card is not None else places

    def _reuse(self, entry: Any, deck: Deck, card: Card | None, side: str, tpl: Template) -> ops.CardLayout | None:
        """A cached side, if every lookup its layout made resolves as it did (and, if it reported
        problems, the card is where it was); its problems are reported again."""
        from cardgen.layout.cache import CachedLayout, restore_facts

        assert self._trace is not None
        try:
            anchor, deps, events, encoded, stamp = entry[:5]
            facts = entry[5] if len(entry) == 6 else None
            if events and anchor != self._anchor(deck, card, side, tpl):
                return None         # its problems name places the card or template has moved from
            if not self._trace.valid(deps):
                return None
            if not (isinstance(encoded, bytes) and all(map(_plain_event, events))
                    and all(e[1] < len(tpl.elements) for e in events if e[0] == "o")):
                return None
            stamp = [int(i) for i in stamp]
        except (ValueError, TypeError, IndexError, EOFError):
            return None
        for e in events:
            if e[0] == "w":
                self.report.warn(Loc(*e[1:5]), e[5], e[6], group=e[7], card=e[8])
            else:
                self._note_off(tpl.elements[e[1]], e[2], e[3])
        layout = CachedLayout(deck.size.width * MM, deck.size.height * MM, deck.bleed * MM, None,
                              _side_key(deck, card, side), deck.size.shape, stamp, encoded=encoded,
                              source=str(self.cache.path) if self.cache is not None else "",
                              outline=side_outline(deck, side))
        if facts is not None and not restore_facts(layout, facts):
            return None
        return layout

    def _warn(self, loc: Loc, message: str, code: str, group: str = "", card: str = "") -> None:
        """A warning of the side being laid out; with `group` and `card`, one that may repeat on
        many cards (said once, `core.errors.grouped`)."""
        if self._events is not None:
            self._events.append(("w", loc.file, loc.line, loc.col, loc.cell, message, code, group, card))
        self.report.warn(loc, message, code, group=group, card=card)

    def _lay(self, deck: Deck, card: Card | None, side: str, tpl: Template, fields: dict) -> ops.CardLayout:
        ctx = expr.context(fields, self.res.deck_ctx(deck), self.res.game_ctx)
        bleed = deck.bleed * MM
        w, h = deck.size.width * MM, deck.size.height * MM
        layout = ops.CardLayout(w, h, bleed, [], _side_key(deck, card, side), deck.size.shape,
                                outline=side_outline(deck, side))
        who = f"card '{card.name}'" if card else f"deck '{deck.name}' back"
        where = f" ({card.loc.short})" if card else ""
        env = Env(w, h)
        said: dict[str, set[str]] = {}      # font -> characters already reported for this card side

        def failed(exc: Exception, el: Any) -> CardgenError:
            return self._failed(exc, el, card, who + where, fields, tpl)

        placed, notes = self._placement(tpl, ctx, env, LayoutContext(self.res, w, h, bleed), failed)
        for index, el in enumerate(tpl.elements):
            def warn(key: str | None, message: str, code: str, el=el) -> None:
                # an element's warning for this card (said once for all the cards it is on), at the
                # card's field when the value came from one, else at the template's line
                loc = el.value_loc(key) if key and key in el else el.loc
                what = f"element '{el.get('name')}'"
                field = _card_field(el.get(key) if key else None, card)
                if field is not None and card is not None:
                    what, loc = f"field `{field}` (element '{el.get('name')}', {loc})", card.field_loc(field)
                self._card_warn(loc, card, who + where, what, message, code)

            for _, key, message, code in (n for n in notes if n[0] == index):
                warn(key, message, code)
            lc = LayoutContext(self.res, w, h, bleed, layout.ops, who, warn)
            try:
                if index in placed:
                    element = placed[index]
                    if element is None:
                        continue
                elif "when" in el and not expr.condition(el["when"], ctx):
                    continue
                else:
                    element = self._element(tpl, el, ctx, env, bleed)
                start = len(layout.ops)
                element.layout(lc)
                if self.prepared(el).stamp:
                    layout.stamp.extend(range(start, len(layout.ops)))
                if len(layout.ops) > limits.MAX_CARD_OPS:
                    raise CardgenError(el.loc, f"{who}{where}: element '{el.get('name')}' brings the card side to "
                                               f"more than {limits.MAX_CARD_OPS:,} things to draw (shapes, icons, "
                                               f"lines of text); draw fewer (limit CARDGEN_MAX_CARD_OPS)",
                                       code="card-limit")
                if len(layout.ops) > start:
                    drawn = layout.ops[start:]
                    self._text_problems(drawn, el, card, who + where, f"element '{el.get('name')}'", said)
                    self._off_card(drawn, el, index, tpl.ref, layout, who + where)
                    if self.inspect is not None:
                        for key, message, code in self.inspect(drawn, layout):
                            warn(key, message, code)
            except (ElementError, expr.ExprError, expr.MissingField) as exc:
                raise failed(exc, el) from None
        return layout

    def _element(self, tpl: Template, el: Mapping, ctx: dict, env: Env, bleed: float) -> Element:
        """A template element for one card: its expressions evaluated, its coordinates from the
        trim's corner (a template's `origin: bleed` measures them from the bleed's)."""
        element = self.prepared(el).element(ctx, env)
        keys = tpl.bleed_origin.get(str(el.get("name"))) if tpl.bleed_origin else None
        return placement.shifted(element, keys, bleed) if keys else element

    def _placement(self, tpl: Template, ctx: dict, env: Env, frame_lc: LayoutContext,
                   failed: Callable[[Exception, Any], CardgenError]) -> tuple[dict, list]:
        """The template's elements placed by others (`layout.placement`) for this card: element
        index -> the element (None: not drawn), and the warnings of stacks."""
        lk = tpl.links
        if lk is None:
            return {}, []
        elements = tpl.elements

        def build(i: int, anyway: bool) -> Element | None:
            el = elements[i]
            try:
                if not anyway and "when" in el and not expr.condition(el["when"], ctx):
                    return None
                return self._element(tpl, el, ctx, env, frame_lc.bleed)
            except (ElementError, expr.ExprError, expr.MissingField) as exc:
                if anyway:
                    return None
                raise failed(exc, el) from None

        def measure(i: int, element: Element) -> tuple[float, float, float, float] | None:
            lc = LayoutContext(self.res, frame_lc.width, frame_lc.height, frame_lc.bleed, [], measure=True)
            try:
                element.layout(lc)
            except (ElementError, expr.ExprError, expr.MissingField) as exc:
                raise failed(exc, elements[i]) from None
            return lc.content if lc.content is not None else placement.shown(lc.out)

        try:
            return placement.resolve(lk, placement.Frame(elements, build, measure,
                                                         lambda e: e.rect(frame_lc)))
        except placement.Unplaced as exc:
            raise failed(ElementError(exc.key, exc.message, "placement"), elements[exc.index]) from None

    def _failed(self, exc: Exception, el: Any, card: Card | None, who: str, fields: dict,
                tpl: Template) -> CardgenError:
        """What went wrong with element `el` on a card side, located: at the card's field when
        the card's value is at fault, else at the template's line."""
        if isinstance(exc, ElementError):
            eloc = el.value_loc(exc.key) if exc.key and exc.key in el else el.loc
            if exc.field and card is not None and exc.field in card.data:     # the card's value is at fault
                return CardgenError(card.field_loc(exc.field), f"{who}, field `{exc.field}` (element "
                                                               f"'{el.get('name')}', {eloc}): {exc.message}",
                                    code=exc.code, dedupe=(*exc.dedupe, card.name) if exc.dedupe else ())
            return CardgenError(eloc, f"{who}, element '{el.get('name')}': {exc.message}",
                                code=exc.code, dedupe=(*exc.dedupe, card.name) if exc.dedupe and card else ())
        if isinstance(exc, expr.MissingField):
            key = _key_using(el, exc.name)
            eloc = el.value_loc(key) if key else el.loc
            hint = "" if exc.name.isascii() else suggest(exc.name, fields)
            return CardgenError(eloc, f"{who} has no field '{exc.name}'{hint} (used by element "
                                      f"'{el.get('name')}'); add `{exc.name}:` to the card, or a default "
                                      f"under `defaults:` in template {tpl.ref}", code="missing-field")
        return CardgenError(el.value_loc("when"), f"{who}, element '{el.get('name')}': {exc}", code="expression")


    # -- what the drawing would get silently wrong ---------------------------------------
    def _card_warn(self, loc: Loc, card: Card | None, who: str, what: str, message: str, code: str) -> None:
        """`{who}, {what}: {message}` for one card side; for a card (not a deck's shared back) the
        same words without the card make its `group`: said once however many cards it is on."""
        if card is None:
            self._warn(loc, f"{who}{self.in_lang}, {what}: {message}", code)
        else:
            self._warn(loc, f"{who}{self.in_lang}, {what}: {message}", code, f"{what}{self.in_lang}: {message}",
                       f"'{card.name}', {card.loc.brief}")

    def _text_problems(self, drawn: list, el, card: Card | None, who: str, what: str,
                       said: dict[str, set[str]]) -> None:
        """Warn (once per card side and font) about characters that no font has and about
        emoji a fallback font draws in black and white."""
        fonts = self.res.fonts
        missing: dict[str, str] = {}
        mono: dict[str, str] = {}
        for op in drawn:
            if not isinstance(op, ops.Text):
                continue
            for r in op.runs:
                if r.kind == "icon":
                    self._icon_problems(r.content, el, card, who, what, said)
                    continue
                if r.kind != "text":
                    continue
                text = str(r.content)
                font = r.font
                plain = self._plain_fonts.get(font)
                if plain is None:
                    plain = self._plain_fonts[font] = fonts.draws_ascii(font) and not fonts.is_fallback(font)
                if plain and text.isascii() and text.isprintable():
                    continue            # (most runs: printable ASCII in a font that has it, not a fallback)
                gone = fonts.missing(text, r.font)
                fallback = fonts.is_fallback(r.font)
                if not gone and not fallback:
                    continue            # (most runs: nothing to say, nothing to remember)
                seen = said.setdefault(r.font, set())
                lacking = "".join(ch for ch in gone if ch not in seen)
                if fallback:
                    mono[r.font] = mono.get(r.font, "") + "".join(
                        ch for ch in dict.fromkeys(text) if is_emoji(ch) and ch not in seen and ch not in lacking)
                    seen.update(mono[r.font])
                if lacking:
                    seen.update(lacking)
                    missing[r.font] = missing.get(r.font, "") + lacking
        for font, chars in missing.items():
            key, loc = self._source_of(chars, el, card)
            self._card_warn(loc, card, who, what + key, no_glyph_message(fonts, font, chars), "missing-glyph")
        for font, chars in mono.items():
            if chars:
                key, loc = self._source_of(chars, el, card)
                self._card_warn(loc, card, who, what + key, f"emoji {describe_chars(chars)} drawn in black and "
                                f"white by the fallback font {font} (cardgen prints no colour emoji; for a coloured "
                                f"symbol use an :icon:)", "emoji")

    def _icon_problems(self, art: str | Path, el, card: Card | None, who: str, what: str,
                       said: dict[str, set[str]]) -> None:
        """Warn (once per card side) about what an inline icon's SVG prints otherwise than it says
        (`svg_warnings`); `art`: the icon finder's Path (its name worked out once)."""
        seen_key = "\0svg:" + str(art)
        if seen_key in said:
            return
        said[seen_key] = set()
        told = svg_warnings(art if isinstance(art, Path) else Path(art), self.res.fonts)
        if not told:
            return
        field = _card_field(el.get("text"), card)
        at = card.field_loc(field) if field and card is not None else el.value_loc("text") if "text" in el else el.loc
        for message, code in told:
            self._card_warn(at, card, who, what + (f" (field `{field}`)" if field else ""), message, code)

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

    def _off_card(self, drawn: list, el, index: int, tpl_ref: str, layout: ops.CardLayout, who: str) -> None:
        """Remember an element that lies wholly outside the card and its bleed (reported once
        per element by `finish`, naming the first card)."""
        B = layout.bleed
        W, H = layout.width + B, layout.height + B
        boxes = []
        for op in drawn:
            box = extent(op)
            if box[2] > -B and box[3] > -B and box[0] < W and box[1] < H:
                return          # (most elements: a thing drawn on the card puts the whole on it)
            boxes.append(box)
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        if x1 > -B and y1 > -B and x0 < layout.width + B and y0 < layout.height + B:
            return
        where = (f"it spans x {x0 / MM:.1f} to {x1 / MM:.1f} mm, y {y0 / MM:.1f} to {y1 / MM:.1f} mm; the card "
                 f"with its bleed spans x {-B / MM:.1f} to {(layout.width + B) / MM:.1f} mm, y {-B / MM:.1f} to "
                 f"{(layout.height + B) / MM:.1f} mm")
        head = f"element '{el.get('name')}' of template {tpl_ref} lies entirely off the card on {who}"
        if self._events is not None:
            self._events.append(("o", index, head, where))
        self._note_off(el, head, where)

    def _note_off(self, el, head: str, where: str) -> None:
        hit = self._off.get(id(el))
        if hit is not None:
            hit[1] += 1
            return
        self._off[id(el)] = [el, 0, head, where]

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
    laid_out: int = 0           # card sides laid out (the rest came from the layout cache)
    reused: int = 0             # card sides taken from the layout cache

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


_EVENTS = {"w": (str, str, int, int, str, str, str, str, str), "o": (str, int, str, str)}


def _plain_event(e: Any) -> bool:
    """A problem a side's layout reported, as the layout cache keeps it: ("w", file, line, col,
    cell, message, code, group, card) or ("o", element index, message head, where), of exactly these types."""
    kinds = _EVENTS.get(e[0]) if isinstance(e, tuple) and e else None
    return kinds is not None and len(e) == len(kinds) and all(type(x) is t for x, t in zip(e, kinds, strict=True)) \
        and (e[0] != "o" or e[1] >= 0)


MARK = 5 * 72 / 25.4            # the untranslated mark's legs: 5 mm
MARK_COLOUR = (0.9, 0.0, 0.55, 1.0)


def untranslated_mark(layout: ops.CardLayout) -> ops.CardLayout:
    """`layout` with a magenta triangle in its top-right corner, inside the trim: the card is
    printed (in part) in the source language."""
    import dataclasses

    w = layout.width
    mark = ops.Path(((w - MARK, 0.0), (w, 0.0), (w, MARK)), closed=True, fill=MARK_COLOUR)
    return dataclasses.replace(layout, ops=[*layout.ops, mark])


def side_outline(deck: Deck, side: str) -> tuple:
    """A `path` piece's outline as `side` shows it: a back's is the face's mirrored (the piece
    turned over about its upright axis), so the same cut goes through both."""
    path = deck.size.outline
    return svgpath.mirrored(path, deck.size.width) if path and side != "face" else path


def _side_key(deck: Deck, card: Card | None, side: str) -> str:
    return f"{deck.slug}/{card.index if card else 'back'}/{side}"


def layout_game(game: Game, report: Report, res: Resources | None = None,
                cache: LayoutCache | None = None, inspect: Inspect | None = None) -> Rendered:
    """Lay out every card side of the game once (or take it from `cache`); `inspect` checks
    what each element draws."""
    res = res or Resources(game)
    lay = Layouter(res, report, cache, inspect)
    try:
        with ahead.decoding(lay, game):     # (pictures decoded by other threads meanwhile)
            faces, backs, copies, errors = _lay_all(game, lay)
    finally:
        lay.close()
    lay.finish()
    if errors:
        raise CardgenError(None, diagnostics=errors)
    return Rendered(game, res, faces, backs, copies, Path(), lay.laid_out, lay.reused)


def _lay_all(game: Game, lay: Layouter) -> tuple[list, dict, list, list[Diagnostic]]:
    errors: list[Diagnostic] = []
    faces: list[tuple[Deck, Card, ops.CardLayout]] = []
    backs: dict[tuple[str, int | None], ops.CardLayout] = {}
    copies: list[ops.Copy] = []
    bar = progress.start("laying out", sum(len(d.cards) for d in game.decks))
    for deck in game.decks:
        back_shared = None
        per_card: list[list[ops.Copy]] = []
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
            per_card.append([ops.Copy(face, back, deck.name, deck.size.width, deck.size.height, deck.bleed,
                                      deck.kind == "die") for _ in range(card.count)])
        if deck.kind == "die":      # a die's stickers: one set of its faces per die, in face order
            per_card = [[cp for cp in group if cp is not None] for group in itertools.zip_longest(*per_card)]
        copies += [cp for group in per_card for cp in group]
    bar.close()
    return faces, backs, copies, errors
