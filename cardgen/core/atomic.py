"""Write outputs so that nothing is ever lost or mixed.

Single files (cache entries) are written to a temporary name beside them and renamed into
place.  A build's outputs are moved into place all at once per game (`Staging`): everything
is written into a staging folder next to `build/<game>` (same file system), the files of the
previous output that this build keeps are hard-linked in, the disk is synced, and the two
folders are swapped in one step (Linux `renameat2(RENAME_EXCHANGE)`; elsewhere two renames,
which `recover` completes if a build is killed between them).  So `build/<game>` is always
either the old output or the new one; a build killed at any moment leaves at most
`build/.<game>.cardgen-new` or `.cardgen-old`, which the next build removes.

A link inside the output (e.g. `build/g/tts` pointing at Tabletop Simulator's Saved Objects
folder) is replaced by cardgen's own folder; the folder it pointed at is never cleared.
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from cardgen.core.envfail import OutputProblem
from cardgen.core.errors import Loc, Report, display_path
from cardgen.core.names import bounded

STAGE_SUFFIX = ".cardgen-new"
OLD_SUFFIX = ".cardgen-old"


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


def _replace_with(path: Path, fill: Callable[[str], object]) -> None:
    """Write a temporary file beside `path` with `fill(tmp_path)`, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:60]}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        fill(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    _replace_with(path, lambda tmp: Path(tmp).write_bytes(data))


def write_parts(path: Path, parts: list[bytes]) -> None:
    """`write_bytes` of the parts joined, written one after another (not joined in memory)."""
    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            for part in parts:
                f.write(part)

    _replace_with(path, write)


def copy_file(src: Path, path: Path) -> None:
    """Copy `src` to `path` atomically (for large outputs kept on disk, e.g. bitmaps)."""
    _replace_with(path, lambda tmp: shutil.copyfile(src, tmp))


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def is_debris(name: str) -> bool:
    """A temporary file of `_replace_with` left by a killed process."""
    return name.startswith(".") and name.endswith(".tmp")


# -- the all-or-nothing move of a game's outputs ---------------------------------------------

CACHE_DIR = Path(".cache")      # an output folder's caches (card forms, rendered cards, ...)


class Kept:
    """A file of the previous output kept as it is (`Staging.keep`)."""


KEPT = Kept()


class Ready:
    """A file written beforehand with exactly the content to stage, on the output's disk, and
    its sha256 (`Staging.add_ready`): the commit moves it into place instead of copying it."""

    __slots__ = ("path", "sha256")

    def __init__(self, path: Path, sha256: str) -> None:
        self.path, self.sha256 = Path(path), sha256


Source = bytes | Path | tuple[Path, Callable[[Path], bytes]] | Kept | Ready


def side_paths(out: Path) -> tuple[Path, Path]:
    """The staging folder and the backup folder of output folder `out` (beside it)."""
    base = bounded(out.name, 180)
    return out.parent / f".{base}{STAGE_SUFFIX}", out.parent / f".{base}{OLD_SUFFIX}"


def _remove(path: Path) -> None:
    """Remove a file, a link (not what it points at) or a folder tree (links in it are
    removed as links)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def recover(out: Path) -> None:
    """Finish or undo what a killed build left beside `out`."""
    stage, old = side_paths(out)
    if not os.path.lexists(out) and old.is_dir() and not old.is_symlink():
        os.rename(old, out)         # killed between the two renames: the previous output back
    for p in (stage, old):
        if os.path.lexists(p):
            _remove(p)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where not supported."""
    if not sys.platform.startswith("linux") or os.environ.get("CARDGEN_TEST_COMMIT_PHASE") == "mid-swap":
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    e = ctypes.get_errno()
    if e in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(e, os.strerror(e), str(b))


def _test_hook(phase: str) -> None:
    """For the fault tests: `CARDGEN_TEST_COMMIT_HOOK=<file>` touches the file and sleeps at
    `CARDGEN_TEST_COMMIT_PHASE` (before-swap or mid-swap), so a test can kill the build there."""
    marker = os.environ.get("CARDGEN_TEST_COMMIT_HOOK")
    if marker and os.environ.get("CARDGEN_TEST_COMMIT_PHASE", "before-swap") == phase:
        Path(marker).write_text(phase)
        time.sleep(float(os.environ.get("CARDGEN_TEST_COMMIT_SLEEP", "30")))


def _write_file(path: Path, data: bytes) -> None:
    """Write one staged file (the single place files are written: tests simulate a full disk here)."""
    with open(path, "xb") as f:
        f.write(data)


def _put(path: Path, src: bytes | Path | tuple[Path, Callable[[Path], bytes]] | Ready) -> str:
    """Write one staged file; returns the sha256 of what was written."""
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
    place only when all were made, all at once (see the module docstring)."""

    def __init__(self, out_dir: Path | None = None) -> None:
        self.out_dir = Path(os.path.abspath(out_dir)) if out_dir is not None else None
        self.files: dict[Path, Source] = {}
        self.owned: list[Path] = []
        self.digests: dict[Path, str] = {}     # after commit: sha256 of each file written
        self.kept: list[Path] = []             # after commit: the previous output's files kept

    def add(self, path: Path, data: bytes) -> None:
        self.files[Path(path)] = data

    def add_file(self, path: Path, src: Path, read: Callable[[Path], bytes] | None = None) -> None:
        """Stage a copy of the file `src` (kept on disk until commit, not in memory); `read`:
        how to get the bytes to write from it (e.g. a cache entry checked against its checksum)."""
        self.files[Path(path)] = (Path(src), read) if read is not None else Path(src)

    def add_ready(self, path: Path, src: Path, sha256: str) -> None:
        """Stage the file `src`, written beforehand with exactly this content (sha256 given)
        inside the output folder: the commit moves it into place (a rename, no copy), so it
        is gone from `src` afterwards."""
        self.files[Path(path)] = Ready(src, sha256)

    def keep(self, path: Path) -> None:
        """Keep the previous output's file at `path` as it is (for an output whose inputs did
        not change): it is hard-linked into the new output, even inside a folder this build
        owns (`own_dir`)."""
        self.files[Path(path)] = KEPT

    def own_dir(self, folder: Path) -> None:
        """`folder` holds only this output: files in it that this build did not write (left from
        an earlier build, e.g. a card since removed) are not kept."""
        self.owned.append(Path(folder))

    def _root(self) -> Path:
        if self.out_dir is not None:
            return self.out_dir
        paths = [os.path.abspath(p) for p in [*self.files, *self.owned]]
        return Path(os.path.commonpath([os.path.dirname(p) for p in paths])) if paths else Path.cwd()

    def _rel(self, root: Path, path: Path) -> Path:
        rel = Path(os.path.relpath(os.path.abspath(path), root))
        if rel.parts and rel.parts[0] == "..":
            raise ValueError(f"output {path} is outside the output folder {root}")
        return rel

    def commit(self, report: Report | None = None) -> list[Path]:
        """Move everything into place; returns the files written (their final paths)."""
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
        notes: list[tuple[Path, str]] = []
        try:
            try:
                stage.mkdir()
            except OSError as exc:
                raise OutputProblem(real.parent, exc) from None
            for rel, src in sorted(new.items()):
                try:
                    (stage / rel).parent.mkdir(parents=True, exist_ok=True)
                    if isinstance(src, Kept):
                        _link_or_copy(real / rel, stage / rel)
                    else:
                        self.digests[out / rel] = _put(stage / rel, src)
                except OSError as exc:
                    if isinstance(src, Kept):
                        raise OutputProblem(out / rel, exc, "cannot keep the previous output's file") from None
                    raise OutputProblem(out / rel, exc) from None
            if real.is_dir():
                notes = self._carry_over(out, real, stage, set(new), owned)
            _sync([stage / rel for rel, src in new.items() if not isinstance(src, Kept)])
            _test_hook("before-swap")
            try:
                if not real.is_dir():
                    os.rename(stage, real)
                elif _exchange(stage, real):
                    old = stage                     # now holds the previous output
                else:
                    os.rename(real, old)
                    _test_hook("mid-swap")
                    os.rename(stage, real)
            except OSError as exc:
                raise OutputProblem(out, exc, "cannot move the new output into place") from None
        except BaseException:
            with contextlib.suppress(OSError):
                if not os.path.lexists(real) and old.is_dir():
                    os.rename(old, real)
                if os.path.lexists(stage):
                    _remove(stage)
            raise
        self._move_cache(old, real, set(new) | owned)
        with contextlib.suppress(OSError):
            _remove(old)
        if report is not None:
            for path, message in notes:
                report.warn(Loc(str(path)), message, "output-replaced")
        self.kept = [out / rel for rel, src in new.items() if isinstance(src, Kept)]
        self.files = dict.fromkeys(self.files, KEPT)      # written: the bytes it held are let go
        return [out / rel for rel, src in new.items() if not isinstance(src, Kept)]

    @staticmethod
    def _cache_moves(rel: Path, made: set[Path]) -> bool:
        """True for the output folder's `.cache` when this build writes nothing into it: it is
        moved across in one rename after the swap (`_move_cache`) rather than linked file by
        file into the new output and deleted with the old one (thousands of files for a big
        game's rendered cards)."""
        return rel == CACHE_DIR and not any(p == CACHE_DIR or CACHE_DIR in p.parents for p in made)

    def _move_cache(self, old: Path, real: Path, made: set[Path]) -> None:
        """The previous output's cache folder into the new output (see `_cache_moves`).  A
        build killed just before this loses the cache, never an output: it is only a cache."""
        if not self._cache_moves(CACHE_DIR, made):
            return
        with contextlib.suppress(OSError):
            if os.path.lexists(old / CACHE_DIR) and not os.path.lexists(real / CACHE_DIR):
                os.rename(old / CACHE_DIR, real / CACHE_DIR)

    def _carry_over(self, out: Path, real: Path, stage: Path, new: set[Path], owned: set[Path]
                    ) -> list[tuple[Path, str]]:
        """Hard-link (or copy) into `stage` what the previous output has that this build keeps:
        outputs not made this time (the cache folder is moved after the swap).  Not kept: files
        replaced now, files in folders this build owns, temporary debris.  Links are kept as
        links, except where cardgen now needs its own folder or file."""
        ancestors = {a for rel in new for a in rel.parents if a != Path(".")}
        notes: list[tuple[Path, str]] = []

        def under_owned(rel: Path) -> bool:
            return any(rel == o or o in rel.parents for o in owned)

        for dirpath, dirnames, filenames in os.walk(real):
            here = Path(dirpath)
            reld = here.relative_to(real)
            descend = []
            for name in [*dirnames, *filenames]:
                src, rel = here / name, reld / name
                dst = stage / rel
                if self._cache_moves(rel, new | owned):
                    continue
                try:
                    if src.is_symlink():
                        if rel in new or rel in ancestors or under_owned(rel):
                            kind = "folder" if rel in ancestors or rel in owned else "file"
                            notes.append((out / rel, f"was a link to {display_path(os.readlink(src))}; replaced "
                                                     f"by cardgen's own {kind} (nothing in the linked place was "
                                                     f"changed or deleted)"))
                            continue
                        dst.parent.mkdir(parents=True, exist_ok=True)
                        os.symlink(os.readlink(src), dst)
                    elif name in dirnames:
                        if rel in new:
                            notes.append((out / rel, "was a folder; replaced by the file cardgen writes there"))
                        elif not under_owned(rel):
                            dst.mkdir(parents=True, exist_ok=True)
                            descend.append(name)
                    elif rel in ancestors:
                        notes.append((out / rel, "was a file; replaced by cardgen's own folder"))
                    elif rel not in new and not under_owned(rel) and not is_debris(name) and \
                            not os.path.lexists(dst):
                        dst.parent.mkdir(parents=True, exist_ok=True)
                        _link_or_copy(src, dst)
                except OSError as exc:
                    raise OutputProblem(out / rel, exc, "cannot keep the previous output's file") from None
            dirnames[:] = descend
        return notes
