"""The `cardgen` command's entry point: its console script (pyproject.toml) and `python -m
cardgen`.

Ctrl-C is one line, `cardgen: interrupted`, and exit status 130, from the first moment: while
Python imports the command's modules (a second or more on a slow disk or a cold start),
while it works, while it ends.  From the first line of `cardgen/__init__.py` (which imports
nothing else) a signal handler says it and ends the process; once the command's modules are
imported, `run` lets Ctrl-C be a KeyboardInterrupt again (a build removes its staging folder
on the way out, `--watch` stops watching) and says it when it arrives here.  (Before the
first line of cardgen runs, Python and the console script are still starting: a Ctrl-C then
ends the process as the signal does, or Python says it could not start.)"""
import os
import sys

INTERRUPTED = 130       # the shells' status for a command ended by Ctrl-C (128 + SIGINT)


def run() -> None:
    """The `cardgen` command (`cardgen.cli.main.run`), Ctrl-C said in one line."""
    try:
        # (the start-up handler of cardgen/__init__.py stays until click has read the command
        # line; `cli.main._Main.invoke` then makes Ctrl-C a KeyboardInterrupt again)
        from cardgen.core import imports
        from cardgen.core.imports import importing

        imports.COMMAND = True
        with importing():
            from cardgen.cli.main import run as command

        sys.unraisablehook = interrupt_again(sys.unraisablehook)
        command()
    except KeyboardInterrupt:
        interrupted()


def interrupt_again(hook):
    """`sys.unraisablehook` for the command: a Ctrl-C that arrived while a callback Python calls
    on its own ran (a module's import lock let go of, a finalizer) cannot be raised there; Python
    would print "Exception ignored in ..." with its traceback and drop it, and the command would
    go on.  It ends the command as `interrupted` does instead (a build's staging folder is then
    left for the next build to remove, as after a crash); anything else goes to `hook`."""
    def unraisable(u) -> None:
        if u.exc_type is not None and issubclass(u.exc_type, KeyboardInterrupt):
            interrupted()
        hook(u)
    return unraisable


def interrupted() -> None:
    """Say that the command was interrupted, and end it (status 130) at once: a build's
    staging was removed on the way here (`core.atomic`), and nothing is left to wait for."""
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)    # (a second Ctrl-C while saying so)
    except (ImportError, ValueError, OSError):
        pass
    for stream, text in ((sys.stdout, ""), (sys.stderr, "cardgen: interrupted\n")):
        try:
            if stream is not None:
                stream.write(text)
                stream.flush()
        except (OSError, ValueError):
            pass
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None:
        import contextlib

        # (the raster workers' semaphores, let go of as at a normal exit: else multiprocessing's
        # resource tracker, which outlives this process, says on stderr that they leaked)
        with contextlib.suppress(Exception):
            mp_util._run_finalizers(0)
    os._exit(INTERRUPTED)


if __name__ == "__main__":      # not again in a worker process (they start by importing the main module)
    run()
