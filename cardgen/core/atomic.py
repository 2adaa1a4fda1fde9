"""Write outputs so that nothing is ever lost or mixed.

Single files (cache entries) are written to a temporary name beside them and renamed into
place.  A build's outputs are moved into place together per game (`Staging`), into the output
folder's contents: the folder `build/<game>` itself (and every folder in it) stays the same
folder, so a shell or a file browser standing in it is never left in a deleted folder.

1. Every new file is written into a staging folder beside `build/<game>` (same file system),
   and the disk is synced.  Nothing in the output has changed yet: a build that fails or is
   killed here leaves the previous output whole (the next build removes the staging folder).
2. A small commit record (`build/.<game>.cardgen-commit`) names what must go (files this build
   replaces by a folder or the other way round, links cardgen replaces by its own folder, files
   left in folders this build owns, outputs of an earlier build that are out of date); once it
   is on the disk the build is committed.
3. Each new file is renamed over the old one (each file is replaced whole, never half
   written), what must go is moved aside and deleted, and the record is removed.  A build
   killed during this step (a few milliseconds) is completed by the next cardgen build of the
   output (`recover`), from the staged files and the record.

A link inside the output (e.g. `build/g/tts` pointing at Tabletop Simulator's Saved Objects
folder) is replaced by cardgen's own folder; the folder it pointed at is never cleared.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from cardgen.core.envfail import OutputProblem
from cardgen.core.errors import Loc, Report, display_path
from cardgen.core.names import bounded
from cardgen.core.paths import through_link

STAGE_SUFFIX = ".cardgen-new"
OLD_SUFFIX = ".cardgen-old"
COMMIT_SUFFIX = ".cardgen-commit"
# (the names of what a build makes beside an output folder: `--watch` ignores them)
SIDE_SUFFIXES = (STAGE_SUFFIX, OLD_SUFFIX, COMMIT_SUFFIX)


@contextlib.contextmanager
def exclusive(out_dir: Path, waiting: Callable[[], object] | None = None) -> Iterator[None]:
    """Hold the output folder for one build at a time: a lock on the folder it is in (or the
    nearest that exists), held until the build is done; a second build of the same output
    (another terminal, `--watch` and a build by hand) waits, after `waiting()` says so,
    rather than removing the first one's staging folder or mixing outputs.  The lock goes with
    the process (a killed build holds nothing).  No locks where the system has none."""
    try:
        import fcntl
    except ImportError:             # (not on this system: builds are not serialised)
        yield
        return
    place = Path(os.path.abspath(out_dir)).parent
    while not place.is_dir() and place != place.parent:
        place = place.parent
    try:
        fd = os.open(place, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        yield
        return
    _held.add(fd)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass                    # a file system without locks
        yield
    finally:
        _held.discard(fd)
        os.close(fd)


# Locks held by this process: a forked copy (the raster workers' fork server, which outlives
# a build in `--watch` and `serve`) lets go of its copies at once, or the lock would stay held.
_held: set[int] = set()


def _forget_locks() -> None:
    for fd in list(_held):
        with contextlib.suppress(OSError):
            os.close(fd)
    _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)


_serial = itertools.count()
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _new_beside(path: Path) -> tuple[int, str]:
    """A temporary file of its own beside `path`, made now and open for writing: named by this
    process and a counter (another process's, or a killed one's left over, is never taken:
    `O_EXCL`); its folder made if missing.  No `tempfile` name drawing and no second open:
    0.36 -> 0.23 ms a 28 KB cache file, about 0.07 s of CPU at 500 cached card sides."""
    made = False
    while True:
        tmp = os.path.join(path.parent, f".{path.name[:60]}.{os.getpid()}-{next(_serial)}.tmp")
        try:
            return os.open(tmp, _NEW, 0o644), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            if made:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)
            made = True


def _replace_with(path: Path, fill: Callable[[str, int], object]) -> None:
    """Write a temporary file beside `path` with `fill(tmp_path, fd)` (`fd`: that file, open
    for writing; closed after), then rename it into place.  A failure is an `OutputProblem`
    naming `path` (a full disk's error names no file)."""
    path = Path(path)
    try:
        fd, tmp = _new_beside(path)
    except OSError as exc:
        raise OutputProblem(path, exc) from None
    try:
        try:
            fill(tmp, fd)
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o644)            # (whatever the umask)
        finally:
            os.close(fd)
        if not hasattr(os, "fchmod"):
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputProblem):
            raise OutputProblem(path, exc) from None
        raise


def _write_all(tmp: str, fd: int, parts: list[bytes]) -> None:
    """Write `parts` one after another to the open file `fd` (the temporary file `tmp`)."""
    for part in parts:
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view):]


def write_parts(path: Path, parts: list[bytes]) -> None:
    """`write_bytes` of the parts joined, written one after another (not joined in memory)."""
    _replace_with(path, lambda tmp, fd: _write_all(tmp, fd, parts))


def write_bytes(path: Path, data: bytes) -> None:
    write_parts(path, [data])


def copy_file(src: Path, path: Path) -> None:
    """Copy `src` to `path` atomically (for large outputs kept on disk, e.g. bitmaps)."""
    _replace_with(path, lambda tmp, fd: shutil.copyfile(src, tmp))


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def is_debris(name: str) -> bool:
    """A temporary file of `_replace_with` left by a killed process."""
    return name.startswith(".") and name.endswith(".tmp")


# -- the all-or-nothing move of a game's outputs ---------------------------------------------

CACHE_DIR = Path(".cache")      # an output folder's caches (card forms, rendered cards, ...)
SPOOL_DIR = "staged"            # in it: large staged outputs waiting for the commit (`Staging.add`)
RETIRED_DIR = "retired"         # in it: retired outputs kept for the next build to assemble from (`Staging.retire`)
SPOOL_BYTES = 1 << 20


class Kept:
    """A file of the previous output kept as it is (`Staging.keep`)."""


KEPT = Kept()


class Ready:
    """A file written beforehand with exactly the content to stage, on the output's disk, and
    its sha256 (`Staging.add_ready`): the commit moves it into place instead of copying it."""

    __slots__ = ("path", "sha256")

    def __init__(self, path: Path, sha256: str) -> None:
        self.path, self.sha256 = Path(path), sha256


class Spooling:
    """Large data on its way to `.cache/staged/` (`Staging.add`): written and hashed on a
    thread of its own (file writes and sha256 let go of the interpreter) while the build
    makes its next output; `result` waits for it: `Ready`, or the data itself when it could
    not be written.  (A plain thread, not an executor: a build that makes only its print PDFs
    does not import `concurrent.futures`, and its logging, for it.)"""

    __slots__ = ("_done", "_thread")

    def __init__(self, path: Path, data: bytes) -> None:
        import threading

        self._done: list[Ready | bytes | BaseException] = []
        self._thread = threading.Thread(target=self._write, args=(path, data), name="cardgen-stage")
        self._thread.start()

    def _write(self, path: Path, data: bytes) -> None:
        try:
            self._done.append(_write_staged(path, data))
        except BaseException as exc:        # (said where it is waited for)
            self._done.append(exc)

    def result(self) -> Ready | bytes:
        self._thread.join()
        done = self._done[0]
        if isinstance(done, BaseException):
            raise done
        return done


def _write_staged(path: Path, data: bytes) -> Ready | bytes:
    """`data` written to the new file `path` (a staged output waiting on the disk), or, if it
    cannot be, `data` (then it stays in memory and the commit writes it, or says what is wrong)."""
    try:
        with open(path, "xb") as f:
            f.write(data)
    except OSError:
        return data
    return Ready(path, hashlib.sha256(data).hexdigest())


Source = bytes | Path | tuple[Path, Callable[[Path], bytes]] | Kept | Ready | Spooling


def side_paths(out: Path) -> tuple[Path, Path]:
    """The staging folder and the folder of what a commit moves aside, of output folder `out`
    (beside it)."""
    base = bounded(out.name, 180)
    return out.parent / f".{base}{STAGE_SUFFIX}", out.parent / f".{base}{OLD_SUFFIX}"


def commit_record(out: Path) -> Path:
    """The commit record of output folder `out` (beside it): there while a commit is applied."""
    return out.parent / f".{bounded(out.name, 180)}{COMMIT_SUFFIX}"


def _remove(path: Path) -> None:
    """Remove a file, a link (not what it points at) or a folder tree (links in it are
    removed as links)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _standing() -> Path | None:
    """The current folder, resolved (None if it no longer exists)."""
    try:
        return Path(os.getcwd()).resolve()
    except OSError:
        return None


def _matches(kind: str, path: str | Path) -> bool:
    """Is what is at `path` still what the commit record says must go?"""
    if kind == "link":
        return os.path.islink(path)
    if kind == "dir":
        return os.path.isdir(path) and not os.path.islink(path)
    if kind == "file":
        return os.path.lexists(path) and not os.path.islink(path) and not os.path.isdir(path)
    return os.path.lexists(path)


def _inside(real: Path, rel: object, folders: dict[str, bool] | None = None) -> bool:
    """Is `rel` a path inside the output folder `real` that no link leads to?  (A commit record
    and a staging folder found beside a game's output may have come with the game folder: what
    they name is never looked for elsewhere.)  `folders`: what was found of each folder, for
    the next path of one commit (the 2,000 gallery images an `--only` build removes are in one
    folder: its parts looked at once, not for each)."""
    if not isinstance(rel, str) or not rel:
        return False
    path = Path(rel)
    parts = path.parts
    if path.is_absolute() or any(part in ("..", ".") for part in parts):
        return False
    folder = os.path.dirname(rel)
    known = folders.get(folder) if folders is not None else None
    if known is not None:
        return known
    ok = True
    here = real
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink():
            ok = False
            break
    if folders is not None:
        folders[folder] = ok
    return ok


def _apply(real: Path, stage: Path, old: Path, record: dict) -> None:
    """Step 3 of a commit (see the module docstring): idempotent, so that `recover` can run it
    again after a build killed in the middle of it."""
    if os.path.lexists(old):
        _remove(old)
    old.mkdir()
    real.mkdir(parents=True, exist_ok=True)
    remove = record.get("remove")
    folders: dict[str, bool] = {}   # (`_inside`, a folder once: no path the record removes is below another)
    for i, item in enumerate(remove if isinstance(remove, list) else []):
        if not isinstance(item, (list, tuple)) or len(item) not in (2, 3) or not _inside(real, item[1], folders):
            continue
        path = os.path.join(real, item[1])        # (a string: 2,000 removed gallery images)
        if not _matches(str(item[0]), path):
            continue
        if len(item) == 3 and item[2] == "keep" and os.path.isfile(path) and not os.path.islink(path):
            kept = retired_copy(real, item[1])      # (kept for the next build: `Staging.retire`)
            try:
                if through_link(kept, len(kept.relative_to(real).parts)):
                    raise OSError           # (not through a link: moved aside and deleted)
                kept.parent.mkdir(parents=True, exist_ok=True)
                os.replace(path, kept)
                continue
            except OSError:
                pass
        os.rename(path, os.path.join(old, str(i)))
    retired = real / CACHE_DIR / RETIRED_DIR
    keeps = retired.is_dir() and not retired.is_symlink()
    moved = 0
    for dirpath, _, filenames in os.walk(stage):
        here = Path(dirpath)
        for name in sorted(filenames):
            rel = (here / name).relative_to(stage)
            if (here / name).is_symlink() or not _inside(real, rel.as_posix()):
                continue
            (real / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(here / name, real / rel)
            if keeps:           # (written again: the copy kept when it was retired goes, and its emptied folders)
                with contextlib.suppress(OSError):
                    os.unlink(retired / rel)
                    for folder in (retired / rel).parents:
                        if folder == retired:
                            break
                        folder.rmdir()
            moved += 1
            if moved == 1:
                _test_hook("mid-commit")
    standing = _standing()
    prune = record.get("prune")
    for rel in prune if isinstance(prune, list) else []:     # folders emptied by this commit, deepest first
        if not _inside(real, rel):
            continue
        path = real / rel
        if standing is not None and (path.resolve() == standing or path.resolve() in standing.parents):
            continue                            # (someone stands in it: it stays, empty)
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                path.rmdir()                    # only if empty
    _remove(stage)
    with contextlib.suppress(OSError):
        _remove(old)
    os.unlink(commit_record(real))


def retired_copy(out: Path, rel: str | Path) -> Path:
    """Where a retired output file kept for the next build (`Staging.retire`) is: in the output
    folder's cache, at its own path there."""
    return Path(out) / CACHE_DIR / RETIRED_DIR / rel


def recover(out: Path) -> None:
    """Complete or undo what a build killed while moving its outputs left beside `out`: a
    commit whose record is on the disk is completed; a staging folder without one is removed
    (the output was not touched yet)."""
    stage, old = side_paths(out)
    record_path = commit_record(out)
    if os.path.lexists(record_path):
        try:
            record = json.loads(record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        if isinstance(record, dict) and stage.is_dir() and not stage.is_symlink():
            _apply(out, stage, old, record)
            return
        record_path.unlink()
    if not os.path.lexists(out) and old.is_dir() and not old.is_symlink():
        os.rename(old, out)         # (left by an earlier cardgen, which swapped whole folders)
    for p in (stage, old):
        if os.path.lexists(p):
            _remove(p)


def _test_hook(phase: str) -> None:
    """For the fault tests: `CARDGEN_TEST_COMMIT_HOOK=<file>` touches the file and sleeps at
    `CARDGEN_TEST_COMMIT_PHASE` (before-commit: all staged, nothing moved; mid-commit: the
    record written and one file moved), so a test can kill the build there."""
    marker = os.environ.get("CARDGEN_TEST_COMMIT_HOOK")
    if marker and os.environ.get("CARDGEN_TEST_COMMIT_PHASE", "before-commit") == phase:
        Path(marker).write_text(phase)
        time.sleep(float(os.environ.get("CARDGEN_TEST_COMMIT_SLEEP", "30")))


def _write_file(path: Path, data: bytes) -> None:
    """Write one staged file (the single place files are written: tests simulate a full disk here)."""
    with open(path, "xb") as f:
        f.write(data)


def _put(path: Path, src: bytes | Path | tuple[Path, Callable[[Path], bytes]] | Ready | Spooling) -> str:
    """Write one staged file; returns the sha256 of what was written."""
    if isinstance(src, Spooling):
        src = src.result()
    if isinstance(src, Ready):
        try:
            os.rename(src.path, path)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            _write_file(path, src.path.read_bytes())            # (another disk: copied after all)
        os.chmod(path, 0o644)
        return src.sha256
    if isinstance(src, bytes):
        data = src
    elif isinstance(src, tuple):
        data = src[1](src[0])
    else:
        data = src.read_bytes()
    _write_file(path, data)
    os.chmod(path, 0o644)
    return hashlib.sha256(data).hexdigest()


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _sync(files: list[Path]) -> None:
    if hasattr(os, "sync"):
        os.sync()
        return
    for f in files:                                          # pragma: no cover (not POSIX)
        with contextlib.suppress(OSError):
            fd = os.open(f, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


class Staging:
    """Collects a build's outputs (all inside one game's output folder) and moves them into
    place only when all were made (see the module docstring)."""

    def __init__(self, out_dir: Path | None = None) -> None:
        self.out_dir = Path(os.path.abspath(out_dir)) if out_dir is not None else None
        self.files: dict[Path, Source] = {}
        self.owned: list[Path] = []
        self.retired: list[Path] = []
        self.retained: set[Path] = set()       # retired files kept in the cache (`retire`)
        self.digests: dict[Path, str] = {}     # after commit: sha256 of each file written
        self.kept: list[Path] = []             # after commit: the previous output's files kept
        self.removed: list[Path] = []          # after commit: the retired files that were there
        self._spooled: list[Path] = []         # files of `.cache/staged/` (`add`)

    def add(self, path: Path, data: bytes) -> None:
        """Stage `data` for `path`.  Large data (`SPOOL_BYTES`: a print PDF, a saved object of
        10,000 cards) waits on the disk, in the output folder's `.cache/staged/`, not in memory
        while the other outputs are made; the commit moves it into place (`add_ready`).  It is
        written on a thread of the staging's own while the build goes on (`Spooling`), one at
        a time: the data staged before is written by the time this returns."""
        if len(data) >= SPOOL_BYTES and self.out_dir is not None:
            spooling = self._spool(data)
            if spooling is not None:
                self.files[Path(path)] = spooling
                return
        self.files[Path(path)] = data

    def _spool(self, data: bytes) -> Spooling | None:
        """`data` being written to a file of `.cache/staged/` (None: there is no such folder;
        then it stays in memory and the commit writes it, or says what is wrong)."""
        assert self.out_dir is not None
        folder = self.out_dir / CACHE_DIR / SPOOL_DIR
        try:
            if not self._spooled:
                shutil.rmtree(folder, ignore_errors=True)       # (left by a build that failed)
                folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        self.settle()           # (one at a time: no more than one output's bytes wait in memory)
        self._spooled.append(folder / str(len(self._spooled)))
        return Spooling(self._spooled[-1], data)

    def settle(self) -> None:
        """Wait for the staged data being written (`add`): each file then `Ready` (or its
        data, in memory, if it could not be written)."""
        for path, src in self.files.items():
            if isinstance(src, Spooling):
                self.files[path] = src.result()

    def staged_since(self, count: int) -> list[Path]:
        """The paths first staged after the first `count` (`len(files)` then), in the order they
        were: what a part of an output staged (`outputs.incremental.Part`).  Only the new ones
        are looked at: a gallery of 10,000 card sides, a part each, is not 10,000 copies of the
        staged paths (they held 2.4 GB and took seconds)."""
        new = len(self.files) - count
        return list(itertools.islice(reversed(self.files), new))[::-1] if new > 0 else []

    def add_file(self, path: Path, src: Path, read: Callable[[Path], bytes] | None = None) -> None:
        """Stage a copy of the file `src` (kept on disk until commit, not in memory); `read`:
        how to get the bytes to write from it (e.g. a cache entry checked against its checksum)."""
        self.files[Path(path)] = (Path(src), read) if read is not None else Path(src)

    def add_ready(self, path: Path, src: Path, sha256: str) -> None:
        """Stage the file `src`, written beforehand with exactly this content (sha256 given)
        inside the output folder: the commit moves it into place instead of copying it."""
        self.files[Path(path)] = Ready(src, sha256)

    def keep(self, path: Path) -> None:
        """Keep the previous output's file at `path` as it is (for an output whose inputs did
        not change), even inside a folder this build owns (`own_dir`)."""
        self.files[path if isinstance(path, Path) else Path(path)] = KEPT    # (not parsed again: 2,000 kept images)

    def own_dir(self, folder: Path) -> None:
        """`folder` holds only this output: files in it that this build did not write (left from
        an earlier build, e.g. a card since removed) are removed."""
        self.owned.append(Path(folder))

    def retire(self, path: Path, keep: bool = False) -> None:
        """The file at `path`, made by an earlier build and not made by this one, goes (unless
        this build writes it after all); `removed` lists it after the commit if it was there.
        `keep`: its bytes are kept in the cache (`retired_copy`) for the next build that makes
        it (a PDF it assembles from the last one's objects: `render.assemble`), until then."""
        self.retired.append(Path(path))
        if keep:
            self.retained.add(Path(path))

    def _root(self) -> Path:
        if self.out_dir is not None:
            return self.out_dir
        paths = [os.path.abspath(p) for p in [*self.files, *self.owned]]
        return Path(os.path.commonpath([os.path.dirname(p) for p in paths])) if paths else Path.cwd()

    def _rel(self, root: Path, path: Path) -> Path:
        full, inside = os.path.abspath(path), os.path.join(root, "")
        if full.startswith(inside):             # (as `relpath` gives it, without its work: every file kept)
            return Path(full[len(inside):])
        rel = Path(os.path.relpath(full, root))
        if rel.parts and rel.parts[0] == "..":
            raise ValueError(f"output {path} is outside the output folder {root}")
        return rel

    def commit(self, report: Report | None = None) -> list[Path]:
        """Move everything into place; returns the files written (their final paths)."""
        self.settle()
        out = self._root()
        real = out.resolve() if out.is_symlink() and out.is_dir() else out
        if os.path.lexists(real) and not real.is_dir():
            raise OutputProblem(out, OSError(errno.ENOTDIR, "it is a file, not a folder"))
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            recover(real)
        except OSError as exc:
            raise OutputProblem(exc.filename or real.parent, exc) from None
        stage, old = side_paths(real)
        new = {self._rel(out, p): src for p, src in self.files.items()}
        owned = {self._rel(out, p) for p in self.owned}
        retired = {self._rel(out, p) for p in self.retired} - set(new)
        retained = {self._rel(out, p) for p in self.retained}
        try:
            try:
                stage.mkdir()
            except OSError as exc:
                raise OutputProblem(real.parent, exc) from None
            for rel, src in sorted(new.items()):
                if isinstance(src, Kept):
                    continue
                try:
                    (stage / rel).parent.mkdir(parents=True, exist_ok=True)
                    self.digests[out / rel] = _put(stage / rel, src)
                except OSError as exc:
                    raise OutputProblem(out / rel, exc) from None
            plan = _Plan(out, real, stage, new, owned, retired, retained)
            _sync([stage / rel for rel, src in new.items() if not isinstance(src, Kept)])
            _test_hook("before-commit")
            record = {"remove": plan.remove, "prune": plan.prune}
            try:
                write_text(commit_record(real), json.dumps(record))
                _sync([commit_record(real)])
            except OSError as exc:
                raise OutputProblem(commit_record(real), exc) from None
        except BaseException:
            with contextlib.suppress(OSError):
                if os.path.lexists(stage) and not os.path.lexists(commit_record(real)):
                    _remove(stage)
            raise
        try:
            _apply(real, stage, old, record)
        except BaseException as exc:       # committed: what is left is done by the next build
            with contextlib.suppress(OSError):
                recover(real)
            if isinstance(exc, OSError):
                raise OutputProblem(exc.filename or out, exc, "cannot move the new output into place",
                                    committed=True) from None
            raise
        if report is not None:
            for path, message in plan.notes:
                report.warn(Loc(str(path)), message, "output-replaced")
        self.kept = [out / rel for rel, src in new.items() if isinstance(src, Kept)]
        self.removed = [out / rel for rel in sorted(plan.retired)]
        self.files = dict.fromkeys(self.files, KEPT)      # written: the bytes it held are let go
        if self._spooled and self.out_dir is not None:     # (what is left: data staged twice for a path)
            shutil.rmtree(self.out_dir / CACHE_DIR / SPOOL_DIR, ignore_errors=True)
        return [out / rel for rel, src in new.items() if not isinstance(src, Kept)]


class _Plan:
    """What a commit removes from the output folder (looked at before the commit, while
    nothing there has changed): `remove` [(kind, path)] for the commit record, `prune` (folders
    to remove if they are left empty), `notes` (what the user is told), `retired` (the retired
    files found).  Never looked at: anything below a link (the place it points at is not
    cardgen's) and the cache folder (it is the cache's own)."""

    def __init__(self, out: Path, real: Path, stage: Path, new: dict[Path, Source], owned: set[Path],
                 retired: set[Path], retained: set[Path] | frozenset[Path] = frozenset()) -> None:
        self.remove: list[tuple[str, ...]] = []
        self.prune: list[str] = []
        self.notes: list[tuple[Path, str]] = []
        self.retired: set[Path] = set()
        standing = _standing()
        try:
            here = standing.relative_to(real.resolve()) if standing is not None else None
        except ValueError:
            here = None
        occupied = {here, *here.parents} if here is not None else set()     # the folders someone stands in
        ancestors: set[Path] = set()
        top = Path(".")
        # each file's folder (the gallery's 2,000 images: a few folders, found without a path made a file)
        homes = {Path(d) for d in {os.path.dirname(os.fspath(rel)) for rel in new}}
        for parent in homes:
            while parent != top and parent not in ancestors:
                ancestors.add(parent)
                parent = parent.parent
        gone: set[Path] = set()

        def below_gone(rel: Path) -> bool:       # (a set look-up per parent: 500 retired files were 250,000 tests)
            return bool(gone) and not gone.isdisjoint(rel.parents)

        def drop(kind: str, rel: Path, keep: bool = False) -> None:
            self.remove.append((kind, rel.as_posix(), "keep") if keep else (kind, rel.as_posix()))
            gone.add(rel)

        # folders cardgen writes into must be folders of its own
        for rel in sorted(ancestors | owned, key=lambda r: (len(r.parts), r)):
            path = real / rel
            if below_gone(rel) or rel in gone:
                continue
            if path.is_symlink():
                drop("link", rel)
                self.notes.append((out / rel, f"was a link to {display_path(os.readlink(path))}; replaced by "
                                              f"cardgen's own folder (nothing in the linked place was changed or "
                                              f"deleted)"))
            elif os.path.lexists(path) and not path.is_dir():
                drop("file", rel)
                self.notes.append((out / rel, "was a file; replaced by cardgen's own folder"))
        for rel, src in sorted(new.items()):
            if below_gone(rel):
                if isinstance(src, Kept):       # (kept through a link cardgen now replaces: copied)
                    try:
                        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
                        _link_or_copy(real / rel, stage / rel)
                    except OSError as exc:
                        raise OutputProblem(out / rel, exc, "cannot keep the previous output's file") from None
                continue
            if isinstance(src, Kept):       # (its path as a string: 2,000 kept gallery images)
                if not os.path.isfile(os.path.join(real, rel)):
                    raise OutputProblem(out / rel, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT)),
                                        "cannot keep the previous output's file")
                continue
            path = real / rel
            if path.is_symlink():
                drop("link", rel)
                self.notes.append((out / rel, f"was a link to {display_path(os.readlink(path))}; replaced by "
                                              f"cardgen's own file (nothing in the linked place was changed or "
                                              f"deleted)"))
            elif path.is_dir():
                drop("dir", rel)
                self.notes.append((out / rel, "was a folder; replaced by the file cardgen writes there"))
        # folders this build owns hold only what it wrote or kept
        for o in sorted(owned):
            if o in gone or below_gone(o) or not (real / o).is_dir():
                continue
            self._clear(real, o, new, ancestors, occupied, drop)
        # outputs of an earlier build that are out of date (each folder's parents looked at once:
        # in this order a path is dropped before any path below it is looked at)
        folders: dict[Path, tuple[bool, list[str]]] = {}       # folder -> (below what goes, folders to prune)
        for rel in sorted(retired):
            if rel in gone or (rel in occupied):
                continue
            seen = folders.get(rel.parent)
            if seen is None:
                seen = folders[rel.parent] = (below_gone(rel), [p.as_posix() for p in rel.parents
                                                                if p != Path(".") and p not in ancestors])
            if seen[0]:
                continue
            try:
                mode = os.lstat(real / rel).st_mode
            except (OSError, ValueError):
                continue                        # (not there)
            if stat.S_ISDIR(mode):
                continue                        # (a folder of the user's where an output was)
            drop("any", rel, rel in retained)
            self.retired.add(rel)
            self.prune += seen[1]
        # temporary files of killed writers (not in the cache, which clears its own)
        for dirpath, dirnames, filenames in os.walk(real):
            reld = Path(dirpath).relative_to(real)
            dirnames[:] = [d for d in dirnames if (reld / d) != CACHE_DIR and (reld / d) not in gone
                           and not below_gone(reld / d)]
            for name in filenames:
                if is_debris(name) and (reld / name) not in gone:
                    drop("any", reld / name)
        self.prune = sorted(set(self.prune), key=lambda p: (-p.count("/"), p))
        writable = {real / folder for folder in homes} | {
            real / folder for folder in {os.path.dirname(item[1]) for item in self.remove}}
        for folder in sorted(writable):
            if folder.is_dir() and not os.access(folder, os.W_OK):
                raise OutputProblem(folder, PermissionError(errno.EACCES, os.strerror(errno.EACCES)))

    @staticmethod
    def _clear(real: Path, owned: Path, new: dict[Path, Source], ancestors: set[Path], occupied: set,
               drop: Callable[[str, Path], None]) -> None:
        names = {os.fspath(rel) for rel in new}       # (a file's name looked up, not a path made for each)
        for dirpath, dirnames, filenames in os.walk(real / owned):
            reld = Path(dirpath).relative_to(real)
            descend = []
            for name in dirnames:
                rel = reld / name
                if (real / rel).is_symlink():
                    if rel not in new:
                        drop("any", rel)
                elif rel in ancestors or rel in occupied:
                    descend.append(name)        # (someone stands in it: emptied, not removed)
                elif rel not in new:
                    drop("any", rel)
            here = os.fspath(reld)
            for name in filenames:
                if os.path.join(here, name) not in names:
                    drop("any", reld / name)
            dirnames[:] = descend
