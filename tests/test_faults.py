"""Faults while writing outputs: a build killed during the commit, a full disk, a read-only or
forbidden folder, an output path that is a file, links inside the output folder, a damaged
cache entry; and the names of output files (bounded, unique)."""
from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli, write

from cardgen.core import atomic
from cardgen.core.errors import display_path

REPO = Path(__file__).resolve().parent.parent
ONE = "cards:\n  - {name: Alpha, color: '#ff0000'}\n"
TWO = "cards:\n  - {name: Alpha, color: '#ff0000'}\n  - {name: Beta, color: '#00ff00'}\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    """The outputs (not the cache, not the incremental build's state file)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.parts and ".cardgen" not in p.parts}


def build(root: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    return run_cli("build", str(root), "--out", str(out), "--page", "a4", *extra)


@pytest.fixture
def built(tiny_game, tmp_path):
    root = tiny_game(ONE)
    out = tmp_path / "out"
    code, _, err = build(root, out, "--only", "print", "--only", "tts")
    assert code == 0, err
    return root, out, snapshot(out / "tiny")


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name != "tiny")


# -- kill -9 during the commit -----------------------------------------------------------------

@pytest.mark.parametrize("phase", ["before-commit", "mid-commit"])
def test_kill_during_commit_leaves_old_output_or_one_the_next_build_completes(built, tmp_path, phase):
    """Killed with everything staged: the old output, whole.  Killed while the files are moved
    into place: the commit record is on the disk and the next build completes the move, giving
    exactly what the killed build made.  The output folder stays the same folder throughout."""
    root, out, before = built
    folder = (out / "tiny").stat().st_ino
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + TWO)
    marker = tmp_path / "marker"
    env = dict(os.environ, PYTHONPATH=str(REPO), CARDGEN_TEST_COMMIT_HOOK=str(marker),
               CARDGEN_TEST_COMMIT_PHASE=phase)
    proc = subprocess.Popen([sys.executable, "-m", "cardgen.cli.main", "build", str(root), "--out", str(out),
                             "--page", "a4", "--only", "print", "--only", "tts"], env=env, cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not marker.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert marker.read_text() == phase
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (out / "tiny").stat().st_ino == folder
    assert not list(out.rglob("*.tmp"))
    if phase == "before-commit":
        assert snapshot(out / "tiny") == before            # the old output, whole
        assert leftovers(out) == [".tiny.cardgen-new"]
    else:                                                  # one file moved, the rest still staged
        assert leftovers(out) == [".tiny.cardgen-commit", ".tiny.cardgen-new", ".tiny.cardgen-old"]
        from cardgen.core.atomic import recover

        recover(out / "tiny")
        assert leftovers(out) == []
        code, _, err = build(root, tmp_path / "fresh", "--only", "print", "--only", "tts")
        assert code == 0, err
        fresh = {k: v.replace(str(tmp_path / "fresh").encode(), str(out).encode())      # (TTS: file: URIs)
                 for k, v in snapshot(tmp_path / "fresh" / "tiny").items()}
        assert snapshot(out / "tiny") == fresh             # what the killed build made
    # the next build finds things in order and cleans up
    code, _, err = build(root, out, "--only", "print", "--only", "tts")
    assert code == 0, err
    assert leftovers(out) == []
    assert (out / "tiny").stat().st_ino == folder
    after = snapshot(out / "tiny")
    assert len(after) == len(before), (sorted(after), sorted(before))
    assert after["print-a4.pdf"] != before["print-a4.pdf"]    # the new output: two cards now


def test_killed_mid_swap_by_an_older_cardgen_restores_old_output(built, tmp_path):
    """What a build of an earlier cardgen (which swapped whole folders) left when killed
    between its two renames is put back."""
    _, out, before = built
    os.rename(out / "tiny", out / ".tiny.cardgen-old")    # what a kill between the renames leaves
    (out / ".tiny.cardgen-new").mkdir()
    from cardgen.core.atomic import recover

    recover(out / "tiny")
    assert snapshot(out / "tiny") == before
    assert leftovers(out) == []


# -- full disk, read-only, a file in the way -------------------------------------------------

def _fail_writes_under(monkeypatch, part: str, err: int) -> None:
    from cardgen.core import atomic

    real = atomic._write_file

    def write_file(path: Path, data: bytes) -> None:
        if part in Path(path).parts:
            raise OSError(err, os.strerror(err))
        real(path, data)

    monkeypatch.setattr(atomic, "_write_file", write_file)


@pytest.mark.parametrize("err, hint", [
    (errno.ENOSPC, "No space left on device (free some disk space and build again)"),
    (errno.EROFS, "Read-only file system (the disk is read-only: build somewhere else with --out)"),
    (errno.EACCES, "Permission denied (check the folder's permissions, or build somewhere else with --out)"),
    (errno.ENAMETOOLONG, "File name too long (use a shorter name or a shorter --out path)"),
])
def test_environment_failure_at_write_is_one_line_and_nothing_changes(built, monkeypatch, err, hint):
    root, out, before = built
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + TWO)
    _fail_writes_under(monkeypatch, "tts", err)
    code, _, stderr = build(root, out, "--only", "print", "--only", "tts")
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 2, stderr
    assert lines[0].startswith(display_path(out / "tiny" / "tts") + "/")
    assert lines[0].endswith(f": cannot write: {hint}"), lines[0]
    assert lines[1] == "tiny: not built; the previous output is unchanged"
    assert "internal error" not in stderr and "Traceback" not in stderr
    assert snapshot(out / "tiny") == before                 # PDFs not new beside old TTS files
    assert leftovers(out) == []


def test_output_folder_is_a_file(tiny_game, tmp_path):
    root = tiny_game(ONE)
    out = tmp_path / "out"
    out.mkdir()
    (out / "tiny").write_text("mine")
    code, _, stderr = build(root, out, "--only", "print")
    assert code == 1
    assert stderr.splitlines()[0] == (f"{display_path(out / 'tiny')}: cannot write: it is a file, not a folder "
                                      f"(a file is in the way of a folder cardgen needs: move or rename it)")
    assert (out / "tiny").read_text() == "mine"


def test_out_parent_is_a_file(tiny_game, tmp_path):
    root = tiny_game(ONE)
    (tmp_path / "out").write_text("mine")
    code, _, stderr = build(root, tmp_path / "out" / "sub", "--only", "print")
    assert code == 1
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert ": cannot write: " in stderr.splitlines()[0]


def test_tts_path_is_a_file_is_replaced_and_said(built):
    root, out, before = built
    tts = out / "tiny" / "tts"
    for f in tts.iterdir():
        f.unlink()
    tts.rmdir()
    tts.write_text("stray file")
    code, _, stderr = build(root, out, "--only", "print", "--only", "tts")
    assert code == 0, stderr
    assert f"{display_path(tts)}: warning: was a file; replaced by cardgen's own folder" in stderr
    assert snapshot(out / "tiny") == before


# -- links inside the output folder ------------------------------------------------------------

@pytest.mark.parametrize("sub", ["tts", "png/mpc"])
def test_linked_output_folder_is_replaced_never_cleared(tiny_game, tmp_path, sub):
    root = tiny_game(ONE)
    out = tmp_path / "out"
    users = tmp_path / "Saved Objects"
    users.mkdir()
    (users / "other-game.json").write_text("{}")
    (users / "nested").mkdir()
    (users / "nested" / "deck.jpg").write_bytes(b"jpg")
    link = out / "tiny" / sub
    link.parent.mkdir(parents=True)
    link.symlink_to(users, target_is_directory=True)
    code, _, stderr = build(root, out, *(["--only", "tts", "--only", "png"] if sub == "png/mpc" else ["--only", "tts"]), *(
        ["--target", "mpc"] if sub == "png/mpc" else []))
    assert code == 0, stderr
    assert sorted(str(p.relative_to(users)) for p in users.rglob("*")) == ["nested", "nested/deck.jpg",
                                                                          "other-game.json"]
    assert not link.is_symlink() and link.is_dir()
    assert any(link.iterdir())
    assert "replaced by cardgen's own folder (nothing in the linked place was changed or deleted)" in stderr


def test_other_links_in_output_are_kept(built):
    root, out, _ = built
    (out / "tiny" / "notes").symlink_to("/nonexistent/notes")
    code, _, stderr = build(root, out, "--only", "print")
    assert code == 0, stderr
    assert os.readlink(out / "tiny" / "notes") == "/nonexistent/notes"


def test_outputs_not_made_this_time_are_kept(built):
    root, out, before = built
    code, _, stderr = build(root, out, "--only", "print")
    assert code == 0, stderr
    assert snapshot(out / "tiny") == before                # tts/ from the earlier build still there


def test_the_cache_folder_stays_where_it_is(built):
    """A rebuild leaves the cache where it is (the same folders, every file there), not
    linked file by file into a new tree and deleted with the old one."""
    root, out, _ = built
    cache = out / "tiny" / ".cache"
    folders = {p.relative_to(cache): p.stat().st_ino for p in [cache, *cache.rglob("*")] if p.is_dir()}
    files = sorted(p.relative_to(cache) for p in cache.rglob("*") if p.is_file())
    assert len(folders) > 1 and files
    deck = root / "deck.yaml"
    deck.write_text(deck.read_text().replace("Alpha", "Gamma"))
    code, _, stderr = build(root, out, "--only", "print")
    assert code == 0, stderr
    assert "print-a4.pdf" in snapshot(out / "tiny")
    assert {p: (cache / p).stat().st_ino for p in folders} == folders
    assert set(files) <= {p.relative_to(cache) for p in cache.rglob("*") if p.is_file()}
    assert leftovers(out) == []


# -- damaged cache -----------------------------------------------------------------------------

def test_damaged_cache_entries_are_rebuilt_never_copied(built):
    from cardgen.render import raster

    root, out, before = built
    cache = out / "tiny" / ".cache"
    # (every entry; the bitmap folder's OWNER stamp is no entry: a wrong one empties the folder;
    # nor is the empty stamp whose time says when the folder was last pruned, `Cache.tidy`)
    entries = sorted(p for p in cache.rglob("*") if _entry(p))
    assert entries and all(p.read_bytes().startswith(b"CGSEAL1\n") for p in entries)
    for p in entries:                                      # flip one byte near the end of each
        data = bytearray(p.read_bytes())
        data[-5] ^= 0x55
        p.write_bytes(bytes(data))
    shutil.rmtree(out / "tiny" / "tts")                    # (so that the outputs are made again, from the cache)
    (out / "tiny" / "print-a4.pdf").unlink()
    raster.reset_stats()
    code, _, stderr = build(root, out, "--only", "print", "--only", "tts")
    assert code == 0, stderr
    assert raster.STATS["corrupt"] >= len([p for p in entries if p.suffix == ".rgbz"])
    assert snapshot(out / "tiny") == before                # byte-identical: remade, not copied damaged
    for p in cache.rglob("*"):
        if _entry(p):
            raster.read_payload(p)                         # every entry intact again


def _entry(p) -> bool:
    """Whether `p` is an entry of a cache folder (not one of its stamps)."""
    from cardgen.render import raster

    return p.is_file() and p.name != raster.Cache.OWNER and not p.name.endswith(".pruned")


def test_truncated_cache_entry(built):
    root, out, before = built
    for p in (out / "tiny" / ".cache").rglob("*.rgbz"):
        p.write_bytes(p.read_bytes()[:20])
    shutil.rmtree(out / "tiny" / "tts")                    # (so that the export is made again, from the cache)
    code, _, stderr = build(root, out, "--only", "tts")
    assert code == 0, stderr
    assert snapshot(out / "tiny") == before


# -- names ---------------------------------------------------------------------------------------

def test_decks_whose_names_slugify_alike_stay_apart(tiny_game, tmp_path):
    import json
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    root = tiny_game(ONE)
    write(root / "deck2.yaml", "deck: ACTION!\ntemplate: tiny/face\ncards:\n  - {name: B, color: '#0000ff'}\n")
    write(root / "deck3.yaml", "deck: Action\ntemplate: tiny/face\ncards:\n  - {name: C, color: '#00ffff'}\n")
    out = tmp_path / "out"
    code, _, stderr = build(root, out, "--only", "tts")
    assert code == 0, stderr
    save = json.loads((out / "tiny" / "tts" / "tiny.json").read_text())
    objects = save["ObjectStates"]
    assert sorted(o["Nickname"] for o in objects) == ["Alpha", "B", "C"]     # one-card decks: cards
    faces = [d["FaceURL"] for o in objects for d in o["CustomDeck"].values()]
    assert len(set(faces)) == 3                          # three decks, three face images
    assert all(Path(url2pathname(urlparse(f).path)).is_file() for f in faces)     # file: URIs
    assert len({d for o in objects for d in o["CustomDeck"]}) == 3


def test_long_deck_and_card_names_make_bounded_file_names(tiny_game, tmp_path):
    root = tiny_game(ONE)
    long = "Very long deck name " * 15
    write(root / "deck2.yaml", f"deck: {long}\ntemplate: tiny/face\ncards:\n  - {{name: '{'Ü' * 200}', "
                               f"color: '#0000ff'}}\n")
    out = tmp_path / "out"
    code, _, stderr = build(root, out, "--only", "tts", "--only", "png", "--target", "mpc")
    assert code == 0, stderr
    names = [p.name for p in (out / "tiny").rglob("*") if ".cache" not in p.parts]
    assert max(len(n.encode()) for n in names) <= 80
    assert len([n for n in names if n.endswith("1of1.png")]) == 2


def test_unique_slugs_unit():
    from cardgen.core.names import bounded, unique_slugs

    got = unique_slugs(["Action", "ACTION!", "Other", "x" * 300])
    assert len(set(got)) == 4
    assert got[2] == "other"
    assert got[0].startswith("action-") and got[1].startswith("action-")
    assert all(len(s.encode()) <= 48 for s in got)
    assert bounded("é" * 100, 20) != bounded("é" * 99 + "e", 20)
    assert len(bounded("é" * 100, 20).encode()) <= 20


# -- other failures said plainly ------------------------------------------------------------

def test_relative_out_works(tiny_game, tmp_path, monkeypatch):
    root = tiny_game(ONE)
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run_cli("build", str(root), "--out", "rel/out", "--only", "print", "--page", "a4")
    assert code == 0, stderr
    assert "into rel/out/tiny/" in stdout and "print-a4.pdf" in stdout
    assert (tmp_path / "rel" / "out" / "tiny" / "print-a4.pdf").is_file()


def test_list_and_validate_never_trace(tiny_game):
    root = tiny_game(ONE)
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nvars: [1, 2\n")
    for cmd in ("list", "validate"):
        code, stdout, stderr = run_cli(cmd, str(root))
        assert code == 1
        assert "Traceback" not in stdout + stderr
        assert "deck.yaml:3:" in stderr + stdout


def test_svg_embedding_a_raster_image_draws_it(tiny_game, tmp_path):
    import base64
    import io

    import pypdfium2 as pdfium
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (10, 10), (255, 0, 0)).save(buf, "PNG")

    root = tiny_game(ONE, template="""
        elements:
          - {name: pic, type: image, src: pic.svg, x: 0mm, y: 0mm, width: 63.5mm, height: 88.9mm, fit: stretch}
    """)
    data = base64.b64encode(buf.getvalue()).decode()
    write(root / "art" / "pic.svg", f'<svg xmlns="http://www.w3.org/2000/svg" '
                                    f'xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">'
                                    f'<image x="0" y="0" width="20" height="20" '
                                    f'xlink:href="data:image/png;base64,{data}"/></svg>')
    out = tmp_path / "out"
    code, _, stderr = run_cli("build", str(root), "--out", str(out), "--only", "cards")
    assert code == 0, stderr
    pdf = pdfium.PdfDocument(str(out / "tiny" / "cards.pdf"))
    img = pdf[0].render(scale=0.5).to_pil().convert("RGB")
    w, h = img.size
    assert img.getpixel((w // 2, h // 2)) == (255, 0, 0)


def test_layout_makes_each_deck_context_once(tiny_game, monkeypatch):
    """Linear in the number of cards: a deck's context (its total is a sum over its cards) is
    made once per deck, not once per card."""
    from cardgen.core.errors import Report
    from cardgen.layout.engine import layout_game
    from cardgen.model.game import Deck
    from cardgen.pipeline.check import load_game

    cards = "cards:\n" + "".join(f"  - {{name: C{i}, color: '#ff0000'}}\n" for i in range(60))
    root = tiny_game(cards)
    calls = []
    real = Deck.context

    def counted(self):
        calls.append(self.name)
        return real(self)

    monkeypatch.setattr(Deck, "context", counted)
    game = load_game(root, REPO, Report())
    calls.clear()
    layout_game(game, Report())
    assert len(calls) <= 2          # game.context() once, the engine's cache once


def test_large_staged_outputs_wait_on_the_disk_not_in_memory(tmp_path, monkeypatch):
    """An output of a megabyte or more (a print PDF of thousands of cards) is written to the
    output folder's `.cache/staged/` when it is staged, not held while the other outputs are
    made, and moved into place by the commit, which leaves nothing there; a smaller one stays
    in memory until the commit.  It is written (and hashed) on the staging's own thread, while
    the build goes on.  A failed build's staged files go with the next build's."""
    import hashlib
    import threading

    from cardgen.core import atomic

    out = tmp_path / "out"
    big = bytes(range(256)) * (atomic.SPOOL_BYTES // 256 + 1)
    staging = atomic.Staging(out)
    threads: list[str] = []
    write = atomic._write_staged

    def written(path, data):
        threads.append(threading.current_thread().name.split("_")[0])
        return write(path, data)

    monkeypatch.setattr(atomic, "_write_staged", written)
    staging.add(out / "print-a4.pdf", big)
    staging.add(out / "small.txt", b"small")
    staging.settle()
    assert threads == ["cardgen-stage"]
    spooled = staging.files[out / "print-a4.pdf"]
    assert isinstance(spooled, atomic.Ready) and spooled.path.read_bytes() == big
    assert spooled.path.parent == out / ".cache" / "staged"
    assert spooled.sha256 == hashlib.sha256(big).hexdigest()
    assert staging.files[out / "small.txt"] == b"small"
    staging.commit(None)
    assert (out / "print-a4.pdf").read_bytes() == big and (out / "small.txt").read_bytes() == b"small"
    assert not (out / ".cache" / "staged").exists()
    failed = atomic.Staging(out)
    failed.add(out / "print-a4.pdf", big + b"x")
    failed.settle()
    assert len(list((out / ".cache" / "staged").iterdir())) == 1       # (the build fails: not committed)
    again = atomic.Staging(out)
    again.add(out / "print-a4.pdf", big + b"y")
    again.add(out / "print-letter.pdf", big + b"z")
    again.settle()
    assert len(list((out / ".cache" / "staged").iterdir())) == 2
    again.commit(None)
    assert (out / "print-a4.pdf").read_bytes() == big + b"y" and (out / "print-letter.pdf").read_bytes() == big + b"z"


def test_a_commit_lets_go_of_the_bytes_it_wrote_and_cache_files_are_written_in_parts(tmp_path):
    """After the commit the staging holds no output's bytes (a large build does not carry its
    PDFs in memory while it saves its caches), and a cache file written in parts is the
    sealed file `seal` makes of them joined, read back as a view that equals it."""
    from cardgen.core import atomic, digest

    out = tmp_path / "out"
    staging = atomic.Staging(out)
    staging.add(out / "a.pdf", b"%PDF-1 one")
    staging.add(out / "b" / "c.txt", b"two")
    written = staging.commit(None)
    assert sorted(p.relative_to(out).as_posix() for p in written) == ["a.pdf", "b/c.txt"]
    assert (out / "a.pdf").read_bytes() == b"%PDF-1 one" and (out / "b" / "c.txt").read_bytes() == b"two"
    assert not any(isinstance(v, bytes) for v in staging.files.values())
    parts = [b"head\n", bytes(range(256)) * 100]
    atomic.write_parts(tmp_path / "x.bin", digest.seal_parts(*parts))
    assert (tmp_path / "x.bin").read_bytes() == digest.seal(b"".join(parts))
    view = digest.read_sealed(tmp_path / "x.bin", view=True)
    assert isinstance(view, memoryview) and view == b"".join(parts)
    assert digest.read_sealed(tmp_path / "x.bin") == b"".join(parts)


# -- the path of every failure, and reading is not writing --------------------------------------

def test_full_disk_while_writing_a_cache_file_names_it(built, monkeypatch):
    """A full disk met outside the staging (a card bitmap written to the cache), where the
    system's error names no file: said at the file cardgen was writing, not as `cardgen:`."""
    root, out, before = built
    write(root / "deck.yaml", "deck: Things\ntemplate: tiny/face\nback: tiny/back\n" + TWO)
    real = atomic._write_all

    def write_all(tmp, fd, parts):
        if tmp.endswith(".tmp") and ".cache" in Path(tmp).parts:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))          # (as write(2) says it: no path)
        return real(tmp, fd, parts)

    monkeypatch.setattr(atomic, "_write_all", write_all)
    code, _, stderr = build(root, out, "--only", "print", "--only", "tts")
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 2, stderr
    assert lines[0].startswith(display_path(out / "tiny" / ".cache") + "/"), lines[0]
    assert ".tmp" not in lines[0]                       # the file's own name, not the temporary one
    assert lines[0].endswith(": cannot write: No space left on device (free some disk space and build again)")
    assert lines[1] == "tiny: not built; the previous output is unchanged"
    assert snapshot(out / "tiny") == before


def test_file_size_limit_in_every_process_names_the_file(tiny_game, tmp_path):
    """A real limit on what may be written (`ulimit -f`), met by the build and its workers:
    one line naming the file, never `internal error`, never without a path."""
    import resource

    root = tiny_game(TWO)
    out = tmp_path / "out"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "cardgen", "build", str(root), "--out", str(out), "--page", "a4"],
                          env=env, cwd=tmp_path, preexec_fn=limit, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("out/tiny/"), lines[0]            # (said from the folder it was run in)
    assert ": cannot write: File too large (" in lines[0]
    assert lines[1] == "tiny: not built; the previous output is unchanged"
    assert not (out / "tiny" / "print-a4.pdf").exists()


def test_an_unreadable_folder_is_never_said_to_be_unwritable(tiny_game, tmp_path, monkeypatch):
    from cardgen.core.envfail import describe
    from cardgen.pipeline import incremental

    root = tiny_game(ONE)
    art = root / "art"

    def unreadable(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(art))

    monkeypatch.setattr(incremental, "input_files", unreadable)
    code, _, stderr = build(root, tmp_path / "out", "--only", "print")
    assert code == 1
    assert stderr.splitlines() == [f"{display_path(art)}: cannot read: Permission denied (check the permissions of "
                                   f"the file or folder (cardgen needs to read it))",
                                   "tiny: not built; the previous output is unchanged"]
    # what only a write meets is a write, whatever the path
    assert describe(OSError(errno.EROFS, os.strerror(errno.EROFS), "x/y")).startswith("x/y: cannot write: ")
    assert describe(OSError(errno.ENOENT, os.strerror(errno.ENOENT), "x/y")).startswith("x/y: cannot read: ")


def test_an_output_problem_from_a_worker_process_keeps_its_path():
    import pickle

    from cardgen.core.envfail import OutputProblem, describe

    exc = OutputProblem("build/g/tts/g.json", OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    again = pickle.loads(pickle.dumps(exc))
    assert describe(again) == describe(exc) == ("build/g/tts/g.json: cannot write: No space left on device (free "
                                                "some disk space and build again)")


def test_a_commit_record_that_came_with_a_game_folder_touches_nothing_outside(tiny_game, tmp_path):
    """A game folder (unzipped from someone) may hold what looks like a half-done commit beside
    its `build/`: the record's paths outside the output folder, or through a link, are
    ignored, as are links in its staging folder."""
    import json

    root = tiny_game(ONE)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine too")
    out = root / "build"
    out.mkdir()
    (out / "via").symlink_to(elsewhere, target_is_directory=True)
    (root / ".build.cardgen-commit").write_text(json.dumps({
        "remove": [["any", "../../victim.txt"], ["any", str(victim)], ["any", "via/keep.txt"], ["file", "via"]],
        "prune": ["..", "via"]}))
    stage = root / ".build.cardgen-new"
    (stage / "via").mkdir(parents=True)
    (stage / "via" / "planted.txt").write_text("x")
    (stage / "link.txt").symlink_to(victim)
    code, _, stderr = run_cli("build", str(root), "--only", "print", "--page", "a4")
    assert code == 0, stderr
    assert victim.read_text() == "mine" and (elsewhere / "keep.txt").read_text() == "mine too"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
    assert not (out / "link.txt").exists()
    assert not any(p.name.startswith(".build.cardgen") for p in root.iterdir())


def test_a_retired_file_kept_for_the_next_build_goes_into_the_cache_never_through_a_link(tmp_path):
    """A retired output kept for the next build (`Staging.retire(keep=True)`) is moved into the
    output folder's `.cache/retired/` at its own path, and goes when a build writes its path
    again; where the cache is a link it is deleted as any retired file, nothing written where
    the link points."""
    from cardgen.core import atomic

    out = tmp_path / "out"
    first = atomic.Staging(out)
    first.add(out / "cards.pdf", b"%PDF-1 cards")
    first.add(out / "print-service" / "x-pdfx.pdf", b"%PDF-1 x")
    first.add(out / "other.txt", b"other")
    first.commit(None)
    retiring = atomic.Staging(out)
    for name in ("cards.pdf", "print-service/x-pdfx.pdf"):
        retiring.retire(out / name, keep=True)
    retiring.retire(out / "other.txt")
    retiring.commit(None)
    kept = out / ".cache" / "retired"
    assert not (out / "cards.pdf").exists() and (kept / "cards.pdf").read_bytes() == b"%PDF-1 cards"
    assert (kept / "print-service" / "x-pdfx.pdf").read_bytes() == b"%PDF-1 x"
    assert not (out / "other.txt").exists() and not (kept / "other.txt").exists()
    again = atomic.Staging(out)
    again.add(out / "cards.pdf", b"%PDF-1 cards again")
    again.commit(None)
    assert (out / "cards.pdf").read_bytes() == b"%PDF-1 cards again" and not (kept / "cards.pdf").exists()
    assert (kept / "print-service" / "x-pdfx.pdf").is_file()
    last = atomic.Staging(out)
    last.add(out / "print-service" / "x-pdfx.pdf", b"%PDF-1 x again")
    last.commit(None)
    assert not (kept / "print-service").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out / ".cache")
    (out / ".cache").symlink_to(elsewhere)
    linked = atomic.Staging(out)
    linked.retire(out / "cards.pdf", keep=True)
    linked.commit(None)
    assert not (out / "cards.pdf").exists() and list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("where", ["gallery/deck", "tts", "."])
def test_a_folder_cardgen_cannot_write_into_refuses_the_commit_before_anything_moves(tmp_path, monkeypatch, where):
    """The commit's plan looks at the folder of every file it writes or keeps (a few folders
    for thousands of files) and at the folders of what it removes: one this user may not write
    into refuses the commit, naming it, with the output folder as it was (also while the
    build retires a file elsewhere)."""
    from cardgen.core.envfail import OutputProblem

    out = tmp_path / "out"
    for rel in ["gallery/deck/1.png", "gallery/deck/2.png", "tts/a.json", "index.html", "old/x.pdf"]:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(b"old " + rel.encode())
    before = snapshot(out)
    staging = atomic.Staging(out)
    staging.keep(out / "gallery/deck/1.png")
    staging.add(out / "gallery/deck/2.png", b"new 2")
    staging.add(out / "tts/a.json", b"new a")
    staging.add(out / "index.html", b"new page")
    staging.retire(out / "old/x.pdf")
    locked = os.path.normpath(out / where)
    access = os.access
    monkeypatch.setattr(atomic.os, "access", lambda p, mode: os.path.normpath(p) != locked and access(p, mode))
    with pytest.raises(OutputProblem) as refused:
        staging.commit()
    assert os.path.normpath(refused.value.path) == locked and refused.value.errno == errno.EACCES
    assert snapshot(out) == before
