"""Kinds of value for paints and effects (`cardgen.core.paint`): a fill that may be a
gradient, and a drop shadow."""
from __future__ import annotations

from typing import Any

from cardgen.core import paint
from cardgen.schema.core import Colour, Env, Invalid, Kind, show


class Paint(Kind):
    """A colour, `none`, or a gradient: `linear-gradient(90deg, #fff, #c00)`,
    `radial-gradient(circle, ...)`, or a mapping `{linear: [...], angle: 90}`."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, dict) and not {str(k).lower() for k in value} & {"linear", "radial"}:
            raise Invalid(f"must be a colour such as #1d6a72, a CSS colour name or none, or a gradient such as "
                          f"{{linear: [\"#fff\", \"#c00\"]}}, got {show(value)}")
        if isinstance(value, dict) or (isinstance(value, str) and "gradient" in value.lower()):
            try:
                return paint.paint(value)
            except paint.PaintError as exc:
                raise Invalid(f"is not a valid gradient: {exc}") from None
        return Colour().convert(value, env)

    def describe(self) -> str:
        return "colour or gradient"

    def json_schema(self) -> dict:
        stops = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": paint.MAX_STOPS}
        return {"anyOf": [{"type": ["string", "null"]},
                          {"type": "object", "properties": {"linear": stops, "angle": {"type": ["number", "string"]}},
                           "required": ["linear"], "additionalProperties": False},
                          {"type": "object", "properties": {"radial": stops, "shape": {"enum": list(paint.SHAPES)},
                                                            "extent": {"enum": list(paint.EXTENTS)}},
                           "required": ["radial"], "additionalProperties": False}]}


class ShadowKind(Kind):
    """A drop shadow: `1mm 1mm` (right, down), `1mm 1mm 0.5mm #00000080` (blur, colour), a
    mapping {x, y, blur, color}, or none."""

    def convert(self, value: Any, env: Env) -> Any:
        if isinstance(value, (list, bool)) or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            raise Invalid(f"must be a shadow such as `1mm 1mm 0.5mm #00000080` (x, y, blur, colour), got {show(value)}")
        try:
            return paint.shadow(value)
        except paint.PaintError as exc:
            raise Invalid(f"is not a valid shadow: {exc}") from None

    def describe(self) -> str:
        return "shadow (`x y [blur] [colour]`)"

    def json_schema(self) -> dict:
        return {"anyOf": [{"type": ["string", "null"]},
                          {"type": "object", "properties": {k: {"type": ["number", "string"]}
                                                            for k in ("x", "y", "blur", "color", "colour")},
                           "additionalProperties": False}]}
