"""Process-wide memos with a bound.

`cardgen serve` and `cardgen build --watch` run for hours in one process, rebuilding on every
save; a memo keyed by file content or version would otherwise keep every version a session
ever saw. `Bounded` is a dict that forgets its oldest entries past `entries` items (or past
`size` units of whatever `sizer` counts, such as bytes). Every process-wide memo of cardgen
is one (docs/design.md lists them, with what each saves).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Bounded(dict[K, V], Generic[K, V]):
    """A dict holding at most `entries` items (and at most `size` of `sizer(value)` summed):
    setting a new key past the bound forgets the oldest keys first."""

    def __init__(self, entries: int, size: int | None = None, sizer: Callable[[V], int] | None = None):
        super().__init__()
        if entries < 1 or (size is not None and sizer is None):
            raise ValueError("a bound of at least one entry, and a sizer with a size")
        self.entries, self.size, self.sizer = entries, size, sizer
        self.held = 0          # what `sizer` counts of the values held

    def __setitem__(self, key: K, value: V) -> None:
        sizer, size = self.sizer, self.size
        if key in self:         # (a memo's entry used again, moved last: most of the calls)
            old = dict.pop(self, key)
            if sizer is not None:
                self.held -= sizer(old)
        cost = sizer(value) if sizer is not None else 0
        if size is not None and cost > size:
            return             # larger than the whole bound: not kept
        while self and (len(self) >= self.entries or (size is not None and self.held + cost > size)):
            self.pop(next(iter(self)))
        dict.__setitem__(self, key, value)
        self.held += cost

    def pop(self, key, *default):
        if key in self:
            value = super().pop(key)
            if self.sizer is not None:
                self.held -= self.sizer(value)
            return value
        return super().pop(key, *default)

    def clear(self) -> None:
        super().clear()
        self.held = 0

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self.get(key, default)

    def update(self, *args, **kwargs) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value
