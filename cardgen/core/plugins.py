"""A table of plug-in classes by name whose modules are imported when a class is first asked for
(the outputs' registry, `cardgen.outputs.OUTPUTS`; the element types, `cardgen.elements.ELEMENTS`):
listing the names imports nothing, so a command imports only the plug-ins it uses."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any, Generic, TypeVar

from cardgen.core.imports import importing

T = TypeVar("T")
R = TypeVar("R")


class Plugins(Mapping[str, T], Generic[R, T]):
    """Name -> class, from a table of rows (`where(row)`: the class's module and name)."""

    def __init__(self, table: dict[str, R]) -> None:
        self._table = table
        self._classes: dict[str, T] = {}

    def where(self, row: R) -> tuple[str, str]:
        raise NotImplementedError

    def __getitem__(self, name: str) -> T:
        cls = self._classes.get(name)
        if cls is None:
            module, attr = self.where(self._table[name])
            with importing(freeze=False):   # (often while a game is loaded: `core.imports`)
                found: Any = getattr(import_module(module), attr)
            cls = self._classes[name] = found
        return cls

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)
