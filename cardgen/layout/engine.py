"""Lay out one side of a card: its template's elements, evaluated for the card, become
positioned drawing operations (`cardgen.ops`)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PIL import Image as PILImage

from cardgen.layout import expr

from cardgen.model import ops
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report
from cardgen.resources.fonts import FontBook, FontError
from cardgen.resources.icons import IconBook, IconError, file_key
from cardgen.load.game import Card, Deck, Game
from cardgen.resources.richtext import TextStyle, Typesetter, parse
from cardgen.layout.templates import Template, TemplateBook
from cardgen.core.units import MM, UnitError, color, length_pt, number

SAFE_PT = 3.175 * MM
_image_sizes: dict[tuple, tuple[int, int]] = {}


def image_size(path: Path) -> tuple[float, float]:
    if path.suffix.lower() == ".svg":
        from cardgen.resources.icons import load_svg
        d = load_svg(path)
        return float(d.width), float(d.height)
    key = file_key(path)
    size = _image_sizes.get(key)
    if size is None:
        with PILImage.open(path) as im:
            size = im.size
        _image_sizes[key] = size
    return size


class Resources:
    """Templates, fonts, icons and art of one game: found once, shared by every card."""

    def __init__(self, game: Game):
        self.game = game
        self.templates = TemplateBook(game.search_dirs("templates"))
        self.fonts = FontBook(game.search_dirs("fonts"))
        self.icons = IconBook(game.search_dirs("art"), game.opts.icons or {})
        self.art_dirs = game.search_dirs("art")
        self.typesetter = Typesetter(self.fonts, self.icons.require)
        self.game_ctx = game.context()

    def find_art(self, src: str) -> Path | None:
        p = Path(src)
        if p.is_absolute():
            return p if p.is_file() else None
        for base in (*self.art_dirs, self.game.root, self.game.project):
            q = base / p
            if q.is_file():
                return q
        return None


def _key_using(el, field: str) -> str | None:
    """The element key whose expression mentions `field` (for the error's location)."""
    pattern = re.compile(rf"\.{re.escape(field)}\b|\[\s*['\"]{re.escape(field)}['\"]\s*\]")
    for k, v in el.items():
        if isinstance(v, str) and (expr.is_dynamic(v) or k == "when") and pattern.search(v):
            return k
    return None


class _ElementError(Exception):
    def __init__(self, key: str | None, message: str):
        self.key, self.message = key, message


class Layouter:
    def __init__(self, res: Resources, report: Report):
        self.res = res
        self.report = report

    # -- public -------------------------------------------------------------
    def card_side(self, deck: Deck, card: Card | None, side: str) -> ops.CardLayout:
        """Lay out `side` ("face", "back" or "backs") of a card (card None: the deck's shared back)."""
        if side == "face":
            ref, loc = deck.template, deck.template_loc
            fields = card.fields
        elif side == "back":
            ref, loc = deck.back, deck.back_loc
            fields = {"name": f"{deck.name} back"}
        else:
            ref, loc = deck.backs, deck.back_loc
            fields = card.back_fields or card.fields
        tpl = self.res.templates.get(ref, loc)
        if tpl.defaults:
            merged = dict(tpl.defaults)
            merged.update(fields)
            fields = merged
        ctx = expr.context(fields, deck.context(), self.res.game_ctx)
        bleed = deck.bleed * MM
        w, h = deck.size.width * MM, deck.size.height * MM
        layout = ops.CardLayout(w, h, bleed, [], f"{deck.slug}/{card.index if card else 'back'}/{side}",
                                deck.size.shape)
        who = f"card '{card.name}'" if card else f"deck '{deck.name}' back"
        where = f" ({card.loc.short})" if card else ""
        for el in tpl.elements:
            try:
                self._element(el, ctx, layout, who)
            except _ElementError as exc:
                eloc = el.value_loc(exc.key) if exc.key and exc.key in el else el.loc
                raise CardgenError(eloc, f"{who}{where}, element '{el.get('name')}': {exc.message}") from None
            except expr.MissingField as exc:
                key = _key_using(el, exc.name)
                eloc = el.value_loc(key) if key else el.loc
                raise CardgenError(eloc, f"{who}{where} has no field '{exc.name}' (used by element "
                                         f"'{el.get('name')}'); add `{exc.name}:` to the card, or a default "
                                         f"under `defaults:` in template {tpl.ref}", code="missing-field") from None
        return layout

    # -- elements -----------------------------------------------------------
    def _val(self, el, key, ctx, default=None):
        if key not in el:
            return default
        try:
            return expr.evaluate(el[key], ctx)
        except expr.ExprError as exc:
            raise _ElementError(key, str(exc)) from None

    def _len(self, el, key, ctx, default, pct_of):
        v = self._val(el, key, ctx, None)
        if v is None:
            return default
        try:
            return length_pt(v, pct_of)
        except UnitError as exc:
            raise _ElementError(key, f"{key}: {exc}") from None

    def _num(self, el, key, ctx, default):
        v = self._val(el, key, ctx, None)
        if v is None or v == "":
            return default
        try:
            return number(v)
        except UnitError as exc:
            raise _ElementError(key, f"{key}: {exc}") from None

    def _color(self, el, key, ctx, default):
        if key not in el:
            return default
        v = self._val(el, key, ctx, None)
        try:
            return color(v)
        except UnitError as exc:
            raise _ElementError(key, f"{key}: {exc}") from None

    def _choice(self, el, key, ctx, default, choices):
        v = self._val(el, key, ctx, default)
        v = default if v is None else str(v).strip().lower()
        if v not in choices:
            raise _ElementError(key, f"{key} must be one of {', '.join(choices)}, got {v!r}")
        return v

    def _dash(self, el, ctx):
        v = self._val(el, "dash", ctx, None)
        if not v:
            return ()
        try:
            return tuple(float(x) for x in v)
        except (TypeError, ValueError):
            raise _ElementError("dash", f"dash must be a list of numbers, got {v!r}") from None

    def _box(self, el, ctx, layout):
        W, H, B = layout.width, layout.height, layout.bleed
        box = self._val(el, "box", ctx, "trim")
        if box == "bleed":
            bx, by, bw, bh = -B, -B, W + 2 * B, H + 2 * B
        elif box == "safe":
            bx, by, bw, bh = SAFE_PT, SAFE_PT, W - 2 * SAFE_PT, H - 2 * SAFE_PT
        elif box in ("trim", None):
            bx, by, bw, bh = 0.0, 0.0, W, H
        else:
            raise _ElementError("box", f"box must be trim, bleed or safe, got {box!r}")
        x = self._len(el, "x", ctx, bx, W)
        y = self._len(el, "y", ctx, by, H)
        w = self._len(el, "width", ctx, None, W)
        h = self._len(el, "height", ctx, None, H)
        if w is None:
            w = bw if "x" not in el else (bx + bw) - x
        if h is None:
            h = bh if "y" not in el else (by + bh) - y
        return x, y, w, h

    def _element(self, el, ctx, layout: ops.CardLayout, who: str) -> None:
        if "when" in el:
            try:
                if not expr.condition(el["when"], ctx):
                    return
            except expr.ExprError as exc:
                raise _ElementError("when", str(exc)) from None
        etype = el.get("type")
        x, y, w, h = self._box(el, ctx, layout)
        rot = self._num(el, "rotate", ctx, 0.0)
        if etype == "rect" or etype == "ellipse":
            fill = self._color(el, "fill", ctx, None)
            stroke = self._color(el, "stroke", ctx, None)
            sw = self._len(el, "stroke_width", ctx, 0.5 if stroke else 0.0, None) if stroke else 0.0
            if fill is None and stroke is None:
                return
            if etype == "rect":
                radius = self._len(el, "radius", ctx, 0.0, min(w, h))
                layout.ops.append(ops.Rect(x, y, w, h, fill, stroke, sw, radius, self._dash(el, ctx), rot))
            else:
                layout.ops.append(ops.Ellipse(x, y, w, h, fill, stroke, sw, self._dash(el, ctx), rot))
        elif etype == "line":
            x2 = self._len(el, "x2", ctx, x + w, layout.width)
            y2 = self._len(el, "y2", ctx, y, layout.height)
            stroke = self._color(el, "stroke", ctx, (0, 0, 0, 1))
            sw = self._len(el, "stroke_width", ctx, 0.5, None)
            if stroke is not None:
                layout.ops.append(ops.Line(x, y, x2, y2, stroke, sw, self._dash(el, ctx)))
        elif etype == "text":
            self._text(el, ctx, layout, who, x, y, w, h, rot)
        elif etype == "image":
            self._image(el, ctx, layout, x, y, w, h, rot)
        elif etype == "icon":
            self._icons(el, ctx, layout, x, y, w, h, rot)

    def _text(self, el, ctx, layout, who, x, y, w, h, rot):
        text = self._val(el, "text", ctx, "")
        if text is None:
            return
        text = str(text)
        if self._val(el, "uppercase", ctx, False):
            text = text.upper()
        if not text.strip():
            return
        st = TextStyle(
            family=self._val(el, "font", ctx, None),
            style=self._choice(el, "style", ctx, "regular", ("regular", "bold", "italic", "bolditalic")),
            size=self._num(el, "size", ctx, 9.0),
            leading=self._num(el, "leading", ctx, 1.2),
            color=self._color(el, "color", ctx, (0, 0, 0, 1)),
            align=self._choice(el, "align", ctx, "left", ("left", "center", "right", "justify")),
            valign=self._choice(el, "valign", ctx, "top", ("top", "middle", "bottom")),
            icon_scale=self._num(el, "icon_scale", ctx, 1.0),
            paragraph_gap=self._num(el, "paragraph_gap", ctx, 0.45),
        )
        fit = self._choice(el, "fit", ctx, "none", ("none", "shrink"))
        min_size = self._num(el, "min_size", ctx, None)
        wrap = bool(self._val(el, "wrap", ctx, True))
        try:
            runs, used, overflow = self.res.typesetter.set(parse(text), st, x, y, w, h, fit, min_size, wrap)
        except FontError as exc:
            raise _ElementError("font" if "font" in el else "style", str(exc)) from None
        except IconError as exc:
            raise _ElementError("text", str(exc)) from None
        if overflow:
            self.report.warn(el.value_loc("text") if "text" in el else el.loc,
                             f"{who}: text in element '{el.get('name')}' does not fit its box "
                             f"({w / MM:.1f}x{h / MM:.1f} mm at {used:g} pt); shorten it, enlarge the box"
                             + ("" if fit == "shrink" else " or add `fit: shrink`"), "overflow")
        layout.ops.append(ops.Text(x, y, w, h, tuple(runs), used, overflow, rot))

    def _image(self, el, ctx, layout, x, y, w, h, rot):
        src = self._val(el, "src", ctx, "")
        placeholder = self._val(el, "placeholder", ctx, False)
        fit = self._choice(el, "fit", ctx, "contain", ("contain", "cover", "stretch"))
        path = self.res.find_art(str(src)) if src else None
        if path is None:
            if placeholder:
                label = placeholder if isinstance(placeholder, str) else (f"art: {src}" if src else "art to come")
                layout.ops.append(ops.Placeholder(x, y, w, h, str(label), rot))
                return
            if not src:
                return
            raise _ElementError("src", f"image '{src}' not found in art/ or the game folder; add the file, fix "
                                       f"the name, or add `placeholder: true` to the element for a labelled box")
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".svg"):
            raise _ElementError("src", f"image '{src}' is not PNG, JPEG or SVG")
        try:
            iw, ih = image_size(path)
        except Exception as exc:  # unreadable file
            raise _ElementError("src", f"cannot read image '{src}': {exc}") from None
        clip = None
        if fit == "stretch" or iw <= 0 or ih <= 0:
            dx, dy, dw, dh = x, y, w, h
        else:
            scale = (min if fit == "contain" else max)(w / iw, h / ih)
            dw, dh = iw * scale, ih * scale
            dx, dy = x + (w - dw) / 2, y + (h - dh) / 2
            if fit == "cover":
                clip = (x, y, w, h)
        layout.ops.append(ops.Image(path, dx, dy, dw, dh, clip, rot, (x, y, w, h)))

    def _icons(self, el, ctx, layout, x, y, w, h, rot):
        name = self._val(el, "icon", ctx, None)
        if not name:
            return
        try:
            path = self.res.icons.require(str(name))
        except IconError as exc:
            raise _ElementError("icon", str(exc)) from None
        count_v = self._num(el, "count", ctx, 1)
        if count_v != int(count_v) or count_v < 0:
            raise _ElementError("count", f"count must be a whole number >= 0, got {count_v!r}")
        count = int(count_v)
        if count == 0:
            return
        direction = self._choice(el, "direction", ctx, "row", ("row", "column"))
        along, across = (w, h) if direction == "row" else (h, w)
        size = self._len(el, "size", ctx, across, across)
        gap = self._len(el, "gap", ctx, 1 * MM, along)
        align = self._choice(el, "align", ctx, "center", ("start", "center", "end"))
        col = self._color(el, "color", ctx, None)
        total = count * size + (count - 1) * gap
        start = {"start": 0.0, "center": (along - total) / 2, "end": along - total}[align]
        for i in range(count):
            off = start + i * (size + gap)
            if direction == "row":
                ix, iy = x + off, y + (h - size) / 2
            else:
                ix, iy = x + (w - size) / 2, y + off
            layout.ops.append(ops.Icon(path, ix, iy, size, size, col, rot))


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
        faces, backs = [], []
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
    faces, backs, copies = [], {}, []
    for deck in game.decks:
        back_shared = None
        if deck.back:
            try:
                back_shared = lay.card_side(deck, None, "back")
                backs[(deck.slug, None)] = back_shared
            except CardgenError as exc:
                errors.extend(exc.diagnostics)
        for card in deck.cards:
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
    if errors:
        raise CardgenError(None, diagnostics=errors)
    return Rendered(game, res, faces, backs, copies, Path())
