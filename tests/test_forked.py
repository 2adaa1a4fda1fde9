"""Work done by a forked copy of the build process (`cardgen.core.forked`): what it returns
comes back whole, anything that goes wrong in it is None (the caller then does the work
itself), and the print sheets made that way are byte for byte those made in one process,
with each card form drawn once a build."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cardgen.core import forked
from cardgen.core.errors import Report
from cardgen.pipeline.build import BuildOptions, build_game

pytestmark = pytest.mark.skipif(not forked.available(), reason="no fork, or one core, here")
REPO = Path(__file__).resolve().parent.parent


def test_what_the_child_returns_comes_back_whole():
    parent = os.getpid()
    big = bytes(range(256)) * 40_000              # 10 MB: many times what a pipe holds at once
    done = forked.Forked(lambda: (os.getpid(), os.getppid(), big, {"k": [1, 2.5, "x"]})).result()
    assert done is not None
    pid, ppid, data, plain = done
    assert pid != parent and ppid == parent
    assert data == big and plain == {"k": [1, 2.5, "x"]}


def test_a_child_that_fails_or_dies_gives_none():
    def raises():
        raise ValueError("no")

    def dies():
        os.kill(os.getpid(), signal.SIGKILL)

    def unsendable():
        return object()             # marshal cannot send it

    for work in (raises, dies, unsendable, lambda: sys.exit(0)):
        assert forked.Forked(work).result() is None, work


def test_no_fork_while_another_thread_runs():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        ran: list[int] = []
        assert not forked.available()
        assert forked.Forked(lambda: ran.append(1) or 1).result() is None
    finally:
        stop.set()
        thread.join()
    assert forked.available()


def test_a_child_no_longer_wanted_is_stopped():
    child = forked.Forked(lambda: time.sleep(60))
    pid = child.pid
    assert pid is not None
    start = time.monotonic()
    child.cancel()
    assert time.monotonic() - start < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)             # reaped: no zombie left
    assert child.result() is None


def _game(root: Path, n: int) -> Path:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from synthetic import make_game
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return make_game(root / "forks", n)


def test_the_second_papers_sheets_come_from_a_fork_and_equal_those_made_here(tmp_path, monkeypatch):
    """The A4 sheets are made by a forked copy while this process makes the Letter sheets:
    the same bytes as when both are made here, each changed card drawn once (by the first
    paper; the copy replays it), and the copy's use of the form cache kept in its file."""
    from cardgen.render import formcache
    from cardgen.render.formcache import FormCache

    game = _game(tmp_path, 40)
    results: list[bool] = []
    real = forked.Forked.result

    def result(self):
        done = real(self)
        results.append(done is not None)
        return done

    monkeypatch.setattr(forked.Forked, "result", result)
    out, alone = tmp_path / "out", tmp_path / "alone"
    build_game(game, game, BuildOptions(out=out, only=("print",)), Report())
    assert results == [True]
    deck = game / "deck.yaml"
    deck.write_text(deck.read_text().replace("Card 0007", "Card 0007 edited"))
    formcache._open.clear()                     # (as a new process: counts from 0)
    build_game(game, game, BuildOptions(out=out, only=("print",)), Report())
    assert results == [True, True]
    cache = FormCache.of(out / "forks")
    drawn, reused = cache.drawn, cache.reused
    monkeypatch.setenv("CARDGEN_NO_FORK", "1")
    build_game(game, game, BuildOptions(out=alone, only=("print",)), Report())
    one = FormCache.of(alone / "forks")
    assert results == [True, True, False]                           # (no child)
    assert drawn == 1 and reused == one.drawn + one.reused - 1
    assert one.drawn == one.reused > 41          # 40 faces, a back and the icons: drawn for one paper, found for the other
    for name in ("print-letter.pdf", "print-a4.pdf"):
        assert (out / "forks" / name).read_bytes() == (alone / "forks" / name).read_bytes(), name
    assert len(cache.payload()) == one.drawn    # every form, the edited card's new one among them


def test_a_failed_fork_is_made_here_instead(tmp_path, monkeypatch):
    game = _game(tmp_path, 12)
    monkeypatch.setattr(forked.Forked, "result", lambda self: self.cancel())
    build_game(game, game, BuildOptions(out=tmp_path / "out", only=("print",)), Report())
    monkeypatch.setenv("CARDGEN_NO_FORK", "1")
    build_game(game, game, BuildOptions(out=tmp_path / "alone", only=("print",)), Report())
    for name in ("print-letter.pdf", "print-a4.pdf"):
        assert (tmp_path / "out" / "forks" / name).read_bytes() == (tmp_path / "alone" / "forks" / name).read_bytes()


def test_the_command_exits_with_its_code_and_all_its_output(tmp_path):
    """`cardgen` (`cli.main.run`) leaves without taking its objects apart, after the exit
    handlers and with everything it printed flushed, with the command's exit code."""
    game = _game(tmp_path, 12)
    env = {k: v for k, v in os.environ.items() if k != "CARDGEN_DEBUG"}
    done = subprocess.run([sys.executable, "-m", "cardgen", "build", str(game), "--out", str(tmp_path / "out"),
                           "--only", "print"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("forks: built in ")
    assert done.stdout.rstrip().splitlines()[-1].startswith("  print-letter.pdf ")
    assert (tmp_path / "out" / "forks" / "print-a4.pdf").read_bytes().endswith(b"%%EOF\n")
    (game / "deck.yaml").write_text("deck: [broken\n")
    done = subprocess.run([sys.executable, "-m", "cardgen", "validate", str(game)], capture_output=True, text=True,
                          env=env, cwd=tmp_path)
    assert done.returncode == 1 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0].startswith("forks/deck.yaml:1:7: error: invalid YAML: did not find expected ',' or ']'")
    assert lines[-1] == "forks: 1 error, 0 warnings"


def test_large_sheets_are_not_forked(tmp_path, monkeypatch):
    """Past `FORK_COPIES` copies on the sheets the papers are made one after the other (a
    forked copy of a very large build would add too much memory)."""
    from cardgen.outputs import print_sheets

    game = _game(tmp_path, 12)
    made: list[int] = []
    real = forked.Forked.__init__
    monkeypatch.setattr(forked.Forked, "__init__", lambda self, work: made.append(1) or real(self, work))
    monkeypatch.setattr(print_sheets, "FORK_COPIES", 11)
    build_game(game, game, BuildOptions(out=tmp_path / "big", only=("print",)), Report())
    assert made == []
    monkeypatch.setattr(print_sheets, "FORK_COPIES", 12)
    build_game(game, game, BuildOptions(out=tmp_path / "small", only=("print",)), Report())
    assert made == [1]
