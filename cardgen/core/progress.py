"""Progress of the long stages of a build (laying out cards, writing each output), reported to
whoever listens: the `cardgen` command shows a progress bar on a terminal; everyone else
(tests, the library, output to a file or pipe) sees nothing and pays nothing.

    with stage("laying out", len(cards)) as advance:
        for card in cards:
            ...
            advance()                      # or advance(1, "print-a4.pdf"): a new step label
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Protocol


class Bar(Protocol):
    def advance(self, steps: int, label: str | None) -> None: ...
    def close(self) -> None: ...


Advance = Callable[..., None]
# label, total steps -> a bar; installed by the command line (`listening`)
_factory: ContextVar[Callable[[str, int], Bar] | None] = ContextVar("cardgen_progress", default=None)


@contextlib.contextmanager
def listening(factory: Callable[[str, int], Bar] | None) -> Iterator[None]:
    """Report the stages run inside the block to `factory` (None: to nobody)."""
    token = _factory.set(factory)
    try:
        yield
    finally:
        _factory.reset(token)


def _nothing(steps: int = 1, label: str | None = None) -> None:
    return None


class _Quiet:
    def advance(self, steps: int = 1, label: str | None = None) -> None:
        return None

    def close(self) -> None:
        return None


def start(label: str, total: int) -> Bar:
    """A stage of `total` steps without a `with` block: call `.advance(1, None)` and `.close()`."""
    factory = _factory.get()
    return _Quiet() if factory is None or total <= 0 else factory(label, total)


@contextlib.contextmanager
def stage(label: str, total: int) -> Iterator[Advance]:
    """A stage of `total` steps; yields `advance(steps=1, label=None)`."""
    factory = _factory.get()
    if factory is None or total <= 0:
        yield _nothing
        return
    bar = factory(label, total)

    def advance(steps: int = 1, step_label: str | None = None) -> None:
        bar.advance(steps, step_label)

    try:
        yield advance
    finally:
        bar.close()
