"""What cardgen needs at run time and ships inside the package: fonts (with their licences),
icons (with their attribution), the `basic/*` templates and the sheet layout presets
(`layouts/`), in `cardgen/data/`.

Found where the package is (what `importlib.resources` gives for a package in a folder: an
installed wheel finds them exactly as a checkout does), else through `importlib.resources` (a
package in a zip: extracted for the session).  The folders mirror a project's: `fonts/`,
`art/icons/`, `templates/`, `layouts/`.
"""
from __future__ import annotations

from pathlib import Path


def _data_dir() -> Path:
    here = Path(__file__).parent.parent / "data"     # (cardgen/core/data.py -> cardgen/data)
    if here.is_dir():       # a regular installation or a checkout
        return here
    # (importlib.resources imports tempfile, shutil and zipfile: 5 ms of `cardgen validate`)
    import atexit
    import contextlib
    from importlib.resources import as_file, files

    resource = files("cardgen") / "data"
    if isinstance(resource, Path):
        return resource
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    return stack.enter_context(as_file(resource))   # a zip: extracted for the session


DATA: Path = _data_dir()
