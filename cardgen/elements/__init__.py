"""Template elements as plug-ins: one module per element type.

`ELEMENTS` is the one table of element types; the template loader, the layout engine,
`cardgen validate`, the docs and the JSON Schema all read it.  To add an element type,
write one module here (a dataclass subclassing `base.Element` and the option groups it
takes, with its options declared by `opt()` and a `layout()` method), add it to this table,
and run `python -m cardgen.schema.docs --write` to put its options into docs/templates.md.
"""
from __future__ import annotations

from cardgen.elements.base import Element
from cardgen.elements.ellipse import Ellipse
from cardgen.elements.icon import IconElement
from cardgen.elements.image import ImageElement
from cardgen.elements.line import Line
from cardgen.elements.polygon import Polygon
from cardgen.elements.rect import Rect
from cardgen.elements.stack import Stack
from cardgen.elements.text import TextElement

ELEMENTS: dict[str, type[Element]] = {cls.type_name: cls for cls in (
    Rect, Ellipse, Line, Polygon, TextElement, ImageElement, IconElement, Stack,
)}
