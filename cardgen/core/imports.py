"""Importing many modules at once without Python's cyclic garbage collector running through
them (`importing()`).

Importing a command's modules allocates a few hundred thousand objects (functions, classes,
dataclasses' generated methods, compiled patterns), nearly none of them garbage, and Python
runs a collection every 700 new objects: about a tenth of a small game's `cardgen validate`
went on collections that found nothing.  Within `importing()` no collection runs; at its
end, when modules were imported, what exists is moved to the collector's permanent
generation (`gc.freeze`: modules live as long as the process), so later collections, a big
build's included, do not walk through them again.  Only an import block is covered: the
collector runs as usual while cardgen works, and a block that imports nothing new (a second
build in `--watch`) freezes nothing.

A build freezes what exists once its game is laid out and checked (`hold`): the game lives
until the build ends, and the outputs' full collections then do not walk through it again
(a one-card edit of every output at 2,000 cards: four full collections, about 0.1 s).
`building()` gives it back to the collector when the build ends (`gc.unfreeze`, with what
the imports froze), so that a process that goes on (`--watch`, `serve`, several games, the
tests) collects each build's garbage."""
from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_freezes = 0        # how many times this module froze what exists (`gc.get_freeze_count` walks them all)
# True in the `cardgen` command's own process (`cardgen.__main__.run`), not in a program or test
# that builds in its own process: the raster workers' fork server may be forked from it
# (`render.raster._fork_server`).
COMMAND = False


def _freeze() -> None:
    global _freezes
    gc.freeze()
    _freezes += 1


@contextmanager
def importing(freeze: bool = True) -> Iterator[None]:
    """No cyclic garbage collection while the block runs (its imports); then, if it imported
    a module, the objects that exist are frozen (`gc.freeze`).  `freeze` False: for an import
    made while a game is loaded (a plug-in's module, one an output imports in `make()`), whose
    objects, if frozen, would never be collected when they become garbage."""
    was = gc.isenabled()
    before = len(sys.modules)
    gc.disable()
    try:
        from cardgen.core.dataclassfns import quick_methods  # (and `dataclasses`, `inspect`: in the block)

        with quick_methods():
            yield
    finally:
        if freeze and len(sys.modules) > before:
            _freeze()
        if was:
            gc.enable()


def hold() -> None:
    """What exists now lives until the build ends (within `building()`): frozen."""
    _freeze()


@contextmanager
def building() -> Iterator[None]:
    """A build: what was frozen while it ran (`hold`, `importing`) is unfrozen at its end."""
    before = _freezes
    try:
        yield
    finally:
        if _freezes > before:
            gc.unfreeze()
