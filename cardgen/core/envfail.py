"""Problems of the computer, not of the game: a full disk, a read-only or forbidden folder,
an output path that is a file, a game folder cardgen may not read.  Said in one line that
names the path, what cardgen was doing (writing or reading) and the cause and what to do,
e.g. `build/g/tts/g.json: cannot write: No space left on device (free some disk space and
build again)`; never as "internal error", never without the path.

Every write of cardgen goes through `core.atomic`, which gives each failure the path the
user knows (`OutputProblem`), also from a worker process; an error that still has no path
(or a path inside the output folder) is said at the output folder (`at_output`)."""
from __future__ import annotations

import errno
import os
from pathlib import Path

from cardgen.core.errors import display_path

# errors only a write can meet: whatever the path, it was being written
WRITE_ONLY = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG}

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
    errno.EFBIG: "the file is larger than this disk or your limits allow (ulimit -f): build somewhere else with --out",
}

_READ_HINTS = {
    errno.EACCES: "check the permissions of the file or folder (cardgen needs to read it)",
    errno.EPERM: "check the permissions of the file or folder (cardgen needs to read it)",
    errno.ENOTDIR: "a file is where a folder is expected",
    errno.EISDIR: "a folder is where a file is expected",
    errno.ENAMETOOLONG: "use a shorter name",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) and build again",
    errno.EIO: "the disk reported an input/output error: check it and build again",
    errno.ELOOP: "a link points at itself, or there are too many links in the path",
}


class WorkerLost(RuntimeError):
    """A worker process (rasterizing card sides) ended in the middle of its work: killed (the
    system ending it when memory runs out, a user's `kill`) or crashed.  Said in one line;
    the build is not committed, so the previous output is unchanged.  Without this a pool
    whose worker died waited for its lost work for ever."""

    def __init__(self, pid: int | None, exitcode: int | None):
        import signal

        if exitcode is not None and exitcode < 0:
            try:
                name = signal.Signals(-exitcode).name
            except ValueError:
                name = f"signal {-exitcode}"
            how = f"killed by {name}" + (": the computer may have run out of memory" if name == "SIGKILL" else "")
        else:
            how = f"exit status {exitcode}"
        super().__init__(f"cardgen: a worker process (pid {pid}) ended in the middle of its work ({how}); "
                         f"build again, with fewer other programs running if it happens again")
        self.pid, self.exitcode = pid, exitcode

    def __reduce__(self):
        return WorkerLost, (self.pid, self.exitcode)


class OutputProblem(OSError):
    """An OSError while writing outputs, carrying the path the user knows (not a staging path)."""

    def __init__(self, path: os.PathLike | str, cause: OSError, action: str = "cannot write",
                 committed: bool = False):
        super().__init__(cause.errno, cause.strerror or str(cause), str(path))
        self.path = Path(path)
        self.cause = cause
        self.action = action
        self.committed = committed      # the new output was committed: the next build completes it

    def __reduce__(self):               # (raised in a worker process, re-raised in the build's)
        return OutputProblem, (str(self.path), OSError(self.cause.errno, self.cause.strerror, self.cause.filename),
                               self.action, self.committed)


def at_output(exc: OSError, out_dir: os.PathLike | str) -> OSError:
    """An OSError met while building into `out_dir`, said where the user can look: one
    without a path that only a write meets (a full disk) is said at the output folder."""
    if isinstance(exc, OutputProblem) or exc.filename is not None or exc.errno not in WRITE_ONLY:
        return exc
    return OutputProblem(os.path.abspath(out_dir), exc)


OUT_OF_MEMORY = ("cardgen: ran out of memory (the computer's, or a limit set for it: ulimit -v); close other "
                 "programs or raise the limit, and run cardgen again")


def describe(exc: OSError | WorkerLost | MemoryError, action: str | None = None) -> str:
    """One line for an OSError: `path: cannot write: cause (what to do)`.  The action: the
    one an `OutputProblem` carries, else `action`, else "cannot write" for what only a write
    meets (a full disk, a read-only disk) and "cannot read" for the rest (a folder cardgen
    may not read is never said to be one it cannot write).  A lost worker, or memory run
    out: what happened and what to do."""
    if isinstance(exc, WorkerLost):
        return str(exc)
    if isinstance(exc, MemoryError):
        return OUT_OF_MEMORY
    if isinstance(exc, OutputProblem):
        path: str | os.PathLike | None = exc.path
        action = exc.action
        exc = exc.cause
    else:
        path = exc.filename
    if action is None:
        action = "cannot write" if exc.errno in WRITE_ONLY else "cannot read"
    cause = exc.strerror or str(exc) or type(exc).__name__
    hint = (_READ_HINTS if action == "cannot read" else _HINTS).get(exc.errno or 0)
    where = display_path(path) if path else "cardgen"
    return f"{where}: {action}: {cause}" + (f" ({hint})" if hint else "")


def is_environment(exc: BaseException) -> bool:
    """An OSError that is about the computer (disk, permissions, names), a worker process
    lost (`WorkerLost`) or memory run out, not a cardgen bug."""
    if isinstance(exc, (WorkerLost, MemoryError)):
        return True
    return isinstance(exc, OSError) and (isinstance(exc, OutputProblem) or exc.errno in _HINTS
                                         or exc.filename is not None)
