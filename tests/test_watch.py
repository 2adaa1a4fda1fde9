"""`cardgen build --watch`: what changed is noticed, and only that triggers a rebuild."""
from __future__ import annotations

import shutil
import threading
import time

from cardgen.pipeline import watch as w
from cardgen.resources.icons import load_svg


class Watcher:
    """`watch()` running in a thread on a temporary folder, stopped at the end."""

    def __init__(self, roots, ignore=()):
        self.calls: list[list] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=w.watch, args=(lambda: roots, self.calls.append),
                                       kwargs={"ignore": ignore, "stop": self.stop, "debounce": 0.1, "recheck": 0.3})

    def __enter__(self):
        self.thread.start()
        time.sleep(0.4)                 # the watcher is set up
        return self

    def wait_for(self, n: int, timeout: float = 5.0) -> list[list]:
        end = time.monotonic() + timeout
        while len(self.calls) < n and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)                 # and nothing more comes
        return self.calls

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(5)
        assert not self.thread.is_alive()


def test_fires_under_a_folder_named_build_but_not_in_the_output_folder(tmp_path):
    game = tmp_path / "build" / "work" / "build" / "g"      # every folder above named build
    game.mkdir(parents=True)
    (game / "deck.yaml").write_text("a")
    out = game / "build"
    out.mkdir()
    with Watcher([game], ignore=[out]) as watcher:
        (out / "print-a4.pdf").write_text("pdf")            # the build's own output: not a change
        time.sleep(0.6)
        assert watcher.calls == []
        (game / "deck.yaml").write_text("count: 12\n")
        assert watcher.wait_for(1) == [[(game / "deck.yaml").resolve()]]


def test_survives_folders_appearing_and_disappearing(tmp_path):
    game = tmp_path / "g"
    game.mkdir()
    shared = tmp_path / "templates"                         # not there when watching starts
    with Watcher([game, shared]) as watcher:
        shared.mkdir()
        assert watcher.wait_for(1)[0] == [shared.resolve()]
        (shared / "face.yaml").write_text("elements: []\n")
        assert watcher.wait_for(2)[1] == [(shared / "face.yaml").resolve()]
        shutil.rmtree(shared)
        n = len(watcher.wait_for(3))
        (game / "sub").mkdir()                              # still watching the game
        (game / "sub" / "deck.yaml").write_text("a")
        calls = watcher.wait_for(n + 1)
        assert calls[n] and all(game.resolve() in p.parents for p in calls[n])    # the game is rebuilt
        (game / "sub" / "deck.yaml").write_text("b")        # and the new folder is watched
        assert watcher.wait_for(n + 2)[-1] == [(game / "sub" / "deck.yaml").resolve()]


def test_caches_notice_an_edited_svg(tmp_path):
    svg = tmp_path / "i.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    first = load_svg(svg).width
    time.sleep(0.01)
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"/>')
    assert load_svg(svg).width == 2 * first


def test_a_builds_own_staging_commit_record_and_temporary_files_never_count(tmp_path):
    """What a build writes beside its output folder (inside a game folder, for a game of its
    own) and cardgen's temporary files are not changes; a file whose name begins like the
    output folder's is one."""
    game = tmp_path / "g"
    game.mkdir()
    (game / "deck.yaml").write_text("a")
    out = game / "build"
    out.mkdir()
    with Watcher([game], ignore=[out]) as watcher:
        stage = game / ".build.cardgen-new"
        (stage / "tts").mkdir(parents=True)
        (stage / "print-a4.pdf").write_text("pdf")
        (stage / "tts" / "g.json").write_text("{}")
        (game / ".build.cardgen-commit").write_text("{}")
        (game / ".build.cardgen-commit.x1y2.tmp").write_text("{}")
        (game / ".build.cardgen-old").mkdir()
        (out / ".cardgen").mkdir()
        (out / ".cardgen" / "state.json").write_text("{}")
        shutil.rmtree(stage)
        time.sleep(0.8)
        assert watcher.calls == []
        (game / "buildings.yaml").write_text("deck: Buildings\n")
        assert watcher.wait_for(1) == [[(game / "buildings.yaml").resolve()]]


def test_watch_rebuilds_once_per_edit(tiny_game):
    """`cardgen build --watch` on a game of its own (its output and staging inside the game
    folder): one edit, one rebuild, its warning said once; nothing after it."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    root = tiny_game("cards:\n  - {name: Alpha, colr: '#ff0000'}\n")
    env = dict(os.environ, PYTHONPATH=str(repo))
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "build", "--watch", "--page", "a4", "--only", "print",
                             "--only", "tts"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 120
        while not (root / "build" / "print-a4.pdf").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2)
        (root / "deck.yaml").write_text((root / "deck.yaml").read_text().replace("Alpha", "Beta"))
        while "Beta" not in (root / "build" / "manifest.json").read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(4)                       # a second rebuild, from the first one's files, would come now
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert out.count("-- changed: ") == 1, out
    assert "-- changed: deck.yaml" in out
    assert out.count("tiny: built in") == 2, out
    warnings = [line for line in err.splitlines() if "'colr'" in line]
    assert len(warnings) == 2, err          # the first build's, the rebuild's
    assert "stopped watching" in out


def test_the_builds_own_update_of_the_history_file_is_not_a_change(tmp_path):
    """A build that writes the game's cardgen-history.json does not set off another build; the
    file changed by anyone else (a `git pull`) does."""
    from cardgen.load import history

    game = tmp_path / "g"
    game.mkdir()
    (game / "deck.yaml").write_text("a")
    with Watcher([game]) as watcher:
        record = history.History(game / history.FILE)
        assert history.update(record, "revisions", {"Things": [{"card": "name:A", "revision": 2}]})
        time.sleep(0.8)
        assert watcher.calls == []
        (game / history.FILE).write_text('{"format": 1}\n')
        assert watcher.wait_for(1) == [[(game / history.FILE).resolve()]]
