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
from cardgen.core.version import VERSION as __version__

__all__ = ["__version__"]
