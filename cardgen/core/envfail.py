"""Problems of the computer, not of the game: a full disk, a read-only or forbidden folder,
an output path that is a file.  Said in one line that names the path, the cause and what to
do, e.g. `build/g/tts: cannot write: No space left on device (free some disk space and build
again)`; never as "internal error"."""
from __future__ import annotations

import errno
import os
from pathlib import Path

from cardgen.core.errors import display_path

_HINTS = {
    errno.ENOSPC: "free some disk space and build again",
    errno.EDQUOT: "free some disk space (your quota is used up) and build again",
    errno.EROFS: "the disk is read-only: build somewhere else with --out",
    errno.EACCES: "check the folder's permissions, or build somewhere else with --out",
    errno.EPERM: "check the folder's permissions, or build somewhere else with --out",
    errno.ENOTDIR: "a file is in the way of a folder cardgen needs: move or rename it",
    errno.EEXIST: "a file is in the way of a folder cardgen needs: move or rename it",
    errno.EISDIR: "a folder is in the way of a file cardgen writes: move or rename it",
    errno.ENAMETOOLONG: "use a shorter name or a shorter --out path",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) and build again",
    errno.EIO: "the disk reported an input/output error: check it and build again",
}


class OutputProblem(OSError):
    """An OSError while writing outputs, carrying the path the user knows (not a staging path)."""

    def __init__(self, path: os.PathLike | str, cause: OSError, action: str = "cannot write"):
        super().__init__(cause.errno, cause.strerror or str(cause), str(path))
        self.path = Path(path)
        self.cause = cause
        self.action = action


def describe(exc: OSError, action: str = "cannot write") -> str:
    """One line for an OSError: `path: cannot write: cause (what to do)`."""
    if isinstance(exc, OutputProblem):
        path: str | os.PathLike | None = exc.path
        action = exc.action
        exc = exc.cause
    else:
        path = exc.filename
    cause = exc.strerror or str(exc) or type(exc).__name__
    hint = _HINTS.get(exc.errno or 0)
    where = display_path(path) if path else "cardgen"
    return f"{where}: {action}: {cause}" + (f" ({hint})" if hint else "")


def is_environment(exc: BaseException) -> bool:
    """An OSError that is about the computer (disk, permissions, names), not a cardgen bug."""
    return isinstance(exc, OSError) and (isinstance(exc, OutputProblem) or exc.errno in _HINTS
                                         or exc.filename is not None)
