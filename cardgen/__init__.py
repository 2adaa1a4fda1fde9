"""cardgen: print-and-play card generator.

The pipeline, one sub-package a stage, plain typed data between them (each package imports
only from the ones above it; tests/test_imports.py holds it to that):

    core        diagnostics (file:line:col), units, sizes, atomic writes
    schema      one declaration per option (core.py) and the file declarations (files.py)
    model       plain data: games, decks, cards; drawing operations
    load        YAML with source locations; games, decks and projects
    resources   fonts, icons, rich text
    render      drawing operations -> PDF (ReportLab); sheet geometry; pypdfium2 rasterizing
    elements    template element types, one module each (plug-ins; registry ELEMENTS)
    layout      templates, sandboxed expressions, every card laid out once
    check       the validator's checks: references, field names, counts against the rules
    outputs     outputs, one module each (plug-ins; registry OUTPUTS)
    pipeline    check_game (shared by validate and build), build_game, JSON Schema, docs tables
    cli         the `cardgen` command

See docs/design.md.
"""
from __future__ import annotations

import sys as _sys

__all__ = ["__version__"]


def _the_command() -> bool:
    """Is this process the `cardgen` command starting (its console script, `python -m cardgen`)?"""
    name = (_sys.argv[0] if _sys.argv else "").replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name in ("cardgen", "cardgen.exe", "cardgen-script.py"):
        return True
    orig = list(getattr(_sys, "orig_argv", ()))
    return "-m" in orig and orig[orig.index("-m") + 1:orig.index("-m") + 2] == ["cardgen"]


def _interrupted(signum: int, frame: object) -> None:
    import os

    os.write(2, b"cardgen: interrupted\n")
    os._exit(130)


if _the_command():
    # Ctrl-C while the command is starting: said in one line, from the first line of cardgen's
    # code on (`cardgen.__main__` takes over once the command's modules are imported).
    import signal as _signal

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:     # (not if started ignoring it)
        _signal.signal(_signal.SIGINT, _interrupted)


def __getattr__(name: str) -> str:
    # (imported when asked for: importing `cardgen` imports nothing, so that Ctrl-C while
    # the command starts is handled from the first moment, `cardgen.__main__`)
    if name == "__version__":
        from cardgen.core.version import VERSION

        return VERSION
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
