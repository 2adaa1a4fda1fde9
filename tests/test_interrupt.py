"""Ctrl-C, as a user presses it: while `cardgen` is still starting (importing its modules), while
it parses its flags, while it builds.  Always one line, `cardgen: interrupted`, and exit
status 130; never a traceback, never click's "Aborted!"; the previous output unchanged."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

import pytest

from cardgen.render import raster

REPO = Path(__file__).resolve().parent.parent

# Makes the import of one module (SLOW_IMPORT; in a process whose command line has SLOW_IN,
# or for SLOW_IN "forkserver", a process forked from the one this started in: the fork server
# `raster._fork_server` makes) wait, after touching SLOW_MARKER: the test presses Ctrl-C then,
# at exactly that point.
SITECUSTOMIZE = textwrap.dedent("""
    import os, sys, time

    STARTED = os.getpid()

    class Slow:
        def find_spec(self, name, path=None, target=None):
            where = os.environ.get("SLOW_IN", "")
            if name == os.environ.get("SLOW_IMPORT") and (
                    where in " ".join(sys.orig_argv) or (where == "forkserver" and os.getpid() != STARTED)):
                open(os.environ["SLOW_MARKER"], "w").close()
                time.sleep(float(os.environ.get("SLOW_FOR", "60")))
            return None

    sys.meta_path.insert(0, Slow())
""")

# the console script pip writes for `[project.scripts] cardgen = "<module>:<function>"`
SCRIPT = "import re, sys\nfrom {module} import {function}\nsys.exit({function}())\n"


def console_script(tmp_path: Path) -> str:
    """The `cardgen` script as pip writes it for pyproject.toml's entry point."""
    entry = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]["cardgen"]
    module, function = entry.split(":")
    script = tmp_path / "bin" / "cardgen"
    script.parent.mkdir(exist_ok=True)
    script.write_text(SCRIPT.format(module=module, function=function))
    return str(script)


def interrupt_at(tmp_path: Path, module: str, *args: str, group: bool = False, where: str = ""
                 ) -> subprocess.CompletedProcess:
    """Run the command, and press Ctrl-C while `module` is imported (`group`: to the command's
    whole process group, as a terminal sends it, its worker processes too)."""
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    marker = tmp_path / f"marker-{module}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hook), str(REPO)]), SLOW_IMPORT=module,
               SLOW_MARKER=str(marker), SLOW_IN=where,
               SLOW_FOR="3" if where else "60")
    proc = subprocess.Popen([sys.executable, console_script(tmp_path), *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=group)
    deadline = time.monotonic() + 120
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists(), proc.communicate()
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("module", [
    "cardgen.cli.main",          # the first of cardgen's modules the command imports
    "click",                     # a library, while cardgen.cli.main is imported
    "cardgen.outputs",           # while click reads `build`'s flags (declared by the outputs)
    "reportlab.pdfgen",          # while a game is built
])
def test_ctrl_c_while_starting_or_building_is_one_line_and_status_130(tiny_game, tmp_path, module):
    root = tiny_game()
    out = tmp_path / "out"
    done = interrupt_at(tmp_path, module, "build", str(root), "--out", str(out), "--page", "a4", "--only", "print")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "cardgen: interrupted\n"
    assert done.stdout == ""
    assert not out.exists() or not any((out / "tiny").glob("*.pdf"))


def test_ctrl_c_from_the_terminal_reaches_the_workers_too_and_still_one_line(tiny_game, tmp_path):
    """The terminal sends Ctrl-C to every process of the command: the raster workers' fork
    server, still importing what it preloads, takes no notice (the build ends them)."""
    # enough distinct cards that the build waits for its workers (a build of 3 cards may end
    # before the fork server, started in the background, has come to importing PDFium)
    root = tiny_game("cards:\n" + "".join(f"  - {{name: Card {i}}}\n" for i in range(3 * raster.SMALL_JOB)))
    out = tmp_path / "out"
    done = interrupt_at(tmp_path, "pypdfium2", "build", str(root), "--out", str(out), "--only", "tts", group=True,
                        where="forkserver")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "cardgen: interrupted\n"
    assert not (out / "tiny" / "tts").exists()



def test_ctrl_c_where_python_cannot_raise_it_still_ends_the_command_in_one_line(tmp_path):
    """A KeyboardInterrupt in a callback Python runs on its own (here a weak reference's; in a
    build, the one that lets go of a module's import lock) is not dropped with "Exception
    ignored in ...": the command ends, one line, status 130 (`__main__.interrupt_again`)."""
    script = tmp_path / "unraisable.py"
    script.write_text(
        "import sys, time, weakref\n"
        "from cardgen.__main__ import interrupt_again\n"
        "sys.unraisablehook = interrupt_again(sys.unraisablehook)\n"
        "class Thing: pass\n"
        "def callback(_): raise KeyboardInterrupt\n"
        "thing = Thing(); ref = weakref.ref(thing, callback); del thing\n"
        "time.sleep(0.05)\n"
        "print('went on')\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "cardgen: interrupted\n")


def test_ctrl_c_from_the_terminal_while_the_workers_make_the_sheets_is_one_line(tiny_game, tmp_path):
    """Ctrl-C to the whole command while a worker starts on its first deck sheet (it imports
    `render.mosaic` then): the pool and its semaphores are let go of, so multiprocessing's
    resource tracker, which outlives the build, says nothing of them."""
    root = tiny_game("cards:\n" + "".join(f"  - {{name: Card {i}}}\n" for i in range(3 * raster.SMALL_JOB)))
    out = tmp_path / "out"
    done = interrupt_at(tmp_path, "cardgen.render.mosaic", "build", str(root), "--out", str(out), "--only", "tts",
                        group=True, where="forkserver")
    assert done.returncode == 130, done.stderr
    assert done.stderr == "cardgen: interrupted\n"          # (the tracker writes to the same stderr, read to its end)
    assert not (out / "tiny" / "tts").exists()

# Ctrl-C while Python runs the console script's first lines (`import re, sys`) and looks for
# the `cardgen` package, or runs the first lines of cardgen/__init__.py before it sets its
# handler (a few milliseconds; no code of cardgen's can handle it): Python's own traceback,
# none of its frames in cardgen's code past that.  Or while Python, in C, readies the script's
# run (its `sys.path`): no frame at all, so it says only the exception's name (and exits 1,
# `pymain_exit_err_print`; seen once, at 0.02 s, while another test suite ran).
def before_cardgen(err: str) -> bool:
    frames = re.findall(r'^  File "([^"]+)", line \d+', err, re.M)
    first, ours = str(REPO / "cardgen" / "__init__.py"), str(REPO / "cardgen") + os.sep
    err = err.removeprefix("Failed checking if argv[0] is an import path entry\n")    # (Python's own start)
    if err == "KeyboardInterrupt\n":
        return True
    return (err.startswith("Traceback (most recent call last):\n") and err.endswith("KeyboardInterrupt\n")
            and bool(frames) and all(f == first or not f.startswith(ours) for f in frames))


def test_ctrl_c_at_any_moment_never_shows_a_traceback(tiny_game, tmp_path):
    """Without a hook: Ctrl-C at moments spread over a whole run of the command.  Before Python
    runs any code the signal ends it silently (-SIGINT), and while Python sets itself up (its
    `site` module, before the console script's first line) Python says so itself; after the
    build, nothing is left to interrupt (0)."""
    root = tiny_game()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    seen = set()
    for delay in (0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2):
        proc = subprocess.Popen([sys.executable, console_script(tmp_path), "build", str(root), "--out",
                                 str(tmp_path / "out"), "--page", "a4", "--only", "print"], cwd=tmp_path, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        if err.startswith("Fatal Python error: init_"):
            assert str(REPO / "cardgen") not in err     # Python's own start-up: no code of cardgen's had run
            continue
        if before_cardgen(err):
            continue
        assert "Traceback" not in err and "Aborted" not in err, (delay, err)
        assert proc.returncode in (130, -signal.SIGINT, 0), (delay, proc.returncode, err)
        if proc.returncode == 130:
            assert err.endswith("cardgen: interrupted\n") and err.count("\n") == 1, (delay, err)
        elif proc.returncode == -signal.SIGINT:      # before Python ran anything, or as it ended after the build
            assert err == "" and (out == "" or out.startswith("tiny: built in "))
        seen.add(proc.returncode)
    assert 130 in seen


def test_the_console_script_is_the_guarded_entry_point():
    from cardgen.__main__ import run

    entry = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]["cardgen"]
    assert entry == "cardgen.__main__:run" and callable(run)
    # nothing of cardgen's or of a library is imported before `run` starts
    code = ("import sys\nbefore = set(sys.modules)\nimport cardgen.__main__\n"
            "print(sorted(m for m in set(sys.modules) - before))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['cardgen', 'cardgen.__main__']"
