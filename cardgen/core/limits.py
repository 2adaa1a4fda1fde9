"""Limits on what one game may make cardgen do (docs/security.md lists them).

Each limit has a default that no real game comes near and may be raised with an environment
variable of the same name (`CARDGEN_MAX_TEXT=500000 cardgen build`), read when cardgen starts.
"""
from __future__ import annotations

import os


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    try:
        value = int(raw)
    except ValueError:
        return default
    return value if value > 0 else default


# Template expressions (cardgen.layout.expr), per evaluation of one value for one card.
MAX_TEXT = _env_int("CARDGEN_MAX_TEXT", 100_000)            # characters in any string an expression makes
MAX_ITEMS = _env_int("CARDGEN_MAX_ITEMS", 100_000)          # items in any list an expression makes
MAX_INT_DIGITS = _env_int("CARDGEN_MAX_INT_DIGITS", 1_000)  # decimal digits of any integer
MAX_RANGE = _env_int("CARDGEN_MAX_RANGE", 10_000)           # length of range(...)
MAX_STEPS = _env_int("CARDGEN_MAX_STEPS", 1_000_000)        # operations, calls and loop turns
MAX_LIPSUM = _env_int("CARDGEN_MAX_LIPSUM", 100)            # paragraphs of lipsum(...)

# The preview (cardgen.serve.server), answering on 127.0.0.1.
MAX_PREVIEW_CONNECTIONS = _env_int("CARDGEN_MAX_PREVIEW_CONNECTIONS", 32)   # connections open at once
MAX_PREVIEW_STREAMS = _env_int("CARDGEN_MAX_PREVIEW_STREAMS", 8)            # pages told of changes at once
MAX_PREVIEW_HEAD_SECONDS = _env_int("CARDGEN_MAX_PREVIEW_HEAD_SECONDS", 5)  # to send a request's head
MAX_PREVIEW_SEND_SECONDS = _env_int("CARDGEN_MAX_PREVIEW_SEND_SECONDS", 30)  # to take an answer

# YAML files (cardgen.load.yamlsrc), per file.
MAX_YAML_NODES = _env_int("CARDGEN_MAX_YAML_NODES", 1_000_000)   # values after expanding aliases
MAX_YAML_DEPTH = _env_int("CARDGEN_MAX_YAML_DEPTH", 100)         # nesting of mappings and lists

# Files.
MAX_FILE_BYTES = _env_int("CARDGEN_MAX_FILE_BYTES", 100_000_000)   # one data file read whole (YAML, CSV, font)
MAX_FOLDER_DEPTH = _env_int("CARDGEN_MAX_FOLDER_DEPTH", 32)         # folders inside folders of a game
MAX_SVG_BYTES = _env_int("CARDGEN_MAX_SVG_BYTES", 20_000_000)   # size of one SVG file (cardgen.core.paths)
MAX_COPIES = _env_int("CARDGEN_MAX_COPIES", 100_000)      # copies of all the cards of one game
MAX_CARD_OPS = _env_int("CARDGEN_MAX_CARD_OPS", 5_000)    # things drawn on one card side
MAX_IMAGE_PIXELS = _env_int("CARDGEN_MAX_IMAGE_PIXELS", 30_000_000)   # pixels of one raster image
MAX_HISTORY_BYTES = _env_int("CARDGEN_MAX_HISTORY_BYTES", 32_000_000)  # size of a game's cardgen-history.json

# Fetched sheets (cardgen.load.sheets), per fetch of one link, redirects included.
MAX_SHEET_BYTES = _env_int("CARDGEN_MAX_SHEET_BYTES", 20 * 1024 * 1024)     # size of the answer
MAX_FETCH_SECONDS = _env_int("CARDGEN_MAX_FETCH_SECONDS", 30)             # the whole fetch, every byte

# Spreadsheets (cardgen.load.sheets), per sheet: CSV, XLSX and ODS alike.
MAX_SHEET_ROWS = _env_int("CARDGEN_MAX_SHEET_ROWS", 50_000)           # rows
MAX_SHEET_COLUMNS = _env_int("CARDGEN_MAX_SHEET_COLUMNS", 1_000)      # columns
MAX_SHEET_CELLS = _env_int("CARDGEN_MAX_SHEET_CELLS", 2_000_000)      # cells in all
MAX_SHEET_TEXT = _env_int("CARDGEN_MAX_SHEET_TEXT", 20_000_000)       # characters of all its cells together
MAX_WORKBOOK_BYTES = _env_int("CARDGEN_MAX_WORKBOOK_BYTES", 200_000_000)   # a workbook's parts, unpacked
MAX_ZIP_RATIO = _env_int("CARDGEN_MAX_ZIP_RATIO", 200)                # unpacked / packed size of one part

# Fonts (cardgen.resources.fonts), per file.
MAX_FONT_GLYPHS = _env_int("CARDGEN_MAX_FONT_GLYPHS", 70_000)         # glyphs (the format allows 65,535)

NAMES = {
    "CARDGEN_MAX_TEXT": "characters in one string a template expression makes",
    "CARDGEN_MAX_ITEMS": "items in one list a template expression makes",
    "CARDGEN_MAX_INT_DIGITS": "decimal digits of one integer a template expression makes",
    "CARDGEN_MAX_RANGE": "length of `range(...)` in a template expression",
    "CARDGEN_MAX_STEPS": "operations, calls and loop turns of one template expression for one card",
    "CARDGEN_MAX_LIPSUM": "paragraphs of `lipsum(...)`",
    "CARDGEN_MAX_PREVIEW_CONNECTIONS": "connections the preview holds open at once",
    "CARDGEN_MAX_PREVIEW_STREAMS": "pages the preview tells about changes at once (server-sent event streams)",
    "CARDGEN_MAX_PREVIEW_HEAD_SECONDS": "seconds a connection to the preview has to send its request",
    "CARDGEN_MAX_PREVIEW_SEND_SECONDS": "seconds a connection to the preview has to take one answer",
    "CARDGEN_MAX_YAML_NODES": "values in one YAML file once aliases (`*name`) are expanded",
    "CARDGEN_MAX_YAML_DEPTH": "nesting depth of mappings and lists in one YAML file",
    "CARDGEN_MAX_FILE_BYTES": "size of one data file cardgen reads whole: YAML, CSV, font",
    "CARDGEN_MAX_FOLDER_DEPTH": "folders inside folders of a game folder",
    "CARDGEN_MAX_SHEET_ROWS": "rows of one spreadsheet (CSV, XLSX or ODS sheet)",
    "CARDGEN_MAX_SHEET_COLUMNS": "columns of one spreadsheet",
    "CARDGEN_MAX_SHEET_CELLS": "cells of one spreadsheet",
    "CARDGEN_MAX_SHEET_TEXT": "characters in all the cells of one spreadsheet together",
    "CARDGEN_MAX_WORKBOOK_BYTES": "unpacked size of one XLSX or ODS workbook's parts",
    "CARDGEN_MAX_ZIP_RATIO": "unpacked size of one part of a workbook divided by its packed size",
    "CARDGEN_MAX_FONT_GLYPHS": "glyphs of one font file",
    "CARDGEN_MAX_SVG_BYTES": "size of one SVG file in bytes",
    "CARDGEN_MAX_COPIES": "copies of all the cards of one game together",
    "CARDGEN_MAX_CARD_OPS": "things drawn on one card side: shapes, icons, images and lines of text",
    "CARDGEN_MAX_IMAGE_PIXELS": "pixels (width x height) of one PNG or JPEG image, embedded ones included",
    "CARDGEN_MAX_SHEET_BYTES": "bytes of one fetched sheet (a deck's `cards: {url: ...}`)",
    "CARDGEN_MAX_FETCH_SECONDS": "seconds for fetching one sheet link, redirects and every byte included",
    "CARDGEN_MAX_HISTORY_BYTES": "size in bytes of a game's history file (`cardgen-history.json`: card revisions)",
}
