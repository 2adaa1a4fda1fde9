"""Template elements as plug-ins: one module per element type.

`ELEMENTS` is the one table of element types; the template loader, the layout engine,
`cardgen validate`, the docs and the JSON Schema all read it.  To add an element type,
write one module here (a dataclass subclassing `base.Element` and the option groups it
takes, with its options declared by `opt()` and a `layout()` method), add its row to `TABLE`
(the `type:` word, the module, the class), and run `python -m cardgen.schema.docs --write` to
put its options into docs/templates.md.

Start-up.  The table names each type's module without importing it: `ELEMENTS[name]` imports
a type's module when it is first asked for, so `cardgen validate` and a build import the types
their templates use and no other (each is a dataclass of some 30 options, made when its module
is imported: about 2 ms a type).  Listing the names (`list(ELEMENTS)`, `in`, a suggestion for a
misspelt type) imports none; `ELEMENTS.items()` (the docs, the JSON Schema) imports them all.
This module imports nothing of cardgen's but `core.plugins`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from cardgen.core.plugins import Plugins

if TYPE_CHECKING:
    from cardgen.elements.base import Element  # noqa: F401 (in `Elements`' base, as a string)

# `type:` word -> (module in this package, class); in the docs' order.
TABLE: dict[str, tuple[str, str]] = {
    "rect": ("rect", "Rect"),
    "ellipse": ("ellipse", "Ellipse"),
    "line": ("line", "Line"),
    "polygon": ("polygon", "Polygon"),
    "text": ("text", "TextElement"),
    "image": ("image", "ImageElement"),
    "icon": ("icon", "IconElement"),
    "stack": ("stack", "Stack"),
}


class Elements(Plugins[tuple[str, str], "type[Element]"]):
    """Element type name -> its class, each type's module imported when it is first asked for."""

    def where(self, row: tuple[str, str]) -> tuple[str, str]:
        return f"{__name__}.{row[0]}", row[1]


ELEMENTS = Elements(TABLE)
