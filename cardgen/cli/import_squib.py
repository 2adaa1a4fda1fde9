"""`cardgen import squib LAYOUT.yml [DATA]`: a cardgen template from a Squib layout file.

Squib (andymeneely/squib) keeps a deck's boxes in a layout YAML file: one entry per box, with
`x`, `y`, `width`, `height` in pixels at 300 dpi (or `in`, `mm`, `cm`, `pt`, `c` cell strings, or
the `middle` and `deck` shorthands) measured from the bleed's corner, and `extends` (another
entry, or a list of them) with relative values (`+= 10`, `-= 0.1in`, `*= 2`, `/= 2`).  Each entry
becomes one element with the same box (turned as `angle` turns it), in a template with
`origin: bleed`; what has no cardgen counterpart is said, one line each at the line that wrote
it, and left out.  The value forms are read by `squib_values`."""
from __future__ import annotations

import math
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cardgen.cli import squib_values as sv
from cardgen.cli.squib_script import Script, Use
from cardgen.core.atomic import write_text
from cardgen.core.errors import CardgenError, Loc
from cardgen.core.located import YDict, loc_of
from cardgen.core.paths import TooLarge, read_regular
from cardgen.load import yamlsrc
from cardgen.schema.files import SHEET_SUFFIXES

MAX_ENTRIES = 500
_OPS = ("+=", "-=", "*=", "/=")
BOX = ("x", "y", "width", "height")
SHAPE_KEYS = ("radius", "fill_color", "stroke_color", "stroke_width", "dash")
TEXT_KEYS = ("font", "font_size", "align", "valign", "ellipsize", "justify", "color")
SHAPE_NAMES = ("cut", "safe", "frame", "border", "background", "bg", "bleed", "outline", "line", "rect")
IMAGE_NAMES = ("art", "icon", "image", "img", "picture", "portrait", "logo", "illustration")
CARRIED = {"x", "y", "width", "height", "extends", "angle", "file", "alpha", *SHAPE_KEYS, *TEXT_KEYS}


@dataclass
class _Said:
    """What the import says, one line per place and remark, naming every entry it is about (an
    entry written once and extended by many is said once, at the line that wrote it)."""

    lines: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def add(self, loc: Loc, name: str, text: str) -> None:
        names = self.lines.setdefault((str(loc), text), [])
        if name not in names:
            names.append(name)

    def out(self) -> list[str]:
        return [f"{loc}: " + text.replace("{names}", ", ".join(f"'{n}'" for n in names))
                for (loc, text), names in self.lines.items()]


@dataclass
class _Ctx:
    """What converting one Squib script needs as it goes: the card fields, the deck's size, what was said."""

    fields: dict[str, str]
    deck: tuple[float, float]
    said: _Said
    script: Script | None = None
    mapping: dict[str, str] = field(default_factory=dict)      # the deck's `columns:` (name, count)
    printed: list[str] = field(default_factory=list)
    shorthands: bool = False


def _relative(parent: Any, child: Any, loc: Loc) -> Any:
    """A child's value over its parent's: `+= 10` and the like applied, else the child's."""
    text = str(child).strip()
    op = next((o for o in _OPS if text.startswith(o)), None)
    if op is None:
        return child
    if sv.is_shorthand(parent):
        raise CardgenError(loc, f"'{text}' over '{parent}': Squib reads its `middle` and `deck` forms as 0 "
                                f"under `{op}`; write the number")
    base, rest = sv.length(parent, loc), text[2:]
    if op in ("*=", "/="):
        m = re.fullmatch(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*", rest)
        if m is None or (op == "/=" and float(m.group(1)) == 0):
            raise CardgenError(loc, f"'{text}' is not a usable factor")
        return base * float(m.group(1)) if op == "*=" else base / float(m.group(1))
    return base + sv.length(rest, loc) if op == "+=" else base - sv.length(rest, loc)


Resolved = tuple[dict, dict[str, Loc]]


def _resolve(layout: dict, key: str, seen: tuple[str, ...], done: dict[str, Resolved]) -> Resolved:
    """An entry with its `extends` merged in, as Squib's LayoutParser does, and where each of its
    values was written (`done`: the entries resolved so far, so that parents shared many times
    over are worked out once)."""
    if key in done:
        return done[key]
    entry = layout[key]
    loc = loc_of(layout, key)
    if key in seen:
        raise CardgenError(loc, f"'{key}' extends itself (through {' -> '.join((*seen, key))})")
    own_locs = {k: loc_of(entry, k) for k in entry}
    parents = entry.get("extends")
    if parents is None:
        done[key] = (dict(entry), own_locs)
        return done[key]
    merged: dict = {}
    locs: dict[str, Loc] = {}
    for parent in parents if isinstance(parents, list) else [parents]:
        if str(parent) not in layout:
            raise CardgenError(loc_of(entry, "extends"),
                               f"'{key}' extends '{parent}', which this file does not have")
        base, base_locs = _resolve(layout, str(parent), (*seen, key), done)
        own = {k: (_relative(base[k], v, own_locs[k]) if k in base else v) for k, v in entry.items()}
        for k, v in {**base, **own}.items():
            if k in merged and str(entry.get(k, "")).strip().startswith(_OPS):
                continue                     # a relative value already applied to the first parent
            merged[k] = v
            locs[k] = own_locs[k] if k in own else base_locs[k]
    done[key] = (merged, locs)
    return done[key]


def _box(key: str, entry: dict, locs: dict[str, Loc], ctx: _Ctx) -> dict:
    """x, y, width and height in pixels (Squib's defaults where not given: 0, 0 and the deck's
    size), turned as `angle` turns the box (about its top-left corner, in Squib)."""
    values = [0.0, 0.0, *ctx.deck]
    for i, k in enumerate(BOX):
        if k in entry:
            ctx.shorthands |= sv.is_shorthand(entry[k])
            values[i] = sv.length(entry[k], locs[k], i % 2, ctx.deck)
    out: dict = {}
    a = sv.angle(entry["angle"], locs["angle"]) if "angle" in entry else 0.0
    if round(math.degrees(a), 6) % 360:
        values[0], values[1], turn = sv.about_centre(values[0], values[1], values[2], values[3], a)
        out["rotate"] = round((turn + 180) % 360 - 180, 3)
    return {**{k: f"{round(v, 2):g}px" for k, v in zip(BOX, values, strict=True)}, **out}


def _kind(key: str, entry: dict, own: set[str]) -> str:
    """What a layout entry draws, guessed (a layout does not say: its script's `text`, `rect`,
    `svg` or `png` calls do): an image for `file`, or a name ending in art, icon, image, ... with
    no text keys of its own; else by its own keys, then by those it inherits (a rect's: radius, fill_color, ...)."""
    last = re.split(r"[_\W]+", key.lower().strip("_ "))[-1]
    if "file" in entry or (last in IMAGE_NAMES and not any(k in own for k in TEXT_KEYS)):
        return "image"
    for keys in (own, set(entry)):
        shape, text = any(k in keys for k in SHAPE_KEYS), any(k in keys for k in TEXT_KEYS if k != "color")
        if shape != text:
            return "rect" if shape else "text"
    return "rect" if key.lower() in SHAPE_NAMES or last in SHAPE_NAMES else "text"


def _rect(key: str, entry: dict, locs: dict[str, Loc], ctx: _Ctx, use: Use | None) -> dict:
    """A Squib rect: its fill (none unless given), its stroke (black, 2 px, unless a width of 0)."""
    element: dict = {}
    if "radius" in entry:
        element["radius"] = f"{round(sv.length(entry['radius'], locs['radius']), 2):g}px"
    element["fill"] = sv.colour(entry.get("fill_color", "")) or "none"
    width = sv.length(entry["stroke_width"], locs["stroke_width"]) if "stroke_width" in entry else 2.0
    if width > 0:
        element["stroke"] = sv.colour(entry.get("stroke_color", "")) or "#000000"
        if "stroke_width" in entry:
            element["stroke_width"] = f"{round(width, 2):g}px"
        if "dash" in entry:
            element["dash"] = sv.dash(entry["dash"], locs["dash"])
    if use is None:
        why = ", ".join(k for k in SHAPE_KEYS if k in entry) or "its name"
        ctx.said.add(locs["_entry"], key, f"{{names}} made a rect (from {why}); change its type if it holds text "
                                          f"or art")
    return element


def _text(key: str, entry: dict, locs: dict[str, Loc], ctx: _Ctx, use: Use | None) -> dict:
    """A Squib text printing the column the script's call names (`str: data['Col']`) or its words
    (`str: 'Credits'`), else the card's field of the entry's name (the data's column in any case): its size (Squib's
    `Arial 12` unless said), style, alignment and colour."""
    element: dict = {}
    column = use.column if use and use.column else key
    name = _field(ctx, column)
    if use is not None and use.literal is not None and not re.search(r"[{}%#]", use.literal):
        element["text"] = use.literal
    elif use is not None and use.pattern is not None and use.column and ctx.fields and column.lower() not in ctx.fields:
        ctx.said.add(_at(ctx, use), key, "{names}: the text drawn here is the data's column that the loop's name "
                                         "gives; no such column, each prints the card's field of that name")
    elif use is not None and use.column is None:
        ctx.said.add(_at(ctx, use), key, "{names}: the text drawn here is what the script works out; each prints the "
                                         "card's field of its name")
    if "text" not in element and re.fullmatch(r"[^\W\d][\w -]*", name):       # (a name a template line can hold)
        ctx.printed.append(name)
        element["text"] = "{{ card[" + repr(name) + "]" + _embedded(key, ctx, use) + " }}"
    elif "text" not in element:
        ctx.said.add(locs["_entry"], key, "{names} is not a field name a template can print; its text is left empty")
        element["text"] = ""
    families, style, size = sv.font(entry["font"]) if "font" in entry else ([], None, None)
    if families:
        ctx.said.add(locs["font"], key, f"{{names}}: font family {', '.join(families)} not carried over (put its "
                                        f"files in fonts/ and set `font:`); its size and style are kept")
    element["size"] = float(entry["font_size"]) if "font_size" in entry else size or 12.0
    if style:
        element["style"] = style
    for k in ("align", "valign"):
        if k in entry and str(entry[k]) in ("left", "center", "right", "top", "middle", "bottom"):
            element[k] = str(entry[k])
    if str(entry.get("justify", "")).lower() == "true":
        element["align"] = "justify"
    if sv.colour(entry.get("color", "")):
        element["color"] = sv.colour(entry["color"])
    if "ellipsize" in entry:
        if str(entry["ellipsize"]) == "autoscale":
            element["fit"] = "shrink"
        elif str(entry["ellipsize"]).lower() not in ("none", "false"):
            ctx.said.add(locs["ellipsize"], key, f"{{names}}: ellipsize {entry['ellipsize']} not carried over "
                                                 f"(a text too long is a warning, or `fit: shrink`)")
    return element


def _embedded(key: str, ctx: _Ctx, use: Use | None) -> str:
    """Squib's embedded icons (`embed.svg key: 'Wood', file: ...`) as cardgen's `:wood:` in the
    text: the filters that put each icon for its word, said with where its file goes."""
    out = ""
    if use is None:
        return out
    for word, file in use.embeds:
        icon = re.sub(r"[^a-z0-9_-]+", "", word.lower())
        if not icon:
            ctx.said.add(_at(ctx, use), key, f"{{names}}: the icon embedded for {word!r} not carried over")
            continue
        out += f" | replace({word!r}, ':{icon}:')"
        ctx.said.add(_at(ctx, use), key, f"{{names}}: {word!r} printed as the icon :{icon}: (put {file} in "
                                         f"art/icons/{icon}.svg)")
    return out


def _image(key: str, entry: dict, locs: dict[str, Loc], ctx: _Ctx, use: Use | None) -> dict:
    """A Squib svg or png: its `file` (the layout's, or the script's: a name, or one made from a
    column per card), else the card's field of the entry's name (a file in art/), stretched to
    the box as Squib does when the box has a width and a height."""
    element: dict = {}
    if use is not None and use.file is not None and use.file_column is not None:
        name = _field(ctx, use.file_column)
        ctx.printed.append(name)
        element = {"src": use.file.replace("\0", "{{ card[" + repr(name) + "] }}"), "placeholder": True}
        if use.only_with_file:
            element["when"] = f"card[{name!r}] != ''"
    elif use is not None and use.file is not None:
        ctx.said.add(_at(ctx, use), key, f"{{names}}: image {use.file}: put it in art/ (Squib reads it from its "
                                         f"img_dir)")
        element = {"src": use.file}
    elif "file" in entry:
        ctx.said.add(locs["file"], key, f"{{names}}: image {entry['file']}: put it in art/ (Squib reads it from its "
                                        f"img_dir)")
        element = {"src": str(entry["file"])}
    else:
        name = _field(ctx, key)
        where, why = (_at(ctx, use), "the script works out which file") if use else (locs["_entry"], "from its name")
        ctx.said.add(where, key, f"{{names}}: an image of the file in art/ that the card's field of its name gives "
                                 f"({why})")
        ctx.printed.append(name)
        element = {"src": "{{ card[" + repr(name) + "] }}", "placeholder": True}      # (a name, not a file: said)
    if "width" in entry and "height" in entry:
        element["fit"] = "stretch"
    if "alpha" in entry and isinstance(entry["alpha"], (int, float)) and 0 <= entry["alpha"] <= 1:
        element["opacity"] = float(entry["alpha"])
    return element


def _field(ctx: _Ctx, column: str) -> str:
    """The card field a data column (or a layout entry's name) is read as: `name` and `count` for
    the deck's name and count columns (`columns:`), else the data's header as written."""
    low = column.lower()
    for k, v in {"name": "name", **ctx.mapping}.items():
        if low == str(v).lower():
            return k
    return ctx.fields.get(low, column)


def _at(ctx: _Ctx, use: Use) -> Loc:
    return Loc(str(ctx.script.path if ctx.script else "?"), use.line)


def _plan(key: str, entry: dict, own: set[str], ctx: _Ctx) -> list[Use | tuple[str, None]]:
    """What to make of an entry: the script's calls that draw it (one element per kind, said
    when it draws it more often), or without a script the guessed kind (an image entry that sets
    text keys of its own: the image and a text)."""
    if ctx.script is None:
        kind = _kind(key, entry, own)
        extra = kind == "image" and "file" in entry and any(k in own for k in TEXT_KEYS)
        return [(kind, None), ("text", None)] if extra else [(kind, None)]
    plan: list[Use | tuple[str, None]] = []
    for use in ctx.script.uses(key):
        if use.kind not in ("text", "rect", "image"):
            ctx.said.add(_at(ctx, use), key, f"{{names}}: a {use.kind} Squib draws here is not carried over "
                                             f"(add it by hand)")
        elif any(not isinstance(u, tuple) and u.kind == use.kind and (u.build or use.build) for u in plan):
            ctx.said.add(_at(ctx, use), key, f"{{names}}: drawn again here, in `build :{use.build}` (a variant); the "
                                             f"{use.kind} drawn first made" if use.build else
                                             f"{{names}}: drawn again here, after one in a `build` variant; the "
                                             f"{use.kind} drawn first made")
        else:
            plan.append(use)
            if use.build:
                ctx.said.add(_at(ctx, use), key, f"{{names}}: drawn in `build :{use.build}` (a variant), made for "
                                                 f"every build")
        if use.pattern is not None:
            ctx.said.add(_at(ctx, use), key, f"{{names}}: taken as drawn here (the name fits the layout name the "
                                             f"script works out here, \"{use.written}\")")
    return plan


def _with_args(key: str, entry: dict, locs: dict[str, Loc], ctx: _Ctx, use: Use | None) -> tuple[dict, dict]:
    """The entry as the script's call draws it: the call's literal arguments over the layout's
    (as in Squib), the others said."""
    if use is None:
        return entry, locs
    at = _at(ctx, use)
    if use.having is not None:
        ctx.said.add(at, key, "{names}: range: read as the cards that have the column (a `when:`)")
    elif "range" in use.args or "range" in use.worked_out:
        ctx.said.add(at, key, "{names}: drawn on some cards only (range:); add a `when:`")
    others = [k + (f" ({use.why[k]})" if k in use.why else "") for k in use.worked_out if k != "range"]
    if others:
        ctx.said.add(at, key, f"{{names}}: {', '.join(others)} worked out by the script here; not carried over")
    args = {k: v for k, v in use.args.items() if k != "range"}
    return {**entry, **args}, {**locs, **dict.fromkeys(args, at)}


def _elements(key: str, entry: dict, locs: dict[str, Loc], own: set[str], ctx: _Ctx) -> list[tuple[tuple, dict]]:
    """The cardgen elements for a resolved layout entry, each with the script's line that draws
    it (0 without a script): one per kind of drawing (an image, a rect, a text), the text named as
    the entry and the others `KEY_image`, `KEY_rect` when there are more."""
    plan = _plan(key, entry, own, ctx)
    if not plan:
        ctx.said.add(locs["_entry"], key, f"{{names}}: no call of {ctx.script.path.name if ctx.script else '?'} "
                                          f"draws it; left out")
        return []
    made = {"rect": _rect, "text": _text, "image": _image}
    out = []
    seen: dict[str, int] = {}
    for item in plan:
        kind, use = (item[0], None) if isinstance(item, tuple) else (item.kind, item)
        seen[kind] = seen.get(kind, 0) + 1
        name = key if len(plan) == 1 or kind == "text" else f"{key}_{kind}"
        name += f"_{seen[kind]}" if seen[kind] > 1 else ""
        e, ls = _with_args(key, entry, locs, ctx, use)
        element = {"name": name, "type": kind, **_box(key, e, ls, ctx), **made[kind](key, e, ls, ctx, use)}
        if use is not None and use.having is not None:
            having = _field(ctx, use.having)
            ctx.printed.append(having)
            element["when"] = f"card[{having!r}] != ''"
        out.append((use.order if use else (0, 0, 0), element))
    kinds = {e["type"] for _, e in out}
    for k in entry:             # what Squib would draw with that this cannot (a key of another kind only if own)
        used = not ((k in TEXT_KEYS and "text" not in kinds) or (k in SHAPE_KEYS and "rect" not in kinds))
        if k not in CARRIED or (not used and k in own and ctx.script is None):
            ctx.said.add(locs[k], key, f"{{names}}: {k} not carried over")
    return out


def _load(path: Path) -> YDict:
    try:
        raw = read_regular(path)
    except TooLarge as exc:
        raise CardgenError(Loc(str(path)), f"this file is {exc.strerror}; not a layout file") from None
    except OSError as exc:
        raise CardgenError(Loc(str(path)), f"cannot read: {exc.strerror or exc}") from None
    text = yamlsrc._decode(raw, path)
    # Squib's own samples write `valign: !ruby/symbol middle`: read as the plain word (same columns).
    text = re.sub(r"!ruby/sym(?:bol)?\b", lambda m: " " * len(m.group(0)), text)
    data = yamlsrc.load_text(text, str(path))
    if data is None:
        raise CardgenError(Loc(str(path), 1, 1), "an empty layout file")
    if not isinstance(data, YDict) or not all(isinstance(v, YDict) for v in data.values()):
        bad = next((k for k, v in data.items() if not isinstance(v, YDict)), None) if isinstance(data, dict) else None
        where = loc_of(data, bad) if bad is not None else Loc(str(path), 1, 1)
        raise CardgenError(where, "a Squib layout is a mapping of names to mappings (x, y, width, height, ...)")
    if len(data) > MAX_ENTRIES:
        raise CardgenError(Loc(str(path), 1, 1), f"more than {MAX_ENTRIES} layout entries")
    for entry in data.values():           # `:middle`, as Ruby's YAML reads it, is the symbol `middle`
        for k, v in entry.items():
            if isinstance(v, str) and re.fullmatch(r":[A-Za-z_]\w*", v):
                entry[k] = v[1:]
    return data


def _columns(data: Path | None) -> tuple[dict[str, str], dict[str, str]]:
    """The data file's header names by lower case (the layout entries that name a column print
    it), and the `columns:` guessed for its name and count."""
    if data is None:
        return {}, {}
    from cardgen.cli.new_from_sheet import _columns as sheet_columns
    from cardgen.cli.new_from_sheet import _sheet_names

    fields, mapping = sheet_columns(data, _sheet_names(data)[0])
    return {f.lower(): f for f, _ in fields}, mapping


def deck_size(text: str) -> tuple[float, float]:
    """`--deck 825x1125` (or `2.5in x 3.5in`): the deck's width and height in pixels."""
    parts = str(text).lower().split("x")
    loc = Loc("--deck")
    if len(parts) != 2:
        raise CardgenError(loc, f"'{text}' is not a width x height (825x1125, 2.75in x 3.75in)")
    w, h = (sv.length(p, loc) for p in parts)
    if not (0 < w <= 30000 and 0 < h <= 30000):
        raise CardgenError(loc, f"'{text}': a deck's width and height are more than 0 and at most 30000 px")
    return w, h


def _template(entries: YDict, ctx: _Ctx) -> dict:
    """The cardgen template: an element per layout entry and drawing (in the script's order, with
    a script), measured from the bleed."""
    made: list[tuple[tuple, dict]] = []
    if ctx.script is not None and ctx.script.background_line:
        at = Loc(str(ctx.script.path), ctx.script.background_line)
        fill = sv.colour(str(ctx.script.background or ""))
        if fill is not None:
            made.append(((at.line, 0, 0), {"name": "background", "type": "rect", "box": "bleed", "fill": fill}))
        else:
            why = f" ({ctx.script.background_why})" if ctx.script.background_why else ""
            ctx.said.add(at, "background", f"{{names}}: a colour the script works out{why}; not carried over")
    done: dict[str, Resolved] = {}
    for key in entries:
        entry, locs = _resolve(entries, key, (), done)
        locs = {**locs, "_entry": loc_of(entries, key)}
        if not any(k in entry for k in BOX):
            ctx.said.add(locs["_entry"], str(key), "{names} has no x, y, width or height; not carried over")
            continue
        made += _elements(str(key), entry, locs, set(entries[key]), ctx)
    elements = [e for _, e in sorted(made, key=lambda item: item[0])]       # (stable: layout order within a line)
    defaults = dict.fromkeys((f for f in ctx.printed if f not in ("name", "count")), "")
    return {"origin": "bleed", "defaults": defaults, "elements": elements}


def _reading(out: Path, data: Path) -> Path | None:
    """A deck file in `out` that reads `data` already (as `cardgen new --from` writes one)."""
    for path in sorted(out.glob("*.yaml"))[:200] if out.is_dir() else []:
        try:
            doc = yaml.safe_load(read_regular(path))
        except (OSError, TooLarge, yaml.YAMLError, UnicodeDecodeError):
            continue
        cards = doc.get("cards") if isinstance(doc, dict) else None
        if cards == data.name or (isinstance(cards, dict) and cards.get("file") == data.name):
            return path
    return None


def import_squib(layout: Path, data: Path | None, out: Path, force: bool, said: list[str],
                 deck: tuple[float, float] | None = None, script: Path | None = None) -> list[Path]:
    """Write out/templates/<layout>.yaml (and with data, out/<layout>-deck.yaml and the data
    file, unless a deck file there reads it already) from a Squib layout file, and with `script`
    the Squib script that draws with it; returns the files written.  Refuses to overwrite unless
    `force`."""
    from cardgen.cli import squib_script

    entries = _load(layout)
    if data is not None and data.suffix.lower() not in SHEET_SUFFIXES:
        raise CardgenError(Loc(str(data)), f"not a spreadsheet cardgen reads ({', '.join(SHEET_SUFFIXES)})")
    if data is not None and not data.is_file():
        raise CardgenError(Loc(str(data)), "file not found")
    fields, mapping = _columns(data)
    read = squib_script.read(script) if script is not None else None
    if deck is None and read is not None and read.deck is not None:
        w, h, line = read.deck
        deck = deck_size(f"{w}x{h}")
        if deck != sv.DECK:
            said.append(f"{Loc(str(read.path), line)}: `middle` and `deck` read for Deck.new's {deck[0]:g} x "
                        f"{deck[1]:g} px; with Squib's usual 1/8 in bleed the trim is {deck[0] - 75:g} x "
                        f"{deck[1] - 75:g} px: set game.yaml's card_size to it ({{width: ..., height: ...}})")
    told = deck is not None
    deck = deck or sv.DECK
    ctx = _Ctx(fields, deck, _Said(), read, mapping)
    template = _template(entries, ctx)
    said += ctx.said.out()
    if ctx.shorthands and not told:
        said.append(f"{layout}: `middle` and `deck` read for a {deck[0]:g} x {deck[1]:g} px deck (pass --deck if "
                    f"the script's Deck.new says another width and height)")
    stem = re.sub(r"[^a-z0-9-]+", "-", layout.stem.lower()).strip("-") or "squib"
    head = (f"# Imported from the Squib layout {layout.name}{f' and the script {script.name}' if script else ''} by "
            f"`cardgen import squib`: each\n# entry an element with its box, measured from the bleed's corner as Squib "
            f"does (docs/templates.md).\n")
    files = {out / "templates" / f"{stem}.yaml":
             head + yaml.safe_dump(template, sort_keys=False, width=100, allow_unicode=True)}
    reading = _reading(out, data) if data is not None else None
    if data is not None and reading is not None:
        said.append(f"{reading}: reads {data.name} already: set its `template: {stem}` (or `backs: {stem}` for the "
                     f"cards' backs) to use the imported template")
    elif data is not None:
        cards: Any = {"file": data.name, "columns": mapping} if mapping else data.name
        deck_file = {"deck": data.stem, "template": stem, "cards": cards}
        files[out / f"{stem}-deck.yaml"] = yaml.safe_dump(deck_file, sort_keys=False)
    copy = data is not None and reading is None and data.parent.resolve() != out.resolve()
    for path in list(files) + ([out / data.name] if data is not None and copy else []):
        if path.exists() and not force:
            raise CardgenError(Loc(str(path)), "already exists; pass --force to overwrite it")
    for path, text in files.items():
        write_text(path, text)
    written = list(files)
    if data is not None and copy:
        shutil.copyfile(data, out / data.name)
        written.append(out / data.name)
    return written
