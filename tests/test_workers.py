"""Raster worker processes: forked from a fork server that imported what they need (they
hold only that and what they are sent, not a copy of the build process), fed bounded parts
of the card sides, and their bitmaps match an in-process rasterization pixel for pixel."""
from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

import pytest

from cardgen.core.data import DATA
from cardgen.core.units import MM
from cardgen.model import ops
from cardgen.render import raster

FONTS = [DATA / "fonts"]
pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="worker processes need two cores")



def probe() -> tuple[int, int, bool, bool, int]:
    """Run in a worker: its pid, its parent's, whether it has the modules the build process
    has, whether it found PDFium's module imported, and how many freed image blocks its
    Pillow keeps for reuse."""
    from PIL import Image

    return (os.getpid(), os.getppid(), "cardgen.pipeline.build" in sys.modules, "pypdfium2" in sys.modules,
            Image.core.get_blocks_max())


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_workers_come_from_a_fork_server_not_the_build_process():
    import cardgen.pipeline.build  # noqa: F401  (the build process has it; a worker does not)

    with raster.Pool() as pool:
        out = pool.map([("call", (probe, ())) for _ in range(4)])
    pids, parents = {o[0] for o in out}, {o[1] for o in out}
    assert os.getpid() not in pids
    assert not any(o[2] for o in out)
    assert parents != {os.getpid()} and len(parents) == 1      # all forked by the one fork server
    assert all(o[3] for o in out)                              # which imported PDFium for them, once
    # a worker's Pillow keeps freed blocks (a deck sheet's memory reused by the next); this process's does not
    from PIL import Image

    assert {o[4] for o in out} == {raster.WORKER_BLOCKS} and Image.core.get_blocks_max() == 0


def _layout(i: int) -> ops.CardLayout:
    w, h = 63.5 * MM, 88.9 * MM
    shade = (i * 7 % 256) / 255
    return ops.CardLayout(w, h, 9.0, [ops.Rect(-9.0, -9.0, w + 18, h + 18, fill=(shade, 0.2, 0.4, 1.0)),
                                      ops.Rect(10 * MM, 10 * MM, 5 * MM, 5 * MM, fill=(0.0, 1.0, 0.0, 1.0))],
                          f"w/{i}")


def test_parts_are_bounded_and_the_bitmaps_match_in_process(tmp_path, monkeypatch):
    sizes: list[int] = []
    chunks = raster._chunks

    def spy(items, n):
        out = chunks(items, n)
        sizes.extend(len(c) for c in out)
        return out

    monkeypatch.setattr(raster, "_chunks", spy)
    spec = raster.Spec(100, 140)
    requests = [(_layout(i), spec) for i in range(40)]
    with raster.Pool() as pool:
        paths = raster.rasterize(requests, raster.Cache(tmp_path / "a"), FONTS, pool)
    assert sum(sizes) == 40 and max(sizes) <= raster.CHUNK and len(sizes) >= 2
    here = raster.rasterize(requests, raster.Cache(tmp_path / "b"), FONTS)    # no pool: this process
    assert len(set(paths)) == 40
    for a, b in zip(paths, here):
        assert raster.open_image(a).tobytes() == raster.open_image(b).tobytes()


def test_without_a_fork_server_workers_are_spawned(monkeypatch):
    """A fork server that cannot start (it needs a socket in the temporary folder) is no
    error: the workers are spawned instead, still fresh."""
    from multiprocessing import forkserver

    def refuse():
        raise PermissionError(13, "Permission denied", "/tmp/pymp-x")

    monkeypatch.setattr(forkserver, "ensure_running", refuse)
    monkeypatch.setattr(raster, "_forkserver_failed", False)
    import cardgen.pipeline.build  # noqa: F401

    assert raster.start_early() is False
    with raster.Pool() as pool:
        out = pool.map([("call", (probe, ())) for _ in range(4)])
    assert {o[1] for o in out} == {os.getpid()}                 # our own children: spawned
    assert not any(o[2] for o in out)


# Records, in the process that imports PDFium (the fork server, preloading it), its pid, its
# parent's, whether the build's modules are there, and the files it has open.  (Not where
# PDFium's files are only looked for, unimported: the build process's code version.)
PROBE_HOOK = """
import json, os, sys

class Probe:
    def find_spec(self, name, path=None, target=None):
        if name == "pypdfium2" and sys._getframe(2).f_code.co_name == "_find_and_load_unlocked":
            fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
            with open(os.environ["PROBE_OUT"], "a") as out:
                out.write(json.dumps([os.getpid(), os.getppid(), "cardgen.pipeline.build" in sys.modules, fds]) + "\\n")
        return None

sys.meta_path.insert(0, Probe())
"""


@pytest.mark.skipif(sys.platform != "linux" or sys.version_info >= (3, 14), reason="the fork server is forked on Linux")
def test_the_commands_fork_server_is_forked_from_it_and_holds_none_of_its_files(tiny_game, tmp_path):
    """`cardgen build` forks the fork server from itself before it reads the cards
    (`raster._fork_server`): the server imports only what the build process lacks (PDFium),
    keeps none of the build's files open (not the output folder's lock: a second build would
    wait for it), and its workers make the same deck sheets as workers of a fork server
    started as a new interpreter (in this process, which is not the command)."""
    import json
    import subprocess

    from cardgen.core.errors import Report
    from cardgen.pipeline.build import BuildOptions, build_game

    root = tiny_game("cards:\n" + "".join(f"  - {{name: Card {i}, color: '#{i:02x}4080'}}\n"
                                           for i in range(3 * raster.SMALL_JOB)))
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(PROBE_HOOK)
    probe_out = tmp_path / "probe.jsonl"
    repo = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hook), str(repo)]), PROBE_OUT=str(probe_out))
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "build", str(root), "--out", str(tmp_path / "cli"),
                             "--only", "tts", "--quiet"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    (pid, parent, has_build, fds), = [json.loads(line) for line in probe_out.read_text().splitlines()]
    assert parent == proc.pid and pid != proc.pid and has_build
    assert len(fds) <= 3 + 2 + 1             # stdin, out, err; its socket and the pipe that tells it to end; listdir's
    build_game(root, repo, BuildOptions(only=("tts",), out=tmp_path / "here"), Report())
    cli = sorted((tmp_path / "cli" / "tiny" / "tts").glob("*.jpg"))
    here = sorted((tmp_path / "here" / "tiny" / "tts").glob("*.jpg"))
    assert len(cli) == 3 and [p.name for p in cli] == [p.name for p in here]      # two sheets of faces, the back
    assert [p.read_bytes() for p in cli] == [p.read_bytes() for p in here]
