"""`cardgen import squib LAYOUT.yml [DATA]`: a cardgen template from a Squib layout file.

Squib (andymeneely/squib) keeps a deck's boxes in a layout YAML file: one entry per box, with
`x`, `y`, `width`, `height` in pixels at 300 dpi (or `in`, `mm`, `cm`, `pt`, `c` cell strings)
measured from the bleed's corner, and `extends` (another entry, or a list of them) with
relative values (`+= 10`, `-= 0.1in`, `*= 2`, `/= 2`).  Each entry becomes one element with the
same box, in a template with `origin: bleed`; what has no cardgen counterpart is said, one line
each, and left out."""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from cardgen.core.atomic import write_text
from cardgen.core.errors import CardgenError, Loc
from cardgen.core.located import YDict, loc_of
from cardgen.core.paths import TooLarge, read_regular
from cardgen.load import yamlsrc
from cardgen.schema.files import SHEET_SUFFIXES

MAX_ENTRIES = 500
CELL_PX = 37.5                       # Squib's default cell size
DPI = 300.0
# Squib's unit suffixes, as pixels per unit at 300 dpi (lib/squib/args/unit_conversion.rb).
UNITS = {"in": DPI, "pt": DPI / 72.0, "cm": DPI / 2.54, "mm": DPI / 25.4,
         "cells": CELL_PX, "cell": CELL_PX, "c": CELL_PX}
_NUMBER = re.compile(r"\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*(in|pt|cm|mm|cells|cell|c)?\s*")
_OPS = ("+=", "-=", "*=", "/=")
BOX = ("x", "y", "width", "height")
SHAPE_KEYS = ("radius", "fill_color", "stroke_color", "stroke_width", "dash")
SHAPE_NAMES = ("cut", "safe", "frame", "border", "background", "bg", "bleed")
CARRIED = {"x", "y", "width", "height", "extends", "align", "valign", "font_size", "color",
           "radius", "fill_color", "stroke_color", "stroke_width"}


def _px(value: Any, loc: Loc) -> float:
    """A Squib length as pixels at 300 dpi."""
    if isinstance(value, bool):
        raise CardgenError(loc, f"'{value}' is not a length")
    if isinstance(value, (int, float)):
        return float(value)
    m = _NUMBER.fullmatch(str(value))
    if m is None:
        raise CardgenError(loc, f"'{value}' is not a length the importer reads (a number of pixels, or with in, "
                                f"mm, cm, pt or c); Squib's `middle` and `deck` forms are not carried over")
    return float(m.group(1)) * UNITS.get(m.group(2) or "", 1.0)


def _relative(parent: Any, child: Any, loc: Loc) -> Any:
    """A child's value over its parent's: `+= 10` and the like applied, else the child's."""
    text = str(child).strip()
    op = next((o for o in _OPS if text.startswith(o)), None)
    if op is None:
        return child
    base, rest = _px(parent, loc), text[2:]
    if op in ("*=", "/="):
        m = _NUMBER.fullmatch(rest)
        if m is None or m.group(2) or (op == "/=" and float(m.group(1)) == 0):
            raise CardgenError(loc, f"'{text}' is not a usable factor")
        return base * float(m.group(1)) if op == "*=" else base / float(m.group(1))
    return base + _px(rest, loc) if op == "+=" else base - _px(rest, loc)


def _resolve(layout: dict, key: str, seen: tuple[str, ...], done: dict[str, dict]) -> dict:
    """An entry with its `extends` merged in, as Squib's LayoutParser does (`done`: the entries
    resolved so far, so that parents shared many times over are worked out once)."""
    if key in done:
        return done[key]
    entry = layout[key]
    loc = loc_of(layout, key)
    if key in seen:
        raise CardgenError(loc, f"'{key}' extends itself (through {' -> '.join((*seen, key))})")
    parents = entry.get("extends")
    if parents is None:
        done[key] = dict(entry)
        return done[key]
    merged: dict = {}
    for parent in parents if isinstance(parents, list) else [parents]:
        if str(parent) not in layout:
            raise CardgenError(loc_of(entry, "extends"),
                               f"'{key}' extends '{parent}', which this file does not have")
        base = _resolve(layout, str(parent), (*seen, key), done)
        own = {k: (_relative(base[k], v, loc_of(entry, k)) if k in base else v)
               for k, v in entry.items()}
        for k, v in {**base, **own}.items():
            if k in merged and str(entry.get(k, "")).strip().startswith(_OPS):
                continue                     # a relative value already applied to the first parent
            merged[k] = v
    done[key] = merged
    return merged


def _colour(value: Any) -> str | None:
    text = str(value).strip()
    return text if re.fullmatch(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]+", text) else None


def _element(key: str, entry: dict, fields: dict[str, str], loc: Loc, said: list[str],
             printed: list[str], raw: YDict) -> dict | None:
    """One cardgen element for a resolved layout entry; None (said why) if it has no box.  A text
    prints the field named as the entry (the data's column in any case); `printed` gets it."""
    if not any(k in entry for k in BOX):
        said.append(f"{loc}: '{key}' has no x, y, width or height; not carried over")
        return None
    box = {k: f"{round(_px(entry[k], loc_of(raw, k) if k in raw else loc), 2):g}px" for k in BOX if k in entry}
    shape = any(k in entry for k in SHAPE_KEYS) or key.lower() in SHAPE_NAMES
    element: dict = {"name": key, "type": "rect" if shape else "text", **box}
    if shape:
        if "radius" in entry:
            element["radius"] = f"{round(_px(entry['radius'], loc), 2):g}px"
        fill, stroke = _colour(entry.get("fill_color", "")), _colour(entry.get("stroke_color", ""))
        element["fill"] = fill or "none"
        if stroke or not fill:
            element["stroke"] = stroke or "#000000"
        if "stroke_width" in entry:
            element["stroke_width"] = f"{round(_px(entry['stroke_width'], loc), 2):g}px"
        why = ", ".join(k for k in SHAPE_KEYS if k in entry) or "its name"
        said.append(f"{loc}: '{key}' made a rect (from {why}); change its type if it holds text or art")
    else:
        field = fields.get(key.lower(), key)
        if re.fullmatch(r"[^\W\d][\w -]*", field):       # (a name a template line can hold)
            printed.append(field)
            element["text"] = "{{ card[" + repr(field) + "] }}"
        else:
            said.append(f"{loc}: '{key}' is not a field name a template can print; its text is left empty")
            element["text"] = ""
        for k in ("align", "valign"):
            if k in entry and str(entry[k]) in ("left", "center", "right", "justify", "top", "middle", "bottom"):
                element[k] = str(entry[k])
        if "font_size" in entry:
            element["size"] = float(entry["font_size"])
        if _colour(entry.get("color", "")):
            element["color"] = _colour(entry["color"])
    for k in entry:
        if k not in CARRIED or (shape and k in ("align", "valign", "font_size", "color")):
            said.append(f"{loc_of(raw, k) if k in raw else loc}: '{key}': {k} not carried over")
    return element


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


def import_squib(layout: Path, data: Path | None, out: Path, force: bool, said: list[str]) -> list[Path]:
    """Write out/templates/<layout>.yaml (and with data, out/<data>.yaml and the data file) from
    a Squib layout file; returns the files written.  Refuses to overwrite unless `force`."""
    entries = _load(layout)
    if data is not None and data.suffix.lower() not in SHEET_SUFFIXES:
        raise CardgenError(Loc(str(data)), f"not a spreadsheet cardgen reads ({', '.join(SHEET_SUFFIXES)})")
    if data is not None and not data.is_file():
        raise CardgenError(Loc(str(data)), "file not found")
    fields, mapping = _columns(data)
    elements: list[dict] = []
    printed: list[str] = []
    done: dict[str, dict] = {}
    for key in entries:
        element = _element(str(key), _resolve(entries, key, (), done), fields, loc_of(entries, key), said,
                           printed, entries[key])
        if element is not None:
            elements.append(element)
    stem = re.sub(r"[^a-z0-9-]+", "-", layout.stem.lower()).strip("-") or "squib"
    head = (f"# Imported from the Squib layout {layout.name} by `cardgen import squib`: each entry one element\n"
            f"# with its box, measured from the bleed's corner as Squib does (docs/templates.md).\n")
    files = {out / "templates" / f"{stem}.yaml":
             head + yaml.safe_dump({"origin": "bleed", "defaults": dict.fromkeys(printed, ""), "elements": elements},
                                   sort_keys=False, width=100, allow_unicode=True)}
    if data is not None:
        cards: Any = {"file": data.name, "columns": mapping} if mapping else data.name
        deck = {"deck": data.stem, "template": stem, "cards": cards}
        files[out / f"{stem}-deck.yaml"] = yaml.safe_dump(deck, sort_keys=False)
    for path in list(files) + ([out / data.name] if data is not None and data.parent.resolve() != out.resolve()
                                else []):
        if path.exists() and not force:
            raise CardgenError(Loc(str(path)), "already exists; pass --force to overwrite it")
    for path, text in files.items():
        write_text(path, text)
    written = list(files)
    if data is not None and data.parent.resolve() != out.resolve():
        shutil.copyfile(data, out / data.name)
        written.append(out / data.name)
    return written
