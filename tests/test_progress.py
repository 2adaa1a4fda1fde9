"""Progress of long stages: reported only to a listener (the command line on a terminal), the
bar appears only after a second, and nothing at all when quiet or not on a terminal."""
from __future__ import annotations

import io
import os
from pathlib import Path

from conftest import write

from cardgen.cli.terminal import DelayedBar, bar_factory
from cardgen.core.errors import Report
from cardgen.core.progress import listening
from cardgen.pipeline.build import BuildOptions, build_game


class Recorder:
    def __init__(self):
        self.stages = []

    def __call__(self, label, total):
        rec = self

        class Bar:
            def __init__(self):
                self.done, self.labels = 0, []
                rec.stages.append((label, total, self))

            def advance(self, steps=1, step=None):
                self.done += steps
                if step:
                    self.labels.append(step)

            def close(self):
                self.closed = True

        return Bar()


def test_build_reports_laying_out_every_card_and_writing_every_output(tmp_path):
    root = tmp_path / "g"
    write(root / "game.yaml", "title: G\n")
    write(root / "d.yaml", "deck: D\ntemplate: basic/card\ncards: [{name: A, count: 3}, {name: B}, {name: C}]\n")
    rec = Recorder()
    with listening(rec):
        build_game(root, root, BuildOptions(only=("print", "cards"), papers=("a4",)), Report())
    assert [(label, total) for label, total, _ in rec.stages] == [("laying out", 3), ("writing", 2)]
    assert all(bar.done == total and bar.closed for _, total, bar in rec.stages)
    assert rec.stages[1][2].labels == ["print", "cards"]
    build_game(root, root, BuildOptions(only=("cards",)), Report())     # nobody listening: nothing reported
    assert len(rec.stages) == 2


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_bars_only_on_a_terminal_and_not_when_quiet(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    assert bar_factory(False, io.StringIO()) is None
    assert bar_factory(True, Tty()) is None
    assert bar_factory(False, Tty()) is not None


def test_the_bar_appears_after_a_second():
    now = [0.0]
    out = Tty()
    bar = DelayedBar("laying out", 10, out, clock=lambda: now[0])
    bar.advance(3)
    now[0] = 0.5
    bar.advance(1)
    assert bar.bar is None and out.getvalue() == ""
    now[0] = 1.2
    bar.advance(1, "print")
    assert bar.bar is not None
    bar.close()
    assert "laying out print" in out.getvalue() and "50%" in out.getvalue()


def test_relative_to_is_relpath():
    """`core.errors.relative_to` (the summary's and the ledger's quick `relpath`) gives what
    `os.path.relpath` gives: inside the folder, the folder itself, a sibling whose name
    begins with the folder's, above it, and under the root folder."""
    from cardgen.core.errors import relative_to

    for full, root in [("/a/b/c.pdf", "/a/b"), ("/a/b/g/i/x.png", "/a/b"), ("/a/b", "/a/b"),
                       ("/a/bc/x.pdf", "/a/b"), ("/a/x.pdf", "/a/b"), ("/x/y.pdf", "/"), ("/", "/")]:
        full, root = os.path.abspath(full), os.path.abspath(root)
        assert relative_to(full, root) == os.path.relpath(full, root), (full, root)


def test_the_summary_names_each_file_by_its_place_in_the_output_folder(tmp_path, monkeypatch):
    """`terminal._inside` cuts a file's path from the folder's (no `relpath` for each of a few
    thousand files): the same parts as `relpath` gives, for paths given relative or absolute,
    a folder named with a trailing slash or `..`, and a file reached through a link."""
    from cardgen.cli.terminal import _inside

    out = tmp_path / "out"
    (out / "gallery" / "img").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (out / "cards.pdf").write_bytes(b"x")
    (out / "gallery" / "img" / "a.png").write_bytes(b"x")
    link = tmp_path / "link"
    link.symlink_to(out, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    files = [out / "cards.pdf", Path("out/gallery/img/a.png"), link / "cards.pdf", out / "x" / ".." / "cards.pdf"]
    for folder in (out, Path("out"), Path(str(out) + "/"), tmp_path / "elsewhere" / ".." / "out"):
        got = [rel for _, rel in _inside(files, folder)]
        assert got == [("cards.pdf",), ("gallery", "img", "a.png"), ("cards.pdf",), ("cards.pdf",)]
        assert [rel for _, rel in _inside(files[:2], folder)] == [
            tuple(os.path.relpath(os.path.abspath(f), os.path.abspath(folder)).split(os.sep)) for f in files[:2]]
