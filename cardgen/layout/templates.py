"""Layout templates: `templates/**/*.yaml`, referenced by path without extension.

A template is an ordered list of named elements.  `extends:` another template
inherits its elements; an element of the same name overrides the parent's keys in
place, a new name is added at the end (or `before:`/`after:` a named element), and
`remove:` drops inherited elements.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cardgen.layout import expr

from cardgen.schema import keys as schema
from cardgen.core.errors import CardgenError, Diagnostic, Loc
from cardgen.load.yamlsrc import YDict, YList, load_file

TEMPLATE_KEYS = {
    "extends": "another template to start from, e.g. base/poker",
    "description": "what the template is for",
    "defaults": "field values a card gets when it does not set them",
    "elements": "the ordered list of elements to draw",
    "remove": "names of inherited elements to drop",
}

COMMON_KEYS = {
    "name": "the element's name (required, unique in the template; a child template overrides by name)",
    "type": "rect, ellipse, line, text, image or icon",
    "when": "draw only if this expression is true, e.g. card.cost is defined",
    "x": "left edge from the trim's left (default 0); mm by default, or in, pt, %",
    "y": "top edge from the trim's top, downwards (default 0)",
    "width": "width (default: to the trim's right edge)",
    "height": "height (default: to the trim's bottom edge)",
    "box": "shortcut for x/y/width/height: trim, bleed (reaches into the bleed) or safe (1/8 in inside the trim)",
    "rotate": "rotation in degrees, counter-clockwise, about the box's centre",
    "before": "in a child template: insert this new element before the named one",
    "after": "in a child template: insert this new element after the named one",
}

TYPE_KEYS = {
    "rect": {
        "fill": "fill colour (#rrggbb, a CSS name, or none)",
        "stroke": "outline colour",
        "stroke_width": "outline width (default 0.5pt when stroke is set)",
        "radius": "corner radius",
        "dash": "dash pattern for the outline, e.g. [2, 1] (in points)",
    },
    "ellipse": {
        "fill": "fill colour",
        "stroke": "outline colour",
        "stroke_width": "outline width (default 0.5pt)",
        "dash": "dash pattern for the outline (points)",
    },
    "line": {
        "x2": "end point x (the start is x, y)",
        "y2": "end point y",
        "stroke": "line colour (default black)",
        "stroke_width": "line width (default 0.5pt)",
        "dash": "dash pattern (points)",
    },
    "text": {
        "text": "the text: markup **bold**, *italic*, :icon:, newline, blank line for a paragraph",
        "font": "font family in fonts/ (default Lato)",
        "style": "regular, bold, italic or bolditalic",
        "size": "font size in points (default 9)",
        "min_size": "smallest size `fit: shrink` may use (default half the size, at least 6)",
        "color": "text colour (default black)",
        "align": "left, center, right or justify",
        "valign": "top, middle or bottom",
        "leading": "line height in font sizes (default 1.2)",
        "fit": "none (default; overflow is a warning) or shrink (shrink to fit, down to min_size)",
        "wrap": "true (default) wraps at the box's width; false keeps each line whole",
        "icon_scale": "inline icon height relative to the default (1.0)",
        "paragraph_gap": "extra space between paragraphs, in font sizes (default 0.45)",
        "uppercase": "true prints the text in capitals",
    },
    "image": {
        "src": "image file (PNG, JPEG or SVG) in art/, or a path relative to the game folder",
        "fit": "contain (default), cover (fill the box, cropping) or stretch",
        "placeholder": "true or a label: draw a labelled box when the file is missing or src is empty",
    },
    "icon": {
        "icon": "icon name (a file in art/icons/ or an alias from game.yaml `icons:`)",
        "count": "how many times to repeat it (default 1), e.g. {{ card.power }}",
        "size": "each icon's size (default: the box's height for a row, width for a column)",
        "gap": "space between icons (default 1mm)",
        "direction": "row (default) or column",
        "align": "start, center (default) or end along the direction",
        "color": "colour for the icon's black parts (default: the icon's own colours)",
    },
}

ELEMENT_TYPES = tuple(TYPE_KEYS)


@dataclass
class Template:
    ref: str
    file: Path
    elements: list[YDict]           # merged elements in drawing order
    defaults: dict = field(default_factory=dict)
    chain: list[Path] = field(default_factory=list)   # this file and its ancestors

    def element(self, name: str) -> YDict | None:
        for e in self.elements:
            if e.get("name") == name:
                return e
        return None


def _merge(parent: YDict, child: YDict) -> YDict:
    out = YDict(parent)
    out.loc = child.loc
    out.key_locs = dict(getattr(parent, "key_locs", {}))
    out.value_locs = dict(getattr(parent, "value_locs", {}))
    for k, v in child.items():
        out[k] = v
        out.key_locs[k] = child.key_loc(k)
        out.value_locs[k] = child.value_loc(k)
    return out


def find_template(ref: str, dirs: list[Path]) -> Path | None:
    ref = str(ref).strip().removesuffix(".yaml")
    for d in dirs:
        p = d / f"{ref}.yaml"
        if p.is_file():
            return p
    return None


def available(dirs: list[Path]) -> list[str]:
    out = set()
    for d in dirs:
        if d.is_dir():
            out.update(str(p.relative_to(d).with_suffix("")) for p in d.rglob("*.yaml"))
    return sorted(out)


class TemplateBook:
    """Loads templates from the given folders (earlier folders win), caching each."""

    def __init__(self, dirs: list[Path]):
        self.dirs = dirs
        self._cache: dict[str, Template] = {}

    def get(self, ref: str, loc: Loc, _stack: tuple = ()) -> Template:
        ref = str(ref).strip().removesuffix(".yaml")
        if ref in self._cache:
            return self._cache[ref]
        if ref in _stack:
            raise CardgenError(loc, f"templates extend each other in a loop: {' -> '.join(_stack + (ref,))}")
        path = find_template(ref, self.dirs)
        if path is None:
            raise CardgenError(loc, f"unknown template '{ref}'{schema.suggest(ref, available(self.dirs))}; "
                                    f"create templates/{ref}.yaml", code="unknown-template")
        data = load_file(path)
        if not isinstance(data, dict):
            raise CardgenError(Loc(str(path), 1), "a template must be a mapping with `elements:`")
        problems = schema.unknown_keys(data, TEMPLATE_KEYS, f"template {ref}")
        if problems:
            raise CardgenError(None, diagnostics=problems)
        if "extends" in data:
            parent = self.get(str(data["extends"]), data.value_loc("extends"), _stack + (ref,))
            elements = list(parent.elements)
            defaults = dict(parent.defaults)
            chain = [path, *parent.chain]
        else:
            elements, defaults, chain = [], {}, [path]
        if data.get("defaults") is not None:
            if not isinstance(data["defaults"], dict):
                raise CardgenError(data.value_loc("defaults"), "`defaults:` must be a mapping of field: value")
            defaults.update(data["defaults"])
        for name in data.get("remove") or []:
            before = len(elements)
            elements = [e for e in elements if e.get("name") != name]
            if len(elements) == before:
                raise CardgenError(data.value_loc("remove"), f"template {ref}: `remove:` names '{name}', "
                                                             f"which no parent template has")
        own = data.get("elements") or []
        if not isinstance(own, list):
            raise CardgenError(data.value_loc("elements"), "`elements:` must be a list")
        seen = set()
        for i, el in enumerate(own):
            eloc = own.item_loc(i) if isinstance(own, YList) else data.loc
            if not isinstance(el, dict):
                raise CardgenError(eloc, "each element must be a mapping with name and type")
            name = el.get("name")
            if not name:
                raise CardgenError(eloc, "element has no `name:`; every element needs a unique name")
            if name in seen:
                raise CardgenError(el.value_loc("name"), f"two elements are named '{name}' in this template")
            seen.add(name)
            idx = next((j for j, e in enumerate(elements) if e.get("name") == name), None)
            if idx is not None:
                elements[idx] = _merge(elements[idx], el)
                check_element(elements[idx])
                continue
            check_element(el)
            anchor = el.get("before") or el.get("after")
            if anchor:
                j = next((j for j, e in enumerate(elements) if e.get("name") == anchor), None)
                if j is None:
                    key = "before" if el.get("before") else "after"
                    raise CardgenError(el.value_loc(key), f"element '{name}': no element '{anchor}' to go {key}")
                elements.insert(j if el.get("before") else j + 1, el)
            else:
                elements.append(el)
        tpl = Template(ref, path, elements, defaults, chain)
        self._cache[ref] = tpl
        return tpl


def element_problems(el: YDict) -> list[Diagnostic]:
    """Schema problems of one (merged) element: type, keys, expression syntax."""
    out = []
    name = el.get("name", "?")
    etype = el.get("type")
    if etype not in TYPE_KEYS:
        loc = el.value_loc("type") if "type" in el else el.loc
        out.append(Diagnostic(loc, f"element '{name}': unknown type {etype!r}{schema.suggest(etype, TYPE_KEYS)} "
                                   f"(types: {', '.join(ELEMENT_TYPES)})", "error", "element-type"))
        return out
    allowed = {**COMMON_KEYS, **TYPE_KEYS[etype]}
    for key in el:
        if key not in allowed:
            out.append(Diagnostic(el.key_loc(key), f"element '{name}' ({etype}): unknown key '{key}'"
                                                   f"{schema.suggest(key, allowed)}", "error", "unknown-key"))
    for key, value in el.items():
        problem = expr.check_syntax(value)
        if problem:
            out.append(Diagnostic(el.value_loc(key), f"element '{name}': {problem}", "error", "expression"))
    return out


def check_element(el: YDict) -> None:
    problems = element_problems(el)
    if problems:
        raise CardgenError(None, diagnostics=problems)
