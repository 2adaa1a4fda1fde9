"""Work done by a forked copy of this process on another core while this one goes on.

A build's outputs are made one after another; some of their parts are independent and read
only what the build has in memory (the two papers of the print sheets: the same card forms,
placed on other pages).  `Forked(work)` runs `work()` in a child made with `os.fork` (it
sees everything this process had, nothing is sent to it) and `result()` gives what it
returned, sent back through a pipe as `marshal` data.

It is an optimisation, never a requirement: `result()` is None whenever the child could not
be made or did not finish (no `fork` on this system, one core to run on, other threads in
this process: a preview server or a watch loop, which a fork would copy half-way through
whatever they hold; the work raised; the child was killed), and the caller then does the work
itself, getting any error in the usual way.  The child writes nothing but its pipe: it
leaves with `os._exit`, so no buffered output, `atexit` handler or temporary file of this
process is touched twice.
"""
from __future__ import annotations

import contextlib
import marshal
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Forked", "available"]


def available() -> bool:
    """Can work be forked here to some use: `os.fork` exists, this process runs no other
    thread, and it may run on more than one core."""
    if not hasattr(os, "fork") or threading.active_count() != 1 or os.environ.get("CARDGEN_NO_FORK"):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores > 1


class Forked:
    """`work()` run in a forked child; `result()` waits for what it returned (None: do it
    yourself).  `cancel()` (also on garbage collection) stops a child no longer wanted."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.pid: int | None = None
        self.fd: int | None = None
        if not available():
            return
        try:
            read, write = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:                    # the child
            code = 1
            try:
                os.close(read)
                data = marshal.dumps(work())
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                code = 0
            except BaseException:       # (the parent does the work again, and reports what went wrong)
                pass
            finally:
                os._exit(code)
        os.close(write)
        self.pid, self.fd = pid, read

    def result(self) -> Any | None:
        """What `work()` returned in the child, or None if it did not finish (or never began)."""
        if self.pid is None or self.fd is None:
            return None
        chunks = []
        try:
            with os.fdopen(self.fd, "rb") as pipe:
                self.fd = None
                while chunk := pipe.read(1 << 20):
                    chunks.append(chunk)
        except OSError:
            pass
        status = self._reap()
        if status != 0:
            return None
        try:
            return marshal.loads(b"".join(chunks))
        except (EOFError, ValueError, TypeError):
            return None

    def _reap(self) -> int | None:
        pid, self.pid = self.pid, None
        if pid is None:
            return None
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return None
        return os.waitstatus_to_exitcode(status)

    def cancel(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()

    def __del__(self) -> None:
        self.cancel()
