"""What cardgen needs at run time and ships inside the package: fonts (with their licences),
icons (with their attribution), the `basic/*` templates and the sheet layout presets
(`layouts/`), in `cardgen/data/`.

Found through `importlib.resources`, never relative to a source checkout, so an installed
wheel finds them exactly as a checkout does.  The folders mirror a project's: `fonts/`,
`art/icons/`, `templates/`, `layouts/`.
"""
from __future__ import annotations

import atexit
import contextlib
from importlib.resources import as_file, files
from pathlib import Path

_stack = contextlib.ExitStack()
atexit.register(_stack.close)


def _data_dir() -> Path:
    resource = files("cardgen") / "data"
    if isinstance(resource, Path):          # a regular installation or a checkout
        return resource
    return _stack.enter_context(as_file(resource))   # a zip: extracted for the session


DATA: Path = _data_dir()
